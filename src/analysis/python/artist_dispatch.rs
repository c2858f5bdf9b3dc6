//! matplotlib's artists set and get their properties by name: `Artist.properties(obj)` calls
//! every `get_*` method of `obj`, `Artist.set(obj, name=v)` its `set_name`. Called through a
//! class on an object of the snippet's choosing (a KD-tree's `get_arrays`), they reach methods
//! the attribute allowlist denies. The getters' dispatch (`properties`, `pprint_getters`) is
//! denied by its name wherever it is reached (see the Python tables). The setters' is judged
//! as `setp` is (see `CallKind::Accessor`): through a matplotlib class by its name, through the
//! snippet's own class by the method's; taken from the snippet's class as a value, the object
//! it is later called on is not seen.

use crate::analysis::detect::report_accessor;
use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::Value;
use crate::analysis::facts::DynamicKind;
use crate::analysis::ir::{Kind, NodeId};

/// The accessor prefix of a method that calls methods named by text on the object it is
/// given as `self`: `properties` and `pprint_getters` every getter, `set`, `update` and
/// `update_from` the setters their keywords or mapping name.
fn method_prefix(method: &str) -> Option<&'static str> {
    match method {
        "properties" | "pprint_getters" => Some("get_"),
        "set" | "update" | "update_from" | "_internal_update" => Some("set_"),
        _ => None,
    }
}

/// The prefix for a matplotlib class's dispatch method by its full name
/// (`matplotlib.artist.Artist.properties`).
pub fn prefix(name: &str) -> Option<&'static str> {
    let rest = name.strip_prefix("matplotlib.")?;
    let (class, method) = rest.rsplit_once('.')?;
    let class = class.rsplit('.').next()?;
    if !class.starts_with(|c: char| c.is_ascii_uppercase()) {
        return None;
    }
    method_prefix(method)
}

/// `Mine.properties(obj)`, `Mine.set(obj, ...)`: a dispatch method called through the
/// snippet's own class (whatever it derives from), with the object as `self`.
pub fn report_through_own_class(e: &mut Engine, call: NodeId) {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return;
    };
    let Kind::Attr { object, name } = e.ir.kind(e.ir.unparen(callee)) else {
        return;
    };
    let Some(prefix) = method_prefix(e.name(name)) else {
        return;
    };
    if is_own_class(e, object) {
        let args = e.positional_args(call);
        report_accessor(e, call, e.name(name), prefix, &args);
    }
}

/// `Mine.set` kept, stored or passed on (`partial(Mine.set, obj)`, `map(Mine.update, ...)`).
pub fn report_own_class_value(e: &mut Engine, attribute: NodeId) {
    let Kind::Attr { object, name } = e.ir.kind(attribute) else {
        return;
    };
    let Some(prefix) = method_prefix(e.name(name)) else {
        return;
    };
    if !crate::analysis::detect::is_callee(e, attribute) && is_own_class(e, object) {
        e.dynamic(
            attribute,
            DynamicKind::DynamicAttribute,
            format!(
                "`{}` of a class of the snippet's own calls `{prefix}*` methods of whatever \
                 object it is later given: call it on an instance, `obj.{}(...)`",
                e.name(name),
                e.name(name)
            ),
        );
    }
}

/// True when `object` may be a class the snippet defines.
fn is_own_class(e: &mut Engine, object: NodeId) -> bool {
    e.resolve(object, 0).iter().any(|m| {
        matches!(m.value, Value::Local(class) if matches!(e.ir.kind(class), Kind::Class { .. }))
    })
}
