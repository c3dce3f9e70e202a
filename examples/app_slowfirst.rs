//! A test program for `app --tiering` (issue 32): its pages are first touched on a slow node,
//! then it lets the kernel manage them. It binds itself to NODE with `set_mempolicy`, fills a
//! buffer (every page now on NODE), returns to the default policy (whose migrate-on-fault
//! flag lets NUMA balancing scan the pages), and streams through the buffer for SECONDS, so
//! NUMA balancing (mode 1) or memory-tiering mode (2) sees hot pages on the slow node and
//! moves them. `app_slowfirst [NODE] [MIB] [SECONDS]` (defaults 2, 16, 10).
//!
//! MIB `pressure` sizes the buffer to put NODE under memory pressure only where the kernel can
//! relieve it without swap: 48 MiB more than NODE's free memory when
//! `/sys/kernel/mm/numa/demotion_enabled` is true (reclaim then demotes the node's cold pages
//! to a lower tier), 48 MiB less otherwise (no reclaim, no OOM kill).

use std::time::{Duration, Instant};

use numascope::sys::numa::{set_mempolicy, Mode};

fn arg(i: usize, default: u64) -> u64 {
    std::env::args()
        .nth(i)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

/// MemFree of `node`, MiB.
fn free_mib(node: u32) -> u64 {
    let path = format!("/sys/devices/system/node/node{node}/meminfo");
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .find(|l| l.contains("MemFree:"))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(0, |kb| kb / 1024)
}

fn main() {
    let node = arg(1, 2) as u32;
    let mib = if std::env::args().nth(2).as_deref() == Some("pressure") {
        let demotes = std::fs::read_to_string("/sys/kernel/mm/numa/demotion_enabled")
            .is_ok_and(|t| t.trim() == "true");
        let free = free_mib(node);
        if demotes {
            free + 48
        } else {
            free.saturating_sub(48)
        }
    } else {
        arg(2, 16)
    }
    .max(1);
    let secs = arg(3, 10);
    if let Err(e) = set_mempolicy(Mode::Bind, &[node]) {
        eprintln!("app_slowfirst: cannot bind to node {node}: {e}");
        std::process::exit(2);
    }
    let words = (mib as usize) << 17;
    let mut buf: Vec<u64> = (0..words as u64).collect();
    if let Err(e) = set_mempolicy(Mode::Default, &[]) {
        eprintln!("app_slowfirst: cannot return to the default policy: {e}");
        std::process::exit(2);
    }
    let end = Instant::now() + Duration::from_secs(secs);
    let (mut sum, mut passes) = (0u64, 0u64);
    while Instant::now() < end {
        for w in buf.iter_mut() {
            *w = w.wrapping_add(passes);
            sum = sum.wrapping_add(*w);
        }
        passes += 1;
    }
    println!("streamed {mib} MiB first touched on node {node}, {passes} passes, checksum {sum:x}");
    std::hint::black_box(&buf);
}
