//! `tissc generate "GOAL"` and `tissc grammar` (book: guide/generate.md): the command line
//! around `tiss_compiler::generate` — the provider from the same flags,
//! variables and `tiss.toml` as `tissvm`'s, where the plan goes, stderr's
//! progress, `--output-format json`, and the exit status:
//!
//! - 0: a plan compiles (written atomically to `-o`, or printed on stdout);
//! - 1: no attempt compiled (the last one and its diagnostics saved as
//!   `NAME.rejected.tiss` beside `-o`), or a request to the model failed
//!   after its retries (`provider_error`, as for `tissvm`);
//! - 2: a usage error: bad flags or provider settings, an `-o` whose
//!   directory does not exist, the mock provider without `--mock-answers`
//!   (it can write no plan) — found before the model is asked.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde_json::json;
use tiss_compiler::diagnostics::render::{self, ErrorFormat};
use tiss_compiler::generate::{self, Attempt, Generation, Outcome, grammar};
use tiss_providers::settings::{self, Origin, ProviderFlags, ProviderSettings};
use tiss_support::atomic_write::write_atomically;
use tiss_support::cli::write_stdout;
use tiss_support::io_message::io_message;

use super::{PROGRAM, status};

#[derive(Args)]
pub struct GenerateArgs {
    /// What the plan should do, in words (e.g. "Write a Python script that prints hello, run it, check its
    /// output").
    #[arg(value_name = "GOAL")]
    goal: String,
    /// Where to write the plan once it compiles (atomically) [default: stdout]. When no attempt compiles, the
    /// last one, with its diagnostics as comments at its end, is saved beside it as NAME.rejected.tiss.
    #[arg(short = 'o', long = "output", value_name = "PLAN")]
    output: Option<PathBuf>,
    /// How many times a plan that does not compile goes back to the model with its diagnostics.
    #[arg(long, default_value_t = 3, value_name = "N")]
    max_repairs: u32,
    /// Send no grammar. By default the requests of `--provider completion` (llama.cpp's /completion) and
    /// `--provider openai` carry a GBNF grammar of plans (`tissc grammar`'s, stricter: pragmas, TASK, then
    /// steps of statements, few comments), so the model can only write plans that parse; an
    /// OpenAI-compatible server that refuses the field needs this flag.
    #[arg(long)]
    no_grammar: bool,
    /// `text`: progress on stderr, the plan on stdout when there is no -o. `json`: one object on stdout,
    /// {"status", "attempts": [{"plan", "fixes", "errors", "tokens"}], "plan", "usage", "output", "message"}.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text, value_name = "FORMAT")]
    output_format: OutputFormat,
    #[command(flatten)]
    provider: ProviderFlags,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OutputFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum GrammarFormat {
    /// llama.cpp's GBNF (`tissc generate` sends a stricter form of it).
    Gbnf,
    /// The same rules in W3C EBNF (the XML specification's notation).
    Ebnf,
}

pub fn grammar(format: GrammarFormat) -> u8 {
    let text = match format {
        GrammarFormat::Gbnf => grammar::GBNF.to_string(),
        GrammarFormat::Ebnf => grammar::ebnf(),
    };
    write_stdout(PROGRAM, &text, status::OK)
}

/// `format`: how the last attempt's diagnostics are shown on stderr when no
/// attempt compiles (`--error-format`).
pub fn generate(args: &GenerateArgs, format: ErrorFormat) -> u8 {
    if args.goal.trim().is_empty() {
        eprintln!(
            "{PROGRAM}: the goal is empty; say what the plan should do, e.g. tissc generate \"Run the tests\""
        );
        return status::USAGE;
    }
    let settings = match settings::from_process(&args.provider, ProviderSettings::default(), Origin::Default)
    {
        Ok(resolved) => resolved.settings,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return status::USAGE;
        }
    };
    // Cassettes hold the PROMPT_AGENT answers of a `tissvm run`, found by
    // their place in the run; a generation's conversation has none.
    if settings.provider == "replay" {
        eprintln!(
            "{PROGRAM}: the replay provider answers only the PROMPT_AGENTs of a recorded `tissvm run`; \
             generate with a live provider (openai, ollama, completion) or mock"
        );
        return status::USAGE;
    }
    if let Some(record) = &settings.record {
        eprintln!("{PROGRAM}: note: --record `{record}` is for `tissvm run`; tissc generate records nothing");
    }
    if let Some(output) = &args.output
        && let Err(e) = writable(output)
    {
        eprintln!("{PROGRAM}: cannot write the plan to `{}`: {e}", output.display());
        return status::USAGE;
    }
    // Unscripted, the mock answers every request with the prompt's echo,
    // which no attempt could turn into a plan.
    if settings.provider == "mock" && settings.mock_answers.is_none() {
        eprintln!(
            "{PROGRAM}: the mock provider (the default) has no answers, so it cannot write a plan; \
             name a model with --provider (openai, ollama or completion, e.g. --provider ollama --model \
             qwen2.5-coder), or script its answers with --provider mock --mock-answers FILE"
        );
        return status::USAGE;
    }
    let mut provider = match tiss_providers::build(&settings) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return status::USAGE;
        }
    };
    let plan_grammar = (!args.no_grammar && generate::sends_grammar(&settings)).then(grammar::plan_gbnf);
    let grammar = plan_grammar.as_deref();
    let name = args
        .output
        .as_deref()
        .and_then(Path::file_name)
        .map_or("plan.tiss".into(), |n| n.to_string_lossy().into_owned());
    eprintln!(
        "{PROGRAM}: asking {}{} for a plan{}",
        settings.provider,
        settings.model.as_deref().map(|m| format!(" ({m})")).unwrap_or_default(),
        if grammar.is_some() { ", constrained by the TissLang grammar" } else { "" }
    );
    let total = args.max_repairs.saturating_add(1);
    let mut progress = |n: u32, attempt: &Attempt| {
        let fixed = match attempt.fixes {
            0 => String::new(),
            1 => " (after 1 certain fix)".to_string(),
            k => format!(" (after {k} certain fixes)"),
        };
        match attempt.errors.len() {
            0 => eprintln!("{PROGRAM}: attempt {n} of {total}: compiles{fixed}"),
            1 => eprintln!("{PROGRAM}: attempt {n} of {total}: 1 error{fixed}"),
            k => eprintln!("{PROGRAM}: attempt {n} of {total}: {k} errors{fixed}"),
        }
    };
    let options =
        generate::Options { name: &name, max_repairs: args.max_repairs, grammar, progress: &mut progress };
    let generation = generate::generate(&args.goal, provider.as_mut(), options);
    finish(args, &name, grammar.is_some(), format, &generation)
}

/// How many of the last attempt's errors stderr shows (the rest are counted).
const SHOWN_ERRORS: usize = 10;

/// Writes what the generation came to, reports it, and gives the exit status.
fn finish(
    args: &GenerateArgs,
    name: &str,
    grammar_sent: bool,
    format: ErrorFormat,
    generation: &Generation,
) -> u8 {
    let json = args.output_format == OutputFormat::Json;
    let (status_word, mut code, message) = match &generation.outcome {
        Outcome::Compiled => ("compiled", status::OK, None),
        Outcome::Rejected => ("rejected", status::COMPILE_ERRORS, None),
        Outcome::ProviderFailed(m) => ("provider_error", status::COMPILE_ERRORS, Some(m.as_str())),
    };
    if let Some(message) = message {
        let hint = if grammar_sent && message.contains("grammar") {
            "\nThe server may not take a GBNF grammar: try again with --no-grammar."
        } else {
            ""
        };
        eprintln!("{PROGRAM}: the model could not be asked: {message}{hint}");
    }
    let mut written = None;
    match (&generation.outcome, generation.last_plan()) {
        (Outcome::Compiled, Some(plan)) => match &args.output {
            Some(output) => match write_atomically(output, plan.as_bytes(), None) {
                Ok(()) => {
                    eprintln!("{PROGRAM}: wrote `{}`", output.display());
                    written = Some(output.clone());
                }
                Err(e) => {
                    eprintln!("{PROGRAM}: cannot write `{}`: {}", output.display(), io_message(&e));
                    code = status::USAGE;
                }
            },
            None if !json => code = write_stdout(PROGRAM, plan, code),
            None => {}
        },
        (_, Some(plan)) => {
            let frontend = tiss_compiler::frontend(name, plan.as_bytes());
            let errors: Vec<_> = frontend.diagnostics.iter().filter(|d| d.is_error()).cloned().collect();
            let report = render::human_to_string(&frontend.file, &errors);
            if !json && message.is_none() {
                match format {
                    // The first errors show what is wrong; an answer that is no plan has hundreds.
                    ErrorFormat::Human if errors.len() > SHOWN_ERRORS => {
                        eprint!("{}", render::human_to_string(&frontend.file, &errors[..SHOWN_ERRORS]));
                        let all_in = match &args.output {
                            Some(output) => format!("all in `{}`", rejected_path(output).display()),
                            None => "all with --output-format json or -o".to_string(),
                        };
                        eprintln!("{PROGRAM}: … and {} more errors, {all_in}", errors.len() - SHOWN_ERRORS);
                    }
                    ErrorFormat::Human => eprint!("{report}"),
                    ErrorFormat::Json => {
                        for d in &errors {
                            eprintln!("{}", render::json_line(&frontend.file, d));
                        }
                    }
                }
                eprintln!(
                    "{PROGRAM}: no plan compiled after {} attempts (--max-repairs {})",
                    generation.attempts.len(),
                    args.max_repairs
                );
            }
            if let Some(output) = &args.output {
                let rejected = rejected_path(output);
                let text = with_report(plan, &report, generation.attempts.len());
                match write_atomically(&rejected, text.as_bytes(), None) {
                    Ok(()) => {
                        eprintln!(
                            "{PROGRAM}: the last attempt and its diagnostics are in `{}`",
                            rejected.display()
                        );
                        written = Some(rejected);
                    }
                    Err(e) => {
                        eprintln!("{PROGRAM}: cannot write `{}`: {}", rejected.display(), io_message(&e))
                    }
                }
            }
        }
        (_, None) => {}
    }
    if json {
        let attempts: Vec<_> = generation
            .attempts
            .iter()
            .map(|a| json!({"plan": a.plan, "fixes": a.fixes, "errors": a.errors, "tokens": a.tokens}))
            .collect();
        let report = json!({
            "status": status_word,
            "attempts": attempts,
            "plan": generation.last_plan(),
            "usage": {"requests": generation.requests, "tokens": generation.tokens, "estimated": generation.estimated},
            "output": written.as_ref().map(|p| p.display().to_string()),
            "message": message,
        });
        return write_stdout(PROGRAM, &format!("{report}\n"), code);
    }
    code
}

/// `plan.tiss` → `plan.rejected.tiss`, beside it.
fn rejected_path(output: &Path) -> PathBuf {
    let stem = output.file_stem().map_or("plan".into(), |s| s.to_string_lossy().into_owned());
    output.with_file_name(format!("{stem}.rejected.tiss"))
}

/// The plan with the compiler's report after it as comments, so its line
/// numbers still hold.
fn with_report(plan: &str, report: &str, attempts: usize) -> String {
    let mut text = plan.to_string();
    text.push_str(&format!("\n# tissc generate: this plan, attempt {attempts}, does not compile:\n"));
    for line in report.lines() {
        text.push_str(if line.is_empty() { "#" } else { "# " });
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// Whether a plan can be written at `output`: its directory exists and it
/// is not a directory itself.
fn writable(output: &Path) -> Result<(), String> {
    let dir = tiss_support::atomic_write::parent_of(output);
    if !dir.is_dir() {
        return Err(format!("the directory `{}` does not exist", dir.display()));
    }
    if output.is_dir() || output.file_name().is_none() {
        return Err("it is a directory; give a file name such as plan.tiss".into());
    }
    Ok(())
}
