//! The `replay` provider (book: reference/models.md): answers from a cassette (`cassette.rs`,
//! `--cassette FILE`), offline, exactly as recorded. For each request it
//! builds what the recorded provider would send with the run's settings,
//! keys it, and answers with the entry of that key and occurrence — the
//! n-th time the run asks the same request (counted by the machine, across
//! resume) gets the answer recorded for the n-th time.
//!
//! The settings a run does not give are the recording's (book: reference/models.md), so
//! that `--provider replay --cassette FILE` alone re-runs it: the model,
//! the sampling, the token limit and the template, read from a recorded
//! request ([`recorded_settings`], which `settings::resolve` fills in), and
//! the endpoint's path ([`recorded_base`]). A setting given is the run's,
//! and takes part in the key as usual.
//!
//! A miss is a failure naming the nearest recorded entry (the one with the
//! fewest differences, an array item missing or added counting one, among
//! those of the same source line if there are some) and the fields of the
//! request that differ, or, when the request was recorded but fewer times,
//! how many. A replayed answer counts one API_CALLS and its
//! recorded tokens; the retries the recording needed are not replayed.
//!
//! A typed PROMPT_AGENT (book: reference/types.md) needs nothing more: its answer format is
//! part of the body the recorded provider would send, so a plan whose type
//! changed (another schema) misses, naming the schema's fields that differ;
//! its repair request, whose body holds the invalid answer and the errors,
//! is an entry of its own, on the same step and line, replayed when the run
//! asks the same repair (the recorded invalid answer, replayed, gets the
//! same errors).

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::answer::start_of;
use crate::cassette::{self, Cassette, Entry};
use crate::chat::ChatRequest;
use crate::plural;
use crate::settings::{Key, PROVIDERS, ProviderSettings};
use crate::template::Template;
use crate::{PromptError, PromptRequest, PromptResponse, Provider, Wire};
use crate::{completion, ollama, openai};

/// How many differing fields a miss lists.
const SHOWN_DIFFERENCES: usize = 5;

/// Where each live provider's request body holds the settings it was sent
/// with (JSON pointers), which replay takes where the run gives none.
const RECORDED: [(&str, &[(Key, &str)]); 3] = [
    (
        "openai",
        &[
            (Key::Model, "/model"),
            (Key::MaxTokens, "/max_tokens"),
            (Key::Temperature, "/temperature"),
            (Key::Seed, "/seed"),
        ],
    ),
    (
        "ollama",
        &[
            (Key::Model, "/model"),
            (Key::MaxTokens, "/options/num_predict"),
            (Key::Temperature, "/options/temperature"),
            (Key::Seed, "/options/seed"),
            (Key::RepeatPenalty, "/options/repeat_penalty"),
        ],
    ),
    (
        "completion",
        &[
            (Key::Model, "/model"),
            (Key::MaxTokens, "/n_predict"),
            (Key::MaxTokens, "/max_tokens"),
            (Key::Temperature, "/temperature"),
            (Key::Seed, "/seed"),
            (Key::RepeatPenalty, "/repeat_penalty"),
        ],
    ),
];

/// The host of [`recorded_base`]: replay sends nothing, and no cassette
/// records the server's address.
const RECORDED_HOST: &str = "http://recorded.invalid";

/// The settings the cassette's requests were sent with, as a flag would
/// give them, read from its first entry's body: the model, the token
/// limit, the sampling and, for `completion`, the template its prompt was
/// rendered with. Nothing for an empty cassette or one of `mock`'s answers.
pub fn recorded_settings(cassette: &Cassette) -> Vec<(Key, String)> {
    let Some(entry) = cassette.entries.first() else { return Vec::new() };
    let fields =
        RECORDED.iter().find(|(provider, _)| *provider == entry.provider).map_or(&[][..], |(_, f)| f);
    let mut found: Vec<(Key, String)> = fields
        .iter()
        .filter_map(|(key, at)| {
            let value = entry.request.pointer(at)?;
            Some((*key, value.as_str().map_or_else(|| value.to_string(), str::to_string)))
        })
        .collect();
    let prompt = entry.request.get("prompt").and_then(Value::as_str);
    if let Some(name) = prompt.filter(|_| entry.provider == "completion").and_then(Template::name_of_prompt) {
        found.push((Key::Template, name.to_string()));
    }
    found
}

/// A base URL under which `entry`'s provider asks `entry`'s endpoint, for
/// a run that gives no `--base-url`: the recorded path is part of the key
/// (`/v1/completions`, a proxy's `/api/v1/chat/completions`).
fn recorded_base(entry: &Entry) -> Option<String> {
    let path = match entry.provider.as_str() {
        "openai" => openai::PATH,
        "ollama" => ollama::PATH,
        "completion" if entry.endpoint.ends_with(completion::Api::OpenAi.path()) => {
            completion::Api::OpenAi.path()
        }
        "completion" => completion::Api::LlamaCpp.path(),
        _ => return None,
    };
    let base = entry.endpoint.strip_suffix(path)?;
    Some(format!("{RECORDED_HOST}{base}"))
}

pub struct Replay {
    /// The cassette's path, for messages.
    path: String,
    cassette: Cassette,
    /// (key, occurrence) → the entry's index.
    index: HashMap<(String, u32), usize>,
    /// The providers the cassette was recorded with, built with the run's
    /// settings: what they would send is what is looked up.
    recorded_with: Vec<Box<dyn Provider>>,
}

impl Replay {
    pub fn new(settings: &ProviderSettings) -> Result<Replay, String> {
        let path = settings.cassette.clone().ok_or(
            "the replay provider needs a cassette: --cassette FILE (or TISS_CASSETTE, or cassette in tiss.toml), \
             a file that a run with --record wrote",
        )?;
        let cassette = Cassette::read(Path::new(&path), "--cassette")?;
        let mut recorded_with: Vec<Box<dyn Provider>> = Vec::new();
        for entry in &cassette.entries {
            if recorded_with.iter().any(|p| p.name() == entry.provider) {
                continue;
            }
            let live = PROVIDERS.iter().any(|(name, _)| *name == entry.provider && *name != "replay");
            if !live {
                return Err(format!(
                    "--cassette `{path}`: entry of line {} was recorded with `{}`, which is not a live provider",
                    entry.line, entry.provider
                ));
            }
            let base_url = settings.base_url.clone().or_else(|| recorded_base(entry));
            let live = ProviderSettings { provider: entry.provider.clone(), base_url, ..settings.clone() };
            let provider = crate::build(&live).map_err(|e| {
                format!(
                    "--cassette `{path}` was recorded with the {} provider, and replay asks what it would ask, \
                     with this run's settings: {e}",
                    entry.provider
                )
            })?;
            recorded_with.push(provider);
        }
        let index =
            cassette.entries.iter().enumerate().map(|(n, e)| ((e.key.clone(), e.occurrence), n)).collect();
        Ok(Replay { path, cassette, index, recorded_with })
    }

    /// Why nothing answers `request`, whose wire and key are `asked`
    /// (one per provider the cassette was recorded with).
    fn miss(&self, request: &PromptRequest, asked: &[(&str, Wire, String)]) -> String {
        let path = &self.path;
        let Some((provider, wire, key)) = asked.first() else {
            return format!(
                "the cassette `{path}` has no entries: record one with --record FILE and a live provider"
            );
        };
        let what = if request.repair.is_some() { "the repair request" } else { "the request" };
        let where_ =
            format!("{what} of line {} ({provider} {})", request.line, shown_endpoint(&wire.endpoint));
        // Recorded, but fewer times than the run asks it.
        for (provider, _, key) in asked {
            let recorded = self.cassette.entries.iter().filter(|e| e.key == *key).count();
            if recorded > 0 {
                return format!(
                    "the cassette `{path}` has {} of {where_} and this run asks it again (time {}): the \
                     recorded run asked it fewer times; record it again (key {}, {provider})",
                    plural(recorded as u64, "answer"),
                    u64::from(request.occurrence) + 1,
                    &key[..12]
                );
            }
        }
        let differences = |entry: &Entry| -> Vec<String> {
            let Some((_, wire, _)) = asked.iter().find(|(p, _, _)| *p == entry.provider) else {
                return vec![format!(
                    "provider (recorded `{}`, this run asks none of that kind)",
                    entry.provider
                )];
            };
            let mut out = Vec::new();
            if entry.endpoint != wire.endpoint {
                out.push(format!(
                    "endpoint (recorded `{}`, now `{}`)",
                    shown_endpoint(&entry.endpoint),
                    shown_endpoint(&wire.endpoint)
                ));
            }
            diff(&entry.request, &wire.body, &mut String::new(), &mut out);
            out
        };
        let same_line: Vec<&Entry> =
            self.cassette.entries.iter().filter(|e| e.line == request.line).collect();
        let candidates =
            if same_line.is_empty() { self.cassette.entries.iter().collect() } else { same_line };
        let nearest = candidates
            .into_iter()
            .enumerate()
            .map(|(n, e)| {
                // Items missing or added weigh one each: a repair request is
                // nearer the recorded repair than the request it repairs.
                let gap = asked
                    .iter()
                    .find(|(p, _, _)| *p == e.provider)
                    .map_or(0, |(_, wire, _)| length_gap(&e.request, &wire.body));
                (differences(e).len() + gap, n, e)
            })
            .min_by_key(|(count, n, _)| (*count, *n))
            .map(|(_, _, e)| e);
        let Some(entry) = nearest else {
            return format!("the cassette `{path}` has no answer for {where_} (key {})", &key[..12]);
        };
        let mut found = differences(entry);
        let more = found.len().saturating_sub(SHOWN_DIFFERENCES);
        found.truncate(SHOWN_DIFFERENCES);
        let and_more = if more > 0 { format!("; and {more} more") } else { String::new() };
        format!(
            "the cassette `{path}` has no answer for {where_} (key {}); the nearest recorded request, of line {} \
             (step `{}`), differs in: {}{and_more}. Replay with the settings it was recorded with, or record \
             it again",
            &key[..12],
            entry.line,
            entry.step,
            found.join("; ")
        )
    }
}

impl Provider for Replay {
    fn name(&self) -> &str {
        "replay"
    }

    fn complete(
        &mut self,
        request: &PromptRequest,
        shown: &mut dyn FnMut(&str),
    ) -> Result<PromptResponse, PromptError> {
        let failed = |message: String| PromptError { message, requests: 0, out_of_calls: false };
        let mut asked = Vec::with_capacity(self.recorded_with.len());
        for provider in &self.recorded_with {
            let wire = provider.wire(request).map_err(failed)?;
            let key = cassette::key(provider.name(), &wire);
            asked.push((provider.name(), wire, key));
        }
        for (_, _, key) in &asked {
            if let Some(&n) = self.index.get(&(key.clone(), request.occurrence)) {
                let recorded = &self.cassette.entries[n].response;
                shown(&recorded.text);
                return Ok(PromptResponse {
                    text: recorded.text.clone(),
                    tokens: recorded.usage.tokens,
                    estimated: recorded.usage.estimated,
                    requests: 1,
                    finish_reason: recorded.finish_reason.clone(),
                });
            }
        }
        Err(failed(self.miss(request, &asked)))
    }

    /// A cassette holds the answers of a run's PROMPT_AGENTs, looked up by
    /// their place in the run; a conversation of `tissc generate` has none.
    fn chat(&mut self, _: &ChatRequest, _: &mut dyn FnMut(&str)) -> Result<PromptResponse, PromptError> {
        Err(PromptError {
            message: format!(
                "the replay provider answers the PROMPT_AGENTs of a `tissvm run` recorded in `{}`; it has no \
                 answers for other requests (tissc generate): use a live provider",
                self.path
            ),
            requests: 0,
            out_of_calls: false,
        })
    }

    /// What is looked up: the request of the provider the cassette was
    /// recorded with (the first, if several).
    fn wire(&self, request: &PromptRequest) -> Result<Wire, String> {
        match self.recorded_with.first() {
            Some(provider) => provider.wire(request),
            None => Err(format!("the cassette `{}` has no entries", self.path)),
        }
    }
}

fn shown_endpoint(endpoint: &str) -> &str {
    if endpoint.is_empty() { "(no endpoint)" } else { endpoint }
}

/// The fields where `recorded` and `now` differ, as paths
/// (`messages[1].content`) with both values.
fn diff(recorded: &Value, now: &Value, path: &mut String, out: &mut Vec<String>) {
    let field = |path: &str| if path.is_empty() { "the request".to_string() } else { path.to_string() };
    match (recorded, now) {
        (Value::Object(a), Value::Object(b)) => {
            let keys = a.keys().chain(b.keys().filter(|k| !a.contains_key(*k)));
            for key in keys {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => diff(x, y, path, out),
                    (Some(x), None) => out.push(format!("{path} (recorded {}, now absent)", shorten(x))),
                    (None, Some(y)) => out.push(format!("{path} (recorded absent, now {})", shorten(y))),
                    (None, None) => {}
                }
                path.truncate(len);
            }
        }
        // Item by item, then the count if it differs (a repair request has
        // two messages more than the request it repairs).
        (Value::Array(a), Value::Array(b)) => {
            for (n, (x, y)) in a.iter().zip(b).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{n}]"));
                diff(x, y, path, out);
                path.truncate(len);
            }
            if a.len() != b.len() {
                out.push(format!(
                    "{} (recorded {}, now {})",
                    field(path),
                    plural(a.len() as u64, "item"),
                    b.len()
                ));
            }
        }
        // A long text (a message) from where it differs.
        (Value::String(a), Value::String(b)) if a != b && a.chars().count().max(b.chars().count()) > 40 => {
            out.push(format!("{} ({})", field(path), where_strings_differ(a, b)))
        }
        (a, b) if a != b => {
            out.push(format!("{} (recorded {}, now {})", field(path), shorten(a), shorten(b)))
        }
        _ => {}
    }
}

/// How many array items one of `a` and `b` has that the other lacks, at
/// the same places.
fn length_gap(a: &Value, b: &Value) -> usize {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            a.iter().filter_map(|(k, x)| b.get(k).map(|y| length_gap(x, y))).sum()
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len().abs_diff(b.len()) + a.iter().zip(b).map(|(x, y)| length_gap(x, y)).sum::<usize>()
        }
        _ => 0,
    }
}

/// Two texts from where they first differ: `from character 57: recorded
/// "…", now "…"`.
fn where_strings_differ(a: &str, b: &str) -> String {
    let at = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let start = at.saturating_sub(10);
    let part = |s: &str| {
        let piece: String = s.chars().skip(start).take(50).collect();
        let lead = if start > 0 { "…" } else { "" };
        let tail = if s.chars().count() > start + 50 { "…" } else { "" };
        format!("{lead}{}{tail}", Value::from(piece))
    };
    format!("from character {}: recorded {}, now {}", at + 1, part(a), part(b))
}

/// A JSON value in a miss report: its first 60 characters.
fn shorten(value: &Value) -> String {
    start_of(&value.to_string(), 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cassette::Recorder;

    fn openai(model: &str, temperature: f64) -> ProviderSettings {
        ProviderSettings {
            provider: "openai".into(),
            model: Some(model.into()),
            base_url: Some("http://127.0.0.1:1/v1".into()),
            temperature,
            ..Default::default()
        }
    }

    fn request(query: &str, line: u32) -> PromptRequest {
        PromptRequest { query: query.into(), step: "Ask".into(), line, ..Default::default() }
    }

    /// A cassette recorded with `settings`, of `answers` (query, line, text), in a temporary file.
    fn recorded(settings: &ProviderSettings, answers: &[(&str, u32, &str)]) -> tempfile_path::Path {
        let live = crate::build(settings).unwrap();
        let path = tempfile_path::Path::new();
        let mut recorder = Recorder::new(path.0.clone(), Cassette::default());
        for (n, (query, line, text)) in answers.iter().enumerate() {
            let occurrence = answers[..n].iter().filter(|(q, _, _)| q == query).count() as u32;
            let request = PromptRequest { occurrence, ..request(query, *line) };
            let response = PromptResponse {
                text: text.to_string(),
                tokens: 5,
                estimated: false,
                requests: 1,
                finish_reason: Some("stop".into()),
            };
            recorder.record(live.name(), live.wire(&request).unwrap(), &request, &response);
        }
        std::fs::write(&path.0, recorder.cassette.to_bytes()).unwrap();
        path
    }

    /// A file removed when dropped.
    mod tempfile_path {
        pub struct Path(pub std::path::PathBuf);
        impl Path {
            pub fn new() -> Path {
                static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
                let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Path(std::env::temp_dir().join(format!("tiss-replay-{}-{n}.json", std::process::id())))
            }
        }
        impl Drop for Path {
            fn drop(&mut self) {
                let _ = std::fs::remove_file(&self.0);
            }
        }
    }

    fn replay(settings: &ProviderSettings, cassette: &tempfile_path::Path) -> Replay {
        let settings = ProviderSettings {
            provider: "replay".into(),
            cassette: Some(cassette.0.to_str().unwrap().into()),
            ..settings.clone()
        };
        Replay::new(&settings).unwrap_or_else(|e| panic!("{e}"))
    }

    fn ask(replay: &mut Replay, query: &str, line: u32) -> Result<String, String> {
        ask_again(replay, query, line, 0)
    }

    fn ask_again(replay: &mut Replay, query: &str, line: u32, occurrence: u32) -> Result<String, String> {
        let request = PromptRequest { occurrence, ..request(query, line) };
        replay.complete(&request, &mut |_| {}).map(|r| r.text).map_err(|e| e.message)
    }

    #[test]
    fn repeats_replay_in_order_then_miss_with_the_count() {
        let settings = openai("m", 0.0);
        let file = recorded(&settings, &[("q", 3, "one"), ("q", 3, "two"), ("other", 4, "three")]);
        let mut replay = replay(&settings, &file);
        assert_eq!(ask(&mut replay, "q", 3).unwrap(), "one");
        assert_eq!(ask(&mut replay, "other", 4).unwrap(), "three");
        assert_eq!(ask_again(&mut replay, "q", 3, 1).unwrap(), "two");
        let e = ask_again(&mut replay, "q", 3, 2).unwrap_err();
        assert!(e.contains("has 2 answers of the request of line 3") && e.contains("(time 3)"), "{e}");
    }

    #[test]
    fn a_miss_names_the_nearest_entry_and_what_differs() {
        let long = "Name the colour of the sky at noon on a clear day, in one word.";
        let file = recorded(&openai("m", 0.0), &[(long, 3, "blue"), ("Name a colour.", 5, "red")]);
        let mut other_model = replay(&openai("n", 0.5), &file);
        let e = ask(&mut other_model, "Name a colour.", 5).unwrap_err();
        assert!(e.contains("nearest recorded request, of line 5 (step `Ask`)"), "{e}");
        assert!(
            e.contains(r#"model (recorded "m", now "n")"#)
                && e.contains("temperature (recorded 0.0, now 0.5)"),
            "{e}"
        );
        let mut same = replay(&openai("m", 0.0), &file);
        // Another query on a line of its own: the entry with the fewest differences.
        let e = ask(&mut same, &long.replace("noon", "dusk"), 9).unwrap_err();
        assert!(e.contains("of line 3"), "{e}");
        let expected = r#"messages[1].content (from character 31: recorded …"he sky at noon on a clear day, in one word.", now …"he sky at dusk on a clear day, in one word.")"#;
        assert!(e.contains(expected), "{e}");
    }

    fn typed(schema: Value, repair: Option<&str>) -> PromptRequest {
        PromptRequest {
            answer_format: Some(crate::AnswerFormat { name: "Colour".into(), schema }),
            repair: repair
                .map(|answer| crate::Repair { answer: answer.into(), errors: "$: not JSON".into() }),
            ..request("Name a colour.", 5)
        }
    }

    #[test]
    fn a_typed_prompt_and_its_repair_are_entries_of_their_own_and_another_schema_misses() {
        let settings = openai("m", 0.0);
        let live = crate::build(&settings).unwrap();
        let file = tempfile_path::Path::new();
        let mut recorder = Recorder::new(file.0.clone(), Cassette::default());
        let schema = serde_json::json!({"type": "string", "enum": ["red", "blue"]});
        let answered = |text: &str| PromptResponse {
            text: text.into(),
            tokens: 5,
            estimated: false,
            requests: 1,
            finish_reason: Some("stop".into()),
        };
        // The repair keeps the step, the line and (its body being another) occurrence 0.
        for (request, text) in
            [(typed(schema.clone(), None), "crimson"), (typed(schema.clone(), Some("crimson")), "\"red\"")]
        {
            recorder.record(live.name(), live.wire(&request).unwrap(), &request, &answered(text));
        }
        let entries = &recorder.cassette.entries;
        assert_eq!(entries.len(), 2);
        assert_ne!(entries[0].key, entries[1].key);
        assert_eq!((entries[1].occurrence, entries[1].line, entries[1].step.as_str()), (0, 5, "Ask"));
        std::fs::write(&file.0, recorder.cassette.to_bytes()).unwrap();

        let mut answers = replay(&settings, &file);
        let mut ask = |request: &PromptRequest| {
            answers.complete(request, &mut |_| {}).map(|r| r.text).map_err(|e| e.message)
        };
        assert_eq!(ask(&typed(schema.clone(), None)).unwrap(), "crimson");
        assert_eq!(ask(&typed(schema.clone(), Some("crimson"))).unwrap(), "\"red\"");
        // The same query with another schema: a miss, the schema named.
        let other = serde_json::json!({"type": "string", "enum": ["red", "green"]});
        let e = ask(&typed(other.clone(), None)).unwrap_err();
        assert!(e.contains("has no answer for the request of line 5"), "{e}");
        assert!(
            e.contains(r#"response_format.json_schema.schema.enum[1] (recorded "blue", now "green")"#),
            "{e}"
        );
        // Untyped: the format is absent.
        let e = ask(&request("Name a colour.", 5)).unwrap_err();
        assert!(e.contains("response_format (recorded {\"type\":\"json_schema\""), "{e}");
        assert!(e.contains("now absent)"), "{e}");
        // A repair of another answer: the nearest is the recorded repair.
        let e = ask(&typed(schema.clone(), Some("scarlet"))).unwrap_err();
        assert!(e.contains("has no answer for the repair request of line 5"), "{e}");
        assert!(e.contains(r#"messages[2].content (recorded "crimson", now "scarlet")"#), "{e}");

        // A repair whose first request was recorded alone: two messages more.
        let mut only_first = recorder.cassette.clone();
        only_first.entries.truncate(1);
        std::fs::write(&file.0, only_first.to_bytes()).unwrap();
        let e = replay(&settings, &file).complete(&typed(schema, Some("crimson")), &mut |_| {}).unwrap_err();
        assert!(e.message.contains("messages (recorded 2 items, now 4)"), "{}", e.message);
    }

    /// Every live provider's request gives back the settings it was sent
    /// with, and a replay with those and no base URL asks its endpoint.
    #[test]
    fn the_recorded_settings_and_endpoint_are_read_back_from_each_providers_request() {
        let sent = |provider: &str, base: &str, template: Option<&str>| ProviderSettings {
            provider: provider.into(),
            base_url: Some(base.into()),
            model: Some("m".into()),
            max_tokens: 64,
            temperature: 0.5,
            seed: Some(7),
            template: template.map(str::to_string),
            ..Default::default()
        };
        for (settings, template) in [
            (sent("openai", "http://h/proxy/v1", None), None),
            (sent("ollama", "http://h", None), None),
            (sent("completion", "http://h", Some("llama2")), Some("llama2")),
            (sent("completion", "http://h/v1", Some("alpaca")), Some("alpaca")),
        ] {
            let file = recorded(&settings, &[("q", 3, "a")]);
            let cassette = Cassette::read(&file.0, "--cassette").unwrap();
            let mut expected = vec![
                (Key::Model, "m".to_string()),
                (Key::MaxTokens, "64".into()),
                (Key::Temperature, "0.5".into()),
                (Key::Seed, "7".into()),
            ];
            expected.extend(template.map(|t| (Key::Template, t.to_string())));
            let mut found = recorded_settings(&cassette);
            found.sort_by_key(|(key, _)| Key::ALL.iter().position(|k| k == key));
            assert_eq!(found, expected, "{}", settings.provider);
            // The recording's settings, but no base URL: its endpoint all the same.
            let mut again = ProviderSettings::default();
            for (key, text) in &found {
                again.set(*key, text).unwrap();
            }
            let mut replay = replay(&again, &file);
            assert_eq!(ask(&mut replay, "q", 3).as_deref(), Ok("a"), "{}", settings.provider);
        }
    }

    #[test]
    fn replay_needs_a_readable_cassette_and_the_recorded_providers_settings() {
        let e =
            Replay::new(&ProviderSettings { provider: "replay".into(), ..Default::default() }).err().unwrap();
        assert!(e.contains("needs a cassette: --cassette FILE"), "{e}");
        let file = recorded(&openai("m", 0.0), &[("q", 1, "a")]);
        let settings = ProviderSettings {
            provider: "replay".into(),
            cassette: Some(file.0.to_str().unwrap().into()),
            ..Default::default()
        };
        let e = Replay::new(&settings).err().unwrap();
        assert!(e.contains("recorded with the openai provider") && e.contains("needs a model"), "{e}");
        // An entry of a provider that asks no model (its key right, so only that is wrong).
        let mut recorder = Recorder::new(file.0.clone(), Cassette::default());
        let wire = Wire { endpoint: String::new(), body: serde_json::json!({}) };
        recorder.record(
            "replay",
            wire,
            &request("q", 4),
            &PromptResponse {
                text: "a".into(),
                tokens: 1,
                estimated: false,
                requests: 1,
                finish_reason: None,
            },
        );
        std::fs::write(&file.0, recorder.cassette.to_bytes()).unwrap();
        let e = Replay::new(&ProviderSettings { model: Some("m".into()), ..settings.clone() }).err().unwrap();
        assert!(
            e.contains("entry of line 4 was recorded with `replay`, which is not a live provider"),
            "{e}"
        );
        std::fs::write(&file.0, "{\"version\": 7, \"entries\": []}").unwrap();
        let e = Replay::new(&ProviderSettings { model: Some("m".into()), ..settings }).err().unwrap();
        assert!(e.starts_with("--cassette `") && e.contains("version 7"), "{e}");
    }
}
