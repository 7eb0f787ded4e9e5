//! The `openai` provider (book: reference/models.md): `POST {base}/chat/completions` of any
//! OpenAI-compatible server (llama.cpp's server, vLLM, Ollama's `/v1`,
//! hosted APIs), streamed as server-sent events with
//! `stream_options.include_usage`, so the last event carries the usage.
//!
//! The body is built with the prompt layout (`layout.rs`) and its fields in a
//! fixed order, so the same inputs send the same bytes. `TOKEN_COUNT` grows
//! by the reported `total_tokens` (else `prompt_tokens + completion_tokens`):
//! in this API cached prompt tokens are part of `prompt_tokens` and
//! reasoning tokens part of `completion_tokens`, so both are counted. A
//! server that reports no usage gets the layout's estimate, marked as one.
//!
//! A typed PROMPT_AGENT (book: reference/types.md) adds, after the sampling settings,
//! `"response_format": {"type": "json_schema", "json_schema": {"name": NAME,
//! "strict": true, "schema": SCHEMA}}`: the schema as the VM derived it
//! (strict mode's rules, every property required and records closed, are
//! the VM's), NAME the type's name made to fit OpenAI's rule
//! ([`schema_name`]). Its repair request is the same body with two more
//! messages. A GBNF `grammar` (llama.cpp's field, `tissc generate`) goes in
//! the same place; a request with both is refused, nothing sent.
//!
//! `--repeat-penalty` is refused when the provider is made: OpenAI's API has
//! no repeat penalty, and its `frequency_penalty` and `presence_penalty`
//! work otherwise (subtracted from a token's score, by how often it came,
//! on another scale), so no value maps onto them; sending llama.cpp's field
//! anyway would be ignored or refused, server by server.

use serde_json::{Value, json};

use crate::answer::{self, Answer, Parser, shorten};
use crate::chat::ChatRequest;
use crate::http::{self, Client, Policy, Post};
use crate::settings::{OPENAI_BASE_URL, ProviderSettings};
use crate::{PromptError, PromptRequest, PromptResponse, Provider, Wire};

/// The endpoint's path under the base URL.
pub const PATH: &str = "/chat/completions";

pub struct OpenAi {
    client: Client,
    url: String,
    model: String,
    settings: ProviderSettings,
}

impl OpenAi {
    pub fn new(settings: &ProviderSettings) -> Result<OpenAi, String> {
        let model = settings.model.clone().ok_or(
            "the openai provider needs a model: --model NAME (or TISS_MODEL, or model in tiss.toml)",
        )?;
        if let Some(penalty) = settings.repeat_penalty {
            return Err(format!(
                "the openai provider cannot send --repeat-penalty {penalty} (or TISS_REPEAT_PENALTY, or \
                 repeat_penalty in tiss.toml): OpenAI's API has no repeat penalty, and its frequency_penalty and \
                 presence_penalty work otherwise, so none is sent in its place; for llama.cpp use --provider \
                 completion (its /completion takes repeat_penalty), for Ollama --provider ollama, or leave the \
                 repeat penalty unset"
            ));
        }
        let base = settings.base_url.as_deref().unwrap_or(OPENAI_BASE_URL);
        Ok(OpenAi {
            client: Client::new(Policy::of(settings)),
            url: format!("{base}{PATH}"),
            model,
            settings: settings.clone(),
        })
    }

    /// The request body: model, the messages (a PROMPT_AGENT's are the
    /// layout's two, four for a repair), the sampling settings, the grammar
    /// or the answer format if there is one, streaming with usage. A request
    /// with both is refused by [`Provider::chat`] and [`Provider::wire`].
    pub fn body(&self, request: &ChatRequest) -> Vec<u8> {
        self.body_json(request).to_string().into_bytes()
    }

    fn body_json(&self, request: &ChatRequest) -> Value {
        let mut body = json!({
            "model": self.model,
            "messages": request.messages_json(),
            "max_tokens": self.settings.max_tokens,
            "temperature": self.settings.temperature,
        });
        if let Some(seed) = self.settings.seed {
            body["seed"] = json!(seed);
        }
        // llama.cpp's server takes a GBNF `grammar` here too. A server that
        // does not know the field ignores it or refuses the request (its
        // words in the error); either way `tissc generate` compiles every
        // answer, so the grammar only ever helps.
        if let Some(grammar) = &request.grammar {
            body["grammar"] = json!(grammar);
        }
        if let Some(format) = &request.answer_format {
            body["response_format"] = json!({
                "type": "json_schema",
                "json_schema": {"name": schema_name(&format.name), "strict": true, "schema": format.schema},
            });
        }
        body["stream"] = json!(true);
        body["stream_options"] = json!({"include_usage": true});
        body
    }
}

impl Provider for OpenAi {
    fn name(&self) -> &str {
        "openai"
    }

    fn chat(
        &mut self,
        request: &ChatRequest,
        shown: &mut dyn FnMut(&str),
    ) -> Result<PromptResponse, PromptError> {
        request.check_constraints().map_err(|message| PromptError {
            message,
            requests: 0,
            out_of_calls: false,
        })?;
        let body = self.body(request);
        let key = self.settings.api_key();
        let post = Post {
            url: &self.url,
            body: &body,
            accept: "text/event-stream",
            key: key.as_deref(),
            requests_allowed: request.requests_allowed,
        };
        answer::fetch(&mut self.client, &post, Stream::new(Shape::CHAT), &request.messages, shown)
    }

    fn wire(&self, request: &PromptRequest) -> Result<Wire, String> {
        let request = ChatRequest::from_prompt(request);
        request.check_constraints()?;
        Ok(Wire { endpoint: http::path_of(&self.url).into(), body: self.body_json(&request) })
    }
}

/// The longest name OpenAI takes for a schema.
const MAX_SCHEMA_NAME: usize = 64;

/// `name` as OpenAI takes a schema's name, `^[a-zA-Z0-9_-]{1,64}$`: each
/// other character made `_`, the first 64 kept; `answer` for an empty one.
pub fn schema_name(name: &str) -> String {
    let fitted: String = name
        .chars()
        .take(MAX_SCHEMA_NAME)
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
        .collect();
    if fitted.is_empty() { "answer".into() } else { fitted }
}

/// Where an OpenAI-style answer keeps its text: chat completions and the
/// older text completions (`completion.rs`) differ only in that.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// The piece of text in a streamed event's `choices[0]`.
    piece: &'static str,
    /// The text of a whole (non-streamed) answer, and its name in messages.
    whole: &'static str,
    whole_name: &'static str,
}

impl Shape {
    /// `/chat/completions`: `delta.content`, `message.content`.
    pub const CHAT: Shape = Shape {
        piece: "/delta/content",
        whole: "/choices/0/message/content",
        whole_name: "choices[0].message.content",
    };
    /// `/completions`: `text`.
    pub const TEXT: Shape = Shape { piece: "/text", whole: "/choices/0/text", whole_name: "choices[0].text" };
}

/// The events of one answer as they come.
#[derive(Debug)]
pub struct Stream {
    shape: Shape,
    text: String,
    usage: Option<u64>,
    events: u32,
    finish_reason: Option<String>,
    done: bool,
    /// Lines that are no SSE field: a server that answered with one JSON
    /// object instead of a stream.
    other: String,
}

impl Stream {
    pub fn new(shape: Shape) -> Stream {
        Stream {
            shape,
            text: String::new(),
            usage: None,
            events: 0,
            finish_reason: None,
            done: false,
            other: String::new(),
        }
    }
}

impl Parser for Stream {
    fn line(&mut self, line: &str, shown: &mut dyn FnMut(&str)) -> Result<(), String> {
        if line.is_empty() || line.starts_with(':') {
            return Ok(());
        }
        let Some(data) = line.strip_prefix("data:") else {
            if ["event:", "id:", "retry:"].iter().any(|f| line.starts_with(f)) {
                return Ok(());
            }
            if self.other.len() < 1 << 20 {
                self.other.push_str(line);
                self.other.push('\n');
            }
            return Ok(());
        };
        let data = data.trim_start();
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let event: Value = serde_json::from_str(data)
            .map_err(|_| format!("the answer has an event that is not JSON: `{}`", shorten(data)))?;
        self.events += 1;
        if let Some(text) = error_in(&event) {
            return Err(format!("the server reported an error in its answer: {text}"));
        }
        if let Some(choice) = event.get("choices").and_then(|c| c.get(0)) {
            if let Some(piece) = choice.pointer(self.shape.piece).and_then(Value::as_str) {
                shown(piece);
                self.text.push_str(piece);
            }
            if let Some(reason) = choice.get("finish_reason").filter(|r| !r.is_null()) {
                self.finish_reason = Some(reason.as_str().map_or_else(|| reason.to_string(), str::to_string));
            }
        }
        if let Some(usage) = event.get("usage").filter(|u| !u.is_null()) {
            self.usage = Some(usage_tokens(usage)?);
        }
        Ok(())
    }

    fn finish(self, shown: &mut dyn FnMut(&str)) -> Result<Answer, String> {
        if self.events == 0 && !self.other.trim().is_empty() {
            return whole_answer(self.shape, &self.other, shown);
        }
        if !(self.done || self.finish_reason.is_some()) {
            let what =
                if self.events == 0 { "no events".to_string() } else { format!("{} events", self.events) };
            return Err(format!("the answer ended early ({what}, no finish_reason and no [DONE])"));
        }
        Ok(Answer { text: self.text, usage: self.usage, finish_reason: self.finish_reason })
    }
}

/// A non-streamed answer object.
fn whole_answer(shape: Shape, body: &str, shown: &mut dyn FnMut(&str)) -> Result<Answer, String> {
    let json: Value = serde_json::from_str(body)
        .map_err(|_| format!("the answer is neither an event stream nor JSON: `{}`", shorten(body)))?;
    if let Some(text) = error_in(&json) {
        return Err(format!("the server reported an error in its answer: {text}"));
    }
    let text = json
        .pointer(shape.whole)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("the answer has no {}: `{}`", shape.whole_name, shorten(body)))?;
    shown(text);
    let usage = json.get("usage").filter(|u| !u.is_null()).map(usage_tokens).transpose()?;
    let finish_reason = json.pointer("/choices/0/finish_reason").and_then(Value::as_str).map(str::to_string);
    Ok(Answer { text: text.to_string(), usage, finish_reason })
}

fn error_in(json: &Value) -> Option<String> {
    json.get("error")
        .filter(|e| !e.is_null())
        .map(|e| http::server_error_text(&json.to_string()).unwrap_or(e.to_string()))
}

/// `total_tokens`, else `prompt_tokens + completion_tokens`.
fn usage_tokens(usage: &Value) -> Result<u64, String> {
    let field = |name: &str| usage.get(name).and_then(Value::as_u64);
    match (field("total_tokens"), field("prompt_tokens"), field("completion_tokens")) {
        (Some(total), _, _) => Ok(total),
        (None, Some(p), Some(c)) => Ok(p.saturating_add(c)),
        _ => Err(format!(
            "the usage the server reported has no token counts: `{}`",
            shorten(&usage.to_string())
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout;

    fn provider(seed: Option<u64>) -> OpenAi {
        let settings = ProviderSettings {
            provider: "openai".into(),
            model: Some("smollm2".into()),
            base_url: Some("http://127.0.0.1:1/v1".into()),
            seed,
            ..Default::default()
        };
        OpenAi::new(&settings).unwrap()
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
        let body = provider(None).body(&request());
        let expected = format!(
            concat!(
                r#"{{"model":"smollm2","messages":[{{"role":"system","content":"{}"}},"#,
                r#"{{"role":"user","content":"Say hi.\n\n### X\n```\n1\n```"}}],"max_tokens":1024,"#,
                r#""temperature":0.0,"stream":true,"stream_options":{{"include_usage":true}}}}"#
            ),
            layout::SYSTEM
        );
        // What a cassette keys is what is sent.
        let wire = provider(None).wire(&prompt()).unwrap();
        assert_eq!(
            (wire.endpoint.as_str(), wire.body.to_string()),
            ("/v1/chat/completions", expected.clone())
        );
        assert_eq!(String::from_utf8(body).unwrap(), expected);
        let with_seed = provider(Some(7)).body(&request());
        assert!(
            String::from_utf8(with_seed).unwrap().contains(r#""temperature":0.0,"seed":7,"stream":true"#)
        );
        assert_eq!(provider(None).body(&request()), provider(None).body(&request()));
    }

    #[test]
    fn a_repeat_penalty_is_refused_not_dropped_or_mapped() {
        let settings = ProviderSettings { repeat_penalty: Some(1.15), ..provider(None).settings };
        let e = OpenAi::new(&settings).err().unwrap();
        assert!(
            e.starts_with("the openai provider cannot send --repeat-penalty 1.15")
                && e.contains("--provider completion")
                && e.contains("--provider ollama"),
            "{e}"
        );
    }

    #[test]
    fn a_grammar_goes_before_the_stream_fields() {
        let chat = ChatRequest { grammar: Some("root ::= \"a\"".into()), ..request() };
        let body = String::from_utf8(provider(None).body(&chat)).unwrap();
        assert!(body.contains(r#""temperature":0.0,"grammar":"root ::= \"a\"","stream":true"#), "{body}");
    }

    fn typed() -> PromptRequest {
        let schema = json!({"type": "object", "properties": {"colour": {"type": "string", "enum": ["red", "blue"]}},
                            "required": ["colour"], "additionalProperties": false});
        PromptRequest {
            answer_format: Some(crate::AnswerFormat { name: "Colour".into(), schema }),
            ..prompt()
        }
    }

    const SCHEMA: &str = concat!(
        r#"{"type":"object","properties":{"colour":{"type":"string","enum":["red","blue"]}},"#,
        r#""required":["colour"],"additionalProperties":false}"#
    );

    #[test]
    fn a_typed_request_asks_for_its_schema_and_so_does_its_repair() {
        let expected = |messages: &str| {
            format!(
                concat!(
                    r#"{{"model":"smollm2","messages":[{{"role":"system","content":"{}"}},"#,
                    r#"{{"role":"user","content":"Say hi.\n\n### X\n```\n1\n```"}}{}],"max_tokens":1024,"#,
                    r#""temperature":0.0,"response_format":{{"type":"json_schema","json_schema":{{"name":"Colour","#,
                    r#""strict":true,"schema":{}}}}},"stream":true,"stream_options":{{"include_usage":true}}}}"#
                ),
                layout::SYSTEM,
                messages,
                SCHEMA
            )
        };
        let p = provider(None);
        let body = String::from_utf8(p.body(&ChatRequest::from_prompt(&typed()))).unwrap();
        assert_eq!(body, expected(""));
        assert_eq!(p.wire(&typed()).unwrap().body.to_string(), body);
        let repair = PromptRequest {
            repair: Some(crate::Repair {
                answer: "{\"colour\":\"green\"}".into(),
                errors: "$.colour: not red or blue".into(),
            }),
            ..typed()
        };
        let body = String::from_utf8(p.body(&ChatRequest::from_prompt(&repair))).unwrap();
        assert_eq!(
            body,
            expected(
                r#",{"role":"assistant","content":"{\"colour\":\"green\"}"},{"role":"user","content":"Your answer does not fit the required JSON Schema:\n$.colour: not red or blue\nAnswer again with only the corrected JSON."}"#
            )
        );
        assert_eq!(p.wire(&repair).unwrap().body.to_string(), body);
        let both = PromptRequest { grammar: Some("root ::= \"a\"".into()), ..typed() };
        assert!(p.wire(&both).unwrap_err().contains("not both"));
    }

    #[test]
    fn a_schema_name_fits_openais_rule() {
        assert_eq!(schema_name("Review"), "Review");
        assert_eq!(schema_name("a-b_C9"), "a-b_C9");
        assert_eq!(schema_name("Revue critiquée v2.1"), "Revue_critiqu_e_v2_1");
        assert_eq!(schema_name(""), "answer");
        let long = "T".repeat(70);
        assert_eq!(schema_name(&long), "T".repeat(64));
        assert_eq!(schema_name(&"é".repeat(70)), "_".repeat(64));
    }

    #[test]
    fn a_model_is_required() {
        let settings = ProviderSettings { provider: "openai".into(), ..Default::default() };
        assert!(OpenAi::new(&settings).err().unwrap().contains("needs a model"));
    }

    fn parse(body: &str) -> Result<(String, Option<u64>, String), String> {
        let (answer, shown) = answer::parse(Stream::new(Shape::CHAT), body)?;
        Ok((answer.text, answer.usage, shown))
    }

    fn finish_reason(body: &str) -> Option<String> {
        answer::parse(Stream::new(Shape::CHAT), body).unwrap().0.finish_reason
    }

    #[test]
    fn events_give_the_text_and_the_usage() {
        let body = concat!(
            ": keep-alive\n\n",
            "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n",
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":30,\"completion_tokens\":2,",
            "\"prompt_tokens_details\":{\"cached_tokens\":20}}}\n\n",
            "data: [DONE]"
        );
        assert_eq!(parse(body).unwrap(), ("Hello".into(), Some(32), "Hello".into()));
        assert_eq!(finish_reason(body).as_deref(), Some("stop"));
        let cut = "data: {\"choices\":[{\"delta\":{\"content\":\"x\"},\"finish_reason\":\"length\"}]}\n\n";
        assert_eq!(finish_reason(cut).as_deref(), Some("length"));
        let total =
            "data: {\"choices\":[],\"usage\":{\"total_tokens\":9,\"prompt_tokens\":1}}\n\ndata: [DONE]\n";
        assert_eq!(parse(total).unwrap().1, Some(9));
        let no_usage = "data: {\"choices\":[{\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}]}\n\n";
        assert_eq!(parse(no_usage).unwrap(), ("x".into(), None, "x".into()));
    }

    #[test]
    fn a_whole_json_answer_is_taken_too() {
        let body =
            r#"{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"total_tokens":5}}"#;
        assert_eq!(parse(body).unwrap(), ("hi".into(), Some(5), "hi".into()));
        assert_eq!(finish_reason(body).as_deref(), Some("stop"));
    }

    #[test]
    fn malformed_answers_are_refused_in_words() {
        let err = |body: &str| parse(body).unwrap_err();
        assert!(err("data: {not json\n\n").contains("not JSON: `{not json`"));
        assert!(
            err("data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n")
                .contains("ended early (1 events")
        );
        assert!(err("").contains("ended early (no events"));
        assert!(err("<html>oops</html>\n").contains("neither an event stream nor JSON"));
        assert!(err(r#"{"choices":[]}"#).contains("no choices[0].message.content"));
        assert!(err("data: {\"error\":{\"message\":\"context too long\"}}\n\n").contains("context too long"));
        assert!(
            err("data: {\"choices\":[],\"usage\":{\"x\":1}}\n\ndata: [DONE]\n").contains("no token counts")
        );
    }
}
