//! scikit-learn's text vectorizers read files named by their data: `CountVectorizer(input=
//! "filename").fit(names)` opens every name it is given (`"file"`: reads every file object),
//! so the files it reads are whatever the data says, paths no one can prove. Each way of
//! setting `input` to anything but its default `"content"` is reported as a path the analyzer
//! cannot fold: the constructor's argument, `set_params(input=...)`, a nested parameter
//! (`vect__input`) in a call or a parameter grid, and, once the snippet names a vectorizer,
//! `.input = ...`, `setattr(v, "input", ...)` and splatted arguments where `input` may hide.

use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::Value;
use crate::analysis::facts::FactKind;
use crate::analysis::ir::{Kind, NodeId, Splat};

/// The vectorizers with an `input` parameter.
const VECTORIZERS: [&str; 3] = [
    "sklearn.feature_extraction.text.CountVectorizer",
    "sklearn.feature_extraction.text.TfidfVectorizer",
    "sklearn.feature_extraction.text.HashingVectorizer",
];

/// The one value of `input` that reads no file.
const CONTENT: &str = "content";

pub fn report(e: &mut Engine, id: NodeId) {
    match e.ir.kind(id) {
        Kind::Call { .. } => report_call(e, id),
        Kind::Pair { key, value }
            if e.fold(key, 0).is_some_and(|k| is_nested_input(&k)) && !is_content(e, value) =>
        {
            report_input(e, id, "a text vectorizer's __input in a parameter grid");
        }
        Kind::Assign { targets, value } => {
            let sets_input = e.ir.list(targets).iter().any(
                |&t| matches!(e.ir.kind(t), Kind::Attr { name, .. } if e.name(name) == "input"),
            );
            if sets_input && !is_content(e, value) && names_vectorizer(e) {
                report_input(e, id, "a text vectorizer's .input =");
            }
        }
        _ => {}
    }
}

fn report_call(e: &mut Engine, call: NodeId) {
    let Kind::Call { callee, args, .. } = e.ir.kind(call) else {
        return;
    };
    let names = e.names_of(callee);
    let vectorizer = names.iter().any(|n| VECTORIZERS.contains(&n.as_str()));
    let set_params =
        matches!(e.ir.kind(callee), Kind::Attr { name, .. } if e.name(name) == "set_params");
    if vectorizer {
        // `input` is the first parameter in older releases.
        let first = e.positional_args(call).first().copied();
        if e.splatted(call) || first.is_some_and(|v| !is_content(e, v)) {
            report_input(e, call, "a text vectorizer's input");
            return;
        }
    }
    for arg in e.ir.list(args).to_vec() {
        let Kind::Arg { name, value, splat } = e.ir.kind(arg) else {
            continue;
        };
        let keyword = name.map(|n| e.name(n).to_owned());
        let named_input = match keyword.as_deref() {
            Some(k) if is_nested_input(k) => true,
            Some("input") => vectorizer || set_params || names_vectorizer(e),
            _ => false,
        };
        if named_input && !is_content(e, value) {
            report_input(e, call, "a text vectorizer's input=");
            return;
        }
        if splat != Splat::None && set_params && names_vectorizer(e) {
            report_input(e, call, "set_params(**...) of a text vectorizer");
            return;
        }
    }
    // `setattr(v, "input", "filename")`
    let sets = names.iter().any(|n| n == "setattr");
    if sets
        && let [_, attribute, value, ..] = e.positional_args(call)[..]
        && e.fold(attribute, 0).as_deref() == Some("input")
        && !is_content(e, value)
        && names_vectorizer(e)
    {
        report_input(e, call, "setattr(..., \"input\", ...) of a text vectorizer");
    }
}

/// `vect__input`: the `input` of a pipeline's step.
fn is_nested_input(key: &str) -> bool {
    key.ends_with("__input")
}

/// True when the value is `"content"`, or a literal list of nothing else (a grid's values).
fn is_content(e: &mut Engine, value: NodeId) -> bool {
    let value = e.ir.unparen(value);
    if let Kind::Collection { items, .. } = e.ir.kind(value) {
        let items = e.ir.list(items).to_vec();
        return items
            .into_iter()
            .all(|i| e.fold(i, 0).as_deref() == Some(CONTENT));
    }
    e.fold(value, 0).as_deref() == Some(CONTENT)
}

/// True when some expression of the snippet stands for a vectorizer class (or their module).
fn names_vectorizer(e: &mut Engine) -> bool {
    for id in 0..e.ir.nodes.len() as NodeId {
        if !matches!(e.ir.kind(id), Kind::Name(_) | Kind::Attr { .. }) {
            continue;
        }
        let found = e.resolve(id, 0).iter().any(|m| match m.value {
            Value::Name(p) | Value::Module(p) => {
                let text = e.paths.text(p);
                VECTORIZERS.contains(&text) || text == "sklearn.feature_extraction.text"
            }
            _ => false,
        });
        if found {
            return true;
        }
    }
    false
}

fn report_input(e: &mut Engine, at: NodeId, how: &str) {
    e.push(
        at,
        FactKind::Path {
            function: how.to_owned(),
            path: None,
        },
    );
}
