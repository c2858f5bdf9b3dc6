//! String constants, after folding, for the rules on strings; one that names an interpreter
//! internal is introspection in itself (`getattr(f, '__glo' + 'bals__')`), and the dialect
//! judges what else the text does (the attributes a format string's fields walk).

use crate::analysis::engine::Engine;
use crate::analysis::facts::{DynamicKind, FactKind};
use crate::analysis::ir::{BinOp, Kind, NodeId};

/// A string literal or template, unless it is a piece of a larger one.
pub fn report_string(e: &mut Engine, id: NodeId) {
    if matches!(e.ir.kind(id), Kind::Str { name: true, .. }) {
        return; // a property key or method name, not a string value
    }
    let inside_template =
        e.ir.parent(id)
            .is_some_and(|p| matches!(e.ir.kind(p), Kind::Template { .. }));
    // `prop === '__proto__'`, `key == "/etc/passwd"`: compared, a string reaches nothing
    // (guards against prototype pollution are written this way).
    let compared = e.ir.parent(id).is_some_and(|p| {
        matches!(
            e.ir.kind(p),
            Kind::Binary {
                op: BinOp::Compare,
                ..
            } | Kind::Compared
        )
    });
    if !inside_template && !compared {
        report(e, id);
    }
}

/// The constant an expression folds to, if any.
pub fn report(e: &mut Engine, id: NodeId) {
    let Some(value) = e.fold(id, 0) else {
        return;
    };
    if e.dialect
        .tables()
        .introspection_attributes
        .contains(&&*value)
    {
        e.dynamic(
            id,
            DynamicKind::Introspection,
            format!("string names `{value}`"),
        );
    }
    let dialect = e.dialect;
    dialect.report_text(e, id, &value);
    e.push(
        id,
        FactKind::Literal {
            value: value.to_string(),
        },
    );
}
