//! The CSV contract of docs/csv.md as a check: parses the documented column lists and holds
//! a CSV file to them (header names and order, snake_case with a unit in every numeric name,
//! one type per column). Shared by tests/csv_tidy.rs (files written by `report --csv`) and the
//! library's own test of the sample run (src/render/csv.rs), so both read one contract.

use std::collections::BTreeMap;

/// A column's documented type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Number,
    Integer,
    Bool,
    Text,
}

/// File name -> documented (column, type) in order.
pub fn documented(doc: &str) -> BTreeMap<String, Vec<(String, Kind)>> {
    let mut files = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut same = Vec::new();
    for line in doc.lines() {
        if let Some(h) = line.strip_prefix("## `") {
            let name = h.trim_end_matches('`').to_string();
            files.insert(name.clone(), Vec::new());
            current = Some(name);
            continue;
        }
        let Some(name) = &current else { continue };
        // A file with another's columns says so: "the columns of `other.csv`".
        if let Some(other) = line.split("the columns of `").nth(1) {
            let other = other.split('`').next().unwrap_or_default();
            same.push((name.clone(), other.to_string()));
            continue;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 4 || !cells[1].starts_with('`') {
            continue;
        }
        let kind = match cells[2] {
            "number" => Kind::Number,
            "integer" => Kind::Integer,
            "bool" => Kind::Bool,
            "text" => Kind::Text,
            other => panic!("docs/csv.md: unknown type {other} for {}", cells[1]),
        };
        files
            .get_mut(name)
            .unwrap()
            .push((cells[1].trim_matches('`').to_string(), kind));
    }
    for (name, other) in same {
        let cols = files.get(&other).cloned().unwrap_or_default();
        files.insert(name, cols);
    }
    files
}

/// True for snake_case: lower-case ASCII letters, digits and single underscores.
pub fn snake_case(s: &str) -> bool {
    !s.is_empty()
        && s.starts_with(|c: char| c.is_ascii_lowercase())
        && !s.ends_with('_')
        && !s.contains("__")
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// True when a numeric column's name says its unit (docs/csv.md, "Headers").
pub fn names_unit(s: &str) -> bool {
    let segs: Vec<&str> = s.split('_').collect();
    let has = |w: &str| segs.contains(&w);
    has("bytes")
        || has("ns")
        || s.contains("mb_per_s")
        || has("cycles")
        || has("fraction")
        || has("ratio")
        || has("count")
        || has("distance")
        || matches!(segs.last(), Some(&"node") | Some(&"cpu"))
}

/// Checks one CSV file against its documented columns; returns every problem found.
pub fn check_file(name: &str, text: &str, doc: &[(String, Kind)]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut rdr = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = rdr
        .headers()
        .expect("a header row")
        .iter()
        .map(String::from)
        .collect();
    let want: Vec<&String> = doc.iter().map(|c| &c.0).collect();
    if header.iter().collect::<Vec<_>>() != want {
        problems.push(format!(
            "{name}: header {header:?} is not the documented {want:?}"
        ));
        return problems;
    }
    for (col, kind) in doc {
        if !snake_case(col) {
            problems.push(format!("{name}: column {col} is not snake_case"));
        }
        if matches!(kind, Kind::Number | Kind::Integer) && !names_unit(col) {
            problems.push(format!("{name}: numeric column {col} names no unit"));
        }
    }
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.expect("a well-formed CSV record");
        if rec.len() != doc.len() {
            problems.push(format!("{name}: row {} has {} cells", i + 1, rec.len()));
            continue;
        }
        for (v, (col, kind)) in rec.iter().zip(doc) {
            if v.is_empty() {
                continue;
            }
            let ok = match kind {
                Kind::Number => v.parse::<f64>().is_ok_and(f64::is_finite),
                Kind::Integer => v.parse::<u64>().is_ok(),
                Kind::Bool => v == "true" || v == "false",
                Kind::Text => true,
            };
            if !ok {
                problems.push(format!(
                    "{name}: row {} column {col} ({kind:?}) holds {v:?}",
                    i + 1
                ));
            }
        }
    }
    problems
}
