//! The plan's risk level, with reasons, from its manifest (SPEC §9 `inspect`).
//!
//! High: privilege (`sudo`), network tools, recursive `rm`, disk-level tools,
//! and language-model output interpolated into a command. Medium: commands
//! built at run time, package installs and pushes, recursive DELETE, paths
//! computed at run time, environment that changes how programs load.
//! Prompts (their context leaves the machine) are medium too. Everything
//! else is low.

use tisslang::module::{Manifest, PathAccess, Risk, RiskLevel, RiskReason};

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

pub(super) fn assess(manifest: &Manifest, tables: &Tables<'_>) -> Risk {
    let mut reasons = Vec::new();
    let mut add =
        |level: RiskLevel, reason: String, line: u32| reasons.push(RiskReason { level, reason, line });
    let model_outputs: std::collections::HashSet<&str> = tables
        .prompts
        .iter()
        .filter(|p| p.into != u32::MAX)
        .filter_map(|p| tables.slots.get(p.into as usize))
        .map(|slot| tables.text_of(slot.name))
        .collect();

    for command in &manifest.commands {
        let text = tables.text_of(command.text);
        // The shell removes quotes and backslashes before it finds a program
        // name (`c''url` is `curl`), so the words are read without them.
        let unquoted: String = text.chars().filter(|c| !matches!(c, '\'' | '"' | '\\')).collect();
        let words: Vec<&str> = unquoted
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' || c == '/'))
            .filter(|w| !w.is_empty())
            .collect();
        // Each word as a program name (`/usr/bin/curl` is `curl`).
        let programs: Vec<&str> = words.iter().map(|w| w.rsplit('/').next().unwrap_or(w)).collect();
        let line = command.line;
        if programs.iter().any(|p| matches!(*p, "sudo" | "su" | "doas")) {
            add(RiskLevel::High, "runs a command with elevated privileges".to_string(), line);
        }
        if let Some(tool) = programs.iter().find(|p| NETWORK_TOOLS.contains(p)) {
            add(RiskLevel::High, format!("uses the network tool `{tool}`"), line);
        }
        if let Some(tool) = programs.iter().find(|p| DISK_TOOLS.contains(p)) {
            add(RiskLevel::High, format!("uses the disk-level tool `{tool}`"), line);
        }
        let recursive_rm = words.windows(2).zip(&programs).any(|(pair, program)| {
            *program == "rm"
                && pair[1].starts_with('-')
                && (pair[1].contains('r') || pair[1].contains('R') || pair[1] == "--recursive")
        });
        if recursive_rm {
            add(RiskLevel::High, "deletes recursively with rm".to_string(), line);
        }
        for name in interpolated_names(text) {
            if model_outputs.contains(name) {
                add(RiskLevel::High, format!("language-model output `{name}` flows into a command"), line);
            }
        }
        if command.dynamic {
            add(RiskLevel::Medium, "command built at run time from values".to_string(), line);
        }
        let installs =
            words.windows(2).zip(&programs).any(|(p, program)| INSTALLERS.contains(&(*program, p[1])));
        if installs {
            add(RiskLevel::Medium, "installs packages".to_string(), line);
        }
        if words.windows(2).zip(&programs).any(|(p, program)| *program == "git" && p[1] == "push") {
            add(RiskLevel::Medium, "pushes to a remote repository".to_string(), line);
        }
    }
    for path in &manifest.paths {
        let text = tables.text_of(path.path);
        if path.access == PathAccess::DeleteRecursive {
            add(RiskLevel::Medium, format!("deletes `{text}` recursively"), path.line);
        }
        if path.dynamic && path.access != PathAccess::Inspect {
            add(RiskLevel::Medium, format!("path computed at run time: `{text}`"), path.line);
        }
    }
    for prompt in &manifest.prompts {
        let context: Vec<&str> = prompt.context.iter().map(|&c| tables.text_of(c)).collect();
        let sent = if context.is_empty() {
            "every file READ so far and LAST_RUN".to_string()
        } else {
            context.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ")
        };
        add(RiskLevel::Medium, format!("asks a language model, sending {sent}"), prompt.line);
    }
    for &(name, line) in &manifest.env {
        let name = tables.text_of(name);
        if matches!(name, "PATH" | "LD_PRELOAD" | "LD_LIBRARY_PATH" | "PYTHONPATH" | "NODE_OPTIONS") {
            add(RiskLevel::Medium, format!("changes `{name}`, which decides what programs run"), line);
        }
    }
    reasons.sort_by_key(|r| r.line);
    let level = reasons.iter().map(|r| r.level).max().unwrap_or(RiskLevel::Low);
    Risk { level, reasons }
}

/// The variable names a command interpolates: `x` in `${x}` and `${x.FIELD}`.
fn interpolated_names(text: &str) -> impl Iterator<Item = &str> {
    text.split("${").skip(1).filter_map(|rest| {
        let end = rest.find(['}', '.'])?;
        Some(&rest[..end])
    })
}
