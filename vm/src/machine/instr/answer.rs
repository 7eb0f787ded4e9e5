//! Typed answers on the stack (book: reference/types.md): a record's field (`MEMBER`), an
//! optional field's presence (`HAS_MEMBER`), and the list tests
//! (`LIST_CONTAINS`, `LIST_IS_EMPTY`). The verifier has checked each shape;
//! a value that does not follow its shape (only a forged snapshot could
//! hold one) traps rather than panics.

use std::rc::Rc;

use tisslang::answer::{AnswerValue, Shape};

use crate::machine::Machine;
use crate::machine::failure::FailureKind;
use crate::machine::flow::Exec;
use crate::machine::program::Program;
use crate::machine::value::{Answer, Value};

fn malformed() -> Exec {
    Exec::Trap("a typed answer does not follow its shape".into())
}

/// The value of field `index` of a record answer, `None` if absent.
fn record_field(answer: &Answer, index: u32) -> Result<Option<&AnswerValue>, Exec> {
    let AnswerValue::Record(values) = &answer.value else { return Err(malformed()) };
    Ok(values.get(index as usize).ok_or_else(malformed)?.as_ref())
}

impl Machine {
    fn pop_answer(&mut self) -> Result<Rc<Answer>, Exec> {
        match self.pop()? {
            Value::Answer(a) => Ok(a),
            other => Err(Exec::Trap(format!("expected a typed answer, found a {}", other.type_name()))),
        }
    }

    /// The record on top, and the shape and name of its field at `index`,
    /// whose value is `record_field(&answer, index)`.
    fn field_of<'p>(&mut self, index: u32, program: &'p Program) -> Result<(Rc<Answer>, u32, &'p str), Exec> {
        let answer = self.pop_answer()?;
        let Some(Shape::Record(fields)) = program.shapes.get(answer.shape) else { return Err(malformed()) };
        let field = fields.get(index as usize).ok_or_else(malformed)?;
        record_field(&answer, index)?;
        Ok((answer, field.shape, &field.name))
    }

    pub(in crate::machine) fn member(&mut self, index: u32, program: &Program) -> Result<(), Exec> {
        let (answer, shape, name) = self.field_of(index, program)?;
        // The compiler reads an optional field only where EXISTS holds; code
        // that does not (a module built by hand) meets a defined failure.
        let value = record_field(&answer, index)?.ok_or_else(|| {
            Exec::Raise((
                FailureKind::InvalidAnswer,
                format!("the answer has no `{name}` (an optional field), and it was read without `EXISTS`"),
            ))
        })?;
        if matches!(value, AnswerValue::List(_) | AnswerValue::Record(_)) {
            // A copy of the field's tree, with its JSON text, which is no
            // longer than the whole answer's.
            self.room_for(value.held_bytes() + answer.json.len(), "this field of the answer")?;
        }
        let value = Answer::stack_value(&program.shapes, shape, value.clone()).ok_or_else(malformed)?;
        self.push(value);
        Ok(())
    }

    pub(in crate::machine) fn has_member(&mut self, index: u32, program: &Program) -> Result<(), Exec> {
        let (answer, ..) = self.field_of(index, program)?;
        self.push(Value::Bool(record_field(&answer, index)?.is_some()));
        Ok(())
    }

    pub(in crate::machine) fn list_contains(&mut self) -> Result<(), Exec> {
        let needle = self.pop()?;
        let list = self.pop_answer()?;
        let AnswerValue::List(items) = &list.value else { return Err(malformed()) };
        let found = items.iter().any(|item| match (item, &needle) {
            (AnswerValue::Str(a), _) => needle.text().is_some_and(|b| a == b),
            (AnswerValue::Int(a), Value::Int(b)) => a == b,
            (AnswerValue::Bool(a), Value::Bool(b)) => a == b,
            _ => false,
        });
        self.push(Value::Bool(found));
        Ok(())
    }

    pub(in crate::machine) fn list_is_empty(&mut self) -> Result<(), Exec> {
        let list = self.pop_answer()?;
        let AnswerValue::List(items) = &list.value else { return Err(malformed()) };
        self.push(Value::Bool(items.is_empty()));
        Ok(())
    }
}
