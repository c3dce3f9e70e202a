//! The page backing a buffer asks for. Page size is an input, not an accident (docs/METHODOLOGY.md,
//! "Page size"): base pages forbid THP, `thp` asks for it, `2m`/`1g` use reserved hugetlbfs pages.

use crate::sys::mmap::Backing;

use crate::results::placement::PageSize;

impl PageSize {
    /// The allocation granularity in bytes: the base page for `4k` and `thp` (THP is
    /// best-effort), the huge page size for hugetlb.
    pub fn bytes(&self) -> u64 {
        match self {
            PageSize::Base | PageSize::Thp => base_page_bytes(),
            PageSize::Huge2M => 2 << 20,
            PageSize::Huge1G => 1 << 30,
        }
    }

    /// The size a "page" has for page-local access patterns: the huge page for THP/hugetlb.
    pub fn tlb_page_bytes(&self) -> u64 {
        match self {
            PageSize::Base => base_page_bytes(),
            PageSize::Thp | PageSize::Huge2M => 2 << 20,
            PageSize::Huge1G => 1 << 30,
        }
    }

    /// `Err` with the sentence to show when `size_bytes` is not a whole number of hugetlb
    /// pages (base pages and THP take any size: it is rounded up to the base page).
    pub fn check_whole_pages(&self, size_bytes: u64) -> Result<(), String> {
        let g = self.bytes();
        if self.is_hugetlb() && !size_bytes.is_multiple_of(g) {
            return Err(format!(
                "{} is not a multiple of the {} huge page size; use a multiple such as {}",
                crate::results::format::format_bytes(size_bytes),
                self.label(),
                crate::results::format::format_bytes(size_bytes.div_ceil(g).saturating_mul(g))
            ));
        }
        Ok(())
    }

    /// True for reserved hugetlbfs pages.
    pub fn is_hugetlb(&self) -> bool {
        matches!(self, PageSize::Huge2M | PageSize::Huge1G)
    }

    pub(crate) fn backing(&self) -> Backing {
        match self {
            PageSize::Base => Backing::Base,
            PageSize::Thp => Backing::Thp,
            PageSize::Huge2M => Backing::HugeTlb(2 << 20),
            PageSize::Huge1G => Backing::HugeTlb(1 << 30),
        }
    }
}

pub use crate::sys::process::base_page_bytes;

impl std::str::FromStr for PageSize {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "4k" | "4kib" | "base" => Ok(PageSize::Base),
            "thp" => Ok(PageSize::Thp),
            "2m" | "2mib" => Ok(PageSize::Huge2M),
            "1g" | "1gib" => Ok(PageSize::Huge1G),
            _ => Err(format!("`{s}` is not a page size; use 4k, thp, 2m or 1g")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hugetlb_sizes_must_be_whole_pages() {
        assert_eq!(PageSize::Huge2M.check_whole_pages(4 << 20), Ok(()));
        let e = PageSize::Huge2M.check_whole_pages(3 << 20).unwrap_err();
        assert_eq!(
            e,
            "3 MiB is not a multiple of the 2m huge page size; use a multiple such as 4 MiB"
        );
        assert!(PageSize::Huge1G.check_whole_pages(256 << 20).is_err());
        assert_eq!(PageSize::Base.check_whole_pages(3 << 20), Ok(()));
        assert_eq!(PageSize::Thp.check_whole_pages(12345), Ok(()));
    }

    #[test]
    fn parses_and_prints() {
        for p in [
            PageSize::Base,
            PageSize::Thp,
            PageSize::Huge2M,
            PageSize::Huge1G,
        ] {
            assert_eq!(p.label().parse::<PageSize>().unwrap(), p);
            assert_eq!(
                serde_json::to_string(&p).unwrap(),
                format!("\"{}\"", p.label())
            );
        }
        assert!("8k".parse::<PageSize>().unwrap_err().contains("`8k`"));
    }
}
