//! Built-in shape generators: plane, box, sphere, torus and cylinder as [`Mesh`]es with unit
//! normals and one uv set, counter-clockwise front faces seen from outside.
//!
//! Trigonometry goes through `plumb_raster::math`, so every platform builds the same bits.
//! Tessellation counts are checked against [`MAX_SEGMENTS`]; sizes must be finite and
//! positive (a box may have a zero side).

use glam::{Vec2, Vec3};
use plumb_raster::math;

use crate::values::error::SceneError;
use crate::values::mesh::Mesh;

/// Largest tessellation count (divisions, stacks, slices, rings, sides) a generator accepts.
pub const MAX_SEGMENTS: u32 = 1024;

fn segments(what: &'static str, n: u32, min: u32) -> Result<u32, SceneError> {
    if n < min || n > MAX_SEGMENTS {
        return Err(SceneError::InvalidArgument {
            what,
            message: format!("{n} is outside {min}..={MAX_SEGMENTS}"),
        });
    }
    Ok(n)
}

fn positive(what: &'static str, x: f32) -> Result<f32, SceneError> {
    if !x.is_finite() {
        return Err(SceneError::NonFinite { what });
    }
    if x <= 0.0 {
        return Err(SceneError::InvalidArgument {
            what,
            message: format!("{x} is not > 0"),
        });
    }
    Ok(x)
}

#[derive(Default)]
struct Builder {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    uvs: Vec<Vec2>,
    indices: Vec<u32>,
}

impl Builder {
    fn vertex(&mut self, p: Vec3, n: Vec3, uv: Vec2) {
        self.positions.push(p);
        self.normals.push(n);
        self.uvs.push(uv);
    }

    /// Two triangles per cell of a `(rows + 1) × (cols + 1)` vertex grid starting at `base`;
    /// `flip` reverses the winding.
    fn grid(&mut self, base: u32, rows: u32, cols: u32, flip: bool) {
        let stride = cols + 1;
        for i in 0..rows {
            for j in 0..cols {
                let a = base + i * stride + j;
                let (b, c, d) = (a + 1, a + stride, a + stride + 1);
                if flip {
                    self.indices.extend_from_slice(&[a, b, c, b, d, c]);
                } else {
                    self.indices.extend_from_slice(&[a, c, b, b, c, d]);
                }
            }
        }
    }

    fn build(self) -> Result<Mesh, SceneError> {
        Mesh::triangles(self.positions, self.indices)?
            .with_normals(self.normals)?
            .with_uv_set(self.uvs)
    }
}

/// A square in the xz plane, `size` on a side centred on the origin, normal +y, split into
/// `divisions × divisions` quads; uv (0, 0) at (−x, −z).
///
/// # Errors
/// [`SceneError::InvalidArgument`] / [`SceneError::NonFinite`] for a bad size or count.
pub fn plane(size: f32, divisions: u32) -> Result<Mesh, SceneError> {
    let half = positive("plane size", size)? * 0.5;
    let n = segments("plane divisions", divisions, 1)?;
    let mut b = Builder::default();
    for i in 0..=n {
        for j in 0..=n {
            let (u, v) = (j as f32 / n as f32, i as f32 / n as f32);
            let p = Vec3::new(-half + size * u, 0.0, -half + size * v);
            b.vertex(p, Vec3::Y, Vec2::new(u, v));
        }
    }
    b.grid(0, n, n, false);
    b.build()
}

/// An axis-aligned box centred on the origin with the given full extents, per-face normals
/// and a full `[0, 1]²` uv square on each face (24 vertices, 12 triangles).
///
/// # Errors
/// [`SceneError::NonFinite`] / [`SceneError::InvalidArgument`] for a non-finite or negative
/// extent.
pub fn cuboid(size: Vec3) -> Result<Mesh, SceneError> {
    if !size.is_finite() {
        return Err(SceneError::NonFinite { what: "box size" });
    }
    if size.min_element() < 0.0 {
        return Err(SceneError::InvalidArgument {
            what: "box size",
            message: format!("{size} has a negative side"),
        });
    }
    let h = size * 0.5;
    let faces = [
        (Vec3::X, Vec3::NEG_Z, Vec3::Y),
        (Vec3::NEG_X, Vec3::Z, Vec3::Y),
        (Vec3::Y, Vec3::X, Vec3::NEG_Z),
        (Vec3::NEG_Y, Vec3::X, Vec3::Z),
        (Vec3::Z, Vec3::X, Vec3::Y),
        (Vec3::NEG_Z, Vec3::NEG_X, Vec3::Y),
    ];
    let mut b = Builder::default();
    for (n, u, v) in faces {
        let base = b.positions.len() as u32;
        for (s, t) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            let p = (n + u * s + v * t) * h;
            b.vertex(p, n, Vec2::new((s + 1.0) * 0.5, (1.0 - t) * 0.5));
        }
        b.indices
            .extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
    }
    b.build()
}

/// A uv sphere of `radius` with `stacks` rings from pole to pole (+y to −y) and `slices`
/// segments around the y axis; u runs around, v from the north pole down.
///
/// # Errors
/// [`SceneError::InvalidArgument`] / [`SceneError::NonFinite`]; stacks ≥ 2, slices ≥ 3.
pub fn sphere(radius: f32, stacks: u32, slices: u32) -> Result<Mesh, SceneError> {
    let r = positive("sphere radius", radius)?;
    let stacks = segments("sphere stacks", stacks, 2)?;
    let slices = segments("sphere slices", slices, 3)?;
    let mut b = Builder::default();
    for i in 0..=stacks {
        let v = i as f32 / stacks as f32;
        // The poles exactly (sin π is not 0 in f32).
        let (st, ct) = match i {
            0 => (0.0, 1.0),
            i if i == stacks => (0.0, -1.0),
            _ => math::sin_cos(v * core::f32::consts::PI),
        };
        for j in 0..=slices {
            let u = j as f32 / slices as f32;
            let (sp, cp) = math::sin_cos(u * core::f32::consts::TAU);
            let n = Vec3::new(st * cp, ct, -st * sp);
            b.vertex(n * r, n, Vec2::new(u, v));
        }
    }
    b.grid(0, stacks, slices, false);
    b.build()
}

/// A torus around the y axis: ring radius `major`, tube radius `minor`, `rings` segments
/// around the axis and `sides` around the tube.
///
/// # Errors
/// [`SceneError::InvalidArgument`] / [`SceneError::NonFinite`]; rings and sides ≥ 3.
pub fn torus(major: f32, minor: f32, rings: u32, sides: u32) -> Result<Mesh, SceneError> {
    let major = positive("torus major radius", major)?;
    let minor = positive("torus minor radius", minor)?;
    let rings = segments("torus rings", rings, 3)?;
    let sides = segments("torus sides", sides, 3)?;
    let mut b = Builder::default();
    for i in 0..=rings {
        let u = i as f32 / rings as f32;
        let (su, cu) = math::sin_cos(u * core::f32::consts::TAU);
        for j in 0..=sides {
            let v = j as f32 / sides as f32;
            let (sv, cv) = math::sin_cos(v * core::f32::consts::TAU);
            let n = Vec3::new(cu * cv, sv, su * cv);
            let centre = Vec3::new(cu * major, 0.0, su * major);
            b.vertex(centre + n * minor, n, Vec2::new(u, v));
        }
    }
    b.grid(0, rings, sides, true);
    b.build()
}

/// A cylinder along the y axis from `−height/2` to `height/2` with `slices` segments around,
/// smooth side normals and, when `caps` is set, flat discs closing both ends.
///
/// # Errors
/// [`SceneError::InvalidArgument`] / [`SceneError::NonFinite`]; slices ≥ 3.
pub fn cylinder(radius: f32, height: f32, slices: u32, caps: bool) -> Result<Mesh, SceneError> {
    let r = positive("cylinder radius", radius)?;
    let h = positive("cylinder height", height)? * 0.5;
    let slices = segments("cylinder slices", slices, 3)?;
    let mut b = Builder::default();
    let ring = |j: u32| {
        let u = j as f32 / slices as f32;
        let (s, c) = math::sin_cos(u * core::f32::consts::TAU);
        (u, Vec3::new(c, 0.0, -s))
    };
    // Side: row 0 at the top (v = 0), row 1 at the bottom.
    for (y, v) in [(h, 0.0), (-h, 1.0)] {
        for j in 0..=slices {
            let (u, n) = ring(j);
            b.vertex(n * r + Vec3::new(0.0, y, 0.0), n, Vec2::new(u, v));
        }
    }
    b.grid(0, 1, slices, false);
    if caps {
        for (y, n) in [(h, Vec3::Y), (-h, Vec3::NEG_Y)] {
            let centre = b.positions.len() as u32;
            b.vertex(Vec3::new(0.0, y, 0.0), n, Vec2::splat(0.5));
            for j in 0..=slices {
                let (_, d) = ring(j);
                let uv = Vec2::new(0.5 + 0.5 * d.x, 0.5 + 0.5 * d.z);
                b.vertex(d * r + Vec3::new(0.0, y, 0.0), n, uv);
            }
            for j in 0..slices {
                let (a, c) = (centre + 1 + j, centre + 2 + j);
                if n.y > 0.0 {
                    b.indices.extend_from_slice(&[centre, a, c]);
                } else {
                    b.indices.extend_from_slice(&[centre, c, a]);
                }
            }
        }
    }
    b.build()
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        (
            "shapes_face_outward_and_count",
            shapes_face_outward_and_count,
        ),
        ("bad_parameters_are_errors", bad_parameters_are_errors),
    ];

    use super::*;

    /// Every triangle's geometric normal points the same way as its vertex normals.
    fn outward(m: &Mesh) -> bool {
        let n = m.normals().unwrap_or(&[]);
        m.indices().chunks(3).all(|t| {
            let p = |i: u32| m.positions()[i as usize];
            let g = (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0]));
            g.length() < 1e-9 || g.dot(n[t[0] as usize]) > 0.0
        })
    }

    fn shapes_face_outward_and_count() {
        let p = plane(2.0, 3).unwrap();
        assert_eq!(p.triangle_count(), 18);
        let b = cuboid(Vec3::new(2.0, 4.0, 6.0)).unwrap();
        assert_eq!(b.triangle_count(), 12);
        assert!(b
            .positions()
            .iter()
            .all(|q| q.y.abs() == 2.0 || q.y == 2.0 || q.y == -2.0));
        let s = sphere(1.0, 8, 12).unwrap();
        assert_eq!(s.triangle_count(), 8 * 12 * 2);
        let t = torus(1.0, 0.25, 12, 8).unwrap();
        let c = cylinder(1.0, 2.0, 12, true).unwrap();
        assert_eq!(c.triangle_count(), 12 * 2 + 12 * 2);
        for (name, m) in [
            ("plane", &p),
            ("box", &b),
            ("sphere", &s),
            ("torus", &t),
            ("cylinder", &c),
        ] {
            assert!(outward(m), "{name} has inward triangles");
        }
    }

    fn bad_parameters_are_errors() {
        assert!(plane(0.0, 1).is_err());
        assert!(plane(1.0, 0).is_err());
        assert!(sphere(1.0, 1, 8).is_err());
        assert!(sphere(f32::NAN, 4, 8).is_err());
        assert!(torus(1.0, 0.5, 3, MAX_SEGMENTS + 1).is_err());
        assert!(cylinder(1.0, -1.0, 8, false).is_err());
        assert!(cuboid(Vec3::new(1.0, -1.0, 1.0)).is_err());
    }
}
