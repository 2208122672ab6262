//! Scene-file documents of continuous-LOD meshes, curves and surfaces (`"clod"`, `"curve"`,
//! `"surface"` meshes; see `docs/scene-format.md`).

use serde::{Deserialize, Serialize};

use super::doc::MeshDoc;
use super::real::{Real, Real3, Real4};

/// `clod`: a triangle mesh decimated by edge collapses (Eberly's `ClodMesh`), drawn at one
/// collapse record. Give `record` or `fraction`, not both (default: record 0, full detail).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClodDoc {
    /// The full-detail triangle mesh (a generator or inline triangles).
    pub mesh: Box<MeshDoc>,
    /// The target record: 0 is full detail, each record one edge collapse more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<u32>,
    /// The target as a fraction of the record range: 0 is full detail, 1 the last record
    /// (record `⌊fraction · (records − 1)⌋`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fraction: Option<Real>,
}

/// `curve`: Bézier segments of one degree joined end to end, tessellated to a level (a line
/// strip).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurveDoc {
    /// Control points: `degree · n + 1` for `n` segments (consecutive segments share their end
    /// point).
    pub points: Vec<Real3>,
    /// Degree of every segment (1 to 15; default 3).
    #[serde(default = "three", skip_serializing_if = "is_three")]
    pub degree: u32,
    /// Subdivision level: `n · 2^level + 1` vertices (at most 2^20).
    #[serde(default)]
    pub level: u32,
    /// RGBA colours of the `n + 1` segment end points, averaged down the levels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colors: Option<Vec<Real4>>,
}

/// The domain of a `surface` patch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PatchDoc {
    /// Tensor-product Bézier patch on `[0,1]²`.
    #[default]
    Rectangle,
    /// Triangular Bézier patch on `u, v ≥ 0, u + v ≤ 1`.
    Triangle,
}

/// `surface`: one Bézier patch tessellated to a level (triangles with the patch's normals).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SurfaceDoc {
    /// `rectangle` (default) or `triangle`.
    #[serde(default, skip_serializing_if = "is_rectangle")]
    pub patch: PatchDoc,
    /// Degree (1 to 15; default 3): of both directions of a rectangle unless `degree_v` is
    /// given.
    #[serde(default = "three", skip_serializing_if = "is_three")]
    pub degree: u32,
    /// A rectangle's degree along v (default `degree`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub degree_v: Option<u32>,
    /// Control points: a rectangle's `(du+1)·(dv+1)` row by row (u fastest); a triangle's
    /// `(d+1)(d+2)/2` row by row (`b_{i,j,d−i−j}` for `j = 0..=d`, `i = 0..=d−j`).
    pub points: Vec<Real3>,
    /// Subdivision level: a rectangle has `2·4^level` triangles, a triangle `4^level` (at
    /// most 2^18).
    #[serde(default)]
    pub level: u32,
    /// RGBA colours of the domain's corners — a rectangle's at `(0,0), (1,0), (1,1), (0,1)`,
    /// a triangle's at `(0,0), (1,0), (0,1)` — averaged down the levels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colors: Option<Vec<Real4>>,
}

fn three() -> u32 {
    3
}

fn is_three(x: &u32) -> bool {
    *x == 3
}

fn is_rectangle(p: &PatchDoc) -> bool {
    *p == PatchDoc::Rectangle
}
