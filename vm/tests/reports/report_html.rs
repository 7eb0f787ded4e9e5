//! The HTML report through the real binary (`--output-format html`,
//! `--report FILE`): where it goes, what it holds, what is refused. Its
//! rendering in a real browser is `report_html_browser.rs`.

use std::path::Path;

use crate::common::Fixture;
use tiss_test_support::listing;

const FAILING: &str = r#"TASK "Build <everything> & more"
STEP "compile \"it\"" {
    RUN "printf '<script>alert(1)</script> & \\377\\n'"
    LOG "built <b>"
}
STEP "check" {
    RUN "echo done"
    ASSERT LAST_RUN.STDOUT CONTAINS "<ok>"
}
STEP "never" {
    WRITE "never.txt" FROM "x"
}
"#;

const PAUSE: &str = r#"TASK "Pause and go on"
STEP "first" {
    WRITE "a.txt" FROM "a"
    PAUSE "Look at a.txt"
    WRITE "b.txt" FROM "b"
}
"#;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn html_goes_to_the_report_file_and_progress_to_stderr() {
    let fx = Fixture::new();
    let report = fx.path("out/report.html");
    std::fs::create_dir(fx.path("out")).unwrap();
    let run = fx.run(FAILING, &["--output-format", "html", "--report", report.to_str().unwrap()]);
    run.expect(1);
    assert_eq!(run.stdout, "", "stdout stays empty");
    assert!(run.stderr.contains("✗ check"), "step lines on stderr: {}", run.stderr);
    assert!(run.stderr.contains("assertion_failed"), "and the failure: {}", run.stderr);
    assert_eq!(listing(&fx.path("out")), ["report.html"], "written atomically, no temporary left");
    let page = read(&report);
    assert!(page.starts_with("<!DOCTYPE html>") && page.ends_with("</html>\n"));
    assert!(page.contains("<title>Build &lt;everything&gt; &amp; more — failed — TissLang report</title>"));
    assert!(page.contains("<h3>Failure: assertion_failed</h3>"));
    assert!(
        page.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; \u{FFFD}"),
        "escaped, bad byte replaced"
    );
    assert!(!page.contains("<script"));
    assert_eq!(page.matches("<tr class=\"step ").count(), 3, "every top-level step");
}

#[test]
fn html_without_report_is_the_page_on_stdout() {
    let fx = Fixture::new();
    let run = fx.run(PAUSE.replace("PAUSE \"Look at a.txt\"\n", "").as_str(), &["--output-format", "html"]);
    run.expect(0);
    assert!(run.stdout.starts_with("<!DOCTYPE html>"), "{}", run.stdout);
    assert!(run.stdout.contains("<h1><span class=\"badge passed\">passed</span> Pause and go on</h1>"));
    assert!(run.stdout.contains("<h3>Effects (2)</h3>"), "{}", run.stdout);
}

#[test]
fn a_report_that_cannot_be_written_is_refused_before_anything_runs() {
    let fx = Fixture::new();
    let missing = fx.path("no/such/dir/r.html");
    let run = fx.run(FAILING, &["--output-format", "html", "--report", missing.to_str().unwrap()]);
    run.expect(2);
    assert!(run.stderr.contains("there is no directory"), "{}", run.stderr);
    let dir = fx.root.path().to_str().unwrap();
    let run = fx.run(FAILING, &["--output-format", "html", "--report", dir]);
    run.expect(2);
    assert!(run.stderr.contains("is a directory: give the report's file name"), "{}", run.stderr);
    let text = fx.run(FAILING, &["--report", fx.path("r.txt").to_str().unwrap()]);
    text.expect(2);
    assert!(text.stderr.contains("add --output-format html"), "{}", text.stderr);
    assert!(listing(&fx.ws()).is_empty(), "nothing ran: {:?}", listing(&fx.ws()));
}

#[test]
fn report_takes_json_and_junit_too() {
    let fx = Fixture::new();
    let json = fx.path("r.json");
    let run = fx.run(FAILING, &["--output-format", "json", "--report", json.to_str().unwrap()]);
    run.expect(1);
    assert_eq!(run.stdout, "");
    let report: serde_json::Value = serde_json::from_str(&read(&json)).unwrap();
    assert_eq!(report["status"], "failed");
    assert_eq!(report["effects"][0]["event"], "run", "{report:#}");
    let xml = fx.path("r.xml");
    fx.run(FAILING, &["--output-format", "junit", "--report", xml.to_str().unwrap()]).expect(1);
    assert!(read(&xml).starts_with("<?xml"));
}

#[test]
fn a_plan_that_does_not_compile_still_gets_its_page() {
    let fx = Fixture::new();
    let report = fx.path("r.html");
    let run = fx.run(
        "TASK \"x\"\nSTEP \"a\" {\n    RUN <oops>\n}\n",
        &["--output-format", "html", "--report", report.to_str().unwrap()],
    );
    run.expect(2);
    let page = read(&report);
    assert!(page.contains("<span class=\"badge invalid\">invalid</span>"), "{page}");
    assert!(page.contains("<h3>Not run</h3>"), "{page}");
    assert!(page.contains("<ul class=\"diagnostics\">"), "{page}");
}

#[test]
fn suspend_and_resume_each_write_their_page() {
    let fx = Fixture::new();
    let first = fx.path("first.html");
    let run =
        fx.run(PAUSE, &["--non-interactive", "--output-format", "html", "--report", first.to_str().unwrap()]);
    run.expect(3);
    let page = read(&first);
    assert!(page.contains("<span class=\"badge suspended\">suspended</span>"), "{page}");
    let snapshot = page
        .split("continue with <code>tissvm resume ")
        .nth(1)
        .and_then(|rest| rest.split("</code>").next())
        .unwrap_or_else(|| panic!("no resume command in {page}"))
        .to_string();
    assert!(Path::new(&snapshot).is_file(), "{snapshot}");
    let second = fx.path("second.html");
    let resumed = fx.tissvm(&[
        "resume",
        &snapshot,
        "--answer",
        "continue",
        "--output-format",
        "html",
        "--report",
        second.to_str().unwrap(),
    ]);
    resumed.expect(0);
    let page = read(&second);
    assert!(page.contains("<span class=\"badge passed\">passed</span>"), "{page}");
    // This session's effects: the answer and the second write.
    assert!(page.contains("<h3>Effects (2)</h3>"), "{page}");
    assert!(
        page.contains("<span class=\"op\">answer</span>") && page.contains("<code>b.txt</code>"),
        "{page}"
    );
}

#[test]
fn many_plans_and_collect_write_one_page() {
    let fx = Fixture::new();
    std::fs::create_dir(fx.path("plans")).unwrap();
    std::fs::write(fx.path("plans/a.tiss"), FAILING).unwrap();
    std::fs::write(fx.path("plans/b.tiss"), PAUSE.replace("PAUSE \"Look at a.txt\"\n", "")).unwrap();
    let run = fx.tissvm(&[
        "run",
        "plans",
        "-j",
        "2",
        "--workdir",
        "ws",
        "--report-dir",
        "reports",
        "--output-format",
        "html",
        "--report",
        "many.html",
    ]);
    run.expect(1);
    assert_eq!(run.stdout, "", "the page went to the file");
    assert!(run.stderr.contains("FAIL") && run.stderr.contains("plans/a.tiss"), "{}", run.stderr);
    let collected = fx.tissvm(&["collect", "reports", "--output-format", "html"]);
    collected.expect(1);
    for page in [read(&fx.path("many.html")), collected.stdout] {
        assert!(page.contains("<title>2 plans — failed — TissLang report</title>"), "{page}");
        assert!(page.contains("<a href=\"#plan-1\">plans/a.tiss</a>"), "{page}");
        assert!(page.contains("<section class=\"plan\" id=\"plan-2\">"), "{page}");
        // Each plan links its journal (book: cookbook/journal.md), kept beside its report.
        assert!(page.contains("Its journal: <a href=\"file://"), "{page}");
        assert!(page.contains("reports/plans/a.tiss.journal</code></a>; run it again"), "{page}");
        assert!(page.ends_with("</html>\n"));
    }
    let refused = fx.tissvm(&["run", "plans", "--workdir", "ws2", "--report", "x.html"]);
    refused.expect(2);
    assert!(refused.stderr.contains("add --output-format html"), "{}", refused.stderr);
    assert!(!fx.path("ws2").exists(), "refused before anything ran");
}
