//! Hover: a variable's type and the places that bind it, a task's
//! definition, a step's static cost bound, and keyword help.

use lsp_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};
use tisslang::cost::bound::CostBound;
use tisslang::cost::{Dim, DimUnit};
use tisslang::module::Module;

use super::Failure;
use super::documents::{Analysis, Documents};
use super::index::{Occurrence, OccurrenceKind, Outline, OutlineKind};
use super::keywords;
use crate::check::types::ty::Ty;
use crate::syntax::token::{Kw, TokenKind};

pub(crate) fn hover(docs: &Documents, params: HoverParams) -> Result<Option<Hover>, Failure> {
    let at = &params.text_document_position_params;
    let analysis = &docs.get(&at.text_document.uri)?.analysis;
    let Some(offset) = analysis.lines.offset(analysis.text(), at.position) else {
        return Ok(None);
    };
    let text = if let Some(occurrence) = analysis.index.occurrence_at(offset) {
        Some(symbol(analysis, occurrence))
    } else if let Some(field) = answer_field_at(analysis, offset) {
        Some(field)
    } else if let Some(step) = step_at(&analysis.index.outline, offset) {
        Some(step_bound(analysis, step))
    } else {
        keyword_at(analysis.text(), offset).map(|kw| {
            let (form, effect) = keywords::help(kw);
            format!("```tiss\n{form}\n```\n{effect}")
        })
    };
    Ok(text.map(|value| Hover {
        contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value }),
        range: None,
    }))
}

/// A variable (its type, where it is bound) or a task (where it is defined).
fn symbol(analysis: &Analysis, of: &Occurrence) -> String {
    let line = |o: &Occurrence| analysis.lines.position(analysis.text(), o.span.start as usize).line + 1;
    if of.kind.is_variable() {
        let ty = analysis
            .variable_type(&of.name)
            .map_or("of a type not known (see its diagnostics)".to_string(), |t| analysis.describe_type(t));
        let mut text = format!("`{}`: {ty}\n\nbound", of.name);
        let bindings: Vec<String> = analysis
            .index
            .occurrences_of(of)
            .filter_map(|o| match o.kind {
                OccurrenceKind::Binds(how) => Some(format!(" line {} (`{how}`)", line(o))),
                _ => None,
            })
            .collect();
        if bindings.is_empty() {
            text.push_str(" nowhere in this plan");
        } else {
            text.push_str(" at");
            text.push_str(&bindings.join(","));
        }
        return text;
    }
    let definition = analysis.index.occurrences_of(of).find(|o| o.kind == OccurrenceKind::Defines);
    match definition {
        Some(d) => {
            let bound = analysis.module().and_then(|m| task_bound(m, &of.name));
            let mut text = format!("`DEFINE_TASK \"{}\"` (line {})", of.name, line(d));
            if let Some(bound) = bound {
                text.push_str(&format!("\n\nstatic cost bound of one call:\n{}", describe(&bound)));
            }
            text
        }
        None => format!("no `DEFINE_TASK \"{}\"` in this plan", of.name),
    }
}

/// The innermost SETUP or STEP whose name (or SETUP keyword) is at `offset`.
fn step_at(outline: &[Outline], offset: usize) -> Option<&Outline> {
    let offset = offset as u32;
    for entry in outline {
        if entry.span.start <= offset && offset <= entry.span.end {
            if let Some(inner) = step_at(&entry.children, offset as usize) {
                return Some(inner);
            }
            let on_name = entry.selection.start <= offset && offset <= entry.selection.end;
            let keyword = if entry.kind == OutlineKind::Setup { "SETUP" } else { "STEP" };
            let on_keyword = offset <= entry.span.start + keyword.len() as u32;
            if matches!(entry.kind, OutlineKind::Step | OutlineKind::Setup) && (on_name || on_keyword) {
                return Some(entry);
            }
        }
    }
    None
}

fn step_bound(analysis: &Analysis, step: &Outline) -> String {
    let keyword = if step.kind == OutlineKind::Setup { "SETUP" } else { "STEP" };
    let head = format!("`{keyword} \"{}\"`", step.name);
    let Some(module) = analysis.module() else {
        return format!("{head}\n\nstatic cost bound: not known while the plan has errors");
    };
    let at = analysis.frontend.file.line_col(step.span.start as usize);
    match module.steps.iter().find(|s| (s.line as usize, s.column as usize) == (at.line, at.column)) {
        Some(info) => format!("{head}\n\nstatic cost bound (min … max):\n{}", describe(&info.bound)),
        None => head,
    }
}

fn task_bound(module: &Module, name: &str) -> Option<CostBound> {
    module.tasks.iter().find(|t| module.strings.get(t.name) == Some(name)).map(|t| t.bound)
}

/// One line per dimension, as `tissvm estimate` names them.
fn describe(bound: &CostBound) -> String {
    let mut text = String::new();
    for dim in Dim::ALL {
        let (min, max) = bound.get(dim);
        let show = |v: u64| match dim.unit() {
            DimUnit::Time => crate::written_duration::literal(v),
            DimUnit::Count => v.to_string(),
        };
        text.push_str(&format!("- {}: {} … {}\n", dim.name(), show(min), show(max)));
    }
    text
}

/// The keyword under `offset`, if it is one in the code (not in a string,
/// heredoc or comment: the lexer tells).
/// A field of a typed answer at `offset` (`verdict` in `r.verdict`): its
/// declared form and type.
fn answer_field_at(analysis: &Analysis, offset: usize) -> Option<String> {
    let text = analysis.text();
    let is_part = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    let start =
        text[..offset].char_indices().rev().find(|&(_, c)| !is_part(c)).map_or(0, |(i, c)| i + c.len_utf8());
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let end = text[offset..].find(|c: char| !is_word(c)).map_or(text.len(), |i| offset + i);
    let mut parts = text[start..end].split('.');
    let root = parts.next()?;
    let Some(Ty::Answer(mut shape)) = analysis.variable_type(root) else { return None };
    let fields: Vec<&str> = parts.collect();
    let (last, init) = fields.split_last()?;
    for name in init {
        shape = analysis.answer_shapes.field(shape, name)?.1.shape;
    }
    let (_, field) = analysis.answer_shapes.field(shape, last)?;
    let optional = if field.optional { "?" } else { "" };
    let path = text[start..end].to_string();
    let mut out = format!(
        "```tiss
{last}{optional}: {}
```
a field of `{root}`'s typed answer",
        analysis.answer_shapes.describe(field.shape)
    );
    if field.optional {
        out.push_str(&format!("; optional: read it where `{path} EXISTS` holds"));
    }
    Some(out)
}

fn keyword_at(text: &str, offset: usize) -> Option<Kw> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    // The character before the word may be several bytes long.
    let start =
        text[..offset].char_indices().rev().find(|&(_, c)| !is_word(c)).map_or(0, |(i, c)| i + c.len_utf8());
    let end = text[offset..].find(|c: char| !is_word(c)).map_or(text.len(), |i| offset + i);
    let kw = Kw::from_word(&text[start..end])?;
    // Lex up to the word's end: its last token is the word if it is code.
    let lexed = crate::lexer::lex(&text[..end]);
    let token = lexed.tokens.iter().rev().find(|t| t.kind != TokenKind::Eof)?;
    (token.kind == TokenKind::Kw(kw) && token.span.start as usize == start).then_some(kw)
}
