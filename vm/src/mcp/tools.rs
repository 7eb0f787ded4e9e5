//! The tools, their JSON Schemas, the reports kept as resources, and the
//! prompt that teaches a model to write a plan.

use serde_json::{Value, json};

use super::plans::{plan, under_root};
use super::runs::{self, Ran};
use super::{McpOptions, Peer, RpcError, checks};

/// The server's state across calls: its options, and the reports of the
/// runs and replays it made (resources `tiss://reports/N`).
pub struct State {
    options: McpOptions,
    reports: Vec<Value>,
}

/// A plan as text or as a path, the input of most tools.
fn plan_input(extra: Value) -> Value {
    let mut properties = json!({
        "plan": { "type": "string", "description": "The plan's text (TissLang source)." },
        "path": { "type": "string", "description": "The plan's path, under the server's workspace root." },
    });
    for (key, value) in extra.as_object().into_iter().flatten() {
        properties[key] = value.clone();
    }
    json!({ "type": "object", "properties": properties, "additionalProperties": false })
}

fn tool(name: &str, description: &str, input: Value, output: Value) -> Value {
    json!({ "name": name, "description": description, "inputSchema": input, "outputSchema": output })
}

/// The diagnostics' output schema (`check`, `lint`).
fn diagnostics_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "compiles": { "type": "boolean" },
            "errors": { "type": "integer" },
            "warnings": { "type": "integer" },
            "diagnostics": { "type": "array", "items": { "type": "object" } },
        },
        "required": ["compiles", "errors", "warnings", "diagnostics"],
    })
}

/// Whatever JSON the command printed (its shape is the CLI's, documented there).
fn command_output() -> Value {
    json!({ "type": "object" })
}

pub fn list() -> Vec<Value> {
    vec![
        tool(
            "check",
            "Compile-check a TissLang plan: its errors, each with line, column, code and suggested fixes.",
            plan_input(json!({})),
            diagnostics_output(),
        ),
        tool(
            "lint",
            "Check a plan and, when it has no errors, its lint warnings (RUN without TIMEOUT, unchecked RUN, \
             prompts without budgets...), each with suggested fixes.",
            plan_input(json!({})),
            diagnostics_output(),
        ),
        tool(
            "fix",
            "Apply the machine-applicable fixes to a plan: the patch (unified diff), the fixed text, and the \
             errors left. Nothing is written.",
            plan_input(json!({})),
            json!({
                "type": "object",
                "properties": {
                    "changes": { "type": "integer" },
                    "compiles": { "type": "boolean" },
                    "patch": { "type": "string" },
                    "fixed": { "type": "string" },
                    "remaining_errors": { "type": "array" },
                },
                "required": ["changes", "compiles", "patch", "fixed", "remaining_errors"],
            }),
        ),
        tool(
            "inspect",
            "The plan's manifest for review: every command, path, model and human interaction, taint flows from \
             models and files into RUN, the risk level with reasons, and the isolation its RUNs would get.",
            plan_input(json!({})),
            command_output(),
        ),
        tool(
            "estimate",
            "The plan's static cost bounds ([min, max] per dimension, per step and in total), without running it.",
            plan_input(json!({})),
            command_output(),
        ),
        tool(
            "run",
            "Run the plan under the server's sandbox profile, policy and budgets (which no argument can change), \
             in `workdir` under the workspace root (default: the root). Gates (PAUSE, REQUEST_REVIEW, CHOOSE, \
             approvals) are asked of the human through the client; without an answer the run stays suspended \
             and the result names the command a human runs. Returns the report and its id.",
            plan_input(json!({
                "workdir": { "type": "string", "description": "The workspace, under the workspace root." },
            })),
            command_output(),
        ),
        tool(
            "replay",
            "Replay a recorded run from its journal (`--journal` of an earlier run): nothing is run, written or \
             asked; the report is the recorded run's. With `path`, a changed plan replays up to the first effect \
             that differs.",
            json!({
                "type": "object",
                "properties": {
                    "journal": { "type": "string", "description": "The journal, under the workspace root." },
                    "path": { "type": "string", "description": "The plan to replay, under the workspace root (default: the bytecode the journal recorded)." },
                },
                "required": ["journal"],
                "additionalProperties": false,
            }),
            command_output(),
        ),
        tool(
            "report",
            "A report of a run or replay this server made, by the id its result gave.",
            json!({
                "type": "object",
                "properties": { "id": { "type": "integer", "minimum": 1 } },
                "required": ["id"],
                "additionalProperties": false,
            }),
            command_output(),
        ),
    ]
}

/// Refuses arguments a tool's schema does not declare: no argument can
/// reach an option the server fixed.
fn only_declared(name: &str, arguments: &Value) -> Result<(), RpcError> {
    let tool = list()
        .into_iter()
        .find(|t| t["name"] == name)
        .ok_or_else(|| RpcError::params(format!("no tool `{name}`")))?;
    let declared = &tool["inputSchema"]["properties"];
    let Some(given) = arguments.as_object() else {
        return Err(RpcError::params(format!("the arguments of `{name}` must be an object")));
    };
    for (key, value) in given {
        let Some(schema) = declared.get(key) else {
            return Err(RpcError::params(format!(
                "`{name}` takes no argument `{key}`: the sandbox, policy and budgets are the server's (its command \
                 line), not a tool call's"
            )));
        };
        let fits = match schema["type"].as_str() {
            Some("string") => value.is_string(),
            Some("integer") => value.is_u64(),
            _ => true,
        };
        if !fits {
            return Err(RpcError::params(format!("`{key}` of `{name}` must be a {}", schema["type"])));
        }
    }
    for key in tool["inputSchema"]["required"].as_array().into_iter().flatten() {
        if !given.contains_key(key.as_str().unwrap_or("")) {
            return Err(RpcError::params(format!("`{name}` needs `{}`", key.as_str().unwrap_or(""))));
        }
    }
    Ok(())
}

/// A tool's result: the JSON as text and as structured content.
fn result(structured: Value, is_error: bool) -> Value {
    let text = serde_json::to_string_pretty(&structured).unwrap_or_default();
    json!({ "content": [{ "type": "text", "text": text }], "structuredContent": structured, "isError": is_error })
}

impl State {
    pub fn new(options: McpOptions) -> State {
        State { options, reports: Vec::new() }
    }

    pub fn call(&mut self, params: &Value, peer: &mut Peer) -> Result<Value, RpcError> {
        let name =
            params["name"].as_str().ok_or_else(|| RpcError::params("tools/call needs a tool `name`"))?;
        let arguments = params.get("arguments").cloned().unwrap_or(json!({}));
        only_declared(name, &arguments)?;
        let root = self.options.root.clone();
        match name {
            "check" => Ok(result(checks::diagnostics(&plan(&root, &arguments)?, false), false)),
            "lint" => Ok(result(checks::diagnostics(&plan(&root, &arguments)?, true), false)),
            "fix" => Ok(result(checks::fix(&plan(&root, &arguments)?), false)),
            "inspect" => Ok(command_result(runs::inspect(&self.options, &plan(&root, &arguments)?.path)?)),
            "estimate" => Ok(command_result(runs::estimate(&self.options, &plan(&root, &arguments)?.path)?)),
            "run" => {
                let plan = plan(&root, &arguments)?;
                let workdir = runs::workdir(&self.options, &arguments)?;
                let (ran, gates) = runs::run(&self.options, &plan.path, &workdir, peer)?;
                Ok(self.keep(ran, gates))
            }
            "replay" => {
                let journal = under_root(&root, arguments["journal"].as_str().unwrap_or(""), "journal")?;
                let plan = arguments["path"].as_str().map(|p| under_root(&root, p, "plan")).transpose()?;
                let ran = runs::replay(&self.options, &journal, plan.as_deref())?;
                Ok(self.keep(ran, json!({})))
            }
            "report" => {
                let id = arguments["id"].as_u64().unwrap_or(0) as usize;
                match id.checked_sub(1).and_then(|i| self.reports.get(i)) {
                    Some(report) => Ok(result(report.clone(), false)),
                    None => Err(RpcError::params(format!(
                        "no report {id}: this server made {}",
                        self.reports.len()
                    ))),
                }
            }
            other => Err(RpcError::params(format!("no tool `{other}`"))),
        }
    }

    /// A run's or replay's result: its report kept (with an id) when it has
    /// one, else the command's error.
    fn keep(&mut self, ran: Ran, extra: Value) -> Value {
        let Some(report) = ran.json else {
            return result(json!({ "exit_code": ran.code, "error": ran.stderr.trim() }), true);
        };
        self.reports.push(report.clone());
        let id = self.reports.len();
        let mut out = json!({ "id": id, "uri": format!("tiss://reports/{id}"), "exit_code": ran.code, "report": report });
        for (key, value) in extra.as_object().into_iter().flatten() {
            out[key] = value.clone();
        }
        result(out, false)
    }

    pub fn resources(&self) -> Value {
        let list: Vec<Value> = (1..=self.reports.len())
            .map(|id| {
                json!({
                    "uri": format!("tiss://reports/{id}"),
                    "name": format!("report {id}"),
                    "description": format!("the report of run {id}: {}", self.reports[id - 1]["status"]),
                    "mimeType": "application/json",
                })
            })
            .collect();
        json!({ "resources": list })
    }

    pub fn read_resource(&self, params: &Value) -> Result<Value, RpcError> {
        let uri = params["uri"].as_str().unwrap_or("");
        let report = uri
            .strip_prefix("tiss://reports/")
            .and_then(|id| id.parse::<usize>().ok())
            .and_then(|id| self.reports.get(id.checked_sub(1)?))
            .ok_or_else(|| {
                RpcError::params(format!("no resource `{uri}`: reports are tiss://reports/1 and on"))
            })?;
        let text = serde_json::to_string_pretty(report).unwrap_or_default();
        Ok(json!({ "contents": [{ "uri": uri, "mimeType": "application/json", "text": text }] }))
    }
}

/// A command's JSON, or its error (exit 2: the plan is invalid).
fn command_result(ran: Ran) -> Value {
    match ran.json {
        Some(json) => result(json, ran.code != 0),
        None => result(json!({ "exit_code": ran.code, "error": ran.stderr.trim() }), true),
    }
}

pub fn prompts() -> Vec<Value> {
    vec![json!({
        "name": "write_plan",
        "description": "How to write a TissLang plan for a goal: the language, an example and its grammar.",
        "arguments": [{ "name": "goal", "description": "What the plan should do.", "required": true }],
    })]
}

pub fn prompt(params: &Value) -> Result<Value, RpcError> {
    if params["name"] != "write_plan" {
        return Err(RpcError::params(format!("no prompt `{}`: the prompt is write_plan", params["name"])));
    }
    let goal =
        params["arguments"]["goal"].as_str().ok_or_else(|| RpcError::params("write_plan needs a `goal`"))?;
    let text = format!(
        "{}\n\nAn example:\n\n{}\n\nThe grammar (EBNF):\n\n{}\n\nWrite a plan for this goal, then check it with the `check` \
         tool and fix what it reports:\n\n{goal}",
        tiss_compiler::generate::prompt::system(),
        tiss_compiler::generate::prompt::EXAMPLE,
        tiss_compiler::generate::grammar::ebnf(),
    );
    Ok(json!({
        "description": "Write a TissLang plan",
        "messages": [{ "role": "user", "content": { "type": "text", "text": text } }],
    }))
}
