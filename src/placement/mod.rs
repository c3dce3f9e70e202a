//! Memory that lives where it was asked to, and proof that it does. A [`PlacedBuffer`] is an
//! anonymous mapping with a chosen page backing and NUMA policy, faulted in before any timing
//! and verified page by page with `move_pages` (docs/METHODOLOGY.md, "Placed, then verified").
//! Every measurement engine allocates through it, so every result can state the fraction of its
//! pages that really were on the intended node.

mod buffer;
mod check;
mod error;
pub mod measured_weights;
pub mod model;
mod page_size;
mod policy;
mod report;
mod validate;
mod weights;

pub use buffer::PlacedBuffer;

pub use error::PlacementError;
pub use policy::Policy;

pub use validate::check_limit;
pub use weights::{read_weights, WeightGuard};
