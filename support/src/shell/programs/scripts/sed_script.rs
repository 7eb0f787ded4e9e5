//! The commands a sed script runs, read as GNU sed compiles it
//! (`compile.c`): `e COMMAND` runs COMMAND, and `e` alone and the `e` flag
//! of `s///e` run the pattern space, which only running tells. Anything
//! this reader cannot follow exactly as sed would is read as running what
//! only running tells: sed refuses a script it cannot compile before it
//! runs any of it, so reading more strictly than sed is never less safe.

/// The command lines of the `e COMMAND`s of `script` (several `-e`
/// scripts joined by newlines, as sed reads them); `None` when it runs a
/// command only running tells (`e` alone, `s///e`) or cannot be followed.
pub(in crate::shell::programs) fn commands(script: &str) -> Option<Vec<String>> {
    let mut reader = Reader { text: script.as_bytes(), at: 0, lines: Vec::new() };
    reader.program()?;
    Some(reader.lines)
}

struct Reader<'a> {
    text: &'a [u8],
    at: usize,
    lines: Vec<String>,
}

/// `None`: the script runs what only running tells, or cannot be followed.
type Read = Option<()>;

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek();
        self.at += usize::from(byte.is_some());
        byte
    }

    /// The next byte that is not a blank (sed's `in_nonblank`).
    fn nonblank(&mut self) -> Option<u8> {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
        self.next()
    }

    fn program(&mut self) -> Read {
        loop {
            while matches!(self.peek(), Some(b';' | b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)) {
                self.at += 1;
            }
            let Some(mut byte) = self.next() else { return Some(()) };
            if self.address(byte)? {
                byte = self.nonblank()?;
                if byte == b',' {
                    let first = self.nonblank()?;
                    if !self.address(first)? {
                        return None;
                    }
                    byte = self.nonblank()?;
                }
            }
            if byte == b'!' {
                byte = self.nonblank()?;
            }
            self.command(byte)?;
        }
    }

    /// An address starting with `byte`, if it is one.
    fn address(&mut self, byte: u8) -> Option<bool> {
        match byte {
            b'/' | b'\\' => {
                let delimiter = if byte == b'\\' { self.next()? } else { byte };
                self.delimited(delimiter, true)?;
                while matches!(self.peek_nonblank(), Some(b'I' | b'M')) {
                    self.nonblank();
                }
                Some(true)
            }
            b'0'..=b'9' => {
                self.digits();
                if self.peek_nonblank() == Some(b'~') {
                    self.nonblank();
                    self.skip_blanks();
                    self.digits();
                }
                Some(true)
            }
            b'+' | b'~' => {
                self.skip_blanks();
                self.digits();
                Some(true)
            }
            b'$' => Some(true),
            _ => Some(false),
        }
    }

    fn command(&mut self, byte: u8) -> Read {
        match byte {
            b'#' => self.rest_of_line(),
            b':' | b'b' | b't' | b'T' | b'v' => {
                self.skip_blanks();
                while !matches!(self.peek(), None | Some(b'\n' | b' ' | b'\t' | b';' | b'}' | b'#')) {
                    self.at += 1;
                }
                Some(())
            }
            b'{' => Some(()),
            b'}' | b'=' | b'd' | b'D' | b'F' | b'g' | b'G' | b'h' | b'H' | b'n' | b'N' | b'p' | b'P'
            | b'z' | b'x' => self.end_of_command(),
            b'q' | b'Q' | b'l' | b'L' => {
                if matches!(self.peek_nonblank(), Some(b'0'..=b'9')) {
                    self.skip_blanks();
                    self.digits();
                }
                self.end_of_command()
            }
            b'a' | b'i' | b'c' => {
                let first = self.nonblank()?;
                self.text(first);
                Some(())
            }
            b'e' => {
                self.skip_blanks();
                match self.peek() {
                    // `e` alone runs the pattern space.
                    None | Some(b'\n') => None,
                    Some(_) => {
                        let first = self.nonblank()?;
                        let line = self.text(first);
                        // sed turns `\n`, `\t`, `\x..` into what they name
                        // before the shell reads the line: not followed.
                        if line.contains('\\') {
                            return None;
                        }
                        self.lines.push(line);
                        Some(())
                    }
                }
            }
            b'r' | b'R' | b'w' | b'W' => self.rest_of_line(),
            b's' => {
                let delimiter = self.next()?;
                self.delimited(delimiter, true)?;
                self.delimited(delimiter, false)?;
                self.substitution_flags()
            }
            b'y' => {
                let delimiter = self.next()?;
                self.delimited(delimiter, false)?;
                self.delimited(delimiter, false)?;
                self.end_of_command()
            }
            _ => None,
        }
    }

    /// The text of `a`, `i`, `c` and `e` after its first byte (sed's
    /// `read_text`): to the first newline no backslash escapes, `\` and
    /// the byte after it kept.
    fn text(&mut self, first: u8) -> String {
        // `a\TEXT`: the byte after the backslash is the first of the text,
        // taken as it is; `a\` and a newline: the text is the next line.
        let (start, mut at) = match first {
            b'\\' => match self.next() {
                Some(b'\n') | None => (self.at, self.at),
                Some(_) => (self.at - 1, self.at),
            },
            _ => (self.at - 1, self.at - 1),
        };
        let mut end = at;
        while let Some(&byte) = self.text.get(at) {
            if byte == b'\n' {
                break;
            }
            at = (at + if byte == b'\\' { 2 } else { 1 }).min(self.text.len());
            end = at;
        }
        self.at = end;
        String::from_utf8_lossy(&self.text[start..end]).into_owned()
    }

    /// What `s` and `y` delimit, and an address's regex (sed's
    /// `match_slash`): to the delimiter no backslash escapes, within a
    /// regex not inside a bracket expression; a newline ends it unread.
    fn delimited(&mut self, delimiter: u8, regex: bool) -> Read {
        // A delimiter of more than one byte (or a newline) sed refuses.
        if !delimiter.is_ascii() || delimiter == b'\n' {
            return None;
        }
        loop {
            let byte = self.next()?;
            if byte == delimiter {
                return Some(());
            }
            match byte {
                b'\n' => return None,
                b'\\' => {
                    self.next()?;
                }
                b'[' if regex => self.bracket()?,
                _ => {}
            }
        }
    }

    /// A bracket expression after its `[` (sed's `snarf_char_class`).
    fn bracket(&mut self) -> Read {
        if self.peek() == Some(b'^') {
            self.at += 1;
        }
        if self.peek() == Some(b']') {
            self.at += 1;
        }
        // 0 outside a class, 1 after its `[`, 2 inside `[:`, `[.`, `[=`,
        // 3 after the closing `:`, `.`, `=`.
        let (mut state, mut opened) = (0, 0);
        loop {
            let byte = self.next()?;
            match byte {
                b'\n' => return None,
                b'.' | b':' | b'=' if state == 1 => {
                    (state, opened) = (2, byte);
                    continue;
                }
                b'.' | b':' | b'=' if state == 2 && byte == opened => {
                    state = 3;
                    continue;
                }
                b'[' => {
                    if state == 0 {
                        state = 1;
                    }
                    continue;
                }
                b']' if state <= 1 => return Some(()),
                b']' if state == 3 => state = 0,
                _ => {}
            }
            state &= !1;
        }
    }

    /// `s`'s flags: `w FILE` takes the rest of the line; `e` runs the
    /// pattern space.
    fn substitution_flags(&mut self) -> Read {
        loop {
            match self.nonblank() {
                None | Some(b'\n' | b';') => return Some(()),
                Some(b'}' | b'#') => {
                    self.at -= 1;
                    return Some(());
                }
                Some(b'e') => return None,
                Some(b'w') => return self.rest_of_line(),
                Some(b'i' | b'I' | b'm' | b'M' | b'p' | b'g' | b'0'..=b'9') => {}
                Some(b'\r') if self.peek() == Some(b'\n') => {
                    self.at += 1;
                    return Some(());
                }
                Some(_) => return None,
            }
        }
    }

    /// After a command: blanks, then `;`, a newline, the end, or `}` or `#`
    /// left for the next command (sed's `read_end_of_cmd`).
    fn end_of_command(&mut self) -> Read {
        match self.nonblank() {
            None | Some(b'\n' | b';') => Some(()),
            Some(b'}' | b'#') => {
                self.at -= 1;
                Some(())
            }
            Some(_) => None,
        }
    }

    fn rest_of_line(&mut self) -> Read {
        while !matches!(self.next(), None | Some(b'\n')) {}
        Some(())
    }

    fn peek_nonblank(&self) -> Option<u8> {
        self.text[self.at..].iter().copied().find(|byte| !matches!(byte, b' ' | b'\t'))
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    fn digits(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::commands;
    use std::process::{Command, Stdio};

    /// Whether GNU sed compiles `script`, and whether it then runs a command
    /// (`--sandbox` refuses exactly `e`, `s///e`, `r` and `w`, and the
    /// scripts below hold neither `r` nor `w`).
    fn gnu_sed(script: &str) -> Option<bool> {
        let compile = |sandbox: bool| {
            let mut sed = Command::new("sed");
            sed.args(if sandbox { &["--sandbox", "-n", "-e"][..] } else { &["-n", "-e"][..] });
            let out = sed.arg(script).stdin(Stdio::null()).output().expect("sed runs");
            (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
        };
        let (compiles, _) = compile(false);
        if !compiles {
            return None;
        }
        let (sandboxed, why) = compile(true);
        assert!(sandboxed || why.contains("disabled in sandbox mode"), "{script:?}: {why}");
        Some(!sandboxed)
    }

    /// Scripts made of sed's pieces, read here and compiled by GNU sed: a
    /// script sed compiles with a command that runs is never read as
    /// running nothing; one read as running a command does run one.
    #[test]
    fn a_script_runs_a_command_exactly_when_gnu_sed_says_so() {
        let version = Command::new("sed").arg("--version").output();
        let gnu = version.is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains("GNU sed"));
        if !gnu {
            // Only GNU sed has these commands, and `--sandbox` to tell them.
            tiss_test_skip("GNU sed is not installed");
            return;
        }
        const PIECES: &[&str] = &[
            "e",
            "e ",
            "e echo",
            "s/a/b/",
            "s/a/b/e",
            "s|a|b|g",
            "/x/",
            "\\%x%",
            "[",
            "]",
            "[/]",
            "\\",
            "\\\n",
            ";",
            "\n",
            " ",
            "a",
            "a\\",
            "i x",
            "c\\\n",
            "{",
            "}",
            "#",
            "1",
            "$",
            "!",
            ",",
            "~2",
            "+1",
            "y/a/b/",
            ":l",
            "b l",
            "t",
            "q",
            "l 3",
            "p",
            "d",
            "n",
            "=",
            "x",
            "[:alpha:]",
            "/",
            "I",
            "M",
            "s/[",
            "]/e/",
            "e;",
            "1e echo ;",
            "s/x/\\/e/e",
            "s/[/]x/y/",
            "/[/]/",
            "s/[[:space:]/]/x/",
        ];
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound as u64) as usize
        };
        let (mut compiled, mut running) = (0, 0);
        for _ in 0..1500 {
            let script: String = (0..1 + next(12)).map(|_| PIECES[next(PIECES.len())]).collect();
            let Some(runs) = gnu_sed(&script) else { continue };
            compiled += 1;
            running += usize::from(runs);
            let read = commands(&format!("{script}\n"));
            if runs {
                assert_ne!(read, Some(Vec::new()), "{script:?} runs a command, read as running none");
            } else {
                assert_eq!(read, Some(Vec::new()), "{script:?} runs no command");
            }
        }
        // The pieces make scripts of both kinds, many of them.
        eprintln!("{compiled} scripts compiled, {running} of them run a command");
        assert!(compiled > 300 && running > 100 && compiled - running > 100, "{compiled} {running}");
    }

    /// As `tiss_test_support::skip::missing` (which depends on this crate):
    /// fails under `CI=true`, else says so past libtest's capture.
    fn tiss_test_skip(why: &str) {
        use std::io::Write;
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}, and CI (CI=true) needs it");
        let rule = "*".repeat(72);
        let notice = format!("\n{rule}\nSKIPPED {why}, so it checked nothing.\n{rule}\n");
        let _ = std::io::stderr().lock().write_all(notice.as_bytes());
    }
}
