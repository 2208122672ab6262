//! The instruction-set level the fragment stage runs at, chosen once per [`Context`].
//!
//! The fragment kernels are written once, generic over `fearless_simd`'s [`Simd`] token, and
//! compute exactly the scalar formula in every lane: plain IEEE `+ − × ÷` and `sqrt`, no
//! approximate reciprocals, no fused multiply-add, compare-and-select where NaN can reach a
//! min/max, float→int only after clamping, no cross-lane float reductions. So **every level
//! gives the same bytes** as the scalar fallback; the level only changes the speed. Tests
//! render every golden at every level the machine has.
//!
//! The level is detected at run time (the best the CPU has) unless forced by
//! [`Context::set_simd_level`] or, for a whole process, the environment variable
//! `PLUMB_SIMD=scalar|sse2|sse4.2|avx2|avx512` (read once; an unknown name or a level the CPU
//! lacks makes [`Context::new`] fail with [`Error::Simd`]).
//!
//! Dispatch happens once per batch of fragments (a row span or a small triangle's pixels),
//! never per pixel.
//!
//! Every build carries every level of its architecture, except a test build (feature
//! `host-simd`, turned on by the workspace's dev-dependencies) on a machine without AVX2 or
//! AVX-512: a level no test there can run is left out (see `build.rs`), and the level is
//! then reported as not compiled in.
//!
//! [`Context`]: crate::Context
//! [`Context::set_simd_level`]: crate::Context::set_simd_level
//! [`Context::new`]: crate::Context::new
//! [`Simd`]: fearless_simd::Simd

use std::fmt;
use std::sync::OnceLock;

use fearless_simd::Level;

use crate::base::error::Error;

/// An instruction-set level for the fragment kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SimdLevel {
    /// Portable scalar code (no target features beyond the build's baseline).
    Scalar,
    /// x86 SSE2 (the x86-64 baseline).
    Sse2,
    /// x86-64-v2: SSE4.2, popcnt.
    Sse42,
    /// x86-64-v3: AVX2, FMA (FMA is never used), BMI.
    Avx2,
    /// x86-64-v4 (Ice Lake-class AVX-512).
    Avx512,
    /// 64-bit ARM Neon.
    Neon,
}

impl SimdLevel {
    /// Every level, lowest first.
    pub const ALL: [SimdLevel; 6] = [
        SimdLevel::Scalar,
        SimdLevel::Sse2,
        SimdLevel::Sse42,
        SimdLevel::Avx2,
        SimdLevel::Avx512,
        SimdLevel::Neon,
    ];

    /// The name `PLUMB_SIMD` accepts.
    pub const fn name(self) -> &'static str {
        match self {
            SimdLevel::Scalar => "scalar",
            SimdLevel::Sse2 => "sse2",
            SimdLevel::Sse42 => "sse4.2",
            SimdLevel::Avx2 => "avx2",
            SimdLevel::Avx512 => "avx512",
            SimdLevel::Neon => "neon",
        }
    }

    /// Parses a `PLUMB_SIMD` name.
    ///
    /// # Errors
    /// [`Error::Simd`] naming the accepted values.
    pub fn parse(name: &str) -> Result<SimdLevel, Error> {
        SimdLevel::ALL
            .into_iter()
            .find(|l| l.name() == name.trim())
            .ok_or_else(|| {
                Error::Simd(format!(
                    "unknown SIMD level {name:?}: expected one of scalar, sse2, sse4.2, avx2, \
                     avx512, neon"
                ))
            })
    }

    /// The best level this CPU supports.
    pub fn detect() -> SimdLevel {
        *DETECTED.get_or_init(|| SimdLevel::from_level(Level::new()))
    }

    /// Every level this CPU can run, lowest first (always includes [`SimdLevel::Scalar`]).
    pub fn available() -> Vec<SimdLevel> {
        SimdLevel::ALL
            .into_iter()
            .filter(|l| l.to_level().is_some())
            .collect()
    }

    /// The process default: `PLUMB_SIMD` if set, else [`SimdLevel::detect`].
    ///
    /// # Errors
    /// An unknown `PLUMB_SIMD` name, or a level this CPU does not have.
    pub fn from_env() -> Result<SimdLevel, Error> {
        ENV.get_or_init(|| match std::env::var("PLUMB_SIMD") {
            Ok(v) if !v.trim().is_empty() => {
                let l = SimdLevel::parse(&v).map_err(|e| simd_message(&e))?;
                l.check().map_err(|e| simd_message(&e))?;
                Ok(l)
            }
            _ => Ok(SimdLevel::detect()),
        })
        .clone()
        .map_err(|m| Error::Simd(format!("PLUMB_SIMD: {m}")))
    }

    /// `Ok` if this CPU can run the level.
    ///
    /// # Errors
    /// [`Error::Simd`] naming the level and the best one available.
    pub fn check(self) -> Result<(), Error> {
        if !self.compiled() {
            return Err(Error::Simd(format!(
                "SIMD level {self} is not compiled into this build (a test build, feature \
                 host-simd, made on a machine without it; best: {})",
                SimdLevel::detect()
            )));
        }
        match self.to_level() {
            Some(_) => Ok(()),
            None => Err(Error::Simd(format!(
                "SIMD level {self} is not supported by this CPU (best: {})",
                SimdLevel::detect()
            ))),
        }
    }

    /// Whether this build carries the level's kernels: always, except a level a test build
    /// (feature `host-simd`) left out because the building machine lacks it.
    const fn compiled(self) -> bool {
        match self {
            SimdLevel::Avx512 => !cfg!(plumb_no_avx512),
            SimdLevel::Avx2 => !cfg!(plumb_no_avx2),
            _ => true,
        }
    }

    fn from_level(l: Level) -> SimdLevel {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        {
            if l.as_avx512().is_some() && SimdLevel::Avx512.compiled() {
                return SimdLevel::Avx512;
            }
            if l.as_avx2().is_some() && SimdLevel::Avx2.compiled() {
                return SimdLevel::Avx2;
            }
            if l.as_sse4_2().is_some() {
                return SimdLevel::Sse42;
            }
            if l.as_sse2().is_some() {
                return SimdLevel::Sse2;
            }
        }
        #[cfg(target_arch = "aarch64")]
        if l.as_neon().is_some() {
            return SimdLevel::Neon;
        }
        SimdLevel::Scalar
    }

    /// The `fearless_simd` level, if this CPU has it. Lower levels are derived from the
    /// detected one, so forcing a level never claims a feature the CPU lacks.
    pub(crate) fn to_level(self) -> Option<Level> {
        if !self.compiled() {
            return None;
        }
        let best = Level::new();
        match self {
            SimdLevel::Scalar => Some(Level::fallback()),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            SimdLevel::Sse2 => best.as_sse2().map(Level::Sse2),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            SimdLevel::Sse42 => best.as_sse4_2().map(Level::Sse4_2),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            SimdLevel::Avx2 => best.as_avx2().map(Level::Avx2),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            SimdLevel::Avx512 => best.as_avx512().map(Level::Avx512),
            #[cfg(target_arch = "aarch64")]
            SimdLevel::Neon => best.as_neon().map(Level::Neon),
            #[allow(unreachable_patterns, reason = "levels of other architectures")]
            _ => None,
        }
    }
}

/// `fearless_simd::dispatch!`, with the portable fallback's copy of the kernel compiled as a
/// function of its own ([`run_fallback`]) instead of inlined into the dispatching function.
///
/// Why (measured with `-Z llvm-time-trace` on plumb-raster's `ci` build): the fallback's
/// lanes are arrays of scalars, and inlined into the dispatcher they cost LLVM 10–40× the
/// time of any SIMD level's copy — the vertex stage's dispatcher alone took 40 s of the
/// crate's 159 s of optimisation.
///
/// `dispatch!(level, simd => op; portable => other)` runs `other` at the portable level
/// instead of `op`: a smaller kernel that gives the same bits (see `FragmentPath::run`).
macro_rules! dispatch {
    ($level:expr, $simd:ident => $op:expr) => {
        $crate::base::simd::dispatch!(@arms $level, $simd => $op; $op; Sse2)
    };
    ($level:expr, $simd:ident => $op:expr; portable => $portable:expr) => {
        $crate::base::simd::dispatch!(@arms $level, $simd => $op; $portable; Sse2)
    };
    (@arms $level:expr, $simd:ident => $op:expr; $portable:expr; $($sse2:ident)?) => {{
        #[allow(unused_imports, reason = "Simd is used by the SIMD arms only on x86 and Arm")]
        use fearless_simd::{Level, Simd};
        match $level {
            $(
                #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
                Level::$sse2(t) => t.vectorize(
                    #[inline(always)]
                    || {
                        let $simd = t;
                        $op
                    },
                ),
            )?
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Level::Sse4_2(t) => t.vectorize(
                #[inline(always)]
                || {
                    let $simd = t;
                    $op
                },
            ),
            #[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), not(plumb_no_avx2)))]
            Level::Avx2(t) => t.vectorize(
                #[inline(always)]
                || {
                    let $simd = t;
                    $op
                },
            ),
            #[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), not(plumb_no_avx512)))]
            Level::Avx512(t) => t.vectorize(
                #[inline(always)]
                || {
                    let $simd = t;
                    $op
                },
            ),
            #[cfg(target_arch = "aarch64")]
            Level::Neon(t) => t.vectorize(
                #[inline(always)]
                || {
                    let $simd = t;
                    $op
                },
            ),
            _ => $crate::base::simd::run_fallback(
                #[inline(always)]
                |$simd| $portable,
            ),
        }
    }};
}
pub(crate) use dispatch;

/// [`dispatch!`] for the fixed-function shader's stages (texture sampling above all): the
/// draw's level, except SSE2, where they run the fallback's code instead (the same bits:
/// every level computes the scalar formula). Measured with callgrind on the `fill` kernel
/// (trilinear + fog + depth, 1080p): 696.6 instructions per fragment at SSE2 against 600.8
/// with the fallback; SSE2 has no `blendv`, `pmulld`, `pminsd` or 8-wide registers, and
/// `fearless_simd` emulates them. The rest of the fragment path keeps SSE2 (Gouraud: 33.6
/// against 80.0). The match names no SSE2 arm, so no SSE2 copy of the shader is compiled.
macro_rules! dispatch_shader {
    ($level:expr, $simd:ident => $op:expr) => {
        $crate::base::simd::dispatch!(@arms $level, $simd => $op; $op;)
    };
}
pub(crate) use dispatch_shader;

/// Whether `simd` is the portable fallback: a constant once inlined, so a branch on it keeps
/// one side per level (the portable copy of a kernel can call where the SIMD copies inline).
#[inline(always)]
pub(crate) fn is_portable<S: fearless_simd::Simd>(simd: S) -> bool {
    matches!(simd.level(), Level::Fallback(_))
}

/// The fallback arm of [`dispatch!`]: `op` at the portable level, never inlined into the
/// dispatcher (the closure is inlined here, one copy per call site).
#[inline(never)]
pub(crate) fn run_fallback<R>(op: impl FnOnce(fearless_simd::Fallback) -> R) -> R {
    op(fearless_simd::Fallback::new())
}

/// The message of an [`Error::Simd`] (without the variant's prefix).
fn simd_message(e: &Error) -> String {
    match e {
        Error::Simd(m) => m.clone(),
        other => other.to_string(),
    }
}

impl fmt::Display for SimdLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

static DETECTED: OnceLock<SimdLevel> = OnceLock::new();
static ENV: OnceLock<Result<SimdLevel, String>> = OnceLock::new();

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        ("names_round_trip", names_round_trip),
        (
            "scalar_is_always_available_and_detect_is_runnable",
            scalar_is_always_available_and_detect_is_runnable,
        ),
        (
            "a_test_build_carries_every_level_this_cpu_has",
            a_test_build_carries_every_level_this_cpu_has,
        ),
    ];

    use super::*;

    fn names_round_trip() {
        for l in SimdLevel::ALL {
            assert_eq!(SimdLevel::parse(l.name()).unwrap(), l);
        }
        let e = SimdLevel::parse("avx3").unwrap_err().to_string();
        assert!(e.contains("avx3") && e.contains("sse4.2"), "{e}");
    }

    fn scalar_is_always_available_and_detect_is_runnable() {
        let a = SimdLevel::available();
        assert_eq!(a[0], SimdLevel::Scalar);
        assert!(a.contains(&SimdLevel::detect()));
        assert!(SimdLevel::detect().check().is_ok());
    }

    /// Feature `host-simd` (on in every test build) leaves out only levels the CPU lacks:
    /// whatever `fearless_simd` detects here is compiled in and runnable, and a level left
    /// out says so instead of blaming the CPU.
    fn a_test_build_carries_every_level_this_cpu_has() {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        {
            let cpu = Level::new();
            assert!(cpu.as_avx512().is_none() || SimdLevel::Avx512.compiled());
            assert!(cpu.as_avx2().is_none() || SimdLevel::Avx2.compiled());
        }
        for l in SimdLevel::ALL {
            if !l.compiled() {
                let e = l.check().unwrap_err().to_string();
                assert!(e.contains("not compiled into this build"), "{e}");
                assert!(!SimdLevel::available().contains(&l));
            }
        }
    }
}
