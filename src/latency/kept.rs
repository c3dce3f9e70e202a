//! A chased buffer kept for a whole run and lent to every part that chases the same walk.
//!
//! Why one buffer: on the project's 2-vCPU guest the physical pages behind a buffer move its
//! figure by 15-20 %: a process's first large buffer read 263-403 ns per load where a fourth
//! one allocated after it read 170-248 ns (docs/METHODOLOGY.md, "Physical pages"). Places
//! that report one quantity under one set of conditions (the run's reference latency, the
//! loaded curve's no-load point, scenario (a)) each with a buffer of its own therefore
//! disagreed by that much, and two rows compared with each other (scenarios (a) and (b))
//! carried the difference of their pages into their ratio. A [`LentChain`] is one placed,
//! linked buffer that each of them chases in turn, so they differ only in what they are
//! meant to differ in.
//!
//! One part chases it at a time: a part holds the lock while it uses the chain (the run's
//! parts and the reference's repetitions take turns; the scenarios' rows take turns block by
//! block). Lending never changes the links, so each loan walks from the chains' starts.

use std::sync::{Arc, Mutex, MutexGuard};

use crate::placement::{PlacedBuffer, Policy};
use crate::results::placement::{PageSize, PlacementReport};
use crate::results::topology::Topology;
use crate::sysroot::SysRoot;

use super::chase::ChainSpec;
use super::walk::{Chain, Links};

/// A placed buffer and the chain linked over it, owned together (module docs).
pub struct KeptChain {
    buf: PlacedBuffer,
    links: Links,
    spec: ChainSpec,
    placement: PlacementReport,
}

impl KeptChain {
    /// Places `bytes` under `policy` in `page` pages from the calling thread (pin it first
    /// for first touch), checks where the pages went and links `spec` over all of it.
    pub fn place(
        topo: &Topology,
        root: &SysRoot,
        bytes: u64,
        policy: &Policy,
        page: PageSize,
        spec: &ChainSpec,
    ) -> anyhow::Result<KeptChain> {
        let buf = PlacedBuffer::new(topo, root, bytes, policy, page)?;
        let placement = buf.verify()?;
        Self::link(buf, spec, placement)
    }

    /// Links `spec` over all of `buf`, whose placement is `placement`.
    pub fn link(
        mut buf: PlacedBuffer,
        spec: &ChainSpec,
        placement: PlacementReport,
    ) -> anyhow::Result<KeptChain> {
        let words = buf.as_u64_mut();
        let (base, len) = (words.as_ptr() as usize, words.len());
        let links = Chain::build(words, spec)?.links(base, len);
        Ok(KeptChain {
            buf,
            links,
            spec: *spec,
            placement,
        })
    }

    /// The chain, from its starts, borrowing the buffer for as long as it is walked.
    pub fn chain(&mut self) -> Chain<'_> {
        Chain::again(self.buf.as_u64_mut(), &self.links)
    }

    /// Where the pages are, as checked when it was placed.
    pub fn placement(&self) -> &PlacementReport {
        &self.placement
    }

    /// Bytes of the buffer (its working set).
    pub fn bytes(&self) -> u64 {
        self.buf.len() as u64
    }

    /// Whether this buffer and chain are the walk `w` (the seed aside: every random order of
    /// one working set is the same walk).
    pub fn serves(&self, w: &Walk<'_>) -> bool {
        self.bytes() == w.bytes
            && self.buf.policy() == w.policy
            && self.placement.page_size == w.page
            && self.spec == ChainSpec::random(w.element_bytes, self.spec.seed)
    }
}

/// The walk a part asks for: one random chain over elements of `element_bytes` across
/// `bytes` placed under `policy` in `page` pages.
#[derive(Clone, Copy, Debug)]
pub struct Walk<'a> {
    pub bytes: u64,
    pub policy: &'a Policy,
    pub page: PageSize,
    pub element_bytes: u64,
}

impl Walk<'_> {
    /// `lent` when it is this walk: the chain a part borrows instead of placing its own.
    pub fn lender<'l>(&self, lent: Option<&'l LentChain>) -> Option<&'l LentChain> {
        lent.filter(|l| l.serves(self))
    }
}

/// A [`KeptChain`] shared by its owner and the parts it is lent to (module docs). Two handles
/// are equal when they lend the same buffer.
#[derive(Clone)]
pub struct LentChain(Arc<Mutex<KeptChain>>);

impl LentChain {
    pub fn new(kept: KeptChain) -> LentChain {
        LentChain(Arc::new(Mutex::new(kept)))
    }

    /// The chain for as long as the guard lives; a part that panicked with it left the links
    /// as they were (walking never writes), so a poisoned lock is taken as it is.
    pub fn lock(&self) -> MutexGuard<'_, KeptChain> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// [`KeptChain::serves`] of the lent chain.
    pub fn serves(&self, w: &Walk<'_>) -> bool {
        self.lock().serves(w)
    }

    /// `lender` (from [`Walk::lender`]) when there is one, else the chain `place` makes, to
    /// be taken in turns the same way.
    pub fn or_place(
        lender: Option<&LentChain>,
        place: impl FnOnce() -> anyhow::Result<KeptChain>,
    ) -> anyhow::Result<LentChain> {
        match lender {
            Some(l) => Ok(l.clone()),
            None => place().map(LentChain::new),
        }
    }
}

impl PartialEq for LentChain {
    fn eq(&self, other: &LentChain) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for LentChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let k = self.lock();
        write!(f, "LentChain({} bytes, {:?})", k.bytes(), k.buf.policy())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> ChainSpec {
        ChainSpec::random(64, 7)
    }

    /// Every loan walks the same links over the same buffer, and a loan walks as many loads
    /// as a chain of its own would.
    #[test]
    fn a_lent_chain_walks_the_same_links_each_loan() {
        let topo = crate::testutil::this_machine_one_node();
        let root = SysRoot::live();
        let node = topo.memory_nodes()[0];
        let policy = Policy::Bind(vec![node]);
        let kept = KeptChain::place(&topo, &root, 1 << 20, &policy, PageSize::Base, &spec())
            .expect("1 MiB places");
        let lent = LentChain::new(kept);
        let first = {
            let mut k = lent.lock();
            let mut c = k.chain();
            assert_eq!(c.elements(), (1 << 20) / 64);
            assert_eq!(c.walk(100), 100 * super::super::walk::LOADS_PER_ITERATION);
            c.position(0)
        };
        let again = lent.clone();
        assert_eq!(again, lent, "clones lend one buffer");
        let second = {
            let mut k = again.lock();
            let mut c = k.chain();
            c.walk(100);
            c.position(0)
        };
        assert_eq!(first, second, "each loan starts from the chain's start");
        let walk = Walk {
            bytes: 1 << 20,
            policy: &policy,
            page: PageSize::Base,
            element_bytes: 64,
        };
        assert!(lent.serves(&walk));
        for other in [
            Walk {
                bytes: 2 << 20,
                ..walk
            },
            Walk {
                page: PageSize::Huge2M,
                ..walk
            },
            Walk {
                element_bytes: 128,
                ..walk
            },
            Walk {
                policy: &Policy::Interleave(vec![node]),
                ..walk
            },
        ] {
            assert!(!lent.serves(&other), "{other:?}");
            assert!(other.lender(Some(&lent)).is_none(), "{other:?}");
            let own = LentChain::or_place(other.lender(Some(&lent)), || {
                KeptChain::place(&topo, &root, 1 << 20, &policy, PageSize::Base, &spec())
            })
            .unwrap();
            assert_ne!(own, lent, "another walk places its own");
        }
        assert_eq!(
            LentChain::or_place(walk.lender(Some(&lent)), || unreachable!()).unwrap(),
            lent,
            "the same walk borrows"
        );
    }
}
