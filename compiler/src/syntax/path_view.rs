//! [`PathView`]: a path as its readers see it, however the tree holds it.
//!
//! Most paths in a plan are a bare variable (`x`) or one field of
//! `LAST_RUN` (`LAST_RUN.EXIT_CODE`), and a boxed [`Path`] is 64 bytes on
//! the heap: the tree keeps those two kinds in their 16-byte expression
//! instead (`ExprKind::Var`, its name the source at its span, and
//! `ExprKind::LastRun`), and every other path boxed. The checks, lowering, the linter and the language server read
//! all of them through the same borrowed view.

use tisslang::types::{Field, ValueType};

use crate::syntax::ast::{Ident, Path, PathRoot};
use crate::syntax::span::Span;
use crate::syntax::text::Text;

/// A name as a path reads it: an [`Ident`] of the tree, a bare variable's
/// name with its expression's span, or a field of `LAST_RUN`.
#[derive(Debug, Clone, Copy)]
pub struct IdentView<'a> {
    pub name: &'a str,
    pub span: Span,
}

impl Ident {
    #[inline(always)]
    pub fn view(&self) -> IdentView<'_> {
        IdentView { name: &self.name, span: self.span }
    }
}

/// A path as it is read (see the module documentation).
#[derive(Debug, Clone, Copy)]
pub struct PathView<'a> {
    pub root: RootView<'a>,
    pub fields: Fields<'a>,
    pub span: Span,
}

/// [`PathRoot`], borrowed.
#[derive(Debug, Clone, Copy)]
pub enum RootView<'a> {
    Var { ident: IdentView<'a> },
    LastRun { span: Span },
    Cost { span: Span },
}

impl RootView<'_> {
    #[inline]
    pub fn span(&self) -> Span {
        match self {
            RootView::Var { ident } => ident.span,
            RootView::LastRun { span } | RootView::Cost { span } => *span,
        }
    }
}

/// A path's fields in order: the tree's, or the one field of
/// `LAST_RUN.FIELD` kept in its expression.
#[derive(Debug, Clone, Copy)]
pub enum Fields<'a> {
    Tree(&'a [Ident]),
    One(IdentView<'a>),
}

impl<'a> Fields<'a> {
    #[inline]
    pub fn len(&self) -> usize {
        match self {
            Fields::Tree(fields) => fields.len(),
            Fields::One(_) => 1,
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    pub fn get(&self, i: usize) -> Option<IdentView<'a>> {
        match self {
            Fields::Tree(fields) => fields.get(i).map(Ident::view),
            Fields::One(field) => (i == 0).then_some(*field),
        }
    }

    #[inline]
    pub fn last(&self) -> Option<IdentView<'a>> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// The first `n` fields (all of them if there are fewer).
    #[inline]
    pub fn upto(&self, n: usize) -> Fields<'a> {
        match *self {
            Fields::Tree(fields) => Fields::Tree(&fields[..n.min(fields.len())]),
            Fields::One(_) if n == 0 => Fields::Tree(&[]),
            one @ Fields::One(_) => one,
        }
    }

    /// The last field and the ones before it.
    pub fn split_last(&self) -> Option<(IdentView<'a>, Fields<'a>)> {
        let n = self.len().checked_sub(1)?;
        Some((self.get(n)?, self.upto(n)))
    }

    #[inline]
    pub fn iter(&self) -> FieldsIter<'a> {
        FieldsIter { fields: *self, next: 0 }
    }
}

impl<'a> IntoIterator for Fields<'a> {
    type Item = IdentView<'a>;
    type IntoIter = FieldsIter<'a>;

    fn into_iter(self) -> FieldsIter<'a> {
        self.iter()
    }
}

/// [`Fields::iter`].
pub struct FieldsIter<'a> {
    fields: Fields<'a>,
    next: usize,
}

impl<'a> Iterator for FieldsIter<'a> {
    type Item = IdentView<'a>;

    #[inline]
    fn next(&mut self) -> Option<IdentView<'a>> {
        let field = self.fields.get(self.next)?;
        self.next += 1;
        Some(field)
    }
}

impl<'a> PathView<'a> {
    /// A bare variable's path: its name, no fields.
    #[inline(always)]
    pub fn var(name: &'a str, span: Span) -> PathView<'a> {
        PathView { root: RootView::Var { ident: IdentView { name, span } }, fields: Fields::Tree(&[]), span }
    }

    /// `LAST_RUN.FIELD` spanning `span`, the field written at `at`.
    #[inline(always)]
    pub fn last_run(field: Field, at: u32, span: Span) -> PathView<'a> {
        let name = field.name();
        let root = Span { start: span.start, end: span.start + "LAST_RUN".len() as u32 };
        let field = IdentView { name, span: Span { start: at, end: at + name.len() as u32 } };
        PathView { root: RootView::LastRun { span: root }, fields: Fields::One(field), span }
    }

    /// The boxed path the tree would hold (what `tissc parse --emit
    /// ast-json` shows).
    pub fn to_path(&self) -> Path {
        let root = match self.root {
            RootView::Var { ident } => {
                PathRoot::Var { ident: Ident { name: Text::new(ident.name), span: ident.span } }
            }
            RootView::LastRun { span } => PathRoot::LastRun { span },
            RootView::Cost { span } => PathRoot::Cost { span },
        };
        let fields = self.fields.iter().map(|f| Ident { name: Text::new(f.name), span: f.span }).collect();
        Path { root, fields, span: self.span }
    }
}

/// The field of `LAST_RUN.FIELD` to keep inline, and where it is written:
/// one of the record's (as the verifier has them). Called on what the
/// keyword `LAST_RUN` began, whose token is exactly that word; the
/// misspelled keyword parses to a boxed path, as does another field.
pub(crate) fn last_run_field(path: &Path) -> Option<(Field, u32)> {
    let (PathRoot::LastRun { .. }, [field]) = (&path.root, &path.fields[..]) else { return None };
    let known = Field::from_name(&field.name).filter(|&f| ValueType::LastRun.field(f).is_some())?;
    Some((known, field.span.start))
}

impl Path {
    #[inline(always)]
    pub fn view(&self) -> PathView<'_> {
        let root = match &self.root {
            PathRoot::Var { ident } => RootView::Var { ident: ident.view() },
            PathRoot::LastRun { span } => RootView::LastRun { span: *span },
            PathRoot::Cost { span } => RootView::Cost { span: *span },
        };
        PathView { root, fields: Fields::Tree(&self.fields), span: self.span }
    }
}
