//! Completion at the cursor, from what the lexer makes of the text before
//! it: record fields after `x.` (`LAST_RUN.`, `COST.`, a variable of a
//! record type), task names after CALL, variables inside `${…}`, types
//! where a type stands (after `INTO x AS`, `TYPE T =`, `LIST OF` and a
//! record field's `:`: `STRING`, `INT`, `BOOL`, `LIST` and the plan's TYPE
//! names), nothing inside a string, heredoc or comment, and elsewhere the
//! keywords, the variables in scope, `LAST_RUN` and `COST`.
//!
//! Variables are global to a run (book: reference/statements.md), so "in scope" means: bound
//! somewhere before the cursor, or in a DEFINE_TASK body (a CALL binds it).

use lsp_types::{CompletionItem, CompletionItemKind, CompletionParams, CompletionResponse};

use super::Failure;
use super::documents::{Analysis, Document, Documents};
use super::index::{OccurrenceKind, OutlineKind};
use super::keywords;
use crate::check::types::ty::{Rec, Ty};
use crate::syntax::token::{Kw, Token, TokenKind};

pub(crate) fn completion(
    docs: &Documents,
    params: CompletionParams,
) -> Result<Option<CompletionResponse>, Failure> {
    let at = &params.text_document_position;
    let doc = docs.get(&at.text_document.uri)?;
    let analysis = &doc.analysis;
    let Some(offset) = analysis.lines.offset(analysis.text(), at.position) else {
        return Ok(None);
    };
    let items = match context(analysis.text(), offset) {
        Context::Nothing => return Ok(None),
        Context::Fields { root } => fields(doc, &root),
        Context::Tasks { quoted } => tasks(doc, quoted),
        Context::Interpolation => variables(doc, offset),
        Context::Types => types(doc),
        Context::Code => {
            let mut items = keyword_items();
            items.extend(variables(doc, offset));
            items
        }
    };
    Ok(Some(CompletionResponse::Array(items)))
}

#[derive(Debug, PartialEq, Eq)]
enum Context {
    Nothing,
    /// After `root.`.
    Fields {
        root: String,
    },
    /// After CALL: inside its string already, or not.
    Tasks {
        quoted: bool,
    },
    /// Inside `${` in a string.
    Interpolation,
    /// Where a type stands.
    Types,
    Code,
}

fn context(text: &str, offset: usize) -> Context {
    let before = &text[..offset];
    let lexed = crate::lexer::lex(before);
    let mut tokens: Vec<&Token> = lexed.tokens.iter().filter(|t| t.kind != TokenKind::Eof).collect();
    // The word being typed is not context.
    if let Some(last) = tokens.last()
        && last.span.end as usize == offset
        && matches!(last.kind, TokenKind::Ident | TokenKind::Kw(_))
    {
        tokens.pop();
    }
    let last = tokens.last();
    let last_end = last.map_or(0, |t| t.span.end as usize);
    // A `#` between the last token and the cursor, on the cursor's line,
    // starts a comment the cursor is in.
    if before[last_end..].rsplit('\n').next().is_some_and(|line| line.contains('#')) {
        return Context::Nothing;
    }
    match last.map(|t| t.kind) {
        Some(TokenKind::Dot) if last_end == offset || is_word(&before[last_end..]) => {
            let root = tokens.len().checked_sub(2).map(|i| tokens[i]);
            match root {
                Some(t) if matches!(t.kind, TokenKind::Ident | TokenKind::Kw(_)) => {
                    Context::Fields { root: before[t.span.range()].to_string() }
                }
                _ => Context::Nothing,
            }
        }
        // A string the cursor is inside: it runs to the end of the text.
        Some(TokenKind::Str(_))
            if last_end == offset && still_open(&before[last.map_or(0, |t| t.span.start as usize)..]) =>
        {
            let literal = &before[last.map_or(0, |t| t.span.start as usize)..];
            let previous = tokens.len().checked_sub(2).map(|i| tokens[i].kind);
            if previous == Some(TokenKind::Kw(Kw::CALL)) {
                return Context::Tasks { quoted: true };
            }
            interpolation(literal)
        }
        Some(TokenKind::Heredoc(_)) if last_end == offset => Context::Nothing,
        Some(TokenKind::Kw(Kw::CALL)) => Context::Tasks { quoted: false },
        Some(TokenKind::Kw(Kw::OF) | TokenKind::Colon) => Context::Types,
        // `INTO x AS`, `TYPE T =`.
        Some(TokenKind::Kw(Kw::AS) | TokenKind::Assign)
            if tokens.len() >= 3
                && tokens[tokens.len() - 2].kind == TokenKind::Ident
                && matches!(
                    (tokens[tokens.len() - 3].kind, last.map(|t| t.kind)),
                    (TokenKind::Kw(Kw::INTO), Some(TokenKind::Kw(Kw::AS)))
                        | (TokenKind::Kw(Kw::TYPE), Some(TokenKind::Assign))
                ) =>
        {
            Context::Types
        }
        // A new name is being written.
        Some(TokenKind::Kw(Kw::AS | Kw::INTO | Kw::VAR | Kw::ENV)) => Context::Nothing,
        _ => Context::Code,
    }
}

fn is_word(text: &str) -> bool {
    text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether a string literal token that ends at the cursor is unterminated
/// (the cursor is inside it), rather than closed just before the cursor.
fn still_open(literal: &str) -> bool {
    let body = &literal[1.min(literal.len())..];
    let mut escaped = false;
    for c in body.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return false,
            _ => {}
        }
    }
    true
}

/// Inside an open string: `${` not yet closed means a path is being written.
fn interpolation(literal: &str) -> Context {
    let Some(open) = literal.rfind("${") else { return Context::Nothing };
    let path = &literal[open + 2..];
    if path.contains('}') {
        return Context::Nothing;
    }
    match path.rsplit_once('.') {
        Some((root, _)) if is_word(root) => Context::Fields { root: root.to_string() },
        Some(_) => Context::Nothing,
        None => Context::Interpolation,
    }
}

fn keyword_items() -> Vec<CompletionItem> {
    Kw::ALL
        .iter()
        .filter(|&&kw| !keywords::is_field_name(kw))
        .map(|&kw| {
            let (form, effect) = keywords::help(kw);
            CompletionItem {
                label: kw.as_str().to_string(),
                kind: Some(CompletionItemKind::KEYWORD),
                detail: Some(form.to_string()),
                documentation: Some(lsp_types::Documentation::String(effect.to_string())),
                ..CompletionItem::default()
            }
        })
        .collect()
}

/// The analysis whose names to offer: the current one, and while the text
/// has errors also the last one without (names the broken edit hid).
fn analyses(doc: &Document) -> impl Iterator<Item = &Analysis> {
    let stale = doc.analysis.frontend.has_errors().then_some(doc.last_clean.as_deref()).flatten();
    std::iter::once(&doc.analysis).chain(stale)
}

fn variables(doc: &Document, offset: usize) -> Vec<CompletionItem> {
    let mut seen = std::collections::HashSet::new();
    let mut items = Vec::new();
    for (i, analysis) in analyses(doc).enumerate() {
        let in_task = |start: u32| {
            analysis
                .index
                .outline
                .iter()
                .any(|o| o.kind == OutlineKind::DefineTask && o.span.start <= start && start < o.span.end)
        };
        for o in &analysis.index.occurrences {
            let OccurrenceKind::Binds(how) = o.kind else { continue };
            // Positions of the stale analysis are not this text's: its names all count.
            let in_scope = i > 0 || (o.span.end as usize) < offset || in_task(o.span.start);
            if in_scope && seen.insert(o.name.as_str()) {
                let ty = analysis.variable_type(&o.name).map_or(String::new(), |t| analysis.describe_type(t));
                items.push(CompletionItem {
                    label: o.name.clone(),
                    kind: Some(CompletionItemKind::VARIABLE),
                    detail: Some(format!("{ty} (`{how}`)")),
                    ..CompletionItem::default()
                });
            }
        }
    }
    for kw in [Kw::LAST_RUN, Kw::COST] {
        items.push(CompletionItem {
            label: kw.as_str().to_string(),
            kind: Some(CompletionItemKind::STRUCT),
            detail: Some(keywords::help(kw).1.to_string()),
            ..CompletionItem::default()
        });
    }
    items
}

fn fields(doc: &Document, root: &str) -> Vec<CompletionItem> {
    // A typed answer's record: its own fields, with their types.
    for analysis in analyses(doc) {
        if let Some(Ty::Answer(shape)) = analysis.variable_type(root)
            && let Some(tisslang::answer::Shape::Record(fields)) = analysis.answer_shapes.get(shape)
        {
            return fields
                .iter()
                .map(|f| CompletionItem {
                    label: f.name.to_string(),
                    kind: Some(CompletionItemKind::FIELD),
                    detail: Some(format!(
                        "{}{}",
                        analysis.answer_shapes.describe(f.shape),
                        if f.optional { " (optional: test it with EXISTS)" } else { "" }
                    )),
                    ..CompletionItem::default()
                })
                .collect();
        }
    }
    let rec = match Kw::from_word(root) {
        Some(Kw::LAST_RUN) => Some(Rec::LastRun),
        Some(Kw::COST) => Some(Rec::Cost),
        _ => analyses(doc).find_map(|a| a.variable_type(root)).and_then(Ty::record),
    };
    let Some(rec) = rec else { return Vec::new() };
    rec.fields()
        .iter()
        .map(|&(name, ty)| CompletionItem {
            label: name.to_string(),
            kind: Some(CompletionItemKind::FIELD),
            detail: Some(ty.describe().to_string()),
            ..CompletionItem::default()
        })
        .collect()
}

/// The types: `STRING`, `INT`, `BOOL`, `LIST` (with their help), and
/// the names the plan's TYPEs give.
fn types(doc: &Document) -> Vec<CompletionItem> {
    let mut items: Vec<CompletionItem> = [Kw::STRING, Kw::INT, Kw::BOOL, Kw::LIST]
        .into_iter()
        .map(|kw| {
            let (form, effect) = keywords::help(kw);
            CompletionItem {
                label: kw.as_str().to_string(),
                kind: Some(CompletionItemKind::KEYWORD),
                detail: Some(form.to_string()),
                documentation: Some(lsp_types::Documentation::String(effect.to_string())),
                ..CompletionItem::default()
            }
        })
        .collect();
    let mut seen = std::collections::HashSet::new();
    for analysis in analyses(doc) {
        for o in analysis.index.outline.iter().filter(|o| o.kind == OutlineKind::Type) {
            if seen.insert(o.name.as_str()) {
                items.push(CompletionItem {
                    label: o.name.clone(),
                    kind: Some(CompletionItemKind::STRUCT),
                    detail: Some("TYPE".to_string()),
                    ..CompletionItem::default()
                });
            }
        }
    }
    items
}

fn tasks(doc: &Document, quoted: bool) -> Vec<CompletionItem> {
    let mut seen = std::collections::HashSet::new();
    let mut items = Vec::new();
    for analysis in analyses(doc) {
        for o in &analysis.index.occurrences {
            if o.kind == OccurrenceKind::Defines && seen.insert(o.name.as_str()) {
                let insert = if quoted { o.name.clone() } else { format!("\"{}\"", o.name) };
                items.push(CompletionItem {
                    label: o.name.clone(),
                    kind: Some(CompletionItemKind::FUNCTION),
                    detail: Some("DEFINE_TASK".to_string()),
                    insert_text: Some(insert),
                    ..CompletionItem::default()
                });
            }
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The context at the `|` of `text`.
    fn at(text: &str) -> Context {
        let offset = text.find('|').unwrap();
        context(&text.replace('|', ""), offset)
    }

    #[test]
    fn contexts() {
        let fields = |root: &str| Context::Fields { root: root.to_string() };
        assert_eq!(at("STEP \"s\" {\n  LOG LAST_RUN.|"), fields("LAST_RUN"));
        assert_eq!(at("STEP \"s\" {\n  ASSERT r.APP| "), fields("r"));
        assert_eq!(at("STEP \"s\" {\n  CALL |"), Context::Tasks { quoted: false });
        assert_eq!(at("STEP \"s\" {\n  CALL \"bu|"), Context::Tasks { quoted: true });
        assert_eq!(at("STEP \"s\" {\n  LOG \"a ${x|"), Context::Interpolation);
        assert_eq!(at("STEP \"s\" {\n  LOG \"a ${e.M|"), fields("e"));
        assert_eq!(at("STEP \"s\" {\n  LOG \"plain |"), Context::Nothing);
        assert_eq!(at("STEP \"s\" {\n  LOG \"closed\" |"), Context::Code);
        assert_eq!(at("STEP \"s\" {\n  # a comment RU|"), Context::Nothing);
        assert_eq!(at("STEP \"s\" {\n  VAR |"), Context::Nothing);
        assert_eq!(at("STEP \"s\" {\n  RUN \"x\" # a comment\n  |"), Context::Code);
        assert_eq!(at("STEP \"s\" {\n  RU|"), Context::Code);
        // Where a type stands (TissLang 1.1).
        assert_eq!(at("STEP \"s\" {\n  PROMPT_AGENT \"q\" INTO r AS |"), Context::Types);
        assert_eq!(at("STEP \"s\" {\n  PROMPT_AGENT \"q\" INTO r AS Rev|"), Context::Types);
        assert_eq!(at("TYPE T = |"), Context::Types);
        assert_eq!(at("TYPE T = { a: LIST OF |"), Context::Types);
        assert_eq!(at("TYPE T = { a: INT, b?: |"), Context::Types);
        assert_eq!(at("STEP \"s\" {\n  READ \"f\" AS |"), Context::Nothing);
        assert_eq!(at("STEP \"s\" {\n  VAR x = |"), Context::Code);
    }
}
