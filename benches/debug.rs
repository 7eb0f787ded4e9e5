//! The cost of debugging: a `tissvm debug` session that runs the dispatch
//! bench's plan to its end with `continue` (no breakpoint, and two line
//! breakpoints that are never hit), against a plain run of the same plan.
//! The session runs on `Machine::run_until` with a stop check before every
//! instruction (one byte of a per-pc table; Ctrl-C and breakpoints are
//! looked at only where a statement starts); this measures what that costs.
//! The session's set-up (its statement table, the breakpoints, the first
//! stop) is timed apart from the `continue`.

/// The binaries' allocator, so this measures what they do.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[allow(dead_code)] // the front-end generator is not used here
#[path = "plan_gen.rs"]
mod plan_gen;

use std::time::{Duration, Instant};
use tisslang::cost::Dim;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tiss_compiler::KeepSource;
use tiss_vm::host::scripted::ScriptedHost;
use tiss_vm::machine::program::Program;
use tiss_vm::machine::{Machine, Outcome};
use tiss_vm::session::debugger::{Debugger, Target};

const CHUNKS: usize = 2_000;

/// A session over `program`, with `breakpoints`, paused at its first statement.
fn session(program: Program, breakpoints: &[u32]) -> Debugger<ScriptedHost> {
    let machine = Machine::new(&program);
    let mut debugger = Debugger::new(program, machine, ScriptedHost::default());
    for &line in breakpoints {
        debugger.add_breakpoint(Target::Line(line)).expect("a line with code");
    }
    debugger.start();
    debugger
}

fn debug_overhead(c: &mut Criterion) {
    let src = plan_gen::generate_pure(CHUNKS);
    let (module, _) = tiss_compiler::compile("bench.tiss", src.as_bytes(), KeepSource::Nothing)
        .unwrap_or_else(|fe| panic!("bench plan does not compile: {:?}", fe.diagnostics));
    let mut program = Some(Program::new(module).expect("bench plan loads"));
    // Lines that never run: the `ELSE IF` arm of the first and the last chunk.
    let never: Vec<u32> = src
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("VAR y = \"slow\""))
        .map(|(i, _)| i as u32 + 1)
        .collect();
    let never = [never[0], never[never.len() - 1]];

    let probe = program.as_ref().expect("program");
    let mut machine = Machine::new(probe);
    assert_eq!(machine.run(probe, &mut ScriptedHost::default()), Outcome::Completed);
    let instructions = machine.meters[Dim::Instructions];
    eprintln!("debug bench plan: {instructions} instructions per run");

    let mut group = c.benchmark_group("debug");
    group.throughput(Throughput::Elements(instructions));
    group.bench_function("plain run", |b| {
        let program = program.as_ref().expect("program");
        b.iter(|| {
            let mut machine = Machine::new(program);
            machine.run(program, &mut ScriptedHost::default())
        })
    });
    for (name, breakpoints) in [
        ("continue to the end, no breakpoint", &[][..]),
        ("continue to the end, 2 breakpoints never hit", &never[..]),
    ] {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let mut debugger = session(program.take().expect("program"), breakpoints);
                    let started = Instant::now();
                    let reply = debugger.command("continue");
                    total += started.elapsed();
                    assert_eq!(reply.text, "the plan ended: passed");
                    program = Some(debugger.program);
                }
                total
            })
        });
    }
    group.bench_function("session set-up, 2 breakpoints", |b| {
        b.iter(|| {
            let debugger = session(program.take().expect("program"), &never);
            program = Some(debugger.program);
        })
    });
    group.finish();
}

criterion_group!(benches, debug_overhead);
criterion_main!(benches);
