//! A TissLang 1.1 construct under a `#TISS_VERSION` that admits an older
//! version (E0013): `TYPE`, `INTO x AS type` and `expr EXISTS` (book:
//! reference/lexical.md, reference/types.md: a plan that uses them needs `#TISS_VERSION >= 1.1` or none). A
//! requirement admits 1.0 when some version below 1.1.0 satisfies it
//! (`>= 1.0`, `^1.0`, `== 1.0`, `<= 1.1`, `< 2.0`, …); the pragma's fix,
//! certain, is `#TISS_VERSION >= 1.1`. One error per such pragma, at the
//! plan's first 1.1 construct.

use tisslang::version::{Version, VersionReq};

use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{Cond, CondKind, Expr, Item, Plan, PromptInto, TypeDef};
use crate::syntax::span::Span;
use crate::syntax::visit::{self, Visitor};

use super::Ctx;

/// The first version with typed answers.
const TYPED_ANSWERS: Version = Version { major: 1, minor: 1, patch: 0 };

/// The requirement every fix writes.
const FIXED_PRAGMA: &str = "#TISS_VERSION >= 1.1";

pub(crate) fn check(plan: &Plan, cx: &mut Ctx<'_>) {
    let old: Vec<Span> = plan
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Version { requirement, span } if admits_older(requirement) => Some(*span),
            _ => None,
        })
        .collect();
    if old.is_empty() {
        return;
    }
    let mut found = Found::default();
    visit::walk_plan(&mut found, plan);
    let Some(&(first, what)) = found.uses.iter().min_by_key(|(span, _)| span.start) else { return };
    let more = found.uses.len() - 1;
    for pragma in old {
        let line = cx.line(pragma);
        let written = cx.text(pragma).trim_end();
        let mut d = Diagnostic::error(
            codes::VERSION_TOO_OLD_FOR_CONSTRUCT,
            first,
            format!(
                "{what} is TissLang 1.1, but `{written}` (line {line}) admits an older version, which \
                 does not have it"
            ),
        )
        .with_label(pragma, "admits a version below 1.1")
        .with_fix("require TissLang 1.1", pragma, FIXED_PRAGMA);
        if more > 0 {
            let plural = if more == 1 { "construct" } else { "constructs" };
            d = d.with_note(format!("the plan has {more} more 1.1 {plural}; the one fix covers all"));
        }
        cx.emit(d);
    }
}

/// Whether a version below 1.1.0 satisfies `requirement`. Versions are
/// ordered, so one of these candidates does if any does: the version named,
/// the next patch after it, and the ends of the range below 1.1.0.
fn admits_older(requirement: &VersionReq) -> bool {
    let named = requirement.version;
    let next_patch = Version { patch: named.patch.saturating_add(1), ..named };
    let lowest = Version { major: 0, minor: 0, patch: 0 };
    let last_1_0 = Version { major: 1, minor: 0, patch: u64::MAX };
    [named, next_patch, lowest, Version { major: 1, minor: 0, patch: 0 }, last_1_0]
        .into_iter()
        .any(|v| v < TYPED_ANSWERS && requirement.matches(v))
}

/// Where the plan uses a 1.1 construct, and how the message names it.
#[derive(Default)]
struct Found {
    uses: Vec<(Span, &'static str)>,
}

impl<'a> Visitor<'a> for Found {
    /// Expressions are not walked ([`Visitor::visit_expr`]): no name is read.
    fn src(&self) -> &'a str {
        ""
    }

    fn visit_expr(&mut self, _expr: &'a Expr) {}

    fn visit_typedef(&mut self, def: &'a TypeDef) {
        let keyword = Span { start: def.span.start, end: (def.span.start + 4).min(def.span.end) };
        self.uses.push((keyword, "`TYPE`"));
    }

    fn visit_prompt_into(&mut self, into: &'a PromptInto) {
        if let Some(ty) = &into.ty {
            self.uses.push((ty.span, "a typed answer (`INTO x AS type`)"));
        }
    }

    fn visit_cond(&mut self, cond: &'a Cond) {
        if let CondKind::Exists { .. } = cond.kind {
            self.uses.push((cond.span(), "`EXISTS` on a field"));
        }
        visit::walk_cond(self, cond);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tisslang::version::VersionOp;

    fn req(op: &str, major: u64, minor: u64, patch: u64) -> VersionReq {
        VersionReq { op: VersionOp::parse(op).unwrap(), version: Version { major, minor, patch } }
    }

    #[test]
    fn which_requirements_admit_a_version_below_1_1() {
        for (op, major, minor, patch) in [
            (">=", 1, 0, 0),
            ("^", 1, 0, 0),
            ("==", 1, 0, 0),
            (">", 1, 0, 0),
            (">", 1, 0, 7),
            ("<=", 1, 1, 0),
            ("<", 2, 0, 0),
            (">=", 0, 9, 0),
            ("^", 0, 3, 0),
        ] {
            assert!(admits_older(&req(op, major, minor, patch)), "{op} {major}.{minor}.{patch}");
        }
        for (op, major, minor, patch) in
            [(">=", 1, 1, 0), ("^", 1, 1, 0), ("==", 1, 1, 0), (">", 1, 0, u64::MAX), (">=", 2, 0, 0)]
        {
            assert!(!admits_older(&req(op, major, minor, patch)), "{op} {major}.{minor}.{patch}");
        }
    }

    #[test]
    fn typed_answers_under_a_version_that_admits_1_0() {
        let plan = |pragma: &str, body: &str| format!("{pragma}TASK \"t\"\n{body}");
        let typed = "STEP \"s\" {\n    PROMPT_AGENT \"q\" INTO n AS INT\n}\n";
        let src = plan("#TISS_VERSION >= 1.0\n", typed);
        let fe = crate::frontend("p.tiss", src.as_bytes());
        let e13: Vec<_> = fe.diagnostics.iter().filter(|d| d.code.as_str() == "E0013").collect();
        assert_eq!(e13.len(), 1, "{:#?}", fe.diagnostics);
        let fix = &e13[0].suggestions[0];
        assert_eq!(fix.replacement, "#TISS_VERSION >= 1.1");
        assert_eq!(fix.applicability, crate::diagnostics::Applicability::Machine);
        assert_eq!(&src[fix.span.range()], "#TISS_VERSION >= 1.0");
        assert_eq!(&src[e13[0].span.range()], "INT");
        let e13 = |src: String| {
            crate::frontend("p.tiss", src.as_bytes())
                .diagnostics
                .iter()
                .filter(|d| d.code.as_str() == "E0013")
                .count()
        };
        for pragma in ["#TISS_VERSION ^1.0\n", "#TISS_VERSION == 1.0\n", "#TISS_VERSION <= 1.1\n"] {
            assert_eq!(e13(plan(pragma, typed)), 1, "{pragma}");
        }
        for pragma in ["", "#TISS_VERSION >= 1.1\n", "#TISS_VERSION ^1.1\n", "#TISS_VERSION == 1.1.0\n"] {
            assert_eq!(e13(plan(pragma, typed)), 0, "{pragma}");
        }
        // Each 1.1 construct; a FILE test is 1.0.
        assert_eq!(e13(plan("#TISS_VERSION >= 1.0\n", "TYPE T = INT\n")), 1);
        assert_eq!(e13(plan("#TISS_VERSION >= 1.0\n", "STEP \"s\" { ASSERT x.y EXISTS }\n")), 1);
        assert_eq!(e13(plan("#TISS_VERSION >= 1.0\n", "STEP \"s\" { ASSERT FILE \"a\" EXISTS }\n")), 0);
        assert_eq!(e13(plan("#TISS_VERSION >= 1.0\n", "STEP \"s\" { PROMPT_AGENT \"q\" INTO a }\n")), 0);
        // One error for the plan, at its first 1.1 construct.
        let src = plan("#TISS_VERSION >= 1.0\n", &format!("TYPE T = INT\n{typed}"));
        let fe = crate::frontend("p.tiss", src.as_bytes());
        let e13: Vec<_> = fe.diagnostics.iter().filter(|d| d.code.as_str() == "E0013").collect();
        assert_eq!(e13.len(), 1);
        assert_eq!(&src[e13[0].span.range()], "TYPE");
        assert!(e13[0].notes.iter().any(|n| n.contains("1 more")), "{:?}", e13[0].notes);
    }
}
