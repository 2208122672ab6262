// Rectangle clears: a full-target triangle at the clear depth, cut by the scissor.

struct ClearU {
    color: vec4<f32>,
    depth: vec4<f32>,
}
@group(0) @binding(0) var<uniform> cu: ClearU;

@vertex
fn vs_clear(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4<f32> {
    let p = array<vec2<f32>, 3>(vec2(-1.0, -1.0), vec2(3.0, -1.0), vec2(-1.0, 3.0))[vi];
    return vec4(p, cu.depth.x, 1.0);
}

@fragment
fn fs_clear() -> @location(0) vec4<f32> {
    return cu.color;
}
