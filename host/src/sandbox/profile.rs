//! The sandbox profiles (book: reference/sandbox.md) by name, the limits `strict` sets, and the
//! isolation a run reports: the mechanisms in force and those the machine
//! lacks.

use serde_json::{Value as Json, json};

/// What RUN gets (book: reference/sandbox.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// The caller's environment, no limits: an explicit opt-out.
    None,
    /// An allowlisted environment, a session of its own, no new
    /// privileges, rlimits, and the whole process tree killed at the end.
    Standard,
    /// `standard`, plus Landlock, no network, and cgroup limits.
    Strict,
}

impl Profile {
    pub const ALL: [Profile; 3] = [Profile::None, Profile::Standard, Profile::Strict];

    pub fn name(self) -> &'static str {
        match self {
            Profile::None => "none",
            Profile::Standard => "standard",
            Profile::Strict => "strict",
        }
    }

    pub fn from_name(name: &str) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// `--max-procs` and `--max-memory` (the `strict` profile's cgroup limits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Processes (and threads) a RUN may have at once.
    pub max_procs: u64,
    /// Bytes of memory a RUN's processes may use together.
    pub max_memory: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_procs: 256, max_memory: 4 << 30 }
    }
}

/// Parses a `--max-memory` size: bytes, or a number with `K`, `M`, `G` or
/// `T` (powers of 1024; a trailing `B`/`iB` is accepted).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let upper = text.trim().to_ascii_uppercase();
    let unitless = upper.trim_end_matches("IB").trim_end_matches('B');
    let digits = unitless.trim_end_matches(['K', 'M', 'G', 'T']);
    let shift = match &unitless[digits.len()..] {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(format!("`{text}` is not a size; write e.g. `4G`, `512M` or a number of bytes")),
    };
    let number: u64 = digits
        .parse()
        .map_err(|_| format!("`{text}` is not a size; write e.g. `4G`, `512M` or a number of bytes"))?;
    number
        .checked_mul(1 << shift)
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("`{text}` is out of range: give a positive size below 16 EiB"))
}

// The mechanisms a run's report can name (`Isolation`), in the book's order
// (reference/sandbox.md; a test holds the two equal): `standard`'s, then
// what `strict` adds, its namespaces first. A replay shows a journal's names
// as these.

/// `standard`'s mechanisms.
const STANDARD: [&str; 7] =
    ["env_allowlist", "session", "no_new_privs", "rlimits", "subreaper", "cgroup_kill", "orphan_sweep"];
/// What `strict`'s namespaces bring, as its report lists them.
pub(crate) const NAMESPACES: [&str; 8] = [
    "mount_namespace",
    "read_only_root",
    "minimal_dev",
    "pid_namespace",
    "uts_namespace",
    "ipc_namespace",
    "network_namespace",
    "no_capabilities",
];
/// The rest of what `strict` adds.
const STRICT: [&str; 5] = ["landlock", "landlock_scopes", "seccomp", "cgroup_pids", "cgroup_memory"];

/// Every mechanism a run's report can name, in the book's order.
pub fn mechanisms() -> impl Iterator<Item = &'static str> {
    STANDARD.into_iter().chain(NAMESPACES).chain(STRICT)
}

/// The mechanism called `name`, if it is one ([`mechanisms`]).
pub fn mechanism(name: &str) -> Option<&'static str> {
    mechanisms().find(|&m| m == name)
}

/// The isolation in force for a run: the report's `sandbox` field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Isolation {
    pub profile: Profile,
    /// The mechanisms enforced, by name (`no_new_privs`, `landlock`, ...).
    pub enforced: Vec<&'static str>,
    /// What the profile would use but the machine lacks, each replaced by a
    /// weaker fallback that is listed in `enforced` (only `standard` has
    /// fallbacks: `strict` is refused instead).
    pub missing: Vec<&'static str>,
}

impl Isolation {
    pub fn json(&self) -> Json {
        json!({ "profile": self.profile.name(), "enforced": self.enforced, "missing": self.missing })
    }

    /// One line for text output.
    pub fn line(&self) -> String {
        let mut line = format!("sandbox: {}", self.profile.name());
        if !self.enforced.is_empty() {
            line.push_str(&format!(" (enforced: {})", self.enforced.join(", ")));
        }
        if !self.missing.is_empty() {
            line.push_str(&format!("; missing: {}", self.missing.join(", ")));
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("512m"), Ok(512 << 20));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("1000"), Ok(1000));
        for bad in ["", "G", "4X", "-1", "0", "99999999999T"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn names_round_trip() {
        for p in Profile::ALL {
            assert_eq!(Profile::from_name(p.name()), Some(p));
        }
        assert_eq!(Profile::from_name("loose"), None);
    }

    /// The names the book's two tables of mechanisms give, in order.
    #[test]
    fn the_mechanisms_are_those_the_book_lists() {
        let book = include_str!("../../../docs/src/reference/sandbox.md");
        let mut listed = Vec::new();
        for heading in ["### `standard`", "### `strict`"] {
            let section = &book[book.find(heading).expect(heading)..];
            let table = section.lines().skip_while(|l| !l.starts_with("| mechanism |")).skip(2);
            for row in table.take_while(|l| l.starts_with('|')) {
                let name = row.split('`').nth(1).expect("a mechanism's name in backquotes");
                listed.push(name);
            }
        }
        assert_eq!(listed, mechanisms().collect::<Vec<_>>());
        assert_eq!(mechanism("landlock"), Some("landlock"));
        assert_eq!(mechanism("landlock_scope"), None);
    }
}
