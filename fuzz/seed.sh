#!/usr/bin/env bash
# Seed corpora for the fuzz targets from the repository's tests and examples, and from the
# shared third-party models when present (PLUMB_ASSETS or ../../shared/assets). The corpora
# grown from the shared models are not committed; fuzz/run.sh runs this before each run.
# No pipefail: `find | head` closes its pipe early on purpose.
set -eu
cd "$(dirname "$0")"
repo=..
assets=${PLUMB_ASSETS:-$repo/../shared/assets}
mkdir -p corpus/{scene_file,gltf,glb,draco,meshopt,obj,png_texture,webp_texture,ktx2_texture,trace,diff,raster_draw,conform_merge,hdr_environment}
sep=$'\xff\xfe'
cp $repo/docs/examples/*.json corpus/scene_file/ 2>/dev/null || true
cp $repo/scene/tests/gltf_spec/*/*.gltf corpus/gltf/
if [ -d "$assets/gltf" ]; then
    # Small self-contained models only (embedded buffers), so each input stays quick.
    find "$assets/gltf" -name '*.gltf' -size -64k | while read -r f; do
        grep -q '"uri" *: *"data:' "$f" && cp "$f" "corpus/gltf/$(echo "$f" | md5sum | cut -c1-12).gltf"
    done || true
    find "$assets/gltf" -name '*.glb' -size -64k | while read -r f; do
        { printf '\x01'; cat "$f"; } > "corpus/glb/$(echo "$f" | md5sum | cut -c1-12)"
    done || true
fi
# The Draco target's input is a selector byte and a stream: each shared Draco model's buffer
# (its one view, the stream, starts at offset 0; trailing padding is ignored by the decoder),
# under four selectors (ids as the file numbers them, and swapped; with TEXCOORD_0 as Duck
# has it, and without, as Box).
if [ -d "$assets/gltf" ]; then
    find "$assets/gltf" -path '*glTF-Draco*' -name '*.bin' -size -64k | while read -r f; do
        for sel in 00 01 20 21; do
            { printf "\x$sel"; cat "$f"; } > "corpus/draco/$sel-$(echo "$f" | md5sum | cut -c1-12)"
        done
    done || true
fi
for f in corpus/gltf/*.gltf; do { printf '\x00'; cat "$f"; } > "corpus/glb/wrapped-$(basename "$f")"; done
find $repo/scene/tests $repo/docs $assets -name '*.obj' -size -32k 2>/dev/null | head -40 | while read -r f; do
    mtl="$(dirname "$f")/$(basename "$f" .obj).mtl"
    { cat "$f"; if [ -f "$mtl" ]; then printf '%s' "$sep"; cat "$mtl"; fi; } > "corpus/obj/$(echo "$f" | md5sum | cut -c1-12)"
done || true
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\nmtllib model.mtl\nusemtl m\nf 1/1/1 2/1/1 3/1/1\nl 1 2\np 3\n%snewmtl m\nKd 1 0.5 0\nmap_Kd t.png\n' "$sep" > corpus/obj/hand
# meshopt: a selector byte and a valid stream for each choice (the vertex and triangle
# vectors, an INDICES stream, an 8-byte attribute stream under each filter), committed
# under fuzz/seeds/ (made from meshoptimizer's test vectors and by hand).
cp seeds/meshopt/* corpus/meshopt/
# Basis Universal KTX2 files under 64 KiB from the shared models (ETC1S and UASTC).
if [ -d "$assets/gltf" ]; then
    find "$assets/gltf" -name '*.ktx2' -size -64k | while read -r f; do
        cp "$f" "corpus/ktx2_texture/$(echo "$f" | md5sum | cut -c1-12)"
    done || true
fi
# Lossless WebP files made by the `image` crate's encoder (plumb's own content, committed
# under fuzz/seeds/; there is no lossy encoder to make lossy seeds with).
cp seeds/webp_texture/*.webp corpus/webp_texture/
# Committed seeds every texture target decodes (scene/tests/it/fuzz_seeds.rs checks that each
# decodes to the size in its name): two refimage PNGs, and hand-made UASTC KTX2 files (one
# uncompressed level; five Zstandard levels), made as scene/tests/it/ktx2_builder.rs makes them.
cp seeds/png_texture/*.png corpus/png_texture/
# Radiance .hdr environment maps, flat and run-length scanlines, made by hand (fuzz/seeds/).
cp seeds/hdr_environment/*.hdr corpus/hdr_environment/
cp seeds/ktx2_texture/*.ktx2 corpus/ktx2_texture/
find $repo/refimages -name '*.png' -size -4k | head -30 | while read -r f; do
    cp "$f" "corpus/png_texture/$(echo "$f" | md5sum | cut -c1-12)"
    { cat "$f"; printf '%s' "$sep"; cat "$f"; } > "corpus/diff/$(echo "$f" | md5sum | cut -c1-12)"
done || true
for j in $repo/refimages/raster/*.json; do
    b="${j%.json}.bin"
    if [ -f "$b" ] && [ "$(stat -c %s "$b")" -lt 65536 ]; then
        { cat "$j"; printf '%s' "$sep"; cat "$b"; } > "corpus/trace/$(basename "$j" .json)"
    fi
done
seq 1 2000 | tr -d "\n" | head -c 4096 > corpus/raster_draw/counting
for n in 1 2 3 4 5 6 7 8; do head -c $((n * 97)) /dev/zero | tr '\0' "\\$(printf '%03o' $((n * 29)))" > corpus/raster_draw/fill$n; done
# Two shards of a real kit run (two partitions of the trace cases), and hand-made records
# naming the shard image, a foreign backend and a hostile name.
if [ -x $repo/target/release/plumb ]; then
    tmp=$(mktemp -d)
    for k in 1 2; do
        $repo/target/release/plumb conform --refimages $repo/refimages --filter raster/ --partition $k/2 --report "$tmp/s$k" >/dev/null 2>&1 || true
    done
    [ -f "$tmp/s1/results.json" ] && [ -f "$tmp/s2/results.json" ] &&
        { cat "$tmp/s1/results.json"; printf '%s' "$sep"; cat "$tmp/s2/results.json"; } > corpus/conform_merge/kit-run
    rm -rf "$tmp"
fi
rec='{"id":"a/x<\u0001>","area":"a","kind":"scene","status":"fail","message":"m\ufffe","tolerance":{"threshold":0,"max_pixels":0,"max_flip_mean":0.0,"reason":"r"},"metrics":{"pixels_over":1,"max_delta":2,"flip_mean":0.5},"seconds":0.5,"images":["img/x.png",null,"javascript:x"]}'
printf '{"format":"plumb-conform-results","version":1,"backend":"soft","cases":[%s]}%s{"format":"plumb-conform-results","version":1,"backend":"soft","cases":[]}' "$rec" "$sep" > corpus/conform_merge/hand
for t in corpus/*; do echo "$(basename "$t"): $(ls "$t" | wc -l) seeds"; done
