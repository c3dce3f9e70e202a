//! Instruction sets the bandwidth kernels are built for, chosen at run time: the binary is
//! compiled for the baseline target (never `target-cpu=native`), and AVX2 is used where the CPU
//! reports it (see [`Isa::best`] for why not AVX-512) unless the user forces one with `--isa`. Forcing one the CPU lacks is an
//! error that says what to do instead.

use crate::results::bandwidth::Isa;

/// A forced ISA the CPU does not have, or an unknown ISA name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IsaError {
    #[error("this CPU has no {missing}; drop --isa or use {instead}")]
    Missing {
        missing: &'static str,
        instead: &'static str,
    },
    #[error("`{0}` is not an instruction set numascope knows; use scalar, avx2 or avx512")]
    Unknown(String),
}

impl Isa {
    /// All ISAs, narrowest first.
    pub const ALL: [Isa; 3] = [Isa::Scalar, Isa::Avx2, Isa::Avx512];

    /// Whether this CPU can run this ISA's kernels.
    pub fn is_available(self) -> bool {
        match self {
            Isa::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => std::arch::is_x86_feature_detected!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            Isa::Avx2 | Isa::Avx512 => false,
        }
    }

    /// The ISA used when none is forced: AVX2 when the CPU has it, else AVX-512, else scalar.
    /// Not simply the widest: memory-bound kernels gain nothing from 512-bit vectors, while on
    /// Intel server cores (Skylake-SP, Cascade Lake) 512-bit instructions lower the core clock
    /// (the reason glibc sets `Prefer_No_AVX512` for its memset/memcpy there). On this
    /// project's Cascade Lake test machine the AVX-512 `write` kernel lost to AVX2 in 8 of 8
    /// paired runs (about 1.3-1.6 GB/s against 1.6-2.8 GB/s, one thread, 1 GB); read, copy and
    /// triad were even. `--isa avx512` still forces it.
    pub fn best() -> Isa {
        [Isa::Avx2, Isa::Avx512]
            .into_iter()
            .find(|i| i.is_available())
            .unwrap_or(Isa::Scalar)
    }

    /// The ISAs this CPU can run, narrowest first.
    pub fn available() -> Vec<Isa> {
        Isa::ALL.into_iter().filter(|i| i.is_available()).collect()
    }

    /// `Ok(self)` when available, else the error naming the missing feature and the best
    /// alternative.
    pub fn require(self) -> Result<Isa, IsaError> {
        if self.is_available() {
            return Ok(self);
        }
        let missing = match self {
            Isa::Scalar => unreachable!("scalar is always available"),
            Isa::Avx2 => "AVX2",
            Isa::Avx512 => "AVX-512F",
        };
        Err(IsaError::Missing {
            missing,
            instead: Isa::best().label(),
        })
    }

    /// Resolves the `--isa` flag: `None` (or `auto`) picks the best available.
    pub fn resolve(forced: Option<&str>) -> Result<Isa, IsaError> {
        match forced {
            None => Ok(Isa::best()),
            Some(s) if s.trim().eq_ignore_ascii_case("auto") => Ok(Isa::best()),
            Some(s) => s.parse::<Isa>()?.require(),
        }
    }
}

impl std::str::FromStr for Isa {
    type Err = IsaError;
    fn from_str(s: &str) -> Result<Isa, IsaError> {
        match s
            .trim()
            .to_ascii_lowercase()
            .replace(['-', '_'], "")
            .as_str()
        {
            "scalar" => Ok(Isa::Scalar),
            "avx2" => Ok(Isa::Avx2),
            "avx512" | "avx512f" => Ok(Isa::Avx512),
            _ => Err(IsaError::Unknown(s.trim().to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_resolve() {
        assert_eq!("AVX-512".parse::<Isa>().unwrap(), Isa::Avx512);
        assert_eq!("avx2".parse::<Isa>().unwrap(), Isa::Avx2);
        assert!(matches!("sse9".parse::<Isa>(), Err(IsaError::Unknown(_))));
        assert_eq!(Isa::resolve(None).unwrap(), Isa::best());
        assert_eq!(Isa::resolve(Some("scalar")).unwrap(), Isa::Scalar);
        assert!(Isa::Scalar.is_available());
        assert!(Isa::best().is_available());
    }

    #[test]
    fn missing_isa_says_what_to_do() {
        let e = IsaError::Missing {
            missing: "AVX-512F",
            instead: "avx2",
        };
        assert_eq!(
            e.to_string(),
            "this CPU has no AVX-512F; drop --isa or use avx2"
        );
        for isa in Isa::ALL {
            match isa.require() {
                Ok(i) => assert!(i.is_available()),
                Err(e) => assert!(e.to_string().contains("drop --isa")),
            }
        }
    }
}
