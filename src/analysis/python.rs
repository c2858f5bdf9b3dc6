//! Python source to facts.
//!
//! Two passes over the tree. The first gathers bindings (imports, assignments, default
//! arguments, integer constants) until they stop changing, so `a = os; b = a; b.system`
//! resolves whatever the order. The second reports: imports, every maximal name chain that
//! resolves (`os.path.join` once, not also `os.path`), calls with their constant arguments, and
//! the constructs that stay dynamic. References count, not just calls: `f = eval` is reported
//! where `eval` is named, so no chain of re-bindings the resolver cannot follow can hide a sink.
//!
//! A name also stands for itself (the builtin of that name) unless it is certainly something
//! else where it is used: a parameter, comprehension or loop variable of an enclosing scope,
//! or a name bound by an unconditional top-level import that ran before. Bindings elsewhere
//! never hide the builtin, since the analysis does not follow control flow.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use tree_sitter::Node;
use unicode_normalization::UnicodeNormalization;

use super::collect::{
    Bindings, Collector, DeepRegions, FlatTree, IdMap, MAX_CANDIDATES, MAX_EXPR_DEPTH,
    MAX_FACT_ARGS, MAX_FOLDED_LEN, arguments, dedup_capped, named_children, qualify, text, walk,
};
use super::facts::{DynamicKind, FactKind};
use super::text::{base64_text, decode_python_escapes, hex_text, rot13};
use super::{HUGE_ALLOCATION, NestedCode};

/// Names that run text as code.
const EVAL_NAMES: &[&str] = &[
    "eval",
    "exec",
    "compile",
    "execfile",
    "code.interact",
    "code.InteractiveInterpreter",
    "code.InteractiveConsole",
    "code.compile_command",
    "runpy.run_path",
    "runpy.run_module",
    "types.FunctionType",
    "types.CodeType",
    "timeit.timeit",
    "timeit.repeat",
    "timeit.Timer",
    "pdb.run",
    "pdb.runeval",
    "profile.run",
    "profile.runctx",
    "cProfile.run",
    "cProfile.runctx",
];

/// Of [`EVAL_NAMES`], those that also accept callables: a call whose statements are all
/// lambdas or functions defined in the snippet runs no text, and importing them is harmless.
const CALLABLE_EVAL_NAMES: &[&str] = &["timeit.timeit", "timeit.repeat", "timeit.Timer"];

/// Functions that import a module named by their first argument and return it.
/// `pkgutil.resolve_name` takes `module:attribute` and returns the attribute.
const IMPORT_FUNCTIONS: &[&str] = &[
    "__import__",
    "importlib.import_module",
    "importlib.__import__",
    "pkgutil.resolve_name",
];

/// Functions that find (and so may load) a module named by their first argument, returning
/// a spec or loader rather than the module.
const SPEC_FINDERS: &[&str] = &[
    "importlib.util.find_spec",
    "importlib.find_loader",
    "pkgutil.find_loader",
    "pkgutil.get_loader",
];

/// Functions that load code from a file or a spec built at run time: whatever they load, the
/// snippet's imports do not name it. Reported wherever used, except in an import statement.
const FILE_LOADERS: &[&str] = &[
    "imp.load_source",
    "imp.load_module",
    "imp.load_compiled",
    "imp.load_package",
    "importlib.util.spec_from_file_location",
    "importlib.util.spec_from_loader",
    "importlib.util.module_from_spec",
    "importlib.machinery.SourceFileLoader",
    "importlib.machinery.SourcelessFileLoader",
    "zipimport.zipimporter",
];

/// Loader methods that run a module's code, whatever object they are called on.
const LOADER_METHODS: &[&str] = &["exec_module", "load_module"];

/// Functions that look up an attribute by a name given as a string, with the argument index.
const ATTRIBUTE_FUNCTIONS: &[(&str, usize)] = &[
    ("getattr", 1),
    ("setattr", 1),
    ("delattr", 1),
    ("object.__getattribute__", 1),
    ("type.__getattribute__", 1),
    ("operator.attrgetter", 0),
    ("operator.methodcaller", 0),
];

/// Methods of namespace dictionaries that look a name up by their first argument.
const NAMESPACE_METHODS: &[&str] = &["get", "__getitem__", "setdefault", "pop"];

/// Attributes that reach interpreter internals: the classic sandbox-escape vocabulary.
const INTROSPECTION_ATTRIBUTES: &[&str] = &[
    "__subclasses__",
    "__globals__",
    "__builtins__",
    "__mro__",
    "__bases__",
    "__base__",
    "__code__",
    "__closure__",
    "__func__",
    "__self__",
    "__objclass__",
    "__loader__",
    "__reduce__",
    "__reduce_ex__",
    "__getattribute__",
    "__traceback__",
    "f_globals",
    "f_locals",
    "f_back",
    "f_builtins",
    "f_code",
    "gi_frame",
    "gi_code",
    "cr_frame",
    "cr_code",
    "ag_frame",
    "ag_code",
    "tb_frame",
    "co_code",
];

/// Functions that hand out frames, live objects or tracing hooks.
const INTROSPECTION_NAMES: &[&str] = &[
    "sys._getframe",
    "sys._current_frames",
    "sys.settrace",
    "sys.setprofile",
    "inspect.currentframe",
    "inspect.stack",
    "inspect.trace",
    "inspect.getouterframes",
    "inspect.getinnerframes",
    "gc.get_objects",
    "gc.get_referrers",
    "gc.get_referents",
    "breakpoint",
];

/// Calls whose first argument is a size or shape to allocate.
const ALLOCATING_CALLS: &[&str] = &[
    "bytearray",
    "bytes",
    "os.urandom",
    "numpy.zeros",
    "numpy.ones",
    "numpy.empty",
    "numpy.full",
    "numpy.random.rand",
    "numpy.random.random",
    "numpy.random.randn",
];

/// Calls whose positional arguments are the dimensions of what they allocate.
const DIMENSION_CALLS: &[&str] = &["numpy.random.rand", "numpy.random.randn"];

/// Keyword arguments that give a size or shape (`np.zeros(shape=...)`, `rng.random(size=...)`).
const SIZE_KEYWORDS: &[&str] = &["shape", "size"];

/// Keyword arguments that name a file, carried on call facts like positional arguments.
const PATH_KEYWORDS: &[&str] = &[
    "file",
    "path",
    "src",
    "dst",
    "fname",
    "filename",
    "filepath",
    "filepath_or_buffer",
    "path_or_buf",
    "database",
];

/// Modules other modules commonly hold as attributes (`shutil.os`, `asyncio.subprocess`).
/// Reached that way, they mean the module itself.
const REEXPORTED_MODULES: &[&str] = &[
    "os",
    "sys",
    "subprocess",
    "posix",
    "nt",
    "builtins",
    "importlib",
    "ctypes",
    "socket",
    "pty",
    "_posixsubprocess",
];

/// The standard library's public top-level modules (`sys.stdlib_module_names`): names that
/// are modules even where the snippet does not import them by a statement.
const STDLIB_MODULES: &str = "abc aifc argparse array ast asynchat asyncio asyncore atexit \
    audioop base64 bdb binascii bisect builtins bz2 cProfile calendar cgi cgitb chunk cmath cmd \
    code codecs codeop collections colorsys compileall concurrent configparser contextlib \
    contextvars copy copyreg crypt csv ctypes curses dataclasses datetime dbm decimal difflib dis \
    distutils doctest email encodings ensurepip enum errno faulthandler fcntl filecmp fileinput \
    fnmatch fractions ftplib functools gc genericpath getopt getpass gettext glob graphlib grp \
    gzip hashlib heapq hmac html http idlelib imaplib imghdr imp importlib inspect io ipaddress \
    itertools json keyword lib2to3 linecache locale logging lzma mailbox mailcap marshal math \
    mimetypes mmap modulefinder msilib msvcrt multiprocessing netrc nis nntplib nt ntpath \
    nturl2path numbers opcode operator optparse os ossaudiodev pathlib pdb pickle pickletools \
    pipes pkgutil platform plistlib poplib posix posixpath pprint profile pstats pty pwd \
    py_compile pyclbr pydoc pydoc_data pyexpat queue quopri random re readline reprlib resource \
    rlcompleter runpy sched secrets select selectors shelve shlex shutil signal site smtpd \
    smtplib sndhdr socket socketserver spwd sqlite3 sre_compile sre_constants sre_parse ssl stat \
    statistics string stringprep struct subprocess sunau symtable sys sysconfig syslog tabnanny \
    tarfile telnetlib tempfile termios textwrap threading time timeit tkinter token tokenize \
    tomllib trace traceback tracemalloc tty turtle types typing unicodedata unittest urllib uu \
    uuid venv warnings wave weakref webbrowser winreg winsound wsgiref xdrlib xml xmlrpc zipapp \
    zipfile zipimport zlib zoneinfo";

fn is_stdlib_module(name: &str) -> bool {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| STDLIB_MODULES.split_whitespace().collect())
        .contains(name)
}

/// Marker meaning "the module's global namespace" (`globals()`, `vars()`).
const GLOBALS: &str = "<globals>";
/// Marker prefix of what `operator.attrgetter('a')` returns: calling it looks `a` up.
const ATTRGETTER: &str = "<attrgetter>";
/// Marker prefix of what `operator.methodcaller('m')` returns: calling it calls `.m()`.
const METHODCALLER: &str = "<methodcaller>";

/// Scopes recorded per name before a name counts as unknown (hostile input could declare
/// thousands); past this, the name keeps its builtin meaning everywhere.
const MAX_SCOPES_PER_NAME: usize = 64;

/// Node kinds that bind names.
const BINDING_KINDS: [&str; 6] = [
    "import_statement",
    "import_from_statement",
    "assignment",
    "named_expression",
    "default_parameter",
    "typed_default_parameter",
];

/// Comprehension node kinds: each is its own scope for the names its `for` clauses bind.
const COMPREHENSIONS: [&str; 4] = [
    "list_comprehension",
    "set_comprehension",
    "dictionary_comprehension",
    "generator_expression",
];

pub(super) fn analyze<'t>(
    root: Node<'t>,
    source: &str,
    out: &mut Collector,
    nested: &mut Vec<NestedCode>,
) {
    let tree = FlatTree::of(root);
    let scopes = Scopes::of(&tree, source);
    let mut py = Python {
        source,
        bindings: Bindings::default(),
        star_modules: Vec::new(),
        memo: IdMap::default(),
        folds: IdMap::default(),
        too_deep: DeepRegions::default(),
        tree,
        scopes,
        sizes: IdMap::default(),
        repeats: IdMap::default(),
    };
    let binding_nodes = py.tree.of_kinds(&BINDING_KINDS);
    for _ in 0..4 {
        py.memo.clear();
        py.folds.clear();
        if !py.collect_bindings(&binding_nodes) {
            break;
        }
    }
    py.memo.clear();
    py.folds.clear();
    py.compute_sizes();
    for i in 0..py.tree.nodes.len() {
        let node = py.tree.nodes[i];
        py.report(node, out, nested);
    }
    py.too_deep.report(out);
}

/// Where a use of a name is reported from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Site {
    /// Named in an expression: passed, stored, or the object of an attribute.
    Reference,
    /// Named by `from M import name`.
    Import,
    /// Called.
    Call,
    /// Called with arguments known not to be code (`timeit.timeit(lambda: f())`).
    CallWithoutCode,
}

/// A byte range where a name is certainly a local (parameter, comprehension or loop
/// variable), with an optional hole evaluated outside it (a comprehension's first iterable).
struct LocalScope {
    start: usize,
    end: usize,
    hole: Option<(usize, usize)>,
}

/// What the snippet's scopes say about names, gathered once before resolution.
#[derive(Default)]
struct Scopes {
    locals: HashMap<String, Vec<LocalScope>>,
    /// Name → end of the earliest unconditional top-level import statement binding it.
    imported: HashMap<String, usize>,
    /// Names deleted, declared `global`/`nonlocal`, or in too many scopes: no scope is trusted
    /// to hide their builtin meaning.
    unstable: HashSet<String>,
    /// Top-level names of the modules the snippet imports by statement.
    module_roots: HashSet<String>,
    /// Names of the functions the snippet defines.
    functions: HashSet<String>,
}

impl Scopes {
    fn of(tree: &FlatTree, source: &str) -> Scopes {
        let mut scopes = Scopes::default();
        let name = |n: Node| normalize(text(n, source));
        for &node in &tree.nodes {
            match node.kind() {
                "function_definition" | "lambda" => {
                    if let Some(n) = node.child_by_field_name("name") {
                        scopes.functions.insert(name(n));
                    }
                    let (Some(parameters), Some(body)) = (
                        node.child_by_field_name("parameters"),
                        node.child_by_field_name("body"),
                    ) else {
                        continue;
                    };
                    for parameter in parameter_names(parameters) {
                        scopes.local(name(parameter), body.start_byte(), body.end_byte(), None);
                    }
                }
                kind if COMPREHENSIONS.contains(&kind) => {
                    let clauses: Vec<Node> = named_children(node)
                        .into_iter()
                        .filter(|c| c.kind() == "for_in_clause")
                        .collect();
                    let hole = clauses
                        .first()
                        .and_then(|c| c.child_by_field_name("right"))
                        .map(|r| (r.start_byte(), r.end_byte()));
                    for clause in clauses {
                        if let Some(left) = clause.child_by_field_name("left") {
                            for target in target_names(left) {
                                scopes.local(
                                    name(target),
                                    node.start_byte(),
                                    node.end_byte(),
                                    hole,
                                );
                            }
                        }
                    }
                }
                "for_statement" => {
                    let (Some(left), Some(body)) = (
                        node.child_by_field_name("left"),
                        node.child_by_field_name("body"),
                    ) else {
                        continue;
                    };
                    for target in target_names(left) {
                        scopes.local(name(target), body.start_byte(), body.end_byte(), None);
                    }
                }
                "import_statement" | "import_from_statement" => {
                    let top_level = tree.parent(node).is_some_and(|p| p.kind() == "module");
                    for (local, module) in import_names(node, source) {
                        if let Some(root) = module.split('.').next() {
                            scopes.module_roots.insert(root.to_owned());
                        }
                        if top_level && let Some(local) = local {
                            let end = scopes.imported.entry(local).or_insert(node.end_byte());
                            *end = (*end).min(node.end_byte());
                        }
                    }
                }
                "delete_statement" | "global_statement" | "nonlocal_statement" => {
                    walk(node, |n| {
                        if n.kind() == "identifier" {
                            scopes.unstable.insert(name(n));
                        }
                    });
                }
                _ => {}
            }
        }
        scopes
    }

    fn local(&mut self, name: String, start: usize, end: usize, hole: Option<(usize, usize)>) {
        let list = self.locals.entry(name.clone()).or_default();
        if list.len() >= MAX_SCOPES_PER_NAME {
            self.unstable.insert(name);
            return;
        }
        list.push(LocalScope { start, end, hole });
    }

    /// True where `name`, used at byte `at`, is certainly a local of an enclosing scope.
    fn is_local(&self, name: &str, at: usize) -> bool {
        !self.unstable.contains(name)
            && self.locals.get(name).is_some_and(|scopes| {
                scopes.iter().any(|s| {
                    s.start <= at
                        && at < s.end
                        && !s.hole.is_some_and(|(hs, he)| hs <= at && at < he)
                })
            })
    }

    /// True where `name`, used at byte `at`, was bound by a top-level import that ran first.
    fn is_imported(&self, name: &str, at: usize) -> bool {
        !self.unstable.contains(name) && self.imported.get(name).is_some_and(|&end| end <= at)
    }

    /// True when `root` names a module: imported by the snippet or in the standard library.
    fn is_module(&self, root: &str) -> bool {
        self.module_roots.contains(root) || is_stdlib_module(root)
    }
}

/// The identifiers a parameter list binds.
fn parameter_names(parameters: Node) -> Vec<Node> {
    let mut names = Vec::new();
    for parameter in named_children(parameters) {
        let target = match parameter.kind() {
            "identifier" => Some(parameter),
            "default_parameter" | "typed_default_parameter" => {
                parameter.child_by_field_name("name")
            }
            "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => {
                named_children(parameter)
                    .into_iter()
                    .find_map(|c| match c.kind() {
                        "identifier" => Some(c),
                        "list_splat_pattern" | "dictionary_splat_pattern" => named_children(c)
                            .into_iter()
                            .find(|i| i.kind() == "identifier"),
                        _ => None,
                    })
            }
            _ => None,
        };
        names.extend(target.filter(|t| t.kind() == "identifier"));
    }
    names
}

/// The identifiers an assignment target binds: `x`, `a, (b, *c)`; not `x.a` or `x[0]`.
fn target_names(target: Node) -> Vec<Node> {
    let mut names = Vec::new();
    let mut pending = vec![target];
    while let Some(node) = pending.pop() {
        match node.kind() {
            "identifier" => names.push(node),
            "pattern_list"
            | "tuple_pattern"
            | "list_pattern"
            | "list_splat_pattern"
            | "parenthesized_expression"
            | "tuple"
            | "list" => {
                pending.extend(named_children(node));
            }
            _ => {}
        }
    }
    names
}

/// The names an import statement binds, with the module each stands for: `(local, module)`.
/// `local` is `None` for a star import.
fn import_names(node: Node, source: &str) -> Vec<(Option<String>, String)> {
    let dotted = |n: Node| dotted_text(n, source);
    let mut names = Vec::new();
    match node.kind() {
        "import_statement" => {
            for name in children_by_field(node, "name") {
                if name.kind() == "aliased_import" {
                    let (Some(alias), Some(module)) = (
                        name.child_by_field_name("alias"),
                        name.child_by_field_name("name"),
                    ) else {
                        continue;
                    };
                    names.push((Some(normalize(text(alias, source))), dotted(module)));
                } else {
                    // `import os.path` binds `os` to `os`.
                    let module = dotted(name);
                    let top = module.split('.').next().unwrap_or_default().to_owned();
                    names.push((Some(top.clone()), top));
                }
            }
        }
        "import_from_statement" => {
            let Some(module) = node
                .child_by_field_name("module_name")
                .filter(|m| m.kind() == "dotted_name")
                .map(dotted)
            else {
                return names;
            };
            names.push((None, module.clone()));
            for name in children_by_field(node, "name") {
                let (local, imported) = match name.kind() {
                    "aliased_import" => {
                        let (Some(alias), Some(n)) = (
                            name.child_by_field_name("alias"),
                            name.child_by_field_name("name"),
                        ) else {
                            continue;
                        };
                        (normalize(text(alias, source)), dotted(n))
                    }
                    _ => {
                        let n = dotted(name);
                        (n.clone(), n)
                    }
                };
                names.push((Some(local), qualify(&module, &imported)));
            }
        }
        _ => {}
    }
    names
}

/// `os.path` from a `dotted_name` node, each part normalized.
fn dotted_text(node: Node, source: &str) -> String {
    if node.kind() == "dotted_name" {
        named_children(node)
            .iter()
            .map(|part| normalize(text(*part, source)))
            .collect::<Vec<_>>()
            .join(".")
    } else {
        normalize(text(node, source))
    }
}

struct Python<'s, 't> {
    source: &'s str,
    bindings: Bindings,
    star_modules: Vec<String>,
    memo: IdMap<Vec<String>>,
    /// Memoized folds. Like `memo`, this also keeps results cut short by the depth limit:
    /// a cutoff is reported as an analysis limit anyway, and recomputing would make deep
    /// chains quadratic.
    folds: IdMap<Option<String>>,
    too_deep: DeepRegions<'t>,
    tree: FlatTree<'t>,
    scopes: Scopes,
    /// The integer value of every constant integer expression, names taken at their largest
    /// (for sizes), computed bottom-up once: checking each `*` and `**` by descending into
    /// its operands would make long chains quadratic.
    sizes: IdMap<i128>,
    /// For each repeated sequence (`'x' * n * m`), how many times it holds its literal.
    repeats: IdMap<i128>,
}

/// Python identifiers are compared after NFKC normalization, as the interpreter does:
/// `ｅｘｅｃ` is `exec`.
fn normalize(name: &str) -> String {
    if name.is_ascii() {
        name.to_owned()
    } else {
        name.nfkc().collect()
    }
}

/// One spelling per meaning: `builtins.eval` is `eval` (but `builtins.__dict__` stays the
/// builtins' namespace), and `posix`/`nt` are the platform modules `os` re-exports.
fn canonical(name: String) -> String {
    for alias in ["posix", "nt"] {
        if super::collect::is_under(&name, alias) {
            return format!("os{}", &name[alias.len()..]);
        }
    }
    match name.strip_prefix("builtins.") {
        Some(rest) if rest != "__dict__" && !rest.starts_with("__dict__.") => rest.to_owned(),
        _ => name,
    }
}

/// The fact that `module` is loaded, under its one spelling: `posix.path` is `os.path`.
fn import_fact(module: String) -> FactKind {
    let module = if ["posix", "nt"]
        .iter()
        .any(|alias| super::collect::is_under(&module, alias))
    {
        canonical(module)
    } else {
        module
    };
    FactKind::Import { module }
}

/// A call's arguments: positional ones in order, and keyword ones by name.
struct CallArgs<'t> {
    positional: Vec<Node<'t>>,
    keywords: Vec<(String, Node<'t>)>,
}

impl<'t> CallArgs<'t> {
    fn of(call: Node<'t>, source: &str) -> CallArgs<'t> {
        let mut args = CallArgs {
            positional: Vec::new(),
            keywords: Vec::new(),
        };
        let Some(list) = call.child_by_field_name("arguments") else {
            return args;
        };
        if list.kind() != "argument_list" {
            // `f(x for x in y)`: the generator is the only argument.
            args.positional.push(list);
            return args;
        }
        for arg in arguments(Some(list)) {
            match arg.kind() {
                "keyword_argument" => {
                    if let (Some(name), Some(value)) = (
                        arg.child_by_field_name("name"),
                        arg.child_by_field_name("value"),
                    ) {
                        args.keywords.push((normalize(text(name, source)), value));
                    }
                }
                "list_splat" | "dictionary_splat" => {}
                _ => args.positional.push(arg),
            }
        }
        args
    }

    fn keyword(&self, name: &str) -> Option<Node<'t>> {
        self.keywords
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| *v)
    }

    /// The argument at `index`, or the keyword argument `name`.
    fn get(&self, index: usize, name: &str) -> Option<Node<'t>> {
        self.positional
            .get(index)
            .copied()
            .or_else(|| self.keyword(name))
    }
}

impl<'s, 't> Python<'s, 't> {
    fn text(&self, node: Node) -> &'s str {
        text(node, self.source)
    }

    /// `os.path` from a `dotted_name` node, each part normalized.
    fn dotted(&self, node: Node) -> String {
        dotted_text(node, self.source)
    }

    // ---- pass 1: bindings -------------------------------------------------------------------

    /// Records every binding in the tree; returns true if anything new was learned.
    fn collect_bindings(&mut self, nodes: &[Node<'t>]) -> bool {
        let mut changed = false;
        for &node in nodes {
            changed |= self.bind_node(node);
        }
        changed
    }

    /// Records the bindings one node makes; returns true if anything new was learned.
    fn bind_node(&mut self, node: Node<'t>) -> bool {
        let mut changed = false;
        match node.kind() {
            "import_statement" | "import_from_statement" => {
                if node.kind() == "import_from_statement" {
                    let Some(module) = self.imported_module(node) else {
                        return changed;
                    };
                    let mut cursor = node.walk();
                    for child in node.named_children(&mut cursor) {
                        if child.kind() == "wildcard_import" && !self.star_modules.contains(&module)
                        {
                            self.star_modules.push(module.clone());
                            changed = true;
                        }
                    }
                }
                for (local, meaning) in import_names(node, self.source) {
                    if let Some(local) = local {
                        changed |= self.bindings.alias(&local, meaning);
                    }
                }
            }
            "assignment" => {
                if let (Some(left), Some(right)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                ) {
                    changed |= self.bind_target(left, innermost_value(right));
                }
            }
            "named_expression" | "default_parameter" | "typed_default_parameter" => {
                let name = node.child_by_field_name("name");
                if let (Some(name), Some(value)) = (name, node.child_by_field_name("value")) {
                    changed |= self.bind_target(name, value);
                }
            }
            _ => {}
        }
        changed
    }

    /// Binds `target` (a name, or a tuple of names) to what `value` means.
    fn bind_target(&mut self, target: Node<'t>, value: Node<'t>) -> bool {
        match target.kind() {
            "identifier" => {
                let name = normalize(self.text(target));
                let mut changed = false;
                for meaning in self.resolve(value, 0) {
                    changed |= self.bindings.alias(&name, meaning);
                }
                if let Some(constant) = self.fold(value, 0) {
                    changed |= self.bindings.constant(&name, constant);
                }
                if let Some(integer) = self.integer(value) {
                    changed |= self.bindings.integer(&name, integer);
                }
                changed
            }
            "pattern_list" | "tuple_pattern" | "list_pattern" => {
                let targets = named_children(target);
                let values = match value.kind() {
                    "expression_list" | "tuple" | "list" => named_children(value),
                    _ => return false,
                };
                let mut changed = false;
                if targets.len() == values.len() {
                    for (t, v) in targets.into_iter().zip(values) {
                        changed |= self.bind_target(t, v);
                    }
                }
                changed
            }
            _ => false,
        }
    }

    /// The absolute module of a `from M import ...`; `None` for relative imports, which name
    /// the snippet's own files.
    fn imported_module(&self, node: Node) -> Option<String> {
        let module = node.child_by_field_name("module_name")?;
        (module.kind() == "dotted_name").then(|| self.dotted(module))
    }

    // ---- resolution -------------------------------------------------------------------------

    /// The qualified names an expression may stand for (empty when unknown).
    fn resolve(&mut self, node: Node<'t>, depth: usize) -> Vec<String> {
        if depth > MAX_EXPR_DEPTH {
            self.too_deep.record(node);
            return Vec::new();
        }
        if let Some(hit) = self.memo.get(&node.id()) {
            return hit.clone();
        }
        let names = self.resolve_uncached(node, depth + 1);
        let names = self.expand(names);
        self.memo.insert(node.id(), names.clone());
        names
    }

    /// Canonical spellings, each followed by the modules it reaches as attributes of other
    /// modules: `shutil.os.system` is also `os.system`.
    fn expand(&self, names: Vec<String>) -> Vec<String> {
        let mut expanded = Vec::with_capacity(names.len());
        for name in names {
            let name = canonical(name);
            let suffixes: Vec<String> = self
                .reexports(&name)
                .into_iter()
                .map(|at| canonical(name[at..].to_owned()))
                .collect();
            expanded.push(name);
            expanded.extend(suffixes);
            if expanded.len() >= 4 * MAX_CANDIDATES {
                break;
            }
        }
        dedup_capped(expanded)
    }

    /// Byte offsets in `name` where a module reached as an attribute of a module starts.
    fn reexports(&self, name: &str) -> Vec<usize> {
        let mut offsets = Vec::new();
        let Some(root) = name.split('.').next() else {
            return offsets;
        };
        if !self.scopes.is_module(root) {
            return offsets;
        }
        let mut at = root.len() + 1;
        for part in name.split('.').skip(1) {
            if REEXPORTED_MODULES.contains(&part) {
                offsets.push(at);
            }
            at += part.len() + 1;
        }
        offsets
    }

    fn resolve_uncached(&mut self, node: Node<'t>, depth: usize) -> Vec<String> {
        match node.kind() {
            "identifier" => {
                let name = normalize(self.text(node));
                self.resolve_name(&name, Some(node.start_byte()))
            }
            "attribute" => {
                let (Some(object), Some(attr)) = (
                    node.child_by_field_name("object"),
                    node.child_by_field_name("attribute"),
                ) else {
                    return Vec::new();
                };
                let attr = normalize(self.text(attr));
                self.resolve(object, depth)
                    .iter()
                    .map(|o| qualify(o, &attr))
                    .collect()
            }
            "subscript" => {
                let (Some(value), Some(key)) = (
                    node.child_by_field_name("value"),
                    node.child_by_field_name("subscript"),
                ) else {
                    return Vec::new();
                };
                // `[os][0]`, `(os, sys)[-2]`: an element of a literal sequence.
                let literal = unparenthesized(value);
                if matches!(literal.kind(), "list" | "tuple")
                    && let Some(index) = self.integer(key)
                {
                    let items = named_children(literal);
                    let index = if index < 0 {
                        index + items.len() as i128
                    } else {
                        index
                    };
                    return usize::try_from(index)
                        .ok()
                        .and_then(|i| items.get(i).copied())
                        .map(|item| self.resolve(item, depth))
                        .unwrap_or_default();
                }
                let Some(key) = self.fold(key, depth) else {
                    return Vec::new();
                };
                let values = self.resolve(value, depth);
                values
                    .iter()
                    .flat_map(|v| self.lookup_in_namespace(v, &key))
                    .collect()
            }
            "call" => self.resolve_call(node, depth),
            "parenthesized_expression" => match named_children(node).as_slice() {
                [inner] => self.resolve(*inner, depth),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// An identifier's meanings: its bindings, plus the name itself (a binding in a branch
    /// that never runs must not hide the builtin), plus `M.name` for each `from M import *`.
    /// Used at byte `at`, a name that is certainly a local there, or bound by a top-level
    /// import that ran before, does not also stand for itself.
    fn resolve_name(&self, name: &str, at: Option<usize>) -> Vec<String> {
        if name == "__builtins__" {
            return vec!["builtins".to_owned()];
        }
        let mut names: Vec<String> = self.bindings.meanings(name).unwrap_or_default().to_vec();
        let local = at.is_some_and(|at| self.scopes.is_local(name, at));
        let imported = at.is_some_and(|at| self.scopes.is_imported(name, at));
        if !local && !imported {
            names.push(name.to_owned());
        }
        if !local {
            names.extend(self.star_modules.iter().map(|m| qualify(m, name)));
        }
        names
    }

    /// `namespace[key]` for the namespaces that are dictionaries of names.
    fn lookup_in_namespace(&self, namespace: &str, key: &str) -> Vec<String> {
        if namespace == "sys.modules" {
            vec![key.to_owned()]
        } else if namespace == GLOBALS {
            self.resolve_name(key, None)
        } else if namespace == "builtins" {
            vec![key.to_owned()]
        } else if let Some(owner) = namespace.strip_suffix(".__dict__") {
            vec![qualify(owner, key)]
        } else {
            Vec::new()
        }
    }

    /// What a call returns, for the calls that return a module or attribute by name.
    fn resolve_call(&mut self, node: Node<'t>, depth: usize) -> Vec<String> {
        let Some(function) = node.child_by_field_name("function") else {
            return Vec::new();
        };
        // `(lambda: os)()` is whatever the lambda's body is.
        let callee = unparenthesized(function);
        if callee.kind() == "lambda" {
            return callee
                .child_by_field_name("body")
                .map(|body| self.resolve(body, depth))
                .unwrap_or_default();
        }
        let args = CallArgs::of(node, self.source);
        let first = args.positional.first().copied();
        let mut names = Vec::new();
        for f in self.resolve(function, depth) {
            if IMPORT_FUNCTIONS.contains(&f.as_str()) {
                if let Some(module) = first.and_then(|a| self.fold(a, depth)) {
                    if f == "__import__" {
                        names.push(module.split('.').next().unwrap_or_default().to_owned());
                    } else if f == "pkgutil.resolve_name" {
                        names.push(module.replace(':', "."));
                    } else {
                        names.push(module);
                    }
                }
            } else if matches!(f.as_str(), "getattr" | "object.__getattribute__") {
                if let (Some(obj), Some(key)) = (first, args.positional.get(1))
                    && let Some(key) = self.fold(*key, depth)
                {
                    let objects = self.resolve(obj, depth);
                    names.extend(objects.iter().map(|o| qualify(o, &key)));
                }
            } else if f == "operator.attrgetter" || f == "operator.methodcaller" {
                if let Some(attr) = first.and_then(|a| self.fold(a, depth)) {
                    let marker = if f == "operator.attrgetter" {
                        ATTRGETTER
                    } else {
                        METHODCALLER
                    };
                    names.push(qualify(marker, &attr));
                }
            } else if let Some(attr) = f
                .strip_prefix(ATTRGETTER)
                .and_then(|rest| rest.strip_prefix('.'))
            {
                let objects = first.map(|o| self.resolve(o, depth)).unwrap_or_default();
                names.extend(objects.iter().map(|o| qualify(o, attr)));
            } else if matches!(f.as_str(), "globals" | "locals")
                || (f == "vars" && args.positional.is_empty())
            {
                names.push(GLOBALS.to_owned());
            } else if f == "vars" {
                let objects = first.map(|a| self.resolve(a, depth)).unwrap_or_default();
                names.extend(objects.iter().map(|o| format!("{o}.__dict__")));
            } else if f == "importlib.reload" {
                names.extend(first.map(|a| self.resolve(a, depth)).unwrap_or_default());
            } else if let Some(namespace) = namespace_of_method(&f)
                && let Some(key) = first.and_then(|a| self.fold(a, depth))
            {
                names.extend(self.lookup_in_namespace(namespace, &key));
            }
        }
        names
    }

    // ---- constant folding -------------------------------------------------------------------

    /// The constant string an expression evaluates to, when it is built only from literals,
    /// known constants and the usual hiding transforms (concatenation, join, reversal, chr,
    /// strip, base64/hex/rot13 decoding).
    fn fold(&mut self, node: Node<'t>, depth: usize) -> Option<String> {
        if depth > MAX_EXPR_DEPTH {
            self.too_deep.record(node);
            return None;
        }
        if let Some(hit) = self.folds.get(&node.id()) {
            return hit.clone();
        }
        let value = self
            .fold_uncached(node, depth + 1)
            .filter(|v| v.len() <= MAX_FOLDED_LEN);
        self.folds.insert(node.id(), value.clone());
        value
    }

    fn fold_uncached(&mut self, node: Node<'t>, depth: usize) -> Option<String> {
        match node.kind() {
            "string" => self.fold_string(node, depth),
            "concatenated_string" => {
                let mut out = String::new();
                for part in named_children(node) {
                    out.push_str(&self.fold(part, depth)?);
                }
                Some(out)
            }
            "binary_operator" => {
                let op = node.child_by_field_name("operator").map(|o| self.text(o));
                let left = node.child_by_field_name("left")?;
                let right = node.child_by_field_name("right")?;
                match op {
                    Some("+") => Some(self.fold(left, depth)? + &self.fold(right, depth)?),
                    Some("%") => {
                        let format = self.fold(left, depth)?;
                        let arg = self.fold(right, depth)?;
                        (format.matches("%s").count() == 1).then(|| format.replace("%s", &arg))
                    }
                    _ => None,
                }
            }
            "parenthesized_expression" => match named_children(node).as_slice() {
                [inner] => self.fold(*inner, depth),
                _ => None,
            },
            "identifier" => self
                .bindings
                .constant_value(&normalize(self.text(node)))
                .map(str::to_owned),
            "subscript" => {
                let value = node.child_by_field_name("value")?;
                let key = node.child_by_field_name("subscript")?;
                (key.kind() == "slice" && self.text(key).replace(' ', "") == "::-1")
                    .then(|| self.fold(value, depth))
                    .flatten()
                    .map(|s| s.chars().rev().collect())
            }
            "call" => self.fold_call(node, depth),
            _ => None,
        }
    }

    fn fold_string(&mut self, node: Node<'t>, depth: usize) -> Option<String> {
        let mut out = String::new();
        let mut raw = false;
        let mut formatted = false;
        for part in named_children(node) {
            match part.kind() {
                "string_start" => {
                    let prefix = self.text(part).to_ascii_lowercase();
                    raw = prefix.contains('r');
                    formatted = prefix.contains('f');
                }
                "string_content" => {
                    let body = self.text(part);
                    let body = if raw {
                        body.to_owned()
                    } else {
                        decode_python_escapes(body)
                    };
                    if formatted {
                        out.push_str(&body.replace("{{", "{").replace("}}", "}"));
                    } else {
                        out.push_str(&body);
                    }
                }
                "interpolation" => {
                    if part.child_by_field_name("format_specifier").is_some() {
                        return None;
                    }
                    out.push_str(&self.fold(part.child_by_field_name("expression")?, depth)?);
                }
                _ => {}
            }
        }
        Some(out)
    }

    fn fold_call(&mut self, node: Node<'t>, depth: usize) -> Option<String> {
        let function = node.child_by_field_name("function")?;
        let args = arguments(node.child_by_field_name("arguments"));
        // Functions first: `codecs.decode(s, 'rot13')` is a call of `codecs.decode`, not the
        // `.decode()` method of a string.
        if let Some(first) = args.first().copied() {
            for name in self.resolve(function, depth) {
                let decoded = match name.as_str() {
                    "str" => self.fold(first, depth),
                    "chr" => self
                        .integer(first)
                        .and_then(|n| u32::try_from(n).ok())
                        .and_then(char::from_u32)
                        .map(String::from),
                    "base64.b64decode"
                    | "base64.standard_b64decode"
                    | "base64.urlsafe_b64decode" => {
                        self.fold(first, depth).and_then(|s| base64_text(&s))
                    }
                    "bytes.fromhex" | "binascii.unhexlify" | "binascii.a2b_hex" => {
                        self.fold(first, depth).and_then(|s| hex_text(&s))
                    }
                    "codecs.decode" | "codecs.encode" => {
                        let codec = args.get(1).and_then(|a| self.fold(*a, depth));
                        match codec
                            .as_deref()
                            .map(|c| c.to_ascii_lowercase().replace('-', "_"))
                        {
                            Some(c) if c == "rot13" || c == "rot_13" => {
                                self.fold(first, depth).map(|s| rot13(&s))
                            }
                            Some(c) if c == "hex" && name == "codecs.decode" => {
                                self.fold(first, depth).and_then(|s| hex_text(&s))
                            }
                            Some(c) if c == "base64" && name == "codecs.decode" => {
                                self.fold(first, depth).and_then(|s| base64_text(&s))
                            }
                            _ => None,
                        }
                    }
                    _ => None,
                };
                if decoded.is_some() {
                    return decoded;
                }
            }
        }
        if function.kind() != "attribute" {
            return None;
        }
        let object = function.child_by_field_name("object")?;
        let method = self.text(function.child_by_field_name("attribute")?);
        match method {
            "join" => {
                let separator = self.fold(object, depth)?;
                let parts = self.fold_sequence(*args.first()?, depth)?;
                Some(parts.join(&separator))
            }
            "decode" | "encode" => self.fold(object, depth),
            "strip" | "lstrip" | "rstrip" => {
                let s = self.fold(object, depth)?;
                let chars: Option<Vec<char>> = match args.first() {
                    Some(a) if self.text(*a) != "None" => {
                        Some(self.fold(*a, depth)?.chars().collect())
                    }
                    _ => None,
                };
                let strip = |c: char| match &chars {
                    Some(set) => set.contains(&c),
                    None => c.is_whitespace(),
                };
                Some(
                    match method {
                        "strip" => s.trim_matches(strip),
                        "lstrip" => s.trim_start_matches(strip),
                        _ => s.trim_end_matches(strip),
                    }
                    .to_owned(),
                )
            }
            "lower" | "casefold" => self.fold(object, depth).map(|s| s.to_lowercase()),
            "upper" => self.fold(object, depth).map(|s| s.to_uppercase()),
            "replace" if args.len() == 2 => {
                let s = self.fold(object, depth)?;
                let from = self.fold(args[0], depth)?;
                let to = self.fold(args[1], depth)?;
                (!from.is_empty()).then(|| s.replace(&from, &to))
            }
            _ => None,
        }
    }

    /// A list/tuple of constant strings, a `reversed(...)` of one, or a string (its characters).
    fn fold_sequence(&mut self, node: Node<'t>, depth: usize) -> Option<Vec<String>> {
        match node.kind() {
            "list" | "tuple" => named_children(node)
                .into_iter()
                .map(|item| self.fold(item, depth))
                .collect(),
            "call" => {
                let function = node.child_by_field_name("function")?;
                let args = arguments(node.child_by_field_name("arguments"));
                match (self.text(function), args.as_slice()) {
                    ("reversed", [inner]) => {
                        let mut items = self.fold_sequence(*inner, depth)?;
                        items.reverse();
                        Some(items)
                    }
                    ("map", [f, inner]) if self.text(*f) == "chr" => self
                        .fold_int_list(*inner)?
                        .into_iter()
                        .map(|n| {
                            u32::try_from(n)
                                .ok()
                                .and_then(char::from_u32)
                                .map(String::from)
                        })
                        .collect(),
                    _ => None,
                }
            }
            _ => self
                .fold(node, depth)
                .map(|s| s.chars().map(String::from).collect()),
        }
    }

    fn fold_int_list(&self, node: Node) -> Option<Vec<i128>> {
        match node.kind() {
            "list" | "tuple" => named_children(node)
                .into_iter()
                .map(|n| self.integer(n))
                .collect(),
            _ => None,
        }
    }

    /// An integer constant, through names bound to exactly one integer.
    fn integer(&self, node: Node) -> Option<i128> {
        fold_int_at(node, self.source, Some(&self.bindings), 0)
    }

    /// A size or a shape: `10**9`, or `(10**5, 10**5)` as the product of its dimensions
    /// (report pass only).
    fn size(&self, node: Node) -> Option<i128> {
        match unparenthesized(node).kind() {
            "tuple" | "list" => named_children(unparenthesized(node))
                .into_iter()
                .map(|d| self.largest(d))
                .try_fold(1i128, |acc, d| Some(acc.saturating_mul(d?))),
            _ => self.largest(node),
        }
    }
}

impl<'s, 't> Python<'s, 't> {
    // ---- pass 2: reporting ------------------------------------------------------------------

    fn report(&mut self, node: Node<'t>, out: &mut Collector, nested: &mut Vec<NestedCode>) {
        match node.kind() {
            "import_statement" => {
                for name in children_by_field(node, "name") {
                    let module = match name.kind() {
                        "aliased_import" => {
                            name.child_by_field_name("name").map(|m| self.dotted(m))
                        }
                        _ => Some(self.dotted(name)),
                    };
                    if let Some(module) = module {
                        out.push(name, import_fact(module));
                    }
                }
            }
            "import_from_statement" => {
                let Some(module) = self.imported_module(node) else {
                    return;
                };
                out.push(node, import_fact(module.clone()));
                for name in children_by_field(node, "name") {
                    let imported = match name.kind() {
                        "aliased_import" => {
                            name.child_by_field_name("name").map(|n| self.dotted(n))
                        }
                        _ => Some(self.dotted(name)),
                    };
                    if let Some(imported) = imported {
                        for full in self.expand(vec![qualify(&module, &imported)]) {
                            self.report_use(name, full, Site::Import, Vec::new(), out);
                        }
                    }
                }
            }
            "identifier" if is_reference(node, self.tree.parent(node)) && self.is_maximal(node) => {
                let name = normalize(self.text(node));
                if name == "__builtins__" {
                    out.dynamic(node, DynamicKind::Introspection, "`__builtins__` reached");
                }
                for meaning in self.resolve(node, 0) {
                    self.report_use(node, meaning, Site::Reference, Vec::new(), out);
                }
            }
            "attribute" => {
                if let Some(attr) = node.child_by_field_name("attribute") {
                    let attr = normalize(self.text(attr));
                    if INTROSPECTION_ATTRIBUTES.contains(&attr.as_str()) {
                        out.dynamic(
                            node,
                            DynamicKind::Introspection,
                            format!("`.{attr}` reached"),
                        );
                    }
                }
                if self.is_maximal(node) {
                    for meaning in self.resolve(node, 0) {
                        self.report_use(node, meaning, Site::Reference, Vec::new(), out);
                    }
                }
            }
            "subscript" => {
                self.report_subscript(node, out);
                self.report_literal(node, out);
            }
            "call" => {
                self.report_call(node, out, nested);
                self.report_literal(node, out);
            }
            "binary_operator" => {
                self.report_repetition(node, out);
                self.report_power(node, out);
                self.report_literal(node, out);
            }
            "string" => {
                let in_concatenation = self
                    .tree
                    .parent(node)
                    .is_some_and(|p| p.kind() == "concatenated_string");
                if !in_concatenation {
                    self.report_literal(node, out);
                }
            }
            "concatenated_string" => self.report_literal(node, out),
            _ => {}
        }
    }

    /// A string constant, for rules on strings; one that names interpreter internals is
    /// introspection in itself (`getattr(f, '__glo' + 'bals__')`).
    fn report_literal(&mut self, node: Node<'t>, out: &mut Collector) {
        if let Some(value) = self.fold(node, 0) {
            if INTROSPECTION_ATTRIBUTES.contains(&value.as_str()) {
                out.dynamic(
                    node,
                    DynamicKind::Introspection,
                    format!("string names `{value}`"),
                );
            }
            out.push(node, FactKind::Literal { value });
        }
    }

    /// True unless the enclosing chain (`x.attr`, `x[k]`, `x(...)`) resolves and so reports
    /// the longer name itself.
    fn is_maximal(&mut self, node: Node<'t>) -> bool {
        let Some(parent) = self.tree.parent(node) else {
            return true;
        };
        let continues = match parent.kind() {
            "attribute" => parent.child_by_field_name("object") == Some(node),
            "subscript" => parent.child_by_field_name("value") == Some(node),
            "call" => return parent.child_by_field_name("function") != Some(node),
            _ => false,
        };
        !continues || self.resolve(parent, 0).is_empty()
    }

    fn report_use(
        &mut self,
        node: Node,
        name: String,
        site: Site,
        args: Vec<String>,
        out: &mut Collector,
    ) {
        let called = matches!(site, Site::Call | Site::CallWithoutCode);
        if EVAL_NAMES.contains(&name.as_str()) {
            let runs_no_text = CALLABLE_EVAL_NAMES.contains(&name.as_str())
                && matches!(site, Site::Import | Site::CallWithoutCode);
            if !runs_no_text {
                out.dynamic(
                    node,
                    DynamicKind::CodeEval,
                    format!("`{name}` runs text as code"),
                );
            }
        }
        if INTROSPECTION_NAMES.contains(&name.as_str()) {
            out.dynamic(
                node,
                DynamicKind::Introspection,
                format!("`{name}` reaches interpreter internals"),
            );
        }
        if site == Site::Reference && IMPORT_FUNCTIONS.contains(&name.as_str()) {
            out.dynamic(
                node,
                DynamicKind::DynamicImport,
                format!("`{name}` used as a value"),
            );
        }
        if site != Site::Import && FILE_LOADERS.contains(&name.as_str()) {
            out.dynamic(
                node,
                DynamicKind::DynamicImport,
                format!("`{name}` loads code the imports do not name"),
            );
        }
        if site == Site::Reference && ATTRIBUTE_FUNCTIONS.iter().any(|(f, _)| *f == name) {
            out.dynamic(
                node,
                DynamicKind::DynamicAttribute,
                format!("`{name}` used as a value"),
            );
        }
        // `asyncio.subprocess.subprocess`: a module reached as another module's attribute
        // is loaded as surely as by an import statement.
        for at in self.reexports(&name) {
            let module = name[at..].split('.').next().unwrap_or_default();
            out.push(node, import_fact(module.to_owned()));
        }
        out.push(node, FactKind::Use { name, called, args });
    }

    fn report_subscript(&mut self, node: Node<'t>, out: &mut Collector) {
        let (Some(value), Some(key)) = (
            node.child_by_field_name("value"),
            node.child_by_field_name("subscript"),
        ) else {
            return;
        };
        let namespaces: Vec<String> = self
            .resolve(value, 0)
            .into_iter()
            .filter(|v| is_namespace(v))
            .collect();
        if !namespaces.is_empty() {
            match self.fold(key, 0) {
                Some(key) if namespaces.iter().any(|n| n == "sys.modules") => {
                    out.push(node, import_fact(key));
                }
                Some(_) => {}
                None => out.dynamic(
                    node,
                    DynamicKind::DynamicAttribute,
                    format!(
                        "`{}[...]` looked up by a computed name",
                        shown(&namespaces[0])
                    ),
                ),
            }
        }
        if self.is_maximal(node) {
            for meaning in self.resolve(node, 0) {
                self.report_use(node, meaning, Site::Reference, Vec::new(), out);
            }
        }
    }

    /// The constant arguments a call's fact carries: every positional argument that folds
    /// (strings as they are, integers in decimal), then keyword arguments that name files.
    fn fact_args(&mut self, args: &CallArgs<'t>) -> Vec<String> {
        let mut values = Vec::new();
        for arg in args.positional.iter().take(MAX_FACT_ARGS) {
            if let Some(value) = self
                .fold(*arg, 0)
                .or_else(|| self.integer(*arg).map(|n| n.to_string()))
            {
                values.push(value);
            }
        }
        for (name, value) in &args.keywords {
            if values.len() >= MAX_FACT_ARGS {
                break;
            }
            if PATH_KEYWORDS.contains(&name.as_str())
                && let Some(value) = self.fold(*value, 0)
            {
                values.push(value);
            }
        }
        values
    }

    fn report_call(&mut self, node: Node<'t>, out: &mut Collector, nested: &mut Vec<NestedCode>) {
        let Some(function) = node.child_by_field_name("function") else {
            return;
        };
        let args = CallArgs::of(node, self.source);
        let first = args.positional.first().copied();
        let first_arg = first.and_then(|a| self.fold(a, 0));
        let fact_args = self.fact_args(&args);
        if function.kind() == "attribute"
            && let Some(method) = function.child_by_field_name("attribute")
            && LOADER_METHODS.contains(&normalize(self.text(method)).as_str())
        {
            out.dynamic(
                node,
                DynamicKind::DynamicImport,
                "a loader runs a module the imports do not name",
            );
        }
        for name in self.resolve(function, 0) {
            let name = self.refine_call(name, &args);
            if IMPORT_FUNCTIONS.contains(&name.as_str()) || SPEC_FINDERS.contains(&name.as_str()) {
                match &first_arg {
                    Some(module) => {
                        let module = match name.as_str() {
                            "pkgutil.resolve_name" => module.split(':').next().unwrap_or_default(),
                            _ => module,
                        };
                        out.push(node, import_fact(module.to_owned()));
                    }
                    None => out.dynamic(
                        node,
                        DynamicKind::DynamicImport,
                        format!("`{name}` with a module name computed at run time"),
                    ),
                }
            }
            if let Some((_, index)) = ATTRIBUTE_FUNCTIONS.iter().find(|(f, _)| *f == name) {
                match args.positional.get(*index).and_then(|a| self.fold(*a, 0)) {
                    Some(attr) if INTROSPECTION_ATTRIBUTES.contains(&attr.as_str()) => {
                        out.dynamic(
                            node,
                            DynamicKind::Introspection,
                            format!("`{name}` reaches `{attr}`"),
                        );
                    }
                    Some(_) => {}
                    None => out.dynamic(
                        node,
                        DynamicKind::DynamicAttribute,
                        format!("`{name}` with an attribute name computed at run time"),
                    ),
                }
            }
            if let Some(namespace) = namespace_of_method(&name) {
                match &first_arg {
                    Some(module) if namespace == "sys.modules" => {
                        out.push(node, import_fact(module.clone()))
                    }
                    Some(_) => {}
                    None => out.dynamic(
                        node,
                        DynamicKind::DynamicAttribute,
                        format!("`{}` with a name computed at run time", shown(&name)),
                    ),
                }
            }
            if let Some(method) = name
                .strip_prefix(METHODCALLER)
                .and_then(|rest| rest.strip_prefix('.'))
            {
                let objects = first.map(|o| self.resolve(o, 0)).unwrap_or_default();
                for object in objects {
                    self.report_use(node, qualify(&object, method), Site::Call, Vec::new(), out);
                }
            }
            if EVAL_NAMES.contains(&name.as_str())
                && let Some(code) = &first_arg
            {
                nested.push(NestedCode {
                    code: code.clone(),
                    span: out.span(node),
                });
            }
            self.report_allocation(node, &name, &args, out);
            if name == "pow"
                && let [base, exponent] = args.positional.as_slice()
            {
                self.report_huge_power(node, *base, *exponent, out);
            }
            if name == "numpy.load" && self.allows_pickle(&args) {
                // `np.load(..., allow_pickle=True)` unpickles object arrays.
                self.report_use(node, "pickle.load".to_owned(), Site::Call, Vec::new(), out);
            }
            let site = if CALLABLE_EVAL_NAMES.contains(&name.as_str()) && self.runs_no_text(&args) {
                Site::CallWithoutCode
            } else {
                Site::Call
            };
            self.report_use(node, name, site, fact_args.clone(), out);
        }
        if self.is_maximal(node) {
            for meaning in self.resolve(node, 0) {
                self.report_use(node, meaning, Site::Reference, Vec::new(), out);
            }
        }
    }

    /// A called name made precise by its arguments: `yaml.load(s, Loader=yaml.SafeLoader)`
    /// is `yaml.safe_load`.
    fn refine_call(&mut self, name: String, args: &CallArgs<'t>) -> String {
        let safe = match name.as_str() {
            "yaml.load" => "yaml.safe_load",
            "yaml.load_all" => "yaml.safe_load_all",
            _ => return name,
        };
        let Some(loader) = args.get(1, "Loader") else {
            return name;
        };
        let loaders = self.resolve(loader, 0);
        let all_safe = !loaders.is_empty()
            && loaders.iter().all(|l| {
                l.starts_with("yaml.")
                    && matches!(
                        l.rsplit('.').next(),
                        Some("SafeLoader" | "CSafeLoader" | "BaseLoader" | "CBaseLoader")
                    )
            });
        if all_safe { safe.to_owned() } else { name }
    }

    /// `allow_pickle=` given and not the constant `False`.
    fn allows_pickle(&self, args: &CallArgs<'t>) -> bool {
        args.get(2, "allow_pickle")
            .is_some_and(|v| !matches!(self.text(v), "False" | "0" | "None"))
    }

    /// True when `timeit`'s statement and setup are lambdas or functions the snippet defines,
    /// not text.
    fn runs_no_text(&self, args: &CallArgs<'t>) -> bool {
        [args.get(0, "stmt"), args.get(1, "setup")]
            .into_iter()
            .flatten()
            .all(|arg| {
                let arg = unparenthesized(arg);
                match arg.kind() {
                    "lambda" => true,
                    "identifier" => {
                        let name = normalize(self.text(arg));
                        self.scopes.functions.contains(&name)
                            && self.bindings.meanings(&name).is_none()
                            && self.bindings.constant_value(&name).is_none()
                    }
                    _ => false,
                }
            })
    }

    /// `bytearray(10**10)`, `np.zeros((10**5, 10**5))`, `np.ones(shape=...)`,
    /// `np.random.rand(10**5, 10**5)`.
    fn report_allocation(&self, node: Node, name: &str, args: &CallArgs<'t>, out: &mut Collector) {
        let mut sizes = Vec::new();
        if DIMENSION_CALLS.contains(&name) && args.positional.len() > 1 {
            sizes.push(
                args.positional
                    .iter()
                    .map(|d| self.largest(*d))
                    .try_fold(1i128, |acc, d| Some(acc.saturating_mul(d?))),
            );
        } else if ALLOCATING_CALLS.contains(&name) {
            sizes.push(args.positional.first().and_then(|a| self.size(*a)));
        }
        if name == "numpy" || name.starts_with("numpy.") || ALLOCATING_CALLS.contains(&name) {
            for keyword in SIZE_KEYWORDS {
                sizes.push(args.keyword(keyword).and_then(|a| self.size(a)));
            }
        }
        if let Some(size) = sizes.into_iter().flatten().max()
            && size >= HUGE_ALLOCATION
        {
            out.dynamic(
                node,
                DynamicKind::HugeAllocation,
                format!("`{name}` of {size} elements"),
            );
        }
    }

    /// `'x' * 10**10`, `[0] * (1 << 40)`, `("x" * 10**5) * 10**5`: a sequence repeated far
    /// beyond any memory limit.
    fn report_repetition(&self, node: Node, out: &mut Collector) {
        if node.child_by_field_name("operator").map(|o| self.text(o)) != Some("*") {
            return;
        }
        if let Some(&n) = self.repeats.get(&node.id())
            && n >= HUGE_ALLOCATION
        {
            out.dynamic(
                node,
                DynamicKind::HugeAllocation,
                format!("a sequence repeated {n} times"),
            );
        }
    }

    /// Fills `sizes` and `repeats`, children before parents.
    fn compute_sizes(&mut self) {
        for i in (0..self.tree.nodes.len()).rev() {
            let node = self.tree.nodes[i];
            if let Some(value) = self.size_of_node(node) {
                self.sizes.insert(node.id(), value);
            }
            if let Some(count) = self.repeats_of_node(node) {
                self.repeats.insert(node.id(), count);
            }
        }
    }

    /// One step of [`fold_int_at`], reading the operands from `sizes`.
    fn size_of_node(&self, node: Node) -> Option<i128> {
        let known = |n: Option<Node>| n.and_then(|n| self.sizes.get(&n.id()).copied());
        match node.kind() {
            "integer" | "float" => fold_int_at(node, self.source, None, 0),
            "identifier" => self
                .bindings
                .integer_value(&normalize(self.text(node)), true),
            "parenthesized_expression" => match named_children(node).as_slice() {
                [inner] => known(Some(*inner)),
                _ => None,
            },
            "call" => {
                let function = node.child_by_field_name("function")?;
                let args = arguments(node.child_by_field_name("arguments"));
                match (self.text(function), args.as_slice()) {
                    ("int", [value]) => known(Some(*value)),
                    _ => None,
                }
            }
            "unary_operator" => {
                let value = known(node.child_by_field_name("argument"))?;
                match self.text(node.child_by_field_name("operator")?) {
                    "-" => Some(value.saturating_neg()),
                    "+" => Some(value),
                    _ => None,
                }
            }
            "binary_operator" => {
                let l = known(node.child_by_field_name("left"))?;
                let r = known(node.child_by_field_name("right"))?;
                combine_ints(self.text(node.child_by_field_name("operator")?), l, r)
            }
            _ => None,
        }
    }

    /// How many times a repeated sequence holds its literal: 1 for the literal itself.
    fn repeats_of_node(&self, node: Node) -> Option<i128> {
        match node.kind() {
            "string" | "concatenated_string" | "list" | "tuple" | "list_comprehension" => Some(1),
            "parenthesized_expression" => match named_children(node).as_slice() {
                [inner] => self.repeats.get(&inner.id()).copied(),
                _ => None,
            },
            "binary_operator" => {
                if node.child_by_field_name("operator").map(|o| self.text(o)) != Some("*") {
                    return None;
                }
                let left = node.child_by_field_name("left")?;
                let right = node.child_by_field_name("right")?;
                [(left, right), (right, left)]
                    .into_iter()
                    .find_map(|(sequence, count)| {
                        let inner = self.repeats.get(&sequence.id())?;
                        Some(inner.saturating_mul(*self.sizes.get(&count.id())?))
                    })
            }
            _ => None,
        }
    }

    /// A constant integer expression's value, names at their largest (report pass only).
    fn largest(&self, node: Node) -> Option<i128> {
        self.sizes.get(&node.id()).copied()
    }

    /// `10**10**10`, `1 << 10**10`: an integer so large that computing it is the bomb.
    /// Reported once, at the outermost such operation.
    fn report_power(&self, node: Node<'t>, out: &mut Collector) {
        let Some(bits) = self.power_bits(node).filter(|b| *b >= HUGE_BITS) else {
            return;
        };
        let outer_also_huge = self
            .tree
            .parent(node)
            .and_then(|p| self.power_bits(p))
            .is_some_and(|b| b >= HUGE_BITS);
        if !outer_also_huge {
            out.dynamic(
                node,
                DynamicKind::HugeAllocation,
                format!("an integer of about {bits:.0} bits"),
            );
        }
    }

    /// The approximate size in bits of a constant `a ** b` or `a << b`.
    fn power_bits(&self, node: Node) -> Option<f64> {
        if node.kind() != "binary_operator" {
            return None;
        }
        let op = self.text(node.child_by_field_name("operator")?);
        let left = node.child_by_field_name("left")?;
        let right = node.child_by_field_name("right")?;
        match op {
            "**" => self.power_call_bits(left, right),
            "<<" => {
                let (value, shift) = (self.largest(left)?, self.largest(right)?);
                (value != 0 && shift > 0)
                    .then(|| shift as f64 + (value.unsigned_abs() as f64).log2())
            }
            _ => None,
        }
    }

    /// The approximate size in bits of `base ** exponent` (also `pow(base, exponent)`).
    fn power_call_bits(&self, base: Node, exponent: Node) -> Option<f64> {
        if unparenthesized(base).kind() == "float" {
            return None; // float powers overflow at once rather than grow
        }
        let (base, exponent) = (self.largest(base)?, self.largest(exponent)?);
        (base.unsigned_abs() >= 2 && exponent > 0)
            .then(|| exponent as f64 * (base.unsigned_abs() as f64).log2())
    }

    fn report_huge_power(&self, node: Node, base: Node, exponent: Node, out: &mut Collector) {
        if let Some(bits) = self.power_call_bits(base, exponent)
            && bits >= HUGE_BITS
        {
            out.dynamic(
                node,
                DynamicKind::HugeAllocation,
                format!("an integer of about {bits:.0} bits"),
            );
        }
    }
}

/// Bits from which a constant integer expression counts as a bomb: computing or printing an
/// integer of 100 million bits (12.5 MB) takes minutes, and no snippet needs one.
const HUGE_BITS: f64 = HUGE_ALLOCATION as f64;

/// A resolved name as the snippet would spell it: `globals().get`, not the marker.
fn shown(name: &str) -> String {
    name.replace(GLOBALS, "globals()")
}

/// The namespace dictionaries whose lookups by name are resolved.
fn is_namespace(name: &str) -> bool {
    name == "sys.modules" || name == GLOBALS || name == "builtins" || name.ends_with(".__dict__")
}

/// `sys.modules` for `sys.modules.get`: the namespace a lookup method is called on.
fn namespace_of_method(name: &str) -> Option<&str> {
    let (namespace, method) = name.rsplit_once('.')?;
    (NAMESPACE_METHODS.contains(&method) && is_namespace(namespace)).then_some(namespace)
}

/// The expression inside any parentheses.
fn unparenthesized(mut node: Node) -> Node {
    for _ in 0..MAX_EXPR_DEPTH {
        if node.kind() != "parenthesized_expression" {
            break;
        }
        match named_children(node).as_slice() {
            [inner] => node = *inner,
            _ => break,
        }
    }
    node
}

/// The children of `node` in field `field`.
fn children_by_field<'t>(node: Node<'t>, field: &str) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.children_by_field_name(field, &mut cursor).collect()
}

/// `a = b = value`: the value at the end of a chained assignment.
fn innermost_value(mut node: Node) -> Node {
    while node.kind() == "assignment" {
        match node.child_by_field_name("right") {
            Some(right) => node = right,
            None => break,
        }
    }
    node
}

/// False for identifiers that name something being defined rather than used.
fn is_reference(node: Node, parent: Option<Node>) -> bool {
    let Some(parent) = parent else {
        return true;
    };
    let is_field = |field: &str| parent.child_by_field_name(field) == Some(node);
    match parent.kind() {
        "attribute" => !is_field("attribute"),
        "keyword_argument"
        | "function_definition"
        | "class_definition"
        | "default_parameter"
        | "typed_default_parameter"
        | "named_expression" => !is_field("name"),
        "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause" => {
            !is_field("left")
        }
        "parameters"
        | "lambda_parameters"
        | "typed_parameter"
        | "list_splat_pattern"
        | "dictionary_splat_pattern"
        | "global_statement"
        | "nonlocal_statement"
        | "delete_statement"
        | "dotted_name"
        | "aliased_import"
        | "as_pattern_target"
        | "pattern_list"
        | "tuple_pattern" => false,
        _ => true,
    }
}

/// An integer constant: literals (with `_`, hex, octal, binary, integral floats), `int(...)`
/// and names bound to exactly one integer, combined with `+ - * ** <<`. Overflow saturates,
/// so `10**10**10` is simply "huge", computed in no time.
fn fold_int_at(node: Node, source: &str, names: Option<&Bindings>, depth: usize) -> Option<i128> {
    if depth > 32 {
        return None;
    }
    let depth = depth + 1;
    match node.kind() {
        "integer" => parse_int(&text(node, source).replace('_', "")),
        "float" => {
            let v: f64 = text(node, source).replace('_', "").parse().ok()?;
            (v.is_finite() && v.fract() == 0.0).then(|| v.min(i128::MAX as f64) as i128)
        }
        "identifier" => names?.integer_value(&normalize(text(node, source)), false),
        "parenthesized_expression" => match named_children(node).as_slice() {
            [inner] => fold_int_at(*inner, source, names, depth),
            _ => None,
        },
        "call" => {
            // `int(1e10)`
            let function = node.child_by_field_name("function")?;
            let args = arguments(node.child_by_field_name("arguments"));
            match (text(function, source), args.as_slice()) {
                ("int", [value]) => fold_int_at(*value, source, names, depth),
                _ => None,
            }
        }
        "unary_operator" => {
            let value = fold_int_at(node.child_by_field_name("argument")?, source, names, depth)?;
            match text(node.child_by_field_name("operator")?, source) {
                "-" => Some(value.saturating_neg()),
                "+" => Some(value),
                _ => None,
            }
        }
        "binary_operator" => {
            let l = fold_int_at(node.child_by_field_name("left")?, source, names, depth)?;
            let r = fold_int_at(node.child_by_field_name("right")?, source, names, depth)?;
            combine_ints(text(node.child_by_field_name("operator")?, source), l, r)
        }
        _ => None,
    }
}

pub(super) fn parse_int(text: &str) -> Option<i128> {
    let lower = text.to_ascii_lowercase();
    let (digits, radix) = match lower.get(..2) {
        Some("0x") => (&lower[2..], 16),
        Some("0o") => (&lower[2..], 8),
        Some("0b") => (&lower[2..], 2),
        _ => (lower.as_str(), 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    Some(i128::from_str_radix(digits, radix).unwrap_or(i128::MAX))
}

/// Saturating integer arithmetic shared by the Python and JavaScript folders. Results too
/// large for `i128` saturate to its bounds, whatever the size of the operands.
pub(super) fn combine_ints(op: &str, l: i128, r: i128) -> Option<i128> {
    let saturated = |negative: bool| if negative { i128::MIN } else { i128::MAX };
    Some(match op {
        "+" => l.saturating_add(r),
        "-" => l.saturating_sub(r),
        "*" => l.saturating_mul(r),
        "**" => {
            if r < 0 {
                return None; // a float
            }
            let odd = r % 2 == 1;
            match l {
                0 => i128::from(r == 0),
                1 => 1,
                -1 => {
                    if odd {
                        -1
                    } else {
                        1
                    }
                }
                _ => match u32::try_from(r) {
                    Ok(exp) if exp <= 127 => l
                        .checked_pow(exp)
                        .unwrap_or_else(|| saturated(l < 0 && odd)),
                    _ => saturated(l < 0 && odd),
                },
            }
        }
        "<<" => {
            if r < 0 {
                return None; // a ValueError
            }
            if l == 0 {
                0
            } else {
                match u32::try_from(r) {
                    Ok(shift) if shift < 127 && l.unsigned_abs().leading_zeros() > shift + 1 => {
                        l << shift
                    }
                    _ => saturated(l < 0),
                }
            }
        }
        _ => return None,
    })
}

/// True if `name` is `module` or something inside it; used by the tests below.
#[cfg(test)]
fn under(name: &str, module: &str) -> bool {
    super::collect::is_under(name, module)
}

#[cfg(test)]
mod tests {
    use super::super::{Language, analyze};
    use super::*;

    fn uses(code: &str) -> Vec<String> {
        analyze(Language::Python, code.as_bytes())
            .facts
            .into_iter()
            .filter_map(|f| match f.kind {
                FactKind::Use { name, .. } => Some(name),
                _ => None,
            })
            .collect()
    }

    fn imports(code: &str) -> Vec<String> {
        analyze(Language::Python, code.as_bytes())
            .facts
            .into_iter()
            .filter_map(|f| match f.kind {
                FactKind::Import { module } => Some(module),
                _ => None,
            })
            .collect()
    }

    fn dynamic(code: &str) -> Vec<DynamicKind> {
        analyze(Language::Python, code.as_bytes())
            .facts
            .into_iter()
            .filter_map(|f| match f.kind {
                FactKind::Dynamic { kind, .. } => Some(kind),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn aliases_and_rebinding_resolve() {
        for code in [
            "import os as o\no.system('id')",
            "from os import system as s\ns('id')",
            "from os import *\nsystem('id')",
            "import sys, os\nos.system('id')",
            "f = os.system\nf('id')",
            "import os\na = os\nb = a\nb.system('id')",
            "b = a\na = __import__('os')\nb.system('id')",
            "__import__('o' + 's').system('id')",
            "import importlib\nimportlib.import_module('o' 's').system('id')",
            "getattr(__import__('os'), 'sys' + 'tem')('id')",
            "import sys\nsys.modules['os'].system('id')",
            "m = 'os'\n__import__(m).system('id')",
            "__import__(''.join(['o', 's'])).system('id')",
            "__import__('so'[::-1]).system('id')",
            "import base64\n__import__(base64.b64decode('b3M=').decode()).system('id')",
            "__import__(f\"{'o'}s\").system('id')",
            "(lambda: __import__('os'))\nimport os as _o; _o.system('x')",
            "__import__(' os '.strip()).system('id')",
            "__import__('xxosxx'.strip('x')).system('id')",
            "import posix\nposix.system('id')",
            "import sys\nsys.modules['nt'].system('id')",
            "import shutil\nshutil.os.system('id')",
            "import pkgutil\npkgutil.resolve_name('os:system')('id')",
            "import os\n[os][0].system('id')",
            "import os\n(os, 1)[-2].system('id')",
            "import os\n(lambda: os)().system('id')",
            "import operator, os\noperator.attrgetter('system')(os)('id')",
            "import codecs\n__import__(codecs.decode('bf', 'rot13')).system('id')",
        ] {
            assert!(
                uses(code).iter().any(|u| under(u, "os.system")),
                "{code}: {:?}",
                uses(code)
            );
        }
    }

    #[test]
    fn modules_reached_through_other_modules_are_imports() {
        assert!(
            imports("import asyncio\nasyncio.subprocess.subprocess.run('id')")
                .contains(&"subprocess".to_owned())
        );
        assert!(
            imports("import os\nos.sys.modules['subprocess'].run('id')")
                .contains(&"subprocess".to_owned())
        );
        assert!(
            imports("import importlib.util\nimportlib.util.find_spec('subprocess')")
                .contains(&"subprocess".to_owned())
        );
        // an attribute of a value that is not a module is not a module
        assert!(!imports("arr = make()\narr.ctypes.data").contains(&"ctypes".to_owned()));
    }

    #[test]
    fn nfkc_identifiers_resolve() {
        assert!(dynamic("ｅｘｅｃ('1')").contains(&DynamicKind::CodeEval));
        assert!(dynamic("𝘦𝘷𝘢𝘭('1')").contains(&DynamicKind::CodeEval));
    }

    #[test]
    fn builtins_namespace_lookups_resolve() {
        for code in [
            "import builtins\nvars(builtins)['exec']('1')",
            "import builtins\nbuiltins.__dict__['eval']('1')",
            "__builtins__.__dict__['exec']('1')",
        ] {
            assert!(dynamic(code).contains(&DynamicKind::CodeEval), "{code}");
        }
    }

    #[test]
    fn locals_and_imports_hide_the_builtin_only_where_certain() {
        for code in [
            "def run(model, eval=False):\n    return model if eval else None",
            "f = lambda eval: eval + 1",
            "xs = [eval for eval in range(3)]",
            "from re import compile\npattern = compile('a+')",
            "from importlib import import_module",
            "import timeit\ntimeit.timeit(lambda: sum(range(10)), number=3)",
            "import yaml\nyaml.load(text, Loader=yaml.SafeLoader)",
        ] {
            let found = dynamic(code);
            assert!(
                !found.contains(&DynamicKind::CodeEval)
                    && !found.contains(&DynamicKind::DynamicImport)
                    && !found.contains(&DynamicKind::ParseError),
                "{code}: {found:?}"
            );
        }
        for code in [
            "x = eval\nx('1')",
            "eval('1')",
            "def f(eval=eval):\n    return eval('1')",
            "compile('x', '', 'exec')\nfrom re import compile",
            "for eval in []:\n    pass\neval('1')",
            "def f(eval):\n    del eval\n    eval('1')",
            "if cond:\n    from re import compile\ncompile('x', '', 'exec')",
            "xs = [y for y in eval('[1]')]",
        ] {
            assert!(dynamic(code).contains(&DynamicKind::CodeEval), "{code}");
        }
    }

    #[test]
    fn benign_lookalikes_stay_quiet() {
        for code in [
            "print('os.system(1)')",
            "# os.system('id')\nx = 1",
            "model.eval()",
            "cursor.exec('x')",
            "import ast\nast.literal_eval('1')",
            "import re\nre.compile('a+')",
            "import json\njson.loads('{}')",
            "import operator\nkey = operator.attrgetter('name')",
        ] {
            assert!(dynamic(code).is_empty(), "{code}: {:?}", dynamic(code));
            assert!(
                !uses(code).iter().any(|u| u == "os.system" || u == "eval"),
                "{code}"
            );
        }
    }

    #[test]
    fn computed_names_are_reported() {
        assert!(dynamic("__import__(name)").contains(&DynamicKind::DynamicImport));
        assert!(dynamic("getattr(os, n)()").contains(&DynamicKind::DynamicAttribute));
        assert!(
            dynamic("().__class__.__bases__[0].__subclasses__()")
                .contains(&DynamicKind::Introspection)
        );
        assert!(dynamic("import sys\nsys.modules.get(n)").contains(&DynamicKind::DynamicAttribute));
        assert!(dynamic("globals().get(n)").contains(&DynamicKind::DynamicAttribute));
        assert!(dynamic("vars()[n]").contains(&DynamicKind::DynamicAttribute));
        assert!(dynamic("x = 'a' * 10**10").contains(&DynamicKind::HugeAllocation));
        assert!(!dynamic("x = 'a' * 10").contains(&DynamicKind::HugeAllocation));
    }

    #[test]
    fn huge_allocations_are_seen_through() {
        for code in [
            "x = ('x') * 10**10",
            "x = 'x' * 10**5 * 10**5",
            "x = 'x' * int(1e10)",
            "x = 'x' * 10**(2**40)",
            "import numpy as np\nnp.zeros(shape=(10**5, 10**5))",
            "import numpy as np\nnp.random.rand(10**5, 10**5)",
            "n = 10**10\nx = 'x' * n",
            "x = 10**10**10",
            "x = pow(10, 10**10)",
            "x = 1 << 10**10",
        ] {
            assert!(
                dynamic(code).contains(&DynamicKind::HugeAllocation),
                "{code}: {:?}",
                dynamic(code)
            );
        }
        for code in [
            "x = 2**1000",
            "x = 10**100",
            "x = 2.0**10000",
            "n = 10\nx = 'x' * n",
        ] {
            assert!(
                !dynamic(code).contains(&DynamicKind::HugeAllocation),
                "{code}"
            );
        }
    }

    #[test]
    fn ints_saturate() {
        assert_eq!(combine_ints("**", 10, 10_000), Some(i128::MAX));
        assert_eq!(combine_ints("**", 10, 1 << 40), Some(i128::MAX));
        assert_eq!(combine_ints("**", -10, (1 << 40) + 1), Some(i128::MIN));
        assert_eq!(combine_ints("**", 1, 1 << 40), Some(1));
        assert_eq!(combine_ints("<<", 1, 40), Some(1 << 40));
        assert_eq!(combine_ints("<<", 1, 1 << 40), Some(i128::MAX));
        assert_eq!(combine_ints("<<", 1, 127), Some(i128::MAX));
        assert_eq!(parse_int("0x10"), Some(16));
    }
}
