//! Language-model providers (SPEC §7), one file each, behind [`Provider`].
//! `settings.rs` holds their settings (flags, environment, `tiss.toml`),
//! `http.rs` the HTTP all live providers share (timeouts, retries, API_CALLS
//! per request), `layout.rs` the versioned prompt layout they send.

pub mod http;
pub mod layout;
pub mod mock;
pub mod openai;
pub mod settings;

use crate::host::{PromptError, PromptRequest, PromptResponse};

pub trait Provider {
    /// The provider's name as given to `--provider`.
    fn name(&self) -> &str;
    /// Asks the model; `shown` gets each piece of a streamed answer as it
    /// comes (for a terminal).
    fn complete(
        &mut self,
        request: &PromptRequest,
        shown: &mut dyn FnMut(&str),
    ) -> Result<PromptResponse, PromptError>;
}

/// The provider the settings name.
pub fn build(settings: &settings::ProviderSettings) -> Result<Box<dyn Provider>, String> {
    match settings.provider.as_str() {
        "mock" => Ok(Box::new(mock::MockProvider)),
        "openai" => Ok(Box::new(openai::OpenAi::new(settings)?)),
        other => {
            let names: Vec<&str> = settings::PROVIDERS.iter().map(|(n, _)| *n).collect();
            Err(format!("unknown provider `{other}`: this build offers {}", names.join(", ")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_provider_is_refused() {
        let settings = settings::ProviderSettings { provider: "nope".into(), ..Default::default() };
        let err = build(&settings).err().unwrap();
        assert!(err.contains("unknown provider `nope`"), "{err}");
    }
}
