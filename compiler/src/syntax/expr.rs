//! [`Expr`]: an expression of the tree, in 16 bytes.
//!
//! Two are in every comparison, so their size is most of a condition's
//! (book: performance.md). An expression keeps its span beside what it
//! holds, and what the source text already says is read from it by that
//! span instead of being copied: a bare variable's name and the text of a
//! string literal without escapes or interpolation ([`Expr::path`] and
//! [`Expr::literal`] take the text the plan was parsed from). Rarer kinds
//! are boxed: a literal with escapes or `${...}`, a path with fields other
//! than `LAST_RUN`'s, an integer beyond 32 bits, a duration beyond 49 days. Readers match
//! on [`Expr::kind`], a view that does not depend on how it is held.

use std::cell::Cell;
use std::fmt;

use serde::Serialize;
use tisslang::types::Field;

use crate::syntax::ast::{DurationLit, Path, StrLit};
use crate::syntax::path_view::PathView;
use crate::syntax::span::Span;
use crate::syntax::text::Text;

#[derive(Clone, PartialEq)]
pub struct Expr(Repr);

/// `repr(u8)`: each kind is laid out as written, its tag first and its
/// spare bytes next, so [`Spare`] lies at the same offset in every kind
/// (reading or writing it is one load or store, not a match).
#[derive(Clone, PartialEq)]
#[repr(u8)]
enum Repr {
    Str {
        spare: Spare,
        lit: Box<StrLit>,
    },
    Path {
        spare: Spare,
        path: Box<Path>,
    },
    /// A string literal whose source between its quotes is its text.
    Text {
        spare: Spare,
        span: Span,
    },
    /// A bare variable: its name is the source at the span.
    Var {
        spare: Spare,
        span: Span,
    },
    Int {
        spare: Spare,
        value: i32,
        span: Span,
    },
    LongInt {
        spare: Spare,
        int: Box<(i64, Span)>,
    },
    /// Up to 49 days.
    Duration {
        spare: Spare,
        millis: u32,
        span: Span,
    },
    LongDuration {
        spare: Spare,
        duration: Box<DurationLit>,
    },
    Bool {
        spare: Spare,
        value: bool,
        span: Span,
    },
    /// `LAST_RUN.FIELD` with one of the record's fields, written at `at`.
    LastRun {
        spare: Spare,
        field: Field,
        at: u32,
        span: Span,
    },
}

/// Two bytes every kind of expression has room for beside its tag, which
/// a comparison uses to keep its operator and what parentheses add to its
/// span in its operands ([`crate::syntax::ast::Test`]): a comparison is
/// then two expressions, 32 bytes, and so is every condition. They are not
/// part of the expression's value: equal whatever they hold.
#[derive(Clone, Copy, Default)]
struct Spare([u8; 2]);

impl PartialEq for Spare {
    fn eq(&self, _: &Spare) -> bool {
        true
    }
}

/// What an expression is, however it is held.
#[derive(Debug, Clone, Copy)]
pub enum ExprKind<'a> {
    /// A string literal with escapes or interpolation ([`Expr::literal`]
    /// reads one without interpolation).
    Str {
        value: &'a StrLit,
    },
    /// A string literal that is its source text between its quotes
    /// ([`Expr::literal`]).
    Text,
    Int {
        value: i64,
    },
    Duration {
        millis: u64,
    },
    Bool {
        value: bool,
    },
    /// A bare variable ([`Expr::path`] reads its name).
    Var,
    /// `LAST_RUN.FIELD` with one of the record's fields, the field written at `at`.
    LastRun {
        field: Field,
        at: u32,
    },
    /// Any other path.
    Path {
        path: &'a Path,
    },
}

/// The [`Spare`] of a `&Repr` or a `&mut Repr`, as a reference of the
/// same kind: every kind listed once, for reading and writing.
macro_rules! spare_of {
    ($repr:expr) => {
        match $repr {
            Repr::Str { spare, .. }
            | Repr::Path { spare, .. }
            | Repr::Text { spare, .. }
            | Repr::Var { spare, .. }
            | Repr::Int { spare, .. }
            | Repr::LongInt { spare, .. }
            | Repr::Duration { spare, .. }
            | Repr::LongDuration { spare, .. }
            | Repr::Bool { spare, .. }
            | Repr::LastRun { spare, .. } => spare,
        }
    };
}

impl Expr {
    /// The string literal `lit` of `src`: kept as its span when its text is
    /// its source between the quotes.
    pub fn string(lit: StrLit, src: &str) -> Expr {
        let spare = Spare::default();
        match lit.as_literal() {
            Some(text) if between_quotes(src, lit.span) == Some(text) => {
                Expr(Repr::Text { span: lit.span, spare })
            }
            _ => Expr(Repr::Str { lit: Box::new(lit), spare }),
        }
    }

    /// A path other than a bare variable and `LAST_RUN.FIELD`: its span is the expression's.
    pub fn of_path(path: Path) -> Expr {
        Expr(Repr::Path { path: Box::new(path), spare: Spare::default() })
    }

    /// The bare variable written at `span`.
    pub fn var(span: Span) -> Expr {
        Expr(Repr::Var { span, spare: Spare::default() })
    }

    pub fn int(value: i64, span: Span) -> Expr {
        let spare = Spare::default();
        match i32::try_from(value) {
            Ok(value) => Expr(Repr::Int { value, span, spare }),
            Err(_) => Expr(Repr::LongInt { int: Box::new((value, span)), spare }),
        }
    }

    pub fn duration(millis: u64, span: Span) -> Expr {
        let spare = Spare::default();
        match u32::try_from(millis) {
            Ok(millis) => Expr(Repr::Duration { millis, span, spare }),
            Err(_) => Expr(Repr::LongDuration { duration: Box::new(DurationLit { millis, span }), spare }),
        }
    }

    pub fn bool(value: bool, span: Span) -> Expr {
        Expr(Repr::Bool { value, span, spare: Spare::default() })
    }

    /// `LAST_RUN.FIELD` spanning `span`, the field written at `at`.
    pub fn last_run(field: Field, at: u32, span: Span) -> Expr {
        Expr(Repr::LastRun { field, at, span, spare: Spare::default() })
    }

    pub fn span(&self) -> Span {
        match &self.0 {
            Repr::Str { lit, .. } => lit.span,
            Repr::Path { path, .. } => path.span,
            Repr::Text { span, .. }
            | Repr::Var { span, .. }
            | Repr::Int { span, .. }
            | Repr::Bool { span, .. }
            | Repr::LastRun { span, .. }
            | Repr::Duration { span, .. } => *span,
            Repr::LongInt { int, .. } => int.1,
            Repr::LongDuration { duration, .. } => duration.span,
        }
    }

    #[inline(always)]
    pub fn kind(&self) -> ExprKind<'_> {
        match &self.0 {
            Repr::Str { lit, .. } => ExprKind::Str { value: lit },
            Repr::Path { path, .. } => ExprKind::Path { path },
            Repr::Text { .. } => ExprKind::Text,
            Repr::Var { .. } => ExprKind::Var,
            Repr::Int { value, .. } => ExprKind::Int { value: i64::from(*value) },
            Repr::LongInt { int, .. } => ExprKind::Int { value: int.0 },
            Repr::Duration { millis, .. } => ExprKind::Duration { millis: u64::from(*millis) },
            Repr::LongDuration { duration, .. } => ExprKind::Duration { millis: duration.millis },
            Repr::Bool { value, .. } => ExprKind::Bool { value: *value },
            Repr::LastRun { field, at, .. } => ExprKind::LastRun { field: *field, at: *at },
        }
    }

    /// The path the expression reads, if it is one (however it is held);
    /// `src` is the text the plan was parsed from.
    #[inline(always)]
    pub fn path<'a>(&'a self, src: &'a str) -> Option<PathView<'a>> {
        self.path_named(self.name(src))
    }

    /// [`Expr::path`], a bare variable's name being `name` (read from the
    /// source beforehand: [`Expr::name`]).
    #[inline(always)]
    pub fn path_named<'a>(&'a self, name: &'a str) -> Option<PathView<'a>> {
        match &self.0 {
            Repr::Path { path, .. } => Some(path.view()),
            Repr::Var { span, .. } => Some(PathView::var(name, *span)),
            Repr::LastRun { field, at, span, .. } => Some(PathView::last_run(*field, *at, *span)),
            _ => None,
        }
    }

    /// A bare variable's name ("" for any other expression).
    #[inline(always)]
    pub fn name<'a>(&self, src: &'a str) -> &'a str {
        match &self.0 {
            Repr::Var { span, .. } => src.get(span.range()).unwrap_or(""),
            _ => "",
        }
    }

    /// The text of a string literal without interpolation (however it is
    /// held); `src` is the text the plan was parsed from.
    pub fn literal<'a>(&'a self, src: &'a str) -> Option<&'a str> {
        match &self.0 {
            Repr::Text { span, .. } => Some(between_quotes(src, *span).unwrap_or("")),
            Repr::Str { lit, .. } => lit.as_literal(),
            _ => None,
        }
    }

    /// The string literal it is, as the lexer made it, or itself.
    pub fn into_string(self, src: &str) -> Result<StrLit, Expr> {
        match self.0 {
            Repr::Str { lit, .. } => Ok(*lit),
            Repr::Text { span, .. } => {
                Ok(StrLit::text(Text::new(between_quotes(src, span).unwrap_or("")), span))
            }
            _ => Err(self),
        }
    }

    /// Whether it is a string literal without interpolation ([`Expr::literal`]).
    pub fn is_literal(&self) -> bool {
        match &self.0 {
            Repr::Text { .. } => true,
            Repr::Str { lit, .. } => lit.as_literal().is_some(),
            _ => false,
        }
    }

    /// The two spare bytes ([`Spare`]).
    pub(crate) fn spare(&self) -> [u8; 2] {
        spare_of!(&self.0).0
    }

    /// Puts `bytes` in the spare bytes ([`Spare`]).
    pub(crate) fn set_spare(&mut self, bytes: [u8; 2]) {
        spare_of!(&mut self.0).0 = bytes;
    }
}

/// The source of the literal at `span` between its double quotes.
fn between_quotes(src: &str, span: Span) -> Option<&str> {
    src.get(span.range())?.strip_prefix('"')?.strip_suffix('"')
}

impl fmt::Debug for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} @ {}..{}", self.kind(), self.span().start, self.span().end)
    }
}

thread_local! {
    /// The text the tree being serialized was parsed from ([`with_source`]).
    static SOURCE: Cell<Option<(*const u8, usize)>> = const { Cell::new(None) };
}

/// Runs `f` (which serializes a tree parsed from `src`) with `src` at hand:
/// a bare variable and a literal held as spans serialize as the path and
/// the literal they are, which needs the text.
pub fn with_source<R>(src: &str, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<(*const u8, usize)>);
    impl Drop for Restore {
        fn drop(&mut self) {
            SOURCE.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(SOURCE.with(|s| s.replace(Some((src.as_ptr(), src.len())))));
    f()
}

/// Calls `f` with the text of [`with_source`] ("" outside it).
fn read_source<R>(f: impl FnOnce(&str) -> R) -> R {
    match SOURCE.with(Cell::get) {
        // SAFETY: set by `with_source` from a `&str` that outlives its call,
        // and restored when that call returns, however it returns: while it
        // is set, the text is alive and unchanged, and `f` does not keep it.
        Some((ptr, len)) => f(unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(ptr, len)) }),
        None => f(""),
    }
}

/// As `tissc parse --emit ast-json` has always shown it: a bare variable
/// is a path with no fields, `LAST_RUN.FIELD` a path with one, and every
/// string literal a literal with its parts.
impl Serialize for Expr {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        enum Shown<'a> {
            Str { value: &'a StrLit },
            Int { value: i64 },
            Duration { millis: u64 },
            Bool { value: bool },
            Path { path: &'a Path },
        }
        #[derive(Serialize)]
        struct Flat<'a> {
            #[serde(flatten)]
            kind: Shown<'a>,
            span: Span,
        }
        let span = self.span();
        let show = |kind: Shown<'_>| Flat { kind, span }.serialize(serializer);
        match self.kind() {
            ExprKind::Str { value } => show(Shown::Str { value }),
            ExprKind::Path { path } => show(Shown::Path { path }),
            ExprKind::Text => read_source(|src| {
                let text = self.literal(src).unwrap_or("");
                show(Shown::Str { value: &StrLit::text(Text::new(text), span) })
            }),
            ExprKind::Var => read_source(|src| {
                let name = src.get(span.range()).unwrap_or("");
                show(Shown::Path { path: &PathView::var(name, span).to_path() })
            }),
            ExprKind::LastRun { field, at } => {
                show(Shown::Path { path: &PathView::last_run(field, at, span).to_path() })
            }
            ExprKind::Int { value } => show(Shown::Int { value }),
            ExprKind::Duration { millis } => show(Shown::Duration { millis }),
            ExprKind::Bool { value } => show(Shown::Bool { value }),
        }
    }
}
