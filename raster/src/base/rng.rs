//! plumb's one seeded generator for tests, benchmarks and generated inputs: Marsaglia's
//! xorshift64 (shifts 13, 7, 17). Pure integer arithmetic, so the same seed gives the same
//! sequence on every machine; it is fast and small, not statistically strong and not for
//! anything secret. (Particle systems in scene files use their own SplitMix64, whose stream is
//! part of the file format.)

/// A xorshift64 generator (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XorShift64(u64);

impl XorShift64 {
    /// A generator starting from `seed`; 0 (a fixed point of xorshift) is replaced by
    /// `0x9E37_79B9_7F4A_7C15`.
    pub const fn new(seed: u64) -> Self {
        XorShift64(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }

    /// The next 64 bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in `[0, 1)`: the top 24 bits.
    #[inline]
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `[lo, hi)`.
    #[inline]
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next_f32()
    }

    /// In `0..n` (by remainder; `n` must not be 0).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// One of `xs` (must not be empty).
    #[inline]
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module (see `internal_tests`).
    pub(crate) const TESTS: &[(&str, fn())] =
        &[("xorshift64_known_sequence", xorshift64_known_sequence)];

    use super::XorShift64;

    fn xorshift64_known_sequence() {
        // Marsaglia (2003), xorshift64 with (13, 7, 17) from seed 1: computed by hand from
        // the three shifts, first step 1 ^ 1<<13 = 0x2001, ^>>7 = 0x2041, ^<<17 = 0x40822041.
        let mut r = XorShift64::new(1);
        assert_eq!(r.next_u64(), 0x4082_2041);
        let mut z = XorShift64::new(0);
        assert_ne!(z.next_u64(), 0, "seed 0 must not stick at 0");
        let f = XorShift64::new(7).next_f32();
        assert!((0.0..1.0).contains(&f));
    }
}
