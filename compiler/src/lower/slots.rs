//! Declaring the variables' slots before any code is emitted, and counting
//! what lowering will add to the tables that grow with the plan.

use tisslang::types::ValueType;

use super::tables::Declaring;
use crate::syntax::ast::{Block, Else, Expr, Item, Plan, StmtKind};

/// How many entries lowering adds to the tables that grow with the plan, or
/// more (counted where `declare_slots` walks anyway): reserved before any
/// code is emitted, so they do not grow by copying while the tree is still
/// resident (a step's entry is 104 bytes). Room never written is never touched.
#[derive(Default)]
pub(super) struct Sizes {
    steps: usize,
    assertions: usize,
    prompts: usize,
    commands: usize,
    paths: usize,
    /// Line entries: one per statement, two per step, one per ELSE IF,
    /// CHOOSE option and top-level SET_BUDGET.
    pub(super) lines: usize,
}

impl Sizes {
    /// Counts what a statement adds itself (not what its blocks hold).
    fn count(&mut self, kind: &StmtKind) {
        match kind {
            StmtKind::Assert { .. } => self.assertions += 1,
            StmtKind::PromptAgent { .. } => self.prompts += 1,
            StmtKind::Run { dir, .. } => {
                self.commands += 1;
                self.paths += usize::from(dir.is_some());
            }
            StmtKind::Read { .. }
            | StmtKind::Write { .. }
            | StmtKind::Append { .. }
            | StmtKind::Mkdir { .. }
            | StmtKind::Delete { .. } => self.paths += 1,
            StmtKind::Step { .. } => {
                self.steps += 1;
                self.lines += 1;
            }
            _ => {}
        }
    }

    pub(super) fn reserve(&self, tables: &mut super::tables::Tables<'_>) {
        // About a string a line entry (a statement's text, a step's name, a
        // command), and three more a prompt (its context's names, its
        // answer's type and schema): measured, 0.8-1.0 strings a line entry
        // on every shape, 1.43 on the prompts shape, where this is exact.
        tables.reserve_strings(self.lines + 3 * self.prompts);
        tables.steps.reserve_exact(self.steps);
        tables.assertions.reserve_exact(self.assertions);
        tables.prompts.reserve_exact(self.prompts);
        tables.manifest.prompts.reserve_exact(self.prompts);
        tables.manifest.commands.reserve_exact(self.commands);
        tables.manifest.paths.reserve_exact(self.paths);
    }
}

/// Creates every variable's slot, in source order, with its type, before
/// any code is emitted (a task may use a variable its caller binds later in
/// the source). Copies (`VAR y = x`) take their type in a second pass.
pub(super) fn declare_slots(plan: &Plan, tables: &mut Declaring<'_, '_>) -> Sizes {
    let mut pending: Vec<(&str, &Expr)> = Vec::new();
    let mut sizes = Sizes::default();
    for item in &plan.items {
        match item {
            Item::Setup { body, .. } => {
                sizes.steps += 1;
                sizes.lines += 2;
                declare_block(body, tables, &mut pending, false, &mut sizes)
            }
            Item::DefineTask { body, .. } => {
                sizes.lines += 1;
                declare_block(body, tables, &mut pending, false, &mut sizes)
            }
            Item::Step(step) => {
                sizes.steps += 1;
                sizes.lines += 2;
                declare_block(&step.body, tables, &mut pending, false, &mut sizes)
            }
            Item::SetBudget(_) => sizes.lines += 1,
            _ => {}
        }
    }
    // Resolve copies; each round resolves at least one, or stops.
    while !pending.is_empty() {
        let before = pending.len();
        pending.retain(|(name, expr)| match super::expr::static_type(expr, tables) {
            Some(ty) => {
                tables.set_slot_type(name, ty);
                false
            }
            None => true,
        });
        if pending.len() == before {
            break;
        }
    }
    sizes
}

/// `estimated`: inside an ESTIMATE_COST block, whose READs never run, so
/// their variables are not part of a prompt's default context.
fn declare_block<'p>(
    block: &'p Block,
    tables: &mut Declaring<'_, '_>,
    pending: &mut Vec<(&'p str, &'p Expr)>,
    estimated: bool,
    sizes: &mut Sizes,
) {
    sizes.lines += block.commands.len();
    for stmt in &block.commands {
        sizes.count(&stmt.kind);
        match &stmt.kind {
            StmtKind::Read { var, .. } => {
                tables.declare(&var.name, ValueType::Str);
                if !estimated {
                    tables.mark_read_slot(&var.name);
                }
            }
            StmtKind::Var { name, value } => match super::expr::static_type(value, tables) {
                Some(ty) => {
                    tables.declare(&name.name, ty);
                }
                None => {
                    tables.declare_unresolved(&name.name);
                    pending.push((&name.name, value));
                }
            },
            StmtKind::PromptAgent { into: Some(i), .. } => {
                let ty =
                    tables.prompt_answer(i.var.span.start).map_or(ValueType::Str, |a| tables.shape_type(a.0));
                tables.declare(&i.var.name, ty);
            }
            StmtKind::RequestReview { into: Some(i), .. } => {
                tables.declare(&i.name, ValueType::Review);
            }
            StmtKind::Try { body, catch_var, handler } => {
                declare_block(body, tables, pending, estimated, sizes);
                if let Some(v) = catch_var {
                    tables.declare(&v.name, ValueType::Error);
                }
                declare_block(handler, tables, pending, estimated, sizes);
            }
            StmtKind::EstimateCost { into, body } => {
                declare_block(body, tables, pending, true, sizes);
                if let Some(i) = into {
                    tables.declare(&i.name, ValueType::Estimate);
                }
            }
            StmtKind::Step { body, .. } => declare_block(body, tables, pending, estimated, sizes),
            StmtKind::If(if_stmt) => {
                let mut current = Some(if_stmt);
                while let Some(i) = current {
                    declare_block(&i.then_block, tables, pending, estimated, sizes);
                    current = match &i.else_branch {
                        Some(Else::If { stmt, .. }) => {
                            sizes.lines += 1;
                            Some(stmt)
                        }
                        Some(Else::Block { block }) => {
                            declare_block(block, tables, pending, estimated, sizes);
                            None
                        }
                        None => None,
                    };
                }
            }
            StmtKind::Choose { options, .. } => {
                sizes.lines += options.len();
                for o in options {
                    declare_block(&o.body, tables, pending, estimated, sizes);
                }
            }
            _ => {}
        }
    }
}
