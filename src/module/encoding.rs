//! How a module's tables are encoded beyond what serde derives: bounded
//! decoding of every table, the code section in its opcode encoding, and
//! optional indices in one byte.

/// `deserialize_with` for every table: each claims its memory before it is
/// allocated (`codec/decode_budget.rs`), and names what it holds when that is refused.
pub(super) mod bounded {
    crate::bounded_vecs! {
        metadata: "metadata entries",
        constants: "constants",
        slots: "variable slots",
        steps: "steps",
        tasks: "tasks",
        handlers: "TRY handlers",
        regexes: "regular expressions",
        templates: "templates",
        assertions: "assertions",
        prompts: "prompts",
        shapes: "answer shapes",
        choices: "choices",
        estimates: "cost estimates",
        template_parts: "template parts",
        observed: "observed values of an assertion",
        fields: "fields of a path",
        prompt_context: "context variables of a prompt",
        choice_options: "options of a choice",
        commands: "manifest commands",
        paths: "manifest paths",
        manifest_prompts: "manifest prompts",
        interactions: "manifest interactions",
        budgets: "manifest budgets",
        env: "manifest ENV entries",
        entry_context: "context names of a manifest prompt",
        interaction_options: "options of a manifest interaction",
        risk_reasons: "risk reasons",
    }
}

/// The code is stored in its explicit opcode encoding (`isa.rs`), not as a
/// serde enum, so opcode numbers are the ones the instruction table fixes.
/// Decoded from the payload in place: the instructions are counted first,
/// their memory claimed (`codec/decode_budget.rs`), then they are decoded into a vector
/// of exactly that length.
pub(super) mod code_section {
    use crate::isa::{self, Instr};
    use serde::de::{Error, Visitor};
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(code: &[Instr], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&isa::encode_all(code))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Instr>, D::Error> {
        struct Code;
        impl<'de> Visitor<'de> for Code {
            type Value = Vec<Instr>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("the encoded code section")
            }
            fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Vec<Instr>, E> {
                let count = isa::count(bytes).map_err(E::custom)?;
                crate::codec::decode_budget::claim(count, size_of::<Instr>(), "instructions")
                    .map_err(E::custom)?;
                isa::decode_all(bytes, count).map_err(E::custom)
            }
        }
        d.deserialize_bytes(Code)
    }
}

/// Serde for an index that may be [`NONE`]: stored as `index + 1` with
/// `NONE` as 0, so the common "none" takes one byte rather than five.
pub(super) mod opt_index {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(index: &u32, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(index.wrapping_add(1))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        Ok(u32::deserialize(d)?.wrapping_sub(1))
    }
}
