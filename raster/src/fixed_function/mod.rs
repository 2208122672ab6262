//! The fixed-function path: object-space meshes in, OpenGL 1.x / Wild Magic 3 pixels out.
//!
//! [`Context::draw_fixed`](crate::Context::draw_fixed) runs, per draw:
//! 1. **Vertex stage** (once per vertex, in parallel): `pos_eye = view_from_model · p`,
//!    `clip = clip_from_view · pos_eye`, eye-space normal by the inverse-transpose (so normals
//!    stay perpendicular and are renormalised under non-uniform scale); per-vertex (Gouraud)
//!    lighting with [`PreparedLighting`](crate::light::PreparedLighting), front and back colours when two-sided; texture
//!    coordinates per unit from a UV set or texgen (object-linear, eye-linear, sphere map),
//!    transformed by the unit's texture matrix into `(s, t, q)`; the fog factor (per vertex)
//!    or the fog distance (per pixel).
//! 2. The core rasteriser (clip, set-up, tiles).
//! 3. **Fragment shader** (`FixedShader`): primary colour (interpolated, or lit per pixel
//!    for Phong shading), then each texture unit in order — `(s/q, t/q)` with its exact
//!    analytic screen-space derivatives for the LOD — through the unit's apply/combine mode,
//!    then the separate specular colour, then fog `c = f·c + (1 − f)·fog`.
//!
//! Lights, texgen eye planes and the fog distance are all in **eye space**: the caller
//! (e.g. the scene graph) transforms world-space lights by `view_from_world`.

mod draw;
mod types;
pub(crate) mod vertex_stage;

pub use self::draw::check_pbr_input;
pub use self::types::*;
