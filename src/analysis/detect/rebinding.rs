//! Stores into the members of modules and builtins (`os.sep = '/../'`,
//! `path.join = () => '/etc/passwd'`, `Array.prototype.join = ...`, `process.cwd = ...`): the
//! analyzer folds and judges those members by what the library does, so a snippet that
//! replaces one makes every later judgement of it wrong. Such a store is a value the analyzer
//! does not follow, which the strict policy denies. The snippet's own objects (`Shape.prototype`
//! of its own constructor), its exports and `process.exitCode` are its to write.

use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::Value;
use crate::analysis::facts::DynamicKind;
use crate::analysis::ir::{Kind, NodeId};

/// Members a snippet sets as data, read back by the runtime rather than by the analyzer.
const WRITABLE: &[&str] = &["process.exitCode", "module.exports", "exports"];

/// Reports each member of a module or builtin that a statement stores into (or a storing
/// builtin call, `Object.assign(console, ...)`): as an
/// assignment's, augmented assignment's or deletion's target, or a loop's, comprehension's,
/// `with`'s or `except`'s, alone or inside a destructuring pattern
/// (`a, os.path.join = ...`, `for path.join of [...]`, `[String.prototype.concat] = [...]`).
pub fn report(e: &mut Engine, id: NodeId) {
    if let Kind::Call { .. } = e.ir.kind(id) {
        report_storing_call(e, id);
        return;
    }
    let roots = match e.ir.kind(id) {
        Kind::Assign { targets, .. } | Kind::Delete { targets } => e.ir.list(targets).to_vec(),
        Kind::AugAssign { target, .. }
        | Kind::For { target, .. }
        | Kind::CompFor { target, .. }
        | Kind::WithItem {
            target: Some(target),
        }
        | Kind::Catch {
            target: Some(target),
        } => vec![target],
        _ => return,
    };
    let mut targets = Vec::new();
    for root in roots {
        store_leaves(e, root, &mut targets);
    }
    for target in targets {
        let (Kind::Attr { object, .. } | Kind::Index { object, .. }) = e.ir.kind(target) else {
            continue;
        };
        if let Some(owner) = library_owner(e, object, target)
            && !WRITABLE.contains(&owner.as_str())
            && (owner != GLOBAL || replaces_a_global(e, target))
            && !e.resolve(target, 0).iter().any(|m| {
                matches!(m.value, Value::Name(p) | Value::Module(p) if WRITABLE.contains(&e.paths.text(p)))
            })
        {
            e.dynamic(
                target,
                DynamicKind::UntrackedValue,
                format!(
                    "a member of `{owner}` is replaced: the analyzer reads it as the library \
                     defines it"
                ),
            );
        }
    }
}

const GLOBAL: &str = "globalThis";

/// Builtins that store into their first argument's members (or its prototype).
const STORING: &[&str] = &[
    "Object.assign",
    "Object.defineProperty",
    "Object.defineProperties",
    "Object.setPrototypeOf",
    "Reflect.set",
    "Reflect.defineProperty",
    "Reflect.setPrototypeOf",
];

/// `Object.assign(console, {log: f})`: a store into a module's or builtin's members by a call.
fn report_storing_call(e: &mut Engine, call: NodeId) {
    let Kind::Call { callee, args, .. } = e.ir.kind(call) else {
        return;
    };
    if !e.dialect.index_reads_member()
        || !e
            .names_of(callee)
            .iter()
            .any(|n| STORING.contains(&n.as_str()))
    {
        return;
    }
    let Some(&first) = e.ir.list(args).first() else {
        return;
    };
    let Kind::Arg { value, .. } = e.ir.kind(first) else {
        return;
    };
    let owner = e
        .resolve(value, 0)
        .to_vec()
        .into_iter()
        .find_map(|m| match m.value {
            Value::Module(p) => Some(e.paths.text(p).to_owned()),
            Value::Name(p) => Some(e.paths.text(p).to_owned()),
            Value::Global => Some(GLOBAL.to_owned()),
            _ => None,
        });
    if let Some(owner) = owner
        && !WRITABLE.contains(&owner.as_str())
        && (owner != GLOBAL || !only_own_names(e, call))
    {
        e.dynamic(
            call,
            DynamicKind::UntrackedValue,
            format!(
                "members of `{owner}` are replaced: the analyzer reads them as the library \
                 defines them"
            ),
        );
    }
}

/// The places a target stores into, through destructuring patterns, defaults and rests.
fn store_leaves(e: &Engine, target: NodeId, out: &mut Vec<NodeId>) {
    let ir = e.ir;
    match ir.kind(target) {
        Kind::TuplePattern { items } => {
            for &item in ir.list(items) {
                store_leaves(e, item, out);
            }
        }
        Kind::ObjectPattern { entries } => {
            for &entry in ir.list(entries) {
                store_leaves(e, entry, out);
            }
        }
        Kind::PatternEntry { target, .. } | Kind::DefaultTarget { target, .. } => {
            store_leaves(e, target, out);
        }
        Kind::Rest(inner) => store_leaves(e, inner, out),
        _ => out.push(target),
    }
}

/// The module or builtin an expression is, by name, if it is one whose members the analyzer
/// reads as the library defines them: a module or capability (`os`, `path`, `process`), every
/// member of it; a builtin (`String`, `Array.prototype`), the members the folder models
/// (`fromCharCode`, `join`, `concat`); the global object, checked by the caller.
fn library_owner(e: &mut Engine, object: NodeId, target: NodeId) -> Option<String> {
    let member = member_name(e, target);
    e.resolve(object, 0)
        .to_vec()
        .into_iter()
        .find_map(|m| match m.value {
            Value::Module(p) => Some(e.paths.text(p).to_owned()),
            Value::Name(p) => {
                let owner = e.paths.text(p).to_owned();
                let root = owner.split('.').next().unwrap_or(&owner);
                // A name no module or builtin defines (an earlier cell's variable) is data.
                let library = e.paths.module_len(p) > 0
                    || e.dialect.is_builtin(root)
                    || e.dialect.is_tracked_name(root);
                if !library {
                    return None;
                }
                let modelled = member.as_deref().is_none_or(|member| {
                    let full = format!("{owner}.{member}");
                    e.dialect.is_tracked_name(root)
                        || e.dialect.string_method(member).is_some()
                        || e.dialect.string_function(&full).is_some()
                        || e.dialect.constant(&full).is_some()
                        || e.dialect.path_function(&full).is_some()
                });
                // A module's prototypes are called by the module itself, with its objects as
                // `this` (`EventEmitter.prototype.emit` runs for `process.emit`). Node's own
                // code keeps the builtins' original methods, so a new or replaced method of
                // `Array.prototype` reaches only the snippet's calls, which the folder models.
                let prototype = e.paths.module_len(p) > 0
                    && owner.split('.').any(|segment| segment == "prototype");
                // A JavaScript builtin namespace (`console`, `Math`, `JSON`, `Object`): the
                // analysis trusts what each of its functions does with what it is given
                // (`console.log` calls nothing, `Math.max` gives a number), so replacing any of
                // them (`console.log = f`) hands the snippet's values to code it never sees.
                let namespace = e.dialect.index_reads_member()
                    && e.paths.module_len(p) == 0
                    && e.dialect.is_builtin(root)
                    && !owner.split('.').any(|segment| segment == "prototype");
                (modelled || prototype || namespace).then_some(owner)
            }
            Value::Global => Some(GLOBAL.to_owned()),
            _ => None,
        })
}

/// True when every object a storing call copies into the global object (a sloppy `this`) is
/// a literal whose keys are constant names no builtin has (`Object.assign(this, {size: 0})`).
fn only_own_names(e: &mut Engine, call: NodeId) -> bool {
    let ir = e.ir;
    let Kind::Call { args, .. } = ir.kind(call) else {
        return false;
    };
    ir.list(args).iter().skip(1).all(|&arg| {
        let Kind::Arg { value, .. } = ir.kind(arg) else {
            return false;
        };
        let Kind::Collection { items, .. } = ir.kind(ir.unparen(value)) else {
            return false;
        };
        ir.list(items).iter().all(|&item| match ir.kind(item) {
            Kind::Pair { key, .. } => ir.str_value(key).is_some_and(|k| {
                k != "__proto__" && !e.dialect.is_builtin(k) && !e.dialect.is_tracked_name(k)
            }),
            _ => false,
        })
    })
}

/// A store into the global object (`globalThis.k = v`, or a sloppy function's `this.k = v`,
/// which is the new object when called with `new`) replaces a builtin only under a builtin's
/// name, or a name it cannot tell.
fn replaces_a_global(e: &mut Engine, target: NodeId) -> bool {
    member_name(e, target).is_none_or(|n| e.dialect.is_builtin(&n) || e.dialect.is_tracked_name(&n))
}

/// The member a store target names: an attribute, or a key that folds; `None` when computed.
fn member_name(e: &mut Engine, target: NodeId) -> Option<String> {
    match e.ir.kind(target) {
        Kind::Attr { name, .. } => Some(e.name(name).to_owned()),
        Kind::Index { key, .. } => e.fold_key(key, 0).map(|k| k.to_string()),
        _ => None,
    }
}
