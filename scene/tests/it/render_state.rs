//! Render-state propagation and light inheritance follow the book's rules (UpdateRS, book
//! §3.8), checked on the resolved state `update` computes — not on pixels.

use std::sync::Arc;

use glam::{Vec3, Vec4};
use plumb_scene::*;

fn cube() -> Arc<Mesh> {
    Arc::new(Mesh::cube())
}

#[test]
fn defaults_are_the_books() {
    let d = RenderStates::default();
    // Hand-copied from the book's tables (spec/book-ch3.md §5).
    assert!(!d.alpha.blend_enabled);
    assert_eq!(d.alpha.src_blend, BlendFactor::SrcAlpha);
    assert_eq!(d.alpha.dst_blend, BlendFactor::OneMinusSrcAlpha);
    assert!(!d.alpha.test_enabled);
    assert_eq!(d.alpha.test, CompareFunc::Always);
    assert_eq!(d.alpha.reference, 0.0);
    assert!(d.cull.enabled);
    assert_eq!(d.cull.front_face, FrontFace::Ccw);
    assert_eq!(d.cull.cull_face, CullFace::Back);
    assert!(!d.dither.enabled);
    assert!(!d.fog.enabled);
    assert_eq!((d.fog.start, d.fog.end, d.fog.density), (0.0, 1.0, 1.0));
    assert_eq!(d.fog.color, Vec4::new(0.0, 0.0, 0.0, 1.0));
    assert_eq!(d.fog.density_function, FogDensity::Linear);
    assert_eq!(d.fog.apply, FogApply::PerVertex);
    assert_eq!(d.material.emissive, Vec4::new(0.0, 0.0, 0.0, 1.0));
    assert_eq!(d.material.ambient, Vec4::new(0.2, 0.2, 0.2, 1.0));
    assert_eq!(d.material.diffuse, Vec4::new(0.8, 0.8, 0.8, 1.0));
    assert_eq!(d.material.specular, Vec4::new(0.0, 0.0, 0.0, 1.0));
    assert_eq!(d.material.shininess, 1.0);
    assert_eq!(d.shade, ShadeState::Smooth);
    assert!(!d.wireframe.enabled);
    assert!(d.zbuffer.enabled && d.zbuffer.writable);
    assert_eq!(d.zbuffer.compare, CompareFunc::LessEqual);
    assert!(!d.stencil.enabled);
    assert!(!d.polygon_offset.enabled);
    // Enum order of the book's GlobalState types.
    assert_eq!(StateKind::Alpha as u8, 0);
    assert_eq!(StateKind::ZBuffer as u8, 7);
    let l = SceneLight::default();
    assert_eq!(l.kind, LightType::Ambient);
    assert_eq!(l.intensity, 1.0);
    assert_eq!((l.constant, l.linear, l.quadratic), (1.0, 0.0, 0.0));
    assert!(!l.attenuate && l.on);
}

#[test]
fn deepest_state_on_the_path_wins_and_intent_is_kept_apart() {
    let mut s = Scene::new();
    let root = s.root();
    let a = s.add_group(root, "a").unwrap();
    let b = s.add_group(a, "b").unwrap();
    let deep = s.add_geometry(b, "deep", cube()).unwrap();
    let shallow = s.add_geometry(a, "shallow", cube()).unwrap();
    let plain = s.add_geometry(root, "plain", cube()).unwrap();
    s.set_global_state(root, GlobalState::Alpha(AlphaState::BLEND))
        .unwrap();
    s.set_global_state(b, GlobalState::Alpha(AlphaState::ADDITIVE))
        .unwrap();
    s.set_global_state(a, GlobalState::Shade(ShadeState::Flat))
        .unwrap();
    // Setting the same kind twice on a node replaces it.
    s.set_global_state(deep, GlobalState::Cull(CullState::FRONT))
        .unwrap();
    s.set_global_state(deep, GlobalState::Cull(CullState::NONE))
        .unwrap();
    // Before the update nothing is resolved: defaults.
    assert_eq!(s.resolved(deep).unwrap().states, RenderStates::DEFAULT);
    s.update(0.0);
    let rd = s.resolved(deep).unwrap().states;
    assert_eq!(rd.alpha, AlphaState::ADDITIVE); // b is deeper than root
    assert_eq!(rd.shade, ShadeState::Flat); // from a
    assert_eq!(rd.cull, CullState::NONE); // the leaf itself is the deepest
    assert_eq!(rd.zbuffer, ZBufferState::DEFAULT); // nobody set it
    let rs = s.resolved(shallow).unwrap().states;
    assert_eq!(rs.alpha, AlphaState::BLEND);
    assert_eq!(rs.shade, ShadeState::Flat);
    assert_eq!(rs.cull, CullState::BACK);
    assert_eq!(s.resolved(plain).unwrap().states.shade, ShadeState::Smooth);
    // Intent is what was set, untouched by resolution.
    assert_eq!(
        s.global_states(deep).unwrap(),
        &[GlobalState::Cull(CullState::NONE)]
    );
    assert!(s.global_states(plain).unwrap().is_empty());
    // Groups have no resolved record.
    assert!(matches!(s.resolved(a), Err(SceneError::NotAGeometry(_))));

    // A removed state reverts to what is above (after the update).
    s.remove_global_state(b, StateKind::Alpha).unwrap();
    assert_eq!(s.resolved(deep).unwrap().states.alpha, AlphaState::ADDITIVE);
    let stats = s.update(0.0);
    assert_eq!(s.resolved(deep).unwrap().states.alpha, AlphaState::BLEND);
    // Only b's subtree (one leaf) was re-resolved.
    assert_eq!(stats.render_states, 1);
}

#[test]
fn moving_a_subtree_picks_up_its_new_ancestors_states() {
    let mut s = Scene::new();
    let root = s.root();
    let red = s.add_group(root, "red").unwrap();
    let blue = s.add_group(root, "blue").unwrap();
    let m_red = MaterialState::matte(Vec4::new(1.0, 0.0, 0.0, 1.0));
    let m_blue = MaterialState::matte(Vec4::new(0.0, 0.0, 1.0, 1.0));
    s.set_global_state(red, GlobalState::Material(m_red))
        .unwrap();
    s.set_global_state(blue, GlobalState::Material(m_blue))
        .unwrap();
    let leaf = s.add_geometry(red, "leaf", cube()).unwrap();
    s.update(0.0);
    assert_eq!(s.resolved(leaf).unwrap().states.material, m_red);
    s.reparent(leaf, blue, Reparent::KeepLocal).unwrap();
    s.update(0.0);
    assert_eq!(s.resolved(leaf).unwrap().states.material, m_blue);
    // A clean update re-resolves nothing.
    assert_eq!(s.update(0.0).render_states, 0);
}

#[test]
fn lights_come_root_first_then_each_node_most_recent_first() {
    let mut s = Scene::new();
    let root = s.root();
    let g = s.add_group(root, "g").unwrap();
    let leaf = s.add_geometry(g, "leaf", cube()).unwrap();
    let l: Vec<LightId> = (0..4)
        .map(|i| {
            s.add_light(SceneLight::point(Vec3::splat(i as f32)))
                .unwrap()
        })
        .collect();
    s.attach_light(g, l[1]).unwrap();
    s.attach_light(g, l[2]).unwrap();
    s.attach_light(root, l[0]).unwrap();
    s.attach_light(leaf, l[3]).unwrap();
    // Attaching twice to one node is ignored.
    s.attach_light(g, l[1]).unwrap();
    assert_eq!(s.attached_lights(g).unwrap(), &[l[2], l[1]]);
    s.update(0.0);
    assert_eq!(
        s.resolved(leaf).unwrap().lights,
        vec![l[0], l[2], l[1], l[3]]
    );
    s.detach_light(g, l[2]).unwrap();
    s.update(0.0);
    assert_eq!(s.resolved(leaf).unwrap().lights, vec![l[0], l[1], l[3]]);
    // A light that is not in the table cannot be attached.
    let mut other = Scene::new();
    let foreign = other.add_light(SceneLight::default()).unwrap();
    let foreign_next = other.add_light(SceneLight::default()).unwrap();
    assert_eq!(foreign.index(), 0);
    assert!(matches!(
        Scene::new().attach_light(root, foreign_next),
        Err(SceneError::UnknownLight(1))
    ));
}

#[test]
fn global_texture_effect_comes_from_the_nearest_group() {
    let tex =
        Arc::new(plumb_raster::texture::Texture::from_rgba8(1, 1, vec![255, 0, 0, 255]).unwrap());
    let mut s = Scene::new();
    let root = s.root();
    let outer = s.add_group(root, "outer").unwrap();
    let inner = s.add_group(outer, "inner").unwrap();
    let a = s.add_geometry(outer, "a", cube()).unwrap();
    let b = s.add_geometry(inner, "b", cube()).unwrap();
    let sampler = plumb_raster::texture::Sampler::NEAREST;
    s.set_effect(outer, Some(Effect::texture(tex.clone(), sampler)))
        .unwrap();
    s.set_effect(inner, Some(Effect::texture(tex.clone(), sampler)))
        .unwrap();
    s.update(0.0);
    assert_eq!(s.resolved(a).unwrap().global_effect, Some(outer));
    assert_eq!(s.resolved(b).unwrap().global_effect, Some(inner));
    // Placement rules: local-only effects need a leaf, scene effects a group.
    let gloss = Effect::gloss_map(tex, sampler);
    assert!(matches!(
        s.set_effect(outer, Some(gloss)),
        Err(SceneError::EffectPlacement { .. })
    ));
    let shadow = Effect::PlanarShadow {
        planes: vec![a],
        light: s.add_light(SceneLight::default()).unwrap(),
        color: Vec4::ZERO,
    };
    assert!(matches!(
        s.set_effect(a, Some(shadow)),
        Err(SceneError::EffectPlacement { .. })
    ));
}

/// Issue 14.4: a lit mesh without normals is lit with GL's default current normal (0, 0, 1)
/// (its material is not ignored) and the draw stats count it as a warning.
#[test]
fn lit_mesh_without_normals_uses_the_default_current_normal() {
    let mut scene = Scene::new();
    let root = scene.root();
    let p = vec![
        Vec3::new(-1.0, -1.0, 0.0),
        Vec3::new(1.0, -1.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
    ];
    let tri = Mesh::triangles(p, vec![0, 1, 2]).unwrap();
    assert!(tri.normals().is_none());
    scene.add_geometry(root, "bare", Arc::new(tri)).unwrap();
    let red = MaterialState::matte(Vec4::new(1.0, 0.0, 0.0, 1.0));
    scene
        .set_global_state(root, GlobalState::Material(red))
        .unwrap();
    let sun = scene
        .add_light(SceneLight::directional(Vec3::new(0.0, 0.0, -1.0)))
        .unwrap();
    scene.attach_light(root, sun).unwrap();
    let mut camera = Camera::perspective(1.0, 1.0, 0.1, 100.0).unwrap();
    camera
        .look_at(Vec3::new(0.0, 0.0, 3.0), Vec3::ZERO, Vec3::Y)
        .unwrap();
    let mut renderer = SoftRenderer::new(32, 32, Some(1)).unwrap();
    let stats = scene.draw(&camera, &mut renderer).unwrap();
    // N = (0, 0, 1), L = (0, 0, 1) towards the light: N·L = 1, diffuse (1, 0, 0), no
    // ambient → pure red (unlit it would be the white default colour).
    assert_eq!(renderer.image().get_pixel(16, 16).0, [255, 0, 0, 255]);
    assert_eq!(stats.lit_without_normals, 1);
}
