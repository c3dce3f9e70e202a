//! Portable kernels: the reference every SIMD and non-temporal variant is tested against, the
//! fallback on CPUs (and architectures such as aarch64) without AVX2, and the only
//! implementation of the strided and random reads and of the `--stride` variants of the
//! sequential kernels, which are bound by memory-level parallelism rather than vector width. Plain Rust loops; the compiler may use the baseline
//! SIMD of the target. Read kernels fold every element into a wrapping `u64` sum of its bits,
//! which is order-independent, so every variant must return exactly the same checksum.

/// Wrapping sum of the bit patterns of every element.
pub fn read(a: &[f64]) -> u64 {
    let mut acc = [0u64; 4];
    let mut chunks = a.chunks_exact(4);
    for c in &mut chunks {
        for k in 0..4 {
            acc[k] = acc[k].wrapping_add(c[k].to_bits());
        }
    }
    let mut sum = acc.iter().fold(0u64, |s, &x| s.wrapping_add(x));
    for x in chunks.remainder() {
        sum = sum.wrapping_add(x.to_bits());
    }
    sum
}

/// [`read`] with a software prefetch `PREFETCH_BYTES` ahead on x86-64.
pub fn read_prefetch(a: &[f64]) -> u64 {
    let mut acc = [0u64; 8];
    let mut chunks = a.chunks_exact(8);
    for c in &mut chunks {
        prefetch_ahead(c.as_ptr());
        for k in 0..8 {
            acc[k] = acc[k].wrapping_add(c[k].to_bits());
        }
    }
    let mut sum = acc.iter().fold(0u64, |s, &x| s.wrapping_add(x));
    for x in chunks.remainder() {
        sum = sum.wrapping_add(x.to_bits());
    }
    sum
}

/// How far ahead the prefetching read kernels ask for lines, bytes.
pub const PREFETCH_BYTES: usize = 2048;

#[inline(always)]
fn prefetch_ahead(p: *const f64) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is a hint that never faults, whatever the address; wrapping_add
        // keeps the pointer arithmetic itself defined past the end of the slice.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>().wrapping_add(PREFETCH_BYTES)) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// `a[i] = v`.
pub fn write(a: &mut [f64], v: f64) {
    for x in a.iter_mut() {
        *x = v;
    }
}

/// `a[i] = v` with non-temporal `movnti` stores and a closing `sfence` (x86-64 only).
#[cfg(target_arch = "x86_64")]
pub fn write_nt(a: &mut [f64], v: f64) {
    use core::arch::x86_64::{_mm_sfence, _mm_stream_si64};
    let bits = v.to_bits() as i64;
    let p = a.as_mut_ptr().cast::<i64>();
    for i in 0..a.len() {
        // SAFETY: i < a.len(), so p.add(i) is a valid, 8-byte aligned element of `a`.
        unsafe { _mm_stream_si64(p.add(i), bits) };
    }
    // SAFETY: sfence has no memory operands; it orders the streaming stores before later ones.
    unsafe { _mm_sfence() };
}

/// `a[i] = b[i]`.
pub fn copy(a: &mut [f64], b: &[f64]) {
    let n = a.len().min(b.len());
    a[..n].copy_from_slice(&b[..n]);
}

/// `a[i] = b[i]` with non-temporal stores (x86-64 only).
#[cfg(target_arch = "x86_64")]
pub fn copy_nt(a: &mut [f64], b: &[f64]) {
    use core::arch::x86_64::{_mm_sfence, _mm_stream_si64};
    let n = a.len().min(b.len());
    let p = a.as_mut_ptr().cast::<i64>();
    for (i, x) in b[..n].iter().enumerate() {
        // SAFETY: i < n <= a.len(), so p.add(i) is a valid, aligned element of `a`.
        unsafe { _mm_stream_si64(p.add(i), x.to_bits() as i64) };
    }
    // SAFETY: sfence has no memory operands.
    unsafe { _mm_sfence() };
}

/// `a[i] = s * b[i]`.
pub fn scale(a: &mut [f64], b: &[f64], s: f64) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = s * y;
    }
}

/// `a[i] = b[i] + c[i]`.
pub fn add(a: &mut [f64], b: &[f64], c: &[f64]) {
    for ((x, y), z) in a.iter_mut().zip(b).zip(c) {
        *x = y + z;
    }
}

/// `a[i] = b[i] + s * c[i]` (multiply then add, not fused, as STREAM compiles it without FMA
/// contraction).
pub fn triad(a: &mut [f64], b: &[f64], c: &[f64], s: f64) {
    for ((x, y), z) in a.iter_mut().zip(b).zip(c) {
        *x = y + s * z;
    }
}

/// `a[i] = a[i] + s`.
pub fn update(a: &mut [f64], s: f64) {
    for x in a.iter_mut() {
        *x += s;
    }
}

/// Reads one word every `stride` elements (one per cache line when `stride` is the line
/// size in words); returns (words read, wrapping sum of their bits).
pub fn read_strided(a: &[f64], stride: usize) -> (u64, u64) {
    let stride = stride.max(1);
    let n = a.len();
    let mut acc = [0u64; 4];
    let mut i = 0;
    let mut count = 0u64;
    while i + 3 * stride < n {
        for (k, acc_k) in acc.iter_mut().enumerate() {
            *acc_k = acc_k.wrapping_add(a[i + k * stride].to_bits());
        }
        i += 4 * stride;
        count += 4;
    }
    let mut sum = acc.iter().fold(0u64, |s, &x| s.wrapping_add(x));
    while i < n {
        sum = sum.wrapping_add(a[i].to_bits());
        i += stride;
        count += 1;
    }
    (count, sum)
}

/// Elements a strided walk over `n` elements visits: indices 0, stride, 2 stride, ... < n.
pub fn strided_count(n: usize, stride: usize) -> u64 {
    n.div_ceil(stride.max(1)) as u64
}

/// `a[i] = f(a[i])` for every `stride`-th element; returns the elements processed. The one
/// loop of the in-place strided kernels (write, update); `f` is inlined into each.
#[inline(always)]
fn map_in_place_strided(a: &mut [f64], stride: usize, f: impl Fn(f64) -> f64) -> u64 {
    let stride = stride.max(1);
    for x in a.iter_mut().step_by(stride) {
        *x = f(*x);
    }
    strided_count(a.len(), stride)
}

/// `a[i] = f(b[i])` for every `stride`-th element; returns the elements processed. The one
/// loop of the two-stream strided kernels (copy, scale). Each access is independent of the
/// others, so the core keeps as many lines in flight as it can.
#[inline(always)]
fn map_strided(a: &mut [f64], b: &[f64], stride: usize, f: impl Fn(f64) -> f64) -> u64 {
    let stride = stride.max(1);
    let n = a.len().min(b.len());
    for (x, y) in a[..n]
        .iter_mut()
        .step_by(stride)
        .zip(b[..n].iter().step_by(stride))
    {
        *x = f(*y);
    }
    strided_count(n, stride)
}

/// `a[i] = f(b[i], c[i])` for every `stride`-th element; returns the elements processed. The
/// one loop of the three-stream strided kernels (add, triad).
#[inline(always)]
fn map2_strided(
    a: &mut [f64],
    b: &[f64],
    c: &[f64],
    stride: usize,
    f: impl Fn(f64, f64) -> f64,
) -> u64 {
    let stride = stride.max(1);
    let n = a.len().min(b.len()).min(c.len());
    let bc = b[..n]
        .iter()
        .step_by(stride)
        .zip(c[..n].iter().step_by(stride));
    for (x, (y, z)) in a[..n].iter_mut().step_by(stride).zip(bc) {
        *x = f(*y, *z);
    }
    strided_count(n, stride)
}

/// `a[i] = v` for every `stride`-th element; returns the elements written.
pub fn write_strided(a: &mut [f64], v: f64, stride: usize) -> u64 {
    map_in_place_strided(a, stride, |_| v)
}

/// `a[i] = b[i]` for every `stride`-th element; returns the elements copied.
pub fn copy_strided(a: &mut [f64], b: &[f64], stride: usize) -> u64 {
    map_strided(a, b, stride, |y| y)
}

/// `a[i] = s * b[i]` for every `stride`-th element; returns the elements processed.
pub fn scale_strided(a: &mut [f64], b: &[f64], s: f64, stride: usize) -> u64 {
    map_strided(a, b, stride, |y| s * y)
}

/// `a[i] = b[i] + c[i]` for every `stride`-th element; returns the elements processed.
pub fn add_strided(a: &mut [f64], b: &[f64], c: &[f64], stride: usize) -> u64 {
    map2_strided(a, b, c, stride, |y, z| y + z)
}

/// `a[i] = b[i] + s * c[i]` (not fused, as [`triad`]) for every `stride`-th element; returns
/// the elements processed.
pub fn triad_strided(a: &mut [f64], b: &[f64], c: &[f64], s: f64, stride: usize) -> u64 {
    map2_strided(a, b, c, stride, |y, z| y + s * z)
}

/// `a[i] = a[i] + s` for every `stride`-th element; returns the elements processed.
pub fn update_strided(a: &mut [f64], s: f64, stride: usize) -> u64 {
    map_in_place_strided(a, stride, |x| x + s)
}

/// The line a random-read generator visits next: four interleaved 64-bit LCGs (Knuth's
/// MMIX constants) so the addresses of consecutive reads are independent of each other and of
/// the loaded values, letting the core keep many misses in flight; the line is the high half
/// of a 64x64-bit product (a multiply, not a division, to map onto `lines`).
#[inline(always)]
fn next_line(state: &mut u64, lines: usize) -> usize {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*state as u128 * lines as u128) >> 64) as usize
}

/// Reads the first word of `accesses` random lines of `a` (`line` words each), using and
/// advancing the generator state `seed`; returns the wrapping sum of the words read. Lines
/// are drawn independently (with repetition), not as a dependent chase.
pub fn random_read(a: &[f64], line: usize, accesses: usize, seed: &mut u64) -> u64 {
    let line = line.max(1);
    let lines = a.len() / line;
    if lines == 0 {
        return 0;
    }
    let mut st = [
        *seed,
        seed.wrapping_add(0x9E37_79B9_7F4A_7C15),
        seed.wrapping_add(0x3C6E_F372_FE94_F82A),
        seed.wrapping_add(0xDAA6_6D2C_7DDF_743F),
    ];
    let mut acc = [0u64; 4];
    let mut done = 0;
    while done + 4 <= accesses {
        for k in 0..4 {
            let l = next_line(&mut st[k], lines);
            acc[k] = acc[k].wrapping_add(a[l * line].to_bits());
        }
        done += 4;
    }
    while done < accesses {
        let l = next_line(&mut st[0], lines);
        acc[0] = acc[0].wrapping_add(a[l * line].to_bits());
        done += 1;
    }
    *seed = st[0] ^ st[1].rotate_left(17) ^ st[2].rotate_left(31) ^ st[3].rotate_left(47);
    acc.iter().fold(0u64, |s, &x| s.wrapping_add(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_semantics() {
        let b: Vec<f64> = (0..37).map(|i| i as f64).collect();
        let c: Vec<f64> = (0..37).map(|i| 2.0 * i as f64).collect();
        let mut a = vec![0.0; 37];
        triad(&mut a, &b, &c, 3.0);
        assert_eq!(a[5], 5.0 + 3.0 * 10.0);
        add(&mut a, &b, &c);
        assert_eq!(a[36], 108.0);
        scale(&mut a, &b, 0.5);
        assert_eq!(a[3], 1.5);
        update(&mut a, 1.0);
        assert_eq!(a[3], 2.5);
        copy(&mut a, &c);
        assert_eq!(a, c);
        write(&mut a, 7.0);
        assert!(a.iter().all(|&x| x == 7.0));
        let want = b.iter().fold(0u64, |s, x| s.wrapping_add(x.to_bits()));
        assert_eq!(read(&b), want);
        assert_eq!(read_prefetch(&b), want);
    }

    #[test]
    fn strided_reads_one_word_per_stride() {
        let a: Vec<f64> = (0..100).map(f64::from_bits).collect();
        let (n, sum) = read_strided(&a, 8);
        assert_eq!(n, 13); // 0, 8, ..., 96
        assert_eq!(sum, (0..13).map(|k| k * 8).sum::<u64>());
        assert_eq!(read_strided(&a[..7], 8), (1, 0));
    }

    #[test]
    fn random_reads_stay_in_bounds_and_are_deterministic() {
        let a: Vec<f64> = (0..8 * 101).map(|i| f64::from_bits(1 + i / 8)).collect();
        let (mut s1, mut s2) = (42u64, 42u64);
        let x = random_read(&a, 8, 1003, &mut s1);
        let y = random_read(&a, 8, 1003, &mut s2);
        assert_eq!(x, y);
        assert_eq!(s1, s2);
        assert_ne!(s1, 42);
        // Every word read is in 1..=101 and 1003 were read.
        assert!((1003..=1003 * 101).contains(&x));
        assert_eq!(random_read(&a[..7], 8, 10, &mut s1), 0);
    }

    /// Every strided kernel touches exactly the elements 0, stride, 2 stride, ... of each
    /// stream and leaves the others as they were; a stride of 1 is the contiguous kernel.
    #[test]
    fn strided_kernels_touch_every_stride_th_element_only() {
        let n: usize = 103;
        let b: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let c: Vec<f64> = (0..n).map(|i| 2.0 * i as f64).collect();
        for stride in [1usize, 2, 3, 8, 16, 102, 103, 200] {
            let hit = |i: usize| i.is_multiple_of(stride);
            let want = n.div_ceil(stride) as u64;
            let check = |a: &[f64], f: &dyn Fn(usize) -> f64, what: &str| {
                for (i, &x) in a.iter().enumerate() {
                    let expect = if hit(i) { f(i) } else { -1.0 };
                    assert_eq!(x, expect, "{what} stride {stride} element {i}");
                }
            };
            let mut a = vec![-1.0; n];
            assert_eq!(copy_strided(&mut a, &b, stride), want);
            check(&a, &|i| b[i], "copy");
            let mut a = vec![-1.0; n];
            assert_eq!(scale_strided(&mut a, &b, 0.5, stride), want);
            check(&a, &|i| 0.5 * b[i], "scale");
            let mut a = vec![-1.0; n];
            assert_eq!(add_strided(&mut a, &b, &c, stride), want);
            check(&a, &|i| b[i] + c[i], "add");
            let mut a = vec![-1.0; n];
            assert_eq!(triad_strided(&mut a, &b, &c, 3.0, stride), want);
            check(&a, &|i| b[i] + 3.0 * c[i], "triad");
            let mut a = vec![-1.0; n];
            assert_eq!(write_strided(&mut a, 7.0, stride), want);
            check(&a, &|_| 7.0, "write");
            let mut a = vec![-1.0; n];
            for i in (0..n).step_by(stride) {
                a[i] = b[i];
            }
            assert_eq!(update_strided(&mut a, 1.0, stride), want);
            check(&a, &|i| b[i] + 1.0, "update");
            let (count, _) = read_strided(&b, stride);
            assert_eq!(count, want, "read stride {stride}");
        }
        // The shortest stream bounds the walk.
        let mut a = vec![0.0; 10];
        assert_eq!(copy_strided(&mut a, &b[..5], 2), 3);
        assert_eq!(strided_count(0, 8), 0);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn nt_matches_normal_stores() {
        let b: Vec<f64> = (0..29).map(|i| i as f64 * 0.25).collect();
        let mut a = vec![0.0; 29];
        copy_nt(&mut a, &b);
        assert_eq!(a, b);
        write_nt(&mut a[3..], -1.0);
        assert!(a[3..].iter().all(|&x| x == -1.0) && a[2] == 0.5);
    }
}
