//! The one line a run prints for a launcher's log (`srun`, `mpirun`, `pdsh` gather one line
//! per host): host, verdict, the headline figures and where the files are, as `key=value`
//! fields separated by spaces so a script can split it. The full summary stays in
//! `summary.txt` of the output directory.

use std::io::{self, Write};
use std::path::Path;

use crate::render::run_view::{idle_dram_latency, peak_bandwidth};
use crate::results::RunResults;

/// `numascope: host=h verdict=quiet partial=false latency_ns=95.1 bandwidth_mb_s=20123 failed=0 output=DIR`.
pub fn render(out: &mut dyn Write, r: &RunResults, dir: &Path) -> io::Result<()> {
    let verdict = r.quality.as_ref().map_or("unjudged", |q| q.verdict.label());
    // A disturbed figure is said by the verdict field (noisy or unusable).
    let fig =
        |v: Option<(f64, String, bool)>| v.map_or("-".to_string(), |(x, _, _)| format!("{x:.1}"));
    writeln!(
        out,
        "numascope: host={} verdict={verdict} partial={} latency_ns={} bandwidth_mb_s={} failed={} output={}",
        r.host.replace(char::is_whitespace, "_"),
        r.partial,
        fig(idle_dram_latency(r)),
        fig(peak_bandwidth(r)),
        r.failed.len(),
        dir.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_with_every_field() {
        let r = crate::run::sample::results();
        let mut out = Vec::new();
        render(&mut out, &r, Path::new("res/h1")).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert_eq!(s.lines().count(), 1, "{s}");
        for k in [
            "host=",
            "verdict=",
            "partial=false",
            "latency_ns=",
            "bandwidth_mb_s=",
            "failed=0",
            "output=res/h1",
        ] {
            assert!(s.contains(k), "{k} missing: {s}");
        }
        // The sample run has bandwidth but no latency part: a missing figure is `-`.
        assert!(
            s.contains("latency_ns=- ") && !s.contains("bandwidth_mb_s=-"),
            "{s}"
        );
    }
}
