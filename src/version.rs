//! The language version this toolchain implements, and `#TISS_VERSION` requirements.

use std::fmt;

/// A `major.minor.patch` language version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
}

/// The language version this toolchain implements.
pub const LANGUAGE_VERSION: Version = Version { major: 1, minor: 1, patch: 0 };

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The comparison of a `#TISS_VERSION` pragma.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum VersionOp {
    #[serde(rename = ">=")]
    Ge,
    #[serde(rename = ">")]
    Gt,
    #[serde(rename = "==")]
    Eq,
    #[serde(rename = "<=")]
    Le,
    #[serde(rename = "<")]
    Lt,
    /// `^1.2` means `>=1.2, <2.0` (and `^0.3` means `>=0.3, <0.4`).
    #[serde(rename = "^")]
    Caret,
}

impl VersionOp {
    pub fn parse(text: &str) -> Option<VersionOp> {
        Some(match text {
            ">=" => VersionOp::Ge,
            ">" => VersionOp::Gt,
            "==" => VersionOp::Eq,
            "<=" => VersionOp::Le,
            "<" => VersionOp::Lt,
            "^" => VersionOp::Caret,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            VersionOp::Ge => ">=",
            VersionOp::Gt => ">",
            VersionOp::Eq => "==",
            VersionOp::Le => "<=",
            VersionOp::Lt => "<",
            VersionOp::Caret => "^",
        }
    }
}

/// A parsed `#TISS_VERSION <op> <version>` requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct VersionReq {
    pub op: VersionOp,
    pub version: Version,
}

impl VersionReq {
    /// Does `v` satisfy this requirement?
    pub fn matches(&self, v: Version) -> bool {
        let want = self.version;
        match self.op {
            VersionOp::Ge => v >= want,
            VersionOp::Gt => v > want,
            VersionOp::Eq => v == want,
            VersionOp::Le => v <= want,
            VersionOp::Lt => v < want,
            VersionOp::Caret => {
                let upper = if want.major > 0 {
                    Version { major: want.major + 1, minor: 0, patch: 0 }
                } else {
                    Version { major: 0, minor: want.minor + 1, patch: 0 }
                };
                v >= want && v < upper
            }
        }
    }
}

impl fmt::Display for VersionReq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.op.as_str(), self.version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(major: u64, minor: u64, patch: u64) -> Version {
        Version { major, minor, patch }
    }

    fn req(op: &str, version: Version) -> VersionReq {
        VersionReq { op: VersionOp::parse(op).unwrap(), version }
    }

    #[test]
    fn comparisons_against_1_1_0() {
        assert_eq!(LANGUAGE_VERSION, v(1, 1, 0));
        assert!(req(">=", v(1, 0, 0)).matches(LANGUAGE_VERSION));
        assert!(req(">=", v(1, 1, 0)).matches(LANGUAGE_VERSION));
        assert!(req(">", v(1, 0, 0)).matches(LANGUAGE_VERSION));
        assert!(!req(">", v(1, 1, 0)).matches(LANGUAGE_VERSION));
        assert!(req("==", v(1, 1, 0)).matches(LANGUAGE_VERSION));
        assert!(!req("==", v(1, 0, 0)).matches(LANGUAGE_VERSION));
        assert!(req("<=", v(1, 1, 0)).matches(LANGUAGE_VERSION));
        assert!(!req("<=", v(1, 0, 0)).matches(LANGUAGE_VERSION));
        assert!(!req("<", v(1, 1, 0)).matches(LANGUAGE_VERSION));
        assert!(req("^", v(1, 0, 0)).matches(LANGUAGE_VERSION));
        assert!(!req(">=", v(1, 2, 0)).matches(LANGUAGE_VERSION));
    }

    #[test]
    fn caret_stays_within_major() {
        assert!(req("^", v(1, 0, 0)).matches(v(1, 9, 3)));
        assert!(!req("^", v(1, 2, 0)).matches(v(1, 0, 0)));
        assert!(!req("^", v(1, 0, 0)).matches(v(2, 0, 0)));
        assert!(req("^", v(0, 3, 0)).matches(v(0, 3, 7)));
        assert!(!req("^", v(0, 3, 0)).matches(v(0, 4, 0)));
    }
}
