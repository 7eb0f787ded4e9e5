//! Typed answers (book: reference/types.md) from a real 135M model: a fixed suite of 24
//! extraction prompts (records, enums, lists, optional fields, nested
//! records, a type at the top that is not a record), each a small plan run
//! by `tissvm run --provider completion` against the real llama.cpp server
//! (`tiss_test_support::llm_server`), at temperature 0 with a fixed seed and
//! the `--repeat-penalty` the book recommends (guide/models.md) for small models ([`REPEAT_PENALTY`]).
//!
//! - Constrained (asserted): the VM sends each type's JSON Schema as
//!   llama.cpp's `json_schema`, and every first answer validates — one
//!   request per prompt, no repair, the run completes: 100%.
//! - Unconstrained (asserted: one repair exactly after an invalid answer,
//!   `invalid_answer` after a second; the figures with `benches/typed_answers.sh`): the
//!   same runs through a proxy that takes `json_schema` out of every request,
//!   so the model answers freely; the VM validates it and sends its one
//!   repair request (`layout::repair_message`, also without the schema), as
//!   it does for any provider. Prints how many answers are valid on the first
//!   try and after the repair, constrained and not.
//!
//! Each query says in words which keys the JSON must have, as a plan written
//! for an unconstrained model would; the prompt is the same in both modes.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::common::Fixture;
use serde_json::Value as Json;

/// One extraction: the plan's TYPEs, the type the answer must have, the
/// query, and the text it is asked about (bound with VAR, sent as context).
struct Case {
    name: &'static str,
    types: &'static str,
    answer_type: &'static str,
    query: &'static str,
    text: &'static str,
}

const fn case(
    name: &'static str,
    types: &'static str,
    answer_type: &'static str,
    query: &'static str,
    text: &'static str,
) -> Case {
    Case { name, types, answer_type, query, text }
}

/// The suite: fixed, so the figures of two builds compare.
const SUITE: &[Case] = &[
    case(
        "person",
        "TYPE Person = { name: STRING, age: INT }",
        "Person",
        "Extract the person. Answer with a JSON object with the keys name (a string) and age (an integer).",
        "Alice Smith is 34 years old and lives in Leeds.",
    ),
    case(
        "sentiment",
        "",
        "\"positive\" | \"negative\" | \"neutral\"",
        "What is the sentiment of the text? Answer with one JSON string: positive, negative or neutral.",
        "I love this phone, the battery lasts for days.",
    ),
    case(
        "spam",
        "TYPE Spam = { is_spam: BOOL }",
        "Spam",
        "Is this message spam? Answer with a JSON object with the key is_spam (true or false).",
        "WIN A FREE CRUISE!!! Click the link now to claim your prize.",
    ),
    case(
        "colours",
        "",
        "LIST OF STRING",
        "List the colours named in the text. Answer with a JSON array of strings.",
        "The flag is red, white and blue.",
    ),
    case(
        "count",
        "",
        "INT",
        "How many items does the order contain? Answer with one JSON integer.",
        "Your order of 12 items has shipped.",
    ),
    case(
        "triage",
        "TYPE Triage = { severity: \"low\" | \"medium\" | \"high\", component: STRING, labels: LIST OF STRING, \
         duplicate_of?: INT }",
        "Triage",
        "Triage this bug report. Answer with a JSON object with the keys severity (low, medium or high), \
         component (a string), labels (an array of strings) and, if it repeats an earlier issue, duplicate_of \
         (an integer).",
        "The CLI crashes with a stack trace when the config file is empty.",
    ),
    case(
        "test selection",
        "TYPE Selection = { run_all: BOOL, files?: LIST OF \"test_math.sh\" | \"test_text.sh\", reason: STRING }",
        "Selection",
        "Which test files cover the change? Answer with a JSON object with the keys run_all (true or false), \
         files (an array of test_math.sh or test_text.sh) and reason (a string).",
        "The change fixes integer division in math.sh.",
    ),
    case(
        "address",
        "TYPE Address = { street: STRING, city: STRING, postcode: STRING }\n\
         TYPE Customer = { name: STRING, address: Address }",
        "Customer",
        "Extract the customer. Answer with a JSON object with the keys name (a string) and address (an object \
         with the keys street, city and postcode, all strings).",
        "Ship to Bob Jones, 12 High Street, Oxford, OX1 4AB.",
    ),
    case(
        "event",
        "TYPE Event = { title: STRING, day: \"monday\" | \"tuesday\" | \"wednesday\" | \"thursday\" | \"friday\" \
         | \"saturday\" | \"sunday\", hour: INT }",
        "Event",
        "Extract the event. Answer with a JSON object with the keys title (a string), day (a weekday in lower \
         case) and hour (an integer from 0 to 23).",
        "The team lunch is on Friday at 13:00.",
    ),
    case(
        "prices",
        "TYPE Price = { product: STRING, dollars: INT }",
        "LIST OF Price",
        "List each product and its price. Answer with a JSON array of objects with the keys product (a string) \
         and dollars (an integer).",
        "Apples cost 3 dollars and bread costs 2 dollars.",
    ),
    case(
        "contact",
        "TYPE Contact = { name: STRING, email?: STRING, phone?: STRING }",
        "Contact",
        "Extract the contact. Answer with a JSON object with the keys name (a string), email (a string, if \
         given) and phone (a string, if given).",
        "Write to Carol White at carol@example.com.",
    ),
    case(
        "review",
        "TYPE Review = { verdict: \"approve\" | \"reject\", reasons: LIST OF STRING, risk: INT, files?: LIST OF \
         STRING }",
        "Review",
        "Review this change. Answer with a JSON object with the keys verdict (approve or reject), reasons (an \
         array of strings), risk (an integer from 0 to 5) and files (an array of file names, if any).",
        "-    return a / b\n+    return a / b if b != 0 else 0",
    ),
    case(
        "language",
        "",
        "\"english\" | \"french\" | \"german\" | \"spanish\"",
        "Which language is the text in? Answer with one JSON string: english, french, german or spanish.",
        "Bonjour, comment allez-vous aujourd'hui ?",
    ),
    case(
        "log line",
        "TYPE LogLine = { level: \"debug\" | \"info\" | \"warning\" | \"error\", message: STRING, code?: INT }",
        "LogLine",
        "Parse the log line. Answer with a JSON object with the keys level (debug, info, warning or error), \
         message (a string) and code (an integer, if the line has one).",
        "2024-05-01 12:00:03 ERROR disk full (code 28)",
    ),
    case(
        "book",
        "TYPE Book = { title: STRING, author: STRING, year: INT }",
        "Book",
        "Extract the book. Answer with a JSON object with the keys title, author (strings) and year (an \
         integer).",
        "Pride and Prejudice was written by Jane Austen and published in 1813.",
    ),
    case(
        "weather",
        "TYPE Weather = { city: STRING, celsius: INT, sky: \"sunny\" | \"cloudy\" | \"rainy\" }",
        "Weather",
        "Extract the weather report. Answer with a JSON object with the keys city (a string), celsius (an \
         integer) and sky (sunny, cloudy or rainy).",
        "In Madrid it is 31 degrees and sunny today.",
    ),
    case(
        "yes or no",
        "TYPE Decision = { answer: BOOL, reason: STRING }",
        "Decision",
        "Does the text say the shop is open on Sunday? Answer with a JSON object with the keys answer (true or \
         false) and reason (a string).",
        "The shop is open from Monday to Saturday.",
    ),
    case(
        "issue tags",
        "TYPE Tags = { tags: LIST OF \"bug\" | \"feature\" | \"docs\" | \"question\" }",
        "Tags",
        "Tag this issue. Answer with a JSON object with the key tags (an array of bug, feature, docs or \
         question).",
        "The README says to run make install, but there is no Makefile.",
    ),
    case(
        "order",
        "TYPE Line = { product: STRING, quantity: INT }\n\
         TYPE Order = { customer: STRING, items: LIST OF Line, express: BOOL }",
        "Order",
        "Extract the order. Answer with a JSON object with the keys customer (a string), items (an array of \
         objects with the keys product, a string, and quantity, an integer) and express (true or false).",
        "Dan orders 2 lamps and 1 desk, with standard delivery.",
    ),
    case(
        "meeting",
        "TYPE Meeting = { attendees: LIST OF STRING, room?: STRING, minutes: INT }",
        "Meeting",
        "Extract the meeting. Answer with a JSON object with the keys attendees (an array of names), room (a \
         string, if given) and minutes (an integer).",
        "Eve and Frank meet in room B2 for 30 minutes.",
    ),
    case(
        "commit",
        "TYPE Commit = { kind: \"fix\" | \"feat\" | \"chore\" | \"docs\", scope?: STRING, breaking: BOOL }",
        "Commit",
        "Classify the commit message. Answer with a JSON object with the keys kind (fix, feat, chore or docs), \
         scope (a string, if any) and breaking (true or false).",
        "fix(parser): accept a trailing comma in lists",
    ),
    case(
        "test failure",
        "TYPE Failure = { test: STRING, file: STRING, line: INT, flaky: BOOL }",
        "Failure",
        "Extract the test failure. Answer with a JSON object with the keys test, file (strings), line (an \
         integer) and flaky (true or false).",
        "FAILED test_login in tests/test_auth.py at line 42 (it fails every time).",
    ),
    case(
        "dependencies",
        "TYPE Dependency = { name: STRING, version: STRING }",
        "LIST OF Dependency",
        "List the dependencies. Answer with a JSON array of objects with the keys name and version (strings).",
        "serde = 1.0.200\nregex = 1.10.4",
    ),
    case(
        "ticket",
        "TYPE Owner = { name: STRING, team: \"web\" | \"infra\" | \"data\" }\n\
         TYPE Ticket = { id: INT, owner: Owner, status: \"open\" | \"closed\", blocked_by?: LIST OF INT }",
        "Ticket",
        "Extract the ticket. Answer with a JSON object with the keys id (an integer), owner (an object with the \
         keys name, a string, and team: web, infra or data), status (open or closed) and blocked_by (an array \
         of integers, if any).",
        "Ticket 481 is open and assigned to Grace from the infra team.",
    ),
];

/// The model's sampling: deterministic on one machine (the server's prompt
/// cache is off).
const SEED: &str = "42";
const MAX_TOKENS: &str = "256";
/// The `--repeat-penalty` the book recommends (guide/models.md) for a small model: at
/// temperature 0 without it, SmolLM2-135M repeats a list element or a
/// phrase until `--max-tokens`, schema or not.
const REPEAT_PENALTY: &str = "1.15";

/// The penalty the suite runs with: [`REPEAT_PENALTY`], or, to measure
/// another (`benches/typed_answers.sh PENALTY`), `TISS_TYPED_REPEAT_PENALTY`
/// (read by this test, never by tissvm, which is given the flag).
fn repeat_penalty() -> String {
    std::env::var("TISS_TYPED_REPEAT_PENALTY").unwrap_or_else(|_| REPEAT_PENALTY.to_string())
}

/// A TissLang string literal of `text`.
fn literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '$' => out.push_str("\\$"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl Case {
    /// The plan: the case's TYPEs, its text as a variable, the typed prompt
    /// with that context, and the answer logged (as JSON for a list or a
    /// record).
    fn plan(&self) -> String {
        format!(
            "#TISS_VERSION >= 1.1\nTASK {}\n{}\nSTEP \"extract\" {{\n    VAR text = {}\n    \
             PROMPT_AGENT {} WITH text INTO answer AS {}\n    LOG \"${{answer}}\"\n}}\n",
            literal(&format!("typed suite: {}", self.name)),
            self.types,
            literal(self.text),
            literal(self.query),
            self.answer_type
        )
    }
}

/// What one run of a case came to.
#[derive(Debug)]
struct Outcome {
    /// Requests sent: 1 when the first answer validated, 2 with the repair.
    api_calls: u64,
    /// The run completed: its answer (the first or the repaired) validated.
    valid: bool,
    /// The failure's kind and message, when it did not.
    failure: Option<(String, String)>,
    /// What the VM logged of the answer (JSON), when it validated.
    logged: Option<String>,
    /// Each answer's text as the model gave it and why it ended (`stop`, or
    /// `length`: cut off by `--max-tokens`), from the run's cassette.
    answers: Vec<(String, String)>,
}

impl Outcome {
    fn first_try(&self) -> bool {
        self.valid && self.api_calls == 1
    }
}

/// `case` run by `tissvm run --provider completion` against `base_url`.
fn run(case: &Case, base_url: &str) -> Outcome {
    let fx = Fixture::new();
    let cassette = fx.path("cassette.json");
    let penalty = repeat_penalty();
    let args = [
        "--provider",
        "completion",
        "--template",
        "chatml",
        "--base-url",
        base_url,
        "--temperature",
        "0",
        "--seed",
        SEED,
        "--max-tokens",
        MAX_TOKENS,
        "--repeat-penalty",
        &penalty,
        "--max-retries",
        "2",
        // A 135M model on two busy cores (CI's other tests, other servers)
        // can take minutes to start an answer; the figure is validity, not speed.
        "--first-token-timeout",
        "10m",
        "--record",
        cassette.to_str().unwrap(),
        "--output-format",
        "json",
    ];
    let run = fx.run(&case.plan(), &args);
    let report = run.json();
    assert!(
        matches!(run.code, Some(0 | 1)),
        "{}: exit {:?}\n{}\n{}",
        case.name,
        run.code,
        run.stdout,
        run.stderr
    );
    let failure = report["failure"].as_object().map(|f| {
        (f["kind"].as_str().unwrap_or("").to_string(), f["message"].as_str().unwrap_or("").to_string())
    });
    if let Some((kind, message)) = &failure {
        // Anything but a validation failure is the set-up's, not the model's.
        assert_eq!(kind, "invalid_answer", "{}: {message}\n{}", case.name, run.stderr);
    }
    let answers = std::fs::read(&cassette)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Json>(&bytes).ok())
        .map(|c| {
            c["entries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| {
                    let response = &e["response"];
                    let text = response["text"].as_str().unwrap().to_string();
                    (text, response["finish_reason"].as_str().unwrap_or("").to_string())
                })
                .collect()
        })
        .unwrap_or_default();
    Outcome {
        api_calls: report["cost"]["api_calls"].as_u64().unwrap(),
        valid: run.code == Some(0),
        failure,
        logged: report["steps"][0]["logs"][0].as_str().map(str::to_string),
        answers,
    }
}

/// Every plan of the suite compiles and runs offline: the mock answers each
/// schema's smallest value (a check that needs no model).
#[test]
fn every_plan_of_the_typed_suite_runs_with_the_mock() {
    assert!(SUITE.len() >= 20);
    for case in SUITE {
        let fx = Fixture::new();
        let run = fx.run(&case.plan(), &["--output-format", "json"]);
        assert_eq!(run.code, Some(0), "{}:\n{}\n{}", case.name, run.stdout, run.stderr);
        assert_eq!(run.json()["cost"]["api_calls"], 1, "{}", case.name);
    }
}

/// Kept to each type's JSON Schema, with the recommended `--repeat-penalty`,
/// the real 135M model's every answer is schema-valid on the first try: one
/// request per prompt, no repair, the run completes (100%). The schema
/// constrains what the model writes, not when it stops; the penalty ends the
/// loops (a list element or a phrase repeated until `--max-tokens`, the
/// repair looping again) that greedy decoding falls into without it.
#[test]
fn a_real_model_kept_to_the_schema_answers_every_typed_prompt_validly() {
    let Some(base_url) = tiss_test_support::llm_server::base_url() else { return };
    let wrong: Vec<String> = SUITE
        .iter()
        .filter_map(|case| {
            let outcome = run(case, base_url);
            (!outcome.first_try()).then(|| format!("{}: {outcome:?}", case.name))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} answers kept to the schema, at --repeat-penalty {}, were not valid on the first try:\n{}",
        wrong.len(),
        SUITE.len(),
        repeat_penalty(),
        wrong.join("\n")
    );
}

/// A loopback proxy to llama.cpp that takes `json_schema` out of every
/// request body, so the model answers unconstrained; it counts the schemas
/// it took out.
struct Proxy {
    base_url: String,
    removed: Arc<AtomicUsize>,
    requests: Arc<Mutex<usize>>,
}

impl Proxy {
    fn start(upstream: &str) -> Proxy {
        let upstream = upstream.strip_prefix("http://").unwrap().to_string();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let removed = Arc::new(AtomicUsize::new(0));
        let requests = Arc::new(Mutex::new(0));
        let (counted, seen) = (Arc::clone(&removed), Arc::clone(&requests));
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                *seen.lock().unwrap() += 1;
                forward(client, &upstream, &counted);
            }
        });
        Proxy { base_url, removed, requests }
    }
}

/// One request from `client`, its body without `json_schema`, to `upstream`;
/// the answer streamed back as it comes, the connection closed after it.
fn forward(client: TcpStream, upstream: &str, removed: &AtomicUsize) {
    let mut reader = BufReader::new(client.try_clone().unwrap());
    let mut request_line = String::new();
    reader.read_line(&mut request_line).unwrap();
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if line == "\r\n" || line.is_empty() {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap();
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let mut json: Json = serde_json::from_slice(&body).unwrap();
    if json.as_object_mut().unwrap().remove("json_schema").is_some() {
        removed.fetch_add(1, Ordering::SeqCst);
    }
    let body = json.to_string();
    let path = request_line.split(' ').nth(1).unwrap();
    let mut server = TcpStream::connect(upstream).unwrap();
    write!(
        server,
        "POST {path} HTTP/1.1\r\nHost: {upstream}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    // The head, told to close; then the (chunked) body as it streams.
    let mut from = BufReader::new(server);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if from.read_line(&mut line).unwrap() == 0 || line == "\r\n" {
            break;
        }
        if !line.to_ascii_lowercase().starts_with("connection:") {
            head.push_str(&line);
        }
    }
    head.push_str("Connection: close\r\n\r\n");
    let mut to = client;
    to.write_all(head.as_bytes()).unwrap();
    let mut chunk = [0; 4096];
    loop {
        let n = from.read(&mut chunk).unwrap_or(0);
        if n == 0 || to.write_all(&chunk[..n]).is_err() {
            break;
        }
        let _ = to.flush();
    }
}

/// Unconstrained (through the proxy that takes the schema out of every
/// request), the VM checks what the real model wrote and repairs it once:
/// a valid first answer is one request, an invalid one exactly one repair
/// (two requests); the run passes if and only if the last answer
/// validated, else it is `invalid_answer` naming the type; no request
/// reaches the server with a schema. The figures (how many validate, kept
/// to the schema and not) are printed with `--nocapture`
/// (`benches/typed_answers.sh`, the whole suite); a plain test run takes
/// every fourth case. The constrained half is the test above.
#[test]
fn an_unconstrained_model_is_validated_and_repaired_once() {
    let Some(base_url) = tiss_test_support::llm_server::base_url() else { return };
    let proxy = Proxy::start(base_url);
    let measured = std::env::var_os("TISS_TYPED_FIGURES").is_some();
    let modes: &[(&str, &str)] = if measured {
        &[("constrained", base_url), ("unconstrained", proxy.base_url.as_str())]
    } else {
        &[("unconstrained", proxy.base_url.as_str())]
    };
    // The figures take every case; a test run checks the repair protocol on
    // every fourth (six real answers and their repairs): each case takes the
    // same path, and the whole suite is about two minutes of CI's two cores.
    let stride = if measured { 1 } else { 4 };
    let cases: Vec<&Case> = SUITE.iter().step_by(stride).collect();
    let mut rows = Vec::new();
    for &(mode, url) in modes {
        let (mut first, mut after, mut cut) = (0, 0, 0);
        let started = std::time::Instant::now();
        for case in &cases {
            let one = std::time::Instant::now();
            let outcome = run(case, url);
            let calls = if outcome.first_try() { 1 } else { 2 };
            assert_eq!(
                outcome.api_calls, calls,
                "{}: one repair, only after an invalid answer: {outcome:?}",
                case.name
            );
            assert_eq!(outcome.answers.len() as u64, calls, "{}: {outcome:?}", case.name);
            match &outcome.failure {
                None => assert!(outcome.valid, "{}: {outcome:?}", case.name),
                Some((kind, message)) => {
                    assert!(!outcome.valid, "{}: {outcome:?}", case.name);
                    assert_eq!(kind, "invalid_answer", "{}: {message}", case.name);
                    assert!(message.contains("does not fit the type"), "{}: {message}", case.name);
                }
            }
            first += usize::from(outcome.first_try());
            after += usize::from(outcome.valid);
            cut += usize::from(
                outcome.answers.last().is_some_and(|(_, finish)| finish == "length") && !outcome.valid,
            );
            let verdict = match (outcome.first_try(), outcome.valid) {
                (true, _) => "valid on the first try",
                (false, true) => "valid after the repair",
                (false, false) => "invalid after the repair",
            };
            let shown = |text: &str| -> String {
                let flat = text.replace('\n', "\\n");
                let head: String = flat.chars().take(110).collect();
                if head.len() < flat.len() { format!("{head}…") } else { head }
            };
            eprintln!("{mode:13} {:15} {verdict:24} {:5.1}s", case.name, one.elapsed().as_secs_f64());
            for (n, (answer, finish)) in outcome.answers.iter().enumerate() {
                let what = if n == 0 { "answer" } else { "repair" };
                eprintln!("    {what} ({finish}): {}", shown(answer));
            }
            if let Some(logged) = &outcome.logged {
                eprintln!("    value: {}", shown(logged));
            }
        }
        rows.push((mode, first, after, cut, started.elapsed().as_secs()));
    }
    let requests = *proxy.requests.lock().unwrap();
    assert_eq!(
        proxy.removed.load(Ordering::SeqCst),
        requests,
        "every unconstrained request had its schema taken out"
    );
    let n = cases.len();
    let pct = |k: usize| format!("{k}/{n} ({:.0}%)", 100.0 * k as f64 / n as f64);
    println!(
        "\nSmolLM2-135M-Instruct (Q4_1) on llama.cpp, tissvm run --provider completion --template chatml,"
    );
    println!(
        "--temperature 0 --seed {SEED} --max-tokens {MAX_TOKENS} --repeat-penalty {}; {n} typed prompts \
         (vm/tests/providers/typed_suite.rs)\n",
        repeat_penalty()
    );
    println!(
        "| schema sent | prompts | valid on the first try | valid after the one repair | invalid, cut off by --max-tokens | time |"
    );
    println!("|---|---|---|---|---|---|");
    for (mode, first, after, cut, secs) in rows {
        let sent = if mode == "constrained" { "yes (`json_schema`)" } else { "no" };
        println!("| {sent} | {n} | {} | {} | {cut} | {secs} s |", pct(first), pct(after));
    }
}
