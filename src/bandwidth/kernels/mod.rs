//! Kernel implementations and their run-time dispatch. A [`Kernel`] is a descriptor plus the
//! ISA whose code runs it; it can only be built by [`Kernel::new`], which checks that the CPU
//! has the ISA, so [`Kernel::run`] is safe to call. One call processes the slices it is given
//! once (or, for random reads, a given number of accesses) and returns how many elements it
//! processed, so the harness can poll its stop flag between calls.

pub mod scalar;
#[cfg(target_arch = "x86_64")]
mod simd;

#[cfg(target_arch = "x86_64")]
pub mod avx2;
#[cfg(target_arch = "x86_64")]
pub mod avx512;

use super::descriptor::{Access, KernelDescriptor, KernelId};
use super::isa::IsaError;
use crate::results::bandwidth::Isa;

/// Inputs of a kernel call besides its arrays.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// The scalar `s` of write, scale, triad and update.
    pub scalar: f64,
    /// Words per cache line: the stride of `read-strided` and the line of `random-read`.
    pub line_words: usize,
    /// Random lines read per call by `random-read`.
    pub random_accesses: usize,
    /// Times one call sweeps its arrays (at least once): the harness gives a cache-resident
    /// array several passes per call, so the call's fixed costs are paid once per poll.
    pub passes: usize,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            scalar: 3.0,
            line_words: 8,
            random_accesses: 4096,
            passes: 1,
        }
    }
}

/// What one call did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Elements processed (accesses for strided and random reads).
    pub elements: u64,
    /// Folded value of read kernels (wrapping sum of the bits read); 0 for the others. The
    /// harness keeps it so the reads cannot be optimized away.
    pub checksum: u64,
}

/// Why a kernel cannot run here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KernelError {
    #[error(transparent)]
    Isa(#[from] IsaError),
    #[error(
        "kernel `{0}` uses non-temporal stores, which numascope implements only on x86-64; \
         use the kernel without `-nt`"
    )]
    NoNonTemporal(&'static str),
    #[error("--stride does not apply to kernel `{0}` ({1}); drop --stride or use one of {list}", list = super::descriptor::strided_names())]
    NoStride(&'static str, &'static str),
    #[error("--stride 0 never advances; give a stride of at least 1 element (8 for one element per 64 B cache line)")]
    ZeroStride,
}

/// A runnable kernel: a descriptor, the ISA of the code that runs it and, for the strided
/// variants of the sequential kernels, the stride.
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    desc: &'static KernelDescriptor,
    isa: Isa,
    /// Elements (8 B words) between two consecutive elements processed; `None`: contiguous,
    /// no `--stride` given. `Some(1)` runs the contiguous code but is reported as a stride.
    stride: Option<usize>,
}

impl Kernel {
    /// Checks that the CPU has `isa` (and non-temporal stores for `-nt` kernels). Kernels
    /// without SIMD variants run their portable code whatever `isa` is; [`Kernel::isa`] says so.
    pub fn new(id: KernelId, isa: Isa) -> Result<Kernel, KernelError> {
        let desc = id.descriptor();
        isa.require()?;
        if desc.non_temporal && !cfg!(target_arch = "x86_64") {
            return Err(KernelError::NoNonTemporal(desc.name));
        }
        let isa = if desc.simd { isa } else { Isa::Scalar };
        Ok(Kernel {
            desc,
            isa,
            stride: None,
        })
    }

    /// This kernel walking every `stride`-th element (NUMA-STREAM's strided kernels): refused
    /// for kernels whose descriptor takes no stride and for 0. A stride above 1 runs the
    /// portable code (one scalar access per element: a vector would load words the kernel
    /// skips), so [`Kernel::isa`] becomes scalar; a stride of 1 keeps the SIMD code.
    pub fn with_stride(self, stride: usize) -> Result<Kernel, KernelError> {
        if let Some(why) = self.desc.stride_refusal() {
            return Err(KernelError::NoStride(self.desc.name, why));
        }
        if stride == 0 {
            return Err(KernelError::ZeroStride);
        }
        Ok(Kernel {
            isa: if stride > 1 { Isa::Scalar } else { self.isa },
            stride: Some(stride),
            ..self
        })
    }

    /// The stride given with [`Kernel::with_stride`], elements; `None` when contiguous.
    pub fn stride(&self) -> Option<usize> {
        self.stride
    }

    /// Estimated DRAM bytes per element processed on a machine with `line_bytes` lines: the
    /// descriptor's figure, scaled for a stride (see
    /// [`KernelDescriptor::strided_dram_bytes_per_element`]).
    pub fn dram_bytes_per_element(&self, line_bytes: u64) -> u64 {
        match self.stride {
            Some(s) => self
                .desc
                .strided_dram_bytes_per_element(line_bytes, s as u64),
            None => self.desc.dram_bytes_per_element(line_bytes),
        }
    }

    pub fn descriptor(&self) -> &'static KernelDescriptor {
        self.desc
    }

    /// The ISA whose code actually runs.
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// Runs the kernel once over `streams` (as many slices as the descriptor has streams,
    /// stream 0 the written one; lengths may differ, the shortest bounds the pass). `seed` is
    /// the random-read generator state, advanced by each call.
    ///
    /// # Panics
    /// When the number of slices is not the descriptor's stream count (a programming error).
    pub fn run(&self, streams: &mut [&mut [f64]], p: &Params, seed: &mut u64) -> Outcome {
        assert_eq!(
            streams.len(),
            self.desc.stream_count(),
            "kernel {} takes {} streams",
            self.desc.name,
            self.desc.stream_count()
        );
        let passes = p.passes.max(1);
        if let Some(stride) = self.stride.filter(|&s| s > 1) {
            return repeat(passes, || strided(self.desc.id, streams, p, stride));
        }
        if self.isa == Isa::Scalar {
            // The portable code sweeps once per call: repeat it.
            return repeat(passes, || self.run_once(streams, p, seed, 1));
        }
        self.run_once(streams, p, seed, passes)
    }

    /// One call of the kernel's code: `passes` sweeps inside the SIMD functions; the portable
    /// functions (and the strided and random reads) take one.
    fn run_once(
        &self,
        streams: &mut [&mut [f64]],
        p: &Params,
        seed: &mut u64,
        passes: usize,
    ) -> Outcome {
        let n = streams.iter().map(|s| s.len()).min().unwrap_or(0) as u64;
        let mut checksum = 0;
        let mut elements = n * passes as u64;
        let isa = self.isa;
        macro_rules! go {
            ($f:ident($($arg:expr),*)) => {
                match isa {
                    Isa::Scalar => scalar::$f($($arg),*),
                    // SAFETY: Kernel::new checked that the CPU supports this ISA.
                    #[cfg(target_arch = "x86_64")]
                    Isa::Avx2 => unsafe { avx2::$f($($arg,)* passes) },
                    // SAFETY: Kernel::new checked that the CPU supports this ISA.
                    #[cfg(target_arch = "x86_64")]
                    Isa::Avx512 => unsafe { avx512::$f($($arg,)* passes) },
                    #[cfg(not(target_arch = "x86_64"))]
                    Isa::Avx2 | Isa::Avx512 => unreachable!("Kernel::new refuses x86 ISAs here"),
                }
            };
        }
        match (self.desc.id, streams) {
            (KernelId::Read, [a]) => checksum = go!(read(a)),
            (KernelId::ReadPrefetch, [a]) => checksum = go!(read_prefetch(a)),
            (KernelId::Write, [a]) => go!(write(a, p.scalar)),
            (KernelId::Copy, [a, b]) => go!(copy(a, b)),
            (KernelId::Scale, [a, b]) => go!(scale(a, b, p.scalar)),
            (KernelId::Add, [a, b, c]) => go!(add(a, b, c)),
            (KernelId::Triad, [a, b, c]) => go!(triad(a, b, c, p.scalar)),
            (KernelId::Update, [a]) => go!(update(a, p.scalar)),
            #[cfg(target_arch = "x86_64")]
            (KernelId::WriteNt, [a]) => go!(write_nt(a, p.scalar)),
            #[cfg(target_arch = "x86_64")]
            (KernelId::CopyNt, [a, b]) => go!(copy_nt(a, b)),
            (KernelId::ReadStrided, [a]) => {
                let (count, sum) = scalar::read_strided(a, p.line_words);
                elements = count;
                checksum = sum;
            }
            (KernelId::RandomRead, [a]) => {
                checksum = scalar::random_read(a, p.line_words, p.random_accesses, seed);
                elements = if a.len() >= p.line_words.max(1) {
                    p.random_accesses as u64
                } else {
                    0
                };
            }
            (id, _) => unreachable!("{id:?}: stream count checked above; NT refused off x86-64"),
        }
        debug_assert!(
            self.desc.access != Access::Sequential || elements == n * passes as u64,
            "sequential kernels process every element"
        );
        Outcome { elements, checksum }
    }
}

/// `passes` calls of `f`, their elements and checksums summed (wrapping, as every read's).
fn repeat(passes: usize, mut f: impl FnMut() -> Outcome) -> Outcome {
    let mut total = Outcome {
        elements: 0,
        checksum: 0,
    };
    for _ in 0..passes {
        let o = f();
        total.elements += o.elements;
        total.checksum = total.checksum.wrapping_add(o.checksum);
    }
    total
}

/// The strided variants: every `stride`-th element from the first, in portable code.
fn strided(id: KernelId, streams: &mut [&mut [f64]], p: &Params, stride: usize) -> Outcome {
    let mut checksum = 0;
    let elements = match (id, streams) {
        (KernelId::Read, [a]) => {
            let (count, sum) = scalar::read_strided(a, stride);
            checksum = sum;
            count
        }
        (KernelId::Write, [a]) => scalar::write_strided(a, p.scalar, stride),
        (KernelId::Copy, [a, b]) => scalar::copy_strided(a, b, stride),
        (KernelId::Scale, [a, b]) => scalar::scale_strided(a, b, p.scalar, stride),
        (KernelId::Add, [a, b, c]) => scalar::add_strided(a, b, c, stride),
        (KernelId::Triad, [a, b, c]) => scalar::triad_strided(a, b, c, p.scalar, stride),
        (KernelId::Update, [a]) => scalar::update_strided(a, p.scalar, stride),
        (id, _) => unreachable!("{id:?}: Kernel::with_stride refuses kernels without a stride"),
    };
    Outcome { elements, checksum }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bandwidth::descriptor::KERNELS;
    use proptest::prelude::*;

    /// Deterministic, varied contents (no NaN: `x + s` must be comparable).
    fn data(n: usize, salt: u64) -> Vec<f64> {
        (0..n)
            .map(|i| ((i as u64 * 2654435761 + salt) % 100_003) as f64 * 0.37 - 5000.0)
            .collect()
    }

    /// Runs `id` with `isa` on buffers of `n` elements, each starting `offset` elements into
    /// its allocation (to exercise unaligned heads), and returns (outcome, stream contents).
    fn run_on(id: KernelId, isa: Isa, n: usize, offset: usize) -> (Outcome, Vec<Vec<f64>>) {
        run_passes(Kernel::new(id, isa).unwrap(), n, offset, 1)
    }

    /// [`run_on`] for a built kernel (a stride, say) and `passes` sweeps in one call.
    fn run_passes(k: Kernel, n: usize, offset: usize, passes: usize) -> (Outcome, Vec<Vec<f64>>) {
        let mut bufs: Vec<Vec<f64>> = (0..k.descriptor().stream_count())
            .map(|s| data(n + offset, s as u64 * 77 + 1))
            .collect();
        let mut slices: Vec<&mut [f64]> = bufs.iter_mut().map(|b| &mut b[offset..]).collect();
        let p = Params {
            scalar: 1.5,
            line_words: 8,
            random_accesses: 333,
            passes,
        };
        let mut seed = 12345;
        let out = k.run(&mut slices, &p, &mut seed);
        (out, bufs)
    }

    fn check_against_scalar(n: usize, offset: usize) {
        for isa in Isa::available() {
            for d in KERNELS {
                if d.non_temporal && !cfg!(target_arch = "x86_64") {
                    continue;
                }
                let want = run_on(d.id, Isa::Scalar, n, offset);
                let got = run_on(d.id, isa, n, offset);
                assert_eq!(got, want, "{} {isa} n={n} offset={offset}", d.name);
            }
        }
    }

    #[test]
    fn every_variant_matches_scalar_on_odd_sizes() {
        for n in [
            0, 1, 3, 7, 8, 9, 31, 63, 64, 65, 127, 129, 200, 511, 1000, 1027,
        ] {
            for offset in [0, 1, 3, 7] {
                check_against_scalar(n, offset);
            }
        }
    }

    /// Several passes in one call are that many calls: the same elements, the same wrapping
    /// checksum, the same contents (update adds s once per pass) in every ISA.
    #[test]
    fn passes_in_one_call_equal_repeated_calls() {
        for isa in Isa::available() {
            for d in KERNELS {
                if d.non_temporal && !cfg!(target_arch = "x86_64") {
                    continue;
                }
                for (n, offset) in [(0, 0), (7, 1), (200, 3), (1027, 0)] {
                    let k = Kernel::new(d.id, isa).unwrap();
                    let (once, _) = run_passes(k, n, offset, 1);
                    let (got, bufs) = run_passes(k, n, offset, 3);
                    let want = run_passes(Kernel::new(d.id, Isa::Scalar).unwrap(), n, offset, 3);
                    assert_eq!((got, &bufs), (want.0, &want.1), "{} {isa} n={n}", d.name);
                    if d.id != KernelId::RandomRead {
                        assert_eq!(got.elements, 3 * once.elements, "{} {isa}", d.name);
                        assert_eq!(got.checksum, once.checksum.wrapping_mul(3), "{}", d.name);
                    }
                }
            }
        }
    }

    /// A stride runs the portable strided code whatever ISA was asked for; stride 1 keeps the
    /// SIMD code and its results; the kernels without a stride refuse one, and 0 is refused.
    #[test]
    fn strides_dispatch_to_the_strided_code_and_refuse_what_does_not_apply() {
        let best = Isa::best();
        let k = Kernel::new(KernelId::Triad, best).unwrap();
        assert_eq!(k.stride(), None);
        let s8 = k.with_stride(8).unwrap();
        assert_eq!((s8.stride(), s8.isa()), (Some(8), Isa::Scalar));
        assert_eq!(k.with_stride(1).unwrap().isa(), best);
        assert_eq!(
            run_passes(k.with_stride(1).unwrap(), 301, 1, 2),
            run_passes(k, 301, 1, 2)
        );
        let (out, bufs) = run_passes(s8, 301, 1, 2);
        assert_eq!(out.elements, 2 * 38);
        let (b, c) = (&bufs[1][1..], &bufs[2][1..]);
        for (i, x) in bufs[0][1..].iter().enumerate() {
            if i % 8 == 0 {
                assert_eq!(*x, b[i] + 1.5 * c[i], "element {i}");
            }
        }
        let (out, _) = run_passes(
            Kernel::new(KernelId::Read, best)
                .unwrap()
                .with_stride(8)
                .unwrap(),
            64,
            0,
            1,
        );
        assert_eq!(out.elements, 8);
        assert_eq!(k.with_stride(0).unwrap_err(), KernelError::ZeroStride);
        for id in [
            KernelId::RandomRead,
            KernelId::ReadStrided,
            KernelId::ReadPrefetch,
        ] {
            let e = Kernel::new(id, best).unwrap().with_stride(8).unwrap_err();
            assert!(e.to_string().contains("drop --stride"), "{e}");
        }
        #[cfg(target_arch = "x86_64")]
        assert!(matches!(
            Kernel::new(KernelId::WriteNt, best).unwrap().with_stride(8),
            Err(KernelError::NoStride("write-nt", _))
        ));
        // The DRAM estimate follows the stride: four lines per triad element.
        assert_eq!(s8.dram_bytes_per_element(64), 256);
        assert_eq!(k.dram_bytes_per_element(64), 32);
    }

    #[test]
    fn nt_kernels_match_their_normal_twins() {
        for isa in Isa::available() {
            let (a, x) = run_on(KernelId::Copy, isa, 301, 5);
            let (b, y) = run_on(KernelId::CopyNt, isa, 301, 5);
            assert_eq!((a, x), (b, y));
            let (_, x) = run_on(KernelId::Write, isa, 301, 2);
            let (_, y) = run_on(KernelId::WriteNt, isa, 301, 2);
            assert_eq!(x, y);
        }
    }

    #[test]
    fn reads_return_the_folded_sum_and_count_elements() {
        let (out, bufs) = run_on(KernelId::Read, Isa::best(), 1001, 0);
        let want = bufs[0]
            .iter()
            .fold(0u64, |s, x| s.wrapping_add(x.to_bits()));
        assert_eq!(
            out,
            Outcome {
                elements: 1001,
                checksum: want
            }
        );
        let (out, _) = run_on(KernelId::ReadStrided, Isa::best(), 1001, 0);
        assert_eq!(out.elements, 126);
        let (out, _) = run_on(KernelId::RandomRead, Isa::best(), 1001, 0);
        assert_eq!(out.elements, 333);
        assert_eq!(
            Kernel::new(KernelId::RandomRead, Isa::best())
                .unwrap()
                .isa(),
            Isa::Scalar
        );
    }

    #[test]
    #[should_panic(expected = "takes 3 streams")]
    fn wrong_stream_count_is_a_programming_error() {
        let k = Kernel::new(KernelId::Triad, Isa::Scalar).unwrap();
        let mut a = [0.0; 4];
        k.run(&mut [&mut a[..]], &Params::default(), &mut 0);
    }

    proptest! {
        #[test]
        fn variants_match_scalar_on_random_shapes(n in 0usize..2100, offset in 0usize..8) {
            check_against_scalar(n, offset);
        }
    }
}
