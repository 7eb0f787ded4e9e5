use super::*;
use crate::syntax::ast::StrPart;

fn kinds(src: &str) -> Vec<TokenKind> {
    lex(src).tokens.into_iter().map(|t| t.kind).collect()
}

fn codes_of(src: &str) -> Vec<&'static str> {
    lex(src).diagnostics.iter().map(|d| d.code.as_str()).collect()
}

fn only_string(src: &str) -> StrLit {
    let lexed = lex(src);
    assert!(lexed.diagnostics.is_empty(), "{:?}", lexed.diagnostics);
    lexed.strings.into_iter().next().expect("a string")
}

#[test]
fn keywords_identifiers_and_punctuation() {
    use TokenKind::*;
    assert_eq!(
        kinds("STEP \"a\" { VAR x_1 = run } () , . == != <= >= < > ="),
        vec![
            Kw(crate::syntax::token::Kw::STEP),
            Str(0),
            LBrace,
            Kw(crate::syntax::token::Kw::VAR),
            Ident,
            Assign,
            Ident,
            RBrace,
            LParen,
            RParen,
            Comma,
            Dot,
            EqEq,
            NotEq,
            Le,
            Ge,
            Lt,
            Gt,
            Assign,
            Eof
        ]
    );
}

#[test]
fn numbers_and_durations() {
    use TokenKind::*;
    assert_eq!(
        kinds("0 -12 1_000 1500ms 30s 2m 1h"),
        vec![
            Int(0),
            Int(-12),
            Int(1000),
            Duration(1500),
            Duration(30_000),
            Duration(120_000),
            Duration(3_600_000),
            Eof
        ]
    );
    assert_eq!(kinds("-9223372036854775808"), vec![Int(i64::MIN), Eof]);
    assert_eq!(codes_of("9223372036854775808"), vec!["E0005"]);
    assert_eq!(codes_of("99999999999999999999"), vec!["E0005"]);
    assert_eq!(codes_of("5x"), vec!["E0008"]);
    assert_eq!(codes_of("-5s"), vec!["E0008"]);
    let d = &lex("10sec").diagnostics[0];
    assert_eq!(d.suggestions[0].replacement, "10s");
}

#[test]
fn a_malformed_number_is_one_token_standing_for_what_it_means() {
    use crate::syntax::token::Kw::TIMEOUT;
    use TokenKind::*;
    // One token each, with the exact duration where there is one.
    assert_eq!(
        kinds("1.5s 2m30s 30sec 1d 1.0001s 30x 2.5"),
        vec![
            Duration(1500),
            Duration(150_000),
            Duration(30_000),
            Duration(86_400_000),
            Duration(0),
            Int(0),
            Int(0),
            Eof
        ]
    );
    assert_eq!(codes_of("1.5s 2m30s 30sec 1d 1.0001s 30x 2.5"), vec!["E0008"; 7]);
    // After TIMEOUT a rejected number stands as a duration (a number without
    // a unit in seconds), so the parser asks for no unit as well.
    assert_eq!(kinds("TIMEOUT 1.5"), vec![Kw(TIMEOUT), Duration(1500), Eof]);
    assert_eq!(kinds("TIMEOUT 30x"), vec![Kw(TIMEOUT), Duration(0), Eof]);
    assert_eq!(kinds("TIMEOUT 99999999999999999999"), vec![Kw(TIMEOUT), Duration(0), Eof]);
    // `1.` and `x.5` are no fractions.
    assert_eq!(kinds("1.x"), vec![Int(1), Dot, Ident, Eof]);
    let lexed = lex("1.5s 2.5");
    let spans: Vec<_> = lexed.tokens.iter().map(|t| t.span).collect();
    assert_eq!(rejected_numbers(&lexed.diagnostics), spans[..2]);
}

#[test]
fn comments_shebang_and_line_ends() {
    use TokenKind::*;
    assert_eq!(
        kinds("#!/usr/bin/env tissvm\r\nTASK # trailing\r\n\"t\"\r\n"),
        vec![Kw(crate::syntax::token::Kw::TASK), Str(0), Eof]
    );
}

#[test]
fn string_escapes() {
    let s = only_string(r#""a\\b\"c\nd\te\rf\$g\u{1F600}h""#);
    assert_eq!(s.as_literal(), Some("a\\b\"c\nd\te\rf$g\u{1F600}h"));
    assert_eq!(only_string(r#""cost $5 {x} $""#).as_literal(), Some("cost $5 {x} $"));
}

#[test]
fn bad_escapes() {
    assert_eq!(codes_of(r#""\q""#), vec!["E0003"]);
    assert_eq!(codes_of(r#""\u{D800}""#), vec!["E0003"]);
    assert_eq!(codes_of(r#""\u{1234567}""#), vec!["E0003"]);
    assert_eq!(codes_of(r#""\u12""#), vec!["E0003"]);
    let d = &lex(r#""C:\dir""#).diagnostics[0];
    assert_eq!(d.suggestions[0].replacement, "\\\\d");
}

#[test]
fn interpolation_parts() {
    let s = only_string(r#""cat ${f} > ${LAST_RUN.STDOUT}!""#);
    assert_eq!(s.parts.len(), 5);
    match &s.parts[1] {
        StrPart::Interp { path } => {
            assert!(matches!(&path.root, crate::syntax::ast::PathRoot::Var { ident } if ident.name == "f"));
        }
        other => panic!("{other:?}"),
    }
    match &s.parts[3] {
        StrPart::Interp { path } => {
            assert!(matches!(path.root, crate::syntax::ast::PathRoot::LastRun { .. }));
            assert_eq!(path.fields[0].name, "STDOUT");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(codes_of(r#""${}""#), vec!["E0009"]);
    assert_eq!(codes_of(r#""${a b}""#), vec!["E0009"]);
    assert_eq!(codes_of(r#""${STDOUT}""#), vec!["E0009"]);
}

#[test]
fn old_interpolation_suggests_dollar_form() {
    let lexed = lex(r#""hello {{ name }}""#);
    assert_eq!(lexed.diagnostics[0].code.as_str(), "E0007");
    assert_eq!(lexed.diagnostics[0].suggestions[0].replacement, "${name}");
    assert!(codes_of(r#""{{ not a name }}""#).is_empty());
}

#[test]
fn unterminated_string() {
    let lexed = lex("\"abc\nTASK");
    assert_eq!(lexed.diagnostics[0].code.as_str(), "E0002");
    assert_eq!(lexed.tokens[1].kind, TokenKind::Kw(crate::syntax::token::Kw::TASK));
}

#[test]
fn heredocs() {
    let lexed = lex("WRITE \"f\" <<PYTHON\nprint(1)\n# not a comment\n\n  PYTHON  \nLOG \"x\"");
    assert!(lexed.diagnostics.is_empty(), "{:?}", lexed.diagnostics);
    assert_eq!(lexed.heredocs[0].body, "print(1)\n# not a comment\n\n");
    assert_eq!(lexed.heredocs[0].tag, "PYTHON");
    assert!(matches!(lexed.tokens[3].kind, TokenKind::Kw(crate::syntax::token::Kw::LOG)));

    let squiggly = lex("<<~EOF\r\n    a\r\n      b\r\n    EOF\r\n");
    assert_eq!(squiggly.heredocs[0].body, "a\n  b\n");
    assert!(squiggly.heredocs[0].squiggly);

    assert_eq!(lex("<<EOF\nEOF\n").heredocs[0].body, "");
}

#[test]
fn heredoc_errors() {
    let lexed = lex("WRITE \"f\" <<EOF\nbody\n");
    assert_eq!(lexed.diagnostics[0].code.as_str(), "E0004");
    assert_eq!(lexed.diagnostics[0].span, Span::new(10, 15));
    assert_eq!(codes_of("<<python\nx\npython\n"), vec!["E0012"]);
    assert_eq!(codes_of("<<\n"), vec!["E0012"]);
    assert_eq!(codes_of("<<EOF }\nx\nEOF\n"), vec!["E0100"]);
}

#[test]
fn pragmas() {
    let lexed = lex("#TISS! Language=Python Owner=ci\n#TISS_VERSION >= 1.0\nTASK \"t\"");
    assert!(lexed.diagnostics.is_empty(), "{:?}", lexed.diagnostics);
    assert_eq!(lexed.pragmas.len(), 2);
    assert!(matches!(lexed.tokens[0].kind, TokenKind::Pragma(0)));
    assert_eq!(codes_of("#TISS_VERSION 1.0\n"), vec!["E0010"]);
    assert_eq!(codes_of("#TISS_VERSON >= 1.0\n"), vec!["E0010"]);
    assert_eq!(codes_of("#TISS! Language\n"), vec!["E0010"]);
    assert_eq!(codes_of("TASK \"t\"\n#TISS! A=b\n"), vec!["E0010"]);
    // Not at the start of a line: an ordinary comment.
    assert!(codes_of("TASK \"t\" #TISS_VERSION nonsense\n").is_empty());
}

#[test]
fn unexpected_characters_teach() {
    let lexed = lex("'hi' && || ! @");
    let got: Vec<_> =
        lexed.diagnostics.iter().map(|d| d.suggestions.first().map(|s| s.replacement.clone())).collect();
    assert_eq!(
        got,
        vec![Some("\"hi\"".into()), Some("AND".into()), Some("OR".into()), Some("NOT".into()), None]
    );
}

#[test]
fn never_panics_on_awkward_input() {
    for src in [
        "\"", "\"\\", "\"\\u{", "\"${", "\"${a.", "<<", "<<~", "-", "1_", "\"{{", "#TISS", "\u{FFFD}", "\"\r",
    ] {
        let lexed = lex(src);
        assert_eq!(lexed.tokens.last().map(|t| t.kind), Some(TokenKind::Eof), "{src:?}");
    }
}
