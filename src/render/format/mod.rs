//! How numbers and tables are laid out for people, the same in every view: [`estimate`]
//! writes a figure with its interval (compact, bracketed, a cell, a gain); [`width`] fits
//! text tables to the terminal (columns two spaces apart, stacked when too wide).

pub mod estimate;
pub mod width;
