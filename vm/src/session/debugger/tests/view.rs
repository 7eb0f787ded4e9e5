//! What the debugger shows: print, locals, list, and the source it finds.

use super::*;

#[test]
fn print_shows_variables_last_run_cost_and_fields() {
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &[
            "print",
            "print LAST_RUN",
            "break 18",
            "continue",
            "print n",
            "print title",
            "print tilte",
            "print LAST_RUN",
            "print LAST_RUN.STDOUT",
            "print LAST_RUN.STDOT",
            "print LAST_RUN.KIND",
            "print n.FIELD",
            "print COST",
            "print COST.RUN_COUNT",
        ],
        r#"> print
print needs a name: print NAME, print NAME.FIELD, print LAST_RUN or print COST
> print LAST_RUN
LAST_RUN is not set: no RUN has happened yet
> break 18
breakpoint 1 at line 18
> continue
hit breakpoint 1 at line 18:5, step "Check"
   18 |     ASSERT LAST_RUN.EXIT_CODE == 0
> print n
n = 3
> print title
`title` is not bound yet (a string variable)
> print tilte
no variable is named `tilte`; did you mean `title`?
> print LAST_RUN
LAST_RUN = LAST_RUN record
  STDOUT    = "hello\n"
  STDERR    = ""
  EXIT_CODE = 0
  DURATION  = 1ms
  TIMED_OUT = FALSE
  COMMAND   = "cat a.txt"
> print LAST_RUN.STDOUT
LAST_RUN.STDOUT = "hello\n"
> print LAST_RUN.STDOT
a LAST_RUN record has no field `STDOT`; did you mean `LAST_RUN.STDOUT`?
> print LAST_RUN.KIND
a LAST_RUN record has no field `KIND`; its fields are STDOUT, STDERR, EXIT_CODE, DURATION, TIMED_OUT, COMMAND
> print n.FIELD
`n` is an integer: it has no field `FIELD`
> print COST
COST = COST record: what step "Check" has spent so far
  API_CALLS      = 0
  TOKEN_COUNT    = 0
  EXECUTION_TIME = 0s
  RUN_COUNT      = 1
  INSTRUCTIONS   = 2
> print COST.RUN_COUNT
COST.RUN_COUNT = 1
"#,
    );
}

#[test]
fn locals_lists_bound_variables_shortened() {
    let src = "TASK \"t\"\nSTEP \"s\" {\n    VAR long = \"".to_string()
        + &"x".repeat(300)
        + "\"\n    VAR d = 1500ms\n    VAR late = 1\n}\n";
    let (mut d, _) = session(&src);
    exact(
        &mut d,
        &["break 5", "locals", "continue", "locals"],
        &format!(
            "> break 5\nbreakpoint 1 at line 5\n> locals\nno variable is bound yet\n> continue\nhit breakpoint 1 at line 5:5, step \"s\"\n    5 |     VAR late = 1\n> locals\nlong: string = \"{}\" … [220 characters omitted] … \"{}\"\nd: duration = 1500ms\n",
            "x".repeat(40),
            "x".repeat(40)
        ),
    );
}

#[test]
fn list_marks_the_current_line_and_breakpoints() {
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &["break \"Check\"", "list", "list 2", "list 40", "list x"],
        r#"> break "Check"
breakpoint 1 at step "Check"
> list
     3 | DEFINE_TASK "lint" {
     4 |     RUN "lint"
     5 |     VAR linted = TRUE
     6 | }
     7 |
->   8 | STEP "Write" {
     9 |     WRITE "a.txt" <<TEXT
    10 | hello
    11 | TEXT
    12 |     CALL "lint"
    13 |     VAR n = 3
> list 2
    1 | TASK "Debug me"
    2 |
    3 | DEFINE_TASK "lint" {
    4 |     RUN "lint"
    5 |     VAR linted = TRUE
    6 | }
    7 |
> list 40
line 40 is past the end of the plan (21 lines)
> list x
list takes a line number, not `x`
"#,
    );
    exact(
        &mut d,
        &["continue", "list"],
        r#"> continue
hit breakpoint 1 at line 16:1, entering step "Check"
   16 | STEP "Check" {
> list
    11 | TEXT
    12 |     CALL "lint"
    13 |     VAR n = 3
    14 | }
    15 |
->* 16 | STEP "Check" {
    17 |     RUN "cat a.txt"
    18 |     ASSERT LAST_RUN.EXIT_CODE == 0
    19 |     VAR title = "Hello"
    20 |     IF title == "Hello" { LOG "yes" }
    21 | }
"#,
    );
}

#[test]
fn a_stripped_plan_still_debugs_without_its_source() {
    let program = program(PLAN, true);
    let machine = Machine::new(&program);
    let mut d = Debugger::new(program, machine, host());
    assert_eq!(d.start().text, "paused before the first statement at line 8:1, entering step \"Write\"");
    exact(
        &mut d,
        &["list", "where", "break 12", "continue"],
        "> list\nno source to show: the bytecode has no source: it was compiled with `tissc compile --strip`; \
         `tissvm disasm` shows the code\n> where\nat line 8, column 1\nno source to show: the bytecode has no \
         source: it was compiled with `tissc compile --strip`\nstep path: (no step open)\nnext: entering step \
         \"Write\"\ncall stack, innermost first:\n  main at line 8:1\n> break 12\nbreakpoint 1 at line 12\n\
         > continue\nhit breakpoint 1 at line 12:5, step \"Write\"\n",
    );
    assert!(
        d.banner().ends_with(
            "(help lists the commands)\nno source to show: the bytecode has no source: it was \
                                  compiled with `tissc compile --strip`"
        ),
        "{}",
        d.banner()
    );
}

#[test]
fn a_plan_keeping_its_source_hash_shows_the_matching_file_beside_it() {
    let (mut module, _) = tiss_compiler::compile("plan.tiss", PLAN.as_bytes(), KeepSource::Text)
        .unwrap_or_else(|fe| panic!("the test plan compiles: {:?}", fe.diagnostics));
    module.source.drop_text();
    let program = Program::new(module).expect("the test plan loads");
    let machine = Machine::new(&program);
    let mut d = Debugger::new(program, machine, host());
    // No plan file given (a snapshot's bytecode): nowhere to look.
    assert!(
        d.banner().ends_with(&format!("\nno source to show: {}", Unavailable::NoPlanFile)),
        "{}",
        d.banner()
    );
    assert_eq!(d.start().text, "paused before the first statement at line 8:1, entering step \"Write\"");

    let dir = tempfile::tempdir().expect("temp dir");
    let tbc = dir.path().join("plan.tbc");
    let tiss = dir.path().join("plan.tiss");
    std::fs::write(&tiss, PLAN).unwrap();
    d.find_source(&tbc);
    assert_eq!(d.banner(), "debugging \"Debug me\" (help lists the commands)");
    assert_eq!(d.command("list 1").text.lines().next(), Some("    1 | TASK \"Debug me\""));
    assert!(d.command("where").text.starts_with("at line 8, column 1\n    8 | STEP \"Write\" {\n"));

    // Edited since it was compiled: its lines would not be the code's.
    std::fs::write(&tiss, PLAN.replace("Debug me", "Debug you")).unwrap();
    d.find_source(&tbc);
    let why = Unavailable::Changed { path: tiss.clone() }.to_string();
    assert_eq!(d.command("list").text, format!("no source to show: {why}; `tissvm disasm` shows the code"));
    assert!(d.command("where").text.starts_with(&format!("at line 8, column 1\nno source to show: {why}\n")));
    std::fs::remove_file(&tiss).unwrap();
    d.find_source(&tbc);
    let why = Unavailable::Missing { path: tiss }.to_string();
    assert!(d.banner().ends_with(&format!("\nno source to show: {why}")), "{}", d.banner());
}

#[test]
fn values_show_in_plan_syntax_and_long_strings_keep_head_and_tail() {
    assert_eq!(show(&Value::Bool(true), 10), "TRUE");
    assert_eq!(show(&Value::Duration(90_000), 10), "90s");
    assert_eq!(show(&Value::Int(-3), 10), "-3");
    assert_eq!(show(&Value::Str("a\"b\n".into()), 10), r#""a\"b\n""#);
    assert_eq!(show(&Value::Str("abcdefghij".into()), 4), r#""ab" … [6 characters omitted] … "ij""#);
    let review = Value::Record(Box::new(Record::Review { approved: false, comment: "no".into() }));
    assert_eq!(show(&review, 10), r#"{APPROVED = FALSE, COMMENT = "no"}"#);
}

#[test]
fn print_marks_text_from_a_file_as_tainted() {
    let src = "TASK \"t\"\nSTEP \"s\" {\n    WRITE \"a.txt\" FROM \"hi\"\n    READ \"a.txt\" AS got\n    \
               VAR plain = \"hi\"\n    LOG \"end\"\n}\n";
    let (mut d, _) = session(src);
    let got = transcript(&mut d, &["break 6", "continue", "print got", "print plain"]);
    assert!(got.contains("> print got\ngot = \"hi\" (tainted: from a model or a file)\n"), "{got}");
    assert!(got.contains("> print plain\nplain = \"hi\"\n"), "{got}");
}
