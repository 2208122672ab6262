//! `plumb conform --merge`: two shards' `results.json`, `a <0xFF 0xFE> b`, each written into
//! its own shard folder (with one small image, `img/x.png`, for records to name), merged into
//! a fresh report folder. Besides "no panic", each input checks what the merge promises
//! (issue 29, class 3): the shards' files are never written over, and when the merge succeeds
//! `junit.xml` holds only characters XML 1.0 allows and no link in `index.html` carries a
//! URL scheme.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plumb::conform::report;

/// XML 1.0's Char production.
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

fuzz_target!(|data: &[u8]| {
    let (a, b) = plumb_fuzz::split(data, b"\xFF\xFE");
    let dir = plumb_fuzz::scratch_dir().join("merge");
    let _ = std::fs::remove_dir_all(&dir);
    let shards = [dir.join("s1"), dir.join("s2")];
    for (shard, text) in shards.iter().zip([a, b]) {
        let img = shard.join("img");
        if std::fs::create_dir_all(&img).is_err()
            || std::fs::write(img.join("x.png"), b"\x89PNG\r\n\x1a\n").is_err()
            || std::fs::write(shard.join("results.json"), text).is_err()
        {
            return;
        }
    }
    let out = dir.join("out");
    let merged = report::merge(&shards, &out);
    for (shard, text) in shards.iter().zip([a, b]) {
        let now = std::fs::read(shard.join("results.json")).expect("a shard's results.json");
        assert_eq!(now, text, "the merge wrote over a shard's results.json");
        let png = std::fs::read(shard.join("img/x.png")).expect("a shard's image");
        assert_eq!(
            png, b"\x89PNG\r\n\x1a\n",
            "the merge wrote over a shard's image"
        );
    }
    if merged.is_ok() {
        let junit = std::fs::read_to_string(out.join("junit.xml")).expect("junit.xml");
        assert!(
            junit.chars().all(xml_char),
            "junit.xml holds a character XML forbids"
        );
        let html = std::fs::read_to_string(out.join("index.html")).expect("index.html");
        for link in html.split("href=\"").skip(1) {
            let target = link.split('"').next().unwrap_or("");
            assert!(!target.contains(':'), "a link with a scheme: {target}");
        }
    }
});
