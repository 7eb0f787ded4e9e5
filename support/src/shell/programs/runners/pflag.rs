//! Options read as Go's pflag reads them (cobra's commands: buildah, LXD's
//! and Incus's clients): no abbreviations, a long option's value after `=`
//! or in the next word (whatever that word is), short ones in clusters
//! whose first letter that takes a value takes the rest of the cluster or
//! the next word, a flag given a value only after `=`.

use crate::shell::parse::Word;

/// A command's options: those that take a value and those that do not,
/// each written with its dashes (`-e`, `--env`).
pub(super) struct Table {
    pub valued: &'static [&'static str],
    pub flags: &'static [&'static str],
}

/// An option read: its name (`--env`, `-e`) and its value, if it takes one,
/// as far as it is known (all of it when `whole`).
pub(super) struct Read {
    pub name: String,
    pub value: Option<(String, bool)>,
    /// How many words it took.
    pub words: usize,
}

/// The options of the word at `words[at]`, which starts with `-` (a
/// cluster reads as several); `Err(())` for an option the table does not
/// know, a word that expands past an option's name (`-"$X"`, `--"$X"`,
/// which may be any option), and a value in the next word that the shell
/// may split.
pub(super) fn read(words: &[Word], at: usize, table: &Table) -> Result<Vec<Read>, ()> {
    let word = &words[at];
    let start = word.known_start();
    let whole = word.literal().is_some();
    let next = |reads: &mut Vec<Read>, name: String| -> Result<(), ()> {
        let value = words.get(at + 1).ok_or(())?;
        if value.splits() {
            return Err(());
        }
        reads.push(Read { name, value: Some((value.known_start(), value.literal().is_some())), words: 2 });
        Ok(())
    };
    let mut reads = Vec::new();
    if let Some(long) = start.strip_prefix("--") {
        match long.split_once('=') {
            Some((name, value)) => {
                let name = format!("--{name}");
                if !table.valued.contains(&name.as_str()) && !table.flags.contains(&name.as_str()) {
                    return Err(());
                }
                reads.push(Read { name, value: Some((value.to_string(), whole)), words: 1 });
            }
            None if !whole => return Err(()),
            None if table.flags.contains(&start.as_str()) => {
                reads.push(Read { name: start, value: None, words: 1 });
            }
            None if table.valued.contains(&start.as_str()) => next(&mut reads, start)?,
            None => return Err(()),
        }
        return Ok(reads);
    }
    let letters = start.strip_prefix('-').ok_or(())?;
    for (i, letter) in letters.char_indices() {
        let name = format!("-{letter}");
        if table.flags.contains(&name.as_str()) {
            reads.push(Read { name, value: None, words: 1 });
            continue;
        }
        if !table.valued.contains(&name.as_str()) {
            return Err(());
        }
        let rest = &letters[i + letter.len_utf8()..];
        let rest = rest.strip_prefix('=').unwrap_or(rest);
        if rest.is_empty() && whole {
            next(&mut reads, name)?;
        } else {
            reads.push(Read { name, value: Some((rest.to_string(), whole)), words: 1 });
        }
        return Ok(reads);
    }
    // Letters that expand after the flags read so far may be any option.
    if !whole {
        return Err(());
    }
    Ok(reads)
}

/// How many words the reads of one word took.
pub(super) fn taken(reads: &[Read]) -> usize {
    reads.iter().map(|read| read.words).max().unwrap_or(1)
}
