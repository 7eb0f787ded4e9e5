//! The instruction set, defined once.
//!
//! The [`isa!`] table below is the only place an instruction is described:
//! its stable opcode number, its operands, its mnemonic, its stack effect and
//! the values it takes from the operand stack and gives back (each with the
//! type it must have), and its cost class. The enum, the binary encoding and
//! decoding, the disassembler's names and operand lists, the verifier's
//! stack effects and type rules and the static cost all derive from it.
//! Operands are plain indices into the module's tables (constants, strings,
//! slots, templates, steps, tasks, regexes, ...) or small flags — never
//! pointers.

use serde::Serialize;

use crate::cost::{Dim, DimUnit};
use crate::types::ValueType;

/// What an instruction costs beyond the one unit of `INSTRUCTIONS` every
/// instruction costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum CostClass {
    /// Only the instruction itself.
    Plain,
    /// Runs a command: one `RUN_COUNT`, and execution time.
    Run,
    /// Asks a language model: one `API_CALLS`, and tokens.
    Prompt,
}

/// Why decoding an instruction failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    UnknownOpcode { opcode: u8, offset: usize },
    Truncated { offset: usize },
    OperandTooLarge { offset: usize },
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::UnknownOpcode { opcode, offset } => {
                write!(f, "unknown opcode 0x{opcode:02X} at code byte {offset}")
            }
            DecodeError::Truncated { offset } => write!(f, "instruction truncated at code byte {offset}"),
            DecodeError::OperandTooLarge { offset } => {
                write!(f, "operand at code byte {offset} does not fit in 32 bits")
            }
        }
    }
}

/// Reads operands from encoded code.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn u8(&mut self) -> Result<u8, DecodeError> {
        let b = *self.bytes.get(self.pos).ok_or(DecodeError::Truncated { offset: self.pos })?;
        self.pos += 1;
        Ok(b)
    }

    /// An unsigned LEB128 value that must fit in 32 bits.
    fn u32(&mut self) -> Result<u32, DecodeError> {
        let start = self.pos;
        let mut value: u64 = 0;
        for shift in (0..35).step_by(7) {
            let b = self.u8()?;
            value |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                return u32::try_from(value).map_err(|_| DecodeError::OperandTooLarge { offset: start });
            }
        }
        Err(DecodeError::OperandTooLarge { offset: start })
    }
}

trait Operand: Sized + Copy {
    fn write(self, out: &mut Vec<u8>);
    fn read(reader: &mut Reader<'_>) -> Result<Self, DecodeError>;
    /// The operand's shape, for the instruction-set fingerprint.
    const SHAPE: &'static str;
}

impl Operand for u8 {
    fn write(self, out: &mut Vec<u8>) {
        out.push(self);
    }
    fn read(reader: &mut Reader<'_>) -> Result<u8, DecodeError> {
        reader.u8()
    }
    const SHAPE: &'static str = "u8";
}

impl Operand for u32 {
    fn write(self, out: &mut Vec<u8>) {
        let mut v = self;
        loop {
            let byte = (v & 0x7F) as u8;
            v >>= 7;
            if v == 0 {
                out.push(byte);
                return;
            }
            out.push(byte | 0x80);
        }
    }
    fn read(reader: &mut Reader<'_>) -> Result<u32, DecodeError> {
        reader.u32()
    }
    const SHAPE: &'static str = "u32";
}

/// Flag bits of [`Instr::Run`].
pub mod run_flags {
    /// An `IN "dir"` string is on the stack (below the timeout, above the command).
    pub const DIR: u8 = 1;
    /// A `TIMEOUT` duration is on the stack (topmost).
    pub const TIMEOUT: u8 = 2;
}

/// "No slot": the operand of an optional `INTO`.
pub const NO_SLOT: u32 = u32::MAX;

/// What a value taken from the operand stack must be (types: book: reference/expressions.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    Str,
    Int,
    Duration,
    Bool,
    /// A string, integer, duration or boolean, never a record: a value
    /// printed as text (ENV, WRITE ... FROM, an interpolated hole).
    Scalar,
    /// An integer or a duration: what `<`-style comparisons order.
    Ordered,
    /// A record that has the field `FIELD` names.
    Record,
    /// A typed answer that is a record (`MEMBER`, `HAS_MEMBER`).
    AnswerRecord,
    /// A typed answer that is a list.
    AnswerList,
    /// A value of the type of the elements of the list taken just before it.
    Element,
    /// What can be printed into text: a single value, or a typed answer
    /// (as JSON; inside a RUN, a list as one word per element).
    Printable,
    /// The type of the value taken just before it (the two sides of a comparison).
    Like,
    /// The declared type of the instruction's variable (`STORE`'s slot).
    SlotType,
    /// Any value, records included.
    Any,
}

impl Want {
    /// In words, for the verifier's messages.
    pub fn describe(self) -> &'static str {
        match self {
            Want::Str => "a string",
            Want::Int => "an integer",
            Want::Duration => "a duration",
            Want::Bool => "a boolean",
            Want::Scalar => "a single value (string, integer, duration or boolean)",
            Want::Ordered => "an integer or a duration",
            Want::Record => "a record",
            Want::AnswerRecord => "a typed record",
            Want::AnswerList => "a typed list",
            Want::Element => "a value of the list's element type",
            Want::Printable => "a single value or a typed answer",
            Want::Like => "a value of the same type as the other side",
            Want::SlotType => "a value of the variable's declared type",
            Want::Any => "a value",
        }
    }

    /// Whether a value of type `ty` is wanted (`Like` and `SlotType` are
    /// the verifier's to check, against the operands).
    pub fn accepts(self, ty: ValueType) -> bool {
        use ValueType as T;
        match self {
            Want::Str => ty == T::Str,
            Want::Int => ty == T::Int,
            Want::Duration => ty == T::Duration,
            Want::Bool => ty == T::Bool,
            Want::Scalar => ty.is_scalar(),
            Want::Ordered => matches!(ty, T::Int | T::Duration),
            Want::Record => ty.is_record(),
            // Which shape, record or list, is the verifier's to check.
            Want::AnswerRecord | Want::AnswerList => matches!(ty, T::Answer(_)),
            Want::Printable => ty.is_scalar() || matches!(ty, T::Answer(_)),
            Want::Like | Want::SlotType | Want::Element | Want::Any => true,
        }
    }
}

/// One value an instruction takes from the stack: what it must be, and
/// what it is, for messages ("the timeout").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arg {
    pub want: Want,
    pub what: &'static str,
}

const fn arg(want: Want, what: &'static str) -> Arg {
    Arg { want, what }
}

/// The values an instruction takes from the stack, the deepest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Takes {
    List(&'static [Arg]),
    /// `n` alike (INTERP's holes).
    Repeat(Arg, u32),
}

impl Takes {
    pub fn len(&self) -> u32 {
        match *self {
            Takes::List(list) => list.len() as u32,
            Takes::Repeat(_, n) => n,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`-th value taken, the deepest first (`i < len`).
    pub fn get(&self, i: u32) -> Arg {
        match *self {
            Takes::List(list) => list[i as usize],
            Takes::Repeat(one, _) => one,
        }
    }
}

const NOTHING: Takes = Takes::List(&[]);
const ONE_STR: Takes = Takes::List(&[arg(Want::Str, "the string")]);
const ONE_BOOL: Takes = Takes::List(&[arg(Want::Bool, "the condition")]);
const TWO_BOOLS: Takes =
    Takes::List(&[arg(Want::Bool, "the left condition"), arg(Want::Bool, "the right condition")]);
const TWO_STRS: Takes = Takes::List(&[arg(Want::Str, "the string"), arg(Want::Str, "the other string")]);
const EQUALITY: Takes = Takes::List(&[arg(Want::Scalar, "the left side"), arg(Want::Like, "the right side")]);
const ORDERING: Takes =
    Takes::List(&[arg(Want::Ordered, "the left side"), arg(Want::Like, "the right side")]);
const PATH: Takes = Takes::List(&[arg(Want::Str, "the path")]);
const MESSAGE: Takes = Takes::List(&[arg(Want::Str, "the message")]);
const PATH_CONTENT: Takes = Takes::List(&[arg(Want::Str, "the path"), arg(Want::Printable, "the content")]);
const ANSWER_RECORD: Takes = Takes::List(&[arg(Want::AnswerRecord, "the typed record")]);

/// RUN's values: the command [, the `IN` dir] [, the timeout] (see `run_flags`).
fn run_args(flags: u8) -> Takes {
    const COMMAND: Arg = arg(Want::Str, "the command");
    const DIR: Arg = arg(Want::Str, "the IN directory");
    const TIMEOUT: Arg = arg(Want::Duration, "the timeout");
    Takes::List(match (flags & run_flags::DIR != 0, flags & run_flags::TIMEOUT != 0) {
        (false, false) => &[COMMAND],
        (true, false) => &[COMMAND, DIR],
        (false, true) => &[COMMAND, TIMEOUT],
        (true, true) => &[COMMAND, DIR, TIMEOUT],
    })
}

/// SET_BUDGET's cap: a duration for a time dimension, an integer otherwise.
fn budget_args(dim: u8) -> Takes {
    match Dim::ALL.get(usize::from(dim)).map(|d| d.unit()) {
        Some(DimUnit::Time) => Takes::List(const { &[arg(Want::Duration, "the cap")] }),
        _ => Takes::List(const { &[arg(Want::Int, "the cap")] }),
    }
}

/// What an instruction gives back on the stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gives {
    Nothing,
    /// A value of this type.
    Value(ValueType),
    /// The value of constant `index`.
    Constant(u32),
    /// The value of variable `slot` (its declared type).
    Slot(u32),
    /// Field `field` (a `Field` number) of the record taken.
    Field(u8),
    /// Field `index` of the typed record taken: its shape's stack type.
    Member(u32),
}

macro_rules! isa {
    ($(
        $(#[doc = $doc:literal])*
        $opcode:literal $name:ident { $($field:ident : $ty:ty),* }
            $mnemonic:literal takes $takes:expr, gives $gives:expr, $cost:ident;
    )*) => {
        /// One instruction. See the table in `isa.rs` for each one's meaning.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Instr {
            $($(#[doc = $doc])* $name { $($field: $ty),* },)*
        }

        impl Instr {
            /// Every opcode with its mnemonic and operand names and shapes, in
            /// opcode order: the instruction set's fingerprint is taken over this.
            pub const TABLE: &'static [(u8, &'static str, &'static [(&'static str, &'static str)])] = &[
                $(($opcode, $mnemonic, &[$((stringify!($field), <$ty as Operand>::SHAPE)),*]),)*
            ];

            pub fn opcode(&self) -> u8 {
                match self { $(Instr::$name { .. } => $opcode,)* }
            }

            pub fn mnemonic(&self) -> &'static str {
                match self { $(Instr::$name { .. } => $mnemonic,)* }
            }

            /// The operands as (name, value) pairs, for the disassembler.
            pub fn operands(&self) -> Vec<(&'static str, u32)> {
                match *self {
                    $(Instr::$name { $($field),* } => vec![$((stringify!($field), u32::from($field))),*],)*
                }
            }

            /// The values the instruction takes from the stack, the deepest first.
            #[allow(unused_variables)]
            #[inline]
            pub fn takes(&self) -> Takes {
                match *self {
                    $(Instr::$name { $($field),* } => $takes,)*
                }
            }

            /// What the instruction gives back on the stack.
            #[allow(unused_variables)]
            #[inline]
            pub fn gives(&self) -> Gives {
                match *self {
                    $(Instr::$name { $($field),* } => $gives,)*
                }
            }

            /// How many values the instruction pops and pushes.
            pub fn stack_effect(&self) -> (u32, u32) {
                (self.takes().len(), u32::from(self.gives() != Gives::Nothing))
            }

            pub fn cost_class(&self) -> CostClass {
                match self { $(Instr::$name { .. } => CostClass::$cost,)* }
            }

            /// Appends the encoding: the opcode byte, then each operand
            /// (`u8` as a byte, `u32` as unsigned LEB128).
            pub fn encode(&self, out: &mut Vec<u8>) {
                match *self {
                    $(Instr::$name { $($field),* } => {
                        out.push($opcode);
                        $(Operand::write($field, out);)*
                    })*
                }
            }

            /// Decodes one instruction at `*pos`, advancing it.
            pub fn decode(bytes: &[u8], pos: &mut usize) -> Result<Instr, DecodeError> {
                let mut reader = Reader { bytes, pos: *pos };
                let opcode = reader.u8()?;
                let instr = match opcode {
                    $($opcode => Instr::$name { $($field: <$ty as Operand>::read(&mut reader)?),* },)*
                    _ => return Err(DecodeError::UnknownOpcode { opcode, offset: *pos }),
                };
                *pos = reader.pos;
                Ok(instr)
            }
        }
    };
}

isa! {
    // ---- values ---------------------------------------------------------------
    /// Push constant `index`.
    0x01 PushConst { index: u32 } "PUSH_CONST" takes NOTHING, gives Gives::Constant(index), Plain;
    /// Drop the top value.
    0x02 Pop {} "POP" takes Takes::List(const { &[arg(Want::Any, "the value")] }), gives Gives::Nothing, Plain;
    /// Push the value of variable `slot`.
    0x03 Load { slot: u32 } "LOAD" takes NOTHING, gives Gives::Slot(slot), Plain;
    /// Pop a value into variable `slot`.
    0x04 Store { slot: u32 } "STORE" takes Takes::List(const { &[arg(Want::SlotType, "the value")] }), gives Gives::Nothing, Plain;
    /// Push the `LAST_RUN` record.
    0x05 LastRun {} "LAST_RUN" takes NOTHING, gives Gives::Value(ValueType::LastRun), Plain;
    /// Push the `COST` record: what the current step has spent so far.
    0x06 Cost {} "COST" takes NOTHING, gives Gives::Value(ValueType::Cost), Plain;
    /// Pop a record, push its field `field` (a `Field` number).
    0x07 Field { field: u8 } "FIELD" takes Takes::List(const { &[arg(Want::Record, "the record")] }), gives Gives::Field(field), Plain;
    /// Pop `holes` values, push the string of template `template` with them inserted.
    0x08 Interp { template: u32, holes: u32 } "INTERP" takes Takes::Repeat(arg(Want::Printable, "a value to insert"), holes), gives Gives::Value(ValueType::Str), Plain;
    /// As `INTERP`, but every inserted value is shell-quoted as one word (RUN
    /// strings), and a typed list as one word per element.
    0x09 InterpShell { template: u32, holes: u32 } "INTERP_SHELL" takes Takes::Repeat(arg(Want::Printable, "a value to insert"), holes), gives Gives::Value(ValueType::Str), Plain;
    /// Push the record of static estimate `estimate` (ESTIMATE_COST), logging it.
    0x0A Estimate { estimate: u32 } "ESTIMATE" takes NOTHING, gives Gives::Value(ValueType::Estimate), Plain;
    /// Pop a typed record; push its field `index` (present: `HAS_MEMBER` came first).
    0x0B Member { index: u32 } "MEMBER" takes ANSWER_RECORD, gives Gives::Member(index), Plain;
    /// Pop a typed record; push whether its optional field `index` is present.
    0x0C HasMember { index: u32 } "HAS_MEMBER" takes ANSWER_RECORD, gives Gives::Value(ValueType::Bool), Plain;
    /// Pop a value, then a typed list; push whether an element equals the value.
    0x0D ListContains {} "LIST_CONTAINS" takes Takes::List(const { &[arg(Want::AnswerList, "the list"), arg(Want::Element, "the value to find")] }), gives Gives::Value(ValueType::Bool), Plain;
    /// Pop a typed list; push whether it has no elements.
    0x0E ListIsEmpty {} "LIST_IS_EMPTY" takes Takes::List(const { &[arg(Want::AnswerList, "the list")] }), gives Gives::Value(ValueType::Bool), Plain;

    // ---- tests -------------------------------------------------------------------
    0x10 Eq {} "EQ" takes EQUALITY, gives Gives::Value(ValueType::Bool), Plain;
    0x11 Ne {} "NE" takes EQUALITY, gives Gives::Value(ValueType::Bool), Plain;
    0x12 Lt {} "LT" takes ORDERING, gives Gives::Value(ValueType::Bool), Plain;
    0x13 Le {} "LE" takes ORDERING, gives Gives::Value(ValueType::Bool), Plain;
    0x14 Gt {} "GT" takes ORDERING, gives Gives::Value(ValueType::Bool), Plain;
    0x15 Ge {} "GE" takes ORDERING, gives Gives::Value(ValueType::Bool), Plain;
    /// Pop needle, then haystack; push whether the haystack contains the needle.
    0x16 Contains {} "CONTAINS" takes TWO_STRS, gives Gives::Value(ValueType::Bool), Plain;
    0x17 StartsWith {} "STARTS_WITH" takes TWO_STRS, gives Gives::Value(ValueType::Bool), Plain;
    0x18 EndsWith {} "ENDS_WITH" takes TWO_STRS, gives Gives::Value(ValueType::Bool), Plain;
    /// Pop a string; push whether precompiled regex `regex` matches it.
    0x19 Matches { regex: u32 } "MATCHES" takes ONE_STR, gives Gives::Value(ValueType::Bool), Plain;
    /// Pop a pattern, then a string; compile the pattern at run time and match.
    0x1A MatchesDynamic {} "MATCHES_DYN" takes TWO_STRS, gives Gives::Value(ValueType::Bool), Plain;
    /// Pop a string; push whether it is empty.
    0x1B IsEmpty {} "IS_EMPTY" takes ONE_STR, gives Gives::Value(ValueType::Bool), Plain;
    0x1C Not {} "NOT" takes ONE_BOOL, gives Gives::Value(ValueType::Bool), Plain;
    /// Pop a path; push whether it exists in the workspace.
    0x1D FileExists {} "FILE_EXISTS" takes PATH, gives Gives::Value(ValueType::Bool), Plain;
    0x1E FileIsEmpty {} "FILE_IS_EMPTY" takes PATH, gives Gives::Value(ValueType::Bool), Plain;
    /// Pop a needle, then a path; push whether the file contains the needle.
    0x1F FileContains {} "FILE_CONTAINS" takes Takes::List(const { &[arg(Want::Str, "the path"), arg(Want::Str, "the needle")] }), gives Gives::Value(ValueType::Bool), Plain;

    // ---- control -----------------------------------------------------------------
    /// Continue at instruction `target`.
    0x20 Jump { target: u32 } "JUMP" takes NOTHING, gives Gives::Nothing, Plain;
    /// Pop a boolean; if false, continue at `target`.
    0x21 JumpIfFalse { target: u32 } "JUMP_IF_FALSE" takes ONE_BOOL, gives Gives::Nothing, Plain;
    /// Pop a boolean; if true, continue at `target`.
    0x22 JumpIfTrue { target: u32 } "JUMP_IF_TRUE" takes ONE_BOOL, gives Gives::Nothing, Plain;
    /// Run task `task` (DEFINE_TASK), returning here.
    0x23 Call { task: u32 } "CALL" takes NOTHING, gives Gives::Nothing, Plain;
    0x24 Return {} "RETURN" takes NOTHING, gives Gives::Nothing, Plain;
    /// The plan is complete.
    0x25 Halt {} "HALT" takes NOTHING, gives Gives::Nothing, Plain;
    /// Enter step `step` (log, per-step cost, preflight, debugger).
    0x26 StepEnter { step: u32 } "STEP_ENTER" takes NOTHING, gives Gives::Nothing, Plain;
    0x27 StepExit { step: u32 } "STEP_EXIT" takes NOTHING, gives Gives::Nothing, Plain;
    /// Pop a boolean; if false, fail with `assertion_failed` as described by assertion `assertion`.
    0x28 Assert { assertion: u32 } "ASSERT" takes ONE_BOOL, gives Gives::Nothing, Plain;
    /// Ask the human to pick one option of choice `choice`; continue at its target.
    0x29 Choose { choice: u32 } "CHOOSE" takes NOTHING, gives Gives::Nothing, Plain;
    /// Pop a message; fail with `assertion_failed` as described by assertion `assertion`
    /// (used when the `MESSAGE` interpolates values: it is built only on failure).
    0x2A Fail { assertion: u32 } "FAIL" takes MESSAGE, gives Gives::Nothing, Plain;

    // ---- combining conditions -----------------------------------------------------
    /// Pop two booleans; push whether both are true. Both were computed: the
    /// compiler uses it only for conditions that can neither fail nor touch
    /// anything, and jumps over the right side of any other (`lower/expr.rs`).
    0x2B And {} "AND" takes TWO_BOOLS, gives Gives::Value(ValueType::Bool), Plain;
    /// Pop two booleans; push whether either is true (both computed, as AND's).
    0x2C Or {} "OR" takes TWO_BOOLS, gives Gives::Value(ValueType::Bool), Plain;

    // ---- effects -----------------------------------------------------------------
    /// Pop the command [, the `IN` dir] [, the timeout] (see `run_flags`); run it; set LAST_RUN.
    0x30 Run { flags: u8 } "RUN" takes run_args(flags), gives Gives::Nothing, Run;
    /// Pop the content, then the path; write the file atomically.
    0x31 Write {} "WRITE" takes PATH_CONTENT, gives Gives::Nothing, Plain;
    0x32 Append {} "APPEND" takes PATH_CONTENT, gives Gives::Nothing, Plain;
    /// Pop a path; read the file into variable `slot`.
    0x33 Read { slot: u32 } "READ" takes PATH, gives Gives::Nothing, Plain;
    0x34 Mkdir {} "MKDIR" takes PATH, gives Gives::Nothing, Plain;
    /// Pop a path; delete it (`recursive` = 1 for a non-empty directory).
    0x35 Delete { recursive: u8 } "DELETE" takes PATH, gives Gives::Nothing, Plain;
    0x36 Log {} "LOG" takes MESSAGE, gives Gives::Nothing, Plain;
    /// Pop a value; set environment variable `name` (a string index) for later RUNs.
    0x37 Env { name: u32 } "ENV" takes Takes::List(const { &[arg(Want::Printable, "the value")] }), gives Gives::Nothing, Plain;
    /// Pop the query; ask the model as prompt `prompt` describes (context, INTO slot).
    0x38 Prompt { prompt: u32 } "PROMPT" takes Takes::List(const { &[arg(Want::Str, "the query")] }), gives Gives::Nothing, Prompt;
    /// Pop a message; wait for a human to continue.
    0x39 Pause {} "PAUSE" takes MESSAGE, gives Gives::Nothing, Plain;
    /// Pop a message; ask a human to approve; bind the review record to `slot` (or `NO_SLOT`).
    0x3A Review { slot: u32 } "REVIEW" takes MESSAGE, gives Gives::Nothing, Plain;
    /// Pop a value; cap dimension `dim` (a `Dim` number) for the rest of the run.
    0x3B SetBudget { dim: u8 } "SET_BUDGET" takes budget_args(dim), gives Gives::Nothing, Plain;
}

/// Decodes a whole code section of at most `max_instructions`, allocated
/// for up front.
pub fn decode_all(bytes: &[u8], max_instructions: usize) -> Result<Vec<Instr>, DecodeError> {
    let mut code = Vec::with_capacity(max_instructions.min(bytes.len()));
    let mut pos = 0;
    while pos < bytes.len() {
        if code.len() >= max_instructions {
            return Err(DecodeError::Truncated { offset: pos });
        }
        code.push(Instr::decode(bytes, &mut pos)?);
    }
    Ok(code)
}

/// How many instructions a code section holds, each checked as by
/// [`decode_all`], without keeping them.
pub fn count(bytes: &[u8]) -> Result<usize, DecodeError> {
    let (mut count, mut pos) = (0, 0);
    while pos < bytes.len() {
        Instr::decode(bytes, &mut pos)?;
        count += 1;
    }
    Ok(count)
}

/// Encodes a whole code section.
pub fn encode_all(code: &[Instr]) -> Vec<u8> {
    let mut out = Vec::with_capacity(code.len() * 3);
    for instr in code {
        instr.encode(&mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Field;

    #[test]
    fn opcodes_are_unique_and_ascending() {
        for pair in Instr::TABLE.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{} then {}", pair[0].1, pair[1].1);
        }
    }

    #[test]
    fn encoding_round_trips() {
        let code = [
            Instr::PushConst { index: 0 },
            Instr::PushConst { index: 300 },
            Instr::Interp { template: u32::MAX, holes: 3 },
            Instr::Run { flags: run_flags::DIR | run_flags::TIMEOUT },
            Instr::Field { field: Field::Comment as u8 },
            Instr::Halt {},
        ];
        let bytes = encode_all(&code);
        assert_eq!(decode_all(&bytes, 100).unwrap(), code);
    }

    #[test]
    fn stack_effects_follow_operands() {
        assert_eq!(Instr::Interp { template: 0, holes: 4 }.stack_effect(), (4, 1));
        assert_eq!(Instr::Run { flags: 0 }.stack_effect(), (1, 0));
        assert_eq!(Instr::Run { flags: run_flags::DIR | run_flags::TIMEOUT }.stack_effect(), (3, 0));
    }

    #[test]
    fn bad_bytes_are_errors() {
        assert!(matches!(decode_all(&[0xFF], 10), Err(DecodeError::UnknownOpcode { opcode: 0xFF, .. })));
        assert!(matches!(decode_all(&[0x01], 10), Err(DecodeError::Truncated { .. })));
        assert!(matches!(
            decode_all(&[0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], 10),
            Err(DecodeError::OperandTooLarge { .. })
        ));
        assert!(decode_all(&[0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01], 10).is_err());
    }
}
