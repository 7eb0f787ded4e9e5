//! Types where values are used (book: reference/expressions.md): comparisons (E0205, E0214,
//! E0207), string tests (E0205), bare conditions (E0213), records where one
//! value is needed (E0215) and budget values (E0208). Where the fix is a
//! different literal, the suggestion is that literal.

use std::fmt;

use tisslang::cost::{Dim, DimUnit};

use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::PathView;
use crate::syntax::ast::{Budget, CmpOp, Cond, Expr, ExprKind, PathRoot};
use crate::syntax::span::Span;

use super::path_text;
use super::ty::Rec;
use super::ty::Ty;
use crate::check::Ctx;
use crate::check::literals::{as_literal_of, quote, split_duration};

/// ENV values and WRITE/APPEND FROM take one value, not a record. `what`
/// (here and below) is formatted only if there is something to report.
pub(crate) fn scalar(cx: &mut Ctx<'_>, expr: &Expr, ty: Option<Ty>, what: fmt::Arguments<'_>) {
    if let (Some(Ty::Record(rec)), Some(path)) = (ty, expr.path(cx.src)) {
        let text = path_text(path, path.fields.len());
        let d = Diagnostic::error(
            codes::RECORD_AS_VALUE,
            expr.span(),
            format!("{what} must be a single value, but `{text}` is {}", rec.describe()),
        );
        cx.emit(with_fields(d, path, rec, None));
    }
}

/// `${x}` inserts one value.
pub(crate) fn interpolated(cx: &mut Ctx<'_>, path: PathView<'_>, ty: Option<Ty>) {
    if let Some(Ty::Record(rec)) = ty {
        let text = path_text(path, path.fields.len());
        let d = Diagnostic::error(
            codes::RECORD_AS_VALUE,
            path.span,
            format!("`${{{text}}}` would insert {}; interpolate one of its fields", rec.describe()),
        );
        cx.emit(with_fields(d, path, rec, None));
    }
}

/// The operands of CONTAINS, STARTS_WITH, ENDS_WITH, MATCHES, IS_EMPTY and
/// FILE ... CONTAINS are strings.
pub(crate) fn string_operand(cx: &mut Ctx<'_>, expr: &Expr, ty: Option<Ty>, what: fmt::Arguments<'_>) {
    match (ty, expr.path(cx.src)) {
        (None | Some(Ty::Str), _) => {}
        (Some(Ty::Record(rec)), Some(path)) => {
            let text = path_text(path, path.fields.len());
            let d = Diagnostic::error(
                codes::RECORD_AS_VALUE,
                expr.span(),
                format!("{what} needs a string, but `{text}` is {}", rec.describe()),
            );
            cx.emit(with_fields(d, path, rec, Some(Ty::Str)));
        }
        (Some(ty), _) => {
            let text = expr_text(cx, expr);
            let mut d = Diagnostic::error(
                codes::TYPE_MISMATCH,
                expr.span(),
                format!("{what} needs a string, but `{text}` is {}", ty.describe()),
            );
            if is_scalar_literal(expr) {
                let quoted = quote(&text);
                d = d.with_suggestion("write it as a string", expr.span(), quoted);
            }
            cx.emit(d);
        }
    }
}

/// A bare expression used as a condition must be a boolean.
pub(crate) fn boolean(cx: &mut Ctx<'_>, expr: &Expr, ty: Option<Ty>) {
    let ty = match ty {
        None | Some(Ty::Bool) => return,
        Some(ty) => ty,
    };
    let text = expr_text(cx, expr);
    if let (Ty::Record(rec), Some(path)) = (ty, expr.path(cx.src)) {
        let d = Diagnostic::error(
            codes::RECORD_AS_VALUE,
            expr.span(),
            format!("a condition must be a boolean, but `{text}` is {}", rec.describe()),
        );
        cx.emit(with_fields(d, path, rec, Some(Ty::Bool)));
        return;
    }
    let mut d = Diagnostic::error(
        codes::NOT_A_BOOLEAN,
        expr.span(),
        format!("a condition must be a boolean, but `{text}` is {}", ty.describe()),
    );
    if let Some(fix) = expr.literal(cx.src).and_then(|t| as_literal_of(t, Ty::Bool)) {
        d = d.with_suggestion("write the boolean", expr.span(), fix);
    } else {
        d = d.with_note(format!("compare it with something, e.g. `{text} == ...`"));
    }
    cx.emit(d);
}

pub(crate) fn compare(
    cx: &mut Ctx<'_>,
    cond: &Cond,
    (lhs, lty): (&Expr, Option<Ty>),
    op: CmpOp,
    (rhs, rty): (&Expr, Option<Ty>),
) {
    // Bare COST first: compared with a duration it is COST.EXECUTION_TIME.
    let bare = if is_bare_cost(lhs) {
        Some((lhs, rty))
    } else if is_bare_cost(rhs) {
        Some((rhs, lty))
    } else {
        None
    };
    if let Some((cost, other)) = bare {
        match other {
            None | Some(Ty::Duration) => {}
            Some(other) => ambiguous_cost(cx, cond, cost.span(), other),
        }
        return;
    }

    let mut records = false;
    for (side, ty, other) in [(lhs, lty, rty), (rhs, rty, lty)] {
        if let (Some(Ty::Record(rec)), Some(path)) = (ty, side.path(cx.src)) {
            records = true;
            let text = path_text(path, path.fields.len());
            let d = Diagnostic::error(
                codes::RECORD_AS_VALUE,
                side.span(),
                format!("`{}` compares single values, but `{text}` is {}", op.symbol(), rec.describe()),
            );
            let want = other.filter(|t| t.record().is_none());
            cx.emit(with_fields(d, path, rec, want));
        }
    }
    if records {
        return;
    }

    let (Some(l), Some(r)) = (lty, rty) else {
        // One side unknown: an ordering can still be wrong for the other.
        if let Some(t) = lty.or(rty) {
            not_ordered(cx, cond, op, t);
        }
        return;
    };
    if l != r {
        mismatch(cx, cond, (lhs, l), op, (rhs, r));
    } else {
        not_ordered(cx, cond, op, l);
    }
}

fn mismatch(cx: &mut Ctx<'_>, cond: &Cond, (lhs, l): (&Expr, Ty), op: CmpOp, (rhs, r): (&Expr, Ty)) {
    // A literal is the likelier mistake (`EXIT_CODE == "0"`): point at it.
    let (wrong, expected) = if is_literal(rhs) {
        (Some(rhs), l)
    } else if is_literal(lhs) {
        (Some(lhs), r)
    } else {
        (None, l)
    };
    let mut d = Diagnostic::error(
        codes::TYPE_MISMATCH,
        wrong.map_or(cond.span(), |e| e.span()),
        format!(
            "`{}` compares {} with {}; both sides must have the same type",
            op.symbol(),
            l.describe(),
            r.describe()
        ),
    )
    .with_label(lhs.span(), l.describe())
    .with_label(rhs.span(), r.describe());
    if let Some(wrong) = wrong {
        let fix = match wrong.kind() {
            ExprKind::Str { .. } | ExprKind::Text { .. } => {
                wrong.literal(cx.src).and_then(|t| as_literal_of(t, expected))
            }
            _ if expected == Ty::Str => Some(quote(&expr_text(cx, wrong))),
            _ => None,
        };
        if let Some(fix) = fix {
            let message = format!("write it as {}", expected.describe());
            d = d.with_suggestion(message, wrong.span(), fix);
        }
    }
    cx.emit(d);
}

/// `<`, `<=`, `>`, `>=` take integers or durations.
fn not_ordered(cx: &mut Ctx<'_>, cond: &Cond, op: CmpOp, ty: Ty) {
    if op.is_ordering() && !matches!(ty, Ty::Int | Ty::Duration) {
        cx.emit(
            Diagnostic::error(
                codes::NOT_ORDERED,
                cond.span(),
                format!("`{}` needs integers or durations, not {}s", op.symbol(), noun(ty)),
            )
            .with_note("only integers and durations have an order; use `==` or `!=`"),
        );
    }
}

/// "string", "boolean": plural-friendly names for messages.
fn noun(ty: Ty) -> &'static str {
    match ty {
        Ty::Str => "string",
        Ty::Int => "integer",
        Ty::Duration => "duration",
        Ty::Bool => "boolean",
        Ty::Record(_) => "record",
        Ty::Answer(_) => "typed answer",
    }
}

/// E0207: one suggestion per counted dimension, each showing the whole
/// rewritten condition.
fn ambiguous_cost(cx: &mut Ctx<'_>, cond: &Cond, cost: Span, other: Ty) {
    let mut d = Diagnostic::error(
        codes::AMBIGUOUS_COST,
        cost,
        format!("bare `COST` compared with {} is ambiguous: name the dimension", other.describe()),
    )
    .with_note("bare `COST` means `COST.EXECUTION_TIME` only when compared with a duration");
    let text = cx.text(cond.span());
    // The text around COST within the condition (none if the spans disagree).
    let around = cost
        .start
        .checked_sub(cond.span().start)
        .zip(cost.end.checked_sub(cond.span().start))
        .and_then(|(a, b)| Some((text.get(..a as usize)?, text.get(b as usize..)?)));
    for dim in Dim::ALL.into_iter().filter(|d| d.unit() == DimUnit::Count) {
        let replacement = format!("COST.{}", dim.name());
        let message = match around {
            Some((before, after)) => format!("rewrite as `{before}{replacement}{after}`"),
            None => format!("rewrite as `{replacement}`"),
        };
        d = d.with_suggestion(message, cost, replacement);
    }
    cx.emit(d);
}

/// `SET_BUDGET DIM = value`: a duration for EXECUTION_TIME, a non-negative
/// integer otherwise, written as a literal (budgets are known before the run).
pub(crate) fn budget(cx: &mut Ctx<'_>, budget: &Budget, ty: Option<Ty>) {
    let dim = budget.dim;
    let value = &budget.value;
    if cx.is_rejected_number(value.span()) {
        return;
    }
    let (want, wanted) = match dim.unit() {
        DimUnit::Time => (Ty::Duration, "a duration such as `30s` or `5m`"),
        DimUnit::Count => (Ty::Int, "a non-negative integer"),
    };
    let found = match (value.kind(), want) {
        (ExprKind::Duration { .. }, Ty::Duration) => return,
        (ExprKind::Int { value: v }, Ty::Int) if v >= 0 => return,
        (ExprKind::Int { .. }, Ty::Int) => "a negative integer".to_string(),
        (ExprKind::Path { .. } | ExprKind::Var { .. } | ExprKind::LastRun { .. }, _) => match ty {
            Some(t) => format!("a variable ({}); budgets take a literal", t.describe()),
            None => "a variable; budgets take a literal".to_string(),
        },
        _ => ty.map_or("something else", Ty::describe).to_string(),
    };
    let mut d = Diagnostic::error(
        codes::BUDGET_VALUE_TYPE,
        value.span(),
        format!("`SET_BUDGET {}` takes {wanted}, but this is {found}", dim.name()),
    );
    let fix = match value.kind() {
        ExprKind::Str { .. } | ExprKind::Text { .. } => {
            value.literal(cx.src).and_then(|t| as_literal_of(t, want)).filter(|f| !f.starts_with('-'))
        }
        ExprKind::Duration { .. } => split_duration(cx.text(value.span())).map(|(n, _)| n.to_string()),
        _ => None,
    };
    if let Some(fix) = fix {
        d = d.with_suggestion(format!("write it as {}", want.describe()), value.span(), fix);
    } else if let ExprKind::Int { value: v } = value.kind()
        && want == Ty::Duration
    {
        // Seconds or minutes? Not ours to guess.
        d = d.with_note(format!("give the number a unit: `{v}s`, `{v}m`, `{v}h` or `{v}ms`"));
    }
    cx.emit(d);
}

/// The record's fields as replacements for the whole path, those of type
/// `want` only when it is known.
fn with_fields(mut d: Diagnostic, path: PathView<'_>, rec: Rec, want: Option<Ty>) -> Diagnostic {
    let text = path_text(path, path.fields.len());
    let mut any = false;
    for &(field, ty) in rec.fields() {
        if want.is_none_or(|w| w == ty) {
            any = true;
            let replacement = format!("{text}.{field}");
            d = d.with_suggestion(format!("use the {} field", noun(ty)), path.span, replacement);
        }
    }
    if !any && let Some(w) = want {
        d = d.with_note(format!("{} has no field that is {}", rec.describe(), w.describe()));
    }
    d
}

fn is_bare_cost(expr: &Expr) -> bool {
    matches!(expr.kind(), ExprKind::Path { path } if matches!(path.root, PathRoot::Cost { .. }) && path.fields.is_empty())
}

fn is_literal(expr: &Expr) -> bool {
    match expr.kind() {
        ExprKind::Str { value } => value.as_literal().is_some(),
        ExprKind::Text { .. } => true,
        ExprKind::Path { .. } | ExprKind::Var { .. } | ExprKind::LastRun { .. } => false,
        _ => true,
    }
}

fn is_scalar_literal(expr: &Expr) -> bool {
    matches!(expr.kind(), ExprKind::Int { .. } | ExprKind::Duration { .. } | ExprKind::Bool { .. })
}

/// How the expression is written, for messages.
fn expr_text(cx: &Ctx<'_>, expr: &Expr) -> String {
    match cx.text(expr.span()) {
        "" => match expr.kind() {
            ExprKind::Path { .. } | ExprKind::Var { .. } | ExprKind::LastRun { .. } => {
                expr.path(cx.src).map(|path| path_text(path, path.fields.len())).unwrap_or_default()
            }
            ExprKind::Int { value } => value.to_string(),
            ExprKind::Bool { value: true } => "TRUE".to_string(),
            ExprKind::Bool { value: false } => "FALSE".to_string(),
            ExprKind::Duration { millis } => format!("{millis}ms"),
            ExprKind::Str { .. } | ExprKind::Text { .. } => "\"...\"".to_string(),
        },
        text => text.to_string(),
    }
}
