//! Containment of panics inside third-party decoders ([`contain`]), and a way for a program's
//! panic hook to stay quiet about them ([`is_containing`]).
//!
//! plumb checks what it can before calling `gltf`, `png` and `image` (see the callers), but
//! those crates are not panic-free on malformed data, and fuzzing finds new cases faster than
//! they can be listed. So each call into them runs inside [`contain`], which turns a panic
//! into an error. The default panic hook would still print the panic's multi-line message
//! before it is caught; the `plumb` CLI installs a hook that prints nothing while
//! [`is_containing`] is true, so its error stays one line.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};

thread_local! {
    /// How many [`contain`] calls are running on this thread.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Runs `f`; a panic inside it becomes `Err(())` (the caller says what failed). While `f`
/// runs, [`is_containing`] is true on this thread.
///
/// # Errors
/// `Err(())` when `f` panicked.
#[expect(
    clippy::result_unit_err,
    reason = "the caller turns it into its own error"
)]
pub fn contain<T>(f: impl FnOnce() -> T) -> Result<T, ()> {
    DEPTH.with(|d| d.set(d.get() + 1));
    let result = catch_unwind(AssertUnwindSafe(f));
    DEPTH.with(|d| d.set(d.get() - 1));
    result.map_err(|_| ())
}

/// Whether a [`contain`] call is running on this thread: a panic hook can stay quiet, since
/// the panic will be caught and reported as an error.
pub fn is_containing() -> bool {
    DEPTH.with(|d| d.get() > 0)
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[(
        "a_panic_becomes_an_error_and_the_flag_follows_the_call",
        a_panic_becomes_an_error_and_the_flag_follows_the_call,
    )];

    use super::*;

    fn a_panic_becomes_an_error_and_the_flag_follows_the_call() {
        assert!(!is_containing());
        let inside = contain(is_containing);
        assert_eq!(inside, Ok(true));
        let quiet = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let caught = contain(|| -> u32 { panic!("decoder bug") });
        std::panic::set_hook(quiet);
        assert_eq!(caught, Err(()));
        assert!(!is_containing(), "the flag is cleared after a panic too");
        assert_eq!(contain(|| contain(|| 7)), Ok(Ok(7)));
    }
}
