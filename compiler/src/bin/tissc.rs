//! `tissc`: the TissLang compiler's command line (book: cli/tissc.md).
//!
//! Exit status: 0 success, 1 compile errors, 2 usage errors (bad arguments, an
//! unreadable input file, bytecode given where source is read (a file is
//! source unless it starts with the `.tbc` magic), an unwritable output file, an unknown code for
//! `explain`, an unknown TYPE for `schema`, a `.tbc` that is invalid, corrupt or of an unsupported version),
//! 70 internal errors. Diagnostics go to stderr in either `--error-format`;
//! stdout carries only what a command produces (the AST JSON, an explanation,
//! a listing).

// The start-up of the standard library's runtime is skipped on Linux (see `main`).
#![cfg_attr(all(target_os = "linux", not(test)), no_main)]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use tiss_support::cli::{self, ColorArg, FormatArg, write_stdout};
use tiss_support::io_message::io_message;
use tiss_support::shell::quote::shell_word;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use tiss_compiler::diagnostics::render::termcolor::BufferedStandardStream;
use tiss_compiler::diagnostics::render::{self, ErrorFormat};
use tiss_compiler::diagnostics::{codes, explain};
use tiss_compiler::syntax::ast_json_stream;
use tiss_compiler::{Frontend, KeepSource};
use tiss_support::cli_docs::{self, Shell};
use tisslang::module::kept_source::Source;

#[path = "tissc/fix.rs"]
mod fix;
#[path = "tissc/fmt.rs"]
mod fmt;
#[path = "tissc/generate.rs"]
mod generate;
#[path = "tissc/lint.rs"]
mod lint;
#[path = "tissc/lsp.rs"]
mod lsp;
#[path = "tissc/memory.rs"]
mod memory;
#[path = "tissc/report.rs"]
mod report;
#[path = "tissc/timings.rs"]
mod timings;
use timings::Timings;

/// mimalloc: the compiler and the VM allocate many small objects; glibc's
/// malloc spent about a quarter of a large compile in itself.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// This program's name, for messages.
const PROGRAM: &str = "tissc";

mod status {
    pub const OK: u8 = 0;
    pub const COMPILE_ERRORS: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const INTERNAL: u8 = 70;

    /// The exit statuses as the book's command-line reference tells them.
    pub const TOLD: &[(u8, &str)] = &[
        (
            OK,
            "Success: no errors (warnings allowed); for `fmt --check`, every plan is formatted; for \
              `generate`, a plan compiles; for `lsp`, `exit` after `shutdown`.",
        ),
        (
            COMPILE_ERRORS,
            "A plan has errors (reported on stderr); for `lint --deny-warnings`, warnings too; for \
              `fmt --check`, a plan that is not formatted; for `fix`, errors remain; for `generate`, no plan \
              compiled, or the model could not be asked; for `lsp`, `exit` without `shutdown`, or the input ended.",
        ),
        (
            USAGE,
            "Usage error: bad arguments, an input file that cannot be read, bytecode given where plan source \
              is read, an output file that cannot be written, an unknown code for `explain`, an unknown TYPE for \
              `schema`, or a `.tbc` that is invalid, corrupt or of an unsupported version.",
        ),
        (
            INTERNAL,
            "Internal error, a bug in tissc (for `fmt`, the formatter failing its own checks, E0900).",
        ),
    ];
}

#[derive(Parser)]
#[command(
    name = "tissc",
    about = "The TissLang compiler: check and compile plans, disassemble bytecode, print syntax trees, \
             explain error codes, print the grammar or a type's JSON Schema, have a language model write a plan",
    after_help = "Exit status: 0 success, 1 compile errors (for generate: no plan compiled, or the model could \
                  not be asked), 2 usage error (or a .tbc that is invalid, corrupt or of an unsupported version), \
                  70 internal error."
)]
struct Cli {
    /// How to print diagnostics (on stderr): rustc-style text, or one JSON object per line.
    #[arg(long, global = true, value_enum, default_value_t = FormatArg::Human, value_name = "FORMAT")]
    error_format: FormatArg,

    /// When to color human diagnostics: `auto` colors only a terminal, and never when NO_COLOR is set.
    #[arg(long, global = true, value_enum, default_value_t = ColorArg::Auto, value_name = "WHEN")]
    color: ColorArg,

    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum Emit {
    /// The plan's items as JSON: objects with `type`, their arguments and `span`.
    AstJson,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and check plans, reporting every diagnostic of every file (lint warnings included).
    Check {
        /// The plans to check (`.tiss`).
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Besides the diagnostics on stderr: `github` (an annotation per diagnostic on stdout, and a
        /// summary appended to the file GITHUB_STEP_SUMMARY names) or `sarif` (a SARIF 2.1.0 log on
        /// stdout, for code scanning).
        #[arg(long, value_enum, default_value_t = report::ReportFormat::Text, value_name = "FORMAT")]
        output_format: report::ReportFormat,
    },
    /// Parse and check a plan and print its syntax tree on stdout.
    ///
    /// Nothing is printed on stdout if the plan has errors; the diagnostics go
    /// to stderr and the exit status is 1.
    Parse {
        /// The plan to parse (`.tiss`).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// What to print.
        #[arg(long, value_enum, default_value_t = Emit::AstJson, value_name = "KIND")]
        emit: Emit,
    },
    /// Compile a plan to bytecode (`.tbc`).
    ///
    /// Identical source gives byte-identical bytecode. If the plan has errors,
    /// the diagnostics go to stderr, nothing is written and the exit status
    /// is 1. The output file is replaced atomically (a temporary file in the
    /// same directory, then put in its place), so it is never left half-written.
    Compile {
        /// The plan to compile (`.tiss`).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Where to write the bytecode [default: FILE with the extension `.tbc`].
        #[arg(short = 'o', long = "output", value_name = "OUT")]
        output: Option<PathBuf>,
        /// Keep the source text in the bytecode, so that listings and the
        /// debugger show it wherever the file goes. By default only a hash of
        /// it is kept: they show the `.tiss` beside the `.tbc` while its text
        /// has that hash.
        #[arg(long, conflicts_with = "strip")]
        embed_source: bool,
        /// Keep nothing of the source, not even its hash: listings and the
        /// debugger show line numbers without the lines.
        #[arg(long)]
        strip: bool,
        /// Verify the bytecode as `tissvm` does when it loads it (every jump,
        /// index and stack effect, the type of every value on every path,
        /// steps and handlers balanced), and write nothing if it fails: exit
        /// status 70, a bug in tissc. Without it the VM still verifies every
        /// module before running any of it; this finds such a bug at compile
        /// time, for up to a sixth more of the compile's time.
        #[arg(long)]
        verify: bool,
        /// Print on stderr, once done, how long each phase took (read, parse,
        /// check, lower, verify with --verify, write), the page faults it
        /// caused (memory touched for the first time) and the memory resident
        /// after it, with the process's peak.
        #[arg(long)]
        timings: bool,
    },
    /// Print a readable listing of a bytecode file: header, constants, strings,
    /// slots, answer shapes, the code with its source lines, and every table.
    ///
    /// The file is loaded as the VM loads it (checksum, versions, verifier); one
    /// that fails is refused with exit status 2.
    Disasm {
        /// The bytecode file (`.tbc`).
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
    /// Print the long explanation of a diagnostic code (e.g. `tissc explain E0101`).
    Explain {
        /// The code, as printed in a diagnostic (`E0101`).
        #[arg(value_name = "CODE", required_unless_present = "list")]
        code: Option<String>,
        /// List every code with its one-line title.
        #[arg(long, conflicts_with = "code")]
        list: bool,
    },
    /// Print the grammar of TissLang: GBNF (`generate` sends llama.cpp a stricter form) or W3C EBNF.
    ///
    /// It accepts every plan the parser accepts, and a little more (names
    /// that are reserved words, words written together, a heredoc ended by
    /// another tag, `{{name}}` in strings), which the compiler refuses.
    Grammar {
        /// `gbnf` (llama.cpp's grammar format) or `ebnf` (W3C EBNF).
        #[arg(long, value_enum, default_value_t = generate::GrammarFormat::Gbnf, value_name = "FORMAT")]
        format: generate::GrammarFormat,
    },
    /// Print the JSON Schema of a plan's `TYPE`: what a
    /// `PROMPT_AGENT … INTO x AS TYPE` asks the model's answer to keep to.
    ///
    /// It is the schema the VM sends the provider, pretty-printed. A plan
    /// with errors gets its diagnostics and exit status 1; a TYPE the plan
    /// does not define is a usage error (exit status 2) naming the nearest
    /// ones it does.
    Schema {
        /// The plan (`.tiss`).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// The name of a `TYPE` the plan defines.
        #[arg(value_name = "TYPE")]
        type_name: String,
    },
    /// Have a language model write a plan for GOAL, compile it, and send its
    /// diagnostics back until it compiles.
    ///
    /// The model is told a compact language reference and an example; the
    /// plan is taken from its answer (a Markdown fence is stripped), given
    /// the certain fixes of `tissc fix` and compiled; on errors the JSON diagnostics go back to it with its plan,
    /// up to --max-repairs times. Each attempt and its error count are shown
    /// on stderr, and of the last attempt's errors the first 10 (the rest
    /// counted). The provider is chosen as for `tissvm run` (flags, TISS_*
    /// variables, ./tiss.toml [provider]); the default, mock, needs
    /// --mock-answers (unscripted it can write no plan, and is refused).
    /// Exit status: 0 a plan compiles (written to -o, or printed); 1 none
    /// did (the last attempt saved as NAME.rejected.tiss beside -o) or the
    /// model could not be asked (a provider error, after its retries); 2 a
    /// usage error.
    Generate(Box<generate::GenerateArgs>),
    /// Rewrite plans in the canonical layout (4-space indentation, one
    /// statement per line); comments, strings and heredoc bodies are kept.
    ///
    /// A file is rewritten (atomically) only if its layout changes; `-` or no
    /// FILE formats stdin to stdout. With --check or --diff nothing is
    /// written. A plan with syntax errors is left as it is. Exit status: 0
    /// done (or, with --check, every plan is formatted); 1 syntax errors, or
    /// with --check a plan that is not formatted; 2 a usage error; 70 the
    /// formatter failed its own checks (E0900, a bug).
    Fmt(fmt::FmtArgs),
    /// Print a shell completion script on stdout (e.g. `tissc completions bash`).
    Completions {
        /// The shell to complete for.
        #[arg(value_enum, value_name = "SHELL")]
        shell: Shell,
    },
    /// Write man pages for tissc and each subcommand into DIR (created if missing).
    Man {
        /// Where to write `tissc.1`, `tissc-check.1`, ...
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// Check plans and warn about likely mistakes (W0001-W0008; `tissc explain W0001`).
    ///
    /// The warnings: unused variables, RUN results nothing checks, RUNs without TIMEOUT, risky
    /// commands, prompts without a TOKEN_COUNT or API_CALLS budget, constant conditions, step
    /// names used twice, model or file data flowing into RUN. A plan with errors gets only its
    /// errors. Exit status: 0 no errors (warnings allowed), 1 errors, or warnings with --deny-warnings,
    /// 2 a file that cannot be read.
    Lint(lint::LintArgs),
    /// Apply every certain fix (a suggestion marked `"applicability": "machine"`), check again, and repeat
    /// until none is left; print each change as `FILE:LINE: OLD → NEW`.
    ///
    /// The file is replaced atomically, and only if the fixed plan compiles (or with --partial); what is
    /// still wrong is reported on stderr. Exit status: 0 every plan compiles now, 1 some plan still has
    /// errors, 2 a file could not be read or written.
    Fix(fix::FixArgs),
    Lsp(lsp::LspArgs),
    /// Print the book's command-line reference of tissc (docs/src/cli/tissc.md), or write it to FILE.
    #[command(name = tiss_support::cli_docs::MARKDOWN_REFERENCE, hide = true)]
    MarkdownReference {
        #[arg(value_name = "FILE")]
        file: Option<PathBuf>,
    },
}

/// Everything a command needs to report.
struct Output {
    format: ErrorFormat,
    /// Buffered: unbuffered, every piece of a rendered diagnostic was its own
    /// `write` (a plan with 3,000 warnings spent half of `tissc check` in
    /// them). Flushed after each report, so messages printed directly
    /// (`eprintln!`) keep their order; dropped, and so flushed, when `run`
    /// returns.
    stderr: BufferedStandardStream,
}

impl Output {
    fn report(&mut self, verb: &str, frontend: &Frontend) {
        let file = &frontend.file;
        let diagnostics = &frontend.diagnostics;
        // Nothing to say; the human renderer would still index every line.
        if diagnostics.is_empty() {
            return;
        }
        // A failed write to stderr leaves nothing better to do than carry on.
        let _ = render::emit(&mut self.stderr, self.format, file, diagnostics);
        if self.format == ErrorFormat::Human {
            let _ = render::emit_summary(&mut self.stderr, verb, &file.name, diagnostics);
        }
        let _ = self.stderr.flush();
    }
}

// `cli::start` says what of the standard library's set-up it skips
// on Linux (`#![no_main]`) and what it keeps.
tiss_support::binary_main!(PROGRAM, run);

fn run() -> u8 {
    let cli: Cli = match cli::parse_args(tisslang::version::LANGUAGE_VERSION) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let (format, color) = render::diagnostics_style(cli.error_format, cli.color);
    let mut out = Output { format, stderr: BufferedStandardStream::stderr(color) };
    match cli.command {
        Command::Check { files, output_format } => check(&mut out, &files, output_format),
        Command::Parse { file, emit: Emit::AstJson } => parse(&mut out, &file),
        Command::Compile { file, output, embed_source, strip, verify, timings } => {
            let keep = match (embed_source, strip) {
                (true, _) => KeepSource::Text,
                (false, true) => KeepSource::Nothing,
                (false, false) => KeepSource::Hash,
            };
            compile(&mut out, &file, output.as_deref(), keep, verify, Timings::new(timings))
        }
        Command::Disasm { file } => disasm(&file),
        Command::Explain { code, list } => explain(code.as_deref(), list),
        Command::Grammar { format } => generate::grammar(format),
        Command::Schema { file, type_name } => schema(&mut out, &file, &type_name),
        Command::Generate(args) => generate::generate(&args, format),
        Command::Fmt(args) => fmt::fmt(&mut out, &args),
        Command::Completions { shell } => {
            write_stdout(PROGRAM, &cli_docs::completions(Cli::command(), shell), status::OK)
        }
        Command::Man { dir } => man(&dir),
        Command::Lint(args) => lint::lint(&mut out, &args),
        Command::Fix(args) => fix::fix(&mut out, &args),
        Command::Lsp(args) => lsp::lsp(&args),
        Command::MarkdownReference { file } => markdown_reference(file.as_deref()),
    }
}

/// `tissc __markdown-reference [FILE]`: docs/src/cli/tissc.md, which
/// compiler/tests/cli/cli_docs.rs holds to this definition.
fn markdown_reference(file: Option<&Path>) -> u8 {
    let page = cli_docs::Page {
        generated_by: "cargo run -p tiss-compiler --bin tissc -- __markdown-reference docs/src/cli/tissc.md",
        exit_statuses: status::TOLD,
        exit_note: None,
    };
    let command = cli::command::<Cli>(tisslang::version::LANGUAGE_VERSION);
    cli_docs::write_markdown_reference(PROGRAM, command, &page, file)
}

fn man(dir: &Path) -> u8 {
    match cli_docs::write_man_pages(Cli::command(), dir) {
        Ok(_) => status::OK,
        Err(e) => {
            eprintln!("tissc: cannot write man pages into `{}`: {}", dir.display(), io_message(&e));
            status::USAGE
        }
    }
}

fn check(out: &mut Output, files: &[PathBuf], format: report::ReportFormat) -> u8 {
    let mut reports = report::Reports::new(format);
    let mut code = status::OK;
    for (i, path) in files.iter().enumerate() {
        let Some(mut frontend) = load(path) else {
            code = code.max(status::USAGE);
            continue;
        };
        tiss_compiler::lint::add_warnings(&mut frontend);
        reports.add(out, "check", &frontend);
        if frontend.has_errors() {
            code = code.max(status::COMPILE_ERRORS);
        }
        // The process ends after the last file: freeing its tree node by
        // node would only cost time (2-3% of checking a large plan).
        if i + 1 == files.len() {
            std::mem::forget(frontend);
        }
    }
    reports.finish("check", code)
}

fn parse(out: &mut Output, path: &Path) -> u8 {
    let Some(frontend) = load(path) else {
        return status::USAGE;
    };
    out.report("parse", &frontend);
    if frontend.has_errors() {
        return status::COMPILE_ERRORS;
    }
    // Streamed: the tree as one JSON value (then a string) was 877 MiB
    // for 200,000 statements.
    let stdout = std::io::stdout().lock();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout);
    let written = ast_json_stream::write(&mut out, &frontend.file, &frontend.plan)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    match written {
        Ok(()) => status::OK,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => status::OK,
        Err(e) => {
            eprintln!("{PROGRAM}: cannot write to stdout: {}", io_message(&e));
            status::USAGE
        }
    }
}

/// What tissc says, and its exit status, when the verifier refuses the
/// module it compiled: a plan too large for a module to hold is the plan's
/// to change; anything else is a bug in tissc.
fn refused_output(name: &str, error: &tisslang::verify::VerifyError) -> (String, u8) {
    match error {
        tisslang::verify::VerifyError::CodeTooLong { len } => (
            format!(
                "tissc: `{name}` compiles to {len} instructions, more than a module holds (fewer than {}); \
                 split it into plans that run one after another",
                tisslang::verify::MAX_CODE
            ),
            status::COMPILE_ERRORS,
        ),
        e => (
            format!(
                "tissc: internal error: the compiler produced invalid bytecode for `{name}`: {e}\n\
                 This is a bug in tissc, not in your plan; please report it with the plan."
            ),
            status::INTERNAL,
        ),
    }
}

/// What is checked of the module `tissc compile` made before it is written.
/// The VM verifies every module it loads and runs none that fails, so a
/// fault of the compiler cannot run; `--verify` finds one here, before the
/// file is written, for 7-16% of a large compile's time (book:
/// performance.md; clang's release builds likewise leave LLVM's verifier
/// off unless given -fverify-intermediate-code). A plan too large for a
/// module is refused either way.
fn checked_output(
    module: &tisslang::module::Module,
    verify: bool,
) -> Result<(), tisslang::verify::VerifyError> {
    match verify {
        true => tisslang::verify::verify(module).map(drop),
        false => tisslang::verify::within_limits(module),
    }
}

fn compile(
    out: &mut Output,
    path: &Path,
    output: Option<&Path>,
    keep: KeepSource,
    verify: bool,
    mut timings: Timings,
) -> u8 {
    let name = path.display().to_string();
    let target = output.map_or_else(|| path.with_extension("tbc"), Path::to_path_buf);
    if same_file(path, &target) {
        eprintln!(
            "tissc: the output `{}` is the input file; choose another with `-o OUT.tbc`",
            target.display()
        );
        return status::USAGE;
    }
    #[cfg(target_os = "linux")]
    memory::small_pages();
    let Some(bytes) = read_source(path) else {
        return status::USAGE;
    };
    timings.mark("read");
    // The bytes become the source text, which moves into the module: the
    // plan is never copied, and its tree is freed before encoding.
    let frontend = tiss_compiler::frontend_to_lower(&name, bytes, &mut || timings.mark("parse"));
    out.report("compile", &frontend);
    timings.mark("check");
    if frontend.has_errors() {
        timings.print(&name);
        return status::COMPILE_ERRORS;
    }
    memory::return_freed_pages();
    memory::give_back();
    let mut module = frontend.into_module(keep);
    // The embedded source is named by its file name alone: where the plan was
    // compiled from must not change the bytes.
    if let (Source::Embedded { name, .. }, Some(file)) = (&mut module.source, path.file_name()) {
        *name = file.to_string_lossy().into_owned();
    }
    memory::give_back();
    timings.mark("lower");
    let checked = checked_output(&module, verify);
    if verify {
        timings.mark("verify");
    }
    if let Err(e) = checked {
        let (message, code) = refused_output(&name, &e);
        eprintln!("{message}");
        timings.print(&name);
        return code;
    }
    // Encoded straight into the file: the bytecode is never held in memory.
    // Replaced atomically but not synced, as compilers do: the file can be
    // made again, and a damaged one is refused by its checksum. A target
    // that cannot seek back to the header (`-o /dev/stdout` into a pipe)
    // is given bytes made in memory first.
    let written = tiss_support::atomic_write::replace_rebuildable(&target, None, |file| {
        use std::io::Seek;
        match file.stream_position() {
            Ok(_) => tisslang::container::encode_to(&module, file),
            Err(_) => tisslang::container::encode_to_stream(&module, file),
        }
    });
    // The process ends next: freeing the module block by block would only
    // cost time (and, with freed pages returned at once, system calls).
    std::mem::forget(module);
    timings.mark("write");
    timings.print(&name);
    match written {
        Ok(()) => status::OK,
        Err(e) => match e.get_ref().and_then(|e| e.downcast_ref::<tisslang::container::LoadError>()) {
            Some(tisslang::container::LoadError::TooLarge { size, limit }) => {
                eprintln!(
                    "tissc: `{name}` compiles to {size} bytes of bytecode, over the {limit}-byte limit of a \
                     .tbc file; split the plan into smaller plans"
                );
                status::COMPILE_ERRORS
            }
            _ => {
                eprintln!("tissc: cannot write `{}`: {}", target.display(), io_message(&e));
                status::USAGE
            }
        },
    }
}

/// Do `a` and `b` name the same file (textually, or once resolved)?
fn same_file(a: &Path, b: &Path) -> bool {
    a == b || matches!((fs::canonicalize(a), fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
}

fn disasm(path: &Path) -> u8 {
    let name = path.display().to_string();
    let bytes = match tisslang::container::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("tissc: cannot read `{name}`: {}", io_message(&e));
            return status::USAGE;
        }
    };
    match tisslang::container::load(&bytes) {
        Ok(module) => {
            let hash = tisslang::container::content_hash(&module);
            let source = tisslang::module::kept_source::find(&module.source, Some(path));
            write_stdout(
                PROGRAM,
                &tisslang::disasm::disassemble_with_source(&module, &hash, &source),
                status::OK,
            )
        }
        Err(e) => {
            eprintln!("tissc: {name}: {e}");
            status::USAGE
        }
    }
}

/// `tissc schema FILE TYPE`: the schema as the VM sends it, pretty-printed.
fn schema(out: &mut Output, path: &Path, name: &str) -> u8 {
    let Some(frontend) = load(path) else {
        return status::USAGE;
    };
    out.report("compile", &frontend);
    if frontend.has_errors() {
        return status::COMPILE_ERRORS;
    }
    match tiss_compiler::check::type_schema(&frontend.plan, name) {
        Ok(schema) => {
            let text = serde_json::to_string_pretty(&schema).unwrap_or_default();
            write_stdout(PROGRAM, &format!("{text}\n"), status::OK)
        }
        Err(e) => {
            eprintln!("tissc: {}", e.message(name, &path.display().to_string()));
            match e {
                tiss_compiler::check::TypeSchemaError::Unknown { .. } => status::USAGE,
                tiss_compiler::check::TypeSchemaError::TooLarge => status::COMPILE_ERRORS,
            }
        }
    }
}

fn explain(code: Option<&str>, list: bool) -> u8 {
    if list {
        let mut text = String::new();
        for (code, title) in codes::ALL {
            text.push_str(&format!("{code}  {title}\n"));
        }
        return write_stdout(PROGRAM, &text, status::OK);
    }
    let code = code.unwrap_or_default();
    match explain::lookup(code) {
        Some((_, _, text)) => {
            let newline = if text.ends_with('\n') { "" } else { "\n" };
            write_stdout(PROGRAM, &format!("{text}{newline}"), status::OK)
        }
        None => {
            eprintln!("tissc: {}", explain::unknown_code_text(code));
            status::USAGE
        }
    }
}

/// Reads and checks one plan; an unreadable file or bytecode is reported as
/// a usage error.
fn load(path: &Path) -> Option<Frontend> {
    let bytes = read_source(path)?;
    Some(tiss_compiler::frontend_owned(&path.display().to_string(), bytes))
}

/// Reads a plan's source. A file is source whatever its name unless it starts
/// like a `.tbc` (book: cli/tissc.md): bytecode is named as such, never read as text;
/// neither is an unreadable file. Both are reported here.
fn read_source(path: &Path) -> Option<Vec<u8>> {
    let name = path.display().to_string();
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("tissc: cannot read `{name}`: {}", io_message(&e));
            return None;
        }
    };
    if tisslang::codec::seal::names_container(&bytes, &tisslang::container::MAGIC) {
        eprintln!(
            "tissc: `{name}` is compiled bytecode, not plan source; use `tissc disasm {}` to read it",
            shell_word(&name)
        );
        return None;
    }
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tisslang::verify::VerifyError;

    /// `--verify` refuses a module the VM would refuse, which a plain compile
    /// writes (the VM then refuses it at load); the limits hold either way.
    #[test]
    fn only_verify_checks_the_code_and_both_check_its_size() {
        let (mut module, _) = tiss_compiler::compile(
            "p.tiss",
            b"TASK \"t\"\nSTEP \"s\" {\n    LOG \"hi\"\n}\n",
            KeepSource::Nothing,
        )
        .unwrap_or_else(|_| panic!("the plan compiles"));
        assert_eq!(checked_output(&module, true), Ok(()));
        module.code.insert(0, tisslang::isa::Instr::Jump { target: 1 << 20 });
        assert!(matches!(checked_output(&module, true), Err(VerifyError::TargetOutOfRange { .. })));
        assert_eq!(checked_output(&module, false), Ok(()));
        module.code.clear();
        assert_eq!(checked_output(&module, false), Err(VerifyError::EmptyCode));
        assert_eq!(checked_output(&module, true), Err(VerifyError::EmptyCode));
    }

    /// A plan too large for a module (1.6 GB of dense source at the least,
    /// so not made here) is the plan's to split, not a bug in tissc.
    #[test]
    fn a_plan_too_large_for_a_module_is_refused_as_the_plans_not_as_a_bug() {
        let (message, code) = refused_output("big.tiss", &VerifyError::CodeTooLong { len: 1 << 31 });
        assert_eq!(code, status::COMPILE_ERRORS);
        assert_eq!(
            message,
            "tissc: `big.tiss` compiles to 2147483648 instructions, more than a module holds (fewer than \
             1073741823); split it into plans that run one after another"
        );
        let (message, code) = refused_output("p.tiss", &VerifyError::EmptyCode);
        assert_eq!(code, status::INTERNAL);
        assert!(
            message.starts_with("tissc: internal error: the compiler produced invalid bytecode for `p.tiss`")
        );
    }
}
