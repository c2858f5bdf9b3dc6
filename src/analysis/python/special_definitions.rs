//! Special names a snippet's own class defines. The interpreter and the libraries call them
//! without the snippet ever naming them: numpy reads a class's `__array_interface__` and makes
//! an array over the raw address it gives. A definition is judged as a use of the name, by
//! the allowlist of special attributes: in a class body (`def`, assignment) and in the
//! namespace of `type(name, bases, namespace)`.
//!
//! A subclass of a class whose native code trusts the arrays it holds (a sparse matrix, a
//! spline, a triangulation) may not replace how instances are made or checked: its own
//! `__init__` or `__new__`, or a private `_check` left empty, builds one the native code reads
//! past the ends of.

use crate::analysis::detect::report_special;
use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::Value;
use crate::analysis::facts::DynamicKind;
use crate::analysis::ir::{Kind, NodeId};

/// Packages whose classes hold arrays their native code reads unchecked.
const NATIVE_ARRAY_PACKAGES: &[&str] = &[
    "scipy.sparse.",
    "scipy.interpolate.",
    "scipy.spatial.",
    "scipy.ndimage.",
    "scipy.odr.",
    "sklearn.neighbors.",
    "sklearn.tree.",
];

pub fn report(e: &mut Engine, id: NodeId) {
    match e.ir.kind(id) {
        Kind::Class { body, heads, .. } => {
            let native_base = native_base(e, e.ir.list(heads));
            for &statement in e.ir.list(body).to_vec().iter() {
                for name in defined_names(e, statement) {
                    report_name(e, name);
                    if let Some(base) = &native_base
                        && let Kind::Bind(sym) | Kind::Name(sym) = e.ir.kind(name)
                    {
                        report_replaced_check(e, name, base, e.name(sym));
                    }
                }
            }
        }
        Kind::Call { callee, .. } => {
            let is_type = e
                .resolve(callee, 0)
                .iter()
                .any(|m| matches!(m.value, Value::Name(p) if e.paths.text(p) == "type"));
            if let [_, bases, namespace] = e.positional_args(id).as_slice()
                && is_type
                && let Kind::Collection { items, .. } = e.ir.kind(e.ir.unparen(*namespace))
            {
                let native_base = match e.ir.kind(e.ir.unparen(*bases)) {
                    Kind::Collection { items, .. } => native_base(e, e.ir.list(items)),
                    _ => None,
                };
                for &item in e.ir.list(items).to_vec().iter() {
                    let Kind::Pair { key, .. } = e.ir.kind(item) else {
                        continue;
                    };
                    let Some(name) = e.fold(key, 0) else {
                        continue;
                    };
                    if is_dunder(&name) {
                        report_special(e, key, &name);
                    }
                    if let Some(base) = &native_base {
                        report_replaced_check(e, key, base, &name);
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

/// The first of a class's bases (or decorators) that is a class of `NATIVE_ARRAY_PACKAGES`.
fn native_base(e: &mut Engine, heads: &[NodeId]) -> Option<String> {
    heads.iter().find_map(|&head| {
        let head = match e.ir.kind(head) {
            Kind::Arg { value, .. } => value,
            _ => head,
        };
        e.names_of(head)
            .into_iter()
            .find(|n| NATIVE_ARRAY_PACKAGES.iter().any(|p| n.starts_with(p)))
    })
}

/// `name`, defined by a subclass of `base`: a private or special one replaces how instances
/// are made or checked.
fn report_replaced_check(e: &mut Engine, id: NodeId, base: &str, name: &str) {
    if name.starts_with('_') && !matches!(name, "__repr__" | "__str__" | "__doc__" | "__module__") {
        e.dynamic(
            id,
            DynamicKind::Introspection,
            format!(
                "a subclass of `{base}` replaces `{name}`: its native code trusts the arrays \
                 that making and checking an instance ensures; use the class itself, held in \
                 a class of your own"
            ),
        );
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
