//! Kernels described as data (docs/METHODOLOGY.md, "Byte accounting", LIKWID's model): what each
//! bandwidth kernel reads and writes per element, whether its stores are non-temporal, and how
//! it walks memory. The harness, the listing and the documentation compute bytes from these
//! descriptors alone and never need to know what a kernel's code does.
//!
//! Byte counting follows STREAM for the application figure: copy and scale move 16 B per
//! element (8 read + 8 written), add and triad 24 B (16 read + 8 written); the write-allocate
//! read of a normal store is *not* counted there. The DRAM estimate adds that read-for-ownership
//! for normal stores (none for non-temporal stores), and counts a whole cache line for kernels
//! that touch one word per line (strided and random reads). MB = 10^6 B everywhere.
//!
//! `--stride N` (NUMA-STREAM's strided kernels) makes a sequential kernel process every N-th
//! element (N in 8 B elements). The application figure still counts what the kernel reads and
//! writes, 8 B per stream per element processed ("useful bytes"); the DRAM estimate counts the
//! lines moved: each stream costs min(N x 8 B, one line) per element, so with N x 8 B >= the
//! line size every element costs a whole line per stream (two for a normal store: the
//! read-for-ownership and the write-back). See [`KernelDescriptor::strided_dram_bytes_per_element`].

use serde::{Deserialize, Serialize};

/// Bytes of one element: every kernel works on 8-byte `f64`/`u64` words.
pub const ELEMENT_BYTES: u64 = 8;

/// The kernels numascope knows, in listing order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KernelId {
    Read,
    ReadPrefetch,
    Write,
    WriteNt,
    Copy,
    CopyNt,
    Scale,
    Add,
    Triad,
    Update,
    ReadStrided,
    RandomRead,
}

/// How a kernel walks its buffers; decides how the DRAM traffic is estimated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Access {
    /// Every element of every stream in address order.
    Sequential,
    /// One word per cache line, lines in address order: each element costs a whole line.
    Strided,
    /// One word per independently chosen random line: each element costs a whole line.
    Random,
}

/// What a kernel does to one of its streams (arrays).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StreamRole {
    Read,
    Write,
    ReadWrite,
}

/// One kernel, described as data.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct KernelDescriptor {
    pub id: KernelId,
    /// The name used on the command line and in results (`triad`, `copy-nt`, ...).
    pub name: &'static str,
    /// One line for the listing.
    pub description: &'static str,
    /// Role of each stream; stream 0 is the written one when there is one.
    pub streams: &'static [StreamRole],
    /// Bytes the application reads per element (STREAM counting).
    pub read_bytes_per_element: u64,
    /// Bytes the application writes per element (STREAM counting).
    pub written_bytes_per_element: u64,
    /// Extra DRAM bytes per element from write-allocate (read-for-ownership of the written
    /// line); 0 for non-temporal stores and for read-modify-write, whose load already
    /// brought the line in.
    pub write_allocate_bytes_per_element: u64,
    /// Stores bypass the caches (streaming stores followed by a store fence).
    pub non_temporal: bool,
    pub access: Access,
    /// Has AVX2 and AVX-512 implementations; otherwise one portable implementation serves
    /// every ISA (strided and random reads are bound by memory-level parallelism, not width).
    pub simd: bool,
}

use Access::*;
use StreamRole::{Read as R, ReadWrite as RW, Write as W};

impl KernelDescriptor {
    /// A kernel from its streams: reads and writes count 8 B per element for each stream
    /// that is read or written (STREAM counting); a write-only stream with normal stores adds
    /// its write-allocate read (a read-modify-write stream's load already brought the line
    /// in, and non-temporal stores allocate nothing). Sequential kernels have SIMD variants;
    /// strided and random reads are bound by memory-level parallelism, not width.
    const fn of(
        id: KernelId,
        name: &'static str,
        streams: &'static [StreamRole],
        non_temporal: bool,
        access: Access,
        description: &'static str,
    ) -> KernelDescriptor {
        let (mut read, mut written, mut allocate) = (0, 0, 0);
        let mut i = 0;
        while i < streams.len() {
            match streams[i] {
                StreamRole::Read => read += ELEMENT_BYTES,
                StreamRole::Write => {
                    written += ELEMENT_BYTES;
                    if !non_temporal {
                        allocate += ELEMENT_BYTES;
                    }
                }
                StreamRole::ReadWrite => {
                    read += ELEMENT_BYTES;
                    written += ELEMENT_BYTES;
                }
            }
            i += 1;
        }
        KernelDescriptor {
            id,
            name,
            description,
            streams,
            read_bytes_per_element: read,
            written_bytes_per_element: written,
            write_allocate_bytes_per_element: allocate,
            non_temporal,
            access,
            simd: matches!(access, Sequential),
        }
    }
}

/// Normal (cached) stores and non-temporal ones, for the table below.
const NORMAL: bool = false;
const NT: bool = true;

/// Every kernel, in listing order: one row each (id, name, streams with the written one
/// first, stores, access, description); the byte accounting follows from the streams.
#[rustfmt::skip]
pub const KERNELS: &[KernelDescriptor] = &[
    KernelDescriptor::of(KernelId::Read, "read", &[R], NORMAL, Sequential, "sum of every element (average read bandwidth)"),
    KernelDescriptor::of(KernelId::ReadPrefetch, "read-prefetch", &[R], NORMAL, Sequential, "sum of every element with software prefetch ahead (maximum read)"),
    KernelDescriptor::of(KernelId::Write, "write", &[W], NORMAL, Sequential, "a[i] = s with normal stores (average write bandwidth)"),
    KernelDescriptor::of(KernelId::WriteNt, "write-nt", &[W], NT, Sequential, "a[i] = s with non-temporal stores (maximum write)"),
    KernelDescriptor::of(KernelId::Copy, "copy", &[W, R], NORMAL, Sequential, "a[i] = b[i] (STREAM copy)"),
    KernelDescriptor::of(KernelId::CopyNt, "copy-nt", &[W, R], NT, Sequential, "a[i] = b[i] with non-temporal stores"),
    KernelDescriptor::of(KernelId::Scale, "scale", &[W, R], NORMAL, Sequential, "a[i] = s * b[i] (STREAM scale)"),
    KernelDescriptor::of(KernelId::Add, "add", &[W, R, R], NORMAL, Sequential, "a[i] = b[i] + c[i] (STREAM add)"),
    KernelDescriptor::of(KernelId::Triad, "triad", &[W, R, R], NORMAL, Sequential, "a[i] = b[i] + s * c[i] (STREAM triad)"),
    KernelDescriptor::of(KernelId::Update, "update", &[RW], NORMAL, Sequential, "a[i] = a[i] + s (read-modify-write)"),
    KernelDescriptor::of(KernelId::ReadStrided, "read-strided", &[R], NORMAL, Strided, "one 8 B read per cache line, lines in order"),
    KernelDescriptor::of(KernelId::RandomRead, "random-read", &[R], NORMAL, Random, "one 8 B read per random cache line, independent addresses"),
];

impl KernelId {
    /// The descriptor of this kernel.
    pub fn descriptor(self) -> &'static KernelDescriptor {
        KERNELS
            .iter()
            .find(|d| d.id == self)
            .expect("every KernelId has a descriptor in KERNELS")
    }

    pub fn name(self) -> &'static str {
        self.descriptor().name
    }
}

/// Names of all kernels, comma separated, for error messages.
pub fn known_names() -> String {
    KERNELS
        .iter()
        .map(|d| d.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The error of an unknown kernel name; lists the known ones.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a bandwidth kernel; the kernels are: {known}", known = known_names())]
pub struct UnknownKernel(pub String);

/// Looks a kernel up by its command-line name.
pub fn by_name(name: &str) -> Result<&'static KernelDescriptor, UnknownKernel> {
    let n = name.trim();
    KERNELS
        .iter()
        .find(|d| d.name.eq_ignore_ascii_case(n))
        .ok_or_else(|| UnknownKernel(n.to_string()))
}

impl KernelDescriptor {
    /// Application bytes per element: read + written (STREAM's convention).
    pub fn app_bytes_per_element(&self) -> u64 {
        self.read_bytes_per_element + self.written_bytes_per_element
    }

    /// Estimated DRAM bytes per element on a machine with `line_bytes` cache lines: for
    /// sequential kernels application bytes plus the write-allocate read; for strided and
    /// random reads one whole line per element.
    pub fn dram_bytes_per_element(&self, line_bytes: u64) -> u64 {
        match self.access {
            Sequential => self.app_bytes_per_element() + self.write_allocate_bytes_per_element,
            Strided | Random => line_bytes,
        }
    }

    /// Number of streams (arrays) the kernel uses.
    pub fn stream_count(&self) -> usize {
        self.streams.len()
    }

    /// Application bytes moved by `elements` elements.
    pub fn app_bytes(&self, elements: u64) -> u64 {
        elements * self.app_bytes_per_element()
    }

    /// Estimated DRAM bytes moved by `elements` elements.
    pub fn dram_bytes(&self, elements: u64, line_bytes: u64) -> u64 {
        elements * self.dram_bytes_per_element(line_bytes)
    }

    /// Elements per buffer of `array_bytes` bytes that one pass visits: every element for
    /// sequential kernels, one per line for strided reads (random reads choose their own count).
    pub fn elements_per_pass(&self, array_bytes: u64, line_bytes: u64) -> u64 {
        match self.access {
            Sequential => array_bytes / ELEMENT_BYTES,
            Strided | Random => array_bytes / line_bytes.max(ELEMENT_BYTES),
        }
    }
}

impl KernelDescriptor {
    /// Why `--stride` does not apply to this kernel, or `None` when it does: the sequential
    /// kernels with normal stores take one (read, write, copy, scale, add, triad, update).
    pub fn stride_refusal(&self) -> Option<&'static str> {
        match (self.access, self.id) {
            (Strided, _) => Some("it already reads one word per cache line; use `read --stride N` for another stride"),
            (Random, _) => Some("it reads random lines, with no walk order to stride"),
            (Sequential, KernelId::ReadPrefetch) => {
                Some("its prefetch distance assumes a contiguous walk")
            }
            (Sequential, _) if self.non_temporal => Some(
                "streaming stores of single words leave partial lines, which is not maximum write",
            ),
            (Sequential, _) => None,
        }
    }

    /// Estimated DRAM bytes per element processed with a stride of `stride` elements: each
    /// stream's 8 B access costs min(stride x 8 B, `line_bytes`) (below a line every line is
    /// still fetched whole, shared by the elements in it; at or above it each element has
    /// its own line), times the descriptor's words per element including the write-allocate
    /// read. Hardware prefetchers (e.g. an adjacent-line prefetcher) may move more; this is an
    /// estimate, labelled so. A stride of 1 gives [`KernelDescriptor::dram_bytes_per_element`].
    pub fn strided_dram_bytes_per_element(&self, line_bytes: u64, stride: u64) -> u64 {
        let per_word = (stride.max(1) * ELEMENT_BYTES).min(line_bytes.max(ELEMENT_BYTES));
        let words = self.dram_bytes_per_element(line_bytes) / ELEMENT_BYTES;
        match self.access {
            Sequential => words * per_word,
            Strided | Random => self.dram_bytes_per_element(line_bytes),
        }
    }
}

/// Names of the kernels that take `--stride`, comma separated, for error messages.
pub fn strided_names() -> String {
    KERNELS
        .iter()
        .filter(|d| d.stride_refusal().is_none())
        .map(|d| d.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Converts bytes moved in `ns` nanoseconds to MB/s (1 MB = 10^6 B); 0 when `ns` is 0.
pub fn mb_per_s(bytes: u64, ns: u64) -> f64 {
    if ns == 0 {
        0.0
    } else {
        bytes as f64 * 1e3 / ns as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(name: &str) -> &'static KernelDescriptor {
        by_name(name).unwrap()
    }

    #[test]
    fn stream_counting_matches_stream() {
        // STREAM: copy 2 words, scale 2, add 3, triad 3 per element, no write-allocate.
        assert_eq!(d("copy").app_bytes_per_element(), 16);
        assert_eq!(d("scale").app_bytes_per_element(), 16);
        assert_eq!(d("add").app_bytes_per_element(), 24);
        assert_eq!(d("triad").app_bytes_per_element(), 24);
        assert_eq!(d("copy").read_bytes_per_element, 8);
        assert_eq!(d("copy").written_bytes_per_element, 8);
        assert_eq!(d("triad").read_bytes_per_element, 16);
    }

    #[test]
    fn dram_estimate_adds_write_allocate_only_for_normal_stores() {
        assert_eq!(d("copy").dram_bytes_per_element(64), 24);
        assert_eq!(d("copy-nt").dram_bytes_per_element(64), 16);
        assert_eq!(d("scale").dram_bytes_per_element(64), 24);
        assert_eq!(d("add").dram_bytes_per_element(64), 32);
        assert_eq!(d("triad").dram_bytes_per_element(64), 32);
        assert_eq!(d("write").dram_bytes_per_element(64), 16);
        assert_eq!(d("write-nt").dram_bytes_per_element(64), 8);
        assert_eq!(d("read").dram_bytes_per_element(64), 8);
        assert_eq!(d("read-prefetch").dram_bytes_per_element(64), 8);
        // The load of a read-modify-write already owns the line: no extra read.
        assert_eq!(d("update").dram_bytes_per_element(64), 16);
        // One word per line costs the line.
        assert_eq!(d("read-strided").app_bytes_per_element(), 8);
        assert_eq!(d("read-strided").dram_bytes_per_element(64), 64);
        assert_eq!(d("random-read").dram_bytes_per_element(128), 128);
    }

    #[test]
    fn every_descriptor_is_consistent() {
        for k in KERNELS {
            assert_eq!(k.id.descriptor().name, k.name);
            let reads = k
                .streams
                .iter()
                .filter(|r| matches!(r, StreamRole::Read | StreamRole::ReadWrite))
                .count() as u64;
            let writes = k
                .streams
                .iter()
                .filter(|r| matches!(r, StreamRole::Write | StreamRole::ReadWrite))
                .count() as u64;
            if k.access == Sequential {
                assert_eq!(
                    k.read_bytes_per_element,
                    reads * ELEMENT_BYTES,
                    "{}",
                    k.name
                );
            }
            assert_eq!(
                k.written_bytes_per_element,
                writes * ELEMENT_BYTES,
                "{}",
                k.name
            );
            // Only a normal store to a write-only stream allocates.
            let wo = k
                .streams
                .iter()
                .filter(|r| **r == StreamRole::Write)
                .count() as u64;
            let expect_wa = if k.non_temporal {
                0
            } else {
                wo * ELEMENT_BYTES
            };
            assert_eq!(k.write_allocate_bytes_per_element, expect_wa, "{}", k.name);
            assert!(!k.streams.is_empty());
        }
        let mut names: Vec<_> = KERNELS.iter().map(|k| k.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), KERNELS.len());
    }

    #[test]
    fn bytes_and_rates() {
        assert_eq!(d("triad").app_bytes(1000), 24_000);
        assert_eq!(d("triad").dram_bytes(1000, 64), 32_000);
        assert_eq!(d("read").elements_per_pass(1 << 20, 64), 131_072);
        assert_eq!(d("read-strided").elements_per_pass(1 << 20, 64), 16_384);
        // 1e9 bytes in one second is 1000 MB/s.
        assert_eq!(mb_per_s(1_000_000_000, 1_000_000_000), 1000.0);
        assert_eq!(mb_per_s(5, 0), 0.0);
    }

    #[test]
    fn strided_accounting_counts_useful_bytes_and_lines_moved() {
        // One element per 64 B line: triad reads two lines and, with a normal store, reads
        // and writes back a third (4 lines); copy-like 3 lines; read one; update two.
        assert_eq!(d("triad").strided_dram_bytes_per_element(64, 8), 4 * 64);
        assert_eq!(d("add").strided_dram_bytes_per_element(64, 8), 4 * 64);
        assert_eq!(d("copy").strided_dram_bytes_per_element(64, 8), 3 * 64);
        assert_eq!(d("scale").strided_dram_bytes_per_element(64, 16), 3 * 64);
        assert_eq!(d("read").strided_dram_bytes_per_element(64, 1000), 64);
        assert_eq!(d("write").strided_dram_bytes_per_element(64, 8), 2 * 64);
        assert_eq!(d("update").strided_dram_bytes_per_element(64, 8), 2 * 64);
        // Below a line, each element's share of the lines it shares: stride 2 moves 16 B.
        assert_eq!(d("triad").strided_dram_bytes_per_element(64, 2), 4 * 16);
        assert_eq!(d("read").strided_dram_bytes_per_element(128, 8), 64);
        // Stride 1 is the contiguous figure.
        for k in KERNELS.iter().filter(|k| k.stride_refusal().is_none()) {
            assert_eq!(
                k.strided_dram_bytes_per_element(64, 1),
                k.dram_bytes_per_element(64),
                "{}",
                k.name
            );
        }
    }

    #[test]
    fn stride_applies_to_the_sequential_kernels_with_normal_stores() {
        let takes: Vec<&str> = KERNELS
            .iter()
            .filter(|k| k.stride_refusal().is_none())
            .map(|k| k.name)
            .collect();
        assert_eq!(
            takes,
            ["read", "write", "copy", "scale", "add", "triad", "update"]
        );
        assert_eq!(strided_names(), takes.join(", "));
    }

    #[test]
    fn unknown_kernel_lists_the_known_ones() {
        let e = by_name("tirad").unwrap_err().to_string();
        assert!(e.contains("`tirad`"));
        assert!(e.contains("triad") && e.contains("random-read"));
        assert_eq!(by_name("TRIAD").unwrap().id, KernelId::Triad);
    }
}
