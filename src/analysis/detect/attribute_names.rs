//! Names that become attributes must be readable. Library factories make classes whose
//! attributes are named by data (`namedtuple("P", fields)`, `make_dataclass`, `NamedTuple`,
//! enum's functional API), and some library mappings answer attribute lookups from their keys
//! (scikit-learn's `Bunch`, scipy's `OptimizeResult`). The special attributes strict denies by
//! name (`__array_interface__`, `tb_frame`, `__doc__`) are then reached without ever being
//! written: a name the analyzer cannot fold is an attribute looked up by a computed name.

use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::Value;
use crate::analysis::engine::rewrites::is_store_target;
use crate::analysis::facts::DynamicKind;
use crate::analysis::ir::{CollectionKind, Kind, NodeId, Splat};

/// Calls whose result (or which, as a class, itself) is a mapping that turns its keys into
/// attributes: every function of the modules that hand out `Bunch` or `OptimizeResult`
/// objects (dataset loaders, `permutation_importance`, `minimize`, `solve_ivp`, ...), by prefix.
const KEY_ATTRIBUTE_MAKERS: &[&str] = &[
    "sklearn.datasets.",
    "sklearn.inspection.",
    "sklearn.utils.",
    "scipy.optimize.",
    "scipy.integrate.",
];

/// Attributes of fitted scikit-learn objects that are `Bunch`es.
const KEY_ATTRIBUTE_MEMBERS: &[&str] = &["named_steps", "named_transformers_", "named_estimators_"];

/// Methods that store keys into a mapping.
const KEY_STORING_METHODS: &[&str] =
    &["update", "setdefault", "__setitem__", "__ior__", "fromkeys"];

/// The argument that names a class factory's fields.
fn field_names(e: &mut Engine, call: NodeId) -> Option<(&'static str, Option<NodeId>)> {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return None;
    };
    let names = e.names_of(callee);
    let own_enum = {
        let meanings = e.resolve(callee, 0);
        meanings.iter().copied().any(|m| match m.value {
            Value::Local(class) if !m.held => is_own_enum(e, class, 0),
            _ => false,
        })
    };
    let name = names.iter().find_map(|n| {
        let n = n.as_str();
        if n == "collections.namedtuple" {
            Some("collections.namedtuple")
        } else if n.ends_with(".NamedTuple") && n.starts_with("typing") {
            Some("typing.NamedTuple")
        } else if n == "dataclasses.make_dataclass" {
            Some("dataclasses.make_dataclass")
        } else if n == "type" || n == "abc.ABCMeta" {
            Some("type")
        } else if n.starts_with("enum.") {
            Some("enum")
        } else {
            None
        }
    });
    // `class Base(enum.Enum): pass`, then `Base("Raw", names)`: the functional API of the
    // snippet's own enum without members.
    let name = name.or(own_enum.then_some("enum"))?;
    let fields = match name {
        "collections.namedtuple" => e.arg(call, 1, "field_names"),
        "typing.NamedTuple" => e.arg(call, 1, "fields"),
        "dataclasses.make_dataclass" => e.arg(call, 1, "fields"),
        // `type(name, bases, namespace)`; `type(x)` is the class of a value
        "type" => {
            let positional = e.positional_args(call);
            if positional.len() < 3 && !e.splatted(call) {
                return None;
            }
            positional.get(2).copied()
        }
        // `Color(1)` looks a member up; `Enum("Color", names)` makes a class.
        _ => {
            let made = e.positional_args(call).len() > 1 || e.keyword_arg(call, "names").is_some();
            if !made {
                return None;
            }
            e.arg(call, 1, "names")
        }
    };
    Some((name, fields))
}

/// Whether a class statement of the snippet derives from an enum (a base, or a decorator,
/// named from `enum`, or another of its classes that does).
fn is_own_enum(e: &mut Engine, class: NodeId, depth: usize) -> bool {
    if depth > 4 {
        return false;
    }
    class_heads(e, class).into_iter().any(|head| {
        if e.names_of(head).iter().any(|n| n.starts_with("enum.")) {
            return true;
        }
        let meanings = e.resolve(head, 0).to_vec();
        meanings.into_iter().any(|m| match m.value {
            Value::Local(base) if base != class && !m.held => is_own_enum(e, base, depth + 1),
            _ => false,
        })
    })
}

/// What a class statement evaluates before its body: its decorators and its bases and
/// keywords (lowered as a call's arguments: their values).
pub fn class_heads(e: &Engine, class: NodeId) -> Vec<NodeId> {
    let Kind::Class { body, .. } = e.ir.kind(class) else {
        return Vec::new();
    };
    let body = e.ir.list(body);
    let (_, end) = e.ir.span(class);
    let mut heads = Vec::new();
    for n in class + 1..e.ir.nodes.len() as NodeId {
        if e.ir.span(n).0 >= end {
            break;
        }
        if e.ir.parent(n) == Some(class) && !body.contains(&n) {
            heads.push(match e.ir.kind(n) {
                Kind::Arg { value, .. } => value,
                Kind::Bind(_) => continue,
                _ => n,
            });
        }
    }
    heads
}

/// The factory, when a call makes a class from data (a class factory's functional form).
pub fn makes_a_class(e: &mut Engine, call: NodeId) -> Option<&'static str> {
    field_names(e, call).map(|(factory, _)| factory)
}

/// Reports a class factory whose field names (or, for `make_dataclass`, namespace keys) the
/// analyzer cannot read.
pub fn report_factory(e: &mut Engine, call: NodeId) {
    let Some((factory, fields)) = field_names(e, call) else {
        return;
    };
    let readable = !e.splatted(call)
        && fields.is_none_or(|f| names_readable(e, f, 0))
        && e.keyword_arg(call, "namespace")
            .is_none_or(|ns| names_readable(e, ns, 0));
    if !readable {
        e.dynamic(
            call,
            DynamicKind::DynamicAttribute,
            format!(
                "`{factory}` makes a class whose attribute names the analyzer cannot read: \
                 write them as constants"
            ),
        );
    }
}

/// Whether every name a field list or namespace gives is a constant: a string (split into
/// words by the factory), or a literal list, tuple or dict of constants and
/// `(name, type, ...)` tuples.
fn names_readable(e: &mut Engine, value: NodeId, depth: usize) -> bool {
    let value = e.ir.unparen(value);
    if e.fold(value, 0).is_some() {
        return true;
    }
    match e.ir.kind(value) {
        Kind::Collection { kind, items } => {
            let items = e.ir.list(items).to_vec();
            items.into_iter().all(|item| match e.ir.kind(item) {
                Kind::Pair { key, .. } => e.fold(key, 0).is_some(),
                Kind::Collection {
                    kind: CollectionKind::Tuple | CollectionKind::List,
                    items: inner,
                } if kind != CollectionKind::Map && depth == 0 => {
                    e.ir.list(inner)
                        .first()
                        .copied()
                        .is_some_and(|first| e.fold(first, 0).is_some())
                }
                _ => e.fold(item, 0).is_some(),
            })
        }
        // A name bound only to such literals, as a tuple or string (a list may be changed).
        Kind::Name(sym) if depth == 0 => e.every_bind(sym, value, |e, bind| {
            let Some(v) = crate::analysis::detect::assigned_value(e, bind) else {
                return false;
            };
            let v = e.ir.unparen(v);
            let immutable = matches!(
                e.ir.kind(v),
                Kind::Collection {
                    kind: CollectionKind::Tuple,
                    ..
                } | Kind::Str { .. }
            );
            immutable && names_readable(e, v, 1)
        }),
        _ => false,
    }
}

/// Reports a key the analyzer cannot read stored into a mapping that turns keys into
/// attributes: `bunch[key] = v`, `bunch.update({key: v})`, `OptimizeResult(**kw)`.
pub fn report_key_store(e: &mut Engine, id: NodeId) {
    let stored = match e.ir.kind(id) {
        Kind::Index { object, key } if is_store_target(e, id) => {
            e.fold_key(key, 0).is_none() && may_turn_keys_into_attributes(e, object)
        }
        Kind::Call { callee, .. } => match e.ir.kind(e.ir.unparen(callee)) {
            Kind::Attr { object, name }
                if KEY_STORING_METHODS.contains(&e.name(name))
                    && may_turn_keys_into_attributes(e, object) =>
            {
                !keys_readable(e, id)
            }
            _ => makes_key_mapping(e, id) && !keys_readable(e, id),
        },
        _ => false,
    };
    if stored {
        e.dynamic(
            id,
            DynamicKind::DynamicAttribute,
            "a key the analyzer cannot read is stored into a mapping that answers attribute \
             lookups from its keys (scikit-learn's `Bunch`, scipy's `OptimizeResult`): write \
             the key as a constant",
        );
    }
}

/// Whether a call's arguments give only constant keys: keywords (no `**`), and mappings or
/// pair lists written out with constant keys.
fn keys_readable(e: &mut Engine, call: NodeId) -> bool {
    let Kind::Call { args, .. } = e.ir.kind(call) else {
        return false;
    };
    let args = e.ir.list(args).to_vec();
    args.into_iter().all(|arg| match e.ir.kind(arg) {
        Kind::Arg {
            splat: Splat::None,
            name: Some(_),
            ..
        } => true,
        Kind::Arg {
            splat: Splat::None,
            value,
            ..
        } => names_readable(e, value, 0),
        _ => false,
    })
}

/// A call that makes a key-to-attribute mapping from its arguments (`Bunch(...)`,
/// `OptimizeResult(...)`): a class of those modules.
fn makes_key_mapping(e: &mut Engine, call: NodeId) -> bool {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return false;
    };
    e.names_of(callee)
        .iter()
        .any(|n| n.ends_with(".Bunch") || n.ends_with("Result"))
        && is_key_attribute_maker(e, callee)
}

fn is_key_attribute_maker(e: &mut Engine, callee: NodeId) -> bool {
    e.names_of(callee).iter().any(|n| {
        KEY_ATTRIBUTE_MAKERS.iter().any(|p| n.starts_with(p))
            || n.rsplit('.')
                .next()
                .is_some_and(|last| KEY_ATTRIBUTE_MEMBERS.contains(&last))
    })
}

/// Whether `object` may be a mapping that turns keys into attributes: the result of a call of
/// those modules, one of the fitted objects' `Bunch` members, or a name bound to either.
fn may_turn_keys_into_attributes(e: &mut Engine, object: NodeId) -> bool {
    let object = e.ir.unparen(object);
    match e.ir.kind(object) {
        Kind::Call { callee, .. } => is_key_attribute_maker(e, callee),
        Kind::Attr { name, .. } => KEY_ATTRIBUTE_MEMBERS.contains(&e.name(name)),
        Kind::Name(sym) => {
            let lookup = e
                .scopes
                .lookup(sym, e.scopes.scope_of(object), e.dialect.declaring());
            let mut binds = Vec::new();
            for scope in lookup.scopes {
                binds.extend(e.binds_of(scope, sym));
            }
            binds.into_iter().any(|bind| {
                let Some(value) = crate::analysis::detect::assigned_value(e, bind) else {
                    return false;
                };
                let value = e.ir.unparen(value);
                match e.ir.kind(value) {
                    Kind::Call { callee, .. } => is_key_attribute_maker(e, callee),
                    Kind::Attr { name, .. } => KEY_ATTRIBUTE_MEMBERS.contains(&e.name(name)),
                    _ => false,
                }
            })
        }
        _ => false,
    }
}
