//! A host with no operating system: an in-memory workspace, scripted command
//! results, the mock model and scripted human answers. Tests and benches run
//! the machine against it; every effect is recorded in `effects`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::host::{
    Answer, AskedAt, Event, FileQuery, Host, HostError, PromptError, PromptRequest, PromptResponse, Question,
    RunRequest, RunResult, check_relative,
};
use tiss_providers::Provider;
use tiss_providers::mock::MockProvider;

/// How the scripted host answers a RUN.
pub type RunScript = Box<dyn FnMut(&RunRequest) -> Result<RunResult, HostError>>;

pub struct ScriptedHost {
    pub files: BTreeMap<String, String>,
    pub dirs: BTreeSet<String>,
    pub run_script: RunScript,
    pub answers: VecDeque<Answer>,
    /// Every effect in order, as `op subject`.
    pub effects: Vec<String>,
    /// Every logged event, as `event op outcome`.
    pub events: Vec<String>,
    /// The clock advances this much per call to `now_ms`.
    pub tick_ms: u64,
    clock: u64,
    provider: MockProvider,
}

impl Default for ScriptedHost {
    fn default() -> Self {
        ScriptedHost {
            files: BTreeMap::new(),
            dirs: BTreeSet::new(),
            run_script: Box::new(|req| {
                Ok(RunResult {
                    command: req.command.clone(),
                    stdout: String::new(),
                    stderr: String::new(),
                    exit_code: 0,
                    duration_ms: 1,
                    timed_out: false,
                })
            }),
            answers: VecDeque::new(),
            effects: Vec::new(),
            events: Vec::new(),
            tick_ms: 0,
            clock: 0,
            provider: MockProvider::default(),
        }
    }
}

fn normalize(path: &str) -> Result<String, HostError> {
    check_relative(path).map_err(HostError::Security)?;
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    Ok(parts.join("/"))
}

impl ScriptedHost {
    /// A host whose RUN answers come from `script`.
    pub fn with_runs(script: impl FnMut(&RunRequest) -> Result<RunResult, HostError> + 'static) -> Self {
        ScriptedHost { run_script: Box::new(script), ..ScriptedHost::default() }
    }
}

impl Host for ScriptedHost {
    fn run(&mut self, request: &RunRequest) -> Result<RunResult, HostError> {
        self.effects.push(format!("run {}", request.command));
        (self.run_script)(request)
    }

    fn read(&mut self, path: &str) -> Result<String, HostError> {
        let path = normalize(path)?;
        self.effects.push(format!("read {path}"));
        self.files
            .get(&path)
            .cloned()
            .ok_or_else(|| HostError::Command(format!("cannot read `{path}`: no such file")))
    }

    fn write(&mut self, path: &str, content: &str, append: bool) -> Result<(), HostError> {
        let path = normalize(path)?;
        self.effects.push(format!("{} {path}", if append { "append" } else { "write" }));
        let entry = self.files.entry(path).or_default();
        if !append {
            entry.clear();
        }
        entry.push_str(content);
        Ok(())
    }

    fn mkdir(&mut self, path: &str) -> Result<(), HostError> {
        let path = normalize(path)?;
        self.effects.push(format!("mkdir {path}"));
        self.dirs.insert(path);
        Ok(())
    }

    fn delete(&mut self, path: &str, recursive: bool) -> Result<(), HostError> {
        let path = normalize(path)?;
        self.effects.push(format!("delete {path}"));
        let prefix = format!("{path}/");
        let children = self.files.keys().any(|k| k.starts_with(&prefix));
        if self.files.remove(&path).is_some() {
            return Ok(());
        }
        if self.dirs.contains(&path) || children {
            if children && !recursive {
                return Err(HostError::Command(format!(
                    "`{path}` is a non-empty directory: use DELETE ... RECURSIVE"
                )));
            }
            self.files.retain(|k, _| !k.starts_with(&prefix));
            self.dirs.retain(|d| d != &path && !d.starts_with(&prefix));
            return Ok(());
        }
        Err(HostError::Command(format!("cannot delete `{path}`: no such file or directory")))
    }

    fn file_test(&mut self, path: &str, query: FileQuery<'_>) -> Result<bool, HostError> {
        let path = normalize(path)?;
        let file = self.files.get(&path);
        Ok(match query {
            FileQuery::Exists => file.is_some() || self.dirs.contains(&path),
            FileQuery::IsEmpty => file.is_some_and(|f| f.is_empty()),
            FileQuery::Contains(needle) => file.is_some_and(|f| f.contains(needle)),
        })
    }

    fn prompt(&mut self, request: &PromptRequest) -> Result<PromptResponse, PromptError> {
        self.effects.push(format!("prompt {}", request.query));
        self.provider.complete(request, &mut |_| {})
    }

    fn ask(&mut self, question: &Question, _at: AskedAt<'_>) -> Option<Answer> {
        let answer = self.answers.pop_front();
        if answer.is_some() {
            self.effects.push(format!("ask {question:?}"));
        }
        answer
    }

    fn now_ms(&mut self) -> u64 {
        self.clock += self.tick_ms;
        self.clock
    }

    fn log(&mut self, event: &Event<'_>) {
        self.events.push(format!("{} {} {}", event.event, event.op, event.outcome));
    }
}
