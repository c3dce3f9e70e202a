//! CPU affinity of the calling thread: `sched_setaffinity`, `sched_getaffinity` and `getcpu`,
//! with masks sized for any CPU count (libc's fixed `cpu_set_t` stops at 1024 CPUs).

use super::{check, IdMask, SysCallError};

/// Bits in the affinity masks we pass; the kernel accepts any size >= its nr_cpu_ids.
const AFFINITY_BITS: usize = 8192;

/// Restricts the calling thread to `cpus`.
pub fn set_current(cpus: &[u32]) -> Result<(), SysCallError> {
    let mask = IdMask::from_ids(cpus, AFFINITY_BITS);
    // SAFETY: the mask pointer and length describe a live, initialized buffer; pid 0 is the
    // calling thread.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_sched_setaffinity,
            0,
            mask.byte_len(),
            mask.as_ptr(),
        )
    };
    check(ret, "sched_setaffinity", || {
        format!("CPUs {}", crate::results::format::format_list(cpus))
    })
    .map_err(|e| {
        let hint = match e.errno() {
            Some(libc::EINVAL) => {
                "none of these CPUs is online and allowed for this process (see `numascope topo`)"
            }
            Some(libc::EPERM) => "the process may not change its CPU affinity",
            _ => "",
        };
        if hint.is_empty() {
            e
        } else {
            e.with_hint(hint)
        }
    })?;
    Ok(())
}

/// The CPUs the calling thread may run on.
pub fn get_current() -> Result<Vec<u32>, SysCallError> {
    let mut mask = IdMask::with_bits(AFFINITY_BITS);
    // SAFETY: the kernel writes at most `byte_len` bytes into the buffer we own.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_sched_getaffinity,
            0,
            mask.byte_len(),
            mask.as_mut_ptr(),
        )
    };
    check(ret, "sched_getaffinity", String::new)?;
    Ok(mask.ids())
}

/// The CPU and node the calling thread runs on right now (`getcpu`).
pub fn current_cpu_and_node() -> Result<(u32, u32), SysCallError> {
    let mut cpu: libc::c_uint = 0;
    let mut node: libc::c_uint = 0;
    // SAFETY: both out-pointers are valid for writes; the third (cache) argument is unused
    // since Linux 2.6.24 and may be null.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_getcpu,
            &mut cpu as *mut libc::c_uint,
            &mut node as *mut libc::c_uint,
            std::ptr::null_mut::<libc::c_void>(),
        )
    };
    check(ret, "getcpu", String::new)?;
    Ok((cpu, node))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affinity_round_trip_on_this_thread() {
        let before = get_current().unwrap();
        assert!(!before.is_empty());
        let target = before[0];
        std::thread::spawn(move || {
            set_current(&[target]).unwrap();
            assert_eq!(get_current().unwrap(), vec![target]);
            assert_eq!(current_cpu_and_node().unwrap().0, target);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn impossible_cpu_is_refused_with_hint() {
        let e = std::thread::spawn(|| set_current(&[8000]).unwrap_err())
            .join()
            .unwrap();
        assert!(e.to_string().contains("sched_setaffinity"), "{e}");
    }
}
