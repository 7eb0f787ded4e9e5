//! `tissc lsp` in process: the server on one end of `Connection::memory`,
//! a client on the other, every feature and the bad input a client may send.

use std::thread;
use std::time::Duration;

use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use serde_json::{Value, json};
use tiss_compiler::lsp::{Ending, serve};

const URI: &str = "file:///plan.tiss";

struct Client {
    conn: Connection,
    server: Option<thread::JoinHandle<Ending>>,
    next_id: i32,
    /// Notifications that arrived while waiting for a response.
    notifications: Vec<Notification>,
}

impl Client {
    /// A server that has answered `initialize`.
    fn start() -> Client {
        let mut client = Client::uninitialized();
        let caps = client.request("initialize", json!({"capabilities": {}}));
        assert_eq!(caps.response_result.unwrap()["capabilities"]["hoverProvider"], json!(true));
        client.notify("initialized", json!({}));
        client
    }

    fn uninitialized() -> Client {
        let (server, conn) = Connection::memory();
        let server = thread::spawn(move || serve(&server));
        Client { conn, server: Some(server), next_id: 0, notifications: Vec::new() }
    }

    fn send(&self, message: impl Into<Message>) {
        self.conn.sender.send(message.into()).unwrap();
    }

    fn notify(&self, method: &str, params: Value) {
        self.send(Notification::new(method.to_string(), params));
    }

    fn receive(&self) -> Message {
        self.conn.receiver.recv_timeout(Duration::from_secs(20)).expect("the server answers")
    }

    fn request(&mut self, method: &str, params: Value) -> Response {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.send(Request::new(id.clone(), method.to_string(), params));
        loop {
            match self.receive() {
                Message::Response(r) if r.id == id => return r,
                Message::Notification(n) => self.notifications.push(n),
                other => panic!("unexpected {other:?}"),
            }
        }
    }

    /// The result of a request that must succeed.
    fn ok(&mut self, method: &str, params: Value) -> Value {
        match self.request(method, params).response_result {
            Ok(result) => result,
            Err(error) => panic!("{method}: {error:?}"),
        }
    }

    /// The error code and message of a request that must fail.
    fn err(&mut self, method: &str, params: Value) -> (i32, String) {
        match self.request(method, params).response_result {
            Ok(result) => panic!("{method} succeeded: {result}"),
            Err(error) => (error.code, error.message),
        }
    }

    /// The next publishDiagnostics notification's parameters.
    fn diagnostics(&mut self) -> Value {
        if let Some(i) = self.notifications.iter().position(|n| n.method == "textDocument/publishDiagnostics")
        {
            return self.notifications.remove(i).params;
        }
        match self.receive() {
            Message::Notification(n) if n.method == "textDocument/publishDiagnostics" => n.params,
            other => panic!("expected diagnostics, got {other:?}"),
        }
    }

    fn open(&mut self, text: &str) -> Value {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": URI, "languageId": "tiss", "version": 1, "text": text}}),
        );
        self.diagnostics()
    }

    fn finish(mut self) -> Ending {
        assert_eq!(self.ok("shutdown", Value::Null), Value::Null);
        self.notify("exit", Value::Null);
        self.server.take().unwrap().join().unwrap()
    }
}

fn at(line: u32, character: u32) -> Value {
    json!({"textDocument": {"uri": URI}, "position": {"line": line, "character": character}})
}

/// The (line, character) of the first `needle` in `text`, in UTF-16 units.
fn find(text: &str, needle: &str) -> (u32, u32) {
    let offset = text.find(needle).unwrap_or_else(|| panic!("`{needle}` not in the plan"));
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..offset].matches('\n').count() as u32;
    (line, text[line_start..offset].encode_utf16().count() as u32)
}

fn labels(completion: &Value) -> Vec<String> {
    completion.as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap().to_string()).collect()
}

const PLAN: &str = r#"TASK "demo"

DEFINE_TASK "build" {
    RUN "make" TIMEOUT 30s
    READ "out.txt" AS report
}

STEP "prepare" {
    VAR greeting = "héllo 😀"
    CALL "build"
    REQUEST_REVIEW "ok?" INTO review
    STEP "inner" {
        LOG "${greeting} ${report}"
    }
}

STEP "check" {
    ASSERT LAST_RUN.EXIT_CODE == 0
    IF review.APPROVED {
        LOG "yes"
    }
}
"#;

#[test]
fn diagnostics_follow_open_and_changes_with_utf16_ranges() {
    let mut client = Client::start();
    // The undefined variable comes after an astral character on its line.
    let text = "TASK \"t\"\nSTEP \"s\" {\n    LOG \"😀 ${nope}\"\n}\n";
    let published = client.open(text);
    assert_eq!(published["uri"], URI);
    assert_eq!(published["version"], 1);
    let diagnostics = published["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["severity"], 1);
    assert_eq!(diagnostics[0]["code"], "E0200");
    assert_eq!(diagnostics[0]["source"], "tissc");
    let (line, character) = find(text, "nope");
    assert_eq!(diagnostics[0]["range"]["start"], json!({"line": line, "character": character}));
    assert_eq!(character, 14, "😀 counts as two UTF-16 units");

    // A ranged edit replaces `nope` with `LAST_RUN.STDOUT`... still an error
    // (no RUN before it); then the whole text, fixed.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{
            "range": {"start": {"line": line, "character": character}, "end": {"line": line, "character": character + 4}},
            "text": "LAST_RUN.STDOUT"}]}),
    );
    let published = client.diagnostics();
    assert_eq!(published["version"], 2);
    let message = published["diagnostics"][0]["message"].as_str().unwrap();
    assert!(message.contains("LAST_RUN"), "{message}");
    let fixed = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"true\"\n    LOG \"😀 ${LAST_RUN.STDOUT}\"\n}\n";
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 3}, "contentChanges": [{"text": fixed}]}),
    );
    // No error now; the lint warnings come too, as `tissc lint` gives them.
    let published = client.diagnostics();
    let warning = &published["diagnostics"][0];
    assert_eq!(published["diagnostics"].as_array().unwrap().len(), 1, "{published}");
    assert_eq!((warning["severity"].clone(), warning["code"].clone()), (json!(2), json!("W0003")));
    assert_eq!(warning["range"]["start"], json!({"line": 2, "character": 4}));
    assert!(warning["message"].as_str().unwrap().contains("TIMEOUT 10m"), "{warning}");
    // Closing clears the document's diagnostics.
    client.notify("textDocument/didClose", json!({"textDocument": {"uri": URI}}));
    assert_eq!(client.diagnostics()["diagnostics"], json!([]));
    assert_eq!(client.finish(), Ending::Clean);
}

#[test]
fn hover_shows_types_bindings_cost_bounds_and_keyword_help() {
    let mut client = Client::start();
    let diagnostics = client.open(PLAN)["diagnostics"].clone();
    assert!(diagnostics.as_array().unwrap().iter().all(|d| d["severity"] == 2), "no errors: {diagnostics}");

    let (line, character) = find(PLAN, "greeting} ");
    let hover = client.ok("textDocument/hover", at(line, character + 2));
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(text.contains("`greeting`: a string"), "{text}");
    assert!(text.contains("line 9 (`VAR`)"), "{text}");

    let (line, character) = find(PLAN, "review.APPROVED");
    let text = client.ok("textDocument/hover", at(line, character))["contents"]["value"].clone();
    assert!(text.as_str().unwrap().contains("`review`: a review"), "{text}");

    // The step's bound: one RUN with a 30s timeout, called from its body.
    let (line, character) = find(PLAN, "STEP \"prepare\"");
    let text = client.ok("textDocument/hover", at(line, character))["contents"]["value"].clone();
    let text = text.as_str().unwrap();
    assert!(text.contains("static cost bound"), "{text}");
    assert!(text.contains("EXECUTION_TIME: 0s … 30s"), "{text}");
    assert!(text.contains("RUN_COUNT: 1 … 1"), "{text}");

    let (line, character) = find(PLAN, "\"build\" {");
    let text = client.ok("textDocument/hover", at(line, character + 1))["contents"]["value"].clone();
    let text = text.as_str().unwrap();
    assert!(text.contains("DEFINE_TASK \"build\"` (line 3)"), "{text}");
    assert!(text.contains("static cost bound of one call") && text.contains("RUN_COUNT: 1 … 1"), "{text}");

    let (line, character) = find(PLAN, "RUN \"make\"");
    let text = client.ok("textDocument/hover", at(line, character + 1))["contents"]["value"].clone();
    assert!(text.as_str().unwrap().contains("RUN string [IN string] [TIMEOUT duration]"), "{text}");

    // A keyword inside a string is text, not a keyword.
    let (line, character) = find(PLAN, "\"make\"");
    assert_eq!(client.ok("textDocument/hover", at(line, character + 2)), Value::Null);
    assert_eq!(client.finish(), Ending::Clean);
}

#[test]
fn completion_offers_keywords_variables_fields_and_tasks() {
    let mut client = Client::start();
    client.open(PLAN);

    // At the start of a statement in "inner": keywords, variables bound
    // before the cursor or in a task, LAST_RUN and COST.
    let (line, _) = find(PLAN, "LOG \"${greeting}");
    let items = labels(&client.ok("textDocument/completion", at(line, 8)));
    for expected in ["RUN", "ASSERT", "PROMPT_AGENT", "greeting", "report", "review", "LAST_RUN", "COST"] {
        assert!(items.contains(&expected.to_string()), "{expected} missing from {items:?}");
    }
    assert!(!items.contains(&"STDOUT".to_string()), "field names only after a dot");

    // After `LAST_RUN.` and after a review's name.
    let (line, character) = find(PLAN, "EXIT_CODE");
    let items = labels(&client.ok("textDocument/completion", at(line, character)));
    assert_eq!(items, ["STDOUT", "STDERR", "EXIT_CODE", "DURATION", "TIMED_OUT", "COMMAND"]);
    let (line, character) = find(PLAN, "APPROVED");
    assert_eq!(labels(&client.ok("textDocument/completion", at(line, character))), ["APPROVED", "COMMENT"]);

    // Task names after CALL, inside its quotes or not.
    let (line, character) = find(PLAN, "build\"\n    REQUEST");
    let result = client.ok("textDocument/completion", at(line, character));
    assert_eq!(labels(&result), ["build"]);
    assert_eq!(result[0]["insertText"], "build");
    // Without the quote yet, the name comes quoted.
    let (line, character) = find(PLAN, "CALL \"build\"");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{
            "range": {"start": {"line": line, "character": character + 5}, "end": {"line": line, "character": character + 12}},
            "text": ""}]}),
    );
    client.diagnostics();
    let result = client.ok("textDocument/completion", at(line, character + 5));
    assert_eq!(
        (labels(&result), result[0]["insertText"].clone()),
        (vec!["build".to_string()], json!("\"build\""))
    );

    // Nothing inside a plain string.
    let (line, character) = find(PLAN, "yes");
    assert_eq!(client.ok("textDocument/completion", at(line, character + 1)), Value::Null);
    assert_eq!(client.finish(), Ending::Clean);
}

#[test]
fn typed_answers_complete_types_outline_types_and_explain_their_keywords() {
    let plan = "#TISS_VERSION >= 1.1\nTASK \"t\"\nTYPE Review = { verdict: \"approve\" | \"reject\", files?: LIST OF STRING }\n\
                STEP \"s\" {\n    PROMPT_AGENT \"q\" INTO r AS Review\n}\n";
    let mut client = Client::start();
    client.open(plan);
    // After `INTO r AS`: the types, the plan's TYPE names with them.
    let (line, character) = find(plan, "Review\n}");
    let items = labels(&client.ok("textDocument/completion", at(line, character)));
    assert_eq!(items, ["STRING", "INT", "BOOL", "LIST", "Review"]);
    // After a field's `:` too.
    let (line, character) = find(plan, "LIST OF");
    assert_eq!(labels(&client.ok("textDocument/completion", at(line, character))).len(), 5);
    // Keywords are offered, TYPE among them, with their help.
    let (line, _) = find(plan, "PROMPT_AGENT");
    let items = labels(&client.ok("textDocument/completion", at(line, 4)));
    for expected in ["TYPE", "LIST", "STRING", "EXISTS"] {
        assert!(items.contains(&expected.to_string()), "{expected} missing from {items:?}");
    }
    let (line, character) = find(plan, "TYPE");
    let hover = client.ok("textDocument/hover", at(line, character + 1));
    assert!(hover["contents"]["value"].as_str().unwrap().contains("TYPE Name = type"), "{hover}");
    // The outline lists the TYPE.
    let symbols = client.ok("textDocument/documentSymbol", json!({"textDocument": {"uri": URI}}));
    let names: Vec<(&str, &str)> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["detail"].as_str().unwrap()))
        .collect();
    assert_eq!(names, [("t", "TASK"), ("Review", "TYPE"), ("s", "STEP")]);
    assert_eq!(client.finish(), Ending::Clean);
}

#[test]
fn completion_counts_utf16_before_the_cursor_and_survives_a_half_typed_edit() {
    let mut client = Client::start();
    let text = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"true\"\n    VAR x = \"a\"\n}\n";
    client.open(text);
    // Type `LOG "é😀 ${COST.` on a new line: the plan does not parse now.
    let typed = "    LOG \"é😀 ${COST.";
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{
            "range": {"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": 0}},
            "text": format!("{typed}\n")}]}),
    );
    assert_ne!(client.diagnostics()["diagnostics"], json!([]));
    let character = typed.encode_utf16().count() as u32;
    let items = labels(&client.ok("textDocument/completion", at(4, character)));
    assert_eq!(items, ["API_CALLS", "TOKEN_COUNT", "EXECUTION_TIME", "RUN_COUNT", "INSTRUCTIONS"]);
    // Inside `${` of the broken line: the variables still come.
    let items = labels(&client.ok("textDocument/completion", at(4, character - 5)));
    assert!(items.contains(&"x".to_string()), "{items:?}");
    assert_eq!(client.finish(), Ending::Clean);
}

#[test]
fn definition_and_references_of_variables_and_tasks() {
    let mut client = Client::start();
    client.open(PLAN);
    let range_of = |needle: &str, len: u32| {
        let (line, character) = find(PLAN, needle);
        json!({"start": {"line": line, "character": character}, "end": {"line": line, "character": character + len}})
    };
    let (line, character) = find(PLAN, "report}");
    let definition = client.ok("textDocument/definition", at(line, character));
    assert_eq!(definition, json!([{"uri": URI, "range": range_of("report\n", 6)}]));

    let (line, character) = find(PLAN, "CALL \"build\"");
    let definition = client.ok("textDocument/definition", at(line, character + 6));
    assert_eq!(definition[0]["range"], range_of("\"build\" {", 7));

    let mut params = at(line, character + 6);
    params["context"] = json!({"includeDeclaration": true});
    let references = client.ok("textDocument/references", params.clone());
    assert_eq!(references.as_array().unwrap().len(), 2, "{references}");
    params["context"] = json!({"includeDeclaration": false});
    let references = client.ok("textDocument/references", params);
    assert_eq!(references, json!([{"uri": URI, "range": range_of("\"build\"\n", 7)}]));

    // Nothing under the cursor: no definition.
    assert_eq!(client.ok("textDocument/definition", at(1, 0)), Value::Null);
    assert_eq!(client.finish(), Ending::Clean);
}

#[test]
fn document_symbols_are_the_plan_outline() {
    let mut client = Client::start();
    client.open(PLAN);
    let symbols = client.ok("textDocument/documentSymbol", json!({"textDocument": {"uri": URI}}));
    let outline: Vec<(String, String)> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["detail"].as_str().unwrap().to_string(), s["name"].as_str().unwrap().to_string()))
        .collect();
    let expected = [("TASK", "demo"), ("DEFINE_TASK", "build"), ("STEP", "prepare"), ("STEP", "check")];
    assert_eq!(outline, expected.map(|(a, b)| (a.to_string(), b.to_string())));
    assert_eq!(symbols[2]["children"][0]["name"], "inner");
    assert_eq!(symbols[2]["selectionRange"]["start"], json!({"line": 7, "character": 5}));
    assert_eq!(client.finish(), Ending::Clean);
}

#[test]
fn bad_requests_get_error_responses_and_the_server_goes_on() {
    let mut client = Client::uninitialized();
    // Before initialize.
    assert_eq!(client.err("textDocument/hover", at(0, 0)).0, -32002);
    client.ok("initialize", json!({"capabilities": {}}));
    assert_eq!(client.err("initialize", json!({"capabilities": {}})).0, -32600);
    let (code, message) = client.err("workspace/frobnicate", json!({}));
    assert_eq!(code, -32601);
    assert!(message.contains("workspace/frobnicate"), "{message}");
    let (code, message) = client.err("textDocument/hover", json!({"nonsense": 1}));
    assert_eq!(code, -32602);
    assert!(message.contains("textDocument/hover"), "{message}");
    let (code, message) = client.err("textDocument/completion", at(0, 0));
    assert_eq!(code, -32602);
    assert!(message.contains("not open") && message.contains("didOpen"), "{message}");
    // A bad notification is told in the log, with no response.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": []}),
    );
    let log = match client.receive() {
        Message::Notification(n) if n.method == "window/logMessage" => n.params,
        other => panic!("expected a log message, got {other:?}"),
    };
    assert!(log["message"].as_str().unwrap().contains("not open"), "{log}");
    // An edit past the end of the document is refused, the document kept.
    client.open("TASK \"t\"\n");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{
            "range": {"start": {"line": 9, "character": 0}, "end": {"line": 9, "character": 0}}, "text": "x"}]}),
    );
    assert!(matches!(client.receive(), Message::Notification(n) if n.method == "window/logMessage"));
    assert_eq!(
        client.ok("textDocument/documentSymbol", json!({"textDocument": {"uri": URI}}))[0]["name"],
        "t"
    );
    // A position past the end answers nothing rather than failing.
    assert_eq!(client.ok("textDocument/hover", at(99, 0)), Value::Null);
    // After shutdown only exit.
    client.ok("shutdown", Value::Null);
    assert_eq!(client.err("textDocument/hover", at(0, 0)).0, -32600);
    client.notify("exit", Value::Null);
    assert_eq!(client.server.take().unwrap().join().unwrap(), Ending::Clean);
}

/// Applies LSP text edits (on distinct ranges) to a text.
fn apply(text: &str, edits: &Value) -> String {
    let offset = |position: &Value| {
        let line = position["line"].as_u64().unwrap() as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        let mut units = 0;
        let line_text = &text[start..];
        let within = line_text
            .char_indices()
            .find(|&(_, c)| {
                let reached = units >= position["character"].as_u64().unwrap() as usize || c == '\n';
                units += c.len_utf16();
                reached
            })
            .map_or(line_text.len(), |(i, _)| i);
        start + within
    };
    let mut edits: Vec<&Value> = edits.as_array().unwrap().iter().collect();
    edits.sort_by_key(|e| std::cmp::Reverse(offset(&e["range"]["start"])));
    let mut text = text.to_string();
    for edit in edits {
        let (start, end) = (offset(&edit["range"]["start"]), offset(&edit["range"]["end"]));
        text.replace_range(start..end, edit["newText"].as_str().unwrap());
    }
    text
}

#[test]
fn formatting_is_tissc_fmt_as_small_edits() {
    let mut client = Client::start();
    let messy = "TASK   \"t\"\nSTEP \"é😀\" {\n  VAR x=\"a\"   # kept\n      LOG \"${x}\"\n}\n";
    client.open(messy);
    let formatting = json!({"textDocument": {"uri": URI}, "options": {"tabSize": 4, "insertSpaces": true}});
    let edits = client.ok("textDocument/formatting", formatting.clone());
    let expected = tiss_compiler::fmt::format_source(messy).unwrap();
    assert_ne!(expected, messy);
    assert_eq!(apply(messy, &edits), expected);
    // The edit covers what changed, not the whole text.
    assert_eq!(edits[0]["range"]["start"], json!({"line": 0, "character": 5}), "{edits}");

    // A formatted plan needs no edit.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": expected}]}),
    );
    client.diagnostics();
    assert_eq!(client.ok("textDocument/formatting", formatting.clone()), json!([]));

    // A plan with syntax errors is left as it is, and the reply says why.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 3}, "contentChanges": [{"text": "TASK \"t\"\nSTEP \"s\" {\n  RUN\n"}]}),
    );
    client.diagnostics();
    let (code, message) = client.err("textDocument/formatting", formatting);
    assert_eq!(code, -32803);
    assert!(message.contains("left as it is") && message.contains("line "), "{message}");
    assert_eq!(client.finish(), Ending::Clean);
}

/// Quick fixes: each suggestion of a diagnostic under the cursor, its edit
/// exact in UTF-16 positions; `machine` ones preferred, `maybe` ones (here
/// lint's W0004) offered but not preferred.
#[test]
fn code_actions_offer_each_suggestion_as_a_quick_fix() {
    let mut client = Client::start();
    let mut version = 1;
    let mut actions = |client: &mut Client, text: &str, line: u32, character: u32| {
        version += 1;
        client.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": URI, "version": version}, "contentChanges": [{"text": text}]}),
        );
        client.diagnostics();
        let cursor = json!({"line": line, "character": character});
        let params = json!({"textDocument": {"uri": URI}, "range": {"start": cursor, "end": cursor}, "context": {"diagnostics": []}});
        client.ok("textDocument/codeAction", params)
    };
    client.open("TASK \"t\"\n");

    // A machine fix after astral characters on its line.
    let broken = "TASK \"t\"\nSTEP \"s\" {\n    VAR x = \"a\"\n    ASSERT \"é😀\" = x\n}\n";
    let (line, character) = find(broken, "= x");
    let found = actions(&mut client, broken, line, character);
    assert_eq!(found.as_array().unwrap().len(), 1, "{found}");
    let action = &found[0];
    assert_eq!(action["kind"], "quickfix");
    assert_eq!(action["isPreferred"], true);
    assert_eq!(action["title"], "compare with: `==`");
    assert_eq!(action["diagnostics"][0]["code"], "E0100");
    let edits = &action["edit"]["changes"][URI];
    assert_eq!(edits[0]["range"]["start"], json!({"line": 3, "character": 17}), "UTF-16: 😀 counts twice");
    assert_eq!(apply(broken, edits), broken.replace("= x", "== x"));
    // Away from the diagnostic there is nothing to fix.
    assert_eq!(actions(&mut client, broken, 0, 0), json!([]));

    // Lint's `maybe` suggestion: offered, not preferred.
    let risky = "TASK \"t\"\nSET_BUDGET API_CALLS = 9\nSTEP \"s\" {\n    RUN \"echo é😀; chmod 777 site\" TIMEOUT 1m\n    ASSERT LAST_RUN.EXIT_CODE == 0\n}\n";
    let (line, character) = find(risky, "chmod");
    let found = actions(&mut client, risky, line, character);
    assert_eq!(found.as_array().unwrap().len(), 1, "{found}");
    assert_eq!(found[0]["isPreferred"], false);
    assert_eq!(found[0]["diagnostics"][0]["code"], "W0004");
    assert_eq!(apply(risky, &found[0]["edit"]["changes"][URI]), risky.replace("777", "755"));

    // A client that asks only for other kinds gets none.
    let cursor = json!({"line": line, "character": character});
    let params = json!({"textDocument": {"uri": URI}, "range": {"start": cursor, "end": cursor}, "context": {"diagnostics": [], "only": ["refactor"]}});
    assert_eq!(client.ok("textDocument/codeAction", params), json!([]));
    assert_eq!(client.finish(), Ending::Clean);
}

/// Every position of a plan, and some past its end, with non-ASCII and
/// astral characters on the way: no request fails, nothing panics.
#[test]
fn every_position_answers() {
    let mut client = Client::start();
    let text = format!("{PLAN}STEP \"é😀\" {{\n    LOG \"héllo😀RUN ${{greeting}}\"\n    VAR \n}}\n");
    client.open(&text);
    let lines: Vec<&str> = text.split('\n').collect();
    for (line, content) in lines.iter().enumerate() {
        let units = content.encode_utf16().count() as u32;
        for character in 0..=units + 2 {
            let position = at(line as u32, character);
            for method in ["textDocument/hover", "textDocument/completion", "textDocument/definition"] {
                client.ok(method, position.clone());
            }
            let mut params = position;
            params["context"] = json!({"includeDeclaration": true});
            client.ok("textDocument/references", params);
        }
    }
    assert_eq!(client.finish(), Ending::Clean);
}

#[test]
fn exit_without_shutdown_is_abrupt() {
    let mut client = Client::start();
    client.notify("exit", Value::Null);
    assert_eq!(client.server.take().unwrap().join().unwrap(), Ending::Abrupt);
}

#[test]
fn typed_answers_hover_and_complete_their_fields() {
    let plan = "#TISS_VERSION >= 1.1\nTASK \"t\"\nTYPE Review = { verdict: \"approve\" | \"reject\", files?: LIST OF STRING }\n\
                STEP \"s\" {\n    PROMPT_AGENT \"q\" INTO r AS Review\n    IF r.files EXISTS {\n        LOG \"${r.verdict}\"\n    }\n}\n";
    let mut client = Client::start();
    client.open(plan);
    // The variable: its type as written.
    let (line, character) = find(plan, "r.files EXISTS");
    let hover = client.ok("textDocument/hover", at(line, character));
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(text.contains("`r`: { verdict: \"approve\" | \"reject\", files?: LIST OF STRING }"), "{text}");
    // A field: its declared form, optional said so.
    let hover = client.ok("textDocument/hover", at(line, character + 3));
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(text.contains("files?: LIST OF STRING"), "{text}");
    assert!(text.contains("read it where `r.files EXISTS` holds"), "{text}");
    let (line, character) = find(plan, "verdict}");
    let text = client.ok("textDocument/hover", at(line, character + 1))["contents"]["value"].clone();
    assert!(text.as_str().unwrap().contains("verdict: \"approve\" | \"reject\""), "{text}");
    // After `r.`: its fields, with their types.
    let result = client.ok("textDocument/completion", at(line, character));
    assert_eq!(labels(&result), ["verdict", "files"]);
    assert_eq!(result[1]["detail"], "LIST OF STRING (optional: test it with EXISTS)");
    assert_eq!(client.finish(), Ending::Clean);
}
