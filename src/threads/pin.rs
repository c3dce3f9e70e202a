//! Pinning the calling thread to one CPU, with the checks that make it trustworthy: the CPU
//! exists, is online, is in the process's allowed set, and `getcpu` confirms it.

use crate::results::format::format_list;
use crate::results::topology::Topology;
use crate::sys::affinity;
use crate::sysroot::SysRoot;

use super::ThreadError;

/// Refuses CPUs that are unknown, offline or outside the allowed set, naming the first one.
pub fn check_cpus(topo: &Topology, root: &SysRoot, cpus: &[u32]) -> Result<(), ThreadError> {
    root.require_live("pin threads")?;
    if cpus.is_empty() {
        return Err(ThreadError::BadCpu(
            "no CPUs were given; name at least one, e.g. --cpus 0".into(),
        ));
    }
    for &cpu in cpus {
        let c = topo.cpu(cpu).ok_or_else(|| {
            ThreadError::BadCpu(format!(
                "CPU {cpu} does not exist; this machine has CPUs {}",
                format_list(&topo.cpus.iter().map(|c| c.id).collect::<Vec<_>>())
            ))
        })?;
        if !c.online {
            return Err(ThreadError::BadCpu(format!(
                "CPU {cpu} is offline; choose an online CPU from {}",
                format_list(&topo.usable_cpus())
            )));
        }
        if !c.allowed {
            return Err(ThreadError::BadCpu(format!(
                "CPU {cpu} is outside this process's allowed CPUs {} (taskset, cgroup or numactl); choose an allowed CPU",
                format_list(&topo.allowed_cpus)
            )));
        }
    }
    Ok(())
}

/// Pins the calling thread to `cpu` and confirms it with `getcpu`.
pub fn pin_current(topo: &Topology, root: &SysRoot, cpu: u32) -> Result<(), ThreadError> {
    check_cpus(topo, root, &[cpu])?;
    affinity::set_current(&[cpu])?;
    // sched_setaffinity migrates the calling thread before returning; allow the scheduler a
    // few yields in case the migration is still in flight on an unusual kernel.
    for _ in 0..100 {
        let (now, _) = affinity::current_cpu_and_node()?;
        if now == cpu {
            return Ok(());
        }
        std::thread::yield_now();
    }
    let (now, _) = affinity::current_cpu_and_node()?;
    Err(ThreadError::NotPinned(format!(
        "the thread was pinned to CPU {cpu} but still runs on CPU {now}"
    )))
}

/// Runs `f` on a new thread pinned to `cpu` and returns its result.
pub fn on_cpu<T: Send>(
    topo: &Topology,
    root: &SysRoot,
    cpu: u32,
    f: impl FnOnce() -> T + Send,
) -> Result<T, ThreadError> {
    check_cpus(topo, root, &[cpu])?;
    std::thread::scope(|s| {
        let h = s.spawn(|| -> Result<T, ThreadError> {
            pin_current(topo, root, cpu)?;
            Ok(f())
        });
        h.join().map_err(|_| ThreadError::Panicked(cpu))?
    })
}
