//! `os.walk` and `Path.walk` descend into the directories named in the `dirs` list they hand
//! out (to a loop, or to `next(walker)`) once the caller has had it: the list is theirs to
//! read back ("modify it in place to prune the walk"). Pruning it keeps the walk below its
//! top; anything else put there is a directory the walk enters (`dirs[:] = [".."]` walks
//! `/`), a path nobody can prove.
//!
//! So a walk's items must stay where this rule sees them: unpacked by a loop or `next` into a
//! `dirs` name that is only read or pruned. A walk handed to anything else (`zip`, `enumerate`,
//! `islice`, `map`, a function, a container, a loop taking whole tuples) may have its lists
//! changed while it runs, and is judged as steered. Only `list`, `tuple` and `sorted` take
//! every item before anyone sees one. A walk bound to a module-level name outlives the call
//! (a session's next call may steer it): the name is carried, and its uses there judged alike.

use crate::analysis::engine::Engine;
use crate::analysis::engine::scopes::MODULE_SCOPE;
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

/// Functions that only show a whole `(top, dirs, files)` item (none hands its lists on).
const ITEM_READERS: &[&str] = &["print", "len", "repr", "str"];

/// Functions that take every item of a walk before handing any out.
const EXHAUSTING: &[&str] = &["list", "tuple", "sorted"];

/// How many names a walk may pass through (`a = os.walk(...)`, `b = a`) before it counts as
/// lost.
const MAX_ALIASES: usize = 4;

/// Judges a walk made here (`os.walk(...)`, `path.walk()`) by where its items go.
pub fn report_call(e: &mut Engine, call: NodeId) {
    if is_walk_call(e, call) {
        judge_walk(e, call, 0);
    }
}

/// Judges a use of a name an earlier call of the session bound to a walk.
pub fn report_carried_name(e: &mut Engine, id: NodeId) {
    let Kind::Name(sym) = e.ir.kind(id) else {
        return;
    };
    if e.is_carried_walker(sym, id) {
        judge_walk(e, id, 0);
    }
}

/// `os.walk(...)`, `os.fwalk(...)`, or a `.walk()` method of something that may be a path.
fn is_walk_call(e: &mut Engine, call: NodeId) -> bool {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return false;
    };
    let names = e.names_of(callee);
    if names
        .iter()
        .any(|n| n == "os.walk" || n == "os.fwalk" || n.ends_with("Path.walk"))
    {
        return true;
    }
    // A method of an object the analyzer does not know may be a path's.
    matches!(e.ir.kind(callee), Kind::Attr { name, .. } if e.name(name) == "walk")
        && names.iter().all(|n| n.ends_with(".walk"))
        && !names.iter().any(|n| n == "ast.walk")
}

/// Judges where the walk `value` gives its items.
fn judge_walk(e: &mut Engine, value: NodeId, depth: usize) {
    if let Some(at) = steered_at(e, value, depth) {
        e.push(
            at,
            FactKind::Path {
                function: "os.walk".to_owned(),
                path: None,
            },
        );
    }
}

/// Where the walk `value` may be steered, if anywhere.
fn steered_at(e: &mut Engine, value: NodeId, depth: usize) -> Option<NodeId> {
    let (parent, child) = e.ir.context(value)?;
    match e.ir.kind(parent) {
        Kind::For { target, iter, .. } | Kind::CompFor { target, iter } if iter == child => {
            steered_target(e, target)
        }
        Kind::Arg { name: None, .. } => {
            let call = e.ir.parent(parent)?;
            let Kind::Call { callee, .. } = e.ir.kind(call) else {
                return Some(value);
            };
            let names = e.names_of(callee);
            if !names.is_empty() && names.iter().all(|n| EXHAUSTING.contains(&n.as_str())) {
                return None;
            }
            if names == ["next"] {
                let temporary = matches!(e.ir.kind(e.ir.unparen(value)), Kind::Call { .. });
                return steered_next(e, call, temporary);
            }
            Some(value)
        }
        Kind::Assign { targets, value: v } if v == child => {
            let &[target] = e.ir.list(targets) else {
                return Some(value);
            };
            let Kind::Bind(sym) = e.ir.kind(target) else {
                return Some(value);
            };
            if depth >= MAX_ALIASES {
                return Some(value);
            }
            if e.scopes.bind_scope(target) == Some(MODULE_SCOPE) {
                e.carry_walker(sym);
            }
            uses_of(e, sym, target)
                .into_iter()
                .find_map(|n| steered_at(e, n, depth + 1))
        }
        // an expression statement: nobody takes its items
        Kind::ExprStatement => None,
        _ => Some(value),
    }
}

/// `top, dirs, files = next(walker)`: judged as a loop's target. A walk made in the call
/// (`next(os.walk("."))[1]`) is dropped with it and never resumes: its item may go anywhere.
fn steered_next(e: &mut Engine, call: NodeId, temporary: bool) -> Option<NodeId> {
    if temporary {
        return None;
    }
    let (parent, child) = e.ir.context(call)?;
    match e.ir.kind(parent) {
        Kind::Assign { targets, value } if value == child => match e.ir.list(targets) {
            &[target] => steered_target(e, target),
            _ => Some(call),
        },
        Kind::ExprStatement => None,
        _ => item_use_steers(e, call).then_some(call),
    }
}

/// Where a loop's or `next`'s target for the walk's `(top, dirs, files)` may steer it: its
/// `dirs` name used for anything but reading or pruning, or the whole item's `dirs` reached.
fn steered_target(e: &mut Engine, target: NodeId) -> Option<NodeId> {
    match e.ir.kind(target) {
        Kind::TuplePattern { items } => {
            let Some(&dirs) = e.ir.list(items).get(1) else {
                return Some(target);
            };
            let Kind::Bind(sym) = e.ir.kind(dirs) else {
                return Some(dirs);
            };
            uses_of(e, sym, dirs)
                .into_iter()
                .find(|&n| !only_prunes(e, n, sym))
        }
        Kind::Bind(sym) => uses_of(e, sym, target)
            .into_iter()
            .find(|&n| item_use_steers(e, n)),
        _ => Some(target),
    }
}

/// Whether this use of a whole `(top, dirs, files)` item may reach its `dirs`: anything but
/// reading `top` or `files` by a constant index, or handing the item to a reader.
fn item_use_steers(e: &mut Engine, n: NodeId) -> bool {
    let Some((parent, child)) = e.ir.context(n) else {
        return false;
    };
    match e.ir.kind(parent) {
        Kind::Index { object, key } if object == child => {
            !matches!(e.ir.kind(e.ir.unparen(key)), Kind::Int(0 | 2))
        }
        Kind::Arg { .. } => !given_to(e, parent, ITEM_READERS),
        Kind::Interp { .. } => false,
        _ => true,
    }
}

/// The uses of the name `bind` binds.
fn uses_of(e: &Engine, sym: Sym, bind: NodeId) -> Vec<NodeId> {
    (0..e.ir.nodes.len() as NodeId)
        .filter(|&n| matches!(e.ir.kind(n), Kind::Name(s) if s == sym))
        .filter(|&n| uses_binding(e, n, sym, bind))
        .collect()
}

/// True when the name used at `n` is the binding `bind`'s.
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
        Kind::Arg { .. } => given_to(e, parent, READERS),
        // iteration, `in`, comparisons, an f-string field
        Kind::For { iter, .. } | Kind::CompFor { iter, .. } => iter == child,
        Kind::Binary { .. } | Kind::Compared | Kind::Interp { .. } => true,
        // bound to another name, returned, stored: changed where this rule cannot see
        _ => false,
    }
}

/// Whether the argument `arg` goes to one of `functions`.
fn given_to(e: &mut Engine, arg: NodeId, functions: &[&str]) -> bool {
    e.ir.parent(arg).is_some_and(|call| match e.ir.kind(call) {
        Kind::Call { callee, .. } => {
            let names = e.names_of(callee);
            !names.is_empty() && names.iter().all(|n| functions.contains(&n.as_str()))
        }
        _ => false,
    })
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
