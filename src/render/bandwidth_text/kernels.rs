//! The kernel listing of `bandwidth --list`, from the descriptors alone: each kernel with
//! what it counts as a byte.

use std::io::{self, Write};

use crate::results::bandwidth::KernelListing;

/// Writes the table of kernels with their byte accounting.
pub fn render_kernel_list(w: &mut dyn Write, listing: &KernelListing) -> io::Result<()> {
    let line_bytes = listing.line_bytes;
    let mut rows = Vec::new();
    for d in &listing.kernels {
        let stores = if d.written_bytes_per_element == 0 {
            "-"
        } else if d.non_temporal {
            "non-temporal"
        } else {
            "normal"
        };
        let isas = if d.simd {
            "scalar, avx2, avx512"
        } else {
            "scalar (one code for all)"
        };
        rows.push(vec![
            d.name.to_string(),
            d.streams.to_string(),
            d.read_bytes_per_element.to_string(),
            d.written_bytes_per_element.to_string(),
            d.app_bytes_per_element.to_string(),
            d.write_allocate_bytes_per_element.to_string(),
            d.dram_bytes_per_element.to_string(),
            stores.to_string(),
            isas.to_string(),
            d.description.to_string(),
        ]);
    }
    let headers = [
        "kernel",
        "streams",
        "read B/elem",
        "written B/elem",
        "app B/elem (STREAM)",
        "write-allocate B/elem",
        "DRAM B/elem (est.)",
        "stores",
        "ISAs",
        "what it does",
    ];
    write!(
        w,
        "{}",
        crate::render::format::width::fit_columns(&headers, &rows)
    )?;
    let strided = listing
        .kernels
        .iter()
        .filter(|d| d.strided)
        .map(|d| d.name.as_str())
        .collect::<Vec<_>>()
        .join(" and ");
    writeln!(
        w,
        "Elements are 8-byte words. Application bytes follow STREAM (copy/scale 16, add/triad 24 per \
         element; the write-allocate read is not counted). The DRAM estimate adds the \
         read-for-ownership of normal stores (none for non-temporal stores) and counts a whole \
         {line_bytes}-byte line per access for {strided}. Rates are MB/s, 1 MB = 10^6 B."
    )
}
