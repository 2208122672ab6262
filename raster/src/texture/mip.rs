//! Mip chain generation: the exact-area box filter.
//!
//! Level `k+1` has size `(max(1, ⌊w/2⌋), max(1, ⌊h/2⌋))` of level `k` (floor halving), and the
//! chain ends at 1×1, so a `w×h` texture has `⌊log2(max(w, h))⌋ + 1` levels.
//!
//! **The filter.** Under the texel convention (texel `i` of an `n`-texel row covers
//! `[i, i+1)/n`) every destination texel covers an exact rectangle of the source level; its
//! value is the area-weighted mean of the source texels under that rectangle, per channel,
//! computed in integers and rounded half up once:
//!
//! ```text
//! out = ⌊(2·S + D) / (2·D)⌋,   S = Σ wx·wy·c,   D = Σ wx·wy
//! ```
//!
//! Per axis, with `n` source texels and `m` destination texels:
//! - `n` even (`m = n/2`): destination `i` takes source `2i` and `2i+1`, weights `(1, 1)`.
//!   For an even×even level this is the classic 2×2 box, `(a + b + c + d + 2) / 4`.
//! - `n` odd, `n > 1` (`m = ⌊n/2⌋`): each destination texel spans `n/m = 2 + 1/m` source
//!   texels. Measured in units of `1/m` source texel, destination `i` covers
//!   `[i·n, (i+1)·n)` and source `j` covers `[j·m, (j+1)·m)`; the weights are the integer
//!   overlaps (at most three source texels, summing to `n`). Example `n = 5 → m = 2`:
//!   destination 0 = `(2, 2, 1)/5` of sources 0, 1, 2; destination 1 = `(1, 2, 2)/5` of
//!   sources 2, 3, 4. For `n = 3 → 1`: `(1, 1, 1)/3`.
//! - `n = 1`: the axis is copied, weight `(1)`.
//!
//! Unlike dropping the last row/column (Mesa's choice for odd sizes), every source texel
//! contributes exactly its area, so a level's mean colour is preserved up to rounding.

use super::image::MipLevel;

/// The source taps of one destination texel along one axis.
#[derive(Clone, Copy, Debug)]
struct Taps {
    /// First source index.
    start: u32,
    /// Integer weights of sources `start`, `start+1`, `start+2` (unused entries are 0).
    w: [u32; 3],
}

/// The size of the level below one of side `n`: `max(1, ⌊n/2⌋)`.
#[inline]
pub(crate) const fn half(n: u32) -> u32 {
    if n > 1 {
        n / 2
    } else {
        1
    }
}

/// Per-destination taps for an axis of `n` source texels, and the per-axis weight sum.
fn axis_taps(n: u32) -> (Vec<Taps>, u32) {
    if n == 1 {
        return (
            vec![Taps {
                start: 0,
                w: [1, 0, 0],
            }],
            1,
        );
    }
    let m = n / 2;
    if n.is_multiple_of(2) {
        let taps = (0..m)
            .map(|i| Taps {
                start: 2 * i,
                w: [1, 1, 0],
            })
            .collect();
        return (taps, 2);
    }
    // Odd: work in units of 1/m source texel (all in u64 to be safe; n ≤ 16384).
    let (n64, m64) = (u64::from(n), u64::from(m));
    let taps = (0..m64)
        .map(|i| {
            let (lo, hi) = (i * n64, (i + 1) * n64);
            let start = lo / m64;
            let mut w = [0u32; 3];
            for (k, wk) in w.iter_mut().enumerate() {
                let j = start + k as u64;
                if j >= n64 {
                    break;
                }
                let (a, b) = ((j * m64).max(lo), ((j + 1) * m64).min(hi));
                if b > a {
                    // An overlap is at most m ≤ 8192.
                    *wk = (b - a) as u32;
                }
            }
            debug_assert_eq!(w.iter().map(|&x| u64::from(x)).sum::<u64>(), n64);
            Taps {
                start: start as u32,
                w,
            }
        })
        .collect();
    (taps, n)
}

/// Builds the next level of `src` with the documented filter.
pub(crate) fn downsample(src: &MipLevel) -> MipLevel {
    let (sw, sh) = (src.width(), src.height());
    let (dw, dh) = (half(sw), half(sh));
    let texels = src.to_texels();
    let sw_us = sw as usize;
    let mut out = Vec::with_capacity(dw as usize * dh as usize);

    if sw % 2 == 0 && sh % 2 == 0 {
        // The classic 2×2 box: (a + b + c + d + 2) / 4 per channel.
        for y in 0..dh as usize {
            let r0 = &texels[2 * y * sw_us..(2 * y + 1) * sw_us];
            let r1 = &texels[(2 * y + 1) * sw_us..(2 * y + 2) * sw_us];
            for x in 0..dw as usize {
                let (a, b, c, d) = (r0[2 * x], r0[2 * x + 1], r1[2 * x], r1[2 * x + 1]);
                let mut t = [0u8; 4];
                for ch in 0..4 {
                    let s = u16::from(a[ch])
                        + u16::from(b[ch])
                        + u16::from(c[ch])
                        + u16::from(d[ch])
                        + 2;
                    // s ≤ 1022, so s / 4 ≤ 255.
                    t[ch] = (s / 4) as u8;
                }
                out.push(t);
            }
        }
        return MipLevel::from_texels(dw, dh, out);
    }

    let (tx, sum_x) = axis_taps(sw);
    let (ty, sum_y) = axis_taps(sh);
    let d = u64::from(sum_x) * u64::from(sum_y);
    for y in &ty {
        for x in &tx {
            let mut s = [0u64; 4];
            for (ky, &wy) in y.w.iter().enumerate() {
                if wy == 0 {
                    continue;
                }
                let row = (y.start as usize + ky) * sw_us;
                for (kx, &wx) in x.w.iter().enumerate() {
                    if wx == 0 {
                        continue;
                    }
                    let w = u64::from(wx) * u64::from(wy);
                    let t = texels[row + x.start as usize + kx];
                    for ch in 0..4 {
                        s[ch] += w * u64::from(t[ch]);
                    }
                }
            }
            let mut t = [0u8; 4];
            for ch in 0..4 {
                // Round half up: ⌊S/D + 1/2⌋ = ⌊(2S + D) / 2D⌋ ≤ 255.
                t[ch] = ((2 * s[ch] + d) / (2 * d)) as u8;
            }
            out.push(t);
        }
    }
    MipLevel::from_texels(dw, dh, out)
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[(
        "taps_match_the_documented_weights",
        taps_match_the_documented_weights,
    )];

    use super::*;

    fn taps_match_the_documented_weights() {
        let (t, s) = axis_taps(5);
        assert_eq!(s, 5);
        assert_eq!((t[0].start, t[0].w), (0, [2, 2, 1]));
        assert_eq!((t[1].start, t[1].w), (2, [1, 2, 2]));
        let (t, s) = axis_taps(7);
        // m = 3; units of 1/3: dst i covers [7i, 7i+7); src j covers [3j, 3j+3).
        // dst0 [0,7): j0 3, j1 3, j2 [6,9)∩ → 1.  dst1 [7,14): j2 [6,9) → 2, j3 3, j4 [12,15) → 2.
        // dst2 [14,21): j4 → 1, j5 3, j6 3.
        assert_eq!(s, 7);
        assert_eq!((t[0].start, t[0].w), (0, [3, 3, 1]));
        assert_eq!((t[1].start, t[1].w), (2, [2, 3, 2]));
        assert_eq!((t[2].start, t[2].w), (4, [1, 3, 3]));
        let (t, s) = axis_taps(3);
        assert_eq!((s, t.len(), t[0].w), (3, 1, [1, 1, 1]));
    }
}
