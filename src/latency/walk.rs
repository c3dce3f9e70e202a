//! The timed dependent-load loop, the one piece of the latency engine whose machine code
//! matters. Each chain is a pointer `p` and each load is `p = *p`: the next address is the
//! value just loaded, so loads of one chain cannot overlap. The loop body is 16 loads
//! (unrolled; one chain x16, two x8, ... sixteen x1) so the loop counter costs nothing next to
//! them. The single chain, the headline latency, is inline assembly on x86_64 and AArch64 so
//! the timed loop is exactly 16 loads and a branch at any optimization level; the parallel
//! chains use `read_volatile`, so the compiler can neither drop nor merge loads. The final
//! pointers are kept and passed through `black_box`. Counters are 64-bit.
//!
//! A [`Chain`] owns the borrow of the buffer it walks: it can only be made by linking that
//! buffer (see [`super::chase`]), which is what makes the walk safe.

use std::hint::black_box;
use std::marker::PhantomData;

use super::chase::{self, ChainError, ChainSpec};

/// Loads in one iteration of every kernel.
pub const LOADS_PER_ITERATION: u64 = 16;

/// Linked chains over a buffer, ready to walk. Holds the buffer's exclusive borrow so no
/// one can change the links while it exists.
pub struct Chain<'a> {
    pos: Vec<usize>,
    elements: usize,
    _buf: PhantomData<&'a mut [u64]>,
}

impl<'a> Chain<'a> {
    /// Builds `spec` over all of `buf` (the working set).
    pub fn build(buf: &'a mut [u64], spec: &ChainSpec) -> Result<Chain<'a>, ChainError> {
        let bytes = std::mem::size_of_val(buf) as u64;
        let n = chase::check(spec, bytes)?;
        let base = buf.as_ptr() as u64;
        let order = chase::visit_order(n, base, spec);
        let starts = chase::link(buf, &order, spec);
        drop(order);
        let words = (spec.element_bytes / 8) as usize;
        let pos = starts
            .iter()
            .map(|&i| buf[i * words..].as_ptr() as usize)
            .collect();
        Ok(Chain {
            pos,
            elements: n,
            _buf: PhantomData,
        })
    }

    /// The chain's links without its borrow, to walk it again later over the same buffer
    /// ([`Chain::again`]; only [`super::kept::KeptChain`], which owns that buffer, does).
    pub(super) fn links(&self, buf_base: usize, buf_words: usize) -> Links {
        Links {
            pos: self.pos.clone(),
            elements: self.elements,
            base: buf_base,
            words: buf_words,
        }
    }

    /// The chain `links` came from, walked again over `buf`: the buffer it was linked in,
    /// untouched since (its owner lends it only through this), from the chains' starts.
    pub(super) fn again(buf: &'a mut [u64], links: &Links) -> Chain<'a> {
        assert!(
            buf.as_ptr() as usize == links.base && buf.len() == links.words,
            "a chain's links were walked over another buffer"
        );
        Chain {
            pos: links.pos.clone(),
            elements: links.elements,
            _buf: PhantomData,
        }
    }

    /// Elements over all chains (one full pass of every chain loads this many).
    pub fn elements(&self) -> usize {
        self.elements
    }

    /// Parallel chains.
    pub fn chains(&self) -> usize {
        self.pos.len()
    }

    /// Where chain `c` stands (an address inside the buffer), for tests of the kernels.
    #[cfg(test)]
    pub(crate) fn position(&self, c: usize) -> Option<usize> {
        self.pos.get(c).copied()
    }

    /// Runs `iterations` x 16 dependent loads (spread over the chains) and returns the
    /// number of loads. Positions carry over from one call to the next.
    pub fn walk(&mut self, iterations: u64) -> u64 {
        macro_rules! run {
            ($n:literal) => {{
                let mut p = [0usize; $n];
                p.copy_from_slice(&self.pos);
                // SAFETY: every position came from `chase::link` over the buffer this Chain
                // borrows exclusively for 'a, and every element holds the address of another
                // element of that buffer, so each load reads an aligned u64 inside it.
                unsafe { walk_n::<$n>(&mut p, iterations) };
                self.pos.copy_from_slice(&black_box(p));
            }};
        }
        match self.pos.len() {
            1 => run!(1),
            2 => run!(2),
            4 => run!(4),
            8 => run!(8),
            16 => run!(16),
            other => unreachable!("chase::check admits only 1, 2, 4, 8, 16 chains, not {other}"),
        }
        iterations * LOADS_PER_ITERATION
    }

    /// Times `groups` consecutive groups of [`LOADS_PER_ITERATION`] dependent loads of a
    /// single chain with the CPU's counter ([`super::distribution`] says which), appending each
    /// group's counter ticks (loads plus the counter's own cost) to `out`. `false` (and nothing
    /// timed) when this chain has more than one chain or the architecture has no counter
    /// kernel.
    pub fn timed_groups(&mut self, groups: usize, out: &mut Vec<u64>) -> bool {
        if self.pos.len() != 1 || !timed::AVAILABLE {
            return false;
        }
        out.reserve(groups);
        let mut p = self.pos[0];
        for _ in 0..groups {
            // SAFETY: `p` came from `chase::link` over the buffer this Chain borrows
            // exclusively (or from a previous load of it), and every element holds the
            // address of another element of that buffer.
            let (next, ticks) = unsafe { timed::group(p) };
            p = next;
            out.push(ticks);
        }
        self.pos[0] = black_box(p);
        true
    }
}

/// A chain's starts and the buffer they lie in ([`Chain::links`]).
pub(super) struct Links {
    pos: Vec<usize>,
    elements: usize,
    base: usize,
    words: usize,
}

/// One buffer holding several chains that live at once, each linking its own words (a sweep
/// in passes keeps every size's chain: `super::blocks::interleaved`). Chains in the same
/// cache lines are allowed when they link different words of the elements; the arena checks
/// every new chain against the chains built before it and refuses one that would link a word
/// another links, so a chain's links never change while it exists. Holds the buffer's
/// exclusive borrow for 'a.
pub struct ChainArena<'a> {
    base: *mut u64,
    words: usize,
    /// (first word, words spanned, words per element) of every chain built.
    taken: Vec<(usize, usize, usize)>,
    _buf: PhantomData<&'a mut [u64]>,
}

impl<'a> ChainArena<'a> {
    pub fn new(buf: &'a mut [u64]) -> ChainArena<'a> {
        ChainArena {
            base: buf.as_mut_ptr(),
            words: buf.len(),
            taken: Vec::new(),
            _buf: PhantomData,
        }
    }

    /// Builds `spec` over `bytes` starting at word `start` of the buffer (cut to the buffer's
    /// end); its elements are `spec.element_bytes` apart, so it links the words `start`,
    /// `start + element words`, ... [`ChainError::Overlap`] when a chain built before links
    /// one of them.
    pub fn build(
        &mut self,
        start: usize,
        bytes: u64,
        spec: &ChainSpec,
    ) -> Result<Chain<'a>, ChainError> {
        let start = start.min(self.words);
        let len = ((bytes / 8) as usize).min(self.words - start);
        let step = ((spec.element_bytes / 8) as usize).max(1);
        let clash = self.taken.iter().any(|&(s, l, e)| {
            let overlap = start < s + l && s < start + len;
            // Two strides of the same length link the same words only in the same phase.
            overlap && (e != step || start.abs_diff(s) % step == 0)
        });
        if clash {
            return Err(ChainError::Overlap(start));
        }
        // SAFETY: `start + len` is within the buffer this arena borrows exclusively for 'a,
        // so the slice is valid memory; it lives only for this call. Linking writes only the
        // words `start + k * step`, which no chain built before links (checked just above:
        // a chain whose span overlaps either has the same stride and another phase, or is
        // refused), and a built chain only reads its own links, so no chain's links change
        // while it exists; no other reference to the buffer exists while the arena does.
        let words = unsafe { std::slice::from_raw_parts_mut(self.base.add(start), len) };
        let chain = Chain::build(words, spec)?;
        self.taken.push((start, len, step));
        Ok(chain)
    }
}

/// The counter-read cost alone: `reads` pairs of the same counter reads and fences that time
/// a group in [`Chain::timed_groups`], with no load between them, appended to `out` in ticks.
/// `false` when the architecture has no counter kernel.
pub fn timed_empty(reads: usize, out: &mut Vec<u64>) -> bool {
    if !timed::AVAILABLE {
        return false;
    }
    out.reserve(reads);
    for _ in 0..reads {
        out.push(timed::empty());
    }
    true
}

/// The counter itself, for calibrating its rate; `None` off x86_64 and AArch64.
pub fn counter_now() -> Option<u64> {
    timed::AVAILABLE.then(timed::now)
}

/// The timed group kernels. x86_64: `lfence; rdtsc; lfence` starts (the fence after keeps the
/// first load from starting early), `rdtscp; lfence` ends (RDTSCP waits until every earlier
/// instruction, the last load included, has executed). AArch64: `isb; mrs cntvct_el0; isb`
/// starts, `dsb ish; isb; mrs cntvct_el0` ends (DSB waits for the loads to complete). The
/// loads are exactly 16 `p = *p` in assembly, as in [`walk_one`].
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod timed {
    pub const AVAILABLE: bool = true;

    /// The counter reads and fences around `$loads` loads `$p = *$p`, the ticks between
    /// them written to `$ticks`.
    #[cfg(target_arch = "x86_64")]
    macro_rules! timed_asm {
        ($loads:literal, $p:ident, $ticks:ident) => {
            std::arch::asm!(
                "lfence",
                "rdtsc",
                "lfence",
                "shl rdx, 32",
                "or rax, rdx",
                "mov {t0}, rax",
                concat!(".rept ", $loads),
                "mov {p}, qword ptr [{p}]",
                ".endr",
                "rdtscp",
                "lfence",
                "shl rdx, 32",
                "or rax, rdx",
                "sub rax, {t0}",
                p = inout(reg) $p,
                t0 = out(reg) _,
                out("rax") $ticks,
                out("rdx") _,
                out("rcx") _,
                options(nostack, readonly),
            )
        };
    }

    #[cfg(target_arch = "aarch64")]
    macro_rules! timed_asm {
        ($loads:literal, $p:ident, $ticks:ident) => {
            std::arch::asm!(
                "isb",
                "mrs {t0}, cntvct_el0",
                "isb",
                concat!(".rept ", $loads),
                "ldr {p}, [{p}]",
                ".endr",
                "dsb ish",
                "isb",
                "mrs {t1}, cntvct_el0",
                "sub {t1}, {t1}, {t0}",
                p = inout(reg) $p,
                t0 = out(reg) _,
                t1 = out(reg) $ticks,
                options(nostack, readonly),
            )
        };
    }

    macro_rules! group_asm {
        ($loads:literal, $p:expr) => {{
            let mut p: usize = $p;
            let ticks: u64;
            // SAFETY: (of the expansion site's contract) the loads read only links; the rest is
            // counter reads and fences (barriers on AArch64) on the declared registers.
            unsafe {
                timed_asm!($loads, p, ticks);
            }
            (p, ticks)
        }};
    }

    /// # Safety
    /// `p` points to a link of a chain as in [`super::walk_n`].
    #[inline(never)]
    pub unsafe fn group(p: usize) -> (usize, u64) {
        group_asm!("16", p)
    }

    #[inline(never)]
    pub fn empty() -> u64 {
        group_asm!("0", 0).1
    }

    #[cfg(target_arch = "x86_64")]
    pub fn now() -> u64 {
        crate::sys::cpu::rdtsc()
    }

    #[cfg(target_arch = "aarch64")]
    pub fn now() -> u64 {
        let t: u64;
        // SAFETY: reading the virtual counter is allowed at EL0 on Linux and has no effects.
        unsafe {
            std::arch::asm!("isb", "mrs {t}, cntvct_el0", t = out(reg) t, options(nostack, nomem));
        }
        t
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
mod timed {
    pub const AVAILABLE: bool = false;

    /// # Safety
    /// Never called: [`AVAILABLE`] is false.
    pub unsafe fn group(p: usize) -> (usize, u64) {
        (p, 0)
    }

    pub fn empty() -> u64 {
        0
    }

    pub fn now() -> u64 {
        0
    }
}

/// The kernel: `iterations` rounds of 16 loads, `16 / N` per chain, chains interleaved.
///
/// # Safety
/// Each `p[c]` must point to an aligned u64 that holds the address of another such u64, and
/// so on for every address reached, all inside memory that stays valid and unmodified for the
/// call.
#[inline(never)]
unsafe fn walk_n<const N: usize>(p: &mut [usize; N], iterations: u64) {
    if iterations == 0 {
        return;
    }
    if N == 1 {
        // SAFETY: forwarded contract of this function.
        p[0] = unsafe { walk_one(p[0], iterations) };
        return;
    }
    let per_chain = LOADS_PER_ITERATION as usize / N;
    let mut q = *p;
    for _ in 0..iterations {
        for _ in 0..per_chain {
            for c in q.iter_mut() {
                // SAFETY: per this function's contract `*c` points to a valid link.
                *c = unsafe { std::ptr::read_volatile(*c as *const usize) };
            }
        }
    }
    *p = q;
}

/// The single-chain kernel, written in assembly where numascope has it so that the timed loop
/// is exactly 16 dependent loads (`$load`) plus a counted branch (`$count`, `$branch`),
/// whatever the optimization level (a debug build must not measure its own bounds checks).
/// One body for every architecture; only the three instructions differ.
macro_rules! walk_one_asm {
    ($arch:literal, $load:literal, $count:literal, $branch:literal) => {
        /// The single-chain kernel in assembly (see [`walk_one_asm`]).
        ///
        /// # Safety
        /// As [`walk_n`]; `iterations` > 0.
        #[cfg(target_arch = $arch)]
        #[inline(never)]
        unsafe fn walk_one(mut p: usize, iterations: u64) -> usize {
            // SAFETY: the caller guarantees every address reached is a readable link; the
            // loop only reads memory and uses the two declared registers and the flags.
            unsafe {
                std::arch::asm!(
                    ".p2align 5",
                    "2:",
                    ".rept 16",
                    $load,
                    ".endr",
                    $count,
                    $branch,
                    p = inout(reg) p,
                    n = inout(reg) iterations => _,
                    options(nostack, readonly),
                );
            }
            p
        }
    };
}

walk_one_asm!("x86_64", "mov {p}, qword ptr [{p}]", "dec {n}", "jnz 2b");
walk_one_asm!("aarch64", "ldr {p}, [{p}]", "subs {n}, {n}, #1", "b.ne 2b");

/// Portable single-chain kernel.
///
/// # Safety
/// As [`walk_n`].
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
#[inline(never)]
unsafe fn walk_one(mut p: usize, iterations: u64) -> usize {
    for _ in 0..iterations {
        for _ in 0..LOADS_PER_ITERATION {
            // SAFETY: per the contract `p` points to a valid link.
            p = unsafe { std::ptr::read_volatile(p as *const usize) };
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chains in different words of the same lines live side by side and each walks its own
    /// cycle; a chain that would link a word another links is refused.
    #[test]
    fn an_arena_keeps_chains_in_different_words_apart() {
        let mut buf = vec![0u64; 8 * 64 + 8];
        let base = buf.as_ptr() as usize;
        let spec = crate::testutil::seq_chain(1);
        let mut arena = ChainArena::new(&mut buf);
        let mut a = arena.build(0, 64 * 64, &spec).unwrap();
        let mut b = arena.build(1, 32 * 64, &spec).unwrap();
        assert_eq!((a.elements(), b.elements()), (64, 32));
        assert!(matches!(
            arena.build(0, 64, &spec),
            Err(ChainError::Overlap(0))
        ));
        assert!(matches!(
            arena.build(8 * 20 + 1, 64, &spec),
            Err(ChainError::Overlap(161))
        ));
        // Beyond b's span, word 1 of a line is free again.
        let c = arena.build(8 * 32 + 1, 64 * 8, &spec).unwrap();
        assert_eq!(c.elements(), 8);
        // Each walks its own cycle: a over 64 lines in word 0, b over 32 lines in word 1.
        a.walk(4);
        b.walk(4);
        assert_eq!((a.pos[0] - base) % 64, 0);
        assert_eq!((b.pos[0] - base) % 64, 8);
        assert_eq!((a.pos[0] - base) / 64, 64 % 64);
        assert_eq!((b.pos[0] - base) / 64, 64 % 32);
    }

    #[test]
    fn walk_follows_the_chain_and_counts_loads() {
        for chains in chase::SUPPORTED_CHAINS {
            let mut buf = vec![0u64; 8 * 64];
            let base = buf.as_ptr() as usize;
            let spec = crate::testutil::seq_chain(chains);
            let mut ch = Chain::build(&mut buf, &spec).unwrap();
            assert_eq!(ch.elements(), 64);
            // Seq over 64 elements split into `chains` cycles of 64/chains: after 16 loads
            // (16/chains per chain) every chain has gone round 16/chains steps mod its length.
            let loads = ch.walk(3);
            assert_eq!(loads, 48);
            let len = 64 / chains;
            let steps = 48 / chains;
            for c in 0..chains {
                let expect = c * len + steps % len;
                assert_eq!((ch.pos[c] - base) / 64, expect, "chains {chains} chain {c}");
            }
        }
    }
}
