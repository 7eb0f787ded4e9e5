//! Language-model providers (SPEC §7), one file each, behind [`Provider`].
//! This build has the deterministic, offline `mock` provider only.

pub mod mock;

use crate::host::{PromptRequest, PromptResponse};

pub trait Provider {
    /// The provider's name as given to `--provider`.
    fn name(&self) -> &str;
    fn complete(&mut self, request: &PromptRequest) -> Result<PromptResponse, String>;
}

/// The provider named by `--provider`.
pub fn by_name(name: &str) -> Result<Box<dyn Provider>, String> {
    match name {
        "mock" => Ok(Box::new(mock::MockProvider)),
        other => Err(format!(
            "unknown provider `{other}`: this build offers `mock` (replay, openai and ollama are not built yet)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_provider_is_refused() {
        let err = by_name("nope").err().unwrap();
        assert!(err.contains("unknown provider `nope`"), "{err}");
    }
}
