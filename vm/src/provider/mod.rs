//! Language-model providers (SPEC §7), one file each, behind [`Provider`].
//! `settings.rs` holds their settings (flags, environment, `tiss.toml`).

pub mod mock;
pub mod settings;

use crate::host::{PromptRequest, PromptResponse};

pub trait Provider {
    /// The provider's name as given to `--provider`.
    fn name(&self) -> &str;
    fn complete(&mut self, request: &PromptRequest) -> Result<PromptResponse, String>;
}

/// The provider the settings name.
pub fn build(settings: &settings::ProviderSettings) -> Result<Box<dyn Provider>, String> {
    match settings.provider.as_str() {
        "mock" => Ok(Box::new(mock::MockProvider)),
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
