//! Anonymous memory mappings with a chosen page backing: base pages with THP forbidden
//! (`MADV_NOHUGEPAGE`), transparent huge pages (`MADV_HUGEPAGE`, 2 MiB aligned), or hugetlbfs
//! 2 MiB / 1 GiB pages (`MAP_HUGETLB`). The mapping is released on drop.

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
        assert!(len > 0);
        let prot = libc::PROT_READ | libc::PROT_WRITE;
        let mut flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
        let map_len = match backing {
            Backing::Thp => len + THP_ALIGN,
            _ => len,
        };
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
}
