//! `tissvm run`: options, the host set-up, and the report.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use tiss_vm::machine::{Machine, Outcome};
use tiss_vm::os_host::{OsHost, Progress, stdin_is_terminal};
use tiss_vm::program::Program;
use tiss_vm::report::{RunReport, failure_text};
use tisslang::cost::Dim;
use tisslang::module::Module;

use super::status;

#[derive(Args)]
pub struct RunArgs {
    /// The plan: bytecode (`.tbc`) or source (`.tiss`).
    #[arg(value_name = "PLAN")]
    pub plan: PathBuf,

    /// The workspace every path is resolved against (default: the current directory).
    #[arg(long, value_name = "DIR")]
    workdir: Option<PathBuf>,

    /// List every effect the plan could have, in order, and touch nothing.
    #[arg(long)]
    dry_run: bool,

    /// `text` (step lines and a summary), `json` (SPEC §9 report) or `junit` (XML).
    #[arg(long, value_enum, default_value_t = OutputFormat::Text, value_name = "FORMAT")]
    output_format: OutputFormat,

    /// Append one JSON object per event to FILE (full command output included).
    #[arg(long, value_name = "FILE")]
    log_file: Option<PathBuf>,

    /// Cap a cost dimension, e.g. `RUN_COUNT=5` or `EXECUTION_TIME=2m` (repeatable;
    /// the lower of this and the plan's SET_BUDGET wins).
    #[arg(long = "budget", value_name = "DIM=VALUE")]
    budgets: Vec<String>,

    /// Never ask on the terminal: a human interaction suspends the run.
    #[arg(long)]
    non_interactive: bool,

    /// Isolation: `none`, `standard` (workspace confinement and a scrubbed
    /// environment) or `strict` (kernel-enforced; refused where unavailable).
    #[arg(long, value_enum, default_value_t = SandboxProfile::Standard, value_name = "PROFILE")]
    sandbox_profile: SandboxProfile,

    /// The language-model provider (`mock`: deterministic and offline).
    #[arg(long, default_value = "mock", value_name = "NAME")]
    provider: String,

    /// Pass the caller's environment variable NAME to commands (repeatable).
    #[arg(long = "env-allow", value_name = "NAME")]
    env_allow: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OutputFormat {
    Text,
    Json,
    Junit,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SandboxProfile {
    None,
    Standard,
    Strict,
}

/// Parses `DIM=VALUE`: a dimension name (any case) and an integer, or a
/// duration (`90s`, `2m`) for EXECUTION_TIME.
fn parse_budget(text: &str) -> Result<(Dim, u64), String> {
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

pub fn run(module: Module, args: &RunArgs) -> u8 {
    let program = match Program::new(module) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("tissvm: {}: {e}", args.plan.display());
            return status::INVALID;
        }
    };
    if args.dry_run {
        return super::write_stdout(&tiss_vm::dry_run::dry_run(&program), status::OK);
    }
    if args.sandbox_profile == SandboxProfile::Strict {
        eprintln!(
            "tissvm: the `strict` sandbox profile (no network, no writes outside the workspace, enforced by the \
             kernel) is not available in this build; refusing to run with weaker isolation. Use `standard`."
        );
        return status::SECURITY;
    }
    let mut caps = Vec::new();
    for text in &args.budgets {
        match parse_budget(text) {
            Ok(cap) => caps.push(cap),
            Err(e) => {
                eprintln!("tissvm: --budget {e}");
                return status::INVALID;
            }
        }
    }
    let provider = match tiss_vm::provider::by_name(&args.provider) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("tissvm: --provider: {e}");
            return status::INVALID;
        }
    };
    let workdir = args.workdir.clone().unwrap_or_else(|| PathBuf::from("."));
    if !workdir.is_dir() {
        eprintln!("tissvm: --workdir `{}` is not a directory", workdir.display());
        return status::INVALID;
    }
    let workspace = match tiss_vm::workspace::Workspace::open(&workdir) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("tissvm: {e:?}");
            return status::INVALID;
        }
    };
    let progress = match args.output_format {
        OutputFormat::Text => Progress::Text { live: std::io::IsTerminal::is_terminal(&std::io::stderr()) },
        _ => Progress::Quiet,
    };
    let mut host = OsHost::new(workspace, provider, progress);
    host.env_allow = args.env_allow.clone();
    host.interactive = !args.non_interactive && stdin_is_terminal();
    if let Some(path) = &args.log_file {
        match tiss_vm::event_log::EventLog::open(path) {
            Ok(log) => host.log = Some(log),
            Err(e) => {
                eprintln!("tissvm: cannot open the log file `{}`: {e}", path.display());
                return status::INVALID;
            }
        }
    }

    let mut machine = Machine::new(&program);
    for (dim, value) in caps {
        machine.cap(dim, value);
    }
    let outcome = machine.run(&program, &mut host);
    if let Some(log) = &mut host.log
        && let Err(e) = log.flush().and(log.error.take().map_or(Ok(()), Err))
    {
        eprintln!("tissvm: writing the log file failed: {e}");
    }
    drop(host);
    if let Outcome::Trapped(message) = &outcome {
        eprintln!(
            "tissvm: internal error: {message}\nThis is a bug in tissvm (the verifier accepted this bytecode); please report it."
        );
        return status::INTERNAL;
    }
    if matches!(outcome, Outcome::Suspended(_)) {
        eprintln!(
            "tissvm: the run is waiting for a human answer and no terminal is attached (or --non-interactive); \
             writing a snapshot to resume from comes with the suspension issue, so this run stops here."
        );
    }
    let report = RunReport::new(&program, &machine, &outcome, None);
    let text = match args.output_format {
        OutputFormat::Json => {
            let mut text = serde_json::to_string_pretty(&report.to_json()).unwrap_or_default();
            text.push('\n');
            text
        }
        OutputFormat::Junit => report.to_junit(),
        OutputFormat::Text => report.to_text(),
    };
    if let (OutputFormat::Json | OutputFormat::Junit, tiss_vm::report::RunStatus::Failed(f)) =
        (args.output_format, &report.status)
    {
        eprint!("{}", failure_text(f));
    }
    super::write_stdout(&text, report.exit_code() as u8)
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
