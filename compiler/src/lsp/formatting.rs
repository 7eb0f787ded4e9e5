//! Formatting, as `tissc fmt` (`fmt::format_source`): one edit that
//! replaces only the stretch between the longest common prefix and suffix
//! of the old and new text, so the client keeps its cursor and marks
//! outside it. A plan that does not parse is left as it is: the request
//! fails, naming its first error.

use lsp_server::ErrorCode;
use lsp_types::{DocumentFormattingParams, TextEdit};

use super::Failure;
use super::documents::Documents;

pub(crate) fn formatting(
    docs: &Documents,
    params: DocumentFormattingParams,
) -> Result<Option<Vec<TextEdit>>, Failure> {
    let analysis = &docs.get(&params.text_document.uri)?.analysis;
    let old = analysis.text();
    let new = crate::fmt::format_source(old).map_err(|diagnostics| {
        let first = diagnostics.first().map_or_else(String::new, |d| {
            let at = analysis.lines.position(old, d.span.start as usize);
            format!(": line {}: {}", at.line + 1, d.message)
        });
        Failure::new(
            ErrorCode::RequestFailed,
            format!("the plan has errors, so it is left as it is; fix them first{first}"),
        )
    })?;
    if new == old {
        return Ok(Some(Vec::new()));
    }
    let (start, old_end, new_end) = changed(old, &new);
    let range = analysis.lines.range(old, crate::syntax::span::Span::new(start, old_end));
    Ok(Some(vec![TextEdit { range, new_text: new[start..new_end].to_string() }]))
}

/// The changed stretch: where it starts, and where it ends in the old and
/// in the new text, all on character boundaries.
fn changed(old: &str, new: &str) -> (usize, usize, usize) {
    let mut start = old.bytes().zip(new.bytes()).take_while(|(a, b)| a == b).count();
    while !old.is_char_boundary(start) {
        start -= 1;
    }
    let room = old.len().min(new.len()) - start;
    let mut suffix = old.bytes().rev().zip(new.bytes().rev()).take(room).take_while(|(a, b)| a == b).count();
    while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix) {
        suffix -= 1;
    }
    (start, old.len() - suffix, new.len() - suffix)
}

#[cfg(test)]
mod tests {
    use super::changed;

    #[test]
    fn the_changed_stretch_is_between_the_common_ends() {
        let (old, new) = ("STEP \"s\" {\n  LOG \"é\"\n}\n", "STEP \"s\" {\n    LOG \"é\"\n}\n");
        let (start, old_end, new_end) = changed(old, new);
        assert_eq!(format!("{}{}{}", &old[..start], &new[start..new_end], &old[old_end..]), new);
        assert!(new_end - start <= 4, "only the indentation changes: {:?}", &new[start..new_end]);
        // Multi-byte characters at the edges are never split.
        let (old, new) = ("aé", "aè");
        let (start, old_end, new_end) = changed(old, new);
        assert_eq!((&old[start..old_end], &new[start..new_end]), ("é", "è"));
        assert_eq!(changed("same", "same"), (4, 4, 4));
    }
}
