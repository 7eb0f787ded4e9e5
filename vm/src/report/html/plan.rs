//! One plan's section: what ran and how it ended, its step timeline, the
//! failure, costs against budgets, and every effect with its output.

use serde_json::Value as Json;
use tisslang::cost::Dim;

use super::{badge, class, duration, number, plain, shown, text};

/// The page title for one plan's report.
pub fn title(report: &Json) -> String {
    let status = plain(&report["status"]);
    format!("{} — {} — TissLang report", text(&name(report)), text(&status.replace('_', " ")))
}

/// What a report is called: the plan's file where the report names it (a
/// report of many plans, an invalid plan), else its task.
pub fn name(report: &Json) -> String {
    ["plan", "path", "file", "task"]
        .iter()
        .map(|key| plain(&report[*key]))
        .find(|name| !name.is_empty())
        .unwrap_or_else(|| "(unnamed plan)".into())
}

/// The section of one plan; `index` numbers it among many (its anchor is
/// `plan-INDEX`), `None` when it is the page's only plan.
pub fn section(report: &Json, index: Option<usize>) -> String {
    let status = plain(&report["status"]);
    let (open, heading) = match index {
        Some(i) => (format!("<section class=\"plan\" id=\"plan-{i}\">\n<h2>"), "h2"),
        None => ("<section class=\"plan\">\n<h1>".to_string(), "h1"),
    };
    let mut out = open;
    out.push_str(&format!("{} {}</{heading}>\n", badge(&status), text(&name(report))));
    out.push_str(&meta(report));
    out.push_str(&invalid(report));
    out.push_str(&failure(&report["failure"]));
    out.push_str(&steps(report));
    out.push_str(&costs(report));
    out.push_str(&effects(report));
    out.push_str("</section>\n");
    out
}

/// The line under the heading: task, exit status, duration, snapshot,
/// sandbox, and the journal a run of many kept.
fn meta(report: &Json) -> String {
    let mut parts = Vec::new();
    let task = plain(&report["task"]);
    if !task.is_empty() && task != name(report) {
        parts.push(format!("task <strong>{}</strong>", text(&task)));
    }
    parts.push(format!("exit status {}", text(&plain(&report["exit_code"]))));
    parts.push(duration(number(&report["duration_ms"])));
    if let Some(profile) = report["sandbox"]["profile"].as_str() {
        parts.push(format!("sandbox {}", text(profile)));
    }
    let mut out = format!("<p class=\"meta\">{}</p>\n", parts.join(" · "));
    if let Some(snapshot) = report["snapshot"].as_str() {
        out.push_str(&format!(
            "<p class=\"meta\">Suspended; its snapshot is <code>{0}</code>: continue with \
             <code>tissvm resume {0}</code>.</p>\n",
            text(snapshot)
        ));
    }
    if let Some(journal) = report["journal"].as_str() {
        let href = journal.replace('%', "%25").replace('"', "%22").replace(' ', "%20");
        out.push_str(&format!(
            "<p class=\"meta\">Its journal: <a href=\"file://{}\"><code>{1}</code></a>; run it again without \
             running anything with <code>tissvm replay {1}</code>.</p>\n",
            text(&href),
            text(journal)
        ));
    }
    out
}

/// A plan that could not run (`"status": "invalid"`): why, and the
/// compiler's diagnostics.
fn invalid(report: &Json) -> String {
    let Some(error) = report["error"].as_str() else { return String::new() };
    let mut out = format!("<section class=\"failure\">\n<h3>Not run</h3>\n<pre>{}</pre>\n", shown(error));
    if let Some(diagnostics) = report["diagnostics"].as_array().filter(|d| !d.is_empty()) {
        out.push_str("<ul class=\"diagnostics\">\n");
        for d in diagnostics {
            out.push_str(&format!(
                "<li><code>{}:{}:{}</code> {} {}: {}</li>\n",
                text(&plain(&d["file"])),
                text(&plain(&d["line"])),
                text(&plain(&d["column"])),
                text(&plain(&d["severity"])),
                text(&plain(&d["code"])),
                shown(&plain(&d["message"]))
            ));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</section>\n");
    out
}

/// The failure: kind, message, place, the condition with the values it
/// saw, a budget's numbers, the failing command and its output.
fn failure(failure: &Json) -> String {
    if !failure.is_object() {
        return String::new();
    }
    let mut out = format!(
        "<section class=\"failure\">\n<h3>Failure: {}</h3>\n<dl>\n<dt>Message</dt><dd>{}</dd>\n",
        text(&plain(&failure["kind"])),
        shown(&plain(&failure["message"]))
    );
    let mut item = |label: &str, value: String| {
        if !value.is_empty() {
            out.push_str(&format!("<dt>{label}</dt><dd>{value}</dd>\n"));
        }
    };
    item("Step", text(&plain(&failure["step"])));
    if number(&failure["line"]) > 0 {
        item("Where", format!("line {}, column {}", number(&failure["line"]), number(&failure["column"])));
    }
    if let Some(condition) = failure["condition"].as_str() {
        item("Condition", format!("<code>{}</code>", shown(condition)));
    }
    if let Some(dimension) = failure["dimension"].as_str() {
        let numbers = ["cap", "spent", "needed"]
            .iter()
            .filter(|k| !failure[**k].is_null())
            .map(|k| format!("{k} {}", text(&plain(&failure[*k]))))
            .collect::<Vec<_>>();
        item("Budget", format!("{}: {}", text(dimension), numbers.join(", ")));
        item("Reason", shown(&plain(&failure["reason"])));
    }
    out.push_str("</dl>\n");
    if let Some(actual) = failure["actual"].as_object().filter(|a| !a.is_empty()) {
        out.push_str(
            "<table class=\"actual\">\n<thead><tr><th>Value</th><th>Actual</th></tr></thead>\n<tbody>\n",
        );
        for (name, value) in actual {
            let seen = match value {
                Json::String(s) => format!("<pre>{}</pre>", shown(s)),
                Json::Null => "<span class=\"omitted\">not read</span>".into(),
                other => format!("<code>{}</code>", text(&other.to_string())),
            };
            out.push_str(&format!("<tr><td><code>{}</code></td><td>{seen}</td></tr>\n", text(name)));
        }
        out.push_str("</tbody>\n</table>\n");
    }
    let command = &failure["command"];
    if command.is_object() {
        let ended = if command["timed_out"].as_bool() == Some(true) {
            "timed out".to_string()
        } else {
            format!("exit status {}", text(&plain(&command["exit_code"])))
        };
        out.push_str(&format!(
            "<h4>Command</h4>\n<p><code>{}</code> — {ended}, {}</p>\n",
            shown(&plain(&command["command"])),
            duration(number(&command["duration_ms"]))
        ));
        out.push_str(&output(command, true));
    }
    out.push_str("</section>\n");
    out
}

/// A command's stdout and stderr, each collapsed (`open`: shown).
fn output(holder: &Json, open: bool) -> String {
    let open = if open { " open" } else { "" };
    let mut out = String::new();
    for stream in ["stdout", "stderr"] {
        match holder[stream].as_str() {
            Some(data) if !data.is_empty() => out.push_str(&format!(
                "<details class=\"{stream}\"{open}><summary>{stream} ({})</summary><pre>{}</pre></details>\n",
                lines(data),
                shown(data)
            )),
            Some(_) => out.push_str(&format!("<p class=\"meta\">{stream}: empty</p>\n")),
            None => {}
        }
    }
    out
}

/// `1 line`, `12 lines`.
fn lines(data: &str) -> String {
    match data.lines().count() {
        1 => "1 line".into(),
        n => format!("{n} lines"),
    }
}

/// The steps as a timeline: each top-level step in order with its result,
/// duration, a bar placing it in the run, and its LOG messages.
fn steps(report: &Json) -> String {
    let steps = report["steps"].as_array().map(Vec::as_slice).unwrap_or_default();
    if steps.is_empty() {
        return String::new();
    }
    let total: u64 = steps.iter().map(|s| number(&s["duration_ms"])).sum::<u64>().max(1);
    let mut out = String::from(
        "<h3>Steps</h3>\n<table class=\"steps\">\n<thead><tr><th class=\"num\">#</th><th>Step</th>\
         <th class=\"num\">Line</th><th>Result</th><th class=\"num\">Duration</th><th>Timeline</th></tr></thead>\n<tbody>\n",
    );
    let mut start = 0u64;
    for (i, step) in steps.iter().enumerate() {
        let status = plain(&step["status"]);
        let took = number(&step["duration_ms"]);
        let left = start as f64 * 100.0 / total as f64;
        let width = took as f64 * 100.0 / total as f64;
        start += took;
        let logs = step["logs"].as_array().map(Vec::as_slice).unwrap_or_default();
        let logs = if logs.is_empty() {
            String::new()
        } else {
            let items: String = logs.iter().map(|l| format!("<li>{}</li>", shown(&plain(l)))).collect();
            let plural = if logs.len() == 1 { "" } else { "s" };
            format!(
                "<details class=\"logs\"><summary>{} log message{plural}</summary><ul>{items}</ul></details>",
                logs.len()
            )
        };
        out.push_str(&format!(
            "<tr class=\"step {cls}\"><td class=\"num\">{n}</td><td><span class=\"name\">{name}</span>{logs}</td><td class=\"num\">{line}</td>\
             <td>{badge}</td><td class=\"num\">{took}</td><td><div class=\"bar {cls}\" title=\"{took}\">\
             <span style=\"left:{left:.2}%;width:{width:.2}%\"></span></div></td></tr>\n",
            cls = class(&status),
            n = i + 1,
            name = text(&plain(&step["name"])),
            line = number(&step["line"]),
            badge = badge(&status),
            took = duration(took),
        ));
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

/// What the run spent in each dimension against its cap.
fn costs(report: &Json) -> String {
    if !report["cost"].is_object() {
        return String::new();
    }
    let mut out = String::from(
        "<h3>Costs</h3>\n<table class=\"costs\">\n<thead><tr><th>Dimension</th><th class=\"num\">Spent</th>\
         <th class=\"num\">Budget</th><th>Used</th></tr></thead>\n<tbody>\n",
    );
    for dim in Dim::ALL {
        let key = dim.json_key();
        let spent = number(&report["cost"][key]);
        let (cap, used) = match report["budgets"][key].as_u64() {
            Some(cap) => {
                let share = if cap == 0 { 100.0 } else { (spent as f64 * 100.0 / cap as f64).min(100.0) };
                let over = if spent > cap { " over" } else { "" };
                (
                    cap.to_string(),
                    format!(
                        "<div class=\"bar{over}\" title=\"{share:.0}%\"><span style=\"left:0;width:{share:.2}%\"></span></div>"
                    ),
                )
            }
            None => ("no cap".to_string(), String::new()),
        };
        out.push_str(&format!(
            "<tr><td>{}{}</td><td class=\"num\">{spent}</td><td class=\"num\">{cap}</td><td>{used}</td></tr>\n",
            dim.name(),
            if dim == Dim::ExecutionTime { " (ms)" } else { "" }
        ));
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

/// Every effect in order, each with its output collapsed.
fn effects(report: &Json) -> String {
    let Some(effects) = report["effects"].as_array() else { return String::new() };
    let omitted = number(&report["effects_omitted"]);
    let mut out = format!("<h3>Effects ({})</h3>\n", effects.len() as u64 + omitted);
    if effects.is_empty() {
        out.push_str("<p class=\"meta\">None in this session of the run.</p>\n");
        return out;
    }
    out.push_str("<ol class=\"effects\">\n");
    for (i, effect) in effects.iter().enumerate() {
        if omitted > 0 && i == super::super::effects::KEEP {
            out.push_str(&format!(
                "<li class=\"omitted\">… {omitted} effects not shown here (the --log-file has every one) …</li>\n"
            ));
        }
        let place = match effect["step"].as_str() {
            Some(step) => format!("step {}, line {}", text(step), number(&effect["line"])),
            None => format!("line {}", number(&effect["line"])),
        };
        let line = format!(
            "<span class=\"op\">{}</span> <code>{}</code> — {} · {} · {place}",
            text(&plain(&effect["event"])),
            shown(&plain(&effect["op"])),
            text(&plain(&effect["outcome"])),
            duration(number(&effect["duration_ms"]))
        );
        let extra: Vec<String> = effect
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, _)| {
                !["event", "step", "line", "op", "outcome", "duration_ms", "stdout", "stderr"]
                    .contains(&k.as_str())
            })
            .filter(|(_, v)| !plain(v).is_empty())
            .map(|(k, v)| format!("{} {}", text(k), shown(&plain(v))))
            .collect();
        let mut body = output(effect, false);
        if !extra.is_empty() {
            body.push_str(&format!("<p class=\"meta\">{}</p>\n", extra.join(" · ")));
        }
        if body.is_empty() {
            out.push_str(&format!("<li>{line}</li>\n"));
        } else {
            out.push_str(&format!("<li><details><summary>{line}</summary>\n{body}</details></li>\n"));
        }
    }
    out.push_str("</ol>\n");
    out
}
