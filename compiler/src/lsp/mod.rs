//! `tissc lsp`: a language server over stdio (book: guide/editors.md),
//! synchronous, on `lsp-server` and `lsp-types`.
//!
//! One thread runs [`serve`]: it takes each message in turn, keeps the open
//! documents ([`documents`]) and answers from their cached analysis. Each
//! feature is its own module. Protocol rules kept here: requests before
//! `initialize` get `ServerNotInitialized`, after `shutdown` `InvalidRequest`;
//! an unknown method gets `MethodNotFound`, bad parameters or a document
//! that is not open `InvalidParams`; `exit` ends the loop, cleanly only
//! after `shutdown`. Nothing a client sends ends the server otherwise.

mod code_actions;
mod completion;
mod documents;
mod formatting;
mod hover;
mod index;
mod keywords;
mod navigation;
pub mod protocol;
mod symbols;

use std::panic::{self, AssertUnwindSafe};

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, LogMessage, Notification as _,
    PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, Completion, DocumentSymbolRequest, Formatting, GotoDefinition, HoverRequest,
    References, Request as LspRequest,
};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, CompletionOptions,
    HoverProviderCapability, InitializeResult, LogMessageParams, MessageType, OneOf,
    PublishDiagnosticsParams, ServerCapabilities, ServerInfo, TextDocumentSyncCapability,
    TextDocumentSyncKind, Uri,
};
use serde_json::Value;

use documents::Documents;
use protocol::diagnostics;

/// How the client ended the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// `shutdown`, then `exit`: exit status 0.
    Clean,
    /// `exit` without `shutdown`, or the input ended: exit status 1 (LSP).
    Abrupt,
}

/// An error response: its JSON-RPC code and a message that says what to do.
#[derive(Debug)]
pub(crate) struct Failure {
    code: ErrorCode,
    message: String,
}

impl Failure {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Failure {
        Failure { code, message: message.into() }
    }
}

/// What the server can do, as told to the client in `initialize`.
fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::INCREMENTAL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![".".to_string(), "\"".to_string(), "{".to_string()]),
            ..CompletionOptions::default()
        }),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..CodeActionOptions::default()
        })),
        ..ServerCapabilities::default()
    }
}

/// Runs the server on a connection until `exit` or the end of input.
pub fn serve(connection: &Connection) -> Ending {
    let mut server = Server { connection, docs: Documents::default(), initialized: false, shut_down: false };
    for message in &connection.receiver {
        match message {
            Message::Request(request) => {
                let id = request.id.clone();
                // A bug must not end the session: the request fails, the
                // panic hook has told stderr (the client's log), and the
                // server reads on.
                if panic::catch_unwind(AssertUnwindSafe(|| server.request(request))).is_err() {
                    let message = "internal error in tissc lsp (a bug: please report it with the plan)";
                    server.send(Response::new_err(id, ErrorCode::InternalError as i32, message.to_string()));
                }
            }
            Message::Notification(n) if n.method == "exit" => {
                return if server.shut_down { Ending::Clean } else { Ending::Abrupt };
            }
            Message::Notification(n) => {
                let method = n.method.clone();
                if panic::catch_unwind(AssertUnwindSafe(|| server.notification(n))).is_err() {
                    server
                        .log(&format!("`{method}`: internal error (a bug: please report it with the plan)"));
                }
            }
            // The server sends no requests, so a response answers nothing.
            Message::Response(_) => {}
        }
    }
    Ending::Abrupt
}

struct Server<'c> {
    connection: &'c Connection,
    docs: Documents,
    initialized: bool,
    shut_down: bool,
}

impl Server<'_> {
    fn send(&self, message: impl Into<Message>) {
        // The client has gone if this fails; `serve` ends when its input does.
        let _ = self.connection.sender.send(message.into());
    }

    fn request(&mut self, request: Request) {
        let id = request.id.clone();
        let result = if request.method == "initialize" {
            self.initialize()
        } else if !self.initialized {
            Err(Failure::new(
                ErrorCode::ServerNotInitialized,
                format!("`{}` before `initialize`: send `initialize` first", request.method),
            ))
        } else if self.shut_down {
            Err(Failure::new(
                ErrorCode::InvalidRequest,
                format!("`{}` after `shutdown`: only `exit` is accepted now", request.method),
            ))
        } else {
            self.dispatch(request)
        };
        self.send(match result {
            Ok(value) => Response::new_ok(id, value),
            Err(failure) => Response::new_err(id, failure.code as i32, failure.message),
        });
    }

    fn initialize(&mut self) -> Result<Value, Failure> {
        if self.initialized {
            return Err(Failure::new(ErrorCode::InvalidRequest, "`initialize` was sent twice"));
        }
        self.initialized = true;
        let result = InitializeResult {
            capabilities: capabilities(),
            server_info: Some(ServerInfo {
                name: "tissc".to_string(),
                version: Some(env!("CARGO_PKG_VERSION").to_string()),
            }),
        };
        Ok(serde_json::to_value(result).unwrap_or(Value::Null))
    }

    fn dispatch(&mut self, request: Request) -> Result<Value, Failure> {
        let docs = &self.docs;
        match request.method.as_str() {
            "shutdown" => {
                self.shut_down = true;
                Ok(Value::Null)
            }
            HoverRequest::METHOD => call::<HoverRequest>(request, |p| hover::hover(docs, p)),
            Completion::METHOD => call::<Completion>(request, |p| completion::completion(docs, p)),
            GotoDefinition::METHOD => call::<GotoDefinition>(request, |p| navigation::definition(docs, p)),
            References::METHOD => call::<References>(request, |p| navigation::references(docs, p)),
            DocumentSymbolRequest::METHOD => {
                call::<DocumentSymbolRequest>(request, |p| symbols::document_symbols(docs, p))
            }
            Formatting::METHOD => call::<Formatting>(request, |p| formatting::formatting(docs, p)),
            CodeActionRequest::METHOD => {
                call::<CodeActionRequest>(request, |p| code_actions::code_actions(docs, p))
            }
            method => Err(Failure::new(
                ErrorCode::MethodNotFound,
                format!(
                    "`{method}` is not a method tissc lsp answers (see its capabilities from `initialize`)"
                ),
            )),
        }
    }

    fn notification(&mut self, n: Notification) {
        if !self.initialized || self.shut_down {
            return;
        }
        let method = n.method.clone();
        let outcome = match method.as_str() {
            DidOpenTextDocument::METHOD => params::<DidOpenTextDocument>(n).map(|p| {
                let doc = p.text_document;
                self.docs.open(&doc.uri, doc.version, doc.text);
                self.publish(&doc.uri);
            }),
            DidChangeTextDocument::METHOD => params::<DidChangeTextDocument>(n).and_then(|p| {
                let doc = p.text_document;
                self.docs.change(&doc.uri, doc.version, p.content_changes)?;
                self.publish(&doc.uri);
                Ok(())
            }),
            DidCloseTextDocument::METHOD => params::<DidCloseTextDocument>(n).map(|p| {
                self.docs.close(&p.text_document.uri);
                // A closed document's problems leave the editor's list.
                let empty = PublishDiagnosticsParams {
                    uri: p.text_document.uri,
                    diagnostics: Vec::new(),
                    version: None,
                };
                self.send(Notification::new(PublishDiagnostics::METHOD.to_string(), empty));
            }),
            // Saves, settings, cancellations, `initialized`, `$/…`: nothing to do.
            _ => Ok(()),
        };
        if let Err(failure) = outcome {
            self.log(&format!("`{method}`: {}", failure.message));
        }
    }

    /// An error in the client's log (a notification has no response).
    fn log(&self, message: &str) {
        let log = LogMessageParams { typ: MessageType::ERROR, message: format!("tissc lsp: {message}") };
        self.send(Notification::new(LogMessage::METHOD.to_string(), log));
    }

    fn publish(&self, uri: &Uri) {
        if let Ok(doc) = self.docs.get(uri) {
            let params = diagnostics::publish(uri, doc.version, &doc.analysis);
            self.send(Notification::new(PublishDiagnostics::METHOD.to_string(), params));
        }
    }
}

/// Decodes a request's parameters, runs the feature, encodes its result.
fn call<R: LspRequest>(
    request: Request,
    feature: impl FnOnce(R::Params) -> Result<R::Result, Failure>,
) -> Result<Value, Failure> {
    let params: R::Params = serde_json::from_value(request.params).map_err(|e| {
        Failure::new(ErrorCode::InvalidParams, format!("bad parameters for `{}`: {e}", R::METHOD))
    })?;
    let result = feature(params)?;
    serde_json::to_value(result).map_err(|e| Failure::new(ErrorCode::InternalError, e.to_string()))
}

fn params<N: lsp_types::notification::Notification>(n: Notification) -> Result<N::Params, Failure> {
    serde_json::from_value(n.params)
        .map_err(|e| Failure::new(ErrorCode::InvalidParams, format!("bad parameters: {e}")))
}
