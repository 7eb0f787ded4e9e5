//! W0008: data from a model (PROMPT_AGENT) or a file (READ) flows into a
//! RUN: through its command, a variable derived from it, the environment
//! (ENV), or a file written from it and read back. The flows are those of
//! `tissvm inspect` (the compiler's `taint` walk over the plan's bytecode),
//! matched to RUN statements by their line and column.

use std::collections::BTreeMap;

use crate::ast::StmtKind;
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::lower::{self, LowerOptions};
use crate::taint::{self, Source};

use super::{Lint, visit};

pub(super) fn check(cx: &mut Lint<'_>) {
    let mut runs = Vec::new();
    visit::statements(cx.plan, &mut |stmt, _| {
        if let StmtKind::Run { .. } = stmt.kind {
            runs.push(stmt.span);
        }
    });
    if runs.is_empty() {
        return;
    }
    let module = lower::lower(cx.plan, cx.file, LowerOptions { strip_source: true });
    let report = taint::analyze(&module);
    // Sources by the RUN's (line, column).
    let mut flows: BTreeMap<(u32, u32), Vec<Source>> = BTreeMap::new();
    for flow in &report.flows {
        let sources = flows.entry((flow.run_line, flow.run_column)).or_default();
        if !sources.contains(&flow.source) {
            sources.push(flow.source);
        }
    }
    for span in runs {
        let at = cx.file.line_col(span.start as usize);
        let Some(sources) = flows.get(&(at.line as u32, at.column as u32)) else { continue };
        let from: Vec<String> =
            sources.iter().map(|s| format!("{} (line {})", s.kind.statement(), s.line)).collect();
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
