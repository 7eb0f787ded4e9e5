//! One case per diagnostic code: a plan that triggers it, and where the
//! diagnostic must point (line, column) and what it must suggest. A test also
//! checks that every code in `codes::ALL` has a case here.

use tiss_compiler::diagnostics::codes;

struct Case {
    code: &'static str,
    src: &'static str,
    line: usize,
    column: usize,
    /// The first suggestion's replacement, or "" for none.
    replacement: &'static str,
}

const fn case(
    code: &'static str,
    src: &'static str,
    line: usize,
    column: usize,
    replacement: &'static str,
) -> Case {
    Case { code, src, line, column, replacement }
}

const CASES: &[Case] = &[
    case("E0002", "TASK \"t\"\nSTEP \"s\" { LOG \"open\n}\n", 2, 16, "\""),
    case("E0003", "TASK \"t\"\nSTEP \"s\" { LOG \"a\\qb\" }\n", 2, 18, "\\\\q"),
    case("E0004", "TASK \"t\"\nSTEP \"s\" {\n  WRITE \"f\" <<EOF\nbody\n}\n", 3, 13, ""),
    case("E0005", "TASK \"t\"\nSTEP \"s\" { VAR n = 9223372036854775808 }\n", 2, 20, ""),
    case("E0006", "TASK \"t\"\nSTEP \"s\" { ASSERT a && b }\n", 2, 21, "AND"),
    case("E0007", "TASK \"t\"\nSTEP \"s\" { VAR name = \"x\" LOG \"hi {{name}}\" }\n", 2, 35, "${name}"),
    case("E0008", "TASK \"t\"\nSTEP \"s\" { RUN \"x\" TIMEOUT 10sec }\n", 2, 28, "10s"),
    case("E0009", "TASK \"t\"\nSTEP \"s\" { LOG \"${}\" }\n", 2, 17, "\\$"),
    case("E0010", "#TISS_VERSON >= 1.0\nTASK \"t\"\n", 1, 1, "#TISS_VERSION"),
    case("E0011", "#TISS_VERSION >= 2.0\nTASK \"t\"\n", 1, 1, ""),
    case("E0012", "TASK \"t\"\nSTEP \"s\" {\n  WRITE \"f\" <<py\nx\npy\n}\n", 3, 15, "PY"),
    case(
        "E0013",
        "#TISS_VERSION >= 1.0\nTASK \"t\"\nSTEP \"s\" { PROMPT_AGENT \"q\" INTO n AS INT }\n",
        3,
        39,
        "#TISS_VERSION >= 1.1",
    ),
    case("E0100", "TASK \"t\"\nSTEP \"s\" { RUN }\n", 2, 16, ""),
    case("E0101", "TASK \"t\"\nSTEP \"s\" { Run \"make\" }\n", 2, 12, "RUN"),
    case("E0102", "STEP \"s\" { }\n", 1, 1, ""),
    case("E0103", "TASK \"t\"\nTASK \"u\"\n", 2, 1, ""),
    case("E0104", "STEP \"s\" { }\nTASK \"t\"\n", 1, 1, ""),
    case("E0105", "TASK \"t\"\nRUN \"make\"\n", 2, 1, ""),
    case("E0106", "TASK \"t\"\nSTEP \"s\" { }\nSETUP { }\n", 3, 1, ""),
    case("E0107", "TASK \"t\"\nSETUP { }\nSETUP { }\n", 3, 1, ""),
    case("E0108", "TASK \"t\"\nSTEP \"s\" { DEFINE_TASK \"d\" { } }\n", 2, 12, ""),
    case("E0109", "TASK \"t\"\nPARALLEL { }\n", 2, 1, ""),
    case("E0110", "TASK \"t\"\nSTEP \"s\" { CHOOSE { OPTION \"only\" { } } }\n", 2, 12, ""),
    case("E0111", "TASK \"t\"\nSTEP \"s\" { VAR STDOUT = 1 }\n", 2, 16, "stdout"),
    case("E0112", "TASK \"t\"\nSTEP \"s\" {\n    TYPE T = INT\n}\n", 3, 5, ""),
    case("E0113", "TASK \"t\"\nSTEP \"s\" { CHOOSE { OPTION \"a\" { } OPTION \"a\" { } } }\n", 2, 43, ""),
    case("E0200", "TASK \"t\"\nSTEP \"s\" { VAR count = 1 ASSERT coutn == 1 }\n", 2, 33, "count"),
    case("E0201", "TASK \"t\"\nDEFINE_TASK \"lint\" { }\nSTEP \"s\" { CALL \"lnit\" }\n", 3, 17, "\"lint\""),
    case("E0202", "TASK \"t\"\nSTEP \"s\" { RUN \"x\" LOG \"${LAST_RUN.STDOUTT}\" }\n", 2, 36, "STDOUT"),
    case("E0203", "TASK \"t\"\nSTEP \"s\" { IF TRUE { VAR x = 1 } ASSERT x == 1 }\n", 2, 41, ""),
    case("E0204", "TASK \"t\"\nSTEP \"s\" { ASSERT LAST_RUN.EXIT_CODE == 0 }\n", 2, 19, ""),
    case("E0205", "TASK \"t\"\nSTEP \"s\" { RUN \"x\" ASSERT LAST_RUN.EXIT_CODE == \"0\" }\n", 2, 49, "0"),
    case("E0206", "TASK \"t\"\nSTEP \"s\" { VAR x = 1 VAR x = \"one\" }\n", 2, 26, ""),
    case("E0207", "TASK \"t\"\nSTEP \"s\" { ASSERT COST < 3 }\n", 2, 19, "COST.API_CALLS"),
    case("E0208", "TASK \"t\"\nSET_BUDGET EXECUTION_TIME = \"5m\"\n", 2, 29, "5m"),
    case("E0209", "TASK \"t\"\nSTEP \"s\" { VAR x = \"a\" ASSERT x MATCHES \"(\" }\n", 2, 41, ""),
    case("E0210", "TASK \"t\"\nSTEP \"s\" { READ \"../secret\" AS x }\n", 2, 17, ""),
    case(
        "E0211",
        "TASK \"t\"\nDEFINE_TASK \"a\" { CALL \"b\" }\nDEFINE_TASK \"b\" { CALL \"a\" }\n",
        3,
        19,
        "",
    ),
    case("E0212", "TASK \"t\"\nDEFINE_TASK \"a\" { }\nDEFINE_TASK \"a\" { }\n", 3, 13, ""),
    case("E0213", "TASK \"t\"\nSTEP \"s\" { VAR n = 1 ASSERT n }\n", 2, 29, ""),
    case("E0214", "TASK \"t\"\nSTEP \"s\" { VAR a = \"x\" ASSERT a < \"y\" }\n", 2, 31, ""),
    case("E0215", "TASK \"t\"\nSTEP \"s\" { RUN \"x\" LOG \"${LAST_RUN}\" }\n", 2, 27, "LAST_RUN.STDOUT"),
    case("E0216", "TASK \"t\"\nSTEP \"s\" { VAR s = \"x\" LOG \"${s.LEN}\" }\n", 2, 33, ""),
    case("E0217", "TASK \"t\"\nSTEP \"s\" { READ \"notes.txt/\" AS x }\n", 2, 17, "\"notes.txt\""),
    case(
        "E0218",
        "TASK \"t\"\nTYPE Verdict = \"yes\" | \"no\"\nSTEP \"s\" { PROMPT_AGENT \"q\" INTO v AS Verdit }\n",
        3,
        39,
        "Verdict",
    ),
    case("E0219", "TASK \"t\"\nTYPE A = INT\nTYPE A = BOOL\n", 3, 6, ""),
    case("E0220", "TASK \"t\"\nTYPE A = { next: A }\n", 2, 18, ""),
    case("E0221", "TASK \"t\"\nTYPE A = { x: INT, x: BOOL }\n", 2, 20, ""),
    case(
        "E0222",
        "TASK \"t\"\nTYPE A = { v: \"yes\" | \"no\" }\nSTEP \"s\" { PROMPT_AGENT \"q\" INTO a AS A ASSERT a.v == \"yess\" }\n",
        3,
        55,
        "\"yes\"",
    ),
    case(
        "E0223",
        "TASK \"t\"\nTYPE A = { v?: INT }\nSTEP \"s\" { PROMPT_AGENT \"q\" INTO a AS A ASSERT a.v == 1 }\n",
        3,
        50,
        "",
    ),
    case(
        "E0224",
        "TASK \"t\"\nTYPE A = { v: INT }\nSTEP \"s\" { PROMPT_AGENT \"q\" INTO a AS A RUN \"echo ${a}\" }\n",
        3,
        53,
        "",
    ),
    case(
        "E0225",
        "TASK \"t\"\nTYPE A = { v: INT }\nSTEP \"s\" { PROMPT_AGENT \"q\" INTO a AS A ASSERT a.v EXISTS }\n",
        3,
        48,
        "",
    ),
    // Lint warnings (`tissc lint`): their suggestions rewrite what they point at.
    case("W0001", "TASK \"t\"\nSTEP \"s\" { VAR n = 1 }\n", 2, 16, "_n"),
    case(
        "W0002",
        "TASK \"t\"\nSTEP \"s\" { RUN \"a\" TIMEOUT 1s }\n",
        2,
        12,
        "RUN \"a\" TIMEOUT 1s ASSERT LAST_RUN.EXIT_CODE == 0",
    ),
    case(
        "W0003",
        "TASK \"t\"\nSTEP \"s\" { RUN \"a\" ASSERT LAST_RUN.EXIT_CODE == 0 }\n",
        2,
        12,
        "RUN \"a\" TIMEOUT 10m",
    ),
    case(
        "W0004",
        "TASK \"t\"\nSTEP \"s\" { RUN \"chmod 777 a\" TIMEOUT 1s ASSERT LAST_RUN.EXIT_CODE == 0 }\n",
        2,
        12,
        "RUN \"chmod 755 a\" TIMEOUT 1s",
    ),
    case(
        "W0005",
        "TASK \"t\"\nSTEP \"s\" { PROMPT_AGENT \"q\" }\n",
        1,
        1,
        "TASK \"t\"\n\nSET_BUDGET API_CALLS = 3",
    ),
    case("W0006", "TASK \"t\"\nSTEP \"s\" { ASSERT TRUE }\n", 2, 12, ""),
    case("W0007", "TASK \"t\"\nSTEP \"s\" { }\nSTEP \"s\" { }\n", 3, 6, "\"s (2)\""),
    case(
        "W0008",
        "TASK \"t\"\nSET_BUDGET API_CALLS = 3\nSTEP \"s\" { PROMPT_AGENT \"q\" INTO f RUN \"cat ${f}\" TIMEOUT 1s }\n",
        3,
        36,
        "",
    ),
    case("W0009", "TASK \"t\"\nSTEP \"s\" { VAR n = \"1\" LOG \"n: {n}\" }\n", 2, 32, "${n}"),
];

#[test]
fn every_code_has_a_case() {
    for (code, _) in codes::ALL {
        // E0001 needs bytes that are not UTF-8; E0900 is a bug in the formatter.
        let covered =
            ["E0001", "E0900"].contains(&code.as_str()) || CASES.iter().any(|c| c.code == code.as_str());
        assert!(covered, "no test case for {code}");
    }
}

#[test]
fn each_case_reports_its_code_at_its_place_with_its_fix() {
    let mut failures = Vec::new();
    for case in CASES {
        // A warning's case is linted; an error's is only checked.
        let diagnostics = if case.code.starts_with('W') {
            tiss_compiler::lint::lint_source("case.tiss", case.src)
        } else {
            tiss_compiler::frontend("case.tiss", case.src.as_bytes()).diagnostics
        };
        let file = tiss_compiler::source_file::SourceFile::new("case.tiss", case.src.to_string());
        let Some(d) = diagnostics.iter().find(|d| d.code.as_str() == case.code) else {
            let got: Vec<_> = diagnostics.iter().map(|d| format!("{} {}", d.code, d.message)).collect();
            failures.push(format!("{}: not reported; got {got:?}", case.code));
            continue;
        };
        let at = file.line_col(d.span.start as usize);
        let replacement = d.suggestions.first().map_or("", |s| s.replacement.as_str());
        if (at.line, at.column, replacement) != (case.line, case.column, case.replacement) {
            failures.push(format!(
                "{}: at {}:{} suggesting {:?}, expected {}:{} suggesting {:?} ({})",
                case.code,
                at.line,
                at.column,
                replacement,
                case.line,
                case.column,
                case.replacement,
                d.message
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn invalid_utf8_is_reported_at_the_bad_byte() {
    let fe = tiss_compiler::frontend("bad.tiss", b"TASK \"t\"\nSTEP \"s\" { LOG \"caf\xe9\" }\n");
    let d = fe.diagnostics.iter().find(|d| d.code.as_str() == "E0001").expect("E0001");
    let at = fe.file.line_col(d.span.start as usize);
    assert_eq!((at.line, at.column), (2, 20));
}

#[test]
fn a_clean_plan_has_no_diagnostics() {
    let src = include_str!("../../../examples/hello.tiss");
    let fe = tiss_compiler::frontend("hello.tiss", src.as_bytes());
    assert!(fe.diagnostics.is_empty(), "{:?}", fe.diagnostics);
}
