//! A tiny deterministic random source for the statistics' simulation tests (xorshift64* with
//! Box-Muller normals), so the tests need no extra crate and give the same numbers every run.

/// xorshift64* generator.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in (0, 1).
    pub fn uniform(&mut self) -> f64 {
        ((self.next() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Standard normal (Box-Muller).
    pub fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// A sampler of one distribution.
pub type Sampler = fn(&mut Rng) -> f64;

/// The share of `trials` samples of `n` draws whose interval (`interval` gives its low and
/// high) holds `truth`.
pub fn coverage(
    rng: &mut Rng,
    trials: usize,
    n: usize,
    draw: Sampler,
    truth: f64,
    interval: impl Fn(&[f64]) -> (f64, f64),
) -> f64 {
    let mut hit = 0;
    for _ in 0..trials {
        let v: Vec<f64> = (0..n).map(|_| draw(rng)).collect();
        let (low, high) = interval(&v);
        if low <= truth && truth <= high {
            hit += 1;
        }
    }
    hit as f64 / trials as f64
}
