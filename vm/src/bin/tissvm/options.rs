//! The options of a run, in groups so that each subcommand takes (and its
//! `--help` shows) only the ones it honours: `run` and `resume` flatten all
//! three, `debug` only [`HostOptions`] (its session is text on stdout, and
//! its one snapshot is the file `save` names).

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use tiss_host::sandbox::profile::parse_size;
use tiss_host::sandbox::{Limits, Profile};
use tiss_vm::policy::PolicyRules;
use tiss_vm::policy::file::{project_policy, read_policy_file};
use tiss_vm::provider::settings::{self, Origin, ProjectFile, ProviderFlags};
use tiss_vm::session::snapshot::RememberedOptions;
use tisslang::cost::Dim;

/// Where a run happens and what it may do: the workspace, the host's
/// effects, human answers, budgets.
#[derive(Args)]
pub struct HostOptions {
    /// The workspace every path is resolved against (default: the current
    /// directory; for `resume`, the one the snapshot names if your key
    /// signed it, and required otherwise).
    #[arg(long, value_name = "DIR")]
    pub workdir: Option<PathBuf>,

    /// Append one JSON object per event to FILE, command output included.
    /// With many plans, a directory: each plan's log is
    /// FILE/<plan path without extension>.jsonl.
    #[arg(long, value_name = "FILE")]
    pub log_file: Option<PathBuf>,

    /// What the log file keeps of each stream of each command, in bytes: the
    /// first and the last half, with the count of what was left out between
    /// (default 1 MiB).
    #[arg(long, value_name = "BYTES")]
    pub log_max_output: Option<usize>,

    /// Cap a cost dimension, e.g. `RUN_COUNT=5` or `EXECUTION_TIME=2m` (repeatable;
    /// the lower of this and the plan's SET_BUDGET wins).
    #[arg(long = "budget", value_name = "DIM=VALUE")]
    pub budgets: Vec<String>,

    /// Never ask on the terminal: a human interaction suspends the run.
    #[arg(long)]
    pub non_interactive: bool,

    /// Answer human interactions in advance: a JSON array whose k-th entry
    /// answers the k-th interaction of the run, each `{"answer": "continue" |
    /// "approve" | "reject" | "<option number>", "comment": "...", "line": N}`
    /// (`comment` and `line` optional). When they run out, the run suspends.
    #[arg(long, value_name = "FILE")]
    pub answers: Option<PathBuf>,

    /// Isolation of RUN: `standard` (the default: an allowlisted environment,
    /// a session of its own, no new privileges, rlimits, the whole process
    /// tree killed at the end), `strict` (standard, plus writes only in the
    /// workspace and a private TMPDIR, no network, --max-procs and
    /// --max-memory; refused where the kernel cannot enforce it) or `none`
    /// (the caller's environment, no limits). Also TISS_SANDBOX_PROFILE.
    #[arg(long, value_enum, value_name = "PROFILE")]
    pub sandbox_profile: Option<SandboxProfile>,

    /// `strict`: processes a RUN may have at once (default 256).
    #[arg(long, value_name = "N")]
    pub max_procs: Option<u64>,

    /// `strict`: memory a RUN's processes may use together, e.g. `4G` or
    /// `512M` (default 4G).
    #[arg(long, value_name = "SIZE")]
    pub max_memory: Option<String>,

    /// Pass the caller's environment variable NAME to commands (repeatable).
    #[arg(long = "env-allow", value_name = "NAME")]
    pub env_allow: Vec<String>,

    /// The command policy, a TOML file: `[commands]` `allow`, `deny` and
    /// `approve` lists of globs over each command as it will run (`*`
    /// matches anything, spaces and `/` included), and `[taint] run =
    /// "allow" | "approve" | "deny"` for commands that hold data from a
    /// model or a file. Also `TISS_POLICY`; default: the `[policy]` table of
    /// ./tiss.toml, else none (for `resume`: the policy the run had).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,

    #[command(flatten)]
    pub provider: ProviderFlags,
}

impl HostOptions {
    /// The options the run goes by, and its snapshots remember: each one
    /// given here (paths made absolute), else `base`'s (a fresh run's
    /// defaults, or what a resumed snapshot remembers). The provider
    /// settings are layered (SPEC §7): flags, then `TISS_*` variables, then
    /// `./tiss.toml`, then `base`'s. An error names the setting and its source.
    pub fn over(
        &self,
        snapshot_dir: Option<&Path>,
        base: RememberedOptions,
        base_origin: Origin,
    ) -> Result<RememberedOptions, String> {
        let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        // ./tiss.toml is read once: its [provider] table here, its [policy]
        // table below if no other policy applies.
        let project = settings::read_project_file(Path::new("."))?;
        let file = project.as_ref().map(|(path, text)| ProjectFile::parse(path, text)).transpose()?;
        let env = |name: &str| std::env::var(name).ok();
        let provider =
            settings::resolve(&self.provider, &env, file.as_ref(), base.provider, base_origin)?.settings;
        Ok(RememberedOptions {
            snapshot_dir: snapshot_dir.map(absolute).or(base.snapshot_dir),
            log_file: self.log_file.as_deref().map(absolute).or(base.log_file),
            provider,
            sandbox_profile: match self.sandbox_profile.and_then(|p| p.to_possible_value()) {
                Some(given) => given.get_name().to_string(),
                None => profile_from_env()?.unwrap_or(base.sandbox_profile),
            },
            env_allow: if self.env_allow.is_empty() { base.env_allow } else { self.env_allow.clone() },
            policy: self.policy_rules(base.policy, project.as_ref())?,
            limits: self.limits_over(base.limits)?,
            log_max_output: self.log_max_output.map(|n| n as u64).or(base.log_max_output),
        })
    }

    /// The command policy: `--policy`, else `TISS_POLICY`, else `base`'s if
    /// it has one (a resumed run keeps its policy: a `tiss.toml` where it is
    /// resumed must not quietly replace it), else the `[policy]` table of
    /// `./tiss.toml` (`project`: its path and text), else none.
    fn policy_rules(
        &self,
        base: PolicyRules,
        project: Option<&(PathBuf, String)>,
    ) -> Result<PolicyRules, String> {
        let given = self
            .policy
            .clone()
            .or_else(|| std::env::var_os("TISS_POLICY").filter(|v| !v.is_empty()).map(PathBuf::from));
        if let Some(path) = given {
            return Ok(read_policy_file(&path)?.rules().clone());
        }
        if base != PolicyRules::default() {
            return Ok(base);
        }
        let Some((path, text)) = project else { return Ok(base) };
        Ok(project_policy(path, text)?.map_or(base, |p| p.rules().clone()))
    }
}

impl HostOptions {
    /// `--max-procs` and `--max-memory`, each given over `base`'s.
    fn limits_over(&self, base: Limits) -> Result<Limits, String> {
        let mut limits = base;
        if let Some(n) = self.max_procs {
            if n == 0 {
                return Err("--max-procs 0 would let a RUN start nothing; give at least 1".into());
            }
            limits.max_procs = n;
        }
        if let Some(text) = &self.max_memory {
            limits.max_memory = parse_size(text).map_err(|e| format!("--max-memory {e}"))?;
        }
        Ok(limits)
    }
}

/// `TISS_SANDBOX_PROFILE`, if set: the profile when no flag names one.
pub fn profile_from_env() -> Result<Option<String>, String> {
    match std::env::var("TISS_SANDBOX_PROFILE") {
        Ok(name) if Profile::from_name(&name).is_some() => Ok(Some(name)),
        Ok(name) => Err(format!(
            "TISS_SANDBOX_PROFILE=`{name}` is not a sandbox profile; use one of {}",
            Profile::ALL.map(Profile::name).join(", ")
        )),
        Err(_) => Ok(None),
    }
}

/// How the run reports (`run`, `resume`).
#[derive(Args)]
pub struct ReportOptions {
    /// `text` (step lines and a summary), `json` (SPEC §9 report), `junit` (XML) or `html` (one
    /// self-contained page); with json, junit and html the step lines go to stderr.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text, value_name = "FORMAT")]
    pub output_format: OutputFormat,

    /// Write the json, junit or html report to FILE (replaced atomically) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

/// Where a suspended run goes (`run`, `resume`).
#[derive(Args)]
pub struct SnapshotOptions {
    /// Where a suspended run's snapshot is written (default: `.tiss/` in the workspace).
    #[arg(long, value_name = "DIR")]
    pub snapshot_dir: Option<PathBuf>,

    /// Keep FILE a snapshot of the run as it stands before each effect (RUN,
    /// PROMPT_AGENT, WRITE, APPEND), replaced at each: a run killed outright
    /// (SIGKILL) resumes from it with `tissvm resume --force FILE`, the
    /// effect in flight running again. With many plans and --report-dir,
    /// each plan keeps one there.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
    Junit,
    Html,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SandboxProfile {
    None,
    Standard,
    Strict,
}

/// Parses `DIM=VALUE`: a dimension name (any case) and an integer, or a
/// duration (`90s`, `2m`) for EXECUTION_TIME.
pub fn parse_budget(text: &str) -> Result<(Dim, u64), String> {
    let (name, value) =
        text.split_once('=').ok_or_else(|| format!("`{text}`: expected DIM=VALUE, e.g. RUN_COUNT=5"))?;
    let dim = Dim::from_name(&name.trim().to_ascii_uppercase()).ok_or_else(|| {
        let names: Vec<&str> = Dim::ALL.iter().map(|d| d.name()).collect();
        format!("`{name}` is not a cost dimension; use one of {}", names.join(", "))
    })?;
    let value = value.trim().replace('_', "");
    let digits = value.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &value[digits.len()..];
    let number: u64 =
        digits.parse().map_err(|_| format!("`{value}` is not a budget value for {}", dim.name()))?;
    let amount = match (dim, unit) {
        (Dim::ExecutionTime, "ms") => Some(number),
        (Dim::ExecutionTime, "s") => number.checked_mul(1000),
        (Dim::ExecutionTime, "m") => number.checked_mul(60_000),
        (Dim::ExecutionTime, "h") => number.checked_mul(3_600_000),
        (Dim::ExecutionTime, _) => {
            return Err(format!("EXECUTION_TIME needs a duration such as `90s` or `2m`, not `{value}`"));
        }
        (_, "") => Some(number),
        (_, _) => return Err(format!("{} is a count: write a plain integer, not `{value}`", dim.name())),
    };
    amount.map(|a| (dim, a)).ok_or_else(|| format!("`{value}` is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_parse_with_units_and_cases() {
        assert_eq!(parse_budget("RUN_COUNT=5"), Ok((Dim::RunCount, 5)));
        assert_eq!(parse_budget("run_count=1_000"), Ok((Dim::RunCount, 1000)));
        assert_eq!(parse_budget("EXECUTION_TIME=2m"), Ok((Dim::ExecutionTime, 120_000)));
        assert_eq!(parse_budget("EXECUTION_TIME=1500ms"), Ok((Dim::ExecutionTime, 1500)));
        assert!(parse_budget("EXECUTION_TIME=5").is_err());
        assert!(parse_budget("RUN_COUNT=5s").is_err());
        assert!(parse_budget("RUNS=5").is_err());
        assert!(parse_budget("RUN_COUNT").is_err());
        assert!(parse_budget("RUN_COUNT=-1").is_err());
    }
}
