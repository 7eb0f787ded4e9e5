//! `.tbc` loading: decode (header checks, checksum, bincode) and verify, on a
//! large module: the generated 50,000-line plan compiled by `tiss-compiler`
//! (and, should it stop compiling, a synthetic module of similar shape);
//! and verifying the module of a plan of each shape of `plan_shapes.rs`.

/// The binaries' allocator, so this measures what they do.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "plan_shapes.rs"]
mod plan_shapes;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

use tisslang::container;
use tisslang::cost::bound::CostBound;
use tisslang::isa::{Instr, run_flags};
use tisslang::module::*;
use tisslang::types::{Field, ValueType};

/// A synthetic module shaped like a compiled plan: `chunks` top-level steps,
/// each running a command, asserting on it, interpolating, writing a file and
/// branching, with the tables such code needs.
fn synthetic(chunks: u32) -> Module {
    let mut m = Module {
        language: [1, 0, 0],
        task: 0,
        metadata: Vec::new(),
        strings: ["A large synthetic plan"].into_iter().collect(),
        constants: Vec::new(),
        code: Vec::new(),
        max_stack: 3,
        slots: Vec::new(),
        lines: Vec::new(),
        steps: Vec::new(),
        tasks: Vec::new(),
        handlers: Vec::new(),
        regexes: Vec::new(),
        templates: Vec::new(),
        assertions: Vec::new(),
        prompts: Vec::new(),
        shapes: Vec::new(),
        choices: Vec::new(),
        estimates: Vec::new(),
        bound: CostBound::ZERO,
        manifest: Manifest::default(),
        source: Source::Stripped,
    };
    fn string(m: &mut Module, s: String) -> u32 {
        m.strings.push(&s)
    }
    for i in 0..chunks {
        let line = i * 12 + 1;
        let name = string(&mut m, format!("Build component {i}"));
        let cmd = string(&mut m, format!("python3 -m pytest tests/test_{i}.py"));
        let dir = string(&mut m, "pkg".into());
        let path = string(&mut m, format!("src/mod_{i}.py"));
        let body = string(&mut m, format!("def f_{i}(x):\n    return x + {i}\n"));
        let cond = string(&mut m, "LAST_RUN.EXIT_CODE == 0".into());
        let msg = string(&mut m, format!("tests for {i} failed"));
        let log = string(&mut m, format!("module {i} ok: "));
        let c = m.constants.len() as u32;
        m.constants.extend([
            Constant::Str(cmd),
            Constant::Str(dir),
            Constant::Duration(30_000),
            Constant::Int(0),
            Constant::Str(path),
            Constant::Str(body),
        ]);
        let slot = m.slots.len() as u32;
        m.slots.push(Slot { name, ty: ValueType::Str });
        let step = m.steps.len() as u32;
        m.steps.push(StepInfo { name, line, column: 1, parent: NONE, depth: 0, bound: CostBound::ZERO });
        let assertion = m.assertions.len() as u32;
        m.assertions.push(Assertion {
            condition: cond,
            message: msg,
            observed: vec![Observed {
                text: cond,
                path: PathRef { root: PathRootRef::LastRun, fields: vec![Field::ExitCode as u8] },
            }],
        });
        let template = m.templates.len() as u32;
        m.templates.push(Template { parts: vec![TemplatePart::Text(log), TemplatePart::Hole] });
        m.manifest.commands.push(CommandEntry {
            text: cmd,
            dynamic: false,
            dir,
            timeout_ms: Some(30_000),
            line: line + 1,
            step,
        });
        m.manifest.paths.push(PathEntry { path, access: PathAccess::Write, dynamic: false, line: line + 3 });

        let pc = m.code.len() as u32;
        m.lines.push(LineEntry { pc, line, column: 1 });
        m.code.extend([
            Instr::StepEnter { step },
            Instr::PushConst { index: c },
            Instr::PushConst { index: c + 1 },
            Instr::PushConst { index: c + 2 },
            Instr::Run { flags: run_flags::DIR | run_flags::TIMEOUT },
            Instr::LastRun {},
            Instr::Field { field: Field::ExitCode as u8 },
            Instr::PushConst { index: c + 3 },
            Instr::Eq {},
            Instr::Assert { assertion },
            Instr::LastRun {},
            Instr::Field { field: Field::Stdout as u8 },
            Instr::Store { slot },
            Instr::PushConst { index: c + 4 },
            Instr::PushConst { index: c + 5 },
            Instr::Write {},
            Instr::Load { slot },
            Instr::IsEmpty {},
            Instr::JumpIfTrue { target: pc + 23 },
            Instr::Load { slot },
            Instr::Interp { template, holes: 1 },
            Instr::Log {},
            Instr::Jump { target: pc + 25 },
            Instr::PushConst { index: c + 4 },
            Instr::Mkdir {},
            Instr::StepExit { step },
        ]);
    }
    m.code.push(Instr::Halt {});
    m
}

#[path = "plan_gen.rs"]
mod plan_gen;

/// The generated 50,000-line plan compiled by the real compiler (keeping the
/// source's hash, as `tissc compile` does by default), if it compiles.
fn compiled() -> Option<Module> {
    let src = plan_gen::generate(50_000);
    let (module, _) =
        tiss_compiler::compile("bench.tiss", src.as_bytes(), tiss_compiler::KeepSource::Hash).ok()?;
    Some(module)
}

fn load(c: &mut Criterion) {
    let (what, module) = match compiled() {
        Some(m) => ("compiled 50k-line plan", m),
        None => {
            eprintln!("warning: the generated plan does not compile; measuring a synthetic module");
            ("synthetic module", synthetic(4_000))
        }
    };
    let bytes = container::encode(&module);
    tisslang::verify::verify(&module).expect("the bench module verifies");
    eprintln!(
        "{what}: {} instructions, {} strings, {} bytes",
        module.code.len(),
        module.strings.len(),
        bytes.len()
    );
    let mut group = c.benchmark_group("tbc");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.sample_size(30);
    group.bench_function("decode", |b| b.iter(|| container::decode(black_box(&bytes)).unwrap()));
    group.bench_function("verify", |b| b.iter(|| tisslang::verify::verify(black_box(&module)).unwrap()));
    group.bench_function("load", |b| b.iter(|| container::load(black_box(&bytes)).unwrap()));
    group.bench_function("encode", |b| b.iter(|| container::encode(black_box(&module))));
    group.finish();
}

/// Verifying the module of a 54,000-line plan of each shape, as `tissc
/// compile` does before writing it and `tissvm` before running it: the
/// conditions shape, all joins, is where the verifier is a quarter of a
/// compile (docs: performance.md).
fn verify_by_shape(c: &mut Criterion) {
    let mut group = c.benchmark_group("verify by shape");
    group.sample_size(20);
    for &shape in plan_shapes::SHAPES {
        let (src, _) = plan_shapes::shape(shape, 54_000).expect("a known shape");
        let (module, _) =
            tiss_compiler::compile("shape.tiss", src.as_bytes(), tiss_compiler::KeepSource::Hash)
                .unwrap_or_else(|_| panic!("the {shape} plan compiles"));
        group.throughput(Throughput::Elements(module.code.len() as u64));
        group.bench_function(shape, |b| b.iter(|| tisslang::verify::verify(black_box(&module)).unwrap()));
    }
    group.finish();
}

criterion_group!(benches, load, verify_by_shape);
criterion_main!(benches);
