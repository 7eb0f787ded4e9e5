//! Runners that read their options their own way: npm and npx as nopt
//! does (by each option's type in npm's configuration), ip by any prefix of
//! an option's name.

/// How many words `text`, an option of ip's, takes: iproute2 takes each
/// option by any prefix of its name, the first in its order that it
/// prefixes (`-n`, `-ne` and `--net` are `-netns`, `-r` is `-resolve` and
/// `-rc` `-rcvbuf`; probed with iproute2 6.1: `ip -ne red netns exec blue rm
/// x` runs `rm x`).
pub(super) fn ip_option_words(text: &str) -> usize {
    let name = ip_option(text);
    let valued = ["loops", "family", "batch", "netns"].iter().any(|whole| whole.starts_with(name))
        || (name.len() > 1 && "rcvbuf".starts_with(name));
    if !name.is_empty() && valued { 2 } else { 1 }
}

/// Whether `text` is ip's `-batch` (`-b`, `--ba`).
pub(super) fn ip_batch(text: &str) -> bool {
    let name = ip_option(text);
    text.starts_with('-') && !name.is_empty() && "batch".starts_with(name)
}

/// The name of ip's option `text`, its dashes left out.
fn ip_option(text: &str) -> &str {
    text.strip_prefix("--").or_else(|| text.strip_prefix('-')).unwrap_or(text)
}

/// npm's options that nopt has read alike from npm 7 to 11: those that take
/// no value, and those that take the next word.
#[rustfmt::skip]
const NPM_SWITCHES: &[&str] = &[
    "yes", "offline", "prefer-offline", "prefer-online", "global", "ignore-scripts", "legacy-peer-deps",
    "include-workspace-root", "workspaces", "foreground-scripts", "force", "dry-run", "json", "audit",
    "fund", "strict-ssl", "progress", "parseable", "long", "all", "usage", "version",
];
#[rustfmt::skip]
const NPM_VALUED: &[&str] = &[
    "package", "call", "workspace", "prefix", "registry", "cache", "userconfig", "globalconfig",
    "loglevel", "tag", "scope", "location", "message",
];
/// npm's short forms of those (`-p` is `--parseable`; npx's own below).
#[rustfmt::skip]
const NPM_SHORT: &[(&str, &str)] = &[
    ("y", "yes"), ("n", "no-yes"), ("no", "no-yes"), ("g", "global"), ("f", "force"), ("c", "call"),
    ("w", "workspace"), ("C", "prefix"), ("ws", "workspaces"), ("iwr", "include-workspace-root"),
    ("reg", "registry"), ("L", "location"), ("m", "message"), ("a", "all"), ("l", "long"),
    ("p", "parseable"), ("v", "version"), ("h", "usage"), ("H", "usage"), ("?", "usage"),
    // `--loglevel` and its value in one word.
    ("q", "quiet"), ("s", "quiet"), ("d", "quiet"), ("dd", "quiet"), ("ddd", "quiet"),
    ("silent", "quiet"), ("verbose", "quiet"),
];

/// How many words `text`, an option of npm's or npx's, takes with its
/// value, as npm 7 to 11 read it. nopt reads an option by the type npm's
/// configuration gives its name (or a prefix of it), and a boolean takes
/// a following `true` or `false`; npx's loop before it puts a `--` before
/// the first word it takes for the command, so `npx --yes true rm x` runs
/// `true` where `npm exec --yes true rm x` runs `rm x`. An option not
/// listed here takes the next word or not as the npm release that runs it
/// says: `Err`, unless no word can be its value.
pub(super) fn npm_option_words(name: &str, text: &str, next: Option<&str>) -> Result<usize, String> {
    let npx = name == "npx";
    let unknown = || {
        format!(
            "`{name} {text}`: whether npm takes the next word as its value (by the option's type in its \
             configuration, or of the option it abbreviates) only running it would tell, and so which word \
             is the command: write `{text}=VALUE`, or put `--` before the command"
        )
    };
    if text.contains('=') {
        return Ok(1);
    }
    let key = text.trim_start_matches('-');
    let key = match key {
        // npx reads these before npm does: `-p` is `--package`, `--shell`
        // `--script-shell`, `-n` a removed option it drops with its value.
        "p" | "shell" | "n" if npx => "package",
        "no-install" | "quiet" | "q" if npx => return Ok(1),
        _ => NPM_SHORT.iter().find(|(short, _)| *short == key).map_or(key, |&(_, long)| long),
    };
    if key == "quiet" {
        return Ok(1);
    }
    let mut plain = key;
    while let Some(rest) = plain.get(..3).filter(|no| no.eq_ignore_ascii_case("no-")).map(|_| &plain[3..]) {
        plain = rest;
    }
    let truth = matches!(next, Some("true" | "false"));
    let (negated, switch) = (plain.len() < key.len(), NPM_SWITCHES.contains(&plain));
    if negated || switch {
        // A negated option is a boolean whatever its type; npx leaves a
        // `true` after a switch of its list to be the command.
        if next == Some("null") {
            return Err(unknown());
        }
        return Ok(if truth && !(npx && switch && !negated) { 2 } else { 1 });
    }
    let ends = next.is_none_or(|next| next.len() > 1 && next.bytes().all(|b| b == b'-'));
    match NPM_VALUED.contains(&plain) {
        // A word that looks like an option may be its value or not, by type.
        true if next.is_some_and(|next| next.starts_with('-')) && !ends => Err(unknown()),
        true => Ok(2),
        false if ends => Ok(1),
        false => Err(unknown()),
    }
}
