//! The XML reader on small documents written here; whole files are in tests/fixtures/hwloc-xml.

use super::parse::{bits, parse};

fn doc(text: &str) -> anyhow::Result<super::parse::Parsed> {
    let opt = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    parse(&roxmltree::Document::parse_with_options(text, opt)?)
}

#[test]
fn bitmaps_read_back() {
    assert_eq!(bits("0x00000003").unwrap(), vec![0, 1]);
    assert_eq!(bits("0x00000001,0x00000000").unwrap(), vec![32]);
    assert_eq!(bits("0x0").unwrap(), Vec::<u32>::new());
    assert_eq!(bits("0x1,,0x2").unwrap(), vec![1, 64]);
    assert!(bits("0xf...f").is_err());
    assert!(bits("zz").is_err());
    let huge = vec!["0x1"; 600].join(",");
    assert!(bits(&huge).unwrap_err().to_string().contains("too large"));
}

#[test]
fn refuses_what_is_not_a_topology() {
    assert!(doc("<html/>").unwrap_err().to_string().contains("<html>"));
    assert!(doc("<topology/>")
        .unwrap_err()
        .to_string()
        .contains("no PU"));
}

/// 50,000 nested Groups: walked with an explicit stack, no recursion to overflow.
#[test]
fn deep_nesting_is_walked_without_recursion() {
    let depth = 50_000;
    let mut s = String::from(r#"<topology version="2.0"><object type="Machine" cpuset="0x1">"#);
    for _ in 0..depth {
        s.push_str(r#"<object type="Group" cpuset="0x1">"#);
    }
    s.push_str(r#"<object type="PU" os_index="0" cpuset="0x1"/>"#);
    for _ in 0..depth {
        s.push_str("</object>");
    }
    s.push_str("</object></topology>");
    let p = doc(&s).unwrap();
    assert_eq!(p.pus.len(), 1);
}
