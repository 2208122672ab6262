//! Issue 50, class 5: list inputs parse in linear time. A 28 MB JUnit timing file of 500,000
//! test cases (under the 64 MiB limit) ran past 150 s: the line of every testcase was
//! counted from the start of the file, and a tag without `>` was scanned to the end of the
//! file for every testcase after it.

use std::time::{Duration, Instant};

use crate::cli_common::temp_dir;

#[test]
fn a_500000_case_timing_file_reads_in_seconds() {
    let dir = temp_dir("timings-500k");
    let mut xml = String::from("<?xml version=\"1.0\"?>\n<testsuites>\n<testsuite name=\"kit\">\n");
    for i in 0..500_000 {
        xml.push_str(&format!(
            "  <testcase classname=\"area{}\" name=\"case{i}\" time=\"0.{i:06}\"/>\n",
            i % 7
        ));
    }
    xml.push_str("</testsuite>\n</testsuites>\n");
    assert!(
        xml.len() > 28 << 20 && xml.len() < 64 << 20,
        "{}",
        xml.len()
    );
    let p = dir.join("junit.xml");
    std::fs::write(&p, &xml).unwrap();
    let start = Instant::now();
    let t = plumb::conform::shard::read_timings(&p).unwrap();
    let took = start.elapsed();
    assert_eq!(t.len(), 500_000);
    assert_eq!(t.get("area3/case10"), Some(&0.00001));
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[test]
fn testcase_tags_without_an_end_stay_linear() {
    // 200,000 `<testcase` openings with no `>`: each tag ends at the next `<`, so the first
    // (which has no name) is an error found at once, with its line.
    let dir = temp_dir("timings-open-tags");
    let xml = format!(
        "<testsuite>\n{}",
        "<testcase classname=\"a\" ".repeat(200_000)
    );
    let p = dir.join("junit.xml");
    std::fs::write(&p, &xml).unwrap();
    let start = Instant::now();
    let e = plumb::conform::shard::read_timings(&p)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("line 2: a testcase without classname and name"),
        "{e}"
    );
    assert!(start.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_timing_file_that_is_not_junit_is_refused() {
    let dir = temp_dir("timings-json");
    let p = dir.join("t.json");
    std::fs::write(&p, "{\"cases\": []}").unwrap();
    let e = plumb::conform::shard::read_timings(&p)
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with("t.json: not JUnit XML: no <testsuite> or <testcase> element"),
        "{e}"
    );
}
