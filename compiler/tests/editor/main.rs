//! The editor support: the language server (in process and over stdio) and the VS Code extension.
//!
//! One test binary per concern (linked once, not once per file); each
//! file is a module of it.

mod lsp;
mod lsp_stdio;
mod vscode_extension;
