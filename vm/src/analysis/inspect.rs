//! `tissvm inspect`: the plan's manifest for approval — task, steps, every
//! command, every path and how it is used, model and human interactions,
//! budgets, environment, the risk level with its reasons, and the hash.

use serde_json::{Value as Json, json};
use tisslang::module::{InteractionKind, NONE, PathAccess, RiskLevel};

use crate::machine::program::Program;
use crate::machine::value::format_duration;
use crate::report::style::{Style, Tone};

/// High risk reads as a failure would, medium as a warning.
fn risk_tone(level: RiskLevel) -> Tone {
    match level {
        RiskLevel::Low => Tone::Good,
        RiskLevel::Medium => Tone::Warn,
        RiskLevel::High => Tone::Bad,
    }
}

fn access_name(access: PathAccess) -> &'static str {
    match access {
        PathAccess::Read => "read",
        PathAccess::Write => "write",
        PathAccess::Append => "append",
        PathAccess::Create => "create",
        PathAccess::Delete => "delete",
        PathAccess::DeleteRecursive => "delete_recursive",
        PathAccess::Inspect => "inspect",
    }
}

fn interaction_name(kind: InteractionKind) -> &'static str {
    match kind {
        InteractionKind::Pause => "pause",
        InteractionKind::Review => "review",
        InteractionKind::Choose => "choose",
    }
}

fn opt_string(program: &Program, index: u32) -> Json {
    if index == NONE { Json::Null } else { json!(program.string(index)) }
}

pub fn inspect_json(program: &Program) -> Json {
    let m = &program.module;
    let manifest = &m.manifest;
    let steps: Vec<Json> = program
        .top_level_steps
        .iter()
        .map(|&s| json!({"name": program.string(m.steps[s as usize].name), "line": m.steps[s as usize].line}))
        .collect();
    json!({
        "task": program.string(m.task),
        "hash": program.hash(),
        "language": format!("{}.{}.{}", m.language[0], m.language[1], m.language[2]),
        "steps": steps,
        "commands": manifest.commands.iter().map(|c| json!({
            "command": program.string(c.text),
            "dynamic": c.dynamic,
            "dir": opt_string(program, c.dir),
            "timeout_ms": c.timeout_ms,
            "line": c.line,
            "step": if c.step == NONE { Json::Null } else { json!(program.string(m.steps[c.step as usize].name)) },
        })).collect::<Vec<_>>(),
        "paths": manifest.paths.iter().map(|p| json!({
            "path": program.string(p.path), "access": access_name(p.access), "dynamic": p.dynamic, "line": p.line,
        })).collect::<Vec<_>>(),
        "prompts": manifest.prompts.iter().map(|p| json!({
            "query": program.string(p.query),
            "context": p.context.iter().map(|&c| program.string(c)).collect::<Vec<_>>(),
            "line": p.line,
        })).collect::<Vec<_>>(),
        "interactions": manifest.interactions.iter().map(|i| json!({
            "kind": interaction_name(i.kind),
            "text": opt_string(program, i.text),
            "options": i.options.iter().map(|&o| program.string(o)).collect::<Vec<_>>(),
            "line": i.line,
        })).collect::<Vec<_>>(),
        "budgets": manifest.budgets.iter().map(|b| json!({
            "dimension": tisslang::cost::Dim::ALL.get(usize::from(b.dim)).map_or("?", |d| d.name()),
            "value": b.value,
            "line": b.line,
        })).collect::<Vec<_>>(),
        "env": manifest.env.iter().map(|&(name, line)| json!({"name": program.string(name), "line": line})).collect::<Vec<_>>(),
        "risk": {
            "level": manifest.risk.level.name(),
            "reasons": manifest.risk.reasons.iter().map(|r| json!({
                "level": r.level().name(), "reason": m.risk_text(r), "line": r.line,
            })).collect::<Vec<_>>(),
        },
    })
}

/// The manifest as text; the risk levels in colour when `style` allows.
pub fn inspect_text(program: &Program, style: Style) -> String {
    let m = &program.module;
    let manifest = &m.manifest;
    let mut out = String::new();
    out.push_str(&format!("task: {}\n", program.string(m.task)));
    out.push_str(&format!("hash: {}\n", program.hash()));
    let level = |level: RiskLevel| style.paint(risk_tone(level), level.name());
    out.push_str(&format!("risk: {}\n", level(manifest.risk.level)));
    for r in &manifest.risk.reasons {
        out.push_str(&format!("  - [{}] line {}: {}\n", level(r.level()), r.line, m.risk_text(r)));
    }
    out.push_str("steps:\n");
    for &s in &program.top_level_steps {
        let info = &m.steps[s as usize];
        out.push_str(&format!("  line {:>4}  {}\n", info.line, program.string(info.name)));
    }
    section(
        &mut out,
        "commands",
        manifest.commands.iter().map(|c| {
            let mut text = format!("line {:>4}  {}", c.line, program.string(c.text));
            if c.dynamic {
                text.push_str("  [dynamic]");
            }
            if c.dir != NONE {
                text.push_str(&format!("  [in {}]", program.string(c.dir)));
            }
            if let Some(t) = c.timeout_ms {
                text.push_str(&format!("  [timeout {}]", format_duration(t)));
            }
            text
        }),
    );
    section(
        &mut out,
        "paths",
        manifest.paths.iter().map(|p| {
            let dynamic = if p.dynamic { "  [dynamic]" } else { "" };
            format!("line {:>4}  {:<16} {}{dynamic}", p.line, access_name(p.access), program.string(p.path))
        }),
    );
    section(
        &mut out,
        "prompts",
        manifest.prompts.iter().map(|p| {
            let context: Vec<&str> = p.context.iter().map(|&c| program.string(c)).collect();
            let with = if context.is_empty() {
                "default context".to_string()
            } else {
                format!("with {}", context.join(", "))
            };
            format!("line {:>4}  {}  [{with}]", p.line, program.string(p.query))
        }),
    );
    section(
        &mut out,
        "human interactions",
        manifest.interactions.iter().map(|i| {
            let text = if i.text == NONE { String::new() } else { program.string(i.text).to_string() };
            let options: Vec<&str> = i.options.iter().map(|&o| program.string(o)).collect();
            let options =
                if options.is_empty() { String::new() } else { format!("  [{}]", options.join(" | ")) };
            format!("line {:>4}  {:<6} {text}{options}", i.line, interaction_name(i.kind))
        }),
    );
    section(
        &mut out,
        "budgets",
        manifest.budgets.iter().map(|b| {
            let dim = tisslang::cost::Dim::ALL.get(usize::from(b.dim)).copied();
            let value = match (b.value, dim) {
                (Some(v), Some(tisslang::cost::Dim::ExecutionTime)) => format_duration(v),
                (Some(v), _) => v.to_string(),
                (None, _) => "(computed)".to_string(),
            };
            format!("line {:>4}  {} = {value}", b.line, dim.map_or("?", |d| d.name()))
        }),
    );
    section(
        &mut out,
        "environment",
        manifest.env.iter().map(|&(n, line)| format!("line {line:>4}  {}", program.string(n))),
    );
    out
}

fn section(out: &mut String, title: &str, lines: impl Iterator<Item = String>) {
    let lines: Vec<String> = lines.collect();
    out.push_str(&format!("{title}:{}\n", if lines.is_empty() { " none" } else { "" }));
    for line in lines {
        out.push_str(&format!("  {line}\n"));
    }
}
