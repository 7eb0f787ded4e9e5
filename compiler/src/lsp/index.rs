//! What the editor features look up in one plan: every occurrence of a
//! variable or task name (bindings, uses, definitions, CALLs) sorted by
//! position, and the outline (TASK, SETUP, the STEP tree, DEFINE_TASK).
//! Built in one walk over the syntax tree after each change.

use crate::lint::visit;
use crate::syntax::ast::{Block, Cond, Content, Else, Expr, IfStmt, Item, Path};
use crate::syntax::ast::{PathRoot, Plan, Stmt, StmtKind, StrLit};
use crate::syntax::span::Span;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OccurrenceKind {
    /// A variable bound here, by the statement named (`VAR`, `READ … AS`, …).
    Binds(&'static str),
    /// A variable read here.
    Uses,
    /// `DEFINE_TASK "name"`: the name literal.
    Defines,
    /// `CALL "name"`: the name literal.
    Calls,
}

impl OccurrenceKind {
    pub(crate) fn is_variable(self) -> bool {
        matches!(self, OccurrenceKind::Binds(_) | OccurrenceKind::Uses)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Occurrence {
    pub name: String,
    /// The identifier, or the task name's string literal with its quotes.
    pub span: Span,
    pub kind: OccurrenceKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OutlineKind {
    Task,
    Setup,
    Step,
    Option,
    DefineTask,
}

/// One entry of the document outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Outline {
    pub kind: OutlineKind,
    pub name: String,
    /// The whole item or statement.
    pub span: Span,
    /// What the editor selects: the name literal, or the keyword of an
    /// unnamed SETUP.
    pub selection: Span,
    pub children: Vec<Outline>,
}

#[derive(Debug, Default)]
pub(crate) struct Index {
    /// Sorted by start.
    pub occurrences: Vec<Occurrence>,
    pub outline: Vec<Outline>,
}

impl Index {
    pub(crate) fn build(plan: &Plan, src: &str) -> Index {
        let mut w = Walker { src, occurrences: Vec::new() };
        let mut outline = Vec::new();
        for item in &plan.items {
            match item {
                Item::Header { .. } | Item::Version { .. } => {}
                Item::Task { name, span } => {
                    w.strlit(name);
                    outline.push(entry(OutlineKind::Task, w.name_of(name), *span, name.span, Vec::new()));
                }
                Item::Setup { description, body, span } => {
                    if let Some(d) = description {
                        w.strlit(d);
                    }
                    let selection = description.as_ref().map_or(keyword_span(*span, "SETUP"), |d| d.span);
                    let name = description.as_ref().map_or_else(|| "SETUP".to_string(), |d| w.name_of(d));
                    let children = w.block(body);
                    outline.push(entry(OutlineKind::Setup, name, *span, selection, children));
                }
                Item::Step(step) => {
                    w.strlit(&step.name);
                    let children = w.block(&step.body);
                    outline.push(entry(
                        OutlineKind::Step,
                        w.name_of(&step.name),
                        step.span,
                        step.name.span,
                        children,
                    ));
                }
                Item::DefineTask { name, body, span } => {
                    w.name_literal(name, OccurrenceKind::Defines);
                    let children = w.block(body);
                    outline.push(entry(OutlineKind::DefineTask, w.name_of(name), *span, name.span, children));
                }
                Item::SetBudget(budget) => w.expr(&budget.value),
            }
        }
        w.occurrences.sort_by_key(|o| (o.span.start, o.span.end));
        Index { occurrences: w.occurrences, outline }
    }

    /// The occurrence under a byte offset (its end included, so a cursor
    /// just after a name still finds it).
    pub(crate) fn occurrence_at(&self, offset: usize) -> Option<&Occurrence> {
        let offset = offset as u32;
        let after = self.occurrences.partition_point(|o| o.span.start <= offset);
        self.occurrences[..after]
            .iter()
            .rev()
            .take(2)
            .find(|o| o.span.start <= offset && offset <= o.span.end)
    }

    /// Every occurrence of the same symbol as `of` (a variable, or a task).
    pub(crate) fn occurrences_of<'a>(&'a self, of: &'a Occurrence) -> impl Iterator<Item = &'a Occurrence> {
        self.occurrences
            .iter()
            .filter(move |o| o.name == of.name && o.kind.is_variable() == of.kind.is_variable())
    }
}

fn entry(kind: OutlineKind, name: String, span: Span, selection: Span, children: Vec<Outline>) -> Outline {
    Outline { kind, name, span, selection, children }
}

/// The span of the keyword a statement starts with.
fn keyword_span(span: Span, keyword: &str) -> Span {
    Span { start: span.start, end: (span.start + keyword.len() as u32).min(span.end) }
}

struct Walker<'s> {
    src: &'s str,
    occurrences: Vec<Occurrence>,
}

impl Walker<'_> {
    /// A literal's text as the outline shows it: the literal, or its source
    /// when it is interpolated.
    fn name_of(&self, lit: &StrLit) -> String {
        match lit.as_literal() {
            Some(text) => text.to_string(),
            None => self.src.get(lit.span.range()).unwrap_or("").to_string(),
        }
    }

    fn push(&mut self, name: &str, span: Span, kind: OccurrenceKind) {
        self.occurrences.push(Occurrence { name: name.to_string(), span, kind });
    }

    fn name_literal(&mut self, lit: &StrLit, kind: OccurrenceKind) {
        match lit.as_literal() {
            Some(name) => self.push(name, lit.span, kind),
            None => self.strlit(lit),
        }
    }

    /// The block's statements; returns its outline entries (nested steps).
    fn block(&mut self, block: &Block) -> Vec<Outline> {
        let mut outline = Vec::new();
        for stmt in &block.commands {
            self.stmt(stmt, &mut outline);
        }
        outline
    }

    fn stmt(&mut self, stmt: &Stmt, outline: &mut Vec<Outline>) {
        match &stmt.kind {
            StmtKind::Step { name, body } => {
                self.strlit(name);
                let children = self.block(body);
                outline.push(entry(OutlineKind::Step, self.name_of(name), stmt.span, name.span, children));
            }
            StmtKind::Read { path, var } => {
                self.strlit(path);
                self.push(&var.name, var.span, OccurrenceKind::Binds("READ … AS"));
            }
            StmtKind::Write { path, content } | StmtKind::Append { path, content } => {
                self.strlit(path);
                if let Content::From { expr } = content {
                    self.expr(expr);
                }
            }
            StmtKind::Mkdir { path } | StmtKind::Delete { path, .. } => self.strlit(path),
            StmtKind::Log { message } | StmtKind::Pause { message } => self.strlit(message),
            StmtKind::Run { command, dir, .. } => {
                self.strlit(command);
                if let Some(dir) = dir {
                    self.strlit(dir);
                }
            }
            StmtKind::Env { value, .. } => self.expr(value),
            StmtKind::Assert { condition, message } => {
                self.cond(condition);
                if let Some(m) = message {
                    self.strlit(m);
                }
            }
            StmtKind::Var { name, value } => {
                self.expr(value);
                self.push(&name.name, name.span, OccurrenceKind::Binds("VAR"));
            }
            StmtKind::If(if_stmt) => self.if_stmt(if_stmt, outline),
            StmtKind::Try { body, catch_var, handler } => {
                outline.extend(self.block(body));
                if let Some(e) = catch_var {
                    self.push(&e.name, e.span, OccurrenceKind::Binds("CATCH AS"));
                }
                outline.extend(self.block(handler));
            }
            StmtKind::Call { task } => self.name_literal(task, OccurrenceKind::Calls),
            StmtKind::PromptAgent { query, with, into } => {
                self.strlit(query);
                for ident in with {
                    self.push(&ident.name, ident.span, OccurrenceKind::Uses);
                }
                if let Some(x) = into {
                    self.push(&x.name, x.span, OccurrenceKind::Binds("PROMPT_AGENT … INTO"));
                }
            }
            StmtKind::RequestReview { message, into } => {
                self.strlit(message);
                if let Some(x) = into {
                    self.push(&x.name, x.span, OccurrenceKind::Binds("REQUEST_REVIEW … INTO"));
                }
            }
            StmtKind::Choose { prompt, options } => {
                if let Some(p) = prompt {
                    self.strlit(p);
                }
                for option in options {
                    self.strlit(&option.label);
                    let children = self.block(&option.body);
                    let name = self.name_of(&option.label);
                    outline.push(entry(OutlineKind::Option, name, option.span, option.label.span, children));
                }
            }
            StmtKind::EstimateCost { into, body } => {
                if let Some(x) = into {
                    self.push(&x.name, x.span, OccurrenceKind::Binds("ESTIMATE_COST INTO"));
                }
                outline.extend(self.block(body));
            }
            StmtKind::SetBudget(budget) => self.expr(&budget.value),
        }
    }

    fn if_stmt(&mut self, if_stmt: &IfStmt, outline: &mut Vec<Outline>) {
        self.cond(&if_stmt.condition);
        outline.extend(self.block(&if_stmt.then_block));
        match &if_stmt.else_branch {
            Some(Else::If { stmt, .. }) => self.if_stmt(stmt, outline),
            Some(Else::Block { block }) => outline.extend(self.block(block)),
            None => {}
        }
    }

    fn cond(&mut self, cond: &Cond) {
        visit::cond(cond, &mut |p| self.path(p));
    }

    fn expr(&mut self, expr: &Expr) {
        visit::expr(expr, &mut |p| self.path(p));
    }

    fn strlit(&mut self, lit: &StrLit) {
        visit::strlit(lit, &mut |p| self.path(p));
    }

    fn path(&mut self, path: &Path) {
        if let PathRoot::Var { ident } = &path.root {
            self.push(&ident.name, ident.span, OccurrenceKind::Uses);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(src: &str) -> Index {
        let (plan, _) = crate::parser::parse(src);
        Index::build(&plan, src)
    }

    #[test]
    fn finds_bindings_uses_and_calls_in_every_place() {
        let src = "TASK \"t\"\nDEFINE_TASK \"build\" { READ \"a\" AS x }\nSTEP \"s\" {\n  CALL \"build\"\n  \
                   VAR y = x\n  LOG \"${y} ${x.FOO}\"\n  IF x CONTAINS \"a\" { STEP \"inner\" { } }\n}\n";
        let built = index(src);
        let found: Vec<(&str, OccurrenceKind)> =
            built.occurrences.iter().map(|o| (o.name.as_str(), o.kind)).collect();
        use OccurrenceKind::*;
        assert_eq!(
            found,
            [
                ("build", Defines),
                ("x", Binds("READ … AS")),
                ("build", Calls),
                ("y", Binds("VAR")),
                ("x", Uses),
                ("y", Uses),
                ("x", Uses),
                ("x", Uses),
            ]
        );
        let outline = built.outline;
        let names: Vec<&str> = outline.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, ["t", "build", "s"]);
        assert_eq!(outline[2].children[0].name, "inner");
    }
}
