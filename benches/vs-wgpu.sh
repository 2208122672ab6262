#!/usr/bin/env bash
# plumb against plumb-wgpu on the terrain yardstick (../shared/bench/terrain.md), same run.
#
# Builds plumb-wgpu's `terrain_wgpu` example (the scene of examples/terrain.rs through any
# DrawTarget) and alternates runs of plumb's CPU Context and the wgpu target (on whatever
# Vulkan adapter there is: Mesa's lavapipe on a machine without a GPU, so this is a second
# llvmpipe-class comparison point), ROUNDS rounds of FRAMES frames each; prints the median
# of the per-run medians and the ratio plumb / wgpu. A wgpu frame includes submitting and
# waiting for the device. lavapipe's threads: LP_NUM_THREADS (set to the plumb thread count).
#
#   benches/vs-wgpu.sh
#   ROUNDS=5 FRAMES=10 GRIDS="400x250" THREADS="1 2" benches/vs-wgpu.sh
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
FRAMES=${FRAMES:-10}
GRIDS=${GRIDS:-"400x250"}
THREADS=${THREADS:-"1 2"}
WORK=${WORK:-target/vs-wgpu}
PROFILE=${PROFILE:-release}

mkdir -p "$WORK"
cargo build --profile "$PROFILE" -p plumb-wgpu --example terrain_wgpu >&2
BIN=target/$PROFILE/examples/terrain_wgpu

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ms() { sed -n 's/.*median \([0-9.]*\) ms\/frame.*/\1/p' | head -n1; }

echo "rounds: $ROUNDS x $FRAMES frames, alternating; adapter: $("$BIN" --backend wgpu --grid 1x1 --frames 1 | sed -n 's/^backend: wgpu on \(.*\)  grid.*/\1/p')"
echo
echo "| grid | threads | plumb ms/frame | plumb-wgpu ms/frame | plumb / wgpu |"
echo "|---|---|---|---|---|"
for grid in $GRIDS; do
    for t in $THREADS; do
        : >"$WORK/plumb.txt"
        : >"$WORK/wgpu.txt"
        for _ in $(seq "$ROUNDS"); do
            "$BIN" --backend soft --threads "$t" --grid "$grid" --frames "$FRAMES" | ms >>"$WORK/plumb.txt"
            LP_NUM_THREADS=$t "$BIN" --backend wgpu --grid "$grid" --frames "$FRAMES" | ms >>"$WORK/wgpu.txt"
        done
        p=$(median <"$WORK/plumb.txt")
        g=$(median <"$WORK/wgpu.txt")
        r=$(awk -v p="$p" -v g="$g" 'BEGIN {printf "%.2f", p / g}')
        echo "| $grid | $t | $p | $g | $r |"
    done
done
