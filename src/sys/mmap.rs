//! Anonymous memory mappings with a chosen page backing: base pages with THP forbidden
//! (`MADV_NOHUGEPAGE`), transparent huge pages (`MADV_HUGEPAGE`, 2 MiB aligned), or hugetlbfs
//! 2 MiB / 1 GiB pages (`MAP_HUGETLB`). The mapping is released on drop.

use std::sync::atomic::AtomicU64;

use super::numa::{self, Mode};
use super::SysCallError;

/// How the mapping is backed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backing {
    /// Base pages; THP explicitly disabled for the range.
    Base,
    /// Transparent huge pages requested for the range (2 MiB aligned).
    Thp,
    /// hugetlbfs pages of this size in bytes (2 MiB or 1 GiB).
    HugeTlb(u64),
}

/// An owned anonymous mapping.
#[derive(Debug)]
pub struct Mapping {
    base: *mut u8,
    base_len: usize,
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the mapping is plain memory owned by this value; moving it between threads is sound.
unsafe impl Send for Mapping {}
// SAFETY: shared references only hand out raw pointers; writers go through `&mut` or unsafe.
unsafe impl Sync for Mapping {}

const THP_ALIGN: usize = 2 << 20;

impl Mapping {
    /// Maps `len` bytes (already rounded by the caller to the backing's page size).
    pub fn new(len: usize, backing: Backing) -> Result<Mapping, SysCallError> {
        // Zero or a length whose THP alignment slack would wrap is refused as mmap would
        // refuse it (EINVAL), not asserted: a size on a command line can be anything.
        let map_len = match backing {
            Backing::Thp => len.checked_add(THP_ALIGN),
            _ => Some(len),
        }
        .filter(|_| len > 0 && isize::try_from(len).is_ok());
        let Some(map_len) = map_len else {
            return Err(SysCallError {
                call: "mmap",
                what: format!("{len} bytes"),
                source: std::io::Error::from_raw_os_error(libc::EINVAL),
                hint: "; give a size above 0 and below the address space".into(),
            });
        };
        let prot = libc::PROT_READ | libc::PROT_WRITE;
        let mut flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
        if let Backing::HugeTlb(size) = backing {
            flags |= libc::MAP_HUGETLB | ((size.trailing_zeros() as i32) << libc::MAP_HUGE_SHIFT);
            flags &= !libc::MAP_NORESERVE;
        }
        // SAFETY: an anonymous mapping at a kernel-chosen address touches no existing memory.
        let base = unsafe { libc::mmap(std::ptr::null_mut(), map_len, prot, flags, -1, 0) };
        if base == libc::MAP_FAILED {
            let e = SysCallError::last("mmap", format!("{len} bytes"));
            return Err(match (e.errno(), backing) {
                (Some(libc::ENOMEM), Backing::HugeTlb(_)) => {
                    e.with_hint("not enough huge pages are reserved; see /sys/devices/system/node/nodeN/hugepages")
                }
                (Some(libc::EINVAL), Backing::HugeTlb(_)) => e.with_hint("this huge page size is not supported by the kernel"),
                (Some(libc::ENOMEM), _) => match super::process::address_space_limit() {
                    Some(l) => e.with_hint(format!(
                        "this process's address-space limit (ulimit -v, prlimit --as) of {} MiB leaves no room for it; raise the limit or measure a smaller size",
                        l >> 20
                    )),
                    None => e.with_hint("the kernel refuses more memory (overcommit policy or a memory limit); measure a smaller size"),
                },
                _ => e,
            });
        }
        let base = base as *mut u8;
        let ptr = match backing {
            Backing::Thp => {
                let addr = base as usize;
                let aligned = (addr + THP_ALIGN - 1) & !(THP_ALIGN - 1);
                aligned as *mut u8
            }
            _ => base,
        };
        let m = Mapping {
            base,
            base_len: map_len,
            ptr,
            len,
        };
        let advice = match backing {
            Backing::Base => Some(libc::MADV_NOHUGEPAGE),
            Backing::Thp => Some(libc::MADV_HUGEPAGE),
            Backing::HugeTlb(_) => None,
        };
        if let Some(advice) = advice {
            // SAFETY: the range lies inside the mapping we just created.
            let r = unsafe { libc::madvise(m.ptr as *mut libc::c_void, m.len, advice) };
            // A kernel without THP support refuses MADV_HUGEPAGE/NOHUGEPAGE with EINVAL; for
            // base pages that is harmless (there is no THP to avoid), for THP the caller's
            // verification reports the huge-page share actually obtained.
            if r != 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINVAL) {
                return Err(SysCallError::last("madvise", format!("{} bytes", m.len)));
            }
        }
        Ok(m)
    }

    /// Start of the usable (aligned) range.
    pub fn as_mut_ptr(&self) -> *mut u8 {
        self.ptr
    }

    /// Usable length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Never true: zero-length mappings are refused at creation.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The mapping as 64-bit words (anonymous memory starts zeroed, and any bit pattern is a
    /// valid `u64`).
    pub fn as_u64(&self) -> &[u64] {
        // SAFETY: `ptr` is page aligned, `len` bytes long and mapped readable for as long as
        // `self` lives; safe code writes only through `&mut self`.
        unsafe { std::slice::from_raw_parts(self.ptr as *const u64, self.len / 8) }
    }

    /// The mapping as mutable 64-bit words.
    pub fn as_u64_mut(&mut self) -> &mut [u64] {
        // SAFETY: as in `as_u64`, and `&mut self` makes this the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.ptr as *mut u64, self.len / 8) }
    }

    /// The mapping as mutable doubles (any bit pattern is a valid `f64`).
    pub fn as_f64_mut(&mut self) -> &mut [f64] {
        // SAFETY: as in `as_u64_mut`.
        unsafe { std::slice::from_raw_parts_mut(self.ptr as *mut f64, self.len / 8) }
    }

    /// The mapping as atomic 64-bit words, for memory that threads share (a bounced cache
    /// line). The `&mut` borrow keeps every non-atomic view away while the atomics live.
    pub fn as_atomic_u64(&mut self) -> &[AtomicU64] {
        // SAFETY: page alignment satisfies AtomicU64's 8-byte alignment; the memory is mapped
        // for the borrow's lifetime, and the exclusive borrow of `self` means it is accessed
        // only through these atomics until the borrow ends.
        unsafe { std::slice::from_raw_parts(self.ptr as *const AtomicU64, self.len / 8) }
    }

    /// Writes a zero byte every `step` bytes, so the kernel allocates every page now (under
    /// whatever policy is in force) instead of at the first timed access.
    pub fn touch_every(&mut self, step: usize) {
        for off in (0..self.len).step_by(step.max(1)) {
            // SAFETY: `off < len`, inside the mapping we own exclusively.
            unsafe { std::ptr::write_volatile(self.ptr.add(off), 0) };
        }
    }

    /// The address of every `step`-th byte, to ask the kernel where each page lives.
    pub fn addresses_every(&self, step: usize) -> Vec<*const u8> {
        (0..self.len)
            .step_by(step.max(1))
            .map(|off| self.ptr.wrapping_add(off) as *const u8)
            .collect()
    }

    /// Applies a NUMA memory policy to the whole mapping (`mbind(2)`); with
    /// `MPOL_MF_MOVE` pages already present move, keeping their contents.
    pub fn bind(&self, mode: Mode, nodes: &[u32], flags: u32) -> Result<(), SysCallError> {
        // SAFETY: the range is exactly this mapping, page aligned and owned by `self`; mbind
        // changes where pages live, never their contents.
        unsafe { numa::mbind(self.ptr, self.len, mode, nodes, flags) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: base/base_len are exactly what mmap returned; nothing else unmaps it.
        unsafe {
            libc::munmap(self.base as *mut libc::c_void, self.base_len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_writes_and_aligns_thp() {
        let m = Mapping::new(4 << 20, Backing::Thp).unwrap();
        assert_eq!(m.as_mut_ptr() as usize % THP_ALIGN, 0);
        // SAFETY: inside the mapping.
        unsafe { m.as_mut_ptr().add(m.len() - 1).write(7) };
        let b = Mapping::new(8192, Backing::Base).unwrap();
        // SAFETY: inside the mapping.
        unsafe { b.as_mut_ptr().write(1) };
        assert_eq!(b.len(), 8192);
    }

    #[test]
    fn views_see_the_same_words_and_touch_keeps_length() {
        let mut m = Mapping::new(8192, Backing::Base).unwrap();
        m.as_u64_mut()[3] = 0x4010_0000_0000_0000;
        assert_eq!(m.as_u64()[3], 0x4010_0000_0000_0000);
        assert_eq!(m.as_f64_mut()[3], 4.0);
        m.touch_every(4096);
        assert_eq!(m.as_u64().len(), 1024);
        assert_eq!(m.as_u64()[0], 0);
        let atoms = m.as_atomic_u64();
        atoms[3].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(m.as_u64()[3], 0x4010_0000_0000_0001);
        let addrs = m.addresses_every(4096);
        assert_eq!(addrs.len(), 2);
        assert_eq!(addrs[1] as usize - addrs[0] as usize, 4096);
    }
}
