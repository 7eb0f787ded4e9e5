//! `tissvm`: runs TissLang plans (book: cli/tissvm.md): `run` (of one plan, or many), `resume`,
//! `debug`, `inspect`, `disasm`, `estimate`, `collect`, `slurm`, and lists the model providers
//! (`providers`).
//!
//! The run logic is the library's (`tiss_vm::runner`); this binary parses
//! the command line (the flags: `args.rs`, `subcommands.rs`; what is passed
//! on to the runs it starts: `forward.rs`), maps it onto the runner's
//! option structs, calls the runner and exits with the status it returns.
//!
//! Every subcommand takes a plan either as bytecode (`.tbc`, loaded and
//! verified) or as source (`.tiss`, compiled in memory), told apart by the
//! `.tbc` magic number, not the file's name. Exit status: 0
//! success, 1 the plan failed, 2 usage error or a plan that does not compile
//! or bytecode or a snapshot that is invalid, corrupt or of an unsupported version, 3
//! suspended, 4 budget exceeded, 5 security violation, 70 internal error.

// The start-up of the standard library's runtime is skipped on Linux (see `main`).
#![cfg_attr(all(target_os = "linux", not(test)), no_main)]

use std::path::PathBuf;
use tiss_support::cli::{self, ColorArg, FormatArg};

use clap::{Parser, Subcommand, ValueEnum};
use tiss_compiler::diagnostics::render;
use tiss_compiler::diagnostics::render::termcolor::StandardStream;

use tiss_vm::runner::inspect::InspectOptions;
use tiss_vm::runner::plan::Diagnostics;
use tiss_vm::runner::{self, PROGRAM, color};

mod args;
mod forward;
mod libm_pow;
mod shell_docs;
mod subcommands;

/// mimalloc: the compiler and the VM allocate many small objects; glibc's
/// malloc spent about a quarter of a large compile in itself. Start-up's
/// allocations are packed in front of it (`start_arena`: fewer pages touched).
#[global_allocator]
static ALLOCATOR: tiss_support::start_arena::StartArena<mimalloc::MiMalloc> =
    tiss_support::start_arena::StartArena::new(mimalloc::MiMalloc);

/// The TissLang VM: run a plan (`run`), review what it would do (`inspect`,
/// `run --dry-run`), or read its bytecode (`disasm`); continue a suspended
/// run from its snapshot (`resume`); run it again from its journal
/// (`replay`); step through it (`debug`, or from an editor, `dap`); serve it
/// to an agent (`mcp`); or compute
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

    /// When to color human output: `auto` (a terminal, unless NO_COLOR is set), `always`, `never`.
    ///
    /// It colors diagnostics, step lines, reports, `inspect` and `estimate`, never JSON or JUnit;
    /// `auto` colors only a terminal, and never when NO_COLOR is set.
    #[arg(long, global = true, value_enum, default_value_t = ColorArg::Auto, value_name = "WHEN")]
    color: ColorArg,
}

/// `tissvm run` alone: the same arguments as `Cli`'s `run`, but parsing them
/// builds only `run`'s part of the command tree, a third of a trivial run's
/// start-up otherwise (book: performance.md). Used only when it accepts the
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
    Run(subcommands::RunArgs),
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
    #[command(
        after_help = "More options (restart from a journal; the model provider and its 18 settings): \
                      tissvm run --help",
        after_long_help = ""
    )]
    Run(subcommands::RunArgs),
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
    Resume(subcommands::ResumeArgs),
    /// Run a plan again from its journal alone (`run --journal FILE`): no
    /// process started, no file written, no model or human asked; the report
    /// is the recorded run's, byte for byte.
    ///
    /// The bytecode is the journal's, or PLAN's: a changed plan replays up to
    /// the first effect that differs from the journal and stops there,
    /// `diverged` (exit 1), naming the line, the step, and what was recorded
    /// against what the plan asks; --strict refuses any change (exit 2). An
    /// output the journal kept only in part stops the replay at the effect
    /// that needs it (exit 2); a corrupt journal is refused (exit 2), one cut
    /// short replays up to where it ends.
    Replay(subcommands::ReplayArgs),
    /// Print the plan's manifest for approval: every command, path, model and
    /// human interaction, each typed prompt (its type, the JSON Schema it
    /// sends, which of its fields reach which RUN), budget, every flow of data
    /// from a model or a file (PROMPT_AGENT, READ) into a RUN, and the risk level with its reasons
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
        /// built from values. Default, as for `run`: TISS_POLICY, else the
        /// [policy] table of ./tiss.toml.
        #[arg(long, value_name = "FILE")]
        policy: Option<PathBuf>,
        /// The sandbox profile to report on (default: TISS_SANDBOX_PROFILE,
        /// else `standard`), for a workspace in the current directory.
        #[arg(long, value_enum, value_name = "PROFILE")]
        sandbox_profile: Option<args::SandboxProfileArg>,
    },
    /// Print a readable listing of a plan's bytecode: header, constants, answer
    /// shapes, code with source lines, and every table (steps, tasks, handlers,
    /// prompts, manifest).
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
    Estimate(subcommands::EstimateArgs),
    /// Step through a plan: breakpoints on lines and steps, step/next/continue,
    /// variables, LAST_RUN and COST, the call stack, the source, snapshots.
    ///
    /// The session starts paused before the first statement; `help` lists the
    /// commands. Commands come from the terminal, or one per line from stdin
    /// when it is not a terminal (end of input quits). Takes the options of
    /// `run` that fit a session: not `--output-format` (the session is text)
    /// nor `--snapshot-dir` (`save FILE` names its snapshot). Exit status: the
    /// plan's if it ran to its end, else 0.
    Debug(subcommands::DebugArgs),
    /// Debug plans from an editor: a Debug Adapter Protocol server on stdin
    /// and stdout (VS Code, nvim-dap, Helix...).
    ///
    /// A client launches a plan (`plan`, `workdir`, `args` with further
    /// options of `run`, `stopOnEntry`, `journal`, `snapshotDir`) or attaches
    /// to a snapshot (`snapshot`, `workdir`); docs/src/cookbook/debugging.md shows the
    /// configurations. stdout carries only protocol messages; step lines go
    /// to stderr.
    Dap,
    /// Serve an agent over the Model Context Protocol on stdin and stdout:
    /// the tools check, lint, fix, inspect, estimate, run, replay and report.
    ///
    /// Plans, journals and workspaces given as paths must be under `--root`.
    /// Every run gets the options after `--` (e.g. `-- --sandbox-profile
    /// strict --policy policy.toml --budget API_CALLS=10`), which no tool call
    /// can change. Gates are asked of the human through the client
    /// (elicitation), never answered by the agent; docs/src/cookbook/agents.md shows
    /// client configurations.
    Mcp {
        /// The workspace root (default: the current directory).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        /// Options of `tissvm run` every run gets, after `--`.
        #[arg(last = true, value_name = "RUN-OPTIONS")]
        run_options: Vec<String>,
    },
    /// List the language-model providers, and the provider settings a run
    /// here would go by with where each came from: a flag, its TISS_*
    /// variable, ./tiss.toml's [provider] table or the default. The API key
    /// is never shown: only whether the variable named by api_key_env is set.
    Providers(subcommands::ProvidersArgs),
    /// Merge the plans' JSON reports that `tissvm run --report-dir DIR` wrote
    /// (from any number of shards, machines or Slurm tasks) into one report:
    /// a line per plan, the failures and the counts; the combined JSON; or
    /// JUnit, one testsuite per plan. Exit status: the worst plan's.
    Collect(subcommands::CollectArgs),
    /// Submit plans to Slurm as one job array.
    Slurm(subcommands::SlurmArgs),
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
    /// Print the book's command-line reference of tissvm (docs/src/cli/tissvm.md), or write it to FILE.
    #[command(name = tiss_support::cli_docs::MARKDOWN_REFERENCE, hide = true)]
    MarkdownReference {
        #[arg(value_name = "FILE")]
        file: Option<PathBuf>,
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
    let reporting = match &cli.command {
        Command::Run(args) => Some(&args.report),
        Command::Resume(args) => Some(&args.report),
        Command::Replay(args) => Some(&args.report),
        Command::Collect(args) => Some(&args.report),
        _ => None,
    };
    if reporting.is_some_and(|r| r.output_format == args::OutputFormatArg::Github)
        && let Err(e) = tiss_vm::report::github::stop_commands()
    {
        eprintln!(
            "tissvm: --output-format github: cannot keep the run's output from GitHub's command parser: {e}"
        );
        return runner::status::INVALID;
    }
    let out = &mut Diagnostics { format, stderr: StandardStream::stderr(color) };
    if reads_project_files(&cli.command) {
        // Before anything reads them: what an earlier run killed mid-way
        // left changed is put back first, and what a run going on may have
        // changed is read as it stood before it.
        runner::execute::project_file::settle_before_reading();
    }
    let code = match cli.command {
        Command::Disasm { plan } => runner::inspect::disasm(out, &plan),
        Command::Inspect { plan, output_format, policy, sandbox_profile } => {
            let json = matches!(output_format, InspectFormat::Json);
            let sandbox_profile = sandbox_profile.map(args::SandboxProfileArg::profile);
            runner::inspect::inspect(out, &InspectOptions { plan, json, policy, sandbox_profile })
        }
        Command::Estimate(args) => runner::estimate::run(out, &args.options()),
        Command::Run(args) => runner::run::run(out, &args.options()),
        Command::Resume(args) => runner::resume::resume(out, &args.options()),
        Command::Replay(args) => runner::replay::replay(out, &args.options()),
        Command::Debug(args) => runner::debug::debug(out, &args.options()),
        Command::Mcp { root, run_options } => subcommands::mcp(root, run_options),
        Command::Dap => tiss_vm::dap::serve(
            Box::new(std::io::stdin()),
            Box::new(std::io::stdout()),
            Box::new(subcommands::debug_options_from_words),
        ),
        Command::Providers(args) => runner::providers::providers(&args.provider),
        Command::Collect(args) => runner::many::collect::collect(&args.dir, &args.report.options()),
        Command::Slurm(args) => runner::many::slurm::slurm(&args.options()),
        Command::Completions { shell } => shell_docs::completions(shell),
        Command::Man { dir } => shell_docs::man(&dir),
        Command::MarkdownReference { file } => shell_docs::markdown_reference(file.as_deref()),
    };
    let _ = tiss_vm::report::github::resume_commands(&mut std::io::stdout().lock());
    code
}

/// Whether `command` reads a workspace's project, answers or policy files
/// (`./tiss.toml` above all), which a killed run may have left changed.
fn reads_project_files(command: &Command) -> bool {
    match command {
        Command::Run(_) | Command::Resume(_) | Command::Debug(_) | Command::Dap | Command::Mcp { .. } => true,
        Command::Inspect { .. } | Command::Estimate(_) | Command::Slurm(_) => true,
        Command::Disasm { .. } | Command::Replay(_) | Command::Providers(_) | Command::Collect(_) => false,
        Command::Completions { .. } | Command::Man { .. } | Command::MarkdownReference { .. } => false,
    }
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
