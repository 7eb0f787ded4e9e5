//! Typed answers at compile time (book: reference/types.md): what a plan may do with a typed
//! answer, and the error each misuse gets. Each case is a whole plan, checked
//! as `tissc check` checks it.

fn codes(src: &str) -> Vec<&'static str> {
    let fe = tiss_compiler::frontend("typed.tiss", src.as_bytes());
    fe.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.code.as_str()).collect()
}

const REVIEW: &str = "TASK \"t\"\nTYPE Review = { verdict: \"approve\" | \"reject\", reasons: LIST OF STRING, \
                      risk: INT, files?: LIST OF STRING, meta?: { owner?: STRING, tags: LIST OF \"a\" | \"b\" } }\n";

fn plan(body: &str) -> String {
    format!("{REVIEW}STEP \"s\" {{\n    PROMPT_AGENT \"review\" INTO r AS Review\n{body}\n}}\n")
}

#[track_caller]
fn clean(body: &str) {
    let src = plan(body);
    assert_eq!(codes(&src), Vec::<&str>::new(), "{src}");
}

#[track_caller]
fn fails(body: &str, code: &str) {
    let src = plan(body);
    assert_eq!(codes(&src), vec![code], "{src}");
}

#[test]
fn the_spec_example_compiles() {
    let src = "TASK \"review a change\"
TYPE Review = { verdict: \"approve\" | \"reject\", reasons: LIST OF STRING, risk: INT, files?: LIST OF STRING }
STEP \"review\" {
    READ \"diff.txt\" AS diff
    PROMPT_AGENT \"Review this change.\" WITH diff INTO r AS Review
    IF r.verdict == \"reject\" AND r.risk >= 3 {
        REQUEST_REVIEW \"The model rejects this change: ${r.reasons}\"
    }
    IF r.files EXISTS {
        RUN \"pytest ${r.files}\" TIMEOUT 5m
    }
}
";
    assert_eq!(codes(src), Vec::<&str>::new());
}

#[test]
fn optional_fields_need_exists_on_every_path() {
    clean("IF r.files EXISTS { LOG \"${r.files}\" }");
    clean("ASSERT r.files EXISTS\nLOG \"${r.files}\"");
    clean("IF r.files EXISTS AND r.files CONTAINS \"a.py\" { LOG \"yes\" }");
    clean("IF r.meta EXISTS AND r.meta.owner EXISTS { LOG \"${r.meta.owner} ${r.meta.tags}\" }");
    clean("IF NOT r.files EXISTS { LOG \"none\" } ELSE { LOG \"none\" }");
    fails("LOG \"${r.files}\"", "E0223");
    fails("IF r.files EXISTS { LOG \"x\" }\nLOG \"${r.files}\"", "E0223");
    fails("IF r.files EXISTS OR r.risk > 2 { LOG \"${r.files}\" }", "E0223");
    fails("IF r.files EXISTS { LOG \"x\" } ELSE { LOG \"${r.files}\" }", "E0223");
    // Only the outer optional field is established.
    fails("IF r.meta EXISTS { LOG \"${r.meta.owner}\" }", "E0223");
    // Binding `r` again forgets what was established about it.
    fails("ASSERT r.files EXISTS\nPROMPT_AGENT \"again\" INTO r AS Review\nLOG \"${r.files}\"", "E0223");
    // Both arms establish it: it holds after the IF.
    clean("IF r.risk > 1 { ASSERT r.files EXISTS } ELSE { ASSERT r.files EXISTS }\nLOG \"${r.files}\"");
}

#[test]
fn a_task_establishes_its_own_facts() {
    let src = format!(
        "{REVIEW}DEFINE_TASK \"show\" {{\n    LOG \"${{r.files}}\"\n}}\nSTEP \"s\" {{\n    PROMPT_AGENT \"q\" INTO r AS Review\n    \
         ASSERT r.files EXISTS\n    CALL \"show\"\n}}\n"
    );
    assert_eq!(codes(&src), vec!["E0223"], "{src}");
}

#[test]
fn fields_enums_and_lists_are_checked() {
    fails("LOG \"${r.verdit}\"", "E0202");
    fails("ASSERT r.verdict == \"rejected\"", "E0222");
    fails("ASSERT r.risk == \"high\"", "E0205");
    fails("ASSERT r.reasons == r.reasons", "E0205");
    fails("ASSERT r.reasons CONTAINS 3", "E0205");
    fails("ASSERT r.reasons.first == \"x\"", "E0216");
    fails("IF r.meta EXISTS { ASSERT r.meta.tags CONTAINS \"c\" }", "E0222");
    clean("IF r.meta EXISTS { ASSERT r.meta.tags CONTAINS \"b\" }");
    clean("ASSERT NOT r.reasons IS_EMPTY\nASSERT r.reasons CONTAINS \"style\"");
    clean("ASSERT r.verdict != \"approve\" OR r.risk < 2");
    // An enum leaf is a string: compared with other strings freely.
    clean("VAR v = r.verdict\nASSERT v == \"approve\"");
}

#[test]
fn what_reaches_a_command_is_checked() {
    clean("RUN \"echo ${r.reasons} ${r.risk} ${r.verdict}\" TIMEOUT 5s");
    clean("LOG \"whole: ${r}\"\nWRITE \"r.json\" FROM r");
    fails("RUN \"echo ${r}\" TIMEOUT 5s", "E0224");
    fails("IF r.meta EXISTS { RUN \"echo ${r.meta}\" TIMEOUT 5s }", "E0224");
}

#[test]
fn exists_tests_optional_fields_only() {
    fails("ASSERT r.risk EXISTS", "E0225");
    fails("ASSERT r EXISTS", "E0225");
}

#[test]
fn types_are_checked() {
    let unknown = "TASK \"t\"\nSTEP \"s\" { PROMPT_AGENT \"q\" INTO a AS Reveiw }\n";
    assert_eq!(codes(unknown), vec!["E0218"]);
    let nested = format!("TASK \"t\"\nTYPE Deep = {}INT\n", "LIST OF ".repeat(40));
    assert_eq!(codes(&nested), vec!["E0220"]);
    // Each level uses the one below twice: 2^20 parts spelled out.
    let mut doubling = String::from("TASK \"t\"\nTYPE T0 = { a: INT }\n");
    for i in 1..=20 {
        doubling.push_str(&format!("TYPE T{i} = {{ l: T{}, r: T{} }}\n", i - 1, i - 1));
    }
    doubling.push_str("STEP \"s\" { PROMPT_AGENT \"q\" INTO x AS T20 }\n");
    assert_eq!(codes(&doubling), vec!["E0220"]);
    let cycle = "TASK \"t\"\nTYPE A = { b: B }\nTYPE B = LIST OF A\n";
    assert!(codes(cycle).contains(&"E0220"), "{:?}", codes(cycle));
    // Scalars and inline types after AS.
    let scalars = "TASK \"t\"\nSTEP \"s\" {\n    PROMPT_AGENT \"n?\" INTO n AS INT\n    ASSERT n > 2\n    \
                   PROMPT_AGENT \"ok?\" INTO ok AS BOOL\n    ASSERT ok\n    \
                   PROMPT_AGENT \"which?\" INTO w AS \"a\" | \"b\"\n    ASSERT w == \"a\"\n    \
                   PROMPT_AGENT \"files?\" INTO fs AS LIST OF STRING\n    ASSERT fs CONTAINS \"x\"\n}\n";
    assert_eq!(codes(scalars), Vec::<&str>::new());
    // An enum answer bound to a plain variable keeps its literals.
    let outside = scalars.replace("ASSERT w == \"a\"", "ASSERT w == \"c\"");
    assert_eq!(codes(&outside), vec!["E0222"]);
}
