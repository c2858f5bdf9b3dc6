//! Private attributes the snippet gives its own objects. A private name (`_x`) on anything else
//! is a library's internals (`np.zeros(1).ctypes._ctypes`, `ForwardRef(t)._evaluate`), which a
//! strict policy allows on nothing; on `self` in a method of one of the snippet's classes, or
//! on such a class by name, it is the snippet's own state when that class (or a class of the
//! snippet it derives from) defines it, in its body or by assigning it in a method.
//!
//! `self` is the snippet's own object only while nothing else can be passed as it: a method
//! with a decorator that may change what its first parameter receives (`staticmethod`, any
//! the analyzer does not know), or a method of the class taken from a class by name and not
//! called with a trusted receiver (`Peek.get(library_object)`, `partial(Peek.get, ...)`, a
//! `staticmethod` relaying its argument), gives it any object, whose private names are a
//! library's internals again. And the names are the class's own only while no library code
//! may set them on its objects: no library base or metaclass in its ancestry or any
//! subclass's, no library method run on its objects (`catch_warnings.__init__(self)`), no
//! exception or warning in it (the interpreter hands such a class back whole), and the class
//! object never reached where the analysis does not follow it (`class_uses`).

use crate::analysis::engine::meaning::Value;
use crate::analysis::engine::rewrites::is_store_target;
use crate::analysis::engine::scopes::{ScopeId, binding_construct};
use crate::analysis::engine::{Engine, Question};
use crate::analysis::ir::{Kind, NodeId, Sym};

/// Deepest chain of the snippet's own base classes followed.
const MAX_BASES: usize = 4;

/// True when `object.name` is an attribute the snippet itself defines on its own object.
pub fn is_own_member(e: &mut Engine, object: NodeId, name: &str) -> bool {
    let object = e.ir.unparen(object);
    if !matches!(e.ir.kind(object), Kind::Name(_)) {
        return false;
    }
    let class = match receiver_class(e, object) {
        Some(class) => class,
        None => {
            let meanings = e.resolve(object, 0);
            match meanings.as_ref() {
                [m] if !m.held => match m.value {
                    Value::Local(node) if matches!(e.ir.kind(node), Kind::Class { .. }) => node,
                    _ => return false,
                },
                _ => return false,
            }
        }
    };
    keeps_its_own_members(e, class) && defines(e, class, name, 0)
}

/// Whether what the class's objects hold and do is the snippet's own: its ancestry is plain
/// (see `own_ancestry`), it is no exception or warning (see `is_raised_kind`), and it stays
/// where the analysis sees it (see `class_uses`).
pub fn keeps_its_own_members(e: &mut Engine, class: NodeId) -> bool {
    let key = (class, Question::KeepsItsOwnMembers);
    if let Some(&known) = e.verdicts.get(&key) {
        return known;
    }
    let keeps = own_ancestry(e, class, 0)
        && !is_raised_kind(e, class)
        && super::class_uses::class_stays_in_plain_hands(e, class);
    e.verdicts.insert(key, keeps);
    keeps
}

/// Roots of bases that set no private names on an instance: builtins (`object`,
/// `Exception`, `dict`), typing's and abc's constructs (`Generic[T]`, `ABC`), and
/// scikit-learn's estimator bases and mixins, which custom estimators derive from (they set
/// only their own configuration's private names, never a capability).
const PLAIN_BASE_ROOTS: &[&str] = &[
    "typing.",
    "typing_extensions.",
    "abc.",
    "collections.abc.",
    "sklearn.base.",
];

/// Builtins a class may derive from that are not exceptions or warnings. Any other builtin
/// base (`ExceptionGroup`, `KeyboardInterrupt`, `OSError`) is taken for one: the test is the
/// builtin's kind, whatever it is called.
const PLAIN_BUILTIN_BASES: &[&str] = &[
    "object",
    "dict",
    "list",
    "tuple",
    "set",
    "frozenset",
    "str",
    "int",
    "float",
    "complex",
    "bytes",
    "bytearray",
    "type",
];

/// Whether the class is an exception or a warning (a builtin base other than
/// `PLAIN_BUILTIN_BASES` is in its ancestry): the
/// interpreter and libraries hand such a class back whole wherever it is raised or warned
/// (`sys.exc_info()[0]`, a warning record's `category`, `__exit__`'s first argument, a log
/// record's `exc_info`), past every route the analysis follows, so it owns no private names,
/// and neither do the classes of the snippet's it derives from.
pub(super) fn is_raised_kind(e: &mut Engine, class: NodeId) -> bool {
    derives_from(e, class, 0, &|text, builtin| {
        builtin && !PLAIN_BUILTIN_BASES.contains(&text)
    })
}

/// Whether a base of the class, or of a class of the snippet's it derives from, is a library
/// or builtin name (its text, and whether it is a builtin's) that `root` accepts; true past
/// the deepest chain followed.
pub(super) fn derives_from(
    e: &mut Engine,
    class: NodeId,
    depth: usize,
    root: &dyn Fn(&str, bool) -> bool,
) -> bool {
    let Kind::Class { heads, .. } = e.ir.kind(class) else {
        return false;
    };
    if depth > MAX_BASES {
        return true;
    }
    e.ir.list(heads).to_vec().into_iter().any(|head| {
        let Kind::Arg {
            name: None, value, ..
        } = e.ir.kind(head)
        else {
            return false;
        };
        e.resolve(value, 0)
            .to_vec()
            .into_iter()
            .any(|m| match m.value {
                Value::Local(base) => derives_from(e, base, depth + 1, root),
                Value::Name(p) => root(e.paths.text(p), e.paths.module_len(p) == 0),
                _ => false,
            })
    })
}

/// Plain bases whose subclasses make classes rather than instances.
const METACLASSES: &[&str] = &["type", "abc.ABCMeta"];

/// Whether every base of the class, and of its own bases, is one of the snippet's classes, a
/// builtin or a typing construct: a library base's `__init__` may set the very private names
/// the class binds (`warnings.catch_warnings` sets `_module`), and the instance's win.
pub(super) fn own_ancestry(e: &mut Engine, class: NodeId, depth: usize) -> bool {
    let Kind::Class { heads, .. } = e.ir.kind(class) else {
        return false;
    };
    if depth > MAX_BASES {
        return false;
    }
    for head in e.ir.list(heads).to_vec() {
        let Kind::Arg { name, value, .. } = e.ir.kind(head) else {
            continue; // a decorator
        };
        match name.map(|n| e.name(n)) {
            None => {}
            // a metaclass's `__call__` makes the instances: the snippet's own, or abc's
            Some("metaclass") => {
                let meanings = e.resolve(value, 0).to_vec();
                let known = !meanings.is_empty()
                    && meanings.iter().all(|m| match m.value {
                        Value::Local(c) => matches!(e.ir.kind(c), Kind::Class { .. }),
                        Value::Name(p) => e.paths.text(p) == "abc.ABCMeta",
                        _ => false,
                    });
                if !known {
                    return false;
                }
                continue;
            }
            Some(_) => continue, // class keywords, given to `__init_subclass__`
        }
        let base = match e.ir.kind(e.ir.unparen(value)) {
            Kind::Index { object, .. } => object, // `Generic[T]`
            _ => value,
        };
        let meanings = e.resolve(base, 0).to_vec();
        let plain = !meanings.is_empty()
            && meanings.iter().all(|m| match m.value {
                Value::Local(node) if !m.held && matches!(e.ir.kind(node), Kind::Class { .. }) => {
                    own_ancestry(e, node, depth + 1)
                }
                Value::Name(p) | Value::Module(p) if !m.held => {
                    let text = e.paths.text(p);
                    // a metaclass's instances are classes, with whatever bases it is given
                    !METACLASSES.contains(&text)
                        && (e.paths.module_len(p) == 0
                            || PLAIN_BASE_ROOTS.iter().any(|r| text.starts_with(r)))
                }
                _ => false,
            });
        if !plain {
            return false;
        }
    }
    true
}

/// The class whose method has `name` (a `Name` node) as its first parameter, and nothing else
/// bound to it (`self` or `cls`), when that parameter can only be the class's own object.
pub fn receiver_class(e: &mut Engine, name: NodeId) -> Option<NodeId> {
    receiver_class_among(e, name, &mut Vec::new())
}

/// `receiver_class`, with the classes whose receivers are being asked about already: a
/// method passing its receiver to a method of a class on that list (`Base.__init__(self)`)
/// is judged as that class is, not asked about again.
fn receiver_class_among(e: &mut Engine, name: NodeId, asking: &mut Vec<NodeId>) -> Option<NodeId> {
    let (class, method) = first_parameter_of(e, name)?;
    if !keeps_its_receiver(e, method) {
        return None;
    }
    if asking.contains(&class) {
        return Some(class);
    }
    // Only a verdict reached from no assumption is kept: one reached while other classes
    // were assumed trusted holds only under that assumption.
    let key = (class, Question::ReceiverTrusted);
    if let Some(&known) = e.verdicts.get(&key) {
        return known.then_some(class);
    }
    if asking.len() > MAX_BASES {
        return None;
    }
    asking.push(class);
    let trusted = !methods_taken_unbound(e, class, asking) && !library_code_runs_on(e, class);
    asking.pop();
    if asking.is_empty() {
        e.verdicts.insert(key, trusted);
    }
    trusted.then_some(class)
}

/// The class and method whose first parameter `name` is, when nothing else binds it.
pub(super) fn first_parameter_of(e: &mut Engine, name: NodeId) -> Option<(NodeId, NodeId)> {
    let Kind::Name(sym) = e.ir.kind(name) else {
        return None;
    };
    let lookup = e
        .scopes
        .lookup(sym, e.scopes.scope_of(name), e.dialect.declaring());
    let [scope] = lookup.scopes.as_slice() else {
        return None;
    };
    let mut found = None;
    for bind in e.binds_of(*scope, sym) {
        let param = binding_construct(e.ir, bind)?;
        let method = e.ir.parent(param)?;
        let Kind::Function { params, .. } = e.ir.kind(method) else {
            return None;
        };
        let class = e.ir.parent(method)?;
        if e.ir.list(params).first() != Some(&param)
            || !matches!(e.ir.kind(class), Kind::Class { .. })
            || found.is_some_and(|f| f != (class, method))
        {
            return None;
        }
        found = Some((class, method));
    }
    found
}

/// Decorators that leave a method's first parameter the instance or the class.
const RECEIVER_KEEPING_DECORATORS: &[&str] = &[
    "classmethod",
    "property",
    "functools.cached_property",
    "abc.abstractmethod",
];

/// True when every decorator of a method leaves its first parameter the receiver: a known
/// one, or a property's `.setter`/`.getter`/`.deleter`.
fn keeps_its_receiver(e: &mut Engine, function: NodeId) -> bool {
    let Kind::Function { decorators, .. } = e.ir.kind(function) else {
        return false;
    };
    e.ir.list(decorators).to_vec().into_iter().all(|decorator| {
        let decorator = e.ir.unparen(decorator);
        if let Kind::Attr { name, .. } = e.ir.kind(decorator)
            && matches!(e.name(name), "setter" | "getter" | "deleter")
        {
            return true;
        }
        let names = e.names_of(decorator);
        !names.is_empty()
            && names
                .iter()
                .all(|n| RECEIVER_KEEPING_DECORATORS.contains(&n.as_str()))
    })
}

/// True when a method of `class` (a name its body binds to a function, or to anything but
/// plain data) is reached on one of the snippet's classes by name other than in a call whose
/// first argument is itself a method's receiver (`Base.__init__(self)` is fine): such a
/// method may be given any object as `self`.
fn methods_taken_unbound(e: &mut Engine, class: NodeId, asking: &mut Vec<NodeId>) -> bool {
    let Some(body_scope) = e.scopes.own(class) else {
        return true;
    };
    for id in 0..e.ir.nodes.len() as NodeId {
        if named_for_a_lookup(e, id, body_scope) || named_in_the_body(e, id, body_scope) {
            return true;
        }
        let Kind::Attr { object, name } = e.ir.kind(id) else {
            continue;
        };
        if !may_be_own_class(e, object) || !binds_a_method(e, body_scope, name) {
            continue;
        }
        let called_with_a_receiver = e.ir.parent(id).is_some_and(|call| {
            matches!(e.ir.kind(call), Kind::Call { callee, .. } if callee == id)
                && e.positional_args(call).first().is_some_and(|&first| {
                    let first = e.ir.unparen(first);
                    first != id && receiver_class_among(e, first, asking).is_some()
                })
        });
        if !called_with_a_receiver {
            return true;
        }
    }
    false
}

/// Whether a library class's method is run on an object of the class (`catch_warnings.__init__
/// (self)`, `partial(catch_warnings.__init__, self)`, or on an instance made of it): the
/// library's code then sets its own private names on the snippet's object.
fn library_code_runs_on(e: &mut Engine, class: NodeId) -> bool {
    for call in 0..e.ir.nodes.len() as NodeId {
        let Kind::Call { callee, .. } = e.ir.kind(call) else {
            continue;
        };
        let args = e.positional_args(call);
        let library_method = std::iter::once(callee)
            .chain(args.iter().copied())
            .any(|part| is_a_library_class_attribute(e, part));
        if library_method && args.iter().any(|&arg| is_of_class(e, arg, class)) {
            return true;
        }
    }
    false
}

/// `warnings.catch_warnings.__init__`: an attribute of a library's class (or of any member
/// of a module: a class's name need not have a capital).
fn is_a_library_class_attribute(e: &mut Engine, id: NodeId) -> bool {
    let Kind::Attr { object, .. } = e.ir.kind(e.ir.unparen(id)) else {
        return false;
    };
    e.resolve(object, 0).iter().any(|m| match m.value {
        Value::Name(p) if !m.held && e.paths.module_len(p) > 0 => {
            let text = e.paths.text(p);
            !PLAIN_BASE_ROOTS.iter().any(|r| text.starts_with(r))
        }
        _ => false,
    })
}

/// Whether an argument may be an object of the class: its receiver, the class, an instance
/// made right there, or a name bound (by assignment, walrus or as a loop's item) to one or
/// to a literal collection holding one (`for p in [Peek()]`).
fn is_of_class(e: &mut Engine, arg: NodeId, class: NodeId) -> bool {
    let arg = e.ir.unparen(arg);
    first_parameter_of(e, arg).is_some_and(|(c, _)| c == class) || holds_of_class(e, arg, class, 0)
}

/// Whether a value is the class, an instance made of it, a literal collection holding one, or
/// a name any of whose bindings is one of those.
fn holds_of_class(e: &mut Engine, value: NodeId, class: NodeId, depth: usize) -> bool {
    let value = e.ir.unparen(value);
    let target = match e.ir.kind(value) {
        Kind::Call { callee, .. } => callee,
        _ => value,
    };
    if e.resolve(target, 0)
        .iter()
        .any(|m| matches!(m.value, Value::Local(c) if c == class))
    {
        return true;
    }
    if depth > MAX_BASES {
        return false;
    }
    match e.ir.kind(value) {
        Kind::Collection { items, .. } => e.ir.list(items).to_vec().into_iter().any(|item| {
            let item = match e.ir.kind(item) {
                Kind::Pair { value, .. } => value,
                Kind::Spread(inner) => inner,
                _ => item,
            };
            holds_of_class(e, item, class, depth + 1)
        }),
        Kind::Name(sym) => {
            let lookup = e
                .scopes
                .lookup(sym, e.scopes.scope_of(value), e.dialect.declaring());
            let Some(&scope) = lookup.scopes.first() else {
                return false;
            };
            e.binds_of(scope, sym).into_iter().any(|bind| {
                let source = binding_construct(e.ir, bind).and_then(|c| match e.ir.kind(c) {
                    Kind::Assign { value, .. } | Kind::Walrus { value, .. } => Some(value),
                    Kind::For { iter, .. } | Kind::CompFor { iter, .. } => Some(iter),
                    _ => None,
                });
                source.is_some_and(|source| holds_of_class(e, source, class, depth + 1))
            })
        }
        _ => false,
    }
}

/// Functions that take an attribute by the name given as text.
pub(super) const LOOKUPS: &[&str] = &["getattr", ATTRGETTER, "inspect.getattr_static"];

/// The lookup that makes a getter of the name, called on the object later.
pub(super) const ATTRGETTER: &str = "operator.attrgetter";

/// Whether `id` is text naming one of the class's methods, given to a lookup by name
/// (`getattr(Peek, "get")`, `attrgetter("get")(Peek)`): the method taken from the class.
fn named_for_a_lookup(e: &mut Engine, id: NodeId, body_scope: ScopeId) -> bool {
    let Some(text) = e.ir.str_value(id) else {
        return false;
    };
    let Some(sym) = e.ir.names.get(text) else {
        return false;
    };
    let Some(call) =
        e.ir.parent(id)
            .filter(|&arg| matches!(e.ir.kind(arg), Kind::Arg { .. }))
            .and_then(|arg| e.ir.parent(arg))
    else {
        return false;
    };
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return false;
    };
    e.names_of(callee)
        .iter()
        .any(|n| LOOKUPS.contains(&n.as_str()))
        && binds_a_method(e, body_scope, sym)
}

/// Whether `id` is a method's function named bare where the class body's names are seen (a
/// default value, a wrapper's argument, a container's item, a comprehension in the body:
/// `reach = staticmethod(get)`, `def run(self, f=get)`): the function itself, which takes any
/// object as `self`. Only a property made of it (`property(get)`, `@get.setter`) keeps its
/// receiver an instance; the property reached on the class is judged as any method is.
fn named_in_the_body(e: &mut Engine, id: NodeId, body_scope: ScopeId) -> bool {
    let Kind::Name(sym) = e.ir.kind(id) else {
        return false;
    };
    let lookup = e
        .scopes
        .lookup(sym, e.scopes.scope_of(id), e.dialect.declaring());
    if !lookup.scopes.contains(&body_scope) || !binds_a_method(e, body_scope, sym) {
        return false;
    }
    let makes_a_property = match e.ir.parent(id).map(|p| (p, e.ir.kind(p))) {
        Some((_, Kind::Attr { name, .. })) => {
            matches!(e.name(name), "setter" | "getter" | "deleter")
        }
        Some((arg, Kind::Arg { name: None, .. })) => e.ir.parent(arg).is_some_and(|call| {
            matches!(e.ir.kind(call), Kind::Call { callee, .. }
                if e.names_of(callee) == ["property"])
        }),
        _ => false,
    };
    !makes_a_property
}

/// Whether an expression may be one of the snippet's classes rather than an instance: a
/// name for one, `type(x)`, `x.__class__` (or looked up by name), the `__class__` cell, a `classmethod`'s `cls`
/// (see `receives_the_class`), or `super(...)` other than an instance's.
fn may_be_own_class(e: &mut Engine, object: NodeId) -> bool {
    let object = e.ir.unparen(object);
    let own = e.resolve(object, 0).iter().any(
        |m| matches!(m.value, Value::Local(node) if matches!(e.ir.kind(node), Kind::Class { .. })),
    );
    own || match e.ir.kind(object) {
        Kind::Call { callee, .. } => {
            let names = e.names_of(callee);
            names.iter().any(|n| n == "type")
                || names.iter().any(|n| n == "super") && !is_an_instances_super(e, object)
                || super::class_uses::looks_up_the_class(e, object).is_some()
        }
        Kind::Attr { name, .. } => e.name(name) == "__class__",
        Kind::Name(sym) if e.name(sym) == "__class__" => true,
        Kind::Name(_) => first_parameter_of(e, object)
            .is_some_and(|(_, method)| super::class_uses::receives_the_class(e, method)),
        _ => false,
    }
}

/// Whether a `super` call stands for an instance (`super()` in a method whose receiver is an
/// instance, `super(C, self)`), whose attributes are bound methods; in a `classmethod`, or as
/// `super(C, C)`, its methods are the functions themselves, taking any object as `self`.
fn is_an_instances_super(e: &mut Engine, call: NodeId) -> bool {
    let is_an_instance = |e: &mut Engine, name: NodeId| {
        first_parameter_of(e, e.ir.unparen(name))
            .is_some_and(|(_, method)| !super::class_uses::receives_the_class(e, method))
    };
    match e.positional_args(call).as_slice() {
        [] => e.ir.enclosing_function(call).is_some_and(|method| {
            let Kind::Function { params, .. } = e.ir.kind(method) else {
                return false;
            };
            let first = e.ir.list(params).first().copied();
            e.ir.parent(method)
                .is_some_and(|class| matches!(e.ir.kind(class), Kind::Class { .. }))
                && first.is_some()
                && !super::class_uses::receives_the_class(e, method)
        }),
        [_, second] => is_an_instance(e, *second),
        _ => false,
    }
}

/// Whether the class body binds `name` to a method whose first parameter is an instance (a
/// `classmethod` is bound to the class however it is reached; a `staticmethod` has no
/// receiver), or to anything else but plain data (`alias = get`).
fn binds_a_method(e: &mut Engine, body_scope: ScopeId, name: Sym) -> bool {
    e.binds_of(body_scope, name).into_iter().any(|bind| {
        match e.ir.parent(bind).map(|p| e.ir.kind(p)) {
            Some(Kind::Assign { value, .. }) => {
                !(e.is_plain_data(value)
                    || e.is_numeric(value)
                    || matches!(e.ir.kind(e.ir.unparen(value)), Kind::Const(_)))
            }
            Some(Kind::Function { decorators, .. }) => {
                !e.ir.list(decorators).to_vec().into_iter().any(|d| {
                    e.names_of(d)
                        .iter()
                        .any(|n| n == "classmethod" || n == "staticmethod")
                })
            }
            _ => true,
        }
    })
}

/// True when the class binds `name` in its body, assigns it to its own receiver in a method,
/// or derives from a class of the snippet that does.
pub(super) fn defines(e: &mut Engine, class: NodeId, name: &str, depth: usize) -> bool {
    if depth > MAX_BASES {
        return false;
    }
    let body_scope = e.scopes.own(class);
    let (_, end) = e.ir.span(class);
    let mut bases = Vec::new();
    let mut id = class + 1;
    while (id as usize) < e.ir.nodes.len() && e.ir.span(id).0 < end {
        match e.ir.kind(id) {
            Kind::Bind(sym)
                if e.name(sym) == name
                    && body_scope.is_some()
                    && e.scopes.bind_scope(id) == body_scope =>
            {
                return true;
            }
            Kind::Attr { object, name: attr }
                if e.name(attr) == name
                    && is_store_target(e, id)
                    && receiver_class(e, e.ir.unparen(object)) == Some(class) =>
            {
                return true;
            }
            Kind::Arg { value, .. } if e.ir.parent(id) == Some(class) => bases.push(value),
            _ => {}
        }
        id += 1;
    }
    for base in bases {
        let meanings = e.resolve(base, 0).to_vec();
        for m in meanings {
            if let Value::Local(node) = m.value
                && !m.held
                && matches!(e.ir.kind(node), Kind::Class { .. })
                && defines(e, node, name, depth + 1)
            {
                return true;
            }
        }
    }
    false
}
