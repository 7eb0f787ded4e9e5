//! `tissvm`: runs TissLang plans (SPEC §9): `run` (of one plan, or many: `many/`), `resume`,
//! `debug`, `inspect`, `disasm`, `estimate`, `collect`, `slurm`, and lists the model providers
//! (`providers`).
//!
//! Every subcommand takes a plan either as bytecode (`.tbc`, loaded and
//! verified) or as source (`.tiss`, compiled in memory), told apart by the
//! `.tbc` magic number, not the file's name. Exit status: 0
//! success, 1 the plan failed, 2 usage error or a plan that does not compile
//! or bytecode or a snapshot that is invalid, corrupt or of an unsupported version, 3
//! suspended, 4 budget exceeded, 5 security violation, 70 internal error.

// The start-up of the standard library's runtime is skipped on Linux (see `main`).
#![cfg_attr(all(target_os = "linux", not(test)), no_main)]

use std::io::Write;
use std::path::{Path, PathBuf};
use tiss_support::cli::{self, ColorArg, FormatArg, write_stdout};
use tiss_support::io_message::io_message;
use tiss_support::shell::quote::shell_word;
use tisslang::codec::seal::names_container;

use clap::{Parser, Subcommand, ValueEnum};
use tiss_compiler::diagnostics::render::termcolor::StandardStream;
use tiss_compiler::diagnostics::render::{self, ErrorFormat};
use tiss_compiler::lower::LowerOptions;

use invalid::{Invalid, Refused};
use tiss_host::sandbox::{Profile, Sandbox};
use tisslang::module::{Module, Source};

mod checkpoint;
mod collect;
mod color;
mod debug;
mod estimate;
mod invalid;
mod libm_pow;
mod many;
mod options;
mod providers;
mod report_file;
mod resume;
mod run;
mod session;
mod shell_docs;
mod slurm;

/// mimalloc: the compiler and the VM allocate many small objects; glibc's
/// malloc spent about a quarter of a large compile in itself.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Exit statuses (SPEC §9).
/// This program's name, for messages.
const PROGRAM: &str = "tissvm";

mod status {
    pub const OK: u8 = 0;
    /// Bad arguments, or a plan that does not compile, or bytecode that is
    /// invalid, corrupt or of an unsupported version.
    pub const INVALID: u8 = 2;
    pub const SECURITY: u8 = 5;
    pub const INTERNAL: u8 = 70;
}

/// The TissLang VM: run a plan (`run`), review what it would do (`inspect`,
/// `run --dry-run`), or read its bytecode (`disasm`); continue a suspended
/// run from its snapshot (`resume`); step through it (`debug`); or compute
/// its static cost bounds without running it (`estimate`). Many plans run
/// at once with `run PLAN|DIR... -j N`, their reports merge with `collect`,
/// and `slurm` runs them on a Slurm cluster.
///
/// Every subcommand takes a plan as bytecode (`.tbc`, loaded and verified) or
/// as source (`.tiss`, compiled in memory), told apart by the `.tbc` magic
/// number, whatever the file's name.
#[derive(Parser)]
#[command(
    name = "tissvm",
    after_help = "Exit status: 0 success, 1 the plan failed, 2 usage error or a plan that does not \
                  compile or bytecode or a snapshot that is invalid, corrupt or of an unsupported version, \
                  3 suspended, 4 budget exceeded, 5 security violation, 70 internal error."
)]
struct Cli {
    #[command(flatten)]
    style: Style,

    #[command(subcommand)]
    command: Command,
}

/// The options every subcommand takes.
#[derive(clap::Args)]
struct Style {
    /// How to print compile errors of a `.tiss` plan (on stderr): rustc-style text, or one JSON object per line.
    #[arg(long, global = true, value_enum, default_value_t = FormatArg::Human, value_name = "FORMAT")]
    error_format: FormatArg,

    /// When to color human output (diagnostics, step lines, reports, inspect, estimate; never JSON or
    /// JUnit): `auto` colors only a terminal, and never when NO_COLOR is set.
    #[arg(long, global = true, value_enum, default_value_t = ColorArg::Auto, value_name = "WHEN")]
    color: ColorArg,
}

/// `tissvm run` alone: the same arguments as `Cli`'s `run`, but parsing them
/// builds only `run`'s part of the command tree, a third of a trivial run's
/// start-up otherwise (README, "Performance"). Used only when it accepts the
/// arguments; anything else (help, errors) goes through `Cli`, so what a user
/// sees is the same.
#[derive(Parser)]
#[command(name = "tissvm")]
struct RunOnly {
    #[command(flatten)]
    style: Style,

    #[command(subcommand)]
    command: RunCommand,
}

#[derive(Subcommand)]
enum RunCommand {
    Run(run::RunArgs),
}

impl From<RunOnly> for Cli {
    fn from(fast: RunOnly) -> Self {
        let RunCommand::Run(args) = fast.command;
        Cli { style: fast.style, command: Command::Run(args) }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum InspectFormat {
    Text,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Run a plan in a workspace and report the result.
    ///
    /// Text output prints a line per step as it finishes and, on failure, the
    /// report; JSON and JUnit reports go to stdout alone (progress to stderr).
    /// A human interaction without an answer, or Ctrl-C, suspends the run: a
    /// snapshot is written and the command that continues it printed (exit 3).
    ///
    /// Several plans, or a directory, run as many, up to -j at once, each in
    /// a fresh workspace: a line per plan as it ends, the reports of those
    /// that did not pass, the counts; the exit status is the worst plan's
    /// (5 > 4 > 1 > 3 > 0).
    Run(run::RunArgs),
    /// Continue a suspended run from its snapshot, exactly where it stopped.
    ///
    /// The snapshot carries the bytecode, and remembers the workspace and the
    /// run's options: --snapshot-dir, --log-file, the provider settings (the
    /// key's variable by name, never its value), --sandbox-profile, the
    /// command policy (its rules; only --policy or TISS_POLICY replaces it),
    /// --env-allow, --max-procs, --max-memory, --log-max-output and the
    /// budgets in force. A flag given here overrides the remembered one
    /// (--workdir the workspace); a --budget, --max-procs or --max-memory
    /// only lowers a cap, and a weaker --sandbox-profile is refused, unless
    /// --raise-budget. The output options
    /// (--output-format, --report, --color), --checkpoint and --answers
    /// are this command's own, not remembered.
    ///
    /// A snapshot is resumed once: its file records that it was, and what
    /// continued it, and resuming it again is refused unless --force, since
    /// the effects after it would run twice.
    ///
    /// The workspace a snapshot names is a claim, not an authority: it is
    /// used only if your snapshot key signed the snapshot
    /// ($TISS_SNAPSHOT_KEY_FILE, else $XDG_CONFIG_HOME/tisslang/snapshot.key
    /// or ~/.config/tisslang/snapshot.key, made with your first snapshot).
    /// Any other snapshot — another user's or machine's, or one changed
    /// since — needs --workdir, and its remembered options are not followed.
    /// A relative path, a system directory (/, /etc, /usr, /tmp, ...) and
    /// your home directory itself are refused whichever way they are named.
    /// The workspace used is printed before anything runs.
    Resume(resume::ResumeArgs),
    /// Print the plan's manifest for approval: every command, path, model and
    /// human interaction, budget, every flow of data from a model or a file
    /// (PROMPT_AGENT, READ) into a RUN, and the risk level with its reasons
    /// (high for each such flow, and for a RUN after a WRITE of model output);
    /// and the isolation its RUNs would get here (the sandbox profile's
    /// mechanisms in force, or what is missing for it).
    Inspect {
        /// The plan: source (`.tiss`), or bytecode (`.tbc`) if it starts with the `.tbc` magic, whatever its name.
        #[arg(value_name = "PLAN")]
        plan: PathBuf,
        #[arg(long, value_enum, default_value_t = InspectFormat::Text, value_name = "FORMAT")]
        output_format: InspectFormat,
        /// Also say what this command policy (a TOML file, as for `run`) decides
        /// for each command: run, deny, approve, or at run time for a command
        /// built from values.
        #[arg(long, value_name = "FILE")]
        policy: Option<PathBuf>,
        /// The sandbox profile to report on (default: TISS_SANDBOX_PROFILE,
        /// else `standard`), for a workspace in the current directory.
        #[arg(long, value_enum, value_name = "PROFILE")]
        sandbox_profile: Option<options::SandboxProfile>,
    },
    /// Print a readable listing of a plan's bytecode: header, constants, code
    /// with source lines, and every table (steps, tasks, handlers, manifest).
    ///
    /// A source plan is compiled in memory first; bytecode is loaded and verified.
    Disasm {
        /// The plan: source (`.tiss`), or bytecode (`.tbc`) if it starts with the `.tbc` magic, whatever its name.
        #[arg(value_name = "PLAN")]
        plan: PathBuf,
    },
    /// Print the plan's static cost bounds, [min, max] per dimension for each
    /// top-level step and in total, without running anything.
    ///
    /// Execution time of a RUN is its TIMEOUT, else the cost model: a built-in
    /// default ([0, 10m]), rules of a `--cost-model` file, or the durations
    /// recorded in earlier `--log-file`s (`--history`).
    Estimate(estimate::EstimateArgs),
    /// Step through a plan: breakpoints on lines and steps, step/next/continue,
    /// variables, LAST_RUN and COST, the call stack, the source, snapshots.
    ///
    /// The session starts paused before the first statement; `help` lists the
    /// commands. Commands come from the terminal, or one per line from stdin
    /// when it is not a terminal (end of input quits). Takes the options of
    /// `run` that fit a session: not `--output-format` (the session is text)
    /// nor `--snapshot-dir` (`save FILE` names its snapshot). Exit status: the
    /// plan's if it ran to its end, else 0.
    Debug(debug::DebugArgs),
    /// List the language-model providers, and the provider settings a run
    /// here would go by with where each came from: a flag, its TISS_*
    /// variable, ./tiss.toml's [provider] table or the default. The API key
    /// is never shown: only whether the variable named by api_key_env is set.
    Providers(providers::ProvidersArgs),
    /// Merge the plans' JSON reports that `tissvm run --report-dir DIR` wrote
    /// (from any number of shards, machines or Slurm tasks) into one report:
    /// a line per plan, the failures and the counts; the combined JSON; or
    /// JUnit, one testsuite per plan. Exit status: the worst plan's.
    Collect(collect::CollectArgs),
    /// Submit plans to Slurm as one job array (README, "Running on a cluster").
    Slurm(slurm::SlurmArgs),
    /// Print a shell completion script on stdout (e.g. `tissvm completions bash`).
    Completions {
        /// The shell to complete for.
        #[arg(value_enum, value_name = "SHELL")]
        shell: tiss_support::cli_docs::Shell,
    },
    /// Write man pages for tissvm and each subcommand into DIR (created if missing).
    Man {
        /// Where to write `tissvm.1`, `tissvm-run.1`, ...
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
}

// `cli::start` says what of the standard library's set-up it skips
// on Linux (`#![no_main]`) and what it keeps.
tiss_support::binary_main!(PROGRAM, run);

fn run() -> u8 {
    let fast = (std::env::args_os().nth(1).as_deref() == Some("run".as_ref()))
        .then(cli::parse_args_if_valid::<RunOnly>)
        .flatten()
        .map(Cli::from);
    let cli: Cli = match fast.map(Ok).unwrap_or_else(|| cli::parse_args(tisslang::version::LANGUAGE_VERSION))
    {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    color::choose(cli.style.color);
    let (format, color) = render::diagnostics_style(cli.style.error_format, cli.style.color);
    let mut out = Output { format, stderr: StandardStream::stderr(color) };
    match cli.command {
        Command::Disasm { plan } => disasm(&mut out, &plan),
        Command::Inspect { plan, output_format, policy, sandbox_profile } => {
            inspect(&mut out, &plan, output_format, policy.as_deref(), sandbox_profile)
        }
        Command::Estimate(args) => match estimate::model(&args).map_err(Refused::from) {
            Ok(model) => match load_plan(&mut out, &args.plan) {
                Ok(plan) => estimate::run(plan.module, &model, &args),
                Err(refused) => refused.report_analysis(args.json()),
            },
            Err(refused) => refused.report_analysis(args.json()),
        },
        Command::Run(args) if args.many.wanted(&args.plans) => many::run(&args),
        Command::Run(args) => match load_plan(&mut out, args.plan()) {
            Ok(plan) => run::run(plan.module, &args),
            Err(refused) => refused.report(&args.report),
        },
        Command::Resume(args) => resume::resume(&mut out, &args),
        Command::Debug(args) => match load_plan(&mut out, &args.plan) {
            Ok(plan) => debug::debug(plan.module, &args),
            Err(refused) => refused.status(),
        },
        Command::Providers(args) => providers::providers(&args),
        Command::Collect(args) => collect::collect(&args),
        Command::Slurm(args) => slurm::slurm(&args),
        Command::Completions { shell } => shell_docs::completions(shell),
        Command::Man { dir } => shell_docs::man(&dir),
    }
}

/// Where diagnostics go.
struct Output {
    format: ErrorFormat,
    stderr: StandardStream,
}

/// A plan ready for the machine: verified.
struct Plan {
    module: Module,
}

impl Plan {
    /// The content hash, computed only where it is shown or compared: it
    /// encodes and hashes the whole module, which a run does not need.
    fn hash(&self) -> String {
        tisslang::container::content_hash(&self.module)
    }
}

fn inspect(
    out: &mut Output,
    path: &Path,
    format: InspectFormat,
    policy: Option<&Path>,
    profile: Option<options::SandboxProfile>,
) -> u8 {
    let policy = match policy.map(tiss_vm::policy::file::read_policy_file).transpose() {
        Ok(policy) => policy,
        Err(e) => {
            eprintln!("tissvm: {e}");
            return status::INVALID;
        }
    };
    let profile = match profile.and_then(|p| p.to_possible_value()) {
        Some(given) => given.get_name().to_string(),
        None => match options::profile_from_env() {
            Ok(name) => name.unwrap_or_else(|| Profile::Standard.name().to_string()),
            Err(e) => {
                eprintln!("tissvm: {e}");
                return status::INVALID;
            }
        },
    };

    let plan = match load_plan(out, path) {
        Ok(plan) => plan,
        Err(refused) => return refused.report_analysis(matches!(format, InspectFormat::Json)),
    };
    let program = match tiss_vm::machine::program::Program::new(plan.module) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("tissvm: {}: {e}", path.display());
            return status::INVALID;
        }
    };
    // What RUN would get here: the mechanisms in force, or the refusal.
    let isolation = Profile::from_name(&profile).map(|p| {
        match Sandbox::prepare(p, Path::new("."), tiss_host::sandbox::Limits::default()) {
            Ok(sandbox) => (sandbox.isolation().clone(), None),
            Err(refusal) => (refusal.isolation(), Some(refusal.to_string())),
        }
    });
    let text = match format {
        InspectFormat::Text => {
            let mut text =
                tiss_vm::analysis::inspect::inspect_text(&program, policy.as_ref(), color::stdout());
            if let Some((isolation, refused)) = &isolation {
                text.push_str(&isolation.line());
                if let Some(why) = refused {
                    text.push_str(&format!("\n  refused: {why}"));
                }
                text.push('\n');
            }
            text
        }
        InspectFormat::Json => {
            let mut json = tiss_vm::analysis::inspect::inspect_json(&program, policy.as_ref());
            if let Some((isolation, _)) = &isolation {
                json["sandbox"] = isolation.json();
            }
            let mut text = serde_json::to_string_pretty(&json).unwrap_or_default();
            text.push('\n');
            text
        }
    };
    write_stdout(PROGRAM, &text, status::OK)
}

fn disasm(out: &mut Output, path: &Path) -> u8 {
    match load_plan(out, path) {
        Ok(plan) => {
            let source = tisslang::module::kept_source::find(&plan.module.source, Some(path));
            let listing = tisslang::disasm::disassemble_with_source(&plan.module, &plan.hash(), &source);
            write_stdout(PROGRAM, &listing, status::OK)
        }
        Err(refused) => refused.status(),
    }
}

/// Loads PLAN, whatever its name (SPEC §9): bytecode if it starts with the
/// `.tbc` magic, else source, compiled in memory. Either way the module is
/// verified. Errors are told on stderr here; the `Err` says what a report
/// says about them, and gives the exit status.
fn load_plan(out: &mut Output, path: &Path) -> Result<Plan, Refused> {
    let name = path.display().to_string();
    // Source or bytecode, nothing larger than the largest `.tbc` is read: a
    // larger source would not compile in memory either.
    let limit = tisslang::container::MAX_FILE;
    let bytes = tisslang::codec::seal::read_file(path, limit)
        .map_err(|e| Invalid::told(&name, format!("cannot read `{name}`: {}", io_message(&e))))?
        .map_err(|size| {
            Invalid::told(
                &name,
                format!("`{name}` is {size} bytes, larger than any plan tissvm reads (the limit is {limit})"),
            )
        })?;
    if names_container(&bytes, &tiss_vm::session::snapshot::MAGIC) {
        return Err(Invalid::told(
            &name,
            format!(
                "`{name}` is a snapshot, not a plan; continue it with `tissvm resume {}`",
                shell_word(&name)
            ),
        )
        .into());
    }
    // The magic's first four bytes name the container; the rest are
    // line-ending canaries, so a `.tbc` whose line endings were converted
    // is still bytecode, and the loader says what happened to it.
    let is_source = !names_container(&bytes, &tisslang::container::MAGIC);
    let module = if is_source {
        let (mut module, frontend) =
            match tiss_compiler::compile(&name, &bytes, LowerOptions { strip_source: false }) {
                Ok(compiled) => compiled,
                Err(frontend) => {
                    report(out, &frontend);
                    return Err(Invalid::from_frontend(&name, &frontend).into());
                }
            };
        report(out, &frontend);
        // The source is named by its file name alone, as `tissc compile` does,
        // so the listing does not depend on the directory it was run from.
        if let (Source::Embedded { name, .. }, Some(file)) = (&mut module.source, path.file_name()) {
            *name = file.to_string_lossy().into_owned();
        }
        if let Err(e) = tisslang::verify::verify(&module) {
            eprintln!(
                "tissvm: internal error: the compiler produced invalid bytecode for `{name}`: {e}\n\
                 This is a bug in the compiler, not in your plan; please report it with the plan."
            );
            return Err(Refused::Internal);
        }
        module
    } else {
        tisslang::container::load(&bytes).map_err(|e| Invalid::told(&name, format!("{name}: {e}")))?
    };
    Ok(Plan { module })
}

/// Prints a plan's diagnostics (warnings, or the errors that stop it).
fn report(out: &mut Output, frontend: &tiss_compiler::Frontend) {
    let _ = render::emit(&mut out.stderr, out.format, &frontend.file, &frontend.diagnostics);
    if out.format == ErrorFormat::Human {
        let _ = render::emit_summary(&mut out.stderr, "compile", &frontend.file.name, &frontend.diagnostics);
    }
    let _ = out.stderr.flush();
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// The fast parser of `run` (RunOnly) must read every argument list as
    /// the whole command tree reads it: the same arguments accepted, each
    /// with the same values from the same source.
    #[test]
    fn run_only_parses_as_the_whole_tree_does() {
        let argvs: &[&[&str]] = &[
            &["tissvm", "run", "a.tiss"],
            &["tissvm", "run", "a.tbc", "--color", "never", "--error-format", "json"],
            &["tissvm", "run", "a.tiss", "--output-format", "json", "--budget", "time=5s"],
            &["tissvm", "run", "a.tiss", "--provider", "openai", "--model", "m", "--max-retries", "0"],
            &["tissvm", "run", "--dry-run", "a.tiss", "--workdir", "ws", "--env-allow", "X"],
            &["tissvm", "run", "a.tiss", "--sandbox-profile", "none", "--snapshot-dir", "s"],
            &["tissvm", "run", "a.tiss", "--log-file", "l.jsonl", "--answers", "a.json"],
            &["tissvm", "run"],
            &["tissvm", "run", "a.tiss", "--no-such-flag"],
            &["tissvm", "run", "a.tiss", "--color", "sometimes"],
            &["tissvm", "run", "--help"],
            &["tissvm", "run", "a.tiss", "b.tiss"],
        ];
        for argv in argvs {
            let fast = RunOnly::command().try_get_matches_from(*argv);
            let full = Cli::command().try_get_matches_from(*argv);
            assert_eq!(fast.is_ok(), full.is_ok(), "{argv:?}");
            let (Ok(fast), Ok(full)) = (fast, full) else { continue };
            let (Some(("run", fast)), Some(("run", full))) = (fast.subcommand(), full.subcommand()) else {
                panic!("{argv:?}: not parsed as `run`");
            };
            let ids = |m: &clap::ArgMatches| m.ids().map(|id| id.as_str().to_owned()).collect::<Vec<_>>();
            assert_eq!(ids(fast), ids(full), "{argv:?}");
            for id in ids(full) {
                let raw = |m: &clap::ArgMatches| {
                    m.get_raw(&id).map(|values| values.map(|v| v.to_owned()).collect::<Vec<_>>())
                };
                assert_eq!(raw(fast), raw(full), "{argv:?}: {id}");
                assert_eq!(fast.value_source(&id), full.value_source(&id), "{argv:?}: {id}");
            }
        }
    }

    /// And they define the same arguments: a flag added to one is in the other.
    #[test]
    fn run_only_defines_the_same_arguments() {
        let describe = |mut command: clap::Command| {
            command.build();
            let run = command.find_subcommand("run").expect("a run subcommand");
            run.get_arguments()
                .map(|a| {
                    format!("{} {:?} {:?} {:?}", a.get_id(), a.get_long(), a.get_short(), a.get_num_args())
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(describe(RunOnly::command()), describe(Cli::command()));
    }
}
