//! Calls that load, look up or run something named by their arguments: imports by a computed
//! name, attribute lookups by name, namespace lookups, loaders, and code runners, whose
//! constant text is analyzed in turn.

use super::uses::{Site, report_use};
use crate::analysis::NestedCode;
use crate::analysis::dialect::{CallKind, Runner};
use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::{Meaning, Namespace, Value};
use crate::analysis::facts::{DynamicKind, FactKind};
use crate::analysis::ir::{Kind, NodeId};

pub fn report(e: &mut Engine, id: NodeId) {
    let Kind::Call { callee, .. } = e.ir.kind(id) else {
        return;
    };
    if let Kind::Attr { name, .. } = e.ir.kind(callee)
        && e.dialect.tables().loader_methods.contains(&e.name(name))
    {
        e.dynamic(
            id,
            DynamicKind::DynamicImport,
            "a loader runs a module the imports do not name",
        );
    }
    let (callees, args) = e.effective_call(id, 0);
    for m in callees {
        if m.held {
            continue;
        }
        match m.value {
            Value::Module(p) | Value::Name(p) => {
                let name = e.paths.text(p).to_owned();
                if let Some(kind) = e.dialect.call_kind(&name) {
                    report_kind(e, id, &name, kind, &args);
                }
                report_runner(e, id, &name, &args);
            }
            Value::Lookup(ns) => report_lookup(e, id, ns, &args),
            Value::MethodCaller(method) => {
                let method = e.paths.text(method).to_owned();
                let objects = match args.first() {
                    Some(&o) => e.resolve(o, 0).to_vec(),
                    None => Vec::new(),
                };
                for object in objects {
                    for found in e.member(object, &method) {
                        report_use(e, id, found, Site::Call, Vec::new());
                    }
                }
            }
            _ => {}
        }
    }
}

fn report_kind(e: &mut Engine, id: NodeId, name: &str, kind: CallKind, args: &[NodeId]) {
    match kind {
        CallKind::Import { colon, .. } => report_import(e, id, name, colon, args),
        CallKind::FindModule => report_import(e, id, name, false, args),
        CallKind::GetAttr {
            object,
            name: key,
            always,
            ..
        } => report_attribute(
            e,
            id,
            name,
            args.get(key).copied(),
            args.get(object).copied(),
            always,
        ),
        CallKind::SetAttr => report_attribute(
            e,
            id,
            name,
            args.get(1).copied(),
            args.first().copied(),
            true,
        ),
        // `attrgetter("a", "b.c")` walks every name it is given; a method caller's other
        // arguments are the call's.
        CallKind::AttrGetter if e.splatted(id) => report_attribute(e, id, name, None, None, true),
        CallKind::AttrGetter => {
            for &key in args {
                report_attribute(e, id, name, Some(key), None, true);
            }
        }
        CallKind::MethodCaller => {
            let key = if e.splatted(id) {
                None
            } else {
                args.first().copied()
            };
            report_attribute(e, id, name, key, None, true)
        }
        CallKind::Accessor { prefix } => report_accessor(e, id, name, prefix, args),
        _ => {}
    }
}

/// `getp(obj, "name")`, `setp(obj, "name", v, ...)`, `setp(obj, name=v)`: each name is the
/// method `prefix` + name of `obj`, judged as that attribute; a name computed at run time, or
/// none at all for a getter (every getter then runs), reaches any of them. The object's own
/// parameter (`self=`, `obj=`, `o=`) names no property, and a getter's `property=` gives its
/// name as a value.
pub fn report_accessor(e: &mut Engine, id: NodeId, name: &str, prefix: &str, args: &[NodeId]) {
    let mut keys: Vec<Option<String>> = args
        .iter()
        .skip(1)
        .step_by(2)
        .map(|&key| e.fold(key, 0).map(|k| k.to_string()))
        .collect();
    if let Kind::Call { args: all, .. } = e.ir.kind(id) {
        for &arg in e.ir.list(all) {
            let Kind::Arg {
                name: Some(key),
                value,
                ..
            } = e.ir.kind(arg)
            else {
                continue;
            };
            match e.name(key) {
                "self" | "obj" | "o" => {}
                "property" if prefix == "get_" => {
                    keys.push(e.fold(value, 0).map(|k| k.to_string()))
                }
                _ if prefix == "get_" => {}
                key => keys.push(Some(key.to_owned())),
            }
        }
    }
    let unnamed = keys.is_empty() && prefix == "get_";
    if unnamed || e.splatted(id) || keys.iter().any(Option::is_none) {
        e.dynamic(
            id,
            DynamicKind::DynamicAttribute,
            format!("`{name}` calls `{prefix}*` methods named at run time (or every one)"),
        );
        return;
    }
    for key in keys.into_iter().flatten() {
        super::report_special(e, id, &format!("{prefix}{key}"));
    }
}

/// An import by a name given as an argument: the module, when it folds.
fn report_import(e: &mut Engine, id: NodeId, name: &str, colon: bool, args: &[NodeId]) {
    match args.first().and_then(|&a| e.fold(a, 0)) {
        Some(module) => {
            let module = if colon {
                module.split(':').next().unwrap_or_default().to_owned()
            } else {
                module.to_string()
            };
            let module = e.dialect.module_specifier(&module);
            let module = e.dialect.canonical(&module).unwrap_or(module);
            e.push(id, FactKind::Import { module });
        }
        None => e.dynamic(
            id,
            DynamicKind::DynamicImport,
            format!("`{name}` with a module name computed at run time"),
        ),
    }
}

/// A lookup of an attribute by a name given as an argument.
fn report_attribute(
    e: &mut Engine,
    id: NodeId,
    name: &str,
    key: Option<NodeId>,
    object: Option<NodeId>,
    always: bool,
) {
    let attribute = key.and_then(|k| e.fold(k, 0));
    // `operator.attrgetter("__globals__.get")` walks each dotted part.
    let parts: Vec<&str> = attribute
        .as_deref()
        .map_or(Vec::new(), |a| a.split('.').collect());
    for part in &parts {
        super::report_special(e, id, part);
    }
    let introspection = e.dialect.tables().introspection_attributes;
    match attribute {
        Some(attr) if parts.iter().any(|p| introspection.contains(p)) => {
            e.dynamic(
                id,
                DynamicKind::Introspection,
                format!("`{name}` reaches `{attr}`"),
            );
        }
        Some(_) => {}
        None => {
            let on_namespace =
                object.is_some_and(|o| e.resolve(o, 0).iter().any(|m| is_namespace(e, *m)));
            if always || on_namespace {
                e.dynamic(
                    id,
                    DynamicKind::DynamicAttribute,
                    format!("`{name}` with an attribute name computed at run time"),
                );
            }
        }
    }
}

/// True for what a computed name can turn into anything dangerous: a module, a namespace, the
/// global object, a builtin or global object (`process`, `Reflect`).
pub fn is_namespace(e: &Engine, m: Meaning) -> bool {
    if m.held {
        return false;
    }
    match m.value {
        Value::Module(_) | Value::Global | Value::Namespace(_) => true,
        Value::Name(p) => e.dialect.is_namespace_name(e.paths.text(p)),
        _ => false,
    }
}

/// `sys.modules.get(k)`, `globals().get(k)`.
fn report_lookup(e: &mut Engine, id: NodeId, ns: Namespace, args: &[NodeId]) {
    match (args.first().and_then(|&a| e.fold(a, 0)), ns) {
        (Some(module), Namespace::Modules) => e.push(
            id,
            FactKind::Import {
                module: module.to_string(),
            },
        ),
        (Some(_), _) => {}
        (None, _) => {
            let shown = e.shown(Value::Lookup(ns)).unwrap_or_default();
            e.dynamic(
                id,
                DynamicKind::DynamicAttribute,
                format!("`{shown}` with a name computed at run time"),
            );
        }
    }
}

/// The runner, if `name` is one, with where its text goes.
fn runner(e: &Engine, name: &str) -> Option<Runner> {
    let tables = e.dialect.tables();
    if let Some(r) = tables.runners.iter().find(|r| r.name == name) {
        return Some(*r);
    }
    let evaluates = tables.eval.contains(&name)
        || tables.eval_modules.iter().any(|m| {
            name.strip_prefix(m)
                .is_some_and(|rest| rest.starts_with('.'))
        });
    evaluates.then_some(Runner {
        name: "",
        code: &[(0, "source")],
        callables: false,
        docstrings: false,
        visible_is_fine: false,
    })
}

/// The text arguments of a runner call that are present.
fn code_args(e: &mut Engine, call: NodeId, runner: &Runner, args: &[NodeId]) -> Vec<NodeId> {
    runner
        .code
        .iter()
        .filter_map(|&(index, keyword)| {
            if index == usize::MAX {
                return args.last().copied();
            }
            args.get(index)
                .copied()
                .or_else(|| e.keyword_arg(call, keyword))
        })
        .collect()
}

/// Code run from constant text is analyzed in turn, its facts reported at the call.
fn report_runner(e: &mut Engine, id: NodeId, name: &str, args: &[NodeId]) {
    let Some(runner) = runner(e, name) else {
        return;
    };
    if runner.docstrings {
        crate::analysis::docstrings::queue_examples(e, id);
        return;
    }
    if e.splatted(id) {
        return; // text behind `*`/`**`: not visible, so text run as code
    }
    for arg in code_args(e, id, &runner, args) {
        let texts = if runner.visible_is_fine {
            e.fold_candidates(arg)
        } else {
            e.fold(arg, 0).map(|c| vec![c.to_string()])
        };
        for code in texts.unwrap_or_default() {
            let span = e.out.span_of(e.ir.span(id).0, e.ir.span(id).1);
            e.nested.push(NestedCode {
                code,
                span,
                origins: None,
                context: None,
            });
        }
    }
}

/// True when a runner is called with callables only (`timeit.timeit(lambda: f())`): no text.
pub fn runs_no_text(e: &mut Engine, call: NodeId, m: Meaning) -> bool {
    let Value::Name(p) = m.value else {
        return false;
    };
    let name = e.paths.text(p).to_owned();
    let tables = e.dialect.tables();
    let Some(runner) = tables
        .runners
        .iter()
        .find(|r| r.name == name && r.callables)
    else {
        return false;
    };
    let args = e.positional_args(call);
    !e.splatted(call)
        && code_args(e, call, runner, &args)
            .into_iter()
            .all(|a| is_callable(e, a))
}

/// True when every text a runner call runs is visible to the analyzer (constant, a
/// callable where callables are taken, or the snippet's own docstrings).
pub fn all_text_visible(e: &mut Engine, call: NodeId) -> bool {
    let (callees, args) = e.effective_call(call, 0);
    for m in callees {
        let Value::Name(p) = m.value else { continue };
        let name = e.paths.text(p).to_owned();
        let tables = e.dialect.tables();
        let Some(runner) = tables.runners.iter().find(|r| r.name == name) else {
            continue;
        };
        if runner.docstrings {
            return crate::analysis::docstrings::examples_are_visible(e, call);
        }
        if e.splatted(call) {
            return false;
        }
        return code_args(e, call, runner, &args)
            .into_iter()
            .all(|a| (runner.callables && is_callable(e, a)) || e.fold_candidates(a).is_some());
    }
    false
}

/// A lambda, or a name bound only to functions the snippet defines.
fn is_callable(e: &mut Engine, arg: NodeId) -> bool {
    let arg = e.ir.unparen(arg);
    if matches!(e.ir.kind(arg), Kind::Function { .. }) {
        return true;
    }
    let meanings = e.resolve(arg, 0);
    !meanings.is_empty()
        && meanings
            .iter()
            .all(|m| !m.held && matches!(m.value, Value::Local(_)))
}
