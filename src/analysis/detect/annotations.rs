//! Text the typing machinery runs as code. `typing.get_type_hints` (and everything built on it:
//! `functools.singledispatch`, dataclass tools, validators) evaluates every string in an
//! annotation, in a generic's subscript (`list["Node"]`), in a `TypeVar` bound and in a
//! `ForwardRef` as an expression, with the defining module's globals. Those strings are read as
//! code where they stand; one the analyzer cannot read, or annotations set at run time
//! (`f.__annotations__ = {...}`, a class namespace built by `type()`), are text run as code.
//! So are values computed where a type stands (`List[code[0]]`: text is evaluated again),
//! fields of a typed form built outside the call, and a class's module redirected (its type
//! text is then evaluated in that module's namespace).

use crate::analysis::NestedCode;
use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::Value;
use crate::analysis::engine::rewrites::is_store_target;
use crate::analysis::facts::DynamicKind;
use crate::analysis::ir::{CollectionKind, Kind, NodeId};

/// The attribute that holds annotations.
const ANNOTATIONS: &str = "__annotations__";

/// Methods that change a dictionary in place.
const MUTATING_METHODS: &[&str] = &["update", "setdefault", "__setitem__", "__ior__", "pop"];

/// A string or template literal: read as code when the typing machinery evaluates it.
pub fn report_text(e: &mut Engine, id: NodeId) {
    if !evaluated_as_a_type(e, id) {
        return;
    }
    match e.ir.str_value(id) {
        Some(text) => {
            let text = text.to_owned();
            report_names_holding_text(e, id, &text);
            if let Some(reason) = super::type_text::not_a_type(e, id, &text) {
                e.dynamic(
                    id,
                    DynamicKind::CodeEval,
                    format!(
                        "a type written as text that may not evaluate to a type ({reason}): \
                         `typing.get_type_hints` evaluates what it gives as code again"
                    ),
                );
            }
            queue_type_text(e, id, &text);
        }
        None => e.dynamic(
            id,
            DynamicKind::CodeEval,
            "a type written as text the analyzer cannot read: `typing.get_type_hints` runs it \
             as code",
        ),
    }
}

/// `class P: Coord = text` with `x: "Coord"`: a name in a type's text is looked up where the
/// annotation stands (a class body too), and a name holding text is evaluated once more.
fn report_names_holding_text(e: &mut Engine, id: NodeId, text: &str) {
    let words = text.split(|c: char| !(c.is_alphanumeric() || c == '_'));
    for word in words.filter(|w| !w.is_empty()) {
        if let Some(sym) = e.ir.names.get(word)
            && e.name_may_be_text(sym, id)
        {
            e.dynamic(
                id,
                DynamicKind::CodeEval,
                format!(
                    "a type's text names `{word}`, which may hold text: `typing.get_type_hints` \
                     evaluates that as code too"
                ),
            );
            return;
        }
    }
}

/// Functions that evaluate annotation text, and where they take the namespaces to do it in.
const HINT_EVALUATORS: &[(&str, &[&str])] = &[
    ("typing.get_type_hints", &["globalns", "localns"]),
    ("typing_extensions.get_type_hints", &["globalns", "localns"]),
    ("inspect.get_annotations", &["globals", "locals"]),
];

/// `get_type_hints(f, globalns={...})`: the names in annotation text are looked up in
/// namespaces the snippet gives, whose values the analyzer does not read as types.
pub fn report_hint_namespaces(e: &mut Engine, call: NodeId) {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return;
    };
    let names = e.names_of(callee);
    let Some(&(_, keywords)) = HINT_EVALUATORS
        .iter()
        .find(|(n, _)| names.iter().any(|m| m == n))
    else {
        return;
    };
    let given = e.splatted(call)
        || e.positional_args(call).len() > 1
        || keywords.iter().any(|k| e.keyword_arg(call, k).is_some());
    if e.in_later_call() && !own_definitions_only(e, call) {
        e.dynamic(
            call,
            DynamicKind::CodeEval,
            "annotations of a definition an earlier call made, evaluated with this call's \
             names: their text was judged with that call's",
        );
    } else if given {
        e.dynamic(
            call,
            DynamicKind::CodeEval,
            "annotation text evaluated in namespaces the snippet gives: their values may be text, \
             run as code",
        );
    }
}

/// Whether what a hint evaluator is given is a function or class this call defines, whose
/// bases (whose annotations it evaluates too) are this call's classes or the libraries'.
fn own_definitions_only(e: &mut Engine, call: NodeId) -> bool {
    e.positional_args(call)
        .first()
        .is_some_and(|&target| defined_here(e, target, 0))
}

fn defined_here(e: &mut Engine, value: NodeId, depth: usize) -> bool {
    let meanings = e.resolve(value, 0);
    !meanings.is_empty()
        && depth < 8
        && meanings.iter().all(|m| match m.value {
            Value::Local(definition) if !m.held => {
                super::attribute_names::class_heads(e, definition)
                    .into_iter()
                    .all(|base| {
                        let library = e.resolve(base, 0).iter().all(|b| {
                            matches!(b.value, Value::Module(_))
                                || matches!(b.value, Value::Name(p) if e.paths.module_len(p) > 0)
                        }) && !e.resolve(base, 0).is_empty();
                        library || defined_here(e, base, depth + 1)
                    })
            }
            _ => false,
        })
}

/// Queues a type written as text for analysis, as a type again: when that text evaluates to
/// a string (`"'text'"`, `List["'text'"]`), typing wraps the string in a new forward
/// reference and evaluates it in turn.
fn queue_type_text(e: &mut Engine, id: NodeId, text: &str) {
    let (start, end) = e.ir.span(id);
    let span = e.out.span_of(start, end);
    e.nested.push(NestedCode {
        code: format!("_: (\n{text}\n)\n"),
        span,
        origins: None,
        context: None,
    });
}

/// A type computed by an expression (`x: "__imp" + "ort__(...)"`, `x: str(...)`,
/// `x: List[code[0]]`, `NamedTuple("N", [("a", cfg.kind)])`): when its value is a string,
/// typing evaluates it again as code. One that folds to text is read as a type; anything else
/// the analyzer cannot read.
pub fn report_computed_type(e: &mut Engine, id: NodeId) {
    let may_compute = match e.ir.kind(id) {
        Kind::Binary { op, .. } => op != crate::analysis::ir::BinOp::BitOr,
        Kind::Call { .. }
        | Kind::Cond { .. }
        | Kind::Walrus { .. }
        | Kind::Index { .. }
        | Kind::Attr { .. } => true,
        _ => false,
    };
    if !may_compute || !in_type_position(e, id) {
        return;
    }
    let computed = match e.ir.kind(id) {
        // `List[int]` names a type; `code[0]` is an item of data.
        Kind::Index { object, .. } => !e.names_a_type(object, 0),
        Kind::Attr { .. } => !e.names_a_type(id, 0),
        _ => true,
    };
    if !computed {
        return;
    }
    match e.fold(id, 0) {
        Some(text) => queue_type_text(e, id, text.as_ref()),
        None => e.dynamic(
            id,
            DynamicKind::CodeEval,
            "a type computed at run time: when it is text, `typing.get_type_hints` runs it as \
             code (write the type itself, or its text as a literal)",
        ),
    }
}

/// Whether an expression stands where its value is taken as a type: an annotation, or inside
/// one only through what types are made of (parentheses, `|`, a generic's subscript, the
/// lists of `Callable[[...], ...]`); a typing generic's subscript anywhere (`List[x]` makes a
/// forward reference of text); the field types of a functional form; a `TypeVar`'s bound.
pub(super) fn in_type_position(e: &mut Engine, id: NodeId) -> bool {
    let mut child = id;
    let mut item_index = None;
    let mut field_type = false;
    while let Some(parent) = e.ir.parent(child) {
        match e.ir.kind(parent) {
            Kind::Annotation => return true,
            Kind::Paren(_)
            | Kind::Spread(_)
            | Kind::Binary {
                op: crate::analysis::ir::BinOp::BitOr,
                ..
            } => {}
            Kind::Collection {
                kind: CollectionKind::Tuple | CollectionKind::List,
                items,
            } => {
                item_index = e.ir.list(items).iter().position(|&i| i == child);
                if child == id && item_index == Some(1) {
                    field_type = true;
                }
            }
            Kind::Pair { value, .. } if value == child && child == id => field_type = true,
            Kind::Collection {
                kind: CollectionKind::Map,
                ..
            } if field_type => {}
            Kind::Index { object, key } if key == child => match typing_name(e, object) {
                Some(name) if name.ends_with("Literal") => return false,
                Some(name) if name.ends_with("Annotated") && item_index != Some(0) => {
                    return false;
                }
                Some(_) => return true,
                // `np.ndarray[...]`, a generic class of the snippet's: types within an
                // annotation; elsewhere (`np.c_[...]`, `os.environ[...]`) an item of data.
                None if e.names_a_type(object, 0) => item_index = None,
                None => return false,
            },
            Kind::Arg { name, .. } => return takes_a_type(e, parent, name, child, id, field_type),
            _ => return false,
        }
        child = parent;
    }
    false
}

/// The fields of a functional form (`NamedTuple("N", fields)`, `TypedDict("T", fields)`,
/// `make_dataclass("C", fields)`) hold types that `typing.get_type_hints` evaluates: read
/// only when written in the call as `(name, type)` pairs or a `{name: type}` dictionary. A
/// collection built elsewhere, spread in, or made by a comprehension holds types the analyzer
/// never sees.
pub fn report_unreadable_fields(e: &mut Engine, call: NodeId) {
    if functional_form(e, call).is_none() {
        return;
    }
    if e.splatted(call) {
        e.dynamic(
            call,
            DynamicKind::CodeEval,
            "fields of a typed form passed with `*` or `**`: their types are text \
             `typing.get_type_hints` may run as code (write the fields in the call)",
        );
        return;
    }
    let fields = e
        .positional_args(call)
        .get(1)
        .copied()
        .or_else(|| e.keyword_arg(call, "fields"));
    let Some(fields) = fields else {
        return;
    };
    let fields = e.ir.unparen(fields);
    let unreadable = match e.ir.kind(fields) {
        Kind::Collection {
            kind: CollectionKind::List | CollectionKind::Tuple,
            items,
        } => e.ir.list(items).iter().copied().find(|&item| {
            !matches!(
                e.ir.kind(e.ir.unparen(item)),
                Kind::Str { .. }
                    | Kind::Collection {
                        kind: CollectionKind::Tuple | CollectionKind::List,
                        ..
                    }
            )
        }),
        Kind::Collection {
            kind: CollectionKind::Map,
            items,
        } => {
            e.ir.list(items)
                .iter()
                .copied()
                .find(|&item| !matches!(e.ir.kind(item), Kind::Pair { .. }))
        }
        Kind::Const(_) => None,
        _ => Some(fields),
    };
    if let Some(part) = unreadable {
        e.dynamic(
            part,
            DynamicKind::CodeEval,
            "fields of a typed form the analyzer cannot read: their types are text \
             `typing.get_type_hints` may run as code (write `(name, type)` pairs in the call)",
        );
    }
}

/// A name standing where the typing machinery evaluates a type, bound to a value that may be
/// text (`code = json.loads(...)`, then `x: Optional[code]`, `NamedTuple("T", [("a", code)])`):
/// the text is evaluated as a type, so it is read as code when it folds, and is text run as code
/// when it does not. Names of classes, functions, imports, builtins and typing constructs are
/// types, not text.
pub fn report_type_name(e: &mut Engine, id: NodeId) {
    let Kind::Name(sym) = e.ir.kind(id) else {
        return;
    };
    if !e.name_may_be_text(sym, id) || !evaluated_as_a_type(e, id) {
        return;
    }
    match e.fold(id, 0) {
        Some(text) => queue_type_text(e, id, &text),
        None => e.dynamic(
            id,
            DynamicKind::CodeEval,
            "a type held in a variable that may be text the analyzer cannot read: \
             `typing.get_type_hints` runs such text as code",
        ),
    }
}

/// `__annotations__` written, or named where it may be: annotations set at run time are text
/// the analyzer never sees, run as code by `typing.get_type_hints`.
pub fn report_annotations_written(e: &mut Engine, id: NodeId) {
    let written = match e.ir.kind(id) {
        Kind::Attr { name, .. } if e.name(name) == ANNOTATIONS => {
            is_store_target(e, id) || changed_in_place(e, id)
        }
        Kind::Bind(sym) => e.name(sym) == ANNOTATIONS,
        Kind::Str { .. } | Kind::Binary { .. } | Kind::Template { .. } | Kind::Call { .. } => {
            e.fold(id, 0).is_some_and(|s| &*s == ANNOTATIONS)
        }
        _ => false,
    };
    if written {
        e.dynamic(
            id,
            DynamicKind::CodeEval,
            "annotations set at run time: `typing.get_type_hints` runs them as code",
        );
    }
}

/// The attribute that names the module a class belongs to.
const MODULE_ATTRIBUTE: &str = "__module__";

/// Calls that take the module to evaluate type text in (`module=`).
const MODULE_TAKERS: &[&str] = &[
    "typing.ForwardRef",
    "annotationlib.ForwardRef",
    "collections.namedtuple",
    "enum.Enum",
    "enum.IntEnum",
    "enum.StrEnum",
    "enum.Flag",
    "enum.IntFlag",
];

/// Forward references, which also take the module third by position.
const FORWARD_REFS: &[&str] = &["typing.ForwardRef", "annotationlib.ForwardRef"];

/// `__module__` set (bound in a class body, stored, `setattr` by name, a namespace's key), the
/// module's `__name__` bound (classes made after take it as their `__module__`), or
/// `module=` given to a typed form or a forward reference: typing evaluates a class's type
/// text in `sys.modules[cls.__module__]`, so a name read as the snippet's own (`"popen"`, for
/// a class it defined) is looked up in another module (`os.popen`).
pub fn report_module_redirect(e: &mut Engine, id: NodeId) {
    let redirected = match e.ir.kind(id) {
        // A class takes its `__module__` from the module's `__name__` when it is made.
        Kind::Bind(sym) => matches!(e.name(sym), MODULE_ATTRIBUTE | "__name__"),
        Kind::Attr { name, .. } => e.name(name) == MODULE_ATTRIBUTE && is_store_target(e, id),
        Kind::Str { .. } => {
            e.ir.str_value(id) == Some(MODULE_ATTRIBUTE) && names_what_is_written(e, id)
        }
        Kind::Call { callee, .. } => {
            let names = e.names_of(callee);
            (e.keyword_arg(id, "module").is_some()
                && (functional_form(e, id).is_some()
                    || names.iter().any(|n| MODULE_TAKERS.contains(&n.as_str()))))
                || (e.positional_args(id).len() > 2
                    && names.iter().any(|n| FORWARD_REFS.contains(&n.as_str())))
                || copies_a_module_onto_a_class(e, id, &names)
        }
        _ => false,
    };
    if redirected {
        e.dynamic(
            id,
            DynamicKind::CodeEval,
            "a class's module set: typing evaluates its type text in that module's \
             namespace, where the names the analyzer read may be anything (leave `__module__` \
             and `module=` out)",
        );
    }
}

/// `functools.update_wrapper(C, f)` and `@functools.wraps(f)` on a class statement copy
/// `f.__module__` onto the class.
fn copies_a_module_onto_a_class(e: &mut Engine, call: NodeId, names: &[String]) -> bool {
    if names.iter().any(|n| n == "functools.update_wrapper") {
        return e.positional_args(call).first().is_some_and(|&target| {
            e.resolve(target, 0).iter().any(|m| {
                matches!(m.value, Value::Local(c) if matches!(e.ir.kind(c), Kind::Class { .. }))
            })
        });
    }
    names.iter().any(|n| n == "functools.wraps")
        && e.ir
            .parent(call)
            .is_some_and(|p| matches!(e.ir.kind(p), Kind::Class { .. }))
}

/// A string naming the attribute a call writes (`setattr(C, "__module__", ...)`) or a key of
/// a namespace (`type("C", (), {"__module__": ...})`).
fn names_what_is_written(e: &mut Engine, id: NodeId) -> bool {
    match e.ir.parent(id).map(|p| (p, e.ir.kind(p))) {
        Some((_, Kind::Pair { key, .. })) => key == id,
        Some((arg, Kind::Arg { .. })) => {
            e.ir.parent(arg).is_some_and(|call| match e.ir.kind(call) {
                Kind::Call { callee, .. } => e
                    .names_of(callee)
                    .iter()
                    .any(|n| n.ends_with("setattr") || n.ends_with("__setattr__")),
                _ => false,
            })
        }
        _ => false,
    }
}

/// `f.__annotations__["x"] = ...`, `f.__annotations__.update(...)`.
fn changed_in_place(e: &mut Engine, id: NodeId) -> bool {
    let Some((parent, child)) = e.ir.context(id) else {
        return false;
    };
    match e.ir.kind(parent) {
        Kind::Index { object, .. } if object == child => is_store_target(e, parent),
        Kind::Attr { object, name } if object == child => MUTATING_METHODS.contains(&e.name(name)),
        _ => false,
    }
}

/// True when a string stands where the typing machinery evaluates it: in an annotation, in a
/// generic's subscript (but not a `Literal`'s values or an `Annotated`'s metadata), or as a
/// `TypeVar`'s bound or constraint.
fn evaluated_as_a_type(e: &mut Engine, id: NodeId) -> bool {
    let ir = e.ir;
    let mut child = id;
    let mut item_index = None;
    let mut field_type = false;
    while let Some(parent) = ir.parent(child) {
        match ir.kind(parent) {
            Kind::Annotation => return true,
            // `{"field": "Type"}`, in the fields of a functional form.
            Kind::Pair { value, .. } if value == child => field_type = true,
            Kind::Index { object, key } if key == child => match typing_name(e, object) {
                Some(name) if name.ends_with("Literal") => return false,
                Some(name) if name.ends_with("Annotated") && item_index != Some(0) => {
                    return false;
                }
                Some(_) => return true,
                None => {}
            },
            Kind::Arg { name, .. } => return takes_a_type(e, parent, name, child, id, field_type),
            Kind::Collection {
                kind: CollectionKind::Tuple | CollectionKind::List,
                items,
            } => {
                item_index = ir.list(items).iter().position(|&i| i == child);
                // `("x", "Type")`: the second item of the innermost pair.
                if child == id && item_index == Some(1) {
                    field_type = true;
                }
            }
            Kind::Collection {
                kind: CollectionKind::Map,
                ..
            } if field_type => {}
            Kind::Paren(_) | Kind::Binary { .. } | Kind::Attr { .. } | Kind::Call { .. } => {}
            Kind::Index { .. } => {}
            _ => return false,
        }
        child = parent;
    }
    false
}

/// Whether the argument `arg` (holding `child`, on the way up from `id`) is evaluated as a
/// type: a functional form's field types (`NamedTuple("N", x="Type")`, every keyword but
/// the form's options; `NamedTuple("N", [("x", "Type")])`, `TypedDict("T", {"x": "Type"})`
/// in the second argument), or a `TypeVar`'s bound and constraints. Any other call's
/// arguments are values, not types.
fn takes_a_type(
    e: &mut Engine,
    arg: NodeId,
    name: Option<crate::analysis::ir::Sym>,
    child: NodeId,
    id: NodeId,
    field_type: bool,
) -> bool {
    let call = e.ir.parent(arg);
    if let Some(form) = call.and_then(|c| functional_form(e, c)) {
        let position = call.and_then(|c| e.positional_args(c).iter().position(|&a| a == child));
        return match name {
            Some(keyword) => !form.options.contains(&e.name(keyword)),
            None => position == Some(1) && child != id && field_type,
        };
    }
    let is_type_var = call.is_some_and(|c| match e.ir.kind(c) {
        Kind::Call { callee, .. } => typing_name(e, callee).is_some_and(|n| n.ends_with("TypeVar")),
        _ => false,
    });
    let first = call.and_then(|c| e.positional_args(c).first().copied());
    let bound = name.is_some_and(|n| e.name(n) == "bound");
    is_type_var && (bound || (name.is_none() && first != Some(child)))
}

/// A call that declares fields with their types, which `typing.get_type_hints` evaluates:
/// `NamedTuple("N", [("x", T)])`, `TypedDict("T", {"x": T})`, `make_dataclass("C", [("x", T)])`,
/// and the keywords of the first two (`NamedTuple("N", x=T)`) but their options.
struct FunctionalForm {
    options: &'static [&'static str],
}

fn functional_form(e: &mut Engine, call: NodeId) -> Option<FunctionalForm> {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return None;
    };
    e.resolve(callee, 0).iter().find_map(|m| match m.value {
        Value::Name(p) | Value::Module(p) if !m.held => {
            let name = e.paths.text(p);
            let typing = name.starts_with("typing.") || name.starts_with("typing_extensions.");
            if typing && (name.ends_with(".NamedTuple") || name.ends_with(".TypedDict")) {
                Some(FunctionalForm {
                    options: &["total", "closed", "module", "extra_items"],
                })
            } else if name == "dataclasses.make_dataclass" {
                // Its keywords are options; its fields come positionally.
                Some(FunctionalForm {
                    options: &[
                        "bases",
                        "namespace",
                        "init",
                        "repr",
                        "eq",
                        "order",
                        "unsafe_hash",
                        "frozen",
                        "match_args",
                        "kw_only",
                        "slots",
                        "weakref_slot",
                        "module",
                    ],
                })
            } else {
                None
            }
        }
        _ => None,
    })
}

/// The name of a typing construct or builtin generic an expression stands for (`typing.List`,
/// `list`, `collections.abc.Callable`).
fn typing_name(e: &mut Engine, id: NodeId) -> Option<String> {
    e.resolve(id, 0).iter().find_map(|m| match m.value {
        Value::Name(p) | Value::Module(p) if !m.held => {
            let name = e.paths.text(p);
            let generic = name.starts_with("typing.")
                || name.starts_with("typing_extensions.")
                || name.starts_with("collections.abc.")
                || matches!(
                    name,
                    "list" | "dict" | "tuple" | "set" | "frozenset" | "type"
                );
            generic.then(|| name.to_owned())
        }
        _ => None,
    })
}
