//! Private attributes the snippet gives its own objects. A private name (`_x`) on anything else
//! is a library's internals (`np.zeros(1).ctypes._ctypes`, `ForwardRef(t)._evaluate`), which a
//! strict policy allows on nothing; on `self` in a method of one of the snippet's classes, or
//! on such a class by name, it is the snippet's own state when that class (or a class of the
//! snippet it derives from) defines it, in its body or by assigning it in a method.

use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::Value;
use crate::analysis::engine::rewrites::is_store_target;
use crate::analysis::engine::scopes::binding_construct;
use crate::analysis::ir::{Kind, NodeId};

/// Deepest chain of the snippet's own base classes followed.
const MAX_BASES: usize = 4;

/// True when `object.name` is an attribute the snippet itself defines on its own object.
pub fn is_own_member(e: &mut Engine, object: NodeId, name: &str) -> bool {
    let object = e.ir.unparen(object);
    if !matches!(e.ir.kind(object), Kind::Name(_)) {
        return false;
    }
    let class = match receiver_class(e, object) {
        Some(class) => class,
        None => {
            let meanings = e.resolve(object, 0);
            match meanings.as_ref() {
                [m] if !m.held => match m.value {
                    Value::Local(node) if matches!(e.ir.kind(node), Kind::Class { .. }) => node,
                    _ => return false,
                },
                _ => return false,
            }
        }
    };
    defines(e, class, name, 0)
}

/// The class whose method has `name` (a `Name` node) as its first parameter, and nothing else
/// bound to it: `self` or `cls`.
fn receiver_class(e: &mut Engine, name: NodeId) -> Option<NodeId> {
    let Kind::Name(sym) = e.ir.kind(name) else {
        return None;
    };
    let lookup = e
        .scopes
        .lookup(sym, e.scopes.scope_of(name), e.dialect.declaring());
    let [scope] = lookup.scopes.as_slice() else {
        return None;
    };
    let binds = e.binds_of(*scope, sym);
    let mut class = None;
    for bind in binds {
        let param = binding_construct(e.ir, bind)?;
        let function = e.ir.parent(param)?;
        let Kind::Function { params, .. } = e.ir.kind(function) else {
            return None;
        };
        if e.ir.list(params).first() != Some(&param) {
            return None;
        }
        let owner = e.ir.parent(function)?;
        if !matches!(e.ir.kind(owner), Kind::Class { .. }) || class.is_some_and(|c| c != owner) {
            return None;
        }
        class = Some(owner);
    }
    class
}

/// True when the class binds `name` in its body, assigns it to its own receiver in a method,
/// or derives from a class of the snippet that does.
fn defines(e: &mut Engine, class: NodeId, name: &str, depth: usize) -> bool {
    if depth > MAX_BASES {
        return false;
    }
    let body_scope = e.scopes.own(class);
    let (_, end) = e.ir.span(class);
    let mut bases = Vec::new();
    let mut id = class + 1;
    while (id as usize) < e.ir.nodes.len() && e.ir.span(id).0 < end {
        match e.ir.kind(id) {
            Kind::Bind(sym)
                if e.name(sym) == name
                    && body_scope.is_some()
                    && e.scopes.bind_scope(id) == body_scope =>
            {
                return true;
            }
            Kind::Attr { object, name: attr }
                if e.name(attr) == name
                    && is_store_target(e, id)
                    && receiver_class(e, e.ir.unparen(object)) == Some(class) =>
            {
                return true;
            }
            Kind::Arg { value, .. } if e.ir.parent(id) == Some(class) => bases.push(value),
            _ => {}
        }
        id += 1;
    }
    for base in bases {
        let meanings = e.resolve(base, 0).to_vec();
        for m in meanings {
            if let Value::Local(node) = m.value
                && !m.held
                && matches!(e.ir.kind(node), Kind::Class { .. })
                && defines(e, node, name, depth + 1)
            {
                return true;
            }
        }
    }
    false
}
