//! The open documents and what is known of each: its text, line index, and
//! the front end's analysis of that text. A change re-runs the front end
//! once (it is linear and fast: book: performance.md); every request after
//! it reads the cached analysis. Lowering, needed only for a step's cost
//! bound, runs on the first hover that asks for one and is cached too.

use std::cell::OnceCell;
use std::collections::HashMap;
use std::rc::Rc;

use lsp_server::ErrorCode;
use lsp_types::{TextDocumentContentChangeEvent, Uri};
use tisslang::module::Module;

use super::Failure;
use super::index::Index;
use super::protocol::position::LineIndex;
use crate::Frontend;
use crate::check::types::ty::Ty;
use crate::lower::{self, KeepSource};

/// The front end's results for one version of a text.
pub(crate) struct Analysis {
    /// The text (as `frontend.file.text`), its tree and its diagnostics,
    /// lint warnings included.
    pub frontend: Frontend,
    pub lines: LineIndex,
    pub index: Index,
    /// Every variable with its type, in order of first binding.
    pub variables: Vec<(String, Option<Ty>)>,
    /// The plan's answer types, for hover and completion on typed answers.
    pub answer_shapes: tisslang::answer::Shapes,
    /// The plan lowered, for its step bounds: only for a plan without errors.
    module: OnceCell<Option<Module>>,
}

impl Analysis {
    fn new(name: &str, text: String) -> Analysis {
        let mut frontend = crate::frontend_owned(name, text.into_bytes());
        // Its lint warnings too (none while it has errors), as `tissc lint`.
        crate::lint::add_warnings(&mut frontend);
        let lines = LineIndex::new(&frontend.file.text);
        let index = Index::build(&frontend.plan, &frontend.file.text);
        let (variables, answers) = crate::check::variable_types(&frontend.plan, &frontend.file.text);
        let variables = variables.into_iter().map(|(name, ty)| (name.to_string(), ty)).collect();
        let answer_shapes = answers.shapes;
        Analysis { frontend, lines, index, variables, answer_shapes, module: OnceCell::new() }
    }

    pub(crate) fn text(&self) -> &str {
        &self.frontend.file.text
    }

    /// A type as a user reads it: a typed answer as its TissLang type.
    pub(crate) fn describe_type(&self, ty: Ty) -> String {
        match ty {
            Ty::Answer(shape) => self.answer_shapes.describe(shape),
            other => other.describe().to_string(),
        }
    }

    pub(crate) fn variable_type(&self, name: &str) -> Option<Ty> {
        self.variables.iter().find(|(n, _)| n == name).and_then(|&(_, ty)| ty)
    }

    /// The compiled module, if the plan compiles.
    pub(crate) fn module(&self) -> Option<&Module> {
        self.module
            .get_or_init(|| {
                (!self.frontend.has_errors())
                    .then(|| lower::lower(&self.frontend.plan, &self.frontend.file, KeepSource::Nothing))
            })
            .as_ref()
    }
}

pub(crate) struct Document {
    pub version: i32,
    pub analysis: Analysis,
    /// The analysis of the latest version without errors: while an edit is
    /// half typed, completion still offers the names it had.
    pub last_clean: Option<Rc<Analysis>>,
}

#[derive(Default)]
pub(crate) struct Documents {
    open: HashMap<String, Document>,
}

impl Documents {
    pub(crate) fn open(&mut self, uri: &Uri, version: i32, text: String) {
        let analysis = Analysis::new(uri.as_str(), text);
        self.open.insert(uri.as_str().to_string(), Document { version, analysis, last_clean: None });
    }

    pub(crate) fn close(&mut self, uri: &Uri) {
        self.open.remove(uri.as_str());
    }

    /// Applies a `didChange`'s edits in order (whole-text or ranged) and
    /// analyses the result.
    pub(crate) fn change(
        &mut self,
        uri: &Uri,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
    ) -> Result<(), Failure> {
        let doc = self.open.get_mut(uri.as_str()).ok_or_else(|| not_open(uri))?;
        let mut text = doc.analysis.text().to_string();
        for change in changes {
            match change.range {
                None => text = change.text,
                Some(range) => {
                    let lines = LineIndex::new(&text);
                    let span = lines.span(&text, range).ok_or_else(|| {
                        Failure::new(
                            ErrorCode::InvalidParams,
                            format!(
                                "didChange of `{}`: the range starts or ends on line {} or {}, past the document's \
                                 last line; the client's copy is out of step (reopen the document)",
                                uri.as_str(),
                                range.start.line + 1,
                                range.end.line + 1
                            ),
                        )
                    })?;
                    text.replace_range(span, &change.text);
                }
            }
        }
        let analysis = Analysis::new(uri.as_str(), text);
        let previous = std::mem::replace(&mut doc.analysis, analysis);
        if !previous.frontend.has_errors() {
            doc.last_clean = Some(Rc::new(previous));
        }
        doc.version = version;
        Ok(())
    }

    pub(crate) fn get(&self, uri: &Uri) -> Result<&Document, Failure> {
        self.open.get(uri.as_str()).ok_or_else(|| not_open(uri))
    }
}

fn not_open(uri: &Uri) -> Failure {
    Failure::new(
        ErrorCode::InvalidParams,
        format!("`{}` is not open: send textDocument/didOpen with its text first", uri.as_str()),
    )
}
