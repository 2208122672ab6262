//! Floor 7, the fragment stage: what happens to one tile's triangles, pixel by pixel —
//! the tile walk and its size classes (`tile`), the scratch arrays a batch is made of
//! (`scratch`), the fragment path (`path`: interpolation, tests, blending, the write), its
//! lanes kernels (`lanes`), the fixed-function shader (`fixed_shader`), the physically based one
//! (`pbr_shader`) and the probe's
//! recorder for `explain` (`probe`).

pub(crate) mod fixed_shader;
pub(crate) mod fixed_stages;
pub(crate) mod fused_texture;
pub(crate) mod lanes;
pub(crate) mod path;
pub(crate) mod pbr_shader;
pub(crate) mod probe;
pub(crate) mod scratch;
pub(crate) mod tile;
