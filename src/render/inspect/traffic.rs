//! Terminal lines for the NUMA counters recorded around a measurement (numastat deltas and
//! hardware node-event availability); shared by the c2c and loaded-latency renderers.

use std::io::{self, Write};

use crate::results::traffic::NumaTraffic;

pub fn render(t: &NumaTraffic, out: &mut dyn Write) -> io::Result<()> {
    match &t.numastat_note {
        Some(note) => writeln!(out, "numastat: {note}")?,
        None => {
            let parts: Vec<String> = t
                .numastat_delta
                .iter()
                .map(|d| {
                    format!(
                        "node {}: +{} hit, +{} miss, +{} local, +{} other",
                        d.node, d.numa_hit, d.numa_miss, d.local_node, d.other_node
                    )
                })
                .collect();
            writeln!(
                out,
                "numastat during the run (page allocations): {}",
                parts.join("; ")
            )?;
        }
    }
    writeln!(out, "hardware node events: {}", t.perf.detail)
}
