//! `tissvm estimate` on the generated 50,000-line plan: the bytecode
//! analysis alone, with a cost model and history, with the JSON and text
//! output, and the whole path from `.tbc` bytes (load = decode + verify,
//! then estimate) — next to compiling the same plan, which it must not be
//! slower than.

/// The binaries' allocator, so this measures what they do.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "plan_gen.rs"]
mod plan_gen;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use tiss_compiler::KeepSource;
use tiss_vm::analysis::estimate::{CostModel, estimate};
use tiss_vm::report::style::Style;

fn bench(c: &mut Criterion) {
    let src = plan_gen::generate(50_000);
    let options = KeepSource::Nothing;
    let (module, _) = tiss_compiler::compile("bench.tiss", src.as_bytes(), options)
        .unwrap_or_else(|_| panic!("the generated plan compiles"));
    let bytes = tisslang::container::encode(&module);
    eprintln!("estimate plan: {} lines, {} instructions", src.lines().count(), module.code.len());

    let mut model = CostModel::from_toml(
        "[default]\nmax = \"5m\"\n\n[[command]]\npattern = \"make -C build/*\"\nmax = \"2m\"\n\n\
         [[command]]\nregex = '^echo helper'\nmax = \"1s\"\n",
    )
    .expect("the bench cost model parses");
    let log: String = (0..1_000)
        .map(|i| {
            format!(
                "{{\"event\":\"run\",\"op\":\"echo helper {i}\",\"outcome\":\"exit 0\",\"duration_ms\":3}}\n"
            )
        })
        .collect();
    model.add_history(&log).expect("the bench history parses");

    let mut group = c.benchmark_group("estimate");
    group.throughput(Throughput::Elements(module.code.len() as u64));
    group.sample_size(20);
    group.bench_function("analysis (default model)", |b| {
        b.iter(|| estimate(black_box(&module), &CostModel::default()).expect("bounded"))
    });
    group.bench_function("analysis (cost model + 1000 history commands)", |b| {
        b.iter(|| estimate(black_box(&module), &model).expect("bounded"))
    });
    let e = estimate(&module, &CostModel::default()).expect("bounded");
    group.bench_function("JSON output", |b| {
        b.iter(|| serde_json::to_string_pretty(&black_box(&e).to_json(&module)).expect("serializes"))
    });
    group.bench_function("text output", |b| b.iter(|| black_box(&e).to_text(&module, Style::PLAIN)));
    group.bench_function("load .tbc + analysis", |b| {
        b.iter(|| {
            let m = tisslang::container::load(black_box(&bytes)).expect("loads");
            estimate(&m, &CostModel::default()).expect("bounded")
        })
    });
    group.bench_function("compile (for comparison)", |b| {
        b.iter(|| {
            tiss_compiler::compile("bench.tiss", black_box(src.as_bytes()), options)
                .unwrap_or_else(|_| panic!("the generated plan compiles"))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
