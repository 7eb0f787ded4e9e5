//! Re-sealed bytecode never reaches an internal error (issue 16, defect 1;
//! book: cli/tissvm.md: "no loaded module can reach an internal error"). The `.tbc`
//! checksum is a CRC-32 anyone can recompute, so a crafted file passes it.
//! Every example's `.tbc`, a generated plan's and a small plan whose every
//! string is harmless as a command are mutated (bytes of the payload,
//! opcodes, operands, instructions, table entries), re-sealed, and then
//! either refused by the loader or run to a defined outcome: completed,
//! failed with a failure kind, or suspended — never a trap (exit 70) or a
//! panic. Every state such a run suspends in is a snapshot that reads back.
//! Deterministic (fixed seeds); some cases also go through `tissvm run`.

use crate::resealed::{
    Rng, assert_defined_exit, assert_in_words, example_plans, harmless_plan, run_to_the_end, tbc_of,
};
use tisslang::container;
use tisslang::isa::Instr;
use tisslang::module::{Constant, Module, NONE, TemplatePart};
use tisslang::types::ValueType;

/// What became of the mutants.
#[derive(Debug, Default)]
struct Tally {
    refused: u32,
    ran: u32,
}

/// Decoded, mutated where it matters, and encoded again (a correct seal).
fn structural(module: &Module, rng: &mut Rng) -> Vec<u8> {
    let mut m = module.clone();
    for _ in 0..1 + rng.below(2) {
        mutate(&mut m, rng);
    }
    container::encode(&m)
}

/// Bytes of the payload changed, then the checksum made right again.
fn bytewise(bytes: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut file = bytes.to_vec();
    let payload = &mut file[container::HEADER_LEN..];
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(payload.len() as u64) as usize;
        payload[at] = match rng.below(3) {
            0 => payload[at] ^ (1 << rng.below(8)),
            1 => payload[at].wrapping_add(1),
            _ => rng.next() as u8,
        };
    }
    tisslang::codec::seal::seal(&mut file, container::HEADER_LEN);
    file
}

/// One change of the kind a probe makes: an opcode, an operand, an
/// instruction, a table entry.
fn mutate(m: &mut Module, rng: &mut Rng) {
    let len = m.code.len() as u64;
    let pc = rng.below(len) as usize;
    match rng.below(12) {
        // Another opcode with the same operand bytes (STEP_ENTER → STEP_EXIT).
        0 | 1 => {
            let mut bytes = Vec::new();
            m.code[pc].encode(&mut bytes);
            let table = Instr::TABLE;
            bytes[0] = table[rng.below(table.len() as u64) as usize].0;
            if let Ok(instr) = Instr::decode(&bytes, &mut 0) {
                m.code[pc] = instr;
            }
        }
        // One operand byte changed (an index to a neighbour, to another table entry).
        2 | 3 => {
            let mut bytes = Vec::new();
            m.code[pc].encode(&mut bytes);
            if bytes.len() > 1 {
                let at = 1 + rng.below(bytes.len() as u64 - 1) as usize;
                bytes[at] = match rng.below(3) {
                    0 => bytes[at].wrapping_add(1),
                    1 => bytes[at].wrapping_sub(1),
                    _ => rng.below(8) as u8,
                };
                if let Ok(instr) = Instr::decode(&bytes, &mut 0) {
                    m.code[pc] = instr;
                }
            }
        }
        // A random instruction with small operands.
        4 => {
            let (opcode, _, operands) = Instr::TABLE[rng.below(Instr::TABLE.len() as u64) as usize];
            let mut bytes = vec![opcode];
            bytes.extend((0..operands.len()).map(|_| rng.below(6) as u8));
            if let Ok(instr) = Instr::decode(&bytes, &mut 0) {
                m.code[pc] = instr;
            }
        }
        // Two neighbours swapped, one dropped, one repeated.
        5 => {
            if pc + 1 < m.code.len() {
                m.code.swap(pc, pc + 1);
            }
        }
        6 => {
            if rng.below(2) == 0 {
                m.code.remove(pc);
            } else {
                m.code.insert(pc, m.code[pc]);
            }
        }
        // Table entries.
        7 => {
            if let Some(h) = pick(&mut m.handlers, rng) {
                match rng.below(6) {
                    0 => h.start = h.start.wrapping_add(1),
                    1 => h.end = h.end.wrapping_sub(1),
                    2 => h.target = h.target.wrapping_add(1),
                    3 => h.stack_depth += 1,
                    4 => h.step_depth = h.step_depth.wrapping_add(1),
                    _ => h.catch_slot = if h.catch_slot == NONE { 0 } else { NONE },
                }
            }
        }
        8 => {
            if let Some(slot) = pick(&mut m.slots, rng) {
                slot.ty =
                    [ValueType::Str, ValueType::Int, ValueType::Bool, ValueType::Error, ValueType::LastRun]
                        [rng.below(5) as usize];
            }
        }
        9 => {
            if let Some(c) = pick(&mut m.constants, rng) {
                *c = match rng.below(4) {
                    0 => Constant::Str(0),
                    1 => Constant::Int(-1),
                    2 => Constant::Duration(1),
                    _ => Constant::Bool(false),
                };
            }
        }
        10 => match rng.below(4) {
            0 => {
                if let Some(t) = pick(&mut m.tasks, rng) {
                    t.entry = t.entry.wrapping_add(1);
                }
            }
            1 => {
                if let Some(o) = pick(&mut m.choices, rng).and_then(|c| c.options.first_mut()) {
                    o.target = o.target.wrapping_add(1);
                }
            }
            2 => {
                if let Some(p) = pick(&mut m.prompts, rng) {
                    p.into = if p.into == NONE { 0 } else { NONE };
                }
            }
            _ => {
                if let Some(part) = pick(&mut m.templates, rng).and_then(|t| t.parts.first_mut()) {
                    *part = match part {
                        TemplatePart::Hole => TemplatePart::Text(0),
                        TemplatePart::Text(_) => TemplatePart::Hole,
                    };
                }
            }
        },
        _ => m.max_stack = m.max_stack.wrapping_add(if rng.below(2) == 0 { 1 } else { u32::MAX }),
    }
}

fn pick<'a, T>(items: &'a mut [T], rng: &mut Rng) -> Option<&'a mut T> {
    let n = items.len() as u64;
    if n == 0 { None } else { items.get_mut(rng.below(n) as usize) }
}

/// Loads and, if loaded, runs; panics (naming the case) on a trap.
fn check(case: &str, bytes: &[u8], tally: &mut Tally) {
    let loaded =
        container::load(bytes).map_err(|e| e.to_string()).and_then(tiss_vm::machine::program::Program::new);
    match loaded {
        Err(refusal) => {
            assert_in_words(case, &refusal);
            tally.refused += 1;
        }
        Ok(program) => {
            run_to_the_end(case, bytes, program);
            tally.ran += 1;
        }
    }
}

/// The examples, the harmless plan and a generated plan.
fn plans() -> Vec<(String, String)> {
    let mut plans = example_plans();
    plans.push(("generated".into(), crate::plan_gen::generate(120)));
    plans
}

#[test]
fn resealed_modules_are_refused_or_run_to_a_defined_outcome() {
    let mut tally = Tally::default();
    let mut rng = Rng::new(0x7155_1a9c);
    for (name, src) in plans() {
        let bytes = tbc_of(&name, &src);
        let module = container::load(&bytes).expect("a compiled plan loads");
        check(&name, &bytes, &mut tally);
        let cases = if name == "generated" { 400 } else { 1600 };
        for case in 0..cases {
            let mutant =
                if case % 4 == 0 { bytewise(&bytes, &mut rng) } else { structural(&module, &mut rng) };
            check(&format!("{name} #{case}"), &mutant, &mut tally);
        }
    }
    eprintln!("{tally:?}");
    // Both ways out are taken often: the mutants are neither all refused nor all harmless.
    assert!(tally.refused > 5_000 && tally.ran > 1_000, "{tally:?}");
}

/// Some mutants of the harmless plan through the real binary, in a
/// temporary workspace: exit statuses of book: reference/failures.md, never 70, never a panic.
#[test]
fn resealed_modules_through_tissvm_run_never_exit_70() {
    let fixture = crate::common::Fixture::new();
    let bytes = tbc_of("harmless", harmless_plan());
    let module = container::load(&bytes).unwrap();
    let mut rng = Rng::new(0x5eed_0070);
    let mut statuses = std::collections::BTreeMap::new();
    for case in 0..60 {
        let mutant = if case % 3 == 0 { bytewise(&bytes, &mut rng) } else { structural(&module, &mut rng) };
        let plan = fixture.path("mutant.tbc");
        std::fs::write(&plan, &mutant).unwrap();
        let run = fixture.tissvm(&[
            "run",
            plan.to_str().unwrap(),
            "--workdir",
            fixture.ws().to_str().unwrap(),
            "--non-interactive",
            "--output-format",
            "json",
        ]);
        let code = assert_defined_exit(&format!("case {case}"), run.code, &run.stdout, &run.stderr);
        *statuses.entry(code).or_insert(0) += 1;
    }
    // Refused (2) and run (0, 1, 3) both happen.
    assert!(statuses.contains_key(&2) && statuses.len() > 1, "{statuses:?}");
}
