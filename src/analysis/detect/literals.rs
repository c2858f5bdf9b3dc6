//! String constants, after folding, for the rules on strings; one that names an interpreter
//! internal is introspection in itself (`getattr(f, '__glo' + 'bals__')`), and the dialect
//! judges what else the text does (the attributes a format string's fields walk).

use crate::analysis::engine::Engine;
use crate::analysis::engine::scopes::ScopeKind;
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
    // `"tb_frame tb_lineno"`, `"f_code, f_globals"`: a namedtuple's fields, one per word.
    let internals = e.dialect.tables().introspection_attributes;
    if let Some(name) = value
        .split(|c: char| c.is_whitespace() || c == ',')
        .find(|word| internals.contains(word))
    {
        e.dynamic(
            id,
            DynamicKind::Introspection,
            format!("string names `{name}`"),
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

/// A name the snippet gives its own objects that is an interpreter internal's: a class
/// attribute (`tb_frame: Frame`, `f_code = ...`) or a keyword that makes an attribute
/// (`SimpleNamespace(tb_frame=...)`). Such an object passes for a frame or a traceback, and
/// the library that walks it reads what it names (`traceback.print_exception(t, v, fake)`
/// reads the source file a fake code object names).
pub fn report_internal_name(e: &mut Engine, id: NodeId) {
    let name = match e.ir.kind(id) {
        Kind::Arg {
            name: Some(name), ..
        } => name,
        Kind::Bind(name)
            if e.scopes
                .bind_scope(id)
                .is_some_and(|scope| e.scopes.kind(scope) == ScopeKind::Class) =>
        {
            name
        }
        // `tb_frame: Frame` in a class body (an annotation alone binds nothing, so it is
        // lowered as the name under its statement)
        Kind::Name(name)
            if e.scopes.kind(e.scopes.scope_of(id)) == ScopeKind::Class
                && e.ir
                    .parent(id)
                    .is_some_and(|p| matches!(e.ir.kind(p), Kind::Other)) =>
        {
            name
        }
        _ => return,
    };
    let name = e.name(name);
    if e.dialect.tables().introspection_attributes.contains(&name) {
        e.dynamic(
            id,
            DynamicKind::Introspection,
            format!(
                "an object of the snippet's own given `{name}`, an interpreter internal's name"
            ),
        );
    }
}
