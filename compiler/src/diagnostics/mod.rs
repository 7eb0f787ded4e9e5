//! Diagnostics as data: a code, a message, a primary span, labels, notes and
//! suggestions. Their codes are in [`codes`], the long text of each in
//! [`explain`], and rendering (human or JSON) in [`render`].

pub mod codes;
pub mod explain;
pub mod github;
pub mod render;
pub mod sarif;
mod shown;

use crate::syntax::span::Span;
use codes::Code;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// A secondary span with its own short message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// How sure a suggestion is, as rustc and ruff say it: `Machine` only where
/// the replacement is what the author meant beyond doubt (an earlier
/// dialect's spelling of the same thing), so `tissc fix` may apply it
/// unasked; `Maybe` where a human (or the model) must choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Applicability {
    Machine,
    #[default]
    Maybe,
}

impl Applicability {
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::Machine => "machine",
            Applicability::Maybe => "maybe",
        }
    }
}

/// A likely fix: replace the text at `span` with `replacement`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suggestion {
    pub message: String,
    pub span: Span,
    pub replacement: String,
    pub applicability: Applicability,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: Code,
    pub message: String,
    pub span: Span,
    pub labels: Vec<Label>,
    pub notes: Vec<String>,
    pub suggestions: Vec<Suggestion>,
}

impl Diagnostic {
    pub fn error(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            labels: Vec::new(),
            notes: Vec::new(),
            suggestions: Vec::new(),
        }
    }

    pub fn warning(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(code, span, message) }
    }

    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label { span, message: message.into() });
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Adds a suggestion to replace `span` by `replacement`, for a human to weigh.
    pub fn with_suggestion(
        self,
        message: impl Into<String>,
        span: Span,
        replacement: impl Into<String>,
    ) -> Diagnostic {
        self.suggesting(Applicability::Maybe, message.into(), span, replacement.into())
    }

    /// Adds a suggestion that is certain: `tissc fix` applies it.
    pub fn with_fix(
        self,
        message: impl Into<String>,
        span: Span,
        replacement: impl Into<String>,
    ) -> Diagnostic {
        self.suggesting(Applicability::Machine, message.into(), span, replacement.into())
    }

    fn suggesting(
        mut self,
        applicability: Applicability,
        message: String,
        span: Span,
        replacement: String,
    ) -> Diagnostic {
        self.suggestions.push(Suggestion { message, span, replacement, applicability });
        self
    }

    /// Adds a suggestion certain or not as `machine` says.
    pub fn with_suggestion_if(
        self,
        machine: bool,
        message: impl Into<String>,
        span: Span,
        replacement: impl Into<String>,
    ) -> Diagnostic {
        if machine {
            self.with_fix(message, span, replacement)
        } else {
            self.with_suggestion(message, span, replacement)
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}
