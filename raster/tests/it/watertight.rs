//! Watertightness (issue 2, must-show 2): random fans and grids of triangles that share
//! edges, with vertices on pixel centres and at random sub-pixel positions, drawn with
//! additive blending of 1/255. Expected coverage is computed here independently, with exact
//! integer geometry on the 1/256-pixel lattice:
//! - every pixel is hit at most once;
//! - a pixel whose centre is inside the union and not on its outer boundary (including
//!   centres exactly on shared internal edges and on internal vertices) is hit exactly once;
//! - a pixel whose centre is outside every triangle is not hit;
//! - rotating each triangle's vertex order, or reversing its winding, changes no byte.
//!
//! Default: 5 000 fans and 5 000 grids (two tests, seeded, reproducible). More with
//! `PLUMB_WATERTIGHT_CASES=N` (per test).

use glam::Vec4;
use plumb_raster::{
    BlendState, Context, ContextOptions, DepthState, Indices, PipelineState, Topology, VertexInput,
};
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};

const W: i64 = 96;
const H: i64 = 80;

/// A point on the 1/256 lattice (fixed-point window coordinates).
type P = (i64, i64);

use plumb_raster::rng::XorShift64 as Rng;

/// In `lo..hi`.
fn range(r: &mut Rng, lo: i64, hi: i64) -> i64 {
    lo + r.below((hi - lo) as u64) as i64
}

/// A coordinate in pixels·256: half the time exactly on a pixel centre.
fn coord(r: &mut Rng, lo_px: i64, hi_px: i64) -> i64 {
    if r.next_u64().is_multiple_of(2) {
        range(r, lo_px, hi_px) * 256 + 128
    } else {
        range(r, lo_px * 256, hi_px * 256)
    }
}

fn orient(a: P, b: P, p: P) -> i64 {
    (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0)
}

/// A fan around a centre (open or closed) with spoke angles increasing by less than 180°.
fn fan(r: &mut Rng) -> Vec<[P; 3]> {
    let c = (coord(r, 20, W - 20), coord(r, 20, H - 20));
    let k = range(r, 3, 13) as usize;
    let closed = r.next_u64().is_multiple_of(2);
    let span = if closed {
        360.0
    } else {
        range(r, 60, 300) as f64
    };
    let mut cuts: Vec<f64> = (0..k)
        .map(|_| range(r, 0, 10_000) as f64 / 10_000.0 * span)
        .collect();
    cuts.sort_by(f64::total_cmp);
    let start = range(r, 0, 360) as f64;
    let mut spokes = Vec::new();
    for a in cuts {
        let rad = (start + a).to_radians();
        let len = range(r, 3 * 256, 19 * 256) as f64;
        let mut jitter = |v: f64| {
            if r.next_u64().is_multiple_of(2) {
                ((v / 256.0).floor() * 256.0 + 128.0) as i64
            } else {
                v as i64
            }
        };
        let x = jitter(c.0 as f64 + len * plumb_raster::math::cos_f64(rad));
        let y = jitter(c.1 as f64 + len * plumb_raster::math::sin_f64(rad));
        spokes.push((x, y));
    }
    // Snapping spokes to pixel centres can reorder nearly equal angles: sort them exactly
    // by angle around the centre and drop duplicates, so consecutive wedges never overlap.
    let half = |v: P| {
        if v.1 > 0 || (v.1 == 0 && v.0 > 0) {
            0
        } else {
            1
        }
    };
    spokes.retain(|p| *p != c);
    spokes.sort_by(|a, b| {
        let (va, vb) = ((a.0 - c.0, a.1 - c.1), (b.0 - c.0, b.1 - c.1));
        half(va)
            .cmp(&half(vb))
            .then_with(|| 0.cmp(&orient(c, *a, *b)))
    });
    spokes.dedup_by(|a, b| {
        orient(c, *a, *b) == 0
            && (a.0 - c.0).signum() == (b.0 - c.0).signum()
            && (a.1 - c.1).signum() == (b.1 - c.1).signum()
    });
    let mut tris = Vec::new();
    let n = spokes.len();
    if n < 2 {
        return tris;
    }
    let count = if closed { n } else { n - 1 };
    for i in 0..count {
        let (a, b) = (spokes[i], spokes[(i + 1) % n]);
        // Keep only proper (non-degenerate, < 180°) wedges so the fan never overlaps itself.
        if orient(c, a, b) > 0 {
            tris.push([c, a, b]);
        }
    }
    tris
}

/// An `nx × ny` grid over a rectangle, interior vertices jittered by < 0.3 cell, each cell
/// split along a random diagonal.
fn grid(r: &mut Rng) -> Vec<[P; 3]> {
    let nx = range(r, 1, 8) as usize;
    let ny = range(r, 1, 8) as usize;
    let x0 = coord(r, 1, 30);
    let y0 = coord(r, 1, 30);
    let cw = range(r, 3 * 256, 9 * 256);
    let ch = range(r, 3 * 256, 9 * 256);
    let on_centre = r.next_u64().is_multiple_of(3);
    let mut v = vec![vec![(0, 0); nx + 1]; ny + 1];
    for (j, row) in v.iter_mut().enumerate() {
        for (i, p) in row.iter_mut().enumerate() {
            let mut x = x0 + i as i64 * cw;
            let mut y = y0 + j as i64 * ch;
            if on_centre {
                x = (x / 256) * 256 + 128;
                y = (y / 256) * 256 + 128;
            }
            if i > 0 && i < nx && j > 0 && j < ny {
                x += range(r, -cw * 3 / 10, cw * 3 / 10);
                y += range(r, -ch * 3 / 10, ch * 3 / 10);
            }
            *p = (x, y);
        }
    }
    let mut tris = Vec::new();
    for j in 0..ny {
        for i in 0..nx {
            let (a, b, c, d) = (v[j][i], v[j][i + 1], v[j + 1][i + 1], v[j + 1][i]);
            if r.next_u64().is_multiple_of(2) {
                tris.push([a, b, c]);
                tris.push([a, c, d]);
            } else {
                tris.push([a, b, d]);
                tris.push([b, c, d]);
            }
        }
    }
    // Large jitter can fold a cell (a vertex crossing its cell's diagonal), which would make
    // two triangles overlap: such grids are not valid input, so drop the jitter then.
    let signs: Vec<i64> = tris
        .iter()
        .map(|t| orient(t[0], t[1], t[2]).signum())
        .collect();
    if signs.iter().any(|&s| s != signs[0]) {
        return grid_without_jitter(nx, ny, x0, y0, cw, ch, on_centre);
    }
    tris.retain(|t| orient(t[0], t[1], t[2]) != 0);
    tris
}

fn grid_without_jitter(
    nx: usize,
    ny: usize,
    x0: i64,
    y0: i64,
    cw: i64,
    ch: i64,
    on_centre: bool,
) -> Vec<[P; 3]> {
    let at = |i: usize, j: usize| {
        let (x, y) = (x0 + i as i64 * cw, y0 + j as i64 * ch);
        if on_centre {
            ((x / 256) * 256 + 128, (y / 256) * 256 + 128)
        } else {
            (x, y)
        }
    };
    let mut tris = Vec::new();
    for j in 0..ny {
        for i in 0..nx {
            tris.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            tris.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    tris
}

fn render(ctx: &mut Context, tris: &[[P; 3]], rotate: usize, reverse: bool) -> Vec<u8> {
    ctx.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), 1.0, 0);
    let st = PipelineState {
        blend: BlendState::ADDITIVE,
        depth: DepthState::DISABLED,
        ..ctx.default_state()
    };
    let to_clip = |p: P| {
        // Exact: p/256 has 8 fractional bits; ·2/W − 1 with W a multiple of 16 stays exact.
        Vec4::new(
            (p.0 as f32 / 256.0) * 2.0 / W as f32 - 1.0,
            1.0 - (p.1 as f32 / 256.0) * 2.0 / H as f32,
            0.5,
            1.0,
        )
    };
    let mut pos = Vec::with_capacity(tris.len() * 3);
    for t in tris {
        let mut o = [t[rotate % 3], t[(rotate + 1) % 3], t[(rotate + 2) % 3]];
        if reverse {
            o.swap(1, 2);
        }
        pos.extend(o.map(to_clip));
    }
    let col = vec![Vec4::new(1.0 / 255.0, 0.0, 0.0, 0.0); pos.len()];
    ctx.draw(
        &st,
        &VertexInput::colored(&pos, &col),
        Indices::None,
        Topology::TriangleList,
    )
    .unwrap();
    ctx.color_image().pixels().map(|p| p.0[0]).collect()
}

fn check(ctx: &mut Context, tris: &[[P; 3]]) -> Result<(), TestCaseError> {
    let hits = render(ctx, tris, 0, false);
    // Orient every triangle counter-clockwise in the y-down lattice (positive orient).
    let tris: Vec<[P; 3]> = tris
        .iter()
        .map(|t| {
            if orient(t[0], t[1], t[2]) > 0 {
                *t
            } else {
                [t[0], t[2], t[1]]
            }
        })
        .collect();
    // Outer boundary = edges not shared (reversed) with another triangle.
    let mut edges: Vec<(P, P)> = tris
        .iter()
        .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
        .collect();
    edges.sort();
    let outer: Vec<(P, P)> = edges
        .iter()
        .filter(|(a, b)| edges.binary_search(&(*b, *a)).is_err())
        .copied()
        .collect();
    let (w, h) = (W as usize, H as usize);
    let mut in_closed = vec![false; w * h];
    for t in &tris {
        let minx = t.iter().map(|p| p.0).min().unwrap().div_euclid(256).max(0);
        let maxx = t
            .iter()
            .map(|p| p.0)
            .max()
            .unwrap()
            .div_euclid(256)
            .min(W - 1);
        let miny = t.iter().map(|p| p.1).min().unwrap().div_euclid(256).max(0);
        let maxy = t
            .iter()
            .map(|p| p.1)
            .max()
            .unwrap()
            .div_euclid(256)
            .min(H - 1);
        for y in miny..=maxy {
            for x in minx..=maxx {
                let p = (x * 256 + 128, y * 256 + 128);
                if (0..3).all(|k| orient(t[k], t[(k + 1) % 3], p) >= 0) {
                    in_closed[y as usize * w + x as usize] = true;
                }
            }
        }
    }
    let on_outer = |p: P| {
        outer.iter().any(|&(a, b)| {
            orient(a, b, p) == 0
                && p.0 >= a.0.min(b.0)
                && p.0 <= a.0.max(b.0)
                && p.1 >= a.1.min(b.1)
                && p.1 <= a.1.max(b.1)
        })
    };
    for y in 0..h {
        for x in 0..w {
            let n = hits[y * w + x];
            let p = (x as i64 * 256 + 128, y as i64 * 256 + 128);
            proptest::prop_assert!(n <= 1, "pixel ({x}, {y}) hit {n} times");
            if !in_closed[y * w + x] {
                proptest::prop_assert_eq!(
                    n,
                    0,
                    "pixel ({}, {}) outside every triangle was hit",
                    x,
                    y
                );
            } else if !on_outer(p) {
                proptest::prop_assert_eq!(n, 1, "interior pixel ({}, {}) hit {} times", x, y, n);
            }
        }
    }
    for rotate in 0..3 {
        for reverse in [false, true] {
            if rotate == 0 && !reverse {
                continue;
            }
            let other = render(ctx, &tris, rotate, reverse);
            proptest::prop_assert!(
                other == render(ctx, &tris, 0, false),
                "rotate {rotate} reverse {reverse} changed the image"
            );
        }
    }
    Ok(())
}

/// Runs `PLUMB_WATERTIGHT_CASES` (default 5 000) seeded cases of one generator. Fans and grids
/// are two tests so that they run in parallel.
fn watertight_cases(seed: u8, generate: fn(&mut Rng) -> Vec<[P; 3]>) {
    let cases: u32 = std::env::var("PLUMB_WATERTIGHT_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5_000);
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let ctx = std::cell::RefCell::new(
        Context::new(W as u32, H as u32, ContextOptions { threads: Some(2) }).unwrap(),
    );
    let total = std::cell::Cell::new(0usize);
    runner
        .run(&proptest::num::u64::ANY, |seed| {
            let tris = generate(&mut Rng::new(seed | 1));
            total.set(total.get() + tris.len());
            check(&mut ctx.borrow_mut(), &tris)
        })
        .unwrap();
    assert!(
        total.get() > cases as usize,
        "the generator produced almost no triangles"
    );
}

#[test]
fn fans_are_watertight() {
    watertight_cases(7, fan);
}

#[test]
fn grids_are_watertight() {
    watertight_cases(8, grid);
}
