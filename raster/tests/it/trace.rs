//! Draw traces: recording then playing back gives the same pixels as drawing directly (for
//! plain and fixed-function draws, with textures, indices of both widths and every optional
//! attribute), save → load is exact, and every class of bad trace is a typed error.

use std::path::PathBuf;
use std::sync::Arc;

use glam::{Mat4, Vec2, Vec3, Vec4};
use plumb_raster::fixed_function::{FixedFunction, MeshInput, TextureUnit, Transforms};
use plumb_raster::fog::{FogMode, FogState};
use plumb_raster::light::{Light, LightKind, LightingState};
use plumb_raster::texture::{Sampler, TexelFormat, Texture};
use plumb_raster::trace::{self, DrawTarget, Recorder, Trace};
use plumb_raster::{
    BlendState, Context, ContextOptions, CullMode, DepthState, Error, Indices, Rect, Topology,
    VertexInput,
};

/// A frame that uses a bit of everything: clear, a coloured draw with u16 indices and a uv
/// set, a blended strip without indices, a lit, fogged, textured fixed-function draw with
/// u32 indices whose texture is an RGB (not RGBA) image, and a rectangle clear.
fn frame(t: &mut dyn DrawTarget) {
    t.clear(Vec4::new(0.1, 0.2, 0.3, 1.0), 1.0, 7);
    let st = t.default_state();
    let pos = [
        Vec4::new(-0.9, -0.9, 0.5, 1.0),
        Vec4::new(0.9, -0.8, 0.5, 1.0),
        Vec4::new(0.0, 0.9, 0.2, 1.0),
    ];
    let col = [
        Vec4::X.with_w(1.0),
        Vec4::Y.with_w(1.0),
        Vec4::Z.with_w(1.0),
    ];
    let uv = [Vec2::ZERO, Vec2::X, Vec2::ONE];
    let uvs: [&[Vec2]; 1] = [&uv];
    let input = VertexInput {
        positions: &pos,
        colors: Some(&col),
        uvs: &uvs,
        fog: Some(&[0.0, 1.0, 2.0]),
    };
    let depth = plumb_raster::PipelineState {
        depth: DepthState::LESS_WRITE,
        ..st
    };
    t.draw(
        &depth,
        &input,
        Indices::U16(&[0, 1, 2]),
        Topology::TriangleList,
    )
    .unwrap();
    let strip = [
        Vec4::new(-1.0, 0.0, 0.1, 1.0),
        Vec4::new(-1.0, 0.5, 0.1, 1.0),
        Vec4::new(1.0, 0.0, 0.1, 1.0),
        Vec4::new(1.0, 0.5, 0.1, 1.0),
    ];
    let blend = plumb_raster::PipelineState {
        blend: BlendState::ALPHA,
        cull: CullMode::None,
        ..st
    };
    t.draw(
        &blend,
        &VertexInput::colored(&strip, &[Vec4::new(1.0, 1.0, 0.0, 0.5); 4]),
        Indices::None,
        Topology::TriangleStrip,
    )
    .unwrap();
    let rgb: Vec<u8> = (0..8 * 8)
        .flat_map(|i| [(i * 4) as u8, 255 - (i * 3) as u8, 90])
        .collect();
    let tex = Arc::new(
        Texture::from_format(TexelFormat::Rgb8, 8, 8, &rgb)
            .unwrap()
            .with_generated_mips(),
    );
    let mut lighting = LightingState::DEFAULT;
    lighting
        .push_light(
            Light::new(LightKind::Directional {
                direction: Vec3::new(-1.0, -1.0, -1.0),
            })
            .with_diffuse(Vec3::ONE),
        )
        .unwrap();
    let ff = FixedFunction {
        lighting: Some(lighting),
        per_pixel_lighting: true,
        fog: Some(FogState {
            mode: FogMode::Linear {
                start: 1.0,
                end: 6.0,
            },
            ..FogState::DEFAULT
        }),
        units: vec![TextureUnit::new(Arc::clone(&tex), Sampler::TRILINEAR)],
    };
    let quad = [
        Vec3::new(-1.0, -1.0, 0.0),
        Vec3::new(1.0, -1.0, 0.0),
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(-1.0, 1.0, 0.0),
    ];
    let quad_uv = [
        Vec2::ZERO,
        Vec2::new(3.0, 0.0),
        Vec2::splat(3.0),
        Vec2::new(0.0, 3.0),
    ];
    let quad_uvs: [&[Vec2]; 1] = [&quad_uv];
    let transforms = Transforms {
        view_from_model: Mat4::from_translation(Vec3::new(0.0, 0.0, -3.0))
            * Mat4::from_rotation_x(-0.8),
        clip_from_view: Mat4::perspective_rh(0.9, 4.0 / 3.0, 0.5, 20.0),
    };
    t.draw_fixed(
        &depth,
        &ff,
        &transforms,
        &MeshInput {
            positions: &quad,
            normals: Some(&[Vec3::Z; 4]),
            colors: None,
            uvs: &quad_uvs,
        },
        Indices::U32(&[0, 1, 2, 0, 2, 3]),
        Topology::TriangleList,
    )
    .unwrap();
    // A corner cleared after everything: colour and depth, stencil kept.
    t.clear_rect(CORNER, Some(MAGENTA), Some(0.25), None);
}

/// The rectangle [`frame`] clears last, and its colour.
const CORNER: Rect = Rect {
    x: 1,
    y: 2,
    width: 5,
    height: 3,
};
const MAGENTA: Vec4 = Vec4::new(1.0, 0.0, 1.0, 1.0);

fn context(w: u32, h: u32, threads: usize) -> Context {
    Context::new(
        w,
        h,
        ContextOptions {
            threads: Some(threads),
        },
    )
    .unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("plumb-trace-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn replay_equals_drawing_directly() {
    let mut direct = context(96, 72, 1);
    frame(&mut direct);
    let mut rec = Recorder::new(96, 72).unwrap();
    frame(&mut rec);
    let trace = rec.finish("f.bin");
    assert_eq!(trace.doc.commands.len(), 5);
    assert_eq!(
        trace.doc.commands[4],
        trace::CommandDoc::ClearRect {
            rect: CORNER,
            color: Some(MAGENTA),
            depth: Some(0.25),
            stencil: None
        }
    );
    assert_eq!(trace.doc.textures.len(), 1, "one texture, recorded once");
    assert_eq!(trace.doc.textures[0].format, TexelFormat::Rgb8);
    for threads in [1, 3] {
        let mut played = context(96, 72, threads);
        trace.replay(&mut played).unwrap();
        assert_eq!(
            played.color_image(),
            direct.color_image(),
            "{threads} threads"
        );
        assert_eq!(
            played.target().depth_values(),
            direct.target().depth_values()
        );
        // The rectangle clear took effect, exactly on its pixels.
        let img = played.color_image();
        let depth = played.target().depth_values();
        for (x, y) in [(1, 2), (5, 4), (0, 2), (6, 4), (1, 5)] {
            let inside = (1..6).contains(&x) && (2..5).contains(&y);
            assert_eq!(
                img.get_pixel(x, y).0 == [255, 0, 255, 255],
                inside,
                "({x}, {y})"
            );
            assert_eq!(
                depth[(y * 96 + x) as usize] == 0.25,
                inside,
                "depth ({x}, {y})"
            );
        }
    }
}

#[test]
fn save_and_load_are_exact() {
    let mut rec = Recorder::new(40, 30).unwrap();
    frame(&mut rec);
    let trace = rec.finish("s.bin");
    let dir = scratch("save");
    let path = dir.join("s.json");
    trace.save(&path).unwrap();
    assert!(trace::is_trace_file(&path));
    assert!(!trace::is_trace_file(&dir.join("s.bin")));
    // The quick check before parsing must not miss a format name spelled with JSON escapes,
    // nor take a file that only mentions the name elsewhere.
    let text = std::fs::read_to_string(&path).unwrap();
    let escaped = dir.join("escaped.json");
    let spelled = text.replacen("\"plumb-draws\"", "\"pl\\u0075mb-dr\\u0061ws\"", 1);
    assert_ne!(spelled, text);
    std::fs::write(&escaped, spelled).unwrap();
    assert!(trace::is_trace_file(&escaped));
    std::fs::write(&escaped, r#"{"format":"other","note":"plumb-draws"}"#).unwrap();
    assert!(!trace::is_trace_file(&escaped));
    let back = Trace::load(&path).unwrap();
    assert_eq!(back.doc, trace.doc);
    assert_eq!(back.buffer, trace.buffer);
    let (mut a, mut b) = (context(40, 30, 1), context(40, 30, 1));
    trace.replay(&mut a).unwrap();
    back.replay(&mut b).unwrap();
    assert_eq!(a.color_image(), b.color_image());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_traces_are_typed_errors() {
    let mut rec = Recorder::new(16, 16).unwrap();
    frame(&mut rec);
    let good = rec.finish("b.bin");
    let json = serde_json::to_string_pretty(&good.doc).unwrap();
    let load = |text: &str, buffer: Vec<u8>| Trace::from_parts("t.json", text, buffer);
    let msg = |r: Result<Trace, Error>| r.map(|_| ()).unwrap_err().to_string();

    // Truncated or garbage JSON: file, line and column.
    let e = msg(load(&json[..json.len() / 2], good.buffer.clone()));
    assert!(e.starts_with("trace: t.json:"), "{e}");
    let e = msg(load("{\n  \"format\": [", Vec::new()));
    assert!(e.contains("t.json:2:"), "{e}");
    // Unknown fields are refused.
    let e = msg(load(
        &json.replacen("\"size\"", "\"sise\": 1, \"size\"", 1),
        good.buffer.clone(),
    ));
    assert!(e.contains("unknown field `sise`"), "{e}");
    // Wrong format or version.
    let e = msg(load(
        &json.replace("plumb-draws", "plumb-scene"),
        good.buffer.clone(),
    ));
    assert!(e.contains("is not \"plumb-draws\" version 1"), "{e}");
    // A buffer too short for the views: found at load (textures) or at replay (vertices).
    let e = msg(load(&json, good.buffer[..good.buffer.len() - 4].to_vec()));
    assert!(e.contains("past the end of the"), "{e}");
    let mut short = good.clone();
    short.buffer.truncate(8);
    let e = short
        .replay(&mut context(16, 16, 1))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("positions: bytes 0..48 are past the end of the 8-byte buffer"),
        "{e}"
    );
    // A view whose size overflows.
    let mut huge = good.clone();
    if let trace::CommandDoc::Draw(d) = &mut huge.doc.commands[1] {
        d.positions.count = u64::MAX;
    }
    let e = huge
        .replay(&mut context(16, 16, 1))
        .unwrap_err()
        .to_string();
    assert!(e.contains("view too large"), "{e}");
    // A texture index past the table.
    let mut doc = good.doc.clone();
    if let trace::CommandDoc::DrawFixed(d) = &mut doc.commands[3] {
        d.fixed.units[0].texture = 5;
    }
    let e = msg(load(
        &serde_json::to_string(&doc).unwrap(),
        good.buffer.clone(),
    ));
    assert!(e.contains("texture 5 does not exist (1 textures)"), "{e}");
    // Zero and huge sizes.
    let mut doc = good.doc.clone();
    doc.size = [0, 16];
    let e = msg(load(
        &serde_json::to_string(&doc).unwrap(),
        good.buffer.clone(),
    ));
    assert!(e.contains("invalid size 0x16"), "{e}");
    // Out-of-range indices are caught by the draw's own validation.
    let mut bad_index = good.clone();
    let trace::CommandDoc::Draw(d) = &bad_index.doc.commands[1] else {
        panic!()
    };
    let trace::IndexView::U16(v) = d.indices.unwrap() else {
        panic!()
    };
    bad_index.buffer[v.offset as usize] = 200;
    let e = bad_index
        .replay(&mut context(16, 16, 1))
        .unwrap_err()
        .to_string();
    assert!(e.contains("index 200"), "{e}");
    // Playback errors name the file and the command.
    assert!(e.starts_with("trace: command 1 (draw): "), "{e}");
    let e = load(&json, bad_index.buffer.clone())
        .unwrap()
        .replay(&mut context(16, 16, 1))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "trace: t.json: command 1 (draw): index 200 at position 0 is out of range for 3 vertices"
    );
    assert!(
        matches!(
            e,
            Error::TraceCommand {
                index: 1,
                kind: "draw",
                ..
            }
        ),
        "{e}"
    );
    // A missing buffer file, a path in the buffer name.
    let dir = scratch("bad");
    let path = dir.join("b.json");
    std::fs::write(&path, &json).unwrap();
    let e = Trace::load(&path).unwrap_err().to_string();
    assert!(e.contains("b.bin"), "{e}");
    std::fs::write(&path, json.replace("\"b.bin\"", "\"../b.bin\"")).unwrap();
    let e = Trace::load(&path).unwrap_err().to_string();
    assert!(e.contains("must be a file name beside the JSON"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Textures are views into the buffer and may overlap: 600 textures naming one 16 MiB view
/// would decode to 9.6 GB (an allocator abort before, issue 29). The total is checked
/// before any texture is decoded; at the limit the trace still loads.
#[test]
fn textures_aliasing_one_view_are_held_to_the_total() {
    let mut rec = Recorder::new(16, 16).unwrap();
    frame(&mut rec);
    let good = rec.finish("b.bin");
    let side = 2048u32;
    let texels = u64::from(side) * u64::from(side);
    let mut buffer = good.buffer.clone();
    let offset = buffer.len() as u64;
    buffer.resize(buffer.len() + (texels * 4) as usize, 7);
    let aliased = |n: usize| {
        let mut doc = good.doc.clone();
        let mut t = doc.textures[0].clone();
        t.levels = vec![trace::LevelDoc {
            width: side,
            height: side,
            texels: trace::View {
                offset,
                count: texels,
            },
        }];
        doc.textures = vec![t; n];
        serde_json::to_string(&doc).unwrap()
    };
    let over = trace::MAX_TEXTURE_BYTES / (texels * 4) + 1;
    let e = Trace::from_parts("t.json", &aliased(600), buffer.clone())
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("t.json: the 600 textures hold more than the limit of 1073741824 bytes"),
        "{e}"
    );
    assert!(Trace::from_parts("t.json", &aliased(over as usize), buffer.clone()).is_err());
    // Two aliases (32 MiB) load and replay.
    let two = Trace::from_parts("t.json", &aliased(2), buffer).expect("within the total");
    two.replay(&mut context(16, 16, 1)).unwrap();
}

#[test]
fn recorder_validates_like_a_context() {
    let mut rec = Recorder::new(8, 8).unwrap();
    let pos = [Vec4::ZERO; 3];
    let e = rec
        .draw(
            &rec.default_state(),
            &VertexInput::positions(&pos),
            Indices::U16(&[0, 1, 3]),
            Topology::TriangleList,
        )
        .unwrap_err();
    assert!(matches!(e, Error::IndexOutOfRange { index: 3, .. }), "{e}");
    assert!(matches!(
        Recorder::new(0, 8),
        Err(Error::InvalidSize { .. })
    ));
    // An unusable state is refused as by a context.
    let mut bad = rec.default_state();
    bad.viewport.width = f32::NAN;
    assert!(rec
        .draw(
            &bad,
            &VertexInput::positions(&pos),
            Indices::None,
            Topology::TriangleList
        )
        .is_err());
    // A non-finite number in a fixed-function state is legal to draw with but cannot be
    // written to JSON: saving says so instead of writing a file that would not load.
    let mut lighting = LightingState::DEFAULT;
    lighting.global_ambient = Vec3::splat(f32::INFINITY);
    let ff = FixedFunction {
        lighting: Some(lighting),
        ..FixedFunction::default()
    };
    let transforms = Transforms {
        view_from_model: Mat4::IDENTITY,
        clip_from_view: Mat4::IDENTITY,
    };
    let p3 = [Vec3::ZERO; 3];
    rec.draw_fixed(
        &rec.default_state(),
        &ff,
        &transforms,
        &MeshInput {
            positions: &p3,
            ..MeshInput::default()
        },
        Indices::None,
        Topology::TriangleList,
    )
    .unwrap();
    let e = rec.finish("n.bin").to_json().unwrap_err().to_string();
    assert!(e.contains("non-finite number"), "{e}");
}

/// Seeded mutations of a valid trace (bytes of the JSON and of the buffer flipped, cut or
/// duplicated): loading and playing back never panics; it either draws or returns an error.
#[test]
fn mutated_traces_never_panic() {
    let mut rec = Recorder::new(24, 18).unwrap();
    frame(&mut rec);
    let good = rec.finish("m.bin");
    let json = good.to_json().unwrap().into_bytes();
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let cases: u64 = std::env::var("PLUMB_TRACE_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let (mut drawn, mut refused) = (0, 0);
    for _ in 0..cases {
        let (mut j, mut b) = (json.clone(), good.buffer.clone());
        for _ in 0..1 + next() % 3 {
            let target = if next() % 2 == 0 { &mut j } else { &mut b };
            if target.is_empty() {
                continue;
            }
            let at = (next() % target.len() as u64) as usize;
            match next() % 3 {
                0 => target[at] = next() as u8,
                1 => target.truncate(at),
                _ => {
                    let byte = target[at];
                    target.insert(at, byte);
                }
            }
        }
        let text = String::from_utf8_lossy(&j);
        let result =
            Trace::from_parts("m.json", &text, b).and_then(|t| t.replay(&mut context(24, 18, 1)));
        match result {
            Ok(()) => drawn += 1,
            Err(_) => refused += 1,
        }
    }
    // Both outcomes happen, so the mutations reach past the parser.
    assert!(drawn > 0 && refused > 0, "drawn {drawn}, refused {refused}");
}
