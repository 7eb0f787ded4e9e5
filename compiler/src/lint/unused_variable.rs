//! W0001: a variable bound and never used.
//!
//! Variables are global to the run, so a use anywhere counts (a DEFINE_TASK
//! body, an `ESTIMATE_COST` block, a `WITH` list). A PROMPT_AGENT without
//! `WITH` sends every variable bound by READ as context (book: reference/models.md), so it
//! uses them all. A name starting with `_` is unused on purpose.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{Block, Ident, PathView, RootView, Stmt, StmtKind};
use crate::syntax::visit::{self, Binder, Visitor};

use super::Lint;

pub(super) fn check(cx: &mut Lint<'_>) {
    // Bindings by name, in source order (BTreeMap: warnings in a stable order).
    let mut bindings: BTreeMap<u32, (&str, Vec<&Ident>)> = BTreeMap::new();
    let mut first_at: FxHashMap<&str, u32> = FxHashMap::default();
    let mut names = Names {
        src: &cx.file.text,
        used: FxHashSet::default(),
        on_binding: Vec::new(),
        read_bound: Vec::new(),
        prompt_takes_reads: false,
    };
    for &(stmt, _) in &cx.statements {
        names.visit_stmt(stmt);
    }
    for item in &cx.plan.items {
        names.visit_item(item);
    }
    let Names { mut used, on_binding, read_bound, prompt_takes_reads, .. } = names;
    if prompt_takes_reads {
        used.extend(read_bound);
    }
    for ident in on_binding {
        let name = ident.name.as_str();
        if used.contains(name) || name.starts_with('_') {
            continue;
        }
        let at = *first_at.entry(name).or_insert(ident.span.start);
        bindings.entry(at).or_insert_with(|| (name, Vec::new())).1.push(ident);
    }
    for (name, idents) in bindings.into_values() {
        let first = idents[0];
        let mut warning = Diagnostic::warning(
            codes::UNUSED_VARIABLE,
            first.span,
            format!("variable `{name}` is bound but never used"),
        );
        for more in &idents[1..] {
            warning = warning
                .with_label(more.span, format!("`{name}` is also bound here (line {})", cx.line(more.span)));
        }
        if idents.len() == 1 {
            warning = warning.with_suggestion(
                format!("if it is unused on purpose, name it `_{name}`"),
                first.span,
                format!("_{name}"),
            );
        }
        cx.warn(warning);
    }
}

/// What the plan's statements and items use and bind, each walked on its
/// own (the statement list holds the nested ones).
struct Names<'a> {
    src: &'a str,
    used: FxHashSet<&'a str>,
    /// Every binding, in source order.
    on_binding: Vec<&'a Ident>,
    read_bound: Vec<&'a str>,
    prompt_takes_reads: bool,
}

impl<'a> Visitor<'a> for Names<'a> {
    fn src(&self) -> &'a str {
        self.src
    }

    fn visit_block(&mut self, _block: &'a Block) {}

    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if let StmtKind::PromptAgent { with, .. } = &stmt.kind {
            self.prompt_takes_reads |= with.is_empty();
        }
        visit::walk_stmt(self, stmt);
    }

    fn visit_path(&mut self, path: PathView<'a>) {
        if let RootView::Var { ident } = &path.root {
            self.used.insert(ident.name);
        }
    }

    fn visit_with(&mut self, ident: &'a Ident) {
        self.used.insert(ident.name.as_str());
    }

    fn visit_bind(&mut self, ident: &'a Ident, binder: Binder<'a>) {
        if let Binder::Read = binder {
            self.read_bound.push(ident.name.as_str());
        }
        self.on_binding.push(ident);
    }
}
