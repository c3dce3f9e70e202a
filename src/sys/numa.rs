//! NUMA memory-policy syscalls: `mbind`, `set_mempolicy`, `get_mempolicy` and `move_pages`,
//! called through `libc::syscall` (libc has no wrappers), with the policy constants libc lacks.
//! Errors are translated into what they mean for a user (e.g. EINVAL for weighted interleave
//! means a kernel older than 6.9).

use super::{check, IdMask, SysCallError};

pub const MPOL_DEFAULT: i32 = 0;
pub const MPOL_PREFERRED: i32 = 1;
pub const MPOL_BIND: i32 = 2;
pub const MPOL_INTERLEAVE: i32 = 3;
pub const MPOL_LOCAL: i32 = 4;
/// Linux 5.15+.
pub const MPOL_PREFERRED_MANY: i32 = 5;
/// Linux 6.9+; weights come from /sys/kernel/mm/mempolicy/weighted_interleave/nodeN.
pub const MPOL_WEIGHTED_INTERLEAVE: i32 = 6;

pub const MPOL_F_STATIC_NODES: i32 = 1 << 15;
pub const MPOL_F_RELATIVE_NODES: i32 = 1 << 14;
pub const MPOL_F_NUMA_BALANCING: i32 = 1 << 13;

/// get_mempolicy flags.
pub const MPOL_F_NODE: i32 = 1 << 0;
pub const MPOL_F_ADDR: i32 = 1 << 1;
pub const MPOL_F_MEMS_ALLOWED: i32 = 1 << 2;

/// mbind / move_pages flags.
pub const MPOL_MF_STRICT: u32 = 1 << 0;
pub const MPOL_MF_MOVE: u32 = 1 << 1;
pub const MPOL_MF_MOVE_ALL: u32 = 1 << 2;

/// Bits in node masks we pass; must be >= the kernel's nr_node_ids for get_mempolicy.
const NODE_BITS: usize = 1024;

/// The policy modes, as numascope names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Default,
    Preferred,
    Bind,
    Interleave,
    Local,
    PreferredMany,
    WeightedInterleave,
}

impl Mode {
    pub fn raw(self) -> i32 {
        match self {
            Mode::Default => MPOL_DEFAULT,
            Mode::Preferred => MPOL_PREFERRED,
            Mode::Bind => MPOL_BIND,
            Mode::Interleave => MPOL_INTERLEAVE,
            Mode::Local => MPOL_LOCAL,
            Mode::PreferredMany => MPOL_PREFERRED_MANY,
            Mode::WeightedInterleave => MPOL_WEIGHTED_INTERLEAVE,
        }
    }

    pub fn from_raw(raw: i32) -> Option<Mode> {
        Some(match raw & 0xff {
            MPOL_DEFAULT => Mode::Default,
            MPOL_PREFERRED => Mode::Preferred,
            MPOL_BIND => Mode::Bind,
            MPOL_INTERLEAVE => Mode::Interleave,
            MPOL_LOCAL => Mode::Local,
            MPOL_PREFERRED_MANY => Mode::PreferredMany,
            MPOL_WEIGHTED_INTERLEAVE => Mode::WeightedInterleave,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::Preferred => "preferred",
            Mode::Bind => "bind",
            Mode::Interleave => "interleave",
            Mode::Local => "local",
            Mode::PreferredMany => "preferred-many",
            Mode::WeightedInterleave => "weighted-interleave",
        }
    }
}

fn explain(e: SysCallError, mode: Mode) -> SysCallError {
    let hint = match (e.errno(), mode) {
        (Some(libc::EINVAL), Mode::WeightedInterleave) => {
            "weighted interleave needs Linux 6.9 or newer; use interleave on this kernel"
        }
        (Some(libc::EINVAL), Mode::PreferredMany) => "preferred-many needs Linux 5.15 or newer",
        (Some(libc::EINVAL), _) => {
            "a node in the set has no memory, does not exist, or is not allowed for this process"
        }
        (Some(libc::ENOSYS), _) => "this kernel was built without NUMA support",
        (Some(libc::EPERM), _) => "the process lacks the privilege for this policy",
        (Some(libc::EIO), _) | (Some(libc::ENOMEM), _) => {
            "the pages could not be placed (node full?)"
        }
        _ => "",
    };
    if hint.is_empty() {
        e
    } else {
        e.with_hint(hint)
    }
}

/// A node set as mbind and set_mempolicy take it: a mask and `maxnode`, or a null mask and 0
/// for the empty set. `maxnode` counts bits; the kernel reads maxnode-1 of them, hence the +1
/// numactl uses too.
struct NodeArg {
    mask: IdMask,
    maxnode: usize,
}

impl NodeArg {
    fn new(nodes: &[u32]) -> NodeArg {
        let mask = IdMask::from_ids(nodes, 64);
        let maxnode = if nodes.is_empty() { 0 } else { mask.bits() + 1 };
        NodeArg { mask, maxnode }
    }

    /// The mask pointer, valid while `self` lives.
    fn ptr(&self) -> *const libc::c_ulong {
        if self.maxnode == 0 {
            std::ptr::null()
        } else {
            self.mask.as_ptr()
        }
    }
}

/// Checks a policy call's return and words its failure: "<mode> on nodes <list>" plus a hint.
fn check_policy_call(
    ret: libc::c_long,
    call: &'static str,
    mode: Mode,
    nodes: &[u32],
) -> Result<(), SysCallError> {
    check(ret, call, || {
        format!(
            "{} on nodes {}",
            mode.name(),
            crate::results::format::format_list(nodes)
        )
    })
    .map_err(|e| explain(e, mode))?;
    Ok(())
}

/// Applies `mode` over `nodes` to the address range `[addr, addr+len)` (`mbind(2)`).
///
/// # Safety
/// `addr` must be page aligned and `[addr, addr+len)` a mapping owned by the caller.
pub unsafe fn mbind(
    addr: *mut u8,
    len: usize,
    mode: Mode,
    nodes: &[u32],
    flags: u32,
) -> Result<(), SysCallError> {
    let arg = NodeArg::new(nodes);
    // SAFETY: the caller guarantees the range; `arg` (the mask) outlives the call.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_mbind,
            addr,
            len,
            mode.raw(),
            arg.ptr(),
            arg.maxnode,
            flags,
        )
    };
    check_policy_call(ret, "mbind", mode, nodes)
}

/// Sets the calling thread's default policy (`set_mempolicy(2)`).
pub fn set_mempolicy(mode: Mode, nodes: &[u32]) -> Result<(), SysCallError> {
    let arg = NodeArg::new(nodes);
    // SAFETY: the mask pointer is valid for the given number of bits for the call's duration.
    let ret = unsafe { libc::syscall(libc::SYS_set_mempolicy, mode.raw(), arg.ptr(), arg.maxnode) };
    check_policy_call(ret, "set_mempolicy", mode, nodes)
}

/// `get_mempolicy(2)` with `flags` and no address: the raw mode (with flags) and node mask.
fn get_policy(flags: i32, what: &'static str) -> Result<(i32, Vec<u32>), SysCallError> {
    let mut mode: libc::c_int = 0;
    let mut mask = IdMask::with_bits(NODE_BITS);
    // SAFETY: out-pointers are valid; the mask holds NODE_BITS bits; no address is passed.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_get_mempolicy,
            &mut mode as *mut libc::c_int,
            mask.as_mut_ptr(),
            NODE_BITS,
            std::ptr::null_mut::<libc::c_void>(),
            flags,
        )
    };
    check(ret, "get_mempolicy", || what.to_string())?;
    Ok((mode, mask.ids()))
}

/// The calling thread's policy: mode (raw, with flags) and node set.
pub fn get_mempolicy() -> Result<(i32, Vec<u32>), SysCallError> {
    get_policy(0, "")
}

/// The nodes this process may allocate on, as the kernel sees it (MPOL_F_MEMS_ALLOWED).
pub fn mems_allowed() -> Result<Vec<u32>, SysCallError> {
    Ok(get_policy(MPOL_F_MEMS_ALLOWED, "MPOL_F_MEMS_ALLOWED")?.1)
}

/// Where each page is: for every address, the node holding it, or a negative errno
/// (`-ENOENT`: not present, `-EFAULT`: not mapped). Queries in batches.
pub fn query_pages(pages: &[*const u8]) -> Result<Vec<i32>, SysCallError> {
    const BATCH: usize = 1 << 16;
    let mut status = vec![0i32; pages.len()];
    for (chunk, st) in pages.chunks(BATCH).zip(status.chunks_mut(BATCH)) {
        // SAFETY: `chunk` and `st` have equal lengths and live through the call; a null node
        // list asks for a query only, moving nothing.
        let ret = unsafe {
            libc::syscall(
                libc::SYS_move_pages,
                0,
                chunk.len(),
                chunk.as_ptr(),
                std::ptr::null::<libc::c_int>(),
                st.as_mut_ptr(),
                0,
            )
        };
        check(ret, "move_pages", || {
            format!("query of {} pages", chunk.len())
        })
        .map_err(|e| {
            if e.errno() == Some(libc::ENOSYS) {
                e.with_hint("this kernel was built without NUMA page migration")
            } else {
                e
            }
        })?;
    }
    Ok(status)
}

/// Moves pages to `nodes[i]` each (`move_pages(2)` with a node list); returns per-page status.
pub fn move_to(pages: &[*const u8], nodes: &[i32]) -> Result<Vec<i32>, SysCallError> {
    assert_eq!(pages.len(), nodes.len());
    let mut status = vec![0i32; pages.len()];
    // SAFETY: all three arrays have `pages.len()` entries and live through the call.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_move_pages,
            0,
            pages.len(),
            pages.as_ptr(),
            nodes.as_ptr(),
            status.as_mut_ptr(),
            MPOL_MF_MOVE as libc::c_int,
        )
    };
    check(ret, "move_pages", || {
        format!("move of {} pages", pages.len())
    })?;
    Ok(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_of_this_thread_is_readable() {
        let (mode, _nodes) = get_mempolicy().unwrap();
        assert!(Mode::from_raw(mode).is_some());
        assert!(mems_allowed().unwrap().contains(&0));
    }

    #[test]
    fn query_reports_absent_and_present_pages() {
        let mut v = vec![1u8; 8192];
        let p = v.as_mut_ptr() as *const u8;
        let st = query_pages(&[p]).unwrap();
        assert!(st[0] >= 0, "a written page is present: {st:?}");
    }
}
