//! Snapshot tests of the disassembler's listing of real plans from
//! `examples/`, compiled as `tissc compile --embed-source` compiles them. Nothing is filtered
//! out of the listing: it is deterministic, hash included. After an
//! intended change to the compiler or the listing, review the new snapshots
//! with `cargo insta review` (or `INSTA_UPDATE=always cargo test --test disasm`).

use std::path::Path;
use tisslang::cost::Dim;

use tisslang::module::Module;

/// Compiles `examples/NAME.tiss` with its source embedded under its file name.
fn compile_example(name: &str) -> Module {
    let file = format!("{name}.tiss");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples").join(&file);
    let bytes = std::fs::read(&path).expect("readable example");
    let Ok((module, _)) = tiss_compiler::compile(&file, &bytes, Default::default()) else {
        panic!("{} does not compile", path.display());
    };
    module
}

fn listing(name: &str) -> String {
    let module = compile_example(name);
    tisslang::disasm::disassemble(&module, &tisslang::container::content_hash(&module))
}

#[test]
fn reviewed_release() {
    insta::assert_snapshot!(listing("reviewed_release"));
}

#[test]
fn config_edit() {
    insta::assert_snapshot!(listing("config_edit"));
}

#[test]
fn c_program() {
    insta::assert_snapshot!(listing("c_program"));
}

/// A typed answer (TissLang 1.1): the shapes table, the slot's shape and
/// the prompt's shape and schema.
#[test]
fn triage() {
    insta::assert_snapshot!(listing("triage"));
}

/// What the VM loads from the `.tbc` lists the same as what the compiler built.
#[test]
fn listing_survives_the_file_format() {
    for name in
        ["hello", "subtasks", "reviewed_release", "config_edit", "c_program", "triage", "test_selection"]
    {
        let module = compile_example(name);
        let loaded = tisslang::container::load(&tisslang::container::encode(&module)).expect("loads");
        let hash = tisslang::container::content_hash(&module);
        assert_eq!(hash, tisslang::container::content_hash(&loaded), "{name}");
        assert_eq!(
            tisslang::disasm::disassemble(&module, &hash),
            tisslang::disasm::disassemble(&loaded, &hash),
            "{name}"
        );
    }
}

/// A deterministic xorshift generator: the fuzz below needs no dependency
/// and reproduces exactly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A small number most of the time, now and then anything.
    fn index(&mut self) -> u32 {
        match self.next() % 4 {
            0 => u32::MAX,
            1 => self.next() as u32,
            _ => (self.next() % 40) as u32,
        }
    }
}

/// Unverified modules (as `container::decode` may return them) never make the
/// disassembler panic: every index of the code and the tables is scrambled.
#[test]
fn scrambled_modules_never_panic() {
    use tisslang::module::{Constant, LineEntry, PathRootRef, TemplatePart};
    let base = compile_example("config_edit");
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for round in 0..300 {
        let mut m = base.clone();
        let bytes: Vec<u8> = (0..(rng.next() % 200)).map(|_| rng.next() as u8).collect();
        let mut pos = 0;
        m.code.clear();
        while let Ok(instr) = tisslang::isa::Instr::decode(&bytes, &mut pos) {
            m.code.push(instr);
        }
        m.lines = (0..rng.next() % 20)
            .map(|_| LineEntry { pc: rng.index(), line: rng.index(), column: rng.index() })
            .collect();
        m.task = rng.index();
        for (k, v) in &mut m.metadata {
            (*k, *v) = (rng.index(), rng.index());
        }
        for c in &mut m.constants {
            if let Constant::Str(s) = c {
                *s = rng.index();
            }
        }
        for s in &mut m.slots {
            s.name = rng.index();
        }
        for s in &mut m.steps {
            (s.name, s.parent, s.line) = (rng.index(), rng.index(), rng.index());
        }
        for t in &mut m.tasks {
            (t.name, t.entry) = (rng.index(), rng.index());
        }
        for h in &mut m.handlers {
            (h.start, h.end, h.target, h.catch_slot) = (rng.index(), rng.index(), rng.index(), rng.index());
        }
        for r in &mut m.regexes {
            *r = rng.index();
        }
        for t in &mut m.templates {
            for p in &mut t.parts {
                if let TemplatePart::Text(s) = p {
                    *s = rng.index();
                }
            }
        }
        for a in &mut m.assertions {
            (a.condition, a.message) = (rng.index(), rng.index());
            for o in &mut a.observed {
                o.text = rng.index();
                o.path.root = PathRootRef::Slot(rng.index());
                o.path.fields.push(rng.next() as u8);
            }
        }
        for p in &mut m.prompts {
            p.into = rng.index();
            p.context.push(rng.index());
        }
        for c in &mut m.choices {
            c.prompt = rng.index();
            for o in &mut c.options {
                (o.label, o.target) = (rng.index(), rng.index());
            }
        }
        for c in &mut m.manifest.commands {
            (c.text, c.dir, c.step) = (rng.index(), rng.index(), rng.index());
        }
        for p in &mut m.manifest.paths {
            p.path = rng.index();
        }
        for b in &mut m.manifest.budgets {
            b.dim = rng.next() as u8;
        }
        for e in &mut m.manifest.env {
            e.0 = rng.index();
        }
        m.manifest.prompts.clear();
        m.manifest.interactions.clear();
        if round % 3 == 0 {
            m.source = tisslang::module::Source::Stripped;
        }
        if round % 5 == 0 {
            m.strings.clear();
        }
        m.bound.max[Dim::ALL[round % 5]] = u64::MAX;
        let text = tisslang::disasm::disassemble(&m, "h");
        assert_eq!(text, tisslang::disasm::disassemble(&m, "h"), "round {round}");
        assert!(text.starts_with("; TissLang bytecode listing\ntask      "), "round {round}");
    }
}
