//! Options that make a C compiler, binutils or APT run a program or load
//! code the line names: gcc's `-wrapper PROG,ARGS` runs each of its
//! programs under PROG (`gcc -wrapper /bin/rm,x a.c` ran `/bin/rm x cc1
//! …`), a plugin is code it loads (`nm --plugin ./p.so x.o` ran the
//! library's constructor), and APT runs its hooks (`apt-get -o
//! 'APT::Update::Pre-Invoke::=LINE' update` runs LINE with `sh -c`).

use super::super::given::{literal_like, split_value};
use crate::shell::parse::Word;

/// The C compilers read here, by their plain names; [`is_c_compiler`] also
/// knows them versioned and as cross compilers.
pub(super) const C_COMPILERS: &[&str] = &["cc", "c++", "gcc", "g++", "clang", "clang++"];

/// Whether `name` is a C compiler's: one of [`C_COMPILERS`] under any of
/// the names [`plain_name`] reads.
pub fn is_c_compiler(name: &str) -> bool {
    C_COMPILERS.contains(&plain_name(name))
}

/// The programs that load the plugin a word of theirs names, by their plain
/// names: GNU binutils' `ar`, `nm` and `ranlib` (and gcc's `gcc-ar`,
/// `gcc-nm`, `gcc-ranlib`, which pass it on) and linkers (`--plugin`, one
/// dash or two), mold's `-plugin`, lld's `--load-pass-plugin`.
pub(super) const PLUGIN_LOADERS: &[&str] =
    &["ar", "nm", "ranlib", "ld", "ld.bfd", "ld.gold", "gold", "mold", "ld.mold", "ld.lld", "lld"];

/// Whether `name` is one of [`PLUGIN_LOADERS`] under any of the names
/// [`plain_name`] reads (`x86_64-linux-gnu-ld.bfd`, `gcc-ar-12`).
pub fn loads_plugins(name: &str) -> bool {
    PLUGIN_LOADERS.contains(&plain_name(name))
}

/// A tool's name without a target triple's `…-` before it
/// (`aarch64-linux-gnu-gcc`), a version after it (`gcc-12`, `clang++-18`,
/// `x86_64-linux-gnu-gcc-12`, `gcc-13.2`) or gcc's `gcc-` (`gcc-ar`, which
/// runs `ar` with gcc's plugin).
fn plain_name(name: &str) -> &str {
    let unversioned = match name.rsplit_once('-') {
        Some((rest, version))
            if !version.is_empty() && version.bytes().all(|b| b.is_ascii_digit() || b == b'.') =>
        {
            rest
        }
        _ => name,
    };
    unversioned.rsplit_once('-').map_or(unversioned, |(_, last)| last)
}

/// Whether `word` of a [`PLUGIN_LOADERS`] program's names a plugin it loads:
/// `--plugin NAME`, `--plugin=NAME`, `-plugin` (the linkers read a long
/// option after one dash too), by any prefix getopt takes (`--plug`), and
/// lld's `--load-pass-plugin`. Not `--plugin-opt`, the loaded plugin's
/// options.
pub(super) fn plugin_option(word: &Word) -> bool {
    let text = word.text();
    let Some(option) = text.strip_prefix("--").or_else(|| text.strip_prefix('-')) else {
        return false;
    };
    let option = option.split('=').next().unwrap_or(option);
    (option.len() >= 2 && "plugin".starts_with(option)) || option == "load-pass-plugin"
}

/// APT's programs, whose `-o KEY=VALUE` sets any of its settings.
pub(super) const APT: &[&str] = &["apt", "apt-get", "aptitude", "apt-cache", "apt-mark"];

/// Whether `word` (the word after it `next`) of a C compiler's runs a
/// program or loads code: `-wrapper`, a plugin (`-fplugin=`,
/// `-fpass-plugin=`, the linker's `-Wl,-plugin,…` and `-Xlinker -plugin`),
/// a spec file (`-specs=`, which may name programs), where its programs are
/// taken from (`-B PREFIX`), a linker named by its path (`-fuse-ld=/…`,
/// `--ld-path=`), and anything given to clang's front end (`-Xclang -load`).
pub(super) fn compiler_runs(word: &Word, next: Option<&Word>) -> bool {
    let text = word.text();
    let option =
        |name: &str| text == name || text.strip_prefix(name).is_some_and(|rest| rest.starts_with('='));
    ["-wrapper", "-fplugin", "-fpass-plugin", "-specs", "--specs", "--ld-path", "-Xclang"]
        .into_iter()
        .any(option)
        || text.starts_with("-B")
        || text
            .strip_prefix("-fuse-ld=")
            .is_some_and(|linker| linker.contains('/') || word.literal().is_none())
        || (text.starts_with("-Wl,") && text.contains("plugin"))
        || (text == "-Xlinker" && next.is_some_and(|next| next.text().contains("plugin")))
}

/// Whether `word` (the word after it `next`) of APT's sets a setting that
/// runs a program or reads settings that may (`-c FILE`, `--config-file`):
/// a hook (`…::Pre-Invoke`, `…::Post-Invoke…`, `DPkg::Pre-Install-Pkgs`),
/// a program's path (`Dir::Bin::…`), the directory of its settings
/// (`Dir::Etc…`, `Dir`), a proxy found by a program
/// (`Acquire::http::Proxy-Auto-Detect`), dpkg's tools' options; or a
/// setting whose name expands. `-o Dpkg::Options::=--force-confold`,
/// `-o Acquire::Retries=3` and `-o Dir::Cache=…` are read as they are.
pub(super) fn apt_option_runs(word: &Word, next: Option<&Word>) -> bool {
    let text = word.text();
    if text.starts_with("-c") || text.starts_with("--config-file") {
        return true;
    }
    let setting = match text {
        "-o" | "--option" => match next {
            Some(next) => next.clone(),
            None => return false,
        },
        // Glued: `-oKEY=V`, `--option=KEY=V` (`--only-upgrade` is neither).
        _ => match text.strip_prefix("--option=").or_else(|| text.strip_prefix("-o")) {
            Some(setting) => literal_like(word, setting),
            None => return false,
        },
    };
    let (key, _) = split_value(setting.text());
    if setting.literal().is_none() && key.contains(['$', '`', '"', '\'', '\\']) {
        return true;
    }
    let key = key.to_ascii_lowercase();
    key.contains("invoke")
        || key.contains("pre-install-pkgs")
        || key.contains("proxy-auto-detect")
        || key.contains("proxyautodetect")
        || key.contains("::tools")
        || key.starts_with("dir::bin")
        || key.starts_with("dir::etc")
        || key == "dir"
        || key == "dir::"
}
