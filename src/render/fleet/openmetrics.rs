//! `report --openmetrics FILE`: a run's headline figures (the figures `compare` sets side by
//! side) in the OpenMetrics text format, for node_exporter's textfile collector and so for
//! Prometheus. Every figure is three samples of one gauge family in base units
//! (`numascope_latency_seconds`, `numascope_bandwidth_bytes_per_second`), told apart by the
//! `bound` label: `median`, and `ci_low`/`ci_high`, the 95 % interval of the median, where the
//! run recorded one. Labels: `host`, `figure` (the key `compare` uses), `label` (the report's
//! wording). `numascope_figure_judgeable` says whether the figure can be judged on its own (not
//! disturbed, interval within +-10 %), and `numascope_run_info` carries the run's conditions.
//! The file ends with `# EOF`; the Prometheus text parser node_exporter uses reads `# UNIT`
//! and `# EOF` as comments, so one file serves both. Format: docs/report.md.

use std::fmt::Write as _;

use crate::results::compare::{Metric, RunMetrics};

/// The run-level facts written as `numascope_run_info` labels.
pub struct RunInfo<'a> {
    pub host: &'a str,
    pub kernel: &'a str,
    pub cpu_model: &'a str,
    pub verdict: &'a str,
    pub budget: &'a str,
    pub tool_version: &'a str,
    /// When the run started, as results.json records it.
    pub started_at: &'a str,
}

/// A label value with `\`, `"` and newlines escaped as the format asks.
fn esc(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// The gauge families: (metric unit, family, its unit, factor to base units, what it holds).
const FAMILIES: [(&str, &str, &str, f64, &str); 2] = [
    (
        "ns",
        "numascope_latency_seconds",
        "seconds",
        1e-9,
        "latency",
    ),
    (
        "MB/s",
        "numascope_bandwidth_bytes_per_second",
        "bytes_per_second",
        1e6,
        "bandwidth",
    ),
];

/// A sample value: finite numbers as Rust prints them (shortest round trip), else NaN/+Inf.
fn num(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else {
        format!("{v:e}")
    }
}

/// The OpenMetrics text of `m` (one run) with `info`; `judgeable` says per metric whether it
/// can be judged on its own.
pub fn render(m: &RunMetrics, info: &RunInfo, judgeable: &dyn Fn(&Metric) -> bool) -> String {
    let mut s = String::new();
    let host = esc(info.host);
    for (metric_unit, name, unit, factor, what) in FAMILIES {
        let mine: Vec<&Metric> = m.metrics.iter().filter(|x| x.unit == metric_unit).collect();
        if mine.is_empty() {
            continue;
        }
        let _ = writeln!(s, "# TYPE {name} gauge");
        let _ = writeln!(s, "# UNIT {name} {unit}");
        let _ = writeln!(
            s,
            "# HELP {name} numascope {what} figure: bound=median is the run's median, bound=ci_low and ci_high the 95 % interval of the median."
        );
        for x in mine {
            let labels = format!(
                "host=\"{host}\",figure=\"{}\",label=\"{}\"",
                esc(&x.key),
                esc(&x.label)
            );
            let e = x.estimate().scaled(factor);
            let _ = writeln!(s, "{name}{{{labels},bound=\"median\"}} {}", num(e.median));
            if let Some(ci) = e.interval {
                for (bound, v) in [("ci_low", ci.low), ("ci_high", ci.high)] {
                    let _ = writeln!(s, "{name}{{{labels},bound=\"{bound}\"}} {}", num(v));
                }
            }
        }
    }
    let j = "numascope_figure_judgeable";
    let _ = writeln!(s, "# TYPE {j} gauge");
    let _ = writeln!(
        s,
        "# HELP {j} 1 when the figure can be judged on its own (not disturbed, 95 % interval within +-10 % of its median), else 0."
    );
    for x in (m.metrics.iter()).filter(|x| FAMILIES.iter().any(|f| f.0 == x.unit)) {
        let _ = writeln!(
            s,
            "{j}{{host=\"{host}\",figure=\"{}\"}} {}",
            esc(&x.key),
            u8::from(judgeable(x))
        );
    }
    let i = "numascope_run_info";
    let _ = writeln!(s, "# TYPE {i} gauge");
    let _ = writeln!(
        s,
        "# HELP {i} The conditions of the numascope run the figures come from (value always 1)."
    );
    let _ = writeln!(
        s,
        "{i}{{host=\"{host}\",kernel=\"{}\",cpu_model=\"{}\",verdict=\"{}\",budget=\"{}\",version=\"{}\",started=\"{}\"}} 1",
        esc(info.kernel),
        esc(info.cpu_model),
        esc(info.verdict),
        esc(info.budget),
        esc(info.tool_version),
        esc(info.started_at)
    );
    s.push_str("# EOF\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::compare::Better;

    #[test]
    fn figures_in_base_units_with_their_interval_and_escaped_labels() {
        let mut lat = Metric::from_summary(
            "latency-matrix/0->0".into(),
            "idle \"latency\"".into(),
            "ns",
            Better::Lower,
            &crate::stats::Summary::of(&[100.0, 101.0, 99.0, 100.0, 100.5, 99.5, 100.2]).unwrap(),
        );
        lat.ci = Some(crate::stats::Interval::new(99.0, 101.0));
        let mut bw = lat.clone();
        bw.key = "bandwidth/read".into();
        bw.unit = "MB/s".into();
        bw.ci = None;
        let m = RunMetrics {
            name: "h".into(),
            metrics: vec![lat, bw],
            verdict: None,
            virtual_machine: false,
        };
        let info = RunInfo {
            host: "node\\1",
            kernel: "6.1",
            cpu_model: "x",
            verdict: "quiet",
            budget: "quick",
            tool_version: "0",
            started_at: "2026-01-01T00:00:00Z",
        };
        let s = render(&m, &info, &|x| x.unit == "ns");
        assert!(s.contains("numascope_latency_seconds{host=\"node\\\\1\",figure=\"latency-matrix/0->0\",label=\"idle \\\"latency\\\"\",bound=\"ci_low\"} 9.9e-8\n"), "{s}");
        assert!(s.contains("numascope_bandwidth_bytes_per_second{host=\"node\\\\1\",figure=\"bandwidth/read\",label=\"idle \\\"latency\\\"\",bound=\"median\"} 1e8\n"), "{s}");
        assert!(!s.contains("bandwidth/read\",label=\"idle \\\"latency\\\"\",bound=\"ci_low\""));
        assert!(s.contains(
            "numascope_figure_judgeable{host=\"node\\\\1\",figure=\"bandwidth/read\"} 0\n"
        ));
        assert!(s.ends_with("} 1\n# EOF\n"));
    }
}
