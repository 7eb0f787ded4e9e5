//! Definite assignment (book: reference/statements.md): every variable and `LAST_RUN` must be bound
//! on every path before it is read (E0203, E0204). A plan is a DAG (no loops,
//! no recursion), so the analysis is exact up to the branch choices.
//!
//! The state is the set of definitely bound variables, kept as a bit per
//! variable plus a trail of the bits set, so a branch is undone by popping
//! the trail and two arms meet by intersecting only what they added: the cost
//! is linear in the bindings, not in (branches × variables).
//!
//! A `DEFINE_TASK` body runs only when called, so it is analysed once, from
//! an empty state, into a summary: what it reads before binding it (its
//! needs) and what it binds on every path. A CALL then checks the needs
//! against the caller's state and adds the bindings. Tasks are summarised
//! callee first; a call inside a cycle (E0211) finds no summary and is skipped.

use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{Else, Ident, IfStmt, Item, PathView, Plan, RootView, Stmt, StmtKind, StrLit};
use crate::syntax::span::Span;
use crate::syntax::visit::{self, Binder, Visitor};

use super::Ctx;
use super::literals::quote;
use super::symbols::Symbols;

pub(crate) fn check(plan: &Plan, syms: &Symbols<'_>, order: &[u32], cx: &mut Ctx<'_>) {
    let slots = syms.vars.len() + 1;
    let mut flow = Flow {
        syms,
        cx,
        last_run: syms.vars.len() as u32,
        bound: vec![false; slots],
        trail: Vec::new(),
        common: Vec::new(),
        task: None,
        needed: vec![0; slots],
        summaries: (0..syms.tasks.len()).map(|_| None).collect(),
    };
    for &task in order {
        flow.summarize(task);
    }
    // Execution order (book: reference/structure.md): the TASK line, SETUP, then the top-level
    // STEPs and SET_BUDGETs in source order.
    for item in &plan.items {
        if let Item::Task { name, .. } = item {
            flow.visit_strlit(name);
        }
    }
    for item in &plan.items {
        if let Item::Setup { description, body, .. } = item {
            if let Some(d) = description {
                flow.visit_strlit(d);
            }
            flow.visit_block(body);
        }
    }
    for item in &plan.items {
        match item {
            Item::Step(step) => {
                flow.visit_strlit(&step.name);
                flow.visit_block(&step.body);
            }
            Item::SetBudget(budget) => flow.visit_expr(&budget.value),
            _ => {}
        }
    }
}

/// Something a task reads that it does not bind first.
#[derive(Clone, Copy)]
struct Need {
    var: u32,
    /// Where it is read.
    span: Span,
    /// The task whose body reads it (a callee of the summarised task, maybe).
    task: u32,
}

struct Summary {
    needs: Vec<Need>,
    /// Bound on every path through the body.
    binds: Vec<u32>,
}

/// The task being summarised.
struct TaskState {
    index: u32,
    needs: Vec<Need>,
}

struct Flow<'a, 'c, 's> {
    syms: &'a Symbols<'a>,
    cx: &'c mut Ctx<'s>,
    /// The slot standing for `LAST_RUN` (after the variables).
    last_run: u32,
    bound: Vec<bool>,
    /// The slots set in `bound`, in order, so branches can be undone.
    trail: Vec<u32>,
    /// The slots bound by every arm so far of the branches being analysed.
    common: Vec<u32>,
    task: Option<TaskState>,
    /// `needed[v] == task + 1` when the task being summarised already needs v.
    needed: Vec<u32>,
    summaries: Vec<Option<Summary>>,
}

impl<'a> Flow<'a, '_, '_> {
    fn bind(&mut self, slot: u32) {
        if !self.bound[slot as usize] {
            self.bound[slot as usize] = true;
            self.trail.push(slot);
        }
    }

    fn bind_var(&mut self, ident: &Ident) {
        if let Some(v) = self.syms.var(&ident.name) {
            self.bind(v);
        }
    }

    fn undo(&mut self, mark: usize) {
        for slot in self.trail.drain(mark..) {
            self.bound[slot as usize] = false;
        }
    }

    /// Runs `n` alternative arms from the same state; afterwards the state is
    /// the intersection of their end states.
    fn arms(&mut self, n: usize, mut arm: impl FnMut(&mut Self, usize)) {
        let mark = self.trail.len();
        // This branch's common bindings, on the shared stack above those of
        // the branches it is nested in.
        let base = self.common.len();
        for i in 0..n {
            arm(self, i);
            if i == 0 {
                self.common.extend_from_slice(&self.trail[mark..]);
            } else {
                // What arm i left unbound is not bound on every path.
                let mut kept = base;
                for j in base..self.common.len() {
                    let slot = self.common[j];
                    if self.bound[slot as usize] {
                        self.common[kept] = slot;
                        kept += 1;
                    }
                }
                self.common.truncate(kept);
            }
            self.undo(mark);
        }
        for j in base..self.common.len() {
            let slot = self.common[j];
            self.bind(slot);
        }
        self.common.truncate(base);
    }

    /// A read of `slot` at `span`.
    fn read(&mut self, slot: u32, span: Span) {
        if self.bound[slot as usize] {
            return;
        }
        match &mut self.task {
            Some(task) => {
                if self.needed[slot as usize] != task.index + 1 {
                    self.needed[slot as usize] = task.index + 1;
                    task.needs.push(Need { var: slot, span, task: task.index });
                }
            }
            None => {
                let d = self.unbound_read(slot, span);
                self.cx.emit(d);
            }
        }
        // Reported once; later reads on this path would only repeat it.
        self.bind(slot);
    }

    fn unbound_read(&mut self, slot: u32, span: Span) -> Diagnostic {
        if slot == self.last_run {
            return Diagnostic::error(
                codes::LAST_RUN_WITHOUT_RUN,
                span,
                "`LAST_RUN` is read here, but not every path to it runs a `RUN` first",
            )
            .with_note("read LAST_RUN only after a RUN that happens on every path");
        }
        let var = &self.syms.vars[slot as usize];
        let first = var.first.span;
        let line = self.cx.line(first);
        Diagnostic::error(
            codes::POSSIBLY_UNBOUND,
            span,
            format!("`{}` is not bound on every path to this use (it is bound on line {line})", var.name),
        )
        .with_label(first, format!("`{}` is bound here", var.name))
        .with_note("bind it before the branch, or in every arm of the IF, TRY or CHOOSE")
    }

    fn summarize(&mut self, task: u32) {
        self.task = Some(TaskState { index: task, needs: Vec::new() });
        self.visit_block(self.syms.tasks[task as usize].body);
        let binds = self.trail.clone();
        self.undo(0);
        let needs = self.task.take().map(|t| t.needs).unwrap_or_default();
        self.summaries[task as usize] = Some(Summary { needs, binds });
    }

    fn call(&mut self, name: &StrLit, span: Span) {
        let Some(&task) = name.as_literal().and_then(|n| self.syms.task_ids.get(n)) else {
            return;
        };
        // Taken out while applied, put back after: the same task may be
        // called again.
        let Some(summary) = self.summaries[task as usize].take() else { return };
        for need in &summary.needs {
            if self.bound[need.var as usize] {
                continue;
            }
            match &mut self.task {
                Some(caller) => {
                    if self.needed[need.var as usize] != caller.index + 1 {
                        self.needed[need.var as usize] = caller.index + 1;
                        caller.needs.push(*need);
                    }
                }
                None => {
                    let d = self.unbound_call(task, need, span);
                    self.cx.emit(d);
                }
            }
            self.bind(need.var);
        }
        for &slot in &summary.binds {
            self.bind(slot);
        }
        self.summaries[task as usize] = Some(summary);
    }

    fn unbound_call(&mut self, task: u32, need: &Need, span: Span) -> Diagnostic {
        let tasks = &self.syms.tasks;
        let callee = quote(tasks[task as usize].name.unwrap_or(""));
        let line = self.cx.line(need.span);
        let place = if need.task == task {
            format!("line {line}")
        } else {
            format!("line {line}, in task {}", quote(tasks[need.task as usize].name.unwrap_or("")))
        };
        if need.var == self.last_run {
            Diagnostic::error(
                codes::LAST_RUN_WITHOUT_RUN,
                span,
                format!(
                    "task {callee} reads `LAST_RUN` ({place}), but not every path to this \
                     CALL runs a `RUN` first"
                ),
            )
            .with_label(need.span, "read here")
        } else {
            let name = self.syms.vars[need.var as usize].name;
            Diagnostic::error(
                codes::POSSIBLY_UNBOUND,
                span,
                format!(
                    "task {callee} uses `{name}` ({place}), which is not bound on every path \
                     to this CALL"
                ),
            )
            .with_label(need.span, "used here")
            .with_note(format!("bind `{name}` on every path before the CALL, or inside the task"))
        }
    }
}

/// The walk in execution order: a statement's reads before its bindings,
/// and branches (IF, TRY, CHOOSE) as alternative arms.
impl<'t> Visitor<'t> for Flow<'t, '_, '_> {
    fn src(&self) -> &'t str {
        self.syms.src
    }

    fn visit_stmt(&mut self, stmt: &'t Stmt) {
        match &stmt.kind {
            StmtKind::Run { .. } => {
                visit::walk_stmt(self, stmt);
                self.bind(self.last_run);
            }
            StmtKind::Try { body, catch_var, handler } => {
                // The handler may start after any part of the body, so it
                // starts from the state before the TRY.
                self.arms(2, |f, i| {
                    if i == 0 {
                        f.visit_block(body);
                    } else {
                        if let Some(e) = catch_var {
                            f.bind_var(e);
                        }
                        f.visit_block(handler);
                    }
                });
            }
            StmtKind::Call { task } => self.call(task, stmt.span),
            StmtKind::Choose { prompt, options } => {
                if let Some(p) = prompt {
                    self.visit_strlit(p);
                }
                self.arms(options.len(), |f, i| f.visit_option(&options[i]));
            }
            StmtKind::EstimateCost { into, body } => {
                // The body is checked but not run: nothing it binds or runs
                // counts afterwards.
                let mark = self.trail.len();
                self.visit_block(body);
                self.undo(mark);
                if let Some(x) = into {
                    self.bind_var(x);
                }
            }
            _ => visit::walk_stmt(self, stmt),
        }
    }

    fn visit_if(&mut self, if_stmt: &'t IfStmt) {
        self.visit_cond(&if_stmt.condition);
        match &if_stmt.else_branch {
            // No ELSE: the state after is the state before.
            None => {
                let mark = self.trail.len();
                self.visit_block(&if_stmt.then_block);
                self.undo(mark);
            }
            Some(else_branch) => self.arms(2, |f, i| match (i, else_branch) {
                (0, _) => f.visit_block(&if_stmt.then_block),
                (_, Else::If { stmt, .. }) => f.visit_if(stmt),
                (_, Else::Block { block }) => f.visit_block(block),
            }),
        }
    }

    fn visit_path(&mut self, path: PathView<'t>) {
        match &path.root {
            // A name bound nowhere is E0200's business, not ours.
            RootView::Var { ident } => {
                if let Some(v) = self.syms.var(ident.name) {
                    self.read(v, ident.span);
                }
            }
            RootView::LastRun { span } => self.read(self.last_run, *span),
            RootView::Cost { .. } => {}
        }
    }

    fn visit_with(&mut self, ident: &'t Ident) {
        if let Some(v) = self.syms.var(&ident.name) {
            self.read(v, ident.span);
        }
    }

    fn visit_bind(&mut self, ident: &'t Ident, _binder: Binder<'t>) {
        self.bind_var(ident);
    }
}
