//! `tissc generate` against a real llama.cpp server with a real 135M model
//! (`tools/local-llm-server`, started as the VM's provider tests start it):
//! the request carries the TissLang grammar, which llama.cpp parses and
//! samples under, so what the model writes is TissLang whatever it would
//! have written unconstrained. With `CI=true` a missing server fails the
//! test; elsewhere it is skipped loudly.

use std::process::Command;

use serde_json::Value;

#[test]
fn the_grammar_makes_a_small_model_write_tisslang() {
    let Some(base_url) = tiss_test_support::llm_server::base_url() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tissc"))
        .args([
            "generate",
            "Write a Python script that prints hello, run it and check that its output contains hello",
            "--provider",
            "completion",
            "--template",
            "chatml",
            "--base-url",
            base_url,
            "--max-tokens",
            "192",
            "--max-repairs",
            "1",
            "--output-format",
            "json",
        ])
        .current_dir(dir.path())
        .env_remove("TISS_PROVIDER")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{stderr}");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    assert_ne!(json["status"], "provider_error", "{json:#}");
    assert!(stderr.contains("constrained by the TissLang grammar"), "{stderr}");
    // Unconstrained, this model answers in prose (see the README's figures);
    // under the grammar every answer is TissLang, cut short at worst by
    // --max-tokens, and one of them parses whole.
    let plans: Vec<&str> =
        json["attempts"].as_array().unwrap().iter().map(|a| a["plan"].as_str().unwrap()).collect();
    assert!(
        plans.iter().any(|plan| tiss_compiler::parser::parse(plan).1.is_empty()),
        "no answer parses:\n{}",
        plans.join("\n----\n")
    );
    assert!(json["usage"]["tokens"].as_u64().unwrap() > 0 && !json["usage"]["estimated"].as_bool().unwrap());
}
