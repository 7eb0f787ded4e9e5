//! The commands an awk program runs: `system(CMD)`, `print … | CMD`,
//! `CMD | getline` and gawk's `|&`. Read token by token, a `/` being a
//! regex where an operand is awaited and a division after a value, as the
//! grammar of every awk decides. A command written as one string literal
//! is read as that command line; any other (`system($0)`, `print | cmd`),
//! an indirect call (`@f()`, which may name `system`), `@load`,
//! `@include`, and whatever this reader cannot follow as every awk would
//! (a `/` inside a regex's bracket expression, a string or regex left
//! open) run what only running tells.

/// The command lines `program` runs, each written as one string literal;
/// `None` when it runs one only running tells or cannot be followed.
pub(in crate::shell::programs) fn commands(program: &str) -> Option<Vec<String>> {
    let tokens = tokens(program)?;
    let mut lines = Vec::new();
    for (at, token) in tokens.iter().enumerate() {
        let line = match token {
            Token::Name(name) if name == "system" => match &tokens[at + 1..] {
                [Token::Other(b'('), Token::Text(Some(line)), Token::Other(b')'), ..] => line,
                _ => return None,
            },
            Token::Pipe => {
                let line = match (&tokens[..at], tokens.get(at + 1)) {
                    // `"CMD" | getline`: CMD alone, not the end of a concatenation.
                    ([before @ .., Token::Text(Some(line))], Some(Token::Name(getline)))
                        if getline == "getline" && before.last().is_none_or(Token::starts_an_expression) =>
                    {
                        Some(line)
                    }
                    // `print … | "CMD"`, CMD alone.
                    (_, Some(Token::Text(Some(line))))
                        if tokens
                            .get(at + 2)
                            .is_none_or(|t| matches!(t, Token::Other(b';' | b'}' | b')' | b'\n'))) =>
                    {
                        Some(line)
                    }
                    _ => None,
                };
                line?
            }
            _ => continue,
        };
        lines.push(line.clone());
    }
    Some(lines)
}

#[derive(Debug, PartialEq, Eq)]
enum Token {
    /// A string literal: its text, when it has no escape sequence.
    Text(Option<String>),
    /// A name (a variable, a function, a keyword).
    Name(String),
    /// A single `|` or `|&`.
    Pipe,
    /// A number or a regex.
    Value,
    /// Any other byte of punctuation, a newline among them.
    Other(u8),
}

impl Token {
    /// Whether an expression may start right after this token.
    fn starts_an_expression(&self) -> bool {
        matches!(self, Token::Other(b'(' | b'{' | b';' | b'}' | b'\n'))
    }
}

/// Names after which an operand, so a regex, comes: `print /x/`.
const AWAIT_OPERAND: &[&str] = &["print", "printf", "return", "case", "exit", "do", "else", "in"];

/// Names whose parenthesized head a statement follows.
const HEADS: &[&str] = &["if", "while", "for", "switch"];

/// The program's tokens, or `None` where it cannot be followed.
fn tokens(program: &str) -> Option<Vec<Token>> {
    let text = program.as_bytes();
    let mut tokens = Vec::new();
    let mut at = 0;
    // At the start a pattern, so an operand, is awaited.
    let mut operand = true;
    // For each `(` open, whether it holds the head of an `if`, `while`,
    // `for` or `switch`. After its `)` a statement comes, whose `/` gawk
    // reads as a regex and mawk (as POSIX says) as a division: such a `/`
    // is not followed. After any other `)`, a `/` divides.
    let mut heads: Vec<bool> = Vec::new();
    let mut after_head = false;
    while let Some(&byte) = text.get(at) {
        at += 1;
        let token = match byte {
            b' ' | b'\t' | b'\r' => continue,
            b'\\' if text.get(at) == Some(&b'\n') => {
                at += 1;
                continue;
            }
            b'#' => {
                while text.get(at).is_some_and(|&b| b != b'\n') {
                    at += 1;
                }
                continue;
            }
            b'"' => {
                let start = at;
                let mut escaped = false;
                loop {
                    match *text.get(at)? {
                        b'"' => break,
                        b'\n' => return None,
                        b'\\' => {
                            escaped = true;
                            at += 1;
                        }
                        _ => {}
                    }
                    at += 1;
                }
                at += 1;
                let literal = std::str::from_utf8(&text[start..at - 1]).ok()?;
                Token::Text((!escaped).then(|| literal.to_string()))
            }
            b'/' if after_head => return None,
            b'/' if operand => {
                at = regex_end(text, at)?;
                Token::Value
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let start = at - 1;
                while text.get(at).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') {
                    at += 1;
                }
                Token::Name(program[start..at].to_string())
            }
            b'0'..=b'9' | b'.' => {
                while text.get(at).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'.') {
                    at += 1;
                }
                Token::Value
            }
            b'|' if text.get(at) == Some(&b'|') => {
                at += 1;
                Token::Other(b'|')
            }
            b'|' => {
                if text.get(at) == Some(&b'&') {
                    at += 1;
                }
                Token::Pipe
            }
            // `x++ / 2` divides; `++x` awaits its operand.
            b'+' | b'-' if text.get(at) == Some(&byte) => {
                at += 1;
                if !operand {
                    continue;
                }
                Token::Other(byte)
            }
            // `@load`, `@include`, and `@f()`, which calls the function
            // named by the value of `f`, `system` among them.
            b'@' => return None,
            _ if byte.is_ascii_punctuation() || byte == b'\n' => Token::Other(byte),
            _ => return None,
        };
        after_head = token == Token::Other(b')') && heads.pop()?;
        operand = match &token {
            Token::Text(_) | Token::Value => false,
            Token::Name(name) => AWAIT_OPERAND.contains(&name.as_str()),
            Token::Other(b'(') => {
                let head = matches!(tokens.last(), Some(Token::Name(n)) if HEADS.contains(&n.as_str()));
                heads.push(head);
                true
            }
            Token::Other(b')' | b']') => false,
            Token::Pipe | Token::Other(_) => true,
        };
        tokens.push(token);
    }
    Some(tokens)
}

/// Where the regex whose body starts at `at` ends, past its closing `/`.
/// A bracket expression holding a `/` is not followed: some awks end the
/// regex there, others do not.
fn regex_end(text: &[u8], mut at: usize) -> Option<usize> {
    loop {
        match *text.get(at)? {
            b'/' => return Some(at + 1),
            b'\n' => return None,
            b'\\' => at += 1,
            b'[' => {
                let mut end = at + 1;
                if text.get(end) == Some(&b'^') {
                    end += 1;
                }
                if text.get(end) == Some(&b']') {
                    end += 1;
                }
                loop {
                    match *text.get(end)? {
                        b']' => break,
                        b'/' | b'\n' => return None,
                        // `[:alpha:]` inside: its `]` does not close.
                        b'[' if matches!(text.get(end + 1), Some(b':' | b'.' | b'=')) => {
                            let close = text.get(end + 1).copied()?;
                            end += 2;
                            while !(text.get(end) == Some(&close) && text.get(end + 1) == Some(&b']')) {
                                if matches!(text.get(end)?, b'/' | b'\n') {
                                    return None;
                                }
                                end += 1;
                            }
                            end += 1;
                        }
                        _ => {}
                    }
                    end += 1;
                }
                at = end;
            }
            _ => {}
        }
        at += 1;
    }
}
