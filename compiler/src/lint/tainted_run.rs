//! W0008: data from a model (PROMPT_AGENT) or a file (READ) flows into a
//! RUN: through its command, a variable derived from it, the environment
//! (ENV), or a file written from it and read back. The flows are those of
//! `tissvm inspect` (the compiler's `taint` walk over the plan's bytecode),
//! matched to RUN statements by their line and column.

use std::collections::BTreeMap;

use rustc_hash::FxHashSet;

use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::lower::{self, KeepSource};
use crate::syntax::ast::{Expr, Ident, PathView, RootView, Stmt, StmtKind};
use tisslang::analysis::taint::{self, SourceKind};

use super::Lint;
use crate::syntax::visit::{self, Visitor};

pub(super) fn check(cx: &mut Lint<'_>) {
    let mut runs = Vec::new();
    for &(stmt, _) in &cx.statements {
        if let StmtKind::Run { .. } = stmt.kind {
            runs.push(stmt.span);
        }
    }
    if runs.is_empty() || !may_flow(&cx.file.text, cx.statements.iter().map(|&(stmt, _)| stmt)) {
        return;
    }
    let module = lower::lower(cx.plan, cx.file, KeepSource::Nothing);
    let report = taint::analyze(&module);
    // Sources by the RUN's (line, column): each statement once, with the
    // parts of a typed answer that carry its data (only the tainted ones
    // are flows).
    let mut flows: BTreeMap<(u32, u32), Vec<Origin<'_>>> = BTreeMap::new();
    for flow in &report.flows {
        let sources = flows.entry((flow.run_line, flow.run_column)).or_default();
        let (kind, line) = (flow.source.kind, flow.source.line);
        let at = match sources.iter().position(|s| (s.0, s.1) == (kind, line)) {
            Some(at) => at,
            None => {
                sources.push((kind, line, Vec::new()));
                sources.len() - 1
            }
        };
        if let Some(field) = report.field(&flow.source)
            && !sources[at].2.contains(&field.path.as_str())
        {
            sources[at].2.push(&field.path);
        }
    }
    for span in runs {
        let at = cx.file.line_col(span.start as usize);
        let Some(sources) = flows.get(&(at.line as u32, at.column as u32)) else { continue };
        let from: Vec<String> = sources
            .iter()
            .map(|(kind, line, fields)| match &fields[..] {
                [] => taint::Source::untyped(*kind, *line).described(),
                fields => {
                    let fields: Vec<String> = fields.iter().map(|f| format!("`{f}`")).collect();
                    format!("{} (line {line}: {})", kind.statement(), fields.join(", "))
                }
            })
            .collect();
        cx.warn(
            Diagnostic::warning(
                codes::TAINTED_RUN,
                span,
                format!("this command may run with data from {}", from.join(", ")),
            )
            .with_note(
                "data from a model or a file can steer what the command does; `tissvm inspect` lists the flow, and a \
                 policy's `[taint] run = \"approve\"` (or \"deny\") decides at run time",
            ),
        );
    }
}

/// A statement whose data reaches a RUN: its kind, its line, and the
/// tainted parts of a typed answer that carry it (`t.summary`).
type Origin<'r> = (SourceKind, u32, Vec<&'r str>);

/// Past this many passes over the VARs, [`may_flow`] gives up and says yes.
const MAX_PASSES: usize = 8;

/// Whether data from a READ or PROMPT_AGENT may reach some RUN, judged by
/// variable names alone: the variables those bind and every `CATCH AS`
/// variable (a caught failure's message may quote any of them), then (to
/// a fixed point) every VAR made from one of them, must be read by a RUN's
/// command or directory or by an ENV's value (ENV reaches every later RUN).
/// LAST_RUN needs no rule: it is tainted only after a RUN that is, which
/// this already answers yes for. It errs towards yes where the bytecode
/// walk would say no (order is ignored, a field of a variable counts as
/// the variable: besides a caught failure, STORE is the only way taint
/// moves between variables, and only VAR lowers to it), so when it says no
/// there is no flow, and lowering the plan to look is skipped: that was
/// most of `tissc check`'s time on a large plan.
fn may_flow<'a>(src: &'a str, statements: impl Iterator<Item = &'a Stmt>) -> bool {
    let mut tainted: FxHashSet<&str> = FxHashSet::default();
    let mut caught: Vec<&str> = Vec::new();
    let mut sourced = false;
    let mut copies: Vec<(&Ident, &Expr)> = Vec::new();
    let mut sinks: Vec<PathView<'_>> = Vec::new();
    for stmt in statements {
        match &stmt.kind {
            StmtKind::Read { var, .. } => {
                sourced = true;
                tainted.insert(var.name.as_str());
            }
            StmtKind::PromptAgent { into, .. } => {
                sourced = true;
                if let Some(into) = into {
                    tainted.insert(into.var.name.as_str());
                }
            }
            StmtKind::Try { catch_var: Some(var), .. } => caught.push(var.name.as_str()),
            StmtKind::Var { name, value } => copies.push((name, value)),
            StmtKind::Run { command, dir, .. } => {
                let mut sink = visit::reads(src, |p| sinks.push(p));
                sink.visit_strlit(command);
                if let Some(dir) = dir {
                    sink.visit_strlit(dir);
                }
            }
            StmtKind::Env { value, .. } => visit::reads(src, |p| sinks.push(p)).visit_expr(value),
            _ => {}
        }
    }
    if !sourced || sinks.is_empty() {
        return false;
    }
    tainted.extend(caught);
    let reads_tainted = |tainted: &FxHashSet<&str>, path: PathView<'_>| matches!(&path.root, RootView::Var { ident } if tainted.contains(ident.name));
    for pass in 0.. {
        if pass == MAX_PASSES {
            return true;
        }
        let mut grew = false;
        for (name, value) in &copies {
            if tainted.contains(name.name.as_str()) {
                continue;
            }
            let mut reads = false;
            visit::reads(src, |p| reads |= reads_tainted(&tainted, p)).visit_expr(value);
            if reads {
                tainted.insert(name.name.as_str());
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    sinks.iter().any(|&path| reads_tainted(&tainted, path))
}

#[cfg(test)]
mod tests {
    use super::may_flow;
    use crate::lower::{self, KeepSource};
    use crate::syntax::ast::{Plan, Stmt};
    use crate::syntax::visit;

    fn statements(plan: &Plan) -> Vec<&Stmt> {
        let mut out = Vec::new();
        visit::statements(plan, &mut |stmt, _| out.push(stmt));
        out
    }

    /// `may_flow` must never say no where the bytecode walk finds a flow:
    /// each plan here has a flow, each through a different way taint moves.
    #[test]
    fn may_flow_says_yes_wherever_the_bytecode_walk_finds_a_flow() {
        let step = |body: &str| format!("TASK \"t\"\nSTEP \"s\" {{\n{body}\n}}\n");
        let plans = [
            step("    PROMPT_AGENT \"q\" INTO f\n    RUN \"cat ${f}\""),
            step("    READ \"x\" AS f\n    ENV X = f\n    RUN \"true\""),
            // The task copies `b` into `c` before (in source order) the step makes `b` from `f`.
            "TASK \"t\"\nDEFINE_TASK \"u\" {\n    VAR c = b\n    RUN \"echo ${c}\"\n}\nSTEP \"s\" {\n    \
             READ \"x\" AS f\n    VAR b = \"${f}\"\n    CALL \"u\"\n}\n"
                .to_string(),
            "TASK \"t\"\nDEFINE_TASK \"u\" {\n    RUN \"echo ${a}\"\n}\nSTEP \"s\" {\n    VAR a = \"x\"\n    \
             PROMPT_AGENT \"q\" INTO a\n    CALL \"u\"\n}\n"
                .to_string(),
            // A caught failure: the MESSAGE a model's text was put in, and a failed model request.
            step("    PROMPT_AGENT \"q\" INTO x\n    TRY {\n        ASSERT x == \"y\" MESSAGE \"${x}\"\n    } \
                  CATCH AS e {\n        RUN \"echo ${e.MESSAGE}\"\n    }"),
            step("    TRY {\n        PROMPT_AGENT \"q\"\n    } CATCH AS e {\n        RUN \"echo ${e.MESSAGE}\"\n    }"),
            // LAST_RUN of a RUN whose command held a file's text.
            step("    READ \"x\" AS f\n    RUN \"cat ${f}\"\n    RUN \"echo ${LAST_RUN.STDOUT}\""),
        ];
        for plan in plans {
            let frontend = crate::frontend("t.tiss", plan.as_bytes());
            assert!(!frontend.has_errors(), "{plan}\n{:#?}", frontend.diagnostics);
            let module = lower::lower(&frontend.plan, &frontend.file, KeepSource::Nothing);
            assert!(
                !tisslang::analysis::taint::analyze(&module).flows.is_empty(),
                "no flow in the bytecode of\n{plan}"
            );
            assert!(
                may_flow(&frontend.file.text, statements(&frontend.plan).into_iter()),
                "may_flow missed the flow in\n{plan}"
            );
        }
    }

    #[test]
    fn may_flow_says_no_when_no_run_reads_a_tainted_variable() {
        let plan = "TASK \"t\"\nSTEP \"s\" {\n    READ \"x\" AS f\n    RUN \"ls\"\n    \
                    VAR g = LAST_RUN.STDOUT\n    RUN \"echo ${g}\"\n    ENV X = \"1\"\n    ASSERT f CONTAINS \"y\"\n}\n";
        let frontend = crate::frontend("t.tiss", plan.as_bytes());
        assert!(!frontend.has_errors(), "{:#?}", frontend.diagnostics);
        assert!(!may_flow(&frontend.file.text, statements(&frontend.plan).into_iter()));
    }

    /// The same on every example plan: wherever the walk finds a flow,
    /// `may_flow` says yes.
    #[test]
    fn may_flow_agrees_with_the_bytecode_walk_on_the_examples() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
        let mut checked = 0;
        for entry in std::fs::read_dir(&dir).expect("the examples directory") {
            let path = entry.expect("an example").path();
            if path.extension().is_none_or(|e| e != "tiss") {
                continue;
            }
            let frontend = crate::frontend("x.tiss", &std::fs::read(&path).expect("read the example"));
            assert!(!frontend.has_errors(), "{}", path.display());
            let module = lower::lower(&frontend.plan, &frontend.file, KeepSource::Nothing);
            if !tisslang::analysis::taint::analyze(&module).flows.is_empty() {
                assert!(
                    may_flow(&frontend.file.text, statements(&frontend.plan).into_iter()),
                    "may_flow missed the flow in {}",
                    path.display()
                );
            }
            checked += 1;
        }
        assert!(checked >= 5, "only {checked} examples found in {}", dir.display());
    }
}
