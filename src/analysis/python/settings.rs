//! Library settings that load code. pandas imports whatever module its `plotting.backend`
//! option names (and `plot(backend=name)`); matplotlib imports `name` for a backend written
//! `module://name`, evaluates text given for `axes.prop_cycle` as Python (its
//! `validate_cycler`), and imports and calls each `module:function` of `figure.hooks`,
//! wherever the setting comes from: `rcParams`, `rc`, `rc_context`, a
//! style (a mapping, or a file it reads). Its movie writers run the program
//! `animation.ffmpeg_path` (or `animation.convert_path`) names.
//!
//! The writes are found by what they write, not by one spelling: every pandas option setter
//! (`set_option`, `option_context`, which select options by a case-insensitive regular
//! expression), attribute stores and `setattr` on `pandas.options`, every write into
//! matplotlib's `rcParams` (item stores, `update`/`setdefault`, `|=`, the `dict` methods called
//! on it, `RcParams(...)`, `rc_context`, `rc`), styles, and a `backend=` keyword, written or
//! inside `**{...}`, on the plotting and saving calls that take one.

use crate::analysis::engine::Engine;
use crate::analysis::engine::rewrites::is_store_target;
use crate::analysis::facts::{DynamicKind, FactKind};
use crate::analysis::ir::{CollectionKind, Kind, NodeId, Splat, Sym};

/// What a setting does with its value.
#[derive(Clone, Copy)]
enum Effect {
    /// pandas' plotting backend: imports any name but its own.
    ImportAny,
    /// matplotlib's backend: imports `name` for `module://name`.
    ImportModuleUrl,
    /// matplotlib's `axes.prop_cycle`: text is evaluated as Python.
    EvaluateText,
    /// matplotlib's `figure.hooks`: each `module:function` named is imported and called with
    /// every new figure.
    CallsCode,
    /// matplotlib's `animation.ffmpeg_path`: the program its movie writers run.
    NamesProgram,
    /// A matplotlib style (a mapping of settings, or a file or package to read them from).
    Style,
    /// matplotlib runs a program on the figure's text: LaTeX for `text.usetex` (which reads any
    /// file the text names with `\input`), Ghostscript or xpdf for `ps.usedistiller`.
    RunsProgram,
}

/// The settings of matplotlib's `rcParams` that load code, by key.
const RC_SETTINGS: &[(&str, Effect)] = &[
    ("backend", Effect::ImportModuleUrl),
    ("axes.prop_cycle", Effect::EvaluateText),
    ("figure.hooks", Effect::CallsCode),
    ("animation.ffmpeg_path", Effect::NamesProgram),
    ("animation.convert_path", Effect::NamesProgram),
    ("text.usetex", Effect::RunsProgram),
    ("ps.usedistiller", Effect::RunsProgram),
];

/// The programs matplotlib's movie writers run unless told otherwise.
const DEFAULT_PROGRAMS: &[&str] = &["ffmpeg", "convert"];

/// The keyword by which a text, a label or a tick formatter asks for LaTeX.
const USETEX_KEYWORD: &str = "usetex";

/// What matplotlib saves with LaTeX (its `pgf` backend measures text with `xelatex`).
const LATEX_FORMAT: &str = "pgf";

/// Functions whose argument at the index names a matplotlib backend.
const BACKEND_SETTERS: &[(&str, usize, &str)] = &[
    ("matplotlib.use", 0, "backend"),
    ("matplotlib.pyplot.switch_backend", 0, "newbackend"),
];

/// pandas' functions that set options from (pattern, value) pairs.
const PANDAS_OPTION_SETTERS: &[&str] = &["pandas.set_option", "pandas.option_context"];

/// Functions that write a mapping of settings (the argument at the index or keyword, and
/// their own keywords) into `rcParams`.
const RC_WRITERS: &[(&str, usize, &str)] = &[
    ("matplotlib.rc_context", 0, "rc"),
    ("matplotlib.pyplot.rc_context", 0, "rc"),
    ("matplotlib.RcParams", 0, ""),
];

/// `rc(group, **settings)`: each keyword is the setting `group.keyword`.
const GROUP_WRITERS: &[&str] = &["matplotlib.rc", "matplotlib.pyplot.rc"];

/// Functions that apply a style: a library style's name, a mapping, a file or URL, or a list
/// of those.
const STYLE_USERS: &[&str] = &[
    "matplotlib.style.use",
    "matplotlib.style.context",
    "matplotlib.pyplot.style.use",
    "matplotlib.pyplot.style.context",
    "matplotlib.style.core.use",
    "matplotlib.style.core.context",
];

/// Functions that read settings from files the snippet may have written.
const SETTINGS_FILE_READERS: &[&str] = &[
    "matplotlib.rc_file",
    "matplotlib.rc_params_from_file",
    "matplotlib.pyplot.rc_file",
    "matplotlib.style.reload_library",
    "matplotlib.style.core.reload_library",
    "matplotlib.pyplot.style.reload_library",
];

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

/// Functions whose result is a cycler, never text.
const CYCLERS: &[&str] = &[
    "cycler.cycler",
    "matplotlib.cycler",
    "matplotlib.rcsetup.cycler",
];

/// matplotlib's settings objects: `RcParams` mappings whose item writes validate (and so
/// evaluate `axes.prop_cycle` text): the live settings, and the defaults `rcdefaults` and
/// `rc_file_defaults` copy back into them.
const RC_OBJECTS: &[&str] = &["rcParams", "rcParamsDefault", "rcParamsOrig"];

/// Methods of an `RcParams` (or its class) that return a new one, and functions that make
/// one: every `RcParams` validates what is written into it, so a new one is a settings
/// object the analyzer would have to follow.
const RC_COPIERS: &[&str] = &["copy", "find_all", "fromkeys"];
const RC_MAKERS: &[&str] = &[
    "matplotlib.RcParams",
    "matplotlib.rc_params",
    "matplotlib.pyplot.rc_params",
];

/// matplotlib's table of named styles: a style stored there is applied by its name.
const STYLE_LIBRARIES: &[&str] = &[
    "matplotlib.style.library",
    "matplotlib.style.core.library",
    "matplotlib.pyplot.style.library",
];

/// The option pandas selects for its plotting backend.
const PANDAS_BACKEND_OPTION: &str = "plotting.backend";

/// How many names bound to names a mapping is followed through.
const MAX_ALIASES: usize = 4;

/// The settings objects and setters above, by name (`matplotlib.rcParams`, its methods,
/// `pandas.set_option`): values that load code when written.
pub fn is_settings_name(name: &str) -> bool {
    let rc = name
        .split('.')
        .any(|part| part == "RcParams" || RC_OBJECTS.contains(&part));
    let matplotlib = name.starts_with("matplotlib.") && rc;
    matplotlib
        || STYLE_LIBRARIES.contains(&name)
        || RC_MAKERS.contains(&name)
        || PANDAS_OPTION_SETTERS.contains(&name)
        || matches!(name, "pandas.options" | "pandas.options.plotting")
        || BACKEND_SETTERS.iter().any(|(n, ..)| *n == name)
        || RC_WRITERS.iter().any(|(n, ..)| *n == name)
        || GROUP_WRITERS.contains(&name)
        || STYLE_USERS.contains(&name)
}

/// Settings objects whose stores `report` judges by the key and value stored: the items of
/// an `rcParams` (`mpl.rcParams["lines.linewidth"] = 2`) or of the style library (never
/// their attributes, nor the `RcParams` class, whose methods every read goes through), and
/// the attributes of `pandas.options` and its option groups (`pd.options.display.max_rows =
/// 10`).
pub fn is_settings_owner(owner: &str, by_item: bool) -> bool {
    if by_item {
        let last = owner.rsplit('.').next().unwrap_or(owner);
        owner.starts_with("matplotlib.") && RC_OBJECTS.contains(&last)
            || STYLE_LIBRARIES.contains(&owner)
    } else {
        owner == "pandas.options" || owner.starts_with("pandas.options.")
    }
}

pub fn report(e: &mut Engine, id: NodeId) {
    match e.ir.kind(id) {
        Kind::Call { callee, .. } => report_call(e, id, callee),
        // `pd.options.plotting.backend = name`, `mpl.rcParams["backend"] = name`
        Kind::Assign { targets, value } => {
            for &target in e.ir.list(targets).to_vec().iter() {
                for effect in store_effects(e, target) {
                    report_value(e, target, Some(value), effect);
                }
            }
        }
        // `rcParams.validate["axes.prop_cycle"](text)`: the validators, one of which runs text.
        Kind::Attr { object, name } if e.name(name) == "validate" && names_rc_params(e, object) => {
            e.dynamic(
                id,
                DynamicKind::CodeEval,
                "`rcParams.validate` holds matplotlib's validators, one of which evaluates text \
                 as Python",
            );
        }
        // `setter = rcParams.__setitem__`, `partial(rcParams.update, ...)`: a writer taken as
        // a value writes where the analyzer cannot see what.
        Kind::Attr { object, name }
            if MAPPING_WRITERS.contains(&e.name(name))
                && !is_called(e, id)
                && names_rc_params(e, object) =>
        {
            e.dynamic(
                id,
                DynamicKind::UntrackedValue,
                "a writer of matplotlib's settings taken as a value: what it writes (a backend to \
                 import, `axes.prop_cycle` text to evaluate) cannot be followed",
            );
        }
        // `mpl.rcParams |= {"backend": name}`
        Kind::AugAssign {
            target,
            value: Some(value),
        } if is_rc_params(e, target) => report_rc_mapping(e, id, value),
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
        let name = name.as_str();
        if let Some(&(_, index, keyword)) = BACKEND_SETTERS.iter().find(|(n, ..)| *n == name) {
            let value = (!splatted).then(|| e.arg(call, index, keyword)).flatten();
            report_value(e, call, value, Effect::ImportModuleUrl);
        }
        if PANDAS_OPTION_SETTERS.contains(&name) {
            report_pandas_options(e, call);
        }
        if let Some(&(_, index, keyword)) = RC_WRITERS.iter().find(|(n, ..)| *n == name) {
            let given = e.arg(call, index, keyword);
            report_rc_arguments(e, call, given);
        }
        if GROUP_WRITERS.contains(&name) {
            report_group_settings(e, call);
        }
        if STYLE_USERS.contains(&name) {
            let style = (!splatted).then(|| e.arg(call, 0, "style")).flatten();
            report_style(e, call, style, 0);
        }
        if SETTINGS_FILE_READERS.contains(&name) || name.ends_with("rc_context") {
            report_settings_file(e, call, name);
        }
        if name == "setattr" {
            report_setattr(e, call);
        }
        if RC_MAKERS.contains(&name) {
            report_new_settings(e, call);
        }
        // `dict.update(mpl.rcParams, {...})`
        if let Some(method) = name.strip_prefix("dict.")
            && MAPPING_WRITERS.contains(&method)
            && let Some(&target) = e.positional_args(call).first()
            && is_rc_params(e, target)
        {
            let rest = e.positional_args(call).get(1).copied();
            report_rc_arguments(e, call, rest);
        }
    }
    let Kind::Attr { object, name } = e.ir.kind(callee) else {
        return;
    };
    let method = e.name(name).to_owned();
    if MAPPING_WRITERS.contains(&method.as_str()) && is_rc_params(e, object) {
        report_rc_arguments(e, call, e.positional_args(call).first().copied());
    }
    // `rcParams.copy()`, `RcParams.fromkeys(...)`: a new settings object.
    if RC_COPIERS.contains(&method.as_str()) && names_rc_params(e, object) {
        report_new_settings(e, call);
    }
    // `style.library.update({"x": {...}})`: styles the analyzer would have to read.
    if MAPPING_WRITERS.contains(&method.as_str()) && is_style_library(e, object) {
        report_entry(e, call, Entry::Unknown, Effect::EvaluateText);
    }
    report_backend_keyword(e, call, &names, &method);
    if let Some(value) = e.keyword_arg(call, USETEX_KEYWORD) {
        report_program(e, call, Some(value));
    }
    // `artist.update({"usetex": True})`: the setter the key names
    if method == "update"
        && let Some(&mapping) = e.positional_args(call).first()
        && let Some(value) = e.mapping_value(mapping, USETEX_KEYWORD)
    {
        report_program(e, call, Some(value));
    }
    if SAVE_METHODS.contains(&method.as_str()) {
        report_latex_save(e, call);
    }
}

/// `savefig("figure.pgf")`, `savefig(f, format="pgf")`, `savefig(f, backend="pgf")`: the
/// `pgf` backend runs LaTeX on every text of the figure.
fn report_latex_save(e: &mut Engine, call: NodeId) {
    let by_name = e
        .arg(call, 0, "fname")
        .and_then(|f| e.fold(f, 0))
        .is_some_and(|f| {
            f.to_ascii_lowercase()
                .ends_with(&format!(".{LATEX_FORMAT}"))
        });
    // Each text the keyword may be (a helper's parameter given constants by its callers; none
    // when nothing calls the helper).
    let by_keyword = ["format", "backend"].iter().any(|k| {
        e.keyword_arg(call, k).is_some_and(|v| {
            e.fold_candidates(v)
                .is_none_or(|texts| texts.iter().any(|t| t.eq_ignore_ascii_case(LATEX_FORMAT)))
        })
    });
    if by_name || by_keyword {
        report_program(e, call, None);
    }
}

/// A setting or keyword that makes matplotlib run LaTeX or Ghostscript on the figure's text,
/// unless it is `False` or `None`. Those programs are not in the sandbox's own image, but an
/// image built with more packages may have them, and LaTeX reads whatever file the text
/// names; strict, which allows only what it can follow, refuses the setting.
fn report_program(e: &mut Engine, at: NodeId, value: Option<NodeId>) {
    use crate::analysis::ir::ConstKind;
    if let Some(v) = value
        && matches!(
            e.ir.kind(e.ir.unparen(v)),
            Kind::Const(ConstKind::False | ConstKind::Null)
        )
    {
        return;
    }
    e.dynamic(
        at,
        DynamicKind::UntrackedValue,
        "matplotlib would run LaTeX (`usetex`, the `pgf` format) or Ghostscript \
         (`ps.usedistiller`) on the figure's text: a program outside the analyzer's view, which \
         reads any file the text names; draw text with mathtext (`$...$`) instead",
    );
}

/// `df.plot(backend=name)`, `fig.savefig(..., backend="module://name")`, also inside `**{}`.
fn report_backend_keyword(e: &mut Engine, call: NodeId, names: &[String], method: &str) {
    // `plt.hist(x, **style)`: matplotlib's own plotting functions take no backend.
    let matplotlib_plotting = !names.is_empty()
        && names
            .iter()
            .all(|n| n.starts_with("matplotlib.") && !SAVE_METHODS.iter().any(|s| n.ends_with(s)));
    let effect = if PLOT_METHODS.contains(&method) && !matplotlib_plotting {
        Effect::ImportAny
    } else if SAVE_METHODS.contains(&method) {
        Effect::ImportModuleUrl
    } else {
        return;
    };
    if let Some(value) = e.keyword_arg(call, "backend") {
        report_value(e, call, Some(value), effect);
    }
    for splat in keyword_splats(e, call) {
        let entry = mapping_value(e, splat, "backend", 0);
        report_entry(e, splat, entry, effect);
    }
}

/// `set_option(pattern, value, ...)`, `option_context(pattern, value, ...)`.
fn report_pandas_options(e: &mut Engine, call: NodeId) {
    let args = e.positional_args(call);
    for pair in args.chunks(2) {
        let key = e.fold(pair[0], 0);
        if may_select_backend(key.as_deref()) {
            report_value(e, call, pair.get(1).copied(), Effect::ImportAny);
        }
    }
    if e.splatted(call) {
        report_value(e, call, None, Effect::ImportAny);
    }
}

/// `rc("axes", prop_cycle=...)`: the keywords are settings of the groups named first.
fn report_group_settings(e: &mut Engine, call: NodeId) {
    if e.splatted(call) {
        for &(_, effect) in RC_SETTINGS {
            report_value(e, call, None, effect);
        }
        return;
    }
    let groups: Option<Vec<String>> = match e.positional_args(call).first() {
        Some(&group) => match e.ir.kind(e.ir.unparen(group)) {
            Kind::Collection { items, .. } => {
                let items = e.ir.list(items).to_vec();
                items
                    .into_iter()
                    .map(|i| e.fold(i, 0).map(|s| s.to_string()))
                    .collect()
            }
            _ => e.fold(group, 0).map(|g| vec![g.to_string()]),
        },
        None => Some(Vec::new()),
    };
    let Kind::Call { args, .. } = e.ir.kind(call) else {
        return;
    };
    for arg in e.ir.list(args).to_vec() {
        let Kind::Arg {
            name: Some(keyword),
            value,
            ..
        } = e.ir.kind(arg)
        else {
            continue;
        };
        let keyword = e.name(keyword);
        for &(key, effect) in RC_SETTINGS {
            let named = groups
                .as_ref()
                .is_none_or(|gs| gs.iter().any(|g| format!("{g}.{keyword}") == key));
            if named {
                report_value(e, call, Some(value), effect);
            }
        }
    }
}

/// A style: a library style's name is the library's; a mapping is settings; a file, a URL or
/// a package's style is settings the analyzer cannot read.
fn report_style(e: &mut Engine, call: NodeId, style: Option<NodeId>, depth: usize) {
    let Some(style) = style.filter(|_| depth <= MAX_ALIASES) else {
        return report_entry(e, call, Entry::Unknown, Effect::EvaluateText);
    };
    if let Kind::Collection {
        kind: CollectionKind::List | CollectionKind::Tuple,
        items,
    } = e.ir.kind(e.ir.unparen(style))
    {
        for item in e.ir.list(items).to_vec() {
            report_style(e, call, Some(item), depth + 1);
        }
        return;
    }
    if let Some(name) = e.fold(style, 0) {
        let library_style = !name.contains(['/', '.', ':', '\\']);
        if !library_style {
            e.dynamic(
                call,
                DynamicKind::CodeEval,
                "a style read from a file or package: matplotlib evaluates its \
                 `axes.prop_cycle` text as Python",
            );
        }
        return;
    }
    // A style never sets the backend (matplotlib ignores it there); every other setting above
    // it may.
    for &(key, effect) in RC_SETTINGS.iter().filter(|(k, _)| *k != "backend") {
        let entry = mapping_value(e, style, key, 0);
        let unknown = matches!(entry, Entry::Unknown);
        report_entry(e, style, entry, effect);
        if unknown {
            return; // one finding says it: the mapping is not read at all
        }
    }
}

/// `rc_file(path)`, `rc_context(fname=path)`, `style.reload_library()`: settings read from a
/// file the snippet may have written.
fn report_settings_file(e: &mut Engine, call: NodeId, name: &str) {
    let reads_file = !name.ends_with("rc_context") || e.arg(call, 1, "fname").is_some();
    if reads_file {
        e.dynamic(
            call,
            DynamicKind::CodeEval,
            "settings read from a file: matplotlib evaluates their `axes.prop_cycle` text as \
             Python",
        );
    }
}

/// `setattr(pd.options.plotting, "backend", name)`.
fn report_setattr(e: &mut Engine, call: NodeId) {
    let args = e.positional_args(call);
    if e.splatted(call) {
        if args.first().is_none_or(|&o| is_pandas_options(e, o)) {
            report_value(e, call, None, Effect::ImportAny);
        }
        return;
    }
    let [object, attribute, value] = args[..] else {
        return;
    };
    if is_pandas_options(e, object)
        && e.fold(attribute, 0)
            .is_none_or(|a| a.eq_ignore_ascii_case("backend"))
    {
        report_value(e, call, Some(value), Effect::ImportAny);
    }
}

/// The keyword arguments and the mapping at `mapping` (if any) of a call that writes them all
/// into `rcParams`.
fn report_rc_arguments(e: &mut Engine, call: NodeId, mapping: Option<NodeId>) {
    for &(key, effect) in RC_SETTINGS {
        if let Some(value) = e.keyword_arg(call, key) {
            report_value(e, call, Some(value), effect);
        }
        if e.splatted(call) {
            report_value(e, call, None, effect);
        }
    }
    if let Some(mapping) = mapping {
        report_rc_mapping(e, call, mapping);
    }
}

/// A mapping written into `rcParams`: each setting it may hold.
fn report_rc_mapping(e: &mut Engine, at: NodeId, mapping: NodeId) {
    for &(key, effect) in RC_SETTINGS {
        let entry = mapping_value(e, mapping, key, 0);
        report_entry(e, at, entry, effect);
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

/// What a mapping holds under `key`.
enum Entry {
    /// Proven not to hold it.
    Absent,
    Value(NodeId),
    /// Not a mapping the analyzer can read: it may hold anything.
    Unknown,
}

fn report_entry(e: &mut Engine, at: NodeId, entry: Entry, effect: Effect) {
    match entry {
        Entry::Absent => {}
        Entry::Value(value) => report_value(e, at, Some(value), effect),
        // Settings from elsewhere are ordinary code: only strict, which allows nothing it
        // cannot follow, refuses them.
        Entry::Unknown => e.dynamic(
            at,
            DynamicKind::UntrackedValue,
            "settings the analyzer cannot read may name a module to import (`backend`) or \
             text matplotlib evaluates as Python (`axes.prop_cycle`)",
        ),
    }
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

/// A name that only ever holds mappings the analyzer can read (or a `**kwargs` parameter whose
/// function's calls are all seen), and is used nowhere but as an argument (`**name`,
/// `update(name)`), where nothing adds an entry to it: what those mappings hold.
fn name_mapping_value(e: &mut Engine, sym: Sym, at: NodeId, key: &str, depth: usize) -> Entry {
    let declaring = e.dialect.declaring();
    let lookup = e.scopes.lookup(sym, e.scopes.scope_of(at), declaring);
    let [scope] = lookup.scopes[..] else {
        return Entry::Unknown;
    };
    let only_passed = (0..e.ir.nodes.len() as NodeId).all(|id| {
        !matches!(e.ir.kind(id), Kind::Name(s) if s == sym)
            || e.scopes.lookup(sym, e.scopes.scope_of(id), declaring).scopes != [scope]
            || e.ir.parent(id).is_some_and(|arg| {
                matches!(e.ir.kind(arg), Kind::Arg { splat: Splat::Keywords | Splat::None, name: None, value } if value == id)
            })
    });
    if !only_passed {
        return Entry::Unknown;
    }
    let mut found = Entry::Absent;
    let readable = e.every_bind(sym, at, |e, bind| {
        let Some(parent) = e.ir.parent(bind) else {
            return false;
        };
        // `def plot(ax, **style)`: the keywords its callers give, when they are all seen.
        if e.keyword_parameter_calls(parent).is_some() {
            if let Some(value) = e.mapping_value(at, key) {
                found = Entry::Value(value);
            }
            return true;
        }
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
fn may_select_backend(key: Option<&str>) -> bool {
    let Some(key) = key else {
        return true;
    };
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

/// What a store sets, if it sets a setting that loads code: an attribute `backend` of pandas'
/// options, or `rcParams[key]` for such a key (or a key computed at run time).
fn store_effects(e: &mut Engine, target: NodeId) -> Vec<Effect> {
    if !is_store_target(e, target) {
        return Vec::new();
    }
    match e.ir.kind(target) {
        Kind::Attr { object, name } if e.name(name) == "backend" => {
            if is_pandas_options(e, object) {
                vec![Effect::ImportAny]
            } else {
                Vec::new()
            }
        }
        // `style.library["x"] = {...}`: a style applied later by its name.
        Kind::Index { object, .. } if is_style_library(e, object) => vec![Effect::Style],
        Kind::Index { object, key } if is_rc_params(e, object) => {
            let key = e.fold(key, 0);
            RC_SETTINGS
                .iter()
                .filter(|(k, _)| key.as_deref().is_none_or(|key| key == *k))
                .map(|&(_, effect)| effect)
                .collect()
        }
        _ => Vec::new(),
    }
}

fn is_pandas_options(e: &mut Engine, id: NodeId) -> bool {
    resolves_to(e, id, |p| p.starts_with("pandas.options"))
}

/// True when the node is the callee of a call, not a value handed on.
fn is_called(e: &Engine, id: NodeId) -> bool {
    e.ir.context(id).is_some_and(
        |(parent, child)| matches!(e.ir.kind(parent), Kind::Call { callee, .. } if callee == child),
    )
}

/// `rcParams` or its class, by what it resolves to or, where it does not resolve (the class
/// itself), by its name: `RcParams.validate` is the same table of validators.
fn names_rc_params(e: &mut Engine, id: NodeId) -> bool {
    let named = match e.ir.kind(e.ir.unparen(id)) {
        Kind::Name(name) | Kind::Attr { name, .. } => e.name(name).ends_with("cParams"),
        _ => false,
    };
    named || is_rc_params(e, id)
}

fn is_rc_params(e: &mut Engine, id: NodeId) -> bool {
    resolves_to(e, id, |p| {
        p.starts_with("matplotlib")
            && p.rsplit('.')
                .next()
                .is_some_and(|last| RC_OBJECTS.contains(&last))
    })
}

fn is_style_library(e: &mut Engine, id: NodeId) -> bool {
    resolves_to(e, id, |p| STYLE_LIBRARIES.contains(&p))
}

/// A new `RcParams` (a copy, a selection, one made from keys or read from the defaults): it
/// validates whatever is written into it later, where the analyzer does not follow it.
fn report_new_settings(e: &mut Engine, call: NodeId) {
    e.dynamic(
        call,
        DynamicKind::UntrackedValue,
        "a new matplotlib settings object: text written into its `axes.prop_cycle` is \
         evaluated as Python, and the analyzer does not follow it; write into `rcParams` itself",
    );
}

fn resolves_to(e: &mut Engine, id: NodeId, wanted: impl Fn(&str) -> bool) -> bool {
    e.resolve(id, 0)
        .iter()
        .any(|m| e.path_text(m.value).is_some_and(&wanted))
}

/// What a setting's value does: the import it makes, or the text it runs.
fn report_value(e: &mut Engine, at: NodeId, value: Option<NodeId>, effect: Effect) {
    if let Effect::Style = effect {
        return report_style(e, at, value, 0);
    }
    if let Effect::RunsProgram = effect {
        return report_program(e, at, value);
    }
    if let Effect::CallsCode = effect {
        let none = value.is_some_and(|v| {
            matches!(e.ir.kind(e.ir.unparen(v)), Kind::Collection { items, .. }
                if e.ir.list(items).is_empty())
        });
        if !none {
            e.dynamic(
                at,
                DynamicKind::CodeEval,
                "matplotlib imports each `module:function` that `figure.hooks` names and calls                  it with every new figure: set no figure hooks",
            );
        }
        return;
    }
    if let (Effect::EvaluateText, Some(v)) = (effect, value)
        && let Kind::Call { callee, .. } = e.ir.kind(e.ir.unparen(v))
        && e.names_of(callee)
            .iter()
            .any(|n| CYCLERS.contains(&n.as_str()))
    {
        return; // `cycler(color=[...])`: a cycler, not text
    }
    let folded = value.and_then(|v| e.fold(v, 0));
    match (effect, folded) {
        (Effect::NamesProgram, Some(program)) if DEFAULT_PROGRAMS.contains(&&*program) => {}
        (Effect::NamesProgram, _) => e.dynamic(
            at,
            DynamicKind::CodeEval,
            "matplotlib's movie writers run the program `animation.ffmpeg_path` or \
             `animation.convert_path` names, with arguments the snippet's files may answer",
        ),
        (Effect::EvaluateText, Some(_)) => e.dynamic(
            at,
            DynamicKind::CodeEval,
            "matplotlib evaluates text given for `axes.prop_cycle` as Python",
        ),
        (Effect::EvaluateText, None) => e.dynamic(
            at,
            DynamicKind::UntrackedValue,
            "a value for `axes.prop_cycle` that may be text, which matplotlib evaluates as \
             Python: write `cycler(...)` there",
        ),
        (_, Some(name)) => {
            let module = match (effect, name.strip_prefix("module://")) {
                (_, Some(module)) => module,
                (Effect::ImportAny, None) if &*name != "matplotlib" => &name,
                _ => return, // the library's own backend
            };
            e.push(
                at,
                FactKind::Import {
                    module: module.to_owned(),
                },
            );
        }
        (_, None) => e.dynamic(
            at,
            DynamicKind::DynamicImport,
            "a plotting backend named at run time is imported by that name",
        ),
    }
}
