//! Floor 6, geometry: everything between a draw's vertices and the screen tiles' bins —
//! clipping ([`clip`]), the screen-space tests of filled triangles (`screen`), triangle
//! set-up and its plane equations ([`setup`]), the same tests and set-up eight filled
//! triangles at a time in lanes (`lanes`), primitive assembly of one chunk of a draw
//! (`assemble`) and binning to tiles (`bin`).

pub(crate) mod assemble;
pub(crate) mod bin;
pub mod clip;
pub(crate) mod lanes;
pub(crate) mod screen;
pub mod setup;
