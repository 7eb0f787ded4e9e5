//! The `completion` provider (book: reference/models.md): a raw completion endpoint, which
//! takes one text, the layout's two messages rendered with `--template`
//! (`template.rs`). Two APIs, told apart by the base URL (default
//! `http://127.0.0.1:8080`, llama.cpp's `llama-server`):
//!
//! - a base ending in `/v1` is an OpenAI-style server: `POST
//!   {base}/completions` with `prompt`, `max_tokens`, streamed as SSE with
//!   `choices[0].text` and the usage at the end (the `openai` provider's
//!   parser, `Shape::TEXT`);
//! - any other base is llama.cpp's own: `POST {base}/completion` with
//!   `prompt`, `n_predict`, and a GBNF `grammar` when the request carries
//!   one; streamed as SSE, each event a piece of `content`, the last with
//!   `stop: true` and the usage, `tokens_evaluated` + `tokens_predicted`.
//!
//! A typed PROMPT_AGENT (book: reference/types.md) sends its answer's JSON Schema to
//! llama.cpp's `/completion` as `json_schema` (llama.cpp makes a grammar of
//! it), where a grammar would go; its repair request renders the layout's
//! two messages, the invalid answer and the repair message with the
//! template, as a conversation. A request with both a grammar and a schema
//! is refused.
//!
//! `--repeat-penalty` goes to llama.cpp's `/completion` as `repeat_penalty`
//! with `repeat_last_n` ([`REPEAT_LAST_N`]) after the seed; for `/completions`
//! it is refused when the provider is made, as the grammar is per request:
//! OpenAI's API has no such field, and a server that ignored it would
//! answer unpenalised without a word.
//!
//! A grammar and a schema are refused for `/completions`: what servers do
//! with an unknown field varies (many ignore it: llama.cpp's own
//! `/v1/completions` ignores `response_format`, and OpenAI's takes neither
//! that nor `json_schema`), and an answer that was meant to be constrained
//! must not come back unconstrained without a word. Bodies have their fields
//! in a fixed order, so the same inputs send the same bytes.

use serde_json::{Value, json};

use super::openai::{Shape, Stream as OpenAiStream};
use crate::answer::{self, Answer, Parser, shorten};
use crate::chat::ChatRequest;
use crate::http::{self, Client, Policy, Post};
use crate::settings::{COMPLETION_BASE_URL, ProviderSettings, REPEAT_LAST_N};
use crate::template::{NAMES, Template};
use crate::{PromptError, PromptRequest, PromptResponse, Provider, Wire};

/// Which completion API the base URL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// llama.cpp's `POST {base}/completion`.
    LlamaCpp,
    /// OpenAI-style `POST {base}/completions`.
    OpenAi,
}

impl Api {
    /// The endpoint's path under the base URL.
    pub fn path(self) -> &'static str {
        match self {
            Api::LlamaCpp => "/completion",
            Api::OpenAi => "/completions",
        }
    }
}

pub struct Completion {
    client: Client,
    api: Api,
    url: String,
    template: Template,
    settings: ProviderSettings,
}

impl Completion {
    pub fn new(settings: &ProviderSettings) -> Result<Completion, String> {
        let template = settings.template.as_deref().and_then(Template::from_name).ok_or_else(|| {
            format!(
                "the completion provider needs --template {} (or TISS_TEMPLATE, or template in tiss.toml): the \
                 prompt format the model was trained on — chatml for SmolLM2, Qwen and most recent fine-tunes, \
                 llama2 for Llama 2 chat models, alpaca for Alpaca-style ones",
                NAMES.join("|")
            )
        })?;
        let base = settings.base_url.as_deref().unwrap_or(COMPLETION_BASE_URL);
        let (api, url) = if base.ends_with("/v1") {
            (Api::OpenAi, format!("{base}{}", Api::OpenAi.path()))
        } else {
            (Api::LlamaCpp, format!("{base}{}", Api::LlamaCpp.path()))
        };
        if let (Some(penalty), Api::OpenAi) = (settings.repeat_penalty, api) {
            return Err(format!(
                "--repeat-penalty {penalty} (or TISS_REPEAT_PENALTY, or repeat_penalty in tiss.toml) is sent only to \
                 llama.cpp's {{base}}/completion, and `{url}` is an OpenAI-style /completions endpoint (its base \
                 ends in /v1), which has no such field: give llama.cpp's base without /v1, or leave the repeat \
                 penalty unset"
            ));
        }
        Ok(Completion {
            client: Client::new(Policy::of(settings)),
            api,
            url,
            template,
            settings: settings.clone(),
        })
    }

    pub fn api(&self) -> Api {
        self.api
    }

    /// The request body: the messages (a PROMPT_AGENT's are the layout's
    /// two, four for a repair) rendered with the template, the sampling
    /// settings, the grammar or the answer's schema. Refused: both, and
    /// either for an OpenAI-style `/completions`.
    pub fn body(&self, request: &ChatRequest) -> Result<Vec<u8>, String> {
        Ok(self.body_json(request)?.to_string().into_bytes())
    }

    fn body_json(&self, request: &ChatRequest) -> Result<Value, String> {
        request.check_constraints()?;
        let prompt = self.template.render_chat(&request.messages);
        let s = &self.settings;
        let mut body = json!({});
        if let Some(model) = &s.model {
            body["model"] = json!(model);
        }
        body["prompt"] = json!(prompt);
        match self.api {
            Api::LlamaCpp => body["n_predict"] = json!(s.max_tokens),
            Api::OpenAi => body["max_tokens"] = json!(s.max_tokens),
        }
        body["temperature"] = json!(s.temperature);
        if let Some(seed) = s.seed {
            body["seed"] = json!(seed);
        }
        if let Some(penalty) = s.repeat_penalty {
            body["repeat_penalty"] = json!(penalty);
            body["repeat_last_n"] = json!(REPEAT_LAST_N);
        }
        if let Some(grammar) = &request.grammar {
            if self.api == Api::OpenAi {
                return Err(format!(
                    "a GBNF grammar is sent only to llama.cpp's {{base}}/completion, and `{}` is an OpenAI-style \
                     /completions endpoint (its base ends in /v1): give llama.cpp's base without /v1",
                    self.url
                ));
            }
            body["grammar"] = json!(grammar);
        }
        if let Some(format) = &request.answer_format {
            if self.api == Api::OpenAi {
                return Err(format!(
                    "an answer's JSON Schema (of `{}`) is sent only to llama.cpp's {{base}}/completion (as \
                     json_schema), and `{}` is an OpenAI-style /completions endpoint (its base ends in /v1), \
                     which has no field that servers agree on: give llama.cpp's base without /v1, or use \
                     --provider openai, whose /chat/completions takes response_format",
                    format.name, self.url
                ));
            }
            body["json_schema"] = format.schema.clone();
        }
        body["stream"] = json!(true);
        if self.api == Api::OpenAi {
            body["stream_options"] = json!({"include_usage": true});
        }
        Ok(body)
    }
}

impl Provider for Completion {
    fn name(&self) -> &str {
        "completion"
    }

    fn chat(
        &mut self,
        request: &ChatRequest,
        shown: &mut dyn FnMut(&str),
    ) -> Result<PromptResponse, PromptError> {
        let body = self.body(request).map_err(|message| PromptError {
            message,
            requests: 0,
            out_of_calls: false,
        })?;
        let key = self.settings.api_key();
        let post = Post {
            url: &self.url,
            body: &body,
            accept: "text/event-stream",
            key: key.as_deref(),
            requests_allowed: request.requests_allowed,
        };
        match self.api {
            Api::LlamaCpp => {
                answer::fetch(&mut self.client, &post, LlamaStream::default(), &request.messages, shown)
            }
            Api::OpenAi => answer::fetch(
                &mut self.client,
                &post,
                OpenAiStream::new(Shape::TEXT),
                &request.messages,
                shown,
            ),
        }
    }

    fn wire(&self, request: &PromptRequest) -> Result<Wire, String> {
        Ok(Wire {
            endpoint: http::path_of(&self.url).into(),
            body: self.body_json(&ChatRequest::from_prompt(request))?,
        })
    }
}

/// llama.cpp's `/completion` events as they come.
#[derive(Debug, Default)]
struct LlamaStream {
    text: String,
    usage: Option<u64>,
    events: u32,
    stopped: bool,
    finish_reason: Option<String>,
}

impl Parser for LlamaStream {
    fn line(&mut self, line: &str, shown: &mut dyn FnMut(&str)) -> Result<(), String> {
        if line.is_empty() || line.starts_with(':') || self.stopped {
            return Ok(());
        }
        // llama.cpp reports a failure in a stream as an `error:` line.
        if let Some(error) = line.strip_prefix("error:") {
            let text = http::server_error_text(error.trim()).unwrap_or_else(|| "(no text)".into());
            return Err(format!("the server reported an error in its answer: {text}"));
        }
        let data = match line.strip_prefix("data:") {
            Some(data) => data.trim_start(),
            None if ["event:", "id:", "retry:"].iter().any(|f| line.starts_with(f)) => return Ok(()),
            // A server that answered with one JSON object rather than a stream.
            None if line.starts_with('{') => line,
            None => {
                return Err(format!("the answer is neither an event stream nor JSON: `{}`", shorten(line)));
            }
        };
        let event: Value = serde_json::from_str(data)
            .map_err(|_| format!("the answer has an event that is not JSON: `{}`", shorten(data)))?;
        self.events += 1;
        if event.get("error").is_some_and(|e| !e.is_null()) {
            let text = http::server_error_text(data).unwrap_or_default();
            return Err(format!("the server reported an error in its answer: {text}"));
        }
        if let Some(piece) = event.get("content").and_then(Value::as_str) {
            shown(piece);
            self.text.push_str(piece);
        }
        if event.get("stop").and_then(Value::as_bool) == Some(true) {
            self.stopped = true;
            let count = |name: &str| event.get(name).and_then(Value::as_u64);
            if let (Some(prompt), Some(answer)) = (count("tokens_evaluated"), count("tokens_predicted")) {
                self.usage = Some(prompt.saturating_add(answer));
            }
            self.finish_reason = finish_reason(&event);
        }
        Ok(())
    }

    fn finish(self, _: &mut dyn FnMut(&str)) -> Result<Answer, String> {
        if !self.stopped {
            let what = match self.events {
                0 => "no events".to_string(),
                n => format!("{n} events"),
            };
            return Err(format!("the answer ended early ({what}, none with \"stop\": true)"));
        }
        Ok(Answer { text: self.text, usage: self.usage, finish_reason: self.finish_reason })
    }
}

/// Why llama.cpp stopped, in the words of the OpenAI API (as llama.cpp's own
/// `/v1` endpoints give it): an end-of-sequence token or a stop word is
/// `stop`, the token limit `length`. From `stop_type` (`eos`, `word`,
/// `limit`), or the `stopped_eos`/`stopped_word`/`stopped_limit` flags of
/// older servers; another `stop_type` is passed on as it is.
fn finish_reason(event: &Value) -> Option<String> {
    let flag = |name: &str| event.get(name).and_then(Value::as_bool) == Some(true);
    let reason = match event.get("stop_type").and_then(Value::as_str) {
        Some("eos" | "word") => "stop",
        Some("limit") => "length",
        Some(other) => other,
        None if flag("stopped_eos") || flag("stopped_word") => "stop",
        None if flag("stopped_limit") => "length",
        None => return None,
    };
    Some(reason.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout;

    fn provider(base_url: Option<&str>, template: &str) -> Completion {
        let settings = ProviderSettings {
            provider: "completion".into(),
            base_url: base_url.map(str::to_string),
            template: Some(template.into()),
            ..Default::default()
        };
        Completion::new(&settings).unwrap()
    }

    fn prompt_request(grammar: Option<&str>) -> PromptRequest {
        PromptRequest { query: "Say hi.".into(), grammar: grammar.map(str::to_string), ..Default::default() }
    }

    fn request(grammar: Option<&str>) -> ChatRequest {
        ChatRequest::from_prompt(&prompt_request(grammar))
    }

    #[test]
    fn the_base_url_decides_the_api() {
        let p = provider(None, "chatml");
        assert_eq!((p.api(), p.url.as_str()), (Api::LlamaCpp, "http://127.0.0.1:8080/completion"));
        let p = provider(Some("http://h:8000/v1"), "chatml");
        assert_eq!((p.api(), p.url.as_str()), (Api::OpenAi, "http://h:8000/v1/completions"));
    }

    #[test]
    fn bodies_are_exact_for_both_apis() {
        let prompt = Template::ChatMl.render(layout::SYSTEM, "Say hi.");
        let prompt = serde_json::to_string(&prompt).unwrap();
        let body = provider(None, "chatml").body(&request(Some("root ::= \"hi\""))).unwrap();
        // What a cassette keys is what is sent.
        let wire = provider(None, "chatml").wire(&prompt_request(Some("root ::= \"hi\""))).unwrap();
        assert_eq!(
            (wire.endpoint.as_str(), wire.body.to_string().into_bytes()),
            ("/completion", body.clone())
        );
        assert_eq!(
            String::from_utf8(body).unwrap(),
            format!(
                r#"{{"prompt":{prompt},"n_predict":1024,"temperature":0.0,"grammar":"root ::= \"hi\"","stream":true}}"#
            )
        );
        let mut p = provider(Some("http://h/v1"), "chatml");
        p.settings.model = Some("m".into());
        p.settings.seed = Some(3);
        let body = p.body(&request(None)).unwrap();
        assert_eq!(
            String::from_utf8(body).unwrap(),
            format!(
                r#"{{"model":"m","prompt":{prompt},"max_tokens":1024,"temperature":0.0,"seed":3,"stream":true,"stream_options":{{"include_usage":true}}}}"#
            )
        );
        let e = p.body(&request(Some("root ::= \"x\""))).unwrap_err();
        assert!(
            e.contains("grammar is sent only to llama.cpp") && e.contains("http://h/v1/completions"),
            "{e}"
        );
    }

    #[test]
    fn a_repeat_penalty_goes_to_llama_cpp_and_is_refused_for_completions() {
        let mut p = provider(None, "chatml");
        p.settings.seed = Some(3);
        p.settings.repeat_penalty = Some(1.15);
        let body = String::from_utf8(p.body(&request(None)).unwrap()).unwrap();
        assert!(
            body.contains(
                r#""temperature":0.0,"seed":3,"repeat_penalty":1.15,"repeat_last_n":64,"stream":true"#
            ),
            "{body}"
        );
        let settings = ProviderSettings { base_url: Some("http://h/v1".into()), ..p.settings };
        let e = Completion::new(&settings).err().unwrap();
        assert!(
            e.starts_with("--repeat-penalty 1.15")
                && e.contains("`http://h/v1/completions` is an OpenAI-style"),
            "{e}"
        );
    }

    #[test]
    fn a_typed_request_sends_its_schema_to_llama_cpp_and_is_refused_by_completions() {
        let schema = json!({"type": "string", "enum": ["yes", "no"]});
        let typed = PromptRequest {
            answer_format: Some(crate::AnswerFormat { name: "YesNo".into(), schema }),
            ..prompt_request(None)
        };
        let p = provider(None, "chatml");
        let prompt = serde_json::to_string(&Template::ChatMl.render(layout::SYSTEM, "Say hi.")).unwrap();
        let expected = |prompt: &str| {
            format!(
                r#"{{"prompt":{prompt},"n_predict":1024,"temperature":0.0,"json_schema":{{"type":"string","enum":["yes","no"]}},"stream":true}}"#
            )
        };
        let body = String::from_utf8(p.body(&ChatRequest::from_prompt(&typed)).unwrap()).unwrap();
        assert_eq!(body, expected(&prompt));
        assert_eq!(p.wire(&typed).unwrap().body.to_string(), body);
        // The repair: four messages, rendered as a conversation.
        let repair = PromptRequest {
            repair: Some(crate::Repair { answer: "maybe".into(), errors: "$: not JSON".into() }),
            ..typed.clone()
        };
        let rendered = format!(
            "<|im_start|>system\n{}<|im_end|>\n<|im_start|>user\nSay hi.<|im_end|>\n<|im_start|>assistant\n\
             maybe<|im_end|>\n<|im_start|>user\nYour answer does not fit the required JSON Schema:\n$: not JSON\n\
             Answer again with only the corrected JSON.<|im_end|>\n<|im_start|>assistant\n",
            layout::SYSTEM
        );
        let body = String::from_utf8(p.body(&ChatRequest::from_prompt(&repair)).unwrap()).unwrap();
        assert_eq!(body, expected(&serde_json::to_string(&rendered).unwrap()));
        assert_eq!(p.wire(&repair).unwrap().body.to_string(), body);
        let both = PromptRequest { grammar: Some("root ::= \"a\"".into()), ..typed.clone() };
        assert!(p.wire(&both).unwrap_err().contains("not both"));
        let v1 = provider(Some("http://h/v1"), "chatml");
        let e = v1.wire(&typed).unwrap_err();
        assert!(
            e.contains("JSON Schema (of `YesNo`) is sent only to llama.cpp's {base}/completion")
                && e.contains("`http://h/v1/completions` is an OpenAI-style /completions endpoint"),
            "{e}"
        );
    }

    #[test]
    fn a_template_is_required() {
        let settings = ProviderSettings { provider: "completion".into(), ..Default::default() };
        let e = Completion::new(&settings).err().unwrap();
        assert!(e.contains("needs --template chatml|llama2|alpaca"), "{e}");
    }

    fn parse(body: &str) -> Result<(String, Option<u64>, String), String> {
        let (answer, shown) = answer::parse(LlamaStream::default(), body)?;
        Ok((answer.text, answer.usage, shown))
    }

    #[test]
    fn llama_cpp_events_give_the_text_and_the_usage() {
        let body = concat!(
            "data: {\"index\":0,\"content\":\"Yes\",\"tokens\":[10539],\"stop\":false,\"id_slot\":-1,",
            "\"tokens_predicted\":1,\"tokens_evaluated\":14}\n\n",
            "data: {\"index\":0,\"content\":\".\",\"stop\":false}\n\n",
            "data: {\"index\":0,\"content\":\"\",\"id_slot\":0,\"stop\":true,\"model\":\"smollm2\",",
            "\"tokens_predicted\":3,\"tokens_evaluated\":14,\"stop_type\":\"eos\",",
            "\"timings\":{\"prompt_n\":14,\"predicted_n\":3}}\n\n",
        );
        assert_eq!(parse(body).unwrap(), ("Yes.".into(), Some(17), "Yes.".into()));
        let reason = |body: &str| answer::parse(LlamaStream::default(), body).unwrap().0.finish_reason;
        assert_eq!(reason(body).as_deref(), Some("stop"));
        let limit = r#"{"content":"n","stop":true,"stop_type":"limit"}"#;
        assert_eq!(reason(limit).as_deref(), Some("length"));
        let older = r#"{"content":"n","stop":true,"stopped_eos":false,"stopped_limit":true}"#;
        assert_eq!(reason(older).as_deref(), Some("length"));
        let whole = r#"{"content":"no","stop":true,"tokens_predicted":2,"tokens_evaluated":5}"#;
        assert_eq!(parse(whole).unwrap(), ("no".into(), Some(7), "no".into()));
        let no_usage = "data: {\"content\":\"x\",\"stop\":true}\n\n";
        assert_eq!(parse(no_usage).unwrap(), ("x".into(), None, "x".into()));
    }

    #[test]
    fn malformed_llama_cpp_answers_are_refused_in_words() {
        let err = |body: &str| parse(body).unwrap_err();
        assert!(err("data: {not json\n\n").contains("not JSON: `{not json`"));
        assert!(err("<html>\n").contains("neither an event stream nor JSON"));
        assert!(err("data: {\"content\":\"x\",\"stop\":false}\n\n").contains("ended early (1 events"));
        assert!(err("").contains("ended early (no events"));
        let e = err("error: {\"code\":500,\"message\":\"slot unavailable\",\"type\":\"server_error\"}\n\n");
        assert!(e.contains("error in its answer: slot unavailable"), "{e}");
        let e = err("data: {\"error\":{\"code\":400,\"message\":\"failed to parse grammar\"}}\n\n");
        assert!(e.contains("failed to parse grammar"), "{e}");
    }
}
