//! `tissc lsp` on a large plan (≥ 5,000 lines, `benches/plan_gen.rs`): a
//! completion request's round trip through the server, and the same after
//! an edit (the change re-analyses the plan and publishes its diagnostics
//! first), which is what typing costs. The budget (book: guide/editors.md): under 50 ms.

/// The binaries' allocator, so this measures what they do.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[allow(dead_code)]
#[path = "../../benches/plan_gen.rs"]
mod plan_gen;

use std::thread;

use criterion::{Criterion, criterion_group, criterion_main};
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{Value, json};

const URI: &str = "file:///bench.tiss";

struct Client {
    conn: Connection,
    next_id: i32,
}

impl Client {
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.conn.sender.send(Request::new(id.clone(), method.to_string(), params).into()).unwrap();
        loop {
            match self.conn.receiver.recv().unwrap() {
                Message::Response(r) if r.id == id => {
                    return r.response_result.expect("the request succeeds");
                }
                _ => {}
            }
        }
    }

    fn notify(&self, method: &str, params: Value) {
        self.conn.sender.send(Notification::new(method.to_string(), params).into()).unwrap();
    }

    fn wait_for_diagnostics(&self) {
        loop {
            if let Message::Notification(n) = self.conn.receiver.recv().unwrap()
                && n.method == "textDocument/publishDiagnostics"
            {
                return;
            }
        }
    }
}

fn lsp(c: &mut Criterion) {
    let text = plan_gen::generate(5_000);
    let lines = text.lines().count() as u32;
    eprintln!("generated plan: {lines} lines, {} bytes", text.len());
    let (server, conn) = Connection::memory();
    thread::spawn(move || tiss_compiler::lsp::serve(&server));
    let mut client = Client { conn, next_id: 0 };
    client.request("initialize", json!({"capabilities": {}}));
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "tiss", "version": 1, "text": text}}),
    );
    client.wait_for_diagnostics();

    // The cursor at the start of a statement two thirds down: every
    // keyword and the variables bound before it.
    let line =
        text.lines().enumerate().filter(|(_, l)| l.trim_start().starts_with("ENV ")).map(|(i, _)| i).nth(60);
    let line = line.expect("the plan has ENV statements") as u32;
    let at = json!({"textDocument": {"uri": URI}, "position": {"line": line, "character": 4}});
    let count = client.request("textDocument/completion", at.clone()).as_array().map_or(0, Vec::len);
    eprintln!("completion at line {line}: {count} items");

    let mut group = c.benchmark_group(format!("lsp ({lines}-line plan)"));
    group.sample_size(20);
    group.bench_function("completion", |b| b.iter(|| client.request("textDocument/completion", at.clone())));
    let mut version = 1;
    group.bench_function("edit + diagnostics + completion", |b| {
        b.iter(|| {
            // Type a space at the end of a line, as a keystroke does.
            version += 1;
            client.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": URI, "version": version}, "contentChanges": [{
                    "range": {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 0}},
                    "text": " "}]}),
            );
            client.wait_for_diagnostics();
            client.request("textDocument/completion", at.clone())
        })
    });
    group.finish();
}

criterion_group!(benches, lsp);
criterion_main!(benches);
