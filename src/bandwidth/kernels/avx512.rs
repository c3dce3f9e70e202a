//! AVX-512F kernels (512-bit vectors, one cache line each, 8 per iteration), generated from
//! the shared template in `simd.rs`. Called only after `is_x86_feature_detected!("avx512f")`.

use core::arch::x86_64::*;

use super::scalar::PREFETCH_BYTES;

super::simd::simd_kernels!(
    feature = "avx512f",
    reg = zmm_reg,
    lanes = 8,
    vi = __m512i,
    loadu_pd = _mm512_loadu_pd,
    storeu_pd = _mm512_storeu_pd,
    stream_pd = _mm512_stream_pd,
    set1_pd = _mm512_set1_pd,
    add_pd = _mm512_add_pd,
    mul_pd = _mm512_mul_pd,
    loadu_si = _mm512_loadu_si512,
    storeu_si = _mm512_storeu_si512,
    add_epi64 = _mm512_add_epi64,
    setzero_si = _mm512_setzero_si512,
);
