//! Pass 2: every instruction's operands.

use crate::isa::{Instr, NO_SLOT, run_flags};
use crate::module::TemplatePart;
use crate::types::ValueType;

use super::error::{Result, Site, Table, VerifyError};
use super::tables::Checker;

impl Checker<'_> {
    /// Pass 2: every instruction's operands, reached or not: indices in
    /// range, small operands meaningful, a template filled with as many
    /// values as it has holes, and the variable READ or REVIEW fills
    /// declared with the type it receives.
    pub(super) fn operands(&self) -> Result {
        let holes = self.template_holes();
        for (pc, instr) in self.m.code.iter().enumerate() {
            let pc = pc as u32;
            let site = Site::Pc { pc, mnemonic: instr.mnemonic() };
            match *instr {
                Instr::PushConst { index } => self.index(site, "constant", index, Table::Constants)?,
                Instr::Load { slot } | Instr::Store { slot } => {
                    self.index(site, "slot", slot, Table::Slots)?
                }
                Instr::Read { slot } => {
                    self.index(site, "slot", slot, Table::Slots)?;
                    self.slot_receives(site, slot, ValueType::Str)?
                }
                Instr::Review { slot } => {
                    if slot != NO_SLOT {
                        self.index(site, "slot", slot, Table::Slots)?;
                        self.slot_receives(site, slot, ValueType::Review)?
                    }
                }
                Instr::Field { field } => self.field(site, field)?,
                Instr::Interp { template, holes: n } | Instr::InterpShell { template, holes: n } => {
                    self.index(site, "template", template, Table::Templates)?;
                    let expected = holes[template as usize];
                    if n != expected {
                        return Err(VerifyError::HolesMismatch {
                            pc,
                            mnemonic: instr.mnemonic(),
                            template,
                            holes: n,
                            expected,
                        });
                    }
                }
                Instr::Estimate { estimate } => self.index(site, "estimate", estimate, Table::Estimates)?,
                Instr::Matches { regex } => self.index(site, "regex", regex, Table::Regexes)?,
                Instr::Jump { target } | Instr::JumpIfFalse { target } | Instr::JumpIfTrue { target } => {
                    self.target(site, "jump target", target)?
                }
                Instr::Call { task } => self.index(site, "task", task, Table::Tasks)?,
                Instr::StepEnter { step } | Instr::StepExit { step } => {
                    self.index(site, "step", step, Table::Steps)?
                }
                Instr::Assert { assertion } | Instr::Fail { assertion } => {
                    self.index(site, "assertion", assertion, Table::Assertions)?
                }
                Instr::Choose { choice } => self.index(site, "choice", choice, Table::Choices)?,
                Instr::Run { flags } => {
                    if flags & !(run_flags::DIR | run_flags::TIMEOUT) != 0 {
                        return Err(VerifyError::BadOperand {
                            site,
                            what: "flags",
                            value: u32::from(flags),
                            expected: "only the DIR (1) and TIMEOUT (2) bits",
                        });
                    }
                }
                Instr::Delete { recursive } => {
                    if recursive > 1 {
                        return Err(VerifyError::BadOperand {
                            site,
                            what: "recursive flag",
                            value: u32::from(recursive),
                            expected: "0 or 1",
                        });
                    }
                }
                Instr::Env { name } => self.string(site, "name string", name)?,
                Instr::Prompt { prompt } => self.index(site, "prompt", prompt, Table::Prompts)?,
                Instr::SetBudget { dim } => self.dim(site, dim)?,
                // Checked against the record's shape by the flow pass.
                Instr::Member { .. } | Instr::HasMember { .. } => {}
                Instr::ListContains {} | Instr::ListIsEmpty {} => {}
                Instr::Pop {}
                | Instr::LastRun {}
                | Instr::Cost {}
                | Instr::Eq {}
                | Instr::Ne {}
                | Instr::Lt {}
                | Instr::Le {}
                | Instr::Gt {}
                | Instr::Ge {}
                | Instr::Contains {}
                | Instr::StartsWith {}
                | Instr::EndsWith {}
                | Instr::MatchesDynamic {}
                | Instr::IsEmpty {}
                | Instr::Not {}
                | Instr::And {}
                | Instr::Or {}
                | Instr::FileExists {}
                | Instr::FileIsEmpty {}
                | Instr::FileContains {}
                | Instr::Return {}
                | Instr::Halt {}
                | Instr::Write {}
                | Instr::Append {}
                | Instr::Mkdir {}
                | Instr::Log {}
                | Instr::Pause {} => {}
            }
        }
        Ok(())
    }

    /// The number of holes of each template, counted once.
    fn template_holes(&self) -> Vec<u32> {
        self.m
            .templates
            .iter()
            .map(|t| {
                t.parts
                    .iter()
                    .filter(|p| matches!(p, TemplatePart::Hole))
                    .count()
                    .try_into()
                    .unwrap_or(u32::MAX)
            })
            .collect()
    }
}
