//! The values a shell may complete for the flags whose set is fixed (`--mode`, `--kernel`,
//! `--policy`, `--page-size`): a clap value parser that parses exactly as before (the type's
//! own `FromStr`, or the text as given for the flags checked later with their own sentences)
//! and names the known values, so `numascope completions` offers them. The values are not
//! printed in `--help` (each flag's help already names them), and a comma list stays a list.

use std::ffi::OsStr;
use std::marker::PhantomData;

use clap::builder::{PossibleValue, TypedValueParser};

/// The chase modes (`latency --mode`, `run --mode`).
pub const MODES: &[&str] = &["random", "page", "seq"];
/// The page backings (`--page-size` everywhere).
pub const PAGE_SIZES: &[&str] = &["4k", "thp", "2m", "1g"];
/// The placement policies (`placement --policy`).
pub const POLICIES: &[&str] = &[
    "first-touch",
    "bind",
    "preferred",
    "preferred-many",
    "interleave",
    "weighted",
];
/// The load kernels of loaded latency (`loaded-latency --kernel`).
pub const LOAD_KERNELS: &[&str] = &["read", "write", "write-nt"];

/// The bandwidth kernels (`bandwidth --kernel`, `run --kernel`), from the kernel table.
pub fn bandwidth_kernels() -> Vec<&'static str> {
    crate::bandwidth::descriptor::KERNELS
        .iter()
        .map(|d| d.name)
        .collect()
}

/// A value parser that parses `T` from the text as `T::from_str` does and offers `values`
/// to completion.
#[derive(Clone)]
pub struct Hinted<T> {
    values: Vec<&'static str>,
    _t: PhantomData<fn() -> T>,
}

/// [`Hinted`] over `values`.
pub fn hinted<T>(values: &[&'static str]) -> Hinted<T> {
    Hinted {
        values: values.to_vec(),
        _t: PhantomData,
    }
}

impl<T> TypedValueParser for Hinted<T>
where
    T: std::str::FromStr + Clone + Send + Sync + 'static,
    T::Err: std::fmt::Display,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        // clap's own parser of a `FromStr` type, so the refusal reads as it always did.
        let parse = |s: &str| s.parse::<T>().map_err(|e| e.to_string());
        parse.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.values.iter().map(|v| PossibleValue::new(*v))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_as_before_and_names_the_values() {
        let cmd = clap::Command::new("t");
        let p = hinted::<crate::results::placement::PageSize>(PAGE_SIZES);
        assert!(p.parse_ref(&cmd, None, OsStr::new("thp")).is_ok());
        let e = p.parse_ref(&cmd, None, OsStr::new("3k")).unwrap_err();
        assert!(e.to_string().contains("is not a page size"), "{e}");
        let s = hinted::<String>(POLICIES);
        // A string flag is checked later, with its own sentence: any text passes here.
        assert_eq!(s.parse_ref(&cmd, None, OsStr::new("x")).unwrap(), "x");
        let names: Vec<String> = s
            .possible_values()
            .unwrap()
            .map(|v| v.get_name().to_string())
            .collect();
        assert_eq!(names, POLICIES);
    }
}
