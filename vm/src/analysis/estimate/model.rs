//! The execution-time model of `tissvm estimate`: where a RUN's time comes
//! from (its TIMEOUT, a cost-model file's rule or default, run history,
//! or the default maximum), and what a RUN's command is (its [`Shape`]).

use std::collections::BTreeMap;

use regex::Regex;
use serde::Deserialize;
use serde_json::Value as Json;
use tisslang::analysis::cost_model;
use tisslang::module::{Module, TemplatePart};

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

    pub(super) fn describe(&self) -> String {
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
/// (`tisslang::analysis::cost_model::DEFAULT_RUN_MAX_MS`). A RUN with a `TIMEOUT`
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
    /// Tokens allowed for a model's answer (the provider's `max_tokens`;
    /// `None`: the default the compiler assumes).
    completion_tokens: Option<u64>,
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

    /// Allows `tokens` for each model's answer (the provider's `max_tokens`).
    pub fn set_completion_tokens(&mut self, tokens: u64) {
        self.completion_tokens = Some(tokens);
    }

    /// The tokens allowed for each model's answer.
    pub fn completion_tokens(&self) -> u64 {
        self.completion_tokens.unwrap_or(tisslang::analysis::cost_model::DEFAULT_MAX_TOKENS)
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
    pub(super) fn run_time(
        &self,
        timeout: Option<u64>,
        written: &str,
        shape: &Shape,
        module: &Module,
    ) -> RunTime {
        if let Some(t) = timeout {
            let (min, max) = cost_model::default_run_time(Some(t));
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
        let (min, max) = cost_model::default_run_time(None);
        RunTime { min, max, source: TimeSource::Default }
    }
}

pub(super) struct RunTime {
    pub(super) min: u64,
    pub(super) max: u64,
    pub(super) source: TimeSource,
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

/// What a RUN's command (or a PROMPT's query) is, read from the bytecode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Shape {
    Text(String),
    Template(u32),
    Unknown,
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
}
