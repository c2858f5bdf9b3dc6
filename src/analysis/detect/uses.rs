//! Uses of names: every maximal chain that resolves (`os.path.join` once, not also `os.path`)
//! is a use of what it means, and every call is a call of what its callee means, with the
//! call's constant arguments. References count, not only calls: `f = eval` reports `eval`
//! where it is named, so no chain of re-bindings the resolver cannot follow hides a sink.

use super::{is_callee, is_maximal};
use crate::analysis::collect::MAX_FACT_ARGS;
use crate::analysis::dialect::CallKind;
use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::{Meaning, Value};
use crate::analysis::facts::{DynamicKind, FactKind, Root};
use crate::analysis::ir::NodeId;

/// Where a use of a name is reported from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Site {
    /// Named in an expression: passed, stored, or the object of an attribute.
    Reference,
    /// Named by an import (`from os import system`).
    Import,
    /// Called.
    Call,
    /// Called with arguments known not to be text run as code (`timeit.timeit(f)`).
    CallWithoutText,
}

/// A name, attribute, subscript or `this` that ends a chain.
pub fn report_reference(e: &mut Engine, id: NodeId) {
    if is_callee(e, id) || !is_maximal(e, id) || is_only_tested(e, id) {
        return;
    }
    for m in e.resolve(id, 0).to_vec() {
        // A sloppy function's `this` may be the global object: what is reached through it is
        // judged (`this.process`), and so is handing it on (untracked-value); naming it is not
        // naming the global object.
        let this = matches!(e.ir.kind(id), crate::analysis::ir::Kind::This);
        if m.value == Value::Global
            && (this || super::escapes::is_forwarded_this(e, id) || is_compared(e, id))
        {
            continue;
        }
        report_use(e, id, m, Site::Reference, Vec::new());
    }
}

/// A call: a use of each thing its callee may be, then of what it returns.
pub fn report_call(e: &mut Engine, id: NodeId) {
    let (callees, args) = e.effective_call(id, 0);
    let constants: Vec<Option<String>> = args
        .iter()
        .take(MAX_FACT_ARGS)
        .map(|&arg| {
            e.fold(arg, 0)
                .map(|s| s.to_string())
                .or_else(|| e.int_value(arg, false).map(|n| n.to_string()))
        })
        .collect();
    let mut keywords = Vec::new();
    for keyword in e.dialect.tables().path_keywords {
        if let Some(value) = e.keyword_arg(id, keyword).and_then(|v| e.fold(v, 0)) {
            keywords.push(value.to_string());
        }
    }
    for m in callees {
        let site = if super::calls::runs_no_text(e, id, m) {
            Site::CallWithoutText
        } else {
            Site::Call
        };
        let function = e.shown(m.value).unwrap_or_default();
        let mut fact_args: Vec<String> = constants
            .iter()
            .enumerate()
            .filter(|(i, _)| !e.dialect.is_content_argument(&function, *i))
            .filter_map(|(_, v)| v.clone())
            .collect();
        fact_args.extend(keywords.iter().cloned());
        fact_args.truncate(MAX_FACT_ARGS);
        report_use(e, id, m, site, fact_args);
    }
    if is_maximal(e, id) {
        for m in e.resolve(id, 0).to_vec() {
            report_use(e, id, m, Site::Reference, Vec::new());
        }
    }
}

/// The facts one use of a meaning gives: the use itself, and what the name is known to do.
pub fn report_use(e: &mut Engine, node: NodeId, m: Meaning, site: Site, args: Vec<String>) {
    if m.held {
        return;
    }
    if m.value == Value::TooMany {
        e.dynamic(
            node,
            DynamicKind::AnalysisLimit,
            format!(
                "more than {} values may flow into this; the analyzer did not follow the rest",
                crate::analysis::engine::meaning::MAX_MEANINGS - 1
            ),
        );
        return;
    }
    let Some(name) = e.shown(m.value) else {
        return;
    };
    let tables = e.dialect.tables();
    let called = matches!(site, Site::Call | Site::CallWithoutText);
    let runner = tables.runners.iter().find(|r| r.name == name);
    let eval = tables.eval.contains(&name.as_str())
        || tables.eval_modules.iter().any(|module| {
            name.strip_prefix(module)
                .is_some_and(|rest| rest.starts_with('.'))
        });
    let text_is_seen = runner.is_some_and(|r| r.visible_is_fine)
        && site == Site::Call
        && super::calls::all_text_visible(e, node);
    // Importing a runner that may run visible text (`from timeit import timeit`, `from doctest
    // import testmod`) runs nothing: its calls are judged where they are made.
    let harmless_import = site == Site::Import && runner.is_some_and(|r| r.visible_is_fine);
    // `x instanceof Function`, `f === eval`: compared, it runs nothing.
    let compared = site == Site::Reference && is_compared(e, node);
    if eval && site != Site::CallWithoutText && !text_is_seen && !harmless_import && !compared {
        e.dynamic(
            node,
            DynamicKind::CodeEval,
            format!("`{name}` runs text as code"),
        );
    }
    if tables
        .introspection_names
        .iter()
        .any(|n| crate::analysis::is_under(&name, n))
    {
        e.dynamic(
            node,
            DynamicKind::Introspection,
            format!("`{name}` reaches interpreter internals"),
        );
    }
    // A loader or an attribute lookup handed around as a value is called where its arguments
    // are not seen. Plain aliases of `require` are followed; handed on further, they are not.
    let kind = e.dialect.call_kind(&name);
    let handed_around = site == Site::Reference
        && (!e.dialect.follows_aliases_of(&name) || super::escapes::escapes(e, node));
    if handed_around && matches!(kind, Some(CallKind::Import { .. })) {
        e.dynamic(
            node,
            DynamicKind::DynamicImport,
            format!("`{name}` used as a value"),
        );
    }
    if site != Site::Import
        && tables
            .file_loaders
            .iter()
            .any(|n| crate::analysis::is_under(&name, n))
    {
        e.dynamic(
            node,
            DynamicKind::DynamicImport,
            format!("`{name}` loads code the imports do not name"),
        );
    }
    if handed_around
        && matches!(
            kind,
            Some(
                CallKind::GetAttr { .. }
                    | CallKind::SetAttr
                    | CallKind::AttrGetter
                    | CallKind::MethodCaller
                    | CallKind::Accessor { .. }
            )
        )
    {
        e.dynamic(
            node,
            DynamicKind::DynamicAttribute,
            format!("`{name}` used as a value"),
        );
    }
    let root = match m.value {
        Value::Module(p) => Root::Module(e.paths.text(p).to_owned()),
        Value::Name(p) => match e.paths.module(p) {
            Some(module) => Root::Module(module.to_owned()),
            None if e
                .dialect
                .is_builtin(name.split('.').next().unwrap_or_default()) =>
            {
                Root::Builtin
            }
            None => Root::Unbound,
        },
        _ => Root::Builtin,
    };
    let dialect = e.dialect;
    let name = match site {
        Site::Call | Site::CallWithoutText => dialect.refine_call(e, node, name),
        _ => name,
    };
    e.push(
        node,
        FactKind::Use {
            name,
            called,
            args,
            root,
        },
    );
}

/// True for a bare name that is only tested (`typeof window`, `!navigator`, `not os`): the
/// operator's value is a type name or a boolean, never the value itself, and reading a bare
/// name runs nothing. A member read (`typeof process.env`) is still a use of the member.
fn is_only_tested(e: &mut Engine, node: NodeId) -> bool {
    use crate::analysis::ir::{BinOp, Kind, UnOp};
    let Some(parent) = e.ir.parent(node) else {
        return false;
    };
    if !matches!(e.ir.kind(node), Kind::Name(_)) {
        // `"google.colab" in sys.modules`: a namespace asked whether it holds a name.
        let compared = matches!(
            e.ir.kind(parent),
            Kind::Binary {
                op: BinOp::Compare,
                ..
            } | Kind::Compared
        );
        return compared && {
            let meanings = e.resolve(node, 0);
            !meanings.is_empty()
                && meanings
                    .iter()
                    .all(|m| !m.held && matches!(m.value, Value::Namespace(_)))
        };
    }
    match e.ir.kind(parent) {
        Kind::Unary {
            op: UnOp::Other,
            arg,
        } => arg == node,
        // `x instanceof Function`, `'ontouchstart' in window`: a boolean.
        Kind::Binary {
            op: BinOp::Compare, ..
        }
        | Kind::Compared => true,
        // `window && window.matchMedia(...)`: an object that is always true (the global
        // object, a module) is never the value of `&&`, only its test.
        Kind::Binary {
            op: BinOp::Logical,
            left,
            right,
        } if left == node => {
            e.is_and(left, right) && {
                let meanings = e.resolve(node, 0);
                !meanings.is_empty()
                    && meanings
                        .iter()
                        .all(|m| !m.held && matches!(m.value, Value::Global | Value::Module(_)))
            }
        }
        // `const { innerWidth, innerHeight } = window`: each key is read as a member, and
        // judged as one; the object itself goes nowhere.
        Kind::Decl {
            target,
            value: Some(value),
            ..
        } if value == node => takes_only_constant_keys(e, target),
        Kind::Assign { targets, value } if value == node => {
            let targets = e.ir.list(targets).to_vec();
            targets.into_iter().all(|t| takes_only_constant_keys(e, t))
        }
        _ => false,
    }
}

/// An object pattern of constant keys, without a rest element, nested patterns included.
fn takes_only_constant_keys(e: &mut Engine, pattern: NodeId) -> bool {
    use crate::analysis::ir::Kind;
    let Kind::ObjectPattern { entries } = e.ir.kind(pattern) else {
        return false;
    };
    let entries = e.ir.list(entries).to_vec();
    entries.into_iter().all(|entry| match e.ir.kind(entry) {
        Kind::PatternEntry { key, target } => {
            let target = match e.ir.kind(target) {
                Kind::DefaultTarget { target, .. } => target,
                _ => target,
            };
            e.fold_key(key, 0).is_some()
                && (matches!(e.ir.kind(target), Kind::Bind(_))
                    || takes_only_constant_keys(e, target))
        }
        _ => false,
    })
}

/// True when a value is only compared (`x instanceof Function`, `this !== last`).
fn is_compared(e: &Engine, node: NodeId) -> bool {
    e.ir.context(node).is_some_and(|(p, _)| {
        matches!(
            e.ir.kind(p),
            crate::analysis::ir::Kind::Binary {
                op: crate::analysis::ir::BinOp::Compare,
                ..
            } | crate::analysis::ir::Kind::Compared
        )
    })
}
