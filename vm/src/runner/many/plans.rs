//! The plan list of a run of many plans: the arguments in order, each
//! directory expanded to every `.tiss` below it (sorted); `--shard K/N`'s
//! slice of it; and the name each plan's workspace and report take.

use std::path::{Component, Path, PathBuf};

/// The plans the arguments name, in order: a file as given, a directory
/// as every `.tiss` file below it, sorted by path. An error names the
/// argument.
pub fn expand(arguments: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut plans = Vec::new();
    for argument in arguments {
        let metadata = std::fs::metadata(argument).map_err(|e| {
            format!("cannot read `{}`: {}", argument.display(), tiss_support::io_message::io_message(&e))
        })?;
        if !metadata.is_dir() {
            plans.push(argument.clone());
            continue;
        }
        let mut found = Vec::new();
        walk(argument, &mut found)?;
        if found.is_empty() {
            return Err(format!("the directory `{}` holds no `.tiss` plan", argument.display()));
        }
        found.sort();
        plans.extend(found);
    }
    Ok(plans)
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        format!("cannot list `{}`: {}", dir.display(), tiss_support::io_message::io_message(&e))
    })?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot list `{}`: {e}", dir.display()))?;
        let path = entry.path();
        // `file_type` does not follow symbolic links: a link to a directory
        // above cannot make the walk endless.
        let kind = entry.file_type().map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        if kind.is_dir() {
            walk(&path, found)?;
        } else if path.extension().is_some_and(|e| e == "tiss") {
            found.push(path);
        }
    }
    Ok(())
}

/// `--shard K/N`: 1 ≤ K ≤ N.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        let usage = || format!("`{text}` is not a shard: write K/N with 1 ≤ K ≤ N, e.g. `--shard 2/4`");
        let (k, n) = text.split_once('/').ok_or_else(usage)?;
        let (index, count): (usize, usize) =
            (k.trim().parse().map_err(|_| usage())?, n.trim().parse().map_err(|_| usage())?);
        if index == 0 || index > count {
            return Err(usage());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// The K-th of N slices: the plans at positions K-1, K-1+N, K-1+2N, …
    /// of the list (0-based). Round robin over the sorted list keeps the
    /// slices within one plan of each other in size, and the same list
    /// always splits the same way, on any machine.
    pub fn select(self, plans: Vec<PathBuf>) -> Vec<PathBuf> {
        plans.into_iter().skip(self.index - 1).step_by(self.count).collect()
    }
}

/// The name a plan's workspace and report take under their directories:
/// its path without the extension, made relative (`/` and `..` cannot lead
/// outside: a leading `/` is dropped, `..` becomes `_up`).
pub fn key(plan: &Path) -> PathBuf {
    let mut key = PathBuf::new();
    for component in plan.with_extension("").components() {
        match component {
            Component::Normal(part) => key.push(part),
            Component::ParentDir => key.push("_up"),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    if key.as_os_str().is_empty() { PathBuf::from("plan") } else { key }
}

/// `key` with `suffix` added to its last part (`a/b` + `.json`: `a/b.json`).
pub fn with_suffix(key: &Path, suffix: &str) -> PathBuf {
    let mut name = key.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_round_robin_and_cover_the_list_once() {
        let plans: Vec<PathBuf> = (0..10).map(|i| PathBuf::from(format!("p{i}.tiss"))).collect();
        let mut seen = Vec::new();
        for k in 1..=3 {
            let shard: Shard = format!("{k}/3").parse().unwrap();
            seen.extend(shard.select(plans.clone()));
        }
        seen.sort();
        let mut all = plans.clone();
        all.sort();
        assert_eq!(seen, all);
        let first: Shard = "1/3".parse().unwrap();
        assert_eq!(first.select(plans).len(), 4);
        for bad in ["0/3", "4/3", "3", "a/b", "1/0"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn keys_stay_below_their_directory() {
        assert_eq!(key(Path::new("suite/a/b.tiss")), PathBuf::from("suite/a/b"));
        assert_eq!(key(Path::new("/abs/p.tiss")), PathBuf::from("abs/p"));
        assert_eq!(key(Path::new("../up/p.tiss")), PathBuf::from("_up/up/p"));
        assert_eq!(key(Path::new("./p.tbc")), PathBuf::from("p"));
    }
}
