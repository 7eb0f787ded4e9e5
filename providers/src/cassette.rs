//! Cassettes (book: reference/models.md): a run's answers as recorded by `--record`, which the
//! `replay` provider (`replay.rs`) answers from, offline. A cassette is one
//! JSON document, version [`VERSION`]:
//!
//! ```json
//! {"version": 1, "entries": [{"key": "…", "occurrence": 0, "provider": "openai",
//!   "endpoint": "/v1/chat/completions", "request": {…the body sent…},
//!   "response": {"text": "…", "usage": {"tokens": 74, "estimated": false}, "finish_reason": "stop"},
//!   "step": "Ask", "line": 5}]}
//! ```
//!
//! `key` is the SHA-256 of the canonical JSON ([`canonical`]: keys sorted,
//! no spaces) of `{"endpoint", "provider", "request"}`, so any change to what
//! would be sent is another key, while the server's address (not in the
//! endpoint path) is not part of it; `occurrence` is how many times the run
//! had asked the same request before (0 for the first; the machine counts
//! them, across resume: [`PromptRequest::occurrence`]). Only answers are recorded:
//! never headers (the key travels in one), never a failed request.
//!
//! Reading checks everything a replay relies on: the version, each entry's
//! fields, each key against its entry (a request edited by hand, or a damaged
//! file, is refused rather than answered), no (key, occurrence) twice.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use tiss_support::io_message::io_message;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::{PromptRequest, PromptResponse, Wire};

/// The cassette format this build reads and writes.
pub const VERSION: u64 = 1;

/// The largest cassette read: contexts (a RUN's whole output) make entries large.
const MAX_FILE_BYTES: u64 = 1 << 30;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cassette {
    pub version: u64,
    pub entries: Vec<Entry>,
}

impl Default for Cassette {
    fn default() -> Cassette {
        Cassette { version: VERSION, entries: Vec::new() }
    }
}

/// One recorded answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub key: String,
    pub occurrence: u32,
    pub provider: String,
    pub endpoint: String,
    pub request: Value,
    pub response: Recorded,
    /// The PROMPT_AGENT's step path and source line, for people and for the
    /// miss report; not part of the key.
    pub step: String,
    pub line: u32,
}

/// What the provider answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recorded {
    pub text: String,
    pub usage: Usage,
    pub finish_reason: Option<String>,
}

/// The tokens the answer counted, as the run counted them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    pub tokens: u64,
    /// The server reported none: `tokens` is the VM's estimate.
    pub estimated: bool,
}

/// The key of a request: hex SHA-256 of the canonical JSON of
/// `{"endpoint", "provider", "request"}`.
pub fn key(provider: &str, wire: &Wire) -> String {
    let whole = serde_json::json!({"provider": provider, "endpoint": wire.endpoint, "request": wire.body});
    let mut text = String::new();
    canonical(&whole, &mut text);
    Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// `value` as canonical JSON: object keys sorted by their bytes, no
/// whitespace, strings and numbers as serde_json writes them.
pub fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (n, key) in keys.into_iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                out.push_str(&Value::from(key.as_str()).to_string());
                out.push(':');
                canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        leaf => out.push_str(&leaf.to_string()),
    }
}

impl Cassette {
    /// Reads and checks the cassette at `path`; `flag` names where the path
    /// came from in messages (`--cassette`).
    pub fn read(path: &Path, flag: &str) -> Result<Cassette, String> {
        use std::io::Read;
        let name = path.display();
        let file = std::fs::File::open(path)
            .map_err(|e| format!("cannot read {flag} `{name}`: {}", io_message(&e)))?;
        let mut bytes = Vec::new();
        file.take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read {flag} `{name}`: {}", io_message(&e)))?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(format!("{flag} `{name}` is larger than {MAX_FILE_BYTES} bytes"));
        }
        Cassette::parse(&bytes).map_err(|e| format!("{flag} `{name}`: {e}"))
    }

    /// A cassette from its bytes, checked.
    pub fn parse(bytes: &[u8]) -> Result<Cassette, String> {
        // The version first, so that another version is named as such
        // rather than as a field this one does not know.
        let head: Value =
            serde_json::from_slice(bytes).map_err(|e| format!("not a cassette (not JSON: {e})"))?;
        match head.get("version") {
            Some(v) if v.as_u64() == Some(VERSION) => {}
            Some(v) => {
                return Err(format!(
                    "a cassette of version {v}, and this tissvm reads version {VERSION}: record it again with \
                     this tissvm"
                ));
            }
            None => {
                return Err(format!(
                    "not a cassette: no \"version\" (a cassette is {{\"version\": {VERSION}, \"entries\": [...]}})"
                ));
            }
        }
        drop(head);
        let cassette: Cassette =
            serde_json::from_slice(bytes).map_err(|e| format!("not a valid cassette: {e}"))?;
        let mut seen: HashMap<(&str, u32), usize> = HashMap::new();
        for (n, entry) in cassette.entries.iter().enumerate() {
            let wire = Wire { endpoint: entry.endpoint.clone(), body: entry.request.clone() };
            if key(&entry.provider, &wire) != entry.key {
                return Err(format!(
                    "entry {} (line {}): its key is not the SHA-256 of its provider, endpoint and request, so \
                     the file was changed by hand or damaged; record it again",
                    n + 1,
                    entry.line
                ));
            }
            if let Some(first) = seen.insert((&entry.key, entry.occurrence), n) {
                return Err(format!(
                    "entry {} repeats the key and occurrence {} of entry {}",
                    n + 1,
                    entry.occurrence,
                    first + 1
                ));
            }
        }
        Ok(cassette)
    }

    /// The cassette as written: pretty JSON, entries in the order recorded.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }
}

/// A cassette being recorded (`--record`): a fresh one, or the file a
/// resumed run goes on with. The caller writes [`Recorder::cassette`] out.
#[derive(Debug, Clone)]
pub struct Recorder {
    /// Where it is written (absolute).
    pub path: PathBuf,
    pub cassette: Cassette,
}

impl Recorder {
    /// Records into `path`, after the entries of `cassette` (empty for a
    /// fresh run; the file's for a resumed one).
    pub fn new(path: PathBuf, cassette: Cassette) -> Recorder {
        Recorder { path, cassette }
    }

    /// Records `response`, the answer of `provider` to `request`, sent as
    /// `wire`. An entry of the same key and occurrence is replaced: the run
    /// went on from a snapshot older than the cassette (a debugger `save`).
    pub fn record(&mut self, provider: &str, wire: Wire, request: &PromptRequest, response: &PromptResponse) {
        let key = key(provider, &wire);
        let occurrence = request.occurrence;
        let entry = Entry {
            key,
            occurrence,
            provider: provider.into(),
            endpoint: wire.endpoint,
            request: wire.body,
            response: Recorded {
                text: response.text.clone(),
                usage: Usage { tokens: response.tokens, estimated: response.estimated },
                finish_reason: response.finish_reason.clone(),
            },
            step: request.step.clone(),
            line: request.line,
        };
        let entries = &mut self.cassette.entries;
        match entries.iter_mut().find(|e| e.key == entry.key && e.occurrence == occurrence) {
            Some(old) => *old = entry,
            None => entries.push(entry),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn wire(body: Value) -> Wire {
        Wire { endpoint: "/v1/chat/completions".into(), body }
    }

    fn response(text: &str) -> PromptResponse {
        PromptResponse {
            text: text.into(),
            tokens: 9,
            estimated: false,
            requests: 1,
            finish_reason: Some("stop".into()),
        }
    }

    #[test]
    fn canonical_json_sorts_keys_and_has_no_spaces() {
        let mut out = String::new();
        canonical(&json!({"b": [1, {"z": "é\n", "a": null}], "a": 0.5}), &mut out);
        assert_eq!(out, r#"{"a":0.5,"b":[1,{"a":null,"z":"é\n"}]}"#);
    }

    #[test]
    fn the_key_changes_with_anything_sent_and_not_with_field_order() {
        let base = key("openai", &wire(json!({"model": "m", "temperature": 0.0})));
        assert_eq!(base.len(), 64);
        assert_eq!(base, key("openai", &wire(json!({"temperature": 0.0, "model": "m"}))));
        assert_ne!(base, key("openai", &wire(json!({"model": "n", "temperature": 0.0}))));
        assert_ne!(base, key("openai", &wire(json!({"model": "m", "temperature": 0.5}))));
        assert_ne!(base, key("completion", &wire(json!({"model": "m", "temperature": 0.0}))));
        let other =
            Wire { endpoint: "/v1/completions".into(), body: json!({"model": "m", "temperature": 0.0}) };
        assert_ne!(base, key("openai", &other));
    }

    #[test]
    fn entries_keep_their_occurrence_and_a_rerecorded_one_is_replaced() {
        let mut recorder = Recorder::new("/c.json".into(), Cassette::default());
        let asked =
            |occurrence| PromptRequest { step: "s".into(), line: 3, occurrence, ..Default::default() };
        recorder.record("openai", wire(json!({"q": 1})), &asked(0), &response("a"));
        recorder.record("openai", wire(json!({"q": 1})), &asked(1), &response("b"));
        recorder.record("openai", wire(json!({"q": 2})), &asked(0), &response("c"));
        let occurrences: Vec<u32> = recorder.cassette.entries.iter().map(|e| e.occurrence).collect();
        assert_eq!(occurrences, [0, 1, 0]);
        let mut again =
            Recorder::new("/c.json".into(), Cassette::parse(&recorder.cassette.to_bytes()).unwrap());
        again.record("openai", wire(json!({"q": 1})), &asked(2), &response("d"));
        again.record("openai", wire(json!({"q": 1})), &asked(1), &response("e"));
        let texts: Vec<&str> = again.cassette.entries.iter().map(|e| e.response.text.as_str()).collect();
        assert_eq!(texts, ["a", "e", "c", "d"]);
        assert!(Cassette::parse(&again.cassette.to_bytes()).is_ok());
    }

    #[test]
    fn bad_cassettes_are_refused_in_words() {
        let err = |text: &str| Cassette::parse(text.as_bytes()).unwrap_err();
        assert!(err("{\"version\": 1,").contains("not JSON"), "{}", err("{\"version\": 1,"));
        assert!(err("[]").contains("no \"version\""));
        assert!(
            err(r#"{"version": 2, "entries": []}"#).contains("version 2, and this tissvm reads version 1")
        );
        assert!(err(r#"{"version": 1}"#).contains("missing field `entries`"));
        assert!(err(r#"{"version": 1, "entries": [], "extra": 1}"#).contains("unknown field `extra`"));

        let mut recorder = Recorder::new("/c.json".into(), Cassette::default());
        let request = PromptRequest { line: 7, ..Default::default() };
        recorder.record("openai", wire(json!({"model": "m"})), &request, &response("a"));
        let good = String::from_utf8(recorder.cassette.to_bytes()).unwrap();
        assert!(Cassette::parse(good.as_bytes()).is_ok());
        let edited = good.replace("\"model\": \"m\"", "\"model\": \"x\"");
        assert!(err(&edited).contains("entry 1 (line 7): its key is not the SHA-256"), "{}", err(&edited));
        let mut twice = recorder.cassette;
        twice.entries.push(twice.entries[0].clone());
        let e = Cassette::parse(&twice.to_bytes()).unwrap_err();
        assert!(e.contains("entry 2 repeats the key and occurrence 0 of entry 1"), "{e}");
    }

    #[test]
    fn damaged_cassettes_are_refused_never_a_panic() {
        let mut recorder = Recorder::new("/c.json".into(), Cassette::default());
        let request = PromptRequest { step: "s".into(), line: 2, ..Default::default() };
        recorder.record(
            "openai",
            wire(json!({"model": "m", "messages": [{"content": "é"}]})),
            &request,
            &response("a"),
        );
        let good = recorder.cassette.to_bytes();
        // A deterministic walk of byte edits and cuts (xorshift).
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut refused = 0;
        for round in 0..2000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut bytes = good.clone();
            let at = (seed as usize) % bytes.len();
            bytes[at] = (seed >> 32) as u8;
            if round % 5 == 0 {
                bytes.truncate((seed >> 16) as usize % bytes.len());
            }
            if let Err(e) = Cassette::parse(&bytes) {
                assert!(!e.is_empty());
                refused += 1;
            }
        }
        assert!(refused > 1000, "most edits are caught: {refused}");
    }
}
