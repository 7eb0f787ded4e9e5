//! Plumbing shared by the `tissc` and `tissvm` binaries: their entry point,
//! parsing the command line, exit statuses for clap's own exits, `--color`
//! and `--error-format`, and writing to stdout.

use std::io::{self, Write};

use crate::io_message::io_message;

/// Exit status for internal errors (book: reference/failures.md).
pub const INTERNAL: u8 = 70;
/// Exit status for usage errors (book: reference/failures.md).
pub const USAGE: u8 = 2;

/// Prints a clap error or help text; `--help` and `--version` exit 0, usage errors 2.
pub fn clap_exit(e: clap::Error) -> u8 {
    let _ = e.print();
    if e.use_stderr() { USAGE } else { 0 }
}

/// Writes to stdout and returns `code`; a closed pipe (`... | head`) is not an
/// error. A failing write is reported as `PROGRAM: cannot write to stdout`.
pub fn write_stdout(program: &str, text: &str, code: u8) -> u8 {
    let mut stdout = io::stdout().lock();
    stdout_status(program, stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()), code)
}

/// The exit status once output was `written` to stdout (streamed, by the
/// caller): `code`, also when the reader closed the pipe; else the failure
/// is told on stderr and the status is [`INTERNAL`].
pub fn stdout_status(program: &str, written: io::Result<()>, code: u8) -> u8 {
    match written {
        Ok(()) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => code,
        Err(e) => {
            eprintln!("{program}: cannot write to stdout: {}", io_message(&e));
            INTERNAL
        }
    }
}

/// Prints `text` and a newline on stdout, as `println!` does, except that a
/// closed pipe (`tissvm run plan.tiss | head -1`) is not an error: the line
/// is dropped, as are all later ones (the program goes on, and ends with its
/// own status, saying nothing); another failure is told once on stderr.
pub fn print_line(program: &str, text: &str) {
    use std::sync::atomic::{AtomicBool, Ordering};
    static CLOSED: AtomicBool = AtomicBool::new(false);
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut stdout = io::stdout().lock();
    if let Err(e) = stdout.write_all(text.as_bytes()).and_then(|()| stdout.write_all(b"\n")) {
        CLOSED.store(true, Ordering::Relaxed);
        if e.kind() != io::ErrorKind::BrokenPipe {
            eprintln!("{program}: cannot write to stdout: {}", io_message(&e));
        }
    }
}

/// `--error-format`: how diagnostics are printed on stderr.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum FormatArg {
    Human,
    Json,
}

/// `--color`: when human diagnostics are colored.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

/// Whether human output written to a stream is colored: `always`, `never`,
/// or for `auto` only a terminal, and never when `NO_COLOR` is set.
pub fn colors(color: ColorArg, stream_is_terminal: bool) -> bool {
    match color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => stream_is_terminal && !no_color_requested(),
    }
}

/// Whether `NO_COLOR` is set to a non-empty value (<https://no-color.org>).
pub fn no_color_requested() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

/// Runs a binary's `run`: a panic prints an internal-error message naming
/// `program` (never a bare panic for bad input) and exits 70.
pub fn guarded_main(program: &'static str, run: fn() -> u8) -> u8 {
    std::panic::set_hook(Box::new(move |info| {
        // The shell parser's panics are contained: its caller refuses the line.
        if crate::shell::parse::parsing() {
            return;
        }
        eprintln!(
            "{program}: internal error: {info}\n\
             This is a bug in {program}, not in your plan; please report it with the input that caused it."
        );
    }));
    std::panic::catch_unwind(run).unwrap_or(INTERNAL)
}

/// A binary's `main`, calling its `run` through [`start`] on Linux (the
/// binary's root declares `#![cfg_attr(all(target_os = "linux", not(test)),
/// no_main)]`, so the C runtime calls this `main` directly) and through
/// [`guarded_main`] elsewhere.
#[macro_export]
macro_rules! binary_main {
    ($program:expr, $run:expr) => {
        #[cfg(all(target_os = "linux", not(test)))]
        #[unsafe(no_mangle)]
        extern "C" fn main(_argc: std::ffi::c_int, _argv: *const *const std::ffi::c_char) -> std::ffi::c_int {
            $crate::cli::start($program, $run)
        }

        #[cfg(not(all(target_os = "linux", not(test))))]
        fn main() -> std::process::ExitCode {
            std::process::ExitCode::from($crate::cli::guarded_main($program, $run))
        }
    };
}

/// The binaries' entry point on Linux, where they are built with `#![no_main]`
/// and called by the C runtime directly: [`guarded_main`], after what the
/// standard library's runtime would have done first that they need. Skipped:
/// its guard page check for the main thread (glibc reads and parses
/// `/proc/self/maps` to find the stack: 12% of a trivial `tissvm run`'s
/// instructions, and more of its time) and the handler that names a stack
/// overflow (one is then a plain SIGSEGV; the parser's depth is bounded).
/// Kept: file descriptors 0, 1 and 2 open (on `/dev/null` if they were
/// closed, so no file opened later becomes stdout), SIGPIPE ignored (a closed
/// pipe is an error to handle, see [`write_stdout`]; child processes get the
/// default back, as `std::process::Command` gives it) and stdout flushed at
/// the end. The arguments are read as usual: glibc hands them to the standard
/// library before `main`.
///
/// Until the command line is parsed ([`parse_args`]), the process takes no
/// transparent huge pages: mimalloc asks for them on its arena, and its first
/// allocation then faults in and zeroes a whole 2 MiB page, the largest cost
/// of a trivial `tissvm run` after the dynamic loader (65 small-page faults
/// instead: 0.87x the wall time, measured). Turned back on before anything
/// else runs, so large plans get them and no child process inherits the flag.
#[cfg(target_os = "linux")]
pub fn start(program: &'static str, run: fn() -> u8) -> std::ffi::c_int {
    huge_pages(false);
    // SAFETY: plain system calls on the three standard descriptors and a
    // signal disposition, made before anything else runs.
    unsafe {
        let mut fds = [0, 1, 2].map(|fd| libc::pollfd { fd, events: 0, revents: 0 });
        let polled = loop {
            match libc::poll(fds.as_mut_ptr(), 3, 0) {
                -1 if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => continue,
                -1 => break false,
                _ => break true,
            }
        };
        for fd in &fds {
            let is_closed = if polled {
                fd.revents & libc::POLLNVAL != 0
            } else {
                libc::fcntl(fd.fd, libc::F_GETFD) == -1
                    && io::Error::last_os_error().raw_os_error() == Some(libc::EBADF)
            };
            if is_closed && libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) == -1 {
                libc::abort();
            }
        }
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let code = guarded_main(program, run);
    let _ = io::stdout().flush();
    code.into()
}

/// Parses the command line into `C`, with `--version` printing the package
/// version and `language`'s (the TissLang version); clap's own exits (help,
/// version, usage errors) come back as the status to exit with.
pub fn parse_args<C: clap::CommandFactory + clap::FromArgMatches>(
    language: impl std::fmt::Display,
) -> Result<C, u8> {
    let matches = command::<C>(language).try_get_matches().map_err(clap_exit)?;
    #[cfg(target_os = "linux")]
    huge_pages(true);
    C::from_arg_matches(&matches).map_err(clap_exit)
}

/// The whole command definition of `C` as the binary parses it: with
/// `--version`, which prints the package version and `language`'s.
pub fn command<C: clap::CommandFactory>(language: impl std::fmt::Display) -> clap::Command {
    // clap keeps the text for the program's lifetime; this runs once per process.
    // The workspace's crates share one version, this crate's.
    let version: &'static str =
        Box::leak(format!("{} (TissLang {language})", env!("CARGO_PKG_VERSION")).into_boxed_str());
    C::command().version(version)
}

/// Parses the arguments as `C` if they are valid for it, else `None`, having
/// printed nothing: for a smaller command tree tried before the whole one
/// (tissvm's `run`), which then reports help and errors as usual.
pub fn parse_args_if_valid<C: clap::Parser>() -> Option<C> {
    let cli = C::try_parse().ok()?;
    #[cfg(target_os = "linux")]
    huge_pages(true);
    Some(cli)
}

/// Whether the process may take transparent huge pages (`PR_SET_THP_DISABLE`,
/// which the kernel consults at each page fault); see [`start`]. A kernel that
/// refuses leaves things as they were. `tissc compile` turns them off for its
/// whole run (its `memory.rs`).
#[cfg(target_os = "linux")]
pub fn huge_pages(on: bool) {
    // SAFETY: sets one flag of this process; no memory is passed.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, libc::c_ulong::from(!on), 0, 0, 0);
    }
}
