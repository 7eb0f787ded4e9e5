//! The document around a report: doctype, title, the inline styles.

/// The styles, inline: the page loads nothing.
const STYLES: &str = include_str!("styles.css");

/// A complete page with `title` and `body` (both already HTML).
pub fn document(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"tissvm {version}\">\n\
         <title>{title}</title>\n<style>\n{STYLES}</style>\n</head>\n<body>\n<main>\n{body}</main>\n\
         <footer>TissLang report, written by tissvm {version}.</footer>\n</body>\n</html>\n",
        version = env!("CARGO_PKG_VERSION"),
    )
}
