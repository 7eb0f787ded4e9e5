//! `tissvm providers`: the providers this build offers, and the settings a
//! run would go by here, with where each came from (book: reference/models.md). The API key
//! is never shown: only whether its variable is set. A cassette named by
//! `--cassette` is read and summed up (what `replay` would answer from).

use std::path::Path;

use crate::provider::cassette::Cassette;
use crate::provider::settings::{self, Key, Origin, PROVIDERS, ProviderFlags, ProviderSettings};

use crate::runner::{PROGRAM, status};
use tiss_support::cli::write_stdout;

/// Prints the providers and the settings `flags` give here; the exit status.
pub fn providers(flags: &ProviderFlags) -> u8 {
    let resolved = match settings::from_process(flags, ProviderSettings::default(), Origin::Default) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("tissvm: {e}");
            return status::INVALID;
        }
    };
    let mut out = String::from("providers:\n");
    for (name, what) in PROVIDERS {
        out.push_str(&format!("  {name:<10} {what}\n"));
    }
    out.push_str("\nsettings (flag > environment > ./tiss.toml > for replay the cassette > default):\n");
    let settings = &resolved.settings;
    for (key, origin) in Key::ALL.into_iter().zip(&resolved.origins) {
        let value = settings.text(key).unwrap_or_else(|| "(none)".into());
        let mut from = origin.describe(key);
        if key == Key::ApiKeyEnv {
            let set = if settings.api_key().is_some() { "set" } else { "not set: no key is sent" };
            from.push_str(&format!("; the variable is {set}"));
        }
        out.push_str(&format!("  {:<20} {value:<28} {from}\n", key.toml()));
    }
    if let Some(path) = &settings.cassette {
        match Cassette::read(Path::new(path), "--cassette") {
            Ok(cassette) => out.push_str(&format!("\ncassette {path}:\n{}", summary(&cassette))),
            Err(e) => {
                eprintln!("tissvm: {e}");
                return status::INVALID;
            }
        }
    }
    write_stdout(PROGRAM, &out, status::OK)
}

/// A cassette's entries, counted by provider and endpoint, in the order
/// first recorded.
fn summary(cassette: &Cassette) -> String {
    let mut counts: Vec<(&str, &str, usize)> = Vec::new();
    for entry in &cassette.entries {
        match counts.iter_mut().find(|(p, e, _)| *p == entry.provider && *e == entry.endpoint) {
            Some((_, _, n)) => *n += 1,
            None => counts.push((&entry.provider, &entry.endpoint, 1)),
        }
    }
    if counts.is_empty() {
        return "  no entries: every request misses\n".into();
    }
    let mut out = String::new();
    for (provider, endpoint, n) in counts {
        let answers = if n == 1 { "1 answer".to_string() } else { format!("{n} answers") };
        let endpoint = if endpoint.is_empty() { String::new() } else { format!(" {endpoint}") };
        out.push_str(&format!("  {answers} recorded with {provider}{endpoint}\n"));
    }
    out
}
