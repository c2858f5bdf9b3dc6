//! Python source to facts.
//!
//! Two passes over the tree. The first gathers bindings (imports, assignments, default
//! arguments) until they stop changing, so `a = os; b = a; b.system` resolves whatever the
//! order. The second reports: imports, every maximal name chain that resolves (`os.path.join`
//! once, not also `os.path`), calls with their first constant argument, and the constructs
//! that stay dynamic. References count, not just calls: `f = eval` is reported where `eval` is
//! named, so no chain of re-bindings the resolver cannot follow can hide a sink.

use tree_sitter::Node;
use unicode_normalization::UnicodeNormalization;

use super::collect::{
    Bindings, Collector, FlatTree, IdMap, MAX_EXPR_DEPTH, MAX_FOLDED_LEN, arguments, dedup_capped,
    named_children, qualify, text,
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

/// Functions that import a module named by their first argument.
const IMPORT_FUNCTIONS: &[&str] = &[
    "__import__",
    "importlib.import_module",
    "importlib.__import__",
    "imp.load_module",
    "imp.load_source",
    "importlib.machinery.SourceFileLoader",
    "pkgutil.resolve_name",
];

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

/// Marker meaning "the module's global namespace" (`globals()`, `vars()`).
const GLOBALS: &str = "<globals>";

/// Node kinds that bind names.
const BINDING_KINDS: [&str; 6] = [
    "import_statement",
    "import_from_statement",
    "assignment",
    "named_expression",
    "default_parameter",
    "typed_default_parameter",
];

pub(super) fn analyze<'t>(
    root: Node<'t>,
    source: &str,
    out: &mut Collector,
    nested: &mut Vec<NestedCode>,
) {
    let mut py = Python {
        source,
        bindings: Bindings::default(),
        star_modules: Vec::new(),
        memo: IdMap::default(),
        folds: IdMap::default(),
        too_deep: None,
        tree: FlatTree::of(root),
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
    for i in 0..py.tree.nodes.len() {
        let node = py.tree.nodes[i];
        py.report(node, out, nested);
    }
    if let Some(node) = py.too_deep {
        out.too_deep(node);
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
    too_deep: Option<Node<'t>>,
    tree: FlatTree<'t>,
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

/// `builtins.eval` and `eval` are the same function.
fn canonical(name: String) -> String {
    match name.strip_prefix("builtins.") {
        Some(rest) => rest.to_owned(),
        None => name,
    }
}

impl<'s, 't> Python<'s, 't> {
    fn text(&self, node: Node) -> &'s str {
        text(node, self.source)
    }

    /// `os.path` from a `dotted_name` node, each part normalized.
    fn dotted(&self, node: Node) -> String {
        if node.kind() == "dotted_name" {
            named_children(node)
                .iter()
                .map(|part| normalize(self.text(*part)))
                .collect::<Vec<_>>()
                .join(".")
        } else {
            normalize(self.text(node))
        }
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
            "import_statement" => {
                for name in children_by_field(node, "name") {
                    let (local, meaning) = match name.kind() {
                        "aliased_import" => {
                            let Some(alias) = name.child_by_field_name("alias") else {
                                continue;
                            };
                            let module = name.child_by_field_name("name");
                            (
                                normalize(self.text(alias)),
                                module.map(|m| self.dotted(m)).unwrap_or_default(),
                            )
                        }
                        _ => {
                            let module = self.dotted(name);
                            let top = module.split('.').next().unwrap_or_default().to_owned();
                            (top.clone(), top)
                        }
                    };
                    changed |= self.bindings.alias(&local, meaning);
                }
            }
            "import_from_statement" => {
                let Some(module) = self.from_module(node) else {
                    return changed;
                };
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    if child.kind() == "wildcard_import" && !self.star_modules.contains(&module) {
                        self.star_modules.push(module.clone());
                        changed = true;
                    }
                }
                for name in children_by_field(node, "name") {
                    let (local, imported) = match name.kind() {
                        "aliased_import" => {
                            let (Some(alias), Some(n)) = (
                                name.child_by_field_name("alias"),
                                name.child_by_field_name("name"),
                            ) else {
                                continue;
                            };
                            (normalize(self.text(alias)), self.dotted(n))
                        }
                        _ => {
                            let n = self.dotted(name);
                            (n.clone(), n)
                        }
                    };
                    changed |= self.bindings.alias(&local, qualify(&module, &imported));
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
    fn from_module(&self, node: Node) -> Option<String> {
        let module = node.child_by_field_name("module_name")?;
        (module.kind() == "dotted_name").then(|| self.dotted(module))
    }

    // ---- resolution -------------------------------------------------------------------------

    /// The qualified names an expression may stand for (empty when unknown).
    fn resolve(&mut self, node: Node<'t>, depth: usize) -> Vec<String> {
        if depth > MAX_EXPR_DEPTH {
            self.too_deep.get_or_insert(node);
            return Vec::new();
        }
        if let Some(hit) = self.memo.get(&node.id()) {
            return hit.clone();
        }
        let names = self.resolve_uncached(node, depth + 1);
        let names = dedup_capped(names.into_iter().map(canonical).collect());
        self.memo.insert(node.id(), names.clone());
        names
    }

    fn resolve_uncached(&mut self, node: Node<'t>, depth: usize) -> Vec<String> {
        match node.kind() {
            "identifier" => self.resolve_name(&normalize(self.text(node))),
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
    fn resolve_name(&self, name: &str) -> Vec<String> {
        if name == "__builtins__" {
            return vec!["builtins".to_owned()];
        }
        let mut names: Vec<String> = self.bindings.meanings(name).unwrap_or_default().to_vec();
        names.push(name.to_owned());
        names.extend(self.star_modules.iter().map(|m| qualify(m, name)));
        names
    }

    /// `namespace[key]` for the namespaces that are dictionaries of names.
    fn lookup_in_namespace(&self, namespace: &str, key: &str) -> Vec<String> {
        if namespace == "sys.modules" {
            vec![key.to_owned()]
        } else if namespace == GLOBALS {
            self.resolve_name(key)
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
        let args = arguments(node.child_by_field_name("arguments"));
        let mut names = Vec::new();
        for f in self.resolve(function, depth) {
            if IMPORT_FUNCTIONS.contains(&f.as_str()) {
                if let Some(module) = args.first().and_then(|a| self.fold(*a, depth)) {
                    if f == "__import__" {
                        names.push(module.split('.').next().unwrap_or_default().to_owned());
                    } else {
                        names.push(module);
                    }
                }
            } else if matches!(f.as_str(), "getattr" | "object.__getattribute__") {
                if let (Some(obj), Some(key)) = (args.first(), args.get(1)) {
                    if let Some(key) = self.fold(*key, depth) {
                        let objects = self.resolve(*obj, depth);
                        names.extend(objects.iter().map(|o| qualify(o, &key)));
                    }
                }
            } else if matches!(f.as_str(), "globals" | "locals") || (f == "vars" && args.is_empty())
            {
                names.push(GLOBALS.to_owned());
            } else if f == "vars" {
                let objects = args
                    .first()
                    .map(|a| self.resolve(*a, depth))
                    .unwrap_or_default();
                names.extend(objects.iter().map(|o| format!("{o}.__dict__")));
            } else if f == "importlib.reload" {
                names.extend(
                    args.first()
                        .map(|a| self.resolve(*a, depth))
                        .unwrap_or_default(),
                );
            } else if let Some(namespace) = f
                .strip_suffix(".get")
                .or_else(|| f.strip_suffix(".__getitem__"))
                .or_else(|| f.strip_suffix(".setdefault"))
            {
                if let Some(key) = args.first().and_then(|a| self.fold(*a, depth)) {
                    names.extend(self.lookup_in_namespace(namespace, &key));
                }
            }
        }
        names
    }

    // ---- constant folding -------------------------------------------------------------------

    /// The constant string an expression evaluates to, when it is built only from literals,
    /// known constants and the usual hiding transforms (concatenation, join, reversal, chr,
    /// base64/hex/rot13 decoding).
    fn fold(&mut self, node: Node<'t>, depth: usize) -> Option<String> {
        if depth > MAX_EXPR_DEPTH {
            self.too_deep.get_or_insert(node);
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
        let value = match node.kind() {
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
        };
        value
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
        if function.kind() == "attribute" {
            let object = function.child_by_field_name("object")?;
            let method = self.text(function.child_by_field_name("attribute")?);
            match method {
                "join" => {
                    let separator = self.fold(object, depth)?;
                    let parts = self.fold_sequence(*args.first()?, depth)?;
                    return Some(parts.join(&separator));
                }
                "decode" | "encode" | "strip" => return self.fold(object, depth),
                "lower" => return self.fold(object, depth).map(|s| s.to_lowercase()),
                "upper" => return self.fold(object, depth).map(|s| s.to_uppercase()),
                "replace" if args.len() == 2 => {
                    let s = self.fold(object, depth)?;
                    let from = self.fold(args[0], depth)?;
                    let to = self.fold(args[1], depth)?;
                    return (!from.is_empty()).then(|| s.replace(&from, &to));
                }
                _ => {}
            }
        }
        let first = *args.first()?;
        for name in self.resolve(function, depth) {
            let decoded = match name.as_str() {
                "str" => self.fold(first, depth),
                "chr" => fold_int(first, self.source)
                    .and_then(|n| u32::try_from(n).ok())
                    .and_then(char::from_u32)
                    .map(String::from),
                "base64.b64decode" | "base64.standard_b64decode" | "base64.urlsafe_b64decode" => {
                    self.fold(first, depth).and_then(|s| base64_text(&s))
                }
                "bytes.fromhex" | "binascii.unhexlify" | "binascii.a2b_hex" => {
                    self.fold(first, depth).and_then(|s| hex_text(&s))
                }
                "codecs.decode" => {
                    let codec = args.get(1).and_then(|a| self.fold(*a, depth));
                    match codec.as_deref() {
                        Some("rot13" | "rot_13") => self.fold(first, depth).map(|s| rot13(&s)),
                        Some("hex") => self.fold(first, depth).and_then(|s| hex_text(&s)),
                        Some("base64") => self.fold(first, depth).and_then(|s| base64_text(&s)),
                        _ => None,
                    }
                }
                _ => None,
            };
            if decoded.is_some() {
                return decoded;
            }
        }
        None
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
                .map(|n| fold_int(n, self.source))
                .collect(),
            _ => None,
        }
    }

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
                        out.push(name, FactKind::Import { module });
                    }
                }
            }
            "import_from_statement" => {
                let Some(module) = self.from_module(node) else {
                    return;
                };
                out.push(
                    node,
                    FactKind::Import {
                        module: module.clone(),
                    },
                );
                for name in children_by_field(node, "name") {
                    let imported = match name.kind() {
                        "aliased_import" => {
                            name.child_by_field_name("name").map(|n| self.dotted(n))
                        }
                        _ => Some(self.dotted(name)),
                    };
                    if let Some(imported) = imported {
                        let full = canonical(qualify(&module, &imported));
                        self.report_use(name, full, false, None, out);
                    }
                }
            }
            "identifier" => {
                if is_reference(node, self.tree.parent(node)) && self.is_maximal(node) {
                    let name = normalize(self.text(node));
                    if name == "__builtins__" {
                        out.dynamic(node, DynamicKind::Introspection, "`__builtins__` reached");
                    }
                    for meaning in self.resolve(node, 0) {
                        self.report_use(node, meaning, false, None, out);
                    }
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
                        self.report_use(node, meaning, false, None, out);
                    }
                }
            }
            "subscript" => self.report_subscript(node, out),
            "call" => self.report_call(node, out, nested),
            "string" | "concatenated_string" | "binary_operator" => {
                if node.kind() == "binary_operator" {
                    self.report_repetition(node, out);
                }
                if node.kind() == "string"
                    && self
                        .tree
                        .parent(node)
                        .is_some_and(|p| p.kind() == "concatenated_string")
                {
                    return;
                }
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
            _ => {}
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
        called: bool,
        first_arg: Option<String>,
        out: &mut Collector,
    ) {
        if EVAL_NAMES.contains(&name.as_str()) {
            out.dynamic(
                node,
                DynamicKind::CodeEval,
                format!("`{name}` runs text as code"),
            );
        }
        if INTROSPECTION_NAMES.contains(&name.as_str()) {
            out.dynamic(
                node,
                DynamicKind::Introspection,
                format!("`{name}` reaches interpreter internals"),
            );
        }
        if !called && IMPORT_FUNCTIONS.contains(&name.as_str()) {
            out.dynamic(
                node,
                DynamicKind::DynamicImport,
                format!("`{name}` used as a value"),
            );
        }
        if !called && ATTRIBUTE_FUNCTIONS.iter().any(|(f, _)| *f == name) {
            out.dynamic(
                node,
                DynamicKind::DynamicAttribute,
                format!("`{name}` used as a value"),
            );
        }
        out.push(
            node,
            FactKind::Use {
                name,
                called,
                first_arg,
            },
        );
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
            .filter(|v| {
                v == "sys.modules" || v == GLOBALS || v == "builtins" || v.ends_with(".__dict__")
            })
            .collect();
        if !namespaces.is_empty() {
            match self.fold(key, 0) {
                Some(key) if namespaces.iter().any(|n| n == "sys.modules") => {
                    out.push(node, FactKind::Import { module: key });
                }
                Some(_) => {}
                None => out.dynamic(
                    node,
                    DynamicKind::DynamicAttribute,
                    format!("`{}[...]` looked up by a computed name", namespaces[0]),
                ),
            }
        }
        if self.is_maximal(node) {
            for meaning in self.resolve(node, 0) {
                self.report_use(node, meaning, false, None, out);
            }
        }
    }

    fn report_call(&mut self, node: Node<'t>, out: &mut Collector, nested: &mut Vec<NestedCode>) {
        let Some(function) = node.child_by_field_name("function") else {
            return;
        };
        let args = arguments(node.child_by_field_name("arguments"));
        let first = args.first().copied();
        let first_arg = first.and_then(|a| self.fold(a, 0));
        for name in self.resolve(function, 0) {
            if IMPORT_FUNCTIONS.contains(&name.as_str()) {
                match &first_arg {
                    Some(module) => out.push(
                        node,
                        FactKind::Import {
                            module: module.clone(),
                        },
                    ),
                    None => out.dynamic(
                        node,
                        DynamicKind::DynamicImport,
                        format!("`{name}` with a module name computed at run time"),
                    ),
                }
            }
            if let Some((_, index)) = ATTRIBUTE_FUNCTIONS.iter().find(|(f, _)| *f == name) {
                match args.get(*index).and_then(|a| self.fold(*a, 0)) {
                    Some(attr) if INTROSPECTION_ATTRIBUTES.contains(&attr.as_str()) => {
                        out.dynamic(
                            node,
                            DynamicKind::Introspection,
                            format!("`{name}` reaches `{attr}`"),
                        );
                    }
                    Some(_) if !name.starts_with("operator.") => {}
                    _ => out.dynamic(
                        node,
                        DynamicKind::DynamicAttribute,
                        format!("`{name}` with an attribute name computed at run time"),
                    ),
                }
            }
            if name.starts_with("sys.modules.") {
                if let Some(module) = &first_arg {
                    out.push(
                        node,
                        FactKind::Import {
                            module: module.clone(),
                        },
                    );
                }
            }
            if EVAL_NAMES.contains(&name.as_str()) {
                if let Some(code) = &first_arg {
                    nested.push(NestedCode {
                        code: code.clone(),
                        span: out.span(node),
                    });
                }
            }
            if ALLOCATING_CALLS.contains(&name.as_str()) {
                if let Some(size) = first.and_then(|a| fold_size(a, self.source)) {
                    if size >= HUGE_ALLOCATION {
                        out.dynamic(
                            node,
                            DynamicKind::HugeAllocation,
                            format!("`{name}` of {size} elements"),
                        );
                    }
                }
            }
            self.report_use(node, name, true, first_arg.clone(), out);
        }
        if self.is_maximal(node) {
            for meaning in self.resolve(node, 0) {
                self.report_use(node, meaning, false, None, out);
            }
        }
    }

    /// `'x' * 10**10`, `[0] * (1 << 40)`: a sequence repeated far beyond any memory limit.
    fn report_repetition(&self, node: Node, out: &mut Collector) {
        if node.child_by_field_name("operator").map(|o| self.text(o)) != Some("*") {
            return;
        }
        let (Some(left), Some(right)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("right"),
        ) else {
            return;
        };
        for (sequence, count) in [(left, right), (right, left)] {
            let is_sequence = matches!(
                sequence.kind(),
                "string" | "concatenated_string" | "list" | "tuple" | "list_comprehension"
            );
            if let Some(n) = fold_int(count, self.source) {
                if is_sequence && n >= HUGE_ALLOCATION {
                    out.dynamic(
                        node,
                        DynamicKind::HugeAllocation,
                        format!("a sequence repeated {n} times"),
                    );
                    return;
                }
            }
        }
    }
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
        | "dotted_name"
        | "aliased_import"
        | "as_pattern_target"
        | "pattern_list"
        | "tuple_pattern" => false,
        _ => true,
    }
}

/// An integer constant: literals (with `_`, hex, octal, binary, integral floats) combined with
/// `+ - * ** <<`. Overflow saturates, so `10**10**10` is simply "huge", computed in no time.
pub(super) fn fold_int(node: Node, source: &str) -> Option<i128> {
    fold_int_at(node, source, 0)
}

fn fold_int_at(node: Node, source: &str, depth: usize) -> Option<i128> {
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
        "parenthesized_expression" => match named_children(node).as_slice() {
            [inner] => fold_int_at(*inner, source, depth),
            _ => None,
        },
        "unary_operator" => {
            let value = fold_int_at(node.child_by_field_name("argument")?, source, depth)?;
            match text(node.child_by_field_name("operator")?, source) {
                "-" => Some(value.saturating_neg()),
                "+" => Some(value),
                _ => None,
            }
        }
        "binary_operator" => {
            let l = fold_int_at(node.child_by_field_name("left")?, source, depth)?;
            let r = fold_int_at(node.child_by_field_name("right")?, source, depth)?;
            combine_ints(text(node.child_by_field_name("operator")?, source), l, r)
        }
        _ => None,
    }
}

/// A size or a shape: `10**9`, or `(10**5, 10**5)` as the product of its dimensions.
fn fold_size(node: Node, source: &str) -> Option<i128> {
    match node.kind() {
        "tuple" | "list" => named_children(node)
            .into_iter()
            .map(|d| fold_int(d, source))
            .try_fold(1i128, |acc, d| Some(acc.saturating_mul(d?))),
        _ => fold_int(node, source),
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

/// Saturating integer arithmetic shared by the Python and JavaScript folders.
pub(super) fn combine_ints(op: &str, l: i128, r: i128) -> Option<i128> {
    Some(match op {
        "+" => l.saturating_add(r),
        "-" => l.saturating_sub(r),
        "*" => l.saturating_mul(r),
        "**" => {
            let exp = u32::try_from(r).ok()?;
            if exp > 126 && l.abs() > 1 {
                i128::MAX
            } else {
                l.checked_pow(exp).unwrap_or(i128::MAX)
            }
        }
        "<<" => {
            let shift = u32::try_from(r).ok()?;
            if shift >= 126 || l.leading_zeros() <= shift + 1 {
                i128::MAX
            } else {
                l << shift
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
        ] {
            assert!(
                uses(code).iter().any(|u| under(u, "os.system")),
                "{code}: {:?}",
                uses(code)
            );
        }
    }

    #[test]
    fn nfkc_identifiers_resolve() {
        assert!(dynamic("ｅｘｅｃ('1')").contains(&DynamicKind::CodeEval));
        assert!(dynamic("𝘦𝘷𝘢𝘭('1')").contains(&DynamicKind::CodeEval));
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
        assert!(dynamic("x = 'a' * 10**10").contains(&DynamicKind::HugeAllocation));
        assert!(!dynamic("x = 'a' * 10").contains(&DynamicKind::HugeAllocation));
    }

    #[test]
    fn ints_saturate() {
        assert_eq!(combine_ints("**", 10, 10_000), Some(i128::MAX));
        assert_eq!(combine_ints("<<", 1, 40), Some(1 << 40));
        assert_eq!(parse_int("0x10"), Some(16));
    }
}
