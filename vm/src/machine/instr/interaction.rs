//! Instructions that wait on a human: PAUSE, REQUEST_REVIEW, CHOOSE, and
//! a RUN the command policy holds for approval (book: reference/policy.md). Without an
//! answer yet, each suspends and runs again from the start when answered.

use tisslang::isa::{Instr, NO_SLOT, run_flags};
use tisslang::module::NONE;

use crate::host::{Answer, Host, Question};
use crate::machine::failure::FailureKind;
use crate::machine::flow::Exec;
use crate::machine::program::Program;
use crate::machine::value::{Record, Value};
use crate::machine::{Machine, Status, Suspension};
use crate::policy::{Taint, Verdict};

impl Machine {
    pub(in crate::machine) fn choose(
        &mut self,
        choice: u32,
        program: &Program,
        host: &mut dyn Host,
    ) -> Result<(), Exec> {
        let table =
            program.module.choices.get(choice as usize).ok_or_else(|| Exec::Trap("bad choice".into()))?;
        let question = Question::Choose {
            prompt: (table.prompt != NONE).then(|| program.string(table.prompt).to_string()),
            options: table.options.iter().map(|o| program.string(o.label).to_string()).collect(),
        };
        match host.ask(&question, self.asked_at(program)) {
            Some(Answer::Choice(i)) if i < table.options.len() => {
                self.interactions = self.interactions.saturating_add(1);
                self.pc = table.options[i].target;
                Ok(())
            }
            Some(other) => Err(Exec::Raise((
                FailureKind::CommandError,
                format!("`{other:?}` does not answer a CHOOSE of {} options", table.options.len()),
            ))),
            None => Err(Exec::Suspend(question)),
        }
    }

    pub(in crate::machine) fn pause(&mut self, program: &Program, host: &mut dyn Host) -> Result<(), Exec> {
        let message = self.stack.last().map(Value::to_text).unwrap_or_default();
        let question = Question::Pause { message };
        match host.ask(&question, self.asked_at(program)) {
            Some(_) => {
                self.pop()?;
                self.interactions = self.interactions.saturating_add(1);
                Ok(())
            }
            None => Err(Exec::Suspend(question)),
        }
    }

    /// REQUEST_REVIEW: the review record goes to `slot`; without one, a
    /// rejection fails the run.
    pub(in crate::machine) fn review(
        &mut self,
        slot: u32,
        program: &Program,
        host: &mut dyn Host,
    ) -> Result<(), Exec> {
        let message = self.stack.last().map(Value::to_text).unwrap_or_default();
        let question = Question::Review { message: message.clone() };
        let (approved, comment) = self.ask_approval(question, "a REQUEST_REVIEW", program, host)?;
        self.pop()?;
        self.interactions = self.interactions.saturating_add(1);
        if slot == NO_SLOT {
            if !approved {
                // The kind says it was rejected: the message says what, and why.
                let why = rejection_comment(&comment);
                return Err(Exec::Raise((FailureKind::ReviewRejected, format!("{message:?} ({why})"))));
            }
            Ok(())
        } else {
            self.store(slot, Value::Record(Box::new(Record::Review { approved, comment })))
        }
    }

    /// The command policy's verdict on the RUN about to start (book: reference/policy.md),
    /// before anything is taken off the stack: an approval that must wait
    /// for a human suspends, and the RUN then runs again from the start.
    pub(in crate::machine) fn check_policy(
        &mut self,
        flags: u8,
        program: &Program,
        host: &mut dyn Host,
    ) -> Result<(), Exec> {
        let Some(policy) = self.policy.clone() else { return Ok(()) };
        let value =
            self.command_operand(flags).ok_or_else(|| Exec::Trap("operand stack underflow".into()))?;
        let command = value.text().ok_or_else(|| Exec::Trap("the command is not a string".into()))?;
        let env: Vec<&str> = self.env.iter().map(|(name, _)| name.as_str()).collect();
        let reason = match policy.decide_in(command, self.run_taint(flags), &env) {
            Verdict::Run => return Ok(()),
            Verdict::Deny(message) => {
                self.log(program, host, "run", command, "denied", 0);
                return Err(Exec::Raise((FailureKind::SecurityViolation, message)));
            }
            Verdict::Approve(reason) => reason,
        };
        let command = command.to_string();
        let question = Question::Approval { command: command.clone(), reason: reason.clone() };
        let (approved, comment) = self.ask_approval(question, "a RUN that needs approval", program, host)?;
        self.interactions = self.interactions.saturating_add(1);
        if approved {
            self.log(program, host, "approval", &command, "approved", 0);
            return Ok(());
        }
        self.log(program, host, "approval", &command, "rejected", 0);
        let why = rejection_comment(&comment);
        Err(Exec::Raise((
            FailureKind::ReviewRejected,
            format!("`{command}` was not approved to run ({reason}; {why})"),
        )))
    }

    /// Why the RUN with `flags` about to start counts as tainted, if it
    /// does: what its command, IN directory or environment holds, then
    /// what the plan wrote before it.
    pub(crate) fn run_taint(&self, flags: u8) -> Option<Taint> {
        let timeout = usize::from(flags & run_flags::TIMEOUT != 0);
        let dir = (flags & run_flags::DIR != 0)
            .then(|| self.stack.len().checked_sub(1 + timeout).and_then(|i| self.stack.get(i)))
            .flatten();
        let held = self.command_operand(flags).is_some_and(Value::is_tainted)
            || dir.is_some_and(Value::is_tainted)
            || self.env_tainted;
        if held { Some(Taint::Holds) } else { self.wrote_tainted.map(Taint::Written) }
    }

    /// The command of a RUN with `flags` about to start: below its `IN`
    /// directory and its timeout on the operand stack.
    pub(crate) fn command_operand(&self, flags: u8) -> Option<&Value> {
        let above = usize::from(flags & run_flags::TIMEOUT != 0) + usize::from(flags & run_flags::DIR != 0);
        self.stack.len().checked_sub(1 + above).and_then(|i| self.stack.get(i))
    }

    /// The command of the RUN this run waits to have approved, if the
    /// command policy in force (given on resume) no longer asks for that:
    /// the RUN would run, or be refused, without asking, and an answer
    /// given for its approval would go to a later question instead.
    pub fn approval_not_asked(&self, program: &Program) -> Option<String> {
        let Status::Suspended(Suspension::Interaction { question: Question::Approval { .. }, .. }) =
            &self.status
        else {
            return None;
        };
        let Some(Instr::Run { flags }) = program.module.code.get(self.pc as usize) else { return None };
        let value = self.command_operand(*flags)?;
        let command = value.text()?;
        let env: Vec<&str> = self.env.iter().map(|(name, _)| name.as_str()).collect();
        let asks = self.policy.as_ref().is_some_and(|policy| {
            matches!(policy.decide_in(command, self.run_taint(*flags), &env), Verdict::Approve(_))
        });
        (!asks).then(|| command.to_string())
    }

    /// Asks `question`, which takes approve or reject (REQUEST_REVIEW, a RUN
    /// the policy holds): the answer and its comment, or a suspension when
    /// there is no answer yet. `what` names the asker if a choice comes back.
    pub(in crate::machine) fn ask_approval(
        &self,
        question: Question,
        what: &str,
        program: &Program,
        host: &mut dyn Host,
    ) -> Result<(bool, String), Exec> {
        match host.ask(&question, self.asked_at(program)) {
            Some(Answer::Review { approved, comment }) => Ok((approved, comment)),
            Some(Answer::Continue) => Ok((true, String::new())),
            Some(Answer::Choice(_)) => {
                Err(Exec::Raise((FailureKind::CommandError, format!("{what} takes approve or reject"))))
            }
            None => Err(Exec::Suspend(question)),
        }
    }
}

/// What a rejection's message says of the reviewer's comment.
fn rejection_comment(comment: &str) -> String {
    if comment.is_empty() { "no comment".to_string() } else { format!("comment: {comment}") }
}
