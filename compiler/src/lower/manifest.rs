//! Recording the plan's effects into the manifest as they are lowered.
//! Nothing is recorded inside ESTIMATE_COST blocks: they never run.

use tisslang::module::{
    BudgetEntry, CommandEntry, InteractionEntry, InteractionKind, NONE, PathAccess, PathEntry, PromptEntry,
};

use super::Unit;
use crate::syntax::ast::{Expr, ExprKind, Ident, StrLit};
use crate::syntax::span::Span;

impl Unit<'_, '_> {
    fn line_of(&self, span: Span) -> u32 {
        self.tables.file.line_col(span.start as usize).line as u32
    }

    pub(super) fn record_path(&mut self, path: &StrLit, access: PathAccess) {
        if self.estimating {
            return;
        }
        let text = self.tables.literal_or_raw(path);
        let line = self.line_of(path.span);
        let dynamic = path.as_literal().is_none();
        self.tables.manifest.paths.push(PathEntry { path: text, access, dynamic, line });
    }

    pub(super) fn record_command(
        &mut self,
        command: &StrLit,
        dir: Option<&StrLit>,
        timeout_ms: Option<u64>,
        span: Span,
    ) {
        if self.estimating {
            return;
        }
        let text = self.tables.literal_or_raw(command);
        self.tables.shown = Some((command.span, text));
        let dir = dir.map_or(NONE, |d| self.tables.literal_or_raw(d));
        let line = self.line_of(span);
        let step = self.steps.last().copied().unwrap_or(NONE);
        let dynamic = command.as_literal().is_none();
        self.tables.manifest.commands.push(CommandEntry { text, dynamic, dir, timeout_ms, line, step });
    }

    pub(super) fn record_env(&mut self, name: u32, span: Span) {
        if self.estimating {
            return;
        }
        let line = self.line_of(span);
        self.tables.manifest.env.push((name, line));
    }

    pub(super) fn record_prompt(&mut self, query: &StrLit, with: &[Ident], span: Span) {
        if self.estimating {
            return;
        }
        let query = self.tables.literal_or_raw(query);
        let context = with.iter().map(|w| self.tables.string(&w.name)).collect();
        let line = self.line_of(span);
        self.tables.manifest.prompts.push(PromptEntry { query, context, line });
    }

    pub(super) fn record_interaction(
        &mut self,
        kind: InteractionKind,
        text: Option<&StrLit>,
        options: &[&StrLit],
        span: Span,
    ) {
        if self.estimating {
            return;
        }
        let text = text.map_or(NONE, |t| self.tables.literal_or_raw(t));
        let options = options.iter().map(|o| self.tables.literal_or_raw(o)).collect();
        let line = self.line_of(span);
        self.tables.manifest.interactions.push(InteractionEntry { kind, text, options, line });
    }

    pub(super) fn record_budget(&mut self, dim: u8, value: &Expr, span: Span) {
        if self.estimating {
            return;
        }
        let value = match value.kind() {
            ExprKind::Int { value } => u64::try_from(value).ok(),
            ExprKind::Duration { millis } => Some(millis),
            _ => None,
        };
        let line = self.line_of(span);
        self.tables.manifest.budgets.push(BudgetEntry { dim, value, line });
    }
}
