//! Draw traces: the input is `json <0xFF 0xFE> buffer`; parse and replay into a render target
//! of the trace's size.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plumb_raster::trace::Trace;

fuzz_target!(|data: &[u8]| {
    let (json, buffer) = plumb_fuzz::split(data, b"\xFF\xFE");
    let Ok(json) = std::str::from_utf8(json) else {
        return;
    };
    let Ok(trace) = Trace::from_parts("fuzz.trace.json", json, buffer.to_vec()) else {
        return;
    };
    let (w, h) = trace.size();
    let Ok(mut ctx) =
        plumb_raster::Context::new(w, h, plumb_raster::ContextOptions { threads: Some(1) })
    else {
        return;
    };
    let _ = trace.replay(&mut ctx);
});
