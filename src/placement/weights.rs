//! Weighted interleave weights live in sysfs (`/sys/kernel/mm/mempolicy/weighted_interleave/
//! nodeN`), system-wide, not per call. Placing a buffer with given weights therefore sets them
//! (root only), faults the pages in, and restores the previous weights: pages already placed
//! stay where they are. [`WeightGuard`] does the restoring on drop.

use crate::sysroot::SysRoot;

use super::PlacementError;

const DIR: &str = "sys/kernel/mm/mempolicy/weighted_interleave";

/// Current weights per node, `None` when the kernel has no weighted interleave (< 6.9).
pub fn read_weights(root: &SysRoot) -> Result<Option<Vec<(u32, u8)>>, PlacementError> {
    if !root.exists(DIR) {
        return Ok(None);
    }
    let mut out = Vec::new();
    for n in root.list_numbered(DIR, "node")? {
        if let Some(v) = root.read_u64_opt(format!("{DIR}/node{n}"))? {
            out.push((n, v.min(255) as u8));
        }
    }
    Ok(Some(out))
}

/// Restores the weights (and the `auto` switch of newer kernels) it replaced, on drop.
pub struct WeightGuard {
    root: SysRoot,
    old: Vec<(u32, u8)>,
    auto_was: Option<String>,
}

impl WeightGuard {
    /// Sets `weights` unless they are already in force. Errors say how to proceed without root.
    pub fn set(
        root: &SysRoot,
        weights: &[(u32, u8)],
    ) -> Result<Option<WeightGuard>, PlacementError> {
        let current = read_weights(root)?.ok_or_else(|| {
            PlacementError::Refused(crate::error::Marked::new(
                crate::error::Kind::Environment,
                "weighted interleave needs Linux 6.9 or newer (no /sys/kernel/mm/mempolicy/weighted_interleave here); use --policy interleave",
            ))
        })?;
        let differs = weights
            .iter()
            .any(|(n, w)| current.iter().find(|(m, _)| m == n).map(|(_, v)| v) != Some(w));
        if !differs {
            return Ok(None);
        }
        let auto_was = root.read_trimmed_opt(format!("{DIR}/auto"))?;
        let old: Vec<(u32, u8)> = current
            .into_iter()
            .filter(|(n, _)| weights.iter().any(|(m, _)| m == n))
            .collect();
        let guard = WeightGuard {
            root: root.clone(),
            old,
            auto_was,
        };
        for (n, w) in weights {
            root.write(format!("{DIR}/node{n}"), &format!("{w}\n")).map_err(|e| {
                PlacementError::Refused(crate::error::Marked::new(
                    crate::error::Kind::Environment,
                    format!("cannot set weighted-interleave weight {w} for node {n} ({e}); the weights are system-wide and need root, or set them yourself in /sys/kernel/mm/mempolicy/weighted_interleave/ and pass the same --weights"),
                ))
            })?;
        }
        Ok(Some(guard))
    }
}

impl Drop for WeightGuard {
    fn drop(&mut self) {
        for (n, w) in &self.old {
            let _ = self.root.write(format!("{DIR}/node{n}"), &format!("{w}\n"));
        }
        if self.auto_was.as_deref() == Some("true") || self.auto_was.as_deref() == Some("Y") {
            let _ = self.root.write(format!("{DIR}/auto"), "true\n");
        }
    }
}
