//! File paths: every path a call opens, lists, writes or removes, folded through constants,
//! joins and the pathlib `/` operator, and normalized (`.`, `..`, `//`, `file:` URLs) so a
//! policy can tell paths inside the work dir from the rest, and paths the analyzer could not
//! fold at all.

use crate::analysis::dialect::{PathFunction, PathMethod};
use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::{Meaning, Value};
use crate::analysis::facts::FactKind;
use crate::analysis::ir::{CollectionKind, Kind, NodeId};
use crate::analysis::text::percent_decode;

pub fn report(e: &mut Engine, call: NodeId) {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return;
    };
    let (callees, args) = e.effective_call(call, 0);
    let mut known_function = false;
    let mut called = called_names(e, &callees, &args);
    called.extend(bases_initialized(e, call, &args));
    for (name, args) in called {
        let Some(function) = e.dialect.path_function(&name) else {
            continue;
        };
        known_function = true;
        if e.splatted(call) {
            report_unknown_path(e, call, name);
            continue;
        }
        report_arguments(e, call, &name, &function, &args);
        report_descriptor_option(e, call, &name, &args);
        report_opener(e, call, &name);
    }
    report_font_mappings(e, call, callee);
    if known_function {
        return;
    }
    // Methods of objects the analyzer does not know: a `Path`'s own methods act on the path
    // it holds; writers such as `DataFrame.to_csv` take one.
    let Kind::Attr { object, name } = e.ir.kind(callee) else {
        return;
    };
    if e.is_only_known(object) && !e.is_carried_name(object) {
        return; // a module's or builtin's function, judged by name
    }
    let method = e.name(name).to_owned();
    if method == "open" {
        report_opener(e, call, ".open");
    }
    let dialect = e.dialect;
    if dialect.path_method(&method).is_some() && !may_be_path_method(e, call, object, &method) {
        return;
    }
    let Some(kind) = dialect.path_method(&method) else {
        return;
    };
    let function = format!(".{method}");
    if let PathMethod::Pattern(index, keyword) = kind {
        let pattern = (!e.splatted(call))
            .then(|| {
                args.get(index)
                    .copied()
                    .or_else(|| e.keyword_arg(call, keyword))
            })
            .flatten();
        let root = e.fold(object, 0).map(|p| p.to_string());
        let path = match (root, pattern) {
            (Some(root), Some(pattern)) => e
                .fold(pattern, 0)
                .and_then(|p| pattern_path(&format!("{root}/{p}"))),
            _ => None,
        };
        push_readings(e, call, &function, path.as_deref());
        return;
    }
    let (receiver, argument) = match kind {
        PathMethod::OnReceiver => (true, None),
        PathMethod::Argument(index, keyword) => (false, Some((index, keyword))),
        PathMethod::ReceiverAndArgument(index, keyword) => (true, Some((index, keyword))),
        PathMethod::Pattern(..) => unreachable!("handled above"),
    };
    let mut target = None;
    if let Some((index, keyword)) = argument {
        if e.splatted(call) {
            report_unknown_path(e, call, function.clone());
        } else {
            target = args
                .get(index)
                .copied()
                .or_else(|| keyword.split('|').find_map(|k| e.keyword_arg(call, k)));
            match target {
                // `df.rename({"a": "b"})`, `s.replace(mapping)`, `s.replace(["a"])`: a
                // path's method takes one path, never a collection of them
                Some(arg)
                    if is_never_a_path(e, arg)
                        || matches!(e.ir.kind(e.ir.unparen(arg)), Kind::Collection { .. }) =>
                {
                    return;
                }
                // `items.copy()`: a path's `copy` takes where to.
                None if receiver => return,
                _ => {}
            }
        }
    }
    if receiver {
        let path = e.fold(object, 0).map(|p| p.to_string());
        let path = path.or_else(|| listed_entry(e, object));
        push_readings(e, call, &function, path.as_deref());
    }
    if let Some(arg) = target {
        let path = e.fold(arg, 0).map(|p| p.to_string());
        let path = path.or_else(|| listed_entry(e, arg));
        push_readings(e, call, &function, path.as_deref());
    }
}

/// Functions whose path argument is a pattern.
const GLOB_FUNCTIONS: &[&str] = &["glob.glob", "glob.iglob"];

/// A glob pattern as a path, when its `..` parts can be read lexically: not after a part
/// with a wildcard (`**` also matches no directory at all, so `**/..` climbs out of the
/// directory it starts from, and `*/..` is the directory itself only when something matched).
fn pattern_path(pattern: &str) -> Option<String> {
    let mut magic = false;
    for part in pattern.split('/') {
        if part == ".." && magic {
            return None;
        }
        magic |= part.contains(['*', '?', '[']);
    }
    Some(pattern.to_owned())
}

/// The name of an entry of a directory listing, in a path: one or more components below the
/// directory listed, none of them `.` or `..` (listings give neither).
const LISTED_ENTRY: &str = "<entry>";

/// A name bound only by loops over listings of one directory the analyzer can fold
/// (`for name in os.listdir(d)`, `for p in Path(d).glob('*.csv')`, `for (const f of
/// fs.readdirSync(d))`, also sorted or copied first), used as it is or with constant text
/// after it that holds no `/` (`name + ".summary.csv"`): an entry below `d`, whatever its
/// name, with that text kept (a `.py` added is judged as one). Anything else done to the name
/// (a replacement, a slice) makes it unknown.
fn listed_entry(e: &mut Engine, value: NodeId) -> Option<String> {
    let value = e.ir.unparen(value);
    if let Kind::Binary {
        op: crate::analysis::ir::BinOp::Add,
        left,
        right,
    } = e.ir.kind(value)
    {
        if let Some(entry) = listed_entry(e, left)
            && let Some(suffix) = e.fold(right, 0).filter(|t| !t.contains('/'))
        {
            return Some(format!("{entry}{suffix}"));
        }
        return None;
    }
    let Kind::Name(sym) = e.ir.kind(value) else {
        return None;
    };
    let mut listed: Option<String> = None;
    let only_listings = e.every_bind(sym, value, |e, bind| {
        let iter = e.ir.loop_iterable(bind);
        match iter.and_then(|iter| listed_directory(e, iter)) {
            Some(dir) if listed.as_ref().is_none_or(|d| *d == dir) => {
                listed = Some(dir);
                true
            }
            _ => false,
        }
    });
    let dir = listed.filter(|_| only_listings)?;
    Some(format!("{dir}/{LISTED_ENTRY}"))
}

/// The directory a listing call lists, when it folds and the listing cannot reach above it.
fn listed_directory(e: &mut Engine, call: NodeId) -> Option<String> {
    let call = e.ir.unparen(call);
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return None;
    };
    if e.splatted(call) {
        return None;
    }
    let args = e.positional_args(call);
    let names = e.names_of(callee);
    if !names.is_empty() {
        let [name] = &names[..] else {
            return None;
        };
        return match name.as_str() {
            // the same entries, in another order or container
            "sorted" | "list" | "reversed" | "tuple" | "set" if args.len() == 1 => {
                listed_directory(e, args[0])
            }
            "os.listdir" | "os.scandir" | "fs.readdirSync" if args.len() <= 2 => {
                match args.first() {
                    Some(&dir) => e.fold(dir, 0).map(|d| d.to_string()),
                    None => Some(".".to_owned()),
                }
            }
            "glob.glob" | "glob.iglob" if args.len() == 1 => {
                let pattern = e.fold(args[0], 0)?;
                glob_base(&pattern)
            }
            _ => None,
        };
    }
    // `Path(d).iterdir()`, `Path(d).glob(pattern)` on a path the analyzer folds.
    let Kind::Attr { object, name } = e.ir.kind(callee) else {
        return None;
    };
    let dir = e.fold(object, 0)?.to_string();
    match (e.name(name), &args[..]) {
        ("iterdir", []) => Some(dir),
        ("glob" | "rglob", [pattern]) => {
            let pattern = e.fold(*pattern, 0)?;
            glob_base(&pattern).map(|base| format!("{dir}/{base}"))
        }
        _ => None,
    }
}

/// The fixed directory a glob pattern lists below: its components before the first with a
/// wildcard. A pattern with a `..` component may climb, so it has none.
fn glob_base(pattern: &str) -> Option<String> {
    if pattern.split('/').any(|part| part == "..") {
        return None;
    }
    let parts: Vec<&str> = pattern
        .split('/')
        .take_while(|part| !part.contains(['*', '?', '[']))
        .collect();
    match parts.join("/") {
        base if base.is_empty() && pattern.starts_with('/') => Some("/".to_owned()),
        base if base.is_empty() => Some(".".to_owned()),
        base => Some(base),
    }
}

/// Whether a method call on an object the analyzer does not know may be the path method of
/// that name: not when the call does not fit the method's signature (`s.replace("a", "b")`
/// is `str.replace`, `m.group(1)` a regular expression match's), nor when the object is
/// proven to be a string or a list, nor for `.group()` of a regular expression match.
fn may_be_path_method(e: &mut Engine, call: NodeId, object: NodeId, method: &str) -> bool {
    if let Some((positional, keywords)) = e.dialect.path_method_signature(method)
        && !e.splatted(call)
    {
        let Kind::Call { args, .. } = e.ir.kind(call) else {
            return true;
        };
        let mut given = 0;
        for &arg in e.ir.list(args) {
            match e.ir.kind(arg) {
                Kind::Arg { name: None, .. } => given += 1,
                Kind::Arg { name: Some(n), .. } if !keywords.contains(&e.name(n)) => return false,
                _ => {}
            }
        }
        if given > positional {
            return false;
        }
    }
    if e.dialect.path_method_signature(method).is_some() && e.is_sequence(object) {
        return false;
    }
    !(method == "group" && is_regex_match(e, object, 0))
}

/// True when the expression is a regular expression's match: what `re.match`, `re.search`,
/// `re.fullmatch` or a compiled pattern's `.match`/`.search`/`.fullmatch` return (whatever
/// the receiver: a path's own `.match` returns a `bool`, which has no `.group`), an element
/// of what `finditer` gives, or a name bound only to such values.
fn is_regex_match(e: &mut Engine, id: NodeId, depth: usize) -> bool {
    const MATCHING: [&str; 3] = ["match", "search", "fullmatch"];
    if depth > 4 {
        return false;
    }
    let id = e.ir.unparen(id);
    match e.ir.kind(id) {
        Kind::Call { callee, .. } => {
            if let Kind::Attr { name, .. } = e.ir.kind(callee)
                && MATCHING.contains(&e.name(name))
            {
                return true;
            }
            let names = e.names_of(callee);
            !names.is_empty()
                && names
                    .iter()
                    .all(|n| n.strip_prefix("re.").is_some_and(|f| MATCHING.contains(&f)))
        }
        Kind::Walrus { value, .. } => is_regex_match(e, value, depth + 1),
        Kind::Name(sym) => e.every_bind(sym, id, |e, bind| {
            let Some(parent) = e.ir.parent(bind) else {
                return false;
            };
            match e.ir.kind(parent) {
                Kind::Assign { value, .. } | Kind::Walrus { value, .. } => {
                    is_regex_match(e, value, depth + 1)
                }
                Kind::For { target, iter, .. } | Kind::CompFor { target, iter }
                    if target == bind =>
                {
                    finds_matches(e, iter)
                }
                _ => false,
            }
        }),
        _ => false,
    }
}

/// `re.finditer(...)` or `pattern.finditer(...)`: an iterator of matches.
fn finds_matches(e: &mut Engine, iter: NodeId) -> bool {
    let iter = e.ir.unparen(iter);
    let Kind::Call { callee, .. } = e.ir.kind(iter) else {
        return false;
    };
    if let Kind::Attr { name, .. } = e.ir.kind(callee)
        && e.name(name) == "finditer"
    {
        return true;
    }
    let names = e.names_of(callee);
    !names.is_empty() && names.iter().all(|n| n == "re.finditer")
}

/// True when the expression is certainly not a path nor a string: a literal mapping, or a
/// function. A path function given one would refuse it. (A number is a file descriptor to
/// `open` and `fs.readFileSync`; a list or tuple may be paths, each judged: scikit-learn's
/// `load_svmlight_files([p])` reads every one.)
fn is_never_a_path(e: &mut Engine, id: NodeId) -> bool {
    match e.ir.kind(e.ir.unparen(id)) {
        // Node's `fs` takes an object with `href` and `protocol` as a `file:` URL, so only an
        // object literal whose keys are all known, none of them `href`, is an options object.
        Kind::Collection {
            kind: CollectionKind::Map,
            items,
        } => {
            e.ir.list(items)
                .to_vec()
                .into_iter()
                .all(|item| match e.ir.kind(item) {
                    Kind::Pair { key, .. } => e.fold(key, 0).is_some_and(|k| &*k != "href"),
                    _ => false,
                })
        }
        Kind::Function { .. } => true,
        _ => super::buffers::is_in_memory_file(e, id),
    }
}

/// `super().__init__(p)` in a class deriving from a path class (`gzip.GzipFile`): each base
/// of the enclosing class, called with those arguments.
fn bases_initialized(e: &mut Engine, call: NodeId, args: &[NodeId]) -> Vec<(String, Vec<NodeId>)> {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return Vec::new();
    };
    let Kind::Attr { object, name } = e.ir.kind(callee) else {
        return Vec::new();
    };
    let on_super = matches!(e.ir.kind(e.ir.unparen(object)), Kind::Call { callee: inner, .. }
        if e.names_of(inner).iter().any(|n| n == "super"));
    if e.name(name) != "__init__" || !on_super {
        return Vec::new();
    }
    let Some(class) = e.ir.enclosing_function(call).and_then(|f| e.ir.parent(f)) else {
        return Vec::new();
    };
    let Kind::Class { heads, .. } = e.ir.kind(class) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for head in e.ir.list(heads).to_vec() {
        let Kind::Arg {
            name: None, value, ..
        } = e.ir.kind(head)
        else {
            continue;
        };
        for m in e.resolve(value, 0).to_vec() {
            if let Value::Name(p) = m.value
                && !m.held
            {
                out.push((e.paths.text(p).to_owned(), args.to_vec()));
            }
        }
    }
    out
}

/// The functions a call reaches, each with the arguments it gets there. Binding arguments
/// in advance (`fs.readFileSync.bind(null, p)`, `functools.partial(open, p)`) hands the path
/// over at the binding, so the binding is judged as the call: the later call may pass
/// nothing the analyzer could check.
fn called_names(
    e: &mut Engine,
    callees: &[Meaning],
    args: &[NodeId],
) -> Vec<(String, Vec<NodeId>)> {
    let mut out = Vec::new();
    let bound_args = args.get(1..).unwrap_or_default().to_vec();
    for m in callees {
        let (Value::Name(p) | Value::Module(p)) = m.value else {
            continue;
        };
        if m.held {
            continue;
        }
        let name = e.paths.text(p).to_owned();
        if e.dialect.forwards_calls()
            && let Some(target) = name.strip_suffix(".bind")
        {
            out.push((target.to_owned(), bound_args.clone()));
        } else if name == "functools.partial"
            && let Some(&function) = args.first()
        {
            for f in e.resolve(function, 0).iter() {
                if let Value::Name(t) | Value::Module(t) = f.value
                    && !f.held
                {
                    out.push((e.paths.text(t).to_owned(), bound_args.clone()));
                }
            }
        }
        // `gzip.GzipFile.__init__(self, p)` opens `p` as `gzip.GzipFile(p)` does.
        if let Some(class) = name.strip_suffix(".__init__") {
            out.push((class.to_owned(), bound_args.clone()));
        }
        out.push((name, args.to_vec()));
    }
    out
}

fn report_arguments(
    e: &mut Engine,
    call: NodeId,
    name: &str,
    function: &PathFunction,
    args: &[NodeId],
) {
    use crate::analysis::dialect::StrFn;
    if matches!(
        e.dialect.string_function(name),
        Some(StrFn::PathJoin | StrFn::PurePath | StrFn::NodeJoin)
    ) {
        // `pathlib.Path(a, b)`: the joined path, not each part.
        let path = e.fold(call, 0).map(|p| normalize(&p));
        e.push(
            call,
            FactKind::Path {
                function: name.to_owned(),
                path,
            },
        );
        return;
    }
    let mut values: Vec<NodeId> = function
        .positions
        .iter()
        .filter_map(|&i| args.get(i).copied())
        .collect();
    for keyword in function.keywords {
        if let Some(v) = e.keyword_arg(call, keyword) {
            values.push(v);
        }
    }
    for (i, value) in values.into_iter().enumerate() {
        // `fs.mkdirSync('out', { recursive: true })`: an options object is no path.
        if e.dialect.is_content_argument(name, i) || is_never_a_path(e, value) {
            continue;
        }
        for path in folded_paths(e, value) {
            let path = match path {
                Some(p) if GLOB_FUNCTIONS.contains(&name) => pattern_path(&p),
                other => other,
            };
            push_readings(e, call, name, path.as_deref());
        }
    }
}

/// Every text a path argument may be: its constant, or each of the few texts it may
/// evaluate to (a parameter given constants by every call of its function:
/// `const load = (name) => fs.readFileSync(name); load('a.txt')`); one unknown path when
/// neither is known.
fn folded_paths(e: &mut Engine, value: NodeId) -> Vec<Option<String>> {
    // A list, tuple or set of paths: each item (a spread one is unknown).
    if let Kind::Collection { items, .. } = e.ir.kind(e.ir.unparen(value)) {
        let items = e.ir.list(items).to_vec();
        if items.is_empty() {
            return Vec::new();
        }
        return items
            .into_iter()
            .flat_map(|item| match e.ir.kind(item) {
                Kind::Spread(_) => vec![None],
                _ => folded_paths(e, item),
            })
            .collect();
    }
    // A number is a file descriptor (`open(5)`, `fs.readFileSync(5)`): whatever the process
    // holds open there, the runner's own pipes among them, not a file named "5".
    let sources = e.value_sources_of(value).unwrap_or_default();
    if e.is_numeric(value) || sources.into_iter().any(|source| e.is_numeric(source)) {
        return vec![None];
    }
    if let Some(path) = e.fold(value, 0) {
        return vec![Some(path.to_string())];
    }
    if let Some(entry) = listed_entry(e, value) {
        return vec![Some(entry)];
    }
    match e.fold_candidates(value) {
        Some(texts) if !texts.is_empty() => texts.iter().map(|t| Some(t.to_string())).collect(),
        _ => vec![None],
    }
}

/// The path facts of one path argument, one for each way it may be read (see [`readings`]);
/// a reading that is a URL is the network's, which the rules on network access judge.
pub(super) fn push_readings(e: &mut Engine, call: NodeId, function: &str, path: Option<&str>) {
    let Some(path) = path else {
        e.push(
            call,
            FactKind::Path {
                function: function.to_owned(),
                path: None,
            },
        );
        return;
    };
    for reading in readings(path) {
        if !is_url(&reading) {
            e.push(
                call,
                FactKind::Path {
                    function: function.to_owned(),
                    path: Some(reading),
                },
            );
        }
    }
}

/// The paths a text may name, normalized: as a URL reader takes it ([`normalize`]), and, when
/// that differs, as the kernel takes the same string. Which one a function uses is not
/// modelled: Node's `fs` and Python's `open` take `a://b/../../etc/passwd` or `file:/x` as a
/// plain relative path, pandas and urllib as a URL; each reading must be allowed.
fn readings(path: &str) -> Vec<String> {
    let as_url = normalize(path);
    let as_given = lexical(path);
    if as_given == as_url {
        vec![as_url]
    } else {
        vec![as_url, as_given]
    }
}

/// Keywords by which matplotlib takes font properties, as a mapping among other forms.
const FONT_MAPPING_KEYWORDS: &[&str] = &["fontproperties", "font_properties", "prop", "fontdict"];

/// Methods that take font properties, as a mapping among other forms, first.
const FONT_MAPPING_SETTERS: &[&str] = &["set_fontproperties", "set_font_properties"];

/// matplotlib makes a font of a mapping given as font properties (`legend(prop={...})`,
/// `text(..., fontproperties={...})`, `t.set_fontproperties({...})`), and FreeType opens the
/// file its `fname` names: judged as `FontProperties(fname=...)` is.
fn report_font_mappings(e: &mut Engine, call: NodeId, callee: NodeId) {
    let mut mappings: Vec<NodeId> = FONT_MAPPING_KEYWORDS
        .iter()
        .filter_map(|keyword| e.keyword_arg(call, keyword))
        .collect();
    if let Kind::Attr { name, .. } = e.ir.kind(e.ir.unparen(callee))
        && FONT_MAPPING_SETTERS.contains(&e.name(name))
        && let Some(&first) = e.positional_args(call).first()
    {
        mappings.push(first);
    }
    for mapping in mappings {
        if let Some(file) = e.mapping_value(mapping, "fname") {
            for path in folded_paths(e, file) {
                push_readings(
                    e,
                    call,
                    "matplotlib.font_manager.FontProperties",
                    path.as_deref(),
                );
            }
        }
    }
}

/// Python's `open(path, opener=f)` opens whatever descriptor `f` returns (`lambda p, fl: 4`
/// is the runner's status pipe), whatever the path says.
fn report_opener(e: &mut Engine, call: NodeId, name: &str) {
    if e.keyword_arg(call, "opener").is_some() {
        report_unknown_path(e, call, format!("{name} with an `opener`"));
    }
}

/// Node's file streams open `{ fd }` from their options instead of the path: a descriptor the
/// snippet never opened (an inherited one) is read or written whatever the path says. Options
/// the analyzer cannot read whole (a variable, a spread, a computed key) may hold one.
fn report_descriptor_option(e: &mut Engine, call: NodeId, name: &str, args: &[NodeId]) {
    const STREAMS: &[&str] = &[
        "createReadStream",
        "createWriteStream",
        "ReadStream",
        "WriteStream",
    ];
    if !STREAMS.iter().any(|s| name.ends_with(s)) {
        return;
    }
    let Some(&options) = args.get(1) else {
        return;
    };
    let options = e.ir.unparen(options);
    let readable = match e.ir.kind(options) {
        // an encoding, or no options
        Kind::Str { .. } | Kind::Const(_) => true,
        Kind::Collection {
            kind: CollectionKind::Map,
            items,
        } => e.ir.list(items).iter().all(|&item| match e.ir.kind(item) {
            Kind::Pair { key, .. } => e.ir.str_value(key).is_some_and(|k| k != "fd"),
            _ => false,
        }),
        _ => false,
    };
    if !readable {
        report_unknown_path(e, call, format!("{name} with an `fd` option"));
    }
}

/// A path function given arguments the analyzer cannot line up (`open(*parts)`): whatever
/// it opens is a path no one can prove.
fn report_unknown_path(e: &mut Engine, call: NodeId, function: String) {
    e.push(
        call,
        FactKind::Path {
            function,
            path: None,
        },
    );
}

/// A URL other than `file:`.
fn is_url(path: &str) -> bool {
    path.contains("://")
}

/// A path as the kernel would resolve it, lexically: a `file:` URL's path, `.` and `..`
/// resolved, repeated slashes folded. A relative path stays relative (and may start with
/// `..`); an absolute one stays absolute.
pub fn normalize(path: &str) -> String {
    // URL readers (pandas, urllib) strip leading spaces and control characters, take the
    // scheme in any case (`FILE:/etc/passwd`), and cut a `file:` URL's fragment off.
    let trimmed = path.trim_start_matches(|c: char| c <= ' ');
    let file_url;
    let path = match trimmed.get(..5) {
        Some(scheme) if scheme.eq_ignore_ascii_case("file:") => {
            let rest = &trimmed[5..];
            file_url = format!("file:{}", rest.split('#').next().unwrap_or_default());
            file_url.as_str()
        }
        _ if trimmed.contains("://") => trimmed,
        _ => path,
    };
    // A backslash is a file name character here, but a path meant for another system says
    // where it means to go: read it as a separator.
    let path = &path.replace('\\', "/");
    // A `file:` URL's path is percent-encoded: `%2e%2e` is `..` to the URL parser.
    let decoded;
    let path = if path.starts_with("file:") && path.contains('%') {
        decoded = String::from_utf8_lossy(&percent_decode(path)).into_owned();
        &decoded
    } else {
        path
    };
    let path = match path.strip_prefix("file://") {
        // `file:///etc/passwd`, `file://localhost/etc/passwd`
        Some(rest) => match rest.find('/') {
            Some(at) => &rest[at..],
            None => "/",
        },
        None => match path.strip_prefix("file:") {
            Some(rest) if rest.starts_with('/') => rest,
            _ => path,
        },
    };
    if path.contains("://") {
        return path.to_owned(); // a URL: not a file here
    }
    lexical(path)
}

/// A path with `.` and `..` resolved and repeated slashes folded, as the kernel resolves it
/// lexically. A relative path stays relative (and may start with `..`); an absolute one stays
/// absolute.
fn lexical(path: &str) -> String {
    // `~user/..` is the parent of that user's home to a reader that expands `~` (pandas
    // does): no `..` takes the `~` part away, and the path stays one no rule proves.
    if path.starts_with('~') {
        return path.to_owned();
    }
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..");
                }
            }
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else if joined.is_empty() {
        ".".to_owned()
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::{normalize, readings};

    #[test]
    fn paths_normalize_as_the_kernel_resolves_them() {
        assert_eq!(normalize("//etc/passwd"), "/etc/passwd");
        assert_eq!(normalize("/./proc/self/environ"), "/proc/self/environ");
        assert_eq!(normalize("/tmp/../etc/shadow"), "/etc/shadow");
        assert_eq!(normalize("/../../etc"), "/etc");
        assert_eq!(normalize("data/../../secret"), "../secret");
        assert_eq!(normalize("./a/./b/"), "a/b");
        assert_eq!(normalize("file:///etc/passwd"), "/etc/passwd");
        assert_eq!(normalize("file://localhost/etc/hosts"), "/etc/hosts");
        assert_eq!(normalize("file:/etc/hosts"), "/etc/hosts");
        assert_eq!(normalize(""), ".");
        assert_eq!(normalize("..\\outside.txt"), "../outside.txt");
        assert_eq!(normalize("https://example.com/x"), "https://example.com/x");
        assert_eq!(normalize("file:///tmp/%2e%2e/etc/passwd"), "/etc/passwd");
        assert_eq!(
            normalize("file:///proc/%73elf/environ"),
            "/proc/self/environ"
        );
        assert_eq!(normalize(" file:///etc/passwd"), "/etc/passwd");
        assert_eq!(normalize(" http://host/x"), "http://host/x");
        // the scheme in any case, the fragment cut off, as urllib reads them
        assert_eq!(normalize("FILE:/etc/hostname"), "/etc/hostname");
        assert_eq!(normalize("fIlE:/proc/self/envir%6fn"), "/proc/self/environ");
        assert_eq!(normalize("File:///etc/passwd"), "/etc/passwd");
        assert_eq!(
            normalize("file:/etc/hostname#/../../tmp/x"),
            "/etc/hostname"
        );
    }

    #[test]
    fn a_url_looking_path_is_also_read_as_the_kernel_reads_it() {
        assert_eq!(
            readings("a://b/../../../etc/passwd"),
            ["a://b/../../../etc/passwd", "../etc/passwd"]
        );
        assert_eq!(readings("file:/etc/x"), ["/etc/x", "file:/etc/x"]);
        assert_eq!(readings("/tmp/./x"), ["/tmp/x"]);
        assert_eq!(readings(" file:/etc/x"), ["/etc/x", " file:/etc/x"]);
    }
}
