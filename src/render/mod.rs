//! Renderers: each turns a finished result into bytes for one audience (terminal text, JSON,
//! CSV, SVG, HTML). Renderers never measure and never read the machine.

pub mod app_text;
pub mod app_tiering;
pub mod bandwidth_text;
pub mod c2c_text;
pub mod compare_text;
pub mod csv;
#[cfg(test)]
pub(crate) mod fixture;
pub mod fleet_text;
pub mod format;
pub mod html;
pub mod hwloc;
pub mod hwloc_tree;
pub mod inspect_text;
pub mod latency_text;
pub mod loaded_text;
pub mod memory_limit;
pub mod openmetrics;
pub mod page_mover;
pub mod peak_text;
pub mod placement_text;
pub mod run_files;
pub mod run_text;
pub mod run_view;
pub mod svg;
pub mod tables_standalone;
pub mod tables_text;
pub mod tables_view;
pub mod tiering_text;
pub mod topo_graph;
pub mod topo_text;
pub mod traffic_text;
pub mod view_text;
pub mod words;

// The formatters and the verdict's wording, at the paths every renderer calls them by.
pub use format::{estimate, width};
pub use words::verdict;
