//! Keyword names from data. A `**mapping` argument sets the parameters its keys name: keys
//! the analyzer cannot read may set any parameter a rule judges by name (`refcheck=`,
//! `memory=`, `input=`), and a library that keeps extra keywords as attributes (scipy's
//! `Rbf`, pandas' window indexers) then holds whatever name the data says,
//! `__array_interface__` among them (a memory address to numpy).
//!
//! scikit-learn's parameter grids are the same: each key names a parameter the search sets.
//!
//! Readable keys: a dict display's keys that fold to plain names, `dict(a=...)`, a
//! `**kwargs` parameter of a function whose calls are all seen (its keys are the keyword names
//! its callers wrote, and each of their `**` arguments is judged here in turn; a method's or a
//! function's handed on may be given any), or a name bound only to those, never given a key
//! afterwards and never handed on (an alias, a function or a container could change it where
//! no store names it).

use crate::analysis::engine::Engine;
use crate::analysis::facts::DynamicKind;
use crate::analysis::ir::{CollectionKind, Kind, NodeId, Splat, Sym};

/// How deep a mapping built from other mappings is followed.
const MAX_DEPTH: usize = 4;

/// scikit-learn's searches and grids: each key of a parameter grid is a keyword the search
/// sets on the estimator (`vect__input`, `memory`), by position and keyword.
const PARAMETER_GRIDS: &[(&str, usize, &str)] = &[
    ("GridSearchCV", 1, "param_grid"),
    ("HalvingGridSearchCV", 1, "param_grid"),
    ("RandomizedSearchCV", 1, "param_distributions"),
    ("HalvingRandomSearchCV", 1, "param_distributions"),
    ("ParameterGrid", 0, "param_grid"),
    ("ParameterSampler", 0, "param_distributions"),
];

pub fn report(e: &mut Engine, call: NodeId) {
    let Kind::Call { callee, args, .. } = e.ir.kind(call) else {
        return;
    };
    report_grid(e, call, callee);
    for &arg in e.ir.list(args) {
        if let Kind::Arg {
            splat: Splat::Keywords,
            value,
            ..
        } = e.ir.kind(arg)
            && !readable(e, value, 0)
        {
            e.dynamic(
                value,
                DynamicKind::UntrackedValue,
                "a `**` mapping whose keys the analyzer cannot read: keyword names from data \
                 may set any parameter, or an attribute of any name; write the keywords out",
            );
        }
    }
}

fn report_grid(e: &mut Engine, call: NodeId, callee: NodeId) {
    let names = e.names_of(callee);
    let Some(&(_, at, keyword)) = PARAMETER_GRIDS.iter().find(|(class, ..)| {
        names
            .iter()
            .any(|n| n.starts_with("sklearn.") && n.rsplit('.').next() == Some(class))
    }) else {
        return;
    };
    let Some(grid) = e.arg(call, at, keyword) else {
        return;
    };
    if e.splatted(call) || !readable_grid(e, grid, 0) {
        e.dynamic(
            grid,
            DynamicKind::UntrackedValue,
            "a parameter grid whose keys the analyzer cannot read: each key is a parameter the \
             search sets on its estimator; write the grid's keys out",
        );
    }
}

/// A grid, or a list of grids (written out, or a name bound only to one and never added to).
fn readable_grid(e: &mut Engine, grid: NodeId, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let ir = e.ir;
    let grid = ir.unparen(grid);
    match ir.kind(grid) {
        Kind::Collection {
            kind: CollectionKind::List | CollectionKind::Tuple,
            items,
        } => ir
            .list(items)
            .iter()
            .all(|&g| readable_grid(e, g, depth + 1)),
        Kind::Name(sym) => {
            !keys_added(e, sym)
                && e.every_assigned_value(sym, grid, |e, value| readable_grid(e, value, depth + 1))
        }
        _ => readable(e, grid, depth + 1),
    }
}

fn readable(e: &mut Engine, mapping: NodeId, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let ir = e.ir;
    let mapping = ir.unparen(mapping);
    match ir.kind(mapping) {
        Kind::Collection {
            kind: CollectionKind::Map,
            items,
        } => ir.list(items).iter().all(|&item| match ir.kind(item) {
            Kind::Pair { key, .. } => e.fold(key, 0).is_some_and(|k| is_plain_name(&k)),
            Kind::Spread(inner) => readable(e, inner, depth + 1),
            _ => false,
        }),
        Kind::Call { callee, args, .. } if e.names_of(callee) == ["dict"] => {
            ir.list(args).iter().all(|&arg| match ir.kind(arg) {
                Kind::Arg {
                    name: Some(_),
                    splat: Splat::None,
                    ..
                } => true,
                Kind::Arg { value, .. } => readable(e, value, depth + 1),
                _ => false,
            })
        }
        Kind::Name(sym) => {
            !keys_added(e, sym)
                && !e.mapping_handed_on(sym, mapping)
                && e.every_bind(sym, mapping, |e, bind| {
                    let Some(parent) = e.ir.parent(bind) else {
                        return false;
                    };
                    match e.ir.kind(parent) {
                        Kind::Param { .. } => e.keyword_parameter_calls(parent).is_some(),
                        Kind::Assign { targets, value } if e.ir.list(targets).contains(&bind) => {
                            readable(e, value, depth + 1)
                        }
                        _ => false,
                    }
                })
        }
        _ => false,
    }
}

/// A key a keyword argument could have: an identifier, not a special (`__x__`) one.
fn is_plain_name(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !key.starts_with("__")
}

/// Whether a mapping (or a list of them) named `sym` may get keys after it is bound: an item
/// stored under a key that does not fold to a plain name, or a method that adds keys or items
/// from elsewhere.
fn keys_added(e: &mut Engine, sym: Sym) -> bool {
    let ir = e.ir;
    let is_it =
        |e: &Engine, id: NodeId| matches!(e.ir.kind(e.ir.unparen(id)), Kind::Name(s) if s == sym);
    (0..ir.nodes.len() as NodeId).any(|id| {
        match ir.kind(id) {
        Kind::Index { object, key } if is_it(e, object) => {
            ir.parent(id).is_some_and(|p| {
                matches!(ir.kind(p), Kind::Assign { targets, .. } if ir.list(targets).contains(&id))
            }) && !e.fold(key, 0).is_some_and(|k| is_plain_name(&k))
        }
        Kind::Attr { object, name } if is_it(e, object) => {
            matches!(
                e.name(name),
                "update" | "setdefault" | "__setitem__" | "__ior__" | "append" | "extend" | "insert"
            )
        }
        Kind::AugAssign { target, .. } => is_it(e, target),
        _ => false,
    }
    })
}
