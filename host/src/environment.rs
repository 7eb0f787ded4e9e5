//! The environment a RUN starts with (book: reference/sandbox.md): an allowlist, never the
//! caller's whole environment.
//!
//! - `PATH`: the caller's, or `/usr/local/bin:/usr/bin:/bin`;
//! - `HOME`: the workspace directory (so tools write their dotfiles there);
//! - `LANG`: the caller's, or `C.UTF-8`;
//! - `TERM`: the caller's, or `dumb`;
//! - each `--env-allow NAME` that is set in the caller's environment (an
//!   explicit allow wins over the defaults above, `HOME` included);
//! - the plan's `ENV` values, which override everything (later wins).
//!
//! A caller's value that is not valid UTF-8 is treated as unset.

use std::path::Path;

/// `PATH` when the caller has none.
pub const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// The complete environment for a RUN in `workdir`.
pub fn build_env(workdir: &Path, allow: &[String], plan_env: &[(String, String)]) -> Vec<(String, String)> {
    build_env_from(workdir, allow, plan_env, |name| std::env::var(name).ok())
}

/// [`build_env`] with the caller's environment given by `lookup`.
pub fn build_env_from(
    workdir: &Path,
    allow: &[String],
    plan_env: &[(String, String)],
    lookup: impl Fn(&str) -> Option<String>,
) -> Vec<(String, String)> {
    let home = std::path::absolute(workdir).unwrap_or_else(|_| workdir.to_path_buf());
    let mut env: Vec<(String, String)> = vec![
        ("PATH".to_string(), lookup("PATH").unwrap_or_else(|| DEFAULT_PATH.to_string())),
        ("HOME".to_string(), home.to_string_lossy().into_owned()),
        ("LANG".to_string(), lookup("LANG").unwrap_or_else(|| "C.UTF-8".to_string())),
        ("TERM".to_string(), lookup("TERM").unwrap_or_else(|| "dumb".to_string())),
    ];
    for name in allow {
        if name.is_empty() || name.contains('=') || name.contains('\0') {
            continue;
        }
        if let Some(value) = lookup(name) {
            set(&mut env, name, value);
        }
    }
    for (name, value) in plan_env {
        set(&mut env, name, value.clone());
    }
    env
}

/// The `none` profile's environment: the caller's whole environment (its
/// variables that are valid UTF-8), then the plan's ENV values.
pub fn caller_env(plan_env: &[(String, String)]) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
        .collect();
    for (name, value) in plan_env {
        set(&mut env, name, value.clone());
    }
    env
}

/// Sets `name`, replacing an earlier value in place.
fn set(env: &mut Vec<(String, String)>, name: &str, value: String) {
    match env.iter_mut().find(|(n, _)| n == name) {
        Some(entry) => entry.1 = value,
        None => env.push((name.to_string(), value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn caller(name: &str) -> Option<String> {
        match name {
            "PATH" => Some("/opt/bin:/usr/bin".into()),
            "TERM" => Some("xterm".into()),
            "AWS_SECRET_ACCESS_KEY" => Some("hunter2".into()),
            "CI" => Some("true".into()),
            "HOME" => Some("/home/me".into()),
            _ => None,
        }
    }

    #[test]
    fn only_the_allowlist_passes() {
        let env = build_env_from(Path::new("/ws"), &[], &[], caller);
        assert_eq!(
            env,
            pairs(&[("PATH", "/opt/bin:/usr/bin"), ("HOME", "/ws"), ("LANG", "C.UTF-8"), ("TERM", "xterm")])
        );
    }

    #[test]
    fn defaults_when_the_caller_has_nothing() {
        let env = build_env_from(Path::new("/ws"), &["MISSING".into()], &[], |_| None);
        assert_eq!(
            env,
            pairs(&[("PATH", DEFAULT_PATH), ("HOME", "/ws"), ("LANG", "C.UTF-8"), ("TERM", "dumb")])
        );
    }

    #[test]
    fn env_allow_and_plan_env() {
        let allow = vec!["CI".to_string(), "NOT_SET".to_string(), "A=B".to_string()];
        let plan = pairs(&[("MODE", "fast"), ("PATH", "/plan/bin"), ("MODE", "slow"), ("CI", "false")]);
        let env = build_env_from(Path::new("/ws"), &allow, &plan, caller);
        assert_eq!(
            env,
            pairs(&[
                ("PATH", "/plan/bin"),
                ("HOME", "/ws"),
                ("LANG", "C.UTF-8"),
                ("TERM", "xterm"),
                ("CI", "false"),
                ("MODE", "slow"),
            ])
        );
        assert!(!env.iter().any(|(_, v)| v == "hunter2"));
    }

    #[test]
    fn home_is_absolute() {
        let env = build_env_from(Path::new("rel/ws"), &[], &[], |_| None);
        let home = &env.iter().find(|(k, _)| k == "HOME").unwrap().1;
        assert!(Path::new(home).is_absolute() && home.ends_with("rel/ws"), "{home}");
    }

    #[test]
    fn the_real_environment_is_filtered() {
        let env = build_env(Path::new("/ws"), &[], &[]);
        let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["PATH", "HOME", "LANG", "TERM"]);
    }
}
