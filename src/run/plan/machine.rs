//! What the plan reads off the machine once, for every part's settings: the home node every
//! part measures on and its measuring CPU, the largest last-level cache one thread can fill,
//! the memory free on the memory nodes, the single-thread DRAM working set made of them, and
//! whether weighted interleave can be measured. Read from the topology snapshot (and, for
//! the weights, whether this process is root); nothing here measures.

use crate::results::format::format_list;
use crate::results::topology::Topology;

/// What the plan reads off the machine, once, for every part's settings.
pub(super) struct Machine {
    /// [`home_node`].
    pub(super) home: Option<u32>,
    /// The first usable CPU of the home node, else the first usable CPU.
    pub(super) measuring_cpu: Option<u32>,
    /// All last-level caches together, bytes (32 MiB assumed when sysfs lists none).
    pub(super) llc_total: u64,
    /// [`llc_instance_bytes`] (32 MiB assumed when sysfs lists none).
    pub(super) llc_one: u64,
    /// Memory available on the memory nodes, bytes (1 GiB assumed when the kernel reports
    /// none).
    pub(super) free: u64,
    /// [`dram_latency_bytes`].
    pub(super) dram_latency: u64,
    /// [`weighted_unavailable`] for this process.
    pub(super) weighted_unavailable: Option<String>,
}

/// The machine's [`Machine`] facts, read once.
pub(super) fn read_machine(topo: &Topology) -> Machine {
    let llc_one = llc_instance_bytes(topo).unwrap_or(32 << 20);
    let free = match free_memory_bytes(topo) {
        0 => 1 << 30,
        b => b,
    };
    let home = home_node(topo);
    Machine {
        home,
        measuring_cpu: home
            .and_then(|h| topo.usable_cpus_of(h).first().copied())
            .or_else(|| topo.usable_cpus().first().copied()),
        llc_total: match topo.llc_total_bytes() {
            0 => 32 << 20,
            b => b,
        },
        llc_one,
        free,
        dram_latency: (8 * llc_one).min(free / 4).max(1 << 20),
        weighted_unavailable: weighted_unavailable(topo, running_as_root()),
    }
}

/// The node holding the run's single-thread figures, the scenarios' (a), (b) and (d) and the
/// reference: the first memory node that has usable CPUs, else the first memory node.
pub fn home_node(topo: &Topology) -> Option<u32> {
    let mem = topo.memory_nodes();
    mem.iter()
        .copied()
        .find(|n| !topo.usable_cpus_of(*n).is_empty())
        .or_else(|| mem.first().copied())
}

/// Bytes of the largest single last-level cache instance: the most one chasing thread can
/// fill (a remote line is cached in the requester's own LLC, not in the home node's), so
/// 8x this is a DRAM working set for single-thread latency (docs/METHODOLOGY.md, "Working-set
/// sweep") on a machine of any size. `None` when sysfs lists no caches.
pub fn llc_instance_bytes(topo: &Topology) -> Option<u64> {
    let data = || topo.caches.iter().filter(|c| c.kind != "Instruction");
    let level = data().map(|c| c.level).max()?;
    data()
        .filter(|c| c.level == level)
        .map(|c| c.size_bytes)
        .max()
        .filter(|&b| b > 0)
}

/// The single-thread DRAM latency working set of a run: 8x the largest LLC instance (32 MiB
/// assumed when sysfs lists none), at most a quarter of free memory, at least 1 MiB. The
/// latency matrix uses it, and the scenarios' single-thread latencies chase no more.
pub fn dram_latency_bytes(topo: &Topology) -> u64 {
    read_machine(topo).dram_latency
}

/// Why weighted interleave cannot be measured here ((g) and the advisor's check), if it
/// cannot: one memory node, a kernel without it, or a process that may not set the weights.
fn weighted_unavailable(topo: &Topology, is_root: bool) -> Option<String> {
    let mem = topo.memory_nodes();
    if mem.len() < 2 {
        return Some(format!(
            "this machine has one memory node ({}): there is nothing to weigh",
            format_list(&mem)
        ));
    }
    if !topo.environment.weighted_interleave_available {
        return Some(format!(
            "weighted interleave needs Linux 6.9 or newer (this kernel is {}: no /sys/kernel/mm/mempolicy/weighted_interleave)",
            topo.environment.kernel_release.as_deref().unwrap_or("unknown")
        ));
    }
    if !is_root {
        return Some(
            "setting the weights (/sys/kernel/mm/mempolicy/weighted_interleave/nodeN) needs root; run numascope as root to measure (g)".into(),
        );
    }
    None
}

/// True when the process runs as root.
fn running_as_root() -> bool {
    crate::sys::process::effective_uid() == 0
}

/// Memory available on the memory nodes, bytes (0 when the kernel reports none).
pub(super) fn free_memory_bytes(topo: &Topology) -> u64 {
    topo.available_over(&topo.memory_nodes())
}
