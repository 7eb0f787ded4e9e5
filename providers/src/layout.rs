//! The prompt layout (book: reference/models.md), versioned: what a PROMPT_AGENT sends, the
//! same bytes for the same plan and inputs. Version 1 (book: reference/models.md):
//!
//! - a system message, [`SYSTEM`], fixed;
//! - a user message: the query as written, then for each context variable
//!   in order a blank line, `### NAME`, and its value in a fenced block
//!   whose fence is three backticks, or one more than the longest run of
//!   backticks in the value.
//!
//! A typed PROMPT_AGENT (book: reference/types.md) sends the same two messages; its answer
//! format goes in the API's own field, not in the text. Its repair request,
//! when the answer did not validate, adds two messages after them:
//!
//! - an assistant message, the invalid answer as it was received;
//! - a user message, [`repair_message`]: [`REPAIR_HEAD`], the validation
//!   errors (one per line, a final line ending dropped), [`REPAIR_TAIL`].
//!
//! The repair is part of layout 1: adding it changed no byte of any request
//! sent before it existed.

use crate::PromptRequest;

/// Bump when any byte of what [`SYSTEM`] or [`user_message`] produce changes.
pub const LAYOUT_VERSION: u32 = 1;

/// The system message of layout 1.
pub const SYSTEM: &str = "You are called by a TissLang plan (prompt layout 1). Answer the request in the user \
                          message. The context follows the request: each variable's name as a heading, then its \
                          value in a fenced block.";

/// The repair request's last message begins with this, then the errors.
pub const REPAIR_HEAD: &str = "Your answer does not fit the required JSON Schema:\n";

/// The repair request's last message ends with this, after the errors.
pub const REPAIR_TAIL: &str = "\nAnswer again with only the corrected JSON.";

/// The repair request's user message: [`REPAIR_HEAD`], the validation
/// `errors` (one per line) without a final line ending, [`REPAIR_TAIL`].
pub fn repair_message(errors: &str) -> String {
    let errors = errors.strip_suffix('\n').map_or(errors, |e| e.strip_suffix('\r').unwrap_or(e));
    format!("{REPAIR_HEAD}{errors}{REPAIR_TAIL}")
}

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
    fn the_repair_message_is_the_errors_between_fixed_lines() {
        let expected = "Your answer does not fit the required JSON Schema:\n$.risk: expected an integer\n\
                        $: missing field `reasons`\nAnswer again with only the corrected JSON.";
        let errors = "$.risk: expected an integer\n$: missing field `reasons`";
        assert_eq!(repair_message(errors), expected);
        assert_eq!(repair_message(&format!("{errors}\n")), expected);
        assert_eq!(repair_message(&format!("{errors}\r\n")), expected);
    }

    #[test]
    fn a_fence_is_longer_than_any_backticks_in_the_value() {
        let r = request("q", &[("DOC", "a ```rust\nx\n``` b ````")]);
        assert_eq!(user_message(&r), "q\n\n### DOC\n`````\na ```rust\nx\n``` b ````\n`````");
    }
}
