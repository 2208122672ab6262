//! Issue 50, class 2: `plumb explain` has a fragment budget. A trace of one draw of 300,000
//! full-screen triangles aborted `explain --json` after 16 s at 8 GB (every fragment at the
//! pixel was recorded with its stages, then merged quadratically), and the text form wrote
//! 201 MB. Each draw is now charged, before it is drawn, the most fragments it can leave at
//! the pixel; past `--max-fragments` the rest is drawn unrecorded (so the final colour is
//! still the rendered one) and the history says what it left out.

use glam::Vec4;
use plumb::explain::{explain, explain_within, to_json_within, write_json_within, Input, Skipped};
use plumb::raster::trace::{Recorder, Trace};
use plumb::raster::{DrawTarget, Indices, PipelineState, Topology, VertexInput};

use crate::cli_common::{assert_success, plumb, stdout, temp_dir};

/// A `size × size` trace: a clear, then `draws` draws of `triangles` full-screen triangles
/// each, in colours that change per triangle (each is blended over the last).
fn overdraw(size: u32, draws: usize, triangles: usize) -> Trace {
    let mut r = Recorder::new(size, size).unwrap();
    r.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), 1.0, 0);
    let mut positions = Vec::with_capacity(3 * triangles);
    let mut colors = Vec::with_capacity(3 * triangles);
    for i in 0..triangles {
        let c = Vec4::new((i % 7) as f32 / 7.0, (i % 5) as f32 / 5.0, 0.5, 1.0);
        for p in [[-1.0, -1.0], [3.0, -1.0], [-1.0, 3.0]] {
            positions.push(Vec4::new(p[0], p[1], 0.5, 1.0));
            colors.push(c);
        }
    }
    let state = PipelineState::new(size, size);
    for _ in 0..draws {
        let vertices = VertexInput {
            positions: &positions,
            colors: Some(&colors),
            uvs: &[],
            fog: None,
        };
        r.draw(&state, &vertices, Indices::None, Topology::TriangleList)
            .unwrap();
    }
    r.finish("trace.bin")
}

#[test]
fn over_budget_draws_are_drawn_but_not_recorded() {
    let t = overdraw(8, 3, 50);
    let full = explain(Input::Trace(&t), (8, 8), (3, 4), None).unwrap();
    assert_eq!(full.fragments().count(), 150);
    // 120 fits the first two draws (50 each), not the third.
    let (h, skipped) = explain_within(Input::Trace(&t), (8, 8), (3, 4), None, 120).unwrap();
    assert_eq!(h.fragments().count(), 100);
    assert_eq!((h.color, h.depth), (full.color, full.depth));
    assert_eq!(
        skipped,
        Some(Skipped {
            from_command: 3,
            draws: 1,
            clears: 0,
            primitives: 50,
            fragments_written: 50,
        })
    );
    let j = to_json_within(&h, skipped.as_ref(), 120);
    assert_eq!(j["skipped"]["fragments_written"], 50);
    assert_eq!(j["max_fragments"], 120);
    // The streamed JSON is the document's pretty form, byte for byte.
    let mut streamed = Vec::new();
    write_json_within(&mut streamed, &h, skipped.as_ref(), 120).unwrap();
    assert_eq!(
        String::from_utf8(streamed).unwrap(),
        serde_json::to_string_pretty(&j).unwrap()
    );
    // Within budget: the same history as without one.
    let (h, skipped) = explain_within(Input::Trace(&t), (8, 8), (3, 4), None, 150).unwrap();
    assert_eq!((skipped, h.fragments().count()), (None, 150));
}

#[test]
fn a_300000_triangle_draw_is_explained_in_bounded_memory() {
    // 300,000 full-screen triangles (10.8 MB of positions and colours): every one reaches
    // the pixel.
    let t = overdraw(64, 1, 300_000);
    let dir = temp_dir("explain-300k");
    let json = dir.join("big.json");
    t.save(&json).unwrap();
    let start = std::time::Instant::now();
    let out = plumb(&dir, &["explain", "big.json", "10", "20"]);
    assert_success(&out);
    let text = stdout(&out);
    assert!(text.len() < 1 << 20, "{} bytes of text", text.len());
    assert!(
        text.trim_end().ends_with(
            "not recorded from command #1 on (--max-fragments 16384): 1 draw(s) of 300000 \
             primitive(s) and 0 clear(s), drawn at the pixel: 300000 more fragment(s) written"
        ),
        "{}",
        &text[text.len().saturating_sub(400)..]
    );
    let out = plumb(
        &dir,
        &[
            "explain",
            "big.json",
            "10",
            "20",
            "--json",
            "--max-fragments",
            "1000",
        ],
    );
    assert_success(&out);
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["skipped"]["primitives"], 300_000);
    assert_eq!(j["fragments"].as_array().map(Vec::len), Some(0));
    assert!(start.elapsed() < std::time::Duration::from_secs(60));
}
