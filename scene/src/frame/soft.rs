//! [`FixedRenderer`] / [`SoftRenderer`]: the [`Renderer`] trait over plumb-raster's
//! fixed-function vocabulary, on any [`DrawTarget`] (the CPU [`Context`], or a GPU backend).
//!
//! Each [`Pass`] becomes one [`DrawTarget::draw_fixed`] call:
//!
//! * **Transforms** — `view_from_model = view_from_world · transform · world_from_local`
//!   (`transform` is the pass's optional shadow / reflection matrix), the camera's projection,
//!   and the camera viewport in pixels with the pass's depth range (else the camera's).
//!   Screen-space draws map `(x, y)` in [0, 1] (origin top-left) straight to NDC at the given
//!   depth with an identity projection.
//! * **States** — alpha → blend (`σ, δ`, constant colour) + alpha test; cull → cull mode with
//!   the front face flipped when the draw mirrors XOR the pass reverses culling; z-buffer →
//!   depth state (disabled = no test, no writes); shade, wireframe (polygon mode line), stencil,
//!   polygon offset, colour mask; the world clip plane becomes a clip-space plane
//!   (`(clip_from_world)⁻ᵀ · plane`). Dither is a no-op (RGBA8 with exact rounding).
//! * **Lighting** — when the draw has lights and a lighting term is on: the lights go to eye
//!   space through the model-view's world part, as in GL and Wild Magic: `view_from_world`, or
//!   `view_from_world · M` in a planar-reflection pass with mirror `M`, so the reflection is the
//!   mirror image of the lit scene (`(M·n)·(M·l) = n·l`; a planar shadow's projective matrix
//!   moves no light, and its pass is unlit). Bump-map light vectors need nothing: they are
//!   vertex colours computed in the leaf's tangent space from the real light, so the mirror
//!   carries them like the geometry. A mesh without normals is lit with GL's default current
//!   normal `(0, 0, 1)` in local space at every vertex, as GL does
//!   ([`Scene::draw`](crate::Scene::draw) counts such leaves in
//!   `SceneDrawStats::lit_without_normals`). Colours of terms that are off are zeroed (an
//!   ambient term off also drops the emissive colour and the global ambient), attenuation is
//!   `(1, 0, 0)` unless `attenuate`, the spot angle becomes a cutoff in degrees, specular is
//!   added after texturing (GL's separate specular colour, as the book's OpenGL renderer sets
//!   it). Otherwise the primary colour is the pass's colour source.
//! * **Textures** — each stage is a texture unit; sphere maps use GL sphere-map texgen;
//!   projected textures use eye-linear texgen with planes `tex_from_world · world_from_view`
//!   (in a reflection pass, `tex_from_world · M⁻¹ · world_from_view`: the projector moves with the
//!   mirror like the lights).
//! * **Fog** — the book's density functions on eye-space depth, per vertex or per pixel.

use std::sync::Arc;

use glam::{Mat3, Mat4, Vec2, Vec3, Vec4};
use image::RgbaImage;
use plumb_raster::environment::PbrEnvironment;
use plumb_raster::fog::FogMode;
use plumb_raster::light::{Light, LightKind, LightingState, Material};
use plumb_raster::pbr::{PbrDraw, PbrMaterial, PbrOutput, PbrTexture};
use plumb_raster::{
    AlphaTest, BlendState, Context, ContextOptions, CullMode as RCull, DepthState, DrawTarget,
    FixedFunction, FrontFace, Indices, MeshInput, PipelineState, PolygonMode, PolygonOffset,
    ShadeModel, TexGen, TextureUnit, Topology, Transforms, Viewport,
};

use crate::frame::renderer::{
    BackendStats, ColorSource, Draw, Frame, LightingTerms, Pass, Renderer, Space,
};
use crate::values::camera::Camera;
use crate::values::clear::ClearRegion;
use crate::values::effect::{PbrSurface, TexCoords, TextureStage};
use crate::values::error::SceneError;
use crate::values::light::{LightType, SceneLight};
use crate::values::mesh::{Mesh, MeshTopology};
use crate::values::state::{CullFace, FogApply, FogDensity, RenderStates, ShadeState};

/// A stage's 2D texture matrix on `(s, t, 1)` as plumb-raster's 4×4 on `(s, t, r, q)`: `s`
/// and `t` are mapped affinely (the third column is the translation, read from `q`), `r` and
/// `q` pass through.
fn texture_matrix(m: Mat3) -> Mat4 {
    if m == Mat3::IDENTITY {
        return Mat4::IDENTITY;
    }
    Mat4::from_cols(
        Vec4::new(m.x_axis.x, m.x_axis.y, 0.0, 0.0),
        Vec4::new(m.y_axis.x, m.y_axis.y, 0.0, 0.0),
        Vec4::new(0.0, 0.0, 1.0, 0.0),
        Vec4::new(m.z_axis.x, m.z_axis.y, 0.0, 1.0),
    )
}

fn raster_err(e: plumb_raster::Error) -> SceneError {
    SceneError::Renderer(e.to_string())
}

/// The pass's extra world transform when lights move with it: an invertible affine matrix (the
/// planar reflection's mirror). GL and Wild Magic put lights into eye space through the
/// model-view in effect, so a reflected draw is lit by reflected lights and shows the mirror
/// image of the lit scene. A projective or singular transform (a planar shadow's flattening,
/// drawn unlit) leaves the lights where they are.
fn light_transform(pass: &Pass) -> Mat4 {
    match pass.transform {
        Some(m) if m.row(3) == Vec4::W && m.determinant() != 0.0 && m.is_finite() => m,
        _ => Mat4::IDENTITY,
    }
}

/// A scene light in eye space: positions and directions (spot axes too) through `v`,
/// `view_from_world` times the pass's [`light_transform`].
fn eye_light(v: &Mat4, l: &SceneLight, t: crate::frame::renderer::LightingTerms) -> Light {
    let kind = match l.kind {
        LightType::Ambient => LightKind::Ambient,
        LightType::Directional => LightKind::Directional {
            direction: v.transform_vector3(l.direction),
        },
        LightType::Point => LightKind::Point {
            position: v.transform_point3(l.position),
        },
        LightType::Spot => LightKind::Spot {
            position: v.transform_point3(l.position),
            direction: v.transform_vector3(l.direction),
            cutoff_deg: l.angle * (180.0 / core::f32::consts::PI),
            exponent: l.exponent,
        },
    };
    let on = |b: bool, c: Vec4| if b { c.truncate() } else { Vec3::ZERO };
    Light {
        kind,
        ambient: on(t.ambient, l.ambient),
        diffuse: on(t.diffuse, l.diffuse),
        specular: on(t.specular, l.specular),
        intensity: l.intensity,
        attenuation: if l.attenuate {
            [l.constant, l.linear, l.quadratic]
        } else {
            [1.0, 0.0, 0.0]
        },
        on: l.on,
        spot_inner_deg: l
            .inner_angle
            .filter(|_| l.kind == LightType::Spot)
            .map(|a| a * (180.0 / core::f32::consts::PI)),
        range: l.range,
    }
}

/// The [`Renderer`] trait over any plumb-raster [`DrawTarget`]: each pass becomes one
/// [`DrawTarget::draw_fixed`] call (the module docs give the translation). With a CPU
/// [`Context`] it is [`SoftRenderer`]; a GPU backend that implements [`DrawTarget`] (the
/// fixed-function pipeline emulated in shaders) gets the scene [`Renderer`] from it unchanged.
pub struct FixedRenderer<T> {
    target: T,
    view_from_world: Mat4,
    clip_from_view: Mat4,
    viewport: Viewport,
    global_ambient: Vec3,
    stats: BackendStats,
    pbr_output: PbrOutput,
    /// The frame's image-based light, turned into its camera's eye space.
    pbr_environment: Option<PbrEnvironment>,
}

/// The CPU backend: a plumb-raster [`Context`] driven through the [`Renderer`] trait.
pub type SoftRenderer = FixedRenderer<Context>;

impl std::fmt::Debug for FixedRenderer<Context> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SoftRenderer")
            .field("width", &self.target.width())
            .field("height", &self.target.height())
            .field("threads", &self.target.threads())
            .finish_non_exhaustive()
    }
}

impl FixedRenderer<Context> {
    /// A `width × height` renderer with `threads` workers (`None`: all cores).
    ///
    /// # Errors
    /// [`SceneError::Renderer`] for an invalid size or if the worker pool cannot start.
    pub fn new(width: u32, height: u32, threads: Option<usize>) -> Result<Self, SceneError> {
        let ctx = Context::new(width, height, ContextOptions { threads }).map_err(raster_err)?;
        Ok(FixedRenderer::with_target(ctx))
    }

    /// The underlying raster context (CPU-specific; not part of the trait).
    pub fn context(&mut self) -> &mut Context {
        &mut self.target
    }

    /// The finished colour buffer (row 0 at the top).
    pub fn image(&mut self) -> RgbaImage {
        self.target.color_image()
    }

    /// The finished depth buffer, row-major from the top-left.
    pub fn depth(&mut self) -> Vec<f32> {
        self.target.target().depth_values()
    }
}

impl<T: DrawTarget> FixedRenderer<T> {
    /// A renderer drawing into `target` (its size is the target's).
    pub fn with_target(target: T) -> Self {
        let (w, h) = (target.width(), target.height());
        FixedRenderer {
            target,
            view_from_world: Mat4::IDENTITY,
            clip_from_view: Mat4::IDENTITY,
            viewport: Viewport::full(w, h),
            global_ambient: Vec3::ZERO,
            stats: BackendStats::default(),
            pbr_output: PbrOutput::default(),
            pbr_environment: None,
        }
    }

    /// The draw target.
    pub fn target_mut(&mut self) -> &mut T {
        &mut self.target
    }

    /// The draw target, giving the renderer up.
    pub fn into_target(self) -> T {
        self.target
    }

    fn camera_viewport(&self, camera: &Camera) -> Viewport {
        let px = camera
            .viewport()
            .to_pixels(self.target.width(), self.target.height());
        let (near, far) = camera.depth_range();
        Viewport {
            x: px.x as f32,
            y: px.y as f32,
            width: px.width.max(1) as f32,
            height: px.height.max(1) as f32,
            min_depth: near,
            max_depth: far,
        }
    }

    fn pipeline(&self, draw: &Draw<'_>, pass: &Pass, clip_from_world: Mat4) -> PipelineState {
        let s: &RenderStates = &pass.states;
        let mut viewport = self.viewport;
        if let Some((a, b)) = pass.depth_range {
            viewport.min_depth = a;
            viewport.max_depth = b;
        }
        let flip = draw.mirror != pass.reverse_cull;
        let front_face = match (s.cull.front_face, flip) {
            (f, false) => f,
            (FrontFace::Ccw, true) => FrontFace::Cw,
            (FrontFace::Cw, true) => FrontFace::Ccw,
        };
        // User clip planes (world space) take their own slots; the pass's plane (planar
        // reflection) the first slot they leave free. Screen-space draws are not clipped.
        let mut clip_planes = [None; plumb_raster::MAX_CLIP_PLANES];
        if let Space::World { .. } = draw.space {
            let m = clip_from_world.inverse().transpose();
            let user = s.clip_planes.planes.iter().copied();
            for (slot, plane) in clip_planes.iter_mut().zip(user) {
                *slot = plane.map(|p| m * p).filter(|p| p.is_finite());
            }
            if let Some(plane) = pass.clip_plane {
                let p = m * plane;
                if let (true, Some(slot)) = (
                    p.is_finite(),
                    clip_planes
                        .iter_mut()
                        .zip(&s.clip_planes.planes)
                        .find(|(_, user)| user.is_none()),
                ) {
                    *slot.0 = Some(p);
                }
            }
        }
        let a = &s.alpha;
        PipelineState {
            viewport,
            scissor: None,
            cull: match (s.cull.enabled, s.cull.cull_face) {
                (false, _) => RCull::None,
                (true, CullFace::Back) => RCull::Back,
                (true, CullFace::Front) => RCull::Front,
            },
            front_face,
            polygon_mode: if s.wireframe.enabled {
                PolygonMode::Line
            } else {
                PolygonMode::Fill
            },
            shade: match s.shade {
                ShadeState::Flat => ShadeModel::Flat,
                ShadeState::Smooth | ShadeState::PerPixel => ShadeModel::Smooth,
            },
            depth: if s.zbuffer.enabled {
                DepthState {
                    func: s.zbuffer.compare,
                    write: s.zbuffer.writable,
                }
            } else {
                DepthState::DISABLED
            },
            polygon_offset: if s.polygon_offset.enabled {
                PolygonOffset {
                    factor: s.polygon_offset.factor,
                    units: s.polygon_offset.units,
                }
            } else {
                PolygonOffset::NONE
            },
            stencil: s.stencil,
            alpha_test: if a.test_enabled {
                AlphaTest {
                    func: a.test,
                    reference: a.reference,
                }
            } else {
                AlphaTest::DISABLED
            },
            blend: BlendState {
                enabled: a.blend_enabled,
                src_rgb: a.src_blend,
                dst_rgb: a.dst_blend,
                src_alpha: a.alpha_factors.map_or(a.src_blend, |f| f.0),
                dst_alpha: a.alpha_factors.map_or(a.dst_blend, |f| f.1),
                eq_rgb: a.equation,
                eq_alpha: a.alpha_equation.unwrap_or(a.equation),
                constant: a.constant_color,
            },
            color_mask: pass.color_mask,
            clip_planes,
            point_size: s.point_line.point_size,
            line_width: s.point_line.line_width,
        }
    }

    fn lighting(&self, draw: &Draw<'_>, pass: &Pass) -> Option<LightingState> {
        let lit = !draw.lights.is_empty()
            && pass.lighting.any()
            && matches!(draw.space, Space::World { .. });
        if !lit {
            return None;
        }
        let t = pass.lighting;
        let m = &pass.states.material;
        let on = |b: bool, v: Vec4| if b { v.truncate() } else { Vec3::ZERO };
        let mut state = LightingState {
            material: Material {
                emissive: on(t.ambient, m.emissive),
                ambient: on(t.ambient, m.ambient),
                diffuse: on(t.diffuse, m.diffuse),
                specular: on(t.specular, m.specular),
                shininess: m.shininess,
                alpha: m.diffuse.w,
            },
            global_ambient: if t.ambient {
                self.global_ambient
            } else {
                Vec3::ZERO
            },
            // GL's separate specular colour (the book's renderer turns it on); skipped when no
            // specular light can reach the surface, which changes no pixel (it adds zero) and
            // saves the secondary colour's interpolation.
            two_sided: m.two_sided,
            color_material: m.color_material,
            separate_specular: t.specular
                && m.specular.truncate() != Vec3::ZERO
                && draw
                    .lights
                    .iter()
                    .any(|l| l.specular.truncate() != Vec3::ZERO),
            ..LightingState::DEFAULT
        };
        let view_from_light = self.view_from_world * light_transform(pass);
        for (slot, l) in state.lights.iter_mut().zip(draw.lights) {
            *slot = Some(eye_light(&view_from_light, l, t));
        }
        Some(state)
    }

    fn run_pass(&mut self, draw: &Draw<'_>, pass: &Pass) -> Result<(), SceneError> {
        let mesh = draw.mesh;
        let (view_from_model, clip_from_view) = match draw.space {
            Space::World { world_from_local } => {
                let world = match pass.transform {
                    Some(t) => t * world_from_local,
                    None => world_from_local,
                };
                (self.view_from_world * world, self.clip_from_view)
            }
            Space::Screen { depth } => (
                Mat4::from_cols(
                    Vec4::new(2.0, 0.0, 0.0, 0.0),
                    Vec4::new(0.0, -2.0, 0.0, 0.0),
                    Vec4::ZERO,
                    Vec4::new(-1.0, 1.0, depth, 1.0),
                ),
                Mat4::IDENTITY,
            ),
        };
        let clip_from_world = self.clip_from_view * self.view_from_world;
        let state = self.pipeline(draw, pass, clip_from_world);
        if let Some(material) = &pass.pbr {
            let transforms = Transforms {
                view_from_model,
                clip_from_view,
            };
            return self.run_pbr_pass(draw, pass, material, state, transforms);
        }
        // A projector, like a light, moves with the pass's mirror: the reflected geometry takes
        // the texture its original has.
        let world_from_view = (self.view_from_world * light_transform(pass)).inverse();
        let units = pass
            .textures
            .iter()
            .map(|st| TextureUnit {
                texture: Arc::clone(&st.texture),
                sampler: st.sampler,
                apply: st.apply,
                constant: st.constant,
                uv_set: match st.coords {
                    TexCoords::Uv(k) => k,
                    _ => 0,
                },
                texgen: match st.coords {
                    TexCoords::Uv(_) => TexGen::None,
                    TexCoords::SphereMap => TexGen::SphereMap,
                    TexCoords::Projected { tex_from_world } => {
                        let m = tex_from_world * world_from_view;
                        TexGen::EyeLinear {
                            planes: [m.row(0), m.row(1), m.row(2), m.row(3)],
                        }
                    }
                    TexCoords::ObjectLinear { planes } => TexGen::ObjectLinear { planes },
                    TexCoords::EyeLinear { planes } => TexGen::EyeLinear { planes },
                },
                matrix: texture_matrix(st.matrix),
            })
            .collect();
        let f = &pass.states.fog;
        let fog = f.enabled.then(|| plumb_raster::fog::FogState {
            mode: match f.density_function {
                FogDensity::Linear => FogMode::Linear {
                    start: f.start,
                    end: f.end,
                },
                FogDensity::Exp => FogMode::Exp { density: f.density },
                FogDensity::ExpSquared => FogMode::Exp2 { density: f.density },
            },
            color: f.color,
            distance: f.distance,
            per_pixel: f.apply == FogApply::PerPixel,
        });
        let ff = FixedFunction {
            lighting: self.lighting(draw, pass),
            per_pixel_lighting: pass.states.shade == ShadeState::PerPixel,
            fog,
            units,
        };
        let constant;
        let colors: Option<&[Vec4]> = match &pass.color {
            ColorSource::Mesh => mesh.colors(),
            ColorSource::Vertex(c) => Some(c),
            ColorSource::Constant(c) => {
                constant = vec![*c; mesh.positions().len()];
                Some(&constant)
            }
        };
        let uvs: Vec<&[Vec2]> = mesh.uv_sets().iter().map(|u| u.as_slice()).collect();
        // GL's current normal (0, 0, 1) when a lit mesh has none.
        let current_normal;
        let normals = match mesh.normals() {
            Some(n) => Some(n),
            None if ff.lighting.is_some() => {
                current_normal = vec![Vec3::Z; mesh.positions().len()];
                Some(&current_normal[..])
            }
            None => None,
        };
        let input = MeshInput {
            positions: mesh.positions(),
            normals,
            colors,
            uvs: &uvs,
        };
        let transforms = Transforms {
            view_from_model,
            clip_from_view,
        };
        let (indices, topology) = mesh_indices(mesh);
        let g = self
            .target
            .draw_fixed(
                &state,
                &ff,
                &transforms,
                &input,
                Indices::U32(&indices),
                topology,
            )
            .map_err(raster_err)?
            .geometry;
        self.count(g);
        Ok(())
    }

    fn count(&mut self, g: plumb_raster::GeometryStats) {
        self.stats.passes += 1;
        self.stats.primitives_in += g.primitives;
        self.stats.primitives_clipped += g.clipped;
        self.stats.primitives_clipped_away += g.clipped_away;
        self.stats.primitives_culled += g.culled;
        self.stats.triangles_out += g.triangles_setup;
    }

    /// A physically based pass: the material lit per pixel by every light of the draw
    /// (none in screen space), through [`DrawTarget::draw_pbr`].
    fn run_pbr_pass(
        &mut self,
        draw: &Draw<'_>,
        pass: &Pass,
        material: &PbrSurface,
        state: PipelineState,
        transforms: Transforms,
    ) -> Result<(), SceneError> {
        let mesh = draw.mesh;
        let lights = match draw.space {
            Space::World { .. } => {
                let view_from_light = self.view_from_world * light_transform(pass);
                draw.lights
                    .iter()
                    .map(|l| eye_light(&view_from_light, l, LightingTerms::ALL))
                    .collect()
            }
            Space::Screen { .. } => Vec::new(),
        };
        // Screen-space draws have no world to turn the map into.
        let environment = match draw.space {
            Space::World { .. } => self.pbr_environment.clone(),
            Space::Screen { .. } => None,
        };
        let pbr = PbrDraw {
            material: pbr_material(material),
            lights,
            output: self.pbr_output,
            environment,
        };
        let uvs: Vec<&[Vec2]> = mesh.uv_sets().iter().map(|u| u.as_slice()).collect();
        let current_normal;
        let normals = match mesh.normals() {
            Some(n) => n,
            None => {
                current_normal = vec![Vec3::Z; mesh.positions().len()];
                &current_normal[..]
            }
        };
        let colors: Option<&[Vec4]> = match &pass.color {
            ColorSource::Mesh => mesh.colors(),
            ColorSource::Vertex(c) => Some(c),
            ColorSource::Constant(_) => None,
        };
        let input = MeshInput {
            positions: mesh.positions(),
            normals: Some(normals),
            colors,
            uvs: &uvs,
        };
        let (indices, topology) = mesh_indices(mesh);
        let g = self
            .target
            .draw_pbr(
                &state,
                &pbr,
                &transforms,
                &input,
                mesh.tangents(),
                Indices::U32(&indices),
                topology,
            )
            .map_err(raster_err)?
            .geometry;
        self.count(g);
        Ok(())
    }
}

/// The raster's material for a scene PBR surface (a texture's uv set from its coordinates,
/// uv set 0 for any other source; its matrix as the fixed-function units'.
fn pbr_material(s: &PbrSurface) -> PbrMaterial {
    let tex = |t: &Option<TextureStage>| {
        t.as_ref().map(|t| PbrTexture {
            texture: Arc::clone(&t.texture),
            sampler: t.sampler,
            uv_set: match t.coords {
                TexCoords::Uv(k) => k,
                _ => 0,
            },
            matrix: texture_matrix(t.matrix),
        })
    };
    PbrMaterial {
        base_color: s.base_color,
        metallic: s.metallic,
        roughness: s.roughness,
        emissive: s.emissive,
        normal_scale: s.normal_scale,
        base_color_texture: tex(&s.base_color_texture),
        metallic_roughness_texture: tex(&s.metallic_roughness_texture),
        normal_texture: tex(&s.normal_texture),
        occlusion_texture: tex(&s.occlusion_texture),
        occlusion_strength: s.occlusion_strength,
        emissive_texture: tex(&s.emissive_texture),
        opaque: s.opaque,
        double_sided: s.double_sided,
    }
}

/// The mesh's active indices and topology as the raster draws them (a line loop closed
/// into a strip).
fn mesh_indices(mesh: &Mesh) -> (std::borrow::Cow<'_, [u32]>, Topology) {
    let i = mesh.active_indices();
    match mesh.topology() {
        MeshTopology::Triangles => (i.into(), Topology::TriangleList),
        MeshTopology::Lines => (i.into(), Topology::LineList),
        MeshTopology::LineStrip => (i.into(), Topology::LineStrip),
        MeshTopology::Points => (i.into(), Topology::PointList),
        MeshTopology::LineLoop => (
            i.iter()
                .chain(i.first())
                .copied()
                .collect::<Vec<u32>>()
                .into(),
            Topology::LineStrip,
        ),
    }
}

impl<T: DrawTarget> Renderer for FixedRenderer<T> {
    fn size(&self) -> (u32, u32) {
        (self.target.width(), self.target.height())
    }

    fn max_texture_units(&self) -> usize {
        plumb_raster::fixed_function::MAX_TEXTURE_UNITS
    }

    fn begin_frame(&mut self, frame: &Frame<'_>) -> Result<(), SceneError> {
        self.view_from_world = frame.camera.view_from_world();
        self.clip_from_view = frame.camera.clip_from_view();
        self.viewport = self.camera_viewport(frame.camera);
        self.global_ambient = frame.global_ambient;
        self.pbr_output = frame.pbr_output;
        // The map is in world space; eye directions turn into it by the view's inverse
        // rotation.
        self.pbr_environment = frame
            .pbr_environment
            .map(|(map, intensity)| PbrEnvironment {
                map: Arc::clone(map),
                intensity,
                world_from_eye: Mat3::from_mat4(self.view_from_world).inverse(),
            });
        self.stats = BackendStats::default();
        self.target
            .clear(frame.clear_color, frame.clear_depth, frame.clear_stencil);
        self.target.reset_stats();
        Ok(())
    }

    fn draw(&mut self, draw: &Draw<'_>) -> Result<(), SceneError> {
        self.stats.draws += 1;
        self.target.set_object_id(draw.object_id);
        let n = draw.passes.len();
        for (i, pass) in draw.passes.iter().enumerate() {
            if self.target.wants_labels() {
                let name = match (draw.node, draw.name) {
                    (None, _) => "screen polygon".to_owned(),
                    (Some(id), "") => format!("node {}", id.index()),
                    (Some(_), name) => format!("'{name}'"),
                };
                let role = plumb_raster::explain::words(draw.role);
                self.target
                    .label(&format!("{name}, {role}, pass {}/{n}", i + 1));
            }
            self.run_pass(draw, pass)?;
        }
        Ok(())
    }

    fn clear_region(&mut self, region: &ClearRegion) -> Result<(), SceneError> {
        let px = region
            .rect
            .to_pixels(self.target.width(), self.target.height());
        let rect = plumb_raster::Rect {
            x: px.x,
            y: px.y,
            width: px.width,
            height: px.height,
        };
        self.target
            .clear_rect(rect, None, region.depth, region.stencil);
        Ok(())
    }

    fn end_frame(&mut self) -> Result<BackendStats, SceneError> {
        self.target.finish().map_err(raster_err)?;
        // A target that counts (the CPU context) reports the frame's totals; for one that does
        // not, the geometry counters summed from the draws stand.
        if let Some(s) = self.target.frame_stats() {
            let g = s.geometry;
            self.stats.primitives_in = g.primitives;
            self.stats.primitives_clipped = g.clipped;
            self.stats.primitives_clipped_away = g.clipped_away;
            self.stats.primitives_culled = g.culled;
            self.stats.triangles_out = g.triangles_setup;
            self.stats.fragments = s.fragments_written;
        }
        Ok(self.stats)
    }
}
