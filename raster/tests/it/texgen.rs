//! Texture-coordinate generation through the fixed-function pipeline, with hand-derived
//! texels: object-linear (GL 1.4 §2.10.4, planes dotted with the object-space position)
//! against eye-linear (the same planes in eye space), and the division by the generated q.

use crate::common;

use std::sync::Arc;

use common::{at_every_level, ctx, px};
use glam::{Mat4, Vec3, Vec4};
use plumb_raster::texture::{Sampler, Texture, Wrap};
use plumb_raster::*;

/// 4×4 texture whose texel (x, y) is (60x, 60y, 7, 255).
fn grid4() -> Arc<Texture> {
    let mut d = Vec::new();
    for y in 0..4u8 {
        for x in 0..4u8 {
            d.extend_from_slice(&[60 * x, 60 * y, 7, 255]);
        }
    }
    Arc::new(Texture::from_rgba8(4, 4, d).unwrap())
}

/// Draws the object-space square [−1, 1]² (z = 0) on 4×4 through an orthographic
/// projection of [−1, 1]², with `view_from_model` = translate(0, 0, −5) · rotate_z(90°), one
/// unit replacing the colour with `grid4` (nearest, clamp to edge) at `texgen`; returns the
/// 16 pixels, row by row.
fn draw(level: SimdLevel, texgen: TexGen) -> Vec<[u8; 4]> {
    let mut c = ctx(4, 4, 1);
    c.set_simd_level(level).unwrap();
    let mut unit = TextureUnit::new(grid4(), Sampler::NEAREST.with_wrap(Wrap::ClampToEdge));
    unit.apply = combine::ApplyMode::Replace;
    unit.texgen = texgen;
    let ff = FixedFunction {
        units: vec![unit],
        ..Default::default()
    };
    let p = [
        Vec3::new(-1.0, -1.0, 0.0),
        Vec3::new(1.0, -1.0, 0.0),
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(-1.0, 1.0, 0.0),
    ];
    let t = Transforms {
        view_from_model: Mat4::from_translation(Vec3::new(0.0, 0.0, -5.0))
            * Mat4::from_rotation_z(std::f32::consts::FRAC_PI_2),
        clip_from_view: Mat4::orthographic_rh(-1.0, 1.0, -1.0, 1.0, 1.0, 100.0),
    };
    let mesh = MeshInput {
        positions: &p,
        ..Default::default()
    };
    let st = PipelineState {
        depth: DepthState::DISABLED,
        ..c.default_state()
    };
    c.draw_fixed(
        &st,
        &ff,
        &t,
        &mesh,
        Indices::U16(&[0, 1, 2, 0, 2, 3]),
        Topology::TriangleList,
    )
    .unwrap();
    let mut out = Vec::new();
    for j in 0..4 {
        for i in 0..4 {
            out.push(px(&mut c, i, j));
        }
    }
    out
}

/// Texel `(x, y)` of `grid4` as bytes.
fn texel(x: u8, y: u8) -> [u8; 4] {
    [60 * x, 60 * y, 7, 255]
}

/// GL 1.4 §2.10.4: `OBJECT_LINEAR` gives `g = p₁x_o + p₂y_o + p₃z_o + p₄w_o` from the
/// object-space vertex, whatever the model-view; `EYE_LINEAR` dots the (eye-space) planes
/// with the eye-space position.
///
/// Planes s = (½, 0, 0, ½), t = (0, ½, 0, ½), r = 0, q = (0, 0, 0, 1): s = (x + 1)/2,
/// t = (y + 1)/2. Pixel `(i, j)` has its centre at eye `(e_x, e_y)` = `((i + ½)/2 − 1,
/// 1 − (j + ½)/2)`, i.e. e_x = −0.75, −0.25, 0.25, 0.75 for i = 0..3 and e_y = 0.75 … −0.75
/// for j = 0..3. The model-view rotates object `(x, y)` to eye `(−y, x)`, so the object point
/// under the pixel is `x_o = e_y`, `y_o = −e_x`.
///
/// - Object-linear: texel column ⌊4s⌋ = ⌊2e_y + 2⌋ = 3 − j, row ⌊4t⌋ = ⌊−2e_x + 2⌋ = 3 − i:
///   pixel `(i, j)` shows texel `(3 − j, 3 − i)`.
/// - Eye-linear, same planes: column ⌊2e_x + 2⌋ = i, row ⌊2e_y + 2⌋ = 3 − j: texel
///   `(i, 3 − j)`.
/// - Object-linear with every plane doubled (q = 2): the unit samples at (s/q, t/q), the same
///   texels as the first case.
///
/// Every sample lies half a texel from a texel edge.
#[test]
fn object_linear_texgen_uses_object_coordinates() {
    let planes = [
        Vec4::new(0.5, 0.0, 0.0, 0.5),
        Vec4::new(0.0, 0.5, 0.0, 0.5),
        Vec4::ZERO,
        Vec4::new(0.0, 0.0, 0.0, 1.0),
    ];
    let object = at_every_level(|l| draw(l, TexGen::ObjectLinear { planes }));
    let eye = at_every_level(|l| draw(l, TexGen::EyeLinear { planes }));
    let doubled = planes.map(|p| p * 2.0);
    let object_q2 = at_every_level(|l| draw(l, TexGen::ObjectLinear { planes: doubled }));
    for j in 0..4u8 {
        for i in 0..4u8 {
            let k = usize::from(4 * j + i);
            assert_eq!(object[k], texel(3 - j, 3 - i), "object-linear ({i}, {j})");
            assert_eq!(eye[k], texel(i, 3 - j), "eye-linear ({i}, {j})");
            assert_eq!(object_q2[k], texel(3 - j, 3 - i), "q = 2 ({i}, {j})");
        }
    }
}
