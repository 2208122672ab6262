//! Radiance `.hdr` environment maps (`plumb render --environment FILE`): decoded through the
//! image crate's decoder with the size checked from the header, then prepared (spherical
//! harmonics, the prefiltered chain). Any input is a map or an error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = plumb::model::environment::decode_hdr(data);
});
