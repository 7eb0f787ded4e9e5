//! Human answers given in advance (book: reference/snapshots.md): `--answers FILE`, a JSON array
//! whose k-th entry answers the k-th interaction of the run, and `tissvm
//! resume --answer`. A [`Reply`] is checked against the question it meets
//! when the host consumes it ([`Reply::answer`]): a `line` that is not the
//! interaction's, or an answer of the wrong kind, is refused there; the file
//! is also checked against the plan before anything runs ([`check_plan`]).
//! With many plans (book: guide/many-plans.md) an entry may name its plan; each plan takes
//! the entries that name it or none ([`for_plan`]).

use std::path::{Path, PathBuf};

use serde_json::Value as Json;
use tisslang::isa::Instr;
use tisslang::module::Module;

use crate::host::{Answer, Question};
use crate::session::snapshot::AnswersPosition;

/// What a human can answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Word {
    /// A PAUSE.
    Continue,
    /// A REQUEST_REVIEW.
    Approve,
    Reject,
    /// A CHOOSE: the option number, 1-based.
    Option(u32),
    /// A CHOOSE: the option's text (any case), as the human wrote it.
    Label(String),
}

impl Word {
    /// `continue`, `approve`, `reject` (any case), an option number from
    /// 1, or any other text, an option's.
    pub fn parse(text: &str) -> Result<Word, String> {
        let text = text.trim();
        match text.to_ascii_lowercase().as_str() {
            "continue" => return Ok(Word::Continue),
            "approve" => return Ok(Word::Approve),
            "reject" => return Ok(Word::Reject),
            "" => {
                return Err(
                    "the answer is empty: use continue (PAUSE), approve or reject (REQUEST_REVIEW), \
                            or an option's number or text (CHOOSE)"
                        .into(),
                );
            }
            _ => {}
        }
        match text.parse::<i64>() {
            Ok(n) if n < 1 => Err(format!("`{text}` is no option: options are numbered from 1")),
            Ok(n) => Ok(u32::try_from(n).map_or_else(|_| Word::Label(text.into()), Word::Option)),
            Err(_) => Ok(Word::Label(text.into())),
        }
    }

    pub fn text(&self) -> String {
        match self {
            Word::Continue => "continue".into(),
            Word::Approve => "approve".into(),
            Word::Reject => "reject".into(),
            Word::Option(n) => n.to_string(),
            Word::Label(text) => text.clone(),
        }
    }
}

/// The option of a CHOOSE (0-based) that `text` names: its number from 1,
/// else its text — exactly, else in any case. An ambiguous or unknown
/// text is refused, naming the options.
pub fn option_named(options: &[&str], text: &str) -> Result<usize, String> {
    let text = text.trim();
    if let Ok(n) = text.parse::<usize>() {
        return match n {
            1.. if n <= options.len() => Ok(n - 1),
            _ => Err(format!("no option {n}: the options are {}", listed(options, |_| true))),
        };
    }
    let exact: Vec<usize> = (0..options.len()).filter(|&i| options[i] == text).collect();
    let found = if exact.is_empty() {
        (0..options.len()).filter(|&i| options[i].to_lowercase() == text.to_lowercase()).collect()
    } else {
        exact
    };
    match found[..] {
        [one] => Ok(one),
        [] => Err(format!("no option `{text}`: the options are {}", listed(options, |_| true))),
        _ => Err(format!(
            "`{text}` names {} options, {}: answer with the number of one",
            found.len(),
            listed(options, |i| found.contains(&i))
        )),
    }
}

/// The options `which` keeps as a message lists them: `1 "stable", 2 "beta"`.
fn listed(options: &[&str], which: impl Fn(usize) -> bool) -> String {
    let kept = options.iter().enumerate().filter(|(i, _)| which(*i));
    kept.map(|(i, o)| format!("{} {o:?}", i + 1)).collect::<Vec<_>>().join(", ")
}

/// One answer given in advance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub word: Word,
    /// Kept by a REQUEST_REVIEW (`r.COMMENT`); logged otherwise.
    pub comment: Option<String>,
    /// The source line of the interaction it is meant for, if given.
    pub line: Option<u32>,
    /// Where it came from, for messages: `--answer`, `answers.json entry 3`.
    pub origin: String,
    /// Its 0-based index in the `--answers` file, if it came from one.
    pub entry: Option<u32>,
}

/// The kind of an interaction, as the plan has it: a CHOOSE with its
/// options' texts.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind<'a> {
    Pause,
    Review,
    Choose(Vec<&'a str>),
    /// A RUN the command policy asks about.
    Approval,
}

impl<'a> Kind<'a> {
    fn of(question: &'a Question) -> Kind<'a> {
        match question {
            Question::Pause { .. } => Kind::Pause,
            Question::Review { .. } => Kind::Review,
            Question::Choose { options, .. } => Kind::Choose(options.iter().map(String::as_str).collect()),
            Question::Approval { .. } => Kind::Approval,
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Kind::Pause => "PAUSE",
            Kind::Review => "REQUEST_REVIEW",
            Kind::Choose(_) => "CHOOSE",
            Kind::Approval => "RUN approval",
        }
    }

    /// The answer `word` (with `comment`) gives it, or why it does not
    /// answer it.
    fn answer(&self, word: &Word, comment: Option<&str>) -> Result<Answer, String> {
        match (self, word) {
            // Any text that names one option, `approve` included.
            (Kind::Choose(options), word) => option_named(options, &word.text()).map(Answer::Choice),
            (Kind::Pause, Word::Continue) => Ok(Answer::Continue),
            (Kind::Review | Kind::Approval, Word::Approve | Word::Reject) => Ok(Answer::Review {
                approved: *word == Word::Approve,
                comment: comment.unwrap_or_default().to_string(),
            }),
            (Kind::Pause, _) => Err("it takes `continue`".into()),
            (Kind::Review | Kind::Approval, _) => Err("it takes `approve` or `reject`".into()),
        }
    }

    /// What answers it, for messages and the resume command.
    fn expected(&self) -> String {
        match self {
            Kind::Pause => "continue".into(),
            Kind::Review | Kind::Approval => "approve|reject".into(),
            Kind::Choose(options) if options.len() <= 9 => {
                (1..=options.len()).map(|i| i.to_string()).collect::<Vec<_>>().join("|")
            }
            Kind::Choose(options) => format!("<option number, 1-{}>", options.len()),
        }
    }
}

/// The answers `--answer` accepts for `question`: `continue`,
/// `approve|reject`, `1|2|3`.
pub fn expected_answers(question: &Question) -> String {
    Kind::of(question).expected()
}

/// The statement a question comes from: `PAUSE`, `REQUEST_REVIEW`, `CHOOSE`.
pub fn statement(question: &Question) -> &'static str {
    Kind::of(question).name()
}

impl Reply {
    /// A reply from `--answer TEXT [--comment TEXT]`.
    pub fn from_flag(text: &str, comment: Option<String>) -> Result<Reply, String> {
        let word = Word::parse(text).map_err(|e| format!("--answer: {e}"))?;
        Ok(Reply { word, comment, line: None, origin: "--answer".into(), entry: None })
    }

    /// The answer to `question`, asked at source line `line`; or why this
    /// reply does not answer it.
    pub fn answer(&self, question: &Question, line: u32) -> Result<Answer, String> {
        let kind = Kind::of(question);
        if let Some(expected) = self.line
            && expected != line
        {
            return Err(format!(
                "{} is for line {expected}, but the interaction it answers is the {} at line {line}",
                self.origin,
                kind.name()
            ));
        }
        kind.answer(&self.word, self.comment.as_deref()).map_err(|why| {
            format!(
                "{} (`{}`) does not answer the {} at line {line}: {why}",
                self.origin,
                self.word.text(),
                kind.name()
            )
        })
    }
}

/// An entry of an `--answers` file: its reply, and the plan it names, if
/// it names one (with many plans).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub plan: Option<PathBuf>,
    pub reply: Reply,
}

/// Parses an `--answers` file: a JSON array of
/// `{"answer": "continue" | "approve" | "reject" | "<n>", "comment": "...", "line": N, "plan": "path"}`
/// (`comment`, `line` and `plan` optional). `name` names the file in messages.
pub fn parse_file(bytes: &[u8], name: &str) -> Result<Vec<Entry>, String> {
    let value: Json = serde_json::from_slice(bytes).map_err(|e| format!("{name}: not valid JSON: {e}"))?;
    let Json::Array(entries) = value else {
        return Err(format!(
            "{name}: expected a JSON array of answers, e.g. [{{\"answer\": \"approve\", \"line\": 12}}]"
        ));
    };
    let mut out = Vec::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        let origin = format!("{name} entry {}", i + 1);
        let Json::Object(fields) = entry else {
            return Err(format!("{origin}: expected an object such as {{\"answer\": \"continue\"}}"));
        };
        if let Some(key) =
            fields.keys().find(|k| !matches!(k.as_str(), "answer" | "comment" | "line" | "plan"))
        {
            return Err(format!(
                "{origin}: unknown key `{key}` (an entry has `answer`, `comment`, `line` and `plan`)"
            ));
        }
        let word = match fields.get("answer") {
            Some(Json::String(s)) => Word::parse(s),
            Some(Json::Number(n)) => Word::parse(&n.to_string()),
            Some(_) => Err("`answer` must be a string".to_string()),
            None => Err("`answer` is missing".to_string()),
        }
        .map_err(|e| format!("{origin}: {e}"))?;
        let comment = match fields.get("comment") {
            None | Some(Json::Null) => None,
            Some(Json::String(s)) => Some(s.clone()),
            Some(_) => return Err(format!("{origin}: `comment` must be a string")),
        };
        let line = match fields.get("line") {
            None | Some(Json::Null) => None,
            Some(Json::Number(n)) => match n.as_u64().and_then(|l| u32::try_from(l).ok()) {
                Some(l) if l >= 1 => Some(l),
                _ => return Err(format!("{origin}: `line` must be a line number from 1, not {n}")),
            },
            Some(_) => return Err(format!("{origin}: `line` must be a number")),
        };
        let plan = match fields.get("plan") {
            None | Some(Json::Null) => None,
            Some(Json::String(s)) if !s.is_empty() => Some(PathBuf::from(s)),
            Some(_) => return Err(format!("{origin}: `plan` must be a plan's path, as the run names it")),
        };
        out.push(Entry { plan, reply: Reply { word, comment, line, origin, entry: Some(i as u32) } });
    }
    Ok(out)
}

/// The replies of `entries` for the plan `plan` of a run of many: those
/// that name it (the same file) or no plan, in order. For a run of one
/// plan (`None`), an entry that names a plan is refused.
pub fn for_plan(entries: Vec<Entry>, plan: Option<&Path>) -> Result<Vec<Reply>, String> {
    let mut replies = Vec::with_capacity(entries.len());
    for Entry { plan: named, reply } in entries {
        match (named, plan) {
            (None, _) => replies.push(reply),
            (Some(named), Some(plan)) => {
                if same_file(&named, plan) {
                    replies.push(reply);
                }
            }
            (Some(named), None) => {
                return Err(format!(
                    "{} names the plan `{}`: entries name their plan in a run of many plans; for one plan, \
                     leave `plan` out",
                    reply.origin,
                    named.display()
                ));
            }
        }
    }
    Ok(replies)
}

/// Where a resumed run starts in the answers file `given` (0-based): after
/// the entries it used when `given` is the file the run had (`used`), with
/// the entry `--answer` takes the place of (`answered`: 1 if given); from
/// its first entry when it is another file, or the run had none. The k-th
/// entry answers the k-th interaction of the run, so the same file goes
/// on where it stood; a new file is new answers from here on.
pub fn first_entry(given: &Path, used: Option<&AnswersPosition>, answered: usize) -> usize {
    match used {
        Some(used) if same_file(given, &used.file) => used.next as usize + answered,
        _ => 0,
    }
}

/// Whether two paths name the same file (symbolic links and `..` resolved
/// when both exist; else compared as absolute paths).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => std::path::absolute(a).ok() == std::path::absolute(b).ok(),
    }
}

/// Checks replies against the plan before anything runs: a reply with a
/// `line` must fit an interaction at that line, one without must fit some
/// interaction of the plan. `runs_ask`: the command policy may ask about
/// a RUN, so every RUN is an interaction too.
pub fn check_plan(replies: &[Reply], module: &Module, runs_ask: bool) -> Result<(), String> {
    let interactions = interactions(module, runs_ask);
    for reply in replies {
        let word = reply.word.text();
        match reply.line {
            Some(line) => {
                let here: Vec<&Kind> =
                    interactions.iter().filter(|(l, _)| *l == line).map(|(_, k)| k).collect();
                if here.is_empty() {
                    let mut lines: Vec<u32> = interactions.iter().map(|(l, _)| *l).collect();
                    lines.sort_unstable();
                    lines.dedup();
                    let lines: Vec<String> = lines.iter().map(u32::to_string).collect();
                    let listed = if lines.is_empty() {
                        "the plan has none".to_string()
                    } else {
                        format!("the plan has them at lines {}", lines.join(", "))
                    };
                    return Err(format!(
                        "{} is for line {line}, where there is no PAUSE, REQUEST_REVIEW or CHOOSE{} ({listed})",
                        reply.origin,
                        if runs_ask { ", nor a RUN the policy may ask about" } else { "" }
                    ));
                }
                let refusals: Vec<String> =
                    here.iter().filter_map(|k| k.answer(&reply.word, None).err()).collect();
                if refusals.len() == here.len() {
                    return Err(format!(
                        "{} (`{word}`) does not answer the {} at line {line}: {}",
                        reply.origin,
                        here[0].name(),
                        refusals[0]
                    ));
                }
            }
            None => {
                if interactions.iter().all(|(_, k)| k.answer(&reply.word, None).is_err()) {
                    let what = match &reply.word {
                        Word::Continue => "no PAUSE".to_string(),
                        Word::Approve | Word::Reject => {
                            "no REQUEST_REVIEW (and no RUN the command policy asks about)".to_string()
                        }
                        Word::Option(n) => format!("no CHOOSE with {n} options or more"),
                        Word::Label(text) => no_option(&interactions, text),
                    };
                    return Err(format!("{} (`{word}`) answers nothing: the plan has {what}", reply.origin));
                }
            }
        }
    }
    Ok(())
}

/// The plan has no CHOOSE with one option `text`: what it has instead.
fn no_option(interactions: &[(u32, Kind)], text: &str) -> String {
    let chooses: Vec<String> = interactions
        .iter()
        .filter_map(|(line, kind)| match kind {
            Kind::Choose(options) => Some(format!("line {line}: {}", listed(options, |_| true))),
            _ => None,
        })
        .collect();
    if chooses.is_empty() {
        format!("no CHOOSE, and `{text}` is not an answer to anything else")
    } else {
        format!("no CHOOSE with an option `{text}` ({})", chooses.join("; "))
    }
}

/// Whether the plan asks a human anything: a PAUSE, REQUEST_REVIEW or
/// CHOOSE, or (`runs_ask`) a RUN the command policy may ask about.
pub fn asks(module: &Module, runs_ask: bool) -> bool {
    !interactions(module, runs_ask).is_empty()
}

/// The plan's interactions: each one's source line and kind.
fn interactions(module: &Module, runs_ask: bool) -> Vec<(u32, Kind<'_>)> {
    let line_of = |pc: usize| module.position(pc as u32).map_or(0, |(line, _)| line);
    module
        .code
        .iter()
        .enumerate()
        .filter_map(|(pc, instr)| {
            let kind = match instr {
                Instr::Pause {} => Kind::Pause,
                Instr::Review { .. } => Kind::Review,
                Instr::Run { .. } if runs_ask => Kind::Approval,
                Instr::Choose { choice } => {
                    Kind::Choose(module.choices.get(*choice as usize).map_or_else(Vec::new, |c| {
                        c.options.iter().map(|o| module.string(o.label).unwrap_or("")).collect()
                    }))
                }
                _ => return None,
            };
            Some((line_of(pc), kind))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_file_goes_on_and_another_starts_at_its_first_entry() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("answers.json");
        std::fs::write(&file, "[]").unwrap();
        let used = AnswersPosition { file: file.clone(), next: 2 };
        assert_eq!(first_entry(&file, Some(&used), 0), 2);
        assert_eq!(first_entry(&file, Some(&used), 1), 3, "--answer takes the place of entry 3");
        // The same file by another path.
        std::fs::create_dir(dir.path().join("x")).unwrap();
        assert_eq!(first_entry(&dir.path().join("x/../answers.json"), Some(&used), 0), 2);
        let other = dir.path().join("other.json");
        std::fs::write(&other, "[]").unwrap();
        assert_eq!(first_entry(&other, Some(&used), 0), 0);
        assert_eq!(first_entry(&other, Some(&used), 1), 0);
        assert_eq!(first_entry(&file, None, 0), 0);
    }

    fn question(kind: &str) -> Question {
        match kind {
            "pause" => Question::Pause { message: "m".into() },
            "review" => Question::Review { message: "m".into() },
            _ => Question::Choose { prompt: None, options: vec!["a".into(), "b".into(), "c".into()] },
        }
    }

    #[test]
    fn words() {
        assert_eq!(Word::parse("continue"), Ok(Word::Continue));
        assert_eq!(Word::parse(" APPROVE "), Ok(Word::Approve));
        assert_eq!(Word::parse("reject"), Ok(Word::Reject));
        assert_eq!(Word::parse("3"), Ok(Word::Option(3)));
        assert!(Word::parse("0").unwrap_err().contains("from 1"));
        assert!(Word::parse("-1").unwrap_err().contains("from 1"));
        assert!(Word::parse(" ").unwrap_err().contains("empty"));
        // Any other text is an option's, checked against the CHOOSE it meets.
        assert_eq!(Word::parse(" beta "), Ok(Word::Label("beta".into())));
    }

    #[test]
    fn replies_answer_their_own_kind_at_their_own_line() {
        let reply = |text: &str, line: Option<u32>| Reply {
            word: Word::parse(text).unwrap(),
            comment: Some("why".into()),
            line,
            origin: "a.json entry 1".into(),
            entry: Some(0),
        };
        assert_eq!(reply("continue", None).answer(&question("pause"), 4), Ok(Answer::Continue));
        assert_eq!(
            reply("reject", Some(4)).answer(&question("review"), 4),
            Ok(Answer::Review { approved: false, comment: "why".into() })
        );
        assert_eq!(reply("3", None).answer(&question("choose"), 4), Ok(Answer::Choice(2)));
        let e = reply("continue", Some(5)).answer(&question("pause"), 4).unwrap_err();
        assert!(e.contains("line 5") && e.contains("line 4"), "{e}");
        let e = reply("approve", None).answer(&question("choose"), 4).unwrap_err();
        assert!(e.contains("CHOOSE at line 4: no option `approve`: the options are 1 \"a\", 2 \"b\""), "{e}");
        assert!(reply("4", None).answer(&question("choose"), 4).is_err());
        assert!(reply("1", None).answer(&question("review"), 4).is_err());
        assert!(reply("approve", None).answer(&question("pause"), 4).is_err());
    }

    /// A CHOOSE's option by its text: exactly, else in any case; a text
    /// that names no option, or several, is refused listing them.
    #[test]
    fn an_option_is_named_by_its_number_or_its_text() {
        let options = ["stable", "Beta", "beta", "approve", "Nightly"];
        assert_eq!(option_named(&options, "2"), Ok(1));
        assert_eq!(option_named(&options, "beta"), Ok(2), "the exact text first");
        assert_eq!(option_named(&options, "nightly"), Ok(4));
        assert_eq!(option_named(&options, " STABLE "), Ok(0));
        let e = option_named(&options, "BETA").unwrap_err();
        assert_eq!(e, "`BETA` names 2 options, 2 \"Beta\", 3 \"beta\": answer with the number of one");
        let e = option_named(&options, "weekly").unwrap_err();
        let all = r#"1 "stable", 2 "Beta", 3 "beta", 4 "approve", 5 "Nightly""#;
        assert_eq!(e, format!("no option `weekly`: the options are {all}"));
        assert_eq!(option_named(&options, "6").unwrap_err(), format!("no option 6: the options are {all}"));
        // A reply of a keyword answers the CHOOSE that has it as an option.
        let choose = Question::Choose { prompt: None, options: options.map(String::from).to_vec() };
        let reply = Reply::from_flag("approve", None).unwrap();
        assert_eq!(reply.answer(&choose, 3), Ok(Answer::Choice(3)));
        let e = Reply::from_flag("gamma", None).unwrap().answer(&choose, 3).unwrap_err();
        assert!(
            e.starts_with("--answer (`gamma`) does not answer the CHOOSE at line 3: no option `gamma`"),
            "{e}"
        );
    }

    #[test]
    fn files() {
        let ok = parse_file(
            br#"[{"answer": "approve", "comment": "fine", "line": 3}, {"answer": 2}, {"answer": "continue", "line": null}]"#,
            "a.json",
        )
        .unwrap();
        let ok: Vec<Reply> = ok.into_iter().map(|e| e.reply).collect();
        assert_eq!(ok.len(), 3);
        assert_eq!(
            (ok[0].word.clone(), ok[0].line, ok[0].comment.as_deref()),
            (Word::Approve, Some(3), Some("fine"))
        );
        assert_eq!(ok[1].word, Word::Option(2));
        assert_eq!(ok[2].origin, "a.json entry 3");
        assert_eq!(ok[2].entry, Some(2));
        for (bad, says) in [
            (&b"{"[..], "not valid JSON"),
            (b"{}", "expected a JSON array"),
            (b"[1]", "entry 1: expected an object"),
            (br#"[{"answer": "approve", "lines": 3}]"#, "unknown key `lines`"),
            (br#"[{"comment": "x"}]"#, "`answer` is missing"),
            (br#"[{"answer": ""}]"#, "the answer is empty"),
            (br#"[{"answer": "approve", "line": 0}]"#, "line number from 1"),
            (br#"[{"answer": "approve", "line": "3"}]"#, "must be a number"),
            (br#"[{"answer": "approve", "comment": 3}]"#, "must be a string"),
            (br#"[{"answer": "approve", "plan": 3}]"#, "`plan` must be a plan's path"),
        ] {
            let e = parse_file(bad, "a.json").unwrap_err();
            assert!(e.contains(says), "{e} (expected {says})");
        }
    }

    #[test]
    fn each_plan_takes_the_entries_that_name_it_or_none() {
        let file = br#"[{"answer": "continue", "plan": "a.tiss"}, {"answer": "approve"}, {"answer": "2", "plan": "./b.tiss"}]"#;
        let entries = parse_file(file, "x.json").unwrap();
        let words = |plan: &str| -> Vec<Word> {
            for_plan(entries.clone(), Some(Path::new(plan))).unwrap().iter().map(|r| r.word.clone()).collect()
        };
        assert_eq!(words("a.tiss"), [Word::Continue, Word::Approve]);
        assert_eq!(words("b.tiss"), [Word::Approve, Word::Option(2)]);
        assert_eq!(words("c.tiss"), [Word::Approve]);
        let e = for_plan(entries, None).unwrap_err();
        assert!(e.contains("x.json entry 1 names the plan `a.tiss`"), "{e}");
    }
}
