//! Parsers for the small languages users and the kernel speak to us in: CPU and node lists
//! (`0-3,8`, `all`, `!0`, `+0-1`, LIKWID's `S0:0-3`), hexadecimal CPU masks, sizes (`256MiB`, `4k`) and durations (`200ms`). They are pure
//! functions with property tests, shared by the topology reader and the command line.

pub mod affinity;
pub mod cpulist;
pub mod duration;
pub mod selection;
pub mod size;
