//! A memory-bound test program for `numascope app`: it fills a buffer and streams through it
//! (reads and a running sum) for a number of passes, then optionally stays alive a moment so
//! a sampler can see its pages. `app_stream [MIB] [PASSES] [HOLD_MS]` (defaults 64, 10, 0).
//! It sets no policy of its own: its pages land where the policy it was started under says.

use std::time::Duration;

fn arg(i: usize, default: u64) -> u64 {
    std::env::args()
        .nth(i)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let mib = arg(1, 64).max(1);
    let passes = arg(2, 10);
    let hold_ms = arg(3, 0);
    let words = (mib as usize) << 17; // 8-byte words in MIB MiB
    let mut buf: Vec<u64> = (0..words as u64).collect();
    let mut sum = 0u64;
    for p in 0..passes {
        for w in buf.iter_mut() {
            *w = w.wrapping_add(p);
            sum = sum.wrapping_add(*w);
        }
    }
    std::thread::sleep(Duration::from_millis(hold_ms));
    println!("streamed {mib} MiB x {passes} passes, checksum {sum:x}");
    std::hint::black_box(&buf);
}
