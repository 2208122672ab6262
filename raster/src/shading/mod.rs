//! Floor 4, shading: OpenGL 1.x's formulas, used by both the vertex stage and the fragment
//! shader — the lighting equation ([`light`]), fog ([`fog`]) and the texture combiners
//! ([`combine`]); and glTF's metallic-roughness BRDF ([`pbr`]).

pub mod combine;
pub mod environment;
pub mod fog;
pub mod light;
pub mod pbr;
