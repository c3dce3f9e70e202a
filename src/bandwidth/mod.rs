//! Bandwidth: kernels described as data (`descriptor`), implemented per ISA and chosen at run
//! time (`kernels`, `isa`), run by a synchronized, time-bounded multi-thread harness over
//! placed buffers, and composed into node x node matrices and thread-scaling curves.
//! Nothing here prints; the renderers in `render::bandwidth_text` show the results.

pub mod descriptor;
pub mod isa;
pub mod kernels;
