//! What a `.tbc` decodes to, against its payload (issue 16, defect 3): every
//! table claims its memory before it is allocated, from a budget of
//! `tisslang::codec::decode_budget::MEMORY_PER_BYTE` bytes per byte of payload plus a
//! fixed part. Compiled plans of every shape claim at most half of it
//! (1.0–1.7 bytes per byte, 4.3 for a plan of nothing but empty steps),
//! so the budget refuses only files built to amplify. Run with `cargo test --test decode_memory --
//! --nocapture` to see the ratios.

#[path = "../benches/plan_gen.rs"]
mod plan_gen;

use std::path::Path;

use tiss_compiler::KeepSource;
use tisslang::codec::decode_budget;
use tisslang::container::{HEADER_LEN, encode};
use tisslang::module::Module;

/// The plans: every example, the generated ones, and plans of one
/// statement repeated, each the shape that decodes largest of its kind.
fn plans() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut plans: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("examples/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "tiss"))
        .map(|p| {
            (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    plans.sort();
    plans.push(("gen_plan 20000".into(), plan_gen::generate(20_000)));
    plans.push(("gen_pure 2000".into(), plan_gen::generate_pure(2_000)));
    let repeat = |head: &str, each: &dyn Fn(usize) -> String, tail: &str| {
        let mut plan = format!("TASK \"t\"\n{head}");
        (0..20_000).for_each(|i| plan.push_str(&each(i)));
        plan + tail
    };
    plans.push(("empty steps".into(), repeat("", &|_| "STEP \"a\" {\n}\n".into(), "")));
    plans.push((
        "steps of a LOG".into(),
        repeat("", &|i| format!("STEP \"s{i}\" {{\n    LOG \"a\"\n}}\n"), ""),
    ));
    plans.push(("variables".into(), repeat("STEP \"s\" {\n", &|i| format!("    VAR x{i} = 1\n"), "}\n")));
    plans.push((
        "tasks".into(),
        repeat(
            "",
            &|i| {
                format!(
                    "DEFINE_TASK \"t{i}\" {{\n    LOG \"a\"\n}}\nSTEP \"s{i}\" {{\n    CALL \"t{i}\"\n}}\n"
                )
            },
            "",
        ),
    ));
    plans.push((
        "estimates".into(),
        repeat(
            "",
            &|i| format!("STEP \"s{i}\" {{\n    ESTIMATE_COST INTO e{i} {{\n        LOG \"a\"\n    }}\n}}\n"),
            "",
        ),
    ));
    plans
}

#[test]
fn compiled_plans_claim_at_most_half_the_budget() {
    let mut worst = (0.0, String::new());
    for (name, source) in plans() {
        let module = match tiss_compiler::compile(&name, source.as_bytes(), KeepSource::Text) {
            Ok((module, _)) => module,
            Err(_) => panic!("{name} does not compile"),
        };
        let bytes = encode(&module);
        let payload = &bytes[HEADER_LEN..];
        let (decoded, claimed) = decode_budget::within_measured(payload.len(), || {
            bincode::serde::decode_from_slice::<Module, _>(payload, bincode::config::standard())
        });
        assert_eq!(decoded.expect("decodes").0, module, "{name}");
        let ratio = claimed as f64 / payload.len() as f64;
        eprintln!("{name:<24} payload {:>9} B  claimed {:>10} B  {ratio:.2}x", payload.len(), claimed);
        assert!(
            claimed <= decode_budget::limit(payload.len()) / 2,
            "{name}: {ratio:.2} bytes claimed per byte"
        );
        if ratio > worst.0 {
            worst = (ratio, name);
        }
    }
    eprintln!("largest: {} ({:.2}x)", worst.1, worst.0);
}
