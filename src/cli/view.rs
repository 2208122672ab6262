//! `plumb view SCENE`: an interactive window on a scene file — only in builds with the
//! `viewer` feature (a `minifb` window); default builds need no windowing libraries and
//! answer with a one-line error.
//!
//! Controls: left drag orbits, right (or middle) drag pans, the wheel zooms; `W` toggles
//! wireframe, `L` lighting (lit ↔ the `--unlit` mapping), `B` the world bounding spheres of
//! the geometry, `A` animation playback, `R` resets the view, `S` saves a screenshot
//! (`plumb-view-NNNN.png` in the current directory), `Esc` quits. The picture is drawn by the
//! same `SoftRenderer` as `plumb render`, and only when something changed.

use std::path::PathBuf;

use clap::Args;

use super::args::{parse_size, parse_threads, Size};
use super::budget::BudgetArgs;
use super::CliResult;

/// Arguments of `plumb view`.
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// Scene file: .json, .gltf, .glb or .obj.
    pub scene: PathBuf,
    /// Window size, each side 1..=16384.
    #[arg(long, value_name = "WxH", default_value = "960x640", value_parser = parse_size)]
    pub size: Size,
    /// Worker threads (0 or absent: all cores).
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// The work budget of the load.
    #[command(flatten)]
    pub budget: BudgetArgs,
}

/// Runs the viewer (or explains how to get one).
pub fn run(args: &ViewArgs) -> CliResult {
    #[cfg(feature = "viewer")]
    {
        window::run(args)
    }
    #[cfg(not(feature = "viewer"))]
    {
        let _ = args;
        Err("this plumb was built without the viewer; rebuild with \
             `cargo build --release --features viewer`"
            .to_owned())
    }
}

/// The bounding-sphere overlay: three great circles per sphere as one line mesh.
#[cfg_attr(
    not(feature = "viewer"),
    allow(dead_code, reason = "used by the viewer")
)]
pub(crate) fn sphere_lines(
    spheres: &[(glam::Vec3, f32)],
    segments: u32,
) -> Result<plumb::scene::Mesh, plumb::scene::SceneError> {
    use glam::{Vec3, Vec4};
    use plumb::raster::math;
    let mut positions = Vec::new();
    let mut indices = Vec::new();
    for &(c, r) in spheres {
        for axis in 0..3 {
            let base = positions.len() as u32;
            for k in 0..segments {
                let a = k as f32 / segments as f32 * core::f32::consts::TAU;
                let (s, co) = math::sin_cos(a);
                let p = match axis {
                    0 => Vec3::new(0.0, co, s),
                    1 => Vec3::new(co, 0.0, s),
                    _ => Vec3::new(co, s, 0.0),
                };
                positions.push(c + p * r);
                indices.extend_from_slice(&[base + k, base + (k + 1) % segments]);
            }
        }
    }
    let colors = vec![Vec4::new(1.0, 0.85, 0.1, 1.0); positions.len()];
    plumb::scene::Mesh::new(plumb::scene::MeshTopology::Lines, positions, indices)?
        .with_colors(colors)
}

#[cfg(feature = "viewer")]
mod window {
    use std::sync::Arc;
    use std::time::Instant;

    use minifb::{Key, KeyRepeat, MouseButton, MouseMode, Window, WindowOptions};
    use plumb::orbit::Orbit;
    use plumb::raster::math;
    use plumb::scene::io::{self, Applied, Imported};
    use plumb::scene::{Culling, GlobalState, NodeKind, Scene, SoftRenderer, WireframeState};

    use super::{sphere_lines, ViewArgs};
    use crate::cli::render::load_mapped;
    use crate::cli::CliResult;

    /// One mapping of the scene file (lit or unlit) with what drawing it needs.
    struct Variant {
        scene: Scene,
        imported: Imported,
        applied: Applied,
        bounds_node: plumb::scene::NodeId,
    }

    fn load(args: &ViewArgs, unlit: bool) -> Result<Variant, String> {
        let (mut scene, imported, applied) =
            load_mapped(&args.scene, unlit, (None, None), &args.budget.budget())?;
        scene.update(0.0);
        // World bounding spheres of every geometry leaf, as a hidden line overlay.
        let mut spheres = Vec::new();
        let mut stack = vec![scene.root()];
        while let Some(n) = stack.pop() {
            let e = |e: plumb::scene::SceneError| e.to_string();
            if scene.kind(n).map_err(e)? == NodeKind::Geometry {
                let b = scene.world_bound(n).map_err(e)?;
                if !b.is_empty() {
                    spheres.push((b.center(), b.radius()));
                }
            }
            stack.extend(scene.children(n).map_err(e)?.iter().rev());
        }
        let lines = sphere_lines(&spheres, 48).map_err(|e| e.to_string())?;
        let root = scene.root();
        let bounds_node = scene
            .add_geometry(root, "plumb-view bounds", Arc::new(lines))
            .map_err(|e| e.to_string())?;
        scene
            .set_culling(bounds_node, Culling::Always)
            .map_err(|e| e.to_string())?;
        Ok(Variant {
            scene,
            imported,
            applied,
            bounds_node,
        })
    }

    pub(super) fn run(args: &ViewArgs) -> CliResult {
        let (w, h) = (args.size.width as usize, args.size.height as usize);
        let aspect = w as f32 / h as f32;
        let mut variants = [load(args, false)?, load(args, true)?];
        let (center, radius) = {
            let b = plumb::scene::io::framing::geometry_box(&variants[0].scene)
                .map_err(|e| e.to_string())?;
            if b.is_empty() {
                (glam::Vec3::ZERO, 1.0)
            } else {
                (b.center(), b.radius())
            }
        };
        let home = Orbit::framing(center, radius, math::to_radians(45.0), aspect);
        let mut orbit = home;
        let mut renderer = SoftRenderer::new(args.size.width, args.size.height, args.threads)
            .map_err(|e| e.to_string())?;
        let mut window = Window::new(
            "plumb view — drag: orbit · right drag: pan · wheel: zoom · W L B A R S · Esc",
            w,
            h,
            WindowOptions::default(),
        )
        .map_err(|e| format!("cannot open a window: {e}"))?;
        window.set_target_fps(60);
        let mut buffer = vec![0u32; w * h];
        let (mut lit, mut wire, mut bounds, mut playing) = (0usize, false, false, false);
        let (mut time, mut shots) = (0.0f32, 0u32);
        let mut last_mouse: Option<(f32, f32)> = None;
        let mut dirty = true;
        let mut clock = Instant::now();
        while window.is_open() && !window.is_key_down(Key::Escape) {
            let mouse = window.get_mouse_pos(MouseMode::Pass);
            if let (Some((x, y)), Some((px, py))) = (mouse, last_mouse) {
                let (dx, dy) = (x - px, y - py);
                if dx != 0.0 || dy != 0.0 {
                    if window.get_mouse_down(MouseButton::Left) {
                        orbit.rotate(dx, dy);
                        dirty = true;
                    } else if window.get_mouse_down(MouseButton::Right)
                        || window.get_mouse_down(MouseButton::Middle)
                    {
                        orbit.pan(dx, dy, h as f32);
                        dirty = true;
                    }
                }
            }
            last_mouse = mouse;
            if let Some((_, sy)) = window.get_scroll_wheel() {
                if sy != 0.0 {
                    orbit.zoom(sy.signum());
                    dirty = true;
                }
            }
            for key in window.get_keys_pressed(KeyRepeat::No) {
                match key {
                    Key::W => wire = !wire,
                    Key::L => lit = 1 - lit,
                    Key::B => bounds = !bounds,
                    Key::A => {
                        playing = !playing;
                        clock = Instant::now();
                    }
                    Key::R => orbit = home,
                    Key::S => {
                        let name = format!("plumb-view-{shots:04}.png");
                        renderer
                            .image()
                            .save(&name)
                            .map_err(|e| format!("{name}: {e}"))?;
                        println!("saved {name}");
                        shots += 1;
                    }
                    _ => continue,
                }
                dirty = true;
            }
            if playing {
                time += clock.elapsed().as_secs_f32();
                clock = Instant::now();
                dirty = true;
            }
            if dirty {
                let v = &mut variants[lit];
                let e = |e: plumb::scene::SceneError| e.to_string();
                let root = v.scene.root();
                v.scene
                    .set_global_state(
                        root,
                        GlobalState::Wireframe(WireframeState { enabled: wire }),
                    )
                    .map_err(e)?;
                let mode = if bounds {
                    Culling::Never
                } else {
                    Culling::Always
                };
                v.scene.set_culling(v.bounds_node, mode).map_err(e)?;
                io::apply_animations(&mut v.scene, &v.imported.animations, time)
                    .map_err(|e| e.to_string())?;
                v.scene.update(f64::from(time));
                let camera = orbit.camera(aspect, radius).map_err(e)?;
                v.imported.reinstance(&mut v.scene, &camera).map_err(e)?;
                v.applied
                    .place_lights(&mut v.scene, &v.imported, &camera)
                    .map_err(e)?;
                v.scene.draw(&camera, &mut renderer).map_err(e)?;
                let image = renderer.image();
                for (dst, px) in buffer.iter_mut().zip(image.pixels()) {
                    let [r, g, b, _] = px.0;
                    *dst = u32::from_be_bytes([0, r, g, b]);
                }
                dirty = false;
            }
            window
                .update_with_buffer(&buffer, w, h)
                .map_err(|e| format!("window: {e}"))?;
        }
        Ok(std::process::ExitCode::SUCCESS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sphere_overlay_has_three_closed_circles_per_sphere() {
        let m = sphere_lines(&[(glam::Vec3::new(1.0, 2.0, 3.0), 2.0)], 8).unwrap();
        assert_eq!(m.positions().len(), 24);
        assert_eq!(m.indices().len(), 48); // 3 circles × 8 segments × 2 ends
        for p in m.positions() {
            let d = (*p - glam::Vec3::new(1.0, 2.0, 3.0)).length();
            assert!((d - 2.0).abs() < 1e-5, "{p} is {d} from the centre");
        }
        // Each circle closes: its last segment returns to its first vertex.
        assert_eq!(&m.indices()[14..16], &[7, 0]);
    }
}
