//! Test support: a synthetic description of the running machine (one node holding every
//! online CPU), so unit tests of placement and threads do not depend on the topology reader.

use crate::environment::Environment;
use crate::topology::*;

/// One node 0 with the CPUs this process may use and 1 GiB free.
pub fn this_machine_one_node() -> Topology {
    let cpus = crate::sys::affinity::get_current().unwrap();
    Topology {
        schema_version: TOPOLOGY_SCHEMA_VERSION,
        live: true,
        source: "/".into(),
        warnings: vec![],
        nodes: vec![Node {
            id: 0,
            cpus: cpus.clone(),
            memory_total_bytes: 2 << 30,
            memory_free_bytes: 1 << 30,
            memory_available_bytes: 1 << 30,
            has_cpu: true,
            has_memory: true,
            hugepages: vec![],
        }],
        distances: vec![vec![10]],
        cpus: cpus
            .iter()
            .map(|&id| Cpu {
                id,
                node: Some(0),
                package: Some(0),
                core: Some(id),
                siblings: vec![id],
                online: true,
                allowed: true,
            })
            .collect(),
        caches: vec![],
        hmat: vec![],
        memory_side_caches: vec![],
        allowed_cpus: cpus,
        allowed_nodes: vec![0],
        environment: Environment::default(),
    }
}

/// Serializes the unit tests that time pinned threads. The test harness runs tests in
/// parallel threads of one process; two such tests pinned to the same CPUs of a 2-CPU machine
/// would time each other. Hold the guard for the whole test.
pub fn timing_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}
