//! A latency-bound test program for `numascope app`: it links a buffer into one random cycle
//! of cache-line-sized slots and follows the pointers, each load waiting for the previous one.
//! `app_chase [MIB] [STEPS_MILLIONS] [HOLD_MS]` (defaults 64, 10, 0). It sets no policy of
//! its own.

use std::time::Duration;

fn arg(i: usize, default: u64) -> u64 {
    std::env::args()
        .nth(i)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let mib = arg(1, 64).max(1);
    let steps = arg(2, 10) * 1_000_000;
    let hold_ms = arg(3, 0);
    // One slot per 64-byte line, 8 words each; the first word holds the next slot.
    let slots = ((mib as usize) << 20) / 64;
    let mut order: Vec<usize> = (0..slots).collect();
    // A fixed xorshift shuffle (Sattolo: one cycle through every slot).
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for i in (1..slots).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let j = (x % i as u64) as usize;
        order.swap(i, j);
    }
    let mut next = vec![0usize; slots * 8];
    for k in 0..slots {
        next[order[k] * 8] = order[(k + 1) % slots] * 8;
    }
    let mut p = 0usize;
    for _ in 0..steps {
        p = next[p];
    }
    std::thread::sleep(Duration::from_millis(hold_ms));
    println!("chased {steps} loads over {mib} MiB, ended at {p}");
}
