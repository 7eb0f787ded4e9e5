//! A streamed answer, whatever its wire format (SSE, NDJSON): each live
//! provider parses the body's lines with its own [`Parser`], and [`fetch`]
//! does the rest they share — the POST through `http.rs` (timeouts,
//! retries, every request counted), the failure messages (endpoint named,
//! key redacted), and the tokens: reported usage, else the layout's
//! estimate, marked as one.

use crate::chat::Message;
use crate::http::{self, Client, HttpError, Lines, Post};
use crate::{PromptError, PromptResponse, chat};

/// What a streamed answer came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub text: String,
    /// Prompt + completion tokens as the server reported them.
    pub usage: Option<u64>,
    /// Why the answer ended, as the wire format says it.
    pub finish_reason: Option<String>,
}

/// One wire format's reading of an answer's body.
pub trait Parser {
    /// One line of the body, without its ending; `shown` gets each piece of
    /// text as it comes.
    fn line(&mut self, line: &str, shown: &mut dyn FnMut(&str)) -> Result<(), String>;
    /// The body has ended: the answer, or why it is not a whole one.
    fn finish(self, shown: &mut dyn FnMut(&str)) -> Result<Answer, String>;
}

/// POSTs `post`, parses its body with `parser`, and counts its tokens: the
/// reported usage, else the estimate over the `messages` sent and the answer.
pub fn fetch(
    client: &mut Client,
    post: &Post<'_>,
    mut parser: impl Parser,
    messages: &[Message],
    shown: &mut dyn FnMut(&str),
) -> Result<PromptResponse, PromptError> {
    let mut lines = Lines::default();
    let sent = client.post(post, &mut |data| lines.feed(data, &mut |line| parser.line(line, shown)));
    let fail = |message: String| PromptError { message, requests: sent.requests, out_of_calls: false };
    match sent.result {
        Ok(()) => {}
        Err(HttpError::Failed(m)) => return Err(fail(m)),
        Err(HttpError::OutOfCalls(m)) => return Err(PromptError { out_of_calls: true, ..fail(m) }),
    }
    let in_words = |e: String| fail(http::redact(format!("POST {}: {e}", post.url), post.key));
    // A last line without its line ending.
    let rest = String::from_utf8_lossy(lines.rest()).into_owned();
    if !rest.trim().is_empty() {
        parser.line(rest.trim_end_matches('\r'), shown).map_err(in_words)?;
    }
    let answer = parser.finish(shown).map_err(in_words)?;
    let (tokens, estimated) = match answer.usage {
        Some(tokens) => (tokens, false),
        None => (chat::estimate_tokens(messages, &answer.text), true),
    };
    Ok(PromptResponse {
        text: answer.text,
        tokens,
        estimated,
        requests: sent.requests,
        finish_reason: answer.finish_reason,
    })
}

/// `text` cut to 200 characters for a message, `…` marking the cut.
pub fn shorten(text: &str) -> String {
    start_of(text, 200)
}

/// The first `chars` characters of `text`, `…` marking a cut.
pub fn start_of(text: &str, chars: usize) -> String {
    let mut out: String = text.chars().take(chars).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

/// A whole body through `parser`, as [`fetch`] feeds it (for the parsers'
/// unit tests): the answer and what was shown.
#[cfg(test)]
pub fn parse(mut parser: impl Parser, body: &str) -> Result<(Answer, String), String> {
    let mut lines = Lines::default();
    let mut shown = String::new();
    lines.feed(body.as_bytes(), &mut |l| parser.line(l, &mut |t| shown.push_str(t)))?;
    let rest = String::from_utf8_lossy(lines.rest()).into_owned();
    if !rest.trim().is_empty() {
        parser.line(rest.trim_end_matches('\r'), &mut |t| shown.push_str(t))?;
    }
    let answer = parser.finish(&mut |t| shown.push_str(t))?;
    Ok((answer, shown))
}
