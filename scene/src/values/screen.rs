//! Screen-space polygons (Eberly's `ScreenPolygon`, book §3.1 and the ScreenPolygon sample):
//! 2D triangles in normalised screen coordinates drawn behind (background layer) or in front
//! of (overlay layer) the scene. They are not part of the graph; the scene keeps them in a list
//! and [`Scene::draw`](crate::Scene::draw) draws the background layer first and the overlay
//! layer last, each in insertion order.
//!
//! Vertices are `(x, y)` in [0, 1] with the origin at the **top-left** of the viewport and y
//! down (the mesh's z is ignored). The depth is chosen internally: background polygons are at
//! the far plane, overlays at the near plane. Default states: the book defaults with the depth
//! buffer and culling off; set `states` for blending and the like. Screen polygons are never
//! lit.

use std::sync::Arc;

use glam::{Vec2, Vec3, Vec4};

use crate::values::effect::Effect;
use crate::values::error::SceneError;
use crate::values::mesh::Mesh;
use crate::values::state::{CullState, RenderStates, ZBufferState};

/// Which layer a screen polygon belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScreenLayer {
    /// Drawn first, behind everything (depth at far).
    Background,
    /// Drawn last, over everything (depth at near).
    Overlay,
}

/// A screen-space polygon.
#[derive(Debug, Clone)]
pub struct ScreenPolygon {
    /// Triangles with `(x, y)` in [0, 1], origin top-left; colours and uvs as for any mesh.
    pub mesh: Arc<Mesh>,
    /// Layer.
    pub layer: ScreenLayer,
    /// States it is drawn with.
    pub states: RenderStates,
    /// Local effect (textures or vertex colours).
    pub effect: Option<Effect>,
}

impl ScreenPolygon {
    /// A polygon in `layer` with the default screen states (depth and culling off).
    pub fn new(mesh: Arc<Mesh>, layer: ScreenLayer) -> ScreenPolygon {
        ScreenPolygon {
            mesh,
            layer,
            states: RenderStates {
                zbuffer: ZBufferState::DISABLED,
                cull: CullState::NONE,
                ..RenderStates::DEFAULT
            },
            effect: None,
        }
    }

    /// A convex polygon (a triangle fan over `points`, origin top-left) with one colour and
    /// uvs equal to the points.
    ///
    /// # Errors
    /// [`SceneError`] from mesh validation (fewer than 3 points give no triangles).
    pub fn convex(
        points: &[Vec2],
        color: Vec4,
        layer: ScreenLayer,
    ) -> Result<ScreenPolygon, SceneError> {
        let positions: Vec<Vec3> = points.iter().map(|p| p.extend(0.0)).collect();
        let mut indices = Vec::new();
        for i in 1..points.len().saturating_sub(1) {
            let i = u32::try_from(i).map_err(|_| SceneError::TooManyVertices(points.len()))?;
            indices.extend_from_slice(&[0, i, i + 1]);
        }
        let n = positions.len();
        let mesh = Mesh::triangles(positions, indices)?
            .with_colors(vec![color; n])?
            .with_uv_set(points.to_vec())?;
        Ok(ScreenPolygon::new(Arc::new(mesh), layer))
    }
}
