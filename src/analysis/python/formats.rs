//! Attribute walks spelled as strings. A replacement field of a format string walks the
//! attributes it names (`"{0.__globals__[os].environ}".format(f)`), and so do
//! `string.Formatter().get_field("0.__globals__[os]", ...)` and `logging.Formatter` with
//! `style="{"`: every attribute such a string names is judged like one written in code, and a
//! format the analyzer cannot read, applied to anything but constants, is an attribute lookup
//! by a computed name.

use crate::analysis::detect::report_special;
use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::Value;
use crate::analysis::facts::DynamicKind;
use crate::analysis::ir::{Kind, NodeId, Splat};

/// The attributes the replacement fields of a format string name (`{0.a[k].b:{1.c}}` names
/// `a`, `b` and `c`), nested fields of format specifications included.
pub fn field_attributes(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'{' {
            if bytes.get(i + 1) == Some(&b'{') {
                i += 2;
                continue;
            }
            found.extend(name_attributes(field_name(&text[i + 1..])));
        }
        i += 1;
    }
    found
}

/// The field name at the start of a replacement field: up to `}`, `:`, `!` or `{`, a `[key]`
/// taken whole (as Python's parser does).
fn field_name(field: &str) -> &str {
    let bytes = field.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'[' => match field[i..].find(']') {
                Some(close) => i += close,
                None => return field,
            },
            b'}' | b':' | b'!' | b'{' => return &field[..i],
            _ => {}
        }
        i += 1;
    }
    field
}

/// The attributes a field name walks: `0.__globals__[os].environ` walks `__globals__` and
/// `environ` (the `[os]` is an item).
pub fn name_attributes(name: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = name;
    // The argument name or index comes first.
    let end = rest.find(['.', '[']).unwrap_or(rest.len());
    rest = &rest[end..];
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            found.push(&after[..end]);
            rest = &after[end..];
        } else {
            match rest.find(']') {
                Some(close) => rest = &rest[close + 1..],
                None => break,
            }
        }
    }
    found
}

/// Reports each attribute named in `names` that an allowlist judges or that reaches the
/// interpreter's internals.
fn report_attributes<'n>(e: &mut Engine, at: NodeId, names: impl IntoIterator<Item = &'n str>) {
    for name in names {
        report_special(e, at, name);
        if e.dialect.tables().introspection_attributes.contains(&name) {
            e.dynamic(
                at,
                DynamicKind::Introspection,
                format!("a format field reaches `.{name}`"),
            );
        }
    }
}

/// A folded string's replacement fields (reported where the string is).
pub fn report_fields(e: &mut Engine, at: NodeId, text: &str) {
    if text.contains('{') {
        report_attributes(e, at, field_attributes(text));
    }
}

/// Calls that walk attributes named in a string: `x.format(...)`, `x.format_map(m)`,
/// `Formatter().vformat(f, args, kw)` and `.get_field(name, args, kw)` on anything, and
/// `logging.Formatter` / `logging.basicConfig` with `style="{"`.
pub fn report_call(e: &mut Engine, call: NodeId) {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return;
    };
    if let Kind::Attr { object, name } = e.ir.kind(callee) {
        let method = e.name(name);
        // Behind `*`/`**` the format or field name cannot be lined up: unreadable.
        let first = (!e.splatted(call))
            .then(|| e.positional_args(call).first().copied())
            .flatten();
        match method {
            "format" | "format_map" => report_format(e, call, object),
            "vformat" => match first.and_then(|f| e.fold(f, 0)) {
                Some(text) => {
                    let text = text.to_string();
                    report_fields(e, call, &text);
                }
                None => computed(e, call, "vformat"),
            },
            // matplotlib's labels take a `{}` format (or a function) as `fmt=`.
            "bar_label" | "clabel" => {
                if let Some(format) = e.keyword_arg(call, "fmt")
                    && !matches!(e.ir.kind(e.ir.unparen(format)), Kind::Function { .. })
                {
                    match e.fold(format, 0) {
                        Some(text) => {
                            let text = text.to_string();
                            report_fields(e, call, &text);
                        }
                        None if e.resolve(format, 0).is_empty() => computed(e, call, method),
                        None => {}
                    }
                }
            }
            "get_field" => match first.and_then(|f| e.fold(f, 0)) {
                Some(text) => {
                    let text = text.to_string();
                    report_attributes(e, call, name_attributes(&text));
                }
                None => computed(e, call, "get_field"),
            },
            _ => {}
        }
    }
    report_logging(e, call, callee);
    report_method_caller(e, call, callee);
}

/// A format method named by text: `operator.methodcaller("format", f)` and
/// `operator.attrgetter("format")` apply it to whatever text they are later given,
/// `getattr(text, "format")` takes it as a value; all out of the sight of `report_call`.
fn report_method_caller(e: &mut Engine, call: NodeId, callee: NodeId) {
    let names = e.names_of(callee);
    let args = e.positional_args(call);
    let (object, method) = if names.iter().any(|n| n == "getattr") {
        (args.first().copied(), args.get(1).copied())
    } else if names
        .iter()
        .any(|n| n == "operator.methodcaller" || n == "operator.attrgetter")
    {
        (None, args.first().copied())
    } else {
        return;
    };
    let Some(method) = method.and_then(|m| e.fold(m, 0)) else {
        return;
    };
    if !matches!(&*method, "format" | "format_map" | "vformat" | "get_field") {
        return;
    }
    match object.and_then(|o| e.fold_candidates(o)) {
        Some(texts) => {
            for text in texts {
                report_fields(e, call, &text);
            }
        }
        None => {
            let method = method.to_string();
            computed(e, call, &method);
        }
    }
}

/// `text.format` / `text.format_map` / `str.format` taken as a value, not called where it is
/// read (`f = text.format`, `map(text.format, items)`, `partial(str.format, text)`): its
/// calls are out of sight, so a format the analyzer cannot read is an attribute lookup by a
/// computed name whatever it will be given. A readable format's fields are judged here.
pub fn report_bound(e: &mut Engine, attr: NodeId) {
    let Kind::Attr { object, name } = e.ir.kind(attr) else {
        return;
    };
    if !matches!(e.name(name), "format" | "format_map") {
        return;
    }
    let called_here = e.ir.parent(attr).is_some_and(
        |p| matches!(e.ir.kind(p), Kind::Call { callee, .. } if e.ir.unparen(callee) == attr),
    );
    if called_here {
        return; // judged as a call by `report_call`
    }
    let unbound = e
        .resolve(object, 0)
        .iter()
        .any(|m| matches!(m.value, Value::Name(p) if !m.held && e.paths.text(p) == "str"));
    match (!unbound).then(|| e.fold_candidates(object)).flatten() {
        Some(texts) => {
            for text in texts {
                report_fields(e, attr, &text);
            }
        }
        None => computed(e, attr, e.name(name).to_owned().as_str()),
    }
}

/// `text.format(...)`: a format the analyzer cannot read walks whatever its arguments hold,
/// unless every argument is a constant (whose attributes lead nowhere).
fn report_format(e: &mut Engine, call: NodeId, object: NodeId) {
    // `str.format(text, ...)`: the format is the first argument.
    let unbound = e
        .resolve(object, 0)
        .iter()
        .any(|m| matches!(m.value, Value::Name(p) if !m.held && e.paths.text(p) == "str"));
    let args = e.positional_args(call);
    let (format, args) = if unbound {
        (
            args.first().copied(),
            args.iter().skip(1).copied().collect(),
        )
    } else {
        (Some(object), args)
    };
    // Judged here too: the text may have been put together where no string is reported, or
    // be a parameter given only known texts by the calls of its function.
    if let Some(texts) = format.and_then(|f| e.fold_candidates(f)) {
        for text in texts {
            report_fields(e, call, &text);
        }
        return;
    }
    let Kind::Call { args: all, .. } = e.ir.kind(call) else {
        return;
    };
    let mut values = args;
    for &arg in e.ir.list(all) {
        match e.ir.kind(arg) {
            Kind::Arg {
                name: Some(_),
                value,
                ..
            } => values.push(value),
            Kind::Arg {
                splat: Splat::Positional | Splat::Keywords,
                value,
                ..
            } => values.push(value),
            _ => {}
        }
    }
    let constant = values.iter().all(|&v| {
        matches!(e.ir.kind(e.ir.unparen(v)), Kind::Float | Kind::Const(_))
            || e.fold(v, 0).is_some()
            || e.int_value(v, false).is_some()
    });
    if !constant {
        computed(e, call, "format");
    }
}

/// `logging.Formatter(fmt, style="{")`, `logging.basicConfig(format=..., style="{")`,
/// `logging.StrFormatStyle(fmt)`, matplotlib's `StrMethodFormatter(fmt)`.
fn report_logging(e: &mut Engine, call: NodeId, callee: NodeId) {
    let names = e.names_of(callee);
    for name in names {
        let (format, style) = match name.as_str() {
            "logging.Formatter" => (e.arg(call, 0, "fmt"), e.arg(call, 2, "style")),
            "logging.basicConfig" => (e.keyword_arg(call, "format"), e.keyword_arg(call, "style")),
            "logging.StrFormatStyle" | "matplotlib.ticker.StrMethodFormatter" => {
                (e.arg(call, 0, "fmt"), None)
            }
            _ => continue,
        };
        if e.splatted(call) {
            computed(e, call, &name); // the style and format may be among the splatted
            continue;
        }
        let braces = match style {
            Some(style) => e.fold(style, 0).is_none_or(|s| &*s == "{"),
            None => name != "logging.Formatter" && name != "logging.basicConfig",
        };
        if !braces {
            continue; // `%` and `$` styles name no attributes
        }
        match format.map(|f| e.fold(f, 0)) {
            Some(Some(text)) => {
                let text = text.to_string();
                report_fields(e, call, &text);
            }
            Some(None) => computed(e, call, &name),
            None => {} // the default format
        }
    }
}

fn computed(e: &mut Engine, call: NodeId, what: &str) {
    e.dynamic(
        call,
        DynamicKind::DynamicAttribute,
        format!(
            "`{what}` with a format computed at run time walks attributes the analyzer cannot \
             read"
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::{field_attributes, name_attributes};

    #[test]
    fn format_fields_name_their_attributes() {
        assert_eq!(
            field_attributes("{0.__globals__[os].environ}"),
            ["__globals__", "environ"]
        );
        assert_eq!(
            field_attributes("{{0.__class__}} {x:>{y.__doc__}}"),
            ["__doc__"]
        );
        assert_eq!(
            field_attributes("{args[0].__globals__[a.b]}"),
            ["__globals__"]
        );
        assert_eq!(field_attributes("{0[:].a!r:>10}"), ["a"]);
        assert!(field_attributes("{} {0} {name:.2f}").is_empty());
        assert_eq!(
            name_attributes("0.gi_frame.f_builtins"),
            ["gi_frame", "f_builtins"]
        );
        assert_eq!(name_attributes("__globals__.get"), ["get"]);
    }
}
