//! Where the snippet's classes go. A class owns the private names it binds only while no
//! library code can make it a base next to a library class (`class X(catch_warnings, Peek)`)
//! or take its methods unbound: so every way the class object is reached must keep it where
//! the analysis sees. Reached by its name, the class may be made, have the names it defines
//! read, be compared, tested, formatted or printed, stand in a type nobody reads back, or be the
//! base of a class of the snippet's that keeps the same rules. Reached any other way (`cls`,
//! `type(x)`, `x.__class__`, the `__class__` cell, a decorator's parameter), the same holds
//! of that expression; anywhere else (`registry.append(cls)`, `Peek.mro()[0]`,
//! `get_args(List[Peek])[0]`) the class is beyond the analysis, and no class keeps its
//! private names. So too where a class statement or a class-making call (`type(n, bases, ns)`,
//! a metaclass) takes bases computed at run time, which may be any class of the snippet's.

use super::own_members::{
    ATTRGETTER, LOOKUPS, derives_from, first_parameter_of, is_raised_kind, own_ancestry,
    receiver_class,
};
use crate::analysis::engine::meaning::Value;
use crate::analysis::engine::{Engine, Question};
use crate::analysis::ir::{BinOp, Kind, NodeId};

/// Deepest chain of subclasses followed.
const MAX_SUBCLASSES: usize = 4;

/// Whether every use of the class by name, and of its subclasses, keeps it in plain hands
/// (see the module docs), its decorators are known not to hand it on, no class of the
/// snippet is reached by another route and handed on, and no annotation (a name or text
/// naming any class) is read back as an object.
pub fn class_stays_in_plain_hands(e: &mut Engine, class: NodeId) -> bool {
    !reads_annotations(e) && classes_stay_named(e) && stays_plain(e, class, 0)
}

fn stays_plain(e: &mut Engine, class: NodeId, depth: usize) -> bool {
    if depth > MAX_SUBCLASSES || !decorators_keep_it(e, class) {
        return false;
    }
    (0..e.ir.nodes.len() as NodeId).all(|id| {
        // by its name, or as a member (`__main__.Peek`)
        if !matches!(e.ir.kind(id), Kind::Name(_) | Kind::Attr { .. }) {
            return true;
        }
        let names_it = e
            .resolve(id, 0)
            .iter()
            .any(|m| matches!(m.value, Value::Local(c) if c == class));
        !names_it || plain_use(e, id, Some(class), depth)
    })
}

/// Class decorators that return the class they are given, handing it to nothing else.
const PLAIN_CLASS_DECORATORS: &[&str] = &[
    "dataclasses.dataclass",
    "functools.total_ordering",
    "typing.final",
    "typing.runtime_checkable",
    "typing_extensions.final",
    "typing_extensions.runtime_checkable",
    "enum.unique",
];

/// Whether each decorator of the class is one that hands it to nothing: a decorator of the
/// snippet's own gets the class as its parameter, where it may go anywhere.
fn decorators_keep_it(e: &mut Engine, class: NodeId) -> bool {
    let Kind::Class { heads, .. } = e.ir.kind(class) else {
        return false;
    };
    e.ir.list(heads).to_vec().into_iter().all(|head| {
        if matches!(e.ir.kind(head), Kind::Arg { .. }) {
            return true; // a base or keyword
        }
        let decorator = match e.ir.kind(e.ir.unparen(head)) {
            Kind::Call { callee, .. } => callee, // `@dataclass(frozen=True)`
            _ => head,
        };
        let names = e.names_of(decorator);
        !names.is_empty()
            && names
                .iter()
                .all(|n| PLAIN_CLASS_DECORATORS.contains(&n.as_str()))
    })
}

/// Attributes of any class that only describe it, as text.
pub const CLASS_DESCRIPTIONS: &[&str] = &["__name__", "__qualname__", "__module__", "__doc__"];

/// Functions that only show, compare, measure or identify what they are given, a class among
/// anything else.
pub const CLASS_READERS: &[&str] = &[
    "print",
    "str",
    "repr",
    "format",
    "isinstance",
    "issubclass",
    "id",
    "hash",
    "len",
    "callable",
];

/// Whether the expression `id`, which may be `class` (or, with `None`, any class of the
/// snippet's), is used in a way that keeps it in plain hands.
fn plain_use(e: &mut Engine, id: NodeId, class: Option<NodeId>, depth: usize) -> bool {
    if super::annotations::in_type_position(e, id) {
        return true; // `List[Shape]`: a type, made into nothing unless annotations are read
    }
    let Some(parent) = e.ir.parent(id) else {
        return false;
    };
    match e.ir.kind(parent) {
        Kind::Paren(_) => plain_use(e, parent, class, depth),
        Kind::Call { callee, .. } => callee == id,
        // `Peek.CONST`, `Peek.get`: what the class itself defines (its methods taken from it
        // are judged by `methods_taken_unbound`); `Peek.mro()` is the metaclass's.
        Kind::Attr { object, name } if object == id => {
            let name = e.name(name);
            CLASS_DESCRIPTIONS.contains(&name)
                || name == "__init__"
                || class.is_some_and(|c| super::own_members::defines(e, c, name, 0))
        }
        // `Node[T]` in a type, or made: `Node[int](value)`
        Kind::Index { object, .. } if object == id => {
            super::annotations::in_type_position(e, parent)
                || e.ir.parent(parent).is_some_and(
                    |call| matches!(e.ir.kind(call), Kind::Call { callee, .. } if callee == parent),
                )
        }
        Kind::Binary {
            op: BinOp::Compare, ..
        }
        | Kind::Compared
        | Kind::Interp { .. } => true,
        Kind::Arg { name: None, .. } if given_to_a_plain_consumer(e, parent) => true,
        // `super().__new__(cls)`, `object.__new__(cls)`: an instance made of it
        Kind::Arg { name: None, .. } if makes_an_instance(e, parent, id) => true,
        // the base of a class of the snippet's that keeps the same rules
        Kind::Arg { name: None, .. } => e.ir.parent(parent).is_some_and(|subclass| {
            matches!(e.ir.kind(subclass), Kind::Class { .. })
                && own_ancestry(e, subclass, 0)
                && !is_raised_kind(e, subclass)
                && stays_plain(e, subclass, depth + 1)
        }),
        _ => false,
    }
}

/// Whether the argument is given to a function that only shows, compares or identifies it.
fn given_to_a_plain_consumer(e: &mut Engine, arg: NodeId) -> bool {
    e.ir.parent(arg).is_some_and(|call| match e.ir.kind(call) {
        Kind::Call { callee, .. } => {
            let names = e.names_of(callee);
            // `super(C, self)`: what it gives is judged by `methods_taken_unbound`
            !names.is_empty()
                && names
                    .iter()
                    .all(|n| n == "super" || CLASS_READERS.contains(&n.as_str()))
        }
        _ => false,
    })
}

/// Whether the argument is the first given to a `__new__`, which makes an instance of it.
fn makes_an_instance(e: &mut Engine, arg: NodeId, value: NodeId) -> bool {
    e.ir.parent(arg).is_some_and(|call| match e.ir.kind(call) {
        Kind::Call { callee, .. } => {
            matches!(e.ir.kind(e.ir.unparen(callee)), Kind::Attr { name, .. } if e.name(name) == "__new__")
                && e.positional_args(call).first() == Some(&value)
        }
        _ => false,
    })
}

/// Whether the snippet may read its annotations back as objects (`get_type_hints`,
/// `get_args`, a dataclass's `fields`, `singledispatch`'s registry): a class named in a type,
/// by name or by text (`x: "Peek"`), is then a value like any other.
fn reads_annotations(e: &mut Engine) -> bool {
    if let Some(&known) = e.verdicts.get(&(0, Question::ReadsAnnotations)) {
        return known;
    }
    let mut reads = false;
    for id in 0..e.ir.nodes.len() as NodeId {
        if !matches!(e.ir.kind(id), Kind::Name(_) | Kind::Attr { .. }) {
            continue;
        }
        reads = e.names_of(id).iter().any(|n| {
            let (module, member) = n.rsplit_once('.').unwrap_or(("", n));
            matches!(module, "typing" | "typing_extensions") && member.starts_with("get_")
                || matches!(module, "inspect" | "annotationlib")
                || n == "dataclasses.fields" && reads_a_field_type(e)
                || n.starts_with("functools.singledispatch")
        });
        if reads {
            break;
        }
    }
    e.verdicts.insert((0, Question::ReadsAnnotations), reads);
    reads
}

/// Whether the snippet may read a dataclass field's `type`: an attribute so named, or a
/// lookup by a name that may be it (`fields(C)` alone gives names and defaults).
fn reads_a_field_type(e: &mut Engine) -> bool {
    (0..e.ir.nodes.len() as NodeId).any(|id| match e.ir.kind(id) {
        Kind::Attr { name, .. } => e.name(name) == "type",
        Kind::Arg { value, .. } => {
            let lookup = e.ir.parent(id).is_some_and(|call| match e.ir.kind(call) {
                Kind::Call { callee, .. } => e
                    .names_of(callee)
                    .iter()
                    .any(|n| LOOKUPS.contains(&n.as_str())),
                _ => false,
            });
            lookup && e.fold(value, 0).is_none_or(|t| t.contains("type"))
        }
        _ => false,
    })
}

/// Whether every class of the snippet reached other than by its name stays in plain hands:
/// the first parameter of a `classmethod`, `__init_subclass__`, `__class_getitem__` or
/// `__new__`; the `__class__` cell; `type(x)`, `x.__class__` and `__class__` looked up by
/// name (see `looks_up_the_class`); and whether every class statement's or class-making
/// call's
/// statement's bases are read (see `bases_are_readable`).
fn classes_stay_named(e: &mut Engine) -> bool {
    let key = (0, Question::ClassesStayNamed);
    if let Some(&known) = e.verdicts.get(&key) {
        return known;
    }
    // Assumed while asking, so that the question does not ask itself again.
    e.verdicts.insert(key, true);
    let mut stays = true;
    for id in 0..e.ir.nodes.len() as NodeId {
        let class = match e.ir.kind(id) {
            Kind::Class { .. } if !bases_are_readable(e, id) => {
                stays = false;
                break;
            }
            Kind::Call { .. } if !made_class_bases_are_readable(e, id) => {
                stays = false;
                break;
            }
            Kind::Name(sym) if e.name(sym) == "__class__" => {
                e.ir.enclosing_function(id)
                    .and_then(|f| e.ir.parent(f))
                    .filter(|&c| matches!(e.ir.kind(c), Kind::Class { .. }))
            }
            Kind::Name(_) => match first_parameter_of(e, id) {
                Some((class, method)) if receives_the_class(e, method) => Some(class),
                _ => continue,
            },
            Kind::Attr { object, name } if e.name(name) == "__class__" => {
                receiver_class(e, e.ir.unparen(object))
            }
            Kind::Call { callee, .. }
                if e.positional_args(id).len() == 1
                    && e.names_of(callee).iter().any(|n| n == "type") =>
            {
                let arg = e.positional_args(id)[0];
                receiver_class(e, e.ir.unparen(arg))
            }
            Kind::Call { .. } => match looks_up_the_class(e, id) {
                Some(true) => None,
                Some(false) => {
                    stays = false; // something of the class, taken by name
                    break;
                }
                None => continue,
            },
            _ => continue,
        };
        if !plain_use(e, id, class, 0) {
            stays = false;
            break;
        }
    }
    e.verdicts.insert(key, stays);
    stays
}

/// Whether each base of a class statement is a class of the snippet's or a library's name: a
/// base computed at run time (`KINDS[0]`) may be any class of the snippet's, however it got
/// there, next to a library base.
fn bases_are_readable(e: &mut Engine, class: NodeId) -> bool {
    let Kind::Class { heads, .. } = e.ir.kind(class) else {
        return false;
    };
    e.ir.list(heads).to_vec().into_iter().all(|head| {
        let Kind::Arg {
            name: None, value, ..
        } = e.ir.kind(head)
        else {
            return true; // a decorator, or a keyword
        };
        base_is_readable(e, value)
    })
}

/// Calls that make a class from a tuple of bases, and where the bases are given.
const CLASS_MAKERS: &[(&str, usize, &str)] = &[
    ("type", 1, "bases"),
    ("abc.ABCMeta", 1, "bases"),
    ("types.new_class", 1, "bases"),
    ("dataclasses.make_dataclass", usize::MAX, "bases"),
];

/// Whether a call that makes a class (`type(name, bases, ns)`, a metaclass, `make_dataclass`)
/// is given bases written out, each read as for a class statement; true for other calls.
fn made_class_bases_are_readable(e: &mut Engine, call: NodeId) -> bool {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return true;
    };
    let names = e.names_of(callee);
    let own_metaclass = e
        .resolve(callee, 0)
        .to_vec()
        .into_iter()
        .any(|m| matches!(m.value, Value::Local(c) if is_a_metaclass(e, c)));
    let maker = CLASS_MAKERS
        .iter()
        .find(|(n, ..)| names.iter().any(|name| name == n))
        .map(|&(_, at, keyword)| (at, keyword))
        .or(own_metaclass.then_some((1, "bases")));
    let Some((at, keyword)) = maker else {
        return true;
    };
    if names.iter().any(|n| n == "type") && e.positional_args(call).len() < 3 {
        return true; // `type(x)`: the class of `x`, judged elsewhere
    }
    if e.splatted(call) {
        return false;
    }
    let Some(bases) = e.arg(call, at, keyword) else {
        return true;
    };
    match e.ir.kind(e.ir.unparen(bases)) {
        Kind::Collection { items, .. } => {
            e.ir.list(items)
                .to_vec()
                .into_iter()
                .all(|base| base_is_readable(e, base))
        }
        _ => false,
    }
}

/// Whether a base is one of the snippet's classes, or a library's by name (or a generic of
/// one: `Generic[T]`).
fn base_is_readable(e: &mut Engine, value: NodeId) -> bool {
    let base = match e.ir.kind(e.ir.unparen(value)) {
        Kind::Index { object, .. } => object,
        _ => value,
    };
    let meanings = e.resolve(base, 0).to_vec();
    !meanings.is_empty()
        && meanings.iter().all(|m| {
            !m.held && matches!(m.value, Value::Local(_) | Value::Name(_) | Value::Module(_))
        })
}

/// Whether a call reads `__class__` by a name given as text: `getattr(x, "__class__")`, or
/// `attrgetter("__class__")(x)`. `Some(true)` when it gives the class itself, `Some(false)`
/// when what it gives is reached through the class (`attrgetter("__class__.grab")`, several
/// names at once).
pub(super) fn looks_up_the_class(e: &mut Engine, call: NodeId) -> Option<bool> {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return None;
    };
    // `getattr(x, name)`, `inspect.getattr_static(x, name)`
    let names = e.names_of(callee);
    let texts: Vec<NodeId> = if names
        .iter()
        .any(|n| n != ATTRGETTER && LOOKUPS.contains(&n.as_str()))
    {
        e.positional_args(call)
            .get(1)
            .copied()
            .into_iter()
            .collect()
    } else {
        // `attrgetter("__class__")(x)`: the getter is made by the callee
        let callee = e.ir.unparen(callee);
        match e.ir.kind(callee) {
            Kind::Call { callee: maker, .. }
                if e.names_of(maker).iter().any(|n| n == ATTRGETTER) =>
            {
                e.positional_args(callee)
            }
            _ => return None,
        }
    };
    let mut names_the_class = false;
    for &text in &texts {
        names_the_class |= e
            .fold(text, 0)
            .is_some_and(|t| t.split('.').any(|step| step == "__class__"));
    }
    if !names_the_class {
        return None;
    }
    let exactly = texts.len() == 1 && e.fold(texts[0], 0).as_deref() == Some("__class__");
    Some(exactly)
}

/// Whether a method's first parameter is a class rather than an instance: in a
/// `classmethod`, `__init_subclass__`, `__class_getitem__` or `__new__`, or in any method of a
/// metaclass.
pub(super) fn receives_the_class(e: &mut Engine, method: NodeId) -> bool {
    let Kind::Function {
        name, decorators, ..
    } = e.ir.kind(method)
    else {
        return false;
    };
    let special = name.is_some_and(|n| {
        matches!(e.ir.kind(n), Kind::Bind(sym) if matches!(
            e.name(sym),
            "__init_subclass__" | "__class_getitem__" | "__new__"
        ))
    });
    special
        || e.ir
            .list(decorators)
            .to_vec()
            .into_iter()
            .any(|d| e.names_of(d).iter().any(|n| n == "classmethod"))
        || e.ir
            .parent(method)
            .is_some_and(|class| is_a_metaclass(e, class))
}

/// Whether a class of the snippet's derives from `type` (or abc's `ABCMeta`): its
/// instances are classes.
fn is_a_metaclass(e: &mut Engine, class: NodeId) -> bool {
    derives_from(e, class, 0, &|text, _| {
        matches!(text, "type" | "abc.ABCMeta")
    })
}
