//! `--sysfs-root TOPOLOGY.xml`: an hwloc XML topology (from `lstopo --of xml`, `hwloc-gather`
//! or `numascope report --hwloc-xml`) turned into a snapshot directory of the sysfs and procfs
//! files numascope reads, so the one topology reader serves XML too.
//!
//! What hwloc's XML holds becomes the files the kernel would show: each PU a `cpuN` with its
//! package, core and caches (from the objects above it), each NUMANode a `nodeN` with its
//! CPUs, memory (MemTotal only: an XML has no free memory, which the reader then reports as
//! unknown with a warning) and huge-page pools, the `NUMALatency` distance matrix as each
//! node's `distance`, the Machine's allowed sets as the process's allowed CPUs and nodes, and
//! the CPU model and kernel release from the info attributes. What the XML does not hold
//! (THP, NUMA balancing, governor) is absent, and shown as unknown like any missing file.
//!
//! The file is opened as a regular file with a size cap and parsed with a node cap; the
//! external DTD hwloc names is never fetched, so an XML cannot make the reader read elsewhere
//! or grow without bound.

use std::path::Path;

use anyhow::Context as _;

use super::Unpacked;

mod parse;
mod write;

use parse::parse;
use write::write_snapshot;

/// The largest XML accepted (a 1024-CPU machine's lstopo XML is about 2 MB).
const MAX_XML_BYTES: u64 = 64 << 20;

/// True when `p` is a regular file that starts like an XML document.
pub fn is_xml(p: &Path) -> bool {
    use std::io::Read as _;
    let Ok((f, _)) = crate::sys::safe_read::open_regular(p, MAX_XML_BYTES, false) else {
        return false;
    };
    let mut head = Vec::new();
    if f.take(256).read_to_end(&mut head).is_err() {
        return false;
    }
    let head = String::from_utf8_lossy(&head);
    let head = head.trim_start();
    head.starts_with("<?xml") || head.starts_with("<topology")
}

/// Reads the hwloc XML at `path` into a fresh snapshot directory, removed when dropped.
pub fn unpack_xml(path: &Path) -> anyhow::Result<Unpacked> {
    let bytes =
        crate::sys::safe_read::read_capped(path, MAX_XML_BYTES, false).with_context(|| {
            format!(
                "--sysfs-root {}: cannot read this hwloc XML (at most {} MiB)",
                path.display(),
                MAX_XML_BYTES >> 20
            )
        })?;
    let text = String::from_utf8(bytes).map_err(|_| {
        anyhow::anyhow!(
            "--sysfs-root {}: this XML is not UTF-8 text",
            path.display()
        )
    })?;
    let parsed = parse(&text).with_context(|| {
        format!(
            "--sysfs-root {}: not an hwloc topology (make one with `lstopo --of xml FILE`)",
            path.display()
        )
    })?;
    let u = Unpacked::fresh()?;
    write_snapshot(&parsed, u.path())?;
    Ok(u)
}

#[cfg(test)]
mod tests {
    use super::parse::{bits, parse};
    use super::write::list;

    #[test]
    fn bitmaps_read_back() {
        assert_eq!(bits("0x00000003").unwrap(), vec![0, 1]);
        assert_eq!(bits("0x00000001,0x00000000").unwrap(), vec![32]);
        assert_eq!(bits("0x0").unwrap(), Vec::<u32>::new());
        assert_eq!(bits("0x1,,0x2").unwrap(), vec![1, 64]);
        assert!(bits("0xf...f").is_err());
        assert!(bits("zz").is_err());
    }

    #[test]
    fn lists_are_compact() {
        assert_eq!(list(&[0, 1, 2, 5, 7, 8]), "0-2,5,7-8\n");
        assert_eq!(list(&[]), "\n");
    }

    #[test]
    fn refuses_what_is_not_a_topology() {
        assert!(parse("<html/>").unwrap_err().to_string().contains("<html>"));
        assert!(parse("<topology/>")
            .unwrap_err()
            .to_string()
            .contains("no PU"));
        assert!(parse("not xml").is_err());
    }
}
