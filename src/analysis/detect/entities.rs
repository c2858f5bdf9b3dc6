//! Parsers that follow references inside the data they read: an XML document's external
//! entities (`<!ENTITY e SYSTEM "file:///etc/passwd">`) name files the parser opens, in text
//! the analyzer never sees. pandas' `read_xml` parses a whole document with entity resolution
//! limited, but its `iterparse=` path hands the file to a parser with the library's defaults,
//! which resolve external entities: a path reader whose paths nobody can prove.

use crate::analysis::engine::Engine;
use crate::analysis::facts::FactKind;
use crate::analysis::ir::{Kind, NodeId};

/// Readers, and the keyword that makes them follow entities in the data.
const ENTITY_READERS: &[(&str, &str)] = &[("pandas.read_xml", "iterparse")];

/// Reports a reader called so that it may resolve external entities (the keyword given, or
/// keywords splatted from a mapping the analyzer does not read).
pub fn report(e: &mut Engine, call: NodeId) {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return;
    };
    let names = e.names_of(callee);
    let Some(&(function, _)) = ENTITY_READERS.iter().find(|(function, keyword)| {
        names.iter().any(|n| n == function)
            && (e.keyword_arg(call, keyword).is_some() || e.splatted(call))
    }) else {
        return;
    };
    e.push(
        call,
        FactKind::Path {
            function: format!("{function} (external entities in the data)"),
            path: None,
        },
    );
}
