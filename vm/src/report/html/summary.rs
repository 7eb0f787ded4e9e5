//! The head of a report of many plans: the counts by status and a row per
//! plan linking to its section.

use serde_json::Value as Json;

use super::plan::name;
use super::{badge, class, duration, number, plain, shown, text};

/// The statuses counted, in the order of the final line of `tissvm run`.
const STATUSES: [&str; 5] = ["passed", "failed", "suspended", "budget_exceeded", "security_violation"];

pub fn title(report: &Json, plans: &[Json]) -> String {
    format!("{} plans — {} — TissLang report", plans.len(), text(&plain(&report["status"]).replace('_', " ")))
}

/// The heading, the counts and the table of plans.
pub fn table(report: &Json, plans: &[Json]) -> String {
    let status = plain(&report["status"]);
    let total: u64 = plans.iter().map(|p| number(&p["duration_ms"])).sum();
    let mut out = format!(
        "<h1>{} {} plans</h1>\n<p class=\"meta\">exit status {}{}</p>\n",
        badge(&status),
        plans.len(),
        text(&plain(&report["exit_code"])),
        match report["summary"]["duration_ms"].as_u64() {
            Some(wall) => format!(" · {} wall time, {} of plan time", duration(wall), duration(total)),
            None => format!(" · {} of plan time", duration(total)),
        }
    );
    // Counted from the plans themselves, so the page agrees with its rows.
    let mut counts: Vec<(String, usize)> = STATUSES.iter().map(|s| (s.to_string(), 0)).collect();
    for plan in plans {
        let status = plain(&plan["status"]);
        match counts.iter_mut().find(|(s, _)| *s == status) {
            Some((_, n)) => *n += 1,
            None => counts.push((status, 1)),
        }
    }
    out.push_str(
        "<table class=\"summary\">\n<thead><tr><th>Status</th><th class=\"num\">Plans</th></tr></thead>\n<tbody>\n",
    );
    for (status, n) in &counts {
        out.push_str(&format!(
            "<tr class=\"{}\"><td>{}</td><td class=\"num\">{n}</td></tr>\n",
            class(status),
            badge(status)
        ));
    }
    out.push_str("</tbody>\n</table>\n");
    out.push_str(
        "<h2>Plans</h2>\n<table class=\"plans\">\n<thead><tr><th class=\"num\">#</th><th>Plan</th><th>Result</th>\
         <th class=\"num\">Steps passed</th><th class=\"num\">Duration</th><th>Failure</th></tr></thead>\n<tbody>\n",
    );
    for (i, plan) in plans.iter().enumerate() {
        let status = plain(&plan["status"]);
        let steps = plan["steps"].as_array().map(Vec::as_slice).unwrap_or_default();
        let passed = steps.iter().filter(|s| s["status"] == "passed").count();
        let why = if plan["failure"].is_object() {
            format!(
                "{}: {}",
                text(&plain(&plan["failure"]["kind"])),
                shown(&short(&plain(&plan["failure"]["message"])))
            )
        } else {
            shown(&short(&plain(&plan["error"])))
        };
        out.push_str(&format!(
            "<tr class=\"{cls}\"><td class=\"num\">{n}</td><td><a href=\"#plan-{n}\">{name}</a></td><td>{badge}</td>\
             <td class=\"num\">{passed}/{steps}</td><td class=\"num\">{took}</td><td>{why}</td></tr>\n",
            cls = class(&status),
            n = i + 1,
            name = text(&name(plan)),
            badge = badge(&status),
            steps = steps.len(),
            took = duration(number(&plan["duration_ms"])),
        ));
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

/// The first line of a message, for a table cell.
fn short(message: &str) -> String {
    let first = message.lines().next().unwrap_or("");
    if first.chars().count() > 160 || first.len() < message.trim_end().len() {
        format!("{}…", first.chars().take(160).collect::<String>())
    } else {
        first.to_string()
    }
}
