//! The tools that run `tissvm` itself, in a process of its own, with the
//! server's caps: `inspect`, `estimate`, `run` (and its gates), `replay`.
//! A process per call keeps a plan's run apart from the server: its
//! sandbox, its signals, its memory; what comes back is the command's own
//! JSON, byte for byte what the CLI prints.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::host::Question;
use crate::machine::{Status, Suspension};
use crate::session::{resume_command, snapshot};

use super::{McpOptions, Peer, RpcError};

/// What a `tissvm` command gave: its exit status, its JSON (if it printed
/// one) and its stderr.
pub struct Ran {
    pub code: i32,
    pub json: Option<Value>,
    pub stderr: String,
}

/// `tissvm ARGS` in the workspace root.
pub fn tissvm(options: &McpOptions, args: &[String]) -> Result<Ran, RpcError> {
    let exe =
        std::env::current_exe().map_err(|e| RpcError::params(format!("cannot find tissvm itself: {e}")))?;
    let out = Command::new(exe)
        .args(args)
        .current_dir(&options.root)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| RpcError::params(format!("cannot start tissvm: {e}")))?;
    Ok(Ran {
        code: out.status.code().unwrap_or(70),
        json: serde_json::from_slice(&out.stdout).ok(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// The options among the server's run options that `inspect` also takes.
fn review_options(options: &McpOptions) -> Vec<String> {
    let mut kept = Vec::new();
    let mut words = options.run_args.iter();
    while let Some(word) = words.next() {
        for flag in ["--policy", "--sandbox-profile"] {
            if word == flag {
                kept.push(word.clone());
                kept.extend(words.next().cloned());
            } else if word.starts_with(&format!("{flag}=")) {
                kept.push(word.clone());
            }
        }
    }
    kept
}

fn path_word(path: &Path) -> String {
    path.display().to_string()
}

pub fn inspect(options: &McpOptions, plan: &Path) -> Result<Ran, RpcError> {
    let mut args = vec!["inspect".to_string(), path_word(plan), "--output-format".into(), "json".into()];
    args.extend(review_options(options));
    tissvm(options, &args)
}

pub fn estimate(options: &McpOptions, plan: &Path) -> Result<Ran, RpcError> {
    tissvm(options, &["estimate".into(), path_word(plan), "--output-format".into(), "json".into()])
}

pub fn replay(options: &McpOptions, journal: &Path, plan: Option<&Path>) -> Result<Ran, RpcError> {
    let mut args = vec!["replay".to_string(), path_word(journal)];
    args.extend(plan.map(path_word));
    args.extend(["--output-format".into(), "json".into()]);
    tissvm(options, &args)
}

/// `run`, then, while it waits at a gate, the human's answer through the
/// client, and `resume` with it. The last report, and what the gate
/// needs if the run still waits.
pub fn run(
    options: &McpOptions,
    plan: &Path,
    workdir: &Path,
    peer: &mut Peer,
) -> Result<(Ran, Value), RpcError> {
    let mut args = vec!["run".to_string(), path_word(plan), "--workdir".into(), path_word(workdir)];
    args.extend(["--output-format".into(), "json".into(), "--non-interactive".into()]);
    args.extend(options.run_args.iter().cloned());
    let mut ran = tissvm(options, &args)?;
    let mut gates = Vec::new();
    loop {
        if ran.code != 3 {
            return Ok((ran, json!({ "gates": gates })));
        }
        let Some(snapshot) =
            ran.json.as_ref().and_then(|r| r["snapshot"].as_str()).map(|s| options.root.join(s))
        else {
            return Ok((ran, json!({ "gates": gates })));
        };
        let waiting = waiting_at(&snapshot);
        let Some(question) = waiting.as_ref() else {
            // Suspended by a signal, not a gate: a human resumes it.
            return Ok((ran, suspended(&snapshot, None, gates, "the run was suspended (not at a gate)")));
        };
        if !peer.elicits {
            let why =
                "the client cannot ask a human (no elicitation): a human answers with the command below";
            return Ok((ran, suspended(&snapshot, Some(question), gates, why)));
        }
        let Some((answer, comment)) = ask_human(peer, question) else {
            let why = "the human did not answer (declined or cancelled): the run stays suspended for a human";
            return Ok((ran, suspended(&snapshot, Some(question), gates, why)));
        };
        gates.push(json!({ "gate": question.describe(), "answer": answer, "comment": comment }));
        let mut args = vec!["resume".to_string(), path_word(&snapshot), "--answer".into(), answer];
        if let Some(comment) = comment {
            args.extend(["--comment".into(), comment]);
        }
        args.extend(["--output-format".into(), "json".into(), "--non-interactive".into()]);
        args.extend(options.run_args.iter().cloned());
        ran = tissvm(options, &args)?;
    }
}

/// The question a snapshot's run waits for, if it waits at a gate.
fn waiting_at(snapshot: &Path) -> Option<Question> {
    let bytes = std::fs::read(snapshot).ok()?;
    match snapshot::read_snapshot(&bytes).ok()?.machine.status {
        Status::Suspended(Suspension::Interaction { question, .. }) => Some(question),
        _ => None,
    }
}

fn suspended(snapshot: &Path, question: Option<&Question>, gates: Vec<Value>, why: &str) -> Value {
    json!({
        "gates": gates,
        "waiting": question.map(Question::describe),
        "why": why,
        "resume": resume_command::commands(snapshot, None, question),
    })
}

/// Asks the human, through the client, to answer `question`: the
/// `--answer` word and comment, or `None` if they did not answer.
fn ask_human(peer: &mut Peer, question: &Question) -> Option<(String, Option<String>)> {
    let decision = json!({ "type": "string", "enum": ["approve", "reject"], "title": "Decision" });
    let comment = json!({ "type": "string", "title": "Comment" });
    let (message, schema) = match question {
        Question::Pause { message } => (
            format!("The plan paused: {message}\nContinue it?"),
            json!({ "type": "object", "properties": { "continue": { "type": "boolean", "title": "Continue" } }, "required": ["continue"] }),
        ),
        Question::Review { message } => (
            format!("The plan asks for a review: {message}"),
            json!({ "type": "object", "properties": { "decision": decision, "comment": comment }, "required": ["decision"] }),
        ),
        Question::Approval { command, reason } => (
            format!("The plan wants to run `{command}`, which needs approval: {reason}"),
            json!({ "type": "object", "properties": { "decision": decision, "comment": comment }, "required": ["decision"] }),
        ),
        Question::Choose { prompt, options } => (
            prompt.clone().unwrap_or_else(|| "The plan asks you to choose".into()),
            json!({
                "type": "object",
                "properties": { "option": { "type": "string", "enum": options, "title": "Option" } },
                "required": ["option"],
            }),
        ),
    };
    let reply = peer.elicit(&message, schema)?;
    if reply["action"] != "accept" {
        return None;
    }
    let content = &reply["content"];
    let comment = content["comment"].as_str().map(str::to_string).filter(|c| !c.is_empty());
    match question {
        Question::Pause { .. } => (content["continue"] == true).then(|| ("continue".to_string(), None)),
        Question::Review { .. } | Question::Approval { .. } => match content["decision"].as_str()? {
            word @ ("approve" | "reject") => Some((word.to_string(), comment)),
            _ => None,
        },
        Question::Choose { options, .. } => {
            let chosen = content["option"].as_str()?;
            let at = options.iter().position(|o| o == chosen)?;
            Some(((at + 1).to_string(), None))
        }
    }
}

/// A workspace under the root: `workdir` if given, else the root.
pub fn workdir(options: &McpOptions, arguments: &Value) -> Result<PathBuf, RpcError> {
    match arguments["workdir"].as_str() {
        Some(dir) => super::plans::under_root(&options.root, dir, "workdir"),
        None => Ok(options.root.clone()),
    }
}
