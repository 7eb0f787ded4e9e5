//! The SQL shells' commands: sqlite3, psql and the MySQL client (`mysql`,
//! `mariadb`) run a command line for their own commands (`sqlite3 db '.shell
//! CMD'`, `.system`, `.output '|CMD'`; `psql -c '\! CMD'`, `psql -o '|CMD'`;
//! `mysql -e 'system CMD'`), load code (`load_extension()`, `.load`, the
//! client's plugins), start an editor (`edit()`, `\e`), and read more
//! commands from a file or their input. What a line gives them is read: SQL that does
//! none of that, and their commands that only show or set their output,
//! run nothing; a command line is read as the line it is; anything else
//! only running tells ([`Given::Input`]).

use crate::shell::parse::Word;
use crate::shell::programs::given::Given;

/// The tools read here.
pub(in crate::shell::programs) const NAMES: &[&str] = &["sqlite3", "psql", "mysql", "mariadb"];

/// sqlite3 3.40's options (`sqlite3 -help`) with how many words each takes
/// after it (`-A` takes the rest: the arguments of `.archive`, which makes
/// and reads archives, running nothing).
const SQLITE_VALUED: &[(&str, usize)] = &[
    ("cmd", 1),
    ("init", 1),
    ("lookaside", 2),
    ("maxsize", 1),
    ("mmap", 1),
    ("newline", 1),
    ("nonce", 1),
    ("nullvalue", 1),
    ("pagecache", 2),
    ("separator", 1),
    ("vfs", 1),
    ("heap", 2),
];

#[rustfmt::skip]
const SQLITE_FLAGS: &[&str] = &["append", "ascii", "bail", "batch", "box", "column", "csv", "deserialize",
    "echo", "header", "noheader", "help", "html", "interactive", "json", "line", "list", "markdown",
    "memtrace", "nofollow", "quote", "readonly", "safe", "stats", "table", "tabs", "version", "zip"];

/// sqlite3's commands that only show or set what it prints, and how.
#[rustfmt::skip]
const SQLITE_SHOWS: &[&str] = &["tables", "table", "schema", "fullschema", "indexes", "indices", "mode",
    "headers", "header", "separator", "nullvalue", "width", "print", "show", "databases", "dump", "quit",
    "exit", "bail", "echo", "changes", "timer", "stats", "help", "version", "timeout", "eqp", "explain",
    "limit", "dbinfo", "dbconfig", "lint", "parameter", "vfsinfo", "vfslist", "vfsname", "sha3sum",
    "scanstats", "prompt", "binary"];

/// sqlite3's commands whose file may be `|CMD`, a command line its output
/// is piped to, or whose input comes from.
const SQLITE_PIPES: &[&str] = &["output", "once", "import", "read", "log", "trace"];

/// psql 15's options that take a value (`psql --help`); the rest are flags.
#[rustfmt::skip]
const PSQL_VALUED: &[&str] = &["-c", "-d", "-f", "-v", "-F", "-h", "-p", "-U", "-L", "-o", "-P", "-R", "-T",
    "--command", "--dbname", "--file", "--set", "--variable", "--field-separator", "--host", "--port",
    "--username", "--log-file", "--output", "--pset", "--record-separator", "--table-attr"];

#[rustfmt::skip]
const PSQL_FLAGS: &[&str] = &["-a", "-b", "-e", "-E", "-l", "-n", "-q", "-s", "-S", "-w", "-W", "-x", "-X",
    "-z", "-0", "-A", "-H", "-t", "-1", "-V", "-?", "--echo-all", "--echo-errors", "--echo-queries",
    "--echo-hidden", "--list", "--no-readline", "--quiet", "--single-step", "--single-line", "--no-password",
    "--password", "--expanded", "--no-psqlrc", "--field-separator-zero", "--record-separator-zero",
    "--no-align", "--html", "--tuples-only", "--single-transaction", "--version", "--help", "--csv"];

/// psql's commands that only show something or set how it prints.
#[rustfmt::skip]
const PSQL_SHOWS: &[&str] = &["d", "dt", "dt+", "d+", "di", "dv", "ds", "dn", "du", "dg", "df", "dx", "db",
    "dp", "l", "l+", "list", "conninfo", "timing", "x", "echo", "q", "encoding", "pset", "a", "t", "H", "C",
    "f", "errverbose", "copyright", "?", "drds", "dT", "dD", "dc", "dC", "dd", "dE", "dm", "do", "dy"];

/// What `name` given `args` runs besides itself.
pub(in crate::shell::programs) fn given(name: &str, args: &[Word]) -> Vec<Given> {
    let given = match name {
        "sqlite3" => sqlite3(args),
        "psql" => psql(args),
        "mysql" | "mariadb" => mysql(args),
        _ => Ok(Vec::new()),
    };
    given.unwrap_or_else(|()| vec![Given::Input])
}

/// `sqlite3 [OPTIONS] FILE [SQL…]`: options anywhere (one dash or two),
/// each `SQL` word and `-cmd` value a command of its own (one that starts
/// with `.`) or SQL. Without SQL it reads commands from its input; `-init`
/// from a file. With `-safe` (and no `-nonce`) it refuses everything that
/// runs a program, loads code, or reads another file of commands.
fn sqlite3(args: &[Word]) -> Result<Vec<Given>, ()> {
    let (mut file, mut scripts, mut safe, mut nonce, mut sql) = (false, Vec::new(), false, false, 0);
    let mut at = 0;
    while let Some(word) = args.get(at) {
        at += 1;
        let text = word.literal().ok_or(())?;
        let Some(option) = text.strip_prefix('-').map(|o| o.strip_prefix('-').unwrap_or(o)) else {
            match file {
                false => file = true,
                true => (scripts.push(text), sql += 1).1,
            }
            continue;
        };
        match option {
            "A" => return Ok(Vec::new()),
            "safe" => safe = true,
            "init" => return Err(()),
            "cmd" => scripts.push(next_literal(args, &mut at)?),
            _ if SQLITE_FLAGS.contains(&option) => {}
            _ => {
                let &(_, count) = SQLITE_VALUED.iter().find(|(name, _)| *name == option).ok_or(())?;
                nonce |= option == "nonce";
                at += count;
            }
        }
    }
    // Without SQL it reads commands from its input (a `-cmd` runs first).
    if sql == 0 {
        return Err(());
    }
    if safe && !nonce {
        return Ok(Vec::new());
    }
    let mut given = Vec::new();
    for script in scripts {
        given.extend(sqlite3_script(script)?);
    }
    Ok(given)
}

/// One SQL word or `-cmd` value of sqlite3's.
fn sqlite3_script(script: &str) -> Result<Option<Given>, ()> {
    let Some(command) = script.strip_prefix('.') else {
        return if loads_or_edits(script) { Err(()) } else { Ok(None) };
    };
    let (name, rest) = command.split_once(char::is_whitespace).unwrap_or((command, ""));
    match name {
        "shell" | "system" => Ok(Some(Given::Line(Some(Word::Literal(rest.trim().to_string()))))),
        _ if SQLITE_SHOWS.contains(&name) => Ok(None),
        _ if SQLITE_PIPES.contains(&name) => {
            // `.once -e`/`-x` opens the output in a program; `|CMD` pipes to CMD.
            let words: Vec<&str> = rest.split_whitespace().collect();
            if words.iter().any(|w| matches!(*w, "-e" | "-x" | "--excel")) {
                return Err(());
            }
            let piped = rest.trim_start().trim_start_matches(['\'', '"']);
            match piped.strip_prefix('|') {
                Some(line) => {
                    Ok(Some(Given::Line(Some(Word::Literal(line.trim_end_matches(['\'', '"']).to_string())))))
                }
                None if rest.contains('|') => Err(()),
                None => Ok(None),
            }
        }
        _ => Err(()),
    }
}

/// Whether SQL calls `load_extension` (code) or `edit` (the editor).
fn loads_or_edits(sql: &str) -> bool {
    let sql = sql.to_ascii_lowercase();
    sql.contains("load_extension")
        || sql.match_indices("edit").any(|(i, _)| sql[i + 4..].trim_start().starts_with('('))
}

/// `psql [OPTIONS] [DBNAME [USERNAME]]`: options anywhere (getopt_long
/// permutes), each `-c` a command: SQL for the server, or psql's own (`\…`).
/// Without `-c` it reads commands from its input, or `-f`'s file; `-o |CMD`
/// pipes what it prints to CMD.
fn psql(args: &[Word]) -> Result<Vec<Given>, ()> {
    let mut values = Vec::new();
    let mut at = 0;
    while let Some(word) = args.get(at) {
        at += 1;
        let text = word.literal().ok_or(())?;
        if text == "--" {
            break;
        }
        if !text.starts_with('-') || text == "-" {
            continue;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, glued) =
                long.split_once('=').map_or((long, None), |(name, value)| (name, Some(value)));
            let option = &text[..name.len() + 2];
            if PSQL_FLAGS.contains(&option) && glued.is_none() {
                continue;
            }
            // Not among its options (or a prefix of one, which getopt_long takes).
            if !PSQL_VALUED.contains(&option) {
                return Err(());
            }
            let value = match glued {
                Some(value) => value,
                None => next_literal(args, &mut at)?,
            };
            values.push((option, value));
            continue;
        }
        // A cluster: flags, then at most one that takes the rest or the next word.
        let letters = &text[1..];
        for (i, letter) in letters.char_indices() {
            let letter = &letters[i..i + letter.len_utf8()];
            let is = |list: &[&str]| list.iter().any(|option| option.strip_prefix('-') == Some(letter));
            if is(PSQL_FLAGS) {
                continue;
            }
            let option =
                PSQL_VALUED.iter().find(|option| option.strip_prefix('-') == Some(letter)).ok_or(())?;
            let value = match &letters[i + letter.len()..] {
                "" => next_literal(args, &mut at)?,
                rest => rest,
            };
            values.push((option, value));
            break;
        }
    }
    let mut given = Vec::new();
    let mut commands = 0;
    for (option, value) in values {
        match option {
            "-c" | "--command" => {
                commands += 1;
                given.extend(psql_command(value)?);
            }
            "-f" | "--file" => return Err(()),
            "-o" | "--output" => {
                if let Some(line) = value.strip_prefix('|') {
                    given.push(Given::Line(Some(Word::Literal(line.to_string()))));
                }
            }
            // A variable's value may be a prompt that runs `` `CMD` `` when shown.
            "-v" | "--set" | "--variable" if value.contains('`') => return Err(()),
            _ => {}
        }
    }
    // Without `-c` it reads commands from its input.
    if commands == 0 {
        return Err(());
    }
    Ok(given)
}

/// The MySQL client's (and MariaDB's) short options that take a value in
/// the next word or glued; `-p` takes one only glued (alone, it asks).
const MYSQL_VALUED: &str = "eDhPuSO";
const MYSQL_FLAGS: &str = "ABNsrtvEHXbcfnqwV?pC";

/// Its long options without a value (those with one are read only with
/// `=`: which of its many take the next word differs by release).
#[rustfmt::skip]
const MYSQL_LONG_FLAGS: &[&str] = &["batch", "skip-column-names", "column-names", "silent", "raw", "table",
    "verbose", "vertical", "html", "xml", "no-auto-rehash", "auto-rehash", "force", "quick", "unbuffered",
    "line-numbers", "skip-line-numbers", "comments", "skip-comments", "binary-mode", "compress", "ssl",
    "skip-ssl", "safe-updates", "i-am-a-dummy", "version", "help", "show-warnings", "no-beep",
    "skip-reconnect", "reconnect", "no-defaults", "print-defaults", "password"];

/// Its long options whose value runs or loads something, or gives a file
/// of settings that may (`pager = CMD`): the pager, client plugins, files
/// of defaults.
#[rustfmt::skip]
const MYSQL_RUNS: &[&str] = &["pager", "plugin-dir", "default-auth", "defaults-file", "defaults-extra-file",
    "load-plugin", "plugin-load", "plugin_dir", "defaults-group-suffix"];

/// Its own commands that run, pipe to or read something (`system CMD`,
/// `pager CMD`, `source FILE`, `edit`): at the start of a statement, or
/// written `\!`, `\P`, `\.`, `\e` anywhere (any `\` is refused).
const MYSQL_COMMANDS: &[&str] = &["system", "pager", "source", "edit", "tee", "delimiter", "connect"];

/// `mysql [OPTIONS] [DB]`: each `-e` is statements, SQL for the server or
/// the client's own commands; without one it reads its input.
fn mysql(args: &[Word]) -> Result<Vec<Given>, ()> {
    let mut statements = Vec::new();
    let mut at = 0;
    while let Some(word) = args.get(at) {
        at += 1;
        let text = word.literal().ok_or(())?;
        if !text.starts_with('-') || text == "-" {
            continue;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, value) =
                long.split_once('=').map_or((long, None), |(name, value)| (name, Some(value)));
            match (name, value) {
                ("execute", Some(value)) => statements.push(value),
                ("execute", None) => statements.push(next_literal(args, &mut at)?),
                _ if MYSQL_RUNS.contains(&name) => return Err(()),
                (_, Some(_)) => {}
                _ if MYSQL_LONG_FLAGS.contains(&name) => {}
                _ => return Err(()),
            }
            continue;
        }
        let letters = &text[1..];
        for (i, letter) in letters.char_indices() {
            let rest = &letters[i + letter.len_utf8()..];
            if letter == 'p' {
                break;
            }
            if MYSQL_VALUED.contains(letter) {
                let value = if rest.is_empty() { next_literal(args, &mut at)? } else { rest };
                if letter == 'e' {
                    statements.push(value);
                }
                break;
            }
            if !MYSQL_FLAGS.contains(letter) {
                return Err(());
            }
        }
    }
    if statements.is_empty() {
        return Err(());
    }
    for value in statements {
        if value.contains('\\') {
            return Err(());
        }
        for statement in value.split([';', '\n']) {
            let first = statement.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
            if MYSQL_COMMANDS.contains(&first.as_str()) {
                return Err(());
            }
        }
    }
    Ok(Vec::new())
}

/// One `-c` of psql's: SQL (none of it may run a program here, but the
/// server's `COPY … PROGRAM` runs one where the server is, maybe here), or
/// one of psql's commands (`\! CMD` runs CMD).
fn psql_command(command: &str) -> Result<Option<Given>, ()> {
    let Some(own) = command.trim_start().strip_prefix('\\') else {
        return if command.to_ascii_lowercase().contains("program") { Err(()) } else { Ok(None) };
    };
    if let Some(line) = own.strip_prefix('!') {
        return Ok(Some(Given::Line(Some(Word::Literal(line.trim().to_string())))));
    }
    let name = own.split_whitespace().next().unwrap_or("");
    if PSQL_SHOWS.contains(&name) && !own.contains(['\\', '|', '`']) {
        return Ok(None);
    }
    Err(())
}

/// The next word, an option's value, if it is literal.
fn next_literal<'a>(args: &'a [Word], at: &mut usize) -> Result<&'a str, ()> {
    let word = args.get(*at).ok_or(())?;
    *at += 1;
    word.literal().ok_or(())
}

#[cfg(test)]
mod tests {
    use crate::shell::programs::tests::{hidden, texts};

    /// Their commands that run a command line are read as that line
    /// (sqlite3 3.40 ran the canary for `.shell`, `.system`, `.output
    /// '|…'`; psql's `\!` runs its line through the shell).
    #[test]
    fn a_sql_shells_command_line_is_read() {
        for (line, inner) in [
            ("sqlite3 db '.shell rm x'", "rm x"),
            ("sqlite3 db '.system rm x'", "rm x"),
            ("sqlite3 -csv db \".output '|rm x'\" 'select 1'", "rm x"),
            ("sqlite3 db -cmd '.once |rm x' 'select 1'", "rm x"),
            // `-nonce` lets a command escape `-safe`.
            ("sqlite3 -nonce n -safe app.db '.shell rm x'", "rm x"),
            ("psql -c '\\! rm x'", "rm x"),
            ("psql -d app -o '|rm x' -c 'select 1'", "rm x"),
            ("psql --output='|rm x' app -c 'select 1'", "rm x"),
        ] {
            let texts = texts(line);
            assert!(texts.iter().any(|text| text == inner), "{line}: {texts:?}");
        }
        // What only shows or sets the output, and SQL, run nothing.
        for line in [
            "sqlite3 app.db 'select count(*) from t'",
            "sqlite3 -header -csv ./app.db '.tables' '.schema t' 'select 1'",
            "sqlite3 -separator , -cmd '.mode csv' app.db 'select 1'",
            "sqlite3 app.db '.output out.csv' 'select 1'",
            "sqlite3 -safe app.db '.shell rm x'",
            "psql -qAt -d app -c 'select 1'",
            "psql -h localhost -U ci app -c '\\dt' -c 'select 1'",
            "psql app ci --set=ON_ERROR_STOP=1 -c 'insert into t values (1)'",
            "mysql -h db -u ci -psecret -e 'select 1' app",
            "mysql -uroot -BNe 'show databases'",
            "mariadb --host=db --user=ci --batch --execute='select 1; select 2' app",
        ] {
            assert_eq!(texts(line).len(), 1, "{line}: {:?}", texts(line));
            assert!(!hidden(line), "{line}");
        }
    }

    /// Code, an editor, a file or the input of commands, or what is not
    /// read here: only running tells.
    #[test]
    fn a_sql_shell_that_may_run_anything_passes_no_list() {
        for line in [
            "sqlite3 app.db",
            "sqlite3 app.db < cmds.sql",
            "sqlite3 -init cmds.sql app.db 'select 1'",
            "sqlite3 app.db \"select load_extension('./x.so')\"",
            "sqlite3 app.db 'select EDIT (a) from t'",
            "sqlite3 app.db '.load ./x.so'",
            "sqlite3 app.db '.once -x' 'select 1'",
            "sqlite3 app.db '.excel'",
            "sqlite3 -newoption app.db 'select 1'",
            "sqlite3 app.db \"$SQL\"",
            "psql app",
            "psql -f cmds.sql app",
            "psql -c '\\o |rm x' app",
            "psql -c '\\e' app",
            "psql -c \"COPY t TO PROGRAM 'rm x'\" app",
            "psql -v 'PROMPT1=`rm x`' -c 'select 1' app",
            "psql -Z -c 'select 1' app",
            "psql -c \"$SQL\" app",
            "mysql app",
            "mysql -e 'system rm x' app",
            "mysql -e 'select 1; SYSTEM rm x'",
            "mariadb -e '\\! rm x'",
            "mysql --execute='source cmds.sql'",
            "mysql --pager='rm x' -e 'select 1'",
            "mysql --defaults-extra-file=x.cnf -e 'select 1'",
            "mysql --plugin-dir=. --default-auth=x -e 'select 1'",
            "mysql --new-option x -e 'select 1'",
            "mysql -Z -e 'select 1'",
        ] {
            assert!(hidden(line), "{line}");
        }
    }
}
