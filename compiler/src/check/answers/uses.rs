//! Where a typed answer is used (book: reference/types.md): compared (E0205; an enum with a
//! literal outside it, E0222), tested (`list CONTAINS x`, `list IS_EMPTY`,
//! `r.field EXISTS`, E0225), and inserted into a RUN (E0224).

use tiss_support::suggest;
use tisslang::answer::Shape;

use super::AnswerTypes;
use crate::check::Ctx;
use crate::check::literals::quote;
use crate::check::types::path_text;
use crate::check::types::ty::Ty;
use crate::diagnostics::{Diagnostic, codes};
use crate::syntax::ast::PathView;
use crate::syntax::ast::{Cond, Expr};

/// `value` compared with (or looked for in a list of) enum `shape`: a
/// literal must be one of its literals.
pub(crate) fn enum_literal(cx: &mut Ctx<'_>, answers: &AnswerTypes, shape: u32, value: &Expr) {
    let (Some(Shape::Enum(names)), Some(text)) = (answers.shapes.get(shape), value.literal(cx.src)) else {
        return;
    };
    if names.iter().any(|n| **n == *text) {
        return;
    }
    let listed: Vec<String> = names.iter().map(|n| quote(n)).collect();
    let mut d = Diagnostic::error(
        codes::NOT_IN_ENUM,
        value.span(),
        format!("{} is not one of the values this can hold: {}", quote(text), listed.join(", ")),
    );
    if let Some(best) = suggest::closest(text, names.iter().map(|n| &**n)) {
        d = d.with_suggestion("the nearest of them", value.span(), quote(best));
    } else {
        d = d.with_note("the comparison could never be true; compare with one of the listed values");
    }
    cx.emit(d);
}

/// A comparison with a typed list or record on either side: not allowed.
/// Whether it reported one.
pub(crate) fn compared(
    cx: &mut Ctx<'_>,
    answers: &AnswerTypes,
    cond: &Cond,
    sides: [(&Expr, Option<Ty>); 2],
) -> bool {
    for (side, ty) in sides {
        if let (Some(Ty::Answer(shape)), Some(path)) = (ty, side.path(cx.src)) {
            let text = path_text(path, path.fields.len());
            cx.emit(
                Diagnostic::error(
                    codes::TYPE_MISMATCH,
                    side.span(),
                    format!("`{text}` is {}: comparisons take single values", answers.shapes.describe(shape)),
                )
                .with_label(cond.span(), "in this comparison")
                .with_note("compare one of its fields, or test a list with CONTAINS or IS_EMPTY"),
            );
            return true;
        }
    }
    false
}

/// `list CONTAINS value`: the value must have the elements' type. Whether
/// `list` is a typed list (and so this check's).
pub(crate) fn list_contains(
    cx: &mut Ctx<'_>,
    answers: &AnswerTypes,
    (list, list_shape): (&Expr, Option<u32>),
    (value, value_ty): (&Expr, Option<Ty>),
) -> bool {
    let Some(Shape::List(items)) = list_shape.and_then(|s| answers.shapes.get(s)) else { return false };
    let items = *items;
    let item_ty = crate::check::types::shape_ty(&answers.shapes, items);
    match value_ty {
        Some(ty) if ty != item_ty || matches!(ty, Ty::Answer(_)) => {
            let text = list.path(cx.src).map(|path| path_text(path, path.fields.len())).unwrap_or_default();
            cx.emit(
                Diagnostic::error(
                    codes::TYPE_MISMATCH,
                    value.span(),
                    format!(
                        "`{text}` is {}, so what CONTAINS looks for must be {}, not {}",
                        answers.shapes.describe(list_shape.unwrap_or(items)),
                        item_ty.describe(),
                        ty.describe()
                    ),
                )
                .with_label(list.span(), "this list"),
            );
        }
        _ => enum_literal(cx, answers, items, value),
    }
    true
}

/// `expr EXISTS` (not `FILE … EXISTS`): `expr` must be an optional field of
/// a typed record.
pub(crate) fn exists(cx: &mut Ctx<'_>, answers: &AnswerTypes, operand: &Expr, record: Option<u32>) {
    let Some(path) = operand.path(cx.src) else {
        return not_optional(cx, operand, None);
    };
    let Some(last) = path.fields.last() else { return not_optional(cx, operand, Some(path)) };
    match record.and_then(|r| answers.shapes.field(r, last.name)) {
        Some((_, f)) if f.optional => {}
        Some(_) => {
            let text = path_text(path, path.fields.len());
            cx.emit(
                Diagnostic::error(
                    codes::EXISTS_OF_REQUIRED,
                    operand.span(),
                    format!("`{text}` is a required field: it is always present, so `EXISTS` is always true"),
                )
                .with_note(format!(
                    "mark the field optional in its type (`{}?: …`) or drop the test",
                    last.name
                )),
            );
        }
        // An unknown field or a non-answer: the path check reports it, or:
        None if record.is_none() => not_optional(cx, operand, Some(path)),
        None => {}
    }
}

fn not_optional(cx: &mut Ctx<'_>, operand: &Expr, path: Option<PathView<'_>>) {
    let text = path.map(|p| path_text(p, p.fields.len())).unwrap_or_default();
    cx.emit(
        Diagnostic::error(
            codes::EXISTS_OF_REQUIRED,
            operand.span(),
            format!("`{text} EXISTS` tests an optional field of a typed answer, and `{text}` is not one"),
        )
        .with_note("for a file, write `FILE \"path\" EXISTS`"),
    );
}

/// `${x}` inside a RUN: a list of plain values becomes one word per element;
/// a record, or a list of records or lists, cannot.
pub(crate) fn run_hole(cx: &mut Ctx<'_>, answers: &AnswerTypes, path: PathView<'_>, ty: Option<Ty>) {
    let Some(Ty::Answer(shape)) = ty else { return };
    let ok = match answers.shapes.get(shape) {
        Some(Shape::List(items)) => {
            !matches!(answers.shapes.get(*items), Some(Shape::List(_) | Shape::Record(_)))
        }
        _ => false,
    };
    if !ok {
        let text = path_text(path, path.fields.len());
        cx.emit(
            Diagnostic::error(
                codes::ANSWER_INTO_RUN,
                path.span,
                format!(
                    "`${{{text}}}` would put {} into a command; only a list of strings, integers, booleans or enum values can be (one word each)",
                    answers.shapes.describe(shape)
                ),
            )
            .with_note("interpolate its fields one by one, or WRITE it to a file (as JSON) and pass the file's name"),
        );
    }
}
