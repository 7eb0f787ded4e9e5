//! `tissvm inspect` (the plan's manifest for approval, with the isolation
//! its RUNs would get here) and `tissvm disasm` (its bytecode listing):
//! what a plan would do, read without running it.

use std::path::{Path, PathBuf};

use std::io::Write;

use tiss_support::cli::{stdout_status, write_stdout};

use crate::analysis::inspect::{write_inspect_json, write_inspect_text};
use crate::machine::program::Program;
use crate::policy::Policy;
use crate::policy::file::{named_policy_file, project_policy, read_policy_file};
use crate::provider::settings;
use crate::runner::options::profile_from_env;
use crate::runner::plan::{Diagnostics, load_plan};
use crate::runner::{PROGRAM, color, status};
use tiss_host::sandbox::{Limits, Profile, Sandbox};

/// What `inspect` reads and how it prints.
pub struct InspectOptions {
    pub plan: PathBuf,
    /// JSON rather than text.
    pub json: bool,
    /// Also say what this command policy decides for each command (else
    /// `TISS_POLICY`, else the `[policy]` of `./tiss.toml`, as `run` reads it).
    pub policy: Option<PathBuf>,
    /// The profile to report on (default: TISS_SANDBOX_PROFILE, else `standard`).
    pub sandbox_profile: Option<Profile>,
}

/// Prints the plan's manifest; the exit status.
pub fn inspect(out: &mut Diagnostics, options: &InspectOptions) -> u8 {
    let path = options.plan.as_path();
    if crate::runner::replay::summary::is_journal(path) {
        return inspect_journal(path, options.json);
    }
    let policy = match policy_as_run_reads_it(options.policy.as_deref()) {
        Ok(policy) => policy,
        Err(e) => {
            eprintln!("tissvm: {e}");
            return status::INVALID;
        }
    };
    let profile = match options.sandbox_profile {
        Some(given) => given.name().to_string(),
        None => match profile_from_env() {
            Ok(name) => name.unwrap_or_else(|| Profile::Standard.name().to_string()),
            Err(e) => {
                eprintln!("tissvm: {e}");
                return status::INVALID;
            }
        },
    };

    let plan = match load_plan(out, path) {
        Ok(plan) => plan,
        Err(refused) => return refused.report_analysis(options.json),
    };
    let program = match Program::new(plan.module) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("tissvm: {}: {e}", path.display());
            return status::INVALID;
        }
    };
    // What RUN would get here: the mechanisms in force, or the refusal.
    let isolation =
        Profile::from_name(&profile).map(|p| match Sandbox::prepare(p, Path::new("."), Limits::default()) {
            Ok(sandbox) => (sandbox.isolation().clone(), None),
            Err(refusal) => (refusal.isolation(), Some(refusal.to_string())),
        });
    // Written as it is made: a large plan's manifest is never held whole.
    let stdout = std::io::stdout().lock();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout);
    let written = if options.json {
        let sandbox = isolation.as_ref().map(|(isolation, _)| isolation.json());
        write_inspect_json(&program, policy.as_ref(), sandbox, &mut out)
    } else {
        write_inspect_text(&program, policy.as_ref(), color::stdout(), &mut out).and_then(|()| {
            let Some((isolation, refused)) = &isolation else { return Ok(()) };
            write!(out, "{}", isolation.line())?;
            if let Some(why) = refused {
                write!(out, "\n  refused: {why}")?;
            }
            writeln!(out)
        })
    };
    stdout_status(PROGRAM, written.and_then(|()| out.flush()), status::OK)
}

/// Prints the plan's bytecode listing; the exit status.
pub fn disasm(out: &mut Diagnostics, path: &Path) -> u8 {
    match load_plan(out, path) {
        Ok(plan) => {
            let source = tisslang::module::kept_source::find(&plan.module.source, Some(path));
            let listing = tisslang::disasm::disassemble_with_source(&plan.module, &plan.hash(), &source);
            write_stdout(PROGRAM, &listing, status::OK)
        }
        Err(refused) => refused.status(),
    }
}

/// The policy a fresh `tissvm run` here would apply (`--policy`, else
/// `TISS_POLICY`, else `./tiss.toml`'s `[policy]`): what a reviewer reads must
/// be what runs.
fn policy_as_run_reads_it(given: Option<&Path>) -> Result<Option<Policy>, String> {
    if let Some(path) = named_policy_file(given) {
        return read_policy_file(&path).map(Some);
    }
    match settings::read_project_file(Path::new("."))? {
        Some((path, text)) => project_policy(&path, &text),
        None => Ok(None),
    }
}

/// `inspect JOURNAL`: what a journal holds (`replay/summary.rs`).
fn inspect_journal(path: &Path, json: bool) -> u8 {
    use crate::runner::replay::summary;
    match summary::summary(path) {
        Ok(summary) if json => {
            let text = serde_json::to_string_pretty(&summary).unwrap_or_default() + "\n";
            write_stdout(PROGRAM, &text, status::OK)
        }
        Ok(summary) => write_stdout(PROGRAM, &summary::text(&summary), status::OK),
        Err(e) => {
            eprintln!("tissvm: {e}");
            status::INVALID
        }
    }
}
