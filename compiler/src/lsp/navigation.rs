//! Go to definition and find references, for variables (every binding is
//! a definition: a variable may be bound in several places) and tasks
//! (`DEFINE_TASK` defines, `CALL` refers).

use lsp_types::{GotoDefinitionParams, GotoDefinitionResponse, Location, ReferenceParams, Uri};

use super::Failure;
use super::documents::{Analysis, Documents};
use super::index::{Occurrence, OccurrenceKind};

pub(crate) fn definition(
    docs: &Documents,
    params: GotoDefinitionParams,
) -> Result<Option<GotoDefinitionResponse>, Failure> {
    let at = &params.text_document_position_params;
    let uri = &at.text_document.uri;
    let analysis = &docs.get(uri)?.analysis;
    let Some(of) = occurrence(analysis, at.position) else { return Ok(None) };
    let definitions: Vec<Location> = analysis
        .index
        .occurrences_of(of)
        .filter(|o| matches!(o.kind, OccurrenceKind::Binds(_) | OccurrenceKind::Defines))
        .map(|o| location(uri, analysis, o))
        .collect();
    Ok((!definitions.is_empty()).then_some(GotoDefinitionResponse::Array(definitions)))
}

pub(crate) fn references(
    docs: &Documents,
    params: ReferenceParams,
) -> Result<Option<Vec<Location>>, Failure> {
    let at = &params.text_document_position;
    let uri = &at.text_document.uri;
    let analysis = &docs.get(uri)?.analysis;
    let Some(of) = occurrence(analysis, at.position) else { return Ok(None) };
    let include_definitions = params.context.include_declaration;
    let found = analysis
        .index
        .occurrences_of(of)
        .filter(|o| include_definitions || matches!(o.kind, OccurrenceKind::Uses | OccurrenceKind::Calls))
        .map(|o| location(uri, analysis, o))
        .collect();
    Ok(Some(found))
}

fn occurrence(analysis: &Analysis, position: lsp_types::Position) -> Option<&Occurrence> {
    let offset = analysis.lines.offset(analysis.text(), position)?;
    analysis.index.occurrence_at(offset)
}

fn location(uri: &Uri, analysis: &Analysis, o: &Occurrence) -> Location {
    Location { uri: uri.clone(), range: analysis.lines.range(analysis.text(), o.span) }
}
