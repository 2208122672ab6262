//! Portal culling on the book's 13-room level (`refimages/json/portals_level.json`, issue 15):
//! one `Scene::cull_into` per iteration from four eyes — looking down the long x corridor from
//! C00, from a diagonal room, from outside above the level, and from C00 with all its
//! portals closed (the BSP descent and one region: the floor).
//!
//! Run: `cargo bench -p plumb-bench --bench portals -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_main, Criterion};
use glam::Vec3;
use plumb_scene::io::{self, ImportOptions};
use plumb_scene::{Camera, VisibleSet};

fn camera(eye: Vec3, target: Vec3) -> Camera {
    let mut c = Camera::perspective(1.2, 1.0, 0.1, 100.0).unwrap();
    c.look_at(eye, target, Vec3::Z).unwrap();
    c
}

fn benches(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../refimages/json/portals_level.json");
    let mut scene = io::load(&path, &ImportOptions::default()).unwrap().scene;
    scene.update(0.0);
    let eyes = [
        (
            "corridor",
            camera(Vec3::new(-0.5, 0.0, 1.0), Vec3::new(5.0, 0.0, 1.0)),
        ),
        (
            "diagonal_room",
            camera(Vec3::new(3.0, 3.0, 1.0), Vec3::new(4.0, 0.0, 0.8)),
        ),
        ("outside", camera(Vec3::new(0.0, -8.0, 6.0), Vec3::ZERO)),
    ];
    let mut visible = VisibleSet::new();
    let mut g = c.benchmark_group("portal_cull_13_rooms");
    for (name, cam) in &eyes {
        scene.cull_into(cam, &mut visible);
        eprintln!(
            "{name}: {} regions, {} leaves, {:?}",
            visible.regions().len(),
            visible.len(),
            visible.stats()
        );
        g.bench_function(*name, |b| {
            b.iter(|| {
                scene.cull_into(black_box(cam), &mut visible);
                black_box(visible.len())
            })
        });
    }
    let c00 = scene.find("C00").unwrap();
    let count = scene.portals(c00).unwrap().len();
    for k in 0..count {
        scene.set_portal_open(c00, k, false).unwrap();
    }
    let (_, cam) = &eyes[0];
    scene.cull_into(cam, &mut visible);
    eprintln!(
        "closed: {} regions, {} leaves",
        visible.regions().len(),
        visible.len()
    );
    g.bench_function("corridor_closed", |b| {
        b.iter(|| {
            scene.cull_into(black_box(cam), &mut visible);
            black_box(visible.len())
        })
    });
    g.finish();
}

/// The benchmark group (written out instead of `criterion_group!`, whose generated function
/// has no docs).
pub fn portal_benches() {
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
}

criterion_main!(portal_benches);
