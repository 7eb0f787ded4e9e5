//! `--log-file`: one JSON object per line for every event of the run
//! (`ts`, `event`, `step`, `line`, `op`, `outcome`, `duration_ms`, and
//! shortened outputs for RUN).

use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value as Json, json};

use crate::host::Event;

pub struct EventLog {
    out: std::io::BufWriter<std::fs::File>,
    /// The first write error, reported once at the end of the run.
    pub error: Option<std::io::Error>,
}

impl EventLog {
    /// Opens (creating or appending to) the log file.
    pub fn open(path: &std::path::Path) -> std::io::Result<EventLog> {
        let file = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
        Ok(EventLog { out: std::io::BufWriter::new(file), error: None })
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
