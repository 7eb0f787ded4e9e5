//! `tissvm run PLAN|DIR... -j N` (book: guide/many-plans.md): every plan runs
//! in a `tissvm run` of its own (a child process: its VM, Ctrl-C state,
//! sandbox and rlimits are per process), up to N at once, each in a fresh
//! workspace, its JSON report on a file. This process only starts them,
//! waits for them, prints a line per plan as it ends and, at the end, the
//! failure reports and the counts, or the combined JSON or JUnit report,
//! read back one plan at a time: its memory does not grow with the
//! number of plans' outputs.

mod answers;
mod checkpoints;
pub mod collect;
pub mod plans;
mod reports;
mod signals;
pub mod slurm;
mod workspaces;

use std::fs::File;
use std::io::Write;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::provider::settings::{self, Origin, ProviderSettings};
use crate::report::combined::{self, PlanStatus, Summary};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value as Json;
use tiss_support::secret;
use tiss_support::shell::quote::shell_word;

use crate::runner::color;
use crate::runner::options::{Invocation, OutputFormat, RunOptions};
use crate::runner::status;
use plans::with_suffix;
use reports::{Earlier, earlier, report_from, unfinished};
use tiss_support::io_message::io_message;
use workspaces::Workspace;

/// A plan that runs now.
struct Running {
    index: usize,
    pid: i32,
    started: Instant,
    /// Its workspace, if this run made it in the temporary directory (kept
    /// when the plan does not pass).
    temporary: Option<PathBuf>,
    output: Captured,
}

/// A plan's stdout (its JSON report) and stderr, in memory files
/// (`memfd_create`): most plans pass, and then nothing of them needs to
/// reach the file system, whose every file costs a millisecond on a busy
/// disk. What is kept goes into the scratch or report directory.
struct Captured {
    stdout: File,
    stderr: File,
}

impl Captured {
    fn new() -> std::io::Result<Captured> {
        let memory = |name: &str| -> std::io::Result<File> {
            Ok(File::from(rustix::fs::memfd_create(name, rustix::fs::MemfdFlags::CLOEXEC)?))
        };
        Ok(Captured { stdout: memory("tissvm-plan-stdout")?, stderr: memory("tissvm-plan-stderr")? })
    }

    /// All that was written to `file`.
    fn read(mut file: File) -> Vec<u8> {
        use std::io::{Read, Seek, SeekFrom};
        let mut bytes = Vec::new();
        let _ = file.seek(SeekFrom::Start(0)).and_then(|_| file.read_to_end(&mut bytes));
        bytes
    }
}

/// What the run of many plans goes by.
struct Suite<'a> {
    args: &'a RunOptions,
    plans: Vec<PathBuf>,
    /// Each plan's exit status once it ended (or its earlier report's).
    outcomes: Vec<Option<i32>>,
    /// Each plan started as a resume of its snapshot.
    resumed: Vec<bool>,
    /// The report of a plan whose report in the report directory is left as
    /// it was for a later continue (busy, or its resume refused): this run's
    /// output shows this one.
    told: Vec<Option<Json>>,
    /// The JSON reports (without --report-dir, for JSON and JUnit output)
    /// and the stderr of the plans that did not pass, until they are read.
    scratch: tempfile::TempDir,
    /// What every plan's stdin is.
    devnull: File,
    workspaces: workspaces::Ahead,
    /// How many plans run at once.
    jobs: usize,
    report_dir: Option<PathBuf>,
    /// `--record` (or `TISS_RECORD`, or `tiss.toml`'s `record`) with many
    /// plans: a directory with a cassette per plan, so that no two plans
    /// write one file.
    record_dir: Option<PathBuf>,
    /// The API key in a memory file each child inherits (book: reference/sandbox.md: never in
    /// an environment).
    key: Option<OwnedFd>,
    invocation: Invocation,
    summary: Summary,
    failures: usize,
    /// Plans that did not pass, in the order they ended: their reports come
    /// after the plan lines.
    not_passed: Vec<usize>,
    bar: ProgressBar,
    format: OutputFormat,
}

pub fn run(args: &RunOptions) -> u8 {
    match prepare(args) {
        Ok(mut suite) => suite.run(),
        Err(e) => {
            eprintln!("tissvm: {e}");
            status::INVALID
        }
    }
}

fn prepare(args: &RunOptions) -> Result<Suite<'_>, String> {
    let many = &args.many;
    if args.dry_run {
        return Err("--dry-run lists the effects of one plan: give one plan file".into());
    }
    args.report.check()?;
    let mut plans = plans::once_each(plans::expand(&args.plans)?);
    if let Some(file) = &args.host.answers {
        answers::check(file, &plans)?;
    }
    if many.jobs == Some(0) {
        return Err("-j 0 would run nothing: give at least 1".into());
    }
    if many.max_failures == Some(0) {
        return Err("--max-failures 0 would start nothing: give at least 1 (or --fail-fast)".into());
    }
    let (record_dir, key) = make_directories(args)?;
    plans::check_apart(&plans, |key| claims(args, record_dir.as_deref(), key))?;
    if let Some(shard) = many.shard {
        plans = shard.select(plans);
    }
    if let (Some(dir), false) = (&many.report_dir, many.continue_from_reports || many.restart) {
        refuse_unfinished(dir, &plans)?;
    }
    let jobs =
        many.jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    if args.snapshot.checkpoint.is_some() {
        return Err(
            "--checkpoint names one plan's file; with many plans, --report-dir keeps a checkpoint for \
                    each plan"
                .into(),
        );
    }
    let scratch = tiss_support::private_dir::private_tempdir("tissvm-many-")
        .map_err(|e| format!("cannot make a temporary directory: {e}"))?;
    Ok(Suite {
        args,
        outcomes: vec![None; plans.len()],
        resumed: vec![false; plans.len()],
        told: vec![None; plans.len()],
        workspaces: workspaces::Ahead::start(plans.clone(), args.host.workdir.clone(), jobs),
        bar: progress_bar(plans.len()),
        plans,
        scratch,
        jobs,
        devnull: File::open("/dev/null").map_err(|e| format!("cannot open /dev/null: {e}"))?,
        report_dir: many.report_dir.clone(),
        record_dir,
        key,
        invocation: args.many.invocation.clone()?,
        summary: Summary::default(),
        failures: 0,
        not_passed: Vec::new(),
        format: args.report.output_format,
    })
}

/// What plan `key` keeps on files of its own: its workspace, report,
/// snapshots, log and cassette, where this run puts them.
fn claims(args: &RunOptions, record_dir: Option<&Path>, key: &Path) -> Vec<PathBuf> {
    let mut claims = Vec::new();
    claims.extend(args.host.workdir.as_ref().map(|dir| dir.join(key)));
    if let Some(dir) = &args.many.report_dir {
        claims.extend([dir.join(with_suffix(key, ".json")), dir.join(with_suffix(key, ".snapshots"))]);
    }
    claims.extend(args.host.log_file.as_ref().map(|dir| dir.join(with_suffix(key, ".jsonl"))));
    claims.extend(record_dir.map(|dir| dir.join(with_suffix(key, ".cassette.json"))));
    claims.extend(journal_dir(args).map(|dir| dir.join(with_suffix(key, ".journal"))));
    claims
}

/// Where each plan's journal goes: `--journal`, which names a directory
/// with many plans, else the report directory (book: cookbook/journal.md: one per plan).
fn journal_dir(args: &RunOptions) -> Option<&Path> {
    args.host.journal.as_deref().or(args.many.report_dir.as_deref())
}

/// Refuses to start over plans an earlier attempt left unfinished in the
/// report directory `dir`: their effects would run twice (book: guide/many-plans.md).
fn refuse_unfinished(dir: &Path, plans: &[PathBuf]) -> Result<(), String> {
    let found = unfinished(dir, plans);
    if found.is_empty() {
        return Ok(());
    }
    let shown: Vec<&str> = found.iter().take(10).map(String::as_str).collect();
    let more = if found.len() > shown.len() {
        format!(" and {} more", found.len() - shown.len())
    } else {
        String::new()
    };
    Err(format!(
        "--report-dir `{}` holds {} unfinished plan(s) of an earlier run: {}{more}; starting them over would \
         run the effects they had again. Add --continue-from-reports to go on where they stopped, or \
         --restart to start them over",
        dir.display(),
        found.len(),
        shown.join(", ")
    ))
}

/// Makes the directories the plans' files go into: the report directory,
/// the workspaces', the logs' and the cassettes' (`--record` names a
/// directory with many plans, which is returned); and takes the API key out
/// of this process's environment, into a memory file for the children.
fn make_directories(args: &RunOptions) -> Result<(Option<PathBuf>, Option<OwnedFd>), String> {
    if let Some(dir) = &args.many.report_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("--report-dir `{}`: cannot create it: {e}", dir.display()))?;
    }
    if let Some(dir) = &args.host.workdir {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("--workdir `{}`: cannot create it: {e}", dir.display()))?;
    }
    if let Some(dir) = &args.host.log_file {
        std::fs::create_dir_all(dir).map_err(|e| {
            format!(
                "--log-file `{}`: with many plans it names a directory, and it cannot be made: {e}",
                dir.display()
            )
        })?;
    }
    let mut settings =
        settings::from_process(&args.host.provider, ProviderSettings::default(), Origin::Default)?.settings;
    // The key leaves this process's environment too (a plan's RUN could
    // read it from /proc); each child gets it through a memory file.
    // SAFETY: no thread has started yet (the workspaces' comes later).
    unsafe { settings.take_key() };
    let key = settings
        .taken_key()
        .map(secret::hand_over)
        .transpose()
        .map_err(|e| format!("cannot hand the API key to the plans' processes: {}", io_message(&e)))?;
    let record_dir = settings.record.clone().map(PathBuf::from);
    if let Some(dir) = &record_dir {
        std::fs::create_dir_all(dir).map_err(|e| {
            format!(
                "--record `{}`: with many plans it names a directory (a cassette per plan), and it cannot be \
                 made: {e}",
                dir.display()
            )
        })?;
    }
    Ok((record_dir, key))
}

/// The status line on a terminal: plans done, running, not passed.
fn progress_bar(plans: usize) -> ProgressBar {
    if !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(plans as u64);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {pos}/{len} plans {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

impl Suite<'_> {
    fn run(&mut self) -> u8 {
        let began = Instant::now();
        let jobs = self.jobs;
        let max_failures = if self.args.many.fail_fast { Some(1) } else { self.args.many.max_failures };
        if let Err(e) = signals::install(jobs) {
            eprintln!("tissvm: cannot pass Ctrl-C on to the plans ({e}); it ends this run without snapshots");
        }
        let mut slots: Vec<Option<Running>> = (0..jobs).map(|_| None).collect();
        let mut next = 0;
        loop {
            let stopping =
                |failures: usize| signals::received() > 0 || max_failures.is_some_and(|m| failures >= m);
            while !stopping(self.failures) && next < self.plans.len() {
                let Some(slot) = slots.iter().position(Option::is_none) else { break };
                let index = next;
                next += 1;
                match self.start(index, slot) {
                    Ok(Some(running)) => slots[slot] = Some(running),
                    Ok(None) => {}
                    Err(e) => {
                        let path = self.plans[index].display().to_string();
                        self.bar.suspend(|| eprintln!("tissvm: {path}: {e}"));
                        self.ended(index, status::INVALID as i32, Duration::ZERO, None, None);
                    }
                }
            }
            let running = slots.iter().filter(|s| s.is_some()).count();
            if running == 0 {
                break;
            }
            self.bar.set_message(format!("· {running} running · {} not passed", self.not_passed.len()));
            let (pid, code) = wait_any();
            if pid < 0 {
                // No child left to wait for, which cannot be: end them all.
                for (slot, taken) in slots.iter_mut().enumerate() {
                    signals::ended(slot);
                    if let Some(running) = taken.take() {
                        let elapsed = running.started.elapsed();
                        self.ended(running.index, code, elapsed, running.temporary, Some(running.output));
                    }
                }
                continue;
            }
            if let Some(slot) = slots.iter().position(|s| s.as_ref().is_some_and(|r| r.pid == pid)) {
                signals::ended(slot);
                if let Some(running) = slots[slot].take() {
                    let elapsed = running.started.elapsed();
                    self.ended(running.index, code, elapsed, running.temporary, Some(running.output));
                }
            }
        }
        self.bar.finish_and_clear();
        let not_started = self.plans.len() - self.outcomes.iter().filter(|o| o.is_some()).count();
        self.finish(began.elapsed(), not_started, signals::received() > 0)
    }

    /// Starts plan `index` in `slot`, or takes its earlier report
    /// (--continue-from-reports); `None` when it needs no process.
    fn start(&mut self, index: usize, slot: usize) -> Result<Option<Running>, String> {
        let plan = self.plans[index].clone();
        let key = plans::key(&plan);
        let workspace = self.workspaces.next()?;
        let mut command = Command::new(&self.invocation.program);
        if let Some(key) = &self.key {
            command.env(secret::KEY_FD_VAR, key.as_raw_fd().to_string());
        }
        let mut temporary = None;
        // --continue-from-reports: what an earlier attempt left of it.
        let continuing = self.report_dir.as_deref().filter(|_| self.args.many.continue_from_reports);
        match continuing.and_then(|dir| earlier(dir, &key)) {
            Some(Earlier::Final(code, duration)) => {
                workspace.discard();
                self.ended(index, code, duration, None, None);
                return Ok(None);
            }
            // Another resume has it: its report stays, for a later continue.
            Some(Earlier::Busy(busy)) => {
                workspace.discard();
                let report = busy.report(&plan.display().to_string());
                let _ =
                    std::fs::write(self.scratch_file(index, "err"), format!("tissvm: {}\n", report["error"]));
                self.told[index] = Some(report);
                self.ended(index, status::SUSPENDED as i32, Duration::ZERO, None, None);
                return Ok(None);
            }
            Some(Earlier::Suspended(snapshot)) => {
                self.resume(&mut command, index, &snapshot, false, workspace)
            }
            // Resumed before it was killed, or marked by a resume that was:
            // --force, the effect in flight running again.
            Some(Earlier::Killed(checkpoint)) => {
                self.resume(&mut command, index, &checkpoint, true, workspace)
            }
            None => {
                if workspace.temporary {
                    temporary = Some(workspace.path.clone());
                }
                // An earlier run's checkpoints are not this run's state.
                if let Some(dir) = &self.report_dir {
                    checkpoints::clear(dir, &key);
                }
                self.fresh_run(&mut command, &plan, &key, &workspace.path);
            }
        }
        if let Some(dir) = &self.report_dir {
            command.arg("--checkpoint").arg(checkpoints::path(dir, &key));
        }
        let (pid, output) = self.spawn(command, slot)?;
        Ok(Some(Running { index, pid, started: Instant::now(), temporary, output }))
    }

    /// `command` as the `tissvm resume` of plan `index` from `snapshot`
    /// (`force`: a checkpoint, resumed before it was killed), with the
    /// options of this command line under the rules of resume (book: guide/many-plans.md):
    /// its budgets, profile, policy and answers; `--workdir` gives the plan
    /// its workspace below it, else the snapshot's is used.
    fn resume(
        &mut self,
        command: &mut Command,
        index: usize,
        snapshot: &Path,
        force: bool,
        workspace: Workspace,
    ) {
        self.resumed[index] = true;
        command.arg("resume").arg(snapshot).arg("--output-format=json");
        if force {
            command.arg("--force");
        }
        if self.args.many.raise_budget {
            command.arg("--raise-budget");
        }
        // The plan's journal goes on with its run.
        let key = plans::key(&self.plans[index]);
        if let Some(journal) = journal_dir(self.args).map(|dir| dir.join(with_suffix(&key, ".journal")))
            && journal.is_file()
        {
            command.arg("--journal").arg(journal);
        }
        if self.args.host.workdir.is_some() {
            command.arg("--workdir").arg(std::path::absolute(&workspace.path).unwrap_or(workspace.path));
        } else {
            workspace.discard();
        }
        self.pass_on(command, &self.plans[index]);
    }

    /// The options given that every plan's `tissvm` gets as they are, and
    /// the plan whose entries of the answers file it takes.
    fn pass_on(&self, command: &mut Command, plan: &Path) {
        command.args(&self.invocation.passed_on);
        if self.args.host.answers.is_some() {
            command.arg("--answers-plan").arg(plan);
        }
    }

    /// `command` as the `tissvm run` of `plan` (its key `key`) in `workspace`:
    /// its report as JSON, and its snapshots, log and cassette where this
    /// run keeps them for it; then the options given to pass on.
    fn fresh_run(&self, command: &mut Command, plan: &Path, key: &Path, workspace: &Path) {
        command.arg("run").arg(plan).arg("--output-format=json").arg("--workdir").arg(workspace);
        if let Some(dir) = &self.args.snapshot.snapshot_dir {
            command.arg("--snapshot-dir").arg(dir);
        } else if let Some(dir) = &self.report_dir {
            command.arg("--snapshot-dir").arg(dir.join(with_suffix(key, ".snapshots")));
        }
        if let Some(dir) = &self.args.host.log_file {
            let log = dir.join(with_suffix(key, ".jsonl"));
            if let Some(parent) = log.parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            command.arg("--log-file").arg(log);
        }
        if let Some(dir) = journal_dir(self.args) {
            let journal = dir.join(with_suffix(key, ".journal"));
            if let Some(parent) = journal.parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            // A fresh run of this plan starts it over (an unfinished one is
            // refused before, unless --restart): its old journal goes.
            let _ = std::fs::remove_file(&journal);
            command.arg("--journal").arg(journal);
        }
        if let Some(dir) = &self.record_dir {
            let cassette = dir.join(with_suffix(key, ".cassette.json"));
            if let Some(parent) = cassette.parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            command.arg("--record").arg(cassette);
        }
        self.pass_on(command, plan);
    }

    /// Starts `command` in `slot`, its stdin /dev/null and its output
    /// captured: its pid, and the output.
    fn spawn(&self, mut command: Command, slot: usize) -> Result<(i32, Captured), String> {
        let output = Captured::new().map_err(|e| format!("cannot capture its output: {e}"))?;
        let given = |file: &File| file.try_clone().map(Stdio::from);
        let (stdin, stdout, stderr) = given(&self.devnull)
            .and_then(|stdin| Ok((stdin, given(&output.stdout)?, given(&output.stderr)?)))
            .map_err(|e| format!("cannot give it its stdin and output: {e}"))?;
        // Its own process group: a Ctrl-C at the terminal reaches this
        // process, which passes it on once (signals.rs).
        command.stdin(stdin).stdout(stdout).stderr(stderr);
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let seen = signals::received();
        let child = command
            .spawn()
            .map_err(|e| format!("cannot start `{}`: {e}", self.invocation.program.display()))?;
        let pid = child.id() as i32;
        signals::started(slot, pid, seen);
        // Reaped by `wait_any`, by its pid.
        drop(child);
        Ok((pid, output))
    }

    /// Plan `index` ended with exit status `code` after `elapsed`, with
    /// `output` if it ran here.
    fn ended(
        &mut self,
        index: usize,
        code: i32,
        elapsed: Duration,
        temporary: Option<PathBuf>,
        output: Option<Captured>,
    ) {
        let plan_status = self.plan_status(index, code);
        self.outcomes[index] = Some(code);
        self.summary.add(code);
        if plan_status.is_failure() {
            self.failures += 1;
        }
        if let (Some(dir), PlanStatus::Passed) = (&temporary, plan_status) {
            let _ = std::fs::remove_dir_all(dir);
        }
        if plan_status != PlanStatus::Passed {
            self.not_passed.push(index);
        }
        if let Some(output) = output {
            match self.keep(index, code, output) {
                // A plan whose tissvm died without a report keeps its checkpoint.
                Ok(true) => {}
                Ok(false) => {
                    if let Some(dir) = &self.report_dir {
                        checkpoints::clear(dir, &plans::key(&self.plans[index]));
                    }
                }
                Err(e) => {
                    let plan = self.plans[index].display().to_string();
                    self.bar.suspend(|| eprintln!("tissvm: {plan}: {e}"));
                }
            }
        }
        let style = self.line_style();
        let mut line = format!(
            "{} {:>8}  {}",
            style.paint(plan_status.tone(), &format!("{:<8}", plan_status.label())),
            combined::seconds(elapsed),
            self.plans[index].display()
        );
        if let (Some(dir), false) = (&temporary, plan_status == PlanStatus::Passed) {
            line.push_str(&format!("  (workspace kept: {})", dir.display()));
        }
        let text_output = self.format == OutputFormat::Text;
        self.bar.suspend(|| {
            if text_output {
                tiss_support::cli::print_line(crate::runner::PROGRAM, &line);
            } else {
                eprintln!("{line}");
            }
        });
        self.bar.inc(1);
    }

    /// Keeps what will be needed of a plan's output: its report in the
    /// report directory (atomically, its path as `plan`), or in the scratch
    /// directory for the combined report; its stderr if it did not pass.
    /// Returns whether the plan's checkpoint is to be kept: its `tissvm`
    /// wrote no report and left one, which the report made for it names
    /// (see [`report_from`]).
    fn keep(&mut self, index: usize, code: i32, output: Captured) -> Result<bool, String> {
        if PlanStatus::from_exit_code(code) != PlanStatus::Passed {
            let stderr = Captured::read(output.stderr);
            std::fs::write(self.scratch_file(index, "err"), stderr)
                .map_err(|e| format!("cannot keep its output: {}", io_message(&e)))?;
        }
        let plan = self.plans[index].display().to_string();
        // A resume refused (exit 2) ran nothing: the earlier report, and the
        // snapshot or checkpoint it names, stay for a later continue.
        if self.resumed[index] && code == status::INVALID as i32 {
            self.told[index] = Some(report_from(Some(&Captured::read(output.stdout)), &plan, code, None));
            return Ok(true);
        }
        if let (Some(target), Some(dir)) = (self.report_path(index), &self.report_dir) {
            let checkpoint = Some(checkpoints::path(dir, &plans::key(&self.plans[index])))
                .filter(|c| c.is_file())
                .map(|c| std::path::absolute(&c).unwrap_or(c));
            let mut report =
                report_from(Some(&Captured::read(output.stdout)), &plan, code, checkpoint.as_deref());
            // The plan's journal, which `tissvm replay` runs it again from.
            let key = plans::key(&self.plans[index]);
            if let Some(journal) = journal_dir(self.args).map(|d| d.join(with_suffix(&key, ".journal")))
                && journal.is_file()
                && let Some(object) = report.as_object_mut()
            {
                let journal = std::path::absolute(&journal).unwrap_or(journal);
                object.insert("journal".into(), Json::String(journal.display().to_string()));
            }
            let mut text = serde_json::to_vec_pretty(&report).unwrap_or_default();
            text.push(b'\n');
            target
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| tiss_support::atomic_write::write_atomically(&target, &text, None))
                .map_err(|e| format!("cannot write its report `{}`: {}", target.display(), io_message(&e)))?;
            return Ok(report["checkpoint"].is_string());
        }
        if self.format != OutputFormat::Text {
            std::fs::write(self.scratch_file(index, "out"), Captured::read(output.stdout))
                .map_err(|e| format!("cannot keep its report: {}", io_message(&e)))?;
        }
        Ok(false)
    }

    /// What plan `index` ended as, with exit status `code`: busy if another
    /// resume held its snapshot.
    fn plan_status(&self, index: usize, code: i32) -> PlanStatus {
        match &self.told[index] {
            Some(report) if report["status"] == "busy" => PlanStatus::Busy,
            _ => PlanStatus::from_exit_code(code),
        }
    }

    /// Where plan `index`'s report goes in the report directory, if there is one.
    fn report_path(&self, index: usize) -> Option<PathBuf> {
        Some(self.report_dir.as_ref()?.join(with_suffix(&plans::key(&self.plans[index]), ".json")))
    }

    /// Plan `index`'s JSON report, with its path as `plan`: the one its
    /// `tissvm run` wrote, or one saying why there is none.
    fn report(&self, index: usize) -> Json {
        if let Some(report) = &self.told[index] {
            return report.clone();
        }
        let plan = self.plans[index].display().to_string();
        let source = self.report_path(index).unwrap_or_else(|| self.scratch_file(index, "out"));
        let code = self.outcomes[index].unwrap_or(status::INTERNAL as i32);
        report_from(std::fs::read(source).ok().as_deref(), &plan, code, None)
    }

    fn scratch_file(&self, index: usize, kind: &str) -> PathBuf {
        self.scratch.path().join(format!("{index}.{kind}"))
    }

    /// The style of the plan lines: on stdout for text output, else stderr.
    fn line_style(&self) -> crate::report::style::Style {
        if self.format == OutputFormat::Text { color::stdout() } else { color::stderr() }
    }

    /// The failure reports, the resume commands and the counts, or the
    /// combined report; returns the exit status.
    fn finish(&mut self, elapsed: Duration, not_started: usize, interrupted: bool) -> u8 {
        let mut code = self.summary.exit_code();
        if interrupted && code == 0 && not_started > 0 {
            code = 3;
        }
        if self.format != OutputFormat::Text {
            let _ = self.write_resume_hint(&mut std::io::stderr(), not_started, interrupted);
        }
        let reports =
            || (0..self.plans.len()).filter(|&i| self.outcomes[i].is_some()).map(|i| self.report(i));
        self.args.report.deliver_with(code as u8, |mut out| match self.format {
            OutputFormat::Text => self.write_text(&mut out, elapsed, not_started, interrupted),
            OutputFormat::Json => combined::write_json(out, &self.summary, elapsed, reports()),
            OutputFormat::Junit => out.write_all(combined::junit(reports()).as_bytes()),
            OutputFormat::Html => {
                let head = combined::head(&self.summary, elapsed);
                crate::report::html::write_many(out, &head, reports)
            }
            OutputFormat::Github => {
                let heading = format!("TissLang: {}", self.summary.counts_line(elapsed));
                crate::report::github::write(out, &heading, "plan", reports())
            }
        })
    }

    fn write_text(
        &self,
        out: &mut impl Write,
        elapsed: Duration,
        not_started: usize,
        interrupted: bool,
    ) -> std::io::Result<()> {
        let style = color::stdout();
        for &index in &self.not_passed {
            let plan_status = self.plan_status(index, self.outcomes[index].unwrap_or(0));
            let label = style.paint(plan_status.tone(), plan_status.label());
            writeln!(out, "\n── {label} {} ──", self.plans[index].display())?;
            match std::fs::read(self.scratch_file(index, "err")) {
                Ok(text) if !text.is_empty() => out.write_all(&text)?,
                // Taken from an earlier report (--continue-from-reports).
                _ => {
                    let report = self.report(index);
                    if report["failure"].is_object() {
                        out.write_all(combined::failure_text(&report["failure"]).as_bytes())?;
                    }
                }
            }
        }
        if !self.not_passed.is_empty() {
            writeln!(out)?;
        }
        self.write_resume_hint(out, not_started, interrupted)?;
        writeln!(out, "{}", self.summary.counts_line(elapsed))?;
        out.flush()
    }

    /// Says how to go on from suspended plans and plans not started.
    fn write_resume_hint(
        &self,
        out: &mut impl Write,
        not_started: usize,
        interrupted: bool,
    ) -> std::io::Result<()> {
        if not_started > 0 {
            // Named as given: --fail-fast wins over --max-failures.
            let why = match (interrupted, self.args.many.fail_fast, self.args.many.max_failures) {
                (true, _, _) => "the run was interrupted".to_string(),
                (false, false, Some(n)) => format!("--max-failures {n} was reached"),
                _ => "--fail-fast stopped at the first failure".to_string(),
            };
            writeln!(out, "tissvm: {not_started} plan(s) not started: {why}")?;
        }
        if self.summary.suspended == 0 && !(interrupted && not_started > 0) {
            return Ok(());
        }
        if self.report_dir.is_none() {
            return writeln!(
                out,
                "tissvm: each suspended plan's report above names the command that resumes it (with --report-dir, \
                 one command resumes them all)"
            );
        }
        let arguments = self.invocation.arguments.iter().filter(|a| *a != "--restart");
        let mut words: Vec<String> = arguments.map(|a| shell_word(&a.to_string_lossy())).collect();
        if !self.args.many.continue_from_reports {
            words.push("--continue-from-reports".into());
        }
        // Without its answer, a plan waiting for one would only suspend again.
        let wanted: Vec<String> = (0..self.plans.len())
            .filter(|&i| self.plan_status(i, self.outcomes[i].unwrap_or(0)) == PlanStatus::Suspended)
            .filter_map(|i| {
                let snapshot = self.report(i)["snapshot"].as_str().map(PathBuf::from)?;
                answers::wanted(&self.plans[i], &snapshot).map(|entry| entry.to_string())
            })
            .collect();
        if !wanted.is_empty() {
            let file = match &self.args.host.answers {
                Some(file) => format!("add to `{}` an entry for each", file.display()),
                None => {
                    words.extend(["--answers".into(), "answers.json".into()]);
                    "write them into answers.json, a JSON array".into()
                }
            };
            let pick = if wanted.iter().any(|w| w.contains('|')) {
                " (of `approve|reject` and the like, pick one)"
            } else {
                ""
            };
            writeln!(
                out,
                "tissvm: {} suspended plan(s) wait for an answer; {file}{pick}:\n  [\n    {}\n  ]",
                wanted.len(),
                wanted.join(",\n    ")
            )?;
        }
        writeln!(
            out,
            "tissvm: to resume the suspended plans and run those not started:\n  tissvm {}",
            words.join(" ")
        )
    }
}

/// Waits for any child to end: its pid and exit status (128 + the signal
/// that killed it).
fn wait_any() -> (i32, i32) {
    loop {
        let mut raw = 0;
        // SAFETY: waitpid(2) on our own children, with a valid pointer.
        let pid = unsafe { libc::waitpid(-1, &mut raw, 0) };
        if pid < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return (pid, status::INTERNAL as i32);
        }
        let code = if libc::WIFEXITED(raw) {
            libc::WEXITSTATUS(raw)
        } else if libc::WIFSIGNALED(raw) {
            128 + libc::WTERMSIG(raw)
        } else {
            continue;
        };
        return (pid, code);
    }
}
