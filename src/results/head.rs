//! The first look at a results file: its `schema_version` and whether it has a
//! `tool_version`, read in one pass over the text without building the file's JSON tree (every
//! other field is skipped as it is met). A file of hundreds of megabytes is then parsed once,
//! straight into `RunResults`, instead of through a `serde_json::Value` several times its size.

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// The two fields the version check needs.
#[derive(Deserialize)]
pub struct Head {
    pub schema_version: Option<Version>,
    pub tool_version: Option<IgnoredAny>,
}

/// A `schema_version` as found: a whole number, or a short word for anything else.
pub enum Version {
    Number(u64),
    Other(&'static str),
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Version::Number(n) => write!(f, "{n}"),
            Version::Other(what) => f.write_str(what),
        }
    }
}

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(VersionVisitor)
    }
}

struct VersionVisitor;

impl<'de> Visitor<'de> for VersionVisitor {
    type Value = Version;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a schema version")
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Version, E> {
        Ok(Version::Number(v))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Version, E> {
        Ok(Version::Other("(a negative number)"))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Version, E> {
        Ok(Version::Other("(a fraction)"))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Version, E> {
        Ok(Version::Other("(true or false)"))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Version, E> {
        Ok(Version::Other("(a string)"))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Version, E> {
        Ok(Version::Other("(null)"))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Version, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Version::Other("(an array)"))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Version, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Version::Other("(an object)"))
    }
}
