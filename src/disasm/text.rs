//! How the listing writes names, amounts, flags and text: quoted, escaped,
//! shortened, on one line.

use std::fmt::Write as _;

use crate::cost::Dim;
use crate::cost::bound::CostBound;
use crate::isa::run_flags;
use crate::module::{PathAccess, RiskLevel};
use crate::types::Field;

/// `1 step`, `2 steps`.
pub(super) fn plural(n: usize, noun: &str) -> String {
    if n == 1 { format!("{n} {noun}") } else { format!("{n} {noun}s") }
}

pub(super) fn bad(index: u32) -> String {
    format!("<bad index {index}>")
}

pub(super) fn field_name(f: u8) -> String {
    match Field::from_u8(f) {
        Some(f) => f.name().to_string(),
        None => format!("<bad field {f}>"),
    }
}

pub(super) fn dim_name(d: u8) -> String {
    match Dim::ALL.get(usize::from(d)) {
        Some(d) => d.name().to_string(),
        None => format!("<bad dimension {d}>"),
    }
}

/// `RUN` flags as `DIR|TIMEOUT`; `0` when none, unknown bits in hex.
pub(super) fn flags(f: u8) -> String {
    let mut parts = Vec::new();
    if f & run_flags::DIR != 0 {
        parts.push("DIR".to_string());
    }
    if f & run_flags::TIMEOUT != 0 {
        parts.push("TIMEOUT".to_string());
    }
    let rest = f & !(run_flags::DIR | run_flags::TIMEOUT);
    if rest != 0 {
        parts.push(format!("0x{rest:02X}"));
    }
    if parts.is_empty() { "0".to_string() } else { parts.join("|") }
}

pub(super) fn access(a: PathAccess) -> &'static str {
    match a {
        PathAccess::Read => "read",
        PathAccess::Write => "write",
        PathAccess::Append => "append",
        PathAccess::Create => "create",
        PathAccess::Delete => "delete",
        PathAccess::DeleteRecursive => "delete recursive",
        PathAccess::Inspect => "inspect",
    }
}

pub(super) fn level(l: RiskLevel) -> &'static str {
    l.name()
}

/// A bound amount; a saturated maximum means "no finite bound".
pub(super) fn amount(n: u64) -> String {
    if n == u64::MAX { "unbounded".to_string() } else { n.to_string() }
}

/// A bound on one line: `API_CALLS 0, RUN_COUNT 1..2, EXECUTION_TIME 30000ms, ...`.
pub(super) fn bound_inline(b: &CostBound) -> String {
    let parts: Vec<String> = Dim::ALL
        .into_iter()
        .map(|dim| {
            let (min, max) = b.get(dim);
            let unit = if dim == Dim::ExecutionTime { "ms" } else { "" };
            if min == max {
                format!("{} {}{unit}", dim.name(), amount(min))
            } else {
                format!("{} {}..{}{unit}", dim.name(), amount(min), amount(max))
            }
        })
        .collect();
    parts.join(", ")
}

/// Is `s` shown as a bare name (an identifier)?
pub(super) fn is_plain_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `s` as a TissLang string literal: quoted, with `\\ \" \n \t \r \$` and
/// `\u{..}` for other control characters, so it always fits on one line.
pub(super) fn quote(s: &str) -> String {
    format!("\"{}\"", escape(s))
}

pub(super) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '$' if chars.peek() == Some(&'{') => out.push_str("\\$"),
            c if c.is_control() || is_invisible(c) => {
                let _ = write!(out, "\\u{{{:X}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// Characters that would make a line read differently from what it holds
/// (bidirectional overrides, zero-width characters).
pub(super) fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// Source text as printed on one line: `\n`, `\r` and other control
/// characters (but tab) escaped, everything else as it is.
pub(super) fn printable(s: &str) -> String {
    if s.chars().all(|c| c == '\t' || !(c.is_control() || is_invisible(c))) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\t' => out.push(c),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() || is_invisible(c) => {
                let _ = write!(out, "\\u{{{:X}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// Cuts `s` to about `limit` characters, keeping the head and the tail.
pub(super) fn shorten(s: &str, limit: usize) -> String {
    let count = s.chars().count();
    if count <= limit {
        return s.to_string();
    }
    let keep = limit.saturating_sub(3);
    let head = keep - keep / 3;
    let tail = keep / 3;
    let head: String = s.chars().take(head).collect();
    let tail: String = s.chars().skip(count - tail).collect();
    format!("{head}...{tail}")
}

/// Shortens an already-quoted text, keeping the quotes and never cutting an
/// escape sequence in half.
pub(super) fn shorten_quoted(quoted: &str, limit: usize) -> String {
    let inner = quoted.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(quoted);
    // Split into display units: an escape sequence or one character.
    let mut units: Vec<&str> = Vec::new();
    let mut rest = inner;
    while let Some(c) = rest.chars().next() {
        let len = if c == '\\' {
            match rest[1..].chars().next() {
                Some('u') => rest.find('}').map_or(rest.len(), |i| i + 1),
                Some(d) => 1 + d.len_utf8(),
                None => 1,
            }
        } else {
            c.len_utf8()
        };
        units.push(&rest[..len]);
        rest = &rest[len..];
    }
    if units.len() <= limit {
        return quoted.to_string();
    }
    let keep = limit.saturating_sub(3);
    let head = keep - keep / 3;
    let tail = keep / 3;
    format!("\"{}...{}\"", units[..head].concat(), units[units.len() - tail..].concat())
}
