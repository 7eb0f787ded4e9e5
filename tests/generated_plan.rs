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

#[path = "../benches/plan_shapes.rs"]
mod plan_shapes;

/// Each shape's plan compiles (warnings allowed: a plan of that shape has
/// them too), is as long as asked, and its Lua twin has as many lines.
#[test]
fn every_shape_compiles_and_its_twin_keeps_its_length() {
    for &shape in plan_shapes::SHAPES {
        let (src, lua) = plan_shapes::shape(shape, 2_000).unwrap();
        let lines = src.lines().count();
        assert!(lines >= 2_000, "{shape}: {lines} lines");
        assert!(
            lua.lines().count().abs_diff(lines) <= 5,
            "{shape}: the twin has {} lines",
            lua.lines().count()
        );
        let fe = tiss_compiler::frontend("shape.tiss", src.as_bytes());
        let errors: Vec<_> =
            fe.diagnostics.iter().filter(|d| d.is_error()).take(3).map(|d| &d.message).collect();
        assert!(errors.is_empty(), "{shape}: {errors:?}");
    }
    assert!(plan_shapes::shape("circles", 10).is_none());
}
