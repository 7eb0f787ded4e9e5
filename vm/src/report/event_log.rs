//! `--log-file`: one JSON object per line for every event of the run
//! (`ts`, `event`, `step`, `line`, `op`, `outcome`, `duration_ms`, and
//! shortened outputs for RUN), and [`OutputTrim`], which bounds what the log
//! keeps of a command's output.

use std::collections::VecDeque;
use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value as Json, json};

use crate::host::Event;

pub struct EventLog {
    out: std::io::BufWriter<std::fs::File>,
    /// At most this many bytes of each stream of each command (SPEC §8,
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
            obj.insert((*key).to_string(), json!(value));
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

/// What the log keeps of one command's output: per stream, the first half
/// of `max` bytes as they come, and the last half, held back and written
/// when the command ends after a count of the bytes left out between. A
/// command that prints gigabytes adds at most `max` bytes per stream to the
/// log, and memory holds at most half of that per stream.
pub struct OutputTrim {
    half: usize,
    streams: [Kept; 2],
}

#[derive(Default)]
struct Kept {
    head: usize,
    tail: VecDeque<u8>,
    omitted: u64,
}

impl OutputTrim {
    pub fn new(max: usize) -> OutputTrim {
        OutputTrim { half: max / 2, streams: Default::default() }
    }

    /// Takes a chunk of stream `stream` (0 stdout, 1 stderr) and returns the
    /// part to write now; the rest is held as the tail.
    pub fn admit<'d>(&mut self, stream: usize, data: &'d [u8]) -> &'d [u8] {
        let kept = &mut self.streams[stream];
        let room = self.half.saturating_sub(kept.head).min(data.len());
        let (now, later) = data.split_at(room);
        kept.head += now.len();
        kept.tail.extend(later);
        if kept.tail.len() > self.half {
            let excess = kept.tail.len() - self.half;
            kept.tail.drain(..excess);
            kept.omitted += excess as u64;
        }
        now
    }

    /// Per stream: how many bytes were left out, and the tail to write.
    pub fn finish(self) -> [(u64, Vec<u8>); 2] {
        self.streams.map(|kept| (kept.omitted, kept.tail.into()))
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

    #[test]
    fn output_keeps_its_head_and_tail_and_counts_the_rest() {
        let mut trim = OutputTrim::new(8);
        let data: Vec<u8> = (0..100).collect();
        let mut written = Vec::new();
        for chunk in data.chunks(7) {
            written.extend_from_slice(trim.admit(0, chunk));
        }
        assert_eq!(trim.admit(1, b"ab"), b"ab");
        assert_eq!(written, [0, 1, 2, 3]);
        let [(omitted, tail), (err_omitted, err_tail)] = trim.finish();
        assert_eq!((omitted, tail), (92, vec![96, 97, 98, 99]));
        assert_eq!((err_omitted, err_tail), (0, Vec::new()));
    }
    use std::time::Duration;

    #[test]
    fn timestamps() {
        assert_eq!(utc_timestamp(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_795_380_532_123);
        assert_eq!(utc_timestamp(t), "2026-11-22T20:48:52.123Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29
        assert_eq!(utc_timestamp(leap), "2000-02-29T00:00:00.000Z");
    }
}
