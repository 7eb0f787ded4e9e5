//! The tools that read a plan's text, in process: `check` (errors),
//! `lint` (errors, else warnings) and `fix` (the machine-applicable fixes,
//! as a unified diff and the fixed text). Diagnostics are `tissc`'s JSON
//! form (book: guide/errors.md), suggestions included.

use serde_json::{Value, json};
use tiss_compiler::diagnostics::render::JsonDiagnostic;

use super::plans::Plan;

/// `check` or (with `lint`) `lint`: the diagnostics and their counts.
pub fn diagnostics(plan: &Plan, lint: bool) -> Value {
    let name = plan.path.file_name().map_or("plan.tiss".into(), |n| n.to_string_lossy().into_owned());
    let mut frontend = tiss_compiler::frontend(&name, plan.text.as_bytes());
    if lint {
        tiss_compiler::lint::add_warnings(&mut frontend);
    }
    let list: Vec<Value> = frontend
        .diagnostics
        .iter()
        .map(|d| serde_json::to_value(JsonDiagnostic::new(&frontend.file, d)).unwrap_or(Value::Null))
        .collect();
    let errors = frontend.diagnostics.iter().filter(|d| d.is_error()).count();
    json!({
        "compiles": errors == 0,
        "errors": errors,
        "warnings": list.len() - errors,
        "diagnostics": list,
    })
}

/// `fix`: what `tissc fix` would write, as a patch and as the whole text.
pub fn fix(plan: &Plan) -> Value {
    let name = plan.path.file_name().map_or("plan.tiss".into(), |n| n.to_string_lossy().into_owned());
    let fixed = tiss_compiler::fix::fix(&name, &plan.text);
    let errors: Vec<Value> = fixed
        .frontend
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| serde_json::to_value(JsonDiagnostic::new(&fixed.frontend.file, d)).unwrap_or(Value::Null))
        .collect();
    json!({
        "changes": fixed.changes.len(),
        "compiles": fixed.compiles(),
        "patch": unified_diff(&name, &plan.text, &fixed.text),
        "fixed": fixed.text,
        "remaining_errors": errors,
    })
}

/// A unified diff of `old` to `new` as one hunk around what changed (the
/// lines between the common head and the common tail), with three lines of
/// context; empty when they are the same.
pub fn unified_diff(name: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..].iter().rev().zip(b[head..].iter().rev()).take_while(|(x, y)| x == y).count();
    let from = head.saturating_sub(3);
    let (a_end, b_end) = ((a.len() - tail + 3).min(a.len()), (b.len() - tail + 3).min(b.len()));
    let mut out = format!("--- a/{name}\n+++ b/{name}\n");
    out.push_str(&format!("@@ -{},{} +{},{} @@\n", from + 1, a_end - from, from + 1, b_end - from));
    let line = |out: &mut String, mark: char, text: &str| {
        out.push(mark);
        out.push_str(text);
        if !text.ends_with('\n') {
            out.push_str("\n\\ No newline at end of file\n");
        }
    };
    for text in &a[from..head] {
        line(&mut out, ' ', text);
    }
    for text in &a[head..a.len() - tail] {
        line(&mut out, '-', text);
    }
    for text in &b[head..b.len() - tail] {
        line(&mut out, '+', text);
    }
    for text in &a[a.len() - tail..a_end] {
        line(&mut out, ' ', text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::unified_diff;

    #[test]
    fn the_diff_is_one_hunk_with_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
        assert_eq!(
            unified_diff("p.tiss", old, new),
            "--- a/p.tiss\n+++ b/p.tiss\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n"
        );
        assert_eq!(unified_diff("p.tiss", old, old), "");
        assert_eq!(
            unified_diff("p", "x", "y"),
            "--- a/p\n+++ b/p\n@@ -1,1 +1,1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n"
        );
    }
}
