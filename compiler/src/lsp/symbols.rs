//! Document symbols: the outline of TASK, SETUP, the STEP tree (CHOOSE
//! options included), DEFINE_TASK and TYPE.

use lsp_types::{DocumentSymbol, DocumentSymbolParams, DocumentSymbolResponse, SymbolKind};

use super::Failure;
use super::documents::{Analysis, Documents};
use super::index::{Outline, OutlineKind};

pub(crate) fn document_symbols(
    docs: &Documents,
    params: DocumentSymbolParams,
) -> Result<Option<DocumentSymbolResponse>, Failure> {
    let analysis = &docs.get(&params.text_document.uri)?.analysis;
    let symbols = analysis.index.outline.iter().map(|o| symbol(analysis, o)).collect();
    Ok(Some(DocumentSymbolResponse::Nested(symbols)))
}

fn symbol(analysis: &Analysis, o: &Outline) -> DocumentSymbol {
    let (kind, detail) = match o.kind {
        OutlineKind::Task => (SymbolKind::MODULE, "TASK"),
        OutlineKind::Setup => (SymbolKind::CONSTRUCTOR, "SETUP"),
        OutlineKind::Step => (SymbolKind::NAMESPACE, "STEP"),
        OutlineKind::Option => (SymbolKind::ENUM_MEMBER, "OPTION"),
        OutlineKind::DefineTask => (SymbolKind::FUNCTION, "DEFINE_TASK"),
        OutlineKind::Type => (SymbolKind::STRUCT, "TYPE"),
    };
    let text = analysis.text();
    let children: Vec<DocumentSymbol> = o.children.iter().map(|c| symbol(analysis, c)).collect();
    #[allow(deprecated)] // `deprecated` is a field LSP keeps for old clients; it must be written.
    DocumentSymbol {
        // An empty name is refused by some clients.
        name: if o.name.is_empty() { "\"\"".to_string() } else { o.name.clone() },
        detail: Some(detail.to_string()),
        kind,
        tags: None,
        deprecated: None,
        range: analysis.lines.range(text, o.span),
        selection_range: analysis.lines.range(text, o.selection),
        children: (!children.is_empty()).then_some(children),
    }
}
