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

    /// Elements over all chains (one full pass of every chain loads this many).
    pub fn elements(&self) -> usize {
        self.elements
    }

    /// Parallel chains.
    pub fn chains(&self) -> usize {
        self.pos.len()
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
    use crate::latency::chase::Mode;

    #[test]
    fn walk_follows_the_chain_and_counts_loads() {
        for chains in chase::SUPPORTED_CHAINS {
            let mut buf = vec![0u64; 8 * 64];
            let base = buf.as_ptr() as usize;
            let spec = ChainSpec {
                mode: Mode::Seq,
                chains,
                element_bytes: 64,
                group_bytes: 4096,
                seed: 1,
            };
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
