//! A verdict figure's name, as the verdict's evidence and the tests cite it
//! ("latency 1 GiB 4k random, CPU 0 node 0", "core to core 0-1").

use crate::results::format::format_bytes;
use crate::results::verdict::FigureName;

/// The figure in a few words.
pub fn name(f: &FigureName) -> String {
    match f {
        FigureName::Latency {
            working_set_bytes,
            page_size,
            mode,
            cpu,
            memory_node,
        } => format!(
            "latency {} {page_size} {}, CPU {cpu}{}",
            format_bytes(*working_set_bytes),
            mode.label(),
            memory_node
                .map(|n| format!(" node {n}"))
                .unwrap_or_default()
        ),
        FigureName::Bandwidth {
            part,
            kernel,
            threads,
        } => format!("{part} {kernel} {threads} threads"),
        FigureName::Peak {
            part,
            mix,
            threads,
            level,
            id,
        } => format!("{part} {}", super::labels::peak(mix, *threads, level, *id)),
        FigureName::LoadedPoint { index, cpu, mix } => format!(
            "loaded latency point {index}{}{}",
            cpu.map(|c| format!(", CPU {c}")).unwrap_or_default(),
            mix.as_ref().map(|m| format!(" ({m})")).unwrap_or_default()
        ),
        FigureName::CoreToCore { from, to } => format!("core to core {from}-{to}"),
        FigureName::Scenario { letter } => format!("scenario ({letter})"),
        FigureName::ScenarioLatency { letter } => format!("scenario ({letter}) latency"),
        FigureName::AdvisorCheck { policy } => format!("advisor check {policy}"),
    }
}
