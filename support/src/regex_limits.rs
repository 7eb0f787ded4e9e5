//! The limits a MATCHES pattern is compiled within, the same in `tissc`
//! (which refuses a pattern beyond them, E0209) and `tissvm` (which compiles
//! a module's patterns when it loads it, and a pattern built at run time):
//! so a plan that compiles loads, and no plan's patterns take more than a
//! bounded share of memory. A Unicode class is large (`\w` alone compiles
//! to about 50 KB, `\w{15}` to 750 KB); with at most
//! `tisslang::verify::MAX_REGEXES` patterns a module's take at most their
//! count times what each takes (its program, up to the first limit below, and
//! the engines built from it: about 40 MiB at most, measured).

/// The most a pattern's compiled program may take (regex's own default is
/// 10 MiB, which a few hundred patterns turn into gigabytes).
pub const COMPILED_SIZE: usize = 256 << 10;

/// The most the cache of a pattern's lazy DFA may grow to while matching.
pub const CACHE_SIZE: usize = 128 << 10;

/// `pattern` compiled within the limits.
pub fn compile(pattern: &str) -> Result<regex::Regex, regex::Error> {
    regex::RegexBuilder::new(pattern).size_limit(COMPILED_SIZE).dfa_size_limit(CACHE_SIZE).build()
}

#[cfg(test)]
mod tests {
    #[test]
    fn usual_patterns_fit_and_a_large_unicode_repetition_does_not() {
        for usual in [r"\w+", r"\p{L}+", r"(?i)error|warning|fail", r"\d{4}-\d{2}-\d{2}", r"^ok \d+ - .*"] {
            assert!(super::compile(usual).is_ok(), "{usual}");
        }
        let e = super::compile(r"\w{15}").unwrap_err().to_string();
        assert!(e.contains("size limit"), "{e}");
        assert!(super::compile(r"(?-u:\w){15}").is_ok());
    }
}
