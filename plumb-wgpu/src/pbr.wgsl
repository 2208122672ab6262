// glTF's metallic-roughness material lit per pixel: plumb-raster's PBR stage (shading/pbr.rs,
// shading/environment.rs, fragment/pbr_shader.rs) in WGSL, formula for formula. Appended to
// fixed.wgsl, whose vertex stage runs a PBR draw (lighting mode 3: eye position, normal and
// tangent per pixel) and whose samplers read the material's textures (its units, in the order
// base colour, metallic-roughness, normal, occlusion, emissive, those present). uniforms.rs
// mirrors `Pbr`.

struct Pbr {
    base: vec4<f32>,     // baseColorFactor (linear RGBA)
    emissive: vec4<f32>, // emissive factor × strength, normal scale
    params: vec4<f32>,   // metallic, roughness, occlusion strength, light count
    flags: vec4<f32>,    // opaque, double-sided, orthographic, has environment
    units_a: vec4<f32>,  // unit of base colour, metallic-roughness, normal, occlusion (-1: none)
    units_b: vec4<f32>,  // unit of emissive, tone map (0 none, 1 ACES, 2 neutral), encoding (0 sRGB, 1 linear), exposure
    ambient: vec4<f32>,  // the lights' ambient sum, environment intensity
    world_from_eye: mat4x4<f32>, // the environment's rotation (upper 3×3)
    sh: array<vec4<f32>, 9>,     // the environment's diffuse SH coefficients
    levels: array<vec4<f32>, 6>, // the specular chain: first texel in `env`, width, height
    table: vec4<f32>,            // first entry of the split-sum table in `env`, its side
}

@group(0) @binding(11) var<uniform> pbr: Pbr;
// The draw's lights (light.rs `PreparedLight` as fixed.wgsl's `Light`; `diffuse` holds the
// unclamped irradiance, `extra.w` glTF's 1/range, 0 for none).
@group(0) @binding(12) var<storage, read> pbr_lights: array<Light>;
// The environment's specular chain (rgb per texel) and the split-sum table (a, b per entry).
@group(0) @binding(13) var<storage, read> env: array<vec4<f32>>;

const PI: f32 = 3.14159265358979;
const MIN_ALPHA2: f32 = 1e-6;

// ---------------------------------------------------------------- colour (pbr.rs)

fn srgb_to_linear(x_in: f32) -> f32 {
    let x = sat(x_in);
    if x <= 0.04045 { return x * (1.0 / 12.92); }
    return pow((x + 0.055) * (1.0 / 1.055), 2.4);
}

fn linear_to_srgb(x_in: f32) -> f32 {
    let x = sat(x_in);
    if x <= 0.0031308 { return x * 12.92; }
    return 1.055 * pow(x, 1.0 / 2.4) - 0.055;
}

fn aces_filmic(c_in: vec3<f32>) -> vec3<f32> {
    let c = c_in * (1.0 / 0.6);
    let i = vec3(dot(vec3(0.59719, 0.35458, 0.04823), c),
                 dot(vec3(0.07600, 0.90834, 0.01566), c),
                 dot(vec3(0.02840, 0.13383, 0.83777), c));
    let f = (i * (i + 0.0245786) - 0.000090537) / (i * (0.983729 * i + 0.432951) + 0.238081);
    return vec3(dot(vec3(1.60475, -0.53108, -0.07367), f),
                dot(vec3(-0.10208, 1.10813, -0.00605), f),
                dot(vec3(-0.00327, -0.07276, 1.07602), f));
}

fn pbr_neutral(c_in: vec3<f32>) -> vec3<f32> {
    let start = 0.8 - 0.04;
    let desaturation = 0.15;
    let x = min(c_in.x, min(c_in.y, c_in.z));
    var offset = 0.04;
    if x < 0.08 { offset = x - 6.25 * x * x; }
    var c = c_in - vec3(offset);
    let peak = max(c.x, max(c.y, c.z));
    if peak < start { return c; }
    let d = 1.0 - start;
    let new_peak = 1.0 - d * d / (peak + d - start);
    c *= new_peak / peak;
    let g = 1.0 - 1.0 / (desaturation * (peak - new_peak) + 1.0);
    return c + (vec3(new_peak) - c) * g;
}

// Exposure, tone map, clamp, encoding (pbr.rs `finish`).
fn finish(c_in: vec3<f32>) -> vec3<f32> {
    var c = c_in * pbr.units_b.w;
    let tm = u32(pbr.units_b.y);
    if tm == 1u { c = aces_filmic(c); } else if tm == 2u { c = pbr_neutral(c); }
    c = sat3(c);
    if pbr.units_b.z > 0.5 { return c; }
    return vec3(linear_to_srgb(c.x), linear_to_srgb(c.y), linear_to_srgb(c.z));
}

// ---------------------------------------------------------------- environment (environment.rs)

fn uv_of(d: vec3<f32>) -> vec2<f32> {
    return vec2(atan2(d.z, d.x) * (0.5 / PI) + 0.5, 0.5 - asin(clamp(d.y, -1.0, 1.0)) / PI);
}

fn env_texel(first: u32, w: u32, x: u32, y: u32) -> vec3<f32> {
    return env[first + y * w + x].xyz;
}

// Level `k` bilinear at `uv`: columns wrap, rows clamp (`Equirect::sample_uv`).
fn env_level(k: u32, uv: vec2<f32>) -> vec3<f32> {
    let lv = pbr.levels[k];
    let first = u32(lv.x);
    let w = u32(lv.y);
    let h = u32(lv.z);
    let fx = uv.x * lv.y - 0.5;
    let fy = clamp(uv.y * lv.z - 0.5, 0.0, lv.z - 1.0);
    let x0 = floor(fx);
    let y0 = floor(fy);
    let tx = fx - x0;
    let ty = fy - y0;
    let wi = i32(w);
    let xa = u32(floor_mod(i32(x0), wi));
    let xb = u32(floor_mod(i32(x0) + 1, wi));
    let ya = u32(y0);
    let yb = min(ya + 1u, h - 1u);
    let top = mix(env_texel(first, w, xa, ya), env_texel(first, w, xb, ya), tx);
    let bottom = mix(env_texel(first, w, xa, yb), env_texel(first, w, xb, yb), tx);
    return mix(top, bottom, ty);
}

fn env_diffuse(n: vec3<f32>) -> vec3<f32> {
    let y = array<f32, 9>(
        0.282095,
        0.488603 * n.y,
        0.488603 * n.z,
        0.488603 * n.x,
        1.092548 * n.x * n.y,
        1.092548 * n.y * n.z,
        0.315392 * (3.0 * n.z * n.z - 1.0),
        1.092548 * n.x * n.z,
        0.546274 * (n.x * n.x - n.y * n.y));
    var out = vec3(0.0);
    for (var k = 0u; k < 9u; k++) { out += pbr.sh[k].xyz * y[k]; }
    return max(out, vec3(0.0));
}

fn env_specular(r: vec3<f32>, roughness: f32) -> vec3<f32> {
    let f = sat(roughness) * 5.0;
    let k = min(u32(f), 4u);
    let t = f - f32(k);
    let uv = uv_of(r);
    return mix(env_level(k, uv), env_level(k + 1u, uv), t);
}

// The split sum's (a, b) at N·V and roughness, bilinear (pbr.rs `env_brdf`).
fn env_brdf(n_v: f32, roughness: f32) -> vec2<f32> {
    let side = u32(pbr.table.y);
    let first = u32(pbr.table.x);
    let fx = sat(n_v) * f32(side - 1u);
    let i = min(u32(fx), side - 2u);
    let tx = fx - f32(i);
    let fy = sat(roughness) * f32(side - 1u);
    let j = min(u32(fy), side - 2u);
    let ty = fy - f32(j);
    let e00 = env[first + j * side + i].xy;
    let e10 = env[first + j * side + i + 1u].xy;
    let e01 = env[first + (j + 1u) * side + i].xy;
    let e11 = env[first + (j + 1u) * side + i + 1u].xy;
    let top = e00 + (e10 - e00) * tx;
    let bottom = e01 + (e11 - e01) * tx;
    return top + (bottom - top) * ty;
}

// FssEss, FmsEms and k_D for one channel (pbr.rs `ambient_terms`).
fn ambient_terms(f0: f32, c_diff: f32, fw: f32, r: f32, ab: vec2<f32>) -> vec3<f32> {
    let k_s = f0 + (max(1.0 - r, f0) - f0) * fw;
    let fss_ess = k_s * ab.x + ab.y;
    let ems = 1.0 - (ab.x + ab.y);
    let f_avg = f0 + (1.0 - f0) * (1.0 / 21.0);
    let fms_ems = ems * fss_ess * f_avg / (1.0 - f_avg * ems);
    let k_d = c_diff * (1.0 - fss_ess - fms_ems);
    return vec3(fss_ess, fms_ems, k_d);
}

// The dielectric and metal lobes mixed by `m`, lit by specular radiance `spec` and diffuse
// radiance `diff` (pbr.rs `ibl_combine`; a uniform environment's radiance is both).
fn env_lobes(base: f32, m: f32, r: f32, fw: f32, ab: vec2<f32>, spec: f32, diff: f32) -> f32 {
    let d = ambient_terms(0.04, base, fw, r, ab);
    let mt = ambient_terms(base, 0.0, fw, r, ab);
    let dielectric = d.x * spec + (d.y + d.z) * diff;
    let metal = mt.x * spec + (mt.y + mt.z) * diff;
    return dielectric + (metal - dielectric) * m;
}

// ---------------------------------------------------------------- the BRDF (pbr.rs `shade_pixel`)

struct Surface {
    pos: vec3<f32>,
    n: vec3<f32>,
    base: vec3<f32>,
    metallic: f32,
    roughness: f32,
    occlusion: f32,
    emissive: vec3<f32>,
}

fn shade_pbr(p: Surface, view: vec3<f32>) -> vec3<f32> {
    let n = p.n;
    let m = sat(p.metallic);
    let r = sat(p.roughness);
    let a = r * r;
    let a2 = max(a * a, MIN_ALPHA2);
    let c_diff = p.base * (1.0 - m);
    let f0 = vec3(0.04 * (1.0 - m)) + p.base * m;
    let n_v = sat(dot(n, view));
    let gv_root = sqrt(n_v * n_v * (1.0 - a2) + a2);
    var lo = vec3(0.0);
    let count = u32(pbr.params.w);
    for (var i = 0u; i < count; i++) {
        let l = pbr_lights[i];
        let tf = towards(l, p.pos);
        var factor = tf.w;
        if l.extra.w > 0.0 {
            let rr = length(l.vector.xyz - p.pos) * l.extra.w;
            factor *= clamp(1.0 - (rr * rr) * (rr * rr), 0.0, 1.0);
        }
        let e = l.diffuse.xyz * factor;
        let n_l_raw = dot(n, tf.xyz);
        if n_l_raw > 0.0 {
            let h = normalize_or_zero(tf.xyz + view);
            let n_l = sat(n_l_raw);
            let n_h = sat(dot(n, h));
            let v_h = sat(dot(view, h));
            let x = 1.0 - v_h;
            let x2 = x * x;
            let fw = x2 * x2 * x;
            let d = n_h * n_h * (a2 - 1.0) + 1.0;
            let dist = a2 / (PI * (d * d));
            let sum = n_l * gv_root + n_v * sqrt(n_l * n_l * (1.0 - a2) + a2);
            let vis = select(0.0, 0.5 / sum, sum > 0.0);
            let f = f0 + (vec3(1.0) - f0) * fw;
            let diffuse = (vec3(1.0) - f) * c_diff * (1.0 / PI);
            let spec = f * (dist * vis);
            lo += (diffuse + spec) * (e * n_l);
        }
    }
    let x = 1.0 - n_v;
    let x2 = x * x;
    let fw = x2 * x2 * x;
    let ab = env_brdf(n_v, r);
    // The uniform ambient and the environment meet the same lobes, which are linear in the
    // radiances: one evaluation with their sums (the CPU adds the two evaluations; the same
    // value up to rounding).
    var spec_env = pbr.ambient.xyz;
    var diff_env = pbr.ambient.xyz;
    if pbr.flags.w > 0.5 {
        let reflected = n * (2.0 * dot(n, view)) - view;
        let wfe = mat3x3(pbr.world_from_eye[0].xyz, pbr.world_from_eye[1].xyz, pbr.world_from_eye[2].xyz);
        let k = pbr.ambient.w;
        diff_env += env_diffuse(normalize_or_zero(wfe * n)) * k;
        spec_env += env_specular(normalize_or_zero(wfe * reflected), r) * k;
    }
    let lit_env = vec3(env_lobes(p.base.x, m, r, fw, ab, spec_env.x, diff_env.x),
                   env_lobes(p.base.y, m, r, fw, ab, spec_env.y, diff_env.y),
                   env_lobes(p.base.z, m, r, fw, ab, spec_env.z, diff_env.z));
    return lo + lit_env * p.occlusion + p.emissive;
}

// ---------------------------------------------------------------- the fragment stage

// Unit `k`'s filtered value (1 when the material has no such texture: `k` < 0).
fn material_texture(k: f32, tc: UnitCoords) -> vec4<f32> {
    if k < 0.0 { return vec4(1.0); }
    let i = u32(k);
    return sample_grad(i, tc.uv[i], tc.dx[i], tc.dy[i]);
}

@fragment
fn fs_pbr(in: FIn, @builtin(front_facing) ff: bool) -> @location(0) vec4<f32> {
    var front = ff;
    if u32(u.f0.w) != 0u { front = in.bsec.w > 0.5; }
    // Derivatives in uniform control flow, as `fs`.
    let tc = unit_coords(in);
    let tb = material_texture(pbr.units_a.x, tc);
    let base = pbr.base * in.prim * vec4(srgb_to_linear(tb.x), srgb_to_linear(tb.y), srgb_to_linear(tb.z), tb.w);
    let mr = material_texture(pbr.units_a.y, tc);
    let occ = material_texture(pbr.units_a.w, tc);
    let te = material_texture(pbr.units_b.x, tc);
    var s: Surface;
    s.pos = in.eye.xyz;
    s.base = base.xyz;
    s.metallic = pbr.params.x * mr.z;
    s.roughness = pbr.params.y * mr.y;
    s.occlusion = 1.0;
    if pbr.units_a.w >= 0.0 { s.occlusion = 1.0 + pbr.params.z * (occ.x - 1.0); }
    s.emissive = pbr.emissive.xyz;
    if pbr.units_b.x >= 0.0 {
        s.emissive *= vec3(srgb_to_linear(te.x), srgb_to_linear(te.y), srgb_to_linear(te.z));
    }
    let n0 = normalize_or_zero(in.nrm.xyz);
    var n = n0;
    if pbr.units_a.z >= 0.0 {
        let tn = material_texture(pbr.units_a.z, tc);
        let k = pbr.emissive.w;
        let nt = vec3((tn.x * 2.0 - 1.0) * k, (tn.y * 2.0 - 1.0) * k, tn.z * 2.0 - 1.0);
        // Gram–Schmidt: T ⟂ N, B = (N × T)·sign(w).
        let t0 = in.bprim.xyz;
        let t = normalize_or_zero(t0 - n0 * dot(n0, t0));
        let b = cross(n0, t) * select(1.0, -1.0, in.bprim.w < 0.0);
        n = normalize_or_zero(t * nt.x + b * nt.y + n0 * nt.z);
    }
    if pbr.flags.y > 0.5 && !front { n = -n; }
    var view = vec3(0.0, 0.0, 1.0);
    if pbr.flags.z < 0.5 { view = normalize_or_zero(-s.pos); }
    s.n = n;
    var color = vec4(finish(shade_pbr(s, view)), 1.0);
    if pbr.flags.x < 0.5 { color.w = sat(base.w); }
    // The probes show unit 0, the first of the material's textures.
    return fragment_out(color, tc);
}
