//! Golden cases for the fixed-function path (textures, mipmaps, wrap modes, combine,
//! lighting, fog, texgen), drawn through `Context::draw_fixed`. Described in
//! `refimages/README.md`.

use std::sync::Arc;

use glam::{Mat4, Vec2, Vec3, Vec4};
use plumb::mesh::TriMesh;
use plumb::raster::combine::ApplyMode;
use plumb::raster::fog::{FogDistance, FogMode, FogState};
use plumb::raster::light::{Light, LightKind, LightingState, Material};
use plumb::raster::texture::{MinFilter, Sampler, Texture, Wrap};
use plumb::raster::trace::DrawTarget;
use plumb::raster::*;

use crate::Case;

/// Every fixed-function case, in README order.
pub const CASES: &[Case] = &[
    Case {
        name: "ground_nearest",
        size: (256, 160),
        draw: |c| ground(c, MinFilter::Nearest),
    },
    Case {
        name: "ground_linear",
        size: (256, 160),
        draw: |c| ground(c, MinFilter::Linear),
    },
    Case {
        name: "ground_nearest_mipmap_nearest",
        size: (256, 160),
        draw: |c| ground(c, MinFilter::NearestMipmapNearest),
    },
    Case {
        name: "ground_linear_mipmap_nearest",
        size: (256, 160),
        draw: |c| ground(c, MinFilter::LinearMipmapNearest),
    },
    Case {
        name: "ground_nearest_mipmap_linear",
        size: (256, 160),
        draw: |c| ground(c, MinFilter::NearestMipmapLinear),
    },
    Case {
        name: "ground_linear_mipmap_linear",
        size: (256, 160),
        draw: |c| ground(c, MinFilter::LinearMipmapLinear),
    },
    Case {
        name: "wrap_modes",
        size: (512, 128),
        draw: wrap_modes,
    },
    Case {
        name: "lit_spheres",
        size: (384, 288),
        draw: lit_spheres,
    },
    Case {
        name: "fog_linear",
        size: (256, 192),
        draw: |c| {
            fog_corridor(
                c,
                FogMode::Linear {
                    start: 2.0,
                    end: 18.0,
                },
            )
        },
    },
    Case {
        name: "fog_exp",
        size: (256, 192),
        draw: |c| fog_corridor(c, FogMode::Exp { density: 0.15 }),
    },
    Case {
        name: "fog_exp2",
        size: (256, 192),
        draw: |c| fog_corridor(c, FogMode::Exp2 { density: 0.11 }),
    },
    Case {
        name: "light_dark_map",
        size: (512, 256),
        draw: light_dark_map,
    },
    Case {
        name: "gloss_map",
        size: (256, 256),
        draw: gloss_map,
    },
    Case {
        name: "sphere_env",
        size: (256, 256),
        draw: sphere_env,
    },
    Case {
        name: "projected_box",
        size: (256, 256),
        draw: projected_box,
    },
];

fn rgba(r: f32, g: f32, b: f32, a: f32) -> Vec4 {
    Vec4::new(r, g, b, a)
}

fn tex(w: u32, h: u32, f: impl Fn(u32, u32) -> [u8; 4]) -> Arc<Texture> {
    let mut px = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            px.extend_from_slice(&f(x, y));
        }
    }
    Arc::new(
        Texture::from_rgba8(w, h, px)
            .expect("valid size")
            .with_generated_mips(),
    )
}

/// 64×64, 8-texel black/white squares (the classic aliasing test pattern).
fn checker() -> Arc<Texture> {
    tex(64, 64, |x, y| {
        if ((x / 8) + (y / 8)) % 2 == 0 {
            [235, 235, 235, 255]
        } else {
            [25, 25, 25, 255]
        }
    })
}

fn draw_mesh(
    ctx: &mut dyn DrawTarget,
    st: &PipelineState,
    ff: &FixedFunction,
    t: &Transforms,
    m: &TriMesh,
) {
    let uvs = [m.uvs.as_slice()];
    let input = MeshInput {
        positions: &m.positions,
        normals: Some(&m.normals),
        colors: None,
        uvs: &uvs,
    };
    ctx.draw_fixed(
        st,
        ff,
        t,
        &input,
        Indices::U32(&m.indices),
        Topology::TriangleList,
    )
    .expect("valid mesh");
}

fn perspective(w: f32, h: f32, fov_deg: f32) -> Mat4 {
    Mat4::perspective_rh(fov_deg.to_radians(), w / h, 0.1, 100.0)
}

/// A checkered plane (80 × 80 world units, UVs 0..40) seen from 1 unit above, looking at the
/// horizon; one case per min filter, mag filter linear. Nearest/Linear shimmer into moiré
/// near the horizon; the mipmapped filters fade to grey there (trilinear smoothest).
fn ground(ctx: &mut dyn DrawTarget, min: MinFilter) {
    ctx.clear(rgba(0.55, 0.65, 0.8, 1.0), 1.0, 0);
    let mut plane = TriMesh::plane(40.0, 1);
    for uv in &mut plane.uvs {
        *uv *= 40.0;
    }
    let t = Transforms {
        view_from_model: Mat4::look_at_rh(
            Vec3::new(0.0, 1.0, 6.0),
            Vec3::new(0.0, 0.6, -20.0),
            Vec3::Y,
        ),
        clip_from_view: perspective(256.0, 160.0, 60.0),
    };
    let sampler = Sampler {
        min,
        ..Sampler::TRILINEAR
    };
    let ff = FixedFunction {
        units: vec![TextureUnit::new(checker(), sampler)],
        ..Default::default()
    };
    let st = ctx.default_state();
    draw_mesh(ctx, &st, &ff, &t, &plane);
}

/// Four quads with UVs from −1 to 2 over an 8×8 texture (red/green gradient, blue mark in the
/// first texel), nearest filtering: REPEAT (3×3 copies), MIRRORED_REPEAT (copies flipped
/// alternately), CLAMP_TO_EDGE (edge texels stretched), CLAMP_TO_BORDER (magenta border
/// around one copy).
fn wrap_modes(ctx: &mut dyn DrawTarget) {
    ctx.clear(rgba(0.1, 0.1, 0.1, 1.0), 1.0, 0);
    let img = tex(8, 8, |x, y| {
        if x == 0 && y == 0 {
            [40, 60, 255, 255]
        } else {
            [(x * 32) as u8, (y * 32) as u8, 40, 255]
        }
    });
    let quad = TriMesh {
        positions: vec![
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(1.0, -1.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(-1.0, 1.0, 0.0),
        ],
        normals: vec![Vec3::Z; 4],
        uvs: vec![
            Vec2::new(-1.0, 2.0),
            Vec2::new(2.0, 2.0),
            Vec2::new(2.0, -1.0),
            Vec2::new(-1.0, -1.0),
        ],
        indices: vec![0, 1, 2, 0, 2, 3],
    };
    let t = Transforms {
        view_from_model: Mat4::from_scale(Vec3::splat(0.9)),
        clip_from_view: Mat4::IDENTITY,
    };
    for (i, wrap) in Wrap::ALL.into_iter().enumerate() {
        let vp = Viewport {
            x: 128.0 * i as f32,
            y: 0.0,
            width: 128.0,
            height: 128.0,
            min_depth: 0.0,
            max_depth: 1.0,
        };
        let st = PipelineState {
            viewport: vp,
            ..ctx.default_state()
        };
        let sampler = Sampler {
            min: MinFilter::Nearest,
            mag: texture::MagFilter::Nearest,
            ..Sampler::TRILINEAR
        }
        .with_wrap(wrap)
        .with_border(rgba(1.0, 0.0, 1.0, 1.0));
        let ff = FixedFunction {
            units: vec![TextureUnit::new(Arc::clone(&img), sampler)],
            ..Default::default()
        };
        draw_mesh(ctx, &st, &ff, &t, &quad);
    }
}

/// A 4×4 grid of spheres. Rows (top to bottom): a directional light from the upper left,
/// a point light close to the upper right (linear attenuation), a narrow spot light
/// (cutoff 10°, exponent 8) aimed from the eye at the sphere centre (a lit disc with a soft
/// edge; the sphere itself subtends ~17°), and an ambient light only. Columns:
/// matte red Gouraud, matte red Phong, shiny blue Gouraud, shiny blue Phong (specular 1,
/// shininess 40). Phong columns show round, crisp highlights and a round spot edge where
/// Gouraud shows faceted ones.
fn lit_spheres(ctx: &mut dyn DrawTarget) {
    ctx.clear(rgba(0.06, 0.06, 0.08, 1.0), 1.0, 0);
    let sphere = TriMesh::sphere(1.0, 12, 18);
    let t = Transforms {
        view_from_model: Mat4::from_translation(Vec3::new(0.0, 0.0, -3.2)),
        clip_from_view: perspective(1.0, 1.0, 40.0),
    };
    let lights = [
        Light::new(LightKind::Directional {
            direction: Vec3::new(1.0, -1.0, -1.0),
        })
        .with_diffuse(Vec3::ONE)
        .with_specular(Vec3::ONE),
        Light::new(LightKind::Point {
            position: Vec3::new(1.5, 1.5, -1.5),
        })
        .with_diffuse(Vec3::ONE)
        .with_specular(Vec3::ONE)
        .with_attenuation([0.5, 0.3, 0.0]),
        Light::new(LightKind::Spot {
            position: Vec3::new(0.0, 0.0, 0.0),
            direction: Vec3::new(0.0, 0.0, -1.0),
            cutoff_deg: 10.0,
            exponent: 8.0,
        })
        .with_diffuse(Vec3::ONE)
        .with_specular(Vec3::ONE),
        Light::new(LightKind::Ambient).with_ambient(Vec3::splat(0.8)),
    ];
    let matte = Material {
        ambient: Vec3::new(0.6, 0.1, 0.1),
        diffuse: Vec3::new(0.85, 0.15, 0.1),
        ..Material::DEFAULT
    };
    let shiny = Material {
        ambient: Vec3::new(0.1, 0.15, 0.5),
        diffuse: Vec3::new(0.15, 0.3, 0.9),
        specular: Vec3::ONE,
        shininess: 40.0,
        ..Material::DEFAULT
    };
    for (row, light) in lights.iter().enumerate() {
        for col in 0..4 {
            let vp = Viewport {
                x: 96.0 * col as f32,
                y: 72.0 * row as f32,
                width: 96.0,
                height: 72.0,
                min_depth: 0.0,
                max_depth: 1.0,
            };
            let mut lighting = LightingState {
                material: if col < 2 { matte } else { shiny },
                global_ambient: Vec3::splat(0.05),
                ..LightingState::DEFAULT
            };
            lighting.lights[0] = Some(*light);
            let ff = FixedFunction {
                lighting: Some(lighting),
                per_pixel_lighting: col % 2 == 1,
                ..Default::default()
            };
            let st = PipelineState {
                viewport: vp,
                cull: CullMode::Back,
                depth: DepthState::LESS_WRITE,
                ..ctx.default_state()
            };
            let t = Transforms {
                clip_from_view: perspective(96.0, 72.0, 40.0),
                ..t
            };
            draw_mesh(ctx, &st, &ff, &t, &sphere);
        }
    }
}

/// A corridor (floor, ceiling, two walls, tiled with a warm checker) receding 30 units from
/// the camera, fogged per pixel on eye depth towards a blue-grey fog colour, which is also the
/// clear colour: the far end dissolves into the background. Linear (2..18) ends fully fogged
/// at 18; exp (0.15) and exp2 (0.11) fade progressively, exp2 keeping the near part clearer.
fn fog_corridor(ctx: &mut dyn DrawTarget, mode: FogMode) {
    let fog_color = rgba(0.55, 0.6, 0.7, 1.0);
    ctx.clear(fog_color, 1.0, 0);
    let texture = tex(32, 32, |x, y| {
        if ((x / 16) + (y / 16)) % 2 == 0 {
            [220, 170, 110, 255]
        } else {
            [120, 70, 40, 255]
        }
    });
    let fog = FogState {
        mode,
        color: fog_color,
        distance: FogDistance::EyeDepth,
        per_pixel: true,
    };
    let ff = FixedFunction {
        fog: Some(fog),
        units: vec![TextureUnit::new(texture, Sampler::TRILINEAR)],
        ..Default::default()
    };
    let view = Mat4::look_at_rh(
        Vec3::new(0.0, 0.0, 1.0),
        Vec3::new(0.0, 0.0, -10.0),
        Vec3::Y,
    );
    let proj = perspective(256.0, 192.0, 70.0);
    // Each panel: a 2 × 30 plane, UVs 0..1 × 0..15, placed by a model matrix.
    let mut panel = TriMesh::plane(1.0, 1);
    for (p, uv) in panel.positions.iter_mut().zip(&mut panel.uvs) {
        p.z = p.z * 15.0 - 14.0;
        *uv *= Vec2::new(1.0, 15.0);
    }
    let st = PipelineState {
        depth: DepthState::LESS_WRITE,
        ..ctx.default_state()
    };
    let placements = [
        Mat4::from_translation(Vec3::new(0.0, -1.0, 0.0)),
        Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0))
            * Mat4::from_rotation_z(core::f32::consts::PI),
        Mat4::from_translation(Vec3::new(-1.0, 0.0, 0.0))
            * Mat4::from_rotation_z(-core::f32::consts::FRAC_PI_2),
        Mat4::from_translation(Vec3::new(1.0, 0.0, 0.0))
            * Mat4::from_rotation_z(core::f32::consts::FRAC_PI_2),
    ];
    for m in placements {
        draw_mesh(
            ctx,
            &st,
            &ff,
            &Transforms {
                view_from_model: view * m,
                clip_from_view: proj,
            },
            &panel,
        );
    }
}

/// A stone-like base texture (unit 0, MODULATE) on two quads, with a second unit holding a
/// soft radial light map. Left: dark map — unit 1 MODULATE darkens everything outside a warm
/// pool of light. Right: light map — unit 1 ADD brightens the pool (base texture still
/// visible everywhere).
fn light_dark_map(ctx: &mut dyn DrawTarget) {
    ctx.clear(rgba(0.0, 0.0, 0.0, 1.0), 1.0, 0);
    let base = tex(64, 64, |x, y| {
        let row = y / 8;
        let offset = if row % 2 == 0 { 0 } else { 8 };
        let mortar = y % 8 == 0 || (x + offset) % 16 == 0;
        let shade = ((x * 7 + y * 13) % 23) as u8;
        if mortar {
            [90, 90, 85, 255]
        } else {
            [150 + shade, 95 + shade, 70 + shade / 2, 255]
        }
    });
    let light = tex(64, 64, |x, y| {
        let (dx, dy) = (x as f32 - 31.5, y as f32 - 31.5);
        let d = (dx * dx + dy * dy).sqrt() / 32.0;
        let k = (1.0 - d).clamp(0.0, 1.0);
        let k = k * k * (3.0 - 2.0 * k);
        [
            (40.0 + 215.0 * k) as u8,
            (35.0 + 190.0 * k) as u8,
            (30.0 + 140.0 * k) as u8,
            255,
        ]
    });
    let quad = TriMesh::plane(1.0, 1);
    let t = Transforms {
        // Clip space directly (w = 1), at depth 0.5 so no part grazes the near plane.
        view_from_model: Mat4::from_translation(Vec3::new(0.0, 0.0, 0.5))
            * Mat4::from_rotation_x(core::f32::consts::FRAC_PI_2)
            * Mat4::from_scale(Vec3::splat(0.95)),
        clip_from_view: Mat4::IDENTITY,
    };
    for (i, mode) in [ApplyMode::Modulate, ApplyMode::Add]
        .into_iter()
        .enumerate()
    {
        let vp = Viewport {
            x: 256.0 * i as f32,
            y: 0.0,
            width: 256.0,
            height: 256.0,
            min_depth: 0.0,
            max_depth: 1.0,
        };
        let st = PipelineState {
            viewport: vp,
            depth: DepthState::DISABLED,
            ..ctx.default_state()
        };
        let mut unit1 = TextureUnit::new(Arc::clone(&light), Sampler::BILINEAR);
        unit1.apply = mode;
        let mut repeat = TextureUnit::new(Arc::clone(&base), Sampler::TRILINEAR);
        repeat.matrix = Mat4::from_scale(Vec3::new(3.0, 3.0, 1.0));
        let ff = FixedFunction {
            units: vec![repeat, unit1],
            ..Default::default()
        };
        draw_mesh(ctx, &st, &ff, &t, &quad);
    }
}

/// Gloss map in two passes on a tilted plate lit by a point light. Pass 1: diffuse lighting ×
/// a teal base texture. Pass 2: specular-only lighting, MODULATE by a gloss texture whose
/// alpha is 1 in a diagonal stripe pattern and 0.1 elsewhere, blended SRC_ALPHA/ONE with depth
/// LEQUAL read-only: the highlight is bright on the stripes and faint between them.
fn gloss_map(ctx: &mut dyn DrawTarget) {
    ctx.clear(rgba(0.05, 0.05, 0.07, 1.0), 1.0, 0);
    let plate = TriMesh::plane(1.0, 24);
    let t = Transforms {
        view_from_model: Mat4::from_translation(Vec3::new(0.0, -0.3, -2.6))
            * Mat4::from_rotation_x(0.75),
        clip_from_view: perspective(1.0, 1.0, 50.0),
    };
    let light = Light::new(LightKind::Point {
        position: Vec3::new(0.0, 0.6, -2.0),
    })
    .with_diffuse(Vec3::splat(0.9))
    .with_specular(Vec3::ONE);
    let base = tex(16, 16, |x, y| {
        if (x + y) % 2 == 0 {
            [40, 170, 160, 255]
        } else {
            [30, 140, 135, 255]
        }
    });
    let gloss = tex(32, 32, |x, y| {
        [255, 255, 255, if ((x + y) / 4) % 2 == 0 { 255 } else { 26 }]
    });
    let mut lighting = LightingState {
        material: Material {
            diffuse: Vec3::ONE,
            ambient: Vec3::splat(0.3),
            specular: Vec3::ZERO,
            ..Material::DEFAULT
        },
        global_ambient: Vec3::splat(0.2),
        local_viewer: true,
        ..LightingState::DEFAULT
    };
    lighting.lights[0] = Some(light);
    let st = PipelineState {
        depth: DepthState::LESS_WRITE,
        ..ctx.default_state()
    };
    let pass1 = FixedFunction {
        lighting: Some(lighting),
        per_pixel_lighting: true,
        units: vec![TextureUnit::new(base, Sampler::TRILINEAR)],
        ..Default::default()
    };
    draw_mesh(ctx, &st, &pass1, &t, &plate);
    let spec_only = LightingState {
        material: Material {
            diffuse: Vec3::ZERO,
            ambient: Vec3::ZERO,
            specular: Vec3::ONE,
            shininess: 24.0,
            ..Material::DEFAULT
        },
        global_ambient: Vec3::ZERO,
        ..lighting
    };
    let pass2 = FixedFunction {
        lighting: Some(spec_only),
        per_pixel_lighting: true,
        units: vec![TextureUnit::new(gloss, Sampler::TRILINEAR)],
        ..Default::default()
    };
    let st2 = PipelineState {
        depth: DepthState::LEQUAL_READ,
        blend: BlendState::new(BlendFactor::SrcAlpha, BlendFactor::One, true),
        ..st
    };
    draw_mesh(ctx, &st2, &pass2, &t, &plate);
}

/// A torus with sphere-map texgen reflecting a procedural environment (blue sky with a
/// white sun at the upper left, brown ground below a bright horizon), REPLACE.
fn sphere_env(ctx: &mut dyn DrawTarget) {
    ctx.clear(rgba(0.2, 0.2, 0.25, 1.0), 1.0, 0);
    let env = tex(128, 128, |x, y| {
        let (u, v) = (x as f32 / 127.0 * 2.0 - 1.0, y as f32 / 127.0 * 2.0 - 1.0);
        let sun = (u + 0.4) * (u + 0.4) + (v - 0.45) * (v - 0.45) < 0.12 * 0.12;
        if sun {
            [255, 250, 225, 255]
        } else if v > -0.05 {
            let k = v.clamp(0.0, 1.0);
            [
                (200.0 - 150.0 * k) as u8,
                (215.0 - 110.0 * k) as u8,
                245,
                255,
            ]
        } else {
            let k = (-v).clamp(0.0, 1.0);
            [
                (120.0 - 60.0 * k) as u8,
                (90.0 - 50.0 * k) as u8,
                (60.0 - 30.0 * k) as u8,
                255,
            ]
        }
    });
    let torus = TriMesh::torus(0.9, 0.4, 64, 32);
    let t = Transforms {
        view_from_model: Mat4::from_translation(Vec3::new(0.0, 0.0, -4.2))
            * Mat4::from_rotation_x(1.0)
            * Mat4::from_rotation_z(0.4),
        clip_from_view: perspective(1.0, 1.0, 50.0),
    };
    let mut unit = TextureUnit::new(env, Sampler::TRILINEAR);
    unit.texgen = TexGen::SphereMap;
    unit.apply = ApplyMode::Replace;
    let ff = FixedFunction {
        units: vec![unit],
        ..Default::default()
    };
    let st = PipelineState {
        cull: CullMode::Back,
        depth: DepthState::LESS_WRITE,
        ..ctx.default_state()
    };
    draw_mesh(ctx, &st, &ff, &t, &torus);
}

/// A lit grey box on a floor with a slide (a colourful 4×4 grid with a white frame) projected
/// from a projector up and to the left, via eye-linear texgen with the projector's
/// `bias · clip_from_view · view_from_world · world_from_eye`, CLAMP_TO_BORDER with a white
/// border and MODULATE (outside the slide the surfaces keep their lit colour). The slide
/// bends across the box's top and front faces and continues onto the floor.
fn projected_box(ctx: &mut dyn DrawTarget) {
    ctx.clear(rgba(0.1, 0.1, 0.12, 1.0), 1.0, 0);
    let slide = tex(64, 64, |x, y| {
        if x < 3 || y < 3 || x > 60 || y > 60 {
            [255, 255, 255, 255]
        } else {
            let (i, j) = (x / 16, y / 16);
            [
                (60 + i * 60) as u8,
                (60 + j * 60) as u8,
                (240 - (i + j) * 25) as u8,
                255,
            ]
        }
    });
    let view = Mat4::look_at_rh(Vec3::new(2.5, 2.2, 3.5), Vec3::new(0.0, 0.3, 0.0), Vec3::Y);
    let proj = perspective(1.0, 1.0, 45.0);
    let projector = Mat4::from_translation(Vec3::splat(0.5))
        * Mat4::from_scale(Vec3::new(0.5, -0.5, 1.0))
        * Mat4::perspective_rh(40f32.to_radians(), 1.0, 0.5, 20.0)
        * Mat4::look_at_rh(Vec3::new(-2.0, 3.5, 2.0), Vec3::new(0.0, 0.3, 0.0), Vec3::Y);
    let eye_planes = projector * view.inverse();
    let planes = [
        eye_planes.row(0),
        eye_planes.row(1),
        eye_planes.row(2),
        eye_planes.row(3),
    ];
    let mut unit = TextureUnit::new(
        slide,
        Sampler::BILINEAR
            .with_wrap(Wrap::ClampToBorder)
            .with_border(Vec4::ONE),
    );
    unit.texgen = TexGen::EyeLinear { planes };
    let mut lighting = LightingState {
        material: Material {
            ambient: Vec3::splat(0.75),
            diffuse: Vec3::splat(0.75),
            ..Material::DEFAULT
        },
        global_ambient: Vec3::splat(0.3),
        ..LightingState::DEFAULT
    };
    lighting.lights[0] = Some(
        Light::new(LightKind::Directional {
            direction: view.transform_vector3(Vec3::new(-0.3, -1.0, -0.5)),
        })
        .with_diffuse(Vec3::splat(0.8)),
    );
    let ff = FixedFunction {
        lighting: Some(lighting),
        units: vec![unit],
        ..Default::default()
    };
    let st = PipelineState {
        cull: CullMode::Back,
        depth: DepthState::LESS_WRITE,
        ..ctx.default_state()
    };
    let cube = TriMesh::cube();
    let world_from_box =
        Mat4::from_translation(Vec3::new(0.0, 0.5, 0.0)) * Mat4::from_scale(Vec3::splat(0.5));
    draw_mesh(
        ctx,
        &st,
        &ff,
        &Transforms {
            view_from_model: view * world_from_box,
            clip_from_view: proj,
        },
        &cube,
    );
    let floor = TriMesh::plane(3.0, 8);
    draw_mesh(
        ctx,
        &st,
        &ff,
        &Transforms {
            view_from_model: view,
            clip_from_view: proj,
        },
        &floor,
    );
}
