//! `tissvm inspect JOURNAL` (book: cookbook/journal.md): what a journal holds, read through
//! once without running anything — the plan it recorded, its events by
//! kind and their bytes, the outputs kept only in part, the files the run
//! wrote with their last hashes, how the run ended, whether the journal
//! was cut short, and whether this user's key signed it.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value as Json, json};

use crate::session::journal::reader::{JournalReader, Next};
use crate::session::journal::signature::Check;
use crate::session::journal::{Entry, Kept};

/// Whether `path` starts with the journal magic number.
pub fn is_journal(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 8];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut magic)).is_ok()
        && magic == crate::session::journal::MAGIC
}

/// The summary as JSON; an error says why the journal cannot be read.
pub fn summary(path: &Path) -> Result<Json, String> {
    let mut reader = JournalReader::open(path).map_err(|e| e.message)?.check(Check::note());
    let mut task = None;
    let mut kinds: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut files: BTreeMap<String, Option<String>> = BTreeMap::new();
    let (mut output, mut cut, mut runs_resumed) = (0u64, 0u64, 0u64);
    let mut ended = Json::Null;
    let torn = loop {
        let entry = match reader.next_entry().map_err(|e| e.message)? {
            Next::Entry(_, entry) => *entry,
            Next::Torn(at) => break Some(at),
            Next::End => break None,
        };
        *kinds.entry(entry.kind()).or_default() += 1;
        let mut kept = |k: &Kept| {
            output += k.len();
            cut += u64::from(k.whole().is_none());
        };
        match &entry {
            Entry::Start { bytecode, resumed, .. } => {
                runs_resumed += u64::from(*resumed);
                if task.is_none() {
                    task = tisslang::container::load(bytecode)
                        .ok()
                        .and_then(|m| m.string(m.task).map(str::to_string));
                }
            }
            Entry::Run { result: Ok(r), .. } => {
                kept(&r.stdout);
                kept(&r.stderr);
            }
            Entry::Read { result: Ok(text), .. } => kept(text),
            Entry::Prompt { result: Ok(p), .. } => kept(&p.text),
            Entry::Write { path, file, result: Ok(()), .. } => {
                files.insert(path.clone(), file.map(|h| h.iter().map(|b| format!("{b:02x}")).collect()));
            }
            Entry::End { status, snapshot, failed_step } => {
                ended = json!({"status": status, "snapshot": snapshot, "failed_step": failed_step});
            }
            _ => {}
        }
    };
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let not_yours = reader.not_yours().map(|not| json!({"at": not.at, "why": not.why}));
    Ok(json!({
        "journal": path.display().to_string(),
        "bytes": bytes,
        "task": task,
        "resumed": runs_resumed,
        "events": kinds,
        "recorded_output_bytes": output,
        "outputs_kept_in_part": cut,
        "files_written": files.iter().map(|(p, h)| json!({"path": p, "sha256": h})).collect::<Vec<_>>(),
        "ended": ended,
        "torn_at": torn,
        "signed_by_you": not_yours.is_none(),
        "not_signed_from": not_yours,
    }))
}

/// The summary as text.
pub fn text(summary: &Json) -> String {
    let mut out = format!(
        "journal {} ({} bytes) of \"{}\"\n",
        summary["journal"].as_str().unwrap_or(""),
        summary["bytes"],
        summary["task"].as_str().unwrap_or("?")
    );
    let events: Vec<String> = summary["events"]
        .as_object()
        .map(|m| m.iter().map(|(k, v)| format!("{v} {k}")).collect())
        .unwrap_or_default();
    out.push_str(&format!("events: {}\n", events.join(", ")));
    out.push_str(&format!(
        "recorded output: {} bytes ({} kept only in part)\n",
        summary["recorded_output_bytes"], summary["outputs_kept_in_part"]
    ));
    for file in summary["files_written"].as_array().into_iter().flatten() {
        let hash = file["sha256"].as_str().unwrap_or("(not read back)");
        out.push_str(&format!("wrote {} sha256 {hash}\n", file["path"].as_str().unwrap_or("")));
    }
    match &summary["ended"] {
        Json::Null => out.push_str("ended: not recorded (the run was stopped outright)\n"),
        ended => out.push_str(&format!("ended: {}\n", ended["status"].as_str().unwrap_or("?"))),
    }
    if let Some(at) = summary["torn_at"].as_u64() {
        out.push_str(&format!("cut short at byte {at} (a crash while a frame was written)\n"));
    }
    match &summary["not_signed_from"] {
        Json::Null => out.push_str("signed by your key\n"),
        not => out.push_str(&format!(
            "not signed by your key from byte {}: {}\n",
            not["at"],
            not["why"].as_str().unwrap_or("?")
        )),
    }
    out
}
