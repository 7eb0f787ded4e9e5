//! One module per provider: `mock` and `replay` answer without a network;
//! `openai`, `ollama` and `completion` speak their APIs through `http.rs`.

pub mod completion;
pub mod mock;
pub mod ollama;
pub mod openai;
pub mod replay;
