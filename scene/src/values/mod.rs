//! Layer 1 of the [module map](crate#module-map): value types — plain data with no scene
//! behind it (ids, errors, geometry, meshes and their generators, render states, lights, the
//! camera, effects, controllers, space partitions, intersection tests, cyclic definitions).
//! Nothing here imports from a layer above.

pub mod bound;
pub mod camera;
pub mod clear;
pub mod clod;
pub mod clod_build;
pub mod controller;
pub mod curve;
pub mod definition;
pub mod effect;
pub mod error;
pub mod id;
pub mod ik;
pub mod intersect;
pub mod keyframe;
pub mod levels;
pub mod light;
pub mod mesh;
pub mod morph;
pub mod oriented_box;
pub mod particles;
pub mod partition;
pub mod plane;
pub mod ray;
pub mod screen;
pub mod shapes;
pub mod skin;
pub mod state;
pub mod surface;
pub mod transform;
