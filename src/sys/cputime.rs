//! CPU time consumed by the calling thread (`CLOCK_THREAD_CPUTIME_ID`) and the involuntary
//! context switches it suffered (`getrusage(RUSAGE_THREAD)`). Compared with the wall-clock time
//! of a timed region they tell whether the thread really ran all along or was descheduled by
//! other work on a shared machine, which makes rates and latencies untrustworthy.

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

/// Involuntary context switches of the calling thread so far (`ru_nivcsw` of
/// `getrusage(RUSAGE_THREAD)`): how often the scheduler took its CPU away while it could run.
pub fn thread_involuntary_switches() -> Result<u64, SysCallError> {
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a live rusage the kernel fills; RUSAGE_THREAD is a constant.
    let ret = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
    check(ret as libc::c_long, "getrusage", || {
        "RUSAGE_THREAD".to_string()
    })?;
    Ok(usage.ru_nivcsw.max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn involuntary_switches_match_the_threads_own_status() {
        // The kernel's per-thread count in /proc/thread-self/status lies between two reads
        // of the probe (a process-wide count would exceed it).
        std::thread::spawn(|| {
            let a = thread_involuntary_switches().unwrap();
            let status = std::fs::read_to_string("/proc/thread-self/status").unwrap();
            let b = thread_involuntary_switches().unwrap();
            let line = status
                .lines()
                .find(|l| l.starts_with("nonvoluntary_ctxt_switches:"))
                .unwrap();
            let own: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
            assert!(a <= own && own <= b, "{a} <= {own} <= {b}");
        })
        .join()
        .unwrap();
    }

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
