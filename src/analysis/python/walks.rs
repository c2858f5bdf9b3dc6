//! `os.walk` and `Path.walk` descend into the directories named in the `dirs` list they hand
//! out (to a loop, or to `next(walker)`) once the caller has had it: the list is theirs to
//! read back ("modify it in place to prune the walk"). Pruning it keeps the walk below its
//! top; anything else put there, or the list handed on to code that may, is a directory the
//! walk enters (`dirs[:] = [".."]` walks `/`), a path nobody can prove.

use crate::analysis::engine::Engine;
use crate::analysis::facts::FactKind;
use crate::analysis::ir::{Kind, NodeId, Sym};

/// Methods of a list that only remove, reorder or read its items.
const PRUNING: &[&str] = &[
    "remove", "clear", "sort", "reverse", "pop", "index", "count", "copy",
];

/// Functions that only read the list they are given.
const READERS: &[&str] = &[
    "sorted",
    "len",
    "print",
    "list",
    "set",
    "tuple",
    "enumerate",
    "any",
    "all",
    "min",
    "max",
];

pub fn report(e: &mut Engine, id: NodeId) {
    // `for top, dirs, files in os.walk(...)`, `top, dirs, files = next(walker)`
    let (target, walk) = match e.ir.kind(id) {
        Kind::For { target, iter, .. } => (target, iter),
        Kind::Assign { targets, value } => match (e.ir.list(targets), next_of(e, value)) {
            (&[target], Some(walk)) => (target, walk),
            _ => return,
        },
        _ => return,
    };
    if !is_walk(e, walk, 0) {
        return;
    }
    let Kind::TuplePattern { items } = e.ir.kind(target) else {
        return;
    };
    let Some(&dirs) = e.ir.list(items).get(1) else {
        return;
    };
    let Kind::Bind(sym) = e.ir.kind(dirs) else {
        return;
    };
    let uses: Vec<NodeId> = (0..e.ir.nodes.len() as NodeId)
        .filter(|&n| matches!(e.ir.kind(n), Kind::Name(s) if s == sym))
        .filter(|&n| uses_binding(e, n, sym, dirs))
        .collect();
    let steered = uses.into_iter().find(|&n| !only_prunes(e, n, sym));
    if let Some(at) = steered {
        e.push(
            at,
            FactKind::Path {
                function: "os.walk".to_owned(),
                path: None,
            },
        );
    }
}

/// `x` of `next(x)`.
fn next_of(e: &mut Engine, value: NodeId) -> Option<NodeId> {
    let Kind::Call { callee, .. } = e.ir.kind(e.ir.unparen(value)) else {
        return None;
    };
    let names = e.names_of(callee);
    (names == ["next"]).then(|| e.positional_args(value).first().copied())?
}

/// `os.walk(...)` or `path.walk(...)`, or a name bound to one (`walker = os.walk(".")`).
fn is_walk(e: &mut Engine, iter: NodeId, depth: usize) -> bool {
    let iter = e.ir.unparen(iter);
    if let Kind::Name(sym) = e.ir.kind(iter) {
        return depth < 4
            && e.every_bind(sym, iter, |e, bind| {
                let value = e.ir.parent(bind).and_then(|p| match e.ir.kind(p) {
                    Kind::Assign { value, .. } => Some(value),
                    _ => None,
                });
                value.is_some_and(|v| is_walk(e, v, depth + 1))
            });
    }
    let Kind::Call { callee, .. } = e.ir.kind(iter) else {
        return false;
    };
    let names = e.names_of(callee);
    if names.iter().any(|n| n == "os.walk" || n.ends_with(".walk")) {
        return true;
    }
    matches!(e.ir.kind(callee), Kind::Attr { name, .. } if e.name(name) == "walk")
}

/// True when the name used at `n` is the loop's binding.
fn uses_binding(e: &Engine, n: NodeId, sym: Sym, bind: NodeId) -> bool {
    let declaring = e.dialect.declaring();
    let Some(scope) = e.scopes.bind_scope(bind) else {
        return false;
    };
    e.scopes
        .lookup(sym, e.scopes.scope_of(n), declaring)
        .scopes
        .contains(&scope)
}

/// True when this use of the list only reads it or prunes it.
fn only_prunes(e: &mut Engine, n: NodeId, sym: Sym) -> bool {
    let Some((parent, child)) = e.ir.context(n) else {
        return true;
    };
    match e.ir.kind(parent) {
        // `dirs[:] = [d for d in dirs if ...]`: only what the walk gave.
        Kind::Index { object, .. } if object == child => {
            let Some((store, _)) = e.ir.context(parent) else {
                return true;
            };
            match e.ir.kind(store) {
                Kind::Assign { targets, value } if e.ir.list(targets).contains(&parent) => {
                    filters_itself(e, value, sym)
                }
                Kind::AugAssign { target, .. } if target == parent => false,
                Kind::Delete { .. } => true,
                _ => true, // read
            }
        }
        Kind::Attr { object, name } if object == child => {
            let method = e.name(name);
            PRUNING.contains(&method) || !is_called(e, parent)
        }
        Kind::AugAssign { target, .. } if target == child => false,
        Kind::Arg { .. } => {
            e.ir.parent(parent)
                .is_some_and(|call| match e.ir.kind(call) {
                    Kind::Call { callee, .. } => {
                        let names = e.names_of(callee);
                        !names.is_empty() && names.iter().all(|n| READERS.contains(&n.as_str()))
                    }
                    _ => false,
                })
        }
        // iteration, `in`, comparisons, an f-string field
        Kind::For { iter, .. } | Kind::CompFor { iter, .. } => iter == child,
        Kind::Binary { .. } | Kind::Compared | Kind::Interp { .. } => true,
        // bound to another name, returned, stored: changed where this rule cannot see
        _ => false,
    }
}

fn is_called(e: &Engine, id: NodeId) -> bool {
    e.ir.context(id)
        .is_some_and(|(p, c)| matches!(e.ir.kind(p), Kind::Call { callee, .. } if callee == c))
}

/// `[d for d in dirs if ...]`, `list(filter(f, dirs))`, `sorted(dirs)`: items of the list itself.
fn filters_itself(e: &mut Engine, value: NodeId, sym: Sym) -> bool {
    let value = e.ir.unparen(value);
    match e.ir.kind(value) {
        // One loop over the list itself, giving back its own items (filters allowed).
        Kind::Comprehension { clauses } => {
            let loops: Vec<(NodeId, NodeId)> =
                e.ir.list(clauses)
                    .iter()
                    .filter_map(|&c| match e.ir.kind(c) {
                        Kind::CompFor { target, iter } => Some((target, iter)),
                        _ => None,
                    })
                    .collect();
            let [(target, iter)] = loops[..] else {
                return false;
            };
            let over_itself = matches!(e.ir.kind(e.ir.unparen(iter)), Kind::Name(s) if s == sym);
            let Kind::Bind(item) = e.ir.kind(target) else {
                return false;
            };
            let gives_item = (0..e.ir.nodes.len() as NodeId).any(|n| {
                e.ir.parent(n) == Some(value) && matches!(e.ir.kind(n), Kind::Name(s) if s == item)
            });
            over_itself && gives_item
        }
        Kind::Call { callee, .. } => {
            let names = e.names_of(callee);
            names.iter().any(|n| n == "sorted" || n == "list")
                && e.positional_args(value)
                    .iter()
                    .all(|&a| matches!(e.ir.kind(e.ir.unparen(a)), Kind::Name(s) if s == sym))
        }
        Kind::Collection { items, .. } => e.ir.list(items).is_empty(),
        _ => false,
    }
}
