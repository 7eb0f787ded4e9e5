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

/// The name a plan's workspace, report and snapshots take under their
/// directories (book: guide/many-plans.md): its path with the extension kept (`x.tiss` and
/// `x.tbc` are two plans), made relative and mapped one to one, so that no
/// two plans share a name: `..` becomes `_up`, a leading `/` `_root`, and a
/// part that starts with `_` gets one more (`_up/z.tiss` is `__up/z.tiss`,
/// `../z.tiss` is `_up/z.tiss`); `.` parts are left out.
pub fn key(plan: &Path) -> PathBuf {
    let mut key = PathBuf::new();
    for component in plan.components() {
        match component {
            Component::Normal(part) if part.as_encoded_bytes().starts_with(b"_") => {
                let mut escaped = std::ffi::OsString::from("_");
                escaped.push(part);
                key.push(escaped);
            }
            Component::Normal(part) => key.push(part),
            Component::ParentDir => key.push("_up"),
            Component::RootDir | Component::Prefix(_) => key.push("_root"),
            Component::CurDir => {}
        }
    }
    key
}

/// `plans` with each file once (book: guide/many-plans.md: a plan named twice runs once), in
/// the order first named: two names of one file (`a.tiss`, `./a.tiss`, a
/// symbolic link to it) are one plan.
pub fn once_each(plans: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut seen = std::collections::HashSet::new();
    plans
        .into_iter()
        .filter(|plan| seen.insert(std::fs::canonicalize(plan).unwrap_or_else(|_| key(plan))))
        .collect()
}

/// Refuses plans whose files would meet: `claims` gives, for a plan, the
/// paths its workspace, report, snapshots, log and cassette take. Keys are
/// one to one, so only plan names made to meet (a plan `q` and another
/// `q.json/r.tiss`: `q`'s report is `q.json`) are refused, naming both.
pub fn check_apart(plans: &[PathBuf], claims: impl Fn(&Path) -> Vec<PathBuf>) -> Result<(), String> {
    let mut owner: std::collections::HashMap<PathBuf, usize> = std::collections::HashMap::new();
    let met = |index: usize, other: usize, claim: &Path| {
        format!(
            "the plans `{}` and `{}` would share files: `{}` is, or lies within, what `{}` keeps; rename one \
             of them, or run them apart",
            plans[index].display(),
            plans[other].display(),
            claim.display(),
            plans[other].display()
        )
    };
    for (index, plan) in plans.iter().enumerate() {
        for claim in claims(&key(plan)) {
            let claim = std::path::absolute(&claim).unwrap_or(claim);
            match owner.insert(claim.clone(), index) {
                Some(other) if other != index => return Err(met(index, other, &claim)),
                _ => {}
            }
        }
    }
    for (claim, &index) in &owner {
        // An ancestor of one plan's claim must be no other plan's.
        if let Some(&other) = claim.ancestors().skip(1).find_map(|a| owner.get(a).filter(|&&o| o != index)) {
            return Err(met(index, other, claim));
        }
    }
    Ok(())
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
    fn keys_stay_below_their_directory_and_are_one_to_one() {
        assert_eq!(key(Path::new("suite/a/b.tiss")), PathBuf::from("suite/a/b.tiss"));
        assert_eq!(key(Path::new("/abs/p.tiss")), PathBuf::from("_root/abs/p.tiss"));
        assert_eq!(key(Path::new("../up/p.tiss")), PathBuf::from("_up/up/p.tiss"));
        assert_eq!(key(Path::new("./p.tbc")), PathBuf::from("p.tbc"));
        let names =
            ["x.tiss", "x.tbc", "x", "../z.tiss", "_up/z.tiss", "__up/z.tiss", "/z.tiss", "_root/z.tiss"];
        let keys: std::collections::HashSet<PathBuf> = names.iter().map(|n| key(Path::new(n))).collect();
        assert_eq!(keys.len(), names.len(), "{keys:?}");
    }

    #[test]
    fn plans_whose_files_would_meet_are_refused() {
        let report = |key: &Path| vec![Path::new("/r").join(with_suffix(key, ".json"))];
        let apart = [PathBuf::from("a/b.tiss"), PathBuf::from("a.tiss")];
        assert_eq!(check_apart(&apart, report), Ok(()));
        let meeting = [PathBuf::from("q"), PathBuf::from("q.json/r.tiss")];
        let e = check_apart(&meeting, report).unwrap_err();
        assert!(e.contains("`q`") && e.contains("`q.json/r.tiss`"), "{e}");
    }
}
