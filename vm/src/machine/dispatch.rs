//! The dispatch loop's body: the frequent, effect-free instructions run in
//! place on pre-decoded `Op`s; every other instruction goes through
//! `Machine::exec`, whose arms name the function that runs it
//! (`instr/`).

use tisslang::isa::Instr;

use crate::host::{Host, check_relative};
use crate::machine::failure::FailureKind;
use crate::machine::flow::{Exec, Flow, Regs};
use crate::machine::program::{Op, Program};
use crate::machine::value::Value;
use crate::machine::{Machine, Outcome};

impl Machine {
    /// The dispatch loop's body: fetch, meter, execute. The frequent,
    /// effect-free instructions run here on pre-decoded `Op`s and work on
    /// the stack in place; everything else goes through `exec_other`, and
    /// everything off the straight path (failures, budgets, suspension) is in
    /// cold functions. The verifier and the snapshot check (which holds a
    /// resumed machine to the verifier's facts) exclude every wrong operand;
    /// the checks here stay as a second guard, so a bug in either is a
    /// trap, never a panic.
    ///
    /// `r` holds the pc and the INSTRUCTIONS meter; every path that leaves
    /// this function's straight line (`exec_other`, every cold function)
    /// writes them back first, and on `Flow::Stop` the machine is the state.
    #[inline(always)]
    pub(super) fn execute_one(&mut self, r: &mut Regs, program: &Program, host: &mut dyn Host) -> Flow {
        let pc = r.pc;
        let Some(&op) = program.ops.get(pc as usize) else {
            return self.trap_past_end(*r);
        };
        r.pc = pc + 1;
        r.fuel += 1;
        if r.fuel > r.fuel_limit {
            self.save(r);
            return self.fuel_exhausted(program, host, r.fuel_limit, pc);
        }
        match op {
            Op::PushStr(i) => match program.const_strs.get(i as usize) {
                Some(text) => self.stack.push(Value::Str(text.clone())),
                None => return self.trap(*r, pc, format!("string constant {i} out of range")),
            },
            Op::PushInt(i) => self.stack.push(Value::Int(i64::from(i))),
            Op::PushDuration(d) => self.stack.push(Value::Duration(u64::from(d))),
            Op::PushBool(b) => self.stack.push(Value::Bool(b)),
            Op::Pop => match self.stack.pop() {
                Some(value) => value.discard(),
                None => return self.bad_operand(*r, pc, "value", None),
            },
            Op::Load(slot) => match self.slots.get(slot as usize) {
                Some(Some(value)) => {
                    let value = value.clone();
                    self.stack.push(value);
                }
                _ => return self.trap(*r, pc, format!("slot {slot} read before it was bound")),
            },
            Op::Store(slot) => {
                let Some(value) = self.stack.pop() else { return self.bad_operand(*r, pc, "value", None) };
                match self.slots.get_mut(slot as usize) {
                    Some(cell) => {
                        if let Some(old) = cell.replace(value) {
                            old.discard();
                        }
                    }
                    None => return self.trap(*r, pc, format!("slot {slot} out of range")),
                }
            }
            Op::Eq => return self.equality(*r, pc, true),
            Op::Ne => return self.equality(*r, pc, false),
            Op::Lt => return self.order(*r, pc, std::cmp::Ordering::is_lt),
            Op::Le => return self.order(*r, pc, std::cmp::Ordering::is_le),
            Op::Gt => return self.order(*r, pc, std::cmp::Ordering::is_gt),
            Op::Ge => return self.order(*r, pc, std::cmp::Ordering::is_ge),
            Op::Contains => return self.str_test(*r, pc, crate::machine::value::contains),
            Op::StartsWith => return self.str_test(*r, pc, |h, n| h.starts_with(n)),
            Op::EndsWith => return self.str_test(*r, pc, |h, n| h.ends_with(n)),
            Op::IsEmpty => {
                let Some(top) = self.stack.last_mut() else {
                    return self.bad_operand(*r, pc, "string", None);
                };
                let Some(s) = top.text() else {
                    let found = top.type_name();
                    return self.bad_operand(*r, pc, "string", Some(found));
                };
                let empty = s.is_empty();
                std::mem::replace(top, Value::Bool(empty)).discard();
            }
            Op::Not => match self.stack.last_mut() {
                Some(Value::Bool(b)) => *b = !*b,
                other => {
                    let found = other.map(|v| v.type_name());
                    return self.bad_operand(*r, pc, "boolean", found);
                }
            },
            Op::And => return self.combine(*r, pc, |a, b| a && b),
            Op::Or => return self.combine(*r, pc, |a, b| a || b),
            Op::Jump(target) => r.pc = target,
            Op::JumpIfFalse(target) => match self.pop_bool() {
                Ok(b) => {
                    if !b {
                        r.pc = target;
                    }
                }
                Err(found) => return self.bad_operand(*r, pc, "boolean", found),
            },
            Op::JumpIfTrue(target) => match self.pop_bool() {
                Ok(b) => {
                    if b {
                        r.pc = target;
                    }
                }
                Err(found) => return self.bad_operand(*r, pc, "boolean", found),
            },
            Op::Assert(assertion) => match self.pop_bool() {
                Ok(true) => {}
                Ok(false) => {
                    self.save(r);
                    let flow = self.assertion_failed(program, host, assertion, pc);
                    // A TRY may have caught it: the pc is the handler's.
                    *r = self.regs();
                    return flow;
                }
                Err(found) => return self.bad_operand(*r, pc, "boolean", found),
            },
            Op::Other => {
                self.save(r);
                let flow = self.exec_other(program, host, pc);
                // The instruction may have moved the pc (CALL, a caught
                // failure) or changed the fuel cap (SET_BUDGET).
                *r = self.regs();
                return flow;
            }
        }
        Flow::Continue
    }

    /// Pops a boolean, or says what was there instead (`None`: nothing).
    /// The value is consumed by `discard` on every path: matching on the
    /// popped `Option<Value>` directly would leave the compiler's
    /// out-of-line drop glue on the boolean path.
    #[inline(always)]
    pub(super) fn pop_bool(&mut self) -> Result<bool, Option<&'static str>> {
        let Some(value) = self.stack.pop() else { return Err(None) };
        let result = match &value {
            Value::Bool(b) => Ok(*b),
            other => Err(Some(other.type_name())),
        };
        value.discard();
        result
    }

    /// AND and OR: the top two booleans combined, the result replacing them.
    #[inline(always)]
    fn combine(&mut self, r: Regs, pc: u32, op: fn(bool, bool) -> bool) -> Flow {
        let (left, right) = match self.stack.as_slice() {
            [.., Value::Bool(left), Value::Bool(right)] => (*left, *right),
            [.., left, right] => {
                let found = if matches!(right, Value::Bool(_)) { left } else { right };
                return self.bad_operand(r, pc, "boolean", Some(found.type_name()));
            }
            _ => return self.bad_operand(r, pc, "boolean", None),
        };
        // Booleans: nothing to give back.
        self.stack.pop();
        if let Some(top) = self.stack.last_mut() {
            *top = Value::Bool(op(left, right));
        }
        Flow::Continue
    }

    /// EQ and NE: the top two values compared where they lie, the result
    /// replacing them.
    #[inline(always)]
    pub(super) fn equality(&mut self, r: Regs, pc: u32, want_equal: bool) -> Flow {
        let Some(b) = self.stack.pop() else { return self.bad_operand(r, pc, "value", None) };
        let Some(a) = self.stack.last_mut() else { return self.bad_operand(r, pc, "value", None) };
        let equal = match (&*a, &b) {
            // `Rc` equality looks at the pointers first.
            (Value::Str(x), Value::Str(y)) => x == y,
            (Value::Int(x), Value::Int(y)) => x == y,
            _ => a.same_as(&b),
        };
        std::mem::replace(a, Value::Bool(equal == want_equal)).discard();
        b.discard();
        Flow::Continue
    }

    /// LT, LE, GT, GE on two integers or two durations.
    #[inline(always)]
    pub(super) fn order(&mut self, r: Regs, pc: u32, test: impl Fn(std::cmp::Ordering) -> bool) -> Flow {
        let Some(b) = self.stack.pop() else { return self.bad_operand(r, pc, "value", None) };
        let Some(a) = self.stack.last_mut() else { return self.bad_operand(r, pc, "value", None) };
        let ordering = match (&*a, &b) {
            (Value::Int(x), Value::Int(y)) => x.cmp(y),
            (Value::Duration(x), Value::Duration(y)) => x.cmp(y),
            _ => {
                let message = format!("cannot order a {} and a {}", a.type_name(), b.type_name());
                return self.trap(r, pc, message);
            }
        };
        std::mem::replace(a, Value::Bool(test(ordering))).discard();
        b.discard();
        Flow::Continue
    }

    /// CONTAINS, STARTS_WITH, ENDS_WITH: pop the needle, test the haystack
    /// below it in place.
    #[inline(always)]
    pub(super) fn str_test(&mut self, r: Regs, pc: u32, test: impl Fn(&str, &str) -> bool) -> Flow {
        let needle = match self.stack.pop() {
            Some(Value::Str(s) | Value::Tainted(s)) => s,
            other => return self.bad_operand(r, pc, "string", other.as_ref().map(Value::type_name)),
        };
        let Some(top) = self.stack.last_mut() else { return self.bad_operand(r, pc, "string", None) };
        let Some(haystack) = top.text() else {
            let found = top.type_name();
            return self.bad_operand(r, pc, "string", Some(found));
        };
        let result = test(haystack, &needle);
        std::mem::replace(top, Value::Bool(result)).discard();
        Flow::Continue
    }

    /// The instructions `Op` leaves as bytecode: effects, steps, calls,
    /// records. Out of line, so the hot loop stays small.
    #[inline(never)]
    pub(super) fn exec_other(&mut self, program: &Program, host: &mut dyn Host, pc: u32) -> Flow {
        // `ops` and `code` have the same length (`Program::new`).
        let Some(&instr) = program.module.code.get(pc as usize) else {
            return self.stop(Outcome::Trapped(format!("pc {pc} is past the end of the code")));
        };
        let tainted = self.operands_tainted(instr);
        match self.exec(instr, program, host) {
            Ok(flow) => flow,
            Err(exec) => self.exceptional(program, host, exec, pc, tainted),
        }
    }

    /// Whether a failure of `instr` may quote tainted data: it takes a
    /// tainted operand (an ASSERT's built MESSAGE, a READ's path, a RUN's
    /// command), or it asks a model, whose server's words an error quotes.
    /// `tisslang::analysis::taint` follows the same rule.
    fn operands_tainted(&self, instr: Instr) -> bool {
        let (pops, _) = instr.stack_effect();
        let from = self.stack.len().saturating_sub(pops as usize);
        matches!(instr, Instr::Prompt { .. }) || self.stack[from..].iter().any(Value::is_tainted)
    }

    /// Runs an instruction that `Op` does not pre-decode: each arm names
    /// the function that runs it.
    fn exec(&mut self, instr: Instr, program: &Program, host: &mut dyn Host) -> Result<Flow, Exec> {
        match instr {
            // Mostly an `Op`: here only for a number too large for one, or
            // a constant that does not exist.
            Instr::PushConst { index } => self.push_const(index, program)?,
            Instr::Pop {}
            | Instr::Load { .. }
            | Instr::Store { .. }
            | Instr::Eq {}
            | Instr::Ne {}
            | Instr::Lt {}
            | Instr::Le {}
            | Instr::Gt {}
            | Instr::Ge {}
            | Instr::Contains {}
            | Instr::StartsWith {}
            | Instr::EndsWith {}
            | Instr::IsEmpty {}
            | Instr::Not {}
            | Instr::And {}
            | Instr::Or {}
            | Instr::Jump { .. }
            | Instr::JumpIfFalse { .. }
            | Instr::JumpIfTrue { .. }
            | Instr::Assert { .. } => {
                return Err(Exec::Trap(format!("{} is run by execute_one", instr.mnemonic())));
            }
            Instr::LastRun {} => self.push_last_run()?,
            Instr::Cost {} => self.push_cost(host),
            Instr::Field { field } => self.field(field)?,
            Instr::Member { index } => self.member(index, program)?,
            Instr::HasMember { index } => self.has_member(index, program)?,
            Instr::ListContains {} => self.list_contains()?,
            Instr::ListIsEmpty {} => self.list_is_empty()?,
            Instr::Interp { template, holes } => self.interpolate(template, holes, false, program)?,
            Instr::InterpShell { template, holes } => self.interpolate(template, holes, true, program)?,
            Instr::Estimate { estimate } => self.push_estimate(estimate, program, host)?,
            Instr::Matches { regex } => self.matches(regex, program)?,
            Instr::MatchesDynamic {} => self.matches_dynamic()?,
            Instr::FileExists {} | Instr::FileIsEmpty {} | Instr::FileContains {} => {
                self.file_test(instr, host)?
            }
            Instr::Call { task } => self.call(task, program, host)?,
            Instr::Return {} => self.return_from_call()?,
            Instr::Halt {} => return Ok(self.halt()),
            Instr::StepEnter { step } => self.enter_step(step, program, host)?,
            Instr::StepExit { step } => self.exit_step(step, program, host)?,
            Instr::Fail { assertion } => self.fail_assertion(assertion)?,
            Instr::Choose { choice } => self.choose(choice, program, host)?,
            Instr::Run { flags } => self.run_command(flags, program, host)?,
            Instr::Write {} => self.write_file(false, program, host)?,
            Instr::Append {} => self.write_file(true, program, host)?,
            Instr::Read { slot } => self.read_file(slot, program, host)?,
            Instr::Mkdir {} => self.make_dir(program, host)?,
            Instr::Delete { recursive } => self.delete(recursive == 1, program, host)?,
            Instr::Log {} => self.log_message(program, host)?,
            Instr::Env { name } => self.set_env(name, program)?,
            Instr::Prompt { prompt } => self.prompt(prompt, program, host)?,
            Instr::Pause {} => self.pause(program, host)?,
            Instr::Review { slot } => self.review(slot, program, host)?,
            Instr::SetBudget { dim } => self.set_budget(dim)?,
        }
        Ok(Flow::Continue)
    }

    #[inline]
    pub(super) fn pop(&mut self) -> Result<Value, Exec> {
        self.stack.pop().ok_or_else(|| Exec::Trap("operand stack underflow".into()))
    }

    #[inline]
    pub(super) fn pop_str(&mut self) -> Result<std::rc::Rc<str>, Exec> {
        match self.pop()? {
            Value::Str(s) | Value::Tainted(s) => Ok(s),
            other => Err(Exec::Trap(format!("expected a string, found a {}", other.type_name()))),
        }
    }

    #[inline]
    pub(super) fn push(&mut self, value: Value) {
        self.stack.push(value);
    }

    /// A plan path, checked lexically; an escape is a security violation.
    pub(super) fn pop_path(&mut self) -> Result<String, Exec> {
        let path = self.pop_str()?.to_string();
        check_relative(&path).map_err(|m| Exec::Raise((FailureKind::SecurityViolation, m)))?;
        Ok(path)
    }

    #[inline]
    pub(super) fn store(&mut self, slot: u32, value: Value) -> Result<(), Exec> {
        let cell = self
            .slots
            .get_mut(slot as usize)
            .ok_or_else(|| Exec::Trap(format!("slot {slot} out of range")))?;
        *cell = Some(value);
        Ok(())
    }
}
