//! The `ollama` provider (book: reference/models.md): Ollama's native `POST {base}/api/chat`
//! (default base `http://127.0.0.1:11434`), streamed as NDJSON — one JSON
//! object per line, each with a piece of `message.content`, the last with
//! `done: true` and the usage, `prompt_eval_count` + `eval_count`.
//!
//! The body is the layout's two messages (`layout.rs`) with the sampling
//! settings in `options` (`num_predict` is `--max-tokens`; `--repeat-penalty`,
//! when set, is `repeat_penalty` with `repeat_last_n`), its fields in a
//! fixed order, so the same inputs send the same bytes. A line `{"error":
//! "..."}` — how Ollama reports a failure once the stream has begun — is a
//! failure with the server's text. A last object without both counts (older
//! servers leave `prompt_eval_count` out when the prompt was cached) gets
//! the layout's estimate, marked as one, rather than a count too low.
//!
//! A typed PROMPT_AGENT (book: reference/types.md) adds `"format": SCHEMA` after the
//! messages: Ollama constrains the answer to that JSON Schema. Its repair
//! request is the same body with two more messages. A GBNF grammar is
//! refused (the API has no field for one), so a request with both is too.

use serde_json::{Value, json};

use crate::answer::{self, Answer, Parser, shorten};
use crate::chat::ChatRequest;
use crate::http::{self, Client, Policy, Post};
use crate::settings::{OLLAMA_BASE_URL, ProviderSettings, REPEAT_LAST_N};
use crate::{PromptError, PromptRequest, PromptResponse, Provider, Wire};

/// The endpoint's path under the base URL.
pub const PATH: &str = "/api/chat";

pub struct Ollama {
    client: Client,
    url: String,
    model: String,
    settings: ProviderSettings,
}

impl Ollama {
    pub fn new(settings: &ProviderSettings) -> Result<Ollama, String> {
        let model = settings.model.clone().ok_or(
            "the ollama provider needs a model, as `ollama list` names it: --model NAME (or TISS_MODEL, or \
             model in tiss.toml)",
        )?;
        let base = settings.base_url.as_deref().unwrap_or(OLLAMA_BASE_URL);
        if base.ends_with("/v1") {
            return Err(format!(
                "--base-url `{base}` is Ollama's OpenAI-compatible API; the ollama provider talks to the native \
                 one at {{base}}/api/chat: give the base without /v1 (`{}`), or use --provider openai with this one",
                base.trim_end_matches("/v1")
            ));
        }
        Ok(Ollama {
            client: Client::new(Policy::of(settings)),
            url: format!("{base}{PATH}"),
            model,
            settings: settings.clone(),
        })
    }

    /// The request body: model, the messages (a PROMPT_AGENT's are the
    /// layout's two, four for a repair), the answer format if there is one,
    /// streaming, the sampling options.
    pub fn body(&self, request: &ChatRequest) -> Vec<u8> {
        self.body_json(request).to_string().into_bytes()
    }

    fn body_json(&self, request: &ChatRequest) -> Value {
        let mut options = json!({
            "num_predict": self.settings.max_tokens,
            "temperature": self.settings.temperature,
        });
        if let Some(seed) = self.settings.seed {
            options["seed"] = json!(seed);
        }
        if let Some(penalty) = self.settings.repeat_penalty {
            options["repeat_penalty"] = json!(penalty);
            options["repeat_last_n"] = json!(REPEAT_LAST_N);
        }
        let mut body = json!({
            "model": self.model,
            "messages": request.messages_json(),
        });
        if let Some(format) = &request.answer_format {
            body["format"] = format.schema.clone();
        }
        body["stream"] = json!(true);
        body["options"] = options;
        body
    }

    /// A grammar is refused: Ollama's API has no place for one.
    fn check(request: &ChatRequest) -> Result<(), String> {
        request.check_constraints()?;
        match request.grammar {
            Some(_) => Err("Ollama's /api/chat takes no GBNF grammar; use --provider completion against a \
                            llama.cpp server for grammar-constrained answers"
                .into()),
            None => Ok(()),
        }
    }
}

impl Provider for Ollama {
    fn name(&self) -> &str {
        "ollama"
    }

    fn chat(
        &mut self,
        request: &ChatRequest,
        shown: &mut dyn FnMut(&str),
    ) -> Result<PromptResponse, PromptError> {
        Ollama::check(request).map_err(|message| PromptError {
            message,
            requests: 0,
            out_of_calls: false,
        })?;
        let body = self.body(request);
        let key = self.settings.api_key();
        let post = Post {
            url: &self.url,
            body: &body,
            accept: "application/x-ndjson",
            key: key.as_deref(),
            requests_allowed: request.requests_allowed,
        };
        answer::fetch(&mut self.client, &post, Stream::default(), &request.messages, shown)
    }

    fn wire(&self, request: &PromptRequest) -> Result<Wire, String> {
        let request = ChatRequest::from_prompt(request);
        Ollama::check(&request)?;
        Ok(Wire { endpoint: http::path_of(&self.url).into(), body: self.body_json(&request) })
    }
}

/// The objects of one answer as they come.
#[derive(Debug, Default)]
struct Stream {
    text: String,
    usage: Option<u64>,
    objects: u32,
    done: bool,
    done_reason: Option<String>,
}

impl Parser for Stream {
    fn line(&mut self, line: &str, shown: &mut dyn FnMut(&str)) -> Result<(), String> {
        if line.trim().is_empty() || self.done {
            return Ok(());
        }
        let object: Value = serde_json::from_str(line)
            .map_err(|_| format!("the answer has a line that is not JSON: `{}`", shorten(line)))?;
        self.objects += 1;
        if let Some(error) = object.get("error").filter(|e| !e.is_null()) {
            let text = error.as_str().map_or_else(|| error.to_string(), str::to_string);
            let text = http::server_error_text(&text).unwrap_or(text);
            return Err(format!("the server reported an error in its answer: {text}"));
        }
        if let Some(piece) = object.pointer("/message/content").and_then(Value::as_str) {
            shown(piece);
            self.text.push_str(piece);
        }
        if object.get("done").and_then(Value::as_bool) == Some(true) {
            self.done = true;
            self.done_reason = object.get("done_reason").and_then(Value::as_str).map(str::to_string);
            let count = |name: &str| object.get(name).and_then(Value::as_u64);
            if let (Some(prompt), Some(answer)) = (count("prompt_eval_count"), count("eval_count")) {
                self.usage = Some(prompt.saturating_add(answer));
            }
        }
        Ok(())
    }

    fn finish(self, _: &mut dyn FnMut(&str)) -> Result<Answer, String> {
        if !self.done {
            let what = match self.objects {
                0 => "no objects".to_string(),
                n => format!("{n} objects"),
            };
            return Err(format!("the answer ended early ({what}, none with \"done\": true)"));
        }
        Ok(Answer { text: self.text, usage: self.usage, finish_reason: self.done_reason })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout;

    fn provider(seed: Option<u64>) -> Ollama {
        let settings = ProviderSettings {
            provider: "ollama".into(),
            model: Some("llama3.2".into()),
            seed,
            ..Default::default()
        };
        Ollama::new(&settings).unwrap()
    }

    fn prompt() -> PromptRequest {
        PromptRequest {
            query: "Say hi.".into(),
            context: vec![("X".into(), "1".into())],
            ..Default::default()
        }
    }

    fn request() -> ChatRequest {
        ChatRequest::from_prompt(&prompt())
    }

    #[test]
    fn the_body_is_the_documented_layout_byte_for_byte() {
        let ollama = provider(None);
        assert_eq!(ollama.url, "http://127.0.0.1:11434/api/chat");
        let body = ollama.body(&request());
        let expected = format!(
            concat!(
                r#"{{"model":"llama3.2","messages":[{{"role":"system","content":"{}"}},"#,
                r#"{{"role":"user","content":"Say hi.\n\n### X\n```\n1\n```"}}],"stream":true,"#,
                r#""options":{{"num_predict":1024,"temperature":0.0}}}}"#
            ),
            layout::SYSTEM
        );
        // What a cassette keys is what is sent; a grammar is refused.
        let wire = ollama.wire(&prompt()).unwrap();
        assert_eq!((wire.endpoint.as_str(), wire.body.to_string()), ("/api/chat", expected.clone()));
        let grammar = PromptRequest { grammar: Some("root ::= \"x\"".into()), ..prompt() };
        assert!(ollama.wire(&grammar).unwrap_err().contains("takes no GBNF grammar"));
        assert_eq!(String::from_utf8(body).unwrap(), expected);
        let with_seed = provider(Some(7)).body(&request());
        assert!(String::from_utf8(with_seed).unwrap().ends_with(r#""temperature":0.0,"seed":7}}"#));
        let mut penalised = provider(Some(7));
        penalised.settings.repeat_penalty = Some(1.15);
        let body = String::from_utf8(penalised.body(&request())).unwrap();
        assert!(body.ends_with(r#""seed":7,"repeat_penalty":1.15,"repeat_last_n":64}}"#), "{body}");
    }

    #[test]
    fn a_typed_request_sends_its_schema_as_format_and_so_does_its_repair() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
        let typed = PromptRequest {
            answer_format: Some(crate::AnswerFormat { name: "N".into(), schema }),
            ..prompt()
        };
        let expected = |more: &str| {
            format!(
                concat!(
                    r#"{{"model":"llama3.2","messages":[{{"role":"system","content":"{}"}},"#,
                    r#"{{"role":"user","content":"Say hi.\n\n### X\n```\n1\n```"}}{}],"#,
                    r#""format":{{"type":"object","properties":{{"n":{{"type":"integer"}}}},"required":["n"]}},"#,
                    r#""stream":true,"options":{{"num_predict":1024,"temperature":0.0}}}}"#
                ),
                layout::SYSTEM,
                more
            )
        };
        let ollama = provider(None);
        let body = String::from_utf8(ollama.body(&ChatRequest::from_prompt(&typed))).unwrap();
        assert_eq!(body, expected(""));
        assert_eq!(ollama.wire(&typed).unwrap().body.to_string(), body);
        let repair = PromptRequest {
            repair: Some(crate::Repair { answer: "{}".into(), errors: "$: missing field `n`".into() }),
            ..typed.clone()
        };
        let body = String::from_utf8(ollama.body(&ChatRequest::from_prompt(&repair))).unwrap();
        assert_eq!(
            body,
            expected(
                r#",{"role":"assistant","content":"{}"},{"role":"user","content":"Your answer does not fit the required JSON Schema:\n$: missing field `n`\nAnswer again with only the corrected JSON."}"#
            )
        );
        assert_eq!(ollama.wire(&repair).unwrap().body.to_string(), body);
        let both = PromptRequest { grammar: Some("root ::= \"a\"".into()), ..typed };
        assert!(ollama.wire(&both).unwrap_err().contains("not both"));
    }

    #[test]
    fn a_model_is_required_and_v1_is_the_other_api() {
        let settings = ProviderSettings { provider: "ollama".into(), ..Default::default() };
        assert!(Ollama::new(&settings).err().unwrap().contains("needs a model"));
        let settings = ProviderSettings {
            model: Some("m".into()),
            base_url: Some("http://h:11434/v1".into()),
            ..settings
        };
        let e = Ollama::new(&settings).err().unwrap();
        assert!(e.contains("without /v1 (`http://h:11434`)") && e.contains("--provider openai"), "{e}");
    }

    fn parse(body: &str) -> Result<(String, Option<u64>, String), String> {
        let (answer, shown) = answer::parse(Stream::default(), body)?;
        Ok((answer.text, answer.usage, shown))
    }

    #[test]
    fn objects_give_the_text_and_the_usage() {
        let body = concat!(
            r#"{"model":"m","created_at":"2024-08-07T03:57:33Z","message":{"role":"assistant","content":"Hel"},"done":false}"#,
            "\n",
            r#"{"model":"m","message":{"role":"assistant","content":"lo"},"done":false}"#,
            "\n\n",
            r#"{"model":"m","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"#,
            r#""total_duration":4353619900,"prompt_eval_count":10,"eval_count":17}"#,
        );
        assert_eq!(parse(body).unwrap(), ("Hello".into(), Some(27), "Hello".into()));
        let reason = answer::parse(Stream::default(), body).unwrap().0.finish_reason;
        assert_eq!(reason.as_deref(), Some("stop"));
        // Without both counts, the usage is left to the estimate.
        let cached = r#"{"message":{"content":"x"},"done":true,"eval_count":3}"#;
        assert_eq!(parse(cached).unwrap(), ("x".into(), None, "x".into()));
    }

    #[test]
    fn malformed_answers_are_refused_in_words() {
        let err = |body: &str| parse(body).unwrap_err();
        assert!(err("{not json\n").contains("not JSON: `{not json`"));
        assert!(err("data: {}\n").contains("not JSON"));
        assert!(err(r#"{"message":{"content":"x"},"done":false}"#).contains("ended early (1 objects"));
        assert!(err("").contains("ended early (no objects"));
        let e = err(
            "{\"message\":{\"content\":\"x\"},\"done\":false}\n{\"error\":\"model runner has unexpectedly stopped\"}\n",
        );
        assert!(e.contains("reported an error in its answer: model runner has unexpectedly stopped"), "{e}");
    }
}
