//! Diagnostic rendering, two ways (book: guide/errors.md, `--error-format`):
//!
//! - **human**: rustc style through `codespan-reporting`: `error[E0101]: message`,
//!   ` --> file:line:column`, the source line with carets under the primary span,
//!   labels, `= note: ...` and one `= help: <message>: `<replacement>`` per suggestion;
//! - **json**: one object per line with exactly the fields `severity`, `code`,
//!   `message`, `file`, `line`, `column`, `end_line`, `end_column` and
//!   `suggestions` (`[{"message", "replacement", "applicability"}]`, the last
//!   `machine` or `maybe`). Lines and columns are
//!   1-based, columns count Unicode scalar values, and the end is exclusive (the
//!   position just after the last character of the span), as in rustc's JSON.
//!
//! Rendering never panics on a malformed span: spans are clamped to the text
//! and to character boundaries first.

use std::io::{self, Write};

use codespan_reporting::diagnostic as cs;
use codespan_reporting::term::{self, Chars, Config};
use serde::Serialize;

pub use codespan_reporting::term::termcolor;
use termcolor::{ColorChoice, NoColor, WriteColor};

use tiss_support::cli::{ColorArg, FormatArg, no_color_requested};
use tiss_support::terminal_text::{escape_controls, picture_with_offsets};

use crate::diagnostics::shown::Lines;
use crate::diagnostics::{Diagnostic, Severity};
use crate::source_file::SourceFile;
use crate::syntax::span::Span;

/// How diagnostics are written (`--error-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ErrorFormat {
    #[default]
    Human,
    Json,
}

/// Whether to color human output written to stderr: only on a terminal, and
/// never when `NO_COLOR` is set (see [`no_color_requested`]).
pub fn stderr_color_choice() -> ColorChoice {
    use std::io::IsTerminal;
    if no_color_requested() || !io::stderr().is_terminal() { ColorChoice::Never } else { ColorChoice::Auto }
}

/// The diagnostic format and stderr coloring `--error-format` and `--color`
/// select: JSON is never colored, and `auto` colors only a terminal without
/// `NO_COLOR`.
pub fn diagnostics_style(format: FormatArg, color: ColorArg) -> (ErrorFormat, ColorChoice) {
    let format = match format {
        FormatArg::Human => ErrorFormat::Human,
        FormatArg::Json => ErrorFormat::Json,
    };
    let color = match (format, color) {
        (ErrorFormat::Json, _) | (_, ColorArg::Never) => ColorChoice::Never,
        (_, ColorArg::Always) => ColorChoice::Always,
        (_, ColorArg::Auto) => stderr_color_choice(),
    };
    (format, color)
}

fn config() -> Config {
    Config { chars: Chars::ascii(), ..Config::default() }
}

/// Clamps a span into `text`, on character boundaries, start <= end.
fn clamp(text: &str, span: Span) -> std::ops::Range<usize> {
    let floor = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = floor(span.start as usize);
    let end = floor(span.end as usize).max(start);
    start..end
}

/// The `help:` line of one suggestion.
fn help_line(message: &str, replacement: &str) -> String {
    if replacement.is_empty() {
        format!("help: {message}")
    } else {
        format!("help: {message}: `{replacement}`")
    }
}

/// `diagnostic` for codespan, over `text` (the source, or its escaped
/// copy, whose offsets `map` gives).
fn to_codespan(text: &str, map: Option<&[usize]>, diagnostic: &Diagnostic) -> cs::Diagnostic<()> {
    let severity = match diagnostic.severity {
        Severity::Error => cs::Severity::Error,
        Severity::Warning => cs::Severity::Warning,
    };
    let range = |span: Span| match map {
        Some(map) => {
            let clamped = |i: u32| map[(i as usize).min(map.len() - 1)];
            clamped(span.start)..clamped(span.end).max(clamped(span.start))
        }
        None => clamp(text, span),
    };
    let shown = |message: &str| escape_controls(message).into_owned();
    let mut labels = vec![cs::Label::primary((), range(diagnostic.span))];
    labels.extend(
        diagnostic
            .labels
            .iter()
            .map(|l| cs::Label::secondary((), range(l.span)).with_message(shown(&l.message))),
    );
    let notes = diagnostic
        .notes
        .iter()
        .map(|n| format!("note: {n}"))
        .chain(diagnostic.suggestions.iter().map(|s| help_line(&s.message, &s.replacement)))
        .map(|note| shown(&note))
        .collect();
    cs::Diagnostic::new(severity)
        .with_code(diagnostic.code.as_str())
        .with_message(shown(&diagnostic.message))
        .with_labels(labels)
        .with_notes(notes)
}

/// Writes `diagnostics` of `file` in the human format. A plan's control
/// characters are shown as their pictures (`␛`) in the source, keeping its
/// columns and carets, and written out (`\x1b`) in the messages that quote
/// it: a plan cannot drive the terminal of whoever compiles it (book: reference/policy.md).
pub fn emit_human(out: &mut dyn WriteColor, file: &SourceFile, diagnostics: &[Diagnostic]) -> io::Result<()> {
    // With a control character, the source shown is a copy with pictures.
    let (pictured, map) = match picture_with_offsets(&file.text) {
        Some((text, map)) => (Some(SourceFile::new(file.name.as_str(), text)), Some(map)),
        None => (None, None),
    };
    let shown = pictured.as_ref().unwrap_or(file);
    let (text, map) = (shown.text.as_str(), map.as_deref());
    let lines = Lines::new(shown);
    let config = config();
    for diagnostic in diagnostics {
        let (view, shown) = lines.show(to_codespan(text, map, diagnostic));
        term::emit(out, &config, &view, &shown).map_err(files_error)?;
    }
    Ok(())
}

fn files_error(e: codespan_reporting::files::Error) -> io::Error {
    match e {
        codespan_reporting::files::Error::Io(e) => e,
        other => io::Error::other(other.to_string()),
    }
}

/// The human rendering without color, as a string (for tests and logs).
pub fn human_to_string(file: &SourceFile, diagnostics: &[Diagnostic]) -> String {
    let mut out = NoColor::new(Vec::new());
    // Writing into a Vec cannot fail, and spans are clamped, so this is total.
    let _ = emit_human(&mut out, file, diagnostics);
    String::from_utf8_lossy(&out.into_inner()).into_owned()
}

/// The closing line of a human report on one file, like rustc's:
/// `error: could not check `plan.tiss` due to 2 previous errors; 1 warning emitted`,
/// or `warning: `plan.tiss` generated 1 warning`. `None` when there is nothing to say.
pub fn summary(verb: &str, file_name: &str, diagnostics: &[Diagnostic]) -> Option<(Severity, String)> {
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = diagnostics.len() - errors;
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    match (errors, warnings) {
        (0, 0) => None,
        (0, w) => Some((Severity::Warning, format!("`{file_name}` generated {}", plural(w, "warning")))),
        (e, w) => {
            let mut text = format!(
                "could not {verb} `{file_name}` due to {}",
                if e == 1 { "1 previous error".to_string() } else { format!("{e} previous errors") }
            );
            if w > 0 {
                text.push_str(&format!("; {} emitted", plural(w, "warning")));
            }
            Some((Severity::Error, text))
        }
    }
}

/// Writes the summary line (see [`summary`]) in the human style, if there is one.
pub fn emit_summary(
    out: &mut dyn WriteColor,
    verb: &str,
    file_name: &str,
    diagnostics: &[Diagnostic],
) -> io::Result<()> {
    let Some((severity, message)) = summary(verb, file_name, diagnostics) else {
        return Ok(());
    };
    let config = config();
    let styles = &config.styles;
    let cs_severity = match severity {
        Severity::Error => cs::Severity::Error,
        Severity::Warning => cs::Severity::Warning,
    };
    out.set_color(styles.header(cs_severity))?;
    write!(out, "{}", severity.as_str())?;
    out.set_color(&styles.header_message)?;
    write!(out, ": {message}")?;
    out.reset()?;
    writeln!(out)
}

/// One diagnostic as a JSON line object (field order as in the book, guide/errors.md).
#[derive(Debug, Serialize)]
pub struct JsonDiagnostic<'a> {
    pub severity: &'static str,
    pub code: &'static str,
    pub message: &'a str,
    pub file: &'a str,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub suggestions: Vec<JsonSuggestion<'a>>,
}

#[derive(Debug, Serialize)]
pub struct JsonSuggestion<'a> {
    pub message: &'a str,
    pub replacement: &'a str,
    /// `machine` (certain: `tissc fix` applies it) or `maybe`.
    pub applicability: &'static str,
}

impl<'a> JsonDiagnostic<'a> {
    pub fn new(file: &'a SourceFile, diagnostic: &'a Diagnostic) -> JsonDiagnostic<'a> {
        let (start, end) = file.span_line_cols(diagnostic.span);
        JsonDiagnostic {
            severity: diagnostic.severity.as_str(),
            code: diagnostic.code.as_str(),
            message: &diagnostic.message,
            file: &file.name,
            line: start.line,
            column: start.column,
            end_line: end.line,
            end_column: end.column,
            suggestions: diagnostic
                .suggestions
                .iter()
                .map(|s| JsonSuggestion {
                    message: &s.message,
                    replacement: &s.replacement,
                    applicability: s.applicability.as_str(),
                })
                .collect(),
        }
    }
}

/// One diagnostic as one line of JSON (no trailing newline).
pub fn json_line(file: &SourceFile, diagnostic: &Diagnostic) -> String {
    // Serializing a struct of strings and integers cannot fail.
    serde_json::to_string(&JsonDiagnostic::new(file, diagnostic)).unwrap_or_default()
}

/// Writes `diagnostics` of `file` as JSON lines.
pub fn emit_json(out: &mut dyn Write, file: &SourceFile, diagnostics: &[Diagnostic]) -> io::Result<()> {
    for diagnostic in diagnostics {
        writeln!(out, "{}", json_line(file, diagnostic))?;
    }
    Ok(())
}

/// Writes `diagnostics` in `format`: human output colored as `out` allows.
pub fn emit(
    out: &mut dyn WriteColor,
    format: ErrorFormat,
    file: &SourceFile,
    diagnostics: &[Diagnostic],
) -> io::Result<()> {
    match format {
        ErrorFormat::Human => emit_human(out, file, diagnostics),
        ErrorFormat::Json => emit_json(out, file, diagnostics),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::codes;

    fn file(text: &str) -> SourceFile {
        SourceFile::new("plan.tiss", text.to_string())
    }

    #[test]
    fn human_has_code_location_caret_and_help() {
        let f = file("TASK \"t\"\nSTPE \"a\" { }\n");
        let d = Diagnostic::error(codes::MISSPELLED_KEYWORD, Span::new(9, 13), "unknown keyword `STPE`")
            .with_note("keywords are UPPERCASE")
            .with_suggestion("did you mean", Span::new(9, 13), "STEP");
        let text = human_to_string(&f, &[d]);
        assert!(text.starts_with("error[E0101]: unknown keyword `STPE`\n"), "{text}");
        assert!(text.contains("--> plan.tiss:2:1"), "{text}");
        assert!(text.contains("2 | STPE \"a\" { }"), "{text}");
        assert!(text.contains("  | ^^^^"), "{text}");
        assert!(text.contains("= note: keywords are UPPERCASE"), "{text}");
        assert!(text.contains("= help: did you mean: `STEP`"), "{text}");
    }

    #[test]
    fn bad_spans_do_not_panic() {
        let f = file("é\n");
        for (s, e) in [(1, 1), (0, 1), (5, 2), (100, 200), (2, 1)] {
            let d = Diagnostic::error(codes::UNEXPECTED_TOKEN, Span { start: s, end: e }, "x");
            let _ = human_to_string(&f, std::slice::from_ref(&d));
            let _ = json_line(&f, &d);
        }
        let empty = file("");
        let d = Diagnostic::error(codes::MISSING_TASK, Span::new(0, 0), "no TASK");
        assert!(human_to_string(&empty, &[d]).contains("error[E0102]"));
    }

    #[test]
    fn a_long_line_is_shown_around_the_place_pointed_at() {
        let line = format!("{}TARGET{}", "x".repeat(30_000), "y".repeat(30_000));
        let f = file(&format!("TASK \"t\"\n{line}\n"));
        let at = 9 + 30_000;
        let d = Diagnostic::error(codes::UNEXPECTED_TOKEN, Span::new(at, at + 6), "here");
        let text = human_to_string(&f, &[d]);
        assert!(text.contains("--> plan.tiss:2:30001"), "{text}");
        let shown = text.lines().find(|l| l.starts_with("2 | ")).unwrap();
        let carets = text.lines().find(|l| l.contains('^')).unwrap();
        assert!(shown.len() < 200, "{shown}");
        assert_eq!(shown.find("TARGET"), carets.find("^^^^^^"), "{text}");
        assert!(
            text.contains("= note: line 2 is 60,007 bytes long; columns 29,941 to 30,100 are shown"),
            "{text}"
        );
        // Many diagnostics along it: output linear in the plan (each printed
        // the whole line and a caret line as long: quadratic).
        let many: Vec<Diagnostic> = (0..2_000)
            .map(|i| Diagnostic::warning(codes::UNEXPECTED_TOKEN, Span::new(9 + i * 30, 9 + i * 30 + 3), "x"))
            .collect();
        assert!(human_to_string(&f, &many).len() < 2_000 * 700);
        // Anywhere in a long line of two-byte characters, and past its end.
        let wide = file(&format!("TASK \"t\"\n{}\n", "é".repeat(30_000)));
        for (s, e) in [(10, 11), (9, 60_009), (30_001, 30_002), (60_008, 60_009), (59_990, 70_000)] {
            let d = Diagnostic::error(codes::UNEXPECTED_TOKEN, Span { start: s, end: e }, "x");
            let text = human_to_string(&wide, &[d]);
            assert!(text.contains("bytes long"), "{s}..{e}: {text}");
        }
    }

    #[test]
    fn a_span_over_many_lines_is_shown_by_its_first_and_last() {
        let text = format!("TASK \"t\"\nWRITE <<EOF\n{}EOF\n", "line\n".repeat(1_000));
        let f = file(&text);
        let (start, end) = (text.find("<<EOF").unwrap(), text.rfind("EOF").unwrap() + 3);
        let d = Diagnostic::error(codes::UNEXPECTED_TOKEN, Span::new(start, end), "here");
        let text = human_to_string(&f, &[d]);
        assert!(text.contains("2 | WRITE <<EOF\n"), "{text}");
        assert!(text.contains("1003 | EOF\n"), "{text}");
        assert!(text.contains("--- to here"), "{text}");
        assert!(text.lines().count() < 15, "{text}");
        // A few lines are still shown whole.
        let short = Diagnostic::error(codes::UNEXPECTED_TOKEN, Span::new(start, start + 30), "here");
        assert!(!human_to_string(&f, &[short]).contains("to here"));
    }

    #[test]
    fn summaries() {
        let e = Diagnostic::error(codes::UNEXPECTED_TOKEN, Span::new(0, 0), "x");
        let w = Diagnostic::warning(codes::UNEXPECTED_TOKEN, Span::new(0, 0), "x");
        assert_eq!(summary("check", "a", &[]), None);
        assert_eq!(
            summary("check", "a", std::slice::from_ref(&e)).unwrap().1,
            "could not check `a` due to 1 previous error"
        );
        assert_eq!(
            summary("check", "a", &[e.clone(), e.clone(), w.clone()]).unwrap().1,
            "could not check `a` due to 2 previous errors; 1 warning emitted"
        );
        assert_eq!(summary("check", "a", &[w.clone(), w]).unwrap().1, "`a` generated 2 warnings");
    }
}
