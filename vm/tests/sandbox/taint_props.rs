//! Property: for random plans composing the ways taint moves (PROMPT_AGENT
//! and READ sources, VAR copies and interpolation, WRITE FROM then READ,
//! ENV, IF, TRY/CATCH with `e.MESSAGE` of a failed ASSERT MESSAGE or READ,
//! LAST_RUN's fields) into RUN sinks, run by `tissvm` with the mock model:
//! - at run time exactly the RUNs on the path taken whose command (or
//!   environment) holds tainted data, or that follow a WRITE of it or a RUN
//!   that held it, ask under `[taint] run = "approve"`,
//!   and `"deny"` refuses the first of them;
//! - `tissvm inspect` lists every RUN some path may carry tainted data to.
//!
//! The static analysis over-approximates, by design, and only this way:
//! both arms of an IF count, a variable, LAST_RUN or a caught error keeps
//! everything stored in it earlier (a clean value does not wash it), and
//! every instruction inside a TRY that can fail counts as failing. The
//! model below computes both: `exact` along the path the run takes, `may`
//! by that rule; the test holds the run to `exact` and `inspect` to `may`,
//! so a RUN no path taints is neither listed nor asked about.

use std::fmt::Write;

use proptest::prelude::*;
use serde_json::Value as Json;

use crate::common::Fixture;

const VARS: usize = 3;

/// What a RUN echoes.
#[derive(Debug, Clone, Copy)]
enum Src {
    Var(usize),
    Stdout,
    ExitCode,
    /// `e.MESSAGE` of the innermost CATCH around it (a constant outside one).
    Caught,
}

#[derive(Debug, Clone)]
enum S {
    Prompt(usize),
    /// READ `f{k}.txt` (the test writes both; WRITE may replace them).
    Read(usize, usize),
    Write(usize, usize),
    Const(usize),
    /// `VAR v = "i ${w}"`.
    Interp(usize, usize),
    /// `VAR v = LAST_RUN.<field>`: STDOUT, STDERR or COMMAND.
    LastRun(usize, u8),
    Env(usize),
    Run(Src),
    /// IF on a condition that holds: the first block runs.
    If(Vec<S>, Vec<S>),
    Try(Vec<S>, Vec<S>),
    /// ASSERT with a MESSAGE of `${v}`: failing (true) or holding.
    Assert(usize, bool),
    /// READ of a file that is never there, its path made of `${w}`, into v.
    ReadMissing(usize, usize),
    /// `VAR v = e.MESSAGE` inside a CATCH (a constant outside one).
    Caught(usize),
}

fn var() -> impl Strategy<Value = usize> {
    0..VARS
}

fn stmt() -> impl Strategy<Value = S> {
    let src = prop_oneof![
        3 => var().prop_map(Src::Var),
        1 => Just(Src::Stdout),
        1 => Just(Src::ExitCode),
        2 => Just(Src::Caught),
    ];
    let leaf = prop_oneof![
        3 => var().prop_map(S::Prompt),
        1 => (var(), 0..2usize).prop_map(|(v, k)| S::Read(v, k)),
        1 => (0..2usize, var()).prop_map(|(k, v)| S::Write(k, v)),
        1 => var().prop_map(S::Const),
        2 => (var(), var()).prop_map(|(v, w)| S::Interp(v, w)),
        1 => (var(), 0..3u8).prop_map(|(v, f)| S::LastRun(v, f)),
        // Rare: an ENV of tainted data taints every later RUN.
        1 => (0..4usize).prop_map(|v| if v == 0 { S::Env(0) } else { S::Const(v % VARS) }),
        4 => src.prop_map(S::Run),
        2 => (var(), any::<bool>()).prop_map(|(v, fails)| S::Assert(v, fails)),
        1 => (var(), var()).prop_map(|(v, w)| S::ReadMissing(v, w)),
        2 => var().prop_map(S::Caught),
    ];
    leaf.prop_recursive(3, 24, 3, |inner| {
        let block = prop::collection::vec(inner, 1..4);
        prop_oneof![
            (block.clone(), block.clone()).prop_map(|(t, e)| S::If(t, e)),
            (block.clone(), block).prop_map(|(b, h)| S::Try(b, h)),
        ]
    })
}

/// Where a statement stands: inside a TRY's body (a failure is caught), and
/// the innermost CATCH's variable.
#[derive(Clone, Copy)]
struct Place {
    in_try: bool,
    caught: Option<usize>,
}

/// The plan as rendered so far: its text, its last line, how many TRYs and
/// RUNs it has.
#[derive(Default)]
struct Plan {
    text: String,
    line: u32,
    tries: usize,
    runs: usize,
}

impl Plan {
    fn line(&mut self, depth: usize, text: &str) -> u32 {
        self.line += 1;
        let _ = writeln!(self.text, "{}{text}", "    ".repeat(depth));
        self.line
    }
}

/// Both models' state: a variable's, LAST_RUN's, the environment's and each
/// caught error's taint.
#[derive(Clone, Default)]
struct State {
    vars: [bool; VARS],
    last_run: bool,
    env: bool,
    /// A WRITE of tainted data: every later RUN counts as tainted.
    written: bool,
    caught: Vec<bool>,
}

impl State {
    fn caught_at(&self, id: usize) -> bool {
        self.caught.get(id).copied().unwrap_or(false)
    }
}

/// Renders statements and runs both models over them. Each method's
/// `exact` is `None` where the run does not go (a branch not taken, after a
/// failure); `Err(taint)`: the run fails there, its message of that taint.
struct Walk<'a> {
    plan: &'a mut Plan,
    may: State,
    /// RUN lines `inspect` must list, and those the run asks about, in order.
    may_runs: Vec<u32>,
    asked: Vec<u32>,
    /// The innermost TRY whose body this is.
    open_try: Option<usize>,
}

impl Walk<'_> {
    fn block(
        &mut self,
        stmts: &[S],
        depth: usize,
        at: Place,
        mut exact: Option<&mut State>,
    ) -> Result<(), bool> {
        for s in stmts {
            let live = exact.is_some();
            match self.stmt(s, depth, at, exact.as_deref_mut()) {
                Err(taint) if live => {
                    // The rest of the block is rendered (and counted by
                    // `may`) but does not run.
                    self.block_dead(stmts, s, depth, at);
                    return Err(taint);
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn block_dead(&mut self, stmts: &[S], failed: &S, depth: usize, at: Place) {
        let after = stmts.iter().position(|s| std::ptr::eq(s, failed)).map_or(stmts.len(), |i| i + 1);
        for s in &stmts[after..] {
            let _ = self.stmt(s, depth, at, None);
        }
    }

    /// A statement that may fail inside a TRY: `may` adds what it took to
    /// the error of the innermost TRY whose body holds it.
    fn may_fail(&mut self, at: Place, taint: bool, try_id: Option<usize>) {
        if let (true, Some(id)) = (at.in_try, try_id) {
            self.may.caught[id] |= taint;
        }
    }

    fn stmt(&mut self, s: &S, depth: usize, at: Place, exact: Option<&mut State>) -> Result<(), bool> {
        let open = self.open_try;
        match s {
            S::Prompt(v) => {
                self.plan.line(depth, &format!("PROMPT_AGENT \"q{}\" INTO v{v}", self.plan.line));
                self.may_fail(at, true, open);
                self.may.vars[*v] = true;
                if let Some(x) = exact {
                    x.vars[*v] = true;
                }
            }
            S::Read(v, k) => {
                self.plan.line(depth, &format!("READ \"f{k}.txt\" AS v{v}"));
                self.may.vars[*v] = true;
                if let Some(x) = exact {
                    x.vars[*v] = true;
                }
            }
            S::Write(k, v) => {
                self.plan.line(depth, &format!("WRITE \"f{k}.txt\" FROM v{v}"));
                let taint = self.may.vars[*v];
                self.may_fail(at, taint, open);
                self.may.written |= taint;
                if let Some(x) = exact {
                    x.written |= x.vars[*v];
                }
            }
            S::Const(v) => {
                self.plan.line(depth, &format!("VAR v{v} = \"c{}\"", self.plan.line));
                if let Some(x) = exact {
                    x.vars[*v] = false;
                }
            }
            S::Interp(v, w) => {
                self.plan.line(depth, &format!("VAR v{v} = \"i ${{v{w}}}\""));
                self.may.vars[*v] |= self.may.vars[*w];
                if let Some(x) = exact {
                    x.vars[*v] = x.vars[*w];
                }
            }
            S::LastRun(v, f) => {
                let field = ["STDOUT", "STDERR", "COMMAND"][usize::from(*f)];
                self.plan.line(depth, &format!("VAR v{v} = LAST_RUN.{field}"));
                self.may.vars[*v] |= self.may.last_run;
                if let Some(x) = exact {
                    x.vars[*v] = x.last_run;
                }
            }
            S::Env(v) => {
                self.plan.line(depth, &format!("ENV X = v{v}"));
                self.may.env |= self.may.vars[*v];
                if let Some(x) = exact {
                    x.env |= x.vars[*v];
                }
            }
            S::Run(src) => {
                let (hole, may_taint, exact_taint): (String, bool, Option<bool>) = match (*src, at.caught) {
                    (Src::Var(v), _) => {
                        (format!("v{v}"), self.may.vars[v], exact.as_ref().map(|x| x.vars[v]))
                    }
                    (Src::Stdout, _) => {
                        ("LAST_RUN.STDOUT".into(), self.may.last_run, exact.as_ref().map(|x| x.last_run))
                    }
                    (Src::Caught, Some(e)) => {
                        (format!("e{e}.MESSAGE"), self.may.caught[e], exact.as_ref().map(|x| x.caught_at(e)))
                    }
                    (Src::ExitCode | Src::Caught, _) => ("LAST_RUN.EXIT_CODE".into(), false, Some(false)),
                };
                self.plan.runs += 1;
                let line = self.plan.line(depth, &format!("RUN \"echo r ${{{hole}}}\""));
                self.may_fail(at, may_taint, open);
                // Statically LAST_RUN takes the command's and ENV's taint;
                // what was written taints every later RUN by itself, and a
                // RUN that held tainted data may have written it.
                self.may.last_run |= may_taint || self.may.env;
                if may_taint || self.may.env || self.may.written {
                    self.may_runs.push(line);
                }
                self.may.written |= may_taint || self.may.env;
                if let Some(x) = exact {
                    let held = exact_taint.unwrap_or(false) || x.env;
                    let tainted = held || x.written;
                    x.last_run = tainted;
                    x.written |= held;
                    if tainted {
                        self.asked.push(line);
                    }
                }
            }
            S::Assert(v, fails) => {
                let cond = if *fails && at.in_try { "never" } else { "z" };
                self.plan.line(depth, &format!("ASSERT z == \"{cond}\" MESSAGE \"m ${{v{v}}}\""));
                let taint = self.may.vars[*v];
                self.may_fail(at, taint, open);
                if cond == "never"
                    && let Some(x) = exact
                {
                    return Err(x.vars[*v]);
                }
            }
            S::ReadMissing(v, w) => {
                let path = if at.in_try { format!("no-${{v{w}}}.txt") } else { "f0.txt".into() };
                self.plan.line(depth, &format!("READ \"{path}\" AS v{v}"));
                let taint = at.in_try && self.may.vars[*w];
                self.may_fail(at, taint, open);
                self.may.vars[*v] = true;
                if let Some(x) = exact {
                    if at.in_try {
                        return Err(x.vars[*w]);
                    }
                    x.vars[*v] = true;
                }
            }
            S::Caught(v) => match at.caught {
                Some(e) => {
                    self.plan.line(depth, &format!("VAR v{v} = e{e}.MESSAGE"));
                    self.may.vars[*v] |= self.may.caught[e];
                    if let Some(x) = exact {
                        x.vars[*v] = x.caught_at(e);
                    }
                }
                None => {
                    self.plan.line(depth, &format!("VAR v{v} = \"k\""));
                    if let Some(x) = exact {
                        x.vars[*v] = false;
                    }
                }
            },
            S::If(then, otherwise) => {
                self.plan.line(depth, "IF z == \"z\" {");
                let mut exact = exact;
                let result = self.block(then, depth + 1, at, exact.as_deref_mut());
                self.plan.line(depth, "} ELSE {");
                let _ = self.block(otherwise, depth + 1, at, None);
                self.plan.line(depth, "}");
                if let (Err(taint), Some(_)) = (result, exact) {
                    return Err(taint);
                }
            }
            S::Try(body, handler) => {
                let id = self.plan.tries;
                self.plan.tries += 1;
                self.may.caught.push(false);
                self.plan.line(depth, "TRY {");
                let mut exact = exact;
                self.open_try = Some(id);
                let result = self.block(body, depth + 1, Place { in_try: true, ..at }, exact.as_deref_mut());
                self.open_try = open;
                self.plan.line(depth, &format!("}} CATCH AS e{id} {{"));
                let caught = match (result, exact) {
                    (Err(taint), Some(x)) => {
                        x.caught.resize(x.caught.len().max(id + 1), false);
                        x.caught[id] = taint;
                        Some(x)
                    }
                    _ => None,
                };
                let result = self.block(handler, depth + 1, Place { caught: Some(id), ..at }, caught);
                self.plan.line(depth, "}");
                result?;
            }
        }
        Ok(())
    }
}

/// The lines of RUNs `tissvm inspect` lists a flow into, or a WRITE of
/// tainted data before, each once.
fn listed(fx: &Fixture, plan: &str) -> Vec<u32> {
    let run = fx.tissvm(&["inspect", &fx.write_plan(plan), "--output-format", "json"]);
    run.expect(0);
    let taint = &run.json()["taint"];
    let mut lines: Vec<u32> = ["flows", "written_runs"]
        .iter()
        .flat_map(|key| taint[key].as_array().expect(key).clone())
        .map(|f| f["run_line"].as_u64().unwrap() as u32)
        .collect();
    lines.sort_unstable();
    lines.dedup();
    lines
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_tainted_run_is_found_by_inspect_and_at_run_time(stmts in prop::collection::vec(stmt(), 1..8)) {
        let mut plan = Plan::default();
        plan.line(0, "TASK \"t\"");
        plan.line(0, "STEP \"s\" {");
        plan.line(1, "VAR z = \"z\"");
        for v in 0..VARS {
            plan.line(1, &format!("VAR v{v} = \"c\""));
        }
        plan.line(1, "RUN \"true\"");
        let mut exact = State::default();
        let mut walk = Walk { plan: &mut plan, may: State::default(), may_runs: Vec::new(), asked: Vec::new(), open_try: None };
        let ended = walk.block(&stmts, 1, Place { in_try: false, caught: None }, Some(&mut exact));
        prop_assert!(ended.is_ok(), "only a TRY's body fails");
        let (may_runs, asked) = (walk.may_runs, walk.asked);
        plan.line(0, "}");
        let text = &plan.text;

        let fx = Fixture::new();
        for k in 0..2 {
            std::fs::write(fx.ws().join(format!("f{k}.txt")), "file text").unwrap();
        }
        let file = |name: &str, body: String| {
            let path = fx.path(name);
            std::fs::write(&path, body).unwrap();
            path.to_str().unwrap().to_string()
        };
        let mock = file("mock.json", r#"[{"match": ".", "answer": "model said"}]"#.into());
        let approve = file("approve.toml", "[taint]\nrun = \"approve\"\n".into());
        let deny = file("deny.toml", "[taint]\nrun = \"deny\"\n".into());
        let answers = file("answers.json", format!("[{}]", vec![r#"{"answer": "approve"}"#; plan.runs + 1].join(", ")));
        let log = fx.path("log.jsonl");

        // Static: every RUN some path may taint, and no other.
        let listed = listed(&fx, text);
        for line in &asked {
            prop_assert!(listed.contains(line), "inspect misses the RUN at line {line}\n{text}");
        }
        prop_assert_eq!(&listed, &may_runs, "inspect's flows\n{}", text);

        // Run time, approving: exactly the tainted RUNs on the path taken ask.
        let json = ["--output-format", "json", "--mock-answers", &mock];
        let run = fx.run(text, &[&json[..], &["--policy", &approve, "--answers", &answers, "--log-file", log.to_str().unwrap()]].concat());
        prop_assert_eq!(run.code, Some(0), "{}\n{}\n{}", text, run.stdout, run.stderr);
        let events = std::fs::read_to_string(&log).unwrap();
        let approved: Vec<u32> = events
            .lines()
            .map(|l| serde_json::from_str::<Json>(l).unwrap())
            .filter(|e| e["event"] == "approval")
            .map(|e| e["line"].as_u64().unwrap() as u32)
            .collect();
        prop_assert_eq!(&approved, &asked, "the RUNs that asked\n{}", text);

        // Run time, denying: the first of them is refused, or all run.
        let run = fx.run(text, &[&json[..], &["--policy", &deny]].concat());
        let report = run.json();
        match asked.first() {
            Some(&line) => {
                prop_assert_eq!(run.code, Some(5), "{}\n{}", text, run.stderr);
                prop_assert_eq!(&report["failure"]["kind"], "security_violation");
                prop_assert_eq!(&report["failure"]["line"], line, "{}", text);
            }
            None => prop_assert_eq!(&report["status"], "passed", "{}\n{}", text, run.stderr),
        }
    }
}
