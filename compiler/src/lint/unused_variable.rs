//! W0001: a variable bound and never used.
//!
//! Variables are global to the run, so a use anywhere counts (a DEFINE_TASK
//! body, an `ESTIMATE_COST` block, a `WITH` list). A PROMPT_AGENT without
//! `WITH` sends every variable bound by READ as context (SPEC §7), so it
//! uses them all. A name starting with `_` is unused on purpose.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{Ident, PathRoot, StmtKind};

use super::Lint;
use crate::syntax::visit::{self, Visitor};

pub(super) fn check(cx: &mut Lint<'_>) {
    // Bindings by name, in source order (BTreeMap: warnings in a stable order).
    let mut bindings: BTreeMap<u32, (&str, Vec<&Ident>)> = BTreeMap::new();
    let mut first_at: FxHashMap<&str, u32> = FxHashMap::default();
    let mut used: FxHashSet<&str> = FxHashSet::default();
    let mut read_bound: Vec<&str> = Vec::new();
    let mut prompt_takes_reads = false;
    let plan = cx.plan;
    // Every binding in source order.
    let mut on_binding: Vec<&Ident> = Vec::new();
    for &(stmt, _) in &cx.statements {
        visit::reads(|path| {
            if let PathRoot::Var { ident } = &path.root {
                used.insert(ident.name.as_str());
            }
        })
        .visit_stmt(stmt);
        match &stmt.kind {
            StmtKind::Read { var, .. } => {
                read_bound.push(var.name.as_str());
                on_binding.push(var);
            }
            StmtKind::Var { name, .. } => on_binding.push(name),
            StmtKind::Try { catch_var: Some(v), .. } => on_binding.push(v),
            StmtKind::RequestReview { into: Some(v), .. } | StmtKind::EstimateCost { into: Some(v), .. } => {
                on_binding.push(v)
            }
            StmtKind::PromptAgent { with, into, .. } => {
                used.extend(with.iter().map(|w| w.name.as_str()));
                prompt_takes_reads |= with.is_empty();
                if let Some(v) = into {
                    on_binding.push(v);
                }
            }
            _ => {}
        }
    }
    for item in &plan.items {
        visit::reads(|path| {
            if let PathRoot::Var { ident } = &path.root {
                used.insert(ident.name.as_str());
            }
        })
        .visit_item(item);
    }
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
