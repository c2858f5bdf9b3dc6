//! What only JavaScript's functions and objects can do: any function's `.constructor` is
//! `Function` (so `x.constructor.constructor('code')` runs code), `arguments.callee` and
//! `.caller` reach other frames, a `Worker` or a timer given a string runs it, destructuring
//! takes names from modules, and allocations take their size from one argument.

use super::tables::{ALLOCATING, CALL_STACK_PROPERTIES, CAPABILITY_GLOBALS, STRING_TIMERS};
use crate::analysis::detect::{Site, report_use};
use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::Value;
use crate::analysis::engine::scopes::ScopeKind;
use crate::analysis::facts::DynamicKind;
use crate::analysis::ir::{FunctionKind, Kind, NodeId};
use crate::analysis::{HUGE_ALLOCATION, NestedCode};

pub fn report(e: &mut Engine, id: NodeId) {
    match e.ir.kind(id) {
        Kind::Attr { object, name } => {
            let name = e.name(name).to_owned();
            report_property(e, id, object, &name);
        }
        Kind::Index { object, key } => {
            if let Some(key) = e.fold_key(key, 0) {
                if e.dialect.tables().introspection_attributes.contains(&&*key) {
                    e.dynamic(id, DynamicKind::Introspection, format!("`.{key}` reached"));
                }
                crate::analysis::detect::report_special(e, id, &key);
                report_property(e, id, object, &key);
            }
        }
        Kind::Call { .. } => {
            report_constructor_call(e, id);
            report_call(e, id);
            report_tainted_call(e, id);
        }
        Kind::ObjectPattern { .. } => {
            report_pattern_keys(e, id);
            report_destructuring(e, id);
        }
        Kind::Name(_) => report_wrapper_arguments(e, id),
        Kind::With => report_with(e, id),
        Kind::Pair { key, .. } => report_prototype_key(e, id, key),
        Kind::Assign { .. } | Kind::For { .. } => report_tainted_store(e, id),
        _ => {}
    }
}

/// `{__proto__: f}`: an object literal's `__proto__` entry sets its prototype, so its keys
/// reach `f`'s members (`constructor` is `Function`), as `o.__proto__ = f` does.
fn report_prototype_key(e: &mut Engine, pair: NodeId, key: NodeId) {
    let in_literal =
        e.ir.parent(pair)
            .is_some_and(|p| matches!(e.ir.kind(p), Kind::Collection { .. }));
    if in_literal
        && matches!(e.ir.kind(key), Kind::Str { name: true, .. })
        && e.ir.str_value(key) == Some("__proto__")
    {
        e.dynamic(
            pair,
            DynamicKind::Introspection,
            "`__proto__:` in an object literal sets the object's prototype",
        );
    }
}

/// `with (object) body`: inside, a free name is whatever member of `object` (or of its
/// prototypes) has that name when it runs, which the analyzer reads as a global: `env` under
/// `with (process)`, `constructor` under `with (Object.getPrototypeOf(f))`, which is
/// `Function`, and `constructor.constructor` even under `with ({})`. So every `with` is a
/// value the analyzer does not follow.
fn report_with(e: &mut Engine, with: NodeId) {
    e.dynamic(
        with,
        DynamicKind::UntrackedValue,
        "`with` makes an object's members free names, which the analyzer reads as globals",
    );
}

/// The module wrapper's `arguments` holds `require` and `module`. Taken apart by constant
/// index (`arguments[1]` is `require`) or counted, the engine follows it; any other use
/// (destructured, spread, iterated, passed, returned, indexed at run time) hands the loader on
/// where it is not seen.
fn report_wrapper_arguments(e: &mut Engine, id: NodeId) {
    if !e.is_wrapper_arguments(id) {
        return;
    }
    let mut node = id;
    while let Some(parent) =
        e.ir.parent(node)
            .filter(|&p| matches!(e.ir.kind(p), Kind::Paren(_)))
    {
        node = parent;
    }
    if let Some(parent) = e.ir.parent(node) {
        match e.ir.kind(parent) {
            Kind::Index { object, key }
                if object == node && e.wrapper_argument(object, key).is_some() =>
            {
                return;
            }
            Kind::Attr { object, name } if object == node && e.name(name) == "length" => return,
            _ => {}
        }
    }
    e.dynamic(
        id,
        DynamicKind::UntrackedValue,
        "the module wrapper's `arguments` (holding `require` and `module`) is used where the \
         analyzer cannot follow it; name `require` directly",
    );
}

/// What reaching `object.property` (or `object['property']`) reveals in itself.
fn report_property(e: &mut Engine, id: NodeId, object: NodeId, property: &str) {
    if CALL_STACK_PROPERTIES.contains(&property) && holds_call_stack(e, object) {
        e.dynamic(
            id,
            DynamicKind::Introspection,
            format!("`.{property}` reached"),
        );
    }
    if property != "constructor" {
        return;
    }
    let object = e.ir.unparen(object);
    if is_constructor_access(e, object) {
        e.dynamic(
            id,
            DynamicKind::Introspection,
            "`.constructor.constructor` reaches `Function`",
        );
        e.dynamic(
            id,
            DynamicKind::CodeEval,
            "`.constructor.constructor` is `Function`",
        );
    } else if matches!(
        e.ir.kind(object),
        Kind::Attr { .. } | Kind::Index { .. } | Kind::Call { .. }
    ) && is_handed_on(e, id)
    {
        // `const F = [].map.constructor`: the constructor of what may be a function, kept to
        // be called later. Compared (`x.constructor === Y`) or read further (`.name`), it is
        // left alone.
        e.dynamic(
            id,
            DynamicKind::CodeEval,
            "the `.constructor` of a function value is `Function`",
        );
    }
}

/// A call of a value taken by a computed key from something that may be a function (see
/// the engine's taint): with the key equal to "constructor", that is `Function(code)`. Handed
/// to a method that may keep it in an object (`m.set(1, t)`, `a.push(t)`,
/// `Object.assign(o, {t})`) that the analysis cannot follow back to the names holding it, it
/// may come back where the taint does not follow.
fn report_tainted_call(e: &mut Engine, call: NodeId) {
    let Kind::Call { callee, args, .. } = e.ir.kind(call) else {
        return;
    };
    if e.may_be_code(callee) {
        e.dynamic(
            call,
            DynamicKind::ComputedMember,
            "calls a value taken by a computed key from something that may be a function",
        );
        return;
    }
    let Some(target) = e.storing_target(call) else {
        return;
    };
    for arg in e.ir.list(args).to_vec() {
        if let Kind::Arg { value, .. } = e.ir.kind(arg)
            && e.taint(value).any()
            && e.keeps_unseen(target)
        {
            e.dynamic(
                arg,
                DynamicKind::ComputedMember,
                "keeps a value taken by a computed key from something that may be a function \
                 where the analyzer does not follow it",
            );
        }
    }
}

/// `o.k = t`: a value that may be code stored in an object the analysis cannot follow back
/// to the names holding it (`this.k = t`, `f().k = t`, `a[0].k = t`, a parameter of a method).
fn report_tainted_store(e: &mut Engine, assign: NodeId) {
    let (targets, value) = match e.ir.kind(assign) {
        Kind::Assign { targets, value } => (e.ir.list(targets).to_vec(), value),
        // `for (o.k of items)` stores each item.
        Kind::For {
            target,
            iter,
            keys: false,
            ..
        } => (vec![target], iter),
        _ => return,
    };
    let leaves: Vec<NodeId> = targets
        .into_iter()
        .flat_map(|t| e.stored_members(t))
        .collect();
    for target in leaves {
        let (Kind::Attr { object, .. } | Kind::Index { object, .. }) = e.ir.kind(target) else {
            continue;
        };
        if e.stored_taint(object, value).any() && e.keeps_unseen(object) {
            e.dynamic(
                target,
                DynamicKind::ComputedMember,
                "stores a value taken by a computed key from something that may be a function \
                 in an object the analyzer does not follow",
            );
        }
    }
}

/// True for `arguments`, a function, or an existing `.callee`/`.caller`: the objects whose
/// `.callee`/`.caller` reach other frames' functions.
fn holds_call_stack(e: &mut Engine, object: NodeId) -> bool {
    let object = e.ir.unparen(object);
    match e.ir.kind(object) {
        Kind::Name(sym) if e.name(sym) == "arguments" => return true,
        Kind::Function { .. } => return true,
        Kind::Attr { name, .. } if CALL_STACK_PROPERTIES.contains(&e.name(name)) => return true,
        _ => {}
    }
    e.resolve(object, 0).iter().any(|m| match m.value {
        Value::Local(node) => matches!(e.ir.kind(node), Kind::Function { .. }),
        Value::Name(p) => matches!(e.paths.text(p), "Function" | "arguments"),
        _ => false,
    })
}

/// `x.constructor` or `x['constructor']`: the first half of `.constructor.constructor`.
fn is_constructor_access(e: &mut Engine, node: NodeId) -> bool {
    match e.ir.kind(node) {
        Kind::Attr { name, .. } => e.name(name) == "constructor",
        Kind::Index { key, .. } => e.fold(key, 0).is_some_and(|k| &*k == "constructor"),
        _ => false,
    }
}

/// True when an expression's value is stored, passed or returned as it is.
fn is_handed_on(e: &Engine, node: NodeId) -> bool {
    let Some((parent, child)) = e.ir.context(node) else {
        return false;
    };
    match e.ir.kind(parent) {
        Kind::Decl { value, .. } => value == Some(child),
        Kind::Assign { value, .. } | Kind::DefaultTarget { default: value, .. } => value == child,
        Kind::Arg { .. }
        | Kind::Collection { .. }
        | Kind::Return(_)
        | Kind::Spread(_)
        | Kind::Pair { .. }
        | Kind::Cond { .. }
        | Kind::Seq { .. } => true,
        _ => false,
    }
}

/// `(() => {}).constructor('code')`, `[].map.constructor('code')`: calling the
/// `.constructor` of a function value (a function literal, or a member or call result, which
/// may be one) with arguments calls `Function`. A plain name's (`obj`, `this`) is left alone:
/// it is usually an instance, whose constructor is its class.
fn report_constructor_call(e: &mut Engine, call: NodeId) {
    let Kind::Call { callee, args, .. } = e.ir.kind(call) else {
        return;
    };
    // `Function()` with no arguments makes an empty function; the clone idiom
    // `new this.value.constructor()` is that shape.
    let callee = e.ir.unparen(callee);
    if args.is_empty() || !is_constructor_access(e, callee) {
        return;
    }
    let object = match e.ir.kind(callee) {
        Kind::Attr { object, .. } | Kind::Index { object, .. } => e.ir.unparen(object),
        _ => return,
    };
    if matches!(
        e.ir.kind(object),
        Kind::Function { .. } | Kind::Attr { .. } | Kind::Index { .. } | Kind::Call { .. }
    ) {
        e.dynamic(
            call,
            DynamicKind::CodeEval,
            "calling a function's `.constructor` calls `Function`",
        );
    }
}

/// Workers, string timers and allocations, by what the call calls.
fn report_call(e: &mut Engine, call: NodeId) {
    let (callees, args) = e.effective_call(call, 0);
    let first = args.first().copied();
    for m in callees {
        let Value::Name(p) = m.value else { continue };
        if m.held {
            continue;
        }
        let name = e.paths.text(p).to_owned();
        if STRING_TIMERS.contains(&name.as_str()) && first.is_some_and(|a| e.fold(a, 0).is_some()) {
            e.dynamic(
                call,
                DynamicKind::CodeEval,
                format!("`{name}` with a string runs it as code"),
            );
        }
        if name == "worker_threads.Worker" {
            report_worker(e, call, &args);
        }
        if PROTOTYPE_GETTERS.contains(&name.as_str()) && !only_inspected(e, call) {
            e.dynamic(
                call,
                DynamicKind::UntrackedValue,
                "the prototype of a value may be a library's (`Array.prototype`, \
                 `EventEmitter.prototype`), whose members the analyzer reads as the library \
                 defines them: compare it or list its keys, nothing else",
            );
        }
        if is_capability_listener_method(&name) {
            report_capability_listener(e, call, &name, &args);
        }
        if ALLOCATING.contains(&name.as_str())
            && let Some(size) = first.and_then(|a| e.int_value(a, true))
            && size >= HUGE_ALLOCATION
        {
            e.dynamic(
                call,
                DynamicKind::HugeAllocation,
                format!("`{name}` of {size} elements"),
            );
        }
    }
    // `'x'.repeat(1e10)`, `s.padEnd(2**40)`.
    if let Kind::Call { callee, .. } = e.ir.kind(call)
        && let Kind::Attr { name, .. } = e.ir.kind(callee)
        && matches!(e.name(name), "repeat" | "padStart" | "padEnd")
        && let Some(n) = first.and_then(|a| e.int_value(a, true))
        && n >= HUGE_ALLOCATION
    {
        let method = e.name(name);
        e.dynamic(
            call,
            DynamicKind::HugeAllocation,
            format!("`.{method}({n})`"),
        );
    }
}

/// Functions that return an object's prototype.
const PROTOTYPE_GETTERS: &[&str] = &["Object.getPrototypeOf", "Reflect.getPrototypeOf"];

/// Functions that read only the names or the state of an object's own keys, never its values
/// (`Object.values`, `Object.entries` hand out the members themselves).
const KEY_READERS: &[&str] = &[
    "Object.keys",
    "Object.getOwnPropertyNames",
    "Object.isFrozen",
    "Object.isSealed",
    "Object.isExtensible",
];

/// True when a prototype is only compared (`Object.getPrototypeOf(o) === Object.prototype`),
/// has its keys read, or has its own prototype taken (judged in turn).
fn only_inspected(e: &mut Engine, call: NodeId) -> bool {
    let Some((parent, _)) = e.ir.context(call) else {
        return false;
    };
    match e.ir.kind(parent) {
        Kind::Binary {
            op: crate::analysis::ir::BinOp::Compare,
            ..
        } => true,
        Kind::Arg {
            splat: crate::analysis::ir::Splat::None,
            ..
        } => e.ir.parent(parent).is_some_and(|reader| {
            let Kind::Call { callee, .. } = e.ir.kind(reader) else {
                return false;
            };
            let names = e.names_of(callee);
            !names.is_empty()
                && names.iter().all(|n| {
                    KEY_READERS.contains(&n.as_str()) || PROTOTYPE_GETTERS.contains(&n.as_str())
                })
        }),
        _ => false,
    }
}

/// An event method of a capability global (`process.on`, `process.stdout.once`): the
/// emitter calls its listeners with `this` set to itself.
fn is_capability_listener_method(name: &str) -> bool {
    let (receiver, method) = name.rsplit_once('.').unwrap_or(("", name));
    let root = receiver.split('.').next().unwrap_or(receiver);
    CAPABILITY_GLOBALS.contains(&root)
        && matches!(
            method,
            "on" | "once" | "addListener" | "prependListener" | "prependOnceListener"
        )
}

/// `process.on('exit', function () { this.env })`: the listener's `this` is `process`, which
/// no name in it says. A listener is allowed when it is an arrow function or one of the
/// snippet's own functions that never reads its own `this`; any other (a method taken off an
/// object, a parameter, a value the analyzer cannot follow) is a value it does not follow.
fn report_capability_listener(e: &mut Engine, call: NodeId, name: &str, args: &[NodeId]) {
    let Some(&listener) = args.get(1) else {
        return;
    };
    let listener = e.ir.unparen(listener);
    let functions: Vec<NodeId> = if matches!(e.ir.kind(listener), Kind::Function { .. }) {
        vec![listener]
    } else {
        let meanings = e.resolve(listener, 0);
        let locals: Vec<NodeId> = meanings
            .iter()
            .filter_map(|m| match m.value {
                Value::Local(f) if !m.held => Some(f),
                _ => None,
            })
            .collect();
        if locals.is_empty() || locals.len() != meanings.len() {
            e.dynamic(
                call,
                DynamicKind::UntrackedValue,
                format!("`{name}` calls its listener with `this` = the emitter, and the analyzer cannot follow this listener: pass an arrow function"),
            );
            return;
        }
        locals
    };
    if functions.into_iter().any(|f| reads_own_this(e, f)) {
        e.dynamic(
            call,
            DynamicKind::UntrackedValue,
            format!("`{name}` calls its listener with `this` = the emitter: use an arrow function, or name what you need"),
        );
    }
}

/// Whether `function` (not an arrow: those have no `this` of their own) reads its own `this`.
fn reads_own_this(e: &Engine, function: NodeId) -> bool {
    if let Kind::Function {
        kind: FunctionKind::Lambda,
        ..
    } = e.ir.kind(function)
    {
        return false;
    }
    (0..e.ir.nodes.len() as NodeId)
        .filter(|&id| matches!(e.ir.kind(id), Kind::This))
        .any(|this| {
            let mut scope = Some(e.scopes.scope_of(this));
            while let Some(s) = scope {
                match e.scopes.kind(s) {
                    // A class's field initializers have the instance as `this`.
                    ScopeKind::Block
                        if matches!(
                            e.ir.kind(e.scopes.scopes[s as usize].node),
                            Kind::Class { .. }
                        ) =>
                    {
                        return false;
                    }
                    ScopeKind::Function(FunctionKind::Lambda)
                    | ScopeKind::Comprehension
                    | ScopeKind::Block => scope = e.scopes.parent(s),
                    ScopeKind::Function(_) => return e.scopes.scopes[s as usize].node == function,
                    ScopeKind::Class | ScopeKind::Module => return false,
                }
            }
            false
        })
}

/// `new Worker(code, { eval: true })` runs `code`; `new Worker(path)` runs a script, which
/// must be named by a constant.
fn report_worker(e: &mut Engine, call: NodeId, args: &[NodeId]) {
    let first = args.first().and_then(|&a| e.fold(a, 0));
    let evaluates = match args.get(1).map(|&o| e.ir.unparen(o)) {
        None => false,
        Some(options) => match e.ir.kind(options) {
            Kind::Collection { items, .. } => {
                e.ir.list(items)
                    .to_vec()
                    .into_iter()
                    .any(|entry| match e.ir.kind(entry) {
                        Kind::Pair { key, value } => {
                            e.fold(key, 0).is_some_and(|k| &*k == "eval")
                                && !matches!(
                                    e.ir.kind(value),
                                    Kind::Const(crate::analysis::ir::ConstKind::False)
                                )
                        }
                        Kind::Spread(_) => true,
                        _ => false,
                    })
            }
            // Options computed at run time may say `eval: true`.
            _ => true,
        },
    };
    let data_url = first
        .as_deref()
        .is_some_and(|s| s.trim_start().to_ascii_lowercase().starts_with("data:"));
    if evaluates || data_url {
        e.dynamic(
            call,
            DynamicKind::CodeEval,
            "`Worker` runs its first argument as code",
        );
        if let Some(code) = first.filter(|_| evaluates) {
            let (start, end) = e.ir.span(call);
            let span = e.out.span_of(start, end);
            e.nested.push(NestedCode {
                code: code.to_string(),
                span,
                origins: None,
                context: None,
            });
        }
    } else if first.is_none() {
        e.dynamic(
            call,
            DynamicKind::DynamicImport,
            "`Worker` runs a script named at run time",
        );
    }
}

/// What every object pattern reads, wherever it binds (a declaration, an assignment, a
/// parameter, a loop head, a `catch`, an arrow given to `Array.from`): `{constructor: F}` is
/// `x.constructor`, `Function` when `x` is any function, and a computed key is `x[k]`. A
/// pattern whose value the analyzer cannot name is judged by its keys alone.
fn report_pattern_keys(e: &mut Engine, pattern: NodeId) {
    let Kind::ObjectPattern { entries } = e.ir.kind(pattern) else {
        return;
    };
    let sourced = pattern_source(e, pattern).is_some();
    for entry in e.ir.list(entries).to_vec() {
        let Kind::PatternEntry { key, .. } = e.ir.kind(entry) else {
            continue;
        };
        match e.fold(key, 0) {
            Some(key) => {
                crate::analysis::detect::report_special(e, entry, &key);
                let tables = e.dialect.tables();
                if !sourced
                    && (tables.introspection_attributes.contains(&&*key)
                        || CALL_STACK_PROPERTIES.contains(&&*key))
                {
                    e.dynamic(
                        entry,
                        DynamicKind::Introspection,
                        format!("`{key}` destructured"),
                    );
                }
            }
            None if !sourced && !e.is_numeric(key) => e.dynamic(
                entry,
                DynamicKind::ComputedMember,
                "takes a computed key out of a value the analyzer cannot name",
            ),
            None => {}
        }
    }
}

/// `const {exec} = require('child_process')` uses `child_process.exec` right there; keys
/// that reach internals, and computed keys taken from a namespace, are reported too.
fn report_destructuring(e: &mut Engine, pattern: NodeId) {
    let Some(source) = pattern_source(e, pattern) else {
        return;
    };
    let sources = e.resolve(source, 0).to_vec();
    let source_node = e.ir.unparen(source);
    let holds_call_stack = matches!(e.ir.kind(source_node), Kind::Function { .. })
        || matches!(e.ir.kind(source_node), Kind::Name(s) if e.name(s) == "arguments");
    report_computed_keys(e, pattern, source);
    report_pattern(e, pattern, sources, holds_call_stack, 0);
}

/// `const {[k]: F} = f`: a computed key taken out of what may be a function is the same
/// lookup as `f[k]`, which may be `f.constructor` (`Function`), bound to a name.
fn report_computed_keys(e: &mut Engine, pattern: NodeId, source: NodeId) {
    let Kind::ObjectPattern { entries } = e.ir.kind(pattern) else {
        return;
    };
    if e.is_plain_data(source) {
        return;
    }
    for entry in e.ir.list(entries).to_vec() {
        if let Kind::PatternEntry { key, .. } = e.ir.kind(entry)
            && e.fold_key(key, 0).is_none()
            && !e.is_numeric(key)
        {
            e.dynamic(
                entry,
                DynamicKind::ComputedMember,
                "takes a computed key out of something that may be a function",
            );
        }
    }
}

fn report_pattern(
    e: &mut Engine,
    pattern: NodeId,
    sources: Vec<crate::analysis::engine::meaning::Meaning>,
    holds_call_stack: bool,
    depth: usize,
) {
    if depth > crate::analysis::engine::MAX_EXPR_DEPTH {
        return;
    }
    let holds_call_stack = holds_call_stack
        || sources.iter().any(|m| match m.value {
            Value::Local(_) => true,
            Value::Name(p) => matches!(e.paths.text(p), "Function" | "arguments"),
            _ => false,
        });
    let Kind::ObjectPattern { entries } = e.ir.kind(pattern) else {
        return;
    };
    for entry in e.ir.list(entries).to_vec() {
        let Kind::PatternEntry { key, target } = e.ir.kind(entry) else {
            continue;
        };
        let Some(key) = e.fold(key, 0) else {
            if sources
                .iter()
                .any(|m| crate::analysis::detect::is_namespace(e, *m))
            {
                e.dynamic(
                    entry,
                    DynamicKind::DynamicAttribute,
                    "destructured by a computed key",
                );
            }
            continue;
        };
        let internal = if CALL_STACK_PROPERTIES.contains(&&*key) {
            holds_call_stack
        } else {
            e.dialect.tables().introspection_attributes.contains(&&*key)
        };
        if internal {
            e.dynamic(
                entry,
                DynamicKind::Introspection,
                format!("`{key}` destructured"),
            );
        }
        let mut members = Vec::new();
        for m in &sources {
            for found in e.member(*m, &key) {
                report_use(e, entry, found, Site::Reference, Vec::new());
                members.push(found);
            }
        }
        let inner = match e.ir.kind(target) {
            Kind::DefaultTarget { target, .. } => target,
            _ => target,
        };
        if matches!(e.ir.kind(inner), Kind::ObjectPattern { .. }) {
            report_pattern(e, inner, members, false, depth + 1);
        }
    }
}

/// The value an object pattern takes apart: a declaration's or assignment's value, or the
/// member of an outer pattern's source (nested patterns).
fn pattern_source(e: &Engine, pattern: NodeId) -> Option<NodeId> {
    let parent = e.ir.parent(pattern)?;
    match e.ir.kind(parent) {
        Kind::Decl { target, value, .. } if target == pattern => value,
        Kind::Assign { value, targets } if e.ir.list(targets).contains(&pattern) => Some(value),
        _ => None,
    }
}
