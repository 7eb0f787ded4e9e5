//! One walk over every statement, in source order, handing each node to the
//! check that owns it: names (E0200, E0201), path types (E0202, E0216), value
//! and condition types (`values.rs`), literal paths and regexes, and the
//! option count of CHOOSE. These checks need no control flow.

use crate::syntax::ast::{CmpOp, Plan, Stmt, StmtKind, StrLit, StrOp, StrPart, TestOp};
use crate::syntax::ast::{
    Cond, CondKind, Content, Expr, ExprKind, FileTest, Ident, Item, PathView, RootView,
};
use crate::syntax::visit::{self, Visitor};

use tisslang::answer::Shape;

use super::Ctx;
use super::answers::{self, AnswerTypes, uses};
use super::dialect;
use super::literals::{self, PathUse, Regexes};
use super::names;
use super::structure;
use super::symbols::Symbols;
use super::types::ty::Rec;
use super::types::ty::Ty;
use super::types::values;
use super::types::{self, VarTypes};

pub(crate) fn check(
    plan: &Plan,
    syms: &Symbols<'_>,
    types: &VarTypes,
    answers: &AnswerTypes,
    cx: &mut Ctx<'_>,
) {
    let mut w = Walker { syms, types, answers, cx, regexes: Regexes::default() };
    visit::walk_plan(&mut w, plan);
}

struct Walker<'a, 'c, 's> {
    syms: &'a Symbols<'a>,
    types: &'a VarTypes,
    answers: &'a AnswerTypes,
    cx: &'c mut Ctx<'s>,
    regexes: Regexes<'a>,
}

/// Most statements are walked as they are; those that name a path, give a
/// value where one kind is needed, or have their own rule are checked here.
impl<'a> Visitor<'a> for Walker<'a, '_, '_> {
    fn src(&self) -> &'a str {
        self.syms.src
    }

    fn visit_item(&mut self, item: &'a Item) {
        match item {
            Item::SetBudget(budget) => {
                let ty = self.expr(&budget.value);
                values::budget(self.cx, budget, ty);
            }
            _ => visit::walk_item(self, item),
        }
    }

    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match &stmt.kind {
            StmtKind::Read { path, .. } => self.path_lit(path, PathUse::Read),
            StmtKind::Write { path, content } => {
                self.path_lit(path, PathUse::Write);
                self.content(content, "WRITE");
            }
            StmtKind::Append { path, content } => {
                self.path_lit(path, PathUse::Append);
                self.content(content, "APPEND");
            }
            StmtKind::Mkdir { path } => self.path_lit(path, PathUse::Mkdir),
            StmtKind::Delete { path, .. } => self.path_lit(path, PathUse::Delete),
            StmtKind::Run { command, dir, .. } => {
                self.strlit_in(command, true);
                if let Some(dir) = dir {
                    self.path_lit(dir, PathUse::RunIn);
                }
            }
            StmtKind::Env { name, value } => {
                let ty = self.expr(value);
                values::scalar(self.cx, value, ty, format_args!("the value of `ENV {}`", name.name));
            }
            StmtKind::Call { task } => {
                names::task(self.cx, self.syms, task);
            }
            StmtKind::Choose { options, .. } => {
                structure::check_choose(self.cx, stmt.span, options);
                visit::walk_stmt(self, stmt);
            }
            StmtKind::SetBudget(budget) => {
                let ty = self.expr(&budget.value);
                values::budget(self.cx, budget, ty);
            }
            // Any value for VAR, records included (`VAR before = COST` keeps a copy).
            _ => visit::walk_stmt(self, stmt),
        }
    }

    fn visit_cond(&mut self, cond: &'a Cond) {
        self.cond(cond);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        self.expr(expr);
    }

    fn visit_strlit(&mut self, lit: &'a StrLit) {
        self.strlit(lit);
    }

    fn visit_with(&mut self, ident: &'a Ident) {
        names::variable(self.cx, self.syms, ident.view());
    }
}

impl<'a> Walker<'a, '_, '_> {
    fn content(&mut self, content: &'a Content, keyword: &str) {
        if let Content::From { expr } = content {
            let ty = self.expr(expr);
            values::scalar(self.cx, expr, ty, format_args!("the content of `{keyword} ... FROM`"));
        }
    }

    fn cond(&mut self, cond: &'a Cond) {
        match &cond.kind {
            CondKind::Or { operands, .. } | CondKind::And { operands, .. } => {
                for c in operands {
                    self.cond(c);
                }
            }
            CondKind::Not { operand, .. } => self.cond(operand),
            CondKind::File { file, .. } => {
                self.path_lit(&file.path, PathUse::File);
                if let FileTest::Contains { needle } = &file.test {
                    let ty = self.expr(needle);
                    values::string_operand(self.cx, needle, ty, format_args!("`FILE ... CONTAINS`"));
                }
            }
            CondKind::IsEmpty { operand, .. } => {
                let ty = self.expr(operand);
                let list = answers::shape_of(self.answers, self.syms, self.types, operand)
                    .is_some_and(|s| matches!(self.answers.shapes.get(s), Some(Shape::List(_))));
                if !list {
                    values::string_operand(self.cx, operand, ty, format_args!("`IS_EMPTY`"));
                }
            }
            CondKind::Exists { operand, .. } => {
                self.expr(operand);
                let record = match operand.path(self.syms.src) {
                    Some(path) if !path.fields.is_empty() => {
                        answers::shape_upto(self.answers, self.syms, self.types, path, path.fields.len() - 1)
                    }
                    _ => None,
                };
                uses::exists(self.cx, self.answers, operand, record);
            }
            CondKind::Test(test) => match test.op() {
                TestOp::Str { op, .. } => self.str_test(test.lhs(), op, test.rhs()),
                TestOp::Compare(op) => self.compare(cond, test.lhs(), op, test.rhs()),
            },
            CondKind::Expr { expr, .. } => {
                let ty = self.expr(expr);
                values::boolean(self.cx, expr, ty);
            }
        }
    }

    /// `lhs op rhs`, a string test.
    fn str_test(&mut self, lhs: &'a Expr, op: StrOp, rhs: &'a Expr) {
        // `answer CONTAINS done`: the operands are strings, so a bare
        // word nothing binds is text without its quotes.
        let (lhs_word, rhs_word) =
            (dialect::is_unbound_word(self.syms, lhs), dialect::is_unbound_word(self.syms, rhs));
        if lhs_word || rhs_word {
            for (side, word) in [(lhs, lhs_word), (rhs, rhs_word)] {
                if word {
                    dialect::unquoted_word(self.cx, self.syms, side, Some(Ty::Str));
                } else {
                    self.expr(side);
                }
            }
            return;
        }
        let lty = self.expr(lhs);
        if op == StrOp::Contains {
            let list = answers::shape_of(self.answers, self.syms, self.types, lhs);
            let rty = self.expr(rhs);
            if uses::list_contains(self.cx, self.answers, (lhs, list), (rhs, rty)) {
                return;
            }
            values::string_operand(self.cx, lhs, lty, format_args!("`{}`", op.keyword()));
            values::string_operand(self.cx, rhs, rty, format_args!("`{}`", op.keyword()));
            return;
        }
        values::string_operand(self.cx, lhs, lty, format_args!("`{}`", op.keyword()));
        let rty = self.expr(rhs);
        values::string_operand(self.cx, rhs, rty, format_args!("`{}`", op.keyword()));
        if let (StrOp::Matches, Some(pattern)) = (op, rhs.literal(self.syms.src)) {
            self.regexes.check(self.cx, pattern, rhs.span());
        }
    }

    /// `lhs op rhs`, a comparison: `cond`.
    fn compare(&mut self, cond: &'a Cond, lhs: &'a Expr, op: CmpOp, rhs: &'a Expr) {
        // `answer == yes`: one error for the unquoted word, not a type error too.
        if dialect::is_unbound_word(self.syms, lhs) {
            let rty = self.expr(rhs);
            dialect::unquoted_word(self.cx, self.syms, lhs, rty);
            return;
        }
        let lty = self.expr(lhs);
        if dialect::is_unbound_word(self.syms, rhs) {
            dialect::unquoted_word(self.cx, self.syms, rhs, lty);
            return;
        }
        let rty = self.expr(rhs);
        if uses::compared(self.cx, self.answers, cond, [(lhs, lty), (rhs, rty)]) {
            return;
        }
        for (side, other) in [(lhs, rhs), (rhs, lhs)] {
            if let Some(shape) = answers::shape_of(self.answers, self.syms, self.types, side) {
                uses::enum_literal(self.cx, self.answers, shape, other);
            }
        }
        values::compare(self.cx, cond, (lhs, lty), op, (rhs, rty));
    }

    /// The type of an expression (`None` when unknown: an error already said why).
    fn expr(&mut self, expr: &'a Expr) -> Option<Ty> {
        match expr.kind() {
            ExprKind::Str { value } => {
                self.strlit(value);
                Some(Ty::Str)
            }
            ExprKind::Text { .. } => {
                dialect::braces_not_interpolation(self.cx, self.syms, expr.span());
                Some(Ty::Str)
            }
            ExprKind::Int { .. } | ExprKind::Duration { .. } if self.cx.is_rejected_number(expr.span()) => {
                None
            }
            ExprKind::Int { .. } => Some(Ty::Int),
            ExprKind::Duration { .. } => Some(Ty::Duration),
            ExprKind::Bool { .. } => Some(Ty::Bool),
            ExprKind::Path { .. } | ExprKind::Var { .. } | ExprKind::LastRun { .. } => {
                self.path(expr.path(self.syms.src)?)
            }
        }
    }

    fn path(&mut self, path: PathView<'a>) -> Option<Ty> {
        let root = match &path.root {
            RootView::Var { ident } => self.types[names::variable(self.cx, self.syms, *ident)? as usize]?,
            RootView::LastRun { .. } => Ty::Record(Rec::LastRun),
            RootView::Cost { .. } => Ty::Record(Rec::Cost),
        };
        types::fields_ty(self.cx, &self.answers.shapes, path, root)
    }

    fn strlit(&mut self, lit: &'a StrLit) {
        self.strlit_in(lit, false);
    }

    /// A string's interpolations: each must name a single value or a typed
    /// answer (printed as JSON; in a RUN, `run`, only a list of plain values).
    fn strlit_in(&mut self, lit: &'a StrLit, run: bool) {
        dialect::braces_not_interpolation(self.cx, self.syms, lit.span);
        for part in &lit.parts {
            if let StrPart::Interp { path } = part {
                let path = path.view();
                let ty = self.path(path);
                values::interpolated(self.cx, path, ty);
                if run {
                    uses::run_hole(self.cx, self.answers, path, ty);
                }
            }
        }
    }

    fn path_lit(&mut self, lit: &'a StrLit, use_: PathUse) {
        self.strlit(lit);
        literals::check_path(self.cx, lit, use_);
    }
}
