//! `clod`, `curve` and `surface` meshes in scene files: decimated at a target record, or
//! tessellated to a level — each charged against the load's work budget before it is built.

use glam::Vec3;

use super::ctx::{v3, v4, Ctx};
use super::doc::{ClodDoc, CurveDoc, MeshDoc, PatchDoc, SelectDoc, SurfaceDoc};
use crate::io::budget::Budget;
use crate::io::error::IoError;
use crate::values::clod::ClodMesh;
use crate::values::clod_build::MAX_CLOD_TRIANGLES;
use crate::values::curve::{BezierCurve, CurveMesh, MAX_BEZIER_DEGREE};
use crate::values::levels::{LevelMesh, LevelSelect, LevelSource, Patch};
use crate::values::mesh::{Mesh, MeshTopology};
use crate::values::surface::{BezierRectangle, BezierTriangle, SurfaceMesh, SurfacePatch};

/// A `clod` mesh and the `clod` meshes nested in it, innermost first: the innermost
/// (non-`clod`) mesh is built with `build`, then the whole chain's CLOD builds are charged —
/// `n` nested builds at most `n` times the innermost mesh's triangles, since a build's
/// output has no more triangles than its input — before the first is built.
pub(super) fn clod_chain(
    ctx: &Ctx,
    context: &str,
    doc: &ClodDoc,
    build: fn(&Ctx, &str, &MeshDoc) -> Result<Mesh, IoError>,
) -> Result<Mesh, IoError> {
    let mut chain = vec![doc];
    let mut inner = &*doc.mesh;
    while let MeshDoc::Clod(c) = inner {
        chain.push(c);
        inner = &c.mesh;
    }
    let mut mesh = build(ctx, context, inner)?;
    let triangles = mesh.triangle_count();
    // A mesh the build refuses is not charged: its own error comes first.
    if mesh.topology() == MeshTopology::Triangles && triangles <= MAX_CLOD_TRIANGLES {
        let (n, t) = (chain.len() as u64, triangles as u64);
        ctx.charge(context, Budget::ClodTriangles, n.saturating_mul(t), || {
            if n == 1 {
                format!("a CLOD of {t} triangles")
            } else {
                format!("{n} nested CLOD builds of up to {t} triangles each")
            }
        })?;
    }
    for c in chain.iter().rev() {
        mesh = clod(ctx, context, c, mesh)?;
    }
    Ok(mesh)
}

/// The `clod` mesh at its target record; `base` is the built full-detail mesh.
fn clod(ctx: &Ctx, context: &str, doc: &ClodDoc, base: Mesh) -> Result<Mesh, IoError> {
    let err = ctx.scene_err(context);
    let (mut c, target) = clod_at(ctx, context, doc, base)?;
    c.set_target_record(target).map_err(&err)?;
    c.to_mesh().map_err(err)
}

/// The CLOD build of `base` and the record `doc` asks for.
fn clod_at(
    ctx: &Ctx,
    context: &str,
    doc: &ClodDoc,
    base: Mesh,
) -> Result<(ClodMesh, usize), IoError> {
    let err = ctx.scene_err(context);
    if base.topology() != MeshTopology::Triangles {
        return Err(ctx.invalid(context, "a \"clod\" mesh decimates triangles only"));
    }
    let c = ClodMesh::from_mesh(&base).map_err(&err)?;
    let last = c.record_count() - 1;
    let target = match (doc.record, doc.fraction) {
        (Some(_), Some(_)) => {
            return Err(ctx.invalid(context, "give \"record\" or \"fraction\", not both"))
        }
        (Some(r), None) => {
            if r as usize > last {
                return Err(ctx.invalid(
                    context,
                    format!("record {r} is out of range: this mesh has records 0..={last}"),
                ));
            }
            r as usize
        }
        (None, Some(f)) => {
            let f = f.get();
            if !(0.0..=1.0).contains(&f) {
                return Err(ctx.invalid(context, format!("fraction {f} is outside 0..=1")));
            }
            ((last as f64 * f64::from(f)) as usize).min(last)
        }
        (None, None) => 0,
    };
    Ok((c, target))
}

/// The level rule of a `select`.
fn select(ctx: &Ctx, context: &str, s: &SelectDoc) -> Result<LevelSelect, IoError> {
    LevelSelect::new(s.near.get(), s.far.get()).map_err(ctx.scene_err(context))
}

/// A `clod` or `curve` mesh with a `select`: its levels, to be chosen per view (`None` for
/// any other mesh). A `clod` with `select` must hold its full-detail mesh directly (not
/// another `clod`).
pub(super) fn levels(
    ctx: &Ctx,
    context: &str,
    doc: &MeshDoc,
    build: fn(&Ctx, &str, &MeshDoc) -> Result<Mesh, IoError>,
) -> Result<Option<LevelMesh>, IoError> {
    let err = ctx.scene_err(context);
    match doc {
        MeshDoc::Clod(c) => {
            let Some(s) = &c.select else {
                return Ok(None);
            };
            if s.min_level.is_some() {
                return Err(ctx.invalid(
                    context,
                    "\"min_level\" is for curves; a \"clod\" selects among its records",
                ));
            }
            if matches!(*c.mesh, MeshDoc::Clod(_)) {
                return Err(ctx.invalid(
                    context,
                    "a \"clod\" with \"select\" holds its full-detail mesh, not another \"clod\"",
                ));
            }
            let rule = select(ctx, context, s)?;
            let base = build(ctx, context, &c.mesh)?;
            let t = base.triangle_count() as u64;
            if base.topology() == MeshTopology::Triangles
                && base.triangle_count() <= MAX_CLOD_TRIANGLES
            {
                ctx.charge(context, Budget::ClodTriangles, t, || {
                    format!("a CLOD of {t} triangles")
                })?;
            }
            let kept = std::sync::Arc::new(base.clone());
            let (m, target) = clod_at(ctx, context, c, base)?;
            LevelMesh::new(
                LevelSource::Clod {
                    clod: m,
                    base: kept,
                },
                rule,
                target,
            )
            .map(Some)
            .map_err(err)
        }
        MeshDoc::Curve(c) => {
            let Some(s) = &c.select else {
                return Ok(None);
            };
            let rule = select(ctx, context, s)?;
            let (curve, colors) = curve_parts(ctx, context, c)?;
            LevelMesh::new(
                LevelSource::Curve {
                    curve,
                    min: s.min_level.unwrap_or(0),
                    max: c.level,
                    colors,
                },
                rule,
                0,
            )
            .map(Some)
            .map_err(err)
        }
        MeshDoc::Surface(d) => {
            let Some(s) = &d.select else {
                return Ok(None);
            };
            let rule = select(ctx, context, s)?;
            let (surface, colors) = surface_parts(ctx, context, d)?;
            LevelMesh::new(
                LevelSource::Surface {
                    surface,
                    min: s.min_level.unwrap_or(0),
                    max: d.level,
                    colors,
                },
                rule,
                0,
            )
            .map(Some)
            .map_err(err)
        }
        _ => Ok(None),
    }
}

fn degree(ctx: &Ctx, context: &str, d: u32) -> Result<usize, IoError> {
    if d == 0 || d as usize > MAX_BEZIER_DEGREE {
        return Err(ctx.invalid(
            context,
            format!("degree {d}; Bézier degrees are 1 to {MAX_BEZIER_DEGREE}"),
        ));
    }
    Ok(d as usize)
}

/// The `curve` mesh: a line strip.
pub(super) fn curve(ctx: &Ctx, context: &str, doc: &CurveDoc) -> Result<Mesh, IoError> {
    let err = ctx.scene_err(context);
    let (c, colors) = curve_parts(ctx, context, doc)?;
    let mesh = c.to_mesh().map_err(&err)?;
    match colors {
        Some(base) => {
            let all = c.attributes(&base).map_err(&err)?;
            mesh.with_colors(all).map_err(err)
        }
        None => Ok(mesh),
    }
}

/// A `curve` at its `level` (charged), and its end-point colours (checked).
fn curve_parts(
    ctx: &Ctx,
    context: &str,
    doc: &CurveDoc,
) -> Result<(CurveMesh, Option<Vec<glam::Vec4>>), IoError> {
    let err = ctx.scene_err(context);
    let d = degree(ctx, context, doc.degree)?;
    let p: Vec<Vec3> = doc.points.iter().map(v3).collect();
    if p.len() < d + 1 || !(p.len() - 1).is_multiple_of(d) {
        return Err(ctx.invalid(
            context,
            format!(
                "{} control points; degree-{d} segments need {d}·n + 1 (e.g. {}, {})",
                p.len(),
                d + 1,
                2 * d + 1
            ),
        ));
    }
    let n = (p.len() - 1) / d;
    let segments = (0..n)
        .map(|s| BezierCurve::new(p[s * d..=s * d + d].to_vec()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(&err)?;
    let mut c = CurveMesh::new(segments, vec![[0.0, 1.0]; n]).map_err(&err)?;
    // A level past the curve's own limit is not charged: `set_level` refuses it.
    if let Some(v) = c.vertex_count_at(doc.level) {
        let s = v as u64 - 1;
        ctx.charge(context, Budget::GeneratedPrimitives, s, || {
            format!("a curve of {s} segments")
        })?;
    }
    c.set_level(doc.level).map_err(&err)?;
    let colors = match &doc.colors {
        Some(cols) => {
            if cols.len() != n + 1 {
                return Err(ctx.invalid(
                    context,
                    format!("{} colours for {} segment end points", cols.len(), n + 1),
                ));
            }
            Some(cols.iter().map(v4).collect())
        }
        None => None,
    };
    Ok((c, colors))
}

/// A patch tessellated to `doc.level` (charged) and its corner colours (checked).
fn tessellate<P: SurfacePatch>(
    ctx: &Ctx,
    context: &str,
    patch: P,
    doc: &SurfaceDoc,
    corners: usize,
) -> Result<(SurfaceMesh<P>, Option<Vec<glam::Vec4>>), IoError> {
    let err = ctx.scene_err(context);
    let mut s = SurfaceMesh::single(patch).map_err(&err)?;
    // A level past the patch's own limit is not charged: `set_level` refuses it.
    if let Some(t) = s.triangle_count_at(doc.level) {
        let t = t as u64;
        ctx.charge(context, Budget::GeneratedPrimitives, t, || {
            format!("a surface of {t} triangles")
        })?;
    }
    s.set_level(doc.level).map_err(&err)?;
    let colors = match &doc.colors {
        Some(cols) => {
            if cols.len() != corners {
                return Err(ctx.invalid(
                    context,
                    format!("{} colours for {corners} patch corners", cols.len()),
                ));
            }
            Some(cols.iter().map(v4).collect())
        }
        None => None,
    };
    Ok((s, colors))
}

/// The `surface` mesh: triangles with the patch's normals.
pub(super) fn surface(ctx: &Ctx, context: &str, doc: &SurfaceDoc) -> Result<Mesh, IoError> {
    match surface_parts(ctx, context, doc)? {
        (Patch::Rectangle { mesh: s, .. }, colors) => surface_mesh(ctx, context, &s, colors),
        (Patch::Triangle { mesh: s, .. }, colors) => surface_mesh(ctx, context, &s, colors),
    }
}

fn surface_mesh<P: SurfacePatch>(
    ctx: &Ctx,
    context: &str,
    s: &SurfaceMesh<P>,
    colors: Option<Vec<glam::Vec4>>,
) -> Result<Mesh, IoError> {
    let err = ctx.scene_err(context);
    let mesh = s.to_mesh().map_err(&err)?;
    match colors {
        Some(base) => {
            let all = s.attributes(&base).map_err(&err)?;
            mesh.with_colors(all).map_err(err)
        }
        None => Ok(mesh),
    }
}

/// A `surface`'s patch, tessellated to its `level`, with its corner colours.
fn surface_parts(
    ctx: &Ctx,
    context: &str,
    doc: &SurfaceDoc,
) -> Result<(Patch, Option<Vec<glam::Vec4>>), IoError> {
    let err = ctx.scene_err(context);
    let p: Vec<Vec3> = doc.points.iter().map(v3).collect();
    let du = degree(ctx, context, doc.degree)?;
    match doc.patch {
        PatchDoc::Rectangle => {
            let dv = degree(ctx, context, doc.degree_v.unwrap_or(doc.degree))?;
            let want = (du + 1) * (dv + 1);
            if p.len() != want {
                return Err(ctx.invalid(
                    context,
                    format!(
                        "{} control points; a degree ({du}, {dv}) rectangle needs {want}",
                        p.len()
                    ),
                ));
            }
            let patch = BezierRectangle::new([du, dv], p.clone()).map_err(&err)?;
            let (mesh, colors) = tessellate(ctx, context, patch, doc, 4)?;
            Ok((
                Patch::Rectangle {
                    mesh,
                    degree: [du, dv],
                    points: p,
                },
                colors,
            ))
        }
        PatchDoc::Triangle => {
            if doc.degree_v.is_some() {
                return Err(ctx.invalid(context, "a triangle patch has no \"degree_v\""));
            }
            let want = (du + 1) * (du + 2) / 2;
            if p.len() != want {
                return Err(ctx.invalid(
                    context,
                    format!(
                        "{} control points; a degree-{du} triangle needs {want}",
                        p.len()
                    ),
                ));
            }
            let patch = BezierTriangle::new(du, p.clone()).map_err(&err)?;
            let (mesh, colors) = tessellate(ctx, context, patch, doc, 3)?;
            Ok((
                Patch::Triangle {
                    mesh,
                    degree: du,
                    points: p,
                },
                colors,
            ))
        }
    }
}
