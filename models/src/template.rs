//! Prompt templates of the `completion` provider (`--template`): how the
//! layout's system and user messages (`layout.rs`) become the one text a raw
//! completion endpoint takes, in the format each model family was trained on.
//!
//! - `chatml` (OpenAI's ChatML; Qwen, SmolLM2, many fine-tunes): each
//!   message `<|im_start|>ROLE\nTEXT<|im_end|>\n`, then the opening of the
//!   assistant's turn, `<|im_start|>assistant\n`.
//! - `llama2` (Meta's Llama 2 chat, as its reference `chat_completion`
//!   builds it): `[INST] <<SYS>>\nSYSTEM\n<</SYS>>\n\nUSER [/INST]`, the
//!   system block and the user message stripped of surrounding whitespace
//!   together. The leading `<s>` of that format is the BOS *token*, which the
//!   server adds when it tokenizes (llama.cpp does for models that want one);
//!   written as text it would be a second one.
//! - `alpaca` (Stanford Alpaca, its prompt without input): the fixed
//!   preamble, `### Instruction:`, the instruction, `### Response:`. Alpaca
//!   has no system role: the system message opens the instruction, a blank
//!   line before the user message.
//!
//! Any change to these bytes changes what is sent, like a change of the
//! layout: keep the unit tests below exact.

/// A prompt template, by the name `--template` gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Template {
    ChatMl,
    Llama2,
    Alpaca,
}

/// The names `--template` takes.
pub const NAMES: [&str; 3] = ["chatml", "llama2", "alpaca"];

const ALPACA_PREAMBLE: &str = "Below is an instruction that describes a task. Write a response that appropriately completes the request.";

impl Template {
    pub fn from_name(name: &str) -> Option<Template> {
        match name {
            "chatml" => Some(Template::ChatMl),
            "llama2" => Some(Template::Llama2),
            "alpaca" => Some(Template::Alpaca),
            _ => None,
        }
    }

    /// The prompt: `system` and `user` in this template's format, ending
    /// where the model's answer begins.
    pub fn render(self, system: &str, user: &str) -> String {
        match self {
            Template::ChatMl => format!(
                "<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n"
            ),
            Template::Llama2 => {
                let content = format!("<<SYS>>\n{system}\n<</SYS>>\n\n{user}");
                format!("[INST] {} [/INST]", content.trim())
            }
            Template::Alpaca => {
                format!("{ALPACA_PREAMBLE}\n\n### Instruction:\n{system}\n\n{user}\n\n### Response:")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chatml_is_exact() {
        assert_eq!(
            Template::ChatMl.render("Be brief.", "Say hi."),
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nSay hi.<|im_end|>\n<|im_start|>assistant\n"
        );
    }

    #[test]
    fn llama2_is_exact_without_a_textual_bos() {
        assert_eq!(
            Template::Llama2.render("Be brief.", "Say hi.\n"),
            "[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nSay hi. [/INST]"
        );
    }

    #[test]
    fn alpaca_is_exact() {
        assert_eq!(
            Template::Alpaca.render("Be brief.", "Say hi."),
            "Below is an instruction that describes a task. Write a response that appropriately completes the \
             request.\n\n### Instruction:\nBe brief.\n\nSay hi.\n\n### Response:"
        );
    }

    #[test]
    fn every_name_is_a_template() {
        for name in NAMES {
            assert!(Template::from_name(name).is_some(), "{name}");
        }
        assert_eq!(Template::from_name("vicuna"), None);
    }
}
