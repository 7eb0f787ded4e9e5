//! The document around a report: doctype, title, the inline styles.

/// The styles, inline: the page loads nothing.
const STYLES: &str = include_str!("styles.css");

/// The page up to its content, with `title` (already HTML).
pub fn start(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"tissvm {VERSION}\">\n\
         <title>{title}</title>\n<style>\n{STYLES}</style>\n</head>\n<body>\n<main>\n"
    )
}

/// The page after its content.
pub fn end() -> String {
    format!("</main>\n<footer>TissLang report, written by tissvm {VERSION}.</footer>\n</body>\n</html>\n")
}

const VERSION: &str = env!("CARGO_PKG_VERSION");
