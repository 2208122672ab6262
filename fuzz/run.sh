#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 60) with memory and time limits that make
# blow-ups count as crashes: -rss_limit_mb=2048 (a 2 GB process), -timeout=10 s per input,
# inputs up to 64 KiB; one target per core at a time. Prints each target's executions,
# corpus size and coverage (libFuzzer's final stats). Needs `cargo install cargo-fuzz`;
# stable toolchain, so no sanitizer (`-s none`).
#
#   fuzz/run.sh 60          # a short run of every target (what .ci/run does)
#   fuzz/run.sh 3600 gltf   # a long run of one target
#
# FUZZ_SEED=N fixes libFuzzer's random seed (0, the default, picks one).
#
# The targets that write their input to files (obj, diff, conform_merge, …) do it under the
# system's temporary folder; on a disk that costs more than the parsing: obj ran 5,998 inputs
# in 10 s with /tmp on disk and 12,936 with /dev/shm (same machine, same load, its grown
# corpus). So the runs use /dev/shm when it is there (TMPDIR, if set, wins).
set -euo pipefail
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
    export TMPDIR=/dev/shm
fi
cd "$(dirname "$0")"
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(scene_file gltf glb draco meshopt obj png_texture webp_texture ktx2_texture trace diff raster_draw conform_merge hdr_environment)
# Every run re-seeds (cheap, idempotent): the committed corpora lack the inputs copied from
# the shared models, which are never committed.
./seed.sh >/dev/null
# cargo-fuzz forces one codegen unit on every crate unless told otherwise (it passes
# -Ccodegen-units through RUSTFLAGS, over the profile's). Four: the build takes 311 s instead
# of 383 s of a 2-core machine, at a similar rate of executions (20 s runs, old → new:
# raster_draw 60,075 → 50,773, scene_file 252,203 → 341,811). `run` gets the same flags, or it
# would build everything again.
build=(-s none -O --codegen-units 4)
cargo fuzz build "${build[@]}"
mkdir -p logs
# libFuzzer runs on one core; run as many targets at once as the machine has cores (FUZZ_JOBS
# overrides), so each still gets SECONDS of a core of its own.
jobs=${FUZZ_JOBS:-$(nproc)}
run_one() {
    local t=$1
    mkdir -p "corpus/$t" "artifacts/$t"
    if cargo fuzz run "${build[@]}" "$t" "corpus/$t" -- \
        -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
        -print_final_stats=1 -seed="${FUZZ_SEED:-0}" -artifact_prefix="artifacts/$t/" \
        > "logs/$t.log" 2>&1; then
        echo ok > "logs/$t.status"
    else
        echo failed > "logs/$t.status"
    fi
}
for t in "${targets[@]}"; do
    rm -f "logs/$t.status"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    echo "== $t (${secs}s)"
    run_one "$t" &
done
wait
failed=0
for t in "${targets[@]}"; do
    echo "== $t"
    if [ "$(cat "logs/$t.status" 2>/dev/null)" != ok ]; then
        tail -40 "logs/$t.log"
        echo "fuzz target $t failed: see fuzz/logs/$t.log and fuzz/artifacts/$t/"
        failed=1
        continue
    fi
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb|^Done|cov:" "logs/$t.log" | tail -3
    echo "corpus: $(ls "corpus/$t" | wc -l) inputs"
done
exit "$failed"
