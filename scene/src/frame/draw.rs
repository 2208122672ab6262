//! Drawing a frame: [`Scene::draw`] = update → cull → sort → draw through a [`Renderer`].
//!
//! 1. **Update and view** ([`Scene::prepare_view`], [`view`](crate::passes::view)): billboards
//!    are pointed at the camera and particle quads face it, then world transforms, bounds and
//!    resolved render state are brought up to date as [`Scene::update`] does, **without
//!    running controllers** (they run once per [`Scene::update`], which the application calls
//!    with its time). The resulting [`View`](crate::View) holds the child each discrete-LOD
//!    switch shows, by the distance to the camera.
//! 2. **Cull** for the view ([`Scene::cull_view`]): visible geometry leaves in tree order.
//! 3. **Sort**: leaves whose resolved alpha state blends (with colour factors other than
//!    `ONE, ZERO`, [`AlphaState::is_transparent`](crate::values::state::AlphaState::is_transparent))
//!    are *transparent*; the others are *opaque* and keep tree order. Transparent leaves are
//!    sorted back to front by the view depth of their world-bound centre, `D·(c − E)`,
//!    farthest first, with a **stable** sort (equal depths keep tree order — the book's
//!    sorted-faces demo flickered with an unstable order).
//! 4. **Draw**: `begin_frame` (clear), background screen polygons, opaque leaves, planar
//!    shadow and reflection passes of scene effects (tree order of their groups), transparent
//!    leaves, overlay screen polygons, `end_frame`. With layer nodes
//!    ([`Scene::set_clear`], [`layer`](crate::graph::layer)) the leaves are first split into the
//!    base layer and one group per layer node; the base layer is drawn as above, then each
//!    layer in tree pre-order: [`Renderer::clear_region`], its opaque leaves, its scene-effect
//!    passes, its transparent leaves (sorted within the layer). Overlays come last.
//!
//! With a reference node or depth layers ([`Scene::set_reference_node`],
//! [`Scene::set_depth_layers`]) the camera is in the reference node's frame and steps 2–4 are
//! those of [`frames`](crate::passes::frames): its own walk and frustum test in that frame, leaves
//! placed by `f64`-composed relative matrices, depth layers separated by depth clears.
//!
//! Per leaf, the pass list comes from its local effect and the global texture effect of its
//! nearest ancestor, and scene effects add draws of their own — the recipes are in
//! [`multipass`](crate::frame::multipass); the lights are the first
//! `min(renderer.max_lights(), MAX_LIGHTS)` resolved lights (off lights included: they keep
//! their slot and the backend skips them).
//!
//! The visible set and the [`FrameSettings`] are per-view results: they are computed here for
//! each frame, not stored in the scene (which keeps only what the user set: the background
//! colour and the global ambient light, [`Scene::set_background`],
//! [`Scene::set_global_ambient`]).

use std::sync::Arc;

use glam::{Vec3, Vec4};
use plumb_raster::pbr::PbrOutput;

use crate::frame::multipass::{EffectPass, PassEdit};
use crate::frame::renderer::{
    BackendStats, ColorSource, Draw, DrawRole, Frame, LightingTerms, Pass, Renderer, Space,
};
use crate::graph::{NodeId, Scene};
use crate::passes::cull::{CullStats, VisibleSet};
use crate::passes::render_state::ResolvedRender;
use crate::passes::update::UpdateStats;
use crate::values::camera::Camera;
use crate::values::effect::Effect;
use crate::values::error::SceneError;
use crate::values::light::{SceneLight, MAX_LIGHTS};
use crate::values::screen::{ScreenLayer, ScreenPolygon};

/// Frame-wide settings of one frame: what [`Scene::draw`] hands the renderer besides the
/// camera (from the scene's background colour and global ambient light).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameSettings {
    /// Colour the frame is cleared to (default opaque black).
    pub background: Vec4,
    /// Global ambient light (default black, as the book's OpenGL renderer).
    pub global_ambient: Vec3,
    /// Exposure, tone map and encoding of physically based draws.
    pub pbr_output: PbrOutput,
}

impl Default for FrameSettings {
    fn default() -> Self {
        FrameSettings {
            background: Vec4::new(0.0, 0.0, 0.0, 1.0),
            global_ambient: Vec3::ZERO,
            pbr_output: PbrOutput::default(),
        }
    }
}

/// What one [`Scene::draw`] did: the update, culling and sorting counters plus the backend's.
/// (plumb-raster's `DrawStats` counts one draw call.)
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SceneDrawStats {
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
    /// Lit geometry leaves whose mesh has no normals: they are lit with GL's default current
    /// normal `(0, 0, 1)` in local space for every vertex (a warning: give the mesh normals).
    pub lit_without_normals: usize,
    /// The backend's counters (draws, passes, primitives in / clipped / out, fragments).
    pub backend: BackendStats,
}

/// Former name of [`SceneDrawStats`] (plumb-raster's `DrawStats` counts one draw call).
#[deprecated(note = "renamed to `SceneDrawStats`; plumb_raster::DrawStats counts one draw call")]
pub type DrawStats = SceneDrawStats;

/// The renderer limits a frame works with.
#[derive(Debug, Clone, Copy)]
struct Limits {
    lights: usize,
    units: usize,
}

impl Scene {
    /// The frame settings a draw uses (the background colour and global ambient light).
    pub fn frame_settings(&self) -> FrameSettings {
        FrameSettings {
            background: self.background,
            global_ambient: self.global_ambient,
            pbr_output: self.pbr_output,
        }
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
    ) -> Result<SceneDrawStats, SceneError> {
        if self.draws_relative() {
            return self.draw_relative(camera, renderer);
        }
        let (visible, update) = self.prepare_frame(camera);
        if self.has_layers() {
            // Before anything of the frame is cleared or drawn.
            if self.max_clear_pixels.is_some() {
                let (width, height) = renderer.size();
                self.check_clears(width, height)?;
            }
            return self.draw_layered(camera, renderer, &visible, update);
        }
        let (opaque, transparent) = self.sort_visible(camera, visible.items())?;
        self.draw_lists(
            camera,
            renderer,
            visible.stats(),
            update,
            &opaque,
            &transparent,
        )
    }

    /// Step 1 and 2 of a frame (see the [module docs](self)): update for this camera, then
    /// cull. Shared with [`Scene::draw_deferred`](crate::Scene::draw_deferred).
    pub(crate) fn prepare_frame(&mut self, camera: &Camera) -> (VisibleSet, UpdateStats) {
        let (view, update) = self.prepare_view(camera);
        (self.cull_view(&view), update)
    }

    /// Step 3: splits visible leaves into opaque (in the given order) and transparent (back to
    /// front, stable).
    pub(crate) fn sort_visible(
        &self,
        camera: &Camera,
        items: &[NodeId],
    ) -> Result<(Vec<NodeId>, Vec<NodeId>), SceneError> {
        let (eye, dir) = (camera.location(), camera.direction());
        let mut opaque = Vec::with_capacity(items.len());
        let mut transparent = Vec::new();
        for &id in items {
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
        Ok((opaque, transparent.into_iter().map(|t| t.0).collect()))
    }

    /// Starts the frame (clears, camera, global ambient) and draws the background screen
    /// polygons; returns the renderer's limits for the leaves that follow.
    fn begin_frame(
        &self,
        camera: &Camera,
        renderer: &mut dyn Renderer,
        stats: &mut SceneDrawStats,
    ) -> Result<Limits, SceneError> {
        let limits = Limits {
            lights: renderer.max_lights().min(MAX_LIGHTS),
            units: renderer.max_texture_units(),
        };
        let settings = self.frame_settings();
        renderer.begin_frame(&Frame {
            camera,
            clear_color: settings.background,
            clear_depth: 1.0,
            clear_stencil: 0,
            global_ambient: settings.global_ambient,
            pbr_output: settings.pbr_output,
            pbr_environment: self.pbr_environment.as_ref().map(|(e, k)| (e, *k)),
        })?;
        for poly in &self.screen_polygons {
            if poly.layer == ScreenLayer::Background {
                draw_screen(poly, renderer, limits)?;
                stats.screen_polygons += 1;
            }
        }
        Ok(limits)
    }

    /// Step 4: draws `first` (in order; each leaf's role from its resolved alpha state), the
    /// scene effects, then `last` (in order, as transparent).
    pub(crate) fn draw_lists(
        &self,
        camera: &Camera,
        renderer: &mut dyn Renderer,
        cull: CullStats,
        update: UpdateStats,
        first: &[NodeId],
        last: &[NodeId],
    ) -> Result<SceneDrawStats, SceneError> {
        let mut stats = SceneDrawStats {
            update,
            cull,
            ..SceneDrawStats::default()
        };
        let limits = self.begin_frame(camera, renderer, &mut stats)?;
        for &id in first {
            let role = if self.resolved(id)?.states.alpha.is_transparent() {
                stats.transparent += 1;
                DrawRole::Transparent
            } else {
                stats.opaque += 1;
                DrawRole::Opaque
            };
            stats.lit_without_normals += self.draw_leaf(id, role, renderer, limits, None)?;
        }
        if self.has_scene_effects {
            let draws = self.scene_effect_draws()?;
            for d in &draws {
                match &d.pass {
                    EffectPass::Only(pass) => self.draw_leaf_with(d.leaf, renderer, pass)?,
                    EffectPass::Edited(edit) => {
                        stats.lit_without_normals += self.draw_leaf(
                            d.leaf,
                            DrawRole::SceneEffect,
                            renderer,
                            limits,
                            Some(edit),
                        )?
                    }
                }
            }
            stats.scene_effect_draws = draws.len();
        }
        for &id in last {
            stats.lit_without_normals +=
                self.draw_leaf(id, DrawRole::Transparent, renderer, limits, None)?;
        }
        stats.transparent += last.len();
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
    fn leaf_lights(&self, r: &ResolvedRender, max: usize) -> Vec<SceneLight> {
        r.lights
            .iter()
            .take(max)
            .filter_map(|l| self.lights.get(l.index() as usize))
            .copied()
            .collect()
    }

    /// Draws one leaf with its lights and passes, each optionally edited; returns 1 if the leaf
    /// is lit but its mesh has no normals (see [`SceneDrawStats::lit_without_normals`]), else 0.
    fn draw_leaf(
        &self,
        id: NodeId,
        role: DrawRole,
        renderer: &mut dyn Renderer,
        limits: Limits,
        edit: Option<&PassEdit>,
    ) -> Result<usize, SceneError> {
        let node = self.node(id)?;
        let Some(mesh) = node.data.mesh() else {
            return Err(SceneError::NotAGeometry(node.name.clone()));
        };
        let r = self.resolved(id)?;
        let lights = self.leaf_lights(r, limits.lights);
        let mut passes = self.leaf_passes(id, limits.units)?;
        if let Some(edit) = edit {
            passes.iter_mut().for_each(|p| edit.apply(p));
        }
        renderer.draw(&Draw {
            node: Some(id),
            name: &node.name,
            object_id: self.object_id(id)?,
            role,
            mesh,
            space: Space::World {
                world_from_local: node.world.to_mat4(),
            },
            mirror: node.world.is_mirror(),
            lights: &lights,
            passes: &passes,
        })?;
        let lit = !lights.is_empty() && passes.iter().any(|p| p.lighting.any());
        Ok(usize::from(lit && mesh.normals().is_none()))
    }

    /// Draws a leaf of a scene effect with one explicit pass and no lights.
    fn draw_leaf_with(
        &self,
        id: NodeId,
        renderer: &mut dyn Renderer,
        pass: &Pass,
    ) -> Result<(), SceneError> {
        let node = self.node(id)?;
        let Some(mesh) = node.data.mesh() else {
            return Err(SceneError::NotAGeometry(node.name.clone()));
        };
        renderer.draw(&Draw {
            node: Some(id),
            name: &node.name,
            object_id: self.object_id(id)?,
            role: DrawRole::SceneEffect,
            mesh,
            space: Space::World {
                world_from_local: node.world.to_mat4(),
            },
            mirror: node.world.is_mirror(),
            lights: &[],
            passes: std::slice::from_ref(pass),
        })
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
        name: "",
        object_id: 0,
        role,
        mesh: &poly.mesh,
        space: Space::Screen { depth },
        mirror: false,
        lights: &[],
        passes: std::slice::from_ref(&pass),
    })
}

impl Scene {
    /// Step 4 with layer nodes ([`layer`](crate::graph::layer)): the visible leaves split into the
    /// base layer (group 0) and one group per layer node in tree pre-order (group k + 1 for
    /// the k-th); each group sorted as [`Scene::sort_visible`] sorts a frame, scene-effect
    /// passes with the group of their leaf; before each layer its clear.
    fn draw_layered(
        &self,
        camera: &Camera,
        renderer: &mut dyn Renderer,
        visible: &VisibleSet,
        update: UpdateStats,
    ) -> Result<SceneDrawStats, SceneError> {
        let mut stats = SceneDrawStats {
            update,
            cull: visible.stats(),
            ..SceneDrawStats::default()
        };
        let layers = self.layer_order();
        // A leaf whose layer node is not in the drawn tree (reached through a portal) draws
        // with the base layer.
        let group_of = |id: NodeId| -> usize {
            self.layer_of(id)
                .and_then(|l| layers.iter().position(|(n, _)| *n == l))
                .map_or(0, |k| k + 1)
        };
        let groups = layers.len() + 1;
        let mut members: Vec<Vec<NodeId>> = vec![Vec::new(); groups];
        for &id in visible.items() {
            members[group_of(id)].push(id);
        }
        let limits = self.begin_frame(camera, renderer, &mut stats)?;
        let effect_draws = if self.has_scene_effects {
            self.scene_effect_draws()?
        } else {
            Vec::new()
        };
        stats.scene_effect_draws = effect_draws.len();
        for (g, items) in members.iter().enumerate() {
            if let Some((_, region)) = g.checked_sub(1).and_then(|k| layers.get(k)) {
                renderer.clear_region(region)?;
            }
            let (opaque, transparent) = self.sort_visible(camera, items)?;
            for &id in &opaque {
                stats.lit_without_normals +=
                    self.draw_leaf(id, DrawRole::Opaque, renderer, limits, None)?;
            }
            stats.opaque += opaque.len();
            for d in effect_draws.iter().filter(|d| group_of(d.leaf) == g) {
                match &d.pass {
                    EffectPass::Only(pass) => self.draw_leaf_with(d.leaf, renderer, pass)?,
                    EffectPass::Edited(edit) => {
                        stats.lit_without_normals += self.draw_leaf(
                            d.leaf,
                            DrawRole::SceneEffect,
                            renderer,
                            limits,
                            Some(edit),
                        )?
                    }
                }
            }
            for &id in &transparent {
                stats.lit_without_normals +=
                    self.draw_leaf(id, DrawRole::Transparent, renderer, limits, None)?;
            }
            stats.transparent += transparent.len();
        }
        for poly in &self.screen_polygons {
            if poly.layer == ScreenLayer::Overlay {
                draw_screen(poly, renderer, limits)?;
                stats.screen_polygons += 1;
            }
        }
        stats.backend = renderer.end_frame()?;
        Ok(stats)
    }
}

impl Scene {
    /// [`Scene::draw`] with a reference node or depth layers
    /// ([`frames`](crate::passes::frames)): `camera` is in the reference node's frame; billboards,
    /// particles and LOD switches are updated with it carried into world space; the leaves
    /// are drawn layer by layer with their `f64`-composed relative matrices, a full depth clear
    /// before each layer after the first.
    fn draw_relative(
        &mut self,
        camera: &Camera,
        renderer: &mut dyn Renderer,
    ) -> Result<SceneDrawStats, SceneError> {
        let world_camera = self.camera_in_frame(camera, self.reference, None)?;
        // The plan's walk shows the LOD children the view recorded.
        let (_, update) = self.prepare_view(&world_camera);
        let plan = self.relative_plan(camera)?;
        let (width, height) = renderer.size();
        self.check_depth_layer_clears(plan.layers.len(), width, height)?;
        let mut stats = SceneDrawStats {
            update,
            cull: CullStats {
                visited: plan.visited,
                culled: plan.culled,
                ..CullStats::default()
            },
            ..SceneDrawStats::default()
        };
        let limits = self.begin_frame(camera, renderer, &mut stats)?;
        for (g, layer) in plan.layers.iter().enumerate() {
            if g > 0 {
                renderer.clear_region(&crate::values::clear::ClearRegion::DEPTH)?;
            }
            for (items, role) in [
                (&layer.opaque, DrawRole::Opaque),
                (&layer.transparent, DrawRole::Transparent),
            ] {
                for item in items {
                    stats.lit_without_normals +=
                        self.draw_leaf_relative(item, role, renderer, limits, &plan, layer.k)?;
                }
            }
            stats.opaque += layer.opaque.len();
            stats.transparent += layer.transparent.len();
        }
        for poly in &self.screen_polygons {
            if poly.layer == ScreenLayer::Overlay {
                draw_screen(poly, renderer, limits)?;
                stats.screen_polygons += 1;
            }
        }
        stats.backend = renderer.end_frame()?;
        Ok(stats)
    }

    /// Draws one leaf of a relative frame with its lights carried into that frame.
    fn draw_leaf_relative(
        &self,
        item: &crate::passes::frames::RelItem,
        role: DrawRole,
        renderer: &mut dyn Renderer,
        limits: Limits,
        plan: &crate::passes::frames::RelPlan,
        k: f64,
    ) -> Result<usize, SceneError> {
        let node = self.node(item.id)?;
        let Some(mesh) = node.data.mesh() else {
            return Err(SceneError::NotAGeometry(node.name.clone()));
        };
        let r = self.resolved(item.id)?;
        let lights: Vec<SceneLight> = self
            .leaf_lights(r, limits.lights)
            .iter()
            .map(|l| crate::passes::frames::light_in_frame(l, &plan.frame_from_world, plan.eye, k))
            .collect();
        let mut passes = self.leaf_passes(item.id, limits.units)?;
        for pass in &mut passes {
            let planes = &mut pass.states.clip_planes;
            if planes.planes.iter().any(Option::is_some) {
                *planes = crate::passes::frames::clip_planes_in_frame(
                    planes,
                    &plan.frame_from_world,
                    plan.eye,
                    k,
                );
            }
        }
        renderer.draw(&Draw {
            node: Some(item.id),
            name: &node.name,
            object_id: self.object_id(item.id)?,
            role,
            mesh,
            space: Space::World {
                world_from_local: item.matrix,
            },
            mirror: item.mirror,
            lights: &lights,
            passes: &passes,
        })?;
        let lit = !lights.is_empty() && passes.iter().any(|p| p.lighting.any());
        Ok(usize::from(lit && mesh.normals().is_none()))
    }
}
