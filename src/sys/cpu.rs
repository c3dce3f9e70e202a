//! The processor instructions the clock check needs, behind safe functions: `CPUID` (with the
//! highest supported leaf checked first, so no caller can ask for a leaf the CPU lacks), the
//! time-stamp counter, and a chain of dependent integer adds that runs one core cycle per add.
//! The `unsafe` and inline assembly live here so `clock.rs` stays plain arithmetic; what the
//! figures mean (TSC ticks are not core cycles) is the clock module's business, not this one's.

/// The four registers one `CPUID` query returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuidRegs {
    pub eax: u32,
    pub ebx: u32,
    pub ecx: u32,
    pub edx: u32,
}

/// `CPUID` leaf `leaf`, sub-leaf `sub`; `None` when the CPU does not offer that leaf (above
/// the highest basic leaf, or above the highest extended leaf for `0x8000_0000` and up).
#[cfg(target_arch = "x86_64")]
#[allow(unused_unsafe)] // `__cpuid_count` is a safe function on newer toolchains.
pub fn cpuid(leaf: u32, sub: u32) -> Option<CpuidRegs> {
    use std::arch::x86_64::__cpuid_count;
    let range_leaf = leaf & 0x8000_0000;
    // SAFETY: CPUID exists on every x86_64 CPU, and leaf 0 (or 0x8000_0000) always answers
    // with the highest leaf of its range.
    let max = unsafe { __cpuid_count(range_leaf, 0) }.eax;
    if leaf > max {
        return None;
    }
    // SAFETY: `leaf` is within the range the CPU just said it supports.
    let r = unsafe { __cpuid_count(leaf, sub) };
    Some(CpuidRegs {
        eax: r.eax,
        ebx: r.ebx,
        ecx: r.ecx,
        edx: r.edx,
    })
}

/// There is no `CPUID` outside x86_64.
#[cfg(not(target_arch = "x86_64"))]
pub fn cpuid(_leaf: u32, _sub: u32) -> Option<CpuidRegs> {
    None
}

/// The hypervisor's vendor signature: the 12 bytes of `CPUID` leaf `0x4000_0000` (EBX, ECX,
/// EDX), read only when leaf 1 says a hypervisor is present (ECX bit 31), as hypervisors
/// reserve that leaf range for themselves. `None` on bare metal and off x86_64.
#[cfg(target_arch = "x86_64")]
#[allow(unused_unsafe)] // `__cpuid_count` is a safe function on newer toolchains.
pub fn hypervisor_signature() -> Option<[u8; 12]> {
    let l1 = cpuid(1, 0)?;
    if l1.ecx & (1 << 31) == 0 {
        return None;
    }
    // SAFETY: CPUID exists on every x86_64 CPU; with the hypervisor bit set, leaf 0x4000_0000
    // is the hypervisor's own information leaf, and reading any leaf has no side effect.
    let r = unsafe { std::arch::x86_64::__cpuid_count(0x4000_0000, 0) };
    let mut sig = [0u8; 12];
    sig[..4].copy_from_slice(&r.ebx.to_le_bytes());
    sig[4..8].copy_from_slice(&r.ecx.to_le_bytes());
    sig[8..].copy_from_slice(&r.edx.to_le_bytes());
    Some(sig)
}

/// There is no `CPUID` outside x86_64.
#[cfg(not(target_arch = "x86_64"))]
pub fn hypervisor_signature() -> Option<[u8; 12]> {
    None
}

/// The time-stamp counter (`RDTSC`), in TSC ticks.
#[cfg(target_arch = "x86_64")]
pub fn rdtsc() -> u64 {
    // SAFETY: RDTSC reads a counter; it has no memory effects, and every x86_64 CPU has it.
    unsafe { std::arch::x86_64::_rdtsc() }
}

/// Adds per iteration of [`add_chain`].
pub const ADDS_PER_ITERATION: u64 = 64;

// One loop, spelled in each architecture's instructions: 64 dependent adds of the register
// `one` to `x`, then count `n` down and branch back while it is not zero. The addend is a
// register, not an immediate: a 16-core Intel guest (family 6, model 207, Emerald Rapids)
// timed a chain of `add reg, 1` at 15.7 GHz, so its cores retire dependent immediate adds
// faster than one per cycle (Intel cores since Golden Cove are reported to fold them at
// rename); an add of two registers goes through an ALU, one cycle each.
#[cfg(target_arch = "x86_64")]
macro_rules! add_x {
    () => {
        "add {x}, {one}"
    };
}
#[cfg(target_arch = "x86_64")]
macro_rules! count_down_n {
    () => {
        "dec {n}\njnz 2b"
    };
}
#[cfg(target_arch = "aarch64")]
macro_rules! add_x {
    () => {
        "add {x}, {x}, {one}"
    };
}
#[cfg(target_arch = "aarch64")]
macro_rules! count_down_n {
    () => {
        "subs {n}, {n}, #1\nb.ne 2b"
    };
}

/// Runs `iterations` x [`ADDS_PER_ITERATION`] dependent adds (at least one iteration); each
/// add needs the previous result, so the chain takes one core cycle per add on every
/// out-of-order core numascope targets.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub fn add_chain(iterations: u64) {
    // SAFETY: register-only arithmetic and a counted loop; no memory or stack use, and no
    // flags contract beyond what the operands declare.
    unsafe {
        std::arch::asm!(
            "2:",
            ".rept 64",
            add_x!(),
            ".endr",
            count_down_n!(),
            x = inout(reg) 0u64 => _,
            n = inout(reg) iterations.max(1) => _,
            one = in(reg) 1u64,
            options(nomem, nostack),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(not(target_arch = "x86_64"))]
    #[test]
    fn there_is_no_cpuid_off_x86() {
        assert_eq!(cpuid(0, 0), None);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn cpuid_answers_leaf_0_and_refuses_beyond_the_highest_leaf() {
        let max = cpuid(0, 0).expect("leaf 0 always answers").eax;
        assert!(cpuid(max, 0).is_some());
        if max < 0x7fff_ffff {
            assert_eq!(cpuid(max + 1, 0), None);
        }
        let ext = cpuid(0x8000_0000, 0)
            .expect("the extended range answers")
            .eax;
        assert!(ext >= 0x8000_0000, "highest extended leaf {ext:#x}");
        assert_eq!(cpuid(ext + 1, 0), None);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn tsc_moves_forward() {
        let a = rdtsc();
        std::thread::sleep(std::time::Duration::from_millis(1));
        assert!(rdtsc() > a);
    }
}
