//! The flags of a run, in groups so that each subcommand takes (and its
//! `--help` shows) only the ones it honours: `run` and `resume` flatten all
//! three, `debug` only [`HostArgs`] (its session is text on stdout, and its
//! one snapshot is the file `save` names). Each group maps onto the
//! runner's option struct of the same name.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use tiss_host::sandbox::Profile;
use tiss_vm::provider::settings::ProviderFlags;
use tiss_vm::runner::options::{HostOptions, OutputFormat, ReportOptions, SnapshotOptions};

/// Where a run happens and what it may do: the workspace, the host's
/// effects, human answers, budgets.
#[derive(Args)]
pub struct HostArgs {
    /// The workspace every path is resolved against (default: the current directory).
    ///
    /// The workspace every path is resolved against (default: the current
    /// directory; for `resume`, the one the snapshot names if your key
    /// signed it, and required otherwise).
    #[arg(long, value_name = "DIR")]
    pub workdir: Option<PathBuf>,

    /// Let --workdir name a system or shared directory (`/`, `/tmp`, your home).
    ///
    /// Let --workdir name a directory a run otherwise refuses as its
    /// workspace: `/`, a system directory, a shared one such as `/tmp`
    /// itself, or your home directory itself.
    #[arg(long, requires = "workdir")]
    pub allow_system_workdir: bool,

    /// Append one JSON object per event, command output included, to FILE.
    ///
    /// Append one JSON object per event to FILE, command output included
    /// (counts such as a prompt's `tokens` as JSON numbers). With many plans, a directory: each plan's log is
    /// FILE/<plan path>.jsonl.
    #[arg(long, value_name = "FILE")]
    pub log_file: Option<PathBuf>,

    /// What the log file keeps of each command's streams, in bytes (default 1 MiB).
    ///
    /// What the log file keeps of each stream of each command, in bytes: the
    /// first and the last half, with the count of what was left out between
    /// (default 1 MiB).
    #[arg(long, value_name = "BYTES")]
    pub log_max_output: Option<usize>,

    /// Cap a cost dimension, e.g. `RUN_COUNT=5` or `EXECUTION_TIME=2m` (repeatable).
    ///
    /// Cap a cost dimension, e.g. `RUN_COUNT=5` or `EXECUTION_TIME=2m` (repeatable;
    /// the lower of this and the plan's SET_BUDGET wins).
    #[arg(long = "budget", value_name = "DIM=VALUE")]
    pub budgets: Vec<String>,

    /// Never ask on the terminal: a human interaction suspends the run.
    #[arg(long)]
    pub non_interactive: bool,

    /// Answer human interactions in advance from FILE, a JSON array.
    ///
    /// Answer human interactions in advance: a JSON array whose k-th entry
    /// answers the k-th interaction of the run, each `{"answer": "continue" |
    /// "approve" | "reject" | "<option number or text>", "comment": "...", "line": N}`
    /// (`comment` and `line` optional). When they run out, the run suspends.
    /// With many plans an entry may name its plan (`"plan": "path"`): each
    /// plan takes those naming it or none; a plan that asks nothing ignores
    /// the file.
    #[arg(long, value_name = "FILE")]
    pub answers: Option<PathBuf>,

    /// Set by a run of many plans for each plan's own `tissvm`: the plan
    /// whose entries of --answers this run takes.
    #[arg(long, value_name = "PLAN", requires = "answers", hide = true)]
    pub answers_plan: Option<PathBuf>,

    /// Isolation of RUN: `standard` (the default), `strict` or `none`.
    ///
    /// Isolation of RUN: `standard` (the default: an allowlisted environment,
    /// a session of its own, no new privileges, rlimits, the whole process
    /// tree killed at the end), `strict` (standard, plus writes only in the
    /// workspace and a private TMPDIR, no network, --max-procs and
    /// --max-memory; refused where the kernel cannot enforce it) or `none`
    /// (the caller's environment, no limits). Also TISS_SANDBOX_PROFILE.
    #[arg(long, value_enum, value_name = "PROFILE")]
    pub sandbox_profile: Option<SandboxProfileArg>,

    /// `strict`: processes a RUN may have at once (default 256).
    #[arg(long, value_name = "N")]
    pub max_procs: Option<u64>,

    /// `strict`: memory a RUN's processes may use together (default 4G).
    ///
    /// `strict`: memory a RUN's processes may use together, e.g. `4G` or
    /// `512M` (default 4G).
    #[arg(long, value_name = "SIZE")]
    pub max_memory: Option<String>,

    /// Pass the caller's environment variable NAME to commands (repeatable).
    #[arg(long = "env-allow", value_name = "NAME")]
    pub env_allow: Vec<String>,

    /// The command policy, a TOML file (allow, deny and approve globs; taint).
    ///
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

    /// Record in FILE all the run takes from outside the VM, for `tissvm replay`.
    ///
    /// Record in FILE everything the run takes from outside the VM (each
    /// RUN's result, each READ, each file test, each model and human answer,
    /// each clock reading, the hash of each file written), one checksummed
    /// frame per event as it happens, with the bytecode: what `tissvm replay`
    /// runs the plan again from. A new FILE; `resume` given the journal of
    /// the run it resumes continues it.
    #[arg(long, value_name = "FILE")]
    pub journal: Option<PathBuf>,

    /// The longest output the journal keeps whole, in bytes (default 64 MiB).
    ///
    /// The longest output (a command's stream, a file read, a model's
    /// answer) the journal keeps whole, in bytes; above it, its head, tail,
    /// length and SHA-256 (default and most: 64 MiB). Without --journal it
    /// has nothing to bound.
    #[arg(long, value_name = "BYTES")]
    pub journal_max_output: Option<usize>,
}

/// How the run reports (`run`, `resume`).
#[derive(Args)]
pub struct ReportArgs {
    /// `text`, `json`, `junit`, `html` or `github` (annotations and a job summary).
    ///
    /// `text` (step lines and a summary), `json` (the JSON report), `junit` (XML), `html` (one
    /// self-contained page) or `github` (an annotation per failure, and a Markdown table appended
    /// to the file GITHUB_STEP_SUMMARY names); with all but text the step lines go to stderr.
    #[arg(long, value_enum, default_value_t = OutputFormatArg::Text, value_name = "FORMAT")]
    pub output_format: OutputFormatArg,

    /// Write the json, junit or html report to FILE (replaced atomically) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

/// Where a suspended run goes (`run`, `resume`).
#[derive(Args)]
pub struct SnapshotArgs {
    /// Where a suspended run's snapshot is written (default: `.tiss/` in the workspace).
    #[arg(long, value_name = "DIR")]
    pub snapshot_dir: Option<PathBuf>,

    /// Keep FILE a snapshot of the run before each effect (`resume --force` after a kill).
    ///
    /// Keep FILE a snapshot of the run as it stands before each effect (RUN,
    /// PROMPT_AGENT, WRITE, APPEND), replaced at each: a run killed outright
    /// (SIGKILL) resumes from it with `tissvm resume --force FILE`, the
    /// effect in flight running again. With many plans and --report-dir,
    /// each plan keeps one there.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormatArg {
    Text,
    Json,
    Junit,
    Html,
    Github,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SandboxProfileArg {
    None,
    Standard,
    Strict,
}

impl HostArgs {
    /// The runner's [`HostOptions`] these flags give.
    pub fn options(&self) -> HostOptions {
        HostOptions {
            workdir: self.workdir.clone(),
            allow_system_workdir: self.allow_system_workdir,
            log_file: self.log_file.clone(),
            log_max_output: self.log_max_output,
            budgets: self.budgets.clone(),
            non_interactive: self.non_interactive,
            answers: self.answers.clone(),
            answers_plan: self.answers_plan.clone(),
            sandbox_profile: self.sandbox_profile.map(SandboxProfileArg::profile),
            max_procs: self.max_procs,
            max_memory: self.max_memory.clone(),
            env_allow: self.env_allow.clone(),
            journal: self.journal.clone(),
            journal_max_output: self.journal_max_output,
            restart: None,
            new_journal: None,
            trust_journal: false,
            policy: self.policy.clone(),
            provider: self.provider.clone(),
        }
    }
}

impl ReportArgs {
    /// The runner's [`ReportOptions`] these flags give.
    pub fn options(&self) -> ReportOptions {
        let output_format = match self.output_format {
            OutputFormatArg::Text => OutputFormat::Text,
            OutputFormatArg::Json => OutputFormat::Json,
            OutputFormatArg::Junit => OutputFormat::Junit,
            OutputFormatArg::Html => OutputFormat::Html,
            OutputFormatArg::Github => OutputFormat::Github,
        };
        ReportOptions { output_format, report: self.report.clone() }
    }
}

impl SnapshotArgs {
    /// The runner's [`SnapshotOptions`] these flags give.
    pub fn options(&self) -> SnapshotOptions {
        SnapshotOptions { snapshot_dir: self.snapshot_dir.clone(), checkpoint: self.checkpoint.clone() }
    }
}

impl SandboxProfileArg {
    /// The sandbox profile this value names.
    pub fn profile(self) -> Profile {
        match self {
            SandboxProfileArg::None => Profile::None,
            SandboxProfileArg::Standard => Profile::Standard,
            SandboxProfileArg::Strict => Profile::Strict,
        }
    }
}
