//! What the fuzz targets share.

/// The shell parser's panics are contained by the shell reader (the line is
/// refused, book: reference/sandbox.md), so the fuzzer's hook, which aborts
/// on any panic, passes over them. Once per process.
pub fn contain_parser_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let fuzzer_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !tiss_support::shell::parse::parsing() {
                fuzzer_hook(info);
            }
        }));
    });
}
