//! Renderers: each turns a finished result into bytes for one audience (terminal text, JSON,
//! CSV, SVG, HTML). Renderers never measure and never read the machine.

pub mod bandwidth_text;
