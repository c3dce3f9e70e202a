//! The reference's chasing thread: pinned to the reference CPU, it places the buffer and links
//! its chain for the whole run and walks one repetition per request (back to steady state
//! untimed, then [`SAMPLES_PER_REP`] timed samples). Between repetitions the chain is lent to
//! the parts that chase the same walk (`latency::kept`: one quantity on one buffer). Dropping
//! the worker and every loan ends the thread and frees the buffer.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::time::Instant;

use crate::latency::chase::ChainSpec;
use crate::latency::kept::{KeptChain, LentChain};
use crate::latency::walk::{Chain, LOADS_PER_ITERATION};
use crate::placement::{PlacedBuffer, Policy};
use crate::results::placement::PageSize;
use crate::results::placement::PlacementReport;
use crate::results::quality::RepSample;
use crate::results::topology::Topology;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::threads::{pin_current, Probe};

use super::{probe, Conditions, LATENCY_SAMPLE_NS, SAMPLES_PER_REP};

/// What the chasing thread sends back.
pub(super) enum LatMsg {
    Ready {
        loads: u64,
        lent: LentChain,
    },
    Rep {
        /// The repetition's samples, ns per load each.
        samples_ns: Vec<f64>,
        sample: RepSample,
        /// The idle probe right before and right after the samples, ns per probe load
        /// (`probe`); `None` when the probe chain could not be placed.
        probe_ns: Option<[f64; 2]>,
    },
    Failed(String),
}

/// The chasing thread's handle (module docs).
pub(super) struct LatWorker {
    pub(super) go: Option<Sender<()>>,
    pub(super) back: Receiver<LatMsg>,
    handle: Option<std::thread::JoinHandle<()>>,
    pub(super) loads: u64,
    /// Where the chased buffer's pages are, as checked when it was placed.
    pub(super) placement: PlacementReport,
    /// The chased buffer, lent to the parts that chase the same walk (`latency::kept`).
    pub(super) lent: LentChain,
}

impl Drop for LatWorker {
    fn drop(&mut self) {
        self.go.take();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// Starts the chasing thread and waits until its chain is linked and its sample sized.
pub(super) fn spawn_latency(
    topo: &Topology,
    root: &SysRoot,
    c: &Conditions,
) -> anyhow::Result<LatWorker> {
    let (go_tx, go_rx) = channel::<()>();
    let (back_tx, back_rx) = channel::<LatMsg>();
    let (topo, root, c) = (topo.clone(), root.clone(), c.clone());
    let handle = std::thread::spawn(move || chaser_main(&topo, &root, &c, &go_rx, &back_tx));
    match back_rx.recv() {
        Ok(LatMsg::Ready { loads, lent }) => {
            let placement = lent.lock().placement().clone();
            Ok(LatWorker {
                go: Some(go_tx),
                back: back_rx,
                handle: Some(handle),
                loads,
                placement,
                lent,
            })
        }
        Ok(LatMsg::Failed(e)) => {
            let _ = handle.join();
            anyhow::bail!("{e}")
        }
        _ => {
            let _ = handle.join();
            anyhow::bail!("the reference's chasing thread ended before it was ready")
        }
    }
}

/// Pins the thread, places the chased buffer bound to the reference node and links the
/// run's chain over it.
fn place(topo: &Topology, root: &SysRoot, c: &Conditions) -> anyhow::Result<LentChain> {
    pin_current(topo, root, c.cpu)?;
    let kept = KeptChain::place(
        topo,
        root,
        c.latency_bytes,
        &Policy::Bind(vec![c.node]),
        PageSize::Base,
        &chain_spec(c),
    )?;
    Ok(LentChain::new(kept))
}

/// The reference's walk: one random chain over lines, the run's seed.
fn chain_spec(c: &Conditions) -> ChainSpec {
    ChainSpec::random(c.line_bytes, super::super::runners::SEED)
}

/// Places and links the idle probe's chain (`probe`): one element per 4 KiB page, bound to
/// the reference node; `None` when it cannot be placed (the blocks are then not probed).
fn probe_buffer(topo: &Topology, root: &SysRoot, c: &Conditions) -> Option<PlacedBuffer> {
    PlacedBuffer::new(
        topo,
        root,
        probe::PROBE_PAGES * probe::PROBE_ELEMENT_BYTES,
        &Policy::Bind(vec![c.node]),
        PageSize::Base,
    )
    .ok()
}

/// The body of the chasing thread: place, link, size a sample, then serve repetitions until
/// the run drops the worker.
fn chaser_main(
    topo: &Topology,
    root: &SysRoot,
    c: &Conditions,
    go: &Receiver<()>,
    back: &Sender<LatMsg>,
) {
    let lent = match place(topo, root, c) {
        Ok(x) => x,
        Err(e) => {
            let _ = back.send(LatMsg::Failed(crate::error::one_sentence(&e)));
            return;
        }
    };
    let mut probe_buf = probe_buffer(topo, root, c);
    let probe_spec = ChainSpec {
        element_bytes: probe::PROBE_ELEMENT_BYTES,
        ..chain_spec(c)
    };
    let mut probe_chain = probe_buf
        .as_mut()
        .and_then(|b| Chain::build(b.as_u64_mut(), &probe_spec).ok());
    let iterations = {
        let mut kept = lent.lock();
        let mut chain = kept.chain();
        // No full first pass (unlike a one-off measurement): every page was faulted in and
        // every element written by the linking.
        crate::latency::steady::settle(&mut chain);
        sample_iterations(&mut chain)
    };
    let ready = LatMsg::Ready {
        loads: iterations * LOADS_PER_ITERATION,
        lent: lent.clone(),
    };
    if back.send(ready).is_err() {
        return;
    }
    while go.recv().is_ok() {
        let rep = {
            let mut kept = lent.lock();
            let mut chain = kept.chain();
            repetition(&mut chain, probe_chain.as_mut(), iterations, root, c.cpu)
        };
        if back.send(rep).is_err() {
            return;
        }
    }
}

/// Iterations of one sample of about `LATENCY_SAMPLE_NS`: grow a walk past a quarter of it,
/// then time that walk three more times and go by the fastest, so a preemption during the
/// sizing (a busy machine) does not leave every sample short.
fn sample_iterations(chain: &mut Chain<'_>) -> u64 {
    let mut iterations: u64 = 64;
    loop {
        let t = Instant::now();
        chain.walk(iterations);
        let e = t.elapsed().as_nanos() as f64;
        if e >= LATENCY_SAMPLE_NS / 4.0 || interrupted() {
            let mut best = e;
            for _ in 0..3 {
                let t = Instant::now();
                chain.walk(iterations);
                best = best.min(t.elapsed().as_nanos() as f64);
            }
            return ((iterations as f64 * LATENCY_SAMPLE_NS / best.max(1.0)) as u64).max(1);
        }
        iterations *= 4;
    }
}

/// One repetition: the idle probe (`probe`), then, because the part before and the probe
/// streamed through the caches and the TLB, the chain walked back to steady state untimed
/// (`latency::steady`), then the samples timed under the CPU probe, then the idle probe again.
fn repetition(
    chain: &mut Chain<'_>,
    mut idle: Option<&mut Chain<'_>>,
    iterations: u64,
    root: &SysRoot,
    cpu: u32,
) -> LatMsg {
    // The probe first: its walk misses the TLB on every load and would undo the settling.
    let before = idle.as_deref_mut().map(probe::walk);
    crate::latency::steady::settle(chain);
    let probe = Probe::start(root, cpu);
    let mut samples_ns = Vec::with_capacity(SAMPLES_PER_REP);
    for _ in 0..SAMPLES_PER_REP {
        let t = Instant::now();
        let loads = chain.walk(iterations);
        let e = t.elapsed().as_nanos() as f64;
        samples_ns.push(e / loads.max(1) as f64);
    }
    let sample = probe.finish();
    let after = idle.map(probe::walk);
    LatMsg::Rep {
        samples_ns,
        sample,
        probe_ns: before.zip(after).map(|(b, a)| [b, a]),
    }
}

impl super::Reference {
    /// The reference's chased buffer, for the parts that chase the same walk (the loaded
    /// curve's chaser, the scenarios' latency rows); `None` without a latency side.
    pub fn lent_chain(&self) -> Option<LentChain> {
        self.lat.as_ref().map(|w| w.lent.clone())
    }
}
