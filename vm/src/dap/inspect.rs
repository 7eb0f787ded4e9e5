//! What the client sees of a paused run: scopes (the plan's variables,
//! `LAST_RUN`, `COST` against the budgets), variables with their types and
//! taint, typed answers' fields and lists expandable, and `evaluate` of a
//! name, a field path or a condition.

use serde_json::{Value as Json, json};
use tisslang::answer::{AnswerValue, Shape};
use tisslang::cost::Dim;

use crate::host::Host;
use crate::machine::value::{Record, Value};
use crate::session::debugger::probe::ProbeKind;
use crate::session::debugger::{Debugger, record_fields, show};

/// The fixed references of the three scopes; values opened below them get
/// references from [`FIRST_DYNAMIC`] on, good until the run goes on.
pub const VARIABLES: i64 = 1;
pub const LAST_RUN: i64 = 2;
pub const COST: i64 = 3;
const FIRST_DYNAMIC: i64 = 100;

/// Characters of a value shown in the variables view.
const VALUE_LIMIT: usize = 200;
/// Items of a list shown.
const ITEMS_LIMIT: usize = 1000;

/// Values the client may open, by reference.
#[derive(Default)]
pub struct Refs {
    values: Vec<Value>,
}

impl Refs {
    /// Forgets every reference: the run went on.
    pub fn clear(&mut self) {
        self.values.clear();
    }

    /// A reference to `value` if it can be opened (a record or a typed
    /// list or record), else 0.
    fn keep(&mut self, value: &Value) -> i64 {
        match value {
            Value::Record(_) | Value::Answer(_) => {
                self.values.push(value.clone());
                FIRST_DYNAMIC + self.values.len() as i64 - 1
            }
            _ => 0,
        }
    }

    fn get(&self, reference: i64) -> Option<&Value> {
        self.values.get(usize::try_from(reference.checked_sub(FIRST_DYNAMIC)?).ok()?)
    }
}

pub fn scopes(last_run: bool) -> Json {
    let mut scopes =
        vec![json!({ "name": "Variables", "variablesReference": VARIABLES, "expensive": false })];
    if last_run {
        scopes.push(json!({ "name": "LAST_RUN", "variablesReference": LAST_RUN, "expensive": false }));
    }
    scopes.push(json!({ "name": "COST", "variablesReference": COST, "expensive": false }));
    json!({ "scopes": scopes })
}

/// A value's type as the variables view shows it, its taint included.
fn type_of<H: Host>(debugger: &Debugger<H>, value: &Value, declared: Option<String>) -> String {
    let ty = match value {
        Value::Answer(answer) => debugger.program.shapes.describe(answer.shape),
        _ => declared.unwrap_or_else(|| value.type_name().to_string()),
    };
    let tainted = match value {
        Value::Tainted(_) => true,
        Value::Answer(answer) => answer.tainted,
        _ => false,
    };
    if tainted { format!("{ty} (tainted: from a model or a file)") } else { ty }
}

fn variable<H: Host>(
    debugger: &Debugger<H>,
    refs: &mut Refs,
    name: &str,
    value: &Value,
    declared: Option<String>,
) -> Json {
    let shown = match value {
        Value::Answer(answer) => answer.json.chars().take(VALUE_LIMIT).collect(),
        Value::Record(record) => format!("{} record", record.kind_name()),
        other => show(other, VALUE_LIMIT),
    };
    json!({
        "name": name,
        "value": shown,
        "type": type_of(debugger, value, declared),
        "variablesReference": refs.keep(value),
        "evaluateName": name,
    })
}

pub fn variables<H: Host>(debugger: &Debugger<H>, refs: &mut Refs, reference: i64) -> Result<Json, String> {
    let mut out = Vec::new();
    match reference {
        VARIABLES => {
            let module = &debugger.program.module;
            for (slot, value) in module.slots.iter().zip(&debugger.machine.slots) {
                let Some(value) = value else { continue };
                let declared = match slot.ty {
                    tisslang::types::ValueType::Answer(shape) => debugger.program.shapes.describe(shape),
                    ty => ty.name().to_string(),
                };
                out.push(variable(debugger, refs, debugger.program.string(slot.name), value, Some(declared)));
            }
        }
        LAST_RUN => {
            if let Some(Value::Record(record)) = debugger.machine.last_run_record() {
                fields(debugger, refs, &record, &mut out);
            }
        }
        COST => {
            let spent = debugger.spending();
            for dim in Dim::ALL {
                let budget = debugger.machine.budgets[dim];
                let total = debugger.machine.meters[dim];
                let value = match budget {
                    Some(cap) => format!("{} of {cap} (this step: {})", total, spent[dim]),
                    None => format!("{} (no budget; this step: {})", total, spent[dim]),
                };
                out.push(
                    json!({ "name": dim.name(), "value": value, "type": "INT", "variablesReference": 0 }),
                );
            }
        }
        other => {
            let value = refs.get(other).cloned().ok_or_else(|| {
                format!("no value has the reference {other} (references last until the run goes on)")
            })?;
            match &value {
                Value::Record(record) => fields(debugger, refs, record, &mut out),
                Value::Answer(answer) => match (debugger.program.shapes.get(answer.shape), &answer.value) {
                    (Some(Shape::Record(shape_fields)), AnswerValue::Record(values)) => {
                        for (field, v) in shape_fields.iter().zip(values) {
                            let name = &*field.name;
                            match v.as_ref().and_then(|v| {
                                crate::machine::value::Answer::stack_value(&debugger.program.shapes, field.shape, v.clone())
                            }) {
                                Some(v) => out.push(variable(debugger, refs, name, &v, None)),
                                None => out.push(json!({
                                    "name": name, "value": "absent", "type": debugger.program.shapes.describe(field.shape),
                                    "variablesReference": 0,
                                })),
                            }
                        }
                    }
                    (Some(Shape::List(item)), AnswerValue::List(items)) => {
                        for (i, v) in items.iter().take(ITEMS_LIMIT).enumerate() {
                            if let Some(v) = crate::machine::value::Answer::stack_value(
                                &debugger.program.shapes,
                                *item,
                                v.clone(),
                            ) {
                                out.push(variable(debugger, refs, &format!("[{i}]"), &v, None));
                            }
                        }
                        if items.len() > ITEMS_LIMIT {
                            out.push(json!({
                                "name": "…", "value": format!("{} more items", items.len() - ITEMS_LIMIT),
                                "variablesReference": 0,
                            }));
                        }
                    }
                    _ => {}
                },
                _ => {}
            }
        }
    }
    Ok(json!({ "variables": out }))
}

fn fields<H: Host>(debugger: &Debugger<H>, refs: &mut Refs, record: &Record, out: &mut Vec<Json>) {
    for (field, value) in record_fields(record) {
        out.push(variable(debugger, refs, field.name(), &value, None));
    }
}

/// `evaluate`: a name or field path (`x`, `r.files`, `LAST_RUN.STDOUT`),
/// else (not in a hover) a condition, checked and run where the session stands.
pub fn evaluate<H: Host>(
    debugger: &Debugger<H>,
    refs: &mut Refs,
    expression: &str,
    hover: bool,
) -> Result<Json, String> {
    let expression = expression.trim();
    let is_path = !expression.is_empty()
        && expression.split('.').all(|part| {
            part.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
    if is_path {
        let value = debugger.resolve(expression)?;
        let shown = variable(debugger, refs, expression, &value, None);
        return Ok(json!({
            "result": shown["value"],
            "type": shown["type"],
            "variablesReference": shown["variablesReference"],
        }));
    }
    if hover {
        return Err("only names are shown on hover".into());
    }
    if debugger.has_ended() {
        return Err("the plan has ended: a condition can be evaluated while it is paused".into());
    }
    let probe = debugger.probe(debugger.machine.pc, ProbeKind::Condition, expression)?;
    let holds = probe.holds(&debugger.machine)?;
    Ok(json!({ "result": if holds { "TRUE" } else { "FALSE" }, "type": "BOOL", "variablesReference": 0 }))
}
