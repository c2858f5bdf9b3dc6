//! Paths an object opens later, set on it after it was made: a logging handler's
//! `baseFilename` (opened on its next record), a read stream's `path` (opened on the next
//! tick: `fs.createReadStream('notes.txt')` then `s.path = '../../etc/passwd'` reads the
//! latter). A store to such an attribute of anything but the snippet's own plain data is a
//! path argument, judged as one; the dialect names the attributes.

use super::paths::normalize;
use crate::analysis::engine::Engine;
use crate::analysis::engine::rewrites::is_store_target;
use crate::analysis::facts::FactKind;
use crate::analysis::ir::{Kind, NodeId};

pub fn report(e: &mut Engine, id: NodeId) {
    match e.ir.kind(id) {
        // `handler.baseFilename = p`, `stream.path = p`, `[s.path] = [p]`
        Kind::Attr { object, name } if is_store_target(e, id) => {
            let attribute = e.name(name).to_owned();
            // `this.path = ...` in the snippet's own class is its own field.
            let own = e.is_plain_data(object) || matches!(e.ir.kind(object), Kind::This);
            if is_path_attribute(e, &attribute) && !own {
                let value = assigned_value(e, id);
                report_path(e, id, &attribute, value);
            }
        }
        Kind::Call { .. } => report_call(e, id),
        _ => {}
    }
}

/// `setattr(handler, "baseFilename", p)`, `Object.assign(stream, {path: p})`.
fn report_call(e: &mut Engine, call: NodeId) {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return;
    };
    let names = e.names_of(callee);
    let args = e.positional_args(call);
    if names.iter().any(|n| n == "setattr")
        && let [object, attribute, value] = args[..]
        && let Some(attribute) = e.fold(attribute, 0)
        && is_path_attribute(e, &attribute)
        && !e.is_plain_data(object)
    {
        report_path(e, call, &attribute, Some(value));
    }
    if names.iter().any(|n| n == "Object.assign")
        && let Some((&object, sources)) = args.split_first()
        && !e.is_plain_data(object)
    {
        for &source in sources {
            report_assigned_entries(e, call, source);
        }
    }
}

/// The entries an `Object.assign` source literal gives: a path attribute's value, and a path
/// nobody can prove for a key or a spread the analyzer cannot read.
fn report_assigned_entries(e: &mut Engine, call: NodeId, source: NodeId) {
    let source = e.ir.unparen(source);
    if let Kind::Name(sym) = e.ir.kind(source) {
        // `const opts = {path: p}; Object.assign(stream, opts)`: each literal it is bound to.
        let mut literals = Vec::new();
        let readable = e.every_bind(sym, source, |e, bind| {
            let value = e.ir.parent(bind).and_then(|p| match e.ir.kind(p) {
                Kind::Decl { value, .. } => value,
                Kind::Assign { value, .. } => Some(value),
                _ => None,
            });
            let literal =
                value.filter(|&v| matches!(e.ir.kind(e.ir.unparen(v)), Kind::Collection { .. }));
            literals.extend(literal);
            literal.is_some()
        });
        if !readable {
            return; // see below
        }
        for literal in literals {
            report_assigned_entries(e, call, literal);
        }
        return;
    }
    // A source built elsewhere (a call's result) gives members set where the analyzer read
    // them, not here: judging it as an unknown path would refuse `Object.assign(acc, f(x))`.
    let Kind::Collection { items, .. } = e.ir.kind(source) else {
        return;
    };
    for item in e.ir.list(items).to_vec() {
        match e.ir.kind(item) {
            Kind::Pair { key, value } => match e.fold(key, 0) {
                Some(k) if is_path_attribute(e, &k) => report_path(e, call, &k, Some(value)),
                Some(_) => {}
                None => report_path(e, call, "[computed]", None),
            },
            _ => report_path(e, call, "...", None),
        }
    }
}

fn is_path_attribute(e: &Engine, attribute: &str) -> bool {
    e.dialect.tables().path_attributes.contains(&attribute)
}

fn report_path(e: &mut Engine, at: NodeId, attribute: &str, value: Option<NodeId>) {
    let path = value.and_then(|v| e.fold(v, 0)).map(|p| normalize(&p));
    e.push(
        at,
        FactKind::Path {
            function: format!(".{attribute}"),
            path,
        },
    );
}

/// The value an attribute target is given when it is a plain assignment's whole target;
/// `None` for unpacking, loops, `with` and augmented stores (not followed: unproven).
pub fn assigned_value(e: &Engine, target: NodeId) -> Option<NodeId> {
    let parent = e.ir.parent(target)?;
    match e.ir.kind(parent) {
        Kind::Assign { targets, value } if e.ir.list(targets).contains(&target) => Some(value),
        _ => None,
    }
}
