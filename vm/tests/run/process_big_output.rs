//! 300 MB of output: the capture keeps head and tail, the callback sees every
//! byte, and memory stays bounded. Its own test binary, so the peak RSS
//! measured is this run's alone.

use std::path::Path;
use std::time::{Duration, Instant};

use tiss_host::process::{ProcessSpec, Stream, WorkDir, run};
use tiss_host::sandbox::UNCONFINED;

const TOTAL_X: u64 = 300_000_000;

/// Peak resident set of this process, in KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn huge_output_is_bounded() {
    let env = vec![("PATH".to_string(), "/usr/bin:/bin".to_string())];
    let command = format!("printf 'BEGIN\\n'; head -c {TOTAL_X} /dev/zero | tr '\\0' x; printf '\\nEND\\n'");
    let cap = 1 << 20;
    let spec = ProcessSpec {
        command: &command,
        cwd: WorkDir::Path(Path::new("/")),
        env: &env,
        timeout: Some(Duration::from_secs(300)),
        output_cap: cap,
        sandbox: &UNCONFINED,
    };
    let mut seen = 0u64;
    let mut stderr_seen = 0u64;
    let mut sink = |stream: Stream, data: &[u8]| match stream {
        Stream::Stdout => seen += data.len() as u64,
        Stream::Stderr => stderr_seen += data.len() as u64,
    };
    let started = Instant::now();
    let result = run(&spec, Some(&mut sink)).unwrap();
    let elapsed = started.elapsed();
    let peak = peak_rss_kib();
    eprintln!("300 MB run: {elapsed:?}, peak RSS {} MiB", peak / 1024);

    assert_eq!(result.exit_code, 0, "{}", result.stderr);
    assert!(!result.timed_out);
    let total = TOTAL_X + 6 + 5;
    assert_eq!(seen, total);
    assert_eq!(stderr_seen, 0);
    assert!(result.stdout.starts_with("BEGIN\nxxxx"));
    assert!(result.stdout.ends_with("xxxx\nEND\n"));
    let marker = format!("\n… [{} bytes omitted] …\n", total - cap as u64);
    assert!(result.stdout.contains(&marker));
    assert_eq!(result.stdout.len(), cap + marker.len());
    assert!(peak < 100 * 1024, "peak RSS {peak} KiB");
}
