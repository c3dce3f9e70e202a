//! Plain text columns for the terminal renderers (`topo`, `latency`, the run brief): rows laid
//! out under headers, each column padded to its widest cell, two spaces apart, no trailing
//! blanks. Shared, so every text table of numascope lines up the same way.

/// Lays out rows under headers with columns padded to the widest cell, two spaces apart.
pub fn columns(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut w: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            if i < w.len() {
                w[i] = w[i].max(c.chars().count());
            }
        }
    }
    let line = |cells: Vec<&str>| -> String {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                s.push_str(c);
            } else {
                s.push_str(&format!("{:<width$}  ", c, width = w[i]));
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(headers.to_vec());
    for r in rows {
        out.push_str(&line(r.iter().map(|s| s.as_str()).collect()));
    }
    out
}
