//! `tissvm inspect`: the plan's manifest for approval — task, steps, every
//! command, every path and how it is used, model and human interactions,
//! each typed prompt with its type, its schema and which of its fields
//! reach which RUN, budgets, environment, where data from a model or a file
//! may reach a command (`analysis/taint.rs`), the risk level with its
//! reasons, and the hash. The risk is the compiler's (kept in the module),
//! raised to high for every taint flow into a RUN and every RUN after a
//! WRITE of model output.

use std::cell::Cell;
use std::io::Write;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer as _};
use serde_json::{Value as Json, json};
use tisslang::module::{InteractionKind, NONE, PathAccess, RiskKind, RiskLevel};

use tisslang::isa::Instr;

use crate::analysis::taint::{self, Flow, ModelCodeRun, SourceKind, TaintReport};
use crate::policy::{Policy, Taint, Verdict};

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

/// One reason for the risk level: its level, its words and its line.
struct Reason {
    level: RiskLevel,
    text: String,
    line: u32,
}

/// The compiler's risk reasons, then those taint adds; and the level.
fn risk(program: &Program, taint: &TaintReport) -> (RiskLevel, Vec<Reason>) {
    let m = &program.module;
    let mut reasons: Vec<Reason> = m
        .manifest
        .risk
        .reasons
        .iter()
        .map(|r| Reason { level: r.level(), text: m.risk_text(r), line: r.line })
        .collect();
    // The compiler already names a model's answer used in a command.
    let said: std::collections::HashSet<u32> = m
        .manifest
        .risk
        .reasons
        .iter()
        .filter(|r| r.kind == RiskKind::ModelOutputInCommand)
        .map(|r| r.line)
        .collect();
    for flow in &taint.flows {
        if !(flow.source.kind == SourceKind::Prompt && said.contains(&flow.run_line)) {
            let what = match taint.field(&flow.source) {
                Some(field) => format!("`{}`", field.path),
                None => "data".to_string(),
            };
            let text = match flow.source.kind {
                SourceKind::More => {
                    "the command holds data from more sources than are listed (tainted)".into()
                }
                kind => format!(
                    "the command holds {what} from the {} at line {} (tainted)",
                    kind.statement(),
                    flow.source.line
                ),
            };
            reasons.push(Reason { level: RiskLevel::High, text, line: flow.run_line });
        }
    }
    for run in &taint.model_code_runs {
        let what = if run.by_run { "a RUN that held model output" } else { "the WRITE of model output" };
        reasons.push(Reason {
            level: RiskLevel::High,
            text: format!(
                "runs after {what} at line {}: the plan may run code a model wrote",
                run.write_line
            ),
            line: run.run_line,
        });
    }
    if taint.incomplete {
        reasons.push(Reason {
            level: RiskLevel::High,
            text: "too many CALLs to follow them all: taint through some of them is not shown".into(),
            line: 0,
        });
    }
    let level = reasons.iter().map(|r| r.level).fold(m.manifest.risk.level, max_level);
    (level, reasons)
}

fn max_level(a: RiskLevel, b: RiskLevel) -> RiskLevel {
    let rank = |l: RiskLevel| match l {
        RiskLevel::Low => 0,
        RiskLevel::Medium => 1,
        RiskLevel::High => 2,
    };
    if rank(b) > rank(a) { b } else { a }
}

/// The names the plan's ENVs set, anywhere in it: what `policy` is told
/// the environment of each command may hold.
fn env_names(program: &Program) -> Vec<&str> {
    let set = program.module.code.iter().filter_map(|instr| match instr {
        Instr::Env { name } => Some(program.string(*name)),
        _ => None,
    });
    set.collect()
}

/// What `policy` decides for the command at `line` (`text` as written):
/// `("run" | "deny" | "approve", why)`, or `("at_run_time", why)` for a
/// command built from values, whose text is known only when it runs.
fn verdict(
    policy: &Policy,
    text: &str,
    dynamic: bool,
    line: u32,
    taint: &TaintReport,
    env: &[&str],
) -> (&'static str, String) {
    if dynamic {
        return ("at_run_time", "the command is built from values: decided when it runs".into());
    }
    // A constant command is tainted only through its environment (ENV) or
    // IN directory, or by what the plan wrote before it.
    let tainted = if taint.flows.iter().any(|f| f.run_line == line) {
        Some(Taint::Holds)
    } else {
        taint.written_before(line).map(Taint::Written)
    };
    match policy.decide_in(text, tainted, env) {
        Verdict::Run => ("run", String::new()),
        Verdict::Deny(why) => ("deny", why),
        Verdict::Approve(why) => ("approve", why),
    }
}

/// A type's description is cut past this many bytes (a module may be made
/// by hand, and a shape used twice at every level doubles it each time).
const DESCRIBED: usize = 2000;

/// In the text listing a schema is cut past this many characters (the
/// JSON shows it whole).
const SCHEMA_SHOWN: usize = 400;

/// A typed prompt (`INTO t AS T`, book: reference/types.md) as inspect lists it.
struct TypedPrompt<'p> {
    line: u32,
    /// The INTO variable.
    into: &'p str,
    /// The schema's name: the TYPE's, or `answer` for a type written in place.
    name: &'p str,
    /// The type as written.
    ty: String,
    /// The schema the VM sends.
    schema: &'p Json,
    reaches: Vec<Reach>,
}

/// A part of a typed answer that reaches a RUN.
struct Reach {
    /// As the plan reads it: `t.severity`.
    path: String,
    ty: String,
    tainted: bool,
    run_line: u32,
}

/// Every typed prompt in the module's order, with the parts of its answer
/// the taint walk saw reach a RUN (tainted or clean), by RUN line.
fn typed_prompts<'p>(program: &'p Program, taint: &TaintReport) -> Vec<TypedPrompt<'p>> {
    let m = &program.module;
    let mut lines = vec![0; m.prompts.len()];
    for (pc, instr) in m.code.iter().enumerate() {
        if let Instr::Prompt { prompt } = *instr
            && let Some(line) = lines.get_mut(prompt as usize)
        {
            *line = m.position(pc as u32).map_or(0, |(line, _)| line);
        }
    }
    let describe = |shape: u32| match program.shapes.get(shape) {
        Some(_) => program.shapes.describe_within(shape, DESCRIBED),
        None => "?".to_string(),
    };
    let mut out = Vec::new();
    for (i, p) in m.prompts.iter().enumerate() {
        let (Some(answer), Some(Some(format))) = (p.answer, program.answer_formats.get(i)) else { continue };
        let reached = |flow: &&Flow| taint.field(&flow.source).is_some_and(|f| f.prompt as usize == i);
        let mut reaches: Vec<(u32, u32, Reach)> = taint
            .flows
            .iter()
            .chain(&taint.clean_flows)
            .filter(reached)
            .filter_map(|flow| {
                let field = taint.field(&flow.source)?;
                let reach = Reach {
                    path: field.path.clone(),
                    ty: describe(field.shape),
                    tainted: field.tainted,
                    run_line: flow.run_line,
                };
                Some((flow.run_line, flow.run_column, reach))
            })
            .collect();
        reaches.sort_by(|a, b| (a.0, a.1, &a.2.path).cmp(&(b.0, b.1, &b.2.path)));
        reaches.dedup_by(|a, b| (a.0, a.1, &a.2.path) == (b.0, b.1, &b.2.path));
        out.push(TypedPrompt {
            line: lines[i],
            into: m.slots.get(p.into as usize).map_or("", |s| program.string(s.name)),
            name: &format.name,
            ty: describe(answer.shape),
            schema: &format.schema,
            reaches: reaches.into_iter().map(|(_, _, r)| r).collect(),
        });
    }
    out
}

/// The manifest as JSON, written to `out` as it is made (each command,
/// path, step, flow and reason is built, written and dropped in turn: held
/// whole, as values and then as text, the document of a 54,000-line plan
/// took 36 MiB where the text output takes 18). `sandbox`, when given, is
/// the last member: the isolation a RUN would get here.
pub fn write_inspect_json(
    program: &Program,
    policy: Option<&Policy>,
    sandbox: Option<Json>,
    out: impl Write,
) -> std::io::Result<()> {
    let m = &program.module;
    let manifest = &m.manifest;
    let taint = taint::analyze(&program.module);
    let env = env_names(program);
    let (level, reasons) = risk(program, &taint);
    let mut serializer = serde_json::Serializer::pretty(out);
    let mut doc = serializer.serialize_map(None)?;
    doc.serialize_entry("task", program.string(m.task))?;
    doc.serialize_entry("hash", &program.hash())?;
    doc.serialize_entry("language", &format!("{}.{}.{}", m.language[0], m.language[1], m.language[2]))?;
    let steps = program.top_level_steps.iter().map(
        |&s| json!({"name": program.string(m.steps[s as usize].name), "line": m.steps[s as usize].line}),
    );
    doc.serialize_entry("steps", &Each::new(steps))?;
    let commands = manifest.commands.iter().map(|c| {
        let mut command = json!({
            "command": program.string(c.text),
            "dynamic": c.dynamic,
            "dir": opt_string(program, c.dir),
            "timeout_ms": c.timeout_ms,
            "line": c.line,
            "step": if c.step == NONE { Json::Null } else { json!(program.string(m.steps[c.step as usize].name)) },
        });
        if let Some(policy) = policy {
            let (decision, why) = verdict(policy, program.string(c.text), c.dynamic, c.line, &taint, &env);
            command["policy"] = json!({"decision": decision, "reason": why});
        }
        command
    });
    doc.serialize_entry("commands", &Each::new(commands))?;
    let paths = manifest.paths.iter().map(|p| {
        json!({
            "path": program.string(p.path), "access": access_name(p.access), "dynamic": p.dynamic, "line": p.line,
        })
    });
    doc.serialize_entry("paths", &Each::new(paths))?;
    let prompts = manifest.prompts.iter().map(|p| {
        json!({
            "query": program.string(p.query),
            "context": p.context.iter().map(|&c| program.string(c)).collect::<Vec<_>>(),
            "line": p.line,
        })
    });
    doc.serialize_entry("prompts", &Each::new(prompts))?;
    let typed = typed_prompts(program, &taint);
    let typed = typed.iter().map(|t| {
        json!({
            "line": t.line,
            "into": t.into,
            "name": t.name,
            "type": t.ty,
            "schema": t.schema,
            "reaches": t.reaches.iter().map(|r| json!({
                "field": r.path, "type": r.ty, "tainted": r.tainted, "run_line": r.run_line,
            })).collect::<Vec<_>>(),
        })
    });
    doc.serialize_entry("typed_prompts", &Each::new(typed))?;
    let interactions = manifest.interactions.iter().map(|i| {
        json!({
            "kind": interaction_name(i.kind),
            "text": opt_string(program, i.text),
            "options": i.options.iter().map(|&o| program.string(o)).collect::<Vec<_>>(),
            "line": i.line,
        })
    });
    doc.serialize_entry("interactions", &Each::new(interactions))?;
    let budgets = manifest.budgets.iter().map(|b| {
        json!({
            "dimension": tisslang::cost::Dim::ALL.get(usize::from(b.dim)).map_or("?", |d| d.name()),
            "value": b.value,
            "line": b.line,
        })
    });
    doc.serialize_entry("budgets", &Each::new(budgets))?;
    let env_set =
        manifest.env.iter().map(|&(name, line)| json!({"name": program.string(name), "line": line}));
    doc.serialize_entry("env", &Each::new(env_set))?;
    let flows = taint.flows.iter().map(|f| {
        let mut flow = json!({
            "source": f.source.kind.statement(), "source_line": f.source.line, "run_line": f.run_line,
        });
        // A typed answer's flow names the field it carries.
        if let Some(field) = taint.field(&f.source) {
            flow["field"] = json!(field.path);
        }
        flow
    });
    let put = |r: &ModelCodeRun| json!({"write_line": r.write_line, "run_line": r.run_line, "by": put_by(r)});
    let taint_section = TaintJson {
        flows: Each::new(flows),
        model_code_runs: Each::new(taint.model_code_runs.iter().map(put)),
        written_runs: Each::new(taint.written_runs.iter().map(put)),
        complete: !taint.incomplete,
    };
    doc.serialize_entry("taint", &taint_section)?;
    let reasons = reasons.iter().map(|r| json!({"level": r.level.name(), "reason": r.text, "line": r.line}));
    doc.serialize_entry("risk", &RiskJson { level: level.name(), reasons: Each::new(reasons) })?;
    if let Some(sandbox) = sandbox {
        doc.serialize_entry("sandbox", &sandbox)?;
    }
    SerializeMap::end(doc)?;
    let mut out = serializer.into_inner();
    out.write_all(b"\n")
}

/// The `taint` member: its lists written as they are made (a plan whose
/// every step writes a model's answer and runs it has thousands of flows).
#[derive(Serialize)]
#[serde(bound(serialize = "Each<F>: Serialize, Each<M>: Serialize, Each<W>: Serialize"))]
struct TaintJson<F, M, W> {
    flows: Each<F>,
    model_code_runs: Each<M>,
    written_runs: Each<W>,
    complete: bool,
}

/// The `risk` member: the level, and its reasons as they are written.
#[derive(Serialize)]
#[serde(bound(serialize = "Each<R>: Serialize"))]
struct RiskJson<R> {
    level: &'static str,
    reasons: Each<R>,
}

/// A JSON array of the values `items` gives, each written as it comes.
struct Each<I>(Cell<Option<I>>);

impl<I> Each<I> {
    fn new(items: I) -> Each<I> {
        Each(Cell::new(Some(items)))
    }
}

impl<I: Iterator<Item = Json>> Serialize for Each<I> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.take().into_iter().flatten())
    }
}

/// The manifest as text, written to `out` as it is made (as [`write_inspect_json`]);
/// the risk levels in colour when `style` allows.
pub fn write_inspect_text(
    program: &Program,
    policy: Option<&Policy>,
    style: Style,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let m = &program.module;
    let manifest = &m.manifest;
    writeln!(out, "task: {}", shown(program.string(m.task)))?;
    writeln!(out, "hash: {}", program.hash())?;
    let taint = taint::analyze(&program.module);
    let env = env_names(program);
    let (risk_level, reasons) = risk(program, &taint);
    let level = |level: RiskLevel| style.paint(risk_tone(level), level.name());
    writeln!(out, "risk: {}", level(risk_level))?;
    for r in &reasons {
        writeln!(out, "  - [{}] line {}: {}", level(r.level), r.line, shown(&r.text))?;
    }
    out.write_all(b"steps:\n")?;
    for &s in &program.top_level_steps {
        let info = &m.steps[s as usize];
        writeln!(out, "  line {:>4}  {}", info.line, shown(program.string(info.name)))?;
    }
    section(
        out,
        "commands",
        manifest.commands.iter().map(|c| {
            let mut text = format!("line {:>4}  {}", c.line, shown(program.string(c.text)));
            if c.dynamic {
                text.push_str("  [dynamic]");
            }
            if c.dir != NONE {
                text.push_str(&format!("  [in {}]", shown(program.string(c.dir))));
            }
            if let Some(t) = c.timeout_ms {
                text.push_str(&format!("  [timeout {}]", format_duration(t)));
            }
            if let Some(policy) = policy {
                let (decision, why) =
                    verdict(policy, program.string(c.text), c.dynamic, c.line, &taint, &env);
                let shown = match decision {
                    "deny" => format!("{}: {}", style.paint(Tone::Bad, "denied"), shown(&why)),
                    "approve" => format!("{}: {}", style.paint(Tone::Warn, "needs approval"), shown(&why)),
                    "run" => "allowed".to_string(),
                    _ => "policy decides at run time".to_string(),
                };
                text.push_str(&format!("  [{shown}]"));
            }
            text
        }),
    )?;
    section(
        out,
        "paths",
        manifest.paths.iter().map(|p| {
            let dynamic = if p.dynamic { "  [dynamic]" } else { "" };
            format!(
                "line {:>4}  {:<16} {}{dynamic}",
                p.line,
                access_name(p.access),
                shown(program.string(p.path))
            )
        }),
    )?;
    section(
        out,
        "prompts",
        manifest.prompts.iter().map(|p| {
            let context: Vec<String> = p.context.iter().map(|&c| shown(program.string(c))).collect();
            let with = if context.is_empty() {
                "default context".to_string()
            } else {
                format!("with {}", context.join(", "))
            };
            format!("line {:>4}  {}  [{with}]", p.line, shown(program.string(p.query)))
        }),
    )?;
    let typed = typed_prompts(program, &taint);
    section(
        out,
        "typed prompts",
        typed.iter().map(|t| {
            let mut text = format!("line {:>4}  INTO {} AS ", t.line, shown(t.into));
            if t.name != "answer" {
                text.push_str(&format!("{} = ", shown(t.name)));
            }
            text.push_str(&shown(&t.ty));
            let schema = t.schema.to_string();
            let cut = match schema.char_indices().nth(SCHEMA_SHOWN) {
                Some((at, _)) => format!("{}… ({} bytes; JSON shows it whole)", &schema[..at], schema.len()),
                None => schema,
            };
            text.push_str(&format!("\n             schema {}", shown(&cut)));
            if t.reaches.is_empty() {
                text.push_str("\n             reaches no RUN");
            }
            for r in &t.reaches {
                let taint = if r.tainted { style.paint(Tone::Bad, "tainted") } else { "clean".to_string() };
                text.push_str(&format!(
                    "\n             {} ({}, {taint}) → line {} RUN",
                    shown(&r.path),
                    shown(&r.ty),
                    r.run_line
                ));
            }
            text
        }),
    )?;
    section(
        out,
        "human interactions",
        manifest.interactions.iter().map(|i| {
            let text = if i.text == NONE { String::new() } else { shown(program.string(i.text)) };
            let options: Vec<String> = i.options.iter().map(|&o| shown(program.string(o))).collect();
            let options =
                if options.is_empty() { String::new() } else { format!("  [{}]", options.join(" | ")) };
            format!("line {:>4}  {:<6} {text}{options}", i.line, interaction_name(i.kind))
        }),
    )?;
    section(
        out,
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
    )?;
    section(
        out,
        "environment",
        manifest.env.iter().map(|&(n, line)| format!("line {line:>4}  {}", shown(program.string(n)))),
    )?;
    section(
        out,
        "taint flows",
        taint
            .flows
            .iter()
            .map(|f| {
                let field = taint.field(&f.source).map_or(String::new(), |a| format!(" {}", shown(&a.path)));
                match f.source.kind {
                    SourceKind::More => {
                        format!("           more sources than are listed → line {} RUN", f.run_line)
                    }
                    kind => format!(
                        "line {:>4}  {}{field} → line {} RUN",
                        f.source.line,
                        kind.statement(),
                        f.run_line
                    ),
                }
            })
            .chain(taint.model_code_runs.iter().map(|r| {
                let put = if r.by_run { "RUN holding model output" } else { "WRITE of model output" };
                format!("line {:>4}  {put} → line {} RUN", r.write_line, r.run_line)
            }))
            .chain(
                taint.written_runs.iter().filter(|r| taint.model_code_runs.binary_search(r).is_err()).map(
                    |r| {
                        let put = if r.by_run { "RUN holding" } else { "WRITE of" };
                        format!(
                            "line {:>4}  {put} model or file data → line {} RUN",
                            r.write_line, r.run_line
                        )
                    },
                ),
            ),
    )?;
    Ok(())
}

/// Text from the plan (strings, names, commands) as one line of the
/// listing, its control characters written out: a plan is reviewed with
/// `inspect` before it runs, and must not be able to drive the reviewer's
/// terminal nor start a line of its own (book: reference/policy.md).
fn shown(text: &str) -> String {
    crate::report::style::escape_controls(text).replace('\n', "\\n")
}

fn section(out: &mut impl Write, title: &str, lines: impl Iterator<Item = String>) -> std::io::Result<()> {
    let mut lines = lines.peekable();
    writeln!(out, "{title}:{}", if lines.peek().is_none() { " none" } else { "" })?;
    for line in lines {
        writeln!(out, "  {line}")?;
    }
    Ok(())
}

/// What put a RUN's data in the workspace, as the JSON report names it.
fn put_by(run: &ModelCodeRun) -> &'static str {
    if run.by_run { "run" } else { "write" }
}
