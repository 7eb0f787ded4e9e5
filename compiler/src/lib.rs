//! `tiss-compiler`: the TissLang front end (lexer, parser, checks, diagnostics)
//! and, later, lowering to bytecode.
//!
//! The pipeline is [`frontend`]: bytes → [`source::decode`] → [`lexer::lex`] →
//! [`parser::parse`] → [`check::check`]. Every stage appends diagnostics instead
//! of stopping, so one run reports every error in the file.

pub mod ast;
pub mod ast_json;
pub mod atomic_write;
pub mod check;
pub mod cli_support;
pub mod codes;
pub mod diagnostic;
pub mod explain;
pub mod lexer;
pub mod lower;
pub mod parser;
pub mod render;
pub mod source;
pub mod span;
pub mod suggest;
pub mod text;
pub mod token;

use diagnostic::Diagnostic;
use source::SourceFile;

/// The result of running the front end on one file.
pub struct Frontend {
    pub file: SourceFile,
    pub plan: ast::Plan,
    pub diagnostics: Vec<Diagnostic>,
}

impl Frontend {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Decodes, lexes, parses and checks one plan. Never panics, whatever the bytes.
pub fn frontend(name: &str, bytes: &[u8]) -> Frontend {
    let (text, mut diagnostics) = source::decode(bytes);
    let lexed = lexer::lex(&text);
    diagnostics.extend(lexed.diagnostics.iter().cloned());
    let (plan, parse_diagnostics) = parser::parse(&text, lexed);
    diagnostics.extend(parse_diagnostics);
    check::check(&plan, &text, &mut diagnostics);
    diagnostics.sort_by_key(|d| (d.span.start, d.span.end));
    Frontend { file: SourceFile::new(name, text), plan, diagnostics }
}

/// Sources at least this large have their syntax tree freed on another
/// thread once it is lowered: freeing a tree of tens of thousands of nodes
/// is about a tenth of a large compile, and nothing needs to wait for it.
const FREE_TREE_IN_BACKGROUND: usize = 256 * 1024;

/// Compiles one plan to a module: the front end, then lowering. Returns the
/// module and the front end's file and warnings (its `plan` is emptied: the
/// syntax tree is freed once lowered), or the whole front end, with every
/// diagnostic, when there are errors.
pub fn compile(
    name: &str,
    bytes: &[u8],
    options: lower::LowerOptions,
) -> Result<(tisslang::module::Module, Frontend), Box<Frontend>> {
    let mut fe = frontend(name, bytes);
    if fe.has_errors() {
        return Err(Box::new(fe));
    }
    let module = lower::lower(&fe.plan, &fe.file, options);
    let tree = std::mem::replace(&mut fe.plan, ast::Plan { items: Vec::new() });
    if fe.file.text.len() >= FREE_TREE_IN_BACKGROUND {
        // Should no thread start, the tree is freed here instead.
        let _ = std::thread::Builder::new().name("free-syntax-tree".into()).spawn(move || drop(tree));
    }
    Ok((module, fe))
}
