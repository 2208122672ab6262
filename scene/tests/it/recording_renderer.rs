//! A second, test-only `Renderer`: it records every call as plain data, touching only what the
//! trait hands over (camera matrices, mesh arrays, lights, pass lists, texture bytes). That it
//! can be written at all — with no raster context, tile or CPU type in sight — shows the trait
//! carries everything a backend needs; the tests then check what `Scene::draw` sends: call
//! order, sorting, light limits, pass lists of multipass effects and unit order.

use std::sync::Arc;

use glam::{Mat4, Vec3, Vec4};
use plumb_raster::texture::{Sampler, Texture};
use plumb_scene::*;

#[derive(Debug, Clone, PartialEq)]
enum Event {
    Begin {
        view: Mat4,
        clear: Vec4,
    },
    Draw {
        node: Option<NodeId>,
        role: DrawRole,
        vertices: usize,
        indices: usize,
        lights: Vec<SceneLight>,
        passes: Vec<PassRecord>,
    },
    /// A layer's clear (`Renderer::clear_region`).
    Clear(ClearRegion),
    End,
}

#[derive(Debug, Clone, PartialEq)]
struct PassRecord {
    states: RenderStates,
    lighting: LightingTerms,
    color: ColorSource,
    /// (first texel of level 0, level count) per stage: the image data is reachable.
    textures: Vec<([u8; 4], usize)>,
    transform: Option<Mat4>,
    clip_plane: Option<Vec4>,
    reverse_cull: bool,
    color_mask: [bool; 4],
}

/// One recorded draw: node, role, passes, lights.
type DrawRecord<'a> = (Option<NodeId>, DrawRole, &'a [PassRecord], &'a [SceneLight]);

struct Recorder {
    events: Vec<Event>,
    max_lights: usize,
    max_units: usize,
}

impl Recorder {
    fn new(max_lights: usize, max_units: usize) -> Self {
        Recorder {
            events: Vec::new(),
            max_lights,
            max_units,
        }
    }

    fn draws(&self) -> Vec<DrawRecord<'_>> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Draw {
                    node,
                    role,
                    passes,
                    lights,
                    ..
                } => Some((*node, *role, &passes[..], &lights[..])),
                _ => None,
            })
            .collect()
    }
}

impl Renderer for Recorder {
    fn size(&self) -> (u32, u32) {
        (64, 64)
    }
    fn max_lights(&self) -> usize {
        self.max_lights
    }
    fn max_texture_units(&self) -> usize {
        self.max_units
    }
    fn begin_frame(&mut self, frame: &Frame<'_>) -> Result<(), SceneError> {
        self.events.push(Event::Begin {
            view: frame.camera.view_from_world(),
            clear: frame.clear_color,
        });
        Ok(())
    }
    fn draw(&mut self, draw: &Draw<'_>) -> Result<(), SceneError> {
        let passes = draw
            .passes
            .iter()
            .map(|p| PassRecord {
                states: p.states,
                lighting: p.lighting,
                color: p.color.clone(),
                textures: p
                    .textures
                    .iter()
                    .map(|t| {
                        let l0 = t.texture.level(0).expect("level 0 exists");
                        let b = l0.to_bytes();
                        ([b[0], b[1], b[2], b[3]], t.texture.level_count())
                    })
                    .collect(),
                transform: p.transform,
                clip_plane: p.clip_plane,
                reverse_cull: p.reverse_cull,
                color_mask: p.color_mask,
            })
            .collect();
        self.events.push(Event::Draw {
            node: draw.node,
            role: draw.role,
            vertices: draw.mesh.positions().len(),
            indices: draw.mesh.indices().len(),
            lights: draw.lights.to_vec(),
            passes,
        });
        Ok(())
    }
    fn clear_region(&mut self, region: &ClearRegion) -> Result<(), SceneError> {
        self.events.push(Event::Clear(*region));
        Ok(())
    }
    fn end_frame(&mut self) -> Result<BackendStats, SceneError> {
        self.events.push(Event::End);
        Ok(BackendStats {
            draws: self
                .events
                .iter()
                .filter(|e| matches!(e, Event::Draw { .. }))
                .count() as u64,
            ..BackendStats::default()
        })
    }
}

fn texel(rgba: [u8; 4]) -> Arc<Texture> {
    Arc::new(Texture::from_rgba8(1, 1, rgba.to_vec()).unwrap())
}

fn camera() -> Camera {
    let mut c = Camera::perspective(1.0, 1.0, 0.1, 100.0).unwrap();
    c.look_at(Vec3::new(0.0, 0.0, 10.0), Vec3::ZERO, Vec3::Y)
        .unwrap();
    c
}

#[test]
fn frame_order_opaque_then_transparent_back_to_front_stably() {
    let mut s = Scene::new();
    let root = s.root();
    let cube = Arc::new(Mesh::cube());
    let glass = s.add_group(root, "glass").unwrap();
    s.set_global_state(glass, GlobalState::Alpha(AlphaState::BLEND))
        .unwrap();
    // Transparent leaves at z = 0 (near), −4 (far), −4 (far, equal depth), in tree order.
    let near = s.add_geometry(glass, "near", cube.clone()).unwrap();
    let far1 = s.add_geometry(glass, "far1", cube.clone()).unwrap();
    s.set_translation(far1, Vec3::new(-1.0, 0.0, -4.0)).unwrap();
    let far2 = s.add_geometry(glass, "far2", cube.clone()).unwrap();
    s.set_translation(far2, Vec3::new(1.0, 0.0, -4.0)).unwrap();
    // Opaque leaves after them in the tree: still drawn first, in tree order.
    let o1 = s.add_geometry(root, "o1", cube.clone()).unwrap();
    let o2 = s.add_geometry(root, "o2", cube.clone()).unwrap();
    s.set_translation(o2, Vec3::new(0.0, 2.0, 0.0)).unwrap();
    // A culled leaf (behind the camera) is never sent.
    let behind = s.add_geometry(root, "behind", cube).unwrap();
    s.set_translation(behind, Vec3::new(0.0, 0.0, 20.0))
        .unwrap();
    let over = ScreenPolygon::convex(
        &[glam::Vec2::ZERO, glam::Vec2::X, glam::Vec2::ONE],
        Vec4::ONE,
        ScreenLayer::Overlay,
    )
    .unwrap();
    let back = ScreenPolygon {
        layer: ScreenLayer::Background,
        ..over.clone()
    };
    s.add_screen_polygon(over);
    s.add_screen_polygon(back);
    s.set_background(Vec4::new(0.1, 0.2, 0.3, 1.0)).unwrap();

    let mut r = Recorder::new(8, 8);
    let stats = s.draw(&camera(), &mut r).unwrap();
    assert!(
        matches!(r.events.first(), Some(Event::Begin { clear, .. }) if *clear == Vec4::new(0.1, 0.2, 0.3, 1.0))
    );
    assert_eq!(r.events.last(), Some(&Event::End));
    let order: Vec<(Option<NodeId>, DrawRole)> = r.draws().iter().map(|d| (d.0, d.1)).collect();
    assert_eq!(
        order,
        vec![
            (None, DrawRole::Background),
            (Some(o1), DrawRole::Opaque),
            (Some(o2), DrawRole::Opaque),
            (Some(far1), DrawRole::Transparent),
            (Some(far2), DrawRole::Transparent),
            (Some(near), DrawRole::Transparent),
            (None, DrawRole::Overlay),
        ]
    );
    assert_eq!(
        (stats.opaque, stats.transparent, stats.screen_polygons),
        (2, 3, 2)
    );
    assert_eq!(stats.cull.culled, 1);
    assert_eq!(stats.backend.draws, 7);
    // The same frame again gives the same calls (stable sort, no hidden state).
    let first = r.events.clone();
    r.events.clear();
    s.draw(&camera(), &mut r).unwrap();
    assert_eq!(r.events, first);
}

#[test]
fn at_most_the_backends_lights_root_first_off_lights_keep_their_slot() {
    let mut s = Scene::new();
    let root = s.root();
    let g = s.add_group(root, "g").unwrap();
    let leaf = s.add_geometry(g, "leaf", Arc::new(Mesh::cube())).unwrap();
    let mut ids = Vec::new();
    for i in 0..9 {
        let mut l = SceneLight::point(Vec3::new(i as f32, 0.0, 0.0));
        l.on = i != 1;
        ids.push(s.add_light(l).unwrap());
    }
    s.attach_light(root, ids[0]).unwrap();
    for &id in &ids[1..] {
        s.attach_light(g, id).unwrap();
    }
    // Root first, then g's list most recent first: 0, 8, 7, …, 1. The ninth (light 1) is cut.
    let mut r = Recorder::new(8, 8);
    s.draw(&camera(), &mut r).unwrap();
    let draws = r.draws();
    let xs: Vec<f32> = draws[0].3.iter().map(|l| l.position.x).collect();
    assert_eq!(xs, vec![0.0, 8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0]);
    assert_eq!(draws[0].0, Some(leaf));
    // Switching light 1 off and moving light 1 to the front: it keeps a slot, marked off.
    s.detach_light(g, ids[1]).unwrap();
    s.attach_light(root, ids[1]).unwrap();
    // Editing a light needs no update to show.
    let mut l8 = *s.light(ids[8]).unwrap();
    l8.position.x = 80.0;
    s.set_light(ids[8], l8).unwrap();
    let mut r = Recorder::new(4, 8);
    s.draw(&camera(), &mut r).unwrap();
    let lights = r.draws()[0].3.to_vec();
    assert_eq!(lights.len(), 4);
    assert_eq!(lights[0].position.x, 1.0);
    assert!(!lights[0].on);
    assert_eq!(lights[2].position.x, 80.0);
}

#[test]
fn pass_lists_carry_units_in_book_order_and_multipass_recipes() {
    let mut s = Scene::new();
    let root = s.root();
    let quad = Arc::new(
        Mesh::triangles(
            vec![Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0)],
            vec![0, 1, 2],
        )
        .unwrap()
        .with_normals(vec![Vec3::Z; 3])
        .unwrap()
        .with_uv_set(vec![glam::Vec2::ZERO; 3])
        .unwrap(),
    );
    let g = s.add_group(root, "env").unwrap();
    s.set_effect(
        g,
        Some(Effect::environment_map(
            texel([0, 0, 255, 255]),
            plumb_raster::combine::ApplyMode::Add,
        )),
    )
    .unwrap();
    let local = s.add_geometry(g, "local", quad.clone()).unwrap();
    s.set_effect(
        local,
        Some(Effect::dark_map(
            texel([255, 0, 0, 255]),
            texel([0, 255, 0, 255]),
            Sampler::NEAREST,
        )),
    )
    .unwrap();
    let gloss = s.add_geometry(root, "gloss", quad.clone()).unwrap();
    s.set_effect(
        gloss,
        Some(Effect::gloss_map(texel([9, 9, 9, 255]), Sampler::NEAREST)),
    )
    .unwrap();
    let l = s.add_light(SceneLight::directional(Vec3::NEG_Z)).unwrap();
    s.attach_light(root, l).unwrap();

    // A backend with 2 units: the global stage is dropped, the local ones kept.
    let mut r = Recorder::new(8, 2);
    s.draw(&camera(), &mut r).unwrap();
    let d = r.draws();
    let by = |n: NodeId| d.iter().find(|x| x.0 == Some(n)).unwrap();
    assert_eq!(
        by(local).2[0].textures,
        vec![([255, 0, 0, 255], 1), ([0, 255, 0, 255], 1)]
    );
    // With 8 units the global environment map is appended after the local stages.
    let mut r = Recorder::new(8, 8);
    s.draw(&camera(), &mut r).unwrap();
    let d = r.draws();
    let by = |n: NodeId| d.iter().find(|x| x.0 == Some(n)).unwrap();
    let firsts: Vec<[u8; 4]> = by(local).2[0].textures.iter().map(|t| t.0).collect();
    assert_eq!(
        firsts,
        vec![[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]]
    );
    // Gloss: specular only without texture, then ambient + diffuse × texture blended
    // ONE, SRC_ALPHA.
    let gp = by(gloss).2;
    assert_eq!(gp.len(), 2);
    assert_eq!(gp[0].lighting, LightingTerms::SPECULAR);
    assert!(gp[0].textures.is_empty());
    assert_eq!(gp[1].lighting, LightingTerms::AMBIENT_DIFFUSE);
    assert_eq!(gp[1].textures.len(), 1);
    assert!(gp[1].states.alpha.blend_enabled);
    assert_eq!(gp[1].states.alpha.src_blend, BlendFactor::One);
    assert_eq!(gp[1].states.alpha.dst_blend, BlendFactor::SrcAlpha);
}

#[test]
fn planar_shadow_and_reflection_are_pass_lists_with_stencil() {
    let mut s = Scene::new();
    let root = s.root();
    // Floor: the plane y = 0 (first triangle CCW seen from +y).
    let floor_mesh = Arc::new(
        Mesh::triangles(
            vec![
                Vec3::new(-5.0, 0.0, 5.0),
                Vec3::new(5.0, 0.0, 5.0),
                Vec3::new(5.0, 0.0, -5.0),
            ],
            vec![0, 1, 2],
        )
        .unwrap(),
    );
    let floor = s.add_geometry(root, "floor", floor_mesh).unwrap();
    let casters = s.add_group(root, "casters").unwrap();
    let c = s
        .add_geometry(casters, "c", Arc::new(Mesh::cube()))
        .unwrap();
    s.set_translation(c, Vec3::new(0.0, 2.0, 0.0)).unwrap();
    let light = s
        .add_light(SceneLight::directional(Vec3::new(0.0, -1.0, 0.0)))
        .unwrap();
    s.set_effect(
        casters,
        Some(Effect::PlanarShadow {
            planes: vec![floor],
            light,
            color: Vec4::new(0.0, 0.0, 0.0, 0.5),
        }),
    )
    .unwrap();
    let mut r = Recorder::new(8, 8);
    let stats = s.draw(&camera(), &mut r).unwrap();
    assert_eq!(stats.scene_effect_draws, 2);
    let d = r.draws();
    let fx: Vec<_> = d.iter().filter(|x| x.1 == DrawRole::SceneEffect).collect();
    // 1. The floor into the stencil: reference 1, no colour, depth test without writes.
    assert_eq!(fx[0].0, Some(floor));
    let mark = &fx[0].2[0];
    assert!(mark.states.stencil.enabled);
    assert_eq!(mark.states.stencil.reference, 1);
    assert_eq!(mark.states.stencil.pass, StencilOp::Replace);
    assert_eq!(mark.color_mask, [false; 4]);
    assert!(!mark.states.zbuffer.writable);
    // 2. The caster flattened onto y = 0, in the shadow colour, inside the stencil.
    assert_eq!(fx[1].0, Some(c));
    let sh = &fx[1].2[0];
    assert_eq!(
        sh.color,
        ColorSource::Constant(Vec4::new(0.0, 0.0, 0.0, 0.5))
    );
    assert_eq!(sh.states.stencil.func, CompareFunc::Equal);
    assert_eq!(sh.states.stencil.pass, StencilOp::Zero);
    let m = sh.transform.unwrap();
    let p = m * Vec4::new(0.3, 2.5, -0.2, 1.0);
    // A light straight down projects (x, y, z) to (x, 0, z).
    assert!((p.truncate() / p.w - Vec3::new(0.3, 0.0, -0.2)).length() < 1e-6);

    // Reflection: four passes per plane.
    s.set_effect(
        casters,
        Some(Effect::PlanarReflection {
            planes: vec![(floor, 0.25)],
        }),
    )
    .unwrap();
    let mut r = Recorder::new(8, 8);
    s.draw(&camera(), &mut r).unwrap();
    let d = r.draws();
    let fx: Vec<_> = d.iter().filter(|x| x.1 == DrawRole::SceneEffect).collect();
    assert_eq!(fx.len(), 4);
    assert_eq!(fx[1].2[0].states.zbuffer.compare, CompareFunc::Always); // depth reset
    let refl = &fx[2].2[0];
    assert!(refl.reverse_cull);
    // Clip plane keeps y ≤ 0 (behind the mirror): (0, −1, 0, 0) up to sign of zero.
    let cp = refl.clip_plane.unwrap();
    assert_eq!((cp.x, cp.y, cp.z), (0.0, -1.0, 0.0));
    let q = refl.transform.unwrap() * Vec4::new(1.0, 2.0, 3.0, 1.0);
    assert_eq!(q, Vec4::new(1.0, -2.0, 3.0, 1.0));
    let blend = &fx[3].2[0].states.alpha;
    assert_eq!(blend.src_blend, BlendFactor::OneMinusConstantAlpha);
    assert_eq!(blend.dst_blend, BlendFactor::ConstantAlpha);
    assert_eq!(blend.constant_color.w, 0.25);
}

/// Layers (`Scene::set_clear`, `plumb_scene::layer`): the base layer is drawn first (opaque,
/// then transparent), then each layer node in tree pre-order — its clear, then its own opaque
/// and transparent leaves — wherever it sits in the tree; a nested layer comes after its
/// parent layer; a layer under an inactive switch child neither clears nor draws; overlays last.
#[test]
fn layers_clear_then_draw_after_everything_outside_them() {
    let mut s = Scene::new();
    let root = s.root();
    let cube = Arc::new(Mesh::cube());
    // Tree order: hud (layer) { h1, glassy h2, inset (layer) { i1 } }, b1, glassy b2.
    let hud = s.add_group(root, "hud").unwrap();
    s.add_geometry(hud, "h1", cube.clone()).unwrap();
    let h2 = s.add_geometry(hud, "h2", cube.clone()).unwrap();
    s.set_global_state(h2, GlobalState::Alpha(AlphaState::BLEND))
        .unwrap();
    let inset = s.add_group(hud, "inset").unwrap();
    s.add_geometry(inset, "i1", cube.clone()).unwrap();
    let b1 = s.add_geometry(root, "b1", cube.clone()).unwrap();
    let b2 = s.add_geometry(root, "b2", cube.clone()).unwrap();
    s.set_global_state(b2, GlobalState::Alpha(AlphaState::BLEND))
        .unwrap();
    // A layer under a switch whose active child is another: never cleared.
    let sw = s.add_switch(root, "sw").unwrap();
    let shown = s.add_geometry(sw, "shown", cube.clone()).unwrap();
    let hidden = s.add_group(sw, "hidden").unwrap();
    s.add_geometry(hidden, "hidden_leaf", cube).unwrap();
    s.set_active_child(sw, Some(shown)).unwrap();
    s.set_clear(hidden, Some(ClearRegion::DEPTH.with_stencil(1)))
        .unwrap();
    let full = ClearRegion::DEPTH;
    let corner = ClearRegion::depth_in(0.5, 0.5, 0.5, 0.5)
        .unwrap()
        .with_depth(None)
        .with_stencil(7);
    s.set_clear(hud, Some(full)).unwrap();
    s.set_clear(inset, Some(corner)).unwrap();
    assert_eq!(s.clear_region(inset).unwrap(), Some(&corner));
    assert_eq!(s.clear_region(b1).unwrap(), None);

    let mut r = Recorder::new(8, 8);
    s.draw(&camera(), &mut r).unwrap();
    let seq: Vec<String> = r
        .events
        .iter()
        .map(|e| match e {
            Event::Begin { .. } => "begin".to_string(),
            Event::Draw { node, .. } => s.name(node.unwrap()).unwrap().to_string(),
            Event::Clear(c) if *c == full => "clear hud".to_string(),
            Event::Clear(c) if *c == corner => "clear inset".to_string(),
            Event::Clear(c) => format!("clear {c:?}"),
            Event::End => "end".to_string(),
        })
        .collect();
    assert_eq!(
        seq,
        [
            "begin",
            "b1",
            "shown",
            "b2",
            "clear hud",
            "h1",
            "h2",
            "clear inset",
            "i1",
            "end"
        ]
    );
    // Removing the clear makes the hud ordinary again: one layer left.
    s.set_clear(hud, None).unwrap();
    let mut r = Recorder::new(8, 8);
    s.draw(&camera(), &mut r).unwrap();
    let clears = r
        .events
        .iter()
        .filter(|e| matches!(e, Event::Clear(_)))
        .count();
    assert_eq!(clears, 1);
    // Bad regions are refused.
    assert!(s
        .set_clear(hud, Some(ClearRegion::DEPTH.with_depth(Some(1.5))))
        .is_err());
    assert!(s
        .set_clear(hud, Some(ClearRegion::DEPTH.with_depth(None)))
        .is_err());
    assert!(ClearRegion::depth_in(0.5, 0.5, 0.6, 0.1).is_err());
}
