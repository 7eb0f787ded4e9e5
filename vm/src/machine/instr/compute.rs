//! Instructions that compute a value from the stack, the constants and
//! records, with no effect outside the machine.

use tisslang::answer::AnswerValue;
use tisslang::cost::Dim;
use tisslang::module::{Constant, TemplatePart};
use tisslang::types::Field;

use crate::host::Host;
use crate::machine::Machine;
use crate::machine::failure::FailureKind;
use crate::machine::flow::Exec;
use crate::machine::program::Program;
use crate::machine::shell::{Piece, build_command};
use crate::machine::value::{Answer, Record, Value};

impl Machine {
    pub(in crate::machine) fn push_const(&mut self, index: u32, program: &Program) -> Result<(), Exec> {
        let value = match program.module.constants.get(index as usize) {
            Some(Constant::Str(s)) => Value::Str(program.string(*s).into()),
            Some(Constant::Int(i)) => Value::Int(*i),
            Some(Constant::Duration(d)) => Value::Duration(*d),
            Some(Constant::Bool(b)) => Value::Bool(*b),
            None => return Err(Exec::Trap(format!("constant {index} out of range"))),
        };
        self.push(value);
        Ok(())
    }

    pub(in crate::machine) fn push_last_run(&mut self) -> Result<(), Exec> {
        let run = self.last_run_record().ok_or_else(|| Exec::Trap("LAST_RUN before any RUN".into()))?;
        self.push(run);
        Ok(())
    }

    /// The `LAST_RUN` record, with its taint; `None` before any RUN.
    pub fn last_run_record(&self) -> Option<Value> {
        let run = self.last_run.clone()?;
        Some(Value::Record(Box::new(Record::LastRun { run, tainted: self.last_run_tainted })))
    }

    /// COST: what the current step has spent so far.
    pub(in crate::machine) fn push_cost(&mut self, host: &mut dyn Host) {
        self.sync_time(host);
        let spent = self.step_spending();
        self.push(Value::Record(Box::new(Record::Cost(spent))));
    }

    pub(in crate::machine) fn field(&mut self, field: u8) -> Result<(), Exec> {
        let record = self.pop()?;
        let field = Field::from_u8(field).ok_or_else(|| Exec::Trap(format!("bad field {field}")))?;
        let value = match &record {
            Value::Record(r) => r.field(field),
            _ => None,
        };
        let value = value
            .ok_or_else(|| Exec::Trap(format!("no field {} on a {}", field.name(), record.type_name())))?;
        // A record's text field is a copy (a typed answer's is shared).
        if let (Value::Record(_), Some(text)) = (&record, value.text()) {
            self.room_for(text.len(), "this field")?;
        }
        self.push(value);
        Ok(())
    }

    /// INTERP, or INTERP_SHELL (`shell`: each value quoted as one word).
    pub(in crate::machine) fn interpolate(
        &mut self,
        template: u32,
        holes: u32,
        shell: bool,
        program: &Program,
    ) -> Result<(), Exec> {
        let at =
            self.stack.len().checked_sub(holes as usize).ok_or_else(|| Exec::Trap("underflow".into()))?;
        let parts = &program
            .module
            .templates
            .get(template as usize)
            .ok_or_else(|| Exec::Trap("bad template".into()))?
            .parts;
        // Measured before anything is copied: a template may name a long
        // value many times.
        let len = self.stack[at..].iter().map(Value::text_len).sum::<usize>()
            + parts
                .iter()
                .map(|part| if let TemplatePart::Text(s) = part { program.string(*s).len() } else { 0 })
                .sum::<usize>();
        self.room_for(len, "this interpolation")?;
        let tainted = self.stack[at..].iter().any(Value::is_tainted);
        // Inside a RUN a typed list is its elements, one word each (book: reference/types.md).
        let values: Vec<Hole> = self
            .stack
            .drain(at..)
            .map(|v| match v {
                Value::Answer(a) if shell => Hole::Words(list_words(&a)),
                v => Hole::Text(v.to_text()),
            })
            .collect();
        let mut next = values.iter();
        let pieces = parts.iter().map(|part| match part {
            TemplatePart::Text(s) => Piece::Text(program.string(*s)),
            TemplatePart::Hole => match next.next() {
                Some(Hole::Text(t)) => Piece::Value(t),
                Some(Hole::Words(w)) => Piece::Words(w),
                None => Piece::Value(""),
            },
        });
        let out = if shell {
            let command = build_command(pieces);
            // Quoting for the shell can make a value four times as long
            // (each `'` is `'\''`): the command is held to the same limit.
            if command.len() > len {
                self.room_for(command.len(), "this command as quoted for the shell")?;
            }
            command
        } else {
            pieces
                .map(|p| match p {
                    Piece::Text(t) | Piece::Value(t) => t.to_string(),
                    Piece::Words(w) => w.join(" "),
                })
                .collect()
        };
        // What is made from tainted text is tainted (book: reference/policy.md).
        self.push(if tainted { Value::Tainted(out.into()) } else { Value::Str(out.into()) });
        Ok(())
    }

    pub(in crate::machine) fn push_estimate(
        &mut self,
        estimate: u32,
        program: &Program,
        host: &mut dyn Host,
    ) -> Result<(), Exec> {
        let bound = *program
            .module
            .estimates
            .get(estimate as usize)
            .ok_or_else(|| Exec::Trap("bad estimate".into()))?;
        let summary = format!(
            "runs {}..{}, api calls {}..{}",
            bound.min[Dim::RunCount],
            bound.max[Dim::RunCount],
            bound.min[Dim::ApiCalls],
            bound.max[Dim::ApiCalls]
        );
        self.log(program, host, "estimate", &summary, "ok", 0);
        self.push(Value::Record(Box::new(Record::Estimate(bound))));
        Ok(())
    }

    pub(in crate::machine) fn matches(&mut self, regex: u32, program: &Program) -> Result<(), Exec> {
        let text = self.pop_str()?;
        let re = program.regexes.get(regex as usize).ok_or_else(|| Exec::Trap("bad regex".into()))?;
        self.push(Value::Bool(re.is_match(&text)));
        Ok(())
    }

    pub(in crate::machine) fn matches_dynamic(&mut self) -> Result<(), Exec> {
        let pattern = self.pop_str()?;
        let text = self.pop_str()?;
        let re = tiss_support::regex_limits::compile(&pattern).map_err(|e| {
            Exec::Raise((
                FailureKind::CommandError,
                format!("`{pattern}` is not a valid regular expression: {e}"),
            ))
        })?;
        self.push(Value::Bool(re.is_match(&text)));
        Ok(())
    }

    pub(in crate::machine) fn set_env(&mut self, name: u32, program: &Program) -> Result<(), Exec> {
        let value = self.pop()?;
        self.room_for(value.text_len(), "this ENV")?;
        self.env_tainted |= value.is_tainted();
        let value = value.to_text();
        let name = program.string(name).to_string();
        self.env.retain(|(n, _)| *n != name);
        self.env.push((name, value));
        Ok(())
    }
}

/// A value to insert into a template.
enum Hole {
    Text(String),
    Words(Vec<String>),
}

/// The elements of a typed list of plain values, as text (the verifier
/// lets only such a list into a RUN).
fn list_words(answer: &Answer) -> Vec<String> {
    match &answer.value {
        AnswerValue::List(items) => items
            .iter()
            .map(|item| match item {
                AnswerValue::Str(s) => s.to_string(),
                AnswerValue::Int(i) => i.to_string(),
                AnswerValue::Bool(b) => b.to_string(),
                AnswerValue::List(_) | AnswerValue::Record(_) => String::new(),
            })
            .collect(),
        _ => Vec::new(),
    }
}
