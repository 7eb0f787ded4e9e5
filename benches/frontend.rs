//! Front-end throughput: lex, lex+parse, lex+parse+check, and the full
//! compile to `.tbc` bytes, of a generated plan of ≥ 50,000 lines that uses
//! every construct.

/// The binaries' allocator, so this measures what they do.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "plan_gen.rs"]
mod plan_gen;
#[path = "plan_shapes.rs"]
mod plan_shapes;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

fn frontend(c: &mut Criterion) {
    let src = plan_gen::generate(50_000);
    let lines = src.lines().count();
    eprintln!("generated plan: {lines} lines, {} bytes", src.len());
    let mut group = c.benchmark_group("frontend");
    group.throughput(Throughput::Bytes(src.len() as u64));
    group.sample_size(20);
    group.bench_function("lex", |b| b.iter(|| tiss_compiler::lexer::lex(black_box(&src))));
    group.bench_function("lex+parse", |b| b.iter(|| tiss_compiler::parser::parse(black_box(&src))));
    group.bench_function("lex+parse+check", |b| {
        b.iter(|| tiss_compiler::frontend("bench.tiss", black_box(src.as_bytes())))
    });
    group.bench_function("compile (to .tbc bytes)", |b| {
        b.iter(|| {
            let options = tiss_compiler::KeepSource::Text;
            let (module, _) = tiss_compiler::compile("bench.tiss", black_box(src.as_bytes()), options)
                .unwrap_or_else(|_| panic!("the generated plan compiles"));
            tisslang::container::encode(&module)
        })
    });
    group.finish();
}

/// A plan written on one line: 100,000 and 200,000 statements. Line and
/// column lookups once rescanned the line from its start, so the time grew
/// with the square of the length; it must double when the length does.
fn one_long_line(c: &mut Criterion) {
    let mut group = c.benchmark_group("one long line");
    group.sample_size(10);
    for statements in [100_000, 200_000] {
        let body: Vec<String> = (0..statements).map(|i| format!("LOG \"x{}\"", i % 50)).collect();
        let src = format!("TASK \"t\"\nSTEP \"s\" {{ {} }}\n", body.join(" "));
        group.throughput(Throughput::Bytes(src.len() as u64));
        group.bench_function(format!("compile {statements} statements"), |b| {
            b.iter(|| {
                let options = tiss_compiler::KeepSource::Text;
                tiss_compiler::compile("line.tiss", black_box(src.as_bytes()), options)
                    .unwrap_or_else(|_| panic!("the one-line plan compiles"))
            })
        });
    }
    group.finish();
}

/// The compile of a 54,000-line plan of each shape of `plan_shapes.rs`
/// (issue 31: the bench plan alone hid the shapes people write), as `tissc
/// compile` does it: the bytes owned, heredoc bodies left in the source, the
/// source given back as it is lowered, its hash kept.
fn shapes(c: &mut Criterion) {
    let mut group = c.benchmark_group("compile by shape");
    group.sample_size(10);
    for &shape in plan_shapes::SHAPES {
        let (src, _) = plan_shapes::shape(shape, 54_000).expect("a known shape");
        group.throughput(Throughput::Bytes(src.len() as u64));
        group.bench_function(shape, |b| {
            b.iter(|| {
                let frontend = tiss_compiler::frontend_to_lower(
                    "shape.tiss",
                    black_box(src.as_bytes()).to_vec(),
                    &mut || {},
                );
                assert!(!frontend.has_errors(), "the {shape} plan compiles");
                tisslang::container::encode(&frontend.into_module(tiss_compiler::KeepSource::Hash))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, frontend, one_long_line, shapes);
criterion_main!(benches);
