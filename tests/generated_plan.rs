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

/// Past 256 KiB the syntax tree is freed on another thread: the module and
/// the returned file are the same as for a small plan's path.
#[test]
fn large_plans_compile_the_same_with_the_tree_freed_in_the_background() {
    let src = plan_gen::generate(10_000);
    assert!(src.len() > 256 * 1024, "{} bytes: not past the threshold", src.len());
    let compile = || {
        let Ok((module, fe)) = tiss_compiler::compile("gen.tiss", src.as_bytes(), Default::default()) else {
            panic!("the generated plan compiles");
        };
        assert_eq!(fe.file.text, src);
        assert!(fe.plan.items.is_empty(), "the tree was handed off");
        module
    };
    let (a, b) = (compile(), compile());
    assert_eq!(tisslang::format::encode(&a), tisslang::format::encode(&b));
    let fe = tiss_compiler::frontend("gen.tiss", src.as_bytes());
    let lowered = tiss_compiler::lower::lower(&fe.plan, &fe.file, Default::default());
    assert_eq!(lowered, a, "the same module as lowering in place");
}
