//! Typed answers (book: reference/types.md): parsing and validating a model's answer against
//! its shape, and printing the value back as JSON. A large answer (≈ 1 MB:
//! a record with a list of 5,000 records of strings, ints, an enum and an
//! optional list) and a typical small one. Target: validating 1 MB ≤ 10 ms.

/// The binaries' allocator, so this measures what they do.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::fmt::Write;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tisslang::answer::{self, Shape, ShapeField, Shapes};

const FINDINGS: usize = 5_000;

/// `{ verdict: "approve" | "reject", summary: STRING, risk: INT, findings:
/// LIST OF { path: STRING, line: INT, severity: "low" | "medium" | "high",
/// message: STRING, tags?: LIST OF STRING } }`, at index 7.
fn shapes() -> Shapes {
    let field = |name: &str, optional, shape| ShapeField { name: name.into(), optional, shape };
    Shapes {
        shapes: vec![
            Shape::Str,
            Shape::Int,
            Shape::Enum(vec!["low".into(), "medium".into(), "high".into()]),
            Shape::List(0),
            Shape::Record(vec![
                field("path", false, 0),
                field("line", false, 1),
                field("severity", false, 2),
                field("message", false, 0),
                field("tags", true, 3),
            ]),
            Shape::List(4),
            Shape::Enum(vec!["approve".into(), "reject".into()]),
            Shape::Record(vec![
                field("verdict", false, 6),
                field("summary", false, 0),
                field("risk", false, 1),
                field("findings", false, 5),
            ]),
        ],
    }
}

const TOP: u32 = 7;

/// An answer with `findings` findings, laid out as models tend to write it.
fn answer(findings: usize) -> String {
    let mut text = String::from("{\n  \"verdict\": \"reject\",\n  \"summary\": \"Two of the changes ");
    text.push_str("break the \\\"retry\\\" path; see the findings.\",\n  \"risk\": 4,\n  \"findings\": [\n");
    for i in 0..findings {
        let severity = ["low", "medium", "high"][i % 3];
        let _ = write!(
            text,
            "    {{\"path\": \"src/module_{}/file_{i}.rs\", \"line\": {}, \"severity\": \"{severity}\", \
             \"message\": \"The call at this line ignores the error it gets back; über-careful \
             handling wanted (finding {i}).\"",
            i % 97,
            i * 7 % 2000,
        );
        if i % 2 == 0 {
            text.push_str(", \"tags\": [\"error-handling\", \"retry\"]");
        }
        text.push_str(if i + 1 < findings { "},\n" } else { "}\n" });
    }
    text.push_str("  ]\n}\n");
    text
}

fn answers(c: &mut Criterion) {
    let shapes = shapes();
    let large = answer(FINDINGS);
    let small = answer(3);
    eprintln!("answers: {} bytes ({FINDINGS} findings) and {} bytes", large.len(), small.len());
    let value =
        answer::parse(&shapes, TOP, &large).unwrap_or_else(|e| panic!("the bench answer is invalid: {e}"));
    let mut json = String::new();
    answer::write_json(&shapes, TOP, &value, &mut json);

    let mut group = c.benchmark_group("answer");
    group.sample_size(20);
    group.throughput(Throughput::Bytes(large.len() as u64));
    group.bench_function("validate 1 MB", |b| b.iter(|| answer::parse(&shapes, TOP, black_box(&large))));
    group.bench_function("serde_json::Value of 1 MB (for comparison)", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(&large)))
    });
    group.throughput(Throughput::Bytes(json.len() as u64));
    group.bench_function("write_json 1 MB", |b| {
        b.iter(|| {
            let mut out = String::with_capacity(json.len());
            answer::write_json(&shapes, TOP, black_box(&value), &mut out);
            out
        })
    });
    group.throughput(Throughput::Bytes(small.len() as u64));
    group.bench_function("validate small", |b| b.iter(|| answer::parse(&shapes, TOP, black_box(&small))));
    group.finish();
}

criterion_group!(benches, answers);
criterion_main!(benches);
