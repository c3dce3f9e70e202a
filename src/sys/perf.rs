//! `perf_event_open` for counting one event on the calling thread, behind a safe owner of the
//! file descriptor (closed on drop). Only counting mode (no sampling, no ring buffer), user
//! space only, so the default `perf_event_paranoid` of 2 allows it where the kernel and the
//! hypervisor offer the event at all.

use super::{check, SysCallError};

/// `PERF_TYPE_*` values used by numascope.
pub const PERF_TYPE_SOFTWARE: u32 = 1;
pub const PERF_TYPE_HW_CACHE: u32 = 3;
/// `PERF_COUNT_SW_TASK_CLOCK`: always available where perf events are; used in tests.
pub const PERF_COUNT_SW_TASK_CLOCK: u64 = 1;
/// `PERF_COUNT_HW_CACHE_NODE`: accesses to (local or remote) memory nodes.
pub const PERF_COUNT_HW_CACHE_NODE: u64 = 6;
pub const PERF_COUNT_HW_CACHE_OP_READ: u64 = 0;
pub const PERF_COUNT_HW_CACHE_RESULT_ACCESS: u64 = 0;
pub const PERF_COUNT_HW_CACHE_RESULT_MISS: u64 = 1;

/// The first published layout of `struct perf_event_attr` (PERF_ATTR_SIZE_VER0, 64 bytes);
/// every later kernel accepts it. Bit fields are one `u64` of flags.
#[repr(C)]
#[derive(Default)]
struct PerfEventAttrV0 {
    kind: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
}

const FLAG_DISABLED: u64 = 1 << 0;
const FLAG_EXCLUDE_KERNEL: u64 = 1 << 5;
const FLAG_EXCLUDE_HV: u64 = 1 << 6;

// _IO('$', n)
const IOC_ENABLE: libc::c_ulong = 0x2400;
const IOC_DISABLE: libc::c_ulong = 0x2401;
const IOC_RESET: libc::c_ulong = 0x2403;

/// One open counter of the calling thread, created disabled.
#[derive(Debug)]
pub struct PerfCounter {
    fd: libc::c_int,
}

impl PerfCounter {
    /// Opens event `(kind, config)` for the calling thread on any CPU, user space only.
    pub fn open(kind: u32, config: u64) -> Result<PerfCounter, SysCallError> {
        let attr = PerfEventAttrV0 {
            kind,
            size: std::mem::size_of::<PerfEventAttrV0>() as u32,
            config,
            flags: FLAG_DISABLED | FLAG_EXCLUDE_KERNEL | FLAG_EXCLUDE_HV,
            ..Default::default()
        };
        // SAFETY: `attr` is a live, initialized perf_event_attr of the size it declares;
        // pid 0 / cpu -1 is the calling thread on any CPU; no group, no flags.
        let ret = unsafe {
            libc::syscall(
                libc::SYS_perf_event_open,
                &attr as *const PerfEventAttrV0,
                0 as libc::pid_t,
                -1 as libc::c_int,
                -1 as libc::c_int,
                0 as libc::c_ulong,
            )
        };
        let fd = check(ret, "perf_event_open", || format!("type {kind} config {config:#x}"))
            .map_err(|e| {
                let hint = match e.errno() {
                    Some(libc::ENOENT) | Some(libc::EOPNOTSUPP) | Some(libc::EINVAL) => {
                        "this CPU or hypervisor offers no such event (no hardware counters)"
                    }
                    Some(libc::EACCES) | Some(libc::EPERM) => {
                        "perf events are forbidden here (kernel.perf_event_paranoid, seccomp or a container)"
                    }
                    Some(libc::ENOSYS) => "this kernel has no perf events",
                    _ => "",
                };
                if hint.is_empty() {
                    e
                } else {
                    e.with_hint(hint)
                }
            })?;
        Ok(PerfCounter {
            fd: fd as libc::c_int,
        })
    }

    fn ioctl(&self, req: libc::c_ulong, name: &'static str) -> Result<(), SysCallError> {
        // SAFETY: `fd` is a perf event descriptor we own; these requests take no argument.
        let ret = unsafe { libc::ioctl(self.fd, req as _, 0) };
        check(ret as libc::c_long, "ioctl", || name.to_string()).map(|_| ())
    }

    /// Zeroes and starts counting.
    pub fn start(&self) -> Result<(), SysCallError> {
        self.ioctl(IOC_RESET, "PERF_EVENT_IOC_RESET")?;
        self.ioctl(IOC_ENABLE, "PERF_EVENT_IOC_ENABLE")
    }

    /// Stops counting and returns the count.
    pub fn stop(&self) -> Result<u64, SysCallError> {
        self.ioctl(IOC_DISABLE, "PERF_EVENT_IOC_DISABLE")?;
        let mut v: u64 = 0;
        // SAFETY: reads 8 bytes into a live u64; the default read_format is one u64.
        let ret = unsafe { libc::read(self.fd, &mut v as *mut u64 as *mut libc::c_void, 8) };
        check(ret as libc::c_long, "read", || "perf counter".to_string())?;
        Ok(v)
    }
}

impl Drop for PerfCounter {
    fn drop(&mut self) {
        // SAFETY: we own the descriptor and close it once.
        unsafe { libc::close(self.fd) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_software_counter_counts_or_the_error_names_the_call() {
        match PerfCounter::open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK) {
            Ok(c) => {
                c.start().unwrap();
                let mut x = 0u64;
                for i in 0..1_000_000u64 {
                    x = std::hint::black_box(x.wrapping_add(i));
                }
                assert!(c.stop().unwrap() > 0, "task clock advanced");
            }
            // Containers and some kernels refuse perf events entirely.
            Err(e) => assert!(e.to_string().contains("perf_event_open"), "{e}"),
        }
    }
}
