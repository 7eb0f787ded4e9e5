//! The subcommands' flags (`run`, `resume`, `debug`, `estimate`,
//! `providers`, `collect`, `slurm`), each mapped onto the runner's option
//! struct for it.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use tiss_vm::provider::settings::ProviderFlags;
use tiss_vm::runner::debug::DebugOptions;
use tiss_vm::runner::estimate::EstimateOptions;
use tiss_vm::runner::many::plans::Shard;
use tiss_vm::runner::many::slurm::SlurmOptions;
use tiss_vm::runner::options::{Invocation, ManyOptions, RestartFrom, RunOptions};
use tiss_vm::runner::replay::ReplayOptions;
use tiss_vm::runner::resume::ResumeOptions;

use super::args::{HostArgs, ReportArgs, SnapshotArgs};
use super::forward::{DECIDED_PER_PLAN, invocation};

#[derive(Args)]
pub struct RunArgs {
    /// The plan (`.tiss` or `.tbc`); several, or a directory, run as many.
    ///
    /// The plan: source (`.tiss`), or bytecode (`.tbc`) if it starts with the `.tbc` magic, whatever its name.
    /// Several plans, or a directory (every `.tiss` below it, sorted), run as many: each in a
    /// `tissvm run` of its own and a fresh workspace, up to -j at once.
    #[arg(value_name = "PLAN|DIR", required = true)]
    pub plans: Vec<PathBuf>,

    /// List every effect the plan could have, in order, and touch nothing.
    #[arg(long)]
    pub dry_run: bool,

    #[command(flatten, next_help_heading = "Restart")]
    pub restart: RestartArgs,

    #[command(flatten)]
    pub host: HostArgs,

    #[command(flatten)]
    pub report: ReportArgs,

    #[command(flatten)]
    pub snapshot: SnapshotArgs,

    #[command(flatten, next_help_heading = "Many plans")]
    pub many: ManyArgs,
}

/// Restart a recorded run from a step: `run PLAN --journal J --from-step NAME`.
#[derive(Args)]
pub struct RestartArgs {
    /// Restart the run --journal recorded from the first top-level STEP of
    /// this name: what came before is taken from the journal, not run again
    /// (after checking that every file it wrote still holds what it wrote),
    /// then the run goes on live. The plan may have changed after that step.
    #[arg(long, hide_short_help = true, value_name = "NAME", requires = "journal", conflicts_with_all = ["from_failed", "from_line"])]
    pub from_step: Option<String>,

    /// Restart the run --journal recorded from the top-level STEP it failed in.
    #[arg(long, hide_short_help = true, requires = "journal", conflicts_with = "from_line")]
    pub from_failed: bool,

    /// Restart the run --journal recorded from the top-level STEP on line N.
    #[arg(long, hide_short_help = true, value_name = "N", requires = "journal")]
    pub from_line: Option<u32>,

    /// The restarted run's own journal: the events taken over, then its own.
    #[arg(long, hide_short_help = true, value_name = "FILE")]
    pub new_journal: Option<PathBuf>,

    /// Restart from a journal your key did not sign (another user's or
    /// machine's, or one changed since it was written): what it recorded,
    /// human and model answers included, is taken as what happened.
    #[arg(long, hide_short_help = true, requires = "journal")]
    pub trust_journal: bool,
}

#[derive(Args)]
pub struct ManyArgs {
    /// How many plans run at once (default: the number of CPUs).
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    pub jobs: Option<usize>,

    /// Start no new plan once one has failed (as --max-failures 1).
    #[arg(long)]
    pub fail_fast: bool,

    /// Start no new plan once N have failed; those running finish.
    ///
    /// Start no new plan once N have failed (failed, budget_exceeded,
    /// security_violation, or could not run); those running finish.
    #[arg(long, value_name = "N")]
    pub max_failures: Option<usize>,

    /// Run only the K-th of N slices of the plan list (1-based), e.g. for CI matrices.
    ///
    /// Run only the K-th of N slices of the plan list (1-based): the plans
    /// at positions K, K+N, K+2N, ... of the list (directories expanded,
    /// sorted), the same on every machine. For CI matrices and job arrays.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,

    /// Write each plan's JSON report (and a suspended plan's snapshot) under DIR.
    ///
    /// Write each plan's JSON report to DIR/<plan path>.json, and a
    /// suspended plan's snapshot under DIR/<plan path>.snapshots/ (the path
    /// with its extension, `..` as `_up`; a plan that ends without one
    /// leaves none); `tissvm collect DIR` merges the
    /// reports. A run into DIR while it holds unfinished plans needs
    /// --continue-from-reports or --restart.
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,

    /// With --report-dir: go on from the reports already there.
    ///
    /// With --report-dir: go on from the reports already there, as a
    /// requeued Slurm task does. A plan whose report is final is not run
    /// again; a suspended one resumes from its snapshot, with this command's
    /// options under the rules of `resume` (--budget, --max-procs and
    /// --max-memory only lower a cap, --sandbox-profile only strengthens;
    /// --policy and --answers apply); one another resume holds is `busy`,
    /// left for a later continue; the others start.
    #[arg(long, requires = "report_dir", conflicts_with = "restart")]
    pub continue_from_reports: bool,

    /// With --continue-from-reports: let the options raise the resumed plans' caps.
    ///
    /// With --continue-from-reports: let --budget, --max-procs and
    /// --max-memory raise the resumed plans' caps, and --sandbox-profile
    /// loosen their profile (as `resume --raise-budget`).
    #[arg(long, requires = "continue_from_reports")]
    pub raise_budget: bool,

    /// With --report-dir: start over the plans an earlier run left unfinished there.
    ///
    /// With --report-dir: start over the plans an earlier run left
    /// unfinished there (suspended, or killed with a checkpoint), their
    /// effects running again; without it, or --continue-from-reports, such
    /// a run is refused.
    #[arg(long, requires = "report_dir")]
    pub restart: bool,
}

#[derive(Args)]
pub struct ReplayArgs {
    /// The journal a run recorded with --journal.
    #[arg(value_name = "JOURNAL")]
    pub journal: PathBuf,

    /// Replay this plan (source or bytecode) instead of the journal's bytecode.
    #[arg(value_name = "PLAN")]
    pub plan: Option<PathBuf>,

    /// Refuse a PLAN whose bytecode differs from the journal's (exit 2)
    /// rather than replay it up to the first effect that differs.
    #[arg(long, requires = "plan", conflicts_with = "until_divergence")]
    pub strict: bool,

    /// Replay a changed PLAN up to the first effect that differs from the
    /// journal, and stop there (`diverged`, exit 1): the default.
    #[arg(long)]
    pub until_divergence: bool,

    #[command(flatten)]
    pub report: ReportArgs,
}

impl ReplayArgs {
    pub fn options(&self) -> ReplayOptions {
        ReplayOptions {
            journal: self.journal.clone(),
            plan: self.plan.clone(),
            // The two exclude each other; the default is to replay up to the divergence.
            strict: self.strict && !self.until_divergence,
            report: self.report.options(),
        }
    }
}

#[derive(Args)]
pub struct ResumeArgs {
    /// The snapshot a suspended run wrote (`.tiss/<task>-<n>.snap` by default).
    #[arg(value_name = "SNAPSHOT")]
    pub snapshot: PathBuf,

    /// Insist on this plan (bytecode, or source compiled in memory): the
    /// snapshot is refused unless its bytecode has the same content hash.
    #[arg(long, value_name = "PLAN")]
    pub plan: Option<PathBuf>,

    /// The answer to the interaction the run waits for: `continue` (PAUSE),
    /// `approve` or `reject` (REQUEST_REVIEW), or an option's number from 1 or
    /// its text (CHOOSE).
    #[arg(long, value_name = "ANSWER")]
    pub answer: Option<String>,

    /// A comment with the answer (a REQUEST_REVIEW ... INTO r keeps it as `r.COMMENT`).
    #[arg(long, value_name = "TEXT", requires = "answer")]
    pub comment: Option<String>,

    /// Resume the snapshot even though it was resumed before (the effects
    /// after it run again), or though its file cannot record that it is;
    /// never while another resume of it runs.
    #[arg(long)]
    pub force: bool,

    /// Let `--budget`, `--max-procs` and `--max-memory` raise the cap in
    /// force, and `--sandbox-profile` loosen the run's; without it one given
    /// on resume only lowers a cap, and a weaker profile is refused.
    #[arg(long)]
    pub raise_budget: bool,

    #[command(flatten)]
    pub host: HostArgs,

    #[command(flatten)]
    pub report: ReportArgs,

    #[command(flatten)]
    pub snapshot_options: SnapshotArgs,
}

#[derive(Args)]
pub struct DebugArgs {
    /// The plan: source (`.tiss`), or bytecode (`.tbc`) if it starts with the `.tbc` magic, whatever its name.
    #[arg(value_name = "PLAN")]
    pub plan: PathBuf,

    /// Stop before the first instruction of LINE, or where a step named STEP
    /// starts (repeatable).
    #[arg(long = "break", value_name = "LINE|STEP")]
    pub breaks: Vec<String>,

    #[command(flatten)]
    pub options: HostArgs,
}

#[derive(Args)]
pub struct EstimateArgs {
    /// The plan: source (`.tiss`), or bytecode (`.tbc`) if it starts with the `.tbc` magic, whatever its name.
    #[arg(value_name = "PLAN")]
    pub plan: PathBuf,

    /// `text` (a table per step, the total, and every RUN with the source of
    /// its time estimate) or `json` (the report's shape, plus a `runs` array).
    #[arg(long, value_enum, default_value_t = EstimateFormat::Text, value_name = "FORMAT")]
    output_format: EstimateFormat,

    /// A TOML file of execution times for RUNs without TIMEOUT: `[[command]]`
    /// entries with `pattern` (a glob) or `regex`, `min` and `max` (e.g. "30s"),
    /// and an optional `[default]` with `min` and `max`.
    #[arg(long, value_name = "FILE")]
    cost_model: Option<PathBuf>,

    /// An earlier run's `--log-file`: a RUN without TIMEOUT whose command was
    /// logged takes [fastest, slowest] of its recorded durations (repeatable).
    #[arg(long = "history", value_name = "LOG")]
    history: Vec<PathBuf>,

    /// Tokens allowed for each model's answer, as a run's `--max-tokens` (default: TISS_MAX_TOKENS,
    /// else ./tiss.toml's [provider] max_tokens, else 1024).
    #[arg(long, value_name = "N")]
    max_tokens: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EstimateFormat {
    Text,
    Json,
}

#[derive(Args)]
pub struct ProvidersArgs {
    #[command(flatten)]
    pub provider: ProviderFlags,
}

#[derive(Args)]
pub struct CollectArgs {
    /// The report directory: every `*.json` file below it is one plan's report.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,

    #[command(flatten)]
    pub report: ReportArgs,
}

#[derive(Args)]
#[command(mut_arg("workdir", |arg| arg.value_name("WORKDIR").help(
    "The plans' workspaces, WORKDIR/<plan path>/ (default: DIR/workspaces)"
)))]
pub struct SlurmArgs {
    /// The plans: files, or directories (every `.tiss` below them, sorted).
    /// On a cluster they, the report directory, the workspaces and this
    /// tissvm must be on a file system every node sees.
    #[arg(value_name = "PLAN|DIR", required = true)]
    pub plans: Vec<PathBuf>,

    /// Where each plan's JSON report and a suspended plan's snapshots go,
    /// with the batch script and Slurm's output files; a new directory, or
    /// one without reports.
    #[arg(long, value_name = "DIR", required = true)]
    pub report_dir: PathBuf,

    /// Plans run at once within each task (default: the CPUs Slurm gives the task).
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    pub jobs: Option<usize>,

    /// Array tasks, each running one shard of the plans (default: one per
    /// plan, at most 1000).
    #[arg(long, value_name = "N")]
    pub shards: Option<usize>,

    /// Wait for the whole array to end, then print the collected report
    /// (exit status: the worst plan's).
    #[arg(long)]
    pub wait: bool,

    /// Options for `sbatch` (e.g. `--partition=debug --time=10:00`), after `--`.
    #[arg(last = true, value_name = "SBATCH-OPTIONS")]
    pub sbatch: Vec<String>,

    /// `run`'s options, checked here and passed to each task's `tissvm
    /// run` as given (quoted for the batch script; relative paths are
    /// taken from the directory of the submission).
    #[command(flatten, next_help_heading = "Run options (each task's `tissvm run`)")]
    pub host: HostArgs,
}

/// `slurm`'s own arguments, not passed on to the tasks' `tissvm run` as
/// they are (`--workdir` and `-j` are, by the script itself).
const DECIDED_HERE: &[&str] = &["plans", "report_dir", "jobs", "shards", "workdir", "wait", "sbatch"];

impl RunArgs {
    /// The runner's options these flags give.
    pub fn options(&self) -> RunOptions {
        let many = &self.many;
        let mut options = RunOptions {
            plans: self.plans.clone(),
            dry_run: self.dry_run,
            host: self.host.options(),
            report: self.report.options(),
            snapshot: self.snapshot.options(),
            many: ManyOptions {
                jobs: many.jobs,
                fail_fast: many.fail_fast,
                max_failures: many.max_failures,
                shard: many.shard,
                report_dir: many.report_dir.clone(),
                continue_from_reports: many.continue_from_reports,
                raise_budget: many.raise_budget,
                restart: many.restart,
                invocation: Ok(Invocation::default()),
            },
        };
        let restart = &self.restart;
        options.host.restart = match (&restart.from_step, restart.from_failed, restart.from_line) {
            (Some(name), ..) => Some(RestartFrom::Step(name.clone())),
            (_, true, _) => Some(RestartFrom::Failed),
            (_, _, Some(line)) => Some(RestartFrom::Line(line)),
            _ => None,
        };
        options.host.new_journal = restart.new_journal.clone();
        options.host.trust_journal = restart.trust_journal;
        // Read back from the command line only for the plans' own runs.
        if options.many.wanted(&options.plans) {
            options.many.invocation = invocation("run", DECIDED_PER_PLAN);
        }
        options
    }
}

impl ResumeArgs {
    /// The runner's options these flags give.
    pub fn options(&self) -> ResumeOptions {
        ResumeOptions {
            snapshot: self.snapshot.clone(),
            plan: self.plan.clone(),
            answer: self.answer.clone(),
            comment: self.comment.clone(),
            force: self.force,
            raise_budget: self.raise_budget,
            host: self.host.options(),
            report: self.report.options(),
            snapshot_options: self.snapshot_options.options(),
            arguments: std::env::args_os().skip(1).collect(),
        }
    }
}

/// `tissvm debug PLAN WORDS...` as a DAP launch gives it: the plan, and
/// further options of `run` as words.
#[derive(clap::Parser)]
#[command(name = "args", no_binary_name = true, disable_help_flag = true)]
struct LaunchWords {
    #[command(flatten)]
    debug: DebugArgs,
}

/// The options of a debugging session of `plan` with `words` (a launch
/// configuration's `args`); the error is clap's, in words.
pub fn debug_options_from_words(plan: &std::path::Path, words: &[String]) -> Result<DebugOptions, String> {
    use clap::Parser;
    let mut all = vec![plan.as_os_str().to_owned()];
    all.extend(words.iter().map(std::ffi::OsString::from));
    LaunchWords::try_parse_from(all)
        .map(|w| w.debug.options())
        .map_err(|e| e.render().to_string().trim().to_string())
}

/// `tissvm mcp`: the run options checked as `run` would check them, the
/// root made absolute, then the server until the client is gone.
pub fn mcp(root: Option<PathBuf>, run_options: Vec<String>) -> u8 {
    let root = root.unwrap_or_else(|| PathBuf::from("."));
    let root = match std::fs::canonicalize(&root) {
        Ok(r) if r.is_dir() => r,
        Ok(r) => {
            eprintln!("tissvm: mcp: --root `{}` is not a directory", r.display());
            return 2;
        }
        Err(e) => {
            eprintln!("tissvm: mcp: --root `{}`: {e}", root.display());
            return 2;
        }
    };
    if let Err(e) = debug_options_from_words(std::path::Path::new("plan.tiss"), &run_options) {
        eprintln!("tissvm: mcp: the run options after `--`: {e}");
        return 2;
    }
    let options = tiss_vm::mcp::McpOptions { root, run_args: run_options };
    tiss_vm::mcp::serve(Box::new(std::io::stdin()), Box::new(std::io::stdout()), options)
}

impl DebugArgs {
    /// The runner's options these flags give.
    pub fn options(&self) -> DebugOptions {
        DebugOptions { plan: self.plan.clone(), breaks: self.breaks.clone(), host: self.options.options() }
    }
}

impl EstimateArgs {
    /// The runner's options these flags give.
    pub fn options(&self) -> EstimateOptions {
        EstimateOptions {
            plan: self.plan.clone(),
            json: self.output_format == EstimateFormat::Json,
            cost_model: self.cost_model.clone(),
            history: self.history.clone(),
            max_tokens: self.max_tokens.clone(),
        }
    }
}

impl SlurmArgs {
    /// The runner's options these flags give.
    pub fn options(&self) -> SlurmOptions {
        SlurmOptions {
            plans: self.plans.clone(),
            report_dir: self.report_dir.clone(),
            jobs: self.jobs,
            shards: self.shards,
            wait: self.wait,
            sbatch: self.sbatch.clone(),
            host: self.host.options(),
            invocation: invocation("slurm", DECIDED_HERE),
        }
    }
}
