//! Type resolution (book: reference/expressions.md): each variable's one type, conflicting bindings
//! (E0206), and the type of a path with its field accesses (E0202, E0216).

use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{ExprKind, IdentView, PathView, RootView};
use tiss_support::suggest;
use tisslang::answer::{Shape, Shapes};

use super::Ctx;
use super::symbols::{BindSource, Symbols};
pub(crate) mod ty;
pub(super) mod values;

use ty::{Rec, Ty};

/// The type of every variable, by id; `None` when no binding has a type we
/// can know (e.g. `VAR x = undefined`), which silences checks on its uses.
pub(crate) type VarTypes = Vec<Option<Ty>>;

/// Gives every variable the type of its first typed binding, then reports
/// every later binding of another type (E0206).
pub(crate) fn resolve(syms: &Symbols<'_>, shapes: &Shapes, cx: &mut Ctx<'_>) -> VarTypes {
    let types = infer(syms, shapes);
    for var in &syms.vars {
        let mut first = None;
        for binding in var.bindings() {
            let Some(bty) = binding_ty(syms, shapes, &types, &binding.source) else { continue };
            let Some((first_span, ty)) = first else {
                first = Some((binding.span, bty));
                continue;
            };
            if bty != ty {
                let line = cx.line(first_span);
                cx.emit(
                    Diagnostic::error(
                        codes::CONFLICTING_TYPES,
                        binding.span,
                        format!(
                            "`{}` is bound to {} here, but it was first bound to {} (line {line})",
                            var.name,
                            bty.describe(),
                            ty.describe()
                        ),
                    )
                    .with_label(first_span, format!("first bound to {} here", ty.describe()))
                    .with_note("a variable has one type in the whole plan; use another name"),
                );
            }
        }
    }
    types
}

/// The type of one binding given the variable types known so far
/// (`None` if it depends on a variable whose type is not known).
fn binding_ty(syms: &Symbols<'_>, shapes: &Shapes, types: &VarTypes, source: &BindSource<'_>) -> Option<Ty> {
    let expr = match source {
        BindSource::Fixed(ty) => return Some(*ty),
        BindSource::Expr(expr) => expr,
    };
    match expr.kind() {
        ExprKind::Str { .. } | ExprKind::Text { .. } => Some(Ty::Str),
        ExprKind::Int { .. } => Some(Ty::Int),
        ExprKind::Duration { .. } => Some(Ty::Duration),
        ExprKind::Bool { .. } => Some(Ty::Bool),
        ExprKind::Path { .. } | ExprKind::Var { .. } | ExprKind::LastRun { .. } => {
            let path = expr.path(syms.src)?;
            let root = match &path.root {
                RootView::Var { ident } => types[syms.var(ident.name)? as usize]?,
                RootView::LastRun { .. } => Ty::Record(Rec::LastRun),
                RootView::Cost { .. } => Ty::Record(Rec::Cost),
            };
            path.fields.iter().try_fold(root, |ty, f| field_of(shapes, ty, f.name))
        }
    }
}

/// The variable a binding copies its type from (`VAR y = x.FIELD` → x).
fn depends_on(syms: &Symbols<'_>, source: &BindSource<'_>) -> Option<u32> {
    match source {
        BindSource::Expr(expr) => match expr.path(syms.src)?.root {
            RootView::Var { ident } => syms.var(ident.name),
            _ => None,
        },
        BindSource::Fixed(_) => None,
    }
}

#[derive(Clone, Copy, PartialEq)]
enum State {
    Unvisited,
    InProgress,
    Done,
}

/// Each variable's type: that of its first binding (in source order) whose
/// type is known. `VAR y = x` needs x first; an explicit stack (not
/// recursion) follows such chains, so a long chain cannot overflow the stack,
/// and a cycle (`VAR a = b` ... `VAR b = a`) just leaves the binding untyped.
pub(crate) fn infer(syms: &Symbols<'_>, shapes: &Shapes) -> VarTypes {
    let n = syms.vars.len();
    let mut types: VarTypes = vec![None; n];
    let mut state = vec![State::Unvisited; n];
    // (variable, index of the binding being tried)
    let mut stack: Vec<(u32, usize)> = Vec::new();
    for start in 0..n as u32 {
        if state[start as usize] != State::Unvisited {
            continue;
        }
        stack.push((start, 0));
        state[start as usize] = State::InProgress;
        while let Some(&mut (var, ref mut next)) = stack.last_mut() {
            let Some(binding) = syms.vars[var as usize].binding(*next) else {
                state[var as usize] = State::Done;
                stack.pop();
                continue;
            };
            if let Some(dep) = depends_on(syms, &binding.source)
                && state[dep as usize] == State::Unvisited
            {
                state[dep as usize] = State::InProgress;
                stack.push((dep, 0));
                continue;
            }
            match binding_ty(syms, shapes, &types, &binding.source) {
                Some(ty) => {
                    types[var as usize] = Some(ty);
                    state[var as usize] = State::Done;
                    stack.pop();
                }
                None => *next += 1,
            }
        }
    }
    types
}

/// The type a value of shape `shape` has in the checker: a leaf is a
/// string (an enum too), an integer or a boolean; a list or record stays a
/// typed answer.
pub(crate) fn shape_ty(shapes: &Shapes, shape: u32) -> Ty {
    match shapes.get(shape) {
        Some(Shape::Int) => Ty::Int,
        Some(Shape::Bool) => Ty::Bool,
        Some(Shape::List(_) | Shape::Record(_)) => Ty::Answer(shape),
        Some(Shape::Str | Shape::Enum(_)) | None => Ty::Str,
    }
}

/// The type of field `name` of a value of type `ty`, if it has one.
fn field_of(shapes: &Shapes, ty: Ty, name: &str) -> Option<Ty> {
    match ty {
        Ty::Record(rec) => rec.field(name),
        Ty::Answer(shape) => shapes.field(shape, name).map(|(_, f)| shape_ty(shapes, f.shape)),
        _ => None,
    }
}

/// Applies a path's fields to the type of its root, reporting the first
/// field that does not exist (E0202) or is taken of a non-record (E0216).
pub(crate) fn fields_ty(cx: &mut Ctx<'_>, shapes: &Shapes, path: PathView<'_>, root: Ty) -> Option<Ty> {
    let mut ty = root;
    for (i, field) in path.fields.iter().enumerate() {
        if let Ty::Answer(shape) = ty {
            match shapes.get(shape) {
                Some(Shape::Record(fields)) => match field_of(shapes, ty, field.name) {
                    Some(t) => ty = t,
                    None => {
                        cx.emit(unknown_answer_field(shapes, path, i, fields, field));
                        return None;
                    }
                },
                _ => {
                    let owner = path_text(path, i);
                    cx.emit(
                        Diagnostic::error(
                            codes::FIELD_OF_NON_RECORD,
                            field.span,
                            format!(
                                "`{owner}` is a list ({}): it has no field `{}`",
                                shapes.describe(shape),
                                field.name
                            ),
                        )
                        .with_note(format!(
                            "test a list with `{owner} CONTAINS value` or `{owner} IS_EMPTY`"
                        )),
                    );
                    return None;
                }
            }
            continue;
        }
        let Some(rec) = ty.record() else {
            cx.emit(non_record(path, i, ty, field));
            return None;
        };
        match rec.field(field.name) {
            Some(t) => ty = t,
            None => {
                cx.emit(unknown_field(path, i, rec, field));
                return None;
            }
        }
    }
    Some(ty)
}

fn unknown_answer_field(
    shapes: &Shapes,
    path: PathView<'_>,
    i: usize,
    fields: &[tisslang::answer::ShapeField<Box<str>>],
    field: IdentView<'_>,
) -> Diagnostic {
    let owner = path_text(path, i);
    let mut d = Diagnostic::error(
        codes::UNKNOWN_FIELD,
        field.span,
        format!("`{owner}` (a typed record) has no field `{}`", field.name),
    );
    if let Some(best) = suggest::closest(field.name, fields.iter().map(|f| &*f.name)) {
        d = d.with_suggestion("a field with a similar name exists", field.span, best);
    }
    let list: Vec<String> = fields
        .iter()
        .map(|f| format!("{}{}: {}", f.name, if f.optional { "?" } else { "" }, shapes.describe(f.shape)))
        .collect();
    d.with_note(format!("its fields are {}", list.join(", ")))
}

fn unknown_field(path: PathView<'_>, i: usize, rec: Rec, field: IdentView<'_>) -> Diagnostic {
    let owner = path_text(path, i);
    let mut d = Diagnostic::error(
        codes::UNKNOWN_FIELD,
        field.span,
        match path.root {
            // A variable's name does not say what it holds; LAST_RUN and COST do.
            RootView::Var { .. } => {
                format!("`{owner}` ({}) has no field `{}`", rec.describe(), field.name)
            }
            _ => format!("`{owner}` has no field `{}`", field.name),
        },
    );
    if let Some(best) = suggest::closest(field.name, rec.field_names()) {
        d = d.with_suggestion("a field with a similar name exists", field.span, best);
    }
    let list: Vec<&str> = rec.field_names().collect();
    d.with_note(format!("its fields are {}", list.join(", ")))
}

fn non_record(path: PathView<'_>, i: usize, ty: Ty, field: IdentView<'_>) -> Diagnostic {
    let owner = path_text(path, i);
    Diagnostic::error(
        codes::FIELD_OF_NON_RECORD,
        field.span,
        format!("`{owner}` is {}, not a record: it has no field `{}`", ty.describe(), field.name),
    )
}

/// The path up to field `upto` (exclusive), printed canonically: `LAST_RUN.STDOUT`.
pub(crate) fn path_text(path: PathView<'_>, upto: usize) -> String {
    let mut out = match &path.root {
        RootView::Var { ident } => ident.name.to_string(),
        RootView::LastRun { .. } => "LAST_RUN".to_string(),
        RootView::Cost { .. } => "COST".to_string(),
    };
    for field in path.fields.upto(upto) {
        out.push('.');
        out.push_str(field.name);
    }
    out
}
