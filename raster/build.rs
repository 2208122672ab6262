//! Feature `host-simd` (test builds only): compile only the SIMD levels the building machine
//! can run. A test binary runs where it is built, so a level this CPU lacks is code no test
//! can reach, and AVX-512's copy of every kernel is a quarter of this crate's build (168 s →
//! 126 s of CPU for the `ci` test build's plumb-raster, measured for issue 35). Sets
//! `plumb_no_avx512` / `plumb_no_avx2` for a level the host lacks. Without the feature, or
//! when cross-compiling, nothing is left out: release builds carry every level.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(plumb_no_avx512)");
    println!("cargo::rustc-check-cfg=cfg(plumb_no_avx2)");
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_HOST_SIMD").is_none()
        || std::env::var_os("HOST") != std::env::var_os("TARGET")
    {
        return;
    }
    // The checks are weaker than `fearless_simd`'s detection (which wants a whole family of
    // features per level), so a level is left out only where that detection cannot pick it.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        if !std::arch::is_x86_feature_detected!("avx512f") {
            println!("cargo::rustc-cfg=plumb_no_avx512");
        }
        if !std::arch::is_x86_feature_detected!("avx2") {
            println!("cargo::rustc-cfg=plumb_no_avx2");
        }
    }
}
