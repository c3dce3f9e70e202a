//! Weighted interleave weights live in sysfs (`/sys/kernel/mm/mempolicy/weighted_interleave/
//! nodeN`), system-wide, not per call. Placing a buffer with given weights therefore sets them
//! (root only), faults the pages in, and restores the previous weights: pages already placed
//! stay where they are. [`WeightGuard`] does the restoring on drop.

use crate::sysroot::SysRoot;

use super::PlacementError;

const DIR: &str = "sys/kernel/mm/mempolicy/weighted_interleave";

/// The kernel's `auto` switch (6.13+: weights derived from HMAT bandwidth, turned off by
/// any weight written), relative to the root. Some kernels built as C23 expose it as
/// `__auto_type` (the attribute's name went through the `auto` keyword macro); both are read.
fn auto_file(root: &SysRoot) -> Option<String> {
    ["auto", "__auto_type"]
        .into_iter()
        .map(|f| format!("{DIR}/{f}"))
        .find(|p| root.exists(p))
}

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
        let auto_was = match auto_file(root) {
            Some(f) => root.read_trimmed_opt(f)?,
            None => None,
        };
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
        if matches!(self.auto_was.as_deref(), Some("true" | "Y" | "1")) {
            // A kernel with no HMAT bandwidth refuses to turn `auto` back on (ENODEV); the
            // weights above are restored all the same.
            if let Some(f) = auto_file(&self.root) {
                let _ = self.root.write(f, "true\n");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A temporary directory standing in for /sys/kernel/mm/mempolicy, with node0..node2 at
    /// weight 1 and `auto` on, as a 6.13+ kernel starts.
    fn fake_root() -> (tempfile::TempDir, SysRoot) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join(DIR);
        std::fs::create_dir_all(&dir).unwrap();
        for n in 0..3 {
            std::fs::write(dir.join(format!("node{n}")), "1\n").unwrap();
        }
        std::fs::write(dir.join("auto"), "true\n").unwrap();
        let root = SysRoot::live_at(tmp.path());
        (tmp, root)
    }

    fn weight(tmp: &tempfile::TempDir, n: u32) -> String {
        std::fs::read_to_string(tmp.path().join(DIR).join(format!("node{n}"))).unwrap()
    }

    #[test]
    fn the_guard_restores_the_weights_and_auto_on_drop() {
        let (tmp, root) = fake_root();
        let guard = WeightGuard::set(&root, &[(0, 7), (2, 3)]).unwrap().unwrap();
        assert_eq!(weight(&tmp, 0), "7\n");
        assert_eq!(weight(&tmp, 2), "3\n");
        // The kernel turns `auto` off when a weight is written; the guard turns it back on.
        std::fs::write(tmp.path().join(DIR).join("auto"), "false\n").unwrap();
        drop(guard);
        assert_eq!(weight(&tmp, 0), "1\n");
        assert_eq!(weight(&tmp, 1), "1\n");
        assert_eq!(weight(&tmp, 2), "1\n");
        let auto = std::fs::read_to_string(tmp.path().join(DIR).join("auto")).unwrap();
        assert_eq!(auto, "true\n");
        // Weights already in force: nothing to set, nothing to restore.
        assert!(WeightGuard::set(&root, &[(0, 1)]).unwrap().is_none());
    }

    /// A write that fails part-way (node 1 is a link into a missing directory: not read, and
    /// not writable) returns the error and puts back the weight already written to node 0:
    /// the error path drops the guard too.
    #[test]
    fn a_failed_write_restores_what_was_already_written() {
        let (tmp, root) = fake_root();
        let n1 = tmp.path().join(DIR).join("node1");
        std::fs::remove_file(&n1).unwrap();
        std::os::unix::fs::symlink("missing/node1", &n1).unwrap();
        std::fs::write(tmp.path().join(DIR).join("node2"), "4\n").unwrap();
        let e = match WeightGuard::set(&root, &[(0, 7), (1, 5), (2, 9)]) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("writing node1 (a directory) must fail"),
        };
        assert!(e.contains("weight 5 for node 1"), "{e}");
        assert_eq!(weight(&tmp, 0), "1\n");
        assert_eq!(weight(&tmp, 2), "4\n");
    }

    /// A kernel that names the switch `__auto_type` gets it back too.
    #[test]
    fn the_auto_switch_under_its_c23_name_is_restored() {
        let (tmp, root) = fake_root();
        let dir = tmp.path().join(DIR);
        std::fs::rename(dir.join("auto"), dir.join("__auto_type")).unwrap();
        let g = WeightGuard::set(&root, &[(0, 7)]).unwrap();
        std::fs::write(dir.join("__auto_type"), "false\n").unwrap();
        drop(g);
        assert_eq!(
            std::fs::read_to_string(dir.join("__auto_type")).unwrap(),
            "true\n"
        );
        assert!(!dir.join("auto").exists());
    }

    /// A panic while the weights are set (a measuring loop that fails) still restores them.
    #[test]
    fn an_unwinding_panic_restores_the_weights() {
        let (tmp, root) = fake_root();
        let r = std::panic::catch_unwind(|| {
            let _g = WeightGuard::set(&root, &[(1, 6)]).unwrap();
            panic!("measuring failed");
        });
        assert!(r.is_err());
        assert_eq!(weight(&tmp, 1), "1\n");
    }
}
