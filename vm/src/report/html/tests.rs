use serde_json::json;

use super::*;

/// A failed run whose every string is hostile.
fn hostile() -> Json {
    let huge = "y".repeat(3 * MAX_SHOWN);
    json!({
        "status": "failed", "exit_code": 1, "task": "T <b>&amp;", "duration_ms": 1500,
        "steps": [
            {"name": "<script>alert(1)</script>", "status": "passed", "line": 3, "duration_ms": 500,
             "logs": ["a \"quoted\" 'log' & more"]},
            {"name": "check", "status": "failed", "line": 9, "duration_ms": 1000, "logs": []},
            {"name": "never", "status": "not_run\" onmouseover=\"x", "line": 12, "duration_ms": 0, "logs": []},
        ],
        "failure": {"kind": "assertion_failed", "message": "</dd><script>x()</script>", "step": "check",
                    "line": 10, "column": 5, "condition": "LAST_RUN.STDOUT CONTAINS \"<ok>\"",
                    "actual": {"LAST_RUN.STDOUT": "bad \u{FFFD} byte\u{1b}[31m", "LAST_RUN.EXIT_CODE": 1},
                    "command": {"command": "echo '<a href=\"http://x\">' && false", "exit_code": 1,
                                "timed_out": false, "duration_ms": 12, "stdout": huge, "stderr": ""}},
        "cost": {"api_calls": 0, "token_count": 0, "execution_time_ms": 1500, "run_count": 3, "instructions": 40},
        "budgets": {"api_calls": null, "token_count": null, "execution_time_ms": null, "run_count": 2,
                    "instructions": null},
        "effects": [{"event": "run", "step": "<i>s</i>", "line": 4, "op": "<img src=//evil>", "outcome": "exit 0",
                     "duration_ms": 5, "stdout": "out & about\n", "stderr": ""}],
        "effects_omitted": 0,
        "snapshot": null,
    })
}

#[test]
fn every_value_is_escaped() {
    let page = render(&hostile());
    assert!(!page.contains("<script"), "{page}");
    assert!(!page.contains("<img") && !page.contains("<i>") && !page.contains("<a "), "{page}");
    assert!(!page.contains("onmouseover=\""), "a status leaves no attribute: {page}");
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(page.contains("a &quot;quoted&quot; &#39;log&#39; &amp; more"));
    assert!(page.contains("T &lt;b&gt;&amp;amp;"));
    assert!(page.contains("bad \u{FFFD} byte\u{241B}[31m"), "the escape character shows as ␛");
    assert!(!page.contains('\u{1b}'));
}

#[test]
fn a_huge_value_is_shortened_with_a_note() {
    let page = render(&hostile());
    assert!(page.contains(&format!("… {} characters not shown …", 2 * MAX_SHOWN)), "{}", page.len());
    assert!(page.len() < 2 * MAX_SHOWN + 20_000, "{} bytes", page.len());
}

#[test]
fn the_page_is_self_contained() {
    let page = render(&hostile());
    assert!(page.starts_with("<!DOCTYPE html>"));
    for reference in ["src=\"", "href=\"http", "href=\"//", "url(", "@import", "<link", "<script"] {
        assert!(!page.contains(reference), "{reference}");
    }
}

#[test]
fn one_plan_has_its_steps_failure_costs_and_effects() {
    let page = render(&hostile());
    assert!(page.contains("<table class=\"steps\">"));
    assert_eq!(page.matches("<tr class=\"step ").count(), 3);
    assert!(page.contains("<h3>Failure: assertion_failed</h3>"));
    assert!(page.contains("<dt>Where</dt><dd>line 10, column 5</dd>"));
    assert!(page.contains("<code>LAST_RUN.EXIT_CODE</code></td><td><code>1</code>"), "types kept");
    // RUN_COUNT: 3 spent of a cap of 2.
    assert!(page.contains(
        "<td>RUN_COUNT</td><td class=\"num\">3</td><td class=\"num\">2</td><td><div class=\"bar over\""
    ));
    assert!(page.contains("<td>API_CALLS</td><td class=\"num\">0</td><td class=\"num\">no cap</td>"));
    assert!(page.contains("<h3>Effects (1)</h3>"));
    assert!(page.contains("<summary>stdout (1 line)</summary><pre>out &amp; about\n</pre>"));
    // The timeline: the second step starts a third of the way in.
    assert!(page.contains("left:33.33%;width:66.67%"), "{page}");
}

#[test]
fn many_plans_have_a_summary_with_a_row_per_plan() {
    let mut suspended = hostile();
    suspended["status"] = json!("suspended");
    suspended["failure"] = Json::Null;
    suspended["snapshot"] = json!("/tmp/a <b>.snap");
    suspended["plan"] = json!("plans/b.tiss");
    let report = json!({
        "status": "failed", "exit_code": 1, "summary": {"passed": 1},
        "plans": [
            {"plan": "plans/a.tiss", "status": "passed", "exit_code": 0, "task": "A", "duration_ms": 10,
             "steps": [{"name": "s", "status": "passed", "line": 2, "duration_ms": 10, "logs": []}],
             "failure": null, "cost": {}, "snapshot": null},
            suspended,
            hostile(),
            {"status": "invalid", "exit_code": 2, "task": null, "file": "bad.tiss", "error": "bad.tiss:1:1: E0001",
             "diagnostics": [{"file": "bad.tiss", "line": 1, "column": 1, "severity": "error", "code": "E0001",
                              "message": "unexpected <token>"}], "steps": []},
        ],
    });
    let page = render(&report);
    assert!(page.contains("<title>4 plans — failed — TissLang report</title>"));
    for (status, n) in
        [("passed", 1), ("failed", 1), ("suspended", 1), ("budget_exceeded", 0), ("invalid", 1)]
    {
        assert!(page.contains(&format!("{}</td><td class=\"num\">{n}</td>", badge(status))), "{status}");
    }
    for n in 1..=4 {
        assert!(page.contains(&format!("<a href=\"#plan-{n}\">")));
        assert!(page.contains(&format!("<section class=\"plan\" id=\"plan-{n}\">")));
    }
    assert!(page.contains(">plans/a.tiss</a>") && page.contains(">bad.tiss</a>"));
    assert!(page.contains("<code>tissvm resume /tmp/a &lt;b&gt;.snap</code>"));
    assert!(page.contains("unexpected &lt;token&gt;"));
    assert!(page.contains("assertion_failed: &lt;/dd&gt;&lt;script&gt;x()&lt;/script&gt;"));
}

#[test]
fn durations_read_well() {
    assert_eq!(duration(850), "850 ms");
    assert_eq!(duration(12_400), "12.4 s");
    assert_eq!(duration(185_000), "3 min 05 s");
}

proptest::proptest! {
    /// Whatever a value holds, its escaped form holds no markup, no
    /// character HTML forbids, and an `&` only as one of our entities.
    #[test]
    fn escaped_text_holds_no_markup(value in "\\PC*|[\\x00-\\x20<>&\"'\\x7f-\\u{9f}a]*") {
        let escaped = text(&value);
        proptest::prop_assert!(!escaped.contains(['<', '>', '"', '\'']), "{escaped:?}");
        for (at, _) in escaped.match_indices('&') {
            let rest = &escaped[at..];
            proptest::prop_assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"].iter().any(|e| rest.starts_with(e)),
                "{escaped:?}"
            );
        }
        proptest::prop_assert!(
            !escaped.chars().any(|c| c.is_control() && c != '\n' && c != '\t'),
            "{escaped:?}"
        );
    }
}
