//! An estimate as `tissvm estimate` prints it: JSON, or text tables.

use std::fmt::Write as _;

use serde_json::{Map, Value as Json, json};
use tisslang::cost::Dim;
use tisslang::cost::bound::CostBound;
use tisslang::module::Module;

use super::model::TimeSource;
use super::{Estimate, RunEstimate};
use crate::machine::value::format_duration;
use crate::report::style::{Style, Tone};

impl Estimate {
    /// The RUNs in source order.
    fn runs_by_line(&self) -> Vec<&RunEstimate> {
        let mut runs: Vec<&RunEstimate> = self.runs.iter().collect();
        runs.sort_by_key(|r| (r.line, r.pc));
        runs
    }

    /// The report's top-level steps: the main code's steps at depth 0.
    pub fn top_level_steps(&self) -> impl Iterator<Item = u32> + '_ {
        self.main_steps.iter().filter(|(_, depth)| *depth == 0).map(|(s, _)| *s)
    }

    /// The JSON of the book's reference/formats.md: `steps` (top-level), `total`, and `runs` (each RUN's
    /// execution time and where it comes from).
    pub fn to_json(&self, m: &Module) -> Json {
        let steps: Vec<Json> = self
            .top_level_steps()
            .map(|s| {
                let info = &m.steps[s as usize];
                json!({
                    "name": m.string(info.name).unwrap_or(""),
                    "line": info.line,
                    "cost": bound_json(&self.steps[s as usize].unwrap_or(CostBound::ZERO)),
                })
            })
            .collect();
        let runs: Vec<Json> = self
            .runs_by_line()
            .into_iter()
            .map(|r| {
                let mut o = Map::new();
                o.insert("line".into(), json!(r.line));
                o.insert("step".into(), r.step.map_or(Json::Null, |s| json!(step_name(m, s))));
                o.insert("command".into(), json!(r.command));
                o.insert("dynamic".into(), json!(r.dynamic));
                o.insert("timeout_ms".into(), json!(r.timeout_ms));
                o.insert("execution_time_ms".into(), json!({"min": r.min_ms, "max": r.max_ms}));
                o.insert("source".into(), json!(r.source.name()));
                match &r.source {
                    TimeSource::Rule { pattern, .. } => {
                        o.insert("pattern".into(), json!(pattern));
                    }
                    TimeSource::History { runs } => {
                        o.insert("history_runs".into(), json!(runs));
                    }
                    _ => {}
                }
                Json::Object(o)
            })
            .collect();
        json!({"steps": steps, "total": bound_json(&self.total), "runs": runs})
    }

    /// A table per step (nested steps indented) and the total, the tasks,
    /// and the RUNs with the source of each time estimate (a built-in guess
    /// is a warning, in colour when `style` allows).
    pub fn to_text(&self, m: &Module, style: Style) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "Estimate for \"{}\" (no command is run)\n", m.string(m.task).unwrap_or(""));
        let mut rows: Vec<(String, String, CostBound)> = self
            .main_steps
            .iter()
            .map(|&(s, depth)| {
                let info = &m.steps[s as usize];
                let name = format!("{}{}", "  ".repeat(depth as usize), step_name(m, s));
                (name, info.line.to_string(), self.steps[s as usize].unwrap_or(CostBound::ZERO))
            })
            .collect();
        rows.push(("total".to_string(), String::new(), self.total));
        table(&mut out, "step", &rows);
        if !m.tasks.is_empty() {
            let rows: Vec<(String, String, CostBound)> = m
                .tasks
                .iter()
                .zip(&self.tasks)
                .map(|(t, b)| (format!("\"{}\"", m.string(t.name).unwrap_or("")), t.line.to_string(), *b))
                .collect();
            out.push('\n');
            table(&mut out, "task (per CALL)", &rows);
        }
        if !self.runs.is_empty() {
            let _ = writeln!(out, "\nRUN execution time, and where each estimate comes from:");
            let runs = self.runs_by_line();
            let commands: Vec<String> = runs.iter().map(|r| shorten_line(&r.command, 60)).collect();
            let width = commands.iter().map(|c| c.chars().count()).max().unwrap_or(0);
            let times: Vec<String> = runs.iter().map(|r| time_range(r.min_ms, r.max_ms)).collect();
            let time_width = times.iter().map(|t| t.chars().count()).max().unwrap_or(0);
            let line_width = runs.iter().map(|r| r.line.to_string().len()).max().unwrap_or(0);
            for ((r, command), time) in runs.iter().zip(&commands).zip(&times) {
                let source = match (&r.source, r.timeout_ms) {
                    (TimeSource::Timeout, Some(t)) => format!("TIMEOUT {}", format_duration(t)),
                    (TimeSource::Default, _) => style.paint(Tone::Warn, &r.source.describe()),
                    (source, _) => source.describe(),
                };
                let _ = writeln!(
                    out,
                    "  line {:>line_width$}  {command:<width$}  {time:<time_width$}  {source}",
                    r.line
                );
            }
        }
        out
    }
}

fn step_name(m: &Module, step: u32) -> &str {
    m.steps.get(step as usize).and_then(|s| m.string(s.name)).unwrap_or("")
}

fn bound_json(b: &CostBound) -> Json {
    let mut o = Map::new();
    for dim in Dim::ALL {
        let (min, max) = b.get(dim);
        o.insert(dim.json_key().to_string(), json!({"min": min, "max": max}));
    }
    Json::Object(o)
}

fn table(out: &mut String, first: &str, rows: &[(String, String, CostBound)]) {
    let mut header: Vec<String> = vec![first.to_string(), "line".to_string()];
    header.extend(Dim::ALL.iter().map(|d| d.json_key().trim_end_matches("_ms").to_string()));
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|(name, line, b)| {
            let mut row = vec![name.clone(), line.clone()];
            for dim in Dim::ALL {
                let (min, max) = b.get(dim);
                row.push(match dim {
                    Dim::ExecutionTime => time_range(min, max),
                    _ if min == max => min.to_string(),
                    _ => format!("{min}–{max}"),
                });
            }
            row
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|c| {
            std::iter::once(&header[c]).chain(cells.iter().map(|r| &r[c])).map(|s| s.chars().count()).max()
        })
        .map(|w| w.unwrap_or(0))
        .collect();
    for row in std::iter::once(&header).chain(&cells) {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let pad = widths[c] - cell.chars().count();
            if c == 0 {
                line.push_str(cell);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str("  ");
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

fn time_range(min: u64, max: u64) -> String {
    if min == max { human_ms(min) } else { format!("{}–{}", human_ms(min), human_ms(max)) }
}

/// Milliseconds for people: `850ms`, `2.5s`, `4m 5s`, `1h 30m`.
pub fn human_ms(ms: u64) -> String {
    if ms == u64::MAX {
        return "unbounded".to_string();
    }
    if ms == 0 {
        return "0s".to_string();
    }
    if ms < 1000 {
        return format!("{ms}ms");
    }
    if ms < 60_000 {
        let tenths = (ms + 50) / 100;
        return if tenths.is_multiple_of(10) {
            format!("{}s", tenths / 10)
        } else {
            format!("{}.{}s", tenths / 10, tenths % 10)
        };
    }
    let secs = ms / 1000;
    if secs < 3600 {
        let (m, s) = (secs / 60, secs % 60);
        return if s == 0 { format!("{m}m") } else { format!("{m}m {s}s") };
    }
    let (h, m) = (secs / 3600, secs % 3600 / 60);
    if m == 0 { format!("{h}h") } else { format!("{h}h {m}m") }
}

fn shorten_line(text: &str, max: usize) -> String {
    let one_line: String = text.chars().map(|c| if c == '\n' { ' ' } else { c }).collect();
    if one_line.chars().count() <= max {
        return one_line;
    }
    let mut s: String = one_line.chars().take(max - 1).collect();
    s.push('…');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_times() {
        assert_eq!(human_ms(0), "0s");
        assert_eq!(human_ms(850), "850ms");
        assert_eq!(human_ms(2_500), "2.5s");
        assert_eq!(human_ms(30_000), "30s");
        assert_eq!(human_ms(59_990), "60s");
        assert_eq!(human_ms(245_000), "4m 5s");
        assert_eq!(human_ms(600_000), "10m");
        assert_eq!(human_ms(5_400_000), "1h 30m");
        assert_eq!(human_ms(u64::MAX), "unbounded");
    }
}
