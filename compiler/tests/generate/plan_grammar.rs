//! The plan grammar `tissc generate` sends (`grammar::plan_gbnf`), judged by
//! llama.cpp's own recogniser as in `grammar.rs`: the plans it is meant to
//! cover (every example but the one that CALLs a DEFINE_TASK, its comments
//! taken out, and the prompt's example) are accepted and compile; what a
//! 135M model wandered into under the language grammar is refused: C
//! preprocessor lines for comments, plans of a TASK and comments, empty or
//! endless blocks, numbers too large to compile, and every syntax error the
//! language grammar refuses.

use std::path::{Path, PathBuf};

use super::grammar::{accepts, invalid_plans, repo, validator};
use tiss_compiler::generate::{grammar, prompt};

fn plan_grammar_file(dir: &Path) -> PathBuf {
    let path = dir.join("plan.gbnf");
    std::fs::write(&path, grammar::plan_gbnf()).unwrap();
    path
}

/// `source` without its comments: a line that held only a comment goes, a
/// comment after a statement is cut off. Comments are what lies between
/// tokens from a `#` to the line end (pragmas and heredocs are tokens).
fn without_comments(source: &str) -> String {
    let mut out = String::new();
    let mut at = 0;
    for token in tiss_compiler::lexer::lex(source).tokens {
        let gap = &source[at..token.span.start as usize];
        for piece in gap.split_inclusive('\n') {
            match piece.find('#') {
                Some(hash) if piece.ends_with('\n') => out.push_str(&format!("{}\n", &piece[..hash])),
                Some(hash) => out.push_str(&piece[..hash]),
                None => out.push_str(piece),
            }
        }
        out.push_str(&source[token.span.start as usize..token.span.end as usize]);
        at = token.span.end as usize;
    }
    // Lines left blank by a removed comment go, and cut lines lose their trailing blanks.
    let kept: Vec<&str> = out
        .lines()
        .zip(source.lines())
        .filter(|(now, was)| !(now.trim().is_empty() && was.trim_start().starts_with('#')))
        .map(|(now, _)| now.trim_end())
        .collect();
    format!("{}\n", kept.join("\n").trim())
}

/// The plans the plan grammar is meant to admit.
fn covered_plans() -> Vec<(String, String)> {
    let mut plans = Vec::new();
    for entry in std::fs::read_dir(repo().join("examples")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        // It CALLs a DEFINE_TASK: the plan grammar leaves both out, and
        // typed answers (TissLang 1.1) too.
        if path.extension().is_some_and(|e| e == "tiss") && name != "subtasks.tiss" {
            let text = std::fs::read_to_string(&path).unwrap();
            if !text.contains("#TISS_VERSION >= 1.1") {
                plans.push((name, without_comments(&text)));
            }
        }
    }
    assert!(plans.len() >= 7, "the examples: {plans:?}");
    plans.push(("the prompt's example".into(), prompt::EXAMPLE.into()));
    plans.push((
        "pragmas and two comment lines".into(),
        "#TISS! Language=Python Owner=ci\n#TISS_VERSION >= 1.0\n\n# Say hello.\n# Then check it.\n\
         TASK \"t\"\n\nSTEP \"s\" {\n    RUN \"echo hi\" TIMEOUT 5s\n}\n"
            .into(),
    ));
    plans
}

#[test]
fn comments_are_taken_out_and_nothing_else() {
    let plan = "#TISS! Language=C\n# head\nTASK \"t\" # the task\nSTEP \"s\" {\n    # note\n    WRITE \"a\" <<EOF\n# kept\nEOF\n}\n";
    assert_eq!(
        without_comments(plan),
        "#TISS! Language=C\nTASK \"t\"\nSTEP \"s\" {\n    WRITE \"a\" <<EOF\n# kept\nEOF\n}\n"
    );
}

#[test]
fn the_plan_grammar_accepts_the_plans_it_covers_and_they_compile() {
    let Some(validator) = validator() else { return };
    let dir = tempfile::tempdir().unwrap();
    let grammar = plan_grammar_file(dir.path());
    let mut refused = Vec::new();
    for (name, plan) in covered_plans() {
        let frontend = tiss_compiler::frontend(&name, plan.as_bytes());
        assert!(!frontend.has_errors(), "{name} does not compile:\n{plan}\n{:#?}", frontend.diagnostics);
        if !accepts(&validator, &grammar, dir.path(), &plan) {
            refused.push(format!("{name}:\n{plan}"));
        }
    }
    assert!(refused.is_empty(), "the plan grammar refuses:\n\n{}", refused.join("\n\n"));
}

/// What SmolLM2-135M wrote under the language grammar, and the other ways a
/// plan can hold nothing or never end.
fn wandering_plans() -> Vec<String> {
    let step = "STEP \"s\" {\n    RUN \"echo hi\"\n}\n";
    let mut plans: Vec<String> = [
        "#include <iostream>\n#define N 5\n",
        "# one\n# two\n# three\n",
        "#TISS! Language=Python\n#TISS_VERSION >= 2.0\n",
        "#TISS_VERSION 1.0\n",
    ]
    .iter()
    .map(|head| format!("{head}TASK \"t\"\n{step}"))
    .collect();
    plans.push(format!("# {}\nTASK \"t\"\n{step}", "x".repeat(79)));
    let bodies = [
        "#\n\n#\n",
        "STEP \"s\" {\n}\n",
        "STEP \"s\" {\n    #\n    #\n}\n",
        "STEP \"s\" {\n    STEP \"inner\" {\n        RUN \"x\"\n    }\n}\n",
        "STEP \"s\" {\n    IF a {\n        IF b {\n            RUN \"x\"\n        }\n    }\n}\n",
        "STEP \"s\" {\n    RUN \"x\"\n    # a comment after TASK\n}\n",
        "STEP \"s\" {\n    VAR n = 100000000000000000000\n}\n",
        "STEP \"s\" {\n    CALL \"gcc -o hello hello.c\"\n}\n",
        "STEP \"s\" { RUN \"x\" }\n",
        "STEP \"s\" {\n    RUN \"python3 hello.py\"\n    TIMEOUT 30s\n}\n",
    ];
    plans.extend(bodies.iter().map(|body| format!("TASK \"t\"\n\n{body}")));
    plans.push("TASK \"t\"\n".into());
    plans.push(format!("TASK \"t\"\nSTEP \"s\" {{\n{}}}\n", "    LOG \"x\"\n".repeat(9)));
    plans.push(format!("TASK \"t\"\nSTEP \"s\" {{\n    WRITE \"f\" <<EOF\n{}EOF\n}}\n", "x\n".repeat(31)));
    plans
}

#[test]
fn the_plan_grammar_refuses_wandering_and_syntax_errors() {
    let Some(validator) = validator() else { return };
    let dir = tempfile::tempdir().unwrap();
    let grammar = plan_grammar_file(dir.path());
    let accepted: Vec<String> = wandering_plans()
        .into_iter()
        .chain(invalid_plans())
        .filter(|plan| accepts(&validator, &grammar, dir.path(), plan))
        .collect();
    assert!(accepted.is_empty(), "the plan grammar accepts:\n\n{}", accepted.join("\n\n"));
}
