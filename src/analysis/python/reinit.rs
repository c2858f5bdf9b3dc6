//! `__init__` and `__new__` on an object the snippet did not define re-initialize or remake it:
//! `open("a", "rb", buffering=0)` is an `io.FileIO`, and its `__init__("/etc/passwd")` reopens
//! it on another path, with no path function in sight; through
//! `operator.methodcaller("__init__", p)` the same. The ordinary ways stay allowed: a class of
//! the snippet initializing its base (`super().__init__(...)`, `Base.__init__(self, ...)`
//! inside its own body, `Base` one of the snippet's classes). Any other use is a value the
//! analyzer does not follow.

use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::Value;
use crate::analysis::facts::DynamicKind;
use crate::analysis::ir::{Kind, NodeId};

/// The methods that (re)make an object.
const REMAKERS: &[&str] = &["__init__", "__new__"];

pub fn report(e: &mut Engine, id: NodeId) {
    match e.ir.kind(id) {
        Kind::Attr { object, name }
            if REMAKERS.contains(&e.name(name)) && !is_own_initialization(e, id, object) =>
        {
            e.dynamic(
                id,
                DynamicKind::UntrackedValue,
                format!(
                    "`.{}` on an object the snippet did not define remakes it (a file reopened \
                     on another path); only a class of the snippet may call its base's",
                    e.name(name)
                ),
            );
        }
        // `methodcaller("__init__", p)`, `getattr(f, "__init__")`.
        Kind::Str { name: false, .. }
            if e.ir.str_value(id).is_some_and(|s| REMAKERS.contains(&s)) =>
        {
            e.dynamic(
                id,
                DynamicKind::UntrackedValue,
                "the name of a method that remakes an object, taken as text",
            );
        }
        // The same name built at run time: `getattr(f, "__ini" + "t__")`,
        // `methodcaller("".join(["__init", "__"]), p)`.
        Kind::Arg { value, .. }
            if !matches!(e.ir.kind(value), Kind::Str { .. })
                && e.fold(value, 0).is_some_and(|s| REMAKERS.contains(&&*s)) =>
        {
            e.dynamic(
                id,
                DynamicKind::UntrackedValue,
                "the name of a method that remakes an object, computed as text",
            );
        }
        _ => {}
    }
}

/// `super().__init__`, `super(C, self).__init__`, or `Base.__init__` with `Base` a class of
/// the snippet, inside one of the snippet's class bodies.
fn is_own_initialization(e: &mut Engine, attr: NodeId, object: NodeId) -> bool {
    if !inside_class(e, attr) {
        return false;
    }
    let object = e.ir.unparen(object);
    match e.ir.kind(object) {
        Kind::Call { callee, .. } => {
            matches!(e.ir.kind(callee), Kind::Name(s) if e.name(s) == "super")
                && e.resolve(callee, 0)
                    .iter()
                    .all(|m| matches!(m.value, Value::Name(p) if e.paths.text(p) == "super"))
        }
        // `Base.__init__(self, ...)`: the snippet's own new instance, initialized by a base.
        Kind::Name(_) | Kind::Attr { .. } => {
            let meanings = e.resolve(object, 0);
            let own_class = !meanings.is_empty()
                && meanings.iter().all(|m| {
                    !m.held
                        && matches!(m.value, Value::Local(c) if matches!(e.ir.kind(c), Kind::Class { .. }))
                });
            own_class || (initializes_own_instance(e, attr) && is_a_base_here(e, attr, object))
        }
        _ => false,
    }
}

/// Whether `X` in `X.__init__(self, ...)` is a base of the class the call is made in
/// (`Exception.__init__(self, msg)` in `class E(Exception)`): a library class that is not
/// (`gzip.GzipFile.__init__(self, p)` in a plain class) would make the snippet's object that
/// class's, opened on a path no path function shows.
fn is_a_base_here(e: &mut Engine, attr: NodeId, object: NodeId) -> bool {
    let Some(Kind::Class { heads, .. }) =
        e.ir.enclosing_function(attr)
            .and_then(|f| e.ir.parent(f))
            .map(|c| e.ir.kind(c))
    else {
        return false;
    };
    let called: Vec<Value> = e.resolve(object, 0).iter().map(|m| m.value).collect();
    !called.is_empty()
        && e.ir
            .list(heads)
            .to_vec()
            .into_iter()
            .any(|head| match e.ir.kind(head) {
                Kind::Arg {
                    name: None, value, ..
                } => e
                    .resolve(value, 0)
                    .iter()
                    .any(|m| called.contains(&m.value)),
                _ => false,
            })
}

/// `X.__init__(self, ...)` called in a method, with `self` the method's first parameter.
fn initializes_own_instance(e: &mut Engine, attr: NodeId) -> bool {
    let Some((call, callee)) = e.ir.context(attr) else {
        return false;
    };
    let Kind::Call {
        callee: c, args, ..
    } = e.ir.kind(call)
    else {
        return false;
    };
    if c != callee {
        return false;
    }
    let first_arg = e.ir.list(args).first().and_then(|&a| match e.ir.kind(a) {
        Kind::Arg {
            name: None,
            value,
            splat: crate::analysis::ir::Splat::None,
        } => Some(value),
        _ => None,
    });
    let Some(Kind::Name(arg)) = first_arg.map(|v| e.ir.kind(e.ir.unparen(v))) else {
        return false;
    };
    let mut node = attr;
    while let Some(parent) = e.ir.parent(node) {
        if let Kind::Function { params, .. } = e.ir.kind(parent) {
            let first = e.ir.list(params).first().map(|&p| e.ir.kind(p));
            return matches!(first, Some(Kind::Param { target })
                if matches!(e.ir.kind(target), Kind::Bind(s) if s == arg));
        }
        node = parent;
    }
    false
}

fn inside_class(e: &Engine, mut id: NodeId) -> bool {
    while let Some(parent) = e.ir.parent(id) {
        if matches!(e.ir.kind(parent), Kind::Class { .. }) {
            return true;
        }
        id = parent;
    }
    false
}
