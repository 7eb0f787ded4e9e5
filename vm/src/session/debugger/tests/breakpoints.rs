//! Breakpoints: at lines and steps, hit and deleted.

use super::*;

#[test]
fn line_breakpoints_stop_before_the_line_and_refuse_lines_without_code() {
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &["break 12", "break 12", "break 2", "break 14", "break 99", "break 0", "continue", "print linted"],
        r#"> break 12
breakpoint 1 at line 12
> break 12
breakpoint 1 already stops at line 12
> break 2
line 2 has no code to stop at; the first line with code is 4
> break 14
line 14 has no code to stop at; the nearest lines with code are 13 and 16
> break 99
line 99 is past the end of the plan (21 lines); the last line with code is 20
> break 0
lines are numbered from 1
> continue
hit breakpoint 1 at line 12:5, step "Write"
   12 |     CALL "lint"
> print linted
`linted` is not bound yet (a boolean variable)
"#,
    );
    assert_eq!(d.host.effects, ["write a.txt"], "stopped before the CALL");
}

#[test]
fn step_breakpoints_stop_where_the_step_starts() {
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &[
            "break \"Check\"",
            "break Chek",
            "break \"Nope\"",
            "break \"Check",
            "continue",
            "where",
            "continue",
        ],
        r#"> break "Check"
breakpoint 1 at step "Check"
> break Chek
no step is named "Chek"; did you mean "Check"?
> break "Nope"
no step is named "Nope"; the steps are "Write", "Check"
> break "Check
"Check has no closing quote
> continue
hit breakpoint 1 at line 16:1, entering step "Check"
   16 | STEP "Check" {
> where
at line 16, column 1
   16 | STEP "Check" {
step path: (no step open)
next: entering step "Check"
call stack, innermost first:
  main at line 16:1
> continue
the plan ended: passed
"#,
    );
    assert!(d.has_ended());
    assert_eq!(d.exit_status(), 0);
}

#[test]
fn next_stops_at_a_breakpoint_inside_a_call() {
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &["break 5", "break 12", "continue", "next", "next"],
        r#"> break 5
breakpoint 1 at line 5
> break 12
breakpoint 2 at line 12
> continue
hit breakpoint 2 at line 12:5, step "Write"
   12 |     CALL "lint"
> next
hit breakpoint 1 at line 5:5, step "Write", task "lint"
    5 |     VAR linted = TRUE
> next
at line 13:5, step "Write"
   13 |     VAR n = 3
"#,
    );
}

#[test]
fn a_line_breakpoint_stops_once_per_line_and_step_visits_each_statement() {
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &["break 20", "continue", "step", "step", "step"],
        r#"> break 20
breakpoint 1 at line 20
> continue
hit breakpoint 1 at line 20:5, step "Check"
   20 |     IF title == "Hello" { LOG "yes" }
> step
at line 20:27, step "Check"
   20 |     IF title == "Hello" { LOG "yes" }
> step
the plan ended: passed
> step
the plan has ended (passed): nothing is left to run; where, print, locals and list still work
"#,
    );
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &["break 20", "continue", "continue"],
        "> break 20\nbreakpoint 1 at line 20\n> continue\nhit breakpoint 1 at line 20:5, step \"Check\"\n   20 |     IF title == \"Hello\" { LOG \"yes\" }\n> continue\nthe plan ended: passed\n",
    );
}

#[test]
fn delete_removes_breakpoints() {
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &[
            "delete", "break 4", "break 13", "break", "delete 7", "delete x", "delete 1", "break",
            "continue", "delete", "break",
        ],
        r#"> delete
no breakpoints to delete
> break 4
breakpoint 1 at line 4
> break 13
breakpoint 2 at line 13
> break
breakpoint 1 at line 4
breakpoint 2 at line 13
> delete 7
no breakpoint 7; the breakpoints are 1, 2
> delete x
delete takes a breakpoint number, not `x`: `break` lists them
> delete 1
deleted breakpoint 1 at line 4
> break
breakpoint 2 at line 13
> continue
hit breakpoint 2 at line 13:5, step "Write"
   13 |     VAR n = 3
> delete
deleted the breakpoint
> break
no breakpoints
"#,
    );
    assert!(d.breakpoints().is_empty());
    d.command("break 13");
    assert_eq!(d.breakpoints()[0].target, Target::Line(13));
}

#[test]
fn targets_parse_lines_and_step_names() {
    assert_eq!(Target::parse("12"), Ok(Target::Line(12)));
    assert_eq!(Target::parse(" 7 "), Ok(Target::Line(7)));
    assert_eq!(Target::parse("\"Run the tests\""), Ok(Target::Step("Run the tests".into())));
    assert_eq!(Target::parse("Run the tests"), Ok(Target::Step("Run the tests".into())));
    assert_eq!(Target::parse(r#""say \"hi\" \\ there""#), Ok(Target::Step(r#"say "hi" \ there"#.into())));
    assert_eq!(Target::parse("\"\""), Ok(Target::Step(String::new())));
    assert!(Target::parse("").is_err());
    assert!(Target::parse("0").is_err());
    assert!(Target::parse("99999999999").is_err());
    assert!(Target::parse("\"open").is_err());
    assert!(Target::parse("\"").is_err());
}

#[test]
fn breakpoints_sharing_an_instruction_hit_together_and_delete_one_by_one() {
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &["break 16", "break \"Check\"", "continue"],
        "> break 16\nbreakpoint 1 at line 16\n> break \"Check\"\nbreakpoint 2 at step \"Check\"\n> continue\nhit \
         breakpoints 1, 2 at line 16:1, entering step \"Check\"\n   16 | STEP \"Check\" {\n",
    );
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &["break 16", "break \"Check\"", "delete 1", "continue"],
        "> break 16\nbreakpoint 1 at line 16\n> break \"Check\"\nbreakpoint 2 at step \"Check\"\n> delete 1\ndeleted \
         breakpoint 1 at line 16\n> continue\nhit breakpoint 2 at line 16:1, entering step \"Check\"\n   16 | STEP \
         \"Check\" {\n",
    );
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &["break 16", "break 4", "delete", "continue"],
        "> break 16\nbreakpoint 1 at line 16\n> break 4\nbreakpoint 2 at line 4\n> delete\ndeleted all 2 \
         breakpoints\n> continue\nthe plan ended: passed\n",
    );
}
