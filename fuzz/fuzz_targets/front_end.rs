//! Any bytes as a plan's source, through what `tissc check`, `parse` and
//! `compile` do with them: decoding, lexing, parsing, the checks, the
//! diagnostics rendered (human and JSON), and for a clean plan the lint
//! warnings (rendered too), the AST's JSON, lowering and the module's
//! encoding, and `tissc compile`'s own path to the same module (heredoc
//! bodies left in the source, the source given back as it is lowered).
//! Never a panic, and what the compiler emits always passes the loader and
//! the verifier.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tiss_compiler::KeepSource;
use tiss_compiler::diagnostics::render;
use tiss_compiler::syntax::ast_json_stream;

fuzz_target!(|data: &[u8]| {
    tisslang_fuzz::contain_parser_panics();
    let mut frontend = tiss_compiler::frontend_owned("fuzz.tiss", data.to_vec());
    render::human_to_string(&frontend.file, &frontend.diagnostics);
    for diagnostic in &frontend.diagnostics {
        render::json_line(&frontend.file, diagnostic);
    }
    if frontend.has_errors() {
        return;
    }
    tiss_compiler::lint::add_warnings(&mut frontend);
    render::human_to_string(&frontend.file, &frontend.diagnostics);
    let streamed = ast_json_stream::write(&mut std::io::sink(), &frontend.file, &frontend.plan);
    assert!(streamed.is_ok(), "the AST JSON of a plan that compiled could not be written: {streamed:?}");
    let module = frontend.into_module(KeepSource::Text);
    if let Err(e) = tisslang::container::load(&tisslang::container::encode(&module)) {
        panic!("the compiler's module is refused by its own loader: {e}");
    }
    // `tissc compile`'s path: heredoc bodies left in the source, the source
    // given back as it is lowered, its hash kept. The same module.
    let lean = tiss_compiler::frontend_to_lower("fuzz.tiss", data.to_vec(), &mut || {});
    assert!(!lean.has_errors(), "a plan the front end passes fails it parsed for lowering");
    let mut expected = module;
    expected.source.drop_text();
    assert!(
        lean.into_module(KeepSource::Hash) == expected,
        "parsed for lowering, the plan lowers to another module"
    );
});
