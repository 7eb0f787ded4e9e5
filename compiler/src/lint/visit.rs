//! Walks over the tree that the rules share: every statement, and every
//! path a statement reads in its own expressions, conditions and strings
//! (the language server's index walks conditions and strings with them too).

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::syntax::ast::{
    Block, Cond, CondKind, Content, Else, Expr, ExprKind, FileTest, IfStmt, Item, Path,
};
use crate::syntax::ast::{Plan, Stmt, StmtKind, StrLit, StrPart};

/// Calls `f` on every statement of the plan, nested ones included, in
/// source order. `in_estimate` says the statement is inside an
/// `ESTIMATE_COST` block, which is costed but never run.
pub(super) fn statements<'a>(plan: &'a Plan, f: &mut impl FnMut(&'a Stmt, bool)) {
    for item in &plan.items {
        if let Some(body) = item_body(item) {
            block(body, false, f);
        }
    }
}

/// Every DEFINE_TASK's body by name: the first definition, which is what
/// a CALL runs.
pub(super) fn task_bodies(plan: &Plan) -> FxHashMap<&str, &Block> {
    let mut tasks = FxHashMap::default();
    for item in &plan.items {
        if let Item::DefineTask { name, body, .. } = item
            && let Some(name) = name.as_literal()
        {
            tasks.entry(name).or_insert(body);
        }
    }
    tasks
}

/// The block of a SETUP, STEP or DEFINE_TASK item.
pub(super) fn item_body(item: &Item) -> Option<&Block> {
    match item {
        Item::Setup { body, .. } | Item::DefineTask { body, .. } => Some(body),
        Item::Step(step) => Some(&step.body),
        Item::Header { .. } | Item::Version { .. } | Item::Task { .. } | Item::SetBudget(_) => None,
    }
}

fn block<'a>(block: &'a Block, in_estimate: bool, f: &mut impl FnMut(&'a Stmt, bool)) {
    for stmt in &block.commands {
        f(stmt, in_estimate);
        for (inner, estimate) in blocks_of(stmt) {
            self::block(inner, in_estimate || estimate, f);
        }
    }
}

/// The blocks a statement holds (an IF's arms down its ELSE IF chain), each
/// with whether it is an `ESTIMATE_COST` block. Inline up to two: no
/// allocation but for a longer IF chain or a CHOOSE.
pub(super) fn blocks_of(stmt: &Stmt) -> SmallVec<[(&Block, bool); 2]> {
    match &stmt.kind {
        StmtKind::Step { body, .. } => smallvec::smallvec![(body, false)],
        StmtKind::Try { body, handler, .. } => smallvec::smallvec![(body, false), (&**handler, false)],
        StmtKind::EstimateCost { body, .. } => smallvec::smallvec![(body, true)],
        StmtKind::Choose { options, .. } => options.iter().map(|o| (&o.body, false)).collect(),
        StmtKind::If(first) => {
            let mut out = SmallVec::new();
            let mut at: &IfStmt = first;
            loop {
                out.push((&at.then_block, false));
                match &at.else_branch {
                    Some(Else::If { stmt, .. }) => at = stmt,
                    Some(Else::Block { block }) => {
                        out.push((block, false));
                        break;
                    }
                    None => break,
                }
            }
            out
        }
        _ => SmallVec::new(),
    }
}

/// Every path a top-level item reads itself (a TASK, SETUP, STEP or
/// DEFINE_TASK name may interpolate; a SET_BUDGET has a value), not in its
/// block.
pub(super) fn item_reads<'a>(item: &'a Item, f: &mut impl FnMut(&'a Path)) {
    match item {
        Item::Task { name, .. } | Item::DefineTask { name, .. } => strlit(name, f),
        Item::Step(step) => strlit(&step.name, f),
        Item::Setup { description, .. } => {
            if let Some(d) = description {
                strlit(d, f);
            }
        }
        Item::SetBudget(budget) => expr(&budget.value, f),
        Item::Header { .. } | Item::Version { .. } => {}
    }
}

/// Every path the statement reads in its own parts (for an IF, the
/// conditions of its whole ELSE IF chain), not in the blocks it holds.
pub(super) fn own_reads<'a>(stmt: &'a Stmt, f: &mut impl FnMut(&'a Path)) {
    match &stmt.kind {
        StmtKind::Step { name, .. } => strlit(name, f),
        StmtKind::Read { path, .. } | StmtKind::Mkdir { path } | StmtKind::Delete { path, .. } => {
            strlit(path, f)
        }
        StmtKind::Write { path, content } | StmtKind::Append { path, content } => {
            strlit(path, f);
            if let Content::From { expr: e } = content {
                expr(e, f);
            }
        }
        StmtKind::Log { message } | StmtKind::Pause { message } | StmtKind::RequestReview { message, .. } => {
            strlit(message, f)
        }
        StmtKind::Run { command, dir, .. } => {
            strlit(command, f);
            if let Some(dir) = dir {
                strlit(dir, f);
            }
        }
        StmtKind::Env { value, .. } | StmtKind::Var { value, .. } => expr(value, f),
        StmtKind::Assert { condition, message } => {
            cond(condition, f);
            if let Some(m) = message {
                strlit(m, f);
            }
        }
        StmtKind::If(first) => {
            let mut at: &IfStmt = first;
            loop {
                cond(&at.condition, f);
                match &at.else_branch {
                    Some(Else::If { stmt, .. }) => at = stmt,
                    _ => break,
                }
            }
        }
        StmtKind::Call { task } => strlit(task, f),
        StmtKind::PromptAgent { query, .. } => strlit(query, f),
        StmtKind::Choose { prompt, options } => {
            if let Some(p) = prompt {
                strlit(p, f);
            }
            for option in options {
                strlit(&option.label, f);
            }
        }
        StmtKind::SetBudget(budget) => expr(&budget.value, f),
        StmtKind::Try { .. } | StmtKind::EstimateCost { .. } => {}
    }
}

pub(crate) fn strlit<'a>(s: &'a StrLit, f: &mut impl FnMut(&'a Path)) {
    for part in &s.parts {
        if let StrPart::Interp { path } = part {
            f(path);
        }
    }
}

pub(crate) fn expr<'a>(e: &'a Expr, f: &mut impl FnMut(&'a Path)) {
    match &e.kind {
        ExprKind::Str { value } => strlit(value, f),
        ExprKind::Path { path } => f(path),
        ExprKind::Int { .. } | ExprKind::Duration { .. } | ExprKind::Bool { .. } => {}
    }
}

pub(crate) fn cond<'a>(c: &'a Cond, f: &mut impl FnMut(&'a Path)) {
    match &c.kind {
        CondKind::Or { operands } | CondKind::And { operands } => operands.iter().for_each(|c| cond(c, f)),
        CondKind::Not { operand } => cond(operand, f),
        CondKind::File { path, test } => {
            strlit(path, f);
            if let FileTest::Contains { needle } = test {
                expr(needle, f);
            }
        }
        CondKind::IsEmpty { operand } => expr(operand, f),
        CondKind::StrTest { lhs, rhs, .. } | CondKind::Compare { lhs, rhs, .. } => {
            expr(lhs, f);
            expr(rhs, f);
        }
        CondKind::Expr { expr: e } => expr(e, f),
    }
}
