//! Loading a plan, whatever its file's name (book: cli/tissvm.md): bytecode if it
//! starts with the `.tbc` magic, else source, compiled in memory; either
//! way verified. The compiler's diagnostics go to stderr as `--error-format`
//! and `--color` ask.

use std::io::Write;
use std::path::Path;

use tiss_compiler::KeepSource;
use tiss_compiler::diagnostics::render::termcolor::StandardStream;
use tiss_compiler::diagnostics::render::{self, ErrorFormat};
use tiss_support::io_message::io_message;
use tiss_support::shell::quote::shell_word;
use tisslang::codec::seal::names_container;
use tisslang::module::{Module, Source};

use crate::runner::invalid::{Invalid, Refused};

/// Where diagnostics go.
pub struct Diagnostics {
    pub format: ErrorFormat,
    pub stderr: StandardStream,
}

/// A plan ready for the machine: verified.
pub struct Plan {
    pub module: Module,
}

impl Plan {
    /// The content hash, computed only where it is shown or compared: it
    /// encodes and hashes the whole module, which a run does not need.
    pub fn hash(&self) -> String {
        tisslang::container::content_hash(&self.module)
    }
}

/// Loads PLAN, whatever its name (book: cli/tissvm.md): bytecode if it starts with the
/// `.tbc` magic, else source, compiled in memory. Either way the module is
/// verified. Errors are told on stderr here; the `Err` says what a report
/// says about them, and gives the exit status.
pub fn load_plan(out: &mut Diagnostics, path: &Path) -> Result<Plan, Refused> {
    let name = path.display().to_string();
    // Source or bytecode, nothing larger than the largest `.tbc` is read: a
    // larger source would not compile in memory either.
    let limit = tisslang::container::MAX_FILE;
    let bytes = tisslang::codec::seal::read_file(path, limit)
        .map_err(|e| Invalid::told(&name, format!("cannot read `{name}`: {}", io_message(&e))))?
        .map_err(|size| {
            Invalid::told(
                &name,
                format!("`{name}` is {size} bytes, larger than any plan tissvm reads (the limit is {limit})"),
            )
        })?;
    if names_container(&bytes, &crate::session::snapshot::MAGIC) {
        return Err(Invalid::told(
            &name,
            format!(
                "`{name}` is a snapshot, not a plan; continue it with `tissvm resume {}`",
                shell_word(&name)
            ),
        )
        .into());
    }
    // The magic's first four bytes name the container; the rest are
    // line-ending canaries, so a `.tbc` whose line endings were converted
    // is still bytecode, and the loader says what happened to it.
    let is_source = !names_container(&bytes, &tisslang::container::MAGIC);
    let module = if is_source {
        let (mut module, frontend) = match tiss_compiler::compile(&name, &bytes, KeepSource::Text) {
            Ok(compiled) => compiled,
            Err(frontend) => {
                report(out, &frontend);
                return Err(Invalid::from_frontend(&name, &frontend).into());
            }
        };
        report(out, &frontend);
        // The source is named by its file name alone, as `tissc compile` does,
        // so the listing does not depend on the directory it was run from.
        if let (Source::Embedded { name, .. }, Some(file)) = (&mut module.source, path.file_name()) {
            *name = file.to_string_lossy().into_owned();
        }
        if let Err(e) = tisslang::verify::verify(&module) {
            eprintln!(
                "tissvm: internal error: the compiler produced invalid bytecode for `{name}`: {e}\n\
                 This is a bug in the compiler, not in your plan; please report it with the plan."
            );
            return Err(Refused::Internal);
        }
        module
    } else {
        tisslang::container::load(&bytes).map_err(|e| Invalid::told(&name, format!("{name}: {e}")))?
    };
    Ok(Plan { module })
}

/// Prints a plan's diagnostics (warnings, or the errors that stop it).
fn report(out: &mut Diagnostics, frontend: &tiss_compiler::Frontend) {
    let _ = render::emit(&mut out.stderr, out.format, &frontend.file, &frontend.diagnostics);
    if out.format == ErrorFormat::Human {
        let _ = render::emit_summary(&mut out.stderr, "compile", &frontend.file.name, &frontend.diagnostics);
    }
    let _ = out.stderr.flush();
}

/// The plan a resumed or replayed run names in its annotations
/// (`--output-format github`): the plan given, else the file name the
/// bytecode embeds, else `fallback` (the snapshot or journal).
pub(crate) fn shown_name(given: Option<&Path>, source: &Source, fallback: &str) -> String {
    match (given, source) {
        (Some(path), _) => path.display().to_string(),
        (None, Source::Embedded { name, .. }) => name.clone(),
        (None, _) => fallback.to_string(),
    }
}
