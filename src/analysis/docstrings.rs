//! Doctest examples. `doctest.testmod()` runs the `>>>` examples of the snippet's own
//! docstrings as code, with the snippet's globals: text the analyzer can see, so it analyzes
//! it as nested code (with the snippet's bindings) and reports what each example does at the
//! example's own line, instead of calling the whole run "text run as code".

use super::NestedCode;
use super::engine::Engine;
use super::engine::meaning::{Namespace, Value};
use super::ir::{CollectionKind, Kind, NodeId, Splat};

/// Keyword arguments of `doctest.testmod` that change only how results are reported (and
/// `extraglobs`, a literal dict whose names the examples are analyzed with).
const REPORTING_KEYWORDS: &[&str] = &[
    "verbose",
    "report",
    "optionflags",
    "raise_on_error",
    "exclude_empty",
    "name",
    "extraglobs",
];

/// True when what a doctest runner call runs is exactly the examples of the snippet's own
/// literal docstrings. Doctest also runs examples found in `__test__`, in a `__doc__` set at
/// run time, in a docstring copied from elsewhere (`functools.wraps`) or given to a
/// `property(doc=...)`, in another module (`testmod(m=subprocess)` runs the examples of
/// `subprocess`'s docstrings), and with globals the caller injects: any of these, and the
/// examples are not what the analyzer sees.
pub fn examples_are_visible(e: &mut Engine, call: NodeId) -> bool {
    let Kind::Call { callee, args, .. } = e.ir.kind(call) else {
        return false;
    };
    let runner = e.resolve(callee, 0).iter().find_map(|m| match m.value {
        Value::Name(p) => Some(e.paths.text(p).to_owned()),
        _ => None,
    });
    match runner.as_deref() {
        Some("doctest.testmod") => {
            // It runs what `__main__` holds: in a later call of a session, definitions of
            // calls whose docstrings nobody analyzed (the first call had no runner), or classes
            // that library factories made with docstrings of their own.
            if let Some(reason) = testmod_reads_unread_docstrings(e) {
                e.dynamic(call, crate::analysis::facts::DynamicKind::CodeEval, reason);
                return false;
            }
            for &arg in e.ir.list(args) {
                let Kind::Arg { name, splat, .. } = e.ir.kind(arg) else {
                    return false;
                };
                let reporting = name.is_some_and(|n| REPORTING_KEYWORDS.contains(&e.name(n)));
                if splat != Splat::None || !reporting {
                    return false;
                }
                if name.is_some_and(|n| e.name(n) == "extraglobs")
                    && extra_globals(e, call).is_none()
                {
                    return false;
                }
            }
        }
        Some("doctest.run_docstring_examples") => {
            let positional = e.positional_args(call);
            let [target, globs, ..] = positional.as_slice() else {
                return false;
            };
            let targets = e.resolve(*target, 0);
            if targets.is_empty() || targets.iter().any(|m| !matches!(m.value, Value::Local(_))) {
                return false;
            }
            // A class a library gave its docstring (a `dataclass` without one shows its
            // fields' `repr`s) holds text nobody wrote, whatever it is matched against.
            if makes_classes_unread(e) {
                return false;
            }
            let globs = e.ir.unparen(*globs);
            let empty_dict = matches!(
                e.ir.kind(globs),
                Kind::Collection { kind: CollectionKind::Map, items } if items.is_empty()
            );
            let own_globals = e
                .resolve(globs, 0)
                .iter()
                .any(|m| m.value == Value::Namespace(Namespace::Globals));
            if !(empty_dict || own_globals) {
                return false;
            }
        }
        _ => return false,
    }
    nothing_rewrites_docstrings(e)
}

/// True when nothing sets a docstring or `__test__` behind the binder's back: by name, by a
/// string (folded) naming them, by `doc=` or its position, by a class namespace built at run time (`type(name,
/// bases, namespace)`), by copying attributes or setting special ones, by text run as code,
/// or through the snippet's namespace or module object.
fn nothing_rewrites_docstrings(e: &mut Engine) -> bool {
    if e.rewrites().globals || e.rewrites().definitions {
        return false;
    }
    let special = |name: &str| matches!(name, "__doc__" | "__test__");
    for id in 0..e.ir.nodes.len() as NodeId {
        let rewrites = match e.ir.kind(id) {
            Kind::Bind(sym) | Kind::Name(sym) | Kind::Attr { name: sym, .. } => {
                special(e.name(sym))
            }
            Kind::Str { .. } | Kind::Binary { .. } | Kind::Template { .. } => {
                e.fold(id, 0).is_some_and(|s| special(&s))
            }
            Kind::Arg {
                name: Some(sym), ..
            } => e.name(sym) == "doc",
            Kind::Call { .. } => {
                e.fold(id, 0).is_some_and(|s| special(&s))
                    || builds_a_class_namespace(e, id)
                    || given_a_docstring(e, id)
            }
            _ => false,
        };
        if rewrites {
            return false;
        }
    }
    true
}

/// Callables whose object takes its docstring from an argument (`doc=` by keyword is judged
/// wherever it is): the position it has, or a `*`/`**` splat that may carry it.
fn given_a_docstring(e: &mut Engine, call: NodeId) -> bool {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return false;
    };
    let position = e
        .names_of(callee)
        .iter()
        .find_map(|name| match name.as_str() {
            "property" => Some(3),
            "numpy.vectorize" => Some(2),
            "types.ModuleType" => Some(1),
            _ => None,
        });
    position.is_some_and(|at| e.splatted(call) || e.positional_args(call).len() > at)
}

/// `type(name, bases, namespace)` and the other ways to make a class from a namespace built at
/// run time, and text run as code (`exec`, `eval`), any of which may set `__doc__`.
fn builds_a_class_namespace(e: &mut Engine, call: NodeId) -> bool {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return false;
    };
    let names: Vec<String> = e
        .resolve(callee, 0)
        .iter()
        .filter_map(|m| e.path_text(m.value).map(str::to_owned))
        .collect();
    names.iter().any(|name| match name.as_str() {
        "type" => e.splatted(call) || e.positional_args(call).len() > 1,
        "types.new_class" | "dataclasses.make_dataclass" | "exec" | "eval" => true,
        _ => false,
    })
}

/// Why `testmod` would run docstrings the analyzer never read, if it would.
fn testmod_reads_unread_docstrings(e: &mut Engine) -> Option<&'static str> {
    if e.in_later_call() {
        Some(
            "`doctest.testmod` runs the docstrings of what earlier calls of the session defined, \
             which were not analyzed as examples: run it in the call that defines them",
        )
    } else if makes_classes_unread(e) {
        Some(
            "`doctest.testmod` runs docstrings a library wrote (a class made by enum's \
             functional API, `make_dataclass` or `TypedDict`, or a `dataclass` without a \
             docstring whose signature may show any text): give such classes a docstring, or \
             use `doctest.run_docstring_examples(f, globals())` on your own functions",
        )
    } else {
        None
    }
}

/// True when a class may get a docstring the analyzer never read: a library factory made it
/// (enum's functional API takes any `qualname=` and dunder keys, `namedtuple`, `NamedTuple`,
/// `TypedDict` and `make_dataclass` name it from data), or `dataclass` gave a class without a
/// docstring one made from its fields' types (whose names may be any text).
fn makes_classes_unread(e: &mut Engine) -> bool {
    for id in 0..e.ir.nodes.len() as NodeId {
        let (Kind::Call { .. } | Kind::Name(_) | Kind::Attr { .. }) = e.ir.kind(id) else {
            continue;
        };
        // `namedtuple` and `NamedTuple` check that every name is an identifier: their
        // docstrings (`P(x, y)`) hold no examples.
        if matches!(e.ir.kind(id), Kind::Call { .. })
            && crate::analysis::detect::makes_a_class(e, id)
                .is_some_and(|f| !f.ends_with("amedtuple") && !f.ends_with("NamedTuple"))
        {
            return true;
        }
        let callee = match e.ir.kind(id) {
            Kind::Call { callee, .. } => callee,
            _ => id,
        };
        let names = e.names_of(callee);
        if names.iter().any(|n| n.ends_with(".TypedDict")) && id != callee {
            return true;
        }
        if !names.iter().any(|n| n == "dataclasses.dataclass") {
            continue;
        }
        // `@dataclass` or `@dataclass(...)` on a class statement: fine when the class has its
        // own literal docstring; `dataclass(C)` anywhere else is not followed.
        let decorated =
            e.ir.parent(id)
                .filter(|&p| matches!(e.ir.kind(p), Kind::Class { .. }));
        match decorated {
            Some(class) if !has_literal_docstring(e, class) && !signature_is_readable(e, class) => {
                return true;
            }
            Some(_) => {}
            None if id != callee && !e.positional_args(id).is_empty() => return true,
            None => {}
        }
    }
    false
}

/// True when the docstring `dataclass` writes for a class without one (its name and
/// `inspect.signature`: each field's type, by qualified name or `repr`, and each default's
/// `repr`) shows only what the analyzer read: types that are names, module members and
/// generics of those (or any annotation under `from __future__ import annotations`, where each
/// is a string shown by `repr`), and defaults that are constants, module members or
/// `field(...)` with such a default. A snippet that names `__qualname__` or `__module__`, or
/// gives a class a metaclass, may make a type's name any text.
fn signature_is_readable(e: &mut Engine, class: NodeId) -> bool {
    if names_anywhere(e, &["__qualname__", "__module__", "metaclass"]) {
        return false;
    }
    let Kind::Class { body, .. } = e.ir.kind(class) else {
        return false;
    };
    let Some(scope) = e.scopes.own(class) else {
        return false;
    };
    let future = e.source.contains("from __future__ import annotations");
    for statement in e.ir.list(body).to_vec() {
        if let Kind::Assign { value, .. } = e.ir.kind(statement)
            && !readable_default(e, value)
        {
            return false;
        }
    }
    if future {
        return true;
    }
    for id in 0..e.ir.nodes.len() as NodeId {
        if !matches!(e.ir.kind(id), Kind::Annotation) || e.scopes.scope_of(id) != scope {
            continue;
        }
        // Children follow their parent: the annotation's expression is the next node.
        let inner = id + 1;
        if e.ir.parent(inner) != Some(id) || !readable_type(e, inner, 0) {
            return false;
        }
    }
    true
}

/// Whether the snippet names any of `names`: as an identifier, an attribute or keyword, or a
/// string that folds to one (`setattr(C, "__qual" + "name__", ...)`).
fn names_anywhere(e: &mut Engine, names: &[&str]) -> bool {
    if names.iter().any(|n| e.ir.names.get(n).is_some()) {
        return true;
    }
    (0..e.ir.nodes.len() as NodeId).any(|id| {
        matches!(
            e.ir.kind(id),
            Kind::Str { .. } | Kind::Binary { .. } | Kind::Template { .. } | Kind::Call { .. }
        ) && e.fold(id, 0).is_some_and(|s| names.contains(&&*s))
    })
}

/// A type shown by its name: a name of a class, function, module member or builtin, a
/// generic's subscript of such, a union, `None`, or text (shown by `repr`).
fn readable_type(e: &mut Engine, id: NodeId, depth: usize) -> bool {
    if depth > 16 {
        return false;
    }
    let id = e.ir.unparen(id);
    match e.ir.kind(id) {
        Kind::Const(_) | Kind::Str { .. } => true,
        Kind::Name(_) | Kind::Attr { .. } => names_a_definition(e, id),
        Kind::Index { object, key } => {
            readable_type(e, object, depth + 1) && readable_type(e, key, depth + 1)
        }
        Kind::Binary {
            op: super::ir::BinOp::BitOr,
            left,
            right,
        } => readable_type(e, left, depth + 1) && readable_type(e, right, depth + 1),
        Kind::Collection { items, .. } => {
            let items = e.ir.list(items).to_vec();
            items.into_iter().all(|i| readable_type(e, i, depth + 1))
        }
        Kind::Int(_) | Kind::Float => true,
        Kind::Annotation => e.ir.parent(id + 1) == Some(id) && readable_type(e, id + 1, depth + 1),
        // a union the grammar reads as a type (`list["Node"] | None`)
        Kind::Other => {
            let (_, end) = e.ir.span(id);
            let mut children = Vec::new();
            for n in id + 1..e.ir.nodes.len() as NodeId {
                if e.ir.span(n).0 >= end {
                    break;
                }
                if e.ir.parent(n) == Some(id) {
                    children.push(n);
                }
            }
            !children.is_empty() && children.into_iter().all(|c| readable_type(e, c, depth + 1))
        }
        _ => false,
    }
}

/// A name or dotted name that means a definition of the snippet's, a module or a module's
/// member, or a builtin.
fn names_a_definition(e: &mut Engine, id: NodeId) -> bool {
    let meanings = e.resolve(id, 0);
    let definition = !meanings.is_empty()
        && meanings.iter().all(|m| {
            !m.held && matches!(m.value, Value::Local(_) | Value::Module(_) | Value::Name(_))
        });
    definition
        || matches!(e.ir.kind(id), Kind::Name(sym) if e.every_bind(sym, id, named_type_variable))
}

/// `T = TypeVar("T")`: shown as `~T`, its name an identifier.
fn named_type_variable(e: &mut Engine, bind: NodeId) -> bool {
    let Some(value) = crate::analysis::detect::assigned_value(e, bind) else {
        return false;
    };
    let value = e.ir.unparen(value);
    let Kind::Call { callee, .. } = e.ir.kind(value) else {
        return false;
    };
    let names = e.names_of(callee);
    !names.is_empty()
        && names
            .iter()
            .all(|n| n.ends_with(".TypeVar") && n.starts_with("typing"))
        && e.positional_args(value)
            .first()
            .and_then(|&name| e.fold(name, 0))
            .is_some_and(|name| name.chars().all(|c| c.is_alphanumeric() || c == '_'))
}

/// A default `dataclass` shows by `repr` that shows only constants.
fn readable_default(e: &mut Engine, value: NodeId) -> bool {
    let value = e.ir.unparen(value);
    match e.ir.kind(value) {
        Kind::Const(_) | Kind::Str { .. } | Kind::Int(_) | Kind::Float => true,
        Kind::Unary { arg, .. } => readable_default(e, arg),
        Kind::Collection { items, .. } => e.ir.list(items).is_empty(),
        Kind::Name(_) | Kind::Attr { .. } => {
            let meanings = e.resolve(value, 0);
            !meanings.is_empty()
                && meanings.iter().all(|m| {
                    !m.held
                        && match m.value {
                            Value::Module(_) => true,
                            Value::Name(p) => e.paths.module_len(p) > 0,
                            _ => false,
                        }
                })
        }
        Kind::Call { callee, .. } => {
            let names = e.names_of(callee);
            names.iter().all(|n| n == "dataclasses.field")
                && !names.is_empty()
                && e.positional_args(value).is_empty()
                && e.keyword_arg(value, "default")
                    .is_none_or(|d| readable_default(e, d))
        }
        _ => false,
    }
}

/// True when a class statement's body starts with a docstring the analyzer can read.
fn has_literal_docstring(e: &Engine, class: NodeId) -> bool {
    let Kind::Class { body, .. } = e.ir.kind(class) else {
        return false;
    };
    e.ir.list(body).first().is_some_and(|&first| {
        matches!(e.ir.kind(first), Kind::Docstring(value) if e.ir.str_value(e.ir.unparen(value)).is_some())
    })
}

/// Queues the examples of every docstring of the snippet for nested analysis (once).
pub fn queue_examples(e: &mut Engine, call: NodeId) {
    if e.nested.iter().any(|n| n.origins.is_some()) || !examples_are_visible(e, call) {
        return;
    }
    let mut code = String::new();
    let mut origins = Vec::new();
    // Doctest compiles each example (a `>>>` line and its `...` lines) on its own: one that
    // does not parse alone would swallow its neighbours into a string here, and one hidden
    // in a docstring the analyzer cannot decode would not be seen at all.
    let mut unreadable = false;
    for id in 0..e.ir.nodes.len() as NodeId {
        let Kind::Docstring(value) = e.ir.kind(id) else {
            continue;
        };
        let Some(text) = e.ir.str_value(e.ir.unparen(value)) else {
            unreadable = true;
            continue;
        };
        let (start, _) = e.ir.span(value);
        let first_line_start = e.source[..start].rfind('\n').map_or(0, |i| i + 1);
        let mut line_start = first_line_start;
        let mut example = String::new();
        for line in text.split('\n') {
            // Doctest expands tabs before it looks for prompts: `>>>\tcode` is an example.
            let line = expand_tabs(line);
            if let Some(source) = example_source(&line) {
                if line.trim_start().starts_with(">>>") {
                    unreadable |= !parses_alone(&example);
                    example.clear();
                }
                example.push_str(source);
                example.push('\n');
                let outer = locate(e.source, line_start, source);
                code.push_str(source);
                code.push('\n');
                origins.push(outer);
            }
            line_start = next_line(e.source, line_start);
        }
        unreadable |= !parses_alone(&example);
    }
    if unreadable {
        e.dynamic(
            call,
            crate::analysis::facts::DynamicKind::CodeEval,
            "doctest runs examples the analyzer cannot read one by one (a docstring it cannot \
             decode, or an example that does not parse on its own)",
        );
    }
    if origins.is_empty() {
        return;
    }
    let (start, end) = e.ir.span(e.ir.root());
    let span = e.out.span_of(start, end.min(start));
    let context = extra_globals(e, call).map(|extra| e.carried_with(&extra));
    e.nested.push(NestedCode {
        code,
        span,
        origins: Some(origins),
        context,
    });
}

/// True when a doctest example parses as Python on its own (an empty one does).
fn parses_alone(example: &str) -> bool {
    example.trim().is_empty()
        || crate::analysis::parse(crate::analysis::Language::Python, example)
            .is_some_and(|tree| !tree.root_node().has_error())
}

/// The names and values of `testmod(extraglobs={...})`, when it is a dict literal with
/// constant keys.
fn extra_globals(e: &mut Engine, call: NodeId) -> Option<Vec<(String, NodeId)>> {
    let dict = e.keyword_arg(call, "extraglobs")?;
    let Kind::Collection {
        kind: CollectionKind::Map,
        items,
    } = e.ir.kind(e.ir.unparen(dict))
    else {
        return None;
    };
    let mut names = Vec::new();
    for item in e.ir.list(items).to_vec() {
        let Kind::Pair { key, value } = e.ir.kind(item) else {
            return None;
        };
        names.push((e.fold(key, 0)?.to_string(), value));
    }
    Some(names)
}

/// The code of a doctest source line (`>>> x` or `... x`), without its prompt.
fn example_source(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    for prompt in [">>>", "..."] {
        if let Some(rest) = trimmed.strip_prefix(prompt) {
            return match rest.strip_prefix(' ') {
                Some(code) => Some(code),
                None if rest.is_empty() => Some(""),
                None => None,
            };
        }
    }
    None
}

/// A line with its tabs expanded to every eighth column, as `str.expandtabs()` does.
fn expand_tabs(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains('\t') {
        return line.into();
    }
    let mut out = String::with_capacity(line.len() + 8);
    let mut column = 0;
    for c in line.chars() {
        match c {
            '\t' => {
                let spaces = 8 - column % 8;
                out.extend(std::iter::repeat_n(' ', spaces));
                column += spaces;
            }
            '\r' => {
                out.push(c);
                column = 0;
            }
            _ => {
                out.push(c);
                column += 1;
            }
        }
    }
    out.into()
}

/// Where an example's code stands in the source: on the line that starts at `line_start`,
/// where the same text is found, or the start of that line.
fn locate(source: &str, line_start: usize, example: &str) -> usize {
    let line_end = source[line_start.min(source.len())..]
        .find('\n')
        .map_or(source.len(), |i| line_start + i);
    let line = &source[line_start.min(source.len())..line_end];
    match (example.is_empty(), line.find(example)) {
        (false, Some(at)) => line_start + at,
        _ => line_start.min(source.len()),
    }
}

fn next_line(source: &str, from: usize) -> usize {
    match source.get(from..).and_then(|rest| rest.find('\n')) {
        Some(i) => from + i + 1,
        None => source.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::{example_source, expand_tabs};

    #[test]
    fn tabs_expand_as_doctest_expands_them() {
        assert_eq!(expand_tabs("    >>>\tx"), "    >>> x");
        assert_eq!(expand_tabs("\t>>> x"), "        >>> x");
        assert_eq!(expand_tabs(">>>\tx"), ">>>     x");
        assert_eq!(
            example_source(&expand_tabs("...\t    y")),
            Some("        y")
        );
    }

    #[test]
    fn prompts() {
        assert_eq!(example_source("    >>> f(1)"), Some("f(1)"));
        assert_eq!(example_source("... x = 2"), Some("x = 2"));
        assert_eq!(example_source(">>>"), Some(""));
        assert_eq!(example_source("    2"), None);
        assert_eq!(example_source(">>>x"), None);
    }
}
