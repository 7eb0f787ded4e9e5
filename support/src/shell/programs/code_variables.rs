//! Environment variables that make a program run code its command line
//! does not name: `TAR_OPTIONS='--to-command=CMD' tar …`, `PAGER=CMD man
//! …`, `LD_PRELOAD=./x.so ls`, `GIT_SSH_COMMAND=CMD git fetch`. A line
//! that names one (sets it, exports it, or so much as mentions it: the
//! shell has many ways to set a variable) cannot be shown to run only what
//! it names; nor can a builtin that sets a variable whose name expands
//! (`export "$N=…"`, `read "$N"`), which may be one of these.

use super::bash_builtins::variable_operands;
use crate::shell::parse::Word;

/// Such variables, by name; and by the start of their name.
#[rustfmt::skip]
const NAMES: &[&str] = &[
    "GCONV_PATH", "BASH_ENV", "ENV", "TAR_OPTIONS", "PAGER", "MANPAGER", "MANOPT", "LESSOPEN",
    "LESSCLOSE", "EDITOR", "VISUAL", "SSH_ASKPASS", "SUDO_ASKPASS", "RSYNC_RSH", "RSYNC_CONNECT_PROG",
    "GIT_SSH", "GIT_SSH_COMMAND", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_EXTERNAL_DIFF",
    "GIT_ASKPASS", "GIT_EXEC_PATH", "GIT_PROXY_COMMAND", "NODE_OPTIONS", "PERL5OPT", "PERL5LIB",
    "RUBYOPT", "RUBYLIB", "PYTHONPATH", "PYTHONHOME", "PS4", "PROMPT_COMMAND", "VIMINIT", "EXINIT",
    "WGETRC", "WGET_ASKPASS", "GIT_ALLOW_PROTOCOL", "GIT_TEMPLATE_DIR", "NODE_PATH", "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "LUA_PATH", "LUA_CPATH", "PHPRC", "PHP_INI_SCAN_DIR",
    "DOTNET_STARTUP_HOOKS", "BROWSER", "CCACHE_PREFIX", "CCACHE_PREFIX_CPP", "CCACHE_COMPILERCHECK",
    "CCACHE_COMPILER", "CCACHE_CONFIGPATH", "NERDCTL_TOML", "CNI_PATH", "NETCONFPATH",
];
// `BASH_FUNC_name%%`: a function bash takes from its environment, which
// runs where a command named `name` is written.
const PREFIXES: &[&str] =
    &["LD_", "GIT_CONFIG", "LUA_INIT", "BASH_FUNC_", "OMPI_MCA_", "PRTE_MCA_", "PMIX_MCA_"];

/// Whether `name` is such a variable.
pub fn runs_code(name: &str) -> bool {
    NAMES.contains(&name) || PREFIXES.iter().any(|prefix| name.starts_with(prefix))
}

/// The first such variable `line` names, as a whole word.
pub fn named(line: &str) -> Option<&str> {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = line.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if !word(bytes[at]) {
            at += 1;
            continue;
        }
        let start = at;
        while at < bytes.len() && word(bytes[at]) {
            at += 1;
        }
        if runs_code(&line[start..at]) {
            return Some(&line[start..at]);
        }
    }
    None
}

/// Builtins that set the variables their arguments name.
const SETS_NAMED: &[&str] =
    &["export", "declare", "typeset", "local", "readonly", "read", "getopts", "mapfile", "readarray"];

/// Whether `name` given `args` sets a variable whose name expands:
/// `export "$N=x"`, `read "$N"`, `printf -v "$N" …`.
pub(super) fn sets_a_hidden_variable(name: &str, args: &[Word]) -> bool {
    let expands = |word: &Word| {
        word.literal().is_none() && word.text().split('=').next().is_some_and(|n| n.contains(['$', '`']))
    };
    if SETS_NAMED.contains(&name) {
        return variable_operands(name, args).into_iter().any(expands);
    }
    name == "printf" && args.windows(2).any(|pair| pair[0].literal() == Some("-v") && expands(&pair[1]))
}
