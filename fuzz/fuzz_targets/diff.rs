//! `plumb diff`: two PNG files, `a <0xFF 0xFE> b`, written to a scratch folder and compared
//! as the CLI compares them — streamed row by row (`PngRows`), with a heat-map sink.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plumb::diff::{compare_rows, heat_color, working_set_bytes, DiffOptions, PngRows, RowSource};

fuzz_target!(|data: &[u8]| {
    let (a, b) = plumb_fuzz::split(data, b"\xFF\xFE");
    let dir = plumb_fuzz::scratch_dir();
    let (pa, pb) = (dir.join("a.png"), dir.join("b.png"));
    if std::fs::write(&pa, a).is_err() || std::fs::write(&pb, b).is_err() {
        return;
    }
    // The CLI's default pixel limit would let a 16384² header through to a slow (not
    // unbounded) comparison; a fuzzer needs thousands of inputs a second, so images stay
    // small (64×64) and the filters narrow (8 pixels per degree instead of 67: the same code,
    // kernels of a few taps; at 67 and 256² the instrumented convolution ran 20 inputs/s).
    // The limits themselves are tested in tests/it/cli.rs, the default viewing condition by the
    // diff unit tests.
    let max_pixels = 1 << 12;
    let options = DiffOptions {
        pixels_per_degree: 8.0,
        ..DiffOptions::default()
    };
    let (Ok(mut ra), Ok(mut rb)) = (
        PngRows::open(&pa, max_pixels),
        PngRows::open(&pb, max_pixels),
    ) else {
        return;
    };
    let _ = working_set_bytes(ra.size().0, options.pixels_per_degree);
    let mut sink = 0u32;
    let _ = compare_rows(&mut ra, &mut rb, &options, &mut |_, row| {
        for &e in row {
            sink = sink.wrapping_add(u32::from(heat_color(e).0[0]));
        }
        Ok(())
    });
});
