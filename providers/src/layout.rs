//! The prompt layout (SPEC §7), versioned: what a PROMPT_AGENT sends, the
//! same bytes for the same plan and inputs. Version 1 (README, "Language
//! models"):
//!
//! - a system message, [`SYSTEM`], fixed;
//! - a user message: the query as written, then for each context variable
//!   in order a blank line, `### NAME`, and its value in a fenced block
//!   whose fence is three backticks, or one more than the longest run of
//!   backticks in the value.

use crate::PromptRequest;

/// Bump when any byte of what [`SYSTEM`] or [`user_message`] produce changes.
pub const LAYOUT_VERSION: u32 = 1;

/// The system message of layout 1.
pub const SYSTEM: &str = "You are called by a TissLang plan (prompt layout 1). Answer the request in the user \
                          message. The context follows the request: each variable's name as a heading, then its \
                          value in a fenced block.";

/// The user message: the query, then each context variable fenced.
pub fn user_message(request: &PromptRequest) -> String {
    let size =
        request.query.len() + request.context.iter().map(|(k, v)| k.len() + v.len() + 32).sum::<usize>();
    let mut out = String::with_capacity(size);
    out.push_str(&request.query);
    for (name, value) in &request.context {
        let fence = "`".repeat(longest_backtick_run(value).max(2) + 1);
        out.push_str("\n\n### ");
        out.push_str(name);
        out.push('\n');
        out.push_str(&fence);
        out.push('\n');
        out.push_str(value);
        out.push('\n');
        out.push_str(&fence);
    }
    out
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(query: &str, context: &[(&str, &str)]) -> PromptRequest {
        PromptRequest {
            query: query.into(),
            context: context.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn layout_1_is_the_query_then_each_variable_fenced() {
        let r = request("Fix the bug.", &[("SOURCE", "fn main() {}"), ("LAST_RUN.EXIT_CODE", "1")]);
        assert_eq!(
            user_message(&r),
            "Fix the bug.\n\n### SOURCE\n```\nfn main() {}\n```\n\n### LAST_RUN.EXIT_CODE\n```\n1\n```"
        );
        assert_eq!(user_message(&request("q", &[])), "q");
    }

    #[test]
    fn a_fence_is_longer_than_any_backticks_in_the_value() {
        let r = request("q", &[("DOC", "a ```rust\nx\n``` b ````")]);
        assert_eq!(user_message(&r), "q\n\n### DOC\n`````\na ```rust\nx\n``` b ````\n`````");
    }
}
