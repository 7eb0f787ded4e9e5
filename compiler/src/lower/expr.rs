//! Expressions, strings and conditions: each pushes exactly one value.

use tisslang::isa::Instr;
use tisslang::module::{Constant, Observed, PathRef, PathRootRef};
use tisslang::types::{Field, ValueType};

use super::Unit;
use crate::syntax::ast::{
    CmpOp, Cond, CondKind, Expr, ExprKind, FileTest, PathRoot, PathView, RootView, StrLit, StrOp, StrPart,
    TestOp,
};
use crate::syntax::span::Span;
use crate::syntax::text::Text;

impl Unit<'_, '_> {
    /// Pushes the value of an expression; returns its static type.
    pub(super) fn expr(&mut self, expr: &Expr) -> ValueType {
        match expr.kind() {
            ExprKind::Str { value } => {
                self.string(value, false);
                ValueType::Str
            }
            ExprKind::Text => {
                let s = self.tables.source_string(self.tables.raw_span(expr.span()));
                let c = self.tables.constant(Constant::Str(s));
                self.emit(Instr::PushConst { index: c });
                ValueType::Str
            }
            ExprKind::Int { value } => {
                let c = self.tables.constant(Constant::Int(value));
                self.emit(Instr::PushConst { index: c });
                ValueType::Int
            }
            ExprKind::Duration { millis } => {
                let c = self.tables.constant(Constant::Duration(millis));
                self.emit(Instr::PushConst { index: c });
                ValueType::Duration
            }
            ExprKind::Bool { value } => {
                self.bool_const(value);
                ValueType::Bool
            }
            ExprKind::Path { path } => self.path(path.view()),
            ExprKind::Var => {
                let name = self.var_name(expr);
                self.path(PathView::var(&name, expr.span()))
            }
            ExprKind::LastRun { field, at } => self.path(PathView::last_run(field, at, expr.span())),
        }
    }

    pub(super) fn bool_const(&mut self, value: bool) {
        let c = self.tables.constant(Constant::Bool(value));
        self.emit(Instr::PushConst { index: c });
    }

    /// The static type of an expression, without emitting anything.
    pub(super) fn expr_type(&self, expr: &Expr) -> ValueType {
        let path = match expr.kind() {
            ExprKind::Str { .. } | ExprKind::Text { .. } => return ValueType::Str,
            ExprKind::Int { .. } => return ValueType::Int,
            ExprKind::Duration { .. } => return ValueType::Duration,
            ExprKind::Bool { .. } => return ValueType::Bool,
            ExprKind::Path { path } => path.view(),
            ExprKind::Var => PathView::var(self.tables.file.slice(expr.span()), expr.span()),
            ExprKind::LastRun { field, at } => PathView::last_run(field, at, expr.span()),
        };
        let slot = self.root_slot(path);
        match static_type(expr, self.tables) {
            Some(ty) if self.answer_slot(slot).is_some() => ty,
            _ => self.path_ref(path, slot).1,
        }
    }

    /// A path as the VM evaluates it directly, and its type, given the slot
    /// of its root ([`Self::root_slot`]): a path's name is looked up once
    /// however many times it is used.
    fn path_ref(&self, path: PathView<'_>, slot: Option<u32>) -> (PathRef, ValueType) {
        let (root, mut ty) = match &path.root {
            RootView::Var { .. } => {
                let slot = slot.unwrap_or(u32::MAX);
                (PathRootRef::Slot(slot), self.tables.slot_type(slot))
            }
            RootView::LastRun { .. } => (PathRootRef::LastRun, ValueType::LastRun),
            RootView::Cost { .. } => (PathRootRef::Cost, ValueType::Cost),
        };
        let mut fields = Vec::with_capacity(path.fields.len());
        for f in path.fields {
            // The checker guarantees the field exists on this record.
            if let Some(field) = Field::from_name(f.name) {
                ty = field.value_type();
                fields.push(field as u8);
            }
        }
        (PathRef { root, fields }, ty)
    }

    /// Pushes a path's value; returns its type. A typed answer's fields
    /// are `MEMBER`s, the built-in records' `FIELD`s.
    pub(super) fn path(&mut self, path: PathView<'_>) -> ValueType {
        let root = self.root_slot(path);
        if let Some(slot) = self.answer_slot(root) {
            self.emit(Instr::Load { slot });
            let mut ty = self.tables.slot_type(slot);
            for f in path.fields {
                let ValueType::Answer(shape) = ty else { break };
                // The checker guarantees the field exists on this record.
                let Some((index, field)) = self.tables.answers.shapes.field(shape, f.name) else { break };
                let field_shape = field.shape;
                self.emit(Instr::Member { index: index as u32 });
                ty = self.tables.shape_type(field_shape);
            }
            return ty;
        }
        let (path_ref, ty) = self.path_ref(path, root);
        match path_ref.root {
            PathRootRef::Slot(slot) => self.emit(Instr::Load { slot }),
            PathRootRef::LastRun => self.emit(Instr::LastRun {}),
            PathRootRef::Cost => self.emit(Instr::Cost {}),
        };
        for field in path_ref.fields {
            self.emit(Instr::Field { field });
        }
        ty
    }

    /// The slot of a path's root variable (none for LAST_RUN and COST).
    fn root_slot(&self, path: PathView<'_>) -> Option<u32> {
        let RootView::Var { ident } = &path.root else { return None };
        self.tables.existing_slot(ident.name)
    }

    /// The root's slot (from [`Self::root_slot`]) when it holds a typed list or record.
    fn answer_slot(&self, slot: Option<u32>) -> Option<u32> {
        slot.filter(|&slot| matches!(self.tables.slot_type(slot), ValueType::Answer(_)))
    }

    /// A bare variable's name, copied out of the source text, which the
    /// tables may own (inline: a name is short); "" for any other expression.
    fn var_name(&self, expr: &Expr) -> Text {
        Text::new(self.tables.var_name(expr))
    }

    /// `r.files EXISTS`: the record, then whether it has the field.
    fn exists(&mut self, operand: &Expr) {
        let name = self.var_name(operand);
        let Some(path) = operand.path_named(&name) else { return self.bool_const(false) };
        let Some((last, init)) = path.fields.split_last() else { return self.bool_const(false) };
        let ty = self.path(PathView { fields: init, ..path });
        let index = match ty {
            ValueType::Answer(shape) => {
                self.tables.answers.shapes.field(shape, last.name).map(|(i, _)| i as u32)
            }
            _ => None,
        };
        // The checker guarantees a typed record with that optional field.
        self.emit(Instr::HasMember { index: index.unwrap_or(u32::MAX) });
    }

    /// Pushes a string literal: a constant, or its holes then `INTERP`
    /// (`INTERP_SHELL` for RUN command strings, which quotes every value).
    pub(super) fn string(&mut self, lit: &StrLit, shell: bool) {
        if let Some(text) = lit.as_literal() {
            return self.text(text, lit.span);
        }
        let mut holes = 0;
        for part in &lit.parts {
            if let StrPart::Interp { path } = part {
                self.path(path.view());
                holes += 1;
            }
        }
        let template = self.tables.template(lit);
        if shell {
            self.emit(Instr::InterpShell { template, holes });
        } else {
            self.emit(Instr::Interp { template, holes });
        }
    }

    /// Pushes the text of a literal without interpolation, written at `span`.
    fn text(&mut self, text: &str, span: Span) {
        // A literal without escapes is its own source text.
        let s = if self.tables.raw_text(span) == text {
            self.tables.source_string(self.tables.raw_span(span))
        } else {
            self.tables.string(text)
        };
        let c = self.tables.constant(Constant::Str(s));
        self.emit(Instr::PushConst { index: c });
    }

    /// An operand of a comparison: bare `COST` against a duration means
    /// `COST.EXECUTION_TIME` (book: reference/costs.md).
    fn operand(&mut self, expr: &Expr, other: &Expr) -> ValueType {
        let bare_cost = matches!(expr.kind(), ExprKind::Path { path } if matches!(path.root, PathRoot::Cost { .. }) && path.fields.is_empty());
        if bare_cost && self.expr_type(other) == ValueType::Duration {
            self.emit(Instr::Cost {});
            self.emit(Instr::Field { field: Field::ExecutionTime as u8 });
            return ValueType::Duration;
        }
        self.expr(expr)
    }

    /// Pushes the boolean value of a condition: AND / OR combine their
    /// operands' values where every operand is [`inert`], and
    /// short-circuit otherwise.
    pub(super) fn cond(&mut self, cond: &Cond) {
        self.cond_known(cond, false);
    }

    /// [`Unit::cond`], told whether `cond` is already known [`inert`]
    /// (so a chain inside a chain is not looked through again).
    fn cond_known(&mut self, cond: &Cond, known_inert: bool) {
        match &cond.kind {
            CondKind::Or { operands, .. } | CondKind::And { operands, .. } => {
                let is_or = matches!(cond.kind, CondKind::Or { .. });
                if known_inert || inert(cond) {
                    self.combine(operands, is_or);
                } else {
                    self.short_circuit(operands, is_or);
                }
            }
            CondKind::Not { operand, .. } => {
                self.cond_known(operand, known_inert);
                self.emit(Instr::Not {});
            }
            CondKind::File { file, .. } => {
                self.string(&file.path, false);
                self.record_path(&file.path, tisslang::module::PathAccess::Inspect);
                match &file.test {
                    FileTest::Exists => self.emit(Instr::FileExists {}),
                    FileTest::IsEmpty => self.emit(Instr::FileIsEmpty {}),
                    FileTest::Contains { needle } => {
                        self.expr(needle);
                        self.emit(Instr::FileContains {})
                    }
                };
            }
            CondKind::IsEmpty { operand, .. } => {
                let ty = self.expr(operand);
                self.emit(if matches!(ty, ValueType::Answer(_)) {
                    Instr::ListIsEmpty {}
                } else {
                    Instr::IsEmpty {}
                });
            }
            CondKind::Exists { operand, .. } => self.exists(operand),
            CondKind::Test(test) => match test.op() {
                TestOp::Str { op, negated } => self.str_test(test.lhs(), op, negated, test.rhs()),
                TestOp::Compare(op) => self.compare(test.lhs(), op, test.rhs()),
            },
            CondKind::Expr { expr, .. } => {
                self.expr(expr);
            }
        }
    }

    /// `lhs op rhs`, a string test (`NOT op` when `negated`).
    fn str_test(&mut self, lhs: &Expr, op: StrOp, negated: bool, rhs: &Expr) {
        let lty = self.expr(lhs);
        if let (ValueType::Answer(_), StrOp::Contains) = (lty, op) {
            self.expr(rhs);
            self.emit(Instr::ListContains {});
            if negated {
                self.emit(Instr::Not {});
            }
            return;
        }
        let literal_regex = match op {
            StrOp::Matches => match rhs.kind() {
                ExprKind::Text => Some(Text::new(self.tables.raw_text(rhs.span()))),
                ExprKind::Str { value } => value.as_literal().map(Text::new),
                _ => None,
            },
            _ => None,
        };
        if let Some(pattern) = literal_regex {
            let regex = self.tables.regex(&pattern);
            self.emit(Instr::Matches { regex });
        } else {
            self.expr(rhs);
            self.emit(match op {
                StrOp::Contains => Instr::Contains {},
                StrOp::StartsWith => Instr::StartsWith {},
                StrOp::EndsWith => Instr::EndsWith {},
                StrOp::Matches => Instr::MatchesDynamic {},
            });
        }
        if negated {
            self.emit(Instr::Not {});
        }
    }

    /// `lhs op rhs`, a comparison.
    fn compare(&mut self, lhs: &Expr, op: CmpOp, rhs: &Expr) {
        self.operand(lhs, rhs);
        self.operand(rhs, lhs);
        self.emit(match op {
            CmpOp::Eq => Instr::Eq {},
            CmpOp::Ne => Instr::Ne {},
            CmpOp::Lt => Instr::Lt {},
            CmpOp::Le => Instr::Le {},
            CmpOp::Gt => Instr::Gt {},
            CmpOp::Ge => Instr::Ge {},
        });
    }

    /// `a OR b OR c` of [`inert`] operands: `a; b; OR; c; OR` (AND the
    /// same). Straight-line code: no jump, no join, so nothing for the
    /// verifier to meet and fewer instructions than jumping over the rest.
    fn combine(&mut self, operands: &[Cond], is_or: bool) {
        for (i, operand) in operands.iter().enumerate() {
            self.cond_known(operand, true);
            if i > 0 {
                self.emit(if is_or { Instr::Or {} } else { Instr::And {} });
            }
        }
    }

    /// `a OR b OR c`: `a; JUMP_IF_TRUE done_true; b; JUMP_IF_TRUE done_true; c;
    /// JUMP end; done_true: PUSH TRUE; end:` (AND mirrors it with false).
    /// Operands next to each other that are all [`inert`] are combined, and
    /// jumped from once: `a == "x" AND b == "y" AND FILE "f" EXISTS` is `a ==
    /// "x"; b == "y"; AND; JUMP_IF_FALSE …; FILE "f" EXISTS; …`.
    fn short_circuit(&mut self, operands: &[Cond], is_or: bool) {
        let depth = self.depth;
        let mut exits = Vec::new();
        let mut exit_bound = None;
        let is_inert: Vec<bool> = operands.iter().map(inert).collect();
        let mut groups = Vec::new();
        let mut start = 0;
        for i in 1..=operands.len() {
            if i == operands.len() || !(is_inert[i - 1] && is_inert[i]) {
                groups.push(start..i);
                start = i;
            }
        }
        for (g, group) in groups.iter().enumerate() {
            match &operands[group.clone()] {
                [operand] => self.cond_known(operand, is_inert[group.start]),
                run => self.combine(run, is_or),
            }
            if g + 1 < groups.len() {
                let jump = if is_or {
                    self.emit(Instr::JumpIfTrue { target: 0 })
                } else {
                    self.emit(Instr::JumpIfFalse { target: 0 })
                };
                exits.push(jump);
                // The path that leaves here.
                exit_bound = Some(match exit_bound {
                    None => self.acc,
                    Some(b) => self.acc.either(&b),
                });
            }
        }
        let skip = self.emit(Instr::Jump { target: 0 });
        let through = self.acc;
        for exit in exits {
            self.patch(exit);
        }
        self.depth = depth;
        self.acc = exit_bound.unwrap_or(through);
        self.bool_const(is_or);
        self.patch(skip);
        self.acc = self.acc.either(&through);
        self.depth = depth + 1;
    }

    /// The paths a condition reads, each once, in source order.
    pub(super) fn observed(&mut self, cond: &Cond, out: &mut Vec<Observed>) {
        let visit_expr = |unit: &mut Self, expr: &Expr, out: &mut Vec<Observed>| {
            let name = unit.var_name(expr);
            if let Some(path) = expr.path_named(&name) {
                // A typed answer is observed whole (its JSON), by its name.
                let root = unit.root_slot(path);
                if let (Some(slot), RootView::Var { ident }) = (unit.answer_slot(root), &path.root) {
                    let text_index = unit.tables.source_string(ident.span);
                    if !out.iter().any(|o| o.text == text_index) {
                        out.push(Observed {
                            text: text_index,
                            path: PathRef { root: PathRootRef::Slot(slot), fields: Vec::new() },
                        });
                    }
                    return;
                }
                // A bare variable's text is its name, already its slot's
                // string (slot `i` is named by string `i`): nothing to
                // format or look up.
                let text_index = match root {
                    Some(slot) if path.fields.is_empty() => slot,
                    _ => unit.tables.source_code(path.span),
                };
                if !out.iter().any(|o| o.text == text_index) {
                    let (path, _) = unit.path_ref(path, root);
                    out.push(Observed { text: text_index, path });
                }
            }
        };
        match &cond.kind {
            CondKind::Or { operands, .. } | CondKind::And { operands, .. } => {
                for c in operands {
                    self.observed(c, out);
                }
            }
            CondKind::Not { operand, .. } => self.observed(operand, out),
            CondKind::File { file, .. } => {
                if let FileTest::Contains { needle } = &file.test {
                    visit_expr(self, needle, out)
                }
            }
            CondKind::IsEmpty { operand, .. }
            | CondKind::Expr { expr: operand, .. }
            | CondKind::Exists { operand, .. } => visit_expr(self, operand, out),
            CondKind::Test(test) => {
                visit_expr(self, test.lhs(), out);
                visit_expr(self, test.rhs(), out);
            }
        }
    }
}

/// The type of an expression from the declared slots; `None` while a
/// variable it copies has no known type yet.
pub(crate) fn static_type(expr: &Expr, tables: &super::tables::Tables<'_>) -> Option<ValueType> {
    Some(match expr.kind() {
        ExprKind::Str { .. } | ExprKind::Text { .. } => ValueType::Str,
        ExprKind::Int { .. } => ValueType::Int,
        ExprKind::Duration { .. } => ValueType::Duration,
        ExprKind::Bool { .. } => ValueType::Bool,
        ExprKind::Path { .. } | ExprKind::Var { .. } | ExprKind::LastRun { .. } => {
            let path = expr.path_named(tables.var_name(expr))?;
            let mut ty = match &path.root {
                RootView::Var { ident } => tables.known_slot_type(ident.name)?,
                RootView::LastRun { .. } => ValueType::LastRun,
                RootView::Cost { .. } => ValueType::Cost,
            };
            for f in path.fields {
                if let ValueType::Answer(shape) = ty {
                    let (_, field) = tables.answers.shapes.field(shape, f.name)?;
                    ty = tables.shape_type(field.shape);
                } else if let Some(field) = Field::from_name(f.name) {
                    ty = field.value_type();
                }
            }
            ty
        }
    })
}

/// Whether computing `cond` can neither fail nor reach outside the machine:
/// every test of it compares values the machine holds (variables, which the
/// verifier proves bound; `LAST_RUN`'s fields; literals; a regular expression
/// compiled when the module loads). Then computing a side that a short
/// circuit would skip changes nothing a plan can see, so AND and OR compute
/// both. Not inert: a file test (it reads the workspace, under the policy),
/// `EXISTS` and any longer path (a typed answer's field may be absent: `x.f
/// EXISTS AND x.f == "a"` must not read `x.f` when it is; `COST.X` cannot
/// fail, but paths are judged as one kind), a string with `${...}` (the
/// same), a pattern made at run time (it may not compile).
fn inert(cond: &Cond) -> bool {
    match &cond.kind {
        CondKind::Or { operands, .. } | CondKind::And { operands, .. } => operands.iter().all(inert),
        CondKind::Not { operand, .. } => inert(operand),
        CondKind::Test(test) => {
            let (lhs, rhs) = (test.lhs(), test.rhs());
            let regex_made_at_run_time =
                matches!(test.op(), TestOp::Str { op: StrOp::Matches, .. }) && !rhs.is_literal();
            inert_expr(lhs) && inert_expr(rhs) && !regex_made_at_run_time
        }
        CondKind::IsEmpty { operand, .. } | CondKind::Expr { expr: operand, .. } => inert_expr(operand),
        CondKind::File { .. } | CondKind::Exists { .. } => false,
    }
}

/// Whether pushing `expr` can neither fail nor reach outside the machine (see [`inert`]).
fn inert_expr(expr: &Expr) -> bool {
    match expr.kind() {
        ExprKind::Text { .. }
        | ExprKind::Int { .. }
        | ExprKind::Duration { .. }
        | ExprKind::Bool { .. }
        | ExprKind::Var { .. }
        | ExprKind::LastRun { .. } => true,
        ExprKind::Str { value } => value.as_literal().is_some(),
        ExprKind::Path { .. } => false,
    }
}
