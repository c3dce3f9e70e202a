//! One template for the AVX2 and AVX-512 kernels, so both widths share a single, reviewed loop
//! structure and differ only in the intrinsics named. Each kernel processes blocks of
//! `UNROLL` vectors per iteration (8 vectors: 4 lines with AVX2, 8 lines with AVX-512),
//! then single vectors, then a scalar tail; non-temporal kernels first store scalars until the
//! destination is vector aligned (streaming stores need it) and end the call (not each pass)
//! with `sfence`.
//! Loads and normal stores are unaligned-tolerant (`loadu`/`storeu`), which costs nothing on
//! aligned data. Every kernel takes a number of passes and sweeps its arrays that many times
//! in one call, so a cache-resident array pays the call, the dispatch and the fold of the
//! read accumulators once per poll of the stop flag rather than once per pass (at 16 KiB one
//! pass is a few hundred cycles, and those costs were 5-8 % of it). All functions are `unsafe` only because they require the CPU feature: the
//! caller must have checked it (see `kernels::Kernel::new`).

macro_rules! simd_kernels {
    (
        feature = $feat:literal,
        reg = $reg:ident,
        lanes = $L:expr,
        vi = $vi:ty,
        loadu_pd = $loadu:ident,
        storeu_pd = $storeu:ident,
        stream_pd = $stream:ident,
        set1_pd = $set1:ident,
        add_pd = $addpd:ident,
        mul_pd = $mulpd:ident,
        loadu_si = $loadsi:ident,
        storeu_si = $storesi:ident,
        add_epi64 = $addq:ident,
        setzero_si = $zero:ident $(,)?
    ) => {
        /// Vectors per unrolled iteration.
        const UNROLL: usize = 8;
        /// Elements per unrolled iteration.
        const BLOCK: usize = $L * UNROLL;
        /// Vector width in bytes (the alignment streaming stores need).
        const VBYTES: usize = $L * 8;

        /// Elements to store one by one before `p` is vector aligned (at most `n`).
        #[inline(always)]
        fn head_to_align(p: *const f64, n: usize) -> usize {
            let mis = (p as usize) % VBYTES;
            let head = if mis == 0 { 0 } else { (VBYTES - mis) / 8 };
            head.min(n)
        }

        /// Ends one pass of a multi-pass call: a compiler barrier with a memory clobber, so
        /// the stores of one pass are never merged with the next (they are not dead: the
        /// barrier may read them) and the loads of the next pass are not reused from this one.
        #[inline(always)]
        fn end_of_pass() {
            // SAFETY: an empty template; it executes nothing, it only stops the compiler from
            // moving memory accesses across it.
            unsafe { core::arch::asm!("", options(nostack, preserves_flags)) };
        }

        /// Folds vector accumulators into one wrapping sum.
        #[target_feature(enable = $feat)]
        unsafe fn fold(acc: &[$vi; UNROLL]) -> u64 {
            let mut sum = 0u64;
            for v in acc {
                let mut lanes = [0u64; $L];
                // SAFETY: `lanes` is exactly one vector long; the store is unaligned-tolerant.
                unsafe { $storesi(lanes.as_mut_ptr().cast::<$vi>(), *v) };
                for l in lanes {
                    sum = sum.wrapping_add(l);
                }
            }
            sum
        }

        /// Wrapping sum of the bits of every element.
        ///
        /// # Safety
        /// The CPU must support the target feature.
        #[target_feature(enable = $feat)]
        pub unsafe fn read(a: &[f64], passes: usize) -> u64 {
            // SAFETY: same feature as this function.
            unsafe { read_lines::<false>(a, passes) }
        }

        /// [`read`] with a software prefetch of the line `PREFETCH_BYTES` ahead of each one.
        ///
        /// # Safety
        /// The CPU must support the target feature.
        #[target_feature(enable = $feat)]
        pub unsafe fn read_prefetch(a: &[f64], passes: usize) -> u64 {
            // SAFETY: same feature as this function.
            unsafe { read_lines::<true>(a, passes) }
        }

        /// The read loop of [`read`] and [`read_prefetch`]: `PREFETCH` is a constant, so each
        /// instantiation compiles to its own loop, with or without the prefetches.
        ///
        /// # Safety
        /// The CPU must support the target feature.
        #[inline]
        #[target_feature(enable = $feat)]
        unsafe fn read_lines<const PREFETCH: bool>(a: &[f64], passes: usize) -> u64 {
            use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let n = a.len();
            let p = a.as_ptr();
            let mut acc = [$zero(); UNROLL];
            let mut tail = 0u64;
            for _ in 0..passes.max(1) {
            let mut i = 0;
            while i + BLOCK <= n {
                let mut off = 0;
                while PREFETCH && off < BLOCK * 8 {
                    // SAFETY: prefetch never faults; wrapping_add keeps the arithmetic defined.
                    unsafe {
                        _mm_prefetch::<_MM_HINT_T0>(
                            p.add(i).cast::<i8>().wrapping_add(PREFETCH_BYTES + off),
                        )
                    };
                    off += 64;
                }
                for (u, acc_u) in acc.iter_mut().enumerate() {
                    // SAFETY: i + BLOCK <= n, so this vector lies inside `a`.
                    let v = unsafe { $loadsi(p.add(i + u * $L).cast::<$vi>()) };
                    *acc_u = $addq(*acc_u, v);
                }
                i += BLOCK;
            }
            for x in &a[i..] {
                tail = tail.wrapping_add(x.to_bits());
            }
            end_of_pass();
            }
            // SAFETY: same feature as this function.
            unsafe { fold(&acc) }.wrapping_add(tail)
        }

        /// `a[i] = v` with normal stores.
        ///
        /// # Safety
        /// The CPU must support the target feature.
        #[target_feature(enable = $feat)]
        pub unsafe fn write(a: &mut [f64], v: f64, passes: usize) {
            let n = a.len();
            let vv = $set1(v);
            for _ in 0..passes.max(1) {
            let p = a.as_mut_ptr();
            let mut i = 0;
            while i + BLOCK <= n {
                for u in 0..UNROLL {
                    // SAFETY: i + BLOCK <= n, so this vector lies inside `a`.
                    unsafe { $storeu(p.add(i + u * $L), vv) };
                }
                i += BLOCK;
            }
            for x in &mut a[i..] {
                *x = v;
            }
            end_of_pass();
            }
        }

        /// `a[i] = v` with streaming stores and a closing `sfence`.
        ///
        /// # Safety
        /// The CPU must support the target feature.
        #[target_feature(enable = $feat)]
        pub unsafe fn write_nt(a: &mut [f64], v: f64, passes: usize) {
            let n = a.len();
            for _ in 0..passes.max(1) {
            let head = head_to_align(a.as_ptr(), n);
            for x in &mut a[..head] {
                *x = v;
            }
            let p = a.as_mut_ptr();
            let vv = $set1(v);
            let mut i = head;
            while i + BLOCK <= n {
                for u in 0..UNROLL {
                    // SAFETY: in bounds (i + BLOCK <= n) and vector aligned (head aligned p+i,
                    // and i advances by whole vectors).
                    unsafe { $stream(p.add(i + u * $L), vv) };
                }
                i += BLOCK;
            }
            while i + $L <= n {
                // SAFETY: in bounds and aligned as above.
                unsafe { $stream(p.add(i), vv) };
                i += $L;
            }
            for x in &mut a[i..] {
                *x = v;
            }
            end_of_pass();
            }
            // One fence per call, not per pass: a fence drains the write-combining
            // buffers and waits, so one per pass of a 16 KiB array (every 256 lines) cost
            // 14-19 % against likwid-bench's store_mem_avx, which fences never. The caller
            // needs the stores ordered only before it reads the clock and the stop flag.
            core::arch::x86_64::_mm_sfence();
        }

        /// Shared body of the two-operand kernels: `a[i] = f(b[i])`, normal or streaming stores.
        macro_rules! unary_body {
            ($a:ident, $b:ident, $passes:expr, $nt:expr, |$x:ident| $vop:expr, |$s:ident| $sop:expr) => {{
                let n = $a.len().min($b.len());
                for _ in 0..$passes.max(1) {
                let head = if $nt {
                    head_to_align($a.as_ptr(), n)
                } else {
                    0
                };
                for j in 0..head {
                    let $s = $b[j];
                    $a[j] = $sop;
                }
                let pa = $a.as_mut_ptr();
                let pb = $b.as_ptr();
                let mut i = head;
                while i + BLOCK <= n {
                    for u in 0..UNROLL {
                        // SAFETY: i + BLOCK <= n bounds both slices; a streaming store's
                        // destination is vector aligned (see write_nt).
                        unsafe {
                            let $x = $loadu(pb.add(i + u * $L));
                            if $nt {
                                $stream(pa.add(i + u * $L), $vop);
                            } else {
                                $storeu(pa.add(i + u * $L), $vop);
                            }
                        }
                    }
                    i += BLOCK;
                }
                for j in i..n {
                    let $s = $b[j];
                    $a[j] = $sop;
                }
                end_of_pass();
                }
                // One fence per call, not per pass (see write_nt).
                if $nt {
                    core::arch::x86_64::_mm_sfence();
                }
            }};
        }

        /// `a[i] = b[i]`.
        ///
        /// # Safety
        /// The CPU must support the target feature.
        #[target_feature(enable = $feat)]
        pub unsafe fn copy(a: &mut [f64], b: &[f64], passes: usize) {
            // A plain load-store loop is recognised by LLVM as a memcpy idiom and replaced by
            // a call to glibc's memcpy (seen in the disassembly: 20 % below likwid's copy_avx
            // here), which is not the kernel this claims to be. An empty asm that "uses" each
            // vector keeps the loop as written: one vector load and one store per element.
            unary_body!(
                a,
                b,
                passes,
                false,
                |x| {
                    let mut v = x;
                    // SAFETY: an empty template with one register operand; touches nothing.
                    core::arch::asm!("/* {0} */", inout($reg) v, options(pure, nomem, nostack, preserves_flags));
                    v
                },
                |s| s
            )
        }

        /// `a[i] = b[i]` with streaming stores.
        ///
        /// # Safety
        /// The CPU must support the target feature.
        #[target_feature(enable = $feat)]
        pub unsafe fn copy_nt(a: &mut [f64], b: &[f64], passes: usize) {
            unary_body!(a, b, passes, true, |x| x, |s| s)
        }

        /// `a[i] = s * b[i]`.
        ///
        /// # Safety
        /// The CPU must support the target feature.
        #[target_feature(enable = $feat)]
        pub unsafe fn scale(a: &mut [f64], b: &[f64], s: f64, passes: usize) {
            let vs = $set1(s);
            unary_body!(a, b, passes, false, |x| $mulpd(vs, x), |y| s * y)
        }

        /// `a[i] = a[i] + s` (read-modify-write).
        ///
        /// # Safety
        /// The CPU must support the target feature.
        #[target_feature(enable = $feat)]
        pub unsafe fn update(a: &mut [f64], s: f64, passes: usize) {
            let n = a.len();
            let vs = $set1(s);
            for _ in 0..passes.max(1) {
            let p = a.as_mut_ptr();
            let mut i = 0;
            while i + BLOCK <= n {
                for u in 0..UNROLL {
                    // SAFETY: i + BLOCK <= n, so this vector lies inside `a`.
                    unsafe {
                        let x = $loadu(p.add(i + u * $L));
                        $storeu(p.add(i + u * $L), $addpd(x, vs));
                    }
                }
                i += BLOCK;
            }
            for x in &mut a[i..] {
                *x += s;
            }
            end_of_pass();
            }
        }

        /// Shared body of the three-operand kernels: `a[i] = f(b[i], c[i])`.
        macro_rules! binary_body {
            ($a:ident, $b:ident, $c:ident, $passes:expr, |$x:ident, $y:ident| $vop:expr,
                                                             |$s:ident, $t:ident| $sop:expr) => {{
                let n = $a.len().min($b.len()).min($c.len());
                for _ in 0..$passes.max(1) {
                let pa = $a.as_mut_ptr();
                let pb = $b.as_ptr();
                let pc = $c.as_ptr();
                let mut i = 0;
                while i + BLOCK <= n {
                    for u in 0..UNROLL {
                        // SAFETY: i + BLOCK <= n bounds all three slices.
                        unsafe {
                            let $x = $loadu(pb.add(i + u * $L));
                            let $y = $loadu(pc.add(i + u * $L));
                            $storeu(pa.add(i + u * $L), $vop);
                        }
                    }
                    i += BLOCK;
                }
                for j in i..n {
                    let ($s, $t) = ($b[j], $c[j]);
                    $a[j] = $sop;
                }
                end_of_pass();
                }
            }};
        }

        /// `a[i] = b[i] + c[i]`.
        ///
        /// # Safety
        /// The CPU must support the target feature.
        #[target_feature(enable = $feat)]
        pub unsafe fn add(a: &mut [f64], b: &[f64], c: &[f64], passes: usize) {
            binary_body!(a, b, c, passes, |x, y| $addpd(x, y), |s, t| s + t)
        }

        /// `a[i] = b[i] + s * c[i]`, multiply then add (not fused), like the scalar reference.
        ///
        /// # Safety
        /// The CPU must support the target feature.
        #[target_feature(enable = $feat)]
        pub unsafe fn triad(a: &mut [f64], b: &[f64], c: &[f64], s: f64, passes: usize) {
            let vs = $set1(s);
            binary_body!(a, b, c, passes, |x, y| $addpd(x, $mulpd(vs, y)), |p, q| p + s * q)
        }
    };
}

pub(crate) use simd_kernels;
