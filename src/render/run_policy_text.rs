//! The policy sections of the run's terminal summary (`render::run_text`): the scenario table
//! with merged configurations and each kind of application's verdict, and the
//! weighted-interleave advice with each check's interval.

use std::io::{self, Write};

use comfy_table::{presets::NOTHING, Table as Ct};

use super::run_text::absent;
use super::run_view as view;
use super::svg::bytes_short;
use crate::results::{Part, RunResults};

pub(super) fn scenarios(r: &RunResults, out: &mut dyn Write) -> io::Result<()> {
    match &r.scenarios {
        None => absent(out, r, Part::Scenarios)?,
        Some(s) => {
            writeln!(
                out,
                "kernel {}, {} per thread, {} x {} ms",
                s.kernel,
                bytes_short(s.buffer_bytes_per_thread as f64),
                s.repetitions,
                s.duration_ms
            )?;
            let t = view::scenarios_table(r).with_interval_text("mb_per_s", "MB/s");
            let [what, mb_col, ns, numactl] = [
                "what_runs",
                "mb_per_s_median",
                "ns_per_load_median",
                "numactl",
            ]
            .map(|k| t.col(k));
            let mut ct = Ct::new();
            ct.load_preset(NOTHING);
            ct.set_header(vec!["", "what runs", "MB/s", "ns", "numactl"]);
            let mut notes = Vec::new();
            for (row, res) in t.rows.iter().zip(&s.scenarios) {
                // A scenario placed exactly as another is shown once, on that one's row.
                if res.same_as.is_some() {
                    continue;
                }
                let (letters, why) = view::merged_letters(s, res);
                if let Some(why) = why {
                    notes.push(format!("{letters}: {why}"));
                }
                let mb = match (&res.unavailable, &res.mb_per_s) {
                    (Some(u), _) => {
                        notes.push(format!("({}) not measured: {u}", res.letter));
                        "n/a".into()
                    }
                    (None, _) => row[mb_col].display(),
                };
                ct.add_row(vec![
                    letters,
                    row[what].display(),
                    mb,
                    row[ns].display(),
                    row[numactl].display(),
                ]);
            }
            writeln!(out, "{}", super::width::fit(&ct))?;
            for n in notes {
                writeln!(out, "{n}")?;
            }
            writeln!(out)?;
            for rec in &s.recommendations {
                writeln!(out, "* {}", rec.text)?;
                if rec.verdict == Some(crate::results::scenarios::Verdict::Winner) {
                    writeln!(out, "  ({})", view::comparison(rec))?;
                }
            }
        }
    }
    Ok(())
}

pub(super) fn advisor(r: &RunResults, out: &mut dyn Write) -> io::Result<()> {
    match &r.advisor {
        None => absent(out, r, Part::Advisor)?,
        Some(_) if r.topology.memory_nodes().len() <= 1 => writeln!(
            out,
            "one memory node: weighted interleave has nothing to spread pages over on this machine"
        )?,
        Some(a) => {
            writeln!(out, "{}", a.summary)?;
            for c in &a.checks {
                let v = match (&c.mb_per_s_summary, c.mb_per_s, &c.unavailable) {
                    (Some(m), Some(_), _) => format!("{} MB/s", view::fmt_interval(m)),
                    (_, Some(v), _) => format!("{} MB/s", view::fmt_num(v)),
                    (_, None, Some(u)) => format!("not measured: {u}"),
                    (_, None, None) => "not measured".into(),
                };
                write!(out, "{}", super::width::fit_pair(&c.policy, 22, &v))?;
            }
            if !a.apply.is_empty() {
                writeln!(out, "To apply:")?;
                for l in &a.apply {
                    writeln!(out, "  {l}")?;
                }
            }
        }
    }
    Ok(())
}
