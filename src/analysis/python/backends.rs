//! Options that import a module by name: a plotting backend. pandas imports whatever name its
//! `plotting.backend` option holds (and `plot(backend=name)`); matplotlib imports `name` for a
//! backend written `module://name`. Each store of such a value is an import of that module, or
//! an import by a computed name when the value does not fold.
//!
//! The stores are found by what they write, not by one spelling: every pandas option setter
//! (`set_option`, `option_context`, which select options by a case-insensitive regular
//! expression), attribute stores and `setattr` on `pandas.options`, every write into
//! matplotlib's `rcParams` (item stores, `update`/`setdefault`, `|=`, `rc_context`, the `dict`
//! methods called on it), and a `backend=` keyword, written or inside `**{...}`, on the plotting
//! and saving calls that take one.

use crate::analysis::engine::Engine;
use crate::analysis::engine::rewrites::is_store_target;
use crate::analysis::facts::{DynamicKind, FactKind};
use crate::analysis::ir::{CollectionKind, Kind, NodeId, Splat, Sym};

/// Whose backend a value names: pandas imports any name; matplotlib only `module://name`
/// (its other names are its own backends).
#[derive(Clone, Copy)]
enum Loader {
    Pandas,
    Matplotlib,
}

/// Functions whose argument at the index names a matplotlib backend.
const BACKEND_SETTERS: &[(&str, usize, &str)] = &[
    ("matplotlib.use", 0, "backend"),
    ("matplotlib.pyplot.switch_backend", 0, "newbackend"),
];

/// Functions that set options from (key, value) pairs.
const OPTION_SETTERS: &[(&str, Loader)] = &[
    ("pandas.set_option", Loader::Pandas),
    ("pandas.option_context", Loader::Pandas),
    ("matplotlib.rc", Loader::Matplotlib),
];

/// Functions that write a mapping of settings (their first argument, and keywords) into
/// matplotlib's `rcParams`.
const RC_WRITERS: &[&str] = &["matplotlib.rc_context", "matplotlib.pyplot.rc_context"];

/// Methods that write into the mapping they are called on (or, called as `dict.m(d, ...)`, into
/// their first argument).
const MAPPING_WRITERS: &[&str] = &["update", "setdefault", "__setitem__", "__ior__", "_set"];

/// Methods that take `backend=`: pandas' plotting methods (on objects the analyzer does not
/// know), which import any name, and matplotlib's saving ones, which import `module://` names.
const PLOT_METHODS: &[&str] = &[
    "plot", "hist", "boxplot", "scatter", "line", "bar", "barh", "area", "pie", "kde", "density",
    "hexbin",
];
const SAVE_METHODS: &[&str] = &["savefig", "print_figure"];

/// The option pandas selects for its plotting backend.
const PANDAS_BACKEND_OPTION: &str = "plotting.backend";

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
        // `mpl.rcParams |= {"backend": name}`
        Kind::AugAssign {
            target,
            value: Some(value),
        } if is_rc_params(e, target) => report_mapping(e, id, value),
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
                if may_select_backend(key.as_deref(), loader) {
                    report_backend(e, call, pair.get(1).copied(), loader);
                }
            }
            if splatted {
                report_backend(e, call, None, loader);
            }
        }
        if RC_WRITERS.contains(&name.as_str()) {
            report_mapping_args(e, call, e.arg(call, 0, "rc"));
        }
        if name == "setattr" {
            report_setattr(e, call);
        }
        // `dict.update(mpl.rcParams, {...})`
        if let Some(method) = name.strip_prefix("dict.")
            && MAPPING_WRITERS.contains(&method)
            && let Some(&target) = e.positional_args(call).first()
            && is_rc_params(e, target)
        {
            let rest = e.positional_args(call).get(1).copied();
            report_mapping_args(e, call, rest);
        }
    }
    let Kind::Attr { object, name } = e.ir.kind(callee) else {
        return;
    };
    let method = e.name(name).to_owned();
    if MAPPING_WRITERS.contains(&method.as_str()) && is_rc_params(e, object) {
        report_mapping_args(e, call, e.positional_args(call).first().copied());
    }
    // `plt.hist(x, **style)`: matplotlib's own plotting functions take no backend.
    let matplotlib_plotting = !names.is_empty()
        && names
            .iter()
            .all(|n| n.starts_with("matplotlib.") && !SAVE_METHODS.iter().any(|s| n.ends_with(s)));
    let loader = if PLOT_METHODS.contains(&method.as_str()) && !matplotlib_plotting {
        Loader::Pandas
    } else if SAVE_METHODS.contains(&method.as_str()) {
        Loader::Matplotlib
    } else {
        return;
    };
    if let Some(value) = e.keyword_arg(call, "backend") {
        report_backend(e, call, Some(value), loader);
    }
    for splat in keyword_splats(e, call) {
        match mapping_value(e, splat, "backend", 0) {
            Entry::Absent => {}
            Entry::Value(value) => report_backend(e, call, Some(value), loader),
            // Plotting with a style mapping from elsewhere is ordinary code: only strict,
            // which allows nothing it cannot follow, refuses it.
            Entry::Unknown => e.dynamic(
                splat,
                DynamicKind::UntrackedValue,
                "a `**` mapping the analyzer cannot read may hold `backend=`, a module imported by that name",
            ),
        }
    }
}

/// `setattr(pd.options.plotting, "backend", name)`, `setattr(mpl.rcParams, ...)` is not a
/// store (rcParams has no such attributes).
fn report_setattr(e: &mut Engine, call: NodeId) {
    if e.splatted(call) {
        let args = e.positional_args(call);
        if args.first().is_none_or(|&o| is_pandas_options(e, o)) {
            report_backend(e, call, None, Loader::Pandas);
        }
        return;
    }
    let args = e.positional_args(call);
    let [object, attribute, value] = args[..] else {
        return;
    };
    if is_pandas_options(e, object)
        && e.fold(attribute, 0)
            .is_none_or(|a| a.eq_ignore_ascii_case("backend"))
    {
        report_backend(e, call, Some(value), Loader::Pandas);
    }
}

/// The keyword arguments and the mapping at `mapping` (if any) of a call that writes them all
/// into `rcParams`.
fn report_mapping_args(e: &mut Engine, call: NodeId, mapping: Option<NodeId>) {
    if let Some(value) = e.keyword_arg(call, "backend") {
        report_backend(e, call, Some(value), Loader::Matplotlib);
    }
    if e.splatted(call) {
        report_backend(e, call, None, Loader::Matplotlib);
    }
    if let Some(mapping) = mapping {
        report_mapping(e, call, mapping);
    }
}

/// A mapping written into `rcParams`: its `backend` entry, if it may have one.
fn report_mapping(e: &mut Engine, at: NodeId, mapping: NodeId) {
    match mapping_value(e, mapping, "backend", 0) {
        Entry::Absent => {}
        Entry::Value(value) => report_backend(e, at, Some(value), Loader::Matplotlib),
        Entry::Unknown => report_backend(e, at, None, Loader::Matplotlib),
    }
}

/// The values of a call's `**` arguments.
fn keyword_splats(e: &Engine, call: NodeId) -> Vec<NodeId> {
    let Kind::Call { args, .. } = e.ir.kind(call) else {
        return Vec::new();
    };
    e.ir.list(args)
        .iter()
        .filter_map(|&a| match e.ir.kind(a) {
            Kind::Arg {
                value,
                splat: Splat::Keywords,
                ..
            } => Some(value),
            _ => None,
        })
        .collect()
}

/// How many names bound to names a mapping is followed through.
const MAX_ALIASES: usize = 4;

/// What a mapping holds under `key`.
enum Entry {
    /// Proven not to hold it.
    Absent,
    Value(NodeId),
    /// Not a literal whose keys all fold: it may hold anything.
    Unknown,
}

fn mapping_value(e: &mut Engine, mapping: NodeId, key: &str, depth: usize) -> Entry {
    let mapping = e.ir.unparen(mapping);
    match e.ir.kind(mapping) {
        Kind::Collection {
            kind: CollectionKind::Map,
            items,
        } => {
            let mut found = Entry::Absent;
            for item in e.ir.list(items).to_vec() {
                let Kind::Pair { key: k, value } = e.ir.kind(item) else {
                    return Entry::Unknown; // `{**other}`
                };
                match e.fold(k, 0) {
                    Some(text) if &*text != key => {}
                    Some(_) => found = Entry::Value(value),
                    None => return Entry::Unknown,
                }
            }
            found
        }
        // `dict(color="red")`
        Kind::Call { callee, .. } if e.names_of(callee) == ["dict"] => {
            if e.splatted(mapping) || !e.positional_args(mapping).is_empty() {
                Entry::Unknown
            } else {
                e.keyword_arg(mapping, key)
                    .map_or(Entry::Absent, Entry::Value)
            }
        }
        Kind::Name(sym) if depth < MAX_ALIASES => name_mapping_value(e, sym, mapping, key, depth),
        _ => Entry::Unknown,
    }
}

/// A name that only ever holds mappings the analyzer can read, and is used nowhere but as
/// `**name` (so nothing adds an entry later): what those mappings hold.
fn name_mapping_value(e: &mut Engine, sym: Sym, at: NodeId, key: &str, depth: usize) -> Entry {
    let declaring = e.dialect.declaring();
    let lookup = e.scopes.lookup(sym, e.scopes.scope_of(at), declaring);
    let [scope] = lookup.scopes[..] else {
        return Entry::Unknown;
    };
    let only_splatted = (0..e.ir.nodes.len() as NodeId).all(|id| {
        !matches!(e.ir.kind(id), Kind::Name(s) if s == sym)
            || e.scopes.lookup(sym, e.scopes.scope_of(id), declaring).scopes != [scope]
            || e.ir.parent(id).is_some_and(|arg| {
                matches!(e.ir.kind(arg), Kind::Arg { splat: Splat::Keywords, value, .. } if value == id)
            })
    });
    if !only_splatted {
        return Entry::Unknown;
    }
    let mut found = Entry::Absent;
    let readable = e.every_bind(sym, at, |e, bind| {
        let Some(parent) = e.ir.parent(bind) else {
            return false;
        };
        let Kind::Assign { targets, value } = e.ir.kind(parent) else {
            return false;
        };
        if !e.ir.list(targets).contains(&bind) {
            return false;
        }
        match mapping_value(e, value, key, depth + 1) {
            Entry::Absent => true,
            Entry::Value(v) => {
                found = Entry::Value(v);
                true
            }
            Entry::Unknown => false,
        }
    });
    if readable { found } else { Entry::Unknown }
}

/// True when a pandas option pattern may select `plotting.backend`: pandas takes an exact
/// option name, else searches every name with the pattern as a case-insensitive regular
/// expression. A pattern of letters, digits, `_` and `.` (any character) is matched here as
/// pandas would; any other pattern, or one that does not fold, may select it.
fn may_select_backend(key: Option<&str>, loader: Loader) -> bool {
    let Some(key) = key else {
        return true;
    };
    match loader {
        Loader::Matplotlib => key.to_ascii_lowercase().contains("backend"),
        Loader::Pandas => {
            if !key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
            {
                return true;
            }
            let pattern = key.as_bytes();
            let option = PANDAS_BACKEND_OPTION.as_bytes();
            pattern.is_empty()
                || option.windows(pattern.len()).any(|window| {
                    window
                        .iter()
                        .zip(pattern)
                        .all(|(o, p)| *p == b'.' || o.eq_ignore_ascii_case(p))
                })
        }
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
            is_pandas_options(e, object).then_some(Loader::Pandas)
        }
        Kind::Index { object, key } => {
            let backend = e.fold(key, 0).is_none_or(|k| &*k == "backend");
            (backend && is_rc_params(e, object)).then_some(Loader::Matplotlib)
        }
        _ => None,
    }
}

fn is_pandas_options(e: &mut Engine, id: NodeId) -> bool {
    resolves_to(e, id, |p| p.starts_with("pandas.options"))
}

fn is_rc_params(e: &mut Engine, id: NodeId) -> bool {
    resolves_to(e, id, |p| {
        p.starts_with("matplotlib") && p.ends_with("rcParams")
    })
}

fn resolves_to(e: &mut Engine, id: NodeId, wanted: impl Fn(&str) -> bool) -> bool {
    e.resolve(id, 0)
        .iter()
        .any(|m| e.path_text(m.value).is_some_and(&wanted))
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
