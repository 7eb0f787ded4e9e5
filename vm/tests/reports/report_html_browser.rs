//! The HTML report in a real browser: headless Chromium with scripts
//! disabled loads the page `tissvm` wrote, and the tests assert on the DOM
//! the browser built (parsed with `scraper`), not on our own text: the
//! steps table, the failure, the effects, the summary of many plans, and
//! that the page requested nothing but itself.

use std::path::Path;

use crate::browser::Browser;
use crate::common::Fixture;
use scraper::{ElementRef, Html, Selector};

const HOSTILE: &str = r#"TASK "Build <everything> & \"more\""
STEP "compile <script>alert(1)</script>" {
    RUN "printf '<img src=http://example.com/x.png> & \\377\\n'; echo oops >&2"
    LOG "built <b>bold</b>"
}
STEP "check" {
    RUN "echo done"
    ASSERT LAST_RUN.STDOUT CONTAINS "<ok>"
}
STEP "never" {
    WRITE "never.txt" FROM "x"
}
"#;

fn select<'a>(page: &'a Html, css: &str) -> Vec<ElementRef<'a>> {
    let selector = Selector::parse(css).unwrap_or_else(|e| panic!("{css}: {e:?}"));
    page.select(&selector).collect()
}

fn text(element: &ElementRef<'_>) -> String {
    element.text().collect::<String>().split_whitespace().collect::<Vec<_>>().join(" ")
}

fn texts(page: &Html, css: &str) -> Vec<String> {
    select(page, css).iter().map(text).collect()
}

/// Nothing in the page points outside it, and it has nothing to run.
#[track_caller]
fn assert_self_contained(page: &Html, requests: &[String], file: &Path) {
    assert!(select(page, "script").is_empty(), "no script element");
    for element in select(page, "*") {
        for (name, value) in element.value().attrs() {
            assert!(!name.starts_with("on"), "event handler {name}={value:?}");
            if ["src", "href", "action", "srcset", "poster", "data"].contains(&name) {
                let v = value.trim_start();
                assert!(
                    !(v.starts_with("http:") || v.starts_with("https:") || v.starts_with("//")),
                    "{name}={value:?} leaves the page"
                );
            }
        }
    }
    let url = format!("file://{}", file.canonicalize().unwrap().display());
    assert_eq!(requests, [url], "the page requested nothing but itself");
}

#[test]
fn one_plan_reads_in_a_browser_with_scripts_disabled() {
    let Some(chromium) = crate::browser::chromium() else { return };
    let fx = Fixture::new();
    let file = fx.path("report.html");
    fx.run(HOSTILE, &["--output-format", "html", "--report", file.to_str().unwrap()]).expect(1);
    let loaded = Browser::start(&chromium).load(&file);
    let page = Html::parse_document(&loaded.dom);
    assert_self_contained(&page, &loaded.requests, &file);

    assert_eq!(texts(&page, "title"), ["Build <everything> & \"more\" — failed — TissLang report"]);
    assert_eq!(texts(&page, "h1"), ["failed Build <everything> & \"more\""]);
    // The steps table: a row per top-level step, in order, with its result.
    let rows = select(&page, "table.steps > tbody > tr");
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            row.child_elements().enumerate().filter(|(i, _)| *i != 1).map(|(_, c)| text(&c)).take(3).collect()
        })
        .collect();
    assert_eq!(cells, [["1", "2", "passed"], ["2", "6", "failed"], ["3", "10", "not run"]]);
    assert_eq!(
        texts(&page, "table.steps > tbody > tr span.name"),
        ["compile <script>alert(1)</script>", "check", "never"]
    );
    assert_eq!(select(&page, "table.steps .bar > span").len(), 3, "a timeline bar per step");
    assert_eq!(texts(&page, "table.steps details.logs li"), ["built <b>bold</b>"]);
    // The failure: its kind, place, condition and the value it saw.
    let failure = select(&page, "section.failure");
    assert_eq!(failure.len(), 1);
    assert_eq!(texts(&page, "section.failure h3"), ["Failure: assertion_failed"]);
    let terms = texts(&page, "section.failure dt");
    let details = texts(&page, "section.failure dd");
    let told: Vec<(&str, &str)> =
        terms.iter().map(String::as_str).zip(details.iter().map(String::as_str)).collect();
    assert!(told.contains(&("Step", "check")), "{told:?}");
    assert!(told.contains(&("Where", "line 8, column 5")), "{told:?}");
    assert!(told.contains(&("Condition", "LAST_RUN.STDOUT CONTAINS \"<ok>\"")), "{told:?}");
    assert_eq!(texts(&page, "table.actual > tbody > tr > td:first-child"), ["LAST_RUN.STDOUT"]);
    assert_eq!(texts(&page, "table.actual > tbody > tr > td:last-child"), ["done"]);
    assert_eq!(texts(&page, "section.failure details.stdout pre"), ["done"]);
    // Costs against budgets: a row per dimension.
    assert_eq!(
        texts(&page, "table.costs > tbody > tr > td:first-child"),
        ["API_CALLS", "TOKEN_COUNT", "EXECUTION_TIME (ms)", "RUN_COUNT", "INSTRUCTIONS"]
    );
    // Effects, each command's output collapsed; the hostile output is text.
    let effects = select(&page, "ol.effects > li");
    assert_eq!(effects.len(), 2, "two RUNs");
    let first = select(&page, "ol.effects > li:first-child > details");
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].value().attr("open"), None, "collapsed");
    assert_eq!(
        texts(&page, "ol.effects > li:first-child details.stdout pre"),
        ["<img src=http://example.com/x.png> & \u{FFFD}"]
    );
    assert_eq!(texts(&page, "ol.effects > li:first-child details.stderr pre"), ["oops"]);
    assert!(select(&page, "img").is_empty(), "the output made no element");
}

#[test]
fn many_plans_have_a_summary_table_linking_to_each_plan() {
    let Some(chromium) = crate::browser::chromium() else { return };
    let fx = Fixture::new();
    // Real plans run together, their reports collected (book: guide/many-plans.md).
    let passing = "TASK \"ok\"\nSTEP \"a\" {\n    RUN \"true\"\n}\n";
    let budget =
        "TASK \"spender\"\nSET_BUDGET RUN_COUNT = 1\nSTEP \"a\" {\n    RUN \"true\"\n    RUN \"true\"\n}\n";
    std::fs::create_dir(fx.path("plans")).unwrap();
    for (name, plan) in [("ok.tiss", passing), ("<hostile>.tiss", HOSTILE), ("spender.tiss", budget)] {
        std::fs::write(fx.path("plans").join(name), plan).unwrap();
    }
    fx.tissvm(&[
        "run",
        "plans",
        "-j",
        "2",
        "--workdir",
        "ws",
        "--report-dir",
        "reports",
        "--output-format",
        "json",
    ])
    .expect(4);
    fx.tissvm(&["collect", "reports", "--output-format", "html", "--report", "many.html"]).expect(4);
    let file = fx.path("many.html");
    let loaded = Browser::start(&chromium).load(&file);
    let page = Html::parse_document(&loaded.dom);
    assert_self_contained(&page, &loaded.requests, &file);

    let counts: Vec<String> = select(&page, "table.summary > tbody > tr")
        .iter()
        .map(|row| row.child_elements().map(|c| text(&c)).collect::<Vec<_>>().join(": "))
        .collect();
    assert_eq!(
        counts,
        ["passed: 1", "failed: 1", "suspended: 0", "budget exceeded: 1", "security violation: 0"]
    );
    let rows = select(&page, "table.plans > tbody > tr");
    assert_eq!(rows.len(), 3);
    let links: Vec<(String, String)> = select(&page, "table.plans a")
        .iter()
        .map(|a| (text(a), a.value().attr("href").unwrap_or_default().to_string()))
        .collect();
    assert_eq!(
        links,
        [
            ("plans/<hostile>.tiss".to_string(), "#plan-1".to_string()),
            ("plans/ok.tiss".to_string(), "#plan-2".to_string()),
            ("plans/spender.tiss".to_string(), "#plan-3".to_string()),
        ]
    );
    for (_, href) in &links {
        let target = select(&page, &format!("section.plan{href}"));
        assert_eq!(target.len(), 1, "{href} leads to its plan's section");
    }
    let results: Vec<String> = rows.iter().map(|r| text(&r.child_elements().nth(2).unwrap())).collect();
    assert_eq!(results, ["failed", "passed", "budget exceeded"]);
    assert_eq!(texts(&page, "section#plan-3 section.failure h3"), ["Failure: budget_exceeded"]);
    assert_eq!(select(&page, "section#plan-2 section.failure").len(), 0);
    assert_eq!(select(&page, "section#plan-1 table.steps > tbody > tr").len(), 3);
}

/// The browser's settings hold: a page with a script does not run it, so
/// what the tests above see is what a reader with scripts disabled sees.
#[test]
fn the_browser_runs_no_script() {
    let Some(chromium) = crate::browser::chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("control.html");
    std::fs::write(
        &file,
        "<!DOCTYPE html><p id=x>before</p><script>document.getElementById('x').textContent='ran'</script>",
    )
    .unwrap();
    let loaded = Browser::start(&chromium).load(&file);
    let page = Html::parse_document(&loaded.dom);
    assert_eq!(texts(&page, "p#x"), ["before"]);
}
