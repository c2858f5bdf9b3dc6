//! Library features that load code later, away from any call the deserialization rules judge:
//! an XSLT `stylesheet=` (pandas runs it with libxslt, whose `exsl:document` writes any file
//! and `document()` reads any) and a joblib cache behind scikit-learn's `memory=` (it unpickles
//! whatever file sits at the cache entry's path). Paths opened later are `path_attributes`.

use crate::analysis::detect::{Site, assigned_value, report_use};
use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::Value;
use crate::analysis::engine::rewrites::is_store_target;
use crate::analysis::facts::DynamicKind;
use crate::analysis::ir::{ConstKind, Kind, NodeId};

/// scikit-learn functions and classes that take a joblib cache as `memory=` (by their last
/// name), and `set_params`, which sets it on any of them.
const CACHE_TAKERS: &[&str] = &[
    "Pipeline",
    "make_pipeline",
    "AgglomerativeClustering",
    "FeatureAgglomeration",
    "HDBSCAN",
    "set_params",
];

/// Functions and methods that run an XSLT stylesheet given as `stylesheet=`.
const XSLT_RUNNERS: &[&str] = &["read_xml", "to_xml"];

/// The fewest positional arguments before a stylesheet given by position.
const XSLT_POSITION: usize = 11;

pub fn report(e: &mut Engine, id: NodeId) {
    match e.ir.kind(id) {
        Kind::Call { callee, .. } => report_call(e, id, callee),
        // `{"memory": "cache"}`, `{"model__memory": ["cache"]}`: a parameter set or grid
        // that `set_params` (or a search over it) gives an estimator.
        Kind::Pair { key, value } if names_cache(e, key) && !is_none(e, value) => {
            report_unpickling(e, id);
        }
        // `params["memory"] = "cache"`
        Kind::Index { key, .. }
            if is_store_target(e, id)
                && names_cache(e, key)
                && assigned_value(e, id).is_none_or(|v| !is_none(e, v)) =>
        {
            report_unpickling(e, id);
        }
        Kind::Attr { name, .. } if is_store_target(e, id) => {
            let attribute = e.name(name).to_owned();
            let value = assigned_value(e, id);
            report_store(e, id, &attribute, value);
        }
        _ => {}
    }
}

fn report_call(e: &mut Engine, call: NodeId, callee: NodeId) {
    let called = called_name(e, callee);
    let splatted = e.splatted(call);
    let stylesheet = e
        .keyword_arg(call, "stylesheet")
        .is_some_and(|v| !is_none(e, v));
    // pandas 1.x still takes `stylesheet` by position (12th of `read_xml`, 14th of `to_xml`).
    let may_hold_stylesheet = splatted || e.positional_args(call).len() > XSLT_POSITION;
    if stylesheet || may_hold_stylesheet && XSLT_RUNNERS.contains(&called.as_str()) {
        e.dynamic(
            call,
            DynamicKind::CodeEval,
            "an XSLT stylesheet is a program, which may read and write any file",
        );
    }
    let memory = e
        .keyword_arg(call, "memory")
        .is_some_and(|v| !is_none(e, v));
    if memory || splatted && CACHE_TAKERS.contains(&called.as_str()) {
        report_unpickling(e, call);
    }
    // `setattr(estimator, "memory", cache)`
    let is_setattr = e
        .resolve(callee, 0)
        .iter()
        .any(|m| matches!(m.value, Value::Name(p) if e.paths.text(p) == "setattr"));
    if is_setattr && let [_, attribute, value] = e.positional_args(call).as_slice() {
        let (attribute, value) = (*attribute, *value);
        if let Some(name) = e.fold(attribute, 0) {
            report_store(e, call, &name, Some(value));
        }
    }
}

/// A store to an attribute an object acts on later: a cache directory is an unpickling.
fn report_store(e: &mut Engine, at: NodeId, attribute: &str, value: Option<NodeId>) {
    if attribute == "memory" && value.is_none_or(|v| !is_plain_data(e, v)) {
        report_unpickling(e, at);
    }
}

/// A scikit-learn cache (`memory="cache"`, a `joblib.Memory`) unpickles its entries: a call
/// of `pickle.load` on files the snippet can overwrite.
fn report_unpickling(e: &mut Engine, at: NodeId) {
    let pickle = e.path_meaning("pickle.load", "pickle".len());
    report_use(e, at, pickle, Site::Call, Vec::new());
}

/// The name a callee is called by: the function's full name, or a method's name.
fn called_name(e: &mut Engine, callee: NodeId) -> String {
    if let Kind::Attr { name, .. } = e.ir.kind(callee) {
        return e.name(name).to_owned();
    }
    e.resolve(callee, 0)
        .iter()
        .find_map(|m| e.path_text(m.value))
        .and_then(|p| p.rsplit('.').next())
        .unwrap_or_default()
        .to_owned()
}

/// A parameter name that sets a scikit-learn cache, its own or a nested estimator's.
fn names_cache(e: &mut Engine, key: NodeId) -> bool {
    e.fold(key, 0)
        .is_some_and(|k| &*k == "memory" || k.ends_with("__memory"))
}

fn is_none(e: &Engine, value: NodeId) -> bool {
    matches!(e.ir.kind(e.ir.unparen(value)), Kind::Const(ConstKind::Null))
}

/// `None`, a number, or a collection literal: no cache directory.
fn is_plain_data(e: &Engine, value: NodeId) -> bool {
    matches!(
        e.ir.kind(e.ir.unparen(value)),
        Kind::Const(_) | Kind::Int(_) | Kind::Float | Kind::Collection { .. }
    )
}
