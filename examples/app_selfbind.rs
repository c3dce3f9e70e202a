//! A test program that places itself, for `numascope app`'s override detection: it maps a
//! buffer, gives it its own policy with `mbind(MPOL_INTERLEAVE)` over every node with memory
//! (whatever policy it was started under), touches it, and optionally pins itself to one CPU.
//! `app_selfbind [MIB] [HOLD_MS] [PIN_CPU]` (defaults 16, 300, none). numa_maps then shows
//! `interleave:...` on that buffer, which numascope reports as overriding the candidate.

use std::time::Duration;

fn arg(i: usize) -> Option<u64> {
    std::env::args().nth(i).and_then(|a| a.parse().ok())
}

/// Node ids in a kernel list such as `0-2,4`.
fn parse_list(text: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) {
            out.extend(a..=b);
        }
    }
    out
}

fn main() {
    let mib = arg(1).unwrap_or(16).max(1) as usize;
    let hold_ms = arg(2).unwrap_or(300);
    let nodes = std::fs::read_to_string("/sys/devices/system/node/has_memory")
        .map(|t| parse_list(&t))
        .unwrap_or_else(|_| vec![0]);
    let len = mib << 20;
    // SAFETY: an anonymous private mapping of `len` bytes; no file, no fixed address.
    let addr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    assert_ne!(addr, libc::MAP_FAILED, "mmap failed");
    let mut mask = [0u64; 16];
    for n in &nodes {
        mask[*n as usize / 64] |= 1 << (n % 64);
    }
    const MPOL_INTERLEAVE: i32 = 3;
    // SAFETY: `addr..addr+len` is the mapping made above; the mask outlives the call and
    // holds 16 * 64 bits (maxnode 1025 reads at most 1024 of them).
    let rc = unsafe {
        libc::syscall(
            libc::SYS_mbind,
            addr,
            len,
            MPOL_INTERLEAVE,
            mask.as_ptr(),
            1025usize,
            0u32,
        )
    };
    if rc != 0 {
        eprintln!("mbind failed: {}", std::io::Error::last_os_error());
        std::process::exit(4);
    }
    if let Some(cpu) = arg(3) {
        // SAFETY: a zeroed cpu_set_t is empty; CPU_SET writes inside it; pid 0 is this thread.
        let rc = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu as usize, &mut set);
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
        };
        if rc != 0 {
            eprintln!(
                "sched_setaffinity failed: {}",
                std::io::Error::last_os_error()
            );
            std::process::exit(5);
        }
    }
    // SAFETY: the mapping is `len` writable bytes owned by this process.
    let buf = unsafe { std::slice::from_raw_parts_mut(addr as *mut u8, len) };
    for (i, b) in buf.iter_mut().enumerate().step_by(4096) {
        *b = i as u8;
    }
    std::thread::sleep(Duration::from_millis(hold_ms));
    println!("interleaved {mib} MiB over nodes {nodes:?}");
}
