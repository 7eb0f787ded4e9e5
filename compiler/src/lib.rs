//! `tiss-compiler`: the TissLang front end (lexer, parser, checks, diagnostics)
//! and, later, lowering to bytecode.
//!
//! The pipeline is [`frontend`]: bytes → [`source_file::decode`] → [`parser::parse`]
//! (which pulls tokens from the lexer) → [`check::check`]. Every stage appends
//! diagnostics instead of stopping, so one run reports every error in the file.

pub mod check;
pub mod command_risk;
pub mod diagnostics;
pub mod fix;
pub mod fmt;
pub mod generate;
pub mod lexer;
pub mod lint;
pub mod lower;
pub mod lsp;
pub mod parser;
pub mod source_file;
pub mod syntax;
pub(crate) mod written_duration;

use diagnostics::Diagnostic;
pub use lower::KeepSource;
use source_file::SourceFile;

/// The result of running the front end on one file.
pub struct Frontend {
    pub file: SourceFile,
    pub plan: syntax::ast::Plan,
    pub diagnostics: Vec<Diagnostic>,
    /// The plan's answer types, as the checks found them: lowering reuses
    /// them rather than walking the plan for them again.
    answers: check::answers::AnswerTypes,
}

impl Frontend {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Decodes, lexes, parses and checks one plan. Never panics, whatever the bytes.
pub fn frontend(name: &str, bytes: &[u8]) -> Frontend {
    frontend_owned(name, bytes.to_vec())
}

/// [`frontend`] on bytes it may keep: valid UTF-8 becomes the source text in
/// place, without a copy (`tissc` reads a file straight into it).
pub fn frontend_owned(name: &str, bytes: Vec<u8>) -> Frontend {
    frontend_with(name, bytes, parser::parse, &mut || {})
}

/// [`frontend_owned`] for a plan that is only to be lowered
/// ([`Frontend::into_module`]): heredoc bodies stay in the source text
/// ([`parser::parse_for_lowering`]), so its tree is not for showing.
/// `parsed` is called between parsing and checking (`tissc compile
/// --timings` times the two phases apart).
pub fn frontend_to_lower(name: &str, bytes: Vec<u8>, parsed: &mut dyn FnMut()) -> Frontend {
    frontend_with(name, bytes, parser::parse_for_lowering, parsed)
}

fn frontend_with(
    name: &str,
    bytes: Vec<u8>,
    parse: fn(&str) -> (syntax::ast::Plan, Vec<Diagnostic>),
    parsed: &mut dyn FnMut(),
) -> Frontend {
    let (text, mut diagnostics) = source_file::decode(bytes);
    let (plan, parse_diagnostics) = parse(&text);
    parsed();
    diagnostics.extend(parse_diagnostics);
    let answers = check::check_keeping_answers(&plan, &text, &mut diagnostics);
    diagnostics.sort_by_key(|d| (d.span.start, d.span.end));
    Frontend { file: SourceFile::new(name, text), plan, diagnostics, answers }
}

/// Compiles one plan to a module: the front end, then lowering. Returns the
/// module and any warnings, or every diagnostic when there are errors.
pub fn compile(
    name: &str,
    bytes: &[u8],
    keep: KeepSource,
) -> Result<(tisslang::module::Module, Frontend), Box<Frontend>> {
    let fe = frontend(name, bytes);
    if fe.has_errors() {
        return Err(Box::new(fe));
    }
    let module = lower::lower(&fe.plan, &fe.file, keep);
    Ok((module, fe))
}

impl Frontend {
    /// Lowers the plan of a front end without errors (report its warnings
    /// first), consuming it: the syntax tree is freed item by item as it is
    /// lowered (`lower::lower_owned`), and so is the source text unless the
    /// module keeps it (its hash is taken first); kept, it moves into the
    /// module instead of being copied. The same module as [`compile`]'s.
    pub fn into_module(self, keep: KeepSource) -> tisslang::module::Module {
        use tisslang::module::{Source, kept_source::SourceHash};
        let Frontend { file, plan, diagnostics, answers } = self;
        drop(diagnostics);
        let source = match keep {
            KeepSource::Hash => Source::Hash(SourceHash::of(&file.text)),
            KeepSource::Text | KeepSource::Nothing => Source::Stripped,
        };
        let (mut module, file) = lower::lower_owned(plan, file, answers, keep != KeepSource::Text);
        module.source = match keep {
            KeepSource::Text => Source::Embedded { name: file.name, text: file.text },
            KeepSource::Hash | KeepSource::Nothing => source,
        };
        module
    }
}
