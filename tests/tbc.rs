//! The `.tbc` container and the verifier on real compiled plans: every
//! example and the generated bench plan compile to modules that encode
//! deterministically, load (decode + verify) back unchanged, and keep their
//! content hash whether the source is embedded, kept as its hash or stripped;
//! `Frontend::into_module` builds the modules `compile` does.

#[path = "../benches/plan_gen.rs"]
mod plan_gen;

use std::path::Path;

use tiss_compiler::KeepSource;
use tisslang::container;
use tisslang::module::{Module, Source};

fn compile(name: &str, bytes: &[u8], keep: KeepSource) -> Module {
    match tiss_compiler::compile(name, bytes, keep) {
        Ok((module, _)) => module,
        Err(fe) => panic!("{name} does not compile: {:?}", fe.diagnostics.first().map(|d| &d.message)),
    }
}

fn check_module(name: &str, bytes: &[u8]) {
    let module = compile(name, bytes, KeepSource::Text);
    let facts = match tisslang::verify::verify(&module) {
        Ok(facts) => facts,
        Err(e) => panic!("{name}: the compiled module does not verify: {e}"),
    };
    // Compiled plans are far inside the verifier's budget: where paths
    // meet, a few steps per instruction.
    let len = module.code.len() as u64;
    eprintln!("{name}: {} instructions, {} steps of analysis", len, facts.work());
    assert!(facts.work() <= 4 * len, "{name}: {} steps for {len} instructions", facts.work());
    let encoded = container::encode(&module);
    assert_eq!(container::load(&encoded).as_ref(), Ok(&module), "{name}");
    // Identical source, identical bytes.
    assert_eq!(container::encode(&compile(name, bytes, KeepSource::Text)), encoded, "{name}");
    // Keeping the source's hash (the default) or nothing keeps the code's identity.
    let mut hashed = module.clone();
    hashed.source.drop_text();
    assert_eq!(compile(name, bytes, KeepSource::Hash), hashed, "{name}");
    let stripped = compile(name, bytes, KeepSource::Nothing);
    assert_eq!(stripped.source, Source::Stripped);
    for other in [&hashed, &stripped] {
        assert_eq!(container::content_hash(other), container::content_hash(&module), "{name}");
        assert_eq!(container::load(&container::encode(other)).as_ref(), Ok(other), "{name}");
    }
    // `tissc compile`'s path (owned bytes, the front end consumed) builds the same modules.
    // Keeping the hash or nothing, it gives the source text back as it lowers.
    for (keep, expected) in
        [(KeepSource::Text, &module), (KeepSource::Hash, &hashed), (KeepSource::Nothing, &stripped)]
    {
        let fe = tiss_compiler::frontend_owned(name, bytes.to_vec());
        assert_eq!(&fe.into_module(keep), expected, "{name}");
    }
}

#[test]
fn every_example_loads() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "tiss") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            check_module(&name, &std::fs::read(&path).unwrap());
            seen += 1;
        }
    }
    assert!(seen > 0);
}

#[test]
fn generated_plan_loads() {
    let src = plan_gen::generate(2_000);
    check_module("gen.tiss", src.as_bytes());
}
