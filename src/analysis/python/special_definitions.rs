//! Special names a snippet's own class defines. The interpreter and the libraries call them
//! without the snippet ever naming them: numpy reads a class's `__array_interface__` and makes
//! an array over the raw address it gives. A definition is judged as a use of the name, by
//! the allowlist of special attributes: in a class body (`def`, assignment) and in the
//! namespace of `type(name, bases, namespace)` and the other functions that make a class.
//!
//! A subclass of a class whose native code trusts the arrays it holds (a sparse matrix, a
//! spline, a triangulation) may not replace how instances are made or checked: its own
//! `__init__` or `__new__`, or a private `_check` left empty, builds one the native code reads
//! past the ends of.

use crate::analysis::detect::report_special;
use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::Value;
use crate::analysis::engine::rewrites::is_store_target;
use crate::analysis::facts::DynamicKind;
use crate::analysis::ir::{Kind, NodeId};

/// Packages whose classes hold arrays their native code reads unchecked.
const NATIVE_ARRAY_PACKAGES: &[&str] = &[
    "scipy.sparse.",
    "scipy.interpolate.",
    "scipy.spatial.",
    "scipy.ndimage.",
    "scipy.odr.",
    "matplotlib.tri.",
    "sklearn.neighbors.",
    "sklearn.tree.",
];

pub fn report(e: &mut Engine, id: NodeId) {
    match e.ir.kind(id) {
        Kind::Class { body, heads, .. } => {
            for &statement in e.ir.list(body).to_vec().iter() {
                for name in defined_names(e, statement) {
                    report_name(e, name);
                }
                report_match_args(e, statement);
            }
            let mut own = vec![id];
            if let Some(base) = native_base(e, e.ir.list(heads), &mut own, 0) {
                report_own_ancestry(e, id, &own, &base);
                // Each class of the snippet's in the ancestry: a property given to a base
                // after the instance is made answers for the arrays as well.
                for &class in &own {
                    report_escaping_class(e, class, &base);
                }
            }
        }
        Kind::Call { callee, .. } => report_made_class(e, id, callee),
        _ => {}
    }
}

/// Where a subclass of a native-array class (or a class of the snippet's it derives from) is
/// named other than to make an instance, to test one (`isinstance`), to read an attribute or
/// as a base: handed on (to the snippet's own function, a container, `setattr`) or stored
/// into (`Sparse.data = property(...)`, `Base.data = ...`, in any target form), it may be
/// given what answers for the arrays its native code reads, which the rules on its body never
/// see.
fn report_escaping_class(e: &mut Engine, class: NodeId, base: &str) {
    for id in 0..e.ir.nodes.len() as NodeId {
        if !matches!(e.ir.kind(id), Kind::Name(_) | Kind::Attr { .. })
            || !e
                .resolve(id, 0)
                .iter()
                .any(|m| matches!(m.value, Value::Local(c) if c == class))
        {
            continue;
        }
        let Some(parent) = e.ir.parent(id) else {
            continue;
        };
        let plain = match e.ir.kind(parent) {
            Kind::Call { callee, .. } => callee == id,
            Kind::Attr { object, .. } => object == id && !is_store_target(e, parent),
            Kind::Arg { name: None, .. } => e.ir.parent(parent).is_some_and(|user| {
                matches!(e.ir.kind(user), Kind::Class { .. })
                    || matches!(e.ir.kind(user), Kind::Call { callee, .. }
                        if e.names_of(callee).iter().any(|n| n == "isinstance" || n == "issubclass"))
            }),
            _ => false,
        };
        if !plain {
            e.dynamic(
                id,
                DynamicKind::Introspection,
                format!(
                    "a subclass of {base} is handed on or changed after it is made: what it is \
                     given may answer for the arrays its native code reads; make instances of it \
                     and add plain methods in its body"
                ),
            );
        }
    }
}

/// How a function makes a class from the bases it is given.
#[derive(Clone, Copy, PartialEq)]
enum Maker {
    /// From a namespace mapping (`type(name, bases, ns)`, a metaclass, `types.new_class`).
    Namespace,
    /// With methods it writes itself (`dataclasses.make_dataclass` writes `__init__`).
    Generated,
}

fn class_maker(name: &str) -> Option<Maker> {
    match name {
        "type" | "abc.ABCMeta" | "types.new_class" | "enum.EnumMeta" | "enum.EnumType" => {
            Some(Maker::Namespace)
        }
        "dataclasses.make_dataclass" => Some(Maker::Generated),
        _ => None,
    }
}

/// `type(name, bases, namespace)` and the other functions that make a class: the namespace's
/// special names are judged as a class body's, and bases that are (or may be) a native-array
/// class are judged as a `class` statement's, read through whatever the bases expression is
/// made of (a variable, `tuple([...])`, a sum, a slice).
fn report_made_class(e: &mut Engine, call: NodeId, callee: NodeId) {
    let Some(maker) = e.names_of(callee).iter().find_map(|n| class_maker(n)) else {
        return;
    };
    let positional = e.positional_args(call);
    if maker == Maker::Namespace && positional.len() == 1 && !e.splatted(call) {
        return; // `type(x)`: the class of `x`
    }
    let bases = match maker {
        Maker::Namespace => e.arg(call, 1, "bases"),
        Maker::Generated => e.keyword_arg(call, "bases"),
    };
    let namespace = match maker {
        Maker::Namespace => e
            .arg(call, 2, "dict")
            .or_else(|| e.keyword_arg(call, "namespace")),
        Maker::Generated => e.keyword_arg(call, "namespace"),
    };
    let mut own = Vec::new();
    let native = match bases {
        _ if e.splatted(call) => {
            Some("a base passed in a splat, which the analyzer cannot read".to_owned())
        }
        Some(bases) => mentioned_native(e, bases, &mut own, 0),
        None => None,
    };
    let items = namespace.and_then(|ns| match e.ir.kind(e.ir.unparen(ns)) {
        Kind::Collection { items, .. } => Some(e.ir.list(items).to_vec()),
        _ => None,
    });
    if let Some(base) = &native {
        report_own_ancestry(e, call, &own, base);
        if let Some(bases) = bases
            && let Kind::Collection { items, .. } = e.ir.kind(e.ir.unparen(bases))
        {
            report_foreign_bases(e, call, e.ir.list(items), base);
        }
        let unseen = match maker {
            Maker::Generated => Some("writes the methods that make its instances"),
            Maker::Namespace if namespace.is_some() && items.is_none() => {
                Some("takes a namespace the analyzer cannot read")
            }
            Maker::Namespace if e.keyword_arg(call, "exec_body").is_some() => {
                Some("fills its namespace with a function")
            }
            Maker::Namespace => None,
        };
        if let Some(why) = unseen {
            e.dynamic(
                call,
                DynamicKind::Introspection,
                format!(
                    "a subclass of {base} is made by a function that {why}, which may replace \
                     how its instances are made: use the class itself, held in a class of your \
                     own"
                ),
            );
        }
    }
    for item in items.unwrap_or_default() {
        let Kind::Pair { key, .. } = e.ir.kind(item) else {
            continue;
        };
        let Some(name) = e.fold(key, 0) else {
            continue;
        };
        if is_dunder(&name) {
            report_special(e, key, &name);
        }
        if let Some(base) = &native {
            report_replaced_check(e, key, base, &name);
        }
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

/// `__match_args__ = ("a", ...)`: a `match` class pattern reads each attribute it names, of
/// whatever object matches (`ABC.register` makes a library's class match): each name is judged
/// as an attribute; one the analyzer cannot read may be any.
fn report_match_args(e: &mut Engine, statement: NodeId) {
    let Kind::Assign { targets, value } = e.ir.kind(statement) else {
        return;
    };
    let names_match_args =
        e.ir.list(targets)
            .iter()
            .any(|&t| matches!(e.ir.kind(t), Kind::Bind(sym) if e.name(sym) == "__match_args__"));
    if !names_match_args {
        return;
    }
    let items = match e.ir.kind(e.ir.unparen(value)) {
        Kind::Collection { items, .. } => e.ir.list(items).to_vec(),
        _ => vec![value],
    };
    for item in items {
        match e.fold(item, 0) {
            Some(name) if !matches!(e.ir.kind(item), Kind::Spread(_)) => {
                report_special(e, item, &name)
            }
            _ => e.dynamic(
                item,
                DynamicKind::DynamicAttribute,
                "`__match_args__` names an attribute computed at run time, which a `match` \
                 reads of whatever object matches",
            ),
        }
    }
}

/// Deepest chain of the snippet's own classes followed.
const MAX_ANCESTRY: usize = 16;

/// A class of `NATIVE_ARRAY_PACKAGES` among a class's bases or theirs, through the snippet's
/// own classes (added to `own`) and through whatever a base expression is made of (`*bases`,
/// `typing.cast(type, C)`, `next(iter([C]))`, `(A,) + (C,)`, `bases[:]`): the text of a
/// native-array class anywhere in it counts. A base expression the analyzer cannot read at
/// all (a parameter) may be one too.
fn native_base(
    e: &mut Engine,
    heads: &[NodeId],
    own: &mut Vec<NodeId>,
    depth: usize,
) -> Option<String> {
    let mut found = None;
    for &head in heads {
        let head = match e.ir.kind(head) {
            Kind::Arg { value, .. } => value,
            _ => head,
        };
        if let Some(name) = mentioned_native(e, head, own, depth) {
            found.get_or_insert(name);
        }
    }
    found
}

/// The native-array class an expression names or is made from, if any (see `native_base`).
fn mentioned_native(
    e: &mut Engine,
    expr: NodeId,
    own: &mut Vec<NodeId>,
    depth: usize,
) -> Option<String> {
    if depth >= MAX_ANCESTRY {
        return Some("a class nested too deep to follow".to_owned());
    }
    let expr = e.ir.unparen(expr);
    // Every part is followed, even past a native class found: the snippet's own classes
    // beside it (`(Init, BSpline)[:]`) are what the ancestry rules judge.
    let mut found = e
        .names_of(expr)
        .into_iter()
        .find(|n| NATIVE_ARRAY_PACKAGES.iter().any(|p| n.starts_with(p)))
        .map(|name| format!("`{name}`"));
    for m in e.resolve(expr, 0).to_vec() {
        if let Value::Local(class) = m.value
            && let Kind::Class { heads, .. } = e.ir.kind(class)
            && !own.contains(&class)
        {
            own.push(class);
            if let Some(name) = native_base(e, e.ir.list(heads), own, depth + 1) {
                found.get_or_insert(name);
            }
        }
    }
    let parts = match e.ir.kind(expr) {
        Kind::Call { args, .. } | Kind::Collection { items: args, .. } => {
            let mut parts = None;
            for item in e.ir.list(args).to_vec() {
                let item = match e.ir.kind(item) {
                    Kind::Arg { value, .. } | Kind::Pair { value, .. } => value,
                    _ => item,
                };
                if let Some(name) = mentioned_native(e, item, own, depth + 1) {
                    parts.get_or_insert(name);
                }
            }
            parts
        }
        Kind::Spread(inner) | Kind::Index { object: inner, .. } => {
            mentioned_native(e, inner, own, depth + 1)
        }
        Kind::Binary { left, right, .. }
        | Kind::Cond {
            then: left,
            other: right,
            ..
        } => {
            let left = mentioned_native(e, left, own, depth + 1);
            let right = mentioned_native(e, right, own, depth + 1);
            left.or(right)
        }
        Kind::Comprehension { .. } => Some("a base made by a comprehension".to_owned()),
        Kind::Name(sym) => {
            let mut seen = None;
            let assigned = e.every_assigned_value(sym, expr, |e, value| {
                if let Some(name) = mentioned_native(e, value, own, depth + 1) {
                    seen.get_or_insert(name);
                }
                true
            });
            if assigned {
                seen
            } else if e.resolve(expr, 0).is_empty() {
                Some(format!("`{}`, which the analyzer cannot read", e.name(sym)))
            } else {
                None // a builtin, a library's name or the snippet's own class: judged above
            }
        }
        _ => None,
    };
    found.or(parts)
}

/// A base of a class deriving from a native-array class that is another library's class (not
/// the snippet's own, not a plain base such as `object`): its constructor builds the instance
/// instead (`class Quick(pd.Series, BSpline)` takes `t`, `c`, `k` from a Series' data).
fn report_foreign_bases(e: &mut Engine, class: NodeId, heads: &[NodeId], base: &str) {
    for &head in heads {
        let value = match e.ir.kind(head) {
            Kind::Arg {
                name: None, value, ..
            } => value,
            Kind::Arg { .. } => continue,
            _ => head,
        };
        let names = e.names_of(value);
        let foreign = names.iter().any(|n| {
            !NATIVE_ARRAY_PACKAGES.iter().any(|p| n.starts_with(p))
                && !e.dialect.tables().plain_bases.contains(&n.as_str())
        });
        if foreign {
            e.dynamic(
                class,
                DynamicKind::Introspection,
                format!(
                    "a subclass of {base} also derives from `{}`, whose constructor may build \
                     it: use the class itself, held in a class of your own",
                    names[0]
                ),
            );
        }
    }
}

/// A class deriving from `base`: every class of the snippet's own in its ancestry may define
/// no private or special names and no public one but as a plain method (see
/// `report_shadowing_name`), nor be made by a decorator or a keyword (`@dataclass` writes an
/// `__init__`, a metaclass anything), nor derive from another library's class.
fn report_own_ancestry(e: &mut Engine, class: NodeId, own: &[NodeId], base: &str) {
    for &ancestor in own {
        let Kind::Class { body, heads, .. } = e.ir.kind(ancestor) else {
            continue;
        };
        for &statement in e.ir.list(body).to_vec().iter() {
            let plain_method = matches!(e.ir.kind(statement),
                Kind::Function { decorators, .. } if e.ir.list(decorators).is_empty());
            for name in defined_names(e, statement) {
                if let Kind::Bind(sym) | Kind::Name(sym) = e.ir.kind(name) {
                    let text = e.name(sym);
                    if text.starts_with('_') {
                        report_replaced_check(e, name, base, text);
                    } else if !plain_method {
                        report_shadowing_name(e, name, base, text);
                    }
                }
            }
        }
        let made =
            e.ir.list(heads)
                .iter()
                .any(|&head| !matches!(e.ir.kind(head), Kind::Arg { name: None, .. }));
        if made {
            e.dynamic(
                class,
                DynamicKind::Introspection,
                format!(
                    "a subclass of {base} is made by a decorator or a keyword, which may \
                     replace how its instances are made: use the class itself, held in a \
                     class of your own"
                ),
            );
        }
        report_foreign_bases(e, class, e.ir.list(heads), base);
    }
}

/// `name`, a public name a subclass of `base` binds to anything but a plain method (a
/// property, a class attribute): found on the class before the instance's own attributes,
/// it answers for the arrays the native code reads (`data`, `triangles`).
fn report_shadowing_name(e: &mut Engine, id: NodeId, base: &str, name: &str) {
    e.dynamic(
        id,
        DynamicKind::Introspection,
        format!(
            "a subclass of {base} defines `{name}` other than as a plain method: it may answer              for the arrays its native code reads; add plain methods only, or hold the class              in a class of your own"
        ),
    );
}

/// `name`, defined by a subclass of `base`: a private or special one replaces how instances
/// are made or checked.
fn report_replaced_check(e: &mut Engine, id: NodeId, base: &str, name: &str) {
    if name.starts_with('_') && !matches!(name, "__repr__" | "__str__" | "__doc__" | "__module__") {
        e.dynamic(
            id,
            DynamicKind::Introspection,
            format!(
                "a subclass of {base} replaces `{name}`: its native code trusts the arrays \
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
