//! Renderers: each turns a finished result into bytes for one audience (terminal text, JSON,
//! CSV, SVG, HTML). Renderers never measure and never read the machine.

pub mod app;
pub mod bandwidth_text;
pub mod c2c_text;
pub mod csv;
#[cfg(test)]
pub(crate) mod fixture;
pub mod fleet;
pub mod format;
pub mod html;
pub mod inspect;
pub mod latency_text;
pub mod loaded_text;
pub mod peak_text;
pub mod placement_text;
pub mod run_files;
pub mod run_text;
pub mod run_view;
pub mod svg;
pub mod tables_standalone;
pub mod tables_text;
pub mod tables_view;
pub mod topo;
pub mod view_text;
pub mod words;
