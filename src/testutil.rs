//! Test support shared by the unit tests: a synthetic description of the running machine (one
//! node holding every online CPU), so tests of placement and threads do not depend on the
//! topology reader; a fake `/sys` + `/proc` tree on disk, so the readers can be fed exactly
//! the files a test names; and the lock that keeps timed tests from timing each other.

use crate::results::environment::Environment;
use crate::results::topology::*;
use crate::sysroot::SysRoot;

/// The topology a fixture of tests/fixtures/topology/ reads as (its `NAME.expected.json`).
pub fn topology_fixture(name: &str) -> Topology {
    let p = format!(
        "{}/tests/fixtures/topology/{name}.expected.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// A snapshot root holding exactly `files` (path relative to the root, text content), plus
/// the `sys/devices/system` directory every snapshot has. Keep the `TempDir` alive as long as
/// the root is used.
pub fn test_root(files: &[(&str, &str)]) -> (tempfile::TempDir, SysRoot) {
    let bytes: Vec<(&str, &[u8])> = files.iter().map(|(p, c)| (*p, c.as_bytes())).collect();
    test_root_bytes(&bytes)
}

/// [`test_root`] for binary contents (e.g. `/proc/self/auxv`).
pub fn test_root_bytes(files: &[(&str, &[u8])]) -> (tempfile::TempDir, SysRoot) {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("sys/devices/system")).unwrap();
    for (p, c) in files {
        let p = d.path().join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, c).unwrap();
    }
    let r = SysRoot::snapshot(d.path()).unwrap();
    (d, r)
}

/// An online, allowed CPU `id` on node 0 and package 0, alone on its core (no SMT sibling).
pub fn cpu(id: u32) -> Cpu {
    Cpu {
        id,
        node: Some(0),
        package: Some(0),
        core: Some(id),
        siblings: vec![id],
        online: true,
        allowed: true,
    }
}

/// A node `id` with `cpus` and 1 GiB of memory, half of it free, no huge pages.
pub fn node(id: u32, cpus: Vec<u32>) -> Node {
    Node {
        id,
        cpus,
        memory_total_bytes: 1 << 30,
        memory_free_bytes: 1 << 29,
        memory_available_bytes: 1 << 29,
        has_cpu: true,
        has_memory: true,
        hugepages: vec![],
    }
}

/// A sequential chase of 64-byte elements in `chains` cycles (seed 1), for the walk kernels'
/// mechanics.
pub fn seq_chain(chains: usize) -> crate::latency::chase::ChainSpec {
    crate::latency::chase::ChainSpec {
        mode: crate::results::latency::Mode::Seq,
        chains,
        element_bytes: 64,
        group_bytes: 4096,
        seed: 1,
    }
}

/// A node's memory of `kind` in memory tier `tier`, its kind inferred (no evidence text).
pub fn node_memory(node: u32, kind: MemoryKind, tier: u32) -> NodeMemory {
    NodeMemory {
        node,
        kind,
        known: Known::Inferred,
        evidence: String::new(),
        tier: Some(tier),
    }
}

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
        cpus: cpus.iter().map(|&id| cpu(id)).collect(),
        caches: vec![],
        hmat: vec![],
        memory_side_caches: vec![],
        allowed_cpus: cpus,
        allowed_nodes: vec![0],
        environment: Environment::default(),
        layout: Default::default(),
    }
}

/// Rounds around `base`: round `i` is `base * drift[i]` (a drift every row shares) times
/// `1 + wiggle(i)` (a small wiggle of the row's own).
pub fn drifting(base: f64, drift: &[f64], wiggle: impl Fn(usize) -> f64) -> Vec<f64> {
    drift
        .iter()
        .enumerate()
        .map(|(i, d)| base * d * (1.0 + wiggle(i)))
        .collect()
}

/// A scenario row's latency over nine interleaved blocks of three samples whose medians are
/// all `ns`, summarised by `s`.
pub fn nine_blocks(
    ns: f64,
    s: crate::stats::Summary,
) -> crate::results::scenarios::ScenarioLatency {
    crate::results::scenarios::ScenarioLatency {
        ns_per_load: s,
        blocks: crate::results::latency::PointBlocks {
            blocks: 9,
            samples_per_block: 3,
            min_sample_ns: 1_000_000,
            block_medians_ns: vec![ns; 9],
            all_samples: s,
        },
        cpus: vec![],
        interleaved: true,
        quality: None,
    }
}

/// Serializes the unit tests that time pinned threads. The test harness runs tests in
/// parallel threads of one process; two such tests pinned to the same CPUs of a 2-CPU machine
/// would time each other. Hold the guard for the whole test.
pub fn timing_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// The run's reference local latency on CPU 0 and node 0 (random walk, 4 KiB pages), over
/// `working_set` bytes, its figure the summary of `samples`.
pub fn reference_latency(
    working_set: u64,
    samples: &[f64],
) -> crate::results::reference::ReferenceLatency {
    use crate::results::quality::{RepetitionQuality, DEFAULT_MIN_CPU_SHARE};
    crate::results::reference::ReferenceLatency {
        cpu: 0,
        memory_node: 0,
        working_set_bytes: working_set,
        page_size: crate::results::placement::PageSize::Base,
        mode: crate::results::latency::Mode::Random,
        element_bytes: 64,
        placement_fraction: 1.0,
        huge_fraction: 0.0,
        loads_per_repetition: 1000,
        samples_per_repetition: 1,
        ns_per_load: crate::stats::Summary::of(samples).unwrap(),
        quality: RepetitionQuality::new(DEFAULT_MIN_CPU_SHARE, 2),
        probe: None,
    }
}
