//! The plan's risk level, with reasons, from its manifest (`tissvm inspect`; book: cli/tissvm.md).
//! What a command's words show is read by `command_risk` (shared with the
//! linter).
//!
//! High: privilege (`sudo`), network tools, recursive `rm`, disk-level tools,
//! a pipe into a shell, a command the shell reader cannot read whose text
//! could name one of those, and language-model output interpolated into a
//! command (not a typed answer's part without a STRING in it: a validated
//! INT, BOOL or enum value is clean, book: reference/types.md). Medium: `chmod 777`, commands
//! built at run time, package installs and pushes, recursive DELETE, paths
//! computed at run time, environment that changes how programs load.
//! Prompts (their context leaves the machine) are medium too. Everything
//! else is low.

use rustc_hash::FxHashMap;
use tiss_support::shell::programs::code_variables;
use tisslang::answer::{Shape, Shapes};
use tisslang::module::{Manifest, NONE, PathAccess, Risk, RiskKind, RiskLevel, RiskReason};

use super::tables::Tables;
use crate::command_risk;

pub(super) fn assess(tables: &mut Tables<'_>) -> Risk {
    let manifest = std::mem::take(&mut tables.manifest);
    let risk = assess_manifest(&manifest, tables);
    tables.manifest = manifest;
    risk
}

/// The variables a PROMPT_AGENT fills, by name string, with the shape of
/// each answer they may hold (`None`: untyped, free text).
fn model_outputs_of(tables: &Tables<'_>) -> FxHashMap<u32, Vec<Option<u32>>> {
    let mut outputs: FxHashMap<u32, Vec<Option<u32>>> = FxHashMap::default();
    for p in tables.prompts.iter().filter(|p| p.into != NONE) {
        if let Some(slot) = tables.slots.get(p.into as usize) {
            outputs.entry(slot.name).or_default().push(p.answer.map(|a| a.shape));
        }
    }
    outputs
}

fn assess_manifest(manifest: &Manifest, tables: &mut Tables<'_>) -> Risk {
    let mut reasons = Vec::new();
    let mut add = |kind: RiskKind, subject: u32, line: u32| reasons.push(RiskReason { kind, subject, line });
    // Made the first time a command interpolates a path, which most never
    // do (on a plan of 6,000 prompts and no such command, the map was 1.1
    // MiB of pages touched for nothing).
    let mut model_outputs = None;

    for command in &manifest.commands {
        let line = command.line;
        let found = command_risk::scan(tables.text_of(command.text));
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
        if let Some(shell) = found.pipe_to_shell {
            add(RiskKind::PipeToShell, tables.string(shell), line);
        }
        if let Some(tool) = &found.makes_commands {
            add(RiskKind::MadeCommand, tables.string(tool), line);
        }
        if found.world_writable {
            add(RiskKind::WorldWritable, NONE, line);
        }
        if let Some(why) = &found.unreadable {
            add(RiskKind::UnreadableCommand, tables.string(why), line);
        }
        for (name, fields) in interpolated_paths(tables.text_of(command.text)) {
            let Some(index) = tables.existing_string(name) else { continue };
            let outputs = model_outputs.get_or_insert_with(|| model_outputs_of(tables));
            let Some(answers) = outputs.get(&index) else { continue };
            if answers.iter().any(|&shape| may_hold_text(&tables.answers.shapes, shape, fields)) {
                add(RiskKind::ModelOutputInCommand, index, line);
            }
        }
        if command.dynamic || found.unnamed {
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
    // `PATH`, and the variables that make a program run code its command
    // does not name, which the command policy refuses a plan to set.
    for &(name, line) in &manifest.env {
        let text = tables.text_of(name);
        if text == "PATH" || code_variables::runs_code(text) {
            add(RiskKind::LoaderEnvironment, name, line);
        }
    }
    reasons.sort_by_key(|r| r.line);
    let level = reasons.iter().map(RiskReason::level).max().unwrap_or(RiskLevel::Low);
    Risk { level, reasons }
}

/// The paths a command interpolates, as (variable, fields): `x` in `${x}`,
/// `x` and `a.b` in `${x.a.b}`.
fn interpolated_paths(text: &str) -> impl Iterator<Item = (&str, &str)> {
    memchr::memchr_iter(b'$', text.as_bytes()).filter_map(|at| {
        let rest = text.get(at + 1..)?.strip_prefix('{')?;
        let path = &rest[..rest.find('}')?];
        Some(path.split_once('.').unwrap_or((path, "")))
    })
}

/// Whether the part `fields` (dot-separated; empty for the whole) of an
/// answer of shape `shape` can hold free text: an untyped answer, or a typed
/// one whose part has a STRING in it. A path the shapes do not know is
/// taken to (the checks refuse it before lowering).
fn may_hold_text(shapes: &Shapes, shape: Option<u32>, fields: &str) -> bool {
    let Some(mut shape) = shape else { return true };
    for field in fields.split('.').filter(|f| !f.is_empty()) {
        match shapes.get(shape) {
            Some(Shape::Record(_)) => match shapes.field(shape, field) {
                Some((_, f)) => shape = f.shape,
                None => return true,
            },
            _ => return true,
        }
    }
    shapes.holds_text(shape)
}
