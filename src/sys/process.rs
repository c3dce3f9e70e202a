//! Facts about the running process and kernel that take a libc call to learn: the effective
//! user id (is the process root, so may it write sysfs knobs?) and the base page size. Both
//! calls cannot fail and have no preconditions; the wrappers exist so the `unsafe` stays in
//! `sys/`.

/// The effective user id of this process (`geteuid(2)`); 0 is root.
pub fn effective_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// The running kernel's base page size in bytes (`sysconf(_SC_PAGESIZE)`), 4096 in the
/// impossible case that the kernel does not say.
pub fn base_page_bytes() -> u64 {
    // SAFETY: sysconf has no memory-safety preconditions.
    let v = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if v > 0 {
        v as u64
    } else {
        4096
    }
}

/// This process's address-space limit (`getrlimit(RLIMIT_AS)`, what `ulimit -v` and
/// `prlimit --as` set), bytes; `None` when unlimited.
pub fn address_space_limit() -> Option<u64> {
    // SAFETY: a zeroed rlimit is a valid value; getrlimit only writes into it.
    let mut r: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: RLIMIT_AS is a valid resource and `r` a valid out pointer.
    let rc = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) };
    (rc == 0 && r.rlim_cur != libc::RLIM_INFINITY).then_some(r.rlim_cur)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_size_is_a_power_of_two_of_at_least_4k() {
        let p = base_page_bytes();
        assert!(p >= 4096 && p.is_power_of_two(), "{p}");
    }

    #[test]
    fn effective_uid_matches_proc_status() {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let uid_line = status.lines().find(|l| l.starts_with("Uid:")).unwrap();
        // Uid: real effective saved filesystem
        let euid: u32 = uid_line.split_whitespace().nth(2).unwrap().parse().unwrap();
        assert_eq!(effective_uid(), euid);
    }
}
