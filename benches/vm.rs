//! VM benches: pure dispatch (ns per instruction), with and without budgets,
//! and the overhead of RUN against spawning `/bin/sh -c true` directly.

/// The binaries' allocator, so this measures what they do.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[allow(dead_code)] // the front-end generator is not used here
#[path = "plan_gen.rs"]
mod plan_gen;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tiss_compiler::KeepSource;
use tiss_vm::host::scripted::ScriptedHost;
use tiss_vm::machine::program::Program;
use tiss_vm::machine::{Machine, Outcome};
use tisslang::cost::Dim;

fn program(src: &str) -> Program {
    let (module, _) = tiss_compiler::compile("bench.tiss", src.as_bytes(), KeepSource::Nothing)
        .unwrap_or_else(|fe| panic!("bench plan does not compile: {:?}", fe.diagnostics));
    Program::new(module).expect("bench plan loads")
}

fn dispatch(c: &mut Criterion) {
    let program = program(&plan_gen::generate_pure(2_000));
    let mut probe = Machine::new(&program);
    assert_eq!(probe.run(&program, &mut ScriptedHost::default()), Outcome::Completed);
    let instructions = probe.meters[Dim::Instructions];
    eprintln!("dispatch plan: {instructions} instructions per run");

    let mut group = c.benchmark_group("dispatch");
    group.throughput(Throughput::Elements(instructions));
    group.bench_function("pure VM plan", |b| {
        b.iter(|| {
            let mut machine = Machine::new(&program);
            machine.run(&program, &mut ScriptedHost::default())
        })
    });
    group.bench_function("pure VM plan, budgets set", |b| {
        b.iter(|| {
            let mut machine = Machine::new(&program);
            for dim in Dim::ALL {
                machine.cap(dim, u64::MAX / 2);
            }
            machine.run(&program, &mut ScriptedHost::default())
        })
    });
    group.finish();
}

fn run_overhead(c: &mut Criterion) {
    const RUNS: usize = 500;
    let src = format!("TASK \"t\"\nSTEP \"s\" {{\n{}}}\n", "    RUN \"true\"\n".repeat(RUNS));
    let program = program(&src);
    let dir = tempfile::tempdir().expect("temp dir");
    let mut group = c.benchmark_group("run_overhead");
    group.sample_size(10);
    group.throughput(Throughput::Elements(RUNS as u64));
    group.bench_function("500 x RUN \"true\" (tissvm)", |b| {
        b.iter(|| {
            let workspace = tiss_host::workspace::Workspace::open(dir.path()).expect("workspace");
            let provider = tiss_vm::provider::build(&Default::default()).expect("mock");
            let mut host = tiss_vm::runner::os_host::OsHost::new(
                workspace,
                provider,
                tiss_vm::runner::os_host::Progress::Quiet,
            );
            host.quiet_steps = true;
            let mut machine = Machine::new(&program);
            assert_eq!(machine.run(&program, &mut host), Outcome::Completed);
        })
    });
    group.bench_function("500 x spawn /bin/sh -c true (Rust loop)", |b| {
        b.iter(|| {
            for _ in 0..RUNS {
                let status = std::process::Command::new("/bin/sh")
                    .arg("-c")
                    .arg("true")
                    .current_dir(dir.path())
                    .stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .output()
                    .expect("spawn");
                assert!(status.status.success());
            }
        })
    });
    group.finish();
}

/// A run of 25,000 and 50,000 steps, each with a LOG, to its JSON report.
/// Building the report once searched every step's record and logs for each
/// step, so the time grew with the square of the steps; it must double when
/// they do.
fn many_steps(c: &mut Criterion) {
    let mut group = c.benchmark_group("many steps");
    group.sample_size(10);
    for steps in [25_000, 50_000] {
        let src: String = std::iter::once("TASK \"t\"\n".to_string())
            .chain((0..steps).map(|i| format!("STEP \"s{i}\" {{\n    LOG \"x\"\n}}\n")))
            .collect();
        let program = program(&src);
        group.throughput(Throughput::Elements(steps as u64));
        group.bench_function(format!("{steps} steps, run and report"), |b| {
            b.iter(|| {
                let mut machine = Machine::new(&program);
                let outcome = machine.run(&program, &mut ScriptedHost::default());
                tiss_vm::report::RunReport::new(&program, &machine, &outcome, None).to_json()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, dispatch, run_overhead, many_steps);
criterion_main!(benches);
