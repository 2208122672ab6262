// plumb's fixed-function pipeline in WGSL. uniforms.rs mirrors the uniform structs as
// `#[repr(C)]` Rust structs, field for field, and its tests compare the two layouts through
// naga. Every formula mirrors plumb-raster: light.rs, combine.rs, fog.rs, texture/filter.rs,
// fixed_function.rs.

enable clip_distances;

struct Light {
    k: vec4<f32>,        // kind (0 ambient, 1 directional, 2 point, 3 spot), has cone, cos cutoff, exponent
    vector: vec4<f32>,   // directional: unit vector towards the light; else position
    spot_dir: vec4<f32>, // xyz unit axis, w: has smooth edge
    ambient: vec4<f32>,
    diffuse: vec4<f32>,
    specular: vec4<f32>,
    atten: vec4<f32>,    // constant, linear, quadratic, has range
    extra: vec4<f32>,    // smooth scale, smooth offset, 1 / range
}

struct Unit {
    matrix: mat4x4<f32>,
    planes: array<vec4<f32>, 4>,
    constant: vec4<f32>,
    border: vec4<f32>,
    samp0: vec4<f32>, // mag (0 nearest, 1 linear), min (0..5 in MinFilter order), wrap u, wrap v
    samp1: vec4<f32>, // lod bias, min lod, max lod, level count
    samp2: vec4<f32>, // texgen (0 uv, 1 object, 2 eye, 3 sphere), uv set, apply, switch point
    samp3: vec4<f32>, // max anisotropy
    comb0: vec4<f32>, // rgb fn, alpha fn, rgb scale, alpha scale
    comb1: vec4<f32>, // rgb sources
    comb2: vec4<f32>, // rgb operands
    comb3: vec4<f32>, // alpha sources
    comb4: vec4<f32>, // alpha operands
}

struct Draw {
    clip_from_model: mat4x4<f32>,
    view_from_model: mat4x4<f32>,
    normal_mat: mat4x4<f32>,
    vp_scale: vec4<f32>,
    vp_offset: vec4<f32>,
    f0: vec4<f32>, // fixed draw, lighting (0 none, 1 vertex, 2 pixel, 3 PBR: pbr.wgsl), unit count (unused: the UNITS constant), primitive (0 tri, 1 line, 2 point)
    f1: vec4<f32>, // flat, two-sided, separate specular, colour material
    f2: vec4<f32>, // local viewer, light count, shininess, material alpha
    fog0: vec4<f32>, // mode (0 none, 1 linear, 2 exp, 3 exp2), per pixel, radial
    fog1: vec4<f32>, // start, end, density
    fog_color: vec4<f32>,
    alpha: vec4<f32>, // alpha func, reference, quantise (blending off), probe (0 off; texel probe 1, 2 blended; weight probe 3, 4 blended)
    sizes: vec4<f32>, // target width, height, point half size, line half width
    attr: vec4<f32>, // stride, normal offset, colour offset, first uv offset (-1: none)
    attr2: vec4<f32>, // fog offset, uv set count, tangent offset (-1: none)
    global_ambient: vec4<f32>,
    emissive: vec4<f32>,
    m_ambient: vec4<f32>,
    m_diffuse: vec4<f32>,
    m_specular: vec4<f32>,
    planes: array<vec4<f32>, 6>,
    plane_on: array<vec4<f32>, 2>,
    lights: array<Light, 8>,
    units: array<Unit, 8>,
}

// The draw's number of texture units, a pipeline constant (pipeline.rs `PipeKey::units`): loops
// over units have a trip count known when the pipeline is compiled, so the compiler unrolls
// them and resolves each unit's texture switch, and untextured draws skip texturing entirely.
override UNITS: u32 = 8u;
// Triangles drawn indexed (pipeline.rs `PipeKey::indexed`): `vertex_index` is then the vertex
// itself, not the corner's position in the primitive list.
override INDEXED: bool = false;

@group(0) @binding(0) var<uniform> u: Draw;
@group(0) @binding(1) var<storage, read> vdata: array<f32>;
@group(0) @binding(2) var<storage, read> idx: array<u32>;
@group(0) @binding(3) var tex0: texture_2d<f32>;
@group(0) @binding(4) var tex1: texture_2d<f32>;
@group(0) @binding(5) var tex2: texture_2d<f32>;
@group(0) @binding(6) var tex3: texture_2d<f32>;
@group(0) @binding(7) var tex4: texture_2d<f32>;
@group(0) @binding(8) var tex5: texture_2d<f32>;
@group(0) @binding(9) var tex6: texture_2d<f32>;
@group(0) @binding(10) var tex7: texture_2d<f32>;

// ---------------------------------------------------------------- helpers

fn sat(x: f32) -> f32 {
    // NaN falls through to 0, as plumb's `sat`.
    if x > 0.0 {
        if x < 1.0 { return x; }
        return 1.0;
    }
    return 0.0;
}
fn sat3(v: vec3<f32>) -> vec3<f32> { return vec3(sat(v.x), sat(v.y), sat(v.z)); }
fn sat4(v: vec4<f32>) -> vec4<f32> { return vec4(sat(v.x), sat(v.y), sat(v.z), sat(v.w)); }

fn normalize_or_zero(v: vec3<f32>) -> vec3<f32> {
    let l = length(v);
    if l > 0.0 && l < 3.0e38 { return v / l; }
    return vec3(0.0);
}

fn powf(x: f32, y: f32) -> f32 {
    if y == 0.0 { return 1.0; }
    if x <= 0.0 { return 0.0; }
    return pow(x, y);
}

fn rd(i: u32) -> f32 { return vdata[i]; }

// ---------------------------------------------------------------- lighting (light.rs)

struct Lit { prim: vec4<f32>, sec: vec3<f32> }

// The unit vector from `pos` towards the light (xyz) and its attenuation × spot factor (w),
// 1 for a directional light (light.rs `PreparedLight::towards`).
fn towards(l: Light, pos: vec3<f32>) -> vec4<f32> {
    if u32(l.k.x) == 1u { return vec4(l.vector.xyz, 1.0); }
    let d = l.vector.xyz - pos;
    let dist = length(d);
    let to_light = normalize_or_zero(d);
    let denom = l.atten.x + l.atten.y * dist + l.atten.z * (dist * dist);
    var factor = select(0.0, 1.0 / denom, denom > 0.0);
    if l.k.y > 0.5 {
        let cos_a = -dot(to_light, l.spot_dir.xyz);
        if cos_a < l.k.z {
            factor = 0.0;
        } else {
            factor *= powf(max(cos_a, 0.0), l.k.w);
        }
        if l.spot_dir.w > 0.5 {
            let t = clamp(cos_a * l.extra.x + l.extra.y, 0.0, 1.0);
            factor *= t * t;
        }
    }
    if l.atten.w > 0.5 {
        let r = dist * l.extra.z;
        let w = clamp(1.0 - (r * r) * (r * r), 0.0, 1.0);
        factor *= w * w;
    }
    return vec4(to_light, factor);
}

fn shade(pos: vec3<f32>, normal_in: vec3<f32>, vcol: vec4<f32>, front: bool) -> Lit {
    var n = normalize_or_zero(normal_in);
    if u.f1.y > 0.5 && !front { n = -n; }
    var m_amb = u.m_ambient.xyz;
    var m_dif = u.m_diffuse.xyz;
    var alpha = u.f2.w;
    if u.f1.w > 0.5 {
        m_amb = vcol.xyz;
        m_dif = vcol.xyz;
        alpha = vcol.w;
    }
    var eye = vec3(0.0, 0.0, 1.0);
    if u.f2.x > 0.5 { eye = normalize_or_zero(-pos); }
    var color = u.emissive.xyz + m_amb * u.global_ambient.xyz;
    var spec = vec3(0.0);
    let count = u32(u.f2.y);
    for (var i = 0u; i < count; i++) {
        let l = u.lights[i];
        let kind = u32(l.k.x);
        if kind == 0u {
            color += m_amb * l.ambient.xyz;
            continue;
        }
        let tf = towards(l, pos);
        let to_light = tf.xyz;
        let factor = tf.w;
        let ndotl = dot(n, to_light);
        var term = m_amb * l.ambient.xyz;
        if ndotl > 0.0 {
            term += ndotl * (m_dif * l.diffuse.xyz);
            let ms_ls = u.m_specular.xyz * l.specular.xyz;
            if any(ms_ls != vec3(0.0)) {
                let h = normalize_or_zero(to_light + eye);
                let ndoth = max(dot(n, h), 0.0);
                spec += factor * (powf(ndoth, u.f2.z) * ms_ls);
            }
        }
        color += factor * term;
    }
    var out: Lit;
    if u.f1.z > 0.5 {
        out.prim = vec4(sat3(color), sat(alpha));
        out.sec = sat3(spec);
    } else {
        out.prim = vec4(sat3(color + spec), sat(alpha));
        out.sec = vec3(0.0);
    }
    return out;
}

// ---------------------------------------------------------------- fog (fog.rs)

fn fog_factor(z: f32) -> f32 {
    let mode = u32(u.fog0.x);
    var f = 1.0;
    if mode == 1u {
        let s = u.fog1.x;
        let e = u.fog1.y;
        if e == s {
            f = select(0.0, 1.0, z < s);
        } else {
            f = (e - z) / (e - s);
        }
    } else if mode == 2u {
        f = exp(-u.fog1.z * z);
    } else if mode == 3u {
        let dz = u.fog1.z * z;
        f = exp(-(dz * dz));
    }
    return clamp(f, 0.0, 1.0);
}

fn fog_distance(pos_eye: vec3<f32>) -> f32 {
    if u.fog0.z > 0.5 { return length(pos_eye); }
    return abs(pos_eye.z);
}

// ---------------------------------------------------------------- vertex stage

struct Stage {
    clip: vec4<f32>,
    prim: vec4<f32>,
    sec: vec3<f32>,
    bprim: vec4<f32>,
    bsec: vec3<f32>,
    stq: array<vec4<f32>, 8>,
    fog: f32,
    eye: vec3<f32>,
    nrm: vec3<f32>,
}

fn vpos(v: u32) -> vec4<f32> {
    let b = v * u32(u.attr.x);
    if u.f0.x > 0.5 {
        return u.clip_from_model * vec4(rd(b), rd(b + 1u), rd(b + 2u), 1.0);
    }
    return vec4(rd(b), rd(b + 1u), rd(b + 2u), rd(b + 3u));
}

fn vcolor(v: u32) -> vec4<f32> {
    let o = u.attr.z;
    if o < 0.0 { return vec4(1.0); }
    let b = v * u32(u.attr.x) + u32(o);
    return vec4(rd(b), rd(b + 1u), rd(b + 2u), rd(b + 3u));
}

fn vuv(v: u32, uv_set: u32) -> vec2<f32> {
    let b = v * u32(u.attr.x) + u32(u.attr.w) + 2u * uv_set;
    return vec2(rd(b), rd(b + 1u));
}

// The colour block of vertex `v` (lit or not); the rest of the stage for `v` too.
fn stage(v: u32) -> Stage {
    var s: Stage;
    s.clip = vpos(v);
    let color = vcolor(v);
    s.prim = color;
    s.sec = vec3(0.0);
    s.bprim = color;
    s.bsec = vec3(0.0);
    s.fog = 1.0;
    s.eye = vec3(0.0);
    s.nrm = vec3(0.0, 0.0, 1.0);
    for (var k = 0u; k < 8u; k++) { s.stq[k] = vec4(0.0, 0.0, 1.0, 0.0); }
    if u.f0.x < 0.5 {
        // A pre-transformed draw: colour only (plumb's VertexColorShader).
        return s;
    }
    let b = v * u32(u.attr.x);
    let p = vec3(rd(b), rd(b + 1u), rd(b + 2u));
    let pos_eye4 = u.view_from_model * vec4(p, 1.0);
    let pos_eye = pos_eye4.xyz;
    s.eye = pos_eye;
    var normal = vec3(0.0, 0.0, 1.0);
    if u.attr.y >= 0.0 {
        let nb = b + u32(u.attr.y);
        let n_obj = vec3(rd(nb), rd(nb + 1u), rd(nb + 2u));
        let nm = mat3x3(u.normal_mat[0].xyz, u.normal_mat[1].xyz, u.normal_mat[2].xyz);
        normal = normalize_or_zero(nm * n_obj);
    }
    s.nrm = normal;
    let lit = u32(u.f0.y);
    if lit == 1u {
        // Front, then back when two-sided: one call site keeps the shader small.
        let sides = select(1u, 2u, u.f1.y > 0.5);
        for (var side = 0u; side < sides; side++) {
            let f = shade(pos_eye, normal, color, side == 0u);
            if side == 0u {
                s.prim = f.prim;
                s.sec = f.sec;
            }
            s.bprim = f.prim;
            s.bsec = f.sec;
        }
    }
    if lit == 3u && u.attr2.z >= 0.0 {
        // A PBR draw's eye-space unit tangent and handedness, in the back colour's place
        // (vertex_stage.rs: the upper 3×3 of view_from_model, normalised).
        let tb = b + u32(u.attr2.z);
        let vm = mat3x3(u.view_from_model[0].xyz, u.view_from_model[1].xyz, u.view_from_model[2].xyz);
        s.bprim = vec4(normalize_or_zero(vm * vec3(rd(tb), rd(tb + 1u), rd(tb + 2u))), rd(tb + 3u));
    }
    for (var k = 0u; k < UNITS; k++) {
        let un = u.units[k];
        let gen = u32(un.samp2.x);
        var c = vec4(0.0, 0.0, 0.0, 1.0);
        if gen == 0u {
            let uv = vuv(v, u32(un.samp2.y));
            c = vec4(uv, 0.0, 1.0);
        } else if gen == 1u || gen == 2u {
            var h = vec4(p, 1.0);
            if gen == 2u { h = vec4(pos_eye, 1.0); }
            c = vec4(dot(un.planes[0], h), dot(un.planes[1], h), dot(un.planes[2], h), dot(un.planes[3], h));
        } else {
            let u_eye = normalize_or_zero(pos_eye);
            let r = u_eye - normal * (2.0 * dot(normal, u_eye));
            var mm = 2.0 * sqrt(r.x * r.x + r.y * r.y + (r.z + 1.0) * (r.z + 1.0));
            if !(mm > 0.0) { mm = 1.0; }
            c = vec4(r.x / mm + 0.5, r.y / mm + 0.5, 0.0, 1.0);
        }
        let t = un.matrix * c;
        s.stq[k] = vec4(t.x, t.y, t.w, 0.0);
    }
    if u32(u.fog0.x) != 0u {
        let d = fog_distance(pos_eye);
        if u.fog0.y > 0.5 { s.fog = d; } else { s.fog = fog_factor(d); }
    }
    return s;
}

fn mix_stage(a: Stage, b: Stage, t: f32) -> Stage {
    var s = a;
    s.clip = mix(a.clip, b.clip, t);
    s.prim = mix(a.prim, b.prim, t);
    s.sec = mix(a.sec, b.sec, t);
    s.bprim = mix(a.bprim, b.bprim, t);
    s.bsec = mix(a.bsec, b.bsec, t);
    for (var k = 0u; k < 8u; k++) { s.stq[k] = mix(a.stq[k], b.stq[k], t); }
    s.fog = mix(a.fog, b.fog, t);
    s.eye = mix(a.eye, b.eye, t);
    s.nrm = mix(a.nrm, b.nrm, t);
    return s;
}

struct VOut {
    @builtin(position) pos: vec4<f32>,
    @builtin(clip_distances) cd: array<f32, 8>,
    @location(0) prim: vec4<f32>,
    @location(1) sec: vec4<f32>, // xyz secondary, w fog factor or distance
    @location(2) bprim: vec4<f32>,
    @location(3) bsec: vec4<f32>, // xyz back secondary, w: 1 = front (lines and points)
    @location(4) stq0: vec4<f32>,
    @location(5) stq1: vec4<f32>,
    @location(6) stq2: vec4<f32>,
    @location(7) stq3: vec4<f32>,
    @location(8) stq4: vec4<f32>,
    @location(9) stq5: vec4<f32>,
    @location(10) eye: vec4<f32>,
    @location(11) nrm: vec4<f32>,
}

// What the fragment stage reads (VOut without the clip distances).
struct FIn {
    @builtin(position) pos: vec4<f32>,
    @location(0) prim: vec4<f32>,
    @location(1) sec: vec4<f32>,
    @location(2) bprim: vec4<f32>,
    @location(3) bsec: vec4<f32>,
    @location(4) stq0: vec4<f32>,
    @location(5) stq1: vec4<f32>,
    @location(6) stq2: vec4<f32>,
    @location(7) stq3: vec4<f32>,
    @location(8) stq4: vec4<f32>,
    @location(9) stq5: vec4<f32>,
    @location(10) eye: vec4<f32>,
    @location(11) nrm: vec4<f32>,
}

// The primitive's clip position mapped through plumb's viewport onto the full target.
fn to_target(c: vec4<f32>) -> vec4<f32> {
    return vec4(c.x * u.vp_scale.x + c.w * u.vp_offset.x,
                c.y * u.vp_scale.y + c.w * u.vp_offset.y,
                c.z * u.vp_scale.z + c.w * u.vp_offset.z,
                c.w);
}

fn emit(s: Stage, flat: Stage, clip_src: vec4<f32>, offset: vec2<f32>, front: bool) -> VOut {
    var o: VOut;
    let t = to_target(s.clip);
    o.pos = vec4(t.xy + offset * t.w, t.zw);
    // Depth range: plumb clips at 0 <= z <= w before mapping.
    o.cd[0] = clip_src.z;
    o.cd[1] = clip_src.w - clip_src.z;
    for (var i = 0u; i < 6u; i++) {
        let on = u.plane_on[i / 4u][i % 4u];
        if on > 0.5 {
            o.cd[i + 2u] = dot(u.planes[i], clip_src);
        } else {
            o.cd[i + 2u] = 1.0;
        }
    }
    var c = s;
    if u.f1.x > 0.5 {
        c.prim = flat.prim;
        c.sec = flat.sec;
        // A PBR draw's tangent is not a colour: it stays per vertex.
        if u32(u.f0.y) != 3u { c.bprim = flat.bprim; }
        c.bsec = flat.bsec;
    }
    o.prim = c.prim;
    o.sec = vec4(c.sec, s.fog);
    o.bprim = c.bprim;
    o.bsec = vec4(c.bsec, select(0.0, 1.0, front));
    o.stq0 = vec4(s.stq[0].xyz, s.stq[1].x);
    o.stq1 = vec4(s.stq[1].yz, s.stq[2].xy);
    o.stq2 = vec4(s.stq[2].z, s.stq[3].xyz);
    o.stq3 = vec4(s.stq[4].xyz, s.stq[5].x);
    o.stq4 = vec4(s.stq[5].yz, s.stq[6].xy);
    o.stq5 = vec4(s.stq[6].z, s.stq[7].xyz);
    o.eye = vec4(s.eye, 0.0);
    o.nrm = vec4(s.nrm, 0.0);
    return o;
}

fn culled() -> VOut {
    var o: VOut;
    o.pos = vec4(0.0, 0.0, 0.0, 0.0);
    for (var i = 0u; i < 8u; i++) { o.cd[i] = -1.0; }
    return o;
}

fn window_xy(c: vec4<f32>) -> vec2<f32> {
    let t = to_target(c);
    return vec2((t.x / t.w + 1.0) * 0.5 * u.sizes.x, (1.0 - t.y / t.w) * 0.5 * u.sizes.y);
}

@vertex
fn vs(@builtin(vertex_index) vi: u32) -> VOut {
    let kind = u32(u.f0.w);
    let flat_on = u.f1.x > 0.5;
    // The vertices this corner needs, run through one `stage` call site (the shader stays
    // small enough to compile quickly): [own or a, b, provoking].
    var ids = array<u32, 3>(0u, 0u, 0u);
    var n = 1u;
    var front = true;
    var corner = 0u;
    var flat_slot = 0u;
    if kind == 0u {
        if INDEXED { ids[0] = vi; } else { ids[0] = idx[vi]; }
        if flat_on {
            ids[1] = idx[vi - vi % 3u];
            n = 2u;
            flat_slot = 1u;
        }
    } else if kind == 1u {
        let seg = vi / 6u;
        corner = array<u32, 6>(0u, 1u, 2u, 0u, 2u, 3u)[vi % 6u];
        let fv = idx[3u * seg + 2u];
        front = (fv & 0x80000000u) == 0u;
        ids[0] = idx[3u * seg];
        ids[1] = idx[3u * seg + 1u];
        n = 2u;
        if flat_on {
            ids[2] = fv & 0x7fffffffu;
            n = 3u;
            flat_slot = 2u;
        }
    } else {
        let pt = vi / 6u;
        corner = array<u32, 6>(0u, 1u, 2u, 0u, 2u, 3u)[vi % 6u];
        let fv = idx[2u * pt + 1u];
        front = (fv & 0x80000000u) == 0u;
        ids[0] = idx[2u * pt];
        if flat_on {
            ids[1] = fv & 0x7fffffffu;
            n = 2u;
            flat_slot = 1u;
        }
    }
    var st: array<Stage, 3>;
    for (var j = 0u; j < n; j++) {
        st[j] = stage(ids[j]);
    }
    let flat = st[flat_slot];
    if kind == 0u {
        return emit(st[0], flat, st[0].clip, vec2(0.0), true);
    }
    if kind == 1u {
        // A segment as a parallelogram (setup.rs `line`): corners a-, b-, b+, a+, after
        // clipping the segment to the view volume (clip.rs), attributes linear in clip space.
        let a = st[0].clip;
        let b = st[1].clip;
        var t0 = 0.0;
        var t1 = 1.0;
        for (var p = 0u; p < 6u; p++) {
            var da = 0.0;
            var db = 0.0;
            switch p {
                case 0u: { da = a.w + a.x; db = b.w + b.x; }
                case 1u: { da = a.w - a.x; db = b.w - b.x; }
                case 2u: { da = a.w + a.y; db = b.w + b.y; }
                case 3u: { da = a.w - a.y; db = b.w - b.y; }
                case 4u: { da = a.z; db = b.z; }
                default: { da = a.w - a.z; db = b.w - b.z; }
            }
            if da < 0.0 && db < 0.0 { return culled(); }
            if da < 0.0 { t0 = max(t0, da / (da - db)); }
            if db < 0.0 { t1 = min(t1, da / (da - db)); }
        }
        if t0 > t1 { return culled(); }
        let wa = window_xy(mix(a, b, t0));
        let wb = window_xy(mix(a, b, t1));
        let d = wb - wa;
        var off = vec2(0.0, u.sizes.w);
        if abs(d.x) < abs(d.y) { off = vec2(u.sizes.w, 0.0); }
        var sgn = 1.0;
        if corner < 2u { sgn = -1.0; }
        var t = t0;
        if corner == 1u || corner == 2u { t = t1; }
        let s = mix_stage(st[0], st[1], t);
        // Window offset (y down) to NDC (y up).
        let ndc_off = vec2(2.0 * off.x / u.sizes.x, -2.0 * off.y / u.sizes.y) * sgn;
        return emit(s, flat, s.clip, ndc_off, front);
    }
    // A point as a square (setup.rs `point`), attributes constant.
    let s = st[0];
    let c = s.clip;
    if !(c.x >= -c.w && c.x <= c.w && c.y >= -c.w && c.y <= c.w && c.z >= 0.0 && c.z <= c.w) {
        return culled();
    }
    let h = u.sizes.z;
    let sx = array<f32, 4>(-1.0, 1.0, 1.0, -1.0)[corner];
    let sy = array<f32, 4>(-1.0, -1.0, 1.0, 1.0)[corner];
    let ndc_off = vec2(2.0 * h * sx / u.sizes.x, -2.0 * h * sy / u.sizes.y);
    return emit(s, flat, s.clip, ndc_off, front);
}

// ---------------------------------------------------------------- texturing (texture/filter.rs)

fn tex_size(unit: u32, lvl: i32) -> vec2<i32> {
    var d = vec2(1u);
    switch unit {
        case 0u: { d = textureDimensions(tex0, 0); }
        case 1u: { d = textureDimensions(tex1, 0); }
        case 2u: { d = textureDimensions(tex2, 0); }
        case 3u: { d = textureDimensions(tex3, 0); }
        case 4u: { d = textureDimensions(tex4, 0); }
        case 5u: { d = textureDimensions(tex5, 0); }
        case 6u: { d = textureDimensions(tex6, 0); }
        default: { d = textureDimensions(tex7, 0); }
    }
    // Level sizes from level 0: each level is the floor half of the one before (chain.rs),
    // never below 1. `textureDimensions(t, lvl)` with a level that differs between the pixels
    // of one SIMD group returned another pixel's size on lavapipe (Mesa 22.3, LLVM 15), so
    // texel indices left the level and read zeros: black streaks where λ crossed an integer.
    return vec2<i32>(max(d >> vec2(u32(lvl)), vec2(1u)));
}

fn fetch(unit: u32, p: vec2<i32>, lvl: i32) -> vec4<f32> {
    switch unit {
        case 0u: { return textureLoad(tex0, p, lvl); }
        case 1u: { return textureLoad(tex1, p, lvl); }
        case 2u: { return textureLoad(tex2, p, lvl); }
        case 3u: { return textureLoad(tex3, p, lvl); }
        case 4u: { return textureLoad(tex4, p, lvl); }
        case 5u: { return textureLoad(tex5, p, lvl); }
        case 6u: { return textureLoad(tex6, p, lvl); }
        default: { return textureLoad(tex7, p, lvl); }
    }
}

// `i mod n` in 0..n for n > 0 and |i| <= 2^23, without integer division (which SIMD units
// lack, so a shader compiler turns it into one scalar divide per pixel): the f32 quotient is
// within one of the true one there, and the two selects correct it.
fn floor_mod(i: i32, n: i32) -> i32 {
    let q = i32(floor(f32(i) / f32(n)));
    var m = i - q * n;
    m = select(m, m + n, m < 0);
    return select(m, m - n, m >= n);
}

// Wrap mode on an integer index; -1 reads the border (0 repeat, 1 mirrored, 2 edge, 3 border, 4 clamp).
fn wrap(mode: u32, i: i32, n: i32) -> i32 {
    switch mode {
        case 0u: { return floor_mod(i, n); }
        case 1u: {
            let m = floor_mod(i, 2 * n);
            return select(2 * n - 1 - m, m, m < n);
        }
        case 2u: { return clamp(i, 0, n - 1); }
        default: { return select(-1, i, i >= 0 && i < n); }
    }
}

const COORD_LIMIT: f32 = 4194304.0;

// The filter is 8-bit fixed point, as filter.rs defines it: texels and the border as bytes,
// weights `min(floor(256 f), 255)`, lerps `(x (256 - w) + y w + 128) >> 8` per channel, and
// the bytes read as floats once, at the end (`c * (1/255)`).
fn to_bytes(c: vec4<f32>) -> vec4<u32> {
    return vec4<u32>(floor(clamp(c, vec4(0.0), vec4(1.0)) * 255.0 + 0.5));
}

fn weight8(f: f32) -> u32 {
    return min(u32(f * 256.0), 255u);
}

fn lerp8(x: vec4<u32>, y: vec4<u32>, w: u32) -> vec4<u32> {
    return (x * (256u - w) + y * w + 128u) >> vec4(8u);
}

fn texel(unit: u32, lvl: i32, x: i32, y: i32) -> vec4<u32> {
    if x < 0 || y < 0 { return to_bytes(u.units[unit].border); }
    return to_bytes(fetch(unit, vec2(x, y), lvl));
}

// One level, nearest or bilinear (filter.rs `nearest` / `bilinear`), as bytes. The taps are
// written out rather than looped over an array: with the unit a compile-time constant each is
// one fetch.
fn filter_level(unit: u32, lvl: i32, uv_in: vec2<f32>, linear: bool) -> vec4<u32> {
    let size = tex_size(unit, lvl);
    var wu = u32(u.units[unit].samp0.z);
    var wv = u32(u.units[unit].samp0.w);
    var uv = uv_in;
    var half = vec2(0.5);
    if linear {
        if wu == 4u { uv.x = clamp(uv.x, 0.0, 1.0); }
        if wv == 4u { uv.y = clamp(uv.y, 0.0, 1.0); }
    } else {
        // GL CLAMP with nearest filtering is clamp-to-edge on the index.
        if wu == 4u { wu = 2u; }
        if wv == 4u { wv = 2u; }
        half = vec2(0.0);
    }
    let p = clamp(uv * vec2<f32>(size) - half, vec2(-COORD_LIMIT), vec2(COORD_LIMIT));
    let f = floor(p);
    let ab = p - f;
    let i0 = vec2<i32>(f);
    let x0 = wrap(wu, i0.x, size.x);
    let y0 = wrap(wv, i0.y, size.y);
    let t0 = texel(unit, lvl, x0, y0);
    if !linear { return t0; }
    let x1 = wrap(wu, i0.x + 1, size.x);
    let y1 = wrap(wv, i0.y + 1, size.y);
    let wa = weight8(ab.x);
    let top = lerp8(t0, texel(unit, lvl, x1, y0), wa);
    let bottom = lerp8(texel(unit, lvl, x0, y1), texel(unit, lvl, x1, y1), wa);
    return lerp8(top, bottom, weight8(ab.y));
}

// The levels a sample at an adjusted λ reads (`Texture::sample_adjusted`): `l0`, and `l1`
// blended with weight `w` when `nl` is 2; `linear` the within-level filter.
struct Levels {
    l0: i32,
    l1: i32,
    w: f32,
    nl: u32,
    linear: bool,
}

fn choose_levels(unit: u32, lambda: f32) -> Levels {
    let un = u.units[unit];
    var c = Levels(0, 0, 0.0, 1u, un.samp0.x > 0.5);
    if lambda > un.samp2.w {
        let q = i32(un.samp1.w) - 1;
        let minf = u32(un.samp0.y);
        c.linear = minf == 1u || minf == 3u || minf == 5u;
        if minf == 2u || minf == 3u {
            if lambda > 0.5 { c.l0 = min(i32(ceil(lambda + 0.5)) - 1, q); }
        } else if minf == 4u || minf == 5u {
            if lambda >= f32(q) {
                c.l0 = q;
            } else {
                let fl = floor(lambda);
                c.l0 = i32(fl);
                c.l1 = c.l0 + 1;
                c.w = lambda - fl;
                c.nl = 2u;
            }
        }
    }
    return c;
}

// `Texture::sample_adjusted` with an adjusted λ: which levels, then one filter call site.
fn sample_lambda(unit: u32, uv: vec2<f32>, lambda: f32) -> vec4<f32> {
    let c = choose_levels(unit, lambda);
    var r = filter_level(unit, c.l0, uv, c.linear);
    if c.nl == 2u { r = lerp8(r, filter_level(unit, c.l1, uv, c.linear), weight8(c.w)); }
    return vec4<f32>(r) * (1.0 / 255.0);
}

fn adjust_lod(unit: u32, base: f32) -> f32 {
    let s = u.units[unit].samp1;
    // plumb's max/min pick the non-NaN operand: a NaN λ becomes min_lod.
    var l = base + s.x;
    if !(l >= s.y) { l = s.y; }
    return min(l, s.z);
}

// `Texture::sample_grad`: isotropic, or N anisotropic probes along the major axis.
fn sample_grad(unit: u32, uv: vec2<f32>, dx: vec2<f32>, dy: vec2<f32>) -> vec4<f32> {
    let size = vec2<f32>(tex_size(unit, 0));
    let a2 = dot(dx * size, dx * size);
    let b2 = dot(dy * size, dy * size);
    let aniso = u.units[unit].samp3.x;
    var n = 1.0;
    var major_uv = vec2(0.0);
    var lambda = adjust_lod(unit, 0.5 * log2(max(a2, b2)));
    if aniso > 1.0 {
        var major2 = a2;
        var minor2 = b2;
        major_uv = dx;
        if a2 < b2 {
            major2 = b2;
            minor2 = a2;
            major_uv = dy;
        }
        let ratio = ceil(sqrt(major2 / minor2));
        n = aniso;
        if ratio < aniso { n = max(ratio, 1.0); }
        lambda = adjust_lod(unit, 0.5 * log2(major2 / (n * n)));
        if !(lambda > u.units[unit].samp2.w) { n = 1.0; }
    }
    var sum = vec4(0.0);
    let ni = u32(n);
    for (var k = 0u; k < ni; k++) {
        let off = (f32(k) + 0.5) / n - 0.5;
        sum += sample_lambda(unit, uv + major_uv * off, lambda);
    }
    return sum / n;
}

// ---------------------------------------------------------------- apply modes (combine.rs)

fn src(s: u32, prev: vec4<f32>, tex: vec4<f32>, prim: vec4<f32>, k: vec4<f32>) -> vec4<f32> {
    switch s {
        case 0u: { return tex; }
        case 1u: { return k; }
        case 2u: { return prim; }
        default: { return prev; }
    }
}

fn arg_rgb(op: u32, c: vec4<f32>) -> vec3<f32> {
    switch op {
        case 0u: { return c.xyz; }
        case 1u: { return vec3(1.0) - c.xyz; }
        case 2u: { return vec3(c.w); }
        default: { return vec3(1.0 - c.w); }
    }
}

fn arg_alpha(op: u32, c: vec4<f32>) -> f32 {
    if op == 0u || op == 2u { return c.w; }
    return 1.0 - c.w;
}

fn dot3(v0: vec3<f32>, v1: vec3<f32>) -> f32 {
    let a = v0 - vec3(0.5);
    let b = v1 - vec3(0.5);
    return 4.0 * (a.x * b.x + a.y * b.y + a.z * b.z);
}

fn combine(unit: u32, prev: vec4<f32>, tex: vec4<f32>, prim: vec4<f32>) -> vec4<f32> {
    let un = u.units[unit];
    let k = un.constant;
    var v: array<vec3<f32>, 3>;
    var a: array<f32, 3>;
    for (var i = 0u; i < 3u; i++) {
        v[i] = arg_rgb(u32(un.comb2[i]), src(u32(un.comb1[i]), prev, tex, prim, k));
        a[i] = arg_alpha(u32(un.comb4[i]), src(u32(un.comb3[i]), prev, tex, prim, k));
    }
    var rgb = vec3(0.0);
    switch u32(un.comb0.x) {
        case 0u: { rgb = v[0]; }
        case 1u: { rgb = v[0] * v[1]; }
        case 2u: { rgb = v[0] + v[1]; }
        case 3u: { rgb = v[0] + v[1] - vec3(0.5); }
        case 4u: { rgb = v[0] * v[2] + v[1] * (vec3(1.0) - v[2]); }
        case 5u: { rgb = v[0] - v[1]; }
        case 6u: { rgb = vec3(dot3(v[0], v[1])); }
        default: {
            let d = dot3(v[0], v[1]) * un.comb0.z;
            return vec4(d);
        }
    }
    rgb = rgb * un.comb0.z;
    var al = 0.0;
    switch u32(un.comb0.y) {
        case 0u: { al = a[0]; }
        case 1u: { al = a[0] * a[1]; }
        case 2u: { al = a[0] + a[1]; }
        case 3u: { al = a[0] + a[1] - 0.5; }
        case 4u: { al = a[0] * a[2] + a[1] * (1.0 - a[2]); }
        case 5u: { al = a[0] - a[1]; }
        default: { al = 4.0 * ((a[0] - 0.5) * (a[1] - 0.5)); }
    }
    return vec4(rgb, al * un.comb0.w);
}

fn apply(unit: u32, prev: vec4<f32>, tex: vec4<f32>, prim: vec4<f32>) -> vec4<f32> {
    let mode = u32(u.units[unit].samp2.z);
    let cf = prev.xyz;
    let af = prev.w;
    let ct = tex.xyz;
    let at = tex.w;
    var out = vec4(0.0);
    switch mode {
        case 0u: { out = tex; }
        case 1u: { out = vec4(cf * (1.0 - at) + ct * at, af); }
        case 2u: { out = prev * tex; }
        case 3u: {
            let cc = u.units[unit].constant.xyz;
            out = vec4(cf * (vec3(1.0) - ct) + cc * ct, af * at);
        }
        case 4u: { out = vec4(cf + ct, af * at); }
        default: { out = combine(unit, prev, tex, prim); }
    }
    return sat4(out);
}

// ---------------------------------------------------------------- texel probe (probe.rs TexelProbe)

// Unit 0's λ (16 bits: (λ + 32)·1024 in red and green), and the distances of its sample point
// to the nearest texel edge (blue) and texel-centre line (alpha) of level 0, in 1/510 texel.
// Untextured: white, or nothing for a blended draw (mode 2), which only tints what is below.
// Whole bytes, so the stored pixel is exact.
fn texel_probe(units: u32, uv: vec2<f32>, dx: vec2<f32>, dy: vec2<f32>) -> vec4<f32> {
    if units == 0u { return untextured_probe(); }
    let size = vec2<f32>(tex_size(0u, 0));
    let lambda = 0.5 * log2(max(dot(dx * size, dx * size), dot(dy * size, dy * size)));
    let q = clamp(round((lambda + 32.0) * 1024.0), 0.0, 65279.0);
    let p = uv * size;
    let f = fract(p);
    let g = fract(p - vec2(0.5));
    let edge = min(min(f.x, 1.0 - f.x), min(f.y, 1.0 - f.y));
    let pair = min(min(g.x, 1.0 - g.x), min(g.y, 1.0 - g.y));
    let bytes = vec4(floor(q / 256.0), q % 256.0, min(round(edge * 510.0), 255.0),
                     min(round(pair * 510.0), 255.0));
    return bytes / 255.0;
}

// An untextured fragment in a probe image: white, or nothing for a blended draw (modes 2 and
// 4), which only tints what is below.
fn untextured_probe() -> vec4<f32> {
    let mode = u32(u.alpha.w);
    if mode == 2u || mode == 4u { discard; }
    return vec4(1.0);
}

// Distance of 256 x to the nearest integer, in 8-bit weight steps (0 to 0.5): how near the
// filter's weight floor(256 frac(x)) is to changing.
fn step_distance(x: f32) -> f32 {
    let s = x * 256.0;
    return abs(s - round(s));
}

// The weight probe (probe.rs WeightProbe): unit 0's adjusted λ (isotropic, 16 bits as the
// texel probe's), the distance of its bilinear weights to their nearest 1/256 step over u, v
// and the linear levels `sample_lambda` reads (blue), and of its mip blend weight (alpha;
// 255 without a blend), in 1/510 step.
fn weight_probe(units: u32, uv_in: vec2<f32>, dx: vec2<f32>, dy: vec2<f32>) -> vec4<f32> {
    if units == 0u { return untextured_probe(); }
    let un = u.units[0];
    let size0 = vec2<f32>(tex_size(0u, 0));
    let lambda = adjust_lod(0u, 0.5 * log2(max(dot(dx * size0, dx * size0), dot(dy * size0, dy * size0))));
    let c = choose_levels(0u, lambda);
    var mip = 0.5;
    var l1 = c.l0;
    if c.nl == 2u {
        mip = step_distance(c.w);
        l1 = c.l1;
    }
    var sub = 0.5;
    if c.linear {
        var uv = uv_in;
        if u32(un.samp0.z) == 4u { uv.x = clamp(uv.x, 0.0, 1.0); }
        if u32(un.samp0.w) == 4u { uv.y = clamp(uv.y, 0.0, 1.0); }
        for (var lvl = c.l0; lvl <= l1; lvl++) {
            let p = uv * vec2<f32>(tex_size(0u, lvl)) - vec2(0.5);
            sub = min(sub, min(step_distance(p.x), step_distance(p.y)));
        }
    }
    let q = clamp(round((lambda + 32.0) * 1024.0), 0.0, 65279.0);
    let bytes = vec4(floor(q / 256.0), q % 256.0, min(round(sub * 510.0), 255.0),
                     min(round(mip * 510.0), 255.0));
    return bytes / 255.0;
}

// ---------------------------------------------------------------- fragment stage

fn cmp(func: u32, a: f32, b: f32) -> bool {
    switch func {
        case 0u: { return false; }
        case 1u: { return a < b; }
        case 2u: { return a == b; }
        case 3u: { return a <= b; }
        case 4u: { return a > b; }
        case 5u: { return a != b; }
        case 6u: { return a >= b; }
        default: { return true; }
    }
}

fn stq_of(i: FIn, k: u32) -> vec3<f32> {
    switch k {
        case 0u: { return i.stq0.xyz; }
        case 1u: { return vec3(i.stq0.w, i.stq1.xy); }
        case 2u: { return vec3(i.stq1.zw, i.stq2.x); }
        case 3u: { return i.stq2.yzw; }
        case 4u: { return i.stq3.xyz; }
        case 5u: { return vec3(i.stq3.w, i.stq4.xy); }
        case 6u: { return vec3(i.stq4.zw, i.stq5.x); }
        default: { return i.stq5.yzw; }
    }
}

// Each unit's (u, v) and its screen derivatives, by plumb's rule (fixed_shader.rs
// `uv_derivatives`): u = S/Q with S, T, Q = s/w, t/w, q/w, which are linear in screen space,
// and ∂u/∂x = (S_x − u·Q_x)/Q. `in.pos.w` is the interpolated 1/w, so S = s·pos.w; the quad
// differences of these linear functions are their plane coefficients. (Quad differences of u
// itself, dpdx(s/q), the usual GPU rule, are secants of a non-linear function and pick other
// mip levels and weights: measured, 190 pixels over threshold in fixed/ground_linear_mipmap_nearest
// and 112 in models/BoxTextured, against 0 and 12.) Call it in uniform control flow.
struct UnitCoords {
    uv: array<vec2<f32>, 8>,
    dx: array<vec2<f32>, 8>,
    dy: array<vec2<f32>, 8>,
}

fn unit_coords(in: FIn) -> UnitCoords {
    var t: UnitCoords;
    for (var k = 0u; k < UNITS; k++) {
        let c = stq_of(in, k);
        let lin = c * in.pos.w;
        let dlx = dpdx(lin);
        let dly = dpdy(lin);
        let uv = c.xy / c.z;
        t.uv[k] = uv;
        t.dx[k] = (dlx.xy - uv * dlx.z) / lin.z;
        t.dy[k] = (dly.xy - uv * dly.z) / lin.z;
    }
    return t;
}

@fragment
fn fs(in: FIn, @builtin(front_facing) ff: bool) -> @location(0) vec4<f32> {
    var front = ff;
    if u32(u.f0.w) != 0u { front = in.bsec.w > 0.5; }
    // Derivatives first, in uniform control flow.
    let tc = unit_coords(in);
    var prim = in.prim;
    var sec = in.sec.xyz;
    if u.f1.y > 0.5 && !front {
        prim = in.bprim;
        sec = in.bsec.xyz;
    }
    let lit = u32(u.f0.y);
    if lit == 2u {
        let l = shade(in.eye.xyz, in.nrm.xyz, in.prim, front);
        prim = l.prim;
        sec = l.sec;
    }
    var color = prim;
    for (var k = 0u; k < UNITS; k++) {
        let t = sample_grad(k, tc.uv[k], tc.dx[k], tc.dy[k]);
        color = apply(k, color, t, prim);
    }
    if u.f1.z > 0.5 && lit != 0u {
        color = vec4(min(color.xyz + sec, vec3(1.0)), color.w);
    }
    let fog_mode = u32(u.fog0.x);
    if fog_mode != 0u {
        var f = 1.0;
        if u.fog0.y > 0.5 { f = fog_factor(in.sec.w); } else { f = clamp(in.sec.w, 0.0, 1.0); }
        color = vec4(color.xyz * f + u.fog_color.xyz * (1.0 - f), color.w);
    }
    return fragment_out(color, tc);
}

// The fragment's last steps, shared by `fs` and `fs_pbr`: the alpha test, the probes (where
// unit 0 sampled, instead of the colour) and, without blending, plumb's rounding.
fn fragment_out(c: vec4<f32>, tc: UnitCoords) -> vec4<f32> {
    if !cmp(u32(u.alpha.x), c.w, u.alpha.y) { discard; }
    if u.alpha.w > 2.5 { return weight_probe(UNITS, tc.uv[0], tc.dx[0], tc.dy[0]); }
    if u.alpha.w > 0.5 { return texel_probe(UNITS, tc.uv[0], tc.dx[0], tc.dy[0]); }
    if u.alpha.z > 0.5 {
        // Without blending the fragment is stored as is: round it as plumb does,
        // floor(clamp(x)·255 + 0.5), so the GPU's conversion sees an exact byte value.
        return floor(sat4(c) * 255.0 + vec4(0.5)) / 255.0;
    }
    return c;
}

