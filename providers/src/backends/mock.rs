//! The `mock` provider: deterministic and offline. Without answers it
//! says `mock answer to: QUERY`; with `--mock-answers FILE` it answers from
//! the file, a JSON array of either
//!
//! - strings: the k-th answers the run's k-th PROMPT_AGENT
//!   ([`PromptRequest::index`], which the machine counts across resume, so a
//!   resumed run goes on with the next answer); past the last one, a
//!   failure naming the file and the count;
//! - or objects `{"match": REGEX, "answer": TEXT}`: the first whose regex
//!   finds a match in the query answers; none, a failure naming the query's
//!   start and the patterns.
//!
//! The file is read and checked when the provider is built, before the run
//! starts: a malformed one is refused naming the file and the line and
//! column (or the entry) at fault.
//!
//! A chat request (`tissc generate`) is answered the same way, its
//! [`ChatRequest::index`] and its last user message standing for the
//! prompt's index and query; it takes a grammar and has no use for it.
//!
//! A typed PROMPT_AGENT (book: reference/types.md) is answered as scripted too: with a
//! script the mock ignores the answer's schema (the VM validates what it
//! answers, so a script can give an invalid answer on purpose); without
//! one it answers the smallest value of the schema (the first enum literal,
//! `0`, `false`, `"mock answer"`, an empty list, `null` for an optional
//! field), so a typed plan runs offline as an untyped one does. A repair request is just
//! another request: the VM gives it the next prompt place, so in a file of
//! strings the repair's answer comes right after the invalid one
//! (`["{\"risk\": \"high\"}", "{\"risk\": 3}"]` answers a typed prompt whose
//! first answer does not validate, then its repair); a file of patterns is
//! matched against the repair message (the last user message: `Your answer
//! does not fit the required JSON Schema:`, the errors, ...) rather than the
//! query, so that an entry can answer repairs. A request with both a grammar
//! and an answer format is refused, as every provider refuses it. What the
//! mock would be asked ([`Provider::wire`], what `--record` keys) holds the
//! messages and the answer format, so another schema is another request.

use std::fmt;
use tiss_support::io_message::io_message;

use regex::Regex;
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};

use crate::answer::start_of;
use crate::chat::ChatRequest;
use crate::plural;
use crate::settings::ProviderSettings;
use crate::{PromptError, PromptRequest, PromptResponse, Provider, Wire};

/// The largest answers file read.
const MAX_FILE_BYTES: u64 = 16 << 20;

/// Answers every prompt, and counts tokens the way the static estimate
/// does (characters / 4), so runs are reproducible without a network.
#[derive(Debug, Default)]
pub struct MockProvider {
    /// The answers file's path and what it says.
    script: Option<(String, Script)>,
}

#[derive(Debug)]
enum Script {
    InOrder(Vec<String>),
    Matching(Vec<(Regex, String)>),
}

impl MockProvider {
    /// The mock with the settings' `--mock-answers` file, read and checked now.
    pub fn new(settings: &ProviderSettings) -> Result<MockProvider, String> {
        let Some(path) = &settings.mock_answers else { return Ok(MockProvider::default()) };
        let bytes = read(path)?;
        let script = parse(&bytes).map_err(|e| format!("--mock-answers `{path}`: {e}"))?;
        Ok(MockProvider { script: Some((path.clone(), script)) })
    }

    /// The answer to the `index`-th request (`what` names it in a message),
    /// whose query is `query`.
    fn answer(
        &self,
        index: u32,
        query: &str,
        what: &str,
        schema: Option<&serde_json::Value>,
    ) -> Result<String, String> {
        let Some((path, script)) = &self.script else {
            return Ok(match schema {
                Some(schema) => smallest(schema).to_string(),
                None => format!("mock answer to: {query}"),
            });
        };
        match script {
            Script::InOrder(answers) => answers.get(index as usize).cloned().ok_or_else(|| {
                format!(
                    "--mock-answers `{path}` has {} and this is {what} number {}: add answers to \
                     the file, or answer by the query with {{\"match\": REGEX, \"answer\": TEXT}} entries",
                    plural(answers.len() as u64, "answer"),
                    u64::from(index) + 1
                )
            }),
            Script::Matching(rules) => {
                if let Some((_, answer)) = rules.iter().find(|(regex, _)| regex.is_match(query)) {
                    return Ok(answer.clone());
                }
                let patterns: Vec<String> = rules.iter().map(|(r, _)| format!("`{}`", r.as_str())).collect();
                Err(format!(
                    "no pattern of --mock-answers `{path}` matches the query `{}` (patterns: {}): add an entry \
                     whose \"match\" finds this query",
                    start_of(query, 60),
                    patterns.join(", ")
                ))
            }
        }
    }
}

impl Provider for MockProvider {
    fn name(&self) -> &str {
        "mock"
    }

    fn complete(
        &mut self,
        request: &PromptRequest,
        _: &mut dyn FnMut(&str),
    ) -> Result<PromptResponse, PromptError> {
        let prompt_chars: usize =
            request.query.len() + request.context.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>();
        if request.repair.is_some() {
            // Answered by the repair message; counted as the prompt plus the
            // two messages the repair adds.
            let chat = ChatRequest::from_prompt(request);
            chat.check_constraints().map_err(refused)?;
            let what = "the repair request, the run's prompt";
            let schema = request.answer_format.as_ref().map(|f| &f.schema);
            let text = self.answer(request.index, chat.last_user(), what, schema).map_err(failed)?;
            let added: usize = chat.messages[2..].iter().map(|m| m.content.len()).sum();
            return Ok(counted(prompt_chars + added, text));
        }
        if request.grammar.is_some() && request.answer_format.is_some() {
            ChatRequest::from_prompt(request).check_constraints().map_err(refused)?;
        }
        let schema = request.answer_format.as_ref().map(|f| &f.schema);
        let text =
            self.answer(request.index, &request.query, "the run's PROMPT_AGENT", schema).map_err(failed)?;
        Ok(counted(prompt_chars, text))
    }

    fn chat(
        &mut self,
        request: &ChatRequest,
        _: &mut dyn FnMut(&str),
    ) -> Result<PromptResponse, PromptError> {
        request.check_constraints().map_err(refused)?;
        let schema = request.answer_format.as_ref().map(|f| &f.schema);
        let text = self.answer(request.index, request.last_user(), "request", schema).map_err(failed)?;
        Ok(counted(request.messages.iter().map(|m| m.content.len()).sum(), text))
    }

    /// The mock sends nothing: its request is the layout's messages, what a
    /// model would be asked (no endpoint), and the answer format (its name
    /// and schema as the VM gave them) when there is one.
    fn wire(&self, request: &PromptRequest) -> Result<Wire, String> {
        let chat = ChatRequest::from_prompt(request);
        chat.check_constraints()?;
        let mut body = serde_json::json!({ "messages": chat.messages_json() });
        if let Some(format) = &chat.answer_format {
            body["answer_format"] = serde_json::json!({"name": format.name, "schema": format.schema});
        }
        Ok(Wire { endpoint: String::new(), body })
    }
}

/// The smallest value a schema of the VM's (`tisslang::answer::schema`)
/// admits. Its depth is the schema's, which the compiler bounds.
fn smallest(schema: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|e| e.first()) {
        return first.clone();
    }
    if schema.get("anyOf").is_some() {
        return Value::Null;
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("integer") => Value::from(0),
        Some("boolean") => Value::Bool(false),
        Some("array") => Value::Array(Vec::new()),
        Some("object") => Value::Object(
            schema
                .get("properties")
                .and_then(Value::as_object)
                .map(|props| props.iter().map(|(k, v)| (k.clone(), smallest(v))).collect())
                .unwrap_or_default(),
        ),
        _ => Value::from("mock answer"),
    }
}

fn failed(message: String) -> PromptError {
    PromptError { message, requests: 1, out_of_calls: false }
}

/// A request refused before it is answered: none counted.
fn refused(message: String) -> PromptError {
    PromptError { message, requests: 0, out_of_calls: false }
}

/// The answer, its tokens counted as the static estimate counts them
/// (characters / 4 of the prompt and of the answer).
fn counted(prompt_chars: usize, text: String) -> PromptResponse {
    let tokens = (prompt_chars as u64).div_ceil(4) + (text.len() as u64).div_ceil(4);
    PromptResponse { text, tokens, estimated: false, requests: 1, finish_reason: Some("stop".into()) }
}

fn read(path: &str) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let file = std::fs::File::open(path)
        .map_err(|e| format!("cannot read --mock-answers `{path}`: {}", io_message(&e)))?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read --mock-answers `{path}`: {}", io_message(&e)))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!("--mock-answers `{path}` is larger than {MAX_FILE_BYTES} bytes"));
    }
    Ok(bytes)
}

/// The file's answers: all strings, or all `{"match", "answer"}` objects.
fn parse(bytes: &[u8]) -> Result<Script, String> {
    let entries: Vec<Entry> = serde_json::from_slice(bytes).map_err(|e| {
        // serde_json's message ends with "at line L column C" where it knows them.
        format!("not a JSON array of answers: {e}")
    })?;
    let Some(first) = entries.first() else {
        return Err("the array is empty: give at least one answer".into());
    };
    let mixed = |n: usize, what: &str| {
        format!(
            "entry {n} is {what}, but entry 1 is not: use only strings (answers in order) or only \
             {{\"match\": REGEX, \"answer\": TEXT}} objects"
        )
    };
    match first {
        Entry::Text(_) => {
            let mut answers = Vec::with_capacity(entries.len());
            for (n, entry) in entries.into_iter().enumerate() {
                match entry {
                    Entry::Text(text) => answers.push(text),
                    Entry::Rule { .. } => return Err(mixed(n + 1, "an object")),
                }
            }
            Ok(Script::InOrder(answers))
        }
        Entry::Rule { .. } => {
            let mut rules = Vec::with_capacity(entries.len());
            for (n, entry) in entries.into_iter().enumerate() {
                match entry {
                    Entry::Rule { pattern, answer } => {
                        let regex = Regex::new(&pattern).map_err(|e| {
                            format!("entry {}: \"match\" `{pattern}` is not a valid regex: {e}", n + 1)
                        })?;
                        rules.push((regex, answer));
                    }
                    Entry::Text(_) => return Err(mixed(n + 1, "a string")),
                }
            }
            Ok(Script::Matching(rules))
        }
    }
}

/// One element of the file's array.
enum Entry {
    Text(String),
    Rule { pattern: String, answer: String },
}

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Entry, D::Error> {
        deserializer.deserialize_any(EntryVisitor)
    }
}

struct EntryVisitor;

impl<'de> Visitor<'de> for EntryVisitor {
    type Value = Entry;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(r#"an answer: a string, or {"match": REGEX, "answer": TEXT}"#)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Entry, E> {
        Ok(Entry::Text(text.to_string()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entry, A::Error> {
        let (mut pattern, mut answer) = (None, None);
        while let Some(key) = map.next_key::<String>()? {
            let slot = match key.as_str() {
                "match" => &mut pattern,
                "answer" => &mut answer,
                other => return Err(de::Error::unknown_field(other, &["match", "answer"])),
            };
            if slot.is_some() {
                return Err(de::Error::custom(format!("`{key}` is given twice")));
            }
            *slot = Some(map.next_value::<String>()?);
        }
        Ok(Entry::Rule {
            pattern: pattern.ok_or_else(|| de::Error::missing_field("match"))?,
            answer: answer.ok_or_else(|| de::Error::missing_field("answer"))?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(mock: &mut MockProvider, query: &str, index: u32) -> Result<String, String> {
        let request = PromptRequest { query: query.into(), index, ..Default::default() };
        mock.complete(&request, &mut |_| {}).map(|r| r.text).map_err(|e| e.message)
    }

    fn scripted(json: &str) -> MockProvider {
        MockProvider { script: Some(("answers.json".into(), parse(json.as_bytes()).unwrap())) }
    }

    #[test]
    fn without_answers_the_mock_is_deterministic() {
        let request = PromptRequest {
            query: "hi".into(),
            context: vec![("x".into(), "1".into())],
            ..Default::default()
        };
        let a = MockProvider::default().complete(&request, &mut |_| {}).unwrap();
        let b = MockProvider::default().complete(&request, &mut |_| {}).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.text, "mock answer to: hi");
    }

    #[test]
    fn without_answers_a_typed_prompt_gets_the_smallest_valid_answer() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "verdict": {"type": "string", "enum": ["approve", "reject"]},
                "reasons": {"type": "array", "items": {"type": "string"}},
                "risk": {"type": "integer"},
                "ok": {"type": "boolean"},
                "note": {"type": "string"},
                "files": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
            },
            "required": ["verdict", "reasons", "risk", "ok", "note", "files"],
            "additionalProperties": false,
        });
        let request = PromptRequest {
            query: "review".into(),
            answer_format: Some(crate::AnswerFormat { name: "Review".into(), schema }),
            ..Default::default()
        };
        let answer = MockProvider::default().complete(&request, &mut |_| {}).unwrap().text;
        assert_eq!(
            answer,
            r#"{"verdict":"approve","reasons":[],"risk":0,"ok":false,"note":"mock answer","files":null}"#
        );
    }

    #[test]
    fn strings_answer_prompts_in_order_and_run_out_in_words() {
        let mut mock = scripted(r#"["one", "two"]"#);
        assert_eq!(ask(&mut mock, "q", 0).unwrap(), "one");
        assert_eq!(ask(&mut mock, "q", 1).unwrap(), "two");
        let e = ask(&mut mock, "q", 2).unwrap_err();
        assert!(
            e.contains("`answers.json` has 2 answers and this is the run's PROMPT_AGENT number 3"),
            "{e}"
        );
    }

    #[test]
    fn the_first_matching_pattern_answers() {
        let mut mock = scripted(
            r#"[{"match": "(?i)colour", "answer": "blue"}, {"answer": "any", "match": "."}, {"match": "x", "answer": "never"}]"#,
        );
        assert_eq!(ask(&mut mock, "Name a COLOUR.", 5).unwrap(), "blue");
        assert_eq!(ask(&mut mock, "Say hi.", 0).unwrap(), "any");
        let mut strict = scripted(r#"[{"match": "^Fix", "answer": "done"}]"#);
        let e = ask(&mut strict, "Explain the failure of the test suite in detail please, all of it", 0)
            .unwrap_err();
        assert!(
            e.contains("matches the query `Explain the failure of the test suite in detail please, all …`")
                && e.contains("(patterns: `^Fix`)"),
            "{e}"
        );
    }

    fn typed(index: u32, repair: Option<(&str, &str)>) -> PromptRequest {
        PromptRequest {
            query: "Review.".into(),
            index,
            answer_format: Some(crate::AnswerFormat {
                name: "Review".into(),
                schema: serde_json::json!({"type": "object"}),
            }),
            repair: repair
                .map(|(answer, errors)| crate::Repair { answer: answer.into(), errors: errors.into() }),
            ..Default::default()
        }
    }

    fn text(mock: &mut MockProvider, request: &PromptRequest) -> Result<String, String> {
        mock.complete(request, &mut |_| {}).map(|r| r.text).map_err(|e| e.message)
    }

    #[test]
    fn a_typed_prompt_and_its_repair_are_answered_in_order_the_schema_ignored() {
        let mut mock = scripted(r#"["{\"risk\": \"high\"}", "{\"risk\": 3}"]"#);
        assert_eq!(text(&mut mock, &typed(0, None)).unwrap(), r#"{"risk": "high"}"#);
        let repair = typed(1, Some((r#"{"risk": "high"}"#, "$.risk: not an integer")));
        let answered = mock.complete(&repair, &mut |_| {}).unwrap();
        assert_eq!(answered.text, r#"{"risk": 3}"#);
        let sent = "Review.".len()
            + r#"{"risk": "high"}"#.len()
            + crate::layout::repair_message("$.risk: not an integer").len();
        assert_eq!(answered.tokens, (sent as u64).div_ceil(4) + 3);
        let e = text(&mut mock, &typed(2, Some(("x", "y")))).unwrap_err();
        assert!(e.contains("has 2 answers and this is the repair request, the run's prompt number 3"), "{e}");
        // Unscripted, a repair gets the schema's smallest value, as the prompt does.
        let plain = text(&mut MockProvider::default(), &repair).unwrap();
        assert_eq!(plain, text(&mut MockProvider::default(), &typed(0, None)).unwrap());
    }

    #[test]
    fn patterns_answer_a_repair_by_its_message() {
        let mut mock = scripted(
            r#"[{"match": "^Your answer does not fit", "answer": "{\"risk\": 3}"}, {"match": "Review", "answer": "bad"}]"#,
        );
        assert_eq!(text(&mut mock, &typed(0, None)).unwrap(), "bad");
        let repair = typed(1, Some(("bad", "$: not JSON")));
        assert_eq!(text(&mut mock, &repair).unwrap(), r#"{"risk": 3}"#);
    }

    #[test]
    fn the_mocks_wire_holds_the_answer_format_and_both_constraints_are_refused() {
        let mock = MockProvider::default();
        let wire = mock.wire(&typed(0, None)).unwrap();
        assert_eq!(
            wire.body["answer_format"],
            serde_json::json!({"name": "Review", "schema": {"type": "object"}})
        );
        assert_eq!(wire.body["messages"].as_array().unwrap().len(), 2);
        let repair = mock.wire(&typed(1, Some(("a", "e")))).unwrap();
        assert_eq!(repair.body["messages"].as_array().unwrap().len(), 4);
        assert_eq!(repair.body["answer_format"], wire.body["answer_format"]);
        let untyped = mock.wire(&PromptRequest { query: "q".into(), ..Default::default() }).unwrap();
        assert!(untyped.body.get("answer_format").is_none());
        let both = PromptRequest { grammar: Some("root ::= \"a\"".into()), ..typed(0, None) };
        assert!(mock.wire(&both).unwrap_err().contains("not both"));
        let e = MockProvider::default().complete(&both, &mut |_| {}).unwrap_err();
        assert!(e.message.contains("not both") && e.requests == 0, "{e:?}");
    }

    #[test]
    fn malformed_files_are_refused_in_words() {
        let err = |json: &str| parse(json.as_bytes()).unwrap_err();
        assert!(err("[\"a\",\n  oops]").contains("line 2 column 3"), "{}", err("[\"a\",\n  oops]"));
        assert!(err("{\"a\": 1}").contains("not a JSON array"));
        assert!(err("[1]").contains(r#"expected an answer: a string, or {"match": REGEX, "answer": TEXT}"#));
        assert!(err("[]").contains("empty"));
        assert!(err(r#"["a", {"match": "x", "answer": "y"}]"#).contains("entry 2 is an object"));
        assert!(err(r#"[{"match": "x", "answer": "y"}, "a"]"#).contains("entry 2 is a string"));
        assert!(err(r#"[{"match": "x"}]"#).contains("missing field `answer`"));
        assert!(err(r#"[{"match": "x", "answer": "y", "anwser": "z"}]"#).contains("unknown field `anwser`"));
        assert!(err(r#"[{"match": "x", "match": "y", "answer": "z"}]"#).contains("`match` is given twice"));
        let e = err(r#"[{"match": "(", "answer": "y"}]"#);
        assert!(e.contains("entry 1: \"match\" `(` is not a valid regex"), "{e}");
    }

    #[test]
    fn the_file_is_read_when_the_provider_is_built() {
        let dir = std::env::temp_dir().join(format!("tiss-mock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("answers.json");
        std::fs::write(&path, "[\"a\",]").unwrap();
        let settings =
            ProviderSettings { mock_answers: Some(path.to_str().unwrap().into()), ..Default::default() };
        let e = MockProvider::new(&settings).unwrap_err();
        assert!(
            e.starts_with(&format!("--mock-answers `{}`: ", path.display())) && e.contains("line 1"),
            "{e}"
        );
        std::fs::remove_file(&path).unwrap();
        let e = MockProvider::new(&settings).unwrap_err();
        assert_eq!(e, format!("cannot read --mock-answers `{}`: No such file or directory", path.display()));
        std::fs::remove_dir(&dir).unwrap();
    }
}
