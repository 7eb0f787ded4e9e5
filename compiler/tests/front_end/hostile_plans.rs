//! Hostile plans through the real `tissc`, each within a bound of time,
//! memory and output: the plans whose cost once grew with the square of
//! their size (book: performance.md, "Hostile input"). Each bound is a few
//! times what the debug build takes now and far below what the plan took
//! before its fix (in the comments, release builds), so a regression fails
//! here rather than on a user's machine. Peak memory is the kernel's count
//! for `tissc` alone (`tiss_test_support::measured`).

use std::time::Duration;

use tiss_test_support::measured::{self, MIB};

/// How long a hostile compile may run before it is killed (and fails):
/// short, as a regression may allocate gigabytes a second.
const DEADLINE: Duration = Duration::from_secs(15);

/// What `tissc ARGS plan.tiss` did with `plan`: exit status, peak RSS,
/// wall time, and how many bytes it printed.
struct Outcome {
    code: i32,
    peak: u64,
    elapsed_ms: u64,
    printed: u64,
    stderr_head: String,
}

fn tissc(plan: &str, command: &str) -> Outcome {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("plan.tiss"), plan).expect("write the plan");
    let run = measured::measure(
        module_path!(),
        &tiss_test_support::binary("tissc"),
        dir.path(),
        &[command, "plan.tiss"],
        DEADLINE,
    );
    let size = |name: &str| std::fs::metadata(dir.path().join(name)).map_or(0, |m| m.len());
    let stderr = std::fs::read(dir.path().join("stderr")).unwrap_or_default();
    let head = String::from_utf8_lossy(&stderr[..stderr.len().min(600)]).into_owned();
    Outcome {
        code: run.code,
        peak: run.peak,
        elapsed_ms: run.elapsed_ms,
        printed: size("stdout") + size("stderr"),
        stderr_head: head,
    }
}

/// Not a test of its own: the small process [`tissc`] measures from.
#[test]
fn measuring_parent() {
    measured::measuring_parent();
}

/// Asserts `tissc COMMAND` of `plan` exits with `code` within `peak_mib`,
/// `seconds` and `printed_mib`.
fn within(case: &str, plan: &str, command: &str, code: i32, peak_mib: u64, seconds: u64, printed_mib: u64) {
    let run = tissc(plan, command);
    eprintln!(
        "{case}: tissc {command} of {:.2} MB: exit {}, peak {:.1} MiB, {} ms, printed {:.2} MiB",
        plan.len() as f64 / 1e6,
        run.code,
        run.peak as f64 / MIB as f64,
        run.elapsed_ms,
        run.printed as f64 / MIB as f64
    );
    assert_eq!(run.code, code, "{case}: exit status (-1: killed at the deadline)\n{}", run.stderr_head);
    assert!(run.peak <= peak_mib * MIB, "{case}: peak RSS {} MiB, bound {peak_mib}", run.peak / MIB);
    assert!(run.elapsed_ms <= seconds * 1000, "{case}: {} ms, bound {seconds} s", run.elapsed_ms);
    assert!(
        run.printed <= printed_mib * MIB,
        "{case}: printed {} bytes, bound {printed_mib} MiB",
        run.printed
    );
}

/// A plan with one step running `command` (TissLang string text).
fn one_run(command: &str) -> String {
    format!(
        "TASK \"t\"\nSTEP \"s\" {{\n    RUN \"{command}\" TIMEOUT 1m\n    ASSERT LAST_RUN.EXIT_CODE == 0\n}}\n"
    )
}

/// 20,000 warnings on one 600 KB line: each diagnostic showed the whole
/// line and a caret line as long (1.2 GB printed in 84 s); a long line is
/// now shown as a window around the place.
#[test]
fn twenty_thousand_warnings_on_one_line() {
    let text = "{name} is not interpolated ".repeat(20_000);
    let plan = format!("TASK \"t\"\nSTEP \"s\" {{\n    VAR name = \"x\"\n    LOG \"{text}\"\n}}\n");
    within("warnings on one line", &plan, "check", 0, 150, 10, 40);
}

/// An error whose place spans a 500,000-line heredoc: the renderer kept a
/// record per line covered (196 MB); now its first line and its last.
#[test]
fn an_error_over_half_a_million_lines() {
    let plan = format!("TASK \"t\"\nWRITE <<EOF\n{}EOF\n", "line\n".repeat(500_000));
    within("error over a heredoc", &plan, "check", 1, 120, 10, 1);
}

/// `sh -c 'rm;rm;…'` of 63 KB: every one of its 21,000 programs carried a
/// copy of the line (1.3 GB in 2.1 s); they share it now.
#[test]
fn a_shell_line_of_twenty_thousand_programs() {
    let line = "rm;".repeat(21_000);
    within("sh -c of 21,000 programs", &one_run(&format!("sh -c '{line}'")), "compile", 0, 150, 10, 1);
}

/// 13,000 `sudo` wrappers before one program (440 MB); more than 32 are
/// not read now, and the line is rated as what cannot be read.
#[test]
fn thirteen_thousand_wrappers() {
    let line = format!("{}rm x", "sudo ".repeat(13_000));
    within("13,000 wrappers", &one_run(&line), "compile", 0, 150, 10, 1);
}

/// Lines on which the shell parser looped for ever, allocating, at a
/// here-document operator with an empty word (`$(<< <#`): they end now.
#[test]
fn here_document_operators_at_the_end_of_a_line() {
    for line in ["\\$(<< <#", "\\\\<<<''(#", "\\$(<<  a))#", "cat <<", "x <<- \\\"\\\""] {
        within(line, &one_run(line), "compile", 0, 150, 10, 1);
    }
}
