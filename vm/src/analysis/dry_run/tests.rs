use super::*;
use tiss_compiler::KeepSource;
use tisslang::module::Module;

const PLAN: &str = r#"TASK "Arms"
DEFINE_TASK "t" {
    TRY {
        RUN "a"
    } CATCH AS e {
        LOG "${e.MESSAGE}"
    }
}
STEP "s" {
    RUN "first"
    IF LAST_RUN.EXIT_CODE == 0 OR COST.RUN_COUNT > 1 AND NOT FILE "x" EXISTS {
        CALL "t"
    } ELSE IF "a" CONTAINS "b" {
        WRITE "w" FROM "1"
    } ELSE {
        MKDIR "d"
    }
    CHOOSE "pick" {
        OPTION "one" { DELETE "d" RECURSIVE }
        OPTION "two" { CALL "t" }
    }
}
"#;

fn module(src: &str) -> Module {
    let Ok((module, _)) = tiss_compiler::compile("t.tiss", src.as_bytes(), KeepSource::Text) else {
        panic!("the test plan compiles");
    };
    module
}

fn listing(module: Module) -> String {
    let source = module.source.text().map(str::to_string);
    dry_run(&Program::new(module).expect("loads"), source.as_deref())
}

/// The effect lines of a listing (no arm headers), without indentation.
fn effects(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| l.contains("(line ") && !l.starts_with("IF ") && !l.starts_with("else IF "))
        .map(|l| l.to_string())
        .collect()
}

#[test]
fn conditions_read_as_written_with_and_or_not() {
    let text = listing(module(PLAN));
    assert!(
        text.contains(
            "  IF LAST_RUN.EXIT_CODE == 0 OR COST.RUN_COUNT > 1 AND NOT FILE \"x\" EXISTS  (line 11) then:\n"
        ),
        "{text}"
    );
    assert!(text.contains("  else IF \"a\" CONTAINS \"b\"  (line 13) then:\n"), "{text}");
    assert!(
        text.contains("    CALL \"t\"  (line 12)\n      TRY:\n        RUN a  (line 4)\n      CATCH AS e:\n"),
        "{text}"
    );
    assert!(text.contains("    option 2 \"two\":\n      CALL \"t\"  (line 20)\n        TRY:\n"), "{text}");
}

#[test]
fn strings_are_quoted_as_a_plan_writes_them() {
    assert_eq!(quote("plain"), "\"plain\"");
    assert_eq!(quote("a \"b\" \\ c"), "\"a \\\"b\\\" \\\\ c\"");
    assert_eq!(quote("${x} $y\n"), "\"\\${x} $y\\n\"");
}

/// Tables and jumps that no compiler wrote: the listing may lose its arms,
/// but it never panics and still lists every effect the plan has.
#[test]
fn any_module_is_listed_without_panic_and_with_every_effect() {
    let good = module(PLAN);
    let expected = effects(&listing(good.clone()));
    let len = good.code.len() as u32;
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |bound: u32| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % u64::from(bound.max(1))) as u32
    };
    for round in 0..2000 {
        let mut m = good.clone();
        match round % 4 {
            0 => {
                for h in &mut m.handlers {
                    h.start = next(len + 2);
                    h.end = next(len + 2);
                    h.target = next(len + 2);
                    h.catch_slot = if next(2) == 0 { NONE } else { next(5) };
                }
            }
            1 => {
                for c in &mut m.choices {
                    for o in &mut c.options {
                        o.target = next(len + 2);
                    }
                }
            }
            2 => {
                for instr in &mut m.code {
                    if let Instr::Jump { target }
                    | Instr::JumpIfFalse { target }
                    | Instr::JumpIfTrue { target } = instr
                        && next(3) == 0
                    {
                        *target = if next(8) == 0 { u32::MAX } else { next(len + 2) };
                    }
                }
            }
            _ => {
                m.handlers.push(m.handlers[0]);
                m.handlers.push(tisslang::module::Handler { start: 0, end: len, target: 0, ..m.handlers[0] });
            }
        }
        let text = listing(m);
        // Control flow is read from jumps and tables only; effects are
        // listed whatever they say (a mutated condition may read `?`).
        assert_eq!(effects(&text).len(), expected.len(), "round {round}:\n{text}");
    }
}

#[test]
fn deep_nesting_and_many_calls_stay_bounded() {
    // 300 nested IFs: past the nesting bound they are listed flat.
    let mut src = String::from("TASK \"Deep\"\nSTEP \"s\" {\n");
    for i in 0..60 {
        src.push_str(&format!("IF \"{i}\" == \"x\" {{\n"));
    }
    src.push_str("RUN \"deep\"\n");
    src.push_str(&"}\n".repeat(60));
    src.push_str("}\n");
    let text = listing(module(&src));
    assert!(text.contains("RUN deep"), "{text}");
    // A chain of tasks each calling the next twice: 2^20 expansions if
    // unbounded; the listing stops expanding CALLs past its size bound.
    let mut src = String::from("TASK \"Wide\"\n");
    src.push_str("DEFINE_TASK \"t0\" {\n    RUN \"leaf\"\n}\n");
    for i in 1..=20 {
        src.push_str(&format!(
            "DEFINE_TASK \"t{i}\" {{\n    CALL \"t{}\"\n    CALL \"t{}\"\n}}\n",
            i - 1,
            i - 1
        ));
    }
    src.push_str("STEP \"s\" {\n    CALL \"t20\"\n}\n");
    let text = listing(module(&src));
    assert!(text.lines().count() < 4 * MAX_ITEMS, "{} lines", text.lines().count());
}

/// What a WRITE or APPEND writes is counted only when the plan holds it:
/// a value made at run time (a command's output, a caught failure's
/// message, a variable, an interpolation) has no size before the run.
#[test]
fn a_write_of_a_value_made_at_run_time_has_no_size_yet() {
    let text = listing(module(
        r#"TASK "w"
STEP "s" {
    RUN "echo hi"
    VAR v = LAST_RUN.STDOUT
    WRITE "a" FROM LAST_RUN.STDOUT
    TRY {
        ASSERT 1 == 2
    } CATCH AS e {
        WRITE "b" FROM e.MESSAGE
    }
    WRITE "c" FROM v
    APPEND "d" FROM "x=${v}"
    WRITE "e" FROM "literal"
    WRITE "f" <<TXT
two
TXT
}
"#,
    ));
    for (verb, path, line) in [("WRITE", "a", 5), ("WRITE", "b", 9), ("WRITE", "c", 11), ("APPEND", "d", 12)]
    {
        let expected = format!("{verb} {path}  (size known only at run time)  (line {line})\n");
        assert!(text.contains(&expected), "{expected}{text}");
    }
    assert!(text.contains("WRITE e  (7 bytes)  (line 13)\n"), "{text}");
    assert!(text.contains("WRITE f  (4 bytes)  (line 14)\n"), "{text}");
}

/// SETUP runs as a step, and reads as what it is, with its description if
/// it has one; a STEP named "SETUP" stays a STEP. Without the plan's
/// source (a `.tbc` compiled with `--strip`) a SETUP reads as the step it
/// runs as.
#[test]
fn a_setup_block_is_labelled_setup() {
    for (setup, label) in [("SETUP", "SETUP"), ("SETUP \"prepare\"", "SETUP \"prepare\"")] {
        let src =
            format!("TASK \"t\"\n{setup} {{\n    RUN \"a\"\n}}\nSTEP \"SETUP\" {{\n    RUN \"b\"\n}}\n");
        let text = listing(module(&src));
        assert!(text.starts_with(&format!("{label}  (line 2)\n  RUN a  (line 3)\n")), "{text}");
        assert!(text.contains("\nSTEP \"SETUP\"  (line 5)\n  RUN b  (line 6)\n"), "{text}");
        let mut stripped = module(&src);
        stripped.source = tisslang::module::Source::Stripped;
        assert!(listing(stripped).starts_with("STEP "), "{text}");
    }
}
