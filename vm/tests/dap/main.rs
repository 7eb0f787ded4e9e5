//! `tissvm dap` (book: cookbook/debugging.md) driven as an editor drives it: the real binary,
//! messages framed over its stdin and stdout, every request the adapter
//! answers, the protocol's edge cases, and its latency. The npm
//! `DebugClient` drives it too (`editors/vscode/test/dap.test.js`, run by
//! `compiler/tests/editor/vscode_extension.rs`).

#[path = "../common/mod.rs"]
mod common;

mod client;

mod breakpoints;
mod gates_and_failures;
mod latency;
mod protocol;
mod replay;
mod stepping;
mod vscode_client;

use std::path::PathBuf;

use serde_json::{Value, json};

/// A plan with steps, a CALL, a TRY, a typed answer and a gate; the tests
/// name its lines.
pub const PLAN: &str = r#"TASK "debug me"

TYPE Triage = { risk: "low" | "high", files?: LIST OF STRING }

DEFINE_TASK "shout" {
    RUN "echo HELLO"
}

STEP "Prepare" {
    VAR name = "world"
    WRITE "name.txt" FROM name
    LOG "prepared ${name}"
}

STEP "Ask" {
    PROMPT_AGENT "triage this" INTO t AS Triage
    LOG "risk is ${t.risk}"
}

STEP "Check" {
    TRY {
        ASSERT name == "nobody"
    } CATCH AS e {
        LOG "caught ${e.KIND}"
    }
    CALL "shout"
    PAUSE "Go on?"
    RUN "echo done"
}
"#;

/// A directory with `plan.tiss` (holding `plan`) and a workspace `ws/`.
pub struct Setup {
    pub fixture: common::Fixture,
    pub plan: PathBuf,
}

impl Setup {
    pub fn new(plan: &str) -> Setup {
        let fixture = common::Fixture::new();
        let plan = PathBuf::from(fixture.write_plan(plan));
        Setup { fixture, plan }
    }

    /// The launch arguments for the plan, with `extra` fields.
    pub fn launch(&self, extra: Value) -> Value {
        let mut args = json!({
            "plan": self.plan,
            "workdir": self.fixture.ws(),
        });
        for (key, value) in extra.as_object().into_iter().flatten() {
            args[key] = value.clone();
        }
        args
    }

    pub fn client(&self) -> client::Client {
        client::Client::start(self.fixture.root.path())
    }

    /// `setBreakpoints` on the plan: the body.
    pub fn breakpoints(&self, client: &mut client::Client, breakpoints: Value) -> Value {
        client.ok("setBreakpoints", json!({ "source": { "path": self.plan }, "breakpoints": breakpoints }))
    }
}
