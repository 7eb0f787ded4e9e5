//! The JSON report (book: reference/formats.md): one object on stdout.

use serde_json::{Value as Json, json};
use tisslang::cost::PerDim;

use super::{RunReport, RunStatus};
use crate::machine::value::Value;

impl RunReport {
    pub fn to_json(&self) -> Json {
        let failure = match &self.status {
            RunStatus::Failed(f) => {
                let mut obj = json!({
                    "kind": f.kind.name(),
                    "message": f.message,
                    "step": f.step,
                    "line": f.line,
                    "column": f.column,
                    "condition": f.condition,
                    "command": f.command.as_ref().map(|run| json!({
                        "command": run.command,
                        "exit_code": run.exit_code,
                        "timed_out": run.timed_out,
                        "duration_ms": run.duration_ms,
                        "stdout": run.stdout,
                        "stderr": run.stderr,
                    })),
                    "actual": f.actual.iter().map(|(k, v)| (k.clone(), value_json(v.as_ref()))).collect::<serde_json::Map<_, _>>(),
                });
                if let Some(b) = &f.budget {
                    obj["dimension"] = json!(b.dimension);
                    obj["cap"] = json!(b.cap);
                    obj["spent"] = json!(b.spent);
                    obj["needed"] = json!(b.needed);
                    obj["reason"] = json!(b.reason);
                }
                obj
            }
            _ => Json::Null,
        };
        let snapshot = match &self.status {
            RunStatus::Suspended { snapshot: Some(s), .. } => json!(s),
            _ => Json::Null,
        };
        let cost: serde_json::Map<String, Json> =
            self.cost.iter().map(|(d, v)| (d.json_key().to_string(), json!(v))).collect();
        json!({
            "status": self.status_name(),
            "exit_code": self.exit_code(),
            "task": self.task,
            "duration_ms": self.duration_ms,
            "steps": self.steps.iter().map(|s| json!({
                "name": s.name, "status": s.status, "line": s.line, "duration_ms": s.duration_ms,
                "cost": cost_json(&s.cost), "logs": s.logs,
            })).collect::<Vec<_>>(),
            "failure": failure,
            "cost": cost,
            "snapshot": snapshot,
            "sandbox": self.sandbox.as_ref().map_or(Json::Null, |s| s.json()),
            "budgets": Json::Object(self.budgets.iter().map(|(d, cap)| (d.json_key().to_string(), json!(cap))).collect()),
            "effects": self.effects.to_json(),
            "effects_omitted": self.effects.omitted,
        })
    }
}

/// A cost per dimension as the JSON object of book: reference/formats.md (`api_calls`, ...).
fn cost_json(cost: &PerDim<u64>) -> Json {
    Json::Object(cost.iter().map(|(d, v)| (d.json_key().to_string(), json!(v))).collect())
}

/// A value the failure saw, with its type: integers and booleans as JSON's,
/// a duration as its milliseconds (as every `_ms` field), a typed answer as
/// its JSON, `null` if unread.
fn value_json(value: Option<&Value>) -> Json {
    match value {
        Some(Value::Str(s) | Value::Tainted(s)) => json!(&**s),
        Some(Value::Int(i)) => json!(i),
        Some(Value::Duration(ms)) => json!(ms),
        Some(Value::Bool(b)) => json!(b),
        Some(record @ Value::Record(_)) => json!(record.to_text()),
        // A typed answer as the JSON it is (book: reference/types.md).
        Some(Value::Answer(a)) => serde_json::from_str(&a.json).unwrap_or_else(|_| json!(&*a.json)),
        None => Json::Null,
    }
}
