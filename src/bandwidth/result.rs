//! The kernel catalog as the bandwidth JSON contract (`crate::results::bandwidth`) stores it,
//! built from the kernel descriptors.

use super::descriptor::{Access, KERNELS};
use crate::results::bandwidth::{KernelListing, KernelRow};

/// The kernel catalog for `line_bytes` cache lines, from the descriptors.
pub fn kernel_listing(line_bytes: u64) -> KernelListing {
    KernelListing {
        line_bytes,
        kernels: KERNELS
            .iter()
            .map(|d| KernelRow {
                name: d.name.to_string(),
                description: d.description.to_string(),
                streams: d.stream_count(),
                read_bytes_per_element: d.read_bytes_per_element,
                written_bytes_per_element: d.written_bytes_per_element,
                app_bytes_per_element: d.app_bytes_per_element(),
                write_allocate_bytes_per_element: d.write_allocate_bytes_per_element,
                dram_bytes_per_element: d.dram_bytes_per_element(line_bytes),
                non_temporal: d.non_temporal,
                simd: d.simd,
                strided: d.access != Access::Sequential,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_holds_every_kernel_with_its_accounting() {
        let l = kernel_listing(64);
        assert_eq!(l.kernels.len(), KERNELS.len());
        for (row, d) in l.kernels.iter().zip(KERNELS) {
            assert_eq!(row.name, d.name);
            assert_eq!(row.dram_bytes_per_element, d.dram_bytes_per_element(64));
            assert_eq!(row.strided, d.access != Access::Sequential);
        }
    }
}
