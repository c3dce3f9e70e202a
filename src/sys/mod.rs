//! The fence around the kernel and the processor: NUMA memory-policy syscalls, CPU affinity,
//! memory mappings, process facts (`geteuid`, `sysconf`), files created where others may
//! plant links (files.rs: the one atomic, exclusive writer) and the CPU instructions the clock
//! check needs (`CPUID`, `RDTSC`). Outside the measurement kernels, all `unsafe` and every
//! `libc` call of the crate live under this module (the architecture test enforces it), each
//! block with a `// SAFETY:` line, behind safe functions; every syscall failure becomes a
//! [`SysCallError`] that names the call and says what it means for the user. Nothing here
//! knows about topology or prints.

pub mod affinity;
pub mod cpu;
pub mod cputime;
pub mod files;
pub mod lock;
pub mod mmap;
pub mod numa;
pub mod perf;
pub mod process;
pub mod safe_read;
pub mod signal;
pub mod spawn;

use std::io;

/// A failed system call: which call, with what, and the OS error, plus a hint in user terms.
#[derive(Debug, thiserror::Error)]
#[error("{call} failed ({what}): {source}{hint}")]
pub struct SysCallError {
    pub call: &'static str,
    pub what: String,
    pub source: io::Error,
    pub hint: String,
}

impl SysCallError {
    /// Builds the error from `errno` right after a failed call.
    pub(crate) fn last(call: &'static str, what: impl Into<String>) -> SysCallError {
        let source = io::Error::last_os_error();
        SysCallError {
            call,
            what: what.into(),
            source,
            hint: String::new(),
        }
    }

    pub(crate) fn with_hint(mut self, hint: impl Into<String>) -> SysCallError {
        self.hint = format!("; {}", hint.into());
        self
    }

    /// The raw OS error number, if any.
    pub fn errno(&self) -> Option<i32> {
        self.source.raw_os_error()
    }
}

/// True when reading a kernel attribute file failed with an error that means "this attribute
/// has no value to give here" rather than a broken read: `EINVAL`, `EIO` or `ENODEV`, which
/// sysfs returns for attributes a driver declares but cannot fill.
pub fn is_attribute_refusal(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EINVAL) | Some(libc::EIO) | Some(libc::ENODEV)
    )
}

/// Turns the `-1`-on-error convention into a `Result` that captures errno.
pub(crate) fn check(
    ret: libc::c_long,
    call: &'static str,
    what: impl FnOnce() -> String,
) -> Result<libc::c_long, SysCallError> {
    if ret < 0 {
        Err(SysCallError::last(call, what()))
    } else {
        Ok(ret)
    }
}

/// A bitmask of ids (nodes or CPUs) laid out as the kernel expects: an array of `unsigned long`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdMask {
    words: Vec<libc::c_ulong>,
}

const WORD_BITS: usize = libc::c_ulong::BITS as usize;

impl IdMask {
    /// A mask able to hold ids below `bits` (rounded up to whole words), empty.
    pub fn with_bits(bits: usize) -> IdMask {
        IdMask {
            words: vec![0; bits.div_ceil(WORD_BITS).max(1)],
        }
    }

    /// A mask holding exactly `ids`, sized to hold at least `min_bits`.
    pub fn from_ids(ids: &[u32], min_bits: usize) -> IdMask {
        let max = ids
            .iter()
            .copied()
            .max()
            .map(|m| m as usize + 1)
            .unwrap_or(0);
        let mut m = IdMask::with_bits(max.max(min_bits));
        for &id in ids {
            m.words[id as usize / WORD_BITS] |= 1 << (id as usize % WORD_BITS);
        }
        m
    }

    /// The ids set in the mask, ascending.
    pub fn ids(&self) -> Vec<u32> {
        let mut out = Vec::new();
        for (w, &word) in self.words.iter().enumerate() {
            for b in 0..WORD_BITS {
                if word & (1 << b) != 0 {
                    out.push((w * WORD_BITS + b) as u32);
                }
            }
        }
        out
    }

    /// Number of bits the mask holds.
    pub fn bits(&self) -> usize {
        self.words.len() * WORD_BITS
    }

    pub(crate) fn as_ptr(&self) -> *const libc::c_ulong {
        self.words.as_ptr()
    }

    pub(crate) fn as_mut_ptr(&mut self) -> *mut libc::c_ulong {
        self.words.as_mut_ptr()
    }

    /// Size in bytes, for sched_{set,get}affinity.
    pub(crate) fn byte_len(&self) -> usize {
        self.words.len() * std::mem::size_of::<libc::c_ulong>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_round_trips() {
        let m = IdMask::from_ids(&[0, 2, 5, 64, 130], 0);
        assert_eq!(m.ids(), vec![0, 2, 5, 64, 130]);
        assert!(m.bits() >= 131);
        assert_eq!(IdMask::with_bits(1).ids(), Vec::<u32>::new());
    }

    #[test]
    fn attribute_refusals_are_einval_eio_enodev_only() {
        for errno in [libc::EINVAL, libc::EIO, libc::ENODEV] {
            assert!(is_attribute_refusal(&io::Error::from_raw_os_error(errno)));
        }
        assert!(!is_attribute_refusal(&io::Error::from_raw_os_error(
            libc::ENOENT
        )));
        assert!(!is_attribute_refusal(&io::Error::other("not an OS error")));
    }
}
