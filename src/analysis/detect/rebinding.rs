//! Stores into the members of modules and builtins (`os.sep = '/../'`,
//! `path.join = () => '/etc/passwd'`, `Array.prototype.join = ...`, `process.cwd = ...`): the
//! analyzer folds and judges those members by what the library does, so a snippet that
//! replaces one makes every later judgement of it wrong. Such a store is a value the analyzer
//! does not follow, which the strict policy denies. In Python every member of a library's
//! module or class is the library's (`sp.csr_matrix.data = property(...)` answers for the arrays
//! of every sparse matrix its compiled code reads), except the settings objects whose stores are
//! judged by what they store (`rcParams`, `pandas.options`). The snippet's own objects
//! (`Shape.prototype` of its own constructor), its exports and `process.exitCode` are its to
//! write.

use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::{Namespace, Value};
use crate::analysis::facts::DynamicKind;
use crate::analysis::ir::{Kind, NodeId, Sym};

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
        let member = member_name(e, target);
        let by_item = matches!(e.ir.kind(target), Kind::Index { .. });
        if let Some(owner) = library_owner(e, object, member, by_item)
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

/// Calls that set the prototype of their first argument's `prototype` (`util.inherits(ctor,
/// superCtor)` is `Object.setPrototypeOf(ctor.prototype, superCtor.prototype)`): given a
/// library's constructor, every object it makes (`process` is an emitter) inherits the
/// snippet's accessors, which then run with the library's objects as `this`.
const REPARENTING: &[&str] = &["util.inherits", "node:util.inherits"];

/// `util.inherits(EventEmitter, Own)`: allowed only when the constructor re-parented is the
/// snippet's own function or class.
fn report_reparenting_call(e: &mut Engine, call: NodeId, callee: NodeId) {
    if !e
        .names_of(callee)
        .iter()
        .any(|n| REPARENTING.contains(&n.as_str()))
    {
        return;
    }
    let own = e.positional_args(call).first().is_some_and(|&ctor| {
        let meanings = e.resolve(ctor, 0);
        !meanings.is_empty()
            && meanings
                .iter()
                .all(|m| !m.held && matches!(m.value, Value::Local(_)))
    }) && !e.splatted(call);
    if !own {
        e.dynamic(
            call,
            DynamicKind::UntrackedValue,
            "re-parents a constructor that may not be the snippet's own: every object a \
             library's constructor makes would inherit the snippet's members",
        );
    }
}

/// `Object.assign(console, {log: f})`: a store into a module's or builtin's members by a call.
fn report_storing_call(e: &mut Engine, call: NodeId) {
    let Kind::Call { callee, args, .. } = e.ir.kind(call) else {
        return;
    };
    if e.dialect.index_reads_member() {
        report_reparenting_call(e, call, callee);
    } else {
        return report_attribute_setter(e, call, callee);
    }
    if !e
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
            other => whole_owner(other),
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

/// Python's `setattr(sp.csr_matrix, "data", ...)` and `delattr`: a store into a member of
/// the first argument, judged as `sp.csr_matrix.data = ...` is.
fn report_attribute_setter(e: &mut Engine, call: NodeId, callee: NodeId) {
    const SETTERS: &[&str] = &["setattr", "delattr"];
    if !e
        .names_of(callee)
        .iter()
        .any(|n| SETTERS.contains(&n.as_str()))
    {
        return;
    }
    let args = e.positional_args(call);
    let Some(&object) = args.first() else {
        return;
    };
    let member = args
        .get(1)
        .and_then(|&name| e.fold(name, 0))
        .map(|n| n.to_string());
    if let Some(owner) = library_owner(e, object, member, false) {
        e.dynamic(
            call,
            DynamicKind::UntrackedValue,
            format!(
                "a member of `{owner}` is replaced: the analyzer reads it as the library \
                 defines it"
            ),
        );
    }
}

/// A store target read as a whole by the library: the global object, and `sys.modules`
/// (`sys.modules['statistics'] = frame`: the next `import statistics` gives `frame`).
fn whole_owner(value: Value) -> Option<String> {
    match value {
        Value::Global => Some(GLOBAL.to_owned()),
        Value::Namespace(Namespace::Modules) => Some("sys.modules".to_owned()),
        _ => None,
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
/// (`fromCharCode`, `join`, `concat`); a Python library's class or module, every member but
/// a settings object's; the global object, checked by the caller; `sys.modules`, whose
/// entries every import reads. `member` is the member stored, when it is known, as an item
/// (`by_item`) or an attribute.
fn library_owner(
    e: &mut Engine,
    object: NodeId,
    member: Option<String>,
    by_item: bool,
) -> Option<String> {
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
                // Every plain object inherits `Object.prototype`'s members: a new one is an
                // option of every options object Node reads (`Object.prototype.fd = 1` makes
                // `createWriteStream(path, {})` write to descriptor 1).
                let every_object = e.dialect.index_reads_member() && owner == "Object.prototype";
                // A Python library's class or module: its own code, compiled code among it,
                // reads what the snippet stores there (`csr_matrix.data = property(...)`
                // answers for the arrays of every sparse matrix, made before or after).
                let python_library = !e.dialect.index_reads_member()
                    && e.paths.module_len(p) > 0
                    && !e.dialect.is_settings_owner(&owner, by_item);
                (modelled || prototype || namespace || every_object || python_library)
                    .then_some(owner)
            }
            other => whole_owner(other),
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

/// Lists the interpreter fills and libraries read back as the snippet's options: a module's
/// command line (`gzip.main()`) opens and writes the files `sys.argv` names, which are data to
/// the analyzer. They are the snippet's to read, never to change, whatever the spelling: a
/// store into an item, an in-place method (`append`, `extend`, `__iadd__`, `__setitem__`),
/// the list handed to a function that may change it (`list.append(argv, x)`,
/// `operator.iadd(argv, x)`), or held where the analyzer cannot follow it.
const READ_ONLY_LISTS: &[&str] = &["sys.argv"];

/// Methods of a list that only read it.
const LIST_READERS: &[&str] = &[
    "index",
    "count",
    "copy",
    "__len__",
    "__getitem__",
    "__contains__",
    "__iter__",
    "__reversed__",
];

/// Functions that only read the list they are given.
const READING_FUNCTIONS: &[&str] = &[
    "len",
    "print",
    "list",
    "tuple",
    "set",
    "frozenset",
    "sorted",
    "reversed",
    "enumerate",
    "zip",
    "iter",
    "str",
    "repr",
    "any",
    "all",
    "min",
    "max",
    "bool",
];

/// Reports a use of a read-only list (`sys.argv`, or a name that may be it) that may change it.
pub fn report_read_only_use(e: &mut Engine, id: NodeId) {
    let Some(list) = read_only_list(e, id) else {
        return;
    };
    if !only_reads(e, id) {
        e.dynamic(
            id,
            DynamicKind::UntrackedValue,
            format!(
                "`{list}` may be changed here: it names the files and options a module's \
                 command line acts on, so it is read-only"
            ),
        );
    }
}

/// `argv += [...]` on a name that may be `sys.argv`: its target is a binding, not a use.
pub fn report_read_only_augmented(e: &mut Engine, id: NodeId) {
    let Kind::AugAssign { target, .. } = e.ir.kind(id) else {
        return;
    };
    let (Kind::Bind(sym) | Kind::Name(sym)) = e.ir.kind(target) else {
        return;
    };
    let meanings = e.resolve_name(sym, target);
    if let Some(list) = meanings.iter().find_map(|m| read_only_text(e, m.value)) {
        e.dynamic(
            target,
            DynamicKind::UntrackedValue,
            format!("`{list}` is changed in place: it is read-only"),
        );
    }
}

fn read_only_list(e: &mut Engine, id: NodeId) -> Option<&'static str> {
    e.resolve(id, 0)
        .to_vec()
        .into_iter()
        .filter(|m| !m.held)
        .find_map(|m| read_only_text(e, m.value))
}

fn read_only_text(e: &Engine, value: Value) -> Option<&'static str> {
    match value {
        Value::Name(p) => READ_ONLY_LISTS
            .iter()
            .copied()
            .find(|list| *list == e.paths.text(p)),
        _ => None,
    }
}

/// Whether this use of the list only reads it (or names it for another use that is judged
/// where it is: `args = sys.argv`).
fn only_reads(e: &mut Engine, id: NodeId) -> bool {
    reads(e, id, 0, false)
}

/// Deepest chain of parameters and aliases followed from one use of the list.
const MAX_FOLLOWED: usize = 6;

/// Whether this use only reads the list. `followed`: the use is of a parameter or alias this
/// rule follows by hand (the analyzer does not resolve a parameter to its argument), so a
/// further alias is followed too rather than left to the analyzer's own resolution.
fn reads(e: &mut Engine, id: NodeId, depth: usize, followed: bool) -> bool {
    if depth > MAX_FOLLOWED {
        return false;
    }
    let Some((parent, child)) = e.ir.context(id) else {
        return true;
    };
    match e.ir.kind(parent) {
        Kind::Attr { object, name } if object == child => LIST_READERS.contains(&e.name(name)),
        Kind::Index { object, .. } if object == child => {
            !crate::analysis::engine::rewrites::is_store_target(e, parent)
        }
        Kind::Arg {
            name: None,
            splat: crate::analysis::ir::Splat::None,
            ..
        } => {
            let Some(call) = e.ir.parent(parent) else {
                return false;
            };
            let Kind::Call { callee, .. } = e.ir.kind(call) else {
                return false;
            };
            let joins_text = matches!(
                e.ir.kind(e.ir.unparen(callee)),
                Kind::Attr { object, name }
                    if e.name(name) == "join" && matches!(e.ir.kind(e.ir.unparen(object)), Kind::Str { .. })
            );
            let names = e.names_of(callee);
            joins_text
                || (!names.is_empty()
                    && names
                        .iter()
                        .all(|n| READING_FUNCTIONS.contains(&n.as_str())))
                || own_function_only_reads(e, call, callee, child, depth)
        }
        Kind::For { iter, .. } | Kind::CompFor { iter, .. } => iter == child,
        // `sys.argv or []`, `sys.argv if c else []`: the value may be the list itself
        Kind::Binary {
            op: crate::analysis::ir::BinOp::Logical,
            ..
        } => reads(e, parent, depth, followed),
        Kind::Cond { test, .. } => test == child || reads(e, parent, depth, followed),
        Kind::Binary { .. }
        | Kind::Unary { .. }
        | Kind::Compared
        | Kind::Interp { .. }
        | Kind::ExprStatement => true,
        // an alias: its uses are judged where they are (by the analyzer's resolution, or
        // here when the value was followed by hand)
        Kind::Assign { targets, value } if value == child => match e.ir.list(targets) {
            &[target] => match e.ir.kind(target) {
                Kind::Bind(sym) if followed => binding_only_read(e, target, sym, depth + 1),
                Kind::Bind(_) => true,
                _ => false,
            },
            _ => false,
        },
        _ => false,
    }
}

/// `parse(sys.argv)` with `def parse(args): ...`: the list given positionally to the snippet's
/// own function (called by name), whose parameter only reads it.
fn own_function_only_reads(
    e: &mut Engine,
    call: NodeId,
    callee: NodeId,
    argument: NodeId,
    depth: usize,
) -> bool {
    if !matches!(e.ir.kind(e.ir.unparen(callee)), Kind::Name(_)) || e.splatted(call) {
        return false;
    }
    let Some(position) = e.positional_args(call).iter().position(|&a| a == argument) else {
        return false;
    };
    let callees = e.resolve(callee, 0).to_vec();
    !callees.is_empty()
        && callees.into_iter().all(|m| {
            let Value::Local(function) = m.value else {
                return false;
            };
            let Kind::Function { params, .. } = e.ir.kind(function) else {
                return false;
            };
            let Some(&param) = e.ir.list(params).get(position) else {
                return false;
            };
            let Kind::Param { target } = e.ir.kind(param) else {
                return false;
            };
            match e.ir.kind(target) {
                Kind::Bind(sym) if !m.held => binding_only_read(e, target, sym, depth + 1),
                _ => false,
            }
        })
}

/// Whether every use of the name `bind` binds only reads the list.
fn binding_only_read(e: &mut Engine, bind: NodeId, sym: Sym, depth: usize) -> bool {
    let Some(scope) = e.scopes.bind_scope(bind) else {
        return false;
    };
    let declaring = e.dialect.declaring();
    // `args += [...]` extends the list in place; its target is a binding, not a use
    let extended = (0..e.ir.nodes.len() as NodeId).any(|n| {
        let Kind::AugAssign { target, .. } = e.ir.kind(n) else {
            return false;
        };
        match e.ir.kind(target) {
            Kind::Bind(s) | Kind::Name(s) if s == sym => {
                e.scopes.bind_scope(target) == Some(scope)
                    || e.scopes
                        .lookup(sym, e.scopes.scope_of(target), declaring)
                        .scopes
                        .contains(&scope)
            }
            _ => false,
        }
    });
    if extended {
        return false;
    }
    let uses: Vec<NodeId> = (0..e.ir.nodes.len() as NodeId)
        .filter(|&n| matches!(e.ir.kind(n), Kind::Name(s) if s == sym))
        .filter(|&n| {
            e.scopes
                .lookup(sym, e.scopes.scope_of(n), declaring)
                .scopes
                .contains(&scope)
        })
        .collect();
    uses.into_iter().all(|n| reads(e, n, depth, true))
}
