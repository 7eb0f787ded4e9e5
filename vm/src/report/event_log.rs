//! `--log-file`: one JSON object per line for every event of the run
//! (`ts`, `event`, `step`, `line`, `op`, `outcome`, `duration_ms`, and
//! the event's details: shortened outputs for RUN, a prompt's counts as
//! numbers), and [`OutputTrim`], which bounds what the log
//! keeps of a command's output.

use std::collections::VecDeque;
use std::io::Write;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value as Json, json};

use crate::host::Event;

pub struct EventLog {
    out: std::io::BufWriter<std::fs::File>,
    /// At most this many bytes of each stream of each command (book: reference/formats.md,
    /// `--log-max-output`): head and tail, see [`OutputTrim`].
    pub max_output: usize,
    /// The first write error, reported once at the end of the run.
    pub error: Option<std::io::Error>,
}

impl EventLog {
    /// Opens (creating or appending to) the log file.
    pub fn open(path: &std::path::Path) -> std::io::Result<EventLog> {
        let file = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
        Ok(EventLog { out: std::io::BufWriter::new(file), max_output: DEFAULT_MAX_OUTPUT, error: None })
    }

    pub fn write(&mut self, event: &Event<'_>) {
        let mut obj = Map::new();
        obj.insert("ts".into(), json!(utc_timestamp(SystemTime::now())));
        obj.insert("event".into(), json!(event.event));
        obj.insert("step".into(), event.step.map_or(Json::Null, |s| json!(s)));
        obj.insert("line".into(), json!(event.line));
        obj.insert("op".into(), json!(event.op));
        obj.insert("outcome".into(), json!(event.outcome));
        obj.insert("duration_ms".into(), json!(event.duration_ms));
        for (key, value) in event.details {
            obj.insert((*key).to_string(), value.to_json());
        }
        let result = serde_json::to_writer(&mut self.out, &Json::Object(obj)).map_err(std::io::Error::from);
        let result = result.and_then(|()| self.out.write_all(b"\n"));
        if let Err(e) = result
            && self.error.is_none()
        {
            self.error = Some(e);
        }
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// What the log keeps of each stream of a command by default: 1 MiB.
pub const DEFAULT_MAX_OUTPUT: usize = 1 << 20;

/// The head is written in batches of at least this many bytes...
const BATCH: usize = 64 * 1024;

/// ...or of what came in this long: a command printing a byte at a time
/// would otherwise cost an event (a few hundred bytes, the command
/// included) per byte, and the log would grow far past the cap.
const BATCH_TIME: Duration = Duration::from_secs(1);

/// What the log keeps of one command's output: per stream, the first half
/// of `max` bytes, written as they come in batches ([`BATCH`], [`BATCH_TIME`]),
/// and the last half, held back and written when the command ends after a
/// count of the bytes left out between. A command that prints gigabytes, in
/// chunks or a byte at a time, adds at most `max` bytes of output per
/// stream to the log, in a bounded number of events; memory holds at most
/// half of `max` plus a batch per stream.
pub struct OutputTrim {
    head_cap: usize,
    tail_cap: usize,
    streams: [Kept; 2],
}

struct Kept {
    /// Bytes taken into the head so far.
    head: usize,
    /// Head bytes not written yet, and since when they wait.
    batch: Vec<u8>,
    batch_since: Option<Instant>,
    tail: VecDeque<u8>,
    omitted: u64,
}

/// The rest of one stream when its command has ended.
pub struct Rest {
    /// Head bytes not written yet.
    pub head: Vec<u8>,
    /// Bytes left out between head and tail.
    pub omitted: u64,
    pub tail: Vec<u8>,
}

impl OutputTrim {
    pub fn new(max: usize) -> OutputTrim {
        let kept =
            || Kept { head: 0, batch: Vec::new(), batch_since: None, tail: VecDeque::new(), omitted: 0 };
        OutputTrim { head_cap: max / 2, tail_cap: max - max / 2, streams: [kept(), kept()] }
    }

    /// Takes a chunk of stream `stream` (0 stdout, 1 stderr) that came in
    /// at `now`; returns a batch of the head to write now, if one is due.
    pub fn admit(&mut self, stream: usize, data: &[u8], now: Instant) -> Option<Vec<u8>> {
        let (head_cap, tail_cap) = (self.head_cap, self.tail_cap);
        let kept = &mut self.streams[stream];
        let room = head_cap.saturating_sub(kept.head).min(data.len());
        let (now_part, later) = data.split_at(room);
        kept.head += now_part.len();
        if !now_part.is_empty() {
            kept.batch.extend_from_slice(now_part);
            kept.batch_since.get_or_insert(now);
        }
        kept.tail.extend(later);
        if kept.tail.len() > tail_cap {
            let excess = kept.tail.len() - tail_cap;
            kept.tail.drain(..excess);
            kept.omitted += excess as u64;
        }
        let head_done = kept.head == head_cap;
        let due = kept.batch.len() >= BATCH || kept.batch_since.is_some_and(|t| now - t >= BATCH_TIME);
        if kept.batch.is_empty() || !(due || head_done) {
            return None;
        }
        kept.batch_since = None;
        let mut batch = std::mem::take(&mut kept.batch);
        if !head_done {
            // A character cut by the chunk boundary goes with the next batch.
            let whole = complete_utf8_prefix(&batch);
            kept.batch = batch.split_off(whole);
            if !kept.batch.is_empty() {
                kept.batch_since = Some(now);
            }
        }
        Some(batch)
    }

    /// Per stream (stdout, stderr): what is left to write.
    pub fn finish(self) -> [Rest; 2] {
        self.streams.map(|kept| Rest { head: kept.batch, omitted: kept.omitted, tail: kept.tail.into() })
    }
}

/// The length of `bytes` without an incomplete UTF-8 character at its end.
fn complete_utf8_prefix(bytes: &[u8]) -> usize {
    match std::str::from_utf8(bytes) {
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        _ => bytes.len(),
    }
}

/// RFC 3339 UTC time with milliseconds, e.g. `2026-11-22T20:48:52.123Z`.
pub fn utc_timestamp(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        since.subsec_millis()
    )
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian
/// (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `data` to stream 0 in chunks of `chunk` bytes, `step` apart;
    /// returns the batches written while it came and the rest.
    fn feed(max: usize, data: &[u8], chunk: usize, step: Duration) -> (Vec<Vec<u8>>, Rest) {
        let mut trim = OutputTrim::new(max);
        let start = Instant::now();
        let batches = data
            .chunks(chunk)
            .enumerate()
            .filter_map(|(i, c)| trim.admit(0, c, start + step * i as u32))
            .collect();
        let [rest, _] = trim.finish();
        (batches, rest)
    }

    #[test]
    fn output_keeps_its_head_and_tail_and_counts_the_rest() {
        let data: Vec<u8> = (0..100).collect();
        let (batches, rest) = feed(9, &data, 7, Duration::ZERO);
        assert_eq!(batches, [vec![0, 1, 2, 3]], "the head, once complete");
        assert!(rest.head.is_empty());
        assert_eq!((rest.omitted, rest.tail), (91, vec![95, 96, 97, 98, 99]));
        // Short output: all of it, when the command ends.
        let (batches, rest) = feed(1000, b"ab", 1, Duration::ZERO);
        assert!(batches.is_empty());
        assert_eq!((rest.head, rest.omitted, rest.tail), (b"ab".to_vec(), 0, vec![]));
    }

    #[test]
    fn a_byte_at_a_time_is_written_in_few_events() {
        let data = vec![b'x'; 300_000];
        // Fast: batches of BATCH bytes.
        let (batches, rest) = feed(400_000, &data, 1, Duration::from_micros(1));
        assert_eq!(
            batches.len(),
            200_000 / BATCH + 1,
            "{:?}",
            batches.iter().map(Vec::len).collect::<Vec<_>>()
        );
        assert_eq!(batches.iter().map(Vec::len).sum::<usize>() + rest.head.len(), 200_000);
        assert_eq!(rest.tail.len(), 100_000);
        // Slow: a batch per BATCH_TIME.
        let (batches, _) = feed(1 << 20, &data[..100], 1, Duration::from_millis(100));
        assert_eq!(batches.len(), 9, "a batch a second for 10 seconds, the rest at the end");
    }

    #[test]
    fn a_character_cut_by_a_chunk_waits_for_its_end() {
        let mut trim = OutputTrim::new(1 << 20);
        let start = Instant::now();
        let text = "é".repeat(BATCH / 2 + 10); // 2 bytes each
        let bytes = text.as_bytes();
        let first = trim.admit(0, &bytes[..BATCH + 1], start).expect("a batch is due");
        assert_eq!(first.len(), BATCH + 1 - 1, "the first byte of the cut character waits");
        assert!(std::str::from_utf8(&first).is_ok());
        assert_eq!(trim.admit(0, &bytes[BATCH + 1..], start), None);
        let [rest, _] = trim.finish();
        assert_eq!(first.len() + rest.head.len(), bytes.len());
        assert!(std::str::from_utf8(&rest.head).is_ok());
    }

    #[test]
    fn timestamps() {
        assert_eq!(utc_timestamp(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_795_380_532_123);
        assert_eq!(utc_timestamp(t), "2026-11-22T20:48:52.123Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29
        assert_eq!(utc_timestamp(leap), "2000-02-29T00:00:00.000Z");
    }
}
