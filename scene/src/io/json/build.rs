//! Document → scene: textures, lights, nodes (pre-order), effects (once every node exists,
//! so they may name any node), then one empty group per camera, and an update at time 0.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use glam::{Mat3, Quat, Vec2, Vec3, Vec4};
use plumb_raster::math;

use super::ctx::{v3, v4, Ctx};
use super::doc::*;
use super::effects;
use super::locate::Locations;
use super::meshes::mesh;
use super::motion;
use super::nodes;
use super::textures::build_texture;
use crate::graph::{NodeId, Scene};
use crate::io::animation::{Animation, AnimationController, Interpolation, NodeAnimation, Track};
use crate::io::budget::{self, Budget, Spent};
use crate::io::error::IoError;
use crate::io::imported::{CameraProjection, Imported, ImportedCamera, ImportedScene};
use crate::io::texture_image::{texture_bytes, TextureBudget};
use crate::io::{uri, ImportOptions};
use crate::values::camera::{Camera, CameraViewport};
use crate::values::controller::{ControllerTiming, RepeatType};
use crate::values::error::SceneError;
use crate::values::ik::{IkController, IkGoal, IkJoint};
use crate::values::light::{LightType, SceneLight};
use crate::values::morph::MorphController;
use crate::values::screen::{ScreenLayer, ScreenPolygon};
use crate::values::state::{
    AlphaState, ClipPlaneState, CullState, DitherState, Fog, GlobalState, MaterialState,
    PointLineState, PolygonOffsetState, StencilState, WireframeState, ZBufferState,
    MAX_CLIP_PLANES,
};
use crate::values::transform::{rotation_axis_angle, Transform};

/// Builds the scene a document describes. `path` is the scene file: relative paths resolve
/// against its directory, and errors name it. The scene is updated at time 0.
///
/// # Errors
/// [`IoError::Limit`] past [`super::MAX_NODES`] or [`super::MAX_NODE_DEPTH`];
/// [`IoError::Invalid`] for inconsistent content (duplicate or unknown names, bad indices,
/// misplaced fields), [`IoError::MissingResource`] for texture or import files that cannot
/// be read, [`IoError::Budget`] past a work budget of
/// [`ImportOptions::budget`](crate::io::ImportOptions::budget) (charged before the work),
/// [`IoError::Scene`] when the scene graph refuses a value, and any error of an imported
/// glTF / OBJ file or texture decoder.
pub fn build(
    doc: &SceneDoc,
    path: &Path,
    options: &ImportOptions,
) -> Result<ImportedScene, IoError> {
    build_located(doc, path, options, &Locations::default(), Pose::TimeZero)
}

/// The state a built scene is left in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pose {
    /// Updated at time 0, controllers run (what [`build`] and [`load`](super::load) give).
    TimeZero,
    /// At rest: nodes at their document transforms ([`Scene::update_at_rest`]), what
    /// [`io::load`](crate::io::load) starts from.
    Rest,
}

/// [`build`] with the positions of the document's objects, for errors with line and column.
pub(super) fn build_located(
    doc: &SceneDoc,
    path: &Path,
    options: &ImportOptions,
    locations: &Locations,
    pose: Pose,
) -> Result<ImportedScene, IoError> {
    // A document made in code has not been through `parse`: bound the recursion below.
    super::limits::check_tree(path, &doc.root)?;
    let options = options.clamped();
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut ctx = Ctx {
        file: path,
        dir,
        options: &options,
        textures: BTreeMap::new(),
        lights: BTreeMap::new(),
        cameras: BTreeMap::new(),
        names: BTreeMap::new(),
        effects: Vec::new(),
        imported: Imported::default(),
        iks: Vec::new(),
        skins: Vec::new(),
        locations,
        pointers: BTreeMap::new(),
        texture_budget: TextureBudget::new(options.max_texture_bytes),
        geometry_left: options.max_geometry_bytes,
        import_nodes_left: options.max_nodes,
        spent: std::cell::Cell::new(Spent::default()),
    };
    ctx.point("root", "/root".to_owned());
    let mut scene = Scene::new();
    if let Some(b) = &doc.background {
        scene
            .set_background(v4(b))
            .map_err(ctx.scene_err("background"))?;
    }
    if let Some(e) = &doc.environment {
        ctx.point("environment", "/environment".to_owned());
        if e.map != "studio" {
            return Err(ctx.invalid(
                "environment",
                format!(
                    "map \"{}\": a scene file names \"studio\" (an .hdr file is \
                     `plumb render --environment FILE`)",
                    e.map
                ),
            ));
        }
        let map = plumb_raster::environment::Environment::studio();
        let k = e.intensity.map_or(1.0, |k| k.get());
        scene
            .set_pbr_environment(Some((map, k)))
            .map_err(ctx.scene_err("environment"))?;
    }
    if let Some(a) = &doc.global_ambient {
        scene
            .set_global_ambient(v3(a))
            .map_err(ctx.scene_err("global_ambient"))?;
    }
    for (i, t) in doc.textures.iter().enumerate() {
        ctx.point(&format!("texture '{}'", t.name), format!("/textures/{i}"));
        let tex = build_texture(
            t,
            path,
            dir,
            &options,
            ctx.location(&format!("texture '{}'", t.name)),
            &mut ctx.texture_budget,
        )?;
        if ctx.textures.insert(&t.name, tex).is_some() {
            return Err(ctx.invalid("textures", format!("duplicate name '{}'", t.name)));
        }
    }
    for (i, l) in doc.lights.iter().enumerate() {
        let context = format!("light '{}'", l.name);
        ctx.point(&context, format!("/lights/{i}"));
        let light = light(&ctx, &context, l)?;
        let id = scene.add_light(light).map_err(ctx.scene_err(&context))?;
        if ctx.lights.insert(&l.name, id).is_some() {
            return Err(ctx.invalid("lights", format!("duplicate name '{}'", l.name)));
        }
    }
    for (i, c) in doc.cameras.iter().enumerate() {
        let context = format!("camera '{}'", c.name);
        ctx.point(&context, format!("/cameras/{i}"));
        let cam = camera(c, c.aspect.map_or(1.0, Real::get)).map_err(ctx.scene_err(&context))?;
        if ctx.cameras.insert(&c.name, (c, cam)).is_some() {
            return Err(ctx.invalid("cameras", format!("duplicate name '{}'", c.name)));
        }
    }
    let root = scene.root();
    match doc.root.kind {
        None | Some(NodeKindDoc::Group) if doc.root.mesh.is_none() => {}
        _ => {
            return Err(ctx.invalid(
                "root",
                "the root is a group: no kind other than \"group\", no mesh",
            ))
        }
    }
    scene
        .set_name(root, doc.root.name.clone())
        .map_err(ctx.scene_err("root"))?;
    fill(&mut scene, &mut ctx, root, &doc.root, "root", "/root")?;
    ctx.imported.roots = scene
        .children(root)
        .map_err(ctx.scene_err("root"))?
        .to_vec();
    nodes::region::link_portals(&mut scene, &ctx, &doc.root)?;
    super::collisions::apply(&mut scene, &mut ctx, &doc.collisions)?;
    super::definitions::apply(&mut scene, &mut ctx, doc, mesh, transform)?;
    for (node, context, doc) in std::mem::take(&mut ctx.effects) {
        let e = effects::effect(&ctx, &context, doc)?;
        scene
            .set_effect(node, Some(e))
            .map_err(ctx.scene_err(&context))?;
    }
    for (node, context, skin) in std::mem::take(&mut ctx.skins) {
        super::skin::attach_skin(&mut scene, &ctx, node, &context, &skin)?;
    }
    for (context, ik) in std::mem::take(&mut ctx.iks) {
        let c = ik_controller(&ctx, &context, &ik)?;
        scene
            .add_ik_controller(c)
            .map_err(ctx.scene_err(&context))?;
    }
    for (i, p) in doc.screen_polygons.iter().enumerate() {
        let context = format!("screen polygon {i}");
        ctx.point(&context, format!("/screen_polygons/{i}"));
        let polygon = screen_polygon(&ctx, &context, p)?;
        scene.add_screen_polygon(polygon);
    }
    for c in &doc.cameras {
        let context = format!("camera '{}'", c.name);
        let (_, cam) = &ctx.cameras[c.name.as_str()];
        let frame = Mat3::from_cols(cam.right(), cam.up(), -cam.direction());
        let local = Transform::IDENTITY
            .with_rotation(frame)
            .and_then(|t| t.with_translation(cam.location()))
            .map_err(ctx.scene_err(&context))?;
        let node = scene
            .add_group(root, c.name.clone())
            .map_err(ctx.scene_err(&context))?;
        scene
            .set_local_transform(node, local)
            .map_err(ctx.scene_err(&context))?;
        let projection = match c.projection {
            ProjectionDoc::Perspective => CameraProjection::Perspective {
                yfov: math::to_radians(c.fov_y_degrees.get()),
                aspect_ratio: c.aspect.map(Real::get),
                znear: c.near.get(),
                zfar: Some(c.far.get()),
            },
            ProjectionDoc::Orthographic => CameraProjection::Orthographic {
                xmag: c.half_width.get(),
                ymag: c.half_height.get(),
                znear: c.near.get(),
                zfar: c.far.get(),
            },
        };
        let (viewport, depth_range) = camera_view(c).map_err(ctx.scene_err(&context))?;
        ctx.imported.cameras.push(ImportedCamera {
            node,
            name: c.name.clone(),
            projection,
            viewport,
            depth_range,
        });
    }
    // What one frame draws (a mesh shared by many leaves counts once per leaf), before the
    // first update, and what its clears may write.
    budget::drawn_over(&scene, &options.budget)
        .map_err(|(context, item, over)| ctx.over(&context, item, over))?;
    scene.set_max_clear_pixels(Some(options.budget.max_clear_pixels));
    match pose {
        Pose::TimeZero => {
            scene.update(0.0);
        }
        Pose::Rest => {
            scene.update_at_rest();
        }
    }
    Ok(ImportedScene {
        scene,
        imported: ctx.imported,
    })
}

/// A screen polygon from its document: `points` (a convex fan in one colour) or `mesh`,
/// the screen defaults with the document's states on top, and a texture or vertex-colour
/// effect.
fn screen_polygon(
    ctx: &Ctx,
    context: &str,
    p: &ScreenPolygonDoc,
) -> Result<ScreenPolygon, IoError> {
    let layer = match p.layer {
        ScreenLayerDoc::Background => ScreenLayer::Background,
        ScreenLayerDoc::Overlay => ScreenLayer::Overlay,
    };
    let mut polygon = match (&p.points, &p.mesh) {
        (Some(points), None) => {
            if points.len() < 3 {
                return Err(ctx.invalid(context, "\"points\" needs at least 3 corners"));
            }
            let points: Vec<Vec2> = points
                .iter()
                .map(|q| Vec2::new(q[0].get(), q[1].get()))
                .collect();
            let color = p.color.as_ref().map_or(Vec4::ONE, v4);
            ScreenPolygon::convex(&points, color, layer).map_err(ctx.scene_err(context))?
        }
        (None, Some(m)) => {
            if p.color.is_some() {
                return Err(ctx.invalid(
                    context,
                    "\"color\" is for \"points\"; a \"mesh\" has its own colours",
                ));
            }
            ScreenPolygon::new(Arc::new(mesh(ctx, context, m)?), layer)
        }
        _ => {
            return Err(ctx.invalid(
                context,
                "a screen polygon needs exactly one of \"points\" and \"mesh\"",
            ))
        }
    };
    if let Some(s) = &p.states {
        for state in states(ctx, context, s)? {
            polygon.states.set(state);
        }
    }
    polygon.effect = match &p.effect {
        None => None,
        Some(e @ EffectDoc::Textures(_)) => Some(effects::effect(ctx, context, e)?),
        Some(e @ EffectDoc::VertexColors(colors)) => {
            let n = polygon.mesh.positions().len();
            if colors.len() != n {
                return Err(ctx.invalid(
                    context,
                    format!(
                        "\"vertex_colors\" has {} colours for {n} vertices",
                        colors.len()
                    ),
                ));
            }
            Some(effects::effect(ctx, context, e)?)
        }
        Some(_) => {
            return Err(ctx.invalid(
                context,
                "a screen polygon's effect is \"textures\" or \"vertex_colors\"",
            ))
        }
    };
    Ok(polygon)
}

/// How far a camera's `axes` may be from the frame its `eye`, `target` and `up` give, per
/// component, and still be used (a saved frame is within an ulp or two; an edit is not).
const CAMERA_AXES_AGREE: f32 = 1e-4;

/// A camera from its document (`aspect` used for perspective cameras; the exact `axes` when
/// they agree with `eye`, `target` and `up`).
fn camera(c: &CameraDoc, aspect: f32) -> Result<Camera, SceneError> {
    let (near, far) = (c.near.get(), c.far.get());
    let mut cam = match c.projection {
        ProjectionDoc::Perspective => {
            Camera::perspective(math::to_radians(c.fov_y_degrees.get()), aspect, near, far)?
        }
        ProjectionDoc::Orthographic => {
            let (w, h) = (c.half_width.get(), c.half_height.get());
            Camera::orthographic(-w, w, -h, h, near, far)?
        }
    };
    cam.look_at(v3(&c.eye), v3(&c.target), v3(&c.up))?;
    if let Some([x, y, z]) = &c.axes {
        let exact = Mat3::from_cols(v3(x), v3(y), v3(z));
        let looked = Mat3::from_cols(cam.right(), cam.up(), -cam.direction());
        let agree =
            (0..3).all(|i| (exact.col(i) - looked.col(i)).abs().max_element() <= CAMERA_AXES_AGREE);
        // Axes that agree but are not a rotation (rounded by hand) leave the `look_at` frame.
        if agree && cam.set_axes(cam.location(), exact).is_err() {
            cam.look_at(v3(&c.eye), v3(&c.target), v3(&c.up))?;
        }
    }
    let (viewport, (near_depth, far_depth)) = camera_view(c)?;
    cam.set_viewport(viewport);
    cam.set_depth_range(near_depth, far_depth)?;
    Ok(cam)
}

/// A camera document's viewport and depth range (doc → engine; `doc::camera_view_doc` maps
/// back).
fn camera_view(c: &CameraDoc) -> Result<(CameraViewport, (f32, f32)), SceneError> {
    let viewport = match &c.viewport {
        Some(v) => CameraViewport::normalized(v[0].get(), v[1].get(), v[2].get(), v[3].get())?,
        None => CameraViewport::FULL,
    };
    let range = c
        .depth_range
        .map_or((0.0, 1.0), |[n, f]| (n.get(), f.get()));
    if !((0.0..=1.0).contains(&range.0) && (0.0..=1.0).contains(&range.1)) {
        return Err(SceneError::InvalidViewport("depth range must lie in [0,1]"));
    }
    Ok((viewport, range))
}

fn light(ctx: &Ctx, context: &str, l: &LightDoc) -> Result<SceneLight, IoError> {
    let kind = match l.kind {
        LightTypeDoc::Ambient => LightType::Ambient,
        LightTypeDoc::Directional => LightType::Directional,
        LightTypeDoc::Point => LightType::Point,
        LightTypeDoc::Spot => LightType::Spot,
    };
    let ambient_light = kind == LightType::Ambient;
    let (on, off) = (Vec4::ONE, Vec4::new(0.0, 0.0, 0.0, 1.0));
    let angle = l.angle_degrees.get();
    if !(0.0..=180.0).contains(&angle) {
        return Err(ctx.invalid(context, format!("angle_degrees {angle} is outside 0..=180")));
    }
    Ok(SceneLight {
        kind,
        ambient: l
            .ambient
            .as_ref()
            .map_or(if ambient_light { on } else { off }, v4),
        diffuse: l
            .diffuse
            .as_ref()
            .map_or(if ambient_light { off } else { on }, v4),
        specular: l
            .specular
            .as_ref()
            .map_or(if ambient_light { off } else { on }, v4),
        intensity: l.intensity.get(),
        constant: l.constant.get(),
        linear: l.linear.get(),
        quadratic: l.quadratic.get(),
        attenuate: l.attenuate,
        on: l.on,
        exponent: l.exponent.get(),
        angle: if angle == 180.0 {
            core::f32::consts::PI
        } else {
            math::to_radians(angle)
        },
        inner_angle: match l.inner_angle_degrees.map(Real::get) {
            Some(inner) if !(0.0..=angle).contains(&inner) => {
                return Err(ctx.invalid(
                    context,
                    format!("inner_angle_degrees {inner} is outside 0..=angle_degrees ({angle})"),
                ))
            }
            inner => inner.map(math::to_radians),
        },
        range: match l.range.map(Real::get) {
            Some(r) if r <= 0.0 => {
                return Err(ctx.invalid(context, format!("range {r} is not positive")))
            }
            r => r,
        },
        position: v3(&l.position),
        direction: v3(&l.direction),
    })
}

fn transform(ctx: &Ctx, context: &str, t: &TransformDoc) -> Result<Transform, IoError> {
    let err = ctx.scene_err(context);
    let mut out = Transform::IDENTITY;
    let mat9 = |m: &[Real; 9]| Mat3::from_cols_array(&m.map(Real::get));
    if let Some(m) = &t.matrix {
        if t.rotation.is_some() || t.scale.is_some() || t.uniform_scale.is_some() {
            return Err(ctx.invalid(
                context,
                "\"matrix\" replaces \"rotation\", \"scale\" and \"uniform_scale\"",
            ));
        }
        out.set_matrix(mat9(m)).map_err(&err)?;
    }
    match (&t.scale, &t.uniform_scale) {
        (Some(_), Some(_)) => {
            return Err(ctx.invalid(context, "give \"scale\" or \"uniform_scale\", not both"))
        }
        (Some(s), None) => out = out.with_scale(v3(s)).map_err(&err)?,
        (None, Some(s)) => out = out.with_uniform_scale(s.get()).map_err(&err)?,
        (None, None) => {}
    }
    if let Some(r) = &t.rotation {
        let m = match (&r.axis, &r.degrees, &r.radians, &r.quaternion) {
            _ if r.matrix.is_some() => match (&r.axis, &r.degrees, &r.radians, &r.quaternion) {
                (None, None, None, None) => r.matrix.as_ref().map_or(Mat3::IDENTITY, mat9),
                _ => {
                    return Err(ctx.invalid(
                        context,
                        "a rotation \"matrix\" stands alone (no axis, angle or quaternion)",
                    ))
                }
            },
            (Some(axis), Some(deg), None, None) => {
                rotation_axis_angle(v3(axis), math::to_radians(deg.get())).map_err(&err)?
            }
            (Some(axis), None, Some(rad), None) => {
                rotation_axis_angle(v3(axis), rad.get()).map_err(&err)?
            }
            (None, None, None, Some(q)) => {
                let q = Quat::from_xyzw(q[0].get(), q[1].get(), q[2].get(), q[3].get());
                let unit = crate::values::transform::unit_quat(q)
                    .map_err(|e| ctx.invalid(context, e.to_string()))?;
                Mat3::from_quat(unit)
            }
            _ => return Err(ctx.invalid(
                context,
                "rotation needs \"axis\" and \"degrees\" (or \"radians\"), or \"quaternion\" alone",
            )),
        };
        out = out.with_rotation(m).map_err(&err)?;
    }
    if let Some(tr) = &t.translation {
        out = out.with_translation(v3(tr)).map_err(&err)?;
    }
    Ok(out)
}

/// Largest point size and line width (plumb-raster's limit).
const MAX_POINT_LINE: f32 = 1024.0;

fn states(ctx: &Ctx, context: &str, s: &StatesDoc) -> Result<Vec<GlobalState>, IoError> {
    let mut out = Vec::new();
    if let Some(a) = &s.alpha {
        out.push(GlobalState::Alpha(AlphaState {
            blend_enabled: a.blend,
            src_blend: a.src.into(),
            dst_blend: a.dst.into(),
            test_enabled: a.test,
            test: a.compare.into(),
            reference: a.reference.get(),
            constant_color: v4(&a.constant_color),
            alpha_factors: (a.alpha_src.is_some() || a.alpha_dst.is_some()).then(|| {
                (
                    a.alpha_src.unwrap_or(a.src).into(),
                    a.alpha_dst.unwrap_or(a.dst).into(),
                )
            }),
            equation: a.equation.map_or(AlphaState::OPAQUE.equation, Into::into),
            alpha_equation: a.alpha_equation.map(Into::into),
        }));
    }
    if let Some(c) = &s.cull {
        out.push(GlobalState::Cull(CullState {
            enabled: c.enabled,
            front_face: c.front_face.into(),
            cull_face: c.cull_face.into(),
        }));
    }
    if let Some(d) = &s.dither {
        out.push(GlobalState::Dither(DitherState { enabled: d.enabled }));
    }
    if let Some(f) = &s.fog {
        out.push(GlobalState::Fog(Fog {
            enabled: f.enabled,
            start: f.start.get(),
            end: f.end.get(),
            density: f.density.get(),
            color: v4(&f.color),
            density_function: f.function.into(),
            apply: f.apply.into(),
            distance: f.distance.into(),
        }));
    }
    if let Some(m) = &s.material {
        out.push(GlobalState::Material(MaterialState {
            emissive: v4(&m.emissive),
            ambient: v4(&m.ambient),
            diffuse: v4(&m.diffuse),
            specular: v4(&m.specular),
            shininess: m.shininess.get(),
            color_material: m.color_material,
            two_sided: m.two_sided,
        }));
    }
    if let Some(sh) = s.shade {
        out.push(GlobalState::Shade(sh.into()));
    }
    if let Some(w) = &s.wireframe {
        out.push(GlobalState::Wireframe(WireframeState {
            enabled: w.enabled,
        }));
    }
    if let Some(z) = &s.zbuffer {
        out.push(GlobalState::ZBuffer(ZBufferState {
            enabled: z.enabled,
            writable: z.writable,
            compare: z.compare.into(),
        }));
    }
    if let Some(st) = &s.stencil {
        out.push(GlobalState::Stencil(StencilState {
            enabled: st.enabled,
            func: st.compare.into(),
            reference: st.reference,
            read_mask: st.mask,
            write_mask: st.write_mask,
            fail: st.on_fail.into(),
            depth_fail: st.on_z_fail.into(),
            pass: st.on_z_pass.into(),
        }));
    }
    if let Some(p) = &s.polygon_offset {
        out.push(GlobalState::PolygonOffset(PolygonOffsetState {
            enabled: p.enabled,
            factor: p.factor.get(),
            units: p.units.get(),
        }));
    }
    if let Some(p) = &s.point_line {
        let (size, width) = (p.point_size.get(), p.line_width.get());
        for (what, v) in [("point_size", size), ("line_width", width)] {
            if !(v > 0.0 && v <= MAX_POINT_LINE) {
                return Err(ctx.invalid(
                    context,
                    format!("{what} {v} is outside (0, {MAX_POINT_LINE}]"),
                ));
            }
        }
        out.push(GlobalState::PointLine(PointLineState {
            point_size: size,
            line_width: width,
        }));
    }
    if let Some(planes) = &s.clip_planes {
        if planes.len() > MAX_CLIP_PLANES {
            return Err(ctx.invalid(
                context,
                format!("{} clip planes; at most {MAX_CLIP_PLANES}", planes.len()),
            ));
        }
        if let Some(i) = planes.iter().position(|p| v4(p).truncate() == Vec3::ZERO) {
            return Err(ctx.invalid(
                context,
                format!("clip plane {i} has a zero normal (a, b, c)"),
            ));
        }
        let planes: Vec<Vec4> = planes.iter().map(v4).collect();
        out.push(GlobalState::ClipPlanes(ClipPlaneState::new(&planes)));
    }
    Ok(out)
}

/// Applies `doc` (everything but its kind, name and mesh) to the existing node `id`, then
/// creates its children. Recursion depth is bounded by [`super::MAX_NODE_DEPTH`].
fn fill<'a>(
    scene: &mut Scene,
    ctx: &mut Ctx<'a>,
    id: NodeId,
    doc: &'a NodeDoc,
    path: &str,
    pointer: &str,
) -> Result<(), IoError> {
    ctx.names.entry(doc.name.clone()).or_default().push(id);
    nodes::check_fields(ctx, doc, path)?;
    let local = match &doc.transform {
        Some(t) => transform(ctx, path, t)?,
        None => Transform::IDENTITY,
    };
    if doc.transform.is_some() {
        scene
            .set_local_transform(id, local)
            .map_err(ctx.scene_err(path))?;
    }
    if let Some(s) = &doc.states {
        for state in states(ctx, path, s)? {
            scene
                .set_global_state(id, state)
                .map_err(ctx.scene_err(path))?;
        }
    }
    if let Some(m) = doc.cull_mode {
        scene
            .set_culling(id, m.into())
            .map_err(ctx.scene_err(path))?;
    }
    if let Some(o) = doc.object_id {
        if o == 0 {
            return Err(ctx.invalid(
                path,
                "object_id 0 is the background's (nothing drawn); ids start at 1".to_owned(),
            ));
        }
        scene
            .set_object_id(id, Some(o))
            .map_err(ctx.scene_err(path))?;
    }
    if let Some(c) = &doc.clear {
        let rect = match c.rect {
            Some([x, y, w, h]) => CameraViewport::normalized(x.get(), y.get(), w.get(), h.get())
                .map_err(ctx.scene_err(path))?,
            None => CameraViewport::FULL,
        };
        let depth = match (c.depth, c.stencil) {
            (None, None) => Some(1.0),
            (d, _) => d.map(|d| d.get()),
        };
        let region = crate::values::clear::ClearRegion {
            rect,
            depth,
            stencil: c.stencil,
        };
        scene
            .set_clear(id, Some(region))
            .map_err(ctx.scene_err(path))?;
    }
    for name in &doc.lights {
        let light = *ctx
            .lights
            .get(name.as_str())
            .ok_or_else(|| ctx.invalid(path, format!("unknown light '{name}'")))?;
        scene.attach_light(id, light).map_err(ctx.scene_err(path))?;
    }
    if let Some(e) = &doc.effect {
        ctx.effects.push((id, path.to_owned(), e));
    }
    let skins = doc
        .controllers
        .iter()
        .filter(|c| matches!(c, ControllerDoc::Skin(_)))
        .count();
    let morphs = doc
        .controllers
        .iter()
        .filter(|c| matches!(c, ControllerDoc::Morph(_)))
        .count();
    let point_motions = doc
        .controllers
        .iter()
        .filter(|c| matches!(c, ControllerDoc::PointMotion(_)))
        .count();
    if skins > 1 || (skins == 1 && morphs > 0) {
        return Err(ctx.invalid(
            path,
            "a skinned node has one \"skin\" controller and no \"morph\"",
        ));
    }
    // Each of these computes the mesh from its own rest shape: two on one node would not
    // combine, the later would simply replace the earlier's result.
    if point_motions > 1 || (point_motions == 1 && skins + morphs > 0) {
        return Err(ctx.invalid(
            path,
            "a node with \"point_motion\" has one, and no \"skin\" or \"morph\"",
        ));
    }
    for (i, c) in doc.controllers.iter().enumerate() {
        let context = format!("{path} controller {i}");
        ctx.point(&context, format!("{pointer}/controllers/{i}"));
        controller(scene, ctx, id, &local, c, &context)?;
    }
    for (i, child) in doc.children.iter().enumerate() {
        let child_path = if child.name.is_empty() {
            format!("{path}/#{i}")
        } else {
            format!("{path}/{}", child.name)
        };
        let child_pointer = format!("{pointer}/children/{i}");
        ctx.point(&child_path, child_pointer.clone());
        let cid = nodes::create(scene, ctx, id, child, &child_path)?;
        fill(scene, ctx, cid, child, &child_path, &child_pointer)?;
    }
    if let Some(rel) = &doc.import {
        import(scene, ctx, id, rel, path)?;
    }
    nodes::link(scene, ctx, id, doc, path)?;
    Ok(())
}

fn import(
    scene: &mut Scene,
    ctx: &mut Ctx,
    parent: NodeId,
    rel: &str,
    path: &str,
) -> Result<(), IoError> {
    let file = uri::inside(ctx.dir, rel).map_err(|reason| IoError::MissingResource {
        file: ctx.file.to_owned(),
        kind: "imported scene",
        uri: rel.to_owned(),
        reason,
    })?;
    let ext = file
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if !matches!(ext.as_deref(), Some("gltf" | "glb" | "obj")) {
        return Err(ctx.invalid(
            path,
            format!("import '{rel}': only .gltf, .glb and .obj files can be imported"),
        ));
    }
    if !file.is_file() {
        return Err(IoError::MissingResource {
            file: ctx.file.to_owned(),
            kind: "imported scene",
            uri: rel.to_owned(),
            reason: "no such file".to_owned(),
        });
    }
    // The imported file gets what is left of this load's texture, geometry and node
    // budgets, and what it used is charged here afterwards, so that a file imported a
    // thousand times cannot multiply a limit meant for the whole load.
    let child_options = ImportOptions {
        max_texture_bytes: ctx.texture_budget.remaining(),
        max_geometry_bytes: ctx.geometry_left,
        max_nodes: ctx.import_nodes_left,
        ..*ctx.options
    };
    let nodes_before = scene.node_count();
    let over_nodes = || IoError::Limit {
        file: ctx.file.to_owned(),
        what: "nodes created by the scene file's imports together (ImportOptions::max_nodes)",
        max: ctx.options.max_nodes,
    };
    let imported = crate::io::import(scene, parent, &file, &child_options).map_err(|e| {
        // The file alone may fit the limit; it is what the earlier imports left that it
        // does not fit, and the message must say which.
        match e {
            IoError::Limit { max, what, .. }
                if what.contains("max_nodes") && max < ctx.options.max_nodes =>
            {
                over_nodes()
            }
            e => e,
        }
    })?;
    let nodes = scene.node_count().saturating_sub(nodes_before);
    if nodes > ctx.import_nodes_left {
        return Err(over_nodes());
    }
    ctx.import_nodes_left -= nodes;
    ctx.geometry_left = ctx.geometry_left.saturating_sub(imported.geometry_bytes);
    // Each distinct texture once (pointer identity only dedups; it orders nothing).
    let mut seen = std::collections::BTreeSet::new();
    let used: u64 = imported
        .materials
        .values()
        .flat_map(|m| {
            [
                &m.base_color_texture,
                &m.emissive_texture,
                &m.normal_texture,
                &m.occlusion_texture,
            ]
        })
        .flatten()
        .filter(|b| seen.insert(Arc::as_ptr(&b.texture) as usize))
        .map(|b| texture_bytes(&b.texture))
        .sum();
    ctx.texture_budget.used = ctx.texture_budget.used.saturating_add(used);
    let Imported {
        roots: _,
        materials,
        cameras,
        lights,
        animations,
        applied: _,
        extensions,
        variants: _,
        geometry_bytes: _,
        instancings,
        rest_box: _,
    } = imported;
    ctx.imported.instancings.extend(instancings);
    ctx.imported.extensions.extend(extensions);
    ctx.imported.materials.extend(materials);
    ctx.imported.cameras.extend(cameras);
    ctx.imported.lights.extend(lights);
    ctx.imported.animations.extend(animations);
    Ok(())
}

fn controller(
    scene: &mut Scene,
    ctx: &mut Ctx,
    node: NodeId,
    base: &Transform,
    c: &ControllerDoc,
    context: &str,
) -> Result<(), IoError> {
    let base = *base;
    match c {
        ControllerDoc::Spin(s) => {
            let spin = motion::Spin::new(base, v3(&s.axis), s.degrees_per_second.get())
                .map_err(ctx.scene_err(context))?;
            scene
                .add_controller(node, Box::new(spin))
                .map_err(ctx.scene_err(context))?;
        }
        ControllerDoc::Keyframes(k) => {
            let track = keyframes_animation(ctx, context, node, &base, k)?;
            let timing = keyframe_timing(k, &track).map_err(ctx.scene_err(context))?;
            scene
                .add_controller(
                    node,
                    Box::new(AnimationController {
                        timing,
                        animation: track.clone(),
                    }),
                )
                .map_err(ctx.scene_err(context))?;
            ctx.imported
                .animations
                .push(Animation::new(context.to_owned(), vec![track]));
        }
        ControllerDoc::Ik(ik) => ctx.iks.push((context.to_owned(), ik.clone())),
        ControllerDoc::Skin(skin) => ctx.skins.push((node, context.to_owned(), skin.clone())),
        ControllerDoc::Motion(m) => {
            let motion = motion::system_motion(ctx, context, base, m)?;
            scene
                .add_controller(node, Box::new(motion))
                .map_err(ctx.scene_err(context))?;
        }
        ControllerDoc::PointMotion(m) => {
            let controller = motion::point_motion(scene, ctx, node, m, context)?;
            scene
                .add_mesh_controller(node, Box::new(controller))
                .map_err(ctx.scene_err(context))?;
        }
        ControllerDoc::Morph(m) => {
            let times: Vec<f32> = m.times.iter().map(|t| t.get()).collect();
            let timing = controller_timing(
                [m.min_time, m.max_time, m.phase, m.frequency],
                m.repeat,
                m.active,
                &times,
            )
            .map_err(ctx.scene_err(context))?;
            let morph = morph_controller(ctx, context, m, timing, times)?;
            scene
                .add_mesh_controller(node, Box::new(morph))
                .map_err(ctx.scene_err(context))?;
        }
    }
    Ok(())
}

fn interpolation(i: InterpolationDoc) -> Interpolation {
    match i {
        InterpolationDoc::Step => Interpolation::Step,
        InterpolationDoc::Linear => Interpolation::Linear,
        InterpolationDoc::CubicSpline => Interpolation::CubicSpline,
    }
}

/// The tracks and rest pose of a `keyframes` controller on `node` (whose own transform is
/// `base`): each track with its own `*_keys` or the shared `times` and `interpolation`.
fn keyframes_animation(
    ctx: &Ctx,
    context: &str,
    node: NodeId,
    base: &Transform,
    k: &KeyframesDoc,
) -> Result<NodeAnimation, IoError> {
    let keys = |own: &Option<TrackKeysDoc>, values: bool, what: &str| {
        let (interp, times) = match own {
            Some(o) => (o.interpolation, &o.times),
            None => (k.interpolation, &k.times),
        };
        if own.is_some() && !values {
            return Err(ctx.invalid(context, format!("\"{what}_keys\" without \"{what}s\"")));
        }
        if values && times.is_empty() {
            return Err(ctx.invalid(
                context,
                format!("the {what} track has no key times: give \"times\" or \"{what}_keys\""),
            ));
        }
        Ok((
            interpolation(interp),
            times.iter().map(|t| t.get()).collect::<Vec<f32>>(),
        ))
    };
    let bad =
        |what: &'static str| move |m: String| ctx.invalid(context, format!("{what} track: {m}"));
    let translation = match &k.translations {
        Some(v) => {
            let (i, times) = keys(&k.translation_keys, true, "translation")?;
            Some(Track::new(i, times, v.iter().map(v3).collect()).map_err(bad("translation"))?)
        }
        None => keys(&k.translation_keys, false, "translation").map(|_| None)?,
    };
    let rotation = match &k.rotations {
        Some(v) => {
            let (i, times) = keys(&k.rotation_keys, true, "rotation")?;
            let quats = v
                .iter()
                .map(|q| Quat::from_xyzw(q[0].get(), q[1].get(), q[2].get(), q[3].get()))
                .collect();
            Some(Track::new(i, times, quats).map_err(bad("rotation"))?)
        }
        None => keys(&k.rotation_keys, false, "rotation").map(|_| None)?,
    };
    let scale = match &k.scales {
        Some(v) => {
            let (i, times) = keys(&k.scale_keys, true, "scale")?;
            Some(Track::new(i, times, v.iter().map(v3).collect()).map_err(bad("scale"))?)
        }
        None => keys(&k.scale_keys, false, "scale").map(|_| None)?,
    };
    if translation.is_none() && rotation.is_none() && scale.is_none() && k.times.is_empty() {
        return Err(ctx.invalid(context, "\"keyframes\" needs \"times\" and a track"));
    }
    let (rest_translation, rest_rotation, rest_scale) = match &k.rest {
        Some(r) => {
            let q = Quat::from_xyzw(
                r.rotation[0].get(),
                r.rotation[1].get(),
                r.rotation[2].get(),
                r.rotation[3].get(),
            );
            if q.length_squared() == 0.0 {
                return Err(ctx.invalid(context, "\"rest\" has a zero rotation quaternion"));
            }
            (v3(&r.translation), q, v3(&r.scale))
        }
        None => (
            base.translation(),
            Quat::from_mat3(&base.rotation().unwrap_or(Mat3::IDENTITY)),
            base.scale().unwrap_or(Vec3::ONE),
        ),
    };
    Ok(NodeAnimation {
        node,
        rest_translation,
        rest_rotation,
        rest_scale,
        translation,
        rotation,
        scale,
    })
}

/// A `morph` controller: absolute or `relative` targets, optional normal targets, keys of
/// any interpolation.
fn morph_controller(
    ctx: &Ctx,
    context: &str,
    m: &MorphDoc,
    timing: ControllerTiming,
    times: Vec<f32>,
) -> Result<MorphController, IoError> {
    let err = ctx.scene_err(context);
    let arrays = |t: &[Vec<Real3>]| -> Vec<Vec<Vec3>> {
        t.iter().map(|t| t.iter().map(v3).collect()).collect()
    };
    let weights: Vec<Vec<f32>> = m
        .weights
        .iter()
        .map(|w| w.iter().map(|x| x.get()).collect())
        .collect();
    let targets = arrays(&m.targets);
    // The first key's weights stand in until `with_keys` sets the real ones (cubic keys
    // have three arrays per key).
    let first_key: Vec<Vec<f32>> = weights.first().cloned().into_iter().collect();
    let first_time: Vec<f32> = times.first().copied().into_iter().collect();
    let mut morph = if m.relative {
        let mut it = targets.into_iter();
        let base = it
            .next()
            .ok_or_else(|| ctx.invalid(context, "\"morph\" needs at least one target"))?;
        MorphController::new(timing, base, it.collect(), first_time, first_key)
    } else {
        MorphController::from_targets(timing, targets, first_time, first_key)
    }
    .map_err(&err)?
    .with_keys(interpolation(m.interpolation), times, weights)
    .map_err(&err)?;
    if let Some(normals) = &m.normals {
        let normals = arrays(normals);
        let mut it = normals.into_iter();
        let base = it.next().unwrap_or_default();
        let differences: Vec<Vec<Vec3>> = if m.relative {
            it.collect()
        } else {
            it.map(|t| t.iter().zip(&base).map(|(n, n0)| *n - *n0).collect())
                .collect()
        };
        morph = morph.with_normals(base, differences).map_err(&err)?;
    }
    Ok(morph)
}

/// The time mapping of a `keyframes` controller: by default clamp over its first to last key
/// time (of all its tracks), which maps every time to itself inside the keys (the tracks hold
/// their ends anyway).
fn keyframe_timing(k: &KeyframesDoc, a: &NodeAnimation) -> Result<ControllerTiming, SceneError> {
    let tracks = [
        a.translation.as_ref().map(Track::times),
        a.rotation.as_ref().map(Track::times),
        a.scale.as_ref().map(Track::times),
    ];
    let first = tracks
        .iter()
        .flatten()
        .filter_map(|t| t.first().copied())
        .reduce(f32::min);
    let last = tracks
        .iter()
        .flatten()
        .filter_map(|t| t.last().copied())
        .reduce(f32::max);
    let times: Vec<f32> = match (first, last) {
        (Some(f), Some(l)) => vec![f, l],
        _ => k.times.iter().map(|t| t.get()).collect(),
    };
    controller_timing(
        [k.min_time, k.max_time, k.phase, k.frequency],
        k.repeat,
        k.active,
        &times,
    )
}

/// A controller's time mapping from `[min_time, max_time, phase, frequency]`, the repeat type
/// and the active flag, with the interval defaulting to the first and last key times.
fn controller_timing(
    [min, max, phase, frequency]: [Option<Real>; 4],
    repeat: RepeatDoc,
    active: Option<bool>,
    times: &[f32],
) -> Result<ControllerTiming, SceneError> {
    let first = times.first().copied().unwrap_or(0.0);
    let last = times.last().copied().unwrap_or(first);
    let min = min.map_or(first, Real::get);
    let max = max.map_or(last, Real::get);
    let repeat = match repeat {
        RepeatDoc::Clamp => RepeatType::Clamp,
        RepeatDoc::Wrap => RepeatType::Wrap,
        RepeatDoc::Cycle => RepeatType::Cycle,
    };
    Ok(ControllerTiming::over(f64::from(min), f64::from(max))?
        .with_repeat(repeat)
        .with_phase(f64::from(phase.map_or(0.0, Real::get)))?
        .with_frequency(f64::from(frequency.map_or(1.0, Real::get)))?
        .with_active(active.unwrap_or(true)))
}

/// The solver work of one update of `c`: iterations × free axes (at least one per joint)
/// × (joints + goals) — each step of one axis recomputes the chain's world transforms and the
/// goals' errors.
fn solver_steps(c: &IkController) -> (u64, String) {
    let axes: usize = c
        .joints()
        .iter()
        .map(|j| {
            j.allow_translation.iter().filter(|a| **a).count()
                + j.allow_rotation.iter().filter(|a| **a).count()
        })
        .sum();
    let (iterations, chain) = (
        u64::from(c.iterations()),
        (c.joints().len() + c.goals().len()) as u64,
    );
    let axes = axes.max(c.joints().len()) as u64;
    let steps = budget::product(&[iterations, axes, chain]);
    (
        steps,
        format!(
            "an IK solve of {iterations} iterations × {axes} joint axes × {chain} joints and \
             goals = {steps} steps"
        ),
    )
}

/// An IK controller from its document, its nodes found by name.
fn ik_controller(ctx: &Ctx, context: &str, ik: &IkDoc) -> Result<IkController, IoError> {
    let err = ctx.scene_err(context);
    let mut joints = Vec::with_capacity(ik.joints.len());
    for j in &ik.joints {
        let mut joint = IkJoint::new(ctx.named(context, &j.node)?);
        for a in &j.translate {
            let min = a.min.map_or(f32::NEG_INFINITY, Real::get);
            let max = a.max.map_or(f32::INFINITY, Real::get);
            joint = joint
                .with_translation(a.axis as usize, min, max)
                .map_err(&err)?;
        }
        for a in &j.rotate {
            let min = math::to_radians(a.min.map_or(-180.0, Real::get));
            let max = math::to_radians(a.max.map_or(180.0, Real::get));
            joint = joint
                .with_rotation(a.axis as usize, min, max)
                .map_err(&err)?;
        }
        joints.push(joint);
    }
    let mut goals = Vec::with_capacity(ik.goals.len());
    for g in &ik.goals {
        let target = ctx.named(context, &g.target)?;
        let effector = ctx.named(context, &g.effector)?;
        goals.push(IkGoal::new(target, effector, g.weight.get()).map_err(&err)?);
    }
    let mut c = IkController::new(joints, goals).map_err(&err)?;
    if let Some(n) = ik.iterations {
        c = c.with_iterations(n).map_err(&err)?;
    }
    c.order_end_to_root = ik.end_to_root.unwrap_or(true);
    c.active = ik.active.unwrap_or(true);
    // Every update solves it (the load's first one too): charged before it is added.
    let (steps, item) = solver_steps(&c);
    ctx.charge(context, Budget::SolverSteps, steps, || item)?;
    Ok(c)
}
