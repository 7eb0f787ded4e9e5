//! Typed answers at compile time (book: reference/types.md): the table of every type the
//! plan names (`table.rs`: TYPE items and inline types after `AS`, resolved
//! to one shape table, each distinct shape once), and the rule that an
//! optional field is read only where `EXISTS` holds (`presence.rs`), and
//! a TYPE's JSON Schema for `tissc schema` (`schema.rs`).

pub(crate) mod presence;
pub(crate) mod schema;
pub(crate) mod table;
pub(crate) mod uses;

pub(crate) use table::AnswerTypes;

use tisslang::answer::Shape;

use crate::syntax::ast::{Expr, PathView, RootView};

use super::symbols::Symbols;
use super::types::VarTypes;
use super::types::ty::Ty;

/// The shape of what `expr` reads when it is a path into a typed answer
/// (`r.risk`, `r.files`, `r`), leaves included: what the enum and list
/// checks look at. `None` for anything else, or a path with a bad field.
pub(crate) fn shape_of(
    answers: &AnswerTypes,
    syms: &Symbols<'_>,
    types: &VarTypes,
    expr: &Expr,
) -> Option<u32> {
    let path = expr.path(syms.src)?;
    shape_upto(answers, syms, types, path, path.fields.len())
}

/// The shape of `path` up to field `upto` (exclusive), as [`shape_of`].
pub(crate) fn shape_upto(
    answers: &AnswerTypes,
    syms: &Symbols<'_>,
    types: &VarTypes,
    path: PathView<'_>,
    upto: usize,
) -> Option<u32> {
    let RootView::Var { ident } = &path.root else { return None };
    let var = syms.var(ident.name)?;
    let Some(Ty::Answer(mut shape)) = types[var as usize] else {
        // A variable every binding of which is `INTO x AS` one enum (or
        // other leaf): that shape.
        let mut bindings =
            syms.vars[var as usize].bindings().map(|b| answers.prompt(b.span.start).map(|p| p.0));
        let first = bindings.next()??;
        return (upto == 0 && bindings.all(|b| b == Some(first))).then_some(first);
    };
    for field in path.fields.upto(upto) {
        match answers.shapes.get(shape)? {
            Shape::Record(_) => shape = answers.shapes.field(shape, field.name)?.1.shape,
            _ => return None,
        }
    }
    Some(shape)
}
