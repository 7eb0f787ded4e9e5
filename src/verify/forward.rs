//! Control only goes forward: every jump, CHOOSE option and handler target
//! lies after the instruction that leads there. Plans have no loops, so a
//! backward transfer could only make a run that never ends; with calls that
//! form no cycle (`calls.rs`) every run ends, and every later pass can visit
//! the code once, in pc order, knowing every way into an instruction first.

use crate::isa::Instr;

use super::error::{Result, Site, VerifyError};
use super::tables::Checker;

impl Checker<'_> {
    /// Runs after the range checks, so every index here is valid.
    pub(super) fn forward_only(&self) -> Result {
        let m = self.m;
        let forward = |site: &dyn Fn() -> Site, what: &'static str, from: u32, target: u32| {
            if target > from { Ok(()) } else { Err(VerifyError::BackwardJump { site: site(), what, target }) }
        };
        // Each choice's earliest option, once: many CHOOSEs may name one choice.
        let earliest: Vec<u32> =
            m.choices.iter().map(|c| c.options.iter().map(|o| o.target).min().unwrap_or(0)).collect();
        for (pc, instr) in m.code.iter().enumerate() {
            let pc = pc as u32;
            // Named in errors only (a match per instruction otherwise).
            let site = || Site::Pc { pc, mnemonic: instr.mnemonic() };
            match *instr {
                Instr::Jump { target } | Instr::JumpIfFalse { target } | Instr::JumpIfTrue { target } => {
                    forward(&site, "jump target", pc, target)?
                }
                Instr::Choose { choice } => forward(&site, "option target", pc, earliest[choice as usize])?,
                _ => {}
            }
        }
        for (i, h) in m.handlers.iter().enumerate() {
            if h.target < h.end {
                return Err(VerifyError::BackwardJump {
                    site: Site::Entry { table: "handlers", index: i },
                    what: "handler target",
                    target: h.target,
                });
            }
        }
        Ok(())
    }
}
