//! In-memory files given where a path may go: `pd.read_csv(io.StringIO(text))` reads the text
//! the buffer holds and opens nothing, so it is no path to prove. Only a buffer the analyzer
//! sees made is one: the constructor called right there, or a name every binding of which is
//! such a call (`buf = io.StringIO(text)`). A name bound any other way as well (to a string,
//! a parameter, a value carried from an earlier call) may be a path, and is judged as one.

use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::Value;
use crate::analysis::ir::{Kind, NodeId};

/// True when every value that may flow into `value` is a new in-memory file.
pub fn is_in_memory_file(e: &mut Engine, value: NodeId) -> bool {
    let Some(sources) = e.value_sources_of(value) else {
        return false;
    };
    !sources.is_empty() && sources.into_iter().all(|s| makes_in_memory_file(e, s))
}

/// A call of an in-memory file's constructor, every meaning of its callee being one (never
/// a function of the snippet's that shares the name).
fn makes_in_memory_file(e: &mut Engine, source: NodeId) -> bool {
    let Kind::Call { callee, .. } = e.ir.kind(e.ir.unparen(source)) else {
        return false;
    };
    let meanings = e.resolve(callee, 0);
    !meanings.is_empty()
        && meanings.iter().all(|m| {
            !m.held
                && matches!(m.value, Value::Name(p)
                    if e.dialect.constructs_in_memory_file(e.paths.text(p)))
        })
}
