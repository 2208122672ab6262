//! The terrain yardstick's scene (`shared/bench/terrain.md`): the grids, the checker
//! texture and one frame's draws through any [`DrawTarget`]. Shared by plumb's
//! `examples/terrain.rs` and plumb-wgpu's `examples/terrain_wgpu.rs` (each includes this file
//! with `#[path]`), so the CPU and GPU timings draw exactly the same calls.

use std::sync::Arc;

use glam::{Mat4, Vec2, Vec3, Vec4};
use plumb_raster::fog::{FogDistance, FogMode, FogState};
use plumb_raster::light::{Light, LightKind, LightingState, Material};
use plumb_raster::texture::{Sampler, Texture};
use plumb_raster::{
    BlendState, CompareFunc, DepthState, DrawTarget, FixedFunction, Indices, MeshInput,
    PipelineState, TextureUnit, Topology, Transforms,
};

/// Target width.
pub const W: u32 = 1920;
/// Target height.
pub const H: u32 = 1080;
/// Clear and fog colour.
pub const FOG: Vec4 = Vec4::new(0.7, 0.75, 0.8, 1.0);

/// A grid's vertices and indices.
pub struct Grid {
    /// Positions.
    pub p: Vec<Vec3>,
    /// Normals.
    pub n: Vec<Vec3>,
    /// Texture coordinates.
    pub uv: Vec<Vec2>,
    /// Triangle indices.
    pub idx: Vec<u32>,
}

/// The probe's grid: vertex (i, j) at x = X0 + (X1 − X0)·i/nx, z = Z0 + (Z1 − Z0)·j/nz.
pub fn grid(nx: u32, nz: u32, terrain: bool, uv_scale: f32) -> Grid {
    use plumb_raster::math::{cos, sin};
    let (x0, x1, z0, z1) = (-42.0f32, 42.0f32, -30.0f32, 10.0f32);
    let mut g = Grid {
        p: Vec::new(),
        n: Vec::new(),
        uv: Vec::new(),
        idx: Vec::new(),
    };
    for j in 0..=nz {
        for i in 0..=nx {
            let x = x0 + (x1 - x0) * i as f32 / nx as f32;
            let z = z0 + (z1 - z0) * j as f32 / nz as f32;
            if terrain {
                let dhdx = 0.5 * 0.35 * cos(0.35 * x) * cos(0.45 * z);
                let dhdz = -0.5 * 0.45 * sin(0.35 * x) * sin(0.45 * z);
                g.p.push(Vec3::new(x, 0.5 * sin(0.35 * x) * cos(0.45 * z), z));
                g.n.push(Vec3::new(-dhdx, 1.0, -dhdz).normalize());
            } else {
                g.p.push(Vec3::new(x, 0.25, z));
                g.n.push(Vec3::Y);
            }
            g.uv.push(Vec2::new(x * uv_scale, z * uv_scale));
        }
    }
    for j in 0..nz {
        for i in 0..nx {
            let v00 = j * (nx + 1) + i;
            let (v10, v01) = (v00 + 1, v00 + nx + 1);
            g.idx.extend_from_slice(&[v00, v01, v10, v10, v01, v01 + 1]);
        }
    }
    g
}

/// The 256² checker with its mip chain.
pub fn checker() -> Texture {
    let mut px = Vec::with_capacity(256 * 256 * 4);
    for y in 0..256u32 {
        for x in 0..256u32 {
            let c: [u8; 4] = if x % 32 == 0 || y % 32 == 0 {
                [20, 20, 20, 255]
            } else if ((x / 32) + (y / 32)) % 2 == 0 {
                [230, 200, 60, 255]
            } else {
                [40, 90, 200, 128]
            };
            px.extend_from_slice(&c);
        }
    }
    Texture::from_rgba8(256, 256, px)
        .expect("256² is valid")
        .with_generated_mips()
}

/// The terrain, the overlay and the texture.
pub struct Scene {
    /// The terrain grid.
    pub terrain: Grid,
    /// The blended overlay.
    pub overlay: Grid,
    /// The checker.
    pub texture: Arc<Texture>,
}

/// One frame: clear, the terrain, the overlay, then [`DrawTarget::finish`].
pub fn draw<T: DrawTarget>(ctx: &mut T, s: &Scene) {
    ctx.clear(FOG, 1.0, 0);
    let view = Mat4::look_at_rh(Vec3::new(0.0, 10.0, 10.0), Vec3::ZERO, Vec3::Y);
    let proj = Mat4::perspective_rh(60f32.to_radians(), W as f32 / H as f32, 0.5, 100.0);
    let t = Transforms {
        view_from_model: view,
        clip_from_view: proj,
    };
    // Directional light travelling away from normalize(0.3, 1, 0.5), in eye space.
    let to_light = view.transform_vector3(Vec3::new(0.3, 1.0, 0.5).normalize());
    let light = Light::new(LightKind::Directional {
        direction: -to_light,
    })
    .with_diffuse(Vec3::ONE);
    let material = |d: Vec3, alpha: f32| Material {
        ambient: d,
        diffuse: d,
        specular: Vec3::ZERO,
        alpha,
        ..Material::DEFAULT
    };
    let mut lighting = LightingState {
        global_ambient: Vec3::splat(0.25),
        ..LightingState::DEFAULT
    };
    lighting.lights[0] = Some(light);
    let fog = FogState {
        mode: FogMode::Linear {
            start: 15.0,
            end: 45.0,
        },
        color: FOG,
        distance: FogDistance::EyeDepth,
        // GL (and Mesa) interpolate the fog coordinate and compute the clamped factor per
        // fragment; per-vertex factors differ on large triangles that straddle fog start/end.
        per_pixel: true,
    };
    let unit = TextureUnit::new(Arc::clone(&s.texture), Sampler::TRILINEAR);
    let mut ff = FixedFunction {
        lighting: Some(LightingState {
            material: material(Vec3::ONE, 1.0),
            ..lighting
        }),
        per_pixel_lighting: false,
        fog: Some(fog),
        units: vec![unit],
    };
    let opaque = PipelineState {
        depth: DepthState {
            func: CompareFunc::LessEqual,
            write: true,
        },
        ..ctx.default_state()
    };
    let uvs = [s.terrain.uv.as_slice()];
    let m = MeshInput {
        positions: &s.terrain.p,
        normals: Some(&s.terrain.n),
        colors: None,
        uvs: &uvs,
    };
    ctx.draw_fixed(
        &opaque,
        &ff,
        &t,
        &m,
        Indices::U32(&s.terrain.idx),
        Topology::TriangleList,
    )
    .expect("valid terrain");
    ff.lighting = Some(LightingState {
        material: material(Vec3::new(0.6, 0.8, 1.0), 0.45),
        ..lighting
    });
    let blended = PipelineState {
        blend: BlendState::ALPHA,
        depth: DepthState {
            func: CompareFunc::LessEqual,
            write: false,
        },
        ..opaque
    };
    let uvs = [s.overlay.uv.as_slice()];
    let m = MeshInput {
        positions: &s.overlay.p,
        normals: Some(&s.overlay.n),
        colors: None,
        uvs: &uvs,
    };
    ctx.draw_fixed(
        &blended,
        &ff,
        &t,
        &m,
        Indices::U32(&s.overlay.idx),
        Topology::TriangleList,
    )
    .expect("valid overlay");
    ctx.finish().expect("frame finishes");
}
