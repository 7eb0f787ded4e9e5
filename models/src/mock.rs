//! The `mock` provider: deterministic and offline.

use super::Provider;
use crate::{PromptError, PromptRequest, PromptResponse};

/// Answers every prompt with a fixed text derived from the query, and
/// counts tokens the way the static estimate does (characters / 4), so runs
/// are reproducible without a network.
#[derive(Debug, Default)]
pub struct MockProvider;

impl Provider for MockProvider {
    fn name(&self) -> &str {
        "mock"
    }

    fn complete(
        &mut self,
        request: &PromptRequest,
        _: &mut dyn FnMut(&str),
    ) -> Result<PromptResponse, PromptError> {
        let text = format!("mock answer to: {}", request.query);
        let prompt_chars: usize =
            request.query.len() + request.context.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>();
        let tokens = (prompt_chars as u64).div_ceil(4) + (text.len() as u64).div_ceil(4);
        Ok(PromptResponse { text, tokens, estimated: false, requests: 1 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mock_is_deterministic() {
        let request = PromptRequest {
            query: "hi".into(),
            context: vec![("x".into(), "1".into())],
            requests_allowed: None,
        };
        let a = MockProvider.complete(&request, &mut |_| {}).unwrap();
        let b = MockProvider.complete(&request, &mut |_| {}).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.text, "mock answer to: hi");
    }
}
