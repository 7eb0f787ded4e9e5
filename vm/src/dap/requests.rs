//! The arguments of the requests the adapter answers, as DAP defines them
//! (the fields it reads; unknown ones are ignored, as the protocol asks),
//! and what it announces at `initialize`.

use serde::Deserialize;
use serde_json::{Value, json};

/// `initialize`: how the client counts lines and columns.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Initialize {
    #[serde(default = "yes")]
    pub lines_start_at1: bool,
    #[serde(default = "yes")]
    pub columns_start_at1: bool,
}

fn yes() -> bool {
    true
}

/// `launch` (book: cookbook/debugging.md).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Launch {
    pub plan: String,
    #[serde(default)]
    pub workdir: Option<String>,
    /// Further `tissvm run` options, as words.
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub stop_on_entry: bool,
    /// Where the run's journal goes; with one, stepping back is offered.
    #[serde(default)]
    pub journal: Option<String>,
    /// Where `disconnect` leaves a snapshot (default: where `run` would).
    #[serde(default)]
    pub snapshot_dir: Option<String>,
    #[serde(default)]
    pub no_debug: bool,
    /// A journal to replay instead of running: nothing is run or written.
    #[serde(default)]
    pub replay: Option<String>,
}

/// `attach` to a snapshot: resume it under the debugger.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attach {
    pub snapshot: String,
    #[serde(default)]
    pub workdir: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub snapshot_dir: Option<String>,
    #[serde(default)]
    pub journal: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct Source {
    #[serde(default)]
    pub path: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceBreakpoint {
    pub line: i64,
    #[serde(default)]
    pub condition: Option<String>,
    #[serde(default)]
    pub hit_condition: Option<String>,
    #[serde(default)]
    pub log_message: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct SetBreakpoints {
    pub source: Source,
    #[serde(default)]
    pub breakpoints: Vec<SourceBreakpoint>,
}

#[derive(Debug, Deserialize)]
pub struct SetExceptionBreakpoints {
    #[serde(default)]
    pub filters: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Variables {
    pub variables_reference: i64,
}

#[derive(Debug, Deserialize)]
pub struct Evaluate {
    pub expression: String,
    #[serde(default)]
    pub context: Option<String>,
}

#[derive(Debug, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Disconnect {
    #[serde(default)]
    pub terminate_debuggee: Option<bool>,
}

/// The exception filters (book: cookbook/debugging.md): failures caught or not, and gates.
pub const ASSERTION_FILTER: &str = "assertion_failed";
pub const FAILURE_FILTER: &str = "failure";
pub const GATE_FILTER: &str = "gate";

/// What the adapter supports, exactly.
pub fn capabilities() -> Value {
    json!({
        "supportsConfigurationDoneRequest": true,
        "supportsConditionalBreakpoints": true,
        "supportsHitConditionalBreakpoints": true,
        "supportsLogPoints": true,
        "supportsEvaluateForHovers": true,
        "supportsStepBack": true,
        "supportsTerminateRequest": true,
        "supportTerminateDebuggee": true,
        "supportsExceptionInfoRequest": false,
        "supportsSetVariable": false,
        "supportsRestartRequest": false,
        "supportsFunctionBreakpoints": false,
        "exceptionBreakpointFilters": [
            {
                "filter": ASSERTION_FILTER,
                "label": "Assertion failures",
                "description": "Stop where an ASSERT fails, caught by a TRY or not",
                "default": true,
            },
            {
                "filter": FAILURE_FILTER,
                "label": "Any failure",
                "description": "Stop at every failure (a command error, a timeout, a budget...), caught or not",
                "default": false,
            },
            {
                "filter": GATE_FILTER,
                "label": "Gates",
                "description": "Stop at every PAUSE, REQUEST_REVIEW, CHOOSE and policy approval, and answer it in \
                                the debug console: answer continue|approve|reject|N [comment]",
                "default": true,
            },
        ],
    })
}

/// A request's arguments as `T`, or the message of an error response.
pub fn arguments<T: for<'de> Deserialize<'de>>(request: &Value) -> Result<T, String> {
    let arguments = request.get("arguments").cloned().unwrap_or(json!({}));
    serde_json::from_value(arguments).map_err(|e| {
        format!(
            "the arguments of `{}` are not as DAP defines them: {e}",
            request["command"].as_str().unwrap_or("?")
        )
    })
}
