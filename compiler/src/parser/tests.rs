use crate::syntax::ast::*;

fn parse_ok(src: &str) -> Plan {
    let (plan, diags) = super::parse(src);
    assert!(diags.is_empty(), "lex and parse: {diags:#?}");
    plan
}

fn parse_errs(src: &str) -> Vec<(&'static str, String)> {
    let (_, all) = super::parse(src);
    all.into_iter()
        .map(|d| (d.code.as_str(), d.suggestions.first().map(|s| s.replacement.clone()).unwrap_or_default()))
        .collect()
}

/// The statements of the first STEP of `TASK "t" STEP "s" { <body> }`.
fn stmts(body: &str) -> Vec<StmtKind> {
    let plan = parse_ok(&format!("TASK \"t\"\nSTEP \"s\" {{\n{body}\n}}\n"));
    match plan.items.into_iter().nth(1) {
        Some(Item::Step(step)) => step.body.commands.into_iter().map(|s| s.kind).collect(),
        other => panic!("{other:?}"),
    }
}

fn one(body: &str) -> StmtKind {
    let mut all = stmts(body);
    assert_eq!(all.len(), 1, "{all:#?}");
    all.remove(0)
}

fn lit(s: &StrLit) -> &str {
    s.as_literal().expect("literal")
}

#[test]
fn top_level_items() {
    let plan = parse_ok(
        "#TISS! Language=Python\n#TISS_VERSION ^1.0\nTASK \"t\"\nSET_BUDGET RUN_COUNT = 3\nSETUP \"prep\" { LOG \"a\" }\nSTEP \"one\" { }\nDEFINE_TASK \"sub\" { LOG \"b\" }\n",
    );
    let kinds: Vec<&str> = plan
        .items
        .iter()
        .map(|i| match i {
            Item::Header { .. } => "header",
            Item::Version { .. } => "version",
            Item::Task { .. } => "task",
            Item::Setup { .. } => "setup",
            Item::Step(_) => "step",
            Item::DefineTask { .. } => "define",
            Item::SetBudget(_) => "budget",
            Item::TypeDef(_) => "type",
        })
        .collect();
    assert_eq!(kinds, ["header", "version", "task", "budget", "setup", "step", "define"]);
    assert!(matches!(&plan.items[4], Item::Setup { description: Some(d), .. } if lit(d) == "prep"));
    let bare = parse_ok("TASK \"t\" SETUP { }");
    assert!(matches!(&bare.items[1], Item::Setup { description: None, .. }));
}

#[test]
fn a_parse_for_lowering_leaves_verbatim_heredoc_bodies_in_the_source() {
    let src = "TASK \"t\"\nSTEP \"s\" {\n  WRITE \"a\" <<PY\nx = 1\nPY\n  WRITE \"b\" <<~EOF\n    y\n    EOF\n  \
               WRITE \"c\" <<EOF\r\nz\r\nEOF\n  WRITE \"d\" <<EOF\nEOF\n}\n";
    let bodies = |plan: &Plan| -> Vec<(String, bool)> {
        let Item::Step(step) = &plan.items[1] else { panic!("{:?}", plan.items[1]) };
        step.body
            .commands
            .iter()
            .map(|stmt| match &stmt.kind {
                StmtKind::Write { content: Content::Heredoc(h), .. } => {
                    (h.body(src).to_string(), h.in_source.is_some())
                }
                other => panic!("{other:?}"),
            })
            .collect()
    };
    let (plan, diagnostics) = super::parse(src);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let (lean, diagnostics) = super::parse_for_lowering(src);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let expected = [("x = 1\n", false), ("y\n", false), ("z\n", false), ("", false)];
    assert_eq!(bodies(&plan), expected.map(|(b, s)| (b.to_string(), s)));
    // Only the body written as taken stays in the source; `<<~` and CRLF
    // bodies differ from their source text, so they are copied.
    let expected = [("x = 1\n", true), ("y\n", false), ("z\n", false), ("", true)];
    assert_eq!(bodies(&lean), expected.map(|(b, s)| (b.to_string(), s)));
}

#[test]
fn file_statements() {
    assert!(
        matches!(one("READ \"a.txt\" AS content"), StmtKind::Read { path, var } if lit(&path) == "a.txt" && var.name == "content")
    );
    match one("WRITE \"m.py\" <<PY\nx = 1\nPY") {
        StmtKind::Write { path, content: Content::Heredoc(h) } => {
            assert_eq!(lit(&path), "m.py");
            assert_eq!(h.body, "x = 1\n");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        one("WRITE \"o\" FROM LAST_RUN.STDOUT"),
        StmtKind::Write { content: Content::From { .. }, .. }
    ));
    assert!(
        matches!(one("APPEND \"log\" <<~EOF\n  line\n  EOF"), StmtKind::Append { content: Content::Heredoc(h), .. } if h.body == "line\n")
    );
    assert!(matches!(one("APPEND \"log\" FROM x"), StmtKind::Append { content: Content::From { .. }, .. }));
    assert!(matches!(one("MKDIR \"build/out\""), StmtKind::Mkdir { .. }));
    assert!(matches!(one("DELETE \"tmp\" RECURSIVE"), StmtKind::Delete { recursive: true, .. }));
    assert!(matches!(one("DELETE \"tmp\""), StmtKind::Delete { recursive: false, .. }));
}

#[test]
fn run_and_env_and_log() {
    match one("RUN \"make\" IN \"sub\" TIMEOUT 30s") {
        StmtKind::Run { command, dir: Some(dir), timeout: Some(t) } => {
            assert_eq!(lit(&command), "make");
            assert_eq!(lit(&dir), "sub");
            assert_eq!(t.millis, 30_000);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        one("RUN \"make\" TIMEOUT 2m IN \"sub\""),
        StmtKind::Run { dir: Some(_), timeout: Some(_), .. }
    ));
    assert!(matches!(one("RUN \"ls\""), StmtKind::Run { dir: None, timeout: None, .. }));
    assert!(matches!(one("ENV RUST_LOG = \"debug\""), StmtKind::Env { name, .. } if name.name == "RUST_LOG"));
    assert!(matches!(one("LOG \"hi ${x}\""), StmtKind::Log { .. }));
}

#[test]
fn assert_and_var() {
    match one("ASSERT LAST_RUN.EXIT_CODE == 0 MESSAGE \"build failed\"") {
        StmtKind::Assert { condition, message: Some(m) } => {
            assert!(matches!(&condition.kind, CondKind::Test(t) if t.op() == TestOp::Compare(CmpOp::Eq)));
            assert_eq!(lit(&m), "build failed");
        }
        other => panic!("{other:?}"),
    }
    let kind = |body: &str| match one(body) {
        StmtKind::Var { value, .. } => format!("{:?}", value.kind()),
        other => panic!("{other:?}"),
    };
    assert_eq!(kind("VAR n = 3"), "Int { value: 3 }");
    assert_eq!(kind("VAR n = 9000000000"), "Int { value: 9000000000 }");
    assert_eq!(kind("VAR t = 5s"), "Duration { millis: 5000 }");
    // Beyond 32 bits, each is boxed, and reads the same.
    assert_eq!(kind("VAR t = 1200h"), "Duration { millis: 4320000000 }");
    assert_eq!(kind("VAR b = TRUE"), "Bool { value: true }");
    assert!(kind("VAR c = COST").starts_with("Path {"));
}

/// A string literal of an expression whose text is its source between the
/// quotes is kept as its span, whatever its length; one with an escape or
/// interpolation is boxed. Either way it reads as the same literal and
/// serializes as one.
#[test]
fn plain_literals_are_spans_and_read_as_the_literal_they_are() {
    for (lit, text, inline) in [
        ("\"\"", "", true),
        ("\"v\"", "v", true),
        ("\"far more than fifteen bytes of text\"", "far more than fifteen bytes of text", true),
        ("\"thirteen byte\u{e9}\"", "thirteen byte\u{e9}", true),
        // Decoded: the escape is one byte of the text.
        ("\"a\\\"b\"", "a\"b", false),
    ] {
        let src = format!("TASK \"t\"\nSTEP \"s\" {{\nVAR a = {lit}\n}}\n");
        let plan = parse_ok(&src);
        let Some(Item::Step(step)) = plan.items.get(1) else { panic!("a step") };
        let StmtKind::Var { value: expr, .. } = &step.body.commands[0].kind else { panic!("a VAR") };
        assert_eq!(expr.literal(&src), Some(text), "{lit}");
        assert_eq!(matches!(expr.kind(), ExprKind::Text), inline, "{lit}: {:?}", expr.kind());
        assert!(expr.is_literal(), "{lit}");
        let json = crate::syntax::expr::with_source(&src, || serde_json::to_value(expr).unwrap());
        let boxed = StrLit::text(Text::new(text), expr.span());
        assert_eq!(json["kind"], "str", "{lit}");
        assert_eq!(json["value"], serde_json::to_value(&boxed).unwrap(), "{lit}");
        assert_eq!(json["span"], serde_json::to_value(expr.span()).unwrap(), "{lit}");
    }
    let src = "TASK \"t\"\nSTEP \"s\" {\nVAR a = \"x ${b}\"\n}\n";
    let plan = parse_ok(src);
    let Some(Item::Step(step)) = plan.items.get(1) else { panic!("a step") };
    let StmtKind::Var { value: interpolated, .. } = &step.body.commands[0].kind else { panic!("a VAR") };
    assert!(matches!(interpolated.kind(), ExprKind::Str { .. }), "{:?}", interpolated.kind());
    assert_eq!(interpolated.literal(src), None);
    assert!(!interpolated.is_literal());
}

#[test]
fn conditions() {
    let cond = |src: &str| match one(&format!("ASSERT {src}")) {
        StmtKind::Assert { condition, .. } => condition.kind,
        other => panic!("{other:?}"),
    };
    assert!(
        matches!(cond("FILE \"a\" EXISTS"), CondKind::File { file, .. } if matches!(file.test, FileTest::Exists))
    );
    assert!(
        matches!(cond("FILE \"a\" IS_EMPTY"), CondKind::File { file, .. } if matches!(file.test, FileTest::IsEmpty))
    );
    assert!(matches!(
        cond("FILE \"a\" CONTAINS \"x\""),
        CondKind::File { file, .. } if matches!(file.test, FileTest::Contains { .. })
    ));
    assert!(matches!(cond("LAST_RUN.STDERR IS_EMPTY"), CondKind::IsEmpty { .. }));
    assert!(matches!(
        cond("x NOT CONTAINS \"y\""),
        CondKind::Test(t) if t.op() == TestOp::Str { op: StrOp::Contains, negated: true }
    ));
    assert!(matches!(
        cond("x STARTS_WITH \"y\""),
        CondKind::Test(t) if t.op() == TestOp::Str { op: StrOp::StartsWith, negated: false }
    ));
    assert!(
        matches!(cond("x ENDS_WITH \"y\""), CondKind::Test(t) if matches!(t.op(), TestOp::Str { op: StrOp::EndsWith, .. }))
    );
    assert!(
        matches!(cond("x MATCHES \"^a+$\""), CondKind::Test(t) if matches!(t.op(), TestOp::Str { op: StrOp::Matches, .. }))
    );
    for (src, op) in
        [("!=", CmpOp::Ne), ("<", CmpOp::Lt), ("<=", CmpOp::Le), (">", CmpOp::Gt), (">=", CmpOp::Ge)]
    {
        assert!(matches!(cond(&format!("a {src} 1")), CondKind::Test(t) if t.op() == TestOp::Compare(op)));
    }
    assert!(matches!(cond("flag"), CondKind::Expr { .. }));
    assert!(matches!(cond("NOT flag"), CondKind::Not { .. }));
    // AND binds tighter than OR; parentheses group.
    match cond("a OR b AND c") {
        CondKind::Or { operands, .. } => assert!(matches!(operands[1].kind, CondKind::And { .. })),
        other => panic!("{other:?}"),
    }
    match cond("(a OR b) AND c") {
        CondKind::And { operands, .. } => assert!(matches!(operands[0].kind, CondKind::Or { .. })),
        other => panic!("{other:?}"),
    }
    assert!(matches!(cond("COST < 5m"), CondKind::Test(t) if t.op() == TestOp::Compare(CmpOp::Lt)));
}

/// Chains collect on one stack shared by nested chains: each leaves with
/// exactly its own operands, in order, also after an operand that fails.
#[test]
fn chains_keep_their_own_operands_nested_and_after_an_error() {
    let cond = |src: &str| match one(&format!("ASSERT {src}")) {
        StmtKind::Assert { condition, .. } => condition.kind,
        other => panic!("{other:?}"),
    };
    match cond("a AND (b OR c AND d OR e) AND NOT (g OR h)") {
        CondKind::And { operands, .. } => {
            assert_eq!(operands.len(), 3);
            match &operands[1].kind {
                CondKind::Or { operands, .. } => {
                    assert_eq!(operands.len(), 3);
                    assert!(
                        matches!(operands[1].kind, CondKind::And { ref operands, .. } if operands.len() == 2)
                    );
                }
                other => panic!("{other:?}"),
            }
            assert!(matches!(operands[2].kind, CondKind::Not { .. }));
        }
        other => panic!("{other:?}"),
    }
    // A chain that fails inside another leaves nothing behind: the next
    // statement's chain has its own two operands.
    let (plan, diags) =
        super::parse("TASK \"t\"\nSTEP \"s\" {\n    ASSERT a AND (b OR == ) AND c\n    ASSERT x OR y\n}\n");
    assert!(!diags.is_empty());
    let Some(Item::Step(step)) = plan.items.get(1) else { panic!("{:?}", plan.items) };
    let last = step.body.commands.last().expect("the second ASSERT");
    match &last.kind {
        StmtKind::Assert { condition, .. } => {
            assert!(
                matches!(&condition.kind, CondKind::Or { operands, .. } if operands.len() == 2),
                "{condition:?}"
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn if_else_chains() {
    match one("IF a THEN { LOG \"1\" } ELSE IF b { LOG \"2\" } ELSE { LOG \"3\" }") {
        StmtKind::If(if_stmt) => match if_stmt.else_branch {
            Some(Else::If { stmt, .. }) => assert!(matches!(stmt.else_branch, Some(Else::Block { .. }))),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    assert!(matches!(one("IF a { }"), StmtKind::If(i) if i.else_branch.is_none()));
}

#[test]
fn try_call_prompt_and_humans() {
    assert!(
        matches!(one("TRY { RUN \"x\" } CATCH AS e { LOG \"${e.MESSAGE}\" }"), StmtKind::Try { catch_var: Some(v), .. } if v.name == "e")
    );
    assert!(matches!(one("TRY { } CATCH { }"), StmtKind::Try { catch_var: None, .. }));
    assert!(matches!(one("CALL \"sub\""), StmtKind::Call { task } if lit(&task) == "sub"));
    match one("PROMPT_AGENT \"fix it\" WITH a, b INTO answer") {
        StmtKind::PromptAgent { with, into: Some(into), .. } => {
            assert_eq!(with.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(), ["a", "b"]);
            assert_eq!(into.var.name, "answer");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(one("PROMPT_AGENT \"q\""), StmtKind::PromptAgent { into: None, .. }));
    assert!(matches!(one("PAUSE \"look\""), StmtKind::Pause { .. }));
    assert!(matches!(one("REQUEST_REVIEW \"ok?\" INTO r"), StmtKind::RequestReview { into: Some(_), .. }));
    match one("CHOOSE \"how?\" { OPTION \"fast\" { } STEP \"slow\" { } }") {
        StmtKind::Choose { prompt: Some(_), options } => {
            assert_eq!(options.len(), 2);
            assert!(!options[0].is_step && options[1].is_step);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn costs_and_nested_steps() {
    assert!(matches!(
        one("ESTIMATE_COST INTO est { RUN \"x\" }"),
        StmtKind::EstimateCost { into: Some(_), .. }
    ));
    assert!(matches!(one("ESTIMATE_COST { }"), StmtKind::EstimateCost { into: None, .. }));
    assert!(matches!(
        one("SET_BUDGET EXECUTION_TIME = 5m"),
        StmtKind::SetBudget(Budget { dim: tisslang::cost::Dim::ExecutionTime, .. })
    ));
    assert!(matches!(one("STEP \"inner\" { STEP \"deeper\" { } }"), StmtKind::Step { .. }));
}

#[test]
fn statements_share_lines_and_spans_cover_them() {
    let src = "TASK \"t\" STEP \"a\" { RUN \"x\" ASSERT LAST_RUN.EXIT_CODE == 0 }";
    let plan = parse_ok(src);
    let Item::Step(step) = &plan.items[1] else { panic!() };
    let spans: Vec<&str> = step.body.commands.iter().map(|s| &src[s.span.range()]).collect();
    assert_eq!(spans, ["RUN \"x\"", "ASSERT LAST_RUN.EXIT_CODE == 0"]);
    assert_eq!(&src[step.span.range()], "STEP \"a\" { RUN \"x\" ASSERT LAST_RUN.EXIT_CODE == 0 }");
}

#[test]
fn misspelled_keywords_are_reported_and_recovered() {
    assert_eq!(parse_errs("TASK \"t\" STEP \"s\" { run \"x\" }"), [("E0101", "RUN".to_string())]);
    assert_eq!(parse_errs("TASK \"t\" STEP \"s\" { RUNN \"x\" }"), [("E0101", "RUN".to_string())]);
    assert_eq!(parse_errs("TASK \"t\" STEP \"s\" { READ \"f\" as x }"), [("E0101", "AS".to_string())]);
    assert_eq!(
        parse_errs("TASK \"t\" STEP \"s\" { ASSERT x contains \"y\" }"),
        [("E0101", "CONTAINS".to_string())]
    );
    assert_eq!(parse_errs("Task \"t\""), [("E0101", "TASK".to_string())]);
    assert_eq!(parse_errs("TASK \"t\" STEP \"s\" { ASSERT a and b }"), [("E0101", "AND".to_string())]);
    assert_eq!(parse_errs("TASK \"t\" STEP \"s\" { VAR x = true }"), [("E0101", "TRUE".to_string())]);
}

#[test]
fn a_dialect_binding_is_replaced_with_its_name() {
    // The replacement is the whole binding, not a bare `INTO` that reads as if the name went.
    for binding in ["-> summary_var", "AS summary_var"] {
        let src = format!("TASK \"t\" STEP \"s\" {{ PROMPT_AGENT \"q\" {binding} }}");
        let (_, all) = super::parse(&src);
        let fixes: Vec<(&str, &str)> = all
            .iter()
            .flat_map(|d| &d.suggestions)
            .map(|s| (&src[s.span.range()], s.replacement.as_str()))
            .collect();
        assert_eq!(fixes, [(binding, "INTO summary_var")]);
    }
}

#[test]
fn words_of_other_languages_teach_the_tisslang_form() {
    let in_step = |body: &str| parse_errs(&format!("TASK \"t\"\nSTEP \"s\" {{\n    {body}\n}}\n"));
    for word in ["INCLUDES", "includes", "HAS", "INCLUDE"] {
        let src = format!("ASSERT LAST_RUN.STDOUT {word} \"hi\"");
        assert_eq!(in_step(&src), [("E0100", "CONTAINS".to_string())], "{word}");
    }
    assert_eq!(in_step("ASSERT LAST_RUN.STDOUT NOT INCLUDES \"hi\""), [("E0100", "CONTAINS".to_string())]);
    assert_eq!(
        parse_errs("TASK \"t\"\nSTEP build {\n    LOG \"b\"\n}\n"),
        [("E0100", "\"build\"".to_string())]
    );
    assert_eq!(parse_errs("TASK \"t\"\nDEFINE_TASK lint { LOG \"l\" }\nSTEP \"s\" { CALL lint }\n").len(), 2);
}

#[test]
fn a_loop_is_one_error_that_says_what_to_write() {
    for header in [
        "FOR x IN [\"a\", \"b\"] {",
        "for x in [\"a\"] {",
        "WHILE TRUE {",
        "FOREACH f IN files {",
        "REPEAT 3 {",
    ] {
        let src = format!(
            "TASK \"t\"\nSTEP \"s\" {{\n    {header}\n        RUN \"echo\"\n    }}\n    LOG \"after\"\n}}\n"
        );
        let (plan, all) = super::parse(&src);
        let messages: Vec<&str> = all.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages.len(), 1, "{header}: {messages:?}");
        assert!(messages[0].contains("TissLang has no loops"), "{header}: {messages:?}");
        let notes = all[0].notes.join(" ");
        assert!(notes.contains("one `STEP` per item") && notes.contains("DEFINE_TASK"), "{notes}");
        // What follows the loop is parsed as ever.
        let Some(Item::Step(step)) = plan.items.get(1) else { panic!("{header}") };
        assert!(matches!(step.body.commands.last().map(|s| &s.kind), Some(StmtKind::Log { .. })), "{header}");
    }
}

#[test]
fn every_error_in_the_file_is_reported() {
    let errs =
        parse_errs("TASK \"t\"\nSTEP \"a\" { RUN }\nSTEP \"b\" { READ \"x\" }\nSTEP \"c\" { LOG 5 }\n");
    assert_eq!(errs.iter().map(|e| e.0).collect::<Vec<_>>(), ["E0100", "E0100", "E0100"]);
}

#[test]
fn structural_errors() {
    assert_eq!(parse_errs("TASK \"t\" RUN \"x\"")[0].0, "E0105");
    assert_eq!(parse_errs("TASK \"t\" STEP \"s\" { DEFINE_TASK \"d\" { } }")[0].0, "E0108");
    assert_eq!(parse_errs("TASK \"t\" PARALLEL { STEP \"a\" { } }")[0].0, "E0109");
    assert_eq!(parse_errs("TASK \"t\" STEP \"s\" { PARALLEL { } }")[0].0, "E0109");
    assert_eq!(parse_errs("TASK \"t\" STEP \"s\" { VAR STDOUT = 1 }"), [("E0111", "stdout".to_string())]);
    assert_eq!(parse_errs("TASK \"t\" STEP \"s\" { x = 1 }"), [("E0100", "VAR x".to_string())]);
    assert_eq!(parse_errs("TASK \"t\" STEP \"s\" { ASSERT a = 1 }"), [("E0100", "==".to_string())]);
    assert_eq!(
        parse_errs("TASK \"t\" STEP \"s\" { ASSERT STDOUT IS_EMPTY }"),
        [("E0100", "LAST_RUN.STDOUT".to_string())]
    );
    assert_eq!(parse_errs("TASK \"t\" STEP \"s\" { RUN \"x\" TIMEOUT 30 }"), [("E0100", "30s".to_string())]);
    assert_eq!(
        parse_errs("TASK \"t\" STEP \"s\" { RUN \"x\" TIMEOUT \"30s\" }"),
        [("E0100", "30s".to_string())]
    );
    assert_eq!(
        parse_errs("TASK \"t\" STEP \"s\" { WRITE \"f\" \"text\" }"),
        [("E0100", "FROM \"text\"".to_string())]
    );
    assert_eq!(parse_errs("TASK \"t\" STEP \"s\" {")[0].0, "E0100");
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let depth = 10_000;
    let src = format!("TASK \"t\" STEP \"s\" {{ {} }}", "IF a { ".repeat(depth) + &"}".repeat(depth));
    let errs = parse_errs(&src);
    assert!(!errs.is_empty());
    let src = format!("TASK \"t\" STEP \"s\" {{ ASSERT {}a{} }}", "(".repeat(depth), ")".repeat(depth));
    assert!(!parse_errs(&src).is_empty());
    let src = format!("TASK \"t\" STEP \"s\" {{ ASSERT {}a }}", "NOT ".repeat(depth));
    assert!(!parse_errs(&src).is_empty());
    let src = format!("TASK \"t\" STEP \"s\" {{ IF a {{ }} {} }}", "ELSE IF a { } ".repeat(depth));
    assert!(!parse_errs(&src).is_empty());
    let src = format!("TASK \"t\" TYPE T = {}INT", "LIST OF ".repeat(depth));
    assert!(!parse_errs(&src).is_empty());
    let src = format!("TASK \"t\" TYPE T = {}INT{}", "{ a: ".repeat(depth), " }".repeat(depth));
    assert!(!parse_errs(&src).is_empty());
    let src = format!("TASK \"t\" TYPE T = {}INT", "{ a: ".repeat(depth));
    assert!(!parse_errs(&src).is_empty());
}

#[test]
fn tokens_scanned_in_chunks_lose_nothing() {
    // Many chunks of tokens, with a step back at each `AS` (no statement)
    // and a string to take on each LOG line.
    let src = format!("TASK \"t\"\nSTEP \"s\" {{\n{}}}\n", "    AS\n    LOG \"x ${y}\"\n".repeat(500));
    let (plan, diags) = super::parse(&src);
    assert_eq!(diags.len(), 500);
    assert!(diags.iter().all(|d| &src[d.span.range()] == "AS"), "{:?}", diags[0]);
    let Some(Item::Step(step)) = plan.items.get(1) else { panic!("{plan:?}") };
    assert_eq!(step.body.commands.len(), 500);
    for stmt in &step.body.commands {
        let StmtKind::Log { message } = &stmt.kind else { panic!("{stmt:?}") };
        assert_eq!(message.parts.len(), 2, "{message:?}");
    }
}

// ---- TissLang 1.1: typed answers (book: reference/types.md) ----------------------------------

/// The first TYPE of a plan.
fn typedef(src: &str) -> TypeDef {
    let plan = parse_ok(src);
    plan.items
        .into_iter()
        .find_map(|i| match i {
            Item::TypeDef(def) => Some(*def),
            _ => None,
        })
        .expect("a TYPE")
}

/// A type written compactly, to compare shapes: `{a:INT,b?:[STRING]}`, `"x"|"y"`, `Name`.
fn shape(ty: &TypeExpr) -> String {
    match &ty.kind {
        TypeKind::String => "STRING".into(),
        TypeKind::Int => "INT".into(),
        TypeKind::Bool => "BOOL".into(),
        TypeKind::Enum { literals } => {
            literals.iter().map(|l| format!("\"{}\"", lit(l))).collect::<Vec<_>>().join("|")
        }
        TypeKind::List { element } => format!("[{}]", shape(element)),
        TypeKind::Record { fields } => {
            let fields: Vec<String> = fields
                .iter()
                .map(|f| format!("{}{}:{}", f.name.name, if f.optional { "?" } else { "" }, shape(&f.ty)))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        TypeKind::Named { name } => name.name.to_string(),
    }
}

#[test]
fn typedefs_of_every_kind() {
    let src = "#TISS_VERSION >= 1.1\nTASK \"review a change\"\nTYPE Review = { verdict: \"approve\" | \"reject\", reasons: LIST OF STRING, risk: INT, files?: LIST OF STRING }\n";
    let def = typedef(src);
    assert_eq!(def.name.name, "Review");
    assert_eq!(shape(&def.ty), "{verdict:\"approve\"|\"reject\",reasons:[STRING],risk:INT,files?:[STRING]}");
    assert_eq!(&src[def.span.range()], src.lines().nth(2).unwrap());
    let TypeKind::Record { fields } = &def.ty.kind else { panic!() };
    assert_eq!(&src[fields[3].span.range()], "files?: LIST OF STRING");
    let TypeKind::Enum { literals } = &fields[0].ty.kind else { panic!() };
    assert_eq!(&src[literals[1].span.range()], "\"reject\"");

    let t = |body: &str| shape(&typedef(&format!("TASK \"t\"\nTYPE T = {body}\n")).ty);
    assert_eq!(t("STRING"), "STRING");
    assert_eq!(t("INT"), "INT");
    assert_eq!(t("BOOL"), "BOOL");
    assert_eq!(t("\"one\""), "\"one\"");
    assert_eq!(t("LIST OF LIST OF Review"), "[[Review]]");
    assert_eq!(t("Other"), "Other");
    // Fields over several lines, a trailing comma, records nested, any word as a field name.
    assert_eq!(
        t("{\n    a: { b: BOOL },\n    KIND?: LIST OF { c: \"x\" | \"y\" },\n    type: STRING,\n}"),
        "{a:{b:BOOL},KIND?:[{c:\"x\"|\"y\"}],type:STRING}"
    );
}

#[test]
fn prompt_into_as_type_and_exists() {
    match one("PROMPT_AGENT \"q\" WITH diff INTO r AS Review") {
        StmtKind::PromptAgent { with, into: Some(into), .. } => {
            assert_eq!(with.len(), 1);
            assert_eq!(into.var.name, "r");
            assert_eq!(shape(into.ty.as_ref().unwrap()), "Review");
        }
        other => panic!("{other:?}"),
    }
    match one("PROMPT_AGENT \"q\" INTO r AS { ok: BOOL, notes?: LIST OF STRING }") {
        StmtKind::PromptAgent { into: Some(into), .. } => {
            assert_eq!(shape(into.ty.as_ref().unwrap()), "{ok:BOOL,notes?:[STRING]}")
        }
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(one("PROMPT_AGENT \"q\" INTO r"), StmtKind::PromptAgent { into: Some(i), .. } if i.ty.is_none())
    );
    // The statement ends with the type: the next one starts after it.
    let all = stmts("PROMPT_AGENT \"q\" INTO n AS INT LOG \"${n}\"");
    assert_eq!(all.len(), 2);
    let cond = |src: &str| match one(&format!("ASSERT {src}")) {
        StmtKind::Assert { condition, .. } => condition.kind,
        other => panic!("{other:?}"),
    };
    assert!(matches!(cond("r.files EXISTS"), CondKind::Exists { .. }));
    assert!(matches!(cond("NOT r.files EXISTS"), CondKind::Not { .. }));
    match cond("r.files EXISTS AND r.files CONTAINS \"a.py\"") {
        CondKind::And { operands, .. } => {
            assert!(matches!(operands[0].kind, CondKind::Exists { .. }));
            assert!(
                matches!(&operands[1].kind, CondKind::Test(t) if matches!(t.op(), TestOp::Str { op: StrOp::Contains, .. }))
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(cond("r.reasons IS_EMPTY"), CondKind::IsEmpty { .. }));
}

/// Each error's code, message and first replacement.
fn type_errs(src: &str) -> Vec<(&'static str, String, String)> {
    let (_, all) = super::parse(src);
    all.into_iter()
        .map(|d| {
            let fix = d.suggestions.first().map(|s| s.replacement.clone()).unwrap_or_default();
            (d.code.as_str(), d.message, fix)
        })
        .collect()
}

#[test]
fn type_errors_teach() {
    let in_type = |body: &str| type_errs(&format!("TASK \"t\"\nTYPE T = {body}\nSTEP \"s\" {{ }}\n"));
    let one_err = |errs: Vec<(&'static str, String, String)>| {
        assert_eq!(errs.len(), 1, "{errs:#?}");
        errs.into_iter().next().unwrap()
    };
    let (code, message, fix) = one_err(in_type("{ files?: LIST STRING }"));
    assert_eq!((code, fix.as_str()), ("E0100", "LIST OF"));
    assert!(message.contains("expected `OF`"), "{message}");
    let (code, message, fix) = one_err(in_type("\"a\" | b"));
    assert_eq!((code, fix.as_str()), ("E0100", "\"b\""));
    assert!(message.contains("strings"), "{message}");
    let (code, message, _) = one_err(in_type("{}"));
    assert_eq!(code, "E0100");
    assert!(message.contains("at least one field"), "{message}");
    assert_eq!(one_err(in_type("string")).2, "STRING");
    assert_eq!(one_err(in_type("{ n: Int }")).2, "INT");
    assert_eq!(one_err(in_type("{ \"verdict\": BOOL }")).2, "verdict");
    assert_eq!(one_err(in_type("{ a: INT b: BOOL }")).2, ",");
    assert_eq!(one_err(in_type("{ a INT }")).2, ":");
    assert_eq!(one_err(in_type("{ a = INT }")).2, ":");
    assert_eq!(one_err(in_type("{ files: LIST OF STRING? }")).2, "?: LIST OF STRING");
    assert_eq!(one_err(in_type("\"a\" OR \"b\"")).2, "|");
    let (_, message, _) = one_err(in_type("\"a ${x}\""));
    assert!(message.contains("plain text"), "{message}");
    let (_, message, _) = one_err(in_type("STRING | INT"));
    assert!(message.contains("one of several types"), "{message}");
    let (_, message, _) = one_err(in_type("{ a: INT"));
    assert!(message.contains("never closed") || message.contains("expected"), "{message}");
    // A missing `=`, and `:` in its place.
    assert_eq!(one_err(type_errs("TASK \"t\"\nTYPE T { a: INT }\n")).2, " =");
    assert_eq!(one_err(type_errs("TASK \"t\"\nTYPE T: INT\n")).2, "=");
    // A reserved word as the name; a lowercase TYPE at the top level.
    assert_eq!(one_err(type_errs("TASK \"t\"\nTYPE STRING = INT\n")).0, "E0111");
    assert_eq!(one_err(type_errs("TASK \"t\"\ntype T = INT\n")).2, "TYPE");
    // Inside a block: E0112, and the rest of the block still parses.
    let (_, all) = super::parse("TASK \"t\"\nSTEP \"s\" {\n    TYPE T = INT\n    RUN \"x\"\n}\n");
    assert_eq!(all.iter().map(|d| d.code.as_str()).collect::<Vec<_>>(), ["E0112"]);
    // A broken record is skipped whole: its keyword-named fields are not read as items.
    let errs = in_type("{ a: INT, STEP: 5, RUN: STRING }");
    assert_eq!(errs.len(), 1, "{errs:#?}");
}

#[test]
fn exists_errors_teach() {
    let assert_errs = |cond: &str| type_errs(&format!("TASK \"t\"\nSTEP \"s\" {{\n    ASSERT {cond}\n}}\n"));
    let errs = assert_errs("r.files NOT EXISTS");
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert_eq!(errs[0].2, "NOT r.files EXISTS");
    let errs = assert_errs("\"a.txt\" EXISTS");
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert_eq!(errs[0].2, "FILE \"a.txt\" EXISTS");
    assert_eq!(assert_errs("r.files exists")[0].2, "EXISTS");
}

/// `Plan::bindings` counts every statement that binds a name, in nested
/// blocks, tasks and SETUP too (the checks size their symbol table by it).
#[test]
fn the_plan_counts_its_binding_statements() {
    let plan = parse_ok(
        "TASK \"t\"\nSETUP {\n    READ \"a\" AS a\n}\nDEFINE_TASK \"d\" {\n    VAR x = 1\n}\n\
         STEP \"s\" {\n    VAR x = 2\n    TRY {\n        PROMPT_AGENT \"q\" INTO p\n    } CATCH AS e {\n        \
         REQUEST_REVIEW \"r\" INTO r\n    }\n    ESTIMATE_COST INTO c {\n        LOG \"l\"\n    }\n    \
         IF x == 2 {\n        VAR y = \"z\"\n    }\n    PROMPT_AGENT \"no name\"\n    LOG \"no binding\"\n}\n",
    );
    // a, x (task), x, p, e, r, c, y
    assert_eq!(plan.bindings, 8);
}

/// A comparison keeps no span of its own: its operands give it, widened by
/// the parentheses around it (in their spare bytes: [`crate::syntax::ast::Test`]);
/// parentheses more than 255 bytes beyond them make it an AND of itself alone,
/// whose span is exact.
#[test]
fn a_comparison_in_parentheses_keeps_their_span() {
    fn conditions(src: &str) -> Vec<Cond> {
        let plan = parse_ok(src);
        let Some(Item::Step(step)) = plan.items.into_iter().nth(1) else { panic!("a step") };
        step.body
            .commands
            .into_iter()
            .map(|stmt| match stmt.kind {
                StmtKind::Assert { condition, .. } => *condition,
                other => panic!("an ASSERT: {other:?}"),
            })
            .collect()
    }
    let src = "TASK \"t\"\nSTEP \"s\" {\nASSERT ( a == \"x\" )\nASSERT ((b CONTAINS \"y\"))\nASSERT c != 1\n\
               ASSERT NOT (d ENDS_WITH \"z\")\n}\n";
    let spans: Vec<&str> = conditions(src).iter().map(|c| &src[c.span().range()]).collect();
    assert_eq!(spans, ["( a == \"x\" )", "((b CONTAINS \"y\"))", "c != 1", "NOT (d ENDS_WITH \"z\")"]);
    let near =
        format!("TASK \"t\"\nSTEP \"s\" {{\nASSERT ({}a == \"x\"{})\n}}\n", " ".repeat(254), " ".repeat(254));
    let [cond] = &conditions(&near)[..] else { panic!("one ASSERT") };
    assert!(matches!(cond.kind, CondKind::Test(_)), "{cond:?}");
    assert_eq!(cond.span().len(), 2 + 254 + 8 + 254);
    for (before, after) in [(256, 0), (0, 256), (70_000, 0)] {
        let wide = format!(
            "TASK \"t\"\nSTEP \"s\" {{\nASSERT ({}a == \"x\"{})\n}}\n",
            " ".repeat(before),
            " ".repeat(after)
        );
        let [cond] = &conditions(&wide)[..] else { panic!("one ASSERT") };
        let CondKind::And { operands, .. } = &cond.kind else { panic!("an AND of one: {cond:?}") };
        assert!(matches!(&operands[..], [Cond { kind: CondKind::Test(_) }]), "{operands:?}");
        let text = &wide[cond.span().range()];
        assert!(
            text.starts_with('(') && text.ends_with(')') && text.contains("a == \"x\""),
            "{}",
            text.len()
        );
        assert_eq!(text.len(), 2 + before + 8 + after);
        assert_eq!(&wide[operands[0].span().range()], "a == \"x\"");
    }
}
