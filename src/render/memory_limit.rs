//! A process memory limit (`results::environment::MemoryLimit`) in one line for the
//! environment tables.

use crate::results::environment::MemoryLimit;
use crate::results::format::format_bytes;

/// `300 MiB (cgroup v2 memory.max in /sys/fs/cgroup/x/memory.max; 296 MiB left)`.
pub fn summary(l: &MemoryLimit) -> String {
    format!(
        "{} ({} in {}; {} left)",
        format_bytes(l.limit_bytes),
        l.kind,
        l.source,
        format_bytes(l.left_bytes())
    )
}
