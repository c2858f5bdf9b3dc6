//! Values the analysis cannot follow. A module, a namespace, the global object, or a
//! function the policy checks call by call (a loader, `getattr`, a file opener, a code
//! runner) is followed where it is used directly: called, read an attribute of, bound to a
//! name. Passed as an argument, returned, yielded, raised, stored in a container or an
//! object, matched, used as a `with` scope: from there on the analyzer cannot say what is done
//! with it, and a strict policy denies what it cannot follow.

use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::{Meaning, Value};
use crate::analysis::engine::scopes::{MODULE_SCOPE, ScopeKind};
use crate::analysis::facts::DynamicKind;
use crate::analysis::ir::{BinOp, CollectionKind, Kind, NodeId};

pub fn report(e: &mut Engine, id: NodeId) {
    if !matches!(
        e.ir.kind(id),
        Kind::Name(_) | Kind::This | Kind::Attr { .. } | Kind::Index { .. } | Kind::Call { .. }
    ) {
        return;
    }
    let meanings = e.resolve(id, 0).to_vec();
    let always_true = !meanings.is_empty()
        && meanings
            .iter()
            .all(|m| !m.held && matches!(m.value, Value::Global | Value::Module(_)));
    let Some(how) = escape(e, id, always_true) else {
        return;
    };
    let Some(tracked) = meanings.iter().copied().find(|m| is_tracked(e, *m)) else {
        return;
    };
    if tracked.value == Value::Global && is_forwarded_this(e, id) || is_a_base_module(e, id) {
        return;
    }
    let shown = e
        .shown(tracked.value)
        .unwrap_or_else(|| "a function".to_owned());
    let shown = if tracked.held {
        format!("a container holding `{shown}`")
    } else {
        format!("`{shown}`")
    };
    e.dynamic(
        id,
        DynamicKind::UntrackedValue,
        format!("{shown} is {how}, where the analyzer cannot follow it"),
    );
}

/// `class Counter extends EventEmitter`, where the name is Node's `events` module: a base
/// the dialect's `base_modules` names, and nothing else `id` may be.
fn is_a_base_module(e: &mut Engine, id: NodeId) -> bool {
    let in_heads = e.ir.parent(id).is_some_and(|arg| {
        matches!(e.ir.kind(arg), Kind::Arg { value, .. } if value == id)
            && e.ir
                .parent(arg)
                .is_some_and(|c| matches!(e.ir.kind(c), Kind::Class { .. }))
    });
    let bases = e.dialect.tables().base_modules;
    let meanings = e.resolve(id, 0);
    in_heads
        && !meanings.is_empty()
        && meanings.iter().all(|m| {
            !m.held && matches!(m.value, Value::Module(p) if bases.contains(&e.paths.text(p)))
        })
}

/// True when the value of `id` goes where the analysis does not follow it.
pub fn escapes(e: &Engine, id: NodeId) -> bool {
    escape(e, id, false).is_some()
}

/// How the value of `id` escapes, if it does. A value that is `always_true` (the global
/// object, a module) is only tested on the left of `&&`, never its value.
fn escape(e: &Engine, id: NodeId, always_true: bool) -> Option<&'static str> {
    let ir = e.ir;
    let mut child = id;
    loop {
        let parent = ir.parent(child)?;
        let next = match ir.kind(parent) {
            Kind::Attr { object, .. } | Kind::Index { object, .. } if object == child => {
                return None;
            }
            Kind::Index { .. } => return Some("used as a key"),
            Kind::Call { callee, .. } if callee == child => return None,
            Kind::Arg { .. } => return Some("passed as an argument"),
            Kind::Paren(_) | Kind::Walrus { .. } => parent,
            Kind::Cond { test, .. } => {
                if test == child {
                    return None;
                }
                parent
            }
            // Python hands both operands of a comparison to the other's special methods
            // (`evil == os` calls `evil.__eq__(os)`, `os in evil` its `__contains__`); a
            // constant or a builtin has none of the snippet's.
            Kind::Binary {
                op: BinOp::Compare,
                left,
                right,
            } if !e.dialect.operators_give_numbers() => {
                let other = if left == child { right } else { left };
                // `x is os` compares identities and calls nothing.
                let identity = e
                    .source
                    .get(ir.span(left).1..ir.span(right).0)
                    .is_some_and(|op| op.trim_start().starts_with("is"));
                if identity || compares_without_code(e, other) {
                    return None;
                }
                return Some("compared with an object whose comparison may be the snippet's");
            }
            Kind::Compared if !e.dialect.operators_give_numbers() => {
                return Some("compared with an object whose comparison may be the snippet's");
            }
            Kind::Binary { op, left, right } => {
                if op != BinOp::Logical || (always_true && left == child && e.is_and(left, right)) {
                    return None;
                }
                parent
            }
            Kind::Seq { items } => {
                if ir.list(items).last() != Some(&child) {
                    return None;
                }
                parent
            }
            Kind::Assign { targets, value } if value == child => {
                if ir.list(targets).iter().any(|&t| read_before_bound(e, t)) {
                    return Some("stored in a name code of an earlier call reads");
                }
                if !ir.list(targets).iter().all(|&t| followed_target(e, t)) {
                    return Some("stored where the analyzer does not follow it");
                }
                // A JavaScript assignment is an expression too: where does its value go?
                match ir.parent(parent).map(|p| ir.kind(p)) {
                    Some(Kind::ExprStatement | Kind::Module | Kind::Other | Kind::Annotation)
                    | None => {
                        return None;
                    }
                    _ => parent,
                }
            }
            Kind::Decl { target, .. } => {
                if read_before_bound(e, target) {
                    return Some("stored in a name code of an earlier call reads");
                }
                return (!followed_target(e, target))
                    .then_some("stored where the analyzer does not follow it");
            }
            Kind::DefaultTarget { default, .. } if default == child => return None,
            Kind::Collection { kind, .. } => {
                if unpacked_at_once(e, parent, kind) {
                    return None;
                }
                return Some("stored in a container");
            }
            Kind::Pair { value, .. } => {
                if value != child {
                    return Some("used as a key");
                }
                return Some("stored in a container");
            }
            Kind::Spread(_) => return Some("spread into a container"),
            Kind::Interp { .. } if is_tagged_substitution(e, parent) => {
                return Some("passed to a template tag");
            }
            Kind::Return(_) => return Some("returned"),
            Kind::Yield => return Some("yielded"),
            Kind::Raise => return Some("raised"),
            Kind::WithItem { .. } => return Some("used as a context manager"),
            Kind::Opaque => return Some("matched against patterns"),
            Kind::With => return Some("put on the scope chain by `with`"),
            Kind::AugAssign { .. } => return Some("combined into another value"),
            Kind::Class { .. } => return Some("used as a base class"),
            Kind::Function { decorators, .. } if ir.list(decorators).contains(&child) => {
                return None;
            }
            Kind::Other | Kind::Annotation | Kind::Function { .. } => {
                return Some("used where the analyzer does not follow it");
            }
            _ => return None,
        };
        child = next;
    }
}

/// A substitution of a tagged template (`` tag`${x}` ``): the tag is called with its value.
/// The template is lowered as the call's one argument; a template the source passes in
/// parentheses (`` f(`${x}`) ``) is an ordinary string argument instead.
fn is_tagged_substitution(e: &Engine, interp: NodeId) -> bool {
    let ir = e.ir;
    let Some(template) = ir.parent(interp) else {
        return false;
    };
    let Some(arg) = ir.parent(template) else {
        return false;
    };
    let Some(call) = ir.parent(arg) else {
        return false;
    };
    let (Kind::Template { .. }, Kind::Arg { .. }, Kind::Call { callee, .. }) =
        (ir.kind(template), ir.kind(arg), ir.kind(call))
    else {
        return false;
    };
    let (start, _) = ir.span(template);
    let between = e.source.get(ir.span(callee).1..start).unwrap_or_default();
    e.source[start..].starts_with('`') && between.trim() != "("
}

/// `fn.apply(this, args)`, `fn.call(this, ...)`, `fn.bind(this)` where `fn` is the snippet's
/// own function (a parameter or a local, as in wrappers such as `memoize` and `debounce`): the
/// `this` of a sloppy function (which may be the global object) handed on as the `this` of
/// another gives that one nothing its own `this` would not. Handed to a function the
/// analysis knows by name instead (`Object.prototype.valueOf.call(this)`,
/// `[].sort.call(this)`), it may come back as the result: builtins that return their `this`
/// turn the global object into a value, which is not followed.
fn forwards_this(e: &mut Engine, _value: NodeId, arg: NodeId) -> bool {
    let Some(call) = e.ir.parent(arg) else {
        return false;
    };
    let Kind::Call { callee, args, .. } = e.ir.kind(call) else {
        return false;
    };
    let Kind::Attr { object, name } = e.ir.kind(callee) else {
        return false;
    };
    e.ir.list(args).first() == Some(&arg)
        && matches!(e.name(name), "call" | "apply" | "bind")
        && matches!(e.ir.kind(object), Kind::Name(_))
        && e.resolve(object, 0).is_empty()
}

/// True when `id` (the global object, as a sloppy `this`) is handed on as another call's
/// `this`.
pub fn is_forwarded_this(e: &mut Engine, id: NodeId) -> bool {
    match e.ir.context(id) {
        Some((arg, child)) if matches!(e.ir.kind(arg), Kind::Arg { .. }) => {
            forwards_this(e, child, arg)
        }
        _ => false,
    }
}

/// A binding target whose binding the analysis follows: a name (not a class attribute), or
/// an object pattern taking constant keys.
fn followed_target(e: &Engine, target: NodeId) -> bool {
    let ir = e.ir;
    match ir.kind(target) {
        Kind::Bind(_) => {
            !read_before_bound(e, target)
                && e.scopes
                    .bind_scope(target)
                    .is_some_and(|s| e.scopes.kind(s) != ScopeKind::Class)
        }
        Kind::ObjectPattern { entries } => ir.list(entries).iter().all(|&entry| {
            matches!(ir.kind(entry), Kind::PatternEntry { key, target }
                if ir.str_value(key).is_some() && followed_target(e, target))
        }),
        Kind::DefaultTarget { target, .. } => followed_target(e, target),
        _ => false,
    }
}

/// A module-level name code of an earlier call of the session reads, with no binding it could
/// see when it was judged (see `Carried`): what is stored there is used out of sight.
fn read_before_bound(e: &Engine, target: NodeId) -> bool {
    matches!(e.ir.kind(target), Kind::Bind(sym)
        if e.context().is_read_before_bound(e.name(sym))
            && e.scopes.bind_scope(target) == Some(MODULE_SCOPE))
}

/// `a, b = os, sys`: a tuple unpacked into as many names at once is followed item by item.
fn unpacked_at_once(e: &Engine, collection: NodeId, kind: CollectionKind) -> bool {
    let ir = e.ir;
    if !matches!(kind, CollectionKind::List | CollectionKind::Tuple) {
        return false;
    }
    let Kind::Collection { items, .. } = ir.kind(collection) else {
        return false;
    };
    let mut outer = collection;
    while let Some(p) = ir
        .parent(outer)
        .filter(|p| matches!(ir.kind(*p), Kind::Paren(_)))
    {
        outer = p;
    }
    let Some(parent) = ir.parent(outer) else {
        return false;
    };
    let (targets, value) = match ir.kind(parent) {
        Kind::Assign { targets, value } => (ir.list(targets).to_vec(), value),
        Kind::Decl {
            target,
            value: Some(v),
            ..
        } => (vec![target], v),
        _ => return false,
    };
    value == outer
        && targets.iter().all(|&t| match ir.kind(t) {
            Kind::TuplePattern { items: names } => {
                ir.list(names).len() == ir.list(items).len()
                    && ir.list(names).iter().all(|&n| followed_target(e, n))
            }
            _ => false,
        })
}

/// A meaning worth following: a module, namespace or the global object, or a function the
/// policy checks call by call.
pub fn is_tracked(e: &Engine, m: Meaning) -> bool {
    match m.value {
        Value::Module(_)
        | Value::Namespace(_)
        | Value::Lookup(_)
        | Value::Global
        | Value::Descriptor(_)
        | Value::Descriptors(_)
        | Value::TooMany => true,
        Value::Name(p) => {
            let name = e.paths.text(p);
            let tables = e.dialect.tables();
            e.dialect.call_kind(name).is_some()
                || tables.eval.contains(&name)
                || tables.runners.iter().any(|r| r.name == name)
                || tables
                    .file_loaders
                    .iter()
                    .any(|n| crate::analysis::is_under(name, n))
                || e.dialect.path_function(name).is_some()
                || e.dialect.is_tracked_name(name)
        }
        // `operator.attrgetter("score")` handed to `sorted` reads a public attribute; one
        // that reaches a private or special member, or a method that runs text (pandas'
        // `eval`, `query`), is followed no further than where it is made.
        Value::AttrGetter(p) | Value::MethodCaller(p) => e
            .paths
            .text(p)
            .split('.')
            .any(|part| part.starts_with('_') || RUNS_TEXT.contains(&part)),
        Value::Local(_) => false,
    }
}

/// True for an operand whose comparison methods are built in: a literal, `None`, or a name
/// nothing in the snippet binds to its own objects (a builtin, a module's member).
fn compares_without_code(e: &Engine, id: NodeId) -> bool {
    match e.ir.kind(e.ir.unparen(id)) {
        Kind::Str { .. } | Kind::Int(_) | Kind::Float | Kind::Const(_) | Kind::Template { .. } => {
            true
        }
        Kind::Collection { items, .. } => {
            e.ir.list(items)
                .iter()
                .all(|&item| compares_without_code(e, item))
        }
        _ => false,
    }
}

/// Methods that run the text they are given on many objects (pandas' frames and series).
pub const RUNS_TEXT: [&str; 2] = ["eval", "query"];
