//! The README's scene-graph example: a lit cube (flat faces, from the facade's mesh
//! generators) drawn through `Scene::draw` and the CPU `SoftRenderer`, written to `cube.png`.
//!
//! ```sh
//! cargo run --release --example cube
//! ```

use std::sync::Arc;

use glam::{Vec3, Vec4};
use plumb::scene::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut scene = Scene::new();
    let root = scene.root();
    let _cube = scene.add_geometry(
        root,
        "cube",
        Arc::new(plumb::mesh::TriMesh::cube().to_scene()?),
    )?;
    scene.set_global_state(
        root,
        GlobalState::Material(MaterialState::matte(Vec4::new(1.0, 0.3, 0.2, 1.0))),
    )?;
    let sun = scene.add_light(Light::directional(Vec3::new(-0.3, -1.0, -0.5)))?;
    scene.attach_light(root, sun)?; // lights the whole subtree, at most 8 per geometry
    let mut camera = Camera::perspective(1.0, 4.0 / 3.0, 0.1, 100.0)?;
    camera.look_at(Vec3::new(2.0, 1.5, 4.0), Vec3::ZERO, Vec3::Y)?;
    let mut renderer = SoftRenderer::new(640, 480, None)?;
    let stats = scene.draw(&camera, &mut renderer)?; // update → cull → sort → draw
    renderer.image().save("cube.png")?;
    println!("wrote cube.png ({stats:?})");
    Ok(())
}
