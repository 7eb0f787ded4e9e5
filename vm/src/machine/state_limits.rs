//! The machine state decoded bounded (book: reference/snapshots.md: every collection in a
//! snapshot bounded by the file's size before it is allocated).
//!
//! Each collection of the state, and each boxed record and shared string
//! in it, claims its memory from the decoding budget
//! (`tisslang::codec::decode_budget`) before it is allocated. And where the bytecode
//! says how many there can be, that is checked first, from the stated
//! length: no more variable slots than the bytecode declares, no deeper
//! operand stack than its `max_stack`, no more CALL frames than tasks (no
//! recursion), no more open or finished steps than steps, no more ENV
//! variables than ENV instructions. A snapshot of ten million empty slots
//! is refused for the twelve its bytecode declares without allocating them
//! (a slot is one byte in the file, 24 in memory). The snapshot decodes its
//! bytecode first, so the [`Limits`] are known ([`within`]); without them
//! only the budget applies.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde::de::{Deserialize, DeserializeSeed, Deserializer, Error, Visitor};
use tisslang::codec::decode_budget::{VecSeed, claim, thousands};
use tisslang::isa::Instr;
use tisslang::module::Module;

/// What the bytecode allows of a machine state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub slots: usize,
    pub stack: usize,
    pub tasks: usize,
    pub steps: usize,
    pub env: usize,
}

impl Limits {
    /// The limits of a verified module (its `max_stack` is the verifier's).
    pub fn of(module: &Module) -> Limits {
        Limits {
            slots: module.slots.len(),
            stack: module.max_stack as usize,
            tasks: module.tasks.len(),
            steps: module.steps.len(),
            env: module.code.iter().filter(|i| matches!(i, Instr::Env { .. })).count(),
        }
    }
}

thread_local! {
    static LIMITS: Cell<Option<Limits>> = const { Cell::new(None) };
    static REFUSED: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `decode` with the bytecode's `limits`. A length over them is an
/// error for `decode`, and comes back here too, in words, so the caller can
/// say the state does not fit its bytecode rather than that it is malformed.
pub fn within<T>(limits: Limits, decode: impl FnOnce() -> T) -> (T, Option<String>) {
    struct Restore(Option<Limits>);
    impl Drop for Restore {
        fn drop(&mut self) {
            LIMITS.set(self.0);
            REFUSED.take();
        }
    }
    let _restore = Restore(LIMITS.replace(Some(limits)));
    let value = decode();
    (value, REFUSED.take())
}

/// A vector of `what` of at most `most(limits)` elements, `says` wording a
/// stated length over it as the state check would (`state.rs`).
fn limited<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
    what: &'static str,
    most: fn(&Limits) -> usize,
    says: fn(String, usize) -> String,
) -> Result<Vec<T>, D::Error> {
    let check = |stated: usize| {
        let Some(limits) = LIMITS.get() else { return Ok(()) };
        let most = most(&limits);
        if stated <= most {
            return Ok(());
        }
        let reason = says(thousands(stated as u64), most);
        REFUSED.set(Some(reason.clone()));
        Err(reason)
    };
    VecSeed::checked(what, check).deserialize(d)
}

pub(super) fn slots<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    limited(
        d,
        "variable slots",
        |l| l.slots,
        |n, most| format!("{n} variable slots, the bytecode has {most}"),
    )
}

pub(super) fn stack<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    limited(
        d,
        "values on the operand stack",
        |l| l.stack,
        |n, most| format!("{n} values on the operand stack, the bytecode never holds more than {most}"),
    )
}

pub(super) fn frames<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    limited(d, "CALL frames", |l| l.tasks, |n, most| format!("{n} CALL frames for {most} tasks"))
}

pub(super) fn open_steps<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    limited(d, "open steps", |l| l.steps, |n, most| format!("{n} open steps, the bytecode has {most} steps"))
}

pub(super) fn step_records<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    // The main code runs once: each of its top-level steps finishes once.
    limited(
        d,
        "finished steps",
        |l| l.steps,
        |n, most| format!("{n} finished steps, the bytecode has {most} steps"),
    )
}

pub(super) fn env<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    // ENV replaces a variable it set before: one entry per name at most.
    limited(
        d,
        "ENV variables",
        |l| l.env,
        |n, most| format!("{n} ENV variables, the bytecode has {most} ENV statements"),
    )
}

tisslang::bounded_vecs! {
    logs: "LOG messages",
    actual: "observed values of a failure",
    asked: "prompts asked",
}

/// A string value: claimed (its text and the counts `Rc` keeps), then
/// built straight from the payload's bytes.
pub(crate) fn shared_str<'de, D: Deserializer<'de>>(d: D) -> Result<Rc<str>, D::Error> {
    struct Text;
    impl Visitor<'_> for Text {
        type Value = Rc<str>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: Error>(self, text: &str) -> Result<Rc<str>, E> {
            claim(1, text.len() + 2 * size_of::<usize>(), "string").map_err(E::custom)?;
            Ok(Rc::from(text))
        }
    }
    d.deserialize_str(Text)
}

/// A shared record value (a typed answer): claimed as [`boxed_record`].
pub(crate) fn shared_record<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Rc<T>, D::Error> {
    claim(1, size_of::<T>(), "record").map_err(D::Error::custom)?;
    T::deserialize(d).map(Rc::new)
}

/// A record value (any boxed `T`): its box claimed before it is allocated.
/// Generic, so this file needs nothing of `value.rs`, which decodes with it.
pub(crate) fn boxed_record<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Box<T>, D::Error> {
    claim(1, size_of::<T>(), "record").map_err(D::Error::custom)?;
    T::deserialize(d).map(Box::new)
}
