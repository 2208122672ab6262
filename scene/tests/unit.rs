//! plumb-scene's unit tests, one trial each, named `module::tests::name` as before.
//!
//! They live next to the code they test, in `#[cfg(feature = "internal-tests")]` modules of
//! the library (see `plumb_scene::internal_tests`), so the test build compiles the crate
//! once instead of a second time as a unit-test harness. A test missing from its module's
//! `TESTS` list is dead code, which the lints refuse.
//!
//! `cargo test -p plumb-scene --test unit -- lanes` runs the ones whose names match.

use libtest_mimic::{Arguments, Trial};

fn main() {
    let args = Arguments::from_args();
    let trials = plumb_scene::internal_tests()
        .into_iter()
        .map(|(name, test)| {
            Trial::test(name, move || {
                test();
                Ok(())
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
