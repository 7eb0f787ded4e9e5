//! The HTML report (book: reference/formats.md, `--output-format html`): one self-contained
//! page rendered from the JSON report, of one plan (`tissvm run`, `resume`)
//! or of many (`{"plans": [...]}`, `tissvm run -j`, `tissvm collect`). It
//! has no scripts and loads nothing: the styles are inline, output is
//! collapsed with `<details>`, so it reads the same offline, with scripts
//! disabled and on paper. Every value from the report is escaped
//! ([`text`]), and long ones are shortened with a note ([`shown`]): the
//! report may come from any file `collect` reads.
//!
//! `page.rs` is the document around the content, `plan.rs` one plan's
//! section, `summary.rs` the table of many plans.

mod page;
mod plan;
mod summary;

use std::io::{self, Write};

use serde_json::Value as Json;

/// The page for `report`: a run report (one plan), or a combined report
/// (an object with `"plans"`).
pub fn render(report: &Json) -> String {
    match report.get("plans").and_then(Json::as_array) {
        Some(plans) => {
            let mut page = Vec::new();
            // Writing to memory does not fail.
            let _ = write_many(&mut page, report, || plans.iter().cloned());
            String::from_utf8_lossy(&page).into_owned()
        }
        None => {
            let mut page = page::start(&plan::title(report));
            page.push_str(&plan::section(report, None));
            page.push_str(&page::end());
            page
        }
    }
}

/// The page of many plans written to `out`: `head` is the combined
/// report's `status`, `exit_code` and `summary`, and `reports` gives the
/// plans' reports, each time it is called, in the same order. It is
/// called twice (the summary table, then a section per plan), so only one
/// plan's report is in memory at a time however many there are.
pub fn write_many<I: Iterator<Item = Json>>(
    out: &mut dyn Write,
    head: &Json,
    reports: impl Fn() -> I,
) -> io::Result<()> {
    let rows: Vec<summary::Row> = reports().map(|plan| summary::Row::of(&plan)).collect();
    out.write_all(page::start(&summary::title(head, rows.len())).as_bytes())?;
    out.write_all(summary::table(head, &rows).as_bytes())?;
    for (index, plan) in reports().enumerate() {
        out.write_all(plan::section(&plan, Some(index + 1)).as_bytes())?;
    }
    out.write_all(page::end().as_bytes())?;
    out.flush()
}

/// At most this many characters of one value are shown; longer ones keep
/// their head and tail around a note of what was left out.
const MAX_SHOWN: usize = 20_000;

/// `value` as text: a string as it is, `null` as nothing, anything else as JSON.
fn plain(value: &Json) -> String {
    match value {
        Json::String(s) => s.clone(),
        Json::Null => String::new(),
        other => other.to_string(),
    }
}

/// `text` escaped for HTML content and quoted attribute values. Control
/// characters, which HTML does not allow, are shown as their Control
/// Pictures (`␀`, `␛`...); tabs and newlines stay.
pub fn text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(c),
            '\r' => out.push('\u{240D}'),
            c if (c as u32) < 0x20 => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{FFFD}')),
            '\u{7F}' => out.push('\u{2421}'),
            '\u{80}'..='\u{9F}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// `value` escaped, shortened to [`MAX_SHOWN`] characters with a visible
/// note of how many were left out.
fn shown(value: &str) -> String {
    let count = value.chars().count();
    if count <= MAX_SHOWN {
        return text(value);
    }
    let half = MAX_SHOWN / 2;
    let head: String = value.chars().take(half).collect();
    let tail: String = value.chars().skip(count - half).collect();
    format!(
        "{}<span class=\"omitted\">… {} characters not shown …</span>{}",
        text(&head),
        count - 2 * half,
        text(&tail)
    )
}

/// A CSS class from a status in the report: its letters and `_`, so a
/// hostile status cannot leave the attribute.
fn class(status: &str) -> String {
    let name: String = status.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    if name.is_empty() { "unknown".into() } else { name }
}

/// A status badge.
fn badge(status: &str) -> String {
    format!("<span class=\"badge {}\">{}</span>", class(status), text(&status.replace('_', " ")))
}

/// Milliseconds for a reader: `850 ms`, `12.4 s`, `3 min 05 s`.
fn duration(ms: u64) -> String {
    match ms {
        0..1000 => format!("{ms} ms"),
        1000..60_000 => format!("{:.1} s", ms as f64 / 1000.0),
        _ => format!("{} min {:02} s", ms / 60_000, ms / 1000 % 60),
    }
}

fn number(value: &Json) -> u64 {
    value.as_u64().unwrap_or(0)
}

#[cfg(test)]
mod tests;
