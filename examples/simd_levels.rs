//! Prints the SIMD levels this machine can run plumb's fragment kernels at, one per line,
//! lowest first — the names `PLUMB_SIMD` accepts (`.ci/run` runs the goldens at each).
//!
//! ```sh
//! cargo run --release --example simd_levels
//! ```

fn main() {
    for level in plumb::raster::SimdLevel::available() {
        println!("{level}");
    }
}
