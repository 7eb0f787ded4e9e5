//! The generated bench plan must stay a clean plan, or the bench measures
//! error recovery instead of the front end.

#[path = "../benches/plan_gen.rs"]
mod plan_gen;

#[test]
fn generated_plan_checks_clean() {
    let src = plan_gen::generate(2_000);
    assert!(src.lines().count() >= 2_000);
    let fe = tiss_compiler::frontend("gen.tiss", src.as_bytes());
    let first: Vec<_> = fe
        .diagnostics
        .iter()
        .take(5)
        .map(|d| (d.code, d.message.clone(), fe.file.line_col(d.span.start as usize)))
        .collect();
    assert!(fe.diagnostics.is_empty(), "{} diagnostics, first: {first:?}", fe.diagnostics.len());
}
