//! Options that import a module by name: a plotting backend. `pd.set_option("plotting.backend",
//! name)`, `pd.options.plotting.backend = name` and `df.plot(backend=name)` import `name`;
//! matplotlib imports `name` for a backend written `module://name` (`matplotlib.use`,
//! `pyplot.switch_backend`, `rcParams["backend"] = ...`). Each is an import of that module, or
//! an import by a computed name when the value does not fold.

use crate::analysis::engine::Engine;
use crate::analysis::engine::rewrites::is_store_target;
use crate::analysis::facts::{DynamicKind, FactKind};
use crate::analysis::ir::{Kind, NodeId};

/// Functions whose argument at the index names a matplotlib backend.
const BACKEND_SETTERS: &[(&str, usize, &str)] = &[
    ("matplotlib.use", 0, "backend"),
    ("matplotlib.pyplot.switch_backend", 0, "newbackend"),
];

/// Whose backend a value names: pandas imports any name; matplotlib only `module://name`
/// (its other names are its own backends).
#[derive(Clone, Copy)]
enum Loader {
    Pandas,
    Matplotlib,
}

/// Plotting methods (on objects the analyzer does not know) that take `backend=`.
const PLOT_METHODS: &[&str] = &[
    "plot", "hist", "boxplot", "scatter", "line", "bar", "barh", "area", "pie", "kde", "density",
    "hexbin",
];

/// Functions that set options from (key, value) pairs.
const OPTION_SETTERS: &[(&str, Loader)] = &[
    ("pandas.set_option", Loader::Pandas),
    ("matplotlib.rc", Loader::Matplotlib),
];

pub fn report(e: &mut Engine, id: NodeId) {
    match e.ir.kind(id) {
        Kind::Call { callee, .. } => report_call(e, id, callee),
        // `pd.options.plotting.backend = name`, `mpl.rcParams["backend"] = name`
        Kind::Assign { targets, value } => {
            for &target in e.ir.list(targets).to_vec().iter() {
                if let Some(loader) = names_backend(e, target) {
                    report_backend(e, target, Some(value), loader);
                }
            }
        }
        _ => {}
    }
}

fn report_call(e: &mut Engine, call: NodeId, callee: NodeId) {
    let names: Vec<String> = e
        .resolve(callee, 0)
        .iter()
        .filter_map(|m| e.path_text(m.value).map(str::to_owned))
        .collect();
    let splatted = e.splatted(call);
    for name in &names {
        if let Some(&(_, index, keyword)) = BACKEND_SETTERS.iter().find(|(n, ..)| n == name) {
            let value = if splatted {
                None
            } else {
                e.arg(call, index, keyword)
            };
            report_backend(e, call, value, Loader::Matplotlib);
        }
        if let Some(&(_, loader)) = OPTION_SETTERS.iter().find(|(n, _)| n == name) {
            let args = e.positional_args(call);
            for pair in args.chunks(2) {
                let key = e.fold(pair[0], 0);
                if key
                    .as_deref()
                    .is_none_or(|k| k.to_ascii_lowercase().contains("backend"))
                {
                    report_backend(e, call, pair.get(1).copied(), loader);
                }
            }
            if splatted {
                report_backend(e, call, None, loader);
            }
        }
    }
    if let Kind::Attr { object, name } = e.ir.kind(callee)
        && PLOT_METHODS.contains(&e.name(name))
        && e.resolve(object, 0).is_empty()
        && let Some(value) = e.keyword_arg(call, "backend")
    {
        report_backend(e, call, Some(value), Loader::Pandas);
    }
}

/// Whose backend a store sets, if it sets one: an attribute `backend` of pandas' options, or
/// `rcParams["backend"]` (or a key computed at run time).
fn names_backend(e: &mut Engine, target: NodeId) -> Option<Loader> {
    if !is_store_target(e, target) {
        return None;
    }
    match e.ir.kind(target) {
        Kind::Attr { object, name } if e.name(name) == "backend" => {
            let pandas = e.resolve(object, 0).iter().any(|m| {
                e.path_text(m.value)
                    .is_some_and(|p| p.starts_with("pandas.options"))
            });
            pandas.then_some(Loader::Pandas)
        }
        Kind::Index { object, key } => {
            let rc = e.resolve(object, 0).iter().any(|m| {
                e.path_text(m.value)
                    .is_some_and(|p| p.starts_with("matplotlib") && p.ends_with("rcParams"))
            });
            let backend = e.fold(key, 0).is_none_or(|k| &*k == "backend");
            (rc && backend).then_some(Loader::Matplotlib)
        }
        _ => None,
    }
}

/// The import a backend value makes.
fn report_backend(e: &mut Engine, at: NodeId, value: Option<NodeId>, loader: Loader) {
    let folded = value.and_then(|v| e.fold(v, 0));
    match folded {
        Some(name) => {
            let module = match (loader, name.strip_prefix("module://")) {
                (_, Some(module)) => module,
                (Loader::Pandas, None) if &*name != "matplotlib" => &name,
                _ => return, // the library's own backend
            };
            e.push(
                at,
                FactKind::Import {
                    module: module.to_owned(),
                },
            );
        }
        None => e.dynamic(
            at,
            DynamicKind::DynamicImport,
            "a plotting backend named at run time is imported by that name",
        ),
    }
}
