//! Paths an object opens later, set on it after it was made: a logging handler's
//! `baseFilename` (opened on its next record), a read stream's `path` (opened on the next
//! tick: `fs.createReadStream('notes.txt')` then `s.path = '../../etc/passwd'` reads the
//! latter). A store to such an attribute of anything but the snippet's own plain data is a
//! path argument, judged as one; the dialect names the attributes.

use super::paths::push_readings;
use crate::analysis::engine::Engine;
use crate::analysis::engine::rewrites::is_store_target;
use crate::analysis::ir::{Kind, NodeId};

pub fn report(e: &mut Engine, id: NodeId) {
    match e.ir.kind(id) {
        // `stream['pa' + 'th'] = p` on an object a library made: a key that folds to a path
        // attribute, or one the analyzer cannot read.
        // (JavaScript only: a Python subscript sets an item, not an attribute.)
        Kind::Index { object, key }
            if e.dialect.index_reads_member()
                && is_store_target(e, id)
                && made_by_library(e, object) =>
        {
            match e.fold(key, 0) {
                Some(k) if is_path_attribute(e, &k) => {
                    let value = assigned_value(e, id);
                    report_path(e, id, &k, value);
                }
                Some(_) => {}
                None if e.is_numeric(key) => {} // `bytes[i] = b`
                None => report_path(e, id, "[computed]", None),
            }
        }
        // `handler.baseFilename = p`, `stream.path = p`, `[s.path] = [p]`
        Kind::Attr { object, name }
            if is_path_attribute(e, e.name(name)) && is_store_target(e, id) =>
        {
            // `this.path = ...` in the snippet's own class is its own field.
            let own = matches!(e.ir.kind(object), Kind::This) || e.is_plain_data(object);
            if !own {
                let attribute = e.name(name).to_owned();
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
    if !names.iter().any(|n| n == "setattr" || n == "Object.assign") {
        return;
    }
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
        let library_object = made_by_library(e, object);
        for &source in sources {
            report_assigned_entries(e, call, source, library_object);
        }
    }
}

/// The entries an `Object.assign` source literal gives: a path attribute's value, and a path
/// nobody can prove for a key or a spread the analyzer cannot read.
fn report_assigned_entries(e: &mut Engine, call: NodeId, source: NodeId, library_object: bool) {
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
            return unreadable_source(e, call, library_object);
        }
        for literal in literals {
            report_assigned_entries(e, call, literal, library_object);
        }
        return;
    }
    let Kind::Collection { items, .. } = e.ir.kind(source) else {
        return unreadable_source(e, call, library_object);
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

/// A source whose keys the analyzer cannot read (`JSON.parse(text)`, a call's result) may set
/// a path attribute: on an object a library made (a stream), that is a path nobody can prove;
/// on the snippet's own objects (`Object.assign(acc, f(x))`) it is its own data.
fn unreadable_source(e: &mut Engine, call: NodeId, library_object: bool) {
    if library_object {
        report_path(e, call, "...", None);
    }
}

/// True when the object is what a library call returned (`fs.createReadStream(p)`), directly
/// or through a name bound only to such results.
fn made_by_library(e: &mut Engine, object: NodeId) -> bool {
    let object = e.ir.unparen(object);
    if e.is_plain_data(object) {
        return false; // `new Uint8Array(n)`, `new Map()`: data
    }
    match e.ir.kind(object) {
        Kind::Call { callee, .. } => !e.names_of(callee).is_empty(),
        Kind::Name(sym) => e.every_bind(sym, object, |e, bind| {
            let value = e.ir.parent(bind).and_then(|p| match e.ir.kind(p) {
                Kind::Decl { value, .. } => value,
                Kind::Assign { value, .. } => Some(value),
                _ => None,
            });
            value.is_some_and(|v| {
                matches!(e.ir.kind(e.ir.unparen(v)), Kind::Call { callee, .. } if !e.names_of(callee).is_empty())
            })
        }),
        _ => false,
    }
}

fn is_path_attribute(e: &Engine, attribute: &str) -> bool {
    e.dialect.tables().path_attributes.contains(&attribute)
}

/// The path a store sets, judged as every path argument is (as a URL reader and as the
/// kernel would read it).
fn report_path(e: &mut Engine, at: NodeId, attribute: &str, value: Option<NodeId>) {
    let path = value.and_then(|v| e.fold(v, 0));
    push_readings(e, at, &format!(".{attribute}"), path.as_deref());
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
