//! AVX2 kernels (256-bit vectors, 8 per iteration = 4 cache lines), generated from the shared
//! template in `simd.rs`. Called only after `is_x86_feature_detected!("avx2")`.

use core::arch::x86_64::*;

use super::scalar::PREFETCH_BYTES;

super::simd::simd_kernels!(
    feature = "avx2",
    reg = ymm_reg,
    lanes = 4,
    vi = __m256i,
    loadu_pd = _mm256_loadu_pd,
    storeu_pd = _mm256_storeu_pd,
    stream_pd = _mm256_stream_pd,
    set1_pd = _mm256_set1_pd,
    add_pd = _mm256_add_pd,
    mul_pd = _mm256_mul_pd,
    loadu_si = _mm256_loadu_si256,
    storeu_si = _mm256_storeu_si256,
    add_epi64 = _mm256_add_epi64,
    setzero_si = _mm256_setzero_si256,
);
