//! Meshes whose level of detail is chosen per view (the book's `ClodMesh::SelectLevelOfDetail`,
//! book L9178–9196): a continuous-LOD mesh shows a collapse record, a Bézier curve a
//! subdivision level, a Bézier patch a tessellation level, each picked from the eye's depth
//! when a frame is prepared
//! ([`View`](crate::View)).
//!
//! **The rule.** With `depth` the distance along the view direction from the eye to the
//! leaf's world-bound centre, [`target_record_for_depth`]`(depth, near, far, count)` gives an
//! index `i` in `0..count`: 0 at `depth ≤ near`, `count − 1` at `depth ≥ far`, and in between
//! `⌊(count − 1)·√((depth − near)/(far − near))⌋`. For a CLOD mesh `i` is the record (0 is
//! full detail); for a curve or surface with levels `min..=max` it is the level `max − i`
//! (the finest near the eye). The mesh is rebuilt only when the index changes.

use glam::Vec4;

use crate::values::clod::{target_record_for_depth, ClodMesh};
use crate::values::curve::CurveMesh;
use crate::values::error::SceneError;
use crate::values::mesh::Mesh;
use crate::values::surface::{BezierRectangle, BezierTriangle, SurfaceMesh, SurfacePatch};

/// Where the level changes with depth (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LevelSelect {
    /// Up to this depth: the finest level.
    pub near: f32,
    /// From this depth on: the coarsest level.
    pub far: f32,
}

impl LevelSelect {
    /// Checks `0 ≤ near < far`, both finite.
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`].
    pub fn new(near: f32, far: f32) -> Result<LevelSelect, SceneError> {
        if !(near.is_finite() && far.is_finite() && near >= 0.0 && near < far) {
            return Err(SceneError::InvalidArgument {
                what: "level selection",
                message: format!("near {near} and far {far}: need 0 ≤ near < far, both finite"),
            });
        }
        Ok(LevelSelect { near, far })
    }
}

/// The geometry a level-selecting leaf is built from.
#[derive(Debug, Clone)]
pub enum LevelSource {
    /// A continuous-LOD mesh: one level per collapse record.
    Clod {
        /// The records.
        clod: ClodMesh,
        /// The full-detail mesh it was built from, as given (what a save writes: the build
        /// reorders triangles, so its own full mesh would not build the same records again).
        base: std::sync::Arc<Mesh>,
    },
    /// A Bézier curve tessellated to `min..=max`, with optional colours of its segment end
    /// points (averaged down the levels).
    Curve {
        /// The curve.
        curve: CurveMesh,
        /// The coarsest level.
        min: u32,
        /// The finest level.
        max: u32,
        /// RGBA of the `n + 1` segment end points.
        colors: Option<Vec<Vec4>>,
    },
    /// A Bézier patch tessellated to `min..=max`.
    Surface {
        /// The tessellation.
        surface: Patch,
        /// The coarsest level.
        min: u32,
        /// The finest level.
        max: u32,
        /// RGBA of the domain's corners (averaged down the levels).
        colors: Option<Vec<Vec4>>,
    },
}

/// A level-selecting surface: a rectangle or a triangle patch, with the control points and
/// degrees it was made from (what a save writes).
#[derive(Debug, Clone)]
pub enum Patch {
    /// A tensor-product patch of degrees `(u, v)`.
    Rectangle {
        /// The tessellation.
        mesh: SurfaceMesh<BezierRectangle>,
        /// Degrees along u and v.
        degree: [usize; 2],
        /// Control points, row by row, u fastest.
        points: Vec<glam::Vec3>,
    },
    /// A triangle patch of one degree.
    Triangle {
        /// The tessellation.
        mesh: SurfaceMesh<BezierTriangle>,
        /// Its degree.
        degree: usize,
        /// Control points.
        points: Vec<glam::Vec3>,
    },
}

/// A geometry leaf's levels: the source, the rule and the level shown.
#[derive(Debug, Clone)]
pub struct LevelMesh {
    source: LevelSource,
    select: LevelSelect,
    current: usize,
    /// Local centre of the finest level's bounding sphere: where depth is measured (fixed, so
    /// the choice does not move with the level shown).
    center: glam::Vec3,
}

impl LevelMesh {
    /// A level mesh that will show index `current` (clamped to the levels; build it with
    /// [`LevelMesh::mesh_at`]).
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] for a curve whose `min > max`; what building the
    /// finest level returns.
    pub fn new(
        source: LevelSource,
        select: LevelSelect,
        current: usize,
    ) -> Result<LevelMesh, SceneError> {
        if let LevelSource::Curve { min, max, .. } | LevelSource::Surface { min, max, .. } = &source
        {
            if min > max {
                return Err(SceneError::InvalidArgument {
                    what: "levels",
                    message: format!("min_level {min} is above the finest level {max}"),
                });
            }
        }
        let mut m = LevelMesh {
            source,
            select,
            current: 0,
            center: glam::Vec3::ZERO,
        };
        let finest = m.mesh_at(0)?;
        m.center = finest
            .local_bound(crate::values::bound::BoundKind::Sphere)
            .center();
        m.current = current.min(m.count() - 1);
        Ok(m)
    }

    /// The local point depth is measured at (the finest level's bounding-sphere centre).
    pub fn center(&self) -> glam::Vec3 {
        self.center
    }

    /// The number of levels (at least 1).
    pub fn count(&self) -> usize {
        match &self.source {
            LevelSource::Clod { clod, .. } => clod.record_count().max(1),
            LevelSource::Curve { min, max, .. } | LevelSource::Surface { min, max, .. } => {
                (max - min) as usize + 1
            }
        }
    }

    /// The index shown (0 is the finest).
    pub fn current(&self) -> usize {
        self.current
    }

    /// The rule.
    pub fn select(&self) -> LevelSelect {
        self.select
    }

    /// The source.
    pub fn source(&self) -> &LevelSource {
        &self.source
    }

    /// The index for a leaf at `depth` along the view direction.
    pub fn index_for_depth(&self, depth: f32) -> usize {
        target_record_for_depth(depth, self.select.near, self.select.far, self.count())
    }

    /// Shows index `i` (clamped) and returns its mesh.
    ///
    /// # Errors
    /// What building the level returns (a curve point that is not finite).
    pub fn mesh_at(&mut self, i: usize) -> Result<Mesh, SceneError> {
        let i = i.min(self.count() - 1);
        let mesh = match &mut self.source {
            LevelSource::Clod { clod, .. } => {
                clod.set_target_record(i)?;
                clod.to_mesh()?
            }
            LevelSource::Curve {
                curve, max, colors, ..
            } => {
                curve.set_level(*max - i as u32)?;
                let mesh = curve.to_mesh()?;
                match colors {
                    Some(base) => mesh.with_colors(curve.attributes(base)?)?,
                    None => mesh,
                }
            }
            LevelSource::Surface {
                surface,
                max,
                colors,
                ..
            } => {
                let level = *max - i as u32;
                match surface {
                    Patch::Rectangle { mesh, .. } => patch_at(mesh, level, colors.as_deref())?,
                    Patch::Triangle { mesh, .. } => patch_at(mesh, level, colors.as_deref())?,
                }
            }
        };
        self.current = i;
        Ok(mesh)
    }
}

/// A patch's tessellation at `level`, with its corner colours averaged down the levels.
fn patch_at<P: SurfacePatch>(
    mesh: &mut SurfaceMesh<P>,
    level: u32,
    colors: Option<&[Vec4]>,
) -> Result<Mesh, SceneError> {
    mesh.set_level(level)?;
    let out = mesh.to_mesh()?;
    match colors {
        Some(c) => out.with_colors(mesh.attributes(c)?),
        None => Ok(out),
    }
}
