//! Terminal text for bandwidth: the kernel listing (from the descriptors alone) and the
//! measured results. Takes finished data and a writer; never measures, never reads the machine.
//! Every rate column says its unit, MB/s with 1 MB = 10^6 B.

use std::io::{self, Write};

use comfy_table::{presets::UTF8_FULL_CONDENSED, CellAlignment, Table};

use crate::bandwidth::descriptor::{Access, KERNELS};

/// Writes the table of kernels with their byte accounting for `line_bytes` cache lines.
pub fn render_kernel_list(w: &mut dyn Write, line_bytes: u64) -> io::Result<()> {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    t.set_header(vec![
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
    ]);
    for d in KERNELS {
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
        t.add_row(vec![
            d.name.to_string(),
            d.stream_count().to_string(),
            d.read_bytes_per_element.to_string(),
            d.written_bytes_per_element.to_string(),
            d.app_bytes_per_element().to_string(),
            d.write_allocate_bytes_per_element.to_string(),
            d.dram_bytes_per_element(line_bytes).to_string(),
            stores.to_string(),
            isas.to_string(),
            d.description.to_string(),
        ]);
    }
    for c in 1..=6 {
        if let Some(col) = t.column_mut(c) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
    writeln!(w, "{t}")?;
    let strided = KERNELS
        .iter()
        .filter(|d| d.access != Access::Sequential)
        .map(|d| d.name)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_list_names_every_kernel_and_the_units() {
        let mut out = Vec::new();
        render_kernel_list(&mut out, 64).unwrap();
        let s = String::from_utf8(out).unwrap();
        for d in KERNELS {
            assert!(s.contains(d.name), "{}", d.name);
        }
        assert!(s.contains("1 MB = 10^6 B"));
        assert!(s.contains("DRAM B/elem (est.)"));
        assert!(s.contains("64-byte line"));
    }
}
