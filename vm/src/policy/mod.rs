//! The command policy and taint rule of SPEC §8: which RUN commands may
//! start, which need a human's approval first, and what happens to a RUN
//! whose command holds data from a model or a file.
//!
//! [`PolicyRules`] is the policy as plain data (what a snapshot remembers,
//! what `file.rs` reads from a `--policy` file or the `[policy]` table of
//! `tiss.toml`); [`Policy`] is the same rules compiled into glob sets, which
//! the machine asks before every RUN ([`Policy::decide`]).
//!
//! Patterns are shell-style globs over the whole command as it will run,
//! after interpolation (interpolated values already shell-quoted): `*`
//! matches any characters, spaces, `/` and newlines included; `?` one
//! character; `[abc]`, `[!a-z]` a class; `{a,b}` either; `\*` a literal
//! `*`. A pattern must match the whole command: `"git push*"` matches
//! `git push origin main`, `"*push*"` any command that mentions push.

pub mod file;

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};

/// What happens to a RUN whose command holds tainted data (`[taint] run`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TaintRun {
    /// Runs like any other command (the default: no policy, no change).
    #[default]
    Allow,
    /// Asks a human first, as an `approve` pattern does.
    Approve,
    /// A `security_violation` before the command starts.
    Deny,
}

impl TaintRun {
    pub fn name(self) -> &'static str {
        match self {
            TaintRun::Allow => "allow",
            TaintRun::Approve => "approve",
            TaintRun::Deny => "deny",
        }
    }

    pub fn from_name(name: &str) -> Option<TaintRun> {
        [TaintRun::Allow, TaintRun::Approve, TaintRun::Deny].into_iter().find(|t| t.name() == name)
    }
}

/// A policy as data: where it came from and its rules.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyRules {
    /// Where the rules came from, for messages: "`ci.toml`", "`tiss.toml` [policy]".
    /// Empty for no policy at all.
    pub origin: String,
    /// `[commands] allow`: when present, every command that matches none is denied.
    #[serde(deserialize_with = "bounded::optional_patterns")]
    pub allow: Option<Vec<String>>,
    /// `[commands] deny`, checked first.
    #[serde(deserialize_with = "bounded::patterns")]
    pub deny: Vec<String>,
    /// `[commands] approve`: a human approves before the command starts.
    #[serde(deserialize_with = "bounded::patterns")]
    pub approve: Vec<String>,
    /// `[taint] run`.
    pub taint_run: TaintRun,
}

impl PolicyRules {
    /// Whether a RUN may ask a human under these rules (an `approve`
    /// pattern, or `[taint] run = "approve"`): `--answers` entries may then
    /// answer a RUN.
    pub fn may_ask(&self) -> bool {
        !self.approve.is_empty() || self.taint_run == TaintRun::Approve
    }

    /// The rules in one line, for the options a run prints on resume.
    pub fn summary(&self) -> String {
        if self.origin.is_empty() {
            return "none".to_string();
        }
        let list = |patterns: &[String]| patterns.len().to_string();
        format!(
            "{} (allow: {}, deny: {}, approve: {}, taint run: {})",
            self.origin,
            self.allow.as_deref().map_or_else(|| "any".to_string(), list),
            self.deny.len(),
            self.approve.len(),
            self.taint_run.name()
        )
    }
}

/// A snapshot's remembered policy decoded within its payload's budget
/// (`tisslang::container::decode_budget`), like every collection of a snapshot.
mod bounded {
    use serde::{Deserialize, Deserializer};

    tisslang::bounded_vecs! { patterns: "policy patterns" }

    #[derive(Deserialize)]
    struct Patterns(#[serde(deserialize_with = "patterns")] Vec<String>);

    pub fn optional_patterns<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
        Ok(Option::<Patterns>::deserialize(d)?.map(|p| p.0))
    }
}

/// What the policy says of one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Run,
    /// Refused: the message of the `security_violation`.
    Deny(String),
    /// Needs a human's approval: why, for the question.
    Approve(String),
}

/// [`PolicyRules`] compiled: one glob set per list.
#[derive(Debug, Clone)]
pub struct Policy {
    rules: PolicyRules,
    allow: Option<GlobSet>,
    deny: GlobSet,
    approve: GlobSet,
}

impl PartialEq for Policy {
    /// The glob sets are the rules compiled: equal rules, equal policies.
    fn eq(&self, other: &Policy) -> bool {
        self.rules == other.rules
    }
}

/// One pattern, compiled the way the policy matches (see the module's doc).
pub fn compile_pattern(pattern: &str) -> Result<Glob, String> {
    GlobBuilder::new(pattern)
        .literal_separator(false)
        .backslash_escape(true)
        .empty_alternates(true)
        .build()
        .map_err(|e| format!("`{pattern}` is not a valid pattern: {}", e.kind()))
}

fn compile_set(patterns: &[String]) -> Result<GlobSet, String> {
    let mut set = GlobSetBuilder::new();
    for pattern in patterns {
        set.add(compile_pattern(pattern)?);
    }
    set.build().map_err(|e| format!("the patterns cannot be compiled: {e}"))
}

impl Policy {
    pub fn new(rules: PolicyRules) -> Result<Policy, String> {
        Ok(Policy {
            allow: rules.allow.as_deref().map(compile_set).transpose()?,
            deny: compile_set(&rules.deny)?,
            approve: compile_set(&rules.approve)?,
            rules,
        })
    }

    pub fn rules(&self) -> &PolicyRules {
        &self.rules
    }

    /// The verdict on `command` (as it will run); `tainted`: it holds data
    /// from a model or a file. Deny patterns first, then the allow list,
    /// then approve patterns, then the taint rule.
    pub fn decide(&self, command: &str, tainted: bool) -> Verdict {
        let origin = &self.rules.origin;
        if let Some(i) = first_match(&self.deny, command) {
            return Verdict::Deny(format!(
                "`{command}` is denied by the pattern `{}` of {origin} [commands] deny",
                self.rules.deny[i]
            ));
        }
        if let Some(allow) = &self.allow
            && first_match(allow, command).is_none()
        {
            return Verdict::Deny(format!(
                "`{command}` matches no pattern of {origin} [commands] allow, so it is denied (add a \
                 pattern that matches it to `allow`, e.g. \"{}\")",
                suggested_pattern(command)
            ));
        }
        if let Some(i) = first_match(&self.approve, command) {
            return Verdict::Approve(format!(
                "it matches the pattern `{}` of {origin} [commands] approve",
                self.rules.approve[i]
            ));
        }
        if tainted {
            let why = "it holds data from a model or a file";
            match self.rules.taint_run {
                TaintRun::Allow => {}
                TaintRun::Approve => {
                    return Verdict::Approve(format!("{why} ({origin} [taint] run = \"approve\")"));
                }
                TaintRun::Deny => {
                    return Verdict::Deny(format!(
                        "`{command}` is denied: {why} ({origin} [taint] run = \"deny\")"
                    ));
                }
            }
        }
        Verdict::Run
    }
}

/// The index of the first pattern that matches.
fn first_match(set: &GlobSet, command: &str) -> Option<usize> {
    if set.is_empty() {
        return None;
    }
    set.matches(command).into_iter().min()
}

/// A pattern a user would likely add to allow `command`: its program and `*`.
fn suggested_pattern(command: &str) -> String {
    let program = command.split_whitespace().next().unwrap_or("");
    let escaped: String = program
        .chars()
        .flat_map(|c| {
            let special = matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\' | '"');
            special.then_some('\\').into_iter().chain(std::iter::once(c))
        })
        .collect();
    format!("{escaped} *")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(allow: Option<&[&str]>, deny: &[&str], approve: &[&str], taint_run: TaintRun) -> Policy {
        let list = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        Policy::new(PolicyRules {
            origin: "`p.toml`".into(),
            allow: allow.map(list),
            deny: list(deny),
            approve: list(approve),
            taint_run,
        })
        .unwrap()
    }

    #[test]
    fn star_matches_spaces_slashes_and_newlines() {
        let p = policy(None, &["curl *"], &[], TaintRun::Allow);
        for denied in ["curl http://x/y", "curl -s a b", "curl a\nb"] {
            assert!(matches!(p.decide(denied, false), Verdict::Deny(_)), "{denied:?}");
        }
        // Whole-command match: the pattern is anchored at both ends.
        assert_eq!(p.decide("echo curl x", false), Verdict::Run);
        assert_eq!(p.decide("curl", false), Verdict::Run);
    }

    #[test]
    fn deny_first_then_allow_then_approve_then_taint() {
        let p = policy(Some(&["git *", "cargo *"]), &["git push --force*"], &["git push*"], TaintRun::Deny);
        match p.decide("git push --force origin", false) {
            Verdict::Deny(m) => assert!(m.contains("`git push --force*`") && m.contains("deny"), "{m}"),
            other => panic!("{other:?}"),
        }
        match p.decide("ls -la", false) {
            Verdict::Deny(m) => assert!(m.contains("matches no pattern") && m.contains("\"ls *\""), "{m}"),
            other => panic!("{other:?}"),
        }
        match p.decide("git push origin", true) {
            Verdict::Approve(m) => assert!(m.contains("`git push*`"), "{m}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(p.decide("cargo test", false), Verdict::Run);
        match p.decide("cargo test 'x'", true) {
            Verdict::Deny(m) => assert!(m.contains("[taint] run = \"deny\""), "{m}"),
            other => panic!("{other:?}"),
        }
        let ask = policy(None, &[], &[], TaintRun::Approve);
        assert!(matches!(ask.decide("echo 'x'", true), Verdict::Approve(_)));
        assert_eq!(ask.decide("echo x", false), Verdict::Run);
        assert!(ask.rules().may_ask());
        assert!(!policy(None, &[], &[], TaintRun::Deny).rules().may_ask());
    }

    #[test]
    fn an_empty_allow_list_denies_everything_and_no_policy_allows_everything() {
        let p = policy(Some(&[]), &[], &[], TaintRun::Allow);
        assert!(matches!(p.decide("true", false), Verdict::Deny(_)));
        assert_eq!(Policy::new(PolicyRules::default()).unwrap().decide("rm -rf /", true), Verdict::Run);
    }

    #[test]
    fn classes_alternates_and_escapes() {
        let p = policy(None, &["rm -[rf]*", "{wget,ssh} *", "echo \\*"], &[], TaintRun::Allow);
        for denied in ["rm -rf x", "rm -f x", "wget x", "ssh host", "echo *"] {
            assert!(matches!(p.decide(denied, false), Verdict::Deny(_)), "{denied}");
        }
        for allowed in ["rm x", "echo x", "sshx"] {
            assert_eq!(p.decide(allowed, false), Verdict::Run, "{allowed}");
        }
        assert!(compile_pattern("[a-").unwrap_err().contains("not a valid pattern"));
    }
}
