#!/usr/bin/env bash
# Large-input timings with peak memory (issue 11): a glTF of 10^6 nodes loaded by
# `plumb info` and rendered at 256x256, and `plumb diff` of two 8192x8192 PNGs with a heat
# map. Each line: wall time and peak resident set size (GNU time), over RUNS runs (default 1;
# the largest peak and the median time are printed).
#
#   benches/big-inputs.sh [RUNS]
#
# Builds the release binary first. Inputs are generated into target/big-inputs/.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1}
cargo build --release --quiet --bin plumb
bin="$PWD/target/release/plumb"
dir=target/big-inputs
mkdir -p "$dir"
python3 - "$dir" <<'PY'
import base64, json, os, struct, sys, zlib
d = sys.argv[1]
nodes = os.path.join(d, "nodes1m.gltf")
if not os.path.exists(nodes):
    n = 1_000_000
    buf = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0)
    doc = {
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": list(range(n))}],
        "nodes": [{"mesh": 0, "translation": [float(i % 1000), float(i // 1000), 0.0]} for i in range(n)],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                       "min": [0, 0, 0], "max": [1, 1, 0]}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 36}],
        "buffers": [{"byteLength": 36, "uri": "data:application/octet-stream;base64,"
                     + base64.b64encode(buf).decode()}],
    }
    with open(nodes, "w") as f:
        json.dump(doc, f, separators=(",", ":"))

def png(path, w, h, row):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    z = zlib.compressobj(1)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)))
        out = bytearray()
        for y in range(h):
            out += z.compress(b"\x00" + row(y))
            if len(out) > 1 << 20:
                f.write(chunk(b"IDAT", bytes(out)))
                out = bytearray()
        out += z.flush()
        f.write(chunk(b"IDAT", bytes(out)) + chunk(b"IEND", b""))

w = h = 8192
base = bytes((x * 7) & 255 for x in range(w * 3))
for name, changed in (("a8k.png", False), ("b8k.png", True)):
    p = os.path.join(d, name)
    if os.path.exists(p):
        continue
    def row(y, changed=changed):
        r = bytearray(base)
        r[0] = y & 255
        if changed and y % 512 < 16:  # a band of changes every 512 rows
            r[3000:3600] = bytes(600)
        return bytes(r)
    png(p, w, h, row)
PY
measure() {
    local label=$1
    shift
    local times=() peak=0
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "%e %M" -o "$dir/time.txt" "$@" > /dev/null || [ $? -eq 1 ]
        read -r t m < <(tail -n 1 "$dir/time.txt")
        times+=("$t")
        [ "$m" -gt "$peak" ] && peak=$m
    done
    local median
    median=$(printf '%s\n' "${times[@]}" | sort -g | sed -n "$(( (runs + 1) / 2 ))p")
    printf '%-44s %8.2f s   peak %6d MiB\n' "$label" "$median" $((peak / 1024))
}
measure "info: glTF with 10^6 nodes" "$bin" info "$dir/nodes1m.gltf"
measure "render: glTF with 10^6 nodes at 256x256" "$bin" render "$dir/nodes1m.gltf" -o "$dir/nodes.png" --size 256x256
measure "diff: 8192x8192 PNGs, heat map" "$bin" diff "$dir/a8k.png" "$dir/b8k.png" -o "$dir/heat.png"
