//! What the editor features look up in one plan: every occurrence of a
//! variable or task name (bindings, uses, definitions, CALLs) sorted by
//! position, and the outline (TASK, SETUP, the STEP tree, DEFINE_TASK).
//! Built in one walk over the syntax tree after each change.

use crate::syntax::ast::{
    Block, ChooseOption, Ident, Item, PathView, Plan, RootView, Stmt, StmtKind, StrLit,
};
use crate::syntax::span::Span;
use crate::syntax::visit::{self, Binder, Visitor};

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
    /// `TYPE Name = …`
    Type,
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
    pub(crate) fn build<'a>(plan: &'a Plan, src: &'a str) -> Index {
        let mut w = Walker { src, occurrences: Vec::new(), outline: Vec::new() };
        for item in &plan.items {
            match item {
                Item::Task { name, span } => {
                    w.visit_strlit(name);
                    w.outline.push(entry(OutlineKind::Task, w.name_of(name), *span, name.span, Vec::new()));
                }
                Item::Setup { description, body, span } => {
                    if let Some(d) = description {
                        w.visit_strlit(d);
                    }
                    let selection = description.as_ref().map_or(keyword_span(*span, "SETUP"), |d| d.span);
                    let name = description.as_ref().map_or_else(|| "SETUP".to_string(), |d| w.name_of(d));
                    let children = w.nested(body);
                    w.outline.push(entry(OutlineKind::Setup, name, *span, selection, children));
                }
                Item::Step(step) => {
                    w.visit_strlit(&step.name);
                    let children = w.nested(&step.body);
                    let name = w.name_of(&step.name);
                    w.outline.push(entry(OutlineKind::Step, name, step.span, step.name.span, children));
                }
                Item::DefineTask { name, body, span } => {
                    w.name_literal(name, OccurrenceKind::Defines);
                    let children = w.nested(body);
                    let name_text = w.name_of(name);
                    w.outline.push(entry(OutlineKind::DefineTask, name_text, *span, name.span, children));
                }
                Item::TypeDef(def) => {
                    w.visit_item(item);
                    let name = def.name.name.to_string();
                    w.outline.push(entry(OutlineKind::Type, name, def.span, def.name.span, Vec::new()));
                }
                Item::Header { .. } | Item::Version { .. } | Item::SetBudget(_) => w.visit_item(item),
            }
        }
        w.occurrences.sort_by_key(|o| (o.span.start, o.span.end));
        Index { occurrences: w.occurrences, outline: w.outline }
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
    /// The outline entries of the block being walked (nested steps and
    /// options; IF, TRY and ESTIMATE_COST add their blocks' entries to it).
    outline: Vec<Outline>,
}

impl<'a> Walker<'a> {
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

    fn name_literal(&mut self, lit: &'a StrLit, kind: OccurrenceKind) {
        match lit.as_literal() {
            Some(name) => self.push(name, lit.span, kind),
            None => self.visit_strlit(lit),
        }
    }

    /// Walks a block whose outline entries are the children of one entry.
    fn nested(&mut self, block: &'a Block) -> Vec<Outline> {
        let outer = std::mem::take(&mut self.outline);
        self.visit_block(block);
        std::mem::replace(&mut self.outline, outer)
    }
}

impl<'a> Visitor<'a> for Walker<'a> {
    fn src(&self) -> &'a str {
        self.src
    }

    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match &stmt.kind {
            StmtKind::Step { name, body } => {
                self.visit_strlit(name);
                let children = self.nested(body);
                let name_text = self.name_of(name);
                self.outline.push(entry(OutlineKind::Step, name_text, stmt.span, name.span, children));
            }
            StmtKind::Call { task } => self.name_literal(task, OccurrenceKind::Calls),
            _ => visit::walk_stmt(self, stmt),
        }
    }

    fn visit_option(&mut self, option: &'a ChooseOption) {
        self.visit_strlit(&option.label);
        let children = self.nested(&option.body);
        let name = self.name_of(&option.label);
        self.outline.push(entry(OutlineKind::Option, name, option.span, option.label.span, children));
    }

    fn visit_path(&mut self, path: PathView<'a>) {
        if let RootView::Var { ident } = &path.root {
            self.push(ident.name, ident.span, OccurrenceKind::Uses);
        }
    }

    fn visit_with(&mut self, ident: &'a Ident) {
        self.push(&ident.name, ident.span, OccurrenceKind::Uses);
    }

    fn visit_bind(&mut self, ident: &'a Ident, binder: Binder<'a>) {
        self.push(&ident.name, ident.span, OccurrenceKind::Binds(binder.statement()));
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
