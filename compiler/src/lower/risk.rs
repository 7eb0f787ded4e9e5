//! The plan's risk level, with reasons, from its manifest (SPEC §9 `inspect`).
//!
//! High: privilege (`sudo`), network tools, recursive `rm`, disk-level tools,
//! and language-model output interpolated into a command. Medium: commands
//! built at run time, package installs and pushes, recursive DELETE, paths
//! computed at run time, environment that changes how programs load.
//! Prompts (their context leaves the machine) are medium too. Everything
//! else is low.

use rustc_hash::FxHashSet;
use tisslang::module::{Manifest, NONE, PathAccess, Risk, RiskKind, RiskLevel, RiskReason};

use super::tables::Tables;

const NETWORK_TOOLS: &[&str] =
    &["curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "ftp", "telnet", "socat"];
const DISK_TOOLS: &[&str] = &["mkfs", "dd", "fdisk", "parted", "shred", "mount"];
const INSTALLERS: &[(&str, &str)] = &[
    ("pip", "install"),
    ("pip3", "install"),
    ("npm", "install"),
    ("apt-get", "install"),
    ("apt", "install"),
    ("cargo", "install"),
    ("gem", "install"),
    ("brew", "install"),
];

pub(super) fn assess(tables: &mut Tables<'_>) -> Risk {
    let manifest = std::mem::take(&mut tables.manifest);
    let risk = assess_manifest(&manifest, tables);
    tables.manifest = manifest;
    risk
}

fn assess_manifest(manifest: &Manifest, tables: &mut Tables<'_>) -> Risk {
    let mut reasons = Vec::new();
    let mut add = |kind: RiskKind, subject: u32, line: u32| reasons.push(RiskReason { kind, subject, line });
    // Variables a PROMPT_AGENT fills, by name string.
    let model_outputs: FxHashSet<u32> = tables
        .prompts
        .iter()
        .filter(|p| p.into != NONE)
        .filter_map(|p| tables.slots.get(p.into as usize))
        .map(|slot| slot.name)
        .collect();

    // One buffer for every command's text, so the loop does not allocate.
    let mut unquoted = Vec::new();
    for command in &manifest.commands {
        let text = tables.text_of(command.text);
        let line = command.line;
        // The shell removes quotes and backslashes before it finds a program
        // name (`c''url` is `curl`), so the words are read without them.
        // Words are ASCII, so bytes will do: every byte of a non-ASCII
        // character separates words, as the character would.
        unquoted.clear();
        let mut rest = text.as_bytes();
        while let Some(at) = memchr::memchr3(b'\'', b'"', b'\\', rest) {
            unquoted.extend_from_slice(&rest[..at]);
            rest = &rest[at + 1..];
        }
        unquoted.extend_from_slice(rest);
        let words = unquoted
            .split(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/')))
            .filter_map(|w| std::str::from_utf8(w).ok().filter(|w| !w.is_empty()));
        let mut found = Found::default();
        let mut previous: Option<&str> = None;
        for word in words {
            // Each word as a program name (`/usr/bin/curl` is `curl`).
            let program = word.rsplit('/').next().unwrap_or(word);
            found.privilege |= matches!(program, "sudo" | "su" | "doas");
            found.network = found.network.or_else(|| NETWORK_TOOLS.iter().find(|&&t| t == program).copied());
            found.disk = found.disk.or_else(|| DISK_TOOLS.iter().find(|&&t| t == program).copied());
            if let Some(before) = previous {
                found.recursive_rm |= before == "rm"
                    && word.starts_with('-')
                    && (word.contains('r') || word.contains('R') || word == "--recursive");
                found.installs |= INSTALLERS.contains(&(before, word));
                found.push |= before == "git" && word == "push";
            }
            previous = Some(program);
        }
        if found.privilege {
            add(RiskKind::Privilege, NONE, line);
        }
        if let Some(tool) = found.network {
            add(RiskKind::NetworkTool, tables.string(tool), line);
        }
        if let Some(tool) = found.disk {
            add(RiskKind::DiskTool, tables.string(tool), line);
        }
        if found.recursive_rm {
            add(RiskKind::RecursiveRm, NONE, line);
        }
        for name in interpolated_names(tables.text_of(command.text)) {
            if let Some(index) = tables.existing_string(name).filter(|i| model_outputs.contains(i)) {
                add(RiskKind::ModelOutputInCommand, index, line);
            }
        }
        if command.dynamic {
            add(RiskKind::DynamicCommand, NONE, line);
        }
        if found.installs {
            add(RiskKind::InstallsPackages, NONE, line);
        }
        if found.push {
            add(RiskKind::GitPush, NONE, line);
        }
    }
    for path in &manifest.paths {
        if path.access == PathAccess::DeleteRecursive {
            add(RiskKind::DeletesRecursively, path.path, path.line);
        }
        if path.dynamic && path.access != PathAccess::Inspect {
            add(RiskKind::DynamicPath, path.path, path.line);
        }
    }
    for (i, prompt) in manifest.prompts.iter().enumerate() {
        add(RiskKind::Prompt, i as u32, prompt.line);
    }
    for &(name, line) in &manifest.env {
        if matches!(
            tables.text_of(name),
            "PATH" | "LD_PRELOAD" | "LD_LIBRARY_PATH" | "PYTHONPATH" | "NODE_OPTIONS"
        ) {
            add(RiskKind::LoaderEnvironment, name, line);
        }
    }
    reasons.sort_by_key(|r| r.line);
    let level = reasons.iter().map(RiskReason::level).max().unwrap_or(RiskLevel::Low);
    Risk { level, reasons }
}

/// What one command's words show.
#[derive(Default)]
struct Found {
    privilege: bool,
    network: Option<&'static str>,
    disk: Option<&'static str>,
    recursive_rm: bool,
    installs: bool,
    push: bool,
}

/// The variable names a command interpolates: `x` in `${x}` and `${x.FIELD}`.
fn interpolated_names(text: &str) -> impl Iterator<Item = &str> {
    memchr::memchr_iter(b'$', text.as_bytes()).filter_map(|at| {
        let rest = text.get(at + 1..)?.strip_prefix('{')?;
        let end = rest.find(['}', '.'])?;
        Some(&rest[..end])
    })
}
