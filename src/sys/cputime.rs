//! CPU time consumed by the calling thread (`CLOCK_THREAD_CPUTIME_ID`). Compared with the
//! wall-clock time of a timed region it tells whether the thread really ran all along or was
//! descheduled by other work on a shared machine, which makes rates and latencies untrustworthy.

use super::{check, SysCallError};

/// The calling thread's CPU time, ns.
pub fn thread_cpu_ns() -> Result<u64, SysCallError> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a live timespec the kernel fills; the clock id is a constant.
    let ret = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    check(ret as libc::c_long, "clock_gettime", || {
        "CLOCK_THREAD_CPUTIME_ID".to_string()
    })?;
    Ok(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_advances_while_spinning_and_not_while_sleeping() {
        let a = thread_cpu_ns().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(30));
        let b = thread_cpu_ns().unwrap();
        assert!(b - a < 20_000_000, "sleeping costs little CPU: {}", b - a);
        let t = std::time::Instant::now();
        let mut x = 0u64;
        while t.elapsed() < std::time::Duration::from_millis(20) {
            x = std::hint::black_box(x + 1);
        }
        assert!(thread_cpu_ns().unwrap() > b);
    }
}
