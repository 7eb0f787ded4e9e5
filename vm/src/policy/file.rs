//! Reading a policy: a `--policy FILE` (TOML with `[commands]` and
//! `[taint]`) or the `[policy]` table of `tiss.toml` (the same tables as
//! `[policy.commands]` and `[policy.taint]`). Every mistake is refused before
//! anything runs, naming the file, the line and the key.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::policy::{Policy, PolicyRules, TaintRun, compile_pattern};
use crate::provider::settings::read_settings_file;

/// A table's keys with where each stands.
type Section = BTreeMap<Spanned<String>, Spanned<toml::Value>>;
type Tables = BTreeMap<Spanned<String>, Spanned<Section>>;

/// The part of `tiss.toml` that is ours here; its other tables are left alone.
#[derive(Deserialize)]
struct ProjectTables<T> {
    policy: Option<Spanned<T>>,
}

/// The top-level keys of a policy, whatever their values: read first, so a
/// list written outside its table is named in words.
type Loose = BTreeMap<Spanned<String>, Spanned<toml::Value>>;

/// Reads the policy file at `path`.
pub fn read_policy_file(path: &Path) -> Result<Policy, String> {
    let text =
        read_settings_file(path)?.ok_or_else(|| format!("--policy: `{}` does not exist", path.display()))?;
    let name = format!("`{}`", path.display());
    let loose: Loose = toml::from_str(&text).map_err(|e| toml_error(&name, &text, &e))?;
    check_tables(&name, "", &text, &loose)?;
    let tables: Tables = toml::from_str(&text).map_err(|e| toml_error(&name, &text, &e))?;
    policy_from(&name, "", &text, &tables)
}

/// The policy file a command names: `--policy` (`flag`), else
/// `TISS_POLICY` (an empty one counts as unset). `run` and `inspect` read it
/// the same way, so a reviewer sees what runs.
pub fn named_policy_file(flag: Option<&Path>) -> Option<PathBuf> {
    flag.map(Path::to_path_buf)
        .or_else(|| std::env::var_os("TISS_POLICY").filter(|v| !v.is_empty()).map(PathBuf::from))
}

/// The `[policy]` table of a `tiss.toml` (its path and text, as
/// `read_project_file` gives them), if it has one.
pub fn project_policy(path: &Path, text: &str) -> Result<Option<Policy>, String> {
    let name = format!("`{}`", path.display());
    let loose: ProjectTables<Loose> = toml::from_str(text).map_err(|e| toml_error(&name, text, &e))?;
    if let Some(policy) = &loose.policy {
        check_tables(&name, "policy.", text, policy.get_ref())?;
    }
    let project: ProjectTables<Tables> = toml::from_str(text).map_err(|e| toml_error(&name, text, &e))?;
    match project.policy {
        Some(tables) => policy_from(&name, "policy.", text, tables.get_ref()).map(Some),
        None => Ok(None),
    }
}

/// The 1-based line of a byte offset.
fn line_at(text: &str, offset: usize) -> usize {
    text.get(..offset).map_or(0, |before| before.matches('\n').count()) + 1
}

fn toml_error(name: &str, text: &str, error: &toml::de::Error) -> String {
    match error.span() {
        Some(span) => format!("{name} line {}: {}", line_at(text, span.start), error.message()),
        None => format!("{name}: {}", error.message()),
    }
}

/// Refuses a key of a policy's top level that is not a table: most likely
/// a list or the taint rule written without the table it belongs in.
fn check_tables(name: &str, prefix: &str, text: &str, keys: &Loose) -> Result<(), String> {
    for (key, value) in keys {
        if value.get_ref().is_table() {
            continue;
        }
        let line = line_at(text, key.span().start);
        let key = key.get_ref();
        let table = match key.as_str() {
            "allow" | "deny" | "approve" => "commands",
            "run" => "taint",
            _ => {
                return Err(format!(
                    "{name} line {line}, key `{prefix}{key}`: a policy has the tables `[{prefix}commands]` and                      `[{prefix}taint]`, and no key of its own"
                ));
            }
        };
        return Err(format!(
            "{name} line {line}, key `{prefix}{key}`: `{key}` belongs in `[{prefix}{table}]`: put the line \
             `[{prefix}{table}]` above it"
        ));
    }
    Ok(())
}

/// The rules of `tables` (`prefix` is how keys are named in messages:
/// `policy.` in `tiss.toml`).
fn policy_from(name: &str, prefix: &str, text: &str, tables: &Tables) -> Result<Policy, String> {
    let origin = if prefix.is_empty() { name.to_string() } else { format!("{name} [policy]") };
    let mut rules = PolicyRules { origin, ..PolicyRules::default() };
    for (table, section) in tables {
        let at = |span: std::ops::Range<usize>, key: &str| {
            format!(
                "{name} line {}, key `{prefix}{table}.{key}`",
                line_at(text, span.start),
                table = table.get_ref()
            )
        };
        match table.get_ref().as_str() {
            "commands" => {
                for (key, value) in section.get_ref() {
                    let place = at(key.span(), key.get_ref());
                    let patterns = patterns(&place, value.get_ref())?;
                    match key.get_ref().as_str() {
                        "allow" => {
                            warn_of_wrappers(&place, &patterns);
                            rules.allow = Some(patterns);
                        }
                        "deny" => rules.deny = patterns,
                        "approve" => rules.approve = patterns,
                        other => {
                            return Err(format!(
                                "{place}: unknown key `{other}`; [commands] has `allow`, `deny` and `approve`"
                            ));
                        }
                    }
                }
            }
            "taint" => {
                for (key, value) in section.get_ref() {
                    let place = at(key.span(), key.get_ref());
                    if key.get_ref() != "run" {
                        return Err(format!("{place}: unknown key `{}`; [taint] has `run`", key.get_ref()));
                    }
                    rules.taint_run = match value.get_ref() {
                        toml::Value::String(s) => TaintRun::from_name(s),
                        _ => None,
                    }
                    .ok_or_else(|| {
                        format!(
                            "{place}: expected \"allow\", \"approve\" or \"deny\", not {}",
                            shown(value.get_ref())
                        )
                    })?;
                }
            }
            other => {
                return Err(format!(
                    "{name} line {}: unknown table `[{prefix}{other}]`; a policy has `[{prefix}commands]` and \
                     `[{prefix}taint]`",
                    line_at(text, table.span().start)
                ));
            }
        }
    }
    Policy::new(rules).map_err(|e| format!("{name}: {e}"))
}

/// An allow pattern that starts with a wrapper or a runner (`uv run
/// pytest*`) matches no command: allow judges what they run. Said, with
/// the pattern to write; the run goes on.
fn warn_of_wrappers(place: &str, patterns: &[String]) {
    use tiss_support::shell::programs::{LookedThrough, looked_through};
    for pattern in patterns {
        let Some(through) = looked_through(pattern) else { continue };
        let first = pattern.split(' ').next().unwrap_or_default();
        let instead = match through {
            // `docker run *`: it still matches a run of an image's own command.
            LookedThrough::Container => {
                eprintln!(
                    "tissvm: warning: {place}: `{pattern}` starts with `{first}`, whose containers' commands an \
                     allow list judges (`pytest -q` in `{first} run IMAGE pytest -q`), so it matches only a \
                     container that runs its image's own command; write the pattern of the commands the \
                     containers run (`pytest *`)"
                );
                continue;
            }
            // `sudo *`: its command's pattern, `*`, would allow every command.
            LookedThrough::Command(inner) if inner.chars().all(|c| matches!(c, '*' | '?' | ' ')) => format!(
                "write the patterns of the commands it may run (such as `make *`): `{inner}` would allow every \
                 command"
            ),
            LookedThrough::Command(inner) => format!("write that command's pattern (`{inner}`)"),
        };
        eprintln!(
            "tissvm: warning: {place}: `{pattern}` starts with `{first}`, which an allow list looks through to \
             the command it runs, so it matches no command; {instead}"
        );
    }
}

/// A value as a message shows it: a string quoted, anything else by its type.
fn shown(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => format!("{s:?}"),
        other => format!("a {}", other.type_str()),
    }
}

/// A list of patterns, each checked to compile.
fn patterns(place: &str, value: &toml::Value) -> Result<Vec<String>, String> {
    let toml::Value::Array(items) = value else {
        return Err(format!(
            "{place}: expected a list of patterns such as [\"cargo *\"], not a {}",
            value.type_str()
        ));
    };
    items
        .iter()
        .map(|item| match item {
            toml::Value::String(pattern) => {
                compile_pattern(pattern).map_err(|e| format!("{place}: {e}"))?;
                Ok(pattern.clone())
            }
            other => Err(format!("{place}: every pattern must be a string, not {}", shown(other))),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::settings::read_project_file;

    fn file(text: &str) -> Result<Policy, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.toml");
        std::fs::write(&path, text).unwrap();
        read_policy_file(&path).map_err(|e| e.replace(&path.display().to_string(), "p.toml"))
    }

    #[test]
    fn a_full_policy_reads() {
        let p = file(
            "[commands]\nallow = [\"python3 *\", \"cargo *\"]\ndeny = [\"curl *\"]\napprove = [\"git push*\"]\n\
             \n[taint]\nrun = \"approve\"\n",
        )
        .unwrap();
        let rules = p.rules();
        assert_eq!(rules.allow.as_deref(), Some(&["python3 *".to_string(), "cargo *".to_string()][..]));
        assert_eq!(rules.deny, ["curl *"]);
        assert_eq!(rules.approve, ["git push*"]);
        assert_eq!(rules.taint_run, TaintRun::Approve);
        assert_eq!(file("").unwrap().rules().taint_run, TaintRun::Allow);
    }

    #[test]
    fn mistakes_name_the_file_line_and_key() {
        for (text, says) in [
            ("[commands]\n\nalow = [\"x\"]\n", "`p.toml` line 3, key `commands.alow`: unknown key `alow`"),
            ("[commands]\ndeny = \"curl *\"\n", "line 2, key `commands.deny`: expected a list of patterns"),
            ("[commands]\ndeny = [\"a[\"]\n", "line 2, key `commands.deny`: `a[` is not a valid pattern"),
            ("[commands]\ndeny = [3]\n", "line 2, key `commands.deny`: every pattern must be a string"),
            (
                "[taint]\nrun = \"maybe\"\n",
                "line 2, key `taint.run`: expected \"allow\", \"approve\" or \"deny\"",
            ),
            ("[taint]\nrun_mode = \"deny\"\n", "line 2, key `taint.run_mode`: unknown key"),
            ("\n[comands]\n", "line 2: unknown table `[comands]`"),
            ("[commands\n", "`p.toml` line 1:"),
            ("commands = 3\n", "line 1, key `commands`: a policy has the tables"),
            ("deny = [\"curl *\"]\n", "line 1, key `deny`: `deny` belongs in `[commands]`"),
            ("\nrun = \"deny\"\n", "line 2, key `run`: `run` belongs in `[taint]`"),
        ] {
            let e = file(text).unwrap_err();
            assert!(e.contains(says), "{e}\n(expected: {says})");
        }
        let e = read_policy_file(Path::new("/nonexistent/p.toml")).unwrap_err();
        assert!(e.contains("does not exist"), "{e}");
    }

    fn read_project_policy(dir: &Path) -> Result<Option<Policy>, String> {
        match read_project_file(dir)? {
            Some((path, text)) => project_policy(&path, &text),
            None => Ok(None),
        }
    }

    #[test]
    fn the_project_file_has_its_policy_under_policy() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_project_policy(dir.path()), Ok(None));
        std::fs::write(dir.path().join("tiss.toml"), "[provider]\nseed = 3\n").unwrap();
        assert_eq!(read_project_policy(dir.path()), Ok(None));
        std::fs::write(
            dir.path().join("tiss.toml"),
            "[provider]\nseed = 3\n\n[policy.commands]\ndeny = [\"curl *\"]\n[policy.taint]\nrun = \"deny\"\n",
        )
        .unwrap();
        let p = read_project_policy(dir.path()).unwrap().unwrap();
        assert_eq!(p.rules().deny, ["curl *"]);
        assert_eq!(p.rules().taint_run, TaintRun::Deny);
        assert!(p.rules().origin.ends_with("tiss.toml` [policy]"), "{}", p.rules().origin);
        std::fs::write(dir.path().join("tiss.toml"), "[policy]\ndeny = []\n").unwrap();
        let e = read_project_policy(dir.path()).unwrap_err();
        assert!(e.contains("line 2, key `policy.deny`: `deny` belongs in `[policy.commands]`"), "{e}");
        std::fs::write(dir.path().join("tiss.toml"), "[policy.commands]\nallow = [1]\n").unwrap();
        let e = read_project_policy(dir.path()).unwrap_err();
        assert!(e.contains("line 2, key `policy.commands.allow`"), "{e}");
    }
}
