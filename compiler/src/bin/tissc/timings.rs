//! `tissc compile --timings`: each phase of a compile with its wall time,
//! the page faults it caused (memory touched for the first time: the
//! kernel's share of a large compile) and the memory resident after it,
//! printed on stderr once the compile ends: where a large plan's compile
//! goes, without a profiler (book: performance.md).

use std::io::Write;
use std::time::Instant;

use tisslang::codec::decode_budget::thousands;

/// The phases measured so far, or nothing when not asked for.
pub struct Timings {
    on: bool,
    last: Instant,
    faults: u64,
    rows: Vec<Row>,
}

struct Row {
    phase: &'static str,
    millis: f64,
    faults: u64,
    /// KiB resident after the phase, where the OS says (Linux).
    resident: Option<u64>,
}

impl Timings {
    /// Starts the clock (when `on`): the first phase runs from now.
    pub fn new(on: bool) -> Timings {
        Timings { on, last: Instant::now(), faults: if on { minor_faults() } else { 0 }, rows: Vec::new() }
    }

    /// Ends `phase` now, and starts the next.
    pub fn mark(&mut self, phase: &'static str) {
        if !self.on {
            return;
        }
        let (now, faults) = (Instant::now(), minor_faults());
        let millis = now.duration_since(self.last).as_secs_f64() * 1e3;
        let resident = status_kib("VmRSS:");
        self.rows.push(Row { phase, millis, faults: faults.saturating_sub(self.faults), resident });
        // Reading the counters is not counted in the next phase.
        (self.last, self.faults) = (Instant::now(), minor_faults());
    }

    /// The table of the phases ended, for the plan `name` (nothing when not asked for).
    pub fn print(&self, name: &str) {
        if !self.on {
            return;
        }
        let mut out = std::io::stderr().lock();
        // Written whole or not at all: stderr may be closed.
        let _ = out.write_all(self.table(name, status_kib("VmHWM:")).as_bytes());
    }

    fn table(&self, name: &str, peak: Option<u64>) -> String {
        let mib = |kib: Option<u64>| {
            kib.map_or_else(|| "-".to_string(), |kib| format!("{:.1}", kib as f64 / 1024.0))
        };
        let mut table = format!(
            "tissc: timings of `{name}`\n  {:<8} {:>9} {:>12} {:>13}\n",
            "phase", "wall ms", "page faults", "resident MiB"
        );
        for row in &self.rows {
            table += &format!(
                "  {:<8} {:>9.2} {:>12} {:>13}\n",
                row.phase,
                row.millis,
                thousands(row.faults),
                mib(row.resident)
            );
        }
        let millis: f64 = self.rows.iter().map(|row| row.millis).sum();
        let faults: u64 = self.rows.iter().map(|row| row.faults).sum();
        table += &format!(
            "  {:<8} {:>9.2} {:>12} {:>13}\n",
            "total",
            millis,
            thousands(faults),
            format!("peak {}", mib(peak))
        );
        table
    }
}

/// The minor page faults of this process so far.
#[cfg(unix)]
fn minor_faults() -> u64 {
    // SAFETY: getrusage fills the struct it is given, which outlives the call.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0;
    }
    u64::try_from(usage.ru_minflt).unwrap_or(0)
}

#[cfg(not(unix))]
fn minor_faults() -> u64 {
    0
}

/// A `kB` figure of `/proc/self/status` (Linux), such as `VmRSS:`.
fn status_kib(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with(key))?;
    line[key.len()..].trim().trim_end_matches("kB").trim().parse().ok()
}
