//! W0006: a condition of ASSERT or IF that is always true or always false:
//! `TRUE`, literals compared with literals (`1 == 1`, `"ab" CONTAINS "a"`),
//! a value compared with itself (`x == x`), and AND / OR / NOT of those
//! (`LAST_RUN.EXIT_CODE == 0 OR TRUE`). Such a check checks nothing, or an
//! IF arm never runs. The suggestion removes an ASSERT that always holds.

use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{CmpOp, Cond, CondKind, Else, Expr, ExprKind, StmtKind, StrOp, Test, TestOp};
use crate::syntax::span::Span;

use super::Lint;

pub(super) fn check(cx: &mut Lint<'_>) {
    let mut found: Vec<(Span, bool, bool)> = Vec::new();
    let src = cx.file.text.as_str();
    for &(stmt, _) in &cx.statements {
        match &stmt.kind {
            StmtKind::Assert { condition, .. } => {
                if let Some(value) = constant(condition, src) {
                    // An ASSERT that always holds is pointed at whole: the
                    // suggestion removes it.
                    found.push(if value {
                        (stmt.span, value, true)
                    } else {
                        (condition.span(), value, false)
                    });
                }
            }
            StmtKind::If(first) => {
                let mut at = &**first;
                loop {
                    if let Some(value) = constant(&at.condition, src) {
                        found.push((at.condition.span(), value, false));
                    }
                    match &at.else_branch {
                        Some(Else::If { stmt, .. }) => at = stmt,
                        _ => break,
                    }
                }
            }
            _ => {}
        }
    }
    for (span, value, removable) in found {
        let value = if value { "TRUE" } else { "FALSE" };
        let mut warning = Diagnostic::warning(
            codes::CONSTANT_CONDITION,
            span,
            format!("this condition is always {value}: it does not depend on anything the plan does"),
        );
        if removable {
            warning = warning.with_suggestion("remove the ASSERT, which can never fail", span, "");
        }
        cx.warn(warning);
    }
}

/// The value of a condition that does not depend on the run, if it has one.
fn constant(cond: &Cond, src: &str) -> Option<bool> {
    match &cond.kind {
        CondKind::Expr { expr, .. } => match expr.kind() {
            ExprKind::Bool { value } => Some(value),
            _ => None,
        },
        CondKind::Not { operand, .. } => constant(operand, src).map(|v| !v),
        CondKind::And { operands, .. } => {
            let values: Vec<Option<bool>> = operands.iter().map(|c| constant(c, src)).collect();
            if values.contains(&Some(false)) {
                Some(false)
            } else if values.iter().all(|v| *v == Some(true)) {
                Some(true)
            } else {
                None
            }
        }
        CondKind::Or { operands, .. } => {
            let values: Vec<Option<bool>> = operands.iter().map(|c| constant(c, src)).collect();
            if values.contains(&Some(true)) {
                Some(true)
            } else if values.iter().all(|v| *v == Some(false)) {
                Some(false)
            } else {
                None
            }
        }
        CondKind::IsEmpty { operand, .. } => operand.literal(src).map(str::is_empty),
        CondKind::Test(test) => test_value(test, src),
        CondKind::File { .. } | CondKind::Exists { .. } => None,
    }
}

/// The value of a comparison or string test that does not depend on the run.
fn test_value(test: &Test, src: &str) -> Option<bool> {
    let (lhs, rhs) = (test.lhs(), test.rhs());
    match test.op() {
        TestOp::Str { op, negated } => {
            let (l, r) = (lhs.literal(src)?, rhs.literal(src)?);
            let holds = match op {
                StrOp::Contains => l.contains(r),
                StrOp::StartsWith => l.starts_with(r),
                StrOp::EndsWith => l.ends_with(r),
                StrOp::Matches => regex::Regex::new(r).ok()?.is_match(l),
            };
            Some(holds != negated)
        }
        TestOp::Compare(op) => {
            if let (Some(_), Some(_)) = (lhs.path(src), rhs.path(src)) {
                // The same value on both sides: only the operator decides.
                return (src.get(lhs.span().range()) == src.get(rhs.span().range()))
                    .then_some(matches!(op, CmpOp::Eq | CmpOp::Le | CmpOp::Ge));
            }
            let ordering = literal_order(lhs, rhs, src)?;
            Some(match op {
                CmpOp::Eq => ordering.is_eq(),
                CmpOp::Ne => ordering.is_ne(),
                CmpOp::Lt => ordering.is_lt(),
                CmpOp::Le => ordering.is_le(),
                CmpOp::Gt => ordering.is_gt(),
                CmpOp::Ge => ordering.is_ge(),
            })
        }
    }
}

/// How two literals of one type compare.
fn literal_order(lhs: &Expr, rhs: &Expr, src: &str) -> Option<std::cmp::Ordering> {
    Some(match (lhs.kind(), rhs.kind()) {
        (ExprKind::Int { value: a }, ExprKind::Int { value: b }) => a.cmp(&b),
        (ExprKind::Duration { millis: a }, ExprKind::Duration { millis: b }) => a.cmp(&b),
        (ExprKind::Bool { value: a }, ExprKind::Bool { value: b }) => a.cmp(&b),
        _ => lhs.literal(src)?.cmp(rhs.literal(src)?),
    })
}
