//! One client's session: requests in, responses and events out, the
//! debugger of `crate::session::debugger` in between.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};

use crate::machine::Outcome;
use crate::runner::replay::host::{Stop as ReplayStop, Suspended};
use crate::session::answers::{Reply, Word};
use crate::session::debugger::{Debugger, Exceptions, Mode, Spec, Stop, Why, end_text};

use super::ParseArgs;
use super::host::{DapHost, Inner};
use super::inspect::{self, Refs};
use super::launch::{self, Opened};
use super::requests::{self as req, arguments};
use super::wire::Writer;

/// The one thread a plan has.
const THREAD: i64 = 1;

/// `threads`' body: the plan runs on one thread.
pub fn threads() -> Value {
    json!({ "threads": [{ "id": THREAD, "name": "plan" }] })
}

pub struct Session {
    out: Writer,
    parse: ParseArgs,
    running: Arc<AtomicBool>,
    opened: Option<Opened>,
    /// Breakpoints asked for before the plan was launched.
    early_breakpoints: Vec<req::SetBreakpoints>,
    exceptions: Exceptions,
    stop_at_gates: bool,
    stop_on_entry: bool,
    /// A journal is recorded: stepping back is offered.
    journaled: bool,
    /// Launched with `noDebug`: the plan runs through; only gates stop it.
    no_debug: bool,
    /// The client counts lines and columns from 0.
    line_base: i64,
    column_base: i64,
    refs: Refs,
    /// An uncaught failure was shown as a stop: the next go ends the session.
    ending: Option<Outcome>,
    terminated: bool,
    /// Events sent after the response to the request being answered.
    later: Vec<(&'static str, Value)>,
}

impl Session {
    pub fn new(out: Writer, parse: ParseArgs, running: Arc<AtomicBool>) -> Session {
        Session {
            out,
            parse,
            running,
            opened: None,
            early_breakpoints: Vec::new(),
            exceptions: Exceptions { assertions: true, failures: false },
            stop_at_gates: true,
            stop_on_entry: false,
            journaled: false,
            no_debug: false,
            line_base: 0,
            column_base: 0,
            refs: Refs::default(),
            ending: None,
            terminated: false,
            later: Vec::new(),
        }
    }

    /// Answers one message; `false` when the session is over.
    pub fn handle(&mut self, message: &Value) -> bool {
        if message["type"] != "request" {
            // Responses to reverse requests and stray events need nothing.
            return true;
        }
        let Some(command) = message["command"].as_str() else {
            self.out.refuse(message, "a request needs a `command`");
            return true;
        };
        let result = match command {
            "initialize" => self.initialize(message),
            "launch" => self.launch(message),
            "attach" => self.attach(message),
            "setBreakpoints" => self.set_breakpoints(message),
            "setExceptionBreakpoints" => self.set_exception_breakpoints(message),
            "configurationDone" => self.configuration_done(message),
            "threads" => Ok(threads()),
            "disconnect" => return self.disconnect(message),
            "terminate" => self.terminate(message),
            _ if self.terminated => Err("the session has ended".to_string()),
            "stackTrace" => self.stack_trace(),
            "scopes" => self.debugger().map(|d| inspect::scopes(d.machine.last_run.is_some())),
            "variables" => self.variables(message),
            "evaluate" => self.evaluate(message),
            "continue" => self.go(message, Mode::Continue),
            "next" => self.go(message, Mode::Next(0)),
            "stepIn" => self.go(message, Mode::Step),
            "stepOut" => self.go(message, Mode::Out(0)),
            "stepBack" => self.back(message, false),
            "reverseContinue" => self.back(message, true),
            "pause" => Ok(json!({})),
            other => Err(format!("`{other}` is not a request this adapter answers")),
        };
        match result {
            Ok(Value::Null) => {}
            Ok(body) => self.out.respond(message, body),
            Err(error) => self.out.refuse(message, &error),
        }
        for (event, body) in std::mem::take(&mut self.later) {
            self.out.event(event, body);
        }
        true
    }

    fn debugger(&mut self) -> Result<&mut Debugger<DapHost>, String> {
        match &mut self.opened {
            Some(opened) => Ok(&mut opened.debugger),
            None => Err("no plan is launched yet: send `launch` or `attach` first".into()),
        }
    }

    fn initialize(&mut self, message: &Value) -> Result<Value, String> {
        let args: req::Initialize = arguments(message)?;
        self.line_base = i64::from(!args.lines_start_at1);
        self.column_base = i64::from(!args.columns_start_at1);
        Ok(req::capabilities())
    }

    fn launch(&mut self, message: &Value) -> Result<Value, String> {
        if self.opened.is_some() {
            return Err("a plan is launched already: one session debugs one plan".into());
        }
        let args: req::Launch = arguments(message)?;
        self.no_debug = args.no_debug;
        self.stop_on_entry = args.stop_on_entry && !args.no_debug;
        // A replay has its journal: going back replays it again.
        self.journaled = args.journal.is_some() || args.replay.is_some();
        let opened = launch::launch(&args, &self.parse, &self.out)?;
        self.opened_now(opened);
        Ok(json!({}))
    }

    fn attach(&mut self, message: &Value) -> Result<Value, String> {
        if self.opened.is_some() {
            return Err("a plan is launched already: one session debugs one plan".into());
        }
        let args: req::Attach = arguments(message)?;
        self.journaled = args.journal.is_some();
        // A resumed run stops where it stood, to be looked at first.
        self.stop_on_entry = true;
        let opened = launch::attach(&args, &self.parse, &self.out)?;
        self.opened_now(opened);
        Ok(json!({}))
    }

    /// The session is open: the breakpoints asked for early are set, and
    /// the client is told to configure (`initialized`) after the response.
    fn opened_now(&mut self, opened: Opened) {
        self.opened = Some(opened);
        self.configure();
        // Clients set breakpoints after `initialized`; any asked for before
        // the launch are set now (they were answered as not verified yet).
        for args in std::mem::take(&mut self.early_breakpoints) {
            self.place(&args);
        }
        self.later.push(("initialized", json!({})));
    }

    fn configure(&mut self) {
        let exceptions = if self.no_debug { Exceptions::default() } else { self.exceptions };
        let gates = self.stop_at_gates && !self.no_debug;
        if let Ok(debugger) = self.debugger() {
            debugger.exceptions = exceptions;
            debugger.host.stop_at_gates = gates;
        }
    }

    fn plan_path(&self) -> Option<&Path> {
        self.opened.as_ref().map(|o| o.plan.as_path())
    }

    fn set_breakpoints(&mut self, message: &Value) -> Result<Value, String> {
        let args: req::SetBreakpoints = arguments(message)?;
        if self.opened.is_none() {
            let pending: Vec<Value> = args
                .breakpoints
                .iter()
                .map(|b| json!({ "verified": false, "line": b.line, "message": "set when the plan is launched" }))
                .collect();
            self.early_breakpoints.push(args);
            return Ok(json!({ "breakpoints": pending }));
        }
        Ok(self.place(&args))
    }

    fn place(&mut self, args: &req::SetBreakpoints) -> Value {
        let (line_base, plan) = (self.line_base, self.plan_path().map(Path::to_path_buf));
        let ours = match (&args.source.path, &plan) {
            (Some(path), Some(plan)) => same_file(Path::new(path), plan),
            _ => false,
        };
        if !ours || self.no_debug {
            let why = if self.no_debug {
                "the plan runs without debugging (noDebug)"
            } else {
                "not the plan being debugged"
            };
            let list: Vec<Value> = args
                .breakpoints
                .iter()
                .map(|b| json!({ "verified": false, "line": b.line, "message": why }))
                .collect();
            return json!({ "breakpoints": list });
        }
        let specs: Vec<Spec> = args
            .breakpoints
            .iter()
            .map(|b| Spec {
                line: u32::try_from(b.line + line_base).unwrap_or(0),
                condition: b.condition.clone(),
                hit_condition: b.hit_condition.clone(),
                log_message: b.log_message.clone(),
            })
            .collect();
        let Ok(debugger) = self.debugger() else { return json!({ "breakpoints": [] }) };
        let placed = debugger.replace_line_breakpoints(&specs);
        let list: Vec<Value> = placed
            .iter()
            .zip(&args.breakpoints)
            .map(|(result, asked)| match result {
                Ok(p) => json!({ "id": p.id, "verified": true, "line": i64::from(p.line) - line_base }),
                Err(why) => json!({ "verified": false, "line": asked.line, "message": why }),
            })
            .collect();
        json!({ "breakpoints": list })
    }

    fn set_exception_breakpoints(&mut self, message: &Value) -> Result<Value, String> {
        let args: req::SetExceptionBreakpoints = arguments(message)?;
        let has = |f: &str| args.filters.iter().any(|g| g == f);
        if let Some(unknown) = args
            .filters
            .iter()
            .find(|f| ![req::ASSERTION_FILTER, req::FAILURE_FILTER, req::GATE_FILTER].contains(&f.as_str()))
        {
            return Err(format!(
                "`{unknown}` is not an exception filter: they are {}, {} and {}",
                req::ASSERTION_FILTER,
                req::FAILURE_FILTER,
                req::GATE_FILTER
            ));
        }
        self.exceptions =
            Exceptions { assertions: has(req::ASSERTION_FILTER), failures: has(req::FAILURE_FILTER) };
        self.stop_at_gates = has(req::GATE_FILTER);
        self.configure();
        Ok(json!({}))
    }

    fn configuration_done(&mut self, message: &Value) -> Result<Value, String> {
        self.debugger()?;
        self.out.respond(message, json!({}));
        if self.stop_on_entry {
            let debugger = self.debugger()?;
            debugger.start();
            if debugger.has_ended() {
                self.report(Stop::Over(Outcome::Completed));
            } else {
                self.stopped("entry", None, &[]);
            }
        } else {
            self.run(Mode::Continue, false);
        }
        Ok(Value::Null)
    }

    fn go(&mut self, message: &Value, mode: Mode) -> Result<Value, String> {
        let debugger = self.debugger()?;
        let mode = match mode {
            Mode::Next(_) => Mode::Next(debugger.machine.frames.len()),
            Mode::Out(_) => Mode::Out(debugger.depth()),
            other => other,
        };
        self.out.respond(message, json!({ "allThreadsContinued": true }));
        if let Some(outcome) = self.ending.take() {
            self.finish(&outcome);
            return Ok(Value::Null);
        }
        self.run(mode, true);
        Ok(Value::Null)
    }

    /// Runs on, then tells where the run stopped.
    fn run(&mut self, mode: Mode, skip_first: bool) {
        self.refs.clear();
        let running = Arc::clone(&self.running);
        let Ok(debugger) = self.debugger() else { return };
        running.store(true, Ordering::SeqCst);
        let mut stop = debugger.resume(mode, skip_first);
        // A replayed run that was suspended at this gate and resumed goes
        // on into its resumed part, as `tissvm replay` does; one that was
        // not resumed ends here, as it did.
        let mut ended_suspended = None;
        while let (Stop::Waiting { .. }, Inner::Replay(host)) = (&stop, &mut debugger.host.inner) {
            let Suspended { snapshot, resumed } = host.past_suspension();
            if !resumed {
                ended_suspended = Some((snapshot, host.torn));
                break;
            }
            match host.set_up_as_recorded(&mut debugger.machine, &mut debugger.program) {
                Ok(_) => stop = debugger.resume(mode, true),
                Err(e) => {
                    host.stop = Some(ReplayStop::Unreadable(format!("the journal cannot be replayed: {e}")));
                    break;
                }
            }
        }
        running.store(false, Ordering::SeqCst);
        match ended_suspended {
            Some((snapshot, torn))
                if self.opened.as_ref().and_then(|o| o.debugger.host.replay_stop()).is_none() =>
            {
                self.suspended_end(snapshot.as_deref(), torn)
            }
            _ => self.report(stop),
        }
    }

    /// The replayed run ended suspended here, at a gate it was not
    /// resumed from (or where its journal ends cut short, at byte `torn`):
    /// the replay ends there, as `tissvm replay` does (exit 3).
    fn suspended_end(&mut self, snapshot: Option<&str>, torn: Option<u64>) {
        let text = match (torn, snapshot) {
            (Some(at), _) => format!(
                "the journal ends cut short at byte {at}, before the answer to this gate: replayed up to there"
            ),
            (None, Some(s)) => {
                format!("the recorded run was suspended here and not resumed: its snapshot was `{s}`")
            }
            (None, None) => "the recorded run was suspended here and not resumed".to_string(),
        };
        self.out.output("console", &text);
        self.out.event("exited", json!({ "exitCode": crate::runner::status::SUSPENDED }));
        self.out.event("terminated", json!({}));
        self.terminated = true;
    }

    fn report(&mut self, stop: Stop) {
        let diverged = self.opened.as_ref().and_then(|o| o.debugger.host.replay_stop());
        if let Some((why, code)) = diverged {
            self.out.output("console", &why);
            self.out.event("exited", json!({ "exitCode": code }));
            self.out.event("terminated", json!({}));
            self.terminated = true;
            return;
        }
        match stop {
            Stop::Paused { why, killed_run } => {
                if killed_run {
                    self.out.output("console", "the RUN in flight was killed: LAST_RUN holds what it left");
                }
                match why {
                    Why::Step => self.stopped("step", None, &[]),
                    Why::Interrupted => self.stopped("pause", None, &[]),
                    Why::Breakpoints(ids) => self.stopped("breakpoint", None, &ids),
                    Why::Caught(c) => {
                        let text = format!("{}: {} (caught by a TRY)", c.kind, c.message);
                        self.stopped("exception", Some(&text), &[])
                    }
                    Why::ConditionFailed { id, error } => {
                        self.out.output("console", &format!("breakpoint {id}: {error}"));
                        self.stopped("breakpoint", Some(&error), &[id])
                    }
                }
            }
            Stop::Waiting { question, .. } => {
                let expected = crate::session::answers::expected_answers(&question);
                let text = format!(
                    "{} waits for an answer: type `answer {expected} [comment]` in the debug console",
                    question.describe()
                );
                self.out.output("console", &text);
                self.stopped("exception", Some(&text), &[]);
            }
            Stop::Ended(outcome) => {
                let uncaught = match &outcome {
                    Outcome::Failed(f) => {
                        self.exceptions.failures
                            || (self.exceptions.assertions && f.kind.name() == "assertion_failed")
                    }
                    _ => false,
                };
                if let (true, Outcome::Failed(f)) = (uncaught, &outcome) {
                    let text = format!("{}: {} (not caught: the run ends here)", f.kind.name(), f.message);
                    self.ending = Some(outcome.clone());
                    self.stopped("exception", Some(&text), &[]);
                } else {
                    self.finish(&outcome);
                }
            }
            Stop::Over(outcome) => self.finish(&outcome),
        }
    }

    fn stopped(&self, reason: &str, text: Option<&str>, ids: &[u32]) {
        let mut body = json!({ "reason": reason, "threadId": THREAD, "allThreadsStopped": true });
        if let Some(text) = text {
            body["text"] = json!(text);
            body["description"] = json!(text);
        }
        if !ids.is_empty() {
            body["hitBreakpointIds"] = json!(ids);
        }
        self.out.event("stopped", body);
    }

    /// The run ended: its outcome on the console, the exit status, and the end.
    fn finish(&mut self, outcome: &Outcome) {
        self.out.output("console", &end_text(outcome));
        let code = match outcome {
            Outcome::Failed(f) => f.kind.exit_code(),
            Outcome::Trapped(_) => 70,
            _ => 0,
        };
        self.out.event("exited", json!({ "exitCode": code }));
        self.out.event("terminated", json!({}));
        self.terminated = true;
    }

    fn back(&mut self, message: &Value, to_break: bool) -> Result<Value, String> {
        if !self.journaled {
            return Err(
                "stepping back needs a journal: add \"journal\": \"run.journal\" to the launch configuration"
                    .into(),
            );
        }
        let debugger = self.debugger()?;
        let hits = debugger.go_back(to_break)?;
        let replaying = debugger.replaying();
        self.ending = None;
        self.refs.clear();
        self.out.respond(message, json!({}));
        if replaying {
            self.out.output(
                "console",
                "what the run did from here on is replayed, not done again, until it goes further",
            );
        }
        let reason = if hits.is_empty() { "step" } else { "breakpoint" };
        self.stopped(reason, None, &hits);
        Ok(Value::Null)
    }

    fn stack_trace(&mut self) -> Result<Value, String> {
        let (line_base, column_base) = (self.line_base, self.column_base);
        let source = match &self.opened {
            Some(o) => json!({ "name": o.plan.file_name().map(|n| n.to_string_lossy()), "path": o.plan }),
            None => Value::Null,
        };
        let debugger = self.debugger()?;
        let frames: Vec<Value> = debugger
            .frames()
            .into_iter()
            .enumerate()
            .map(|(id, f)| {
                json!({
                    "id": id,
                    "name": f.name,
                    "line": i64::from(f.line) - line_base,
                    "column": i64::from(f.column) - column_base,
                    "source": source,
                })
            })
            .collect();
        let total = frames.len();
        Ok(json!({ "stackFrames": frames, "totalFrames": total }))
    }

    fn variables(&mut self, message: &Value) -> Result<Value, String> {
        let args: req::Variables = arguments(message)?;
        let mut refs = std::mem::take(&mut self.refs);
        let result = self.debugger().and_then(|d| inspect::variables(d, &mut refs, args.variables_reference));
        self.refs = refs;
        result
    }

    fn evaluate(&mut self, message: &Value) -> Result<Value, String> {
        let args: req::Evaluate = arguments(message)?;
        let expression = args.expression.trim();
        if let Some(rest) = expression.strip_prefix("answer").filter(|r| r.is_empty() || r.starts_with(' ')) {
            return self.answer(message, rest.trim());
        }
        let hover = args.context.as_deref() == Some("hover");
        let mut refs = std::mem::take(&mut self.refs);
        let result = self.debugger().and_then(|d| inspect::evaluate(d, &mut refs, expression, hover));
        self.refs = refs;
        result
    }

    /// `answer continue|approve|reject|N [comment]`: the gate the run waits
    /// at is answered, and the run goes on.
    fn answer(&mut self, message: &Value, text: &str) -> Result<Value, String> {
        let debugger = self.debugger()?;
        let crate::machine::Status::Suspended(crate::machine::Suspension::Interaction { question, line }) =
            debugger.machine.status.clone()
        else {
            return Err("no gate waits for an answer here".into());
        };
        let (word, comment) = match text.split_once(' ') {
            Some((w, c)) => (w, Some(c.trim().to_string()).filter(|c| !c.is_empty())),
            None => (text, None),
        };
        if word.is_empty() {
            return Err(format!(
                "answer what? {}: answer {}",
                question.describe(),
                crate::session::answers::expected_answers(&question)
            ));
        }
        let word = Word::parse(word)?;
        let reply = Reply { word, comment, line: None, origin: "the debug console".into(), entry: None };
        reply.answer(&question, line)?;
        debugger.host.console = Some(reply);
        self.out.respond(
            message,
            json!({ "result": format!("answered {}", question.describe()), "variablesReference": 0 }),
        );
        self.out.event("continued", json!({ "threadId": THREAD, "allThreadsContinued": true }));
        self.run(Mode::Continue, false);
        Ok(Value::Null)
    }

    fn terminate(&mut self, _message: &Value) -> Result<Value, String> {
        if !self.terminated {
            self.terminated = true;
            self.out.event("terminated", json!({}));
        }
        Ok(json!({}))
    }

    fn disconnect(&mut self, message: &Value) -> bool {
        let args: req::Disconnect = arguments(message).unwrap_or_default();
        if args.terminate_debuggee == Some(false)
            && !self.terminated
            && let Some(text) = self.keep()
        {
            self.out.output("console", &text);
        }
        self.out.respond(message, json!({}));
        false
    }

    /// Leaves a snapshot of the run in the snapshot directory; what was done.
    fn keep(&mut self) -> Option<String> {
        let opened = self.opened.as_mut()?;
        if opened.debugger.has_ended() {
            return Some("the plan has ended: no snapshot is left".into());
        }
        let dir = opened.snapshot_dir.now();
        if let Err(e) = std::fs::create_dir_all(&dir) {
            return Some(format!("no snapshot is left: cannot make `{}`: {e}", dir.display()));
        }
        let seconds =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let file: PathBuf = dir.join(format!("debug-{seconds}-{}.snapshot", std::process::id()));
        Some(opened.debugger.save(&file.display().to_string()))
    }

    /// After the last message: the cassette and the log are written out.
    pub fn close(&mut self) {
        if let Some(files) = self.opened.as_mut().and_then(|o| o.project_files.take()) {
            files.after();
        }
        if let Some(opened) = &mut self.opened {
            if let Err(e) = crate::host::Host::persist(&mut opened.debugger.host) {
                eprintln!("tissvm: {e}");
            }
            if let Some(log) = &mut opened.debugger.host.inner.shown().log
                && let Err(e) = log.flush()
            {
                eprintln!("tissvm: writing the log file failed: {e}");
            }
        }
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}
