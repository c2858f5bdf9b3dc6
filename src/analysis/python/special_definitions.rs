//! Special names a snippet's own class defines. The interpreter and the libraries call them
//! without the snippet ever naming them: numpy reads a class's `__array_interface__` and makes
//! an array over the raw address it gives. A definition is judged as a use of the name, by
//! the allowlist of special attributes: in a class body (`def`, assignment) and in the
//! namespace of `type(name, bases, namespace)`.

use crate::analysis::detect::report_special;
use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::Value;
use crate::analysis::ir::{Kind, NodeId};

pub fn report(e: &mut Engine, id: NodeId) {
    match e.ir.kind(id) {
        Kind::Class { body, .. } => {
            for &statement in e.ir.list(body).to_vec().iter() {
                for name in defined_names(e, statement) {
                    report_name(e, name);
                }
            }
        }
        Kind::Call { callee, .. } => {
            let is_type = e
                .resolve(callee, 0)
                .iter()
                .any(|m| matches!(m.value, Value::Name(p) if e.paths.text(p) == "type"));
            if let [_, _, namespace] = e.positional_args(id).as_slice()
                && is_type
                && let Kind::Collection { items, .. } = e.ir.kind(e.ir.unparen(*namespace))
            {
                for &item in e.ir.list(items).to_vec().iter() {
                    if let Kind::Pair { key, .. } = e.ir.kind(item)
                        && let Some(name) = e.fold(key, 0)
                        && is_dunder(&name)
                    {
                        report_special(e, key, &name);
                    }
                }
            }
        }
        _ => {}
    }
}

/// The names a class-body statement binds: a method's, or an assignment's plain targets.
fn defined_names(e: &Engine, statement: NodeId) -> Vec<NodeId> {
    match e.ir.kind(statement) {
        Kind::Function { name: Some(n), .. } => vec![n],
        Kind::Assign { targets, .. } => e.ir.list(targets).to_vec(),
        _ => Vec::new(),
    }
}

fn report_name(e: &mut Engine, id: NodeId) {
    if let Kind::Bind(sym) | Kind::Name(sym) = e.ir.kind(id) {
        let name = e.name(sym).to_owned();
        if is_dunder(&name) {
            report_special(e, id, &name);
        }
    }
}

/// A `__special__` name; private `_names` of the snippet's own classes are its own.
fn is_dunder(name: &str) -> bool {
    name.len() > 4 && name.starts_with("__") && name.ends_with("__")
}
