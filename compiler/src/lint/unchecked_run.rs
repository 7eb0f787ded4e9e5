//! W0002: a RUN whose result nothing checks before the next RUN or the end
//! of its step. A non-zero exit does not halt a plan (book: reference/statements.md), so such a
//! command fails unseen.
//!
//! A forward walk in execution order keeps the RUNs whose result `LAST_RUN`
//! may hold at each point (a union over the arms of IF, TRY and CHOOSE);
//! any read of `LAST_RUN` (a condition, a value, an interpolation, a
//! PROMPT_AGENT without `WITH`, which sends it as context) checks them all,
//! and so does an ASSERT or IF that tests a file (`ASSERT FILE "app"
//! EXISTS` after a build checks what the build made).
//! A RUN is warned about only if no path checks it. CALLed tasks are walked
//! at each CALL, so a task's last RUN is checked by what its callers do
//! after the CALL; `ESTIMATE_COST` blocks never run and are skipped.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{Block, Cond, CondKind, Else, IfStmt, Item, RootView, Stmt, StmtKind};
use crate::syntax::span::Span;

use super::Lint;
use crate::syntax::visit::{self, Visitor};

/// Past this many statements walked, CALLs are no longer followed: the
/// CALL then counts as checking what is live (no warning rather than a
/// wrong one), so a plan that calls tasks from many places stays linear.
const MAX_WALKED: usize = 200_000;

pub(super) fn check(cx: &mut Lint<'_>) {
    let plan = cx.plan;
    let mut walker = Walker {
        src: &cx.file.text,
        tasks: visit::task_bodies(plan),
        runs: Vec::new(),
        run_ids: FxHashMap::default(),
        executed: Vec::new(),
        frames: 0,
        frame: 0,
        walked: 0,
        calling: Vec::new(),
    };
    let mut live = Live::new();
    for item in &plan.items {
        let mut reads_last_run = false;
        visit::reads(walker.src, |p| reads_last_run |= matches!(p.root, RootView::LastRun { .. }))
            .visit_item(item);
        if reads_last_run {
            walker.check_all(&live);
        }
        if let Item::Setup { body, .. } | Item::Step(crate::syntax::ast::Step { body, .. }) = item {
            live = walker.step(body, live);
        }
    }
    // A task no one calls is walked alone, as if it were a step.
    let called = called_names(&cx.statements);
    for item in &plan.items {
        if let Item::DefineTask { name, body, .. } = item
            && !name.as_literal().is_some_and(|n| called.contains(n))
        {
            walker.step(body, Live::new());
        }
    }
    for run in walker.runs {
        if run.checked {
            continue;
        }
        let replacement =
            format!("{}{}ASSERT LAST_RUN.EXIT_CODE == 0", cx.text(run.stmt), cx.separator_after(run.stmt));
        cx.warn(
            Diagnostic::warning(
                codes::UNCHECKED_RUN,
                run.stmt,
                "nothing checks the result of this RUN before the next RUN or the end of its step",
            )
            .with_note(
                "a command that exits non-zero does not stop the plan: assert on `LAST_RUN` to notice it",
            )
            .with_suggestion("check that the command succeeded", run.stmt, replacement),
        );
    }
}

/// The RUNs `LAST_RUN` may hold: (RUN index, frame of the step it ran in).
type Live = Vec<(usize, u32)>;

fn union(mut a: Live, b: &Live) -> Live {
    for entry in b {
        if !a.contains(entry) {
            a.push(*entry);
        }
    }
    a
}

struct Run {
    stmt: Span,
    checked: bool,
}

struct Walker<'a> {
    /// The text the plan was parsed from.
    src: &'a str,
    /// DEFINE_TASK bodies by name (the first definition: what CALL runs).
    tasks: FxHashMap<&'a str, &'a Block>,
    runs: Vec<Run>,
    run_ids: FxHashMap<u32, usize>,
    /// Every RUN the walk has passed, in order (a TRY's handler may start
    /// after any of its body's).
    executed: Live,
    /// Frames handed out so far, and the one the walk is in.
    frames: u32,
    frame: u32,
    walked: usize,
    /// Tasks being walked (calls form no cycle, but a guard costs nothing).
    calling: Vec<&'a str>,
}

impl<'a> Walker<'a> {
    fn check_all(&mut self, live: &Live) {
        for &(run, _) in live {
            self.runs[run].checked = true;
        }
    }

    /// A step's body in a frame of its own: its RUNs end with it.
    fn step(&mut self, body: &'a Block, live: Live) -> Live {
        self.frames += 1;
        let outer = std::mem::replace(&mut self.frame, self.frames);
        let mut live = self.block(body, live);
        let frame = self.frame;
        live.retain(|&(_, f)| f != frame);
        self.frame = outer;
        live
    }

    fn block(&mut self, block: &'a Block, mut live: Live) -> Live {
        for stmt in &block.commands {
            live = self.stmt(stmt, live);
        }
        live
    }

    fn stmt(&mut self, stmt: &'a Stmt, mut live: Live) -> Live {
        self.walked += 1;
        let mut checks = match &stmt.kind {
            StmtKind::PromptAgent { with, .. } => with.is_empty(),
            StmtKind::Assert { condition, .. } => tests_a_file(condition),
            StmtKind::If(first) => {
                let mut at: &IfStmt = first;
                let mut any = tests_a_file(&at.condition);
                while let Some(Else::If { stmt, .. }) = &at.else_branch {
                    at = stmt;
                    any |= tests_a_file(&at.condition);
                }
                any
            }
            _ => false,
        };
        visit::reads(self.src, |p| checks |= matches!(p.root, RootView::LastRun { .. })).visit_stmt(stmt);
        if checks {
            self.check_all(&live);
        }
        match &stmt.kind {
            StmtKind::Run { .. } => {
                let next = self.runs.len();
                let id = *self.run_ids.entry(stmt.span.start).or_insert(next);
                if id == next {
                    self.runs.push(Run { stmt: stmt.span, checked: false });
                }
                self.executed.push((id, self.frame));
                vec![(id, self.frame)]
            }
            StmtKind::Step { body, .. } => self.step(body, live),
            StmtKind::If(first) => self.if_chain(first, live),
            StmtKind::Try { body, handler, .. } => {
                let executed_before = self.executed.len();
                let after_body = self.block(body, live.clone());
                // The handler may start after any statement of the body:
                // LAST_RUN then holds what it held before, or any RUN the
                // body reached.
                let mut entry = union(live, &after_body);
                let body_runs = self.executed.split_off(executed_before);
                entry = union(entry, &body_runs);
                self.executed.extend(body_runs);
                let after_handler = self.block(handler, entry);
                union(after_body, &after_handler)
            }
            StmtKind::Choose { options, .. } => {
                let mut out = Live::new();
                for option in options {
                    let after = self.block(&option.body, live.clone());
                    out = union(out, &after);
                }
                out
            }
            StmtKind::Call { task } => {
                let body = task.as_literal().and_then(|name| self.tasks.get(name).map(|b| (name, *b)));
                match body {
                    Some((name, body)) if self.walked < MAX_WALKED && !self.calling.contains(&name) => {
                        self.calling.push(name);
                        live = self.block(body, live);
                        self.calling.pop();
                        live
                    }
                    _ => {
                        self.check_all(&live);
                        live
                    }
                }
            }
            _ => live,
        }
    }

    fn if_chain(&mut self, first: &'a IfStmt, live: Live) -> Live {
        let mut out = Live::new();
        let mut at = first;
        loop {
            let after = self.block(&at.then_block, live.clone());
            out = union(out, &after);
            match &at.else_branch {
                Some(Else::If { stmt, .. }) => at = stmt,
                Some(Else::Block { block }) => return union(out, &self.block(block, live)),
                None => return union(out, &live),
            }
        }
    }
}

/// Whether a condition tests a file (`FILE "x" EXISTS` and the like).
fn tests_a_file(cond: &Cond) -> bool {
    match &cond.kind {
        CondKind::File { .. } => true,
        CondKind::Or { operands, .. } | CondKind::And { operands, .. } => operands.iter().any(tests_a_file),
        CondKind::Not { operand, .. } => tests_a_file(operand),
        _ => false,
    }
}

fn called_names<'a>(statements: &[(&'a Stmt, bool)]) -> FxHashSet<&'a str> {
    let mut names = FxHashSet::default();
    for &(stmt, _) in statements {
        if let StmtKind::Call { task } = &stmt.kind
            && let Some(name) = task.as_literal()
        {
            names.insert(name);
        }
    }
    names
}
