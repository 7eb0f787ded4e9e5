//! The options of a run, in groups so that each entry point takes only the
//! ones it honours: `run` and `resume` all three, `debug` only
//! [`HostOptions`] (its session is text on stdout, and its one snapshot is
//! the file `save` names). Plain data: `tissvm` fills them from its flags
//! (whose help says what each one does).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::policy::PolicyRules;
use crate::policy::file::{named_policy_file, project_policy, read_policy_file};
use crate::provider::settings::{self, Origin, ProjectFile, ProviderFlags};
use crate::runner::many::plans::Shard;
use crate::session::snapshot::RememberedOptions;
use tiss_host::sandbox::profile::parse_size;
use tiss_host::sandbox::{Limits, Profile};
use tisslang::cost::Dim;

/// Where a run happens and what it may do: the workspace, the host's
/// effects, human answers, budgets.
#[derive(Default)]
pub struct HostOptions {
    /// The workspace (default: the current directory; for `resume`, the
    /// one the snapshot names if this user's key signed it).
    pub workdir: Option<PathBuf>,
    /// `--allow-system-workdir`: `workdir` may name a directory a run
    /// otherwise refuses (`/`, a system or shared directory, the home).
    pub allow_system_workdir: bool,
    pub log_file: Option<PathBuf>,
    /// Bytes of each stream of each command the log file keeps.
    pub log_max_output: Option<usize>,
    /// `DIM=VALUE` caps, as given ([`parse_budget`]).
    pub budgets: Vec<String>,
    pub non_interactive: bool,
    /// The answers file.
    pub answers: Option<PathBuf>,
    /// The plan this run is of a run of many: it takes the answers file's
    /// entries that name it or none, and ignores the file if it asks nothing.
    pub answers_plan: Option<PathBuf>,
    pub sandbox_profile: Option<Profile>,
    pub max_procs: Option<u64>,
    /// A size, e.g. `4G`, as given.
    pub max_memory: Option<String>,
    pub env_allow: Vec<String>,
    /// The command policy file.
    pub policy: Option<PathBuf>,
    pub provider: ProviderFlags,
    /// `--journal`: record what the run takes from outside (book: cookbook/journal.md).
    pub journal: Option<PathBuf>,
    /// Bytes of one output the journal keeps whole (above: head, tail, hash).
    pub journal_max_output: Option<usize>,
    /// Restart the run `journal` recorded from this point, taking what came
    /// before from it (book: cookbook/journal.md); the new run's journal is `new_journal`.
    pub restart: Option<RestartFrom>,
    pub new_journal: Option<PathBuf>,
    /// Restart from a journal this user's key did not sign (`--trust-journal`).
    pub trust_journal: bool,
}

/// Where a restarted run goes live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestartFrom {
    /// The first top-level STEP of this name.
    Step(String),
    /// The top-level STEP the recorded run failed in.
    Failed,
    /// The top-level STEP written on this line.
    Line(u32),
}

impl HostOptions {
    /// The options the run goes by, and its snapshots remember: each one
    /// given here (paths made absolute), else `base`'s (a fresh run's
    /// defaults, or what a resumed snapshot remembers). The provider
    /// settings are layered (book: reference/models.md): flags, then `TISS_*` variables, then
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
            sandbox_profile: match self.sandbox_profile {
                Some(given) => given.name().to_string(),
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
        if let Some(path) = named_policy_file(self.policy.as_deref()) {
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
pub struct ReportOptions {
    pub output_format: OutputFormat,
    /// The file the report replaces (else stdout).
    pub report: Option<PathBuf>,
}

/// Where a suspended run goes (`run`, `resume`).
pub struct SnapshotOptions {
    /// Where a suspended run's snapshot goes (default: `.tiss/` in the workspace).
    pub snapshot_dir: Option<PathBuf>,
    /// The file kept a snapshot of the run before each effect.
    pub checkpoint: Option<PathBuf>,
}

/// `text` (step lines and a summary), `json` (book: reference/formats.md report), `junit`
/// (XML), `html`, or `github` (workflow-command annotations and a step
/// summary, book: cookbook/ci.md).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    Text,
    Json,
    Junit,
    Html,
    Github,
}

/// What `run` runs, and how.
pub struct RunOptions {
    /// The plans: one plan file runs here; several, or a directory, run as many.
    pub plans: Vec<PathBuf>,
    /// List every effect the plan could have, in order, and touch nothing.
    pub dry_run: bool,
    pub host: HostOptions,
    pub report: ReportOptions,
    pub snapshot: SnapshotOptions,
    pub many: ManyOptions,
}

impl RunOptions {
    /// The plan of a run of one plan.
    pub fn plan(&self) -> &Path {
        &self.plans[0]
    }
}

/// The options of a run of many plans.
pub struct ManyOptions {
    /// How many plans run at once (default: the number of CPUs).
    pub jobs: Option<usize>,
    /// Start no new plan once one has failed (as `max_failures` 1).
    pub fail_fast: bool,
    /// Start no new plan once N have failed.
    pub max_failures: Option<usize>,
    /// Run only the K-th of N slices of the plan list.
    pub shard: Option<Shard>,
    /// Where each plan's JSON report goes (and its snapshots, its checkpoint).
    pub report_dir: Option<PathBuf>,
    /// Go on from the reports already in `report_dir`.
    pub continue_from_reports: bool,
    /// With `continue_from_reports`: let the budgets, limits and profile
    /// given loosen the resumed plans' (as `resume --raise-budget`).
    pub raise_budget: bool,
    /// Start over the plans `report_dir` holds unfinished.
    pub restart: bool,
    /// How each plan's own `tissvm run` is started; `Err` says why it
    /// cannot be.
    pub invocation: Result<Invocation, String>,
}

impl ManyOptions {
    /// Whether `plans` are run as many: more than one, a directory, or an
    /// option of many plans. One plan file alone runs as it always has.
    pub fn wanted(&self, plans: &[PathBuf]) -> bool {
        plans.len() != 1 || plans[0].is_dir() || self.shard.is_some() || self.report_dir.is_some()
    }
}

/// How this process was started, for what starts `tissvm` again (each
/// plan's own `tissvm run` of many, each Slurm task's) and for the
/// commands it prints to go on.
#[derive(Clone, Default)]
pub struct Invocation {
    /// The `tissvm` executable.
    pub program: PathBuf,
    /// Its arguments, after the program's name.
    pub arguments: Vec<OsString>,
    /// The options given that each plan's or task's `tissvm run` gets as
    /// given, as `--name=value` words.
    pub passed_on: Vec<OsString>,
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
