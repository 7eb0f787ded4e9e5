//! Static cost bounds computed from the bytecode (SPEC §4; `tissvm estimate`, §9).
//!
//! The plan's code is a DAG: every jump goes forward, CALLs are acyclic,
//! and a TRY's handler is a static range. [`estimate`] walks each unit of
//! code (the main code, each DEFINE_TASK body: callees first) once, in pc
//! order, carrying the `[min, max]` bound of the paths that reach each pc,
//! and merging where paths meet, exactly as the compiler does while it
//! emits the code (`tisslang::cost::model` holds the rules both apply):
//!
//! - every instruction adds its counts; RUN its execution time, PROMPT its
//!   tokens, CALL its callee's whole bound; ESTIMATE adds nothing for the
//!   estimated block (its code was never emitted);
//! - JUMP_IF_*, CHOOSE: a successor per branch, merged by min/max where
//!   the branches meet again;
//! - TRY: the handler starts with [`cost::model::handler_entry`] of the
//!   bound at the TRY and the bound of the completed body (through its
//!   closing JUMP): a failure can come anywhere in between;
//! - FAIL (an ASSERT whose message is built only on failure) is counted as
//!   if the path went on past it, as the compiler counts it;
//! - a STEP's bound is taken from its STEP_ENTER to its STEP_EXIT: values
//!   inside a step are kept relative to its entry, and composed with the
//!   bound at the entry when it exits.
//!
//! With the default [`CostModel`] the result is identical to the bounds the
//! compiler stored in the module (`Module.bound`, `StepInfo.bound`,
//! `TaskInfo.bound`). A cost-model file and run history change the
//! execution time of RUNs without a TIMEOUT (see [`CostModel`]).
//!
//! Bytecode the compiler would not emit (a backward jump, a jump out of a
//! step, a recursive CALL, ...) is refused with an [`EstimateError`]: it has
//! no static bound this analysis can vouch for.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use regex::Regex;
use serde::Deserialize;
use serde_json::{Map, Value as Json, json};
use tisslang::cost;
use tisslang::cost::Dim;
use tisslang::cost::bound::CostBound;
use tisslang::isa::{Instr, run_flags};
use tisslang::module::{Constant, Module, TemplatePart};

use crate::machine::value::format_duration;
use crate::report::style::{Style, Tone};

// ---- the execution-time model ------------------------------------------------

/// Where a RUN's execution-time estimate comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimeSource {
    /// Its `TIMEOUT`: `[0, timeout]`.
    Timeout,
    /// Earlier runs of the same command (`--history`): `[fastest, slowest]`.
    History { runs: usize },
    /// The first rule of the cost-model file whose pattern matches.
    Rule { index: usize, pattern: String },
    /// The cost-model file's `[default]`.
    ModelDefault,
    /// The built-in default, `[0, 10m]`.
    Default,
}

impl TimeSource {
    /// The JSON name.
    pub fn name(&self) -> &'static str {
        match self {
            TimeSource::Timeout => "timeout",
            TimeSource::History { .. } => "history",
            TimeSource::Rule { .. } => "cost_model",
            TimeSource::ModelDefault => "cost_model_default",
            TimeSource::Default => "default",
        }
    }

    fn describe(&self) -> String {
        match self {
            TimeSource::Timeout => "TIMEOUT".to_string(),
            TimeSource::History { runs: 1 } => "history (1 run)".to_string(),
            TimeSource::History { runs } => format!("history ({runs} runs)"),
            TimeSource::Rule { index, pattern } => format!("cost model rule {} `{pattern}`", index + 1),
            TimeSource::ModelDefault => "cost model default".to_string(),
            TimeSource::Default => "built-in default (no TIMEOUT)".to_string(),
        }
    }
}

/// How long a RUN takes, when it has no `TIMEOUT`.
///
/// In order: the history of the same command (`--history`), the first rule
/// of a cost-model file whose pattern matches the command as written, the
/// file's `[default]`, the built-in default `[0, 10m]`
/// (`tisslang::cost::model::DEFAULT_RUN_MAX_MS`). A RUN with a `TIMEOUT`
/// always takes `[0, TIMEOUT]`.
///
/// The cost-model file is TOML:
///
/// ```toml
/// [default]                      # optional: replaces the built-in [0, 10m]
/// max = "5m"
///
/// [[command]]
/// pattern = "cargo test*"        # a glob on the whole command as written
/// min = "10s"                    # optional, 0s if absent
/// max = "3m"
///
/// [[command]]
/// regex = '^python3 -m (pytest|unittest)'   # or a regular expression
/// max = "1m"
/// ```
///
/// Durations are written as in a plan: an integer and `ms`, `s`, `m` or
/// `h`. In a glob `*` matches any text and `?` one character; a regular
/// expression (Rust `regex` syntax) matches anywhere unless anchored. The
/// command "as written" is the literal text, or for an interpolated command
/// its source text with `${...}` (as `tissvm inspect` shows it).
#[derive(Debug, Clone, Default)]
pub struct CostModel {
    rules: Vec<Rule>,
    default: Option<(u64, u64)>,
    history: History,
}

#[derive(Debug, Clone)]
struct Rule {
    /// The pattern as written in the file.
    pattern: String,
    regex: Regex,
    min: u64,
    max: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelFile {
    default: Option<RangeSpec>,
    #[serde(default)]
    command: Vec<RuleSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RangeSpec {
    min: Option<String>,
    max: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleSpec {
    pattern: Option<String>,
    regex: Option<String>,
    min: Option<String>,
    max: String,
}

impl CostModel {
    /// Parses a cost-model file (TOML, see [`CostModel`]).
    pub fn from_toml(text: &str) -> Result<CostModel, String> {
        let file: ModelFile = toml::from_str(text).map_err(|e| e.to_string().trim_end().to_string())?;
        let mut model = CostModel::default();
        if let Some(d) = &file.default {
            model.default = Some(range(d.min.as_deref(), &d.max, "[default]")?);
        }
        for (i, spec) in file.command.iter().enumerate() {
            let at = format!("[[command]] {}", i + 1);
            let (pattern, regex) = match (&spec.pattern, &spec.regex) {
                (Some(glob), None) => (glob.clone(), glob_regex(glob)),
                (None, Some(re)) => (
                    re.clone(),
                    Regex::new(re)
                        .map_err(|e| format!("{at}: `{re}` is not a valid regular expression: {e}"))?,
                ),
                _ => return Err(format!("{at}: give exactly one of `pattern` (a glob) or `regex`")),
            };
            let (min, max) = range(spec.min.as_deref(), &spec.max, &at)?;
            model.rules.push(Rule { pattern, regex, min, max });
        }
        Ok(model)
    }

    /// Adds the RUNs of an earlier run's `--log-file` to the history.
    pub fn add_history(&mut self, log: &str) -> Result<(), String> {
        self.history.add_log(log)
    }

    /// How many commands the history knows.
    pub fn history_commands(&self) -> usize {
        self.history.by_command.len()
    }

    /// The execution time of a RUN and where it comes from.
    fn run_time(&self, timeout: Option<u64>, written: &str, shape: &Shape, module: &Module) -> RunTime {
        if let Some(t) = timeout {
            let (min, max) = cost::model::default_run_time(Some(t));
            return RunTime { min, max, source: TimeSource::Timeout };
        }
        if let Some(s) = self.history.lookup(shape, module) {
            return RunTime { min: s.min, max: s.max, source: TimeSource::History { runs: s.runs } };
        }
        if let Some((index, rule)) = self.rules.iter().enumerate().find(|(_, r)| r.regex.is_match(written)) {
            return RunTime {
                min: rule.min,
                max: rule.max,
                source: TimeSource::Rule { index, pattern: rule.pattern.clone() },
            };
        }
        if let Some((min, max)) = self.default {
            return RunTime { min, max, source: TimeSource::ModelDefault };
        }
        let (min, max) = cost::model::default_run_time(None);
        RunTime { min, max, source: TimeSource::Default }
    }
}

struct RunTime {
    min: u64,
    max: u64,
    source: TimeSource,
}

fn range(min: Option<&str>, max: &str, at: &str) -> Result<(u64, u64), String> {
    let min = match min {
        Some(text) => parse_duration(text).map_err(|e| format!("{at}: `min`: {e}"))?,
        None => 0,
    };
    let max = parse_duration(max).map_err(|e| format!("{at}: `max`: {e}"))?;
    if min > max {
        return Err(format!("{at}: `min` is larger than `max`"));
    }
    Ok((min, max))
}

/// A duration as written in a plan: `1500ms`, `30s`, `2m`, `1h` (`_` allowed
/// between digits).
pub fn parse_duration(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits_end = t.find(|c: char| !c.is_ascii_digit() && c != '_').unwrap_or(t.len());
    let (digits, unit) = t.split_at(digits_end);
    let number: Option<u64> = if digits.starts_with(|c: char| c.is_ascii_digit()) {
        digits.replace('_', "").parse().ok()
    } else {
        None
    };
    let scale = match unit {
        "ms" => Some(1),
        "s" => Some(1000),
        "m" => Some(60_000),
        "h" => Some(3_600_000),
        _ => None,
    };
    match (number, scale) {
        (Some(n), Some(scale)) => {
            n.checked_mul(scale).ok_or_else(|| format!("`{text}` is too large a duration"))
        }
        _ => Err(format!("`{text}` is not a duration (write e.g. `1500ms`, `30s`, `2m`, `1h`)")),
    }
}

/// A glob (`*` any text, `?` one character) as a regex matching the whole text.
fn glob_regex(glob: &str) -> Regex {
    let mut re = String::from("^(?s:");
    let mut literal = String::new();
    for c in glob.chars() {
        if c == '*' || c == '?' {
            re.push_str(&regex::escape(&literal));
            literal.clear();
            re.push_str(if c == '*' { ".*" } else { "." });
        } else {
            literal.push(c);
        }
    }
    re.push_str(&regex::escape(&literal));
    re.push_str(")$");
    // Only escaped text, `.` and `.*`: always a valid pattern.
    Regex::new(&re).unwrap_or_else(|_| Regex::new("^$").expect("a trivial regex"))
}

/// Durations recorded for each command in earlier run logs.
#[derive(Debug, Clone, Default)]
struct History {
    /// The command as run (the log's `op`) → its samples.
    by_command: BTreeMap<String, Samples>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Samples {
    runs: usize,
    min: u64,
    max: u64,
}

impl Samples {
    fn add(self, other: Samples) -> Samples {
        Samples { runs: self.runs + other.runs, min: self.min.min(other.min), max: self.max.max(other.max) }
    }
}

impl History {
    /// Reads a `--log-file` (JSON lines): every `"event": "run"` whose command
    /// started (`outcome` is not `failed`) gives a sample `duration_ms` for its `op`.
    fn add_log(&mut self, log: &str) -> Result<(), String> {
        for (n, line) in log.lines().enumerate() {
            let at = n + 1;
            if line.trim().is_empty() {
                continue;
            }
            let value: Json =
                serde_json::from_str(line).map_err(|e| format!("line {at}: not a JSON event: {e}"))?;
            let Json::Object(event) = value else {
                return Err(format!("line {at}: not a JSON object"));
            };
            if event.get("event").and_then(Json::as_str) != Some("run") {
                continue;
            }
            if event.get("outcome").and_then(Json::as_str) == Some("failed") {
                continue;
            }
            let op = event
                .get("op")
                .and_then(Json::as_str)
                .ok_or_else(|| format!("line {at}: a `run` event without a string `op`"))?;
            let ms = event
                .get("duration_ms")
                .and_then(Json::as_u64)
                .ok_or_else(|| format!("line {at}: a `run` event without an integer `duration_ms`"))?;
            let sample = Samples { runs: 1, min: ms, max: ms };
            self.by_command.entry(op.to_string()).and_modify(|s| *s = s.add(sample)).or_insert(sample);
        }
        Ok(())
    }

    /// The samples of a RUN: of its exact text, or for an interpolated
    /// command of every logged command its template matches (each `${...}`
    /// standing for any text).
    fn lookup(&self, shape: &Shape, module: &Module) -> Option<Samples> {
        if self.by_command.is_empty() {
            return None;
        }
        match shape {
            Shape::Text(text) => self.by_command.get(text.as_str()).copied(),
            Shape::Template(t) => {
                // The literal pieces between holes (n holes, n + 1 pieces).
                let mut pieces = vec![String::new()];
                for part in &module.templates.get(*t as usize)?.parts {
                    match part {
                        TemplatePart::Text(s) => pieces.last_mut()?.push_str(module.string(*s).unwrap_or("")),
                        TemplatePart::Hole => pieces.push(String::new()),
                    }
                }
                let prefix = pieces[0].as_str();
                self.by_command
                    .range::<str, _>((std::ops::Bound::Included(prefix), std::ops::Bound::Unbounded))
                    .take_while(|(op, _)| op.starts_with(prefix))
                    .filter(|(op, _)| matches_pieces(op, &pieces))
                    .map(|(_, s)| *s)
                    .reduce(Samples::add)
            }
            Shape::Unknown => None,
        }
    }
}

/// Whether `text` is `pieces[0]`, any text, `pieces[1]`, ..., any text,
/// `pieces[n]` (a template whose holes stand for any text). Taking the
/// leftmost occurrence of each middle piece is always right for wildcards.
fn matches_pieces(text: &str, pieces: &[String]) -> bool {
    let [first, middle @ .., last] = pieces else {
        return pieces.first().is_some_and(|p| p == text);
    };
    let Some(mut rest) = text.strip_prefix(first.as_str()) else { return false };
    for piece in middle {
        match rest.find(piece.as_str()) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last.as_str())
}

// ---- the analysis ----------------------------------------------------------------

/// One RUN instruction and its execution-time estimate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunEstimate {
    pub pc: u32,
    pub line: u32,
    /// The innermost step around it (a step table index), if any.
    pub step: Option<u32>,
    /// The command as written (as the manifest records it).
    pub command: String,
    /// The command interpolates values known only at run time.
    pub dynamic: bool,
    pub timeout_ms: Option<u64>,
    pub min_ms: u64,
    pub max_ms: u64,
    pub source: TimeSource,
}

/// The static bounds of a plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// Per step table entry: its bound, or `None` for a step with no code
    /// (one inside an ESTIMATE_COST block).
    pub steps: Vec<Option<CostBound>>,
    /// Per task table entry: the bound of its body.
    pub tasks: Vec<CostBound>,
    /// The whole plan.
    pub total: CostBound,
    /// Every RUN instruction, in pc order.
    pub runs: Vec<RunEstimate>,
    /// The main code's steps in code order, with their depth: the report's
    /// top-level steps are those at depth 0.
    pub main_steps: Vec<(u32, u32)>,
}

/// Bytecode this analysis cannot bound (the compiler never emits it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EstimateError {
    pub message: String,
}

impl std::fmt::Display for EstimateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no static bound: {}", self.message)
    }
}

impl std::error::Error for EstimateError {}

fn shape_error(message: String) -> EstimateError {
    EstimateError { message }
}

/// What a RUN's command (or a PROMPT's query) is, read from the bytecode.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Shape {
    Text(String),
    Template(u32),
    Unknown,
}

/// Computes the bounds of a verified module under `model`.
pub fn estimate(module: &Module, model: &CostModel) -> Result<Estimate, EstimateError> {
    let mut a = Analysis::new(module, model);
    a.check_handlers()?;
    for task in a.task_order()? {
        let (start, end) = a.task_units[task];
        let bound = a.unit(start, end, false)?;
        a.task_bounds[task] = Some(bound);
    }
    let total = a.unit(0, a.main_end, true)?;
    let tasks = a.task_bounds.iter().map(|b| b.unwrap_or(CostBound::ZERO)).collect();
    Ok(Estimate { steps: a.step_bounds, tasks, total, runs: a.runs, main_steps: a.main_steps })
}

/// Paths arriving at a pc: their bound, relative to the step frame `frame`.
#[derive(Clone, Copy)]
struct Inflow {
    frame: u32,
    bound: CostBound,
}

/// An open step while walking a unit.
struct Frame {
    step: u32,
    /// The frame the step was entered in.
    outer: u32,
    /// The bound (relative to `outer`) at the STEP_ENTER.
    base: Option<CostBound>,
}

struct Analysis<'m> {
    m: &'m Module,
    main_end: u32,
    /// Per task: its unit of code, `[entry, end)`.
    task_units: Vec<(u32, u32)>,
    task_bounds: Vec<Option<CostBound>>,
    step_bounds: Vec<Option<CostBound>>,
    /// Tokens per prompt table entry.
    prompt_tokens: Vec<(u64, u64)>,
    runs: Vec<RunEstimate>,
    /// Handlers by the pc their range starts at / ends at (`by_start.at(pc)`).
    by_start: Csr,
    by_end: Csr,
    /// Per handler: the bound and frame at its TRY, once reached.
    handler_entry: Vec<Option<(Option<CostBound>, u32)>>,
    next_frame: u32,
    main_steps: Vec<(u32, u32)>,
}

/// Items grouped by pc (a counting sort).
struct Csr {
    first: Vec<u32>,
    items: Vec<u32>,
}

impl Csr {
    fn new(len: usize, keys: impl Iterator<Item = (u32, u32)> + Clone) -> Csr {
        let mut first = vec![0u32; len + 2];
        for (pc, _) in keys.clone() {
            if let Some(f) = first.get_mut(pc as usize + 1) {
                *f += 1;
            }
        }
        for i in 1..first.len() {
            first[i] += first[i - 1];
        }
        let mut fill = first.clone();
        let mut items = vec![0u32; *first.last().unwrap_or(&0) as usize];
        for (pc, item) in keys {
            if let Some(slot) = fill.get_mut(pc as usize) {
                items[*slot as usize] = item;
                *slot += 1;
            }
        }
        Csr { first, items }
    }

    fn at(&self, pc: u32) -> &[u32] {
        let i = pc as usize;
        match (self.first.get(i), self.first.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.items[a as usize..b as usize],
            _ => &[],
        }
    }
}

impl<'m> Analysis<'m> {
    fn new(m: &'m Module, model: &CostModel) -> Analysis<'m> {
        let len = m.code.len() as u32;
        let mut entries: Vec<u32> = m.tasks.iter().map(|t| t.entry).collect();
        entries.sort_unstable();
        entries.dedup();
        let main_end = entries.first().copied().unwrap_or(len);
        let task_units = m
            .tasks
            .iter()
            .map(|t| {
                let next = entries.iter().copied().find(|&e| e > t.entry).unwrap_or(len);
                (t.entry, next)
            })
            .collect();
        let handlers = m.handlers.iter().enumerate();
        let by_start = Csr::new(m.code.len(), handlers.clone().map(|(i, h)| (h.start, i as u32)));
        let by_end = Csr::new(m.code.len(), handlers.map(|(i, h)| (h.end, i as u32)));
        Analysis {
            m,
            main_end,
            task_units,
            task_bounds: vec![None; m.tasks.len()],
            step_bounds: vec![None; m.steps.len()],
            prompt_tokens: prompt_tokens(m),
            runs: runs(m, model),
            by_start,
            by_end,
            handler_entry: vec![None; m.handlers.len()],
            next_frame: 0,
            main_steps: Vec::new(),
        }
    }

    /// Every TRY as the compiler emits it: its range, closing JUMP (at `end`)
    /// and handler in order (`start <= end < target`), all in one unit.
    fn check_handlers(&self) -> Result<(), EstimateError> {
        let mut bounds: Vec<u32> = self.task_units.iter().map(|u| u.0).collect();
        bounds.push(0);
        bounds.sort_unstable();
        bounds.dedup();
        let unit_of = |pc: u32| bounds.partition_point(|&b| b <= pc);
        for (i, h) in self.m.handlers.iter().enumerate() {
            let (unit, len) = (unit_of(h.start), self.m.code.len() as u32);
            if !(h.start <= h.end && h.end < h.target && h.target < len)
                || unit_of(h.end) != unit
                || unit_of(h.target) != unit
            {
                return Err(shape_error(format!(
                    "handler {i} ({}..{} -> {}) is not a TRY as the compiler emits it",
                    h.start, h.end, h.target
                )));
            }
        }
        Ok(())
    }

    /// Tasks callees first; a recursive CALL is an error.
    fn task_order(&self) -> Result<Vec<usize>, EstimateError> {
        let m = self.m;
        let callees: Vec<Vec<usize>> = self
            .task_units
            .iter()
            .map(|&(start, end)| {
                m.code[start as usize..end as usize]
                    .iter()
                    .filter_map(|i| match i {
                        Instr::Call { task } => Some(*task as usize),
                        _ => None,
                    })
                    .filter(|&t| t < m.tasks.len())
                    .collect()
            })
            .collect();
        let mut state = vec![0u8; m.tasks.len()]; // 0 new, 1 open, 2 done
        let mut order = Vec::with_capacity(m.tasks.len());
        for root in 0..m.tasks.len() {
            if state[root] != 0 {
                continue;
            }
            state[root] = 1;
            let mut stack = vec![(root, 0usize)];
            while let Some(top) = stack.last_mut() {
                let task = top.0;
                if let Some(&callee) = callees[task].get(top.1) {
                    top.1 += 1;
                    match state[callee] {
                        0 => {
                            state[callee] = 1;
                            stack.push((callee, 0));
                        }
                        1 => {
                            let name = m.string(m.tasks[callee].name).unwrap_or("?");
                            return Err(shape_error(format!("the task \"{name}\" calls itself (recursion)")));
                        }
                        _ => {}
                    }
                } else {
                    state[task] = 2;
                    order.push(task);
                    stack.pop();
                }
            }
        }
        Ok(order)
    }

    fn frame(&mut self) -> u32 {
        self.next_frame += 1;
        self.next_frame
    }

    /// The bound of one unit `[start, end)`, entered at `start`: the merge
    /// over every path to a HALT or RETURN.
    fn unit(&mut self, start: u32, end: u32, main: bool) -> Result<CostBound, EstimateError> {
        let m = self.m;
        let mut pending: BTreeMap<u32, Inflow> = BTreeMap::new();
        let mut frames: Vec<Frame> = Vec::new();
        let mut frame = self.frame();
        let mut cur = Some(CostBound::ZERO);
        let mut total: Option<CostBound> = None;
        let mut run_cursor = self.runs.partition_point(|r| r.pc < start);
        for pc in start..end {
            let instr = m.code[pc as usize];
            if let Some(entry) = pending.first_entry()
                && *entry.key() == pc
            {
                let inflow = entry.remove();
                if inflow.frame != frame {
                    return Err(shape_error(format!("pc {pc}: a jump crosses a step boundary")));
                }
                cur = merge(cur, Some(inflow.bound));
            }
            for &h in self.by_start.at(pc) {
                self.handler_entry[h as usize] = Some((cur, frame));
            }
            let mut out = cur.map(|c| {
                let mut o = c;
                cost::model::add_instruction(&mut o, &instr);
                o
            });
            match instr {
                Instr::Run { .. } => {
                    let run = self.runs.get_mut(run_cursor).filter(|r| r.pc == pc);
                    let run = run.ok_or_else(|| shape_error(format!("pc {pc}: an unlisted RUN")))?;
                    run.step = frames.last().map(|f| f.step);
                    run_cursor += 1;
                    let (min, max) = (run.min_ms, run.max_ms);
                    if let Some(o) = &mut out {
                        o.add_range(Dim::ExecutionTime, min, max);
                    }
                }
                Instr::Prompt { prompt } => {
                    let (min, max) = self.prompt_tokens.get(prompt as usize).copied().unwrap_or((0, 0));
                    if let Some(o) = &mut out {
                        o.add_range(Dim::TokenCount, min, max);
                    }
                }
                Instr::Call { task } => {
                    let callee = self.task_bounds.get(task as usize).copied().flatten();
                    let callee = callee.ok_or_else(|| {
                        shape_error(format!("pc {pc}: CALL of task {task}, which has no bound"))
                    })?;
                    out = out.map(|o| o.then(&callee));
                }
                Instr::StepEnter { step } => {
                    if main {
                        self.main_steps.push((step, frames.len() as u32));
                    }
                    frames.push(Frame { step, outer: frame, base: cur });
                    frame = self.frame();
                    out = cur.map(|_| {
                        let mut o = CostBound::ZERO;
                        cost::model::add_instruction(&mut o, &instr);
                        o
                    });
                }
                Instr::StepExit { step } => {
                    let open = frames.pop().filter(|f| f.step == step);
                    let open = open.ok_or_else(|| {
                        shape_error(format!("pc {pc}: STEP_EXIT of step {step}, which is not the open step"))
                    })?;
                    if let Some(slot) = self.step_bounds.get_mut(step as usize) {
                        *slot = merge(*slot, out);
                    }
                    frame = open.outer;
                    out = match (open.base, out) {
                        (Some(base), Some(o)) => Some(base.then(&o)),
                        _ => None,
                    };
                }
                _ => {}
            }
            for &h in self.by_end.at(pc) {
                let handler = m.handlers[h as usize];
                let Some((entry, at)) = self.handler_entry[h as usize] else {
                    return Err(shape_error(format!("handler {h}: its range ends before it starts")));
                };
                if at != frame || handler.target <= pc || handler.target >= end {
                    return Err(shape_error(format!(
                        "handler {h}: the TRY's range or handler is not in one step of one unit"
                    )));
                }
                match (entry, out) {
                    (Some(entry), Some(completed)) => {
                        let bound = cost::model::handler_entry(&entry, &completed);
                        flow(&mut pending, handler.target, frame, bound);
                    }
                    (None, None) => {} // the whole TRY is unreachable
                    _ => {
                        return Err(shape_error(format!(
                            "handler {h}: its TRY body is not entered at its start and left at its end"
                        )));
                    }
                }
            }
            let mut successor = |target: u32, bound: CostBound| -> Result<(), EstimateError> {
                if target <= pc || target >= end {
                    return Err(shape_error(format!(
                        "pc {pc}: a jump to {target}, which is not forward within its unit"
                    )));
                }
                flow(&mut pending, target, frame, bound);
                Ok(())
            };
            let falls_through = match instr {
                Instr::Jump { target } => {
                    if let Some(o) = out {
                        successor(target, o)?;
                    }
                    false
                }
                Instr::JumpIfFalse { target } | Instr::JumpIfTrue { target } => {
                    if let Some(o) = out {
                        successor(target, o)?;
                    }
                    true
                }
                Instr::Choose { choice } => {
                    let options = m.choices.get(choice as usize).map_or(&[][..], |c| &c.options[..]);
                    if let Some(o) = out {
                        for option in options {
                            successor(option.target, o)?;
                        }
                    }
                    false
                }
                Instr::Halt {} | Instr::Return {} => {
                    if let Some(mut o) = out {
                        // A path that ends inside open steps: compose their entries.
                        for f in frames.iter().rev() {
                            o = f.base.map_or(o, |b| b.then(&o));
                        }
                        total = merge(total, Some(o));
                    }
                    false
                }
                // A failure with its message built: counted as going on.
                _ => true,
            };
            cur = if falls_through && pc + 1 < end { out } else { None };
        }
        if let Some((&pc, _)) = pending.first_key_value() {
            return Err(shape_error(format!("pc {pc}: a jump target outside its unit")));
        }
        if !frames.is_empty() {
            return Err(shape_error(format!("a step opened in the unit at pc {start} never exits")));
        }
        Ok(total.unwrap_or(CostBound::ZERO))
    }
}

fn merge(a: Option<CostBound>, b: Option<CostBound>) -> Option<CostBound> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.either(&b)),
        (a, None) => a,
        (None, b) => b,
    }
}

fn flow(pending: &mut BTreeMap<u32, Inflow>, target: u32, frame: u32, bound: CostBound) {
    pending
        .entry(target)
        .and_modify(|i| {
            // Different frames are reported when the target is reached.
            if i.frame == frame {
                i.bound = i.bound.either(&bound);
            } else {
                i.frame = u32::MAX;
            }
        })
        .or_insert(Inflow { frame, bound });
}

/// The instruction that pushed the value `depth` places below the top of
/// the stack just before `pc`, in the straight-line code before it.
fn producer(m: &Module, pc: u32, mut depth: u32) -> Option<Instr> {
    let mut i = pc;
    for _ in 0..256 {
        i = i.checked_sub(1)?;
        let instr = *m.code.get(i as usize)?;
        if matches!(
            instr,
            Instr::Jump { .. }
                | Instr::JumpIfFalse { .. }
                | Instr::JumpIfTrue { .. }
                | Instr::Choose { .. }
                | Instr::Call { .. }
                | Instr::Halt {}
                | Instr::Return {}
        ) {
            return None;
        }
        let (pops, pushes) = instr.stack_effect();
        if depth < pushes {
            return Some(instr);
        }
        depth = depth - pushes + pops;
    }
    None
}

/// The string a producer pushes: a constant's text or a template.
fn shape_of(m: &Module, producer: Option<Instr>) -> Shape {
    match producer {
        Some(Instr::PushConst { index }) => match m.constants.get(index as usize) {
            Some(Constant::Str(s)) => m.string(*s).map_or(Shape::Unknown, |t| Shape::Text(t.to_string())),
            _ => Shape::Unknown,
        },
        Some(Instr::Interp { template, .. } | Instr::InterpShell { template, .. }) => {
            Shape::Template(template)
        }
        _ => Shape::Unknown,
    }
}

/// A shape's text, each hole shown as `${...}`.
fn shape_text(m: &Module, shape: &Shape) -> String {
    match shape {
        Shape::Text(t) => t.clone(),
        Shape::Template(t) => m.templates.get(*t as usize).map_or_else(String::new, |t| {
            t.parts
                .iter()
                .map(|p| match p {
                    TemplatePart::Text(s) => m.string(*s).unwrap_or(""),
                    TemplatePart::Hole => "${...}",
                })
                .collect()
        }),
        Shape::Unknown => String::new(),
    }
}

/// Every RUN with its command and execution time, in pc order.
fn runs(m: &Module, model: &CostModel) -> Vec<RunEstimate> {
    // Manifest commands by line: a RUN is matched to the first unused entry
    // on its line of the same kind (and text, for a literal command).
    let mut by_line: HashMap<u32, Vec<usize>> = HashMap::new();
    for (i, c) in m.manifest.commands.iter().enumerate() {
        by_line.entry(c.line).or_default().push(i);
    }
    let mut used = vec![false; m.manifest.commands.len()];
    let mut out = Vec::new();
    for (pc, instr) in m.code.iter().enumerate() {
        let Instr::Run { flags } = *instr else { continue };
        let pc = pc as u32;
        let line = m.position(pc).map_or(0, |(line, _)| line);
        let has_timeout = flags & run_flags::TIMEOUT != 0;
        let above = u32::from(flags & run_flags::DIR != 0) + u32::from(has_timeout);
        let shape = shape_of(m, producer(m, pc, above));
        let entry = by_line.get(&line).and_then(|candidates| {
            candidates.iter().copied().find(|&i| {
                let c = &m.manifest.commands[i];
                !used[i]
                    && match &shape {
                        Shape::Text(t) => !c.dynamic && m.string(c.text) == Some(t.as_str()),
                        Shape::Template(_) => c.dynamic,
                        Shape::Unknown => true,
                    }
            })
        });
        if let Some(i) = entry {
            used[i] = true;
        }
        let entry = entry.map(|i| &m.manifest.commands[i]);
        let timeout_ms = if has_timeout {
            match producer(m, pc, 0) {
                Some(Instr::PushConst { index }) => match m.constants.get(index as usize) {
                    Some(Constant::Duration(ms)) => Some(*ms),
                    _ => None,
                },
                _ => None,
            }
            .or(entry.and_then(|c| c.timeout_ms))
        } else {
            None
        };
        let command = match entry {
            Some(c) => m.string(c.text).unwrap_or("").to_string(),
            None => shape_text(m, &shape),
        };
        let dynamic = entry.map_or(!matches!(shape, Shape::Text(_)), |c| c.dynamic);
        let time = model.run_time(timeout_ms, &command, &shape, m);
        out.push(RunEstimate {
            pc,
            line,
            step: None,
            command,
            dynamic,
            timeout_ms,
            min_ms: time.min,
            max_ms: time.max,
            source: time.source,
        });
    }
    out
}

/// Tokens of every prompt table entry (the shared model: the query as the
/// manifest records it, and the context variables).
fn prompt_tokens(m: &Module) -> Vec<(u64, u64)> {
    let mut read_slots: Vec<u32> = m
        .code
        .iter()
        .filter_map(|i| match i {
            Instr::Read { slot } => Some(*slot),
            _ => None,
        })
        .collect();
    read_slots.sort_unstable();
    read_slots.dedup();
    // Prompt table entries used by the code, in table order, are the
    // manifest's prompts in order (ESTIMATE_COST prompts have no code and
    // no manifest entry).
    let mut query_pc: Vec<Option<u32>> = vec![None; m.prompts.len()];
    for (pc, instr) in m.code.iter().enumerate() {
        if let Instr::Prompt { prompt } = instr
            && let Some(slot) = query_pc.get_mut(*prompt as usize)
        {
            slot.get_or_insert(pc as u32);
        }
    }
    let used = query_pc.iter().filter(|p| p.is_some()).count();
    let manifest_matches = used == m.manifest.prompts.len();
    let mut next_manifest = 0;
    m.prompts
        .iter()
        .zip(&query_pc)
        .map(|(info, pc)| {
            let Some(pc) = *pc else { return (0, 0) };
            let query = if manifest_matches {
                let entry = &m.manifest.prompts[next_manifest];
                next_manifest += 1;
                m.string(entry.query).unwrap_or("").to_string()
            } else {
                shape_text(m, &shape_of(m, producer(m, pc, 0)))
            };
            let context = if info.default_context { read_slots.len() + 1 } else { info.context.len() };
            cost::model::prompt_tokens(&query, context)
        })
        .collect()
}

// ---- output ----------------------------------------------------------------------

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

    /// The SPEC §9 JSON: `steps` (top-level), `total`, and `runs` (each RUN's
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
    fn durations_parse_like_plan_durations() {
        assert_eq!(parse_duration("1500ms"), Ok(1500));
        assert_eq!(parse_duration("30s"), Ok(30_000));
        assert_eq!(parse_duration(" 2m "), Ok(120_000));
        assert_eq!(parse_duration("1_000ms"), Ok(1000));
        assert_eq!(parse_duration("1h"), Ok(3_600_000));
        for bad in ["", "s", "5", "5 s", "-1s", "1.5s", "_1s", "5d", "99999999999999999999s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn globs_match_the_whole_text() {
        let g = glob_regex("cargo test*");
        assert!(g.is_match("cargo test"));
        assert!(g.is_match("cargo test --release"));
        assert!(!g.is_match("xcargo test"));
        let g = glob_regex("make -C build/? (all)");
        assert!(g.is_match("make -C build/1 (all)"));
        assert!(!g.is_match("make -C build/12 (all)"));
    }

    #[test]
    fn templates_match_with_holes_as_any_text() {
        let p = |parts: &[&str]| parts.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(matches_pieces("make 'x86'", &p(&["make ", ""])));
        assert!(matches_pieces("a1b2c", &p(&["a", "b", "c"])));
        assert!(matches_pieces("abc", &p(&["a", "b", "c"])));
        assert!(!matches_pieces("ab", &p(&["a", "b", "b"])));
        assert!(matches_pieces("abb", &p(&["a", "b", "b"])));
        assert!(!matches_pieces("xabc", &p(&["a", "c"])));
        assert!(!matches_pieces("aca", &p(&["ac", "ca"])), "pieces may not overlap");
        assert!(matches_pieces("exact", &p(&["exact"])));
        assert!(!matches_pieces("exactly", &p(&["exact"])));
    }

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
