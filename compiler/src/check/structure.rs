//! The shape of a plan (book: reference/structure.md): one `TASK` before every other item, at most
//! one `SETUP` and before every `STEP`, unique `DEFINE_TASK` names, `CHOOSE`
//! with two options to 1,000, and a satisfiable `#TISS_VERSION`.

use tisslang::verify::MAX_CHOICE_OPTIONS;
use tisslang::version::LANGUAGE_VERSION;

use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{ChooseOption, Item, Plan};
use crate::syntax::span::Span;

use super::Ctx;
use super::literals::quote;
use super::symbols::NameMap;

pub(crate) fn check(plan: &Plan, cx: &mut Ctx<'_>) {
    let mut task: Option<Span> = None;
    // The first item (not a pragma) seen before any TASK.
    let mut before_task: Option<(Span, &str)> = None;
    let mut first_step: Option<Span> = None;
    let mut setup: Option<Span> = None;
    let mut defines: NameMap<'_, Span> = NameMap::default();

    for item in &plan.items {
        let (span, keyword) = match item {
            Item::Header { .. } => continue,
            Item::Version { requirement, span } => {
                if !requirement.matches(LANGUAGE_VERSION) {
                    cx.emit(
                        Diagnostic::error(
                            codes::VERSION_NOT_SATISFIED,
                            *span,
                            format!(
                                "this plan requires TissLang {requirement}, but this compiler \
                                 implements {LANGUAGE_VERSION}"
                            ),
                        )
                        .with_note(format!(
                            "write a requirement that {LANGUAGE_VERSION} satisfies, such as \
                             `#TISS_VERSION >= 1.0`, or use a newer compiler"
                        )),
                    );
                }
                continue;
            }
            Item::Task { span, .. } => {
                match task {
                    None => task = Some(*span),
                    Some(first) => {
                        let line = cx.line(first);
                        cx.emit(
                            Diagnostic::error(
                                codes::DUPLICATE_TASK,
                                *span,
                                format!("a plan has exactly one `TASK`; the first is on line {line}"),
                            )
                            .with_label(first, "first `TASK` here")
                            .with_note("describe further work with `STEP`s under the one `TASK`"),
                        );
                    }
                }
                continue;
            }
            Item::Setup { span, .. } => {
                if let Some(first) = setup {
                    let line = cx.line(first);
                    cx.emit(
                        Diagnostic::error(
                            codes::DUPLICATE_SETUP,
                            keyword_span(*span, "SETUP"),
                            format!("a plan has at most one `SETUP`; the first is on line {line}"),
                        )
                        .with_label(first, "first `SETUP` here")
                        .with_note("merge the two SETUP blocks into one"),
                    );
                } else {
                    setup = Some(keyword_span(*span, "SETUP"));
                    if let Some(step) = first_step {
                        let line = cx.line(step);
                        cx.emit(
                            Diagnostic::error(
                                codes::SETUP_AFTER_STEP,
                                keyword_span(*span, "SETUP"),
                                format!(
                                    "`SETUP` must come before every `STEP`, but a `STEP` is on \
                                     line {line}"
                                ),
                            )
                            .with_label(step, "first `STEP` here")
                            .with_note("move the SETUP block above the first STEP"),
                        );
                    }
                }
                (*span, "SETUP")
            }
            Item::Step(step) => {
                first_step.get_or_insert(keyword_span(step.span, "STEP"));
                (step.span, "STEP")
            }
            Item::DefineTask { name, span, .. } => {
                if let Some(text) = name.as_literal() {
                    if let Some(&first) = defines.get(text) {
                        let line = cx.line(first);
                        cx.emit(
                            Diagnostic::error(
                                codes::DUPLICATE_DEFINE,
                                name.span,
                                format!("task {} is already defined on line {line}", quote(text)),
                            )
                            .with_label(first, "first defined here")
                            .with_note("DEFINE_TASK names must be unique; rename one of them"),
                        );
                    } else {
                        defines.insert(text, name.span);
                    }
                }
                (*span, "DEFINE_TASK")
            }
            Item::SetBudget(budget) => (budget.span, "SET_BUDGET"),
            // Unique names are `answers/table.rs`'s to check.
            Item::TypeDef(def) => (def.span, "TYPE"),
        };
        if task.is_none() && before_task.is_none() {
            before_task = Some((keyword_span(span, keyword), keyword));
        }
    }

    match (task, before_task) {
        // A TASK line that failed to parse was already reported.
        (None, _) if cx.has_errors() && has_task_line(cx.src) => {}
        (None, _) => cx.emit(
            Diagnostic::error(codes::MISSING_TASK, Span::new(0, 0), "the plan has no `TASK`")
                .with_note("a plan starts (after its pragmas) with `TASK \"what this plan does\"`"),
        ),
        (Some(task), Some((span, keyword))) => {
            let line = cx.line(task);
            cx.emit(
                Diagnostic::error(
                    codes::TASK_NOT_FIRST,
                    span,
                    format!(
                        "`{keyword}` comes before `TASK` (line {line}); `TASK` must be the \
                         first item after the pragmas"
                    ),
                )
                .with_label(task, "`TASK` is here")
                .with_note("move the TASK line above every other item"),
            );
        }
        (Some(_), None) => {}
    }
}

/// `CHOOSE` needs two options or more (a choice of one is no choice), and
/// at most [`MAX_CHOICE_OPTIONS`] (a person picks one; the verifier refuses
/// more, as each becomes text the run shows and keeps).
pub(crate) fn check_choose(cx: &mut Ctx<'_>, stmt_span: Span, options: &[ChooseOption]) {
    let (found, fix) = match options.len() {
        0 => ("no option; it needs at least two".to_string(), "add two `OPTION \"...\" { ... }`"),
        1 => (
            "1 option; it needs at least two".to_string(),
            "add another `OPTION \"...\" { ... }`, or drop the CHOOSE and keep its block",
        ),
        n if n > MAX_CHOICE_OPTIONS => (
            format!("{n} options; it may offer at most {MAX_CHOICE_OPTIONS}"),
            "split the choice in two, a CHOOSE of groups and a CHOOSE within the group chosen",
        ),
        _ => return duplicate_labels(cx, options),
    };
    cx.emit(
        Diagnostic::error(
            codes::CHOOSE_OPTION_COUNT,
            keyword_span(stmt_span, "CHOOSE"),
            format!("`CHOOSE` has {found}"),
        )
        .with_note(fix),
    );
}

/// Two options with the same label: a human answers a CHOOSE by an option's
/// number or its label (at the terminal, with `--answer`, in an answers
/// file), and a label two options share names neither (E0113).
fn duplicate_labels(cx: &mut Ctx<'_>, options: &[ChooseOption]) {
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, option) in options.iter().enumerate() {
        let Some(label) = option.label.as_literal() else { continue };
        let first = *seen.entry(label).or_insert(i);
        if first != i {
            cx.emit(
                Diagnostic::error(
                    codes::CHOOSE_DUPLICATE_OPTION,
                    option.label.span,
                    format!("option {} has the same label as option {}: {}", i + 1, first + 1, quote(label)),
                )
                .with_note(
                    "give each option a label of its own: a human picks one by its label or its number",
                ),
            );
        }
    }
}

/// The leading keyword of an item or statement (spans start at the keyword),
/// so a diagnostic underlines `SETUP` rather than the whole block.
fn keyword_span(span: Span, keyword: &str) -> Span {
    let end = (span.start as usize + keyword.len()).min(span.end as usize);
    Span::new(span.start as usize, end)
}

/// Does a line start with the word `TASK` (in any case)?
fn has_task_line(src: &str) -> bool {
    src.lines().any(|line| {
        let t = line.trim_start().as_bytes();
        t.len() >= 4
            && t[..4].eq_ignore_ascii_case(b"TASK")
            && !t.get(4).is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
    })
}
