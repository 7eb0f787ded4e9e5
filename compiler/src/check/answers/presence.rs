//! An optional field of a typed answer (`files?: …`) is read only where
//! `EXISTS` holds on every path to the read (book: reference/types.md, E0223), as a
//! variable is read only where it is bound (`flow.rs`).
//!
//! What holds is a set of facts, each a path written as text (`r.files`):
//! `IF p EXISTS` makes `p` a fact in its THEN block, `ASSERT p EXISTS` after
//! it, and `a AND b` in `b`; binding `r` again ends every fact about `r`.
//! The facts are a trail of (path, holds) entries, the latest entry for a
//! path deciding, so a branch is undone by truncating the trail and arms
//! meet by intersecting what holds at their ends. A DEFINE_TASK body starts
//! with no facts: a task cannot know what its callers tested. Plans with no
//! typed answer skip the pass.

use std::collections::BTreeSet;

use tisslang::answer::Shape;

use super::table::AnswerTypes;
use crate::check::Ctx;
use crate::check::symbols::Symbols;
use crate::check::types::VarTypes;
use crate::check::types::ty::Ty;
use crate::diagnostics::{Diagnostic, codes};
use crate::syntax::ast::StmtKind;
use crate::syntax::ast::{Cond, CondKind, Else, Ident, IfStmt, Item, PathView, Plan, RootView, Stmt};
use crate::syntax::visit::{self, Binder, Visitor};

pub(crate) fn check(
    plan: &Plan,
    syms: &Symbols<'_>,
    types: &VarTypes,
    answers: &AnswerTypes,
    cx: &mut Ctx<'_>,
) {
    if answers.shapes.shapes.is_empty() {
        return;
    }
    let mut p = Presence { syms, types, answers, cx, facts: Vec::new() };
    for item in &plan.items {
        if let Item::DefineTask { body, .. } = item {
            let kept = std::mem::take(&mut p.facts);
            p.visit_block(body);
            p.facts = kept;
        } else {
            p.visit_item(item);
        }
    }
}

struct Presence<'a, 'c, 's> {
    syms: &'a Symbols<'a>,
    types: &'a VarTypes,
    answers: &'a AnswerTypes,
    cx: &'c mut Ctx<'s>,
    facts: Vec<(String, bool)>,
}

/// `r.files` (the path up to and including field `upto`).
fn key(path: PathView<'_>, upto: usize) -> Option<String> {
    let RootView::Var { ident } = &path.root else { return None };
    let mut out = ident.name.to_string();
    for field in path.fields.upto(upto + 1) {
        out.push('.');
        out.push_str(field.name);
    }
    Some(out)
}

/// The facts a condition makes true when it holds.
fn facts_of(cond: &Cond, src: &str, out: &mut Vec<String>) {
    match &cond.kind {
        CondKind::Exists { operand, .. } => {
            if let Some(path) = operand.path(src)
                && !path.fields.is_empty()
                && let Some(k) = key(path, path.fields.len() - 1)
            {
                out.push(k);
            }
        }
        CondKind::And { operands, .. } => operands.iter().for_each(|c| facts_of(c, src, out)),
        _ => {}
    }
}

impl Presence<'_, '_, '_> {
    fn holds(&self, key: &str) -> bool {
        self.facts.iter().rev().find(|(k, _)| k == key).is_some_and(|&(_, holds)| holds)
    }

    fn current(&self) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut out = BTreeSet::new();
        for (k, holds) in self.facts.iter().rev() {
            if seen.insert(k.clone()) && *holds {
                out.insert(k.clone());
            }
        }
        out
    }

    fn assume(&mut self, cond: &Cond) {
        let mut new = Vec::new();
        facts_of(cond, self.syms.src, &mut new);
        self.facts.extend(new.into_iter().map(|k| (k, true)));
    }

    /// Runs `n` alternative arms from the same state; afterwards what holds
    /// is what held at the end of every arm.
    fn arms(&mut self, n: usize, mut arm: impl FnMut(&mut Self, usize)) {
        let mark = self.facts.len();
        let before = self.current();
        let mut all: Option<BTreeSet<String>> = None;
        for i in 0..n {
            arm(self, i);
            let end = self.current();
            all = Some(match all {
                None => end,
                Some(so_far) => so_far.intersection(&end).cloned().collect(),
            });
            self.facts.truncate(mark);
        }
        let after = all.unwrap_or_else(|| before.clone());
        for k in before.union(&after) {
            let holds = after.contains(k);
            if holds != before.contains(k) {
                self.facts.push((k.clone(), holds));
            }
        }
    }

    /// A read of `path`; `testing`: it is the operand of EXISTS, whose last
    /// field may be absent.
    fn read(&mut self, path: PathView<'_>, testing: bool) {
        let RootView::Var { ident } = &path.root else { return };
        let Some(Some(Ty::Answer(mut shape))) = self.syms.var(ident.name).map(|v| self.types[v as usize])
        else {
            return;
        };
        let last = path.fields.len().saturating_sub(1);
        for (i, field) in path.fields.iter().enumerate() {
            let Some((_, f)) = self.answers.shapes.field(shape, field.name) else { return };
            if f.optional && !(testing && i == last) {
                let Some(k) = key(path, i) else { return };
                if !self.holds(&k) {
                    self.cx.emit(
                        Diagnostic::error(
                            codes::OPTIONAL_NOT_ESTABLISHED,
                            field.span,
                            format!(
                                "`{k}` is an optional field: it may be absent here, as no `{k} EXISTS` \
                                 holds on every path to this read"
                            ),
                        )
                        .with_note(format!(
                            "read it inside `IF {k} EXISTS {{ … }}`, or after `ASSERT {k} EXISTS`"
                        )),
                    );
                    // Reported once on this path.
                    self.facts.push((k, true));
                    return;
                }
            }
            match self.answers.shapes.get(f.shape) {
                Some(Shape::Record(_)) => shape = f.shape,
                _ => return,
            }
        }
    }

    fn forget(&mut self, ident: &Ident) {
        // Most bindings come where nothing holds: nothing to end.
        if self.facts.is_empty() {
            return;
        }
        let about = |k: &str| k.strip_prefix(&*ident.name).is_some_and(|field| field.starts_with('.'));
        let gone: Vec<String> = self.current().into_iter().filter(|k| about(k)).collect();
        self.facts.extend(gone.into_iter().map(|k| (k, false)));
    }
}

impl<'t> Visitor<'t> for Presence<'t, '_, '_> {
    fn src(&self) -> &'t str {
        self.syms.src
    }

    fn visit_stmt(&mut self, stmt: &'t Stmt) {
        match &stmt.kind {
            StmtKind::Assert { condition, message } => {
                self.visit_cond(condition);
                if let Some(m) = message {
                    self.visit_strlit(m);
                }
                self.assume(condition);
            }
            StmtKind::Try { body, catch_var, handler } => self.arms(2, |p, i| {
                if i == 0 {
                    p.visit_block(body);
                } else {
                    if let Some(e) = catch_var {
                        p.forget(e);
                    }
                    p.visit_block(handler);
                }
            }),
            StmtKind::Choose { prompt, options } => {
                if let Some(p) = prompt {
                    self.visit_strlit(p);
                }
                self.arms(options.len(), |p, i| p.visit_option(&options[i]));
            }
            StmtKind::EstimateCost { into, body } => {
                let mark = self.facts.len();
                self.visit_block(body);
                self.facts.truncate(mark);
                if let Some(x) = into {
                    self.forget(x);
                }
            }
            _ => visit::walk_stmt(self, stmt),
        }
    }

    fn visit_if(&mut self, if_stmt: &'t IfStmt) {
        self.visit_cond(&if_stmt.condition);
        self.arms(2, |p, i| match (i, &if_stmt.else_branch) {
            (0, _) => {
                p.assume(&if_stmt.condition);
                p.visit_block(&if_stmt.then_block);
            }
            (_, None) => {}
            (_, Some(Else::If { stmt, .. })) => p.visit_if(stmt),
            (_, Some(Else::Block { block })) => p.visit_block(block),
        });
    }

    fn visit_cond(&mut self, cond: &'t Cond) {
        match &cond.kind {
            CondKind::And { operands, .. } => {
                let mark = self.facts.len();
                for c in operands {
                    self.visit_cond(c);
                    self.assume(c);
                }
                self.facts.truncate(mark);
            }
            CondKind::Exists { operand, .. } => match operand.path(self.syms.src) {
                Some(path) => self.read(path, true),
                None => self.visit_expr(operand),
            },
            _ => visit::walk_cond(self, cond),
        }
    }

    fn visit_path(&mut self, path: PathView<'t>) {
        self.read(path, false);
    }

    fn visit_bind(&mut self, ident: &'t Ident, _binder: Binder<'t>) {
        self.forget(ident);
    }
}
