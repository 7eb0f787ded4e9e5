//! `tissvm dap` (book: cookbook/debugging.md): the Debug Adapter Protocol over stdio, so VS
//! Code, nvim-dap, Helix and any DAP client can debug a plan. It is a
//! second front end to the one debugger of `crate::session::debugger` (the
//! CLI's `tissvm debug` is the other): breakpoints, stepping, going back,
//! conditions and values are the core's; this folder turns requests into
//! its calls and its stops into DAP's events.
//!
//! **Threads.** One thread reads messages and hands them to the session's
//! thread, which runs the plan. While the plan runs, the reading thread
//! answers what cannot wait for it (`pause`, `threads`) and asks the run to
//! stop for `terminate` and `disconnect` (a RUN in flight is killed, as by
//! a second Ctrl-C); everything else is answered once the run stops.
//!
//! **The protocol types** are serde structures of our own (`requests.rs`):
//! the `dap` crate (0.4, alpha) brings its own server loop and I/O model,
//! and `debugserver-types` (generated from a 2019 schema) is unmaintained;
//! the handful of requests an adapter answers is small enough to write and
//! test here.
//!
//! stdout carries nothing but protocol messages: the run's step lines go to
//! stderr, LOG lines and RUN output to the client as `output` events.

use std::io::{BufReader, Read, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use serde_json::{Value, json};

use crate::runner::debug::DebugOptions;
use crate::session::interrupt;

mod host;
mod inspect;
mod launch;
mod requests;
mod session;
mod wire;

pub use wire::Writer;

/// Turns a launch configuration's plan and `args` (further `tissvm run`
/// options, as words) into the options of a debugging session.
pub type ParseArgs = Box<dyn Fn(&Path, &[String]) -> Result<DebugOptions, String>>;

/// What the reading thread hands on.
enum Incoming {
    Message(Value),
    /// The client closed its end (or reading failed).
    End,
}

/// Serves one client on `input` and `output` until it disconnects; the
/// exit status (0, or 70 when the adapter could not run at all).
pub fn serve(input: Box<dyn Read + Send>, output: Box<dyn Write + Send>, parse: ParseArgs) -> u8 {
    let out = Writer::new(output);
    let running = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let reader = {
        let out = out.clone();
        let running = Arc::clone(&running);
        std::thread::Builder::new()
            .name("dap-reader".into())
            .spawn(move || read_loop(input, &out, &running, &tx))
    };
    if let Err(e) = reader {
        eprintln!("tissvm: dap: cannot start the reading thread: {e}");
        return crate::runner::status::INTERNAL;
    }
    // A pause must reach the stop check, and a terminate the RUN in flight.
    if let Err(e) = interrupt::install_ctrl_c() {
        eprintln!("tissvm: dap: warning: RUNs in flight cannot be stopped ({e})");
    }
    let mut session = session::Session::new(out, parse, running);
    for incoming in rx {
        let keep_going = match incoming {
            Incoming::Message(message) => session.handle(&message),
            Incoming::End => false,
        };
        if !keep_going {
            break;
        }
    }
    session.close();
    0
}

/// Reads messages until the client is gone, answering what cannot wait for
/// a run in progress.
fn read_loop(input: Box<dyn Read + Send>, out: &Writer, running: &AtomicBool, tx: &mpsc::Sender<Incoming>) {
    let mut input = BufReader::new(input);
    loop {
        let message = match wire::read(&mut input) {
            Ok(wire::Read::Message(message)) => message,
            Ok(wire::Read::Bad(why)) => {
                out.refuse(&json!({}), &format!("a message the adapter cannot read: {why}"));
                continue;
            }
            Ok(wire::Read::End) | Err(_) => {
                // Nobody is left to debug for: the run stops.
                if running.load(Ordering::SeqCst) {
                    interrupt::raise(2);
                }
                let _ = tx.send(Incoming::End);
                return;
            }
        };
        if running.load(Ordering::SeqCst) {
            match message["command"].as_str() {
                Some("pause") => {
                    interrupt::raise(1);
                    out.respond(&message, json!({}));
                    continue;
                }
                Some("threads") => {
                    out.respond(&message, session::threads());
                    continue;
                }
                Some("terminate" | "disconnect") => interrupt::raise(2),
                _ => {}
            }
        }
        if tx.send(Incoming::Message(message)).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests;
