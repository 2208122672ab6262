//! Whole-frame benchmark through the scene graph (issue 5): a 1920×1080 frame of 1 056 nodes
//! (32 row groups × 32 geometry leaves + the ground), a shared mipmapped texture on every
//! leaf, 4 lights (ambient, directional, point, spot), linear fog, and every fourth row
//! transparent (blended, read-only depth, sorted back to front). Each iteration is one
//! `Scene::draw` = update + cull + sort + draw with `SoftRenderer` (2 threads).
//! The `moving` variant also moves every row each frame (a dirty update).
//! Run: `cargo bench -p plumb-bench --bench scene_frame`.
#![allow(missing_docs, reason = "criterion_group! generates undocumented items")]

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use glam::{Vec3, Vec4};
use plumb::mesh::TriMesh;
use plumb::raster::combine::ApplyMode;
use plumb::raster::texture::{Sampler, Texture};
use plumb::scene::*;

const W: u32 = 1920;
const H: u32 = 1080;

fn checker() -> Arc<Texture> {
    let mut px = Vec::new();
    for y in 0..128u32 {
        for x in 0..128u32 {
            px.extend_from_slice(&if ((x / 16) + (y / 16)) % 2 == 0 {
                [230, 200, 60, 255]
            } else {
                [40, 90, 200, 255]
            });
        }
    }
    Arc::new(
        Texture::from_rgba8(128, 128, px)
            .unwrap()
            .with_generated_mips(),
    )
}

fn build() -> (Scene, Camera, Vec<NodeId>) {
    let mut scene = Scene::new();
    let fog = Vec4::new(0.7, 0.75, 0.8, 1.0);
    scene.set_background(fog).unwrap();
    let root = scene.root();
    scene
        .set_global_state(root, GlobalState::Fog(FogState::linear(10.0, 60.0, fog)))
        .unwrap();
    let lights = [
        Light::ambient(Vec3::splat(0.2)),
        Light::directional(Vec3::new(0.3, -1.0, -0.5)),
        Light {
            attenuate: true,
            linear: 0.05,
            ..Light::point(Vec3::new(0.0, 6.0, -10.0))
        },
        Light::spot(Vec3::new(5.0, 10.0, -15.0), Vec3::NEG_Y, 0.5, 4.0),
    ];
    for l in lights {
        let id = scene.add_light(l).unwrap();
        scene.attach_light(root, id).unwrap();
    }
    let stage = TextureStage::new(checker(), Sampler::TRILINEAR, ApplyMode::Modulate, 0);
    let ground = scene
        .add_geometry(
            root,
            "ground",
            Arc::new(TriMesh::plane(40.0, 16).to_scene().unwrap()),
        )
        .unwrap();
    scene
        .set_effect(ground, Some(Effect::Textures(vec![stage.clone()])))
        .unwrap();
    let sphere = Arc::new(TriMesh::sphere(0.45, 8, 12).to_scene().unwrap());
    let cube = Arc::new(TriMesh::cube().to_scene().unwrap());
    let mut rows = Vec::new();
    for j in 0..32 {
        let row = scene.add_group(root, format!("row{j}")).unwrap();
        scene
            .set_translation(row, Vec3::new(0.0, 0.5, -2.0 - 1.5 * j as f32))
            .unwrap();
        if j % 4 == 3 {
            scene
                .set_global_state(row, GlobalState::Alpha(AlphaState::BLEND))
                .unwrap();
            scene
                .set_global_state(row, GlobalState::ZBuffer(ZBufferState::READ_ONLY))
                .unwrap();
            let glass = MaterialState::matte(Vec4::new(0.6, 0.8, 1.0, 0.5));
            scene
                .set_global_state(row, GlobalState::Material(glass))
                .unwrap();
        }
        for i in 0..32 {
            let mesh = if (i + j) % 2 == 0 { &sphere } else { &cube };
            let leaf = scene
                .add_geometry(row, format!("n{j}_{i}"), mesh.clone())
                .unwrap();
            scene
                .set_translation(leaf, Vec3::new(-23.25 + 1.5 * i as f32, 0.0, 0.0))
                .unwrap();
            scene.set_uniform_scale(leaf, 0.45).unwrap();
            scene
                .set_effect(leaf, Some(Effect::Textures(vec![stage.clone()])))
                .unwrap();
        }
        rows.push(row);
    }
    let mut camera =
        Camera::perspective(60f32.to_radians(), W as f32 / H as f32, 0.5, 100.0).unwrap();
    camera
        .look_at(
            Vec3::new(0.0, 8.0, 8.0),
            Vec3::new(0.0, 0.0, -20.0),
            Vec3::Y,
        )
        .unwrap();
    (scene, camera, rows)
}

fn frame(c: &mut Criterion) {
    let (mut scene, camera, rows) = build();
    assert!(scene.node_count() >= 1000);
    let mut r = SoftRenderer::new(W, H, Some(2)).unwrap();
    let stats = scene.draw(&camera, &mut r).unwrap();
    eprintln!(
        "scene_frame: {} nodes, {} opaque + {} transparent drawn, {} primitives in, {} fragments",
        scene.node_count(),
        stats.opaque,
        stats.transparent,
        stats.backend.primitives_in,
        stats.backend.fragments
    );
    let mut g = c.benchmark_group("scene_frame");
    g.sample_size(10);
    g.bench_function("static_1080p_1k_nodes", |b| {
        b.iter(|| scene.draw(&camera, &mut r).unwrap())
    });
    let mut t = 0.0f32;
    g.bench_function("moving_1080p_1k_nodes", |b| {
        b.iter(|| {
            t += 0.01;
            for (j, &row) in rows.iter().enumerate() {
                let x = 0.5 * plumb::raster::math::sin(t + j as f32);
                scene
                    .set_translation(row, Vec3::new(x, 0.5, -2.0 - 1.5 * j as f32))
                    .unwrap();
            }
            scene.draw(&camera, &mut r).unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, frame);
criterion_main!(benches);
