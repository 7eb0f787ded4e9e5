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
    let (text, mut diagnostics) = source_file::decode(bytes);
    let (plan, parse_diagnostics) = parser::parse(&text);
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
    options: lower::LowerOptions,
) -> Result<(tisslang::module::Module, Frontend), Box<Frontend>> {
    let fe = frontend(name, bytes);
    if fe.has_errors() {
        return Err(Box::new(fe));
    }
    let module = lower::lower(&fe.plan, &fe.file, options);
    Ok((module, fe))
}

impl Frontend {
    /// Lowers the plan of a front end without errors (report its warnings
    /// first), consuming it: the source text moves into the module instead
    /// of being copied, and the syntax tree is freed item by item as it is
    /// lowered (`lower::lower_owned`). The same module as [`compile`]'s.
    pub fn into_module(self, options: lower::LowerOptions) -> tisslang::module::Module {
        let Frontend { file, plan, diagnostics, answers } = self;
        drop(diagnostics);
        let mut module = lower::lower_owned(plan, &file, answers, lower::LowerOptions { strip_source: true });
        if !options.strip_source {
            module.source = tisslang::module::Source::Embedded { name: file.name, text: file.text };
        }
        module
    }
}
