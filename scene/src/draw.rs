//! Drawing a frame: [`Scene::draw`] = update → cull → sort → draw through a [`Renderer`].
//!
//! 1. **Update**: billboards are pointed at the camera ([`Scene::face_billboards`]), then
//!    [`Scene::update`] runs at the time of the last update (controllers are re-run at that
//!    time; they are functions of time, so this changes nothing), bringing world transforms,
//!    bounds and resolved render state up to date.
//! 2. **Cull** against the camera ([`Scene::cull_into`]): visible geometry leaves in tree order.
//! 3. **Sort**: leaves whose resolved alpha state blends (with colour factors other than
//!    `ONE, ZERO`, [`AlphaState::is_transparent`]) are *transparent*; the others are
//!    *opaque* and keep tree order. Transparent leaves are sorted back to front by the view
//!    depth of their world-bound centre, `D·(c − E)`, farthest first, with a **stable** sort
//!    (equal depths keep tree order — the book's sorted-faces demo flickered with an unstable
//!    order).
//! 4. **Draw**: `begin_frame` (clear), background screen polygons, opaque leaves, planar
//!    shadow and reflection passes of scene effects (tree order of their groups), transparent
//!    leaves, overlay screen polygons, `end_frame`.
//!
//! Per leaf, the pass list comes from its local effect and the global texture effect of its
//! nearest ancestor ([`effect`](crate::effect)); the lights are the first
//! `min(renderer.max_lights(), MAX_LIGHTS)` resolved lights (off lights included: they keep
//! their slot and the backend skips them).

use std::sync::Arc;

use glam::{Vec3, Vec4};

use crate::camera::Camera;
use crate::cull::{CullMode, CullStats, VisibleSet};
use crate::effect::{
    bump_light_vectors, reflection_matrix, shadow_matrix, world_plane, Effect, TexCoords,
    TextureStage,
};
use crate::error::SceneError;
use crate::graph::{NodeData, NodeId, Scene};
use crate::light::{Light, MAX_LIGHTS};
use crate::render_state::ResolvedRender;
use crate::renderer::{
    BackendStats, ColorSource, Draw, DrawRole, Frame, LightingTerms, Pass, Renderer, Space,
};
use crate::screen::{ScreenLayer, ScreenPolygon};
use crate::state::{
    AlphaState, BlendFactor, CompareFunc, CullState, FogState, RenderStates, StencilOp,
    StencilState, WireframeState, ZBufferState,
};
use crate::update::UpdateStats;

/// Frame-wide settings of a scene.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameSettings {
    /// Colour the frame is cleared to (default opaque black).
    pub background: Vec4,
    /// Global ambient light (default black, as the book's OpenGL renderer).
    pub global_ambient: Vec3,
}

impl Default for FrameSettings {
    fn default() -> Self {
        FrameSettings {
            background: Vec4::new(0.0, 0.0, 0.0, 1.0),
            global_ambient: Vec3::ZERO,
        }
    }
}

/// What one [`Scene::draw`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DrawStats {
    /// The update it ran.
    pub update: UpdateStats,
    /// Culling counters (`culled` = subtrees culled).
    pub cull: CullStats,
    /// Opaque geometry leaves drawn.
    pub opaque: usize,
    /// Transparent geometry leaves drawn (sorted).
    pub transparent: usize,
    /// Screen polygons drawn.
    pub screen_polygons: usize,
    /// Extra draws issued by planar shadow / reflection effects.
    pub scene_effect_draws: usize,
    /// The backend's counters (draws, passes, primitives in / clipped / out, fragments).
    pub backend: BackendStats,
}

/// Stencil reference values available to scene effects (one per plane per frame).
const MAX_STENCIL_PLANES: usize = 255;

impl Scene {
    /// The frame settings.
    pub fn frame_settings(&self) -> FrameSettings {
        self.frame
    }

    /// Sets the clear colour.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`].
    pub fn set_background(&mut self, color: Vec4) -> Result<(), SceneError> {
        if !color.is_finite() {
            return Err(SceneError::NonFinite { what: "background" });
        }
        self.frame.background = color;
        Ok(())
    }

    /// Sets the global ambient light.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`].
    pub fn set_global_ambient(&mut self, ambient: Vec3) -> Result<(), SceneError> {
        if !ambient.is_finite() {
            return Err(SceneError::NonFinite {
                what: "global ambient",
            });
        }
        self.frame.global_ambient = ambient;
        Ok(())
    }

    /// Draws a frame through `renderer` (see the [module docs](self)).
    ///
    /// # Errors
    /// A backend error ([`SceneError::Renderer`]), or an effect that cannot be applied to its
    /// mesh ([`SceneError::AttributeLength`] for vertex colours of the wrong length,
    /// [`SceneError::EffectInput`] for a bump map without normals or uvs).
    pub fn draw(
        &mut self,
        camera: &Camera,
        renderer: &mut dyn Renderer,
    ) -> Result<DrawStats, SceneError> {
        self.face_billboards(camera.location());
        let update = self.update(self.time);
        let mut visible = self.visible_scratch.take().unwrap_or_default();
        self.cull_into(camera, &mut visible);
        let result = self.draw_visible(camera, renderer, &visible, update);
        self.visible_scratch = Some(visible);
        result
    }

    fn draw_visible(
        &self,
        camera: &Camera,
        renderer: &mut dyn Renderer,
        visible: &VisibleSet,
        update: UpdateStats,
    ) -> Result<DrawStats, SceneError> {
        let mut stats = DrawStats {
            update,
            cull: visible.stats(),
            ..DrawStats::default()
        };
        let (eye, dir) = (camera.location(), camera.direction());
        let mut opaque = Vec::with_capacity(visible.len());
        let mut transparent = Vec::new();
        for &id in visible.items() {
            let node = self.node(id)?;
            let r = self.resolved(id)?;
            if r.states.alpha.is_transparent() {
                transparent.push((id, dir.dot(node.world_bound.center() - eye)));
            } else {
                opaque.push(id);
            }
        }
        // Stable: equal depths keep tree order.
        transparent.sort_by(|a, b| b.1.total_cmp(&a.1));
        let limits = Limits {
            lights: renderer.max_lights().min(MAX_LIGHTS),
            units: renderer.max_texture_units(),
        };
        renderer.begin_frame(&Frame {
            camera,
            clear_color: self.frame.background,
            clear_depth: 1.0,
            clear_stencil: 0,
            global_ambient: self.frame.global_ambient,
        })?;
        for poly in &self.screen_polygons {
            if poly.layer == ScreenLayer::Background {
                draw_screen(poly, renderer, limits)?;
                stats.screen_polygons += 1;
            }
        }
        for &id in &opaque {
            self.draw_leaf(id, DrawRole::Opaque, renderer, limits, None)?;
        }
        stats.opaque = opaque.len();
        if self.has_scene_effects {
            stats.scene_effect_draws = self.draw_scene_effects(renderer, limits)?;
        }
        for &(id, _) in &transparent {
            self.draw_leaf(id, DrawRole::Transparent, renderer, limits, None)?;
        }
        stats.transparent = transparent.len();
        for poly in &self.screen_polygons {
            if poly.layer == ScreenLayer::Overlay {
                draw_screen(poly, renderer, limits)?;
                stats.screen_polygons += 1;
            }
        }
        stats.backend = renderer.end_frame()?;
        Ok(stats)
    }

    /// The lights a leaf is drawn with (first `max` resolved ones).
    fn leaf_lights(&self, r: &ResolvedRender, max: usize) -> Vec<Light> {
        r.lights
            .iter()
            .take(max)
            .filter_map(|l| self.lights.get(l.index() as usize))
            .copied()
            .collect()
    }

    /// The pass list of a geometry leaf under its resolved state and effects.
    pub fn leaf_passes(&self, id: NodeId, max_units: usize) -> Result<Vec<Pass>, SceneError> {
        let node = self.node(id)?;
        let NodeData::Geometry(mesh) = &node.data else {
            return Err(SceneError::NotAGeometry(node.name.clone()));
        };
        let r = self.resolved(id)?;
        let global: &[TextureStage] = match r.global_effect.map(|g| self.effect(g)) {
            Some(Ok(Some(Effect::Textures(stages)))) => stages,
            _ => &[],
        };
        let local = node.intent.as_ref().and_then(|i| i.effect.as_deref());
        let units = |own: &[TextureStage]| -> Vec<TextureStage> {
            own.iter().chain(global).take(max_units).cloned().collect()
        };
        let states = r.states;
        Ok(match local {
            None => vec![Pass::new(states, units(&[]))],
            Some(Effect::Textures(own)) => vec![Pass::new(states, units(own))],
            Some(Effect::VertexColors(colors)) => {
                if colors.len() != mesh.positions().len() {
                    return Err(SceneError::AttributeLength {
                        attribute: "effect colors",
                        expected: mesh.positions().len(),
                        actual: colors.len(),
                    });
                }
                vec![Pass {
                    color: ColorSource::Vertex(Arc::clone(colors)),
                    ..Pass::new(states, units(&[]))
                }]
            }
            Some(Effect::GlossMap(stage)) => vec![
                Pass {
                    lighting: LightingTerms::SPECULAR,
                    ..Pass::new(states, Vec::new())
                },
                Pass {
                    lighting: LightingTerms::AMBIENT_DIFFUSE,
                    ..Pass::new(
                        RenderStates {
                            alpha: AlphaState::blend(BlendFactor::One, BlendFactor::SrcAlpha),
                            ..states
                        },
                        units(std::slice::from_ref(stage)),
                    )
                },
            ],
            Some(Effect::BumpMap {
                base,
                normal_map,
                light,
            }) => {
                let uv_set = match normal_map.coords {
                    TexCoords::Uv(k) => k,
                    _ => 0,
                };
                let l = self.light(*light)?;
                let colors = bump_light_vectors(mesh, uv_set, &node.world, l).ok_or_else(|| {
                    SceneError::EffectInput {
                        effect: "bump map",
                        node: node.name.clone(),
                        need: "normals, the normal map's uv set and an invertible transform",
                    }
                })?;
                vec![Pass {
                    lighting: LightingTerms::NONE,
                    color: ColorSource::Vertex(colors.into()),
                    ..Pass::new(states, units(&[normal_map.clone(), base.clone()]))
                }]
            }
            Some(Effect::PlanarShadow { .. } | Effect::PlanarReflection { .. }) => {
                vec![Pass::new(states, units(&[]))]
            }
        })
    }

    /// Draws one leaf with its passes, optionally rewritten by `modify`.
    fn draw_leaf(
        &self,
        id: NodeId,
        role: DrawRole,
        renderer: &mut dyn Renderer,
        limits: Limits,
        modify: Option<&dyn Fn(&mut Pass)>,
    ) -> Result<(), SceneError> {
        let node = self.node(id)?;
        let NodeData::Geometry(mesh) = &node.data else {
            return Err(SceneError::NotAGeometry(node.name.clone()));
        };
        let r = self.resolved(id)?;
        let lights = self.leaf_lights(r, limits.lights);
        let mut passes = self.leaf_passes(id, limits.units)?;
        if let Some(f) = modify {
            passes.iter_mut().for_each(f);
        }
        renderer.draw(&Draw {
            node: Some(id),
            role,
            mesh,
            space: Space::World {
                world_from_local: node.world.to_mat4(),
            },
            mirror: node.world.is_mirror(),
            lights: &lights,
            passes: &passes,
        })
    }

    /// Draws a leaf with one explicit pass and no lights.
    fn draw_leaf_with(
        &self,
        id: NodeId,
        renderer: &mut dyn Renderer,
        pass: Pass,
    ) -> Result<(), SceneError> {
        let node = self.node(id)?;
        let NodeData::Geometry(mesh) = &node.data else {
            return Err(SceneError::NotAGeometry(node.name.clone()));
        };
        renderer.draw(&Draw {
            node: Some(id),
            role: DrawRole::SceneEffect,
            mesh,
            space: Space::World {
                world_from_local: node.world.to_mat4(),
            },
            mirror: node.world.is_mirror(),
            lights: &[],
            passes: std::slice::from_ref(&pass),
        })
    }

    /// Geometry leaves under `from` in pre-order, as drawing sees them (active switch children
    /// only, `CullMode::Always` subtrees skipped).
    fn drawable_leaves(&self, from: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![from];
        while let Some(id) = stack.pop() {
            let Ok(node) = self.node(id) else { continue };
            if node.cull == CullMode::Always {
                continue;
            }
            match &node.data {
                NodeData::Geometry(_) => out.push(id),
                NodeData::Group => stack.extend(node.children.iter().rev()),
                NodeData::Switch { active } => stack.extend(active.iter()),
            }
        }
        out
    }

    /// Groups with planar shadow / reflection effects, in tree pre-order.
    fn scene_effect_nodes(&self) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![self.root()];
        while let Some(id) = stack.pop() {
            let Ok(node) = self.node(id) else { continue };
            if node.cull == CullMode::Always {
                continue;
            }
            if matches!(
                node.intent.as_ref().and_then(|i| i.effect.as_deref()),
                Some(Effect::PlanarShadow { .. } | Effect::PlanarReflection { .. })
            ) {
                out.push(id);
            }
            match &node.data {
                NodeData::Geometry(_) => {}
                NodeData::Group => stack.extend(node.children.iter().rev()),
                NodeData::Switch { active } => stack.extend(active.iter()),
            }
        }
        out
    }

    /// Issues the planar shadow and reflection passes; returns the number of draws.
    fn draw_scene_effects(
        &self,
        renderer: &mut dyn Renderer,
        limits: Limits,
    ) -> Result<usize, SceneError> {
        let mut draws = 0;
        let mut next_ref = 0usize;
        for group in self.scene_effect_nodes() {
            let Some(effect) = self.effect(group)? else {
                continue;
            };
            match effect {
                Effect::PlanarShadow {
                    planes,
                    light,
                    color,
                } => {
                    let light = *self.light(*light)?;
                    let casters: Vec<NodeId> = self
                        .drawable_leaves(group)
                        .into_iter()
                        .filter(|c| !planes.contains(c))
                        .collect();
                    for &plane in planes {
                        let Some((eq, plane_states)) = self.plane_of(plane)? else {
                            continue;
                        };
                        let Some(shadow) = shadow_matrix(eq, &light) else {
                            continue;
                        };
                        if next_ref >= MAX_STENCIL_PLANES {
                            break;
                        }
                        next_ref += 1;
                        let reference = next_ref as u8;
                        self.draw_leaf_with(
                            plane,
                            renderer,
                            stencil_mark(plane_states, reference),
                        )?;
                        draws += 1;
                        for &c in &casters {
                            let states = self.resolved(c)?.states;
                            let pass = Pass {
                                states: RenderStates {
                                    alpha: AlphaState::BLEND,
                                    cull: CullState::NONE,
                                    fog: FogState::OFF,
                                    wireframe: WireframeState { enabled: false },
                                    zbuffer: ZBufferState::DISABLED,
                                    stencil: StencilState {
                                        on_z_pass: StencilOp::Zero,
                                        ..StencilState::test(CompareFunc::Equal, reference)
                                    },
                                    ..states
                                },
                                lighting: LightingTerms::NONE,
                                color: ColorSource::Constant(*color),
                                transform: Some(shadow),
                                ..Pass::new(states, Vec::new())
                            };
                            self.draw_leaf_with(c, renderer, pass)?;
                            draws += 1;
                        }
                    }
                }
                Effect::PlanarReflection { planes } => {
                    let plane_ids: Vec<NodeId> = planes.iter().map(|p| p.0).collect();
                    let casters: Vec<NodeId> = self
                        .drawable_leaves(group)
                        .into_iter()
                        .filter(|c| !plane_ids.contains(c))
                        .collect();
                    for &(plane, reflectance) in planes {
                        let Some((eq, plane_states)) = self.plane_of(plane)? else {
                            continue;
                        };
                        if next_ref >= MAX_STENCIL_PLANES {
                            break;
                        }
                        next_ref += 1;
                        let reference = next_ref as u8;
                        let inside = StencilState::test(CompareFunc::Equal, reference);
                        // 1. The visible part of the plane into the stencil buffer.
                        self.draw_leaf_with(
                            plane,
                            renderer,
                            stencil_mark(plane_states, reference),
                        )?;
                        // 2. Depth under it back to far.
                        let reset = Pass {
                            states: RenderStates {
                                zbuffer: ZBufferState {
                                    enabled: true,
                                    writable: true,
                                    compare: CompareFunc::Always,
                                },
                                stencil: inside,
                                alpha: AlphaState::OPAQUE,
                                ..plane_states
                            },
                            lighting: LightingTerms::NONE,
                            depth_range: Some((1.0, 1.0)),
                            color_mask: [false; 4],
                            ..Pass::new(plane_states, Vec::new())
                        };
                        self.draw_leaf_with(plane, renderer, reset)?;
                        draws += 2;
                        // 3. The casters reflected, clipped to behind the mirror, culling
                        //    reversed, inside the stencil.
                        let mirror = reflection_matrix(eq);
                        let modify = |p: &mut Pass| {
                            p.transform = Some(mirror);
                            p.clip_plane = Some(-eq);
                            p.reverse_cull = true;
                            p.states.stencil = inside;
                        };
                        for &c in &casters {
                            self.draw_leaf(
                                c,
                                DrawRole::SceneEffect,
                                renderer,
                                limits,
                                Some(&modify),
                            )?;
                            draws += 1;
                        }
                        // 4. The plane over it: src·(1 − r) + dst·r.
                        let blend = move |p: &mut Pass| {
                            p.states.alpha = AlphaState {
                                constant_color: Vec4::new(0.0, 0.0, 0.0, reflectance),
                                ..AlphaState::blend(
                                    BlendFactor::OneMinusConstantAlpha,
                                    BlendFactor::ConstantAlpha,
                                )
                            };
                            p.states.stencil = inside;
                        };
                        self.draw_leaf(
                            plane,
                            DrawRole::SceneEffect,
                            renderer,
                            limits,
                            Some(&blend),
                        )?;
                        draws += 1;
                    }
                }
                _ => {}
            }
        }
        Ok(draws)
    }

    /// World plane and resolved states of a plane leaf (`None` if it has no usable triangle).
    fn plane_of(&self, plane: NodeId) -> Result<Option<(Vec4, RenderStates)>, SceneError> {
        let node = self.node(plane)?;
        let NodeData::Geometry(mesh) = &node.data else {
            return Err(SceneError::NotAGeometry(node.name.clone()));
        };
        Ok(world_plane(mesh, &node.world).map(|eq| {
            (
                eq,
                self.resolved(plane).map(|r| r.states).unwrap_or_default(),
            )
        }))
    }
}

/// The renderer limits a frame works with.
#[derive(Debug, Clone, Copy)]
struct Limits {
    lights: usize,
    units: usize,
}

/// A pass writing `reference` into the stencil buffer where the plane passes the depth test,
/// touching neither colour nor depth.
fn stencil_mark(plane_states: RenderStates, reference: u8) -> Pass {
    Pass {
        states: RenderStates {
            zbuffer: ZBufferState::READ_ONLY,
            stencil: StencilState::write(reference),
            alpha: AlphaState::OPAQUE,
            ..plane_states
        },
        lighting: LightingTerms::NONE,
        color_mask: [false; 4],
        ..Pass::new(plane_states, Vec::new())
    }
}

/// Draws one screen polygon.
fn draw_screen(
    poly: &ScreenPolygon,
    renderer: &mut dyn Renderer,
    limits: Limits,
) -> Result<(), SceneError> {
    let (color, textures) = match &poly.effect {
        Some(Effect::Textures(st)) => (
            ColorSource::Mesh,
            st.iter().take(limits.units).cloned().collect(),
        ),
        Some(Effect::VertexColors(c)) => {
            if c.len() != poly.mesh.positions().len() {
                return Err(SceneError::AttributeLength {
                    attribute: "effect colors",
                    expected: poly.mesh.positions().len(),
                    actual: c.len(),
                });
            }
            (ColorSource::Vertex(Arc::clone(c)), Vec::new())
        }
        _ => (ColorSource::Mesh, Vec::new()),
    };
    let pass = Pass {
        lighting: LightingTerms::NONE,
        color,
        ..Pass::new(poly.states, textures)
    };
    let (role, depth) = match poly.layer {
        ScreenLayer::Background => (DrawRole::Background, 1.0),
        ScreenLayer::Overlay => (DrawRole::Overlay, 0.0),
    };
    renderer.draw(&Draw {
        node: None,
        role,
        mesh: &poly.mesh,
        space: Space::Screen { depth },
        mirror: false,
        lights: &[],
        passes: std::slice::from_ref(&pass),
    })
}
