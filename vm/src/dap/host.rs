//! The host a DAP session runs on: the real one (`OsHost`), or a journal's
//! replay (`ReplayHost`: nothing is run or written, every effect comes
//! from the journal). LOG lines and RUN output also go to the client as
//! `output` events; a live run's gates (PAUSE, REQUEST_REVIEW, CHOOSE,
//! policy approvals) are answered from the debug console (`answer ...`).

use crate::host::{
    Answer, AskedAt, Detail, Event, FileQuery, Host, HostError, PromptError, PromptRequest, PromptResponse,
    Question, RunRequest, RunResult,
};
use crate::runner::os_host::OsHost;
use crate::runner::replay::host::{ReplayHost, Stop};
use crate::session::answers::Reply;

use super::wire::Writer;

/// What the session's effects come from.
pub enum Inner {
    Live(Box<OsHost>),
    Replay(Box<ReplayHost>),
}

impl Inner {
    fn host(&mut self) -> &mut dyn Host {
        match self {
            Inner::Live(host) => &mut **host,
            Inner::Replay(host) => &mut **host,
        }
    }

    /// The host that shows the run (the replay's is for show).
    pub fn shown(&mut self) -> &mut OsHost {
        match self {
            Inner::Live(host) => host,
            Inner::Replay(host) => &mut host.shown,
        }
    }
}

pub struct DapHost {
    pub inner: Inner,
    out: Writer,
    /// The gates exception filter: every gate stops the run, even one an
    /// `--answers` file would answer, until the console answers it.
    pub stop_at_gates: bool,
    /// The console's answer to the gate the run waits at.
    pub console: Option<Reply>,
}

impl DapHost {
    pub fn new(inner: Inner, out: Writer) -> DapHost {
        DapHost { inner, out, stop_at_gates: true, console: None }
    }

    /// Why a replay stopped before the plan did, and the exit status
    /// `tissvm replay` gives for it ([`Stop::status`]).
    pub fn replay_stop(&self) -> Option<(String, u8)> {
        let Inner::Replay(host) = &self.inner else { return None };
        let stop = host.stop.as_ref()?;
        let message = match stop {
            Stop::Diverged { recorded, requested } => {
                format!(
                    "the replay diverged: the journal recorded {recorded}, and the plan asks for {requested}"
                )
            }
            Stop::Incomplete { what } => {
                format!("the replay needs the whole output of {what}, which the journal kept only in part")
            }
            Stop::Unreadable(message) => message.clone(),
        };
        Some((message, stop.status()))
    }
}

impl Host for DapHost {
    fn run(&mut self, request: &RunRequest) -> Result<RunResult, HostError> {
        self.inner.host().run(request)
    }
    fn read(&mut self, path: &str) -> Result<String, HostError> {
        self.inner.host().read(path)
    }
    fn write(&mut self, path: &str, content: &str, append: bool) -> Result<(), HostError> {
        self.inner.host().write(path, content, append)
    }
    fn mkdir(&mut self, path: &str) -> Result<(), HostError> {
        self.inner.host().mkdir(path)
    }
    fn delete(&mut self, path: &str, recursive: bool) -> Result<(), HostError> {
        self.inner.host().delete(path, recursive)
    }
    fn file_test(&mut self, path: &str, query: FileQuery<'_>) -> Result<bool, HostError> {
        self.inner.host().file_test(path, query)
    }
    fn prompt(&mut self, request: &PromptRequest) -> Result<PromptResponse, PromptError> {
        self.inner.host().prompt(request)
    }

    fn ask(&mut self, question: &Question, at: AskedAt<'_>) -> Option<Answer> {
        let Inner::Live(live) = &mut self.inner else {
            // A replay answers as the run was answered.
            return self.inner.host().ask(question, at);
        };
        match self.console.take() {
            // Asked through the host, so the journal and the answers count keep it.
            Some(reply) => live.answers.push_front(reply),
            None if self.stop_at_gates => return None,
            None => {}
        }
        live.ask(question, at)
    }

    fn now_ms(&mut self) -> u64 {
        self.inner.host().now_ms()
    }

    fn completion_tokens(&self) -> u64 {
        match &self.inner {
            Inner::Live(host) => host.completion_tokens(),
            Inner::Replay(host) => host.completion_tokens(),
        }
    }

    fn log(&mut self, event: &Event<'_>) {
        match event.event {
            "log" => self.out.output("stdout", event.op),
            "run" => {
                self.out.output("console", &format!("RUN {} ({})", event.op, event.outcome));
                for (key, detail) in event.details {
                    if let (Detail::Text(text), "stdout" | "stderr") = (detail, *key)
                        && !text.is_empty()
                    {
                        self.out.output(key, text);
                    }
                }
            }
            _ => {}
        }
        self.inner.host().log(event);
    }

    fn persist(&mut self) -> Result<(), String> {
        self.inner.host().persist()
    }
}
