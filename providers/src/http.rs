//! HTTP for the providers (book: reference/models.md), in one place: `ureq` 3 with rustls,
//! synchronous like the machine.
//!
//! - Timeouts: `connect` (ureq's connect phase); `first_token`, from sending
//!   the request to the first byte of the answer's body (ureq's
//!   receive-response phase covers the headers, then a deadline on the first
//!   chunk); `idle`, the longest gap between chunks; `request`, the whole of
//!   one request (ureq's global timeout, and a deadline on every chunk). The
//!   body is read on a helper thread that hands chunks over a channel, so
//!   the first-token and idle deadlines hold whatever the server does; a
//!   reader left blocked by a stall ends at ureq's global timeout at the latest.
//! - Retries only after a connection error, 408, 429 or a 5xx, at most
//!   `max_retries` of them, each after an exponential backoff with jitter or
//!   the server's `Retry-After` (seconds or an HTTP date) when it gives one.
//!   A `Retry-After` longer than `max_retry_wait` fails at once, naming it.
//! - Every request sent is counted, retries included: the caller's API_CALLS
//!   budget caps them ([`Post::requests_allowed`]).
//! - The key is sent as `Authorization: Bearer`, and removed from every
//!   message (a server may echo it).

use std::io::Read;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant, SystemTime};

use crate::plural;
use crate::settings::{ProviderSettings, format_ms};

/// The most of an error body kept for its message.
const MAX_ERROR_BODY: u64 = 64 * 1024;
/// The most of an answer's body read.
const MAX_BODY: u64 = 64 * 1024 * 1024;
/// The first backoff; each retry doubles it.
const FIRST_BACKOFF_MS: u64 = 500;
/// Longest backoff without a `Retry-After`.
const MAX_BACKOFF_MS: u64 = 30_000;

/// The timeouts and retry policy of a provider's requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    pub connect_ms: u64,
    pub first_token_ms: u64,
    pub idle_ms: u64,
    pub request_ms: u64,
    pub max_retries: u32,
    pub max_retry_wait_ms: u64,
}

impl Policy {
    pub fn of(settings: &ProviderSettings) -> Policy {
        Policy {
            connect_ms: settings.connect_timeout_ms,
            first_token_ms: settings.first_token_timeout_ms,
            idle_ms: settings.idle_timeout_ms,
            request_ms: settings.request_timeout_ms,
            max_retries: settings.max_retries,
            max_retry_wait_ms: settings.max_retry_wait_ms,
        }
    }
}

/// One POST of a JSON body whose answer is streamed.
pub struct Post<'a> {
    pub url: &'a str,
    pub body: &'a [u8],
    /// `Accept`: what the streamed body is.
    pub accept: &'a str,
    /// Sent as `Authorization: Bearer KEY`; removed from every message.
    pub key: Option<&'a str>,
    /// How many requests may be sent (what is left of API_CALLS); `None`: no cap.
    pub requests_allowed: Option<u64>,
}

/// Why a POST failed, after the requests counted in [`Sent::requests`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpError {
    /// The message names the endpoint and, when there was one, the HTTP status
    /// and the server's own error text.
    Failed(String),
    /// A retry was due, but the API_CALLS budget allows no more requests;
    /// the last request's failure.
    OutOfCalls(String),
}

/// What a POST came to, and how many requests it sent.
#[derive(Debug)]
pub struct Sent<T> {
    pub requests: u64,
    pub result: Result<T, HttpError>,
}

/// Sends requests with one policy; keeps its connection pool and its jitter.
pub struct Client {
    agent: ureq::Agent,
    policy: Policy,
    jitter: u64,
}

/// A failed attempt: its message, and when it may be retried, after how long.
struct Attempt {
    message: String,
    retry_after_ms: Option<u64>,
    retryable: bool,
}

impl Client {
    pub fn new(policy: Policy) -> Client {
        let ms = Duration::from_millis;
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_connect(Some(ms(policy.connect_ms)))
            .timeout_recv_response(Some(ms(policy.first_token_ms)))
            .timeout_global(Some(ms(policy.request_ms)))
            .user_agent(concat!("tissvm/", env!("CARGO_PKG_VERSION")))
            .build();
        let seed =
            SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
                ^ u64::from(std::process::id()).rotate_left(32);
        Client { agent: config.into(), policy, jitter: seed | 1 }
    }

    /// POSTs `post`, retrying as the policy says, and hands each chunk of a
    /// successful answer's body to `chunk` (which may refuse it: a malformed
    /// body is not retried).
    pub fn post(&mut self, post: &Post<'_>, chunk: &mut dyn FnMut(&[u8]) -> Result<(), String>) -> Sent<()> {
        let mut requests = 0u64;
        loop {
            requests += 1;
            let attempt = match self.attempt(post, chunk) {
                Ok(()) => return Sent { requests, result: Ok(()) },
                Err(a) => a,
            };
            let redact = |m: String| redact(m, post.key);
            let spent = format!(" ({} sent)", plural(requests, "request"));
            if !attempt.retryable || requests > u64::from(self.policy.max_retries) {
                let message = if attempt.retryable { attempt.message + &spent } else { attempt.message };
                return Sent { requests, result: Err(HttpError::Failed(redact(message))) };
            }
            let wait = match attempt.retry_after_ms {
                Some(ms) if ms > self.policy.max_retry_wait_ms => {
                    let message = format!(
                        "{}; the server asks to retry after {}, longer than --max-retry-wait {}{spent}",
                        attempt.message,
                        format_ms(ms),
                        format_ms(self.policy.max_retry_wait_ms)
                    );
                    return Sent { requests, result: Err(HttpError::Failed(redact(message))) };
                }
                Some(ms) => ms,
                None => self.backoff_ms(requests),
            };
            if post.requests_allowed.is_some_and(|allowed| requests >= allowed) {
                return Sent {
                    requests,
                    result: Err(HttpError::OutOfCalls(redact(attempt.message + &spent))),
                };
            }
            std::thread::sleep(Duration::from_millis(wait));
        }
    }

    /// The wait before retry `n` (1-based) without a `Retry-After`: half to
    /// all of `FIRST_BACKOFF_MS × 2^(n-1)`, at most `MAX_BACKOFF_MS` and the
    /// policy's longest wait.
    fn backoff_ms(&mut self, n: u64) -> u64 {
        let full = FIRST_BACKOFF_MS
            .saturating_mul(1u64 << (n - 1).min(20))
            .min(MAX_BACKOFF_MS)
            .min(self.policy.max_retry_wait_ms);
        // xorshift64: jitter needs no more.
        self.jitter ^= self.jitter << 13;
        self.jitter ^= self.jitter >> 7;
        self.jitter ^= self.jitter << 17;
        full / 2 + self.jitter % (full / 2 + 1)
    }

    fn attempt(
        &self,
        post: &Post<'_>,
        chunk: &mut dyn FnMut(&[u8]) -> Result<(), String>,
    ) -> Result<(), Attempt> {
        let endpoint = format!("POST {}", post.url);
        let sent_at = Instant::now();
        let mut request = self
            .agent
            .post(post.url)
            .header("Content-Type", "application/json")
            .header("Accept", post.accept);
        if let Some(key) = post.key {
            request = request.header("Authorization", format!("Bearer {key}"));
        }
        let response = request.send(post.body).map_err(|e| self.transport_error(&endpoint, &e))?;
        let status = response.status();
        if !status.is_success() {
            let code = status.as_u16();
            let retry_after = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| retry_after_ms(v, SystemTime::now()));
            let mut text = String::new();
            // The error body is read with the same deadlines as the request.
            let _ = response
                .into_body()
                .into_with_config()
                .limit(MAX_ERROR_BODY)
                .reader()
                .read_to_string(&mut text);
            let reason = status.canonical_reason().map_or(String::new(), |r| format!(" {r}"));
            let said = server_error_text(&text).map_or(String::new(), |t| format!(": {t}"));
            return Err(Attempt {
                message: format!("{endpoint}: HTTP {code}{reason}{said}"),
                retry_after_ms: retry_after,
                retryable: code == 408 || code == 429 || status.is_server_error(),
            });
        }
        let reader = response.into_body().into_with_config().limit(MAX_BODY).reader();
        self.stream(reader, sent_at, &endpoint, chunk).map_err(|message| Attempt {
            message,
            retry_after_ms: None,
            retryable: false,
        })
    }

    /// Reads the body on a helper thread and hands its chunks to `chunk`,
    /// within the first-token, idle and whole-request deadlines.
    fn stream(
        &self,
        mut reader: impl Read + Send + 'static,
        sent_at: Instant,
        endpoint: &str,
        chunk: &mut dyn FnMut(&[u8]) -> Result<(), String>,
    ) -> Result<(), String> {
        let (tx, rx) = mpsc::sync_channel::<std::io::Result<Vec<u8>>>(64);
        std::thread::spawn(move || {
            loop {
                let mut buf = vec![0u8; 16 * 1024];
                match reader.read(&mut buf) {
                    Ok(0) => return,
                    Ok(n) => {
                        buf.truncate(n);
                        if tx.send(Ok(buf)).is_err() {
                            return;
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            }
        });
        let p = &self.policy;
        let whole = sent_at + Duration::from_millis(p.request_ms);
        let mut first = true;
        loop {
            let now = Instant::now();
            let (limit, what) = if first {
                (sent_at + Duration::from_millis(p.first_token_ms), "first-token")
            } else {
                (now + Duration::from_millis(p.idle_ms), "idle")
            };
            let (limit, what) = if whole < limit { (whole, "request") } else { (limit, what) };
            match rx.recv_timeout(limit.saturating_duration_since(now)) {
                Ok(Ok(data)) => {
                    first = false;
                    chunk(&data).map_err(|e| format!("{endpoint}: {e}"))?;
                }
                // ureq's own whole-request deadline starts a moment after
                // ours and may end the read first: it is the same deadline,
                // so it gets the same words.
                Ok(Err(e)) => match ureq::Error::from(e) {
                    timeout @ ureq::Error::Timeout(_) => {
                        return Err(self.transport_error(endpoint, &timeout).message);
                    }
                    ureq::Error::Io(e) => {
                        return Err(format!("{endpoint}: reading the answer: {}", io_text(&e)));
                    }
                    other => return Err(format!("{endpoint}: reading the answer: {other}")),
                },
                Err(RecvTimeoutError::Disconnected) => return Ok(()),
                Err(RecvTimeoutError::Timeout) => {
                    let message = match what {
                        "first-token" => {
                            format!("no answer within --first-token-timeout {}", format_ms(p.first_token_ms))
                        }
                        "idle" => format!("the answer stalled for --idle-timeout {}", format_ms(p.idle_ms)),
                        _ => format!(
                            "the request took longer than --request-timeout {}",
                            format_ms(p.request_ms)
                        ),
                    };
                    return Err(format!("{endpoint}: {message}"));
                }
            }
        }
    }

    /// A request that got no response: connection errors may be retried,
    /// a timeout may not.
    fn transport_error(&self, endpoint: &str, error: &ureq::Error) -> Attempt {
        use ureq::Error as E;
        use ureq::Timeout as T;
        let p = &self.policy;
        let (message, retryable) = match error {
            E::Timeout(T::Connect | T::Resolve) => {
                (format!("could not connect within --connect-timeout {}", format_ms(p.connect_ms)), true)
            }
            E::Timeout(T::Global | T::PerCall) => {
                (format!("the request took longer than --request-timeout {}", format_ms(p.request_ms)), false)
            }
            E::Timeout(_) => {
                (format!("no answer within --first-token-timeout {}", format_ms(p.first_token_ms)), false)
            }
            E::HostNotFound => ("the host was not found".to_string(), true),
            E::ConnectionFailed => ("the connection failed".to_string(), true),
            E::Io(e) => (format!("connection error: {}", io_text(e)), true),
            E::BadUri(uri) => (format!("`{uri}` is not a URL this client can use"), false),
            other => (other.to_string(), false),
        };
        Attempt { message: format!("{endpoint}: {message}"), retry_after_ms: None, retryable }
    }
}

fn io_text(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::ConnectionRefused => "connection refused".into(),
        std::io::ErrorKind::ConnectionReset => "connection reset by the server".into(),
        std::io::ErrorKind::UnexpectedEof => "the server closed the connection early".into(),
        _ => e.to_string(),
    }
}

/// The path of `url` (`http://h:8080/v1/chat/completions` →
/// `/v1/chat/completions`): what a cassette keys an endpoint by.
pub fn path_of(url: &str) -> &str {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    after_scheme.find('/').map_or("/", |at| &after_scheme[at..])
}

/// `message` with every occurrence of the key replaced.
pub fn redact(message: String, key: Option<&str>) -> String {
    match key {
        Some(key) if !key.is_empty() && message.contains(key) => message.replace(key, "[redacted]"),
        _ => message,
    }
}

/// A `Retry-After` value (delay in seconds, or an HTTP date) as
/// milliseconds from `now`; a date in the past is no wait.
pub fn retry_after_ms(value: &str, now: SystemTime) -> Option<u64> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(seconds.saturating_mul(1000));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).map_or(0, |d| d.as_millis() as u64))
}

/// The server's own error text: `error.message`, `error` or `message` of
/// a JSON body, else the body itself, trimmed and shortened; `None` when empty.
pub fn server_error_text(body: &str) -> Option<String> {
    let from_json = serde_json::from_str::<serde_json::Value>(body).ok().and_then(|json| {
        let error = json.get("error");
        let text = error
            .and_then(|e| e.get("message"))
            .or(error)
            .or_else(|| json.get("message"))
            .or_else(|| json.get("detail"))?;
        Some(text.as_str().map_or_else(|| text.to_string(), str::to_string))
    });
    let text = from_json.unwrap_or_else(|| body.to_string());
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let mut shown: String = text.chars().take(500).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    Some(shown)
}

/// Splits a streamed body into lines (SSE and NDJSON are both line-based),
/// whatever the chunk boundaries; `\r\n` and `\n` both end a line.
#[derive(Debug, Default)]
pub struct Lines {
    pending: Vec<u8>,
}

impl Lines {
    /// Feeds a chunk; `line` gets each complete line, without its ending.
    pub fn feed(
        &mut self,
        data: &[u8],
        line: &mut dyn FnMut(&str) -> Result<(), String>,
    ) -> Result<(), String> {
        self.pending.extend_from_slice(data);
        let mut start = 0;
        while let Some(end) = self.pending[start..].iter().position(|&b| b == b'\n') {
            let raw = &self.pending[start..start + end];
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            let text = std::str::from_utf8(raw).map_err(|_| "the answer is not UTF-8".to_string())?;
            line(text)?;
            start += end + 1;
        }
        self.pending.drain(..start);
        Ok(())
    }

    /// What is left after the last line ending (a last line without one).
    pub fn rest(&self) -> &[u8] {
        &self.pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> Policy {
        Policy::of(&ProviderSettings::default())
    }

    #[test]
    fn an_endpoint_is_the_urls_path() {
        assert_eq!(path_of("http://127.0.0.1:8080/v1/chat/completions"), "/v1/chat/completions");
        assert_eq!(path_of("https://api.openai.com/v1/completions"), "/v1/completions");
        assert_eq!(path_of("http://h:8080"), "/");
    }

    /// ureq's whole-request deadline can end the body's read a moment
    /// before ours does (under load it did): the same words as ours.
    #[test]
    fn ureqs_timeout_while_reading_reads_as_the_request_timeout() {
        struct TimesOut;
        impl Read for TimesOut {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(ureq::Error::Timeout(ureq::Timeout::Global).into_io())
            }
        }
        let client = Client::new(policy());
        let error = client.stream(TimesOut, Instant::now(), "POST /v1/x", &mut |_| Ok(())).unwrap_err();
        assert_eq!(error, "POST /v1/x: the request took longer than --request-timeout 10m");
    }

    #[test]
    fn retry_after_is_seconds_or_a_date() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_480);
        assert_eq!(retry_after_ms("3", now), Some(3000));
        assert_eq!(retry_after_ms(" 120 ", now), Some(120_000));
        // 2015-10-21 07:28:00 UTC is `now`; 30 seconds later:
        assert_eq!(retry_after_ms("Wed, 21 Oct 2015 07:28:30 GMT", now), Some(30_000));
        assert_eq!(retry_after_ms("Wed, 21 Oct 2015 07:00:00 GMT", now), Some(0));
        assert_eq!(retry_after_ms("soon", now), None);
        assert_eq!(retry_after_ms("-1", now), None);
    }

    #[test]
    fn backoff_doubles_with_jitter_and_is_capped() {
        let mut client = Client::new(policy());
        for n in 1..=12u64 {
            let full = (500u64 << (n - 1)).min(30_000);
            let wait = client.backoff_ms(n);
            assert!(wait >= full / 2 && wait <= full, "retry {n}: {wait} not in [{}, {full}]", full / 2);
        }
        let mut short = Client::new(Policy { max_retry_wait_ms: 0, ..policy() });
        assert_eq!(short.backoff_ms(3), 0);
    }

    #[test]
    fn server_error_text_is_found_in_common_shapes() {
        let t = |body: &str| server_error_text(body);
        assert_eq!(
            t(r#"{"error":{"message":"model not found","type":"x"}}"#).as_deref(),
            Some("model not found")
        );
        assert_eq!(t(r#"{"error":"overloaded"}"#).as_deref(), Some("overloaded"));
        assert_eq!(t(r#"{"message":"bad"}"#).as_deref(), Some("bad"));
        assert_eq!(t("  plain text\n").as_deref(), Some("plain text"));
        assert_eq!(t(""), None);
        assert_eq!(t(&"x".repeat(600)).unwrap().chars().count(), 501);
    }

    #[test]
    fn keys_are_redacted() {
        assert_eq!(redact("bad key sk-1 given".into(), Some("sk-1")), "bad key [redacted] given");
        assert_eq!(redact("no key".into(), Some("")), "no key");
        assert_eq!(redact("no key".into(), None), "no key");
    }

    #[test]
    fn lines_survive_any_chunking() {
        let body = b"data: a\r\n\r\ndata: \xc3\xa9\n\ndata: [DONE]\n";
        for cut in 0..body.len() {
            let mut lines = Lines::default();
            let mut seen = Vec::new();
            let mut push = |l: &str| {
                seen.push(l.to_string());
                Ok(())
            };
            lines.feed(&body[..cut], &mut push).unwrap();
            lines.feed(&body[cut..], &mut push).unwrap();
            assert_eq!(seen, ["data: a", "", "data: é", "", "data: [DONE]"], "cut at {cut}");
            assert!(lines.rest().is_empty());
        }
        let err = Lines::default().feed(b"\xff\n", &mut |_| Ok(())).unwrap_err();
        assert!(err.contains("not UTF-8"));
    }
}
