//! Chain construction for pointer chasing (docs/METHODOLOGY.md, "Dependent-load chains"): which
//! element each load goes to next. The buffer is cut into *elements* spaced `element_bytes` apart
//! (one cache line by default, so no two loads share a line); a *visit order* of the elements is
//! chosen by the mode and then linked into cycles by writing, at the start of each element, the
//! absolute address of the next one, so the walk is the tightest possible loop, `p = *p`.
//!
//! Modes:
//! - `random`: a uniformly random order of all elements. Linking a uniformly shuffled order
//!   into one cycle gives exactly the distribution of Sattolo's shuffle (every single cycle
//!   through all elements equally likely); building the order first lets the same code split
//!   it into parallel chains. Every load can miss the TLB.
//! - `page`: elements grouped by *locality group* (by default the page the buffer is backed
//!   with: 4 KiB for `4k`, the PMD size, 2 MiB on x86, for `thp` and `2m`, 1 GiB for `1g`),
//!   groups visited in random order, the elements of each group in random order before the
//!   next group starts. Groups are cut by absolute address, so a buffer that does not start on
//!   a group boundary gets partial first/last groups rather than groups straddling pages. The
//!   difference to `random` is the page-walk cost (RightMark's "pseudo-random", multichase's
//!   TLB locality).
//! - `seq`: elements in address order, i.e. a fixed stride of `element_bytes`: what the
//!   prefetchers make of a stream.
//!
//! With `chains` = N > 1 the order is cut into N contiguous, disjoint segments, each linked
//! into its own cycle; the walk advances all N at once to expose memory-level parallelism.
//! Nothing here times anything.

use crate::results::latency::Mode;
impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Mode, String> {
        match s.trim() {
            "random" => Ok(Mode::Random),
            "page" => Ok(Mode::Page),
            "seq" | "sequential" => Ok(Mode::Seq),
            other => Err(format!(
                "`{other}` is not a chase mode; use random, page or seq"
            )),
        }
    }
}

/// The parallel chain counts the walk kernels are built for.
pub const SUPPORTED_CHAINS: [usize; 5] = [1, 2, 4, 8, 16];

/// What to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChainSpec {
    pub mode: Mode,
    /// Independent cycles walked together (one of [`SUPPORTED_CHAINS`]).
    pub chains: usize,
    /// Spacing of the elements, bytes: a multiple of 8 (normally of the line size).
    pub element_bytes: u64,
    /// Locality group for `page` mode, bytes (a power of two); ignored by other modes.
    pub group_bytes: u64,
    /// PRNG seed; the same seed gives the same chain.
    pub seed: u64,
}

impl ChainSpec {
    /// One random chain over elements `element_bytes` apart: the walk of a latency figure.
    pub fn random(element_bytes: u64, seed: u64) -> ChainSpec {
        ChainSpec {
            mode: Mode::Random,
            chains: 1,
            element_bytes,
            group_bytes: 0,
            seed,
        }
    }
}

/// Why a chain cannot be built; one sentence naming the value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChainError {
    #[error("a working set of {bytes} bytes holds {elements} elements of {element_bytes} bytes, fewer than the {chains} chains asked; use a larger --size or fewer --chains")]
    TooSmall {
        bytes: u64,
        elements: u64,
        element_bytes: u64,
        chains: usize,
    },
    #[error("--chains {0} is not supported; use 1, 2, 4, 8 or 16")]
    Chains(usize),
    #[error("an element spacing of {0} bytes is not a multiple of 8; use a multiple of the cache line size")]
    Element(u64),
    #[error("a working set of {0} elements is more than numascope indexes (2^32); use a smaller --size or a larger --stride")]
    TooMany(u64),
    #[error("a chain at word {0} of the sweep's buffer would link words another chain links; this is a bug in the sweep's layout, please report it")]
    Overlap(usize),
}

/// splitmix64: a tiny, fast, well-mixed PRNG; seeded, so chains are reproducible.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..bound` (Lemire's multiply-shift; the bias is below 2^-32 for the
    /// bounds used here).
    pub fn below(&mut self, bound: u64) -> u64 {
        ((self.next_u64() as u128 * bound as u128) >> 64) as u64
    }

    /// Fisher-Yates shuffle.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
    }
}

/// Checks a spec against a working set; returns the element count.
pub fn check(spec: &ChainSpec, bytes: u64) -> Result<usize, ChainError> {
    if !SUPPORTED_CHAINS.contains(&spec.chains) {
        return Err(ChainError::Chains(spec.chains));
    }
    if spec.element_bytes == 0 || !spec.element_bytes.is_multiple_of(8) {
        return Err(ChainError::Element(spec.element_bytes));
    }
    let elements = bytes / spec.element_bytes;
    if elements < spec.chains as u64 || elements == 0 {
        return Err(ChainError::TooSmall {
            bytes,
            elements,
            element_bytes: spec.element_bytes,
            chains: spec.chains,
        });
    }
    if elements > u32::MAX as u64 {
        return Err(ChainError::TooMany(elements));
    }
    Ok(elements as usize)
}

/// The visit order of `n` elements (element `i` at address `base_addr + i * element_bytes`).
pub fn visit_order(n: usize, base_addr: u64, spec: &ChainSpec) -> Vec<u32> {
    let mut rng = SplitMix64::new(spec.seed);
    let mut order: Vec<u32> = (0..n as u32).collect();
    match spec.mode {
        Mode::Seq => {}
        Mode::Random => rng.shuffle(&mut order),
        Mode::Page => {
            let group = spec.group_bytes.max(spec.element_bytes);
            let group_of = |i: usize| (base_addr + i as u64 * spec.element_bytes) / group;
            // Group boundaries in address order: (first element, element count).
            let mut groups: Vec<(u32, u32)> = Vec::new();
            let mut start = 0usize;
            for i in 1..=n {
                if i == n || group_of(i) != group_of(start) {
                    groups.push((start as u32, (i - start) as u32));
                    start = i;
                }
            }
            rng.shuffle(&mut groups);
            let mut k = 0usize;
            for (first, len) in groups {
                let slot = &mut order[k..k + len as usize];
                for (j, s) in slot.iter_mut().enumerate() {
                    *s = first + j as u32;
                }
                rng.shuffle(slot);
                k += len as usize;
            }
        }
    }
    order
}

/// Writes the links: for chain `c`, segment `c` of `order` becomes a cycle, each element
/// holding the absolute address of the next. Returns each chain's first element index.
///
/// `buf` is the working set viewed as u64 words; element `i` starts at word
/// `i * element_bytes / 8`. Panics only on a violated internal contract (an order that does
/// not fit `buf`), never on user input, which [`check`] has validated.
pub fn link(buf: &mut [u64], order: &[u32], spec: &ChainSpec) -> Vec<usize> {
    let words = (spec.element_bytes / 8) as usize;
    let base = buf.as_ptr() as u64;
    let n = order.len();
    let mut starts = Vec::with_capacity(spec.chains);
    for c in 0..spec.chains {
        let lo = c * n / spec.chains;
        let hi = (c + 1) * n / spec.chains;
        let seg = &order[lo..hi];
        for k in 0..seg.len() {
            let here = seg[k] as usize;
            let next = seg[(k + 1) % seg.len()] as u64;
            buf[here * words] = base + next * spec.element_bytes;
        }
        starts.push(seg[0] as usize);
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::latency::*;
    use proptest::prelude::*;

    fn spec(mode: Mode, chains: usize, group: u64) -> ChainSpec {
        ChainSpec {
            mode,
            chains,
            element_bytes: 64,
            group_bytes: group,
            seed: 42,
        }
    }

    /// Follows chain links from element `start` until it returns; element indices in order.
    fn follow(buf: &[u64], start: usize, element_bytes: u64) -> Vec<usize> {
        let base = buf.as_ptr() as u64;
        let words = (element_bytes / 8) as usize;
        let mut seen = vec![start];
        let mut i = start;
        loop {
            let addr = buf[i * words];
            assert!(
                addr >= base && (addr - base).is_multiple_of(element_bytes),
                "bad link"
            );
            i = ((addr - base) / element_bytes) as usize;
            if i == start {
                return seen;
            }
            assert!(
                seen.len() <= buf.len(),
                "chain does not return to its start"
            );
            seen.push(i);
        }
    }

    fn built(n: usize, s: &ChainSpec) -> (Vec<u64>, Vec<usize>) {
        let mut buf = vec![0u64; n * (s.element_bytes / 8) as usize];
        let base = buf.as_ptr() as u64;
        let order = visit_order(n, base, s);
        let starts = link(&mut buf, &order, s);
        (buf, starts)
    }

    #[test]
    fn modes_parse() {
        assert_eq!("page".parse::<Mode>().unwrap(), Mode::Page);
        let e = "zigzag".parse::<Mode>().unwrap_err();
        assert!(e.contains("zigzag") && e.contains("random"), "{e}");
    }

    #[test]
    fn checks_name_the_problem() {
        let s = spec(Mode::Random, 4, 4096);
        assert!(matches!(check(&s, 128), Err(ChainError::TooSmall { .. })));
        assert!(matches!(
            check(&ChainSpec { chains: 3, ..s }, 1 << 20),
            Err(ChainError::Chains(3))
        ));
        assert_eq!(check(&s, 4096).unwrap(), 64);
    }

    #[test]
    fn seq_is_address_order() {
        let s = spec(Mode::Seq, 1, 4096);
        let (buf, starts) = built(100, &s);
        assert_eq!(follow(&buf, starts[0], 64), (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn random_consecutive_elements_rarely_adjacent() {
        // A random cycle that kept address order would defeat its purpose.
        let s = spec(Mode::Random, 1, 4096);
        let (buf, starts) = built(4096, &s);
        let cyc = follow(&buf, starts[0], 64);
        let adjacent = cyc.windows(2).filter(|w| w[1] == w[0] + 1).count();
        assert!(adjacent < 20, "{adjacent} adjacent steps");
    }

    proptest! {
        #[test]
        fn single_cycle_visits_every_element_once(n in 1usize..3000, seed in any::<u64>(),
                                                  mode in 0usize..3) {
            let mode = [Mode::Random, Mode::Page, Mode::Seq][mode];
            let s = ChainSpec { seed, ..spec(mode, 1, 4096) };
            let (buf, starts) = built(n, &s);
            let mut cyc = follow(&buf, starts[0], 64);
            prop_assert_eq!(cyc.len(), n);
            cyc.sort_unstable();
            prop_assert_eq!(cyc, (0..n).collect::<Vec<_>>());
        }

        #[test]
        fn page_mode_exhausts_each_page_before_leaving(n in 1usize..2000, seed in any::<u64>(),
                                                       group_shift in 7u32..13) {
            let group = 1u64 << group_shift;
            let s = ChainSpec { seed, ..spec(Mode::Page, 1, group) };
            let (buf, starts) = built(n, &s);
            let base = buf.as_ptr() as u64;
            let page = |i: usize| (base + i as u64 * 64) / group;
            let cyc = follow(&buf, starts[0], 64);
            // The visit sequence, cut where the page changes, has each page exactly once
            // and each run holds every element of that page.
            let mut runs: Vec<(u64, usize)> = Vec::new();
            for &i in &cyc {
                match runs.last_mut() {
                    Some((p, len)) if *p == page(i) => *len += 1,
                    _ => runs.push((page(i), 1)),
                }
            }
            let mut pages: Vec<u64> = runs.iter().map(|r| r.0).collect();
            pages.sort_unstable();
            pages.dedup();
            prop_assert_eq!(pages.len(), runs.len(), "a page was left and re-entered");
            for (p, len) in runs {
                let members = (0..n).filter(|&i| page(i) == p).count();
                prop_assert_eq!(len, members);
            }
        }

        #[test]
        fn parallel_chains_are_disjoint_and_cover(n in 16usize..3000, seed in any::<u64>(),
                                                  c in 0usize..5, mode in 0usize..3) {
            let chains = SUPPORTED_CHAINS[c];
            let mode = [Mode::Random, Mode::Page, Mode::Seq][mode];
            let s = ChainSpec { seed, ..spec(mode, chains, 4096) };
            let (buf, starts) = built(n, &s);
            prop_assert_eq!(starts.len(), chains);
            let mut all: Vec<usize> = Vec::new();
            for &st in &starts {
                let cyc = follow(&buf, st, 64);
                prop_assert!(cyc.len() >= n / chains);
                all.extend(cyc);
            }
            all.sort_unstable();
            prop_assert_eq!(all, (0..n).collect::<Vec<_>>());
        }

        #[test]
        fn wide_elements_link_only_element_starts(n in 1usize..500, seed in any::<u64>()) {
            let s = ChainSpec { seed, element_bytes: 256, ..spec(Mode::Random, 1, 4096) };
            let (buf, starts) = built(n, &s);
            let cyc = follow(&buf, starts[0], 256);
            prop_assert_eq!(cyc.len(), n);
            // Words inside an element that are not its first stay untouched.
            prop_assert!(buf.iter().enumerate().all(|(w, &v)| w % 32 == 0 || v == 0));
        }
    }
}
