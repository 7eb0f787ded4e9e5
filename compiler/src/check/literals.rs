//! Checks of literal text: regular expressions (E0209) and workspace paths
//! (E0210), plus the literal helpers suggestions are built from.

use std::collections::HashSet;

use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{StrLit, StrPart};
use crate::syntax::span::Span;

use super::Ctx;
use super::types::ty::Ty;

/// Writes `text` as a TissLang string literal that reads back as `text`.
pub(crate) fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    let mut prev = '\0';
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            // `${` would interpolate.
            '$' => out.push_str("\\$"),
            // `{{` is the old interpolation form, an error in 1.0.
            '{' if prev == '{' => out.push_str("\\u{7B}"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:X}}}", c as u32)),
            c => out.push(c),
        }
        prev = c;
    }
    out.push('"');
    out
}

/// If `text` (a string's content) is written like a literal of type `want`,
/// the literal as it should be written: `"0"` → `0`, `"5s"` → `5s`,
/// `"1.5s"` → `1500ms`, `"true"` → `TRUE`. Follows the lexical rules (book: reference/lexical.md).
pub(crate) fn as_literal_of(text: &str, want: Ty) -> Option<String> {
    let text = text.trim();
    match want {
        Ty::Int => {
            let digits = text.strip_prefix('-').unwrap_or(text);
            (is_digits(digits) && text.replace('_', "").parse::<i64>().is_ok()).then(|| text.to_string())
        }
        Ty::Duration => crate::written_duration::read(text)?.fix(),
        Ty::Bool if text.eq_ignore_ascii_case("true") => Some("TRUE".to_string()),
        Ty::Bool if text.eq_ignore_ascii_case("false") => Some("FALSE".to_string()),
        _ => None,
    }
}

/// `[0-9][0-9_]*`
fn is_digits(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_digit()) && text.bytes().all(|b| b.is_ascii_digit() || b == b'_')
}

/// Splits `1500ms` into (`1500`, `ms`) if it is written like a duration.
pub(crate) fn split_duration(text: &str) -> Option<(&str, &str)> {
    let unit_at = text.find(|c: char| !(c.is_ascii_digit() || c == '_'))?;
    let (number, unit) = text.split_at(unit_at);
    (is_digits(number) && matches!(unit, "ms" | "s" | "m" | "h")).then_some((number, unit))
}

/// Checks MATCHES patterns. Parsing with `regex-syntax` is what
/// `regex::Regex::new` does first and costs a few microseconds, where a full
/// compile costs ~100; only a pattern big enough to risk the compiled-size
/// limit is compiled in full. Valid patterns are remembered, since plans
/// repeat them.
#[derive(Default)]
pub(crate) struct Regexes<'a> {
    valid: HashSet<&'a str>,
    /// Whether the plan was told it has too many patterns (once is enough).
    too_many: bool,
}

/// Above this rough size (literal bytes and class ranges, times repetition
/// counts) a pattern is compiled in full to see whether it fits the limits
/// `tissvm` loads it within (`tiss_support::regex_limits`): a unit of it
/// compiles to about 16 bytes, so this is a sixth of the limit, with room.
const COMPILE_IN_FULL: u64 = 2_000;

impl<'a> Regexes<'a> {
    /// The pattern of a literal without interpolation (`expr.literal()`),
    /// written at `span`.
    pub(crate) fn check(&mut self, cx: &mut Ctx<'_>, pattern: &'a str, span: Span) {
        if self.valid.contains(pattern) {
            return;
        }
        let error = match regex_syntax::Parser::new().parse(pattern) {
            Err(e) => Some(e.to_string()),
            Ok(hir) if weight(&hir) > COMPILE_IN_FULL => {
                tiss_support::regex_limits::compile(pattern).err().map(|e| {
                    format!(
                        "{e}\nerror: it compiles to more than the {} KiB a pattern may take; an ASCII class \
                         (`(?-u:\\w)`, `[0-9]`) or a smaller repetition is much smaller",
                        tiss_support::regex_limits::COMPILED_SIZE >> 10
                    )
                })
            }
            Ok(_) => None,
        };
        if error.is_none() && self.valid.len() >= tisslang::verify::MAX_REGEXES {
            if std::mem::replace(&mut self.too_many, true) {
                return;
            }
            cx.emit(
                Diagnostic::error(
                    codes::INVALID_REGEX,
                    span,
                    format!(
                        "a plan may MATCH at most {} different patterns; this is one more",
                        tisslang::verify::MAX_REGEXES
                    ),
                )
                .with_note(
                    "each is compiled when the plan is loaded; match a variable's pattern, or fewer patterns",
                ),
            );
            return;
        }
        match error {
            None => {
                self.valid.insert(pattern);
            }
            Some(full) => {
                // The parser's text is "regex parse error:", the pattern, a
                // caret, then "error: <what>"; the message keeps the what.
                let what = full
                    .lines()
                    .find_map(|l| l.trim().strip_prefix("error: "))
                    .or_else(|| full.lines().map(str::trim).find(|l| !l.is_empty()))
                    .unwrap_or("invalid pattern");
                cx.emit(
                    Diagnostic::error(
                        codes::INVALID_REGEX,
                        span,
                        format!("invalid regular expression: {what}"),
                    )
                    .with_note(full.trim_end().to_string()),
                );
            }
        }
    }
}

/// A rough, saturating size of what a pattern compiles to.
fn weight(hir: &regex_syntax::hir::Hir) -> u64 {
    use regex_syntax::hir::{Class, HirKind};
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => 1,
        HirKind::Literal(lit) => lit.0.len() as u64,
        HirKind::Class(Class::Unicode(c)) => 1 + c.ranges().len() as u64 * 4,
        HirKind::Class(Class::Bytes(c)) => 1 + c.ranges().len() as u64,
        HirKind::Repetition(rep) => {
            let times = u64::from(rep.max.unwrap_or(rep.min).max(1));
            weight(&rep.sub).saturating_mul(times)
        }
        HirKind::Capture(cap) => weight(&cap.sub),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => {
            subs.iter().fold(0, |acc, h| acc.saturating_add(weight(h)))
        }
    }
}

/// Which statement a path belongs to; DELETE may not name the workspace itself.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum PathUse {
    Read,
    Write,
    Append,
    Mkdir,
    Delete,
    RunIn,
    File,
}

impl PathUse {
    fn what(self) -> &'static str {
        match self {
            PathUse::Read => "`READ` path",
            PathUse::Write => "`WRITE` path",
            PathUse::Append => "`APPEND` path",
            PathUse::Mkdir => "`MKDIR` path",
            PathUse::Delete => "`DELETE` path",
            PathUse::RunIn => "`RUN ... IN` directory",
            PathUse::File => "`FILE` path",
        }
    }
}

/// Rejects literal paths that are absolute or leave the workspace (book: reference/sandbox.md).
/// An interpolated path is checked only as far as its literal prefix decides.
pub(crate) fn check_path(cx: &mut Ctx<'_>, lit: &StrLit, use_: PathUse) {
    let (text, complete) = match lit.parts.as_slice() {
        [] => ("", true),
        [StrPart::Text { text }] => (text.as_str(), true),
        [StrPart::Text { text }, ..] => (text.as_str(), false),
        _ => return,
    };
    let problem = if is_absolute(text) {
        Some("is absolute; paths are relative to the workspace")
    } else {
        match climb(text, complete) {
            Climb::Escapes => Some("climbs out of the workspace with `..`"),
            Climb::Root if complete && text.is_empty() => Some("is empty"),
            Climb::Root if complete && use_ == PathUse::Delete => {
                Some("names the workspace itself, which a plan may not delete")
            }
            Climb::Root | Climb::Inside => None,
        }
    };
    let file_use = matches!(use_, PathUse::Read | PathUse::Write | PathUse::Append);
    if problem.is_none() && complete && file_use && text.ends_with(['/', '\\']) {
        let file = text.trim_end_matches(['/', '\\']);
        let mut d = Diagnostic::error(
            codes::FILE_PATH_NAMES_DIRECTORY,
            lit.span,
            format!("{} {} ends in `/`, so it names a directory, not a file", use_.what(), quote(text)),
        );
        if !file.is_empty() {
            d = d.with_suggestion("name the file without the trailing slash", lit.span, quote(file));
        }
        cx.emit(d);
    }
    if let Some(problem) = problem {
        cx.emit(
            Diagnostic::error(
                codes::PATH_ESCAPES_WORKSPACE,
                lit.span,
                format!("{} {} {problem}", use_.what(), quote(text)),
            )
            .with_note(
                "a plan can only touch files inside its workspace (`--workdir`, \
                 default the current directory)",
            ),
        );
    }
}

/// `/x`, `\x`, `~` and `~user`, or a drive such as `C:`.
fn is_absolute(text: &str) -> bool {
    let b = text.as_bytes();
    matches!(b.first(), Some(b'/' | b'\\' | b'~'))
        || (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':')
}

enum Climb {
    /// Normalizes to the workspace root (`""`, `.`, `a/..`).
    Root,
    Inside,
    /// Some prefix climbs above the root.
    Escapes,
}

/// Follows the components of a relative path (`/` and `\` both separate, so
/// a plan means the same on every OS). For a prefix of an interpolated path
/// only the components already ended by a separator count.
fn climb(text: &str, complete: bool) -> Climb {
    let text = match complete {
        true => text,
        false => &text[..text.rfind(['/', '\\']).unwrap_or(0)],
    };
    let mut depth = 0usize;
    // By bytes: both separators are ASCII, so no character decoding is needed.
    for part in text.as_bytes().split(|&b| b == b'/' || b == b'\\') {
        match part {
            b"" | b"." => {}
            b".." if depth == 0 => return Climb::Escapes,
            b".." => depth -= 1,
            _ => depth += 1,
        }
    }
    if depth == 0 { Climb::Root } else { Climb::Inside }
}
