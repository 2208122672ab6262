#!/usr/bin/env bash
# plumb against Mesa llvmpipe on the terrain yardstick (../shared/bench/terrain.md).
#
# Builds the OSMesa probe from ../shared/bench/llvmpipe-terrain/ (needs libosmesa6-dev:
# `apt-get install -y libosmesa6-dev`) and plumb's `terrain` example, then for each grid and
# thread count alternates plumb and llvmpipe runs (ROUNDS rounds of FRAMES frames each) and
# prints the median of the per-run medians and the ratio plumb / llvmpipe, and again against
# llvmpipe with float filtering (`GALLIVM_PERF=no_aos_sampling`: its 8-bit fixed-point
# sampler off, so the ratio shows how much of its lead is filter precision). All run on the
# same machine in the same minute, so the ratio is meaningful even on a noisy machine; the
# absolute numbers are not.
#
#   benches/vs-llvmpipe.sh                 # the six rows of issue 10
#   ROUNDS=5 FRAMES=10 benches/vs-llvmpipe.sh
#   GRIDS="1x1" THREADS="1" benches/vs-llvmpipe.sh
#   PLUMB_SIMD=sse4.2 benches/vs-llvmpipe.sh   # plumb at a forced SIMD level
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
FRAMES=${FRAMES:-10}
GRIDS=${GRIDS:-"400x250 1x1 1000x1000"}
THREADS=${THREADS:-"1 2"}
PROBE_SRC=${PROBE_SRC:-../shared/bench/llvmpipe-terrain/probe.c}
WORK=${WORK:-target/vs-llvmpipe}

if ! [ -f /usr/include/GL/osmesa.h ]; then
    echo "error: OSMesa headers missing; install them with: apt-get install -y libosmesa6-dev" >&2
    exit 2
fi
if ! [ -f "$PROBE_SRC" ]; then
    echo "error: probe source not found at $PROBE_SRC (set PROBE_SRC)" >&2
    exit 2
fi
mkdir -p "$WORK"
cc -O2 -o "$WORK/probe" "$PROBE_SRC" -lOSMesa -lm
cargo build --release --example terrain >&2
PLUMB=target/release/examples/terrain

# Median of the numbers on stdin.
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# The "median X ms/frame" figure of one run's output.
ms() { sed -n 's/.*median \([0-9.]*\) ms\/frame.*/\1/p' | head -n1; }

echo "rounds: $ROUNDS x $FRAMES frames, alternating; plumb SIMD level: ${PLUMB_SIMD:-auto}"
echo
echo "| grid | threads | plumb ms/frame | llvmpipe ms/frame | plumb / llvmpipe | llvmpipe float filtering ms/frame | plumb / that |"
echo "|---|---|---|---|---|---|---|"
for grid in $GRIDS; do
    for t in $THREADS; do
        : >"$WORK/plumb.txt"
        : >"$WORK/llvmpipe.txt"
        : >"$WORK/llvmpipe-float.txt"
        for _ in $(seq "$ROUNDS"); do
            "$PLUMB" --threads "$t" --grid "$grid" --frames "$FRAMES" --out "$WORK/plumb.png" \
                | ms >>"$WORK/plumb.txt"
            (cd "$WORK" && LP_NUM_THREADS=$t PROBE_GRID=$grid GALLIUM_DRIVER=llvmpipe ./probe "$FRAMES") \
                | ms >>"$WORK/llvmpipe.txt"
            (cd "$WORK" && GALLIVM_PERF=no_aos_sampling LP_NUM_THREADS=$t PROBE_GRID=$grid \
                GALLIUM_DRIVER=llvmpipe ./probe "$FRAMES") | ms >>"$WORK/llvmpipe-float.txt"
        done
        p=$(median <"$WORK/plumb.txt")
        l=$(median <"$WORK/llvmpipe.txt")
        f=$(median <"$WORK/llvmpipe-float.txt")
        r=$(awk -v p="$p" -v l="$l" 'BEGIN {printf "%.2f", p / l}')
        rf=$(awk -v p="$p" -v l="$f" 'BEGIN {printf "%.2f", p / l}')
        echo "| $grid | $t | $p | $l | $r | $f | $rf |"
    done
done
