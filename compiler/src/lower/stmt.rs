//! Statements (book: reference/statements.md).

use tisslang::cost::bound::CostBound;
use tisslang::isa::{Instr, NO_SLOT, run_flags};
use tisslang::module::{Assertion, Choice, ChoiceOption, Constant, Handler, NONE, PathAccess, PromptInfo};

use super::{Unit, path_cost};
use crate::syntax::ast::{Block, Budget, Content, Else, IfStmt, Stmt, StmtKind};

impl Unit<'_, '_> {
    pub(super) fn statement(&mut self, stmt: &Stmt) {
        self.line(stmt.span);
        match &stmt.kind {
            StmtKind::Step { name, body } => {
                let name = self.tables.literal_or_raw(name);
                self.step(name, stmt.span, body);
            }
            StmtKind::Read { path, var } => {
                self.string(path, false);
                self.record_path(path, PathAccess::Read);
                let slot = self.tables.slot(&var.name);
                self.emit(Instr::Read { slot });
            }
            StmtKind::Write { path, content } | StmtKind::Append { path, content } => {
                let append = matches!(stmt.kind, StmtKind::Append { .. });
                self.string(path, false);
                self.record_path(path, if append { PathAccess::Append } else { PathAccess::Write });
                match content {
                    Content::Heredoc(h) => {
                        let c = self.tables.heredoc_constant(h);
                        self.emit(Instr::PushConst { index: c });
                    }
                    Content::From { expr } => {
                        self.expr(expr);
                    }
                }
                self.emit(if append { Instr::Append {} } else { Instr::Write {} });
            }
            StmtKind::Mkdir { path } => {
                self.string(path, false);
                self.record_path(path, PathAccess::Create);
                self.emit(Instr::Mkdir {});
            }
            StmtKind::Delete { path, recursive } => {
                self.string(path, false);
                let access = if *recursive { PathAccess::DeleteRecursive } else { PathAccess::Delete };
                self.record_path(path, access);
                self.emit(Instr::Delete { recursive: u8::from(*recursive) });
            }
            StmtKind::Log { message } => {
                self.string(message, false);
                self.emit(Instr::Log {});
            }
            StmtKind::Run { command, dir, timeout } => {
                // Recorded first: the command's template shares its text.
                self.record_command(command, dir.as_deref(), timeout.as_ref().map(|t| t.millis), stmt.span);
                self.string(command, true);
                let mut flags = 0;
                if let Some(dir) = dir {
                    self.string(dir, false);
                    self.record_path(dir, PathAccess::Inspect);
                    flags |= run_flags::DIR;
                }
                if let Some(t) = timeout {
                    let c = self.tables.constant(Constant::Duration(t.millis));
                    self.emit(Instr::PushConst { index: c });
                    flags |= run_flags::TIMEOUT;
                }
                self.emit(Instr::Run { flags });
                path_cost::add_run_time(&mut self.acc, timeout.as_ref().map(|t| t.millis));
            }
            StmtKind::Env { name, value } => {
                self.expr(value);
                let name_index = self.tables.string(&name.name);
                self.emit(Instr::Env { name: name_index });
                self.record_env(name_index, stmt.span);
            }
            StmtKind::Assert { condition, message } => {
                // The condition's text first: the strings inside it share it.
                let condition_index = self.tables.source_code(condition.span());
                self.tables.enclosing = Some((condition_index, condition.span()));
                // Kept in the module: exactly their number (a vector's first
                // push makes room for four, 160 bytes where most conditions
                // read one or two paths; 0.7 MiB of the steps shape's module).
                let mut scratch = std::mem::take(&mut self.observed);
                self.observed(condition, &mut scratch);
                let mut observed = Vec::with_capacity(scratch.len());
                observed.append(&mut scratch);
                self.observed = scratch;
                let literal_message = message.as_ref().map(|m| m.as_literal());
                let assertion = self.tables.assertions.len() as u32;
                let message_index = match literal_message {
                    Some(Some(text)) => self.tables.string(text),
                    _ => NONE,
                };
                self.tables.assertions.push(Assertion {
                    condition: condition_index,
                    message: message_index,
                    observed,
                });
                self.cond(condition);
                self.tables.enclosing = None;
                match message {
                    Some(m) if m.as_literal().is_none() => {
                        // Build the message only when the assertion fails.
                        let ok = self.emit(Instr::JumpIfTrue { target: 0 });
                        let pass = self.acc;
                        self.string(m, false);
                        self.emit(Instr::Fail { assertion });
                        self.patch(ok);
                        self.acc = self.acc.either(&pass);
                    }
                    _ => {
                        self.emit(Instr::Assert { assertion });
                    }
                }
            }
            StmtKind::Var { name, value } => {
                self.expr(value);
                let slot = self.tables.slot(&name.name);
                self.emit(Instr::Store { slot });
            }
            StmtKind::If(if_stmt) => self.if_stmt(if_stmt),
            StmtKind::Try { body, catch_var, handler } => self.try_stmt(body, catch_var.as_deref(), handler),
            StmtKind::Call { task } => {
                let name = task.as_literal().unwrap_or_default();
                let index = self.task_index.get(name).copied().unwrap_or(0);
                self.emit(Instr::Call { task: index });
                let callee = self
                    .tables
                    .task_infos
                    .get(index as usize)
                    .and_then(|t| t.as_ref())
                    .map(|(info, _)| info.bound);
                self.acc = self.acc.then(&callee.unwrap_or(CostBound::ZERO));
            }
            StmtKind::PromptAgent { query, with, into } => {
                self.string(query, false);
                // Without WITH the context is every variable bound by READ
                // (plus LAST_RUN, which the VM adds; book: reference/models.md).
                let context: Vec<u32> = if with.is_empty() {
                    self.tables.read_slots()
                } else {
                    // A name given twice is sent once (the verifier refuses a
                    // context that repeats one).
                    let mut context: Vec<u32> =
                        with.iter().map(|w| self.tables.existing_slot(&w.name).unwrap_or(u32::MAX)).collect();
                    let mut seen = rustc_hash::FxHashSet::default();
                    context.retain(|slot| seen.insert(*slot));
                    context
                };
                let answer = into.as_ref().and_then(|i| self.tables.prompt_answer(i.var.span.start));
                let into_slot = into.as_ref().map_or(NONE, |i| self.tables.slot(&i.var.name));
                let answer = answer.map(|(shape, name)| self.tables.prompt_answer_entry(shape, &name));
                let prompt = self.tables.prompts.len() as u32;
                self.tables.prompts.push(PromptInfo {
                    context: context.clone(),
                    default_context: with.is_empty(),
                    into: into_slot,
                    answer,
                });
                self.emit(Instr::Prompt { prompt });
                let context_vars =
                    if with.is_empty() { self.tables.read_slot_count() + 1 } else { with.len() };
                // The query as the manifest records it: a literal's text, or
                // an interpolated query's source text.
                let query_text = match query.as_literal() {
                    Some(text) => text,
                    None => self.tables.raw_text(query.span),
                };
                let typed = self.tables.prompts[prompt as usize].answer.is_some();
                path_cost::add_prompt_tokens(&mut self.acc, query_text, context_vars, typed);
                self.record_prompt(query, with, stmt.span);
            }
            StmtKind::Pause { message } => {
                self.string(message, false);
                self.emit(Instr::Pause {});
                self.record_interaction(
                    tisslang::module::InteractionKind::Pause,
                    Some(message),
                    &[],
                    stmt.span,
                );
            }
            StmtKind::RequestReview { message, into } => {
                self.string(message, false);
                let slot = into.as_ref().map_or(NO_SLOT, |i| self.tables.slot(&i.name));
                self.emit(Instr::Review { slot });
                self.record_interaction(
                    tisslang::module::InteractionKind::Review,
                    Some(message),
                    &[],
                    stmt.span,
                );
            }
            StmtKind::Choose { prompt, options } => {
                let prompt_index = prompt.as_ref().map_or(NONE, |p| self.tables.literal_or_raw(p));
                let labels: Vec<u32> = options.iter().map(|o| self.tables.literal_or_raw(&o.label)).collect();
                let choice = self.tables.choices.len() as u32;
                self.tables.choices.push(Choice {
                    prompt: prompt_index,
                    options: labels.iter().map(|&label| ChoiceOption { label, target: 0 }).collect(),
                });
                self.choices.push(choice);
                self.emit(Instr::Choose { choice });
                let labels_lits: Vec<_> = options.iter().map(|o| &o.label).collect();
                self.record_interaction(
                    tisslang::module::InteractionKind::Choose,
                    prompt.as_ref(),
                    &labels_lits,
                    stmt.span,
                );
                let start = self.acc;
                let mut merged: Option<CostBound> = None;
                let mut ends = Vec::new();
                for (i, option) in options.iter().enumerate() {
                    self.acc = start;
                    self.tables.choices[choice as usize].options[i].target = self.pc();
                    self.line(option.span);
                    self.block(&option.body);
                    if i + 1 < options.len() {
                        ends.push(self.emit(Instr::Jump { target: 0 }));
                    }
                    merged = Some(match merged {
                        None => self.acc,
                        Some(m) => m.either(&self.acc),
                    });
                }
                for end in ends {
                    self.patch(end);
                }
                self.acc = merged.unwrap_or(start);
            }
            StmtKind::EstimateCost { into, body } => {
                let bound = self.estimate(body);
                let estimate = self.tables.estimates.len() as u32;
                self.tables.estimates.push(bound);
                self.emit(Instr::Estimate { estimate });
                match into {
                    Some(i) => {
                        let slot = self.tables.slot(&i.name);
                        self.emit(Instr::Store { slot })
                    }
                    None => self.emit(Instr::Pop {}),
                };
            }
            StmtKind::SetBudget(budget) => self.budget(budget),
        }
    }

    pub(super) fn budget(&mut self, budget: &Budget) {
        self.expr(&budget.value);
        let dim = tisslang::cost::Dim::ALL.iter().position(|&d| d == budget.dim).unwrap_or(0) as u8;
        self.emit(Instr::SetBudget { dim });
        self.record_budget(dim, &budget.value, budget.span);
    }

    fn if_stmt(&mut self, if_stmt: &IfStmt) {
        self.cond(&if_stmt.condition);
        let to_else = self.emit(Instr::JumpIfFalse { target: 0 });
        let branch = self.acc;
        self.block(&if_stmt.then_block);
        match &if_stmt.else_branch {
            None => {
                self.patch(to_else);
                self.acc = self.acc.either(&branch);
            }
            Some(else_branch) => {
                let to_end = self.emit(Instr::Jump { target: 0 });
                let then_bound = self.acc;
                self.acc = branch;
                self.patch(to_else);
                match else_branch {
                    Else::If { stmt, span } => {
                        self.line(*span);
                        self.if_stmt(stmt);
                    }
                    Else::Block { block } => self.block(block),
                }
                self.patch(to_end);
                self.acc = self.acc.either(&then_bound);
            }
        }
    }

    /// `TRY body CATCH [AS e] handler`: the body's range goes into the
    /// handler table (after any TRY nested in it, so the innermost matches first).
    fn try_stmt(&mut self, body: &Block, catch_var: Option<&crate::syntax::ast::Ident>, handler: &Block) {
        let start = self.pc();
        let entry = self.acc;
        let depth = self.depth;
        self.block(body);
        let end = self.pc();
        let to_end = self.emit(Instr::Jump { target: 0 });
        let completed = self.acc;
        let catch_slot = catch_var.map_or(NONE, |v| self.tables.slot(&v.name));
        let target = self.pc();
        self.handlers.push(Handler {
            start,
            end,
            target,
            stack_depth: depth,
            step_depth: self.steps.len() as u32,
            catch_slot,
        });
        self.depth = depth;
        let handler_bound = self.bound_of(|unit| unit.block(handler));
        self.patch(to_end);
        // A failure can happen anywhere in the body: the handler path costs at
        // least the entry plus the handler, at most the whole body plus the handler.
        self.acc = path_cost::try_bound(&entry, &completed, &handler_bound);
    }

    /// The static bound of a block that is not run (ESTIMATE_COST): its code
    /// is lowered into a scratch buffer and discarded, its effects kept out of
    /// the manifest.
    fn estimate(&mut self, body: &Block) -> CostBound {
        let last_line = self.lines.last().copied();
        let saved = (
            self.code.len(),
            self.lines.len(),
            self.handlers.len(),
            self.choices.len(),
            self.depth,
            self.estimating,
        );
        self.estimating = true;
        let bound = self.bound_of(|unit| unit.block(body));
        self.code.truncate(saved.0);
        self.lines.truncate(saved.1);
        if let (Some(entry), Some(last)) = (last_line, self.lines.last_mut()) {
            *last = entry;
        }
        self.handlers.truncate(saved.2);
        for choice in self.choices.drain(saved.3..) {
            // Options of a discarded CHOOSE point nowhere: clear them.
            self.tables.choices[choice as usize].options.iter_mut().for_each(|o| o.target = 0);
        }
        self.depth = saved.4;
        self.estimating = saved.5;
        bound
    }
}
