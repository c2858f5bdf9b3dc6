//! JavaScript (Node.js) source to facts.
//!
//! The same two passes as the Python analyzer: bindings first (`require`, `import`,
//! destructuring, assignments, default parameters, function declarations), then reporting.
//! JavaScript spells one identifier many ways (`\u0065val`, `ev\u{61}l`) and reaches globals
//! through `globalThis`, `global`, `window` or `self`; all of these resolve to the same name.
//! Unlike Python, JS does not NFKC-normalize identifiers, so neither do we.
//!
//! Function values resolve to a marker, so what is reached through them is known: the
//! `.constructor` of any function is `Function`, as is `x.constructor.constructor` for any `x`.

use std::collections::HashSet;

use tree_sitter::Node;

use super::collect::{
    Bindings, Collector, DeepRegions, FlatTree, IdMap, MAX_EXPR_DEPTH, MAX_FACT_ARGS,
    MAX_FOLDED_LEN, arguments, dedup_capped, is_under, named_children, qualify, text, walk,
};
use super::facts::{DynamicKind, FactKind};
use super::python::{combine_ints, parse_int};
use super::text::{base64_text, decode_js_escapes, hex_text};
use super::{HUGE_ALLOCATION, NestedCode};

/// Names that stand for the global object.
const GLOBAL_OBJECTS: &[&str] = &["globalThis", "global", "window", "self"];

/// What a function value (a function or class literal or declaration) resolves to.
const FUNCTION: &str = "<function>";
/// Marker part: `X.<descriptor>` is what `Object.getOwnPropertyDescriptor(X's owner, key)`
/// returns; its `.value` is `X`.
const DESCRIPTOR: &str = "<descriptor>";
/// Marker part: `O.<descriptors>` is `Object.getOwnPropertyDescriptors(O)`.
const DESCRIPTORS: &str = "<descriptors>";

/// Node's built-in modules. A local declared with one of these names is not the module: the
/// module is only a global in the REPL, where it is never shadowed by a declaration.
const NODE_MODULES: &[&str] = &[
    "assert",
    "async_hooks",
    "buffer",
    "child_process",
    "cluster",
    "constants",
    "dgram",
    "diagnostics_channel",
    "dns",
    "domain",
    "events",
    "fs",
    "http",
    "http2",
    "https",
    "inspector",
    "net",
    "os",
    "path",
    "perf_hooks",
    "punycode",
    "querystring",
    "readline",
    "repl",
    "stream",
    "string_decoder",
    "sys",
    "timers",
    "tls",
    "trace_events",
    "tty",
    "url",
    "util",
    "v8",
    "vm",
    "wasi",
    "worker_threads",
    "zlib",
];

/// Functions that load a module named by their first argument.
const LOADERS: &[&str] = &[
    "require",
    "module.require",
    "module._load",
    "module.Module._load",
];

/// Names that run text as code.
const EVAL_NAMES: &[&str] = &[
    "eval",
    "Function",
    "AsyncFunction",
    "GeneratorFunction",
    "vm.runInThisContext",
    "vm.runInNewContext",
    "vm.runInContext",
    "vm.Script",
    "vm.compileFunction",
    "vm.SourceTextModule",
    "vm.createScript",
];

/// Timers run a string first argument as code.
const STRING_TIMERS: &[&str] = &["setTimeout", "setInterval", "setImmediate"];

/// Properties that reach engine or loader internals.
const INTROSPECTION_PROPERTIES: &[&str] = &[
    "__proto__",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
    "callee",
    "caller",
    "mainModule",
    "prepareStackTrace",
];

/// Of [`INTROSPECTION_PROPERTIES`], those that only mean something on `arguments` or on a
/// function (`node.callee` in an AST walker is harmless).
const CALL_STACK_PROPERTIES: &[&str] = &["callee", "caller"];

const INTROSPECTION_NAMES: &[&str] = &[
    "module._cache",
    "require.cache",
    "module._resolveFilename",
    "module._extensions",
    "v8.setFlagsFromString",
    "process.binding",
    "process._linkedBinding",
];

/// Constructors and functions whose first argument is a size to allocate.
const ALLOCATING: &[&str] = &[
    "Array",
    "ArrayBuffer",
    "SharedArrayBuffer",
    "Buffer.alloc",
    "Buffer.allocUnsafe",
    "Buffer.allocUnsafeSlow",
    "Uint8Array",
    "Int8Array",
    "Uint16Array",
    "Int16Array",
    "Uint32Array",
    "Int32Array",
    "Float32Array",
    "Float64Array",
    "BigInt64Array",
    "BigUint64Array",
];

/// Node kinds that bind names.
const BINDING_KINDS: [&str; 7] = [
    "import_statement",
    "variable_declarator",
    "assignment_expression",
    "assignment_pattern",
    "function_declaration",
    "generator_function_declaration",
    "class_declaration",
];

/// Node kinds of function values.
const FUNCTION_LITERALS: &[&str] = &[
    "function_expression",
    "arrow_function",
    "generator_function",
    "class",
];

pub(super) fn analyze<'t>(
    root: Node<'t>,
    source: &str,
    out: &mut Collector,
    nested: &mut Vec<NestedCode>,
) {
    let tree = FlatTree::of(root);
    let declared = declared_names(&tree, source);
    let mut js = JavaScript {
        source,
        bindings: Bindings::default(),
        memo: IdMap::default(),
        folds: IdMap::default(),
        too_deep: DeepRegions::default(),
        tree,
        declared,
    };
    let binding_nodes = js.tree.of_kinds(&BINDING_KINDS);
    for _ in 0..4 {
        js.memo.clear();
        js.folds.clear();
        if !js.collect_bindings(&binding_nodes) {
            break;
        }
    }
    js.memo.clear();
    js.folds.clear();
    for i in 0..js.tree.nodes.len() {
        let node = js.tree.nodes[i];
        js.report(node, out, nested);
    }
    js.too_deep.report(out);
}

/// Names the snippet declares (variables, parameters, functions, classes, imports, catch
/// parameters) or assigns: wherever they are used, they may be that local.
fn declared_names(tree: &FlatTree, source: &str) -> HashSet<String> {
    let mut declared = HashSet::new();
    for &node in &tree.nodes {
        if !matches!(
            node.kind(),
            "identifier" | "shorthand_property_identifier_pattern"
        ) {
            continue;
        }
        let parent = tree.parent(node);
        let binds = node.kind() == "shorthand_property_identifier_pattern"
            || (!is_reference(node, parent)
                && !parent.is_some_and(|p| {
                    matches!(
                        p.kind(),
                        "labeled_statement"
                            | "break_statement"
                            | "continue_statement"
                            | "export_specifier"
                    )
                }));
        if binds {
            declared.insert(decode_js_escapes(text(node, source)));
        }
    }
    declared
}

/// Module specifiers name the same module with or without the `node:` scheme.
fn normalize_module(specifier: &str) -> String {
    specifier
        .strip_prefix("node:")
        .unwrap_or(specifier)
        .to_owned()
}

/// One spelling per meaning. Through functions: a function's `.constructor` is `Function`,
/// so is `x.constructor.constructor` for any `x`, and `X.prototype.constructor` is `X`;
/// a property descriptor's `.value` is the property. Through the loader: `process.mainModule`,
/// `require.main`, `module.constructor`, `module.prototype`, `module.parent` and
/// `module.children[n]` all lead to the module system, so they are rewritten to `module`.
fn canonical(name: String) -> String {
    let name = if name.contains("constructor") || name.contains('<') {
        through_functions(&name)
    } else {
        name
    };
    through_loader(name)
}

fn through_functions(name: &str) -> String {
    let parts: Vec<&str> = name.split('.').collect();
    let mut out: Vec<&str> = Vec::with_capacity(parts.len());
    let mut i = 0;
    while i < parts.len() {
        let part = parts[i];
        let next = parts.get(i + 1).copied();
        match (out.last().copied(), part) {
            (Some(FUNCTION | "Function"), "constructor") => {
                out.pop();
                out.push("Function");
            }
            (Some("constructor"), "constructor") => {
                out.clear();
                out.push("Function");
            }
            (Some(_), "prototype") if next == Some("constructor") => i += 1,
            (_, DESCRIPTOR) if next == Some("value") => i += 1,
            (_, DESCRIPTORS) if parts.get(i + 2) == Some(&"value") => {
                if let Some(key) = next {
                    out.push(key);
                }
                i += 2;
            }
            _ => out.push(part),
        }
        i += 1;
    }
    out.join(".")
}

fn through_loader(mut name: String) -> String {
    // Each rewrite shortens the name, so this ends.
    'rewrite: loop {
        for (from, to) in [
            ("process.mainModule", "module"),
            ("require.main", "module"),
            ("module.constructor", "module"),
            ("module.Module", "module"),
            ("module.prototype", "module"),
            ("module.parent", "module"),
        ] {
            if is_under(&name, from) {
                name = format!("{to}{}", &name[from.len()..]);
                continue 'rewrite;
            }
        }
        if let Some(rest) = name.strip_prefix("module.children.") {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits > 0 && (rest.len() == digits || rest.as_bytes()[digits] == b'.') {
                name = format!("module{}", &rest[digits..]);
                continue 'rewrite;
            }
        }
        return name;
    }
}

/// The expression inside any parentheses.
fn unparenthesized(mut node: Node) -> Node {
    for _ in 0..MAX_EXPR_DEPTH {
        if node.kind() != "parenthesized_expression" {
            break;
        }
        match named_children(node).last() {
            Some(inner) => node = *inner,
            None => break,
        }
    }
    node
}

struct JavaScript<'s, 't> {
    source: &'s str,
    bindings: Bindings,
    memo: IdMap<Vec<String>>,
    /// Memoized folds. Like `memo`, this also keeps results cut short by the depth limit:
    /// a cutoff is reported as an analysis limit anyway, and recomputing would make deep
    /// chains quadratic.
    folds: IdMap<Option<String>>,
    too_deep: DeepRegions<'t>,
    tree: FlatTree<'t>,
    declared: HashSet<String>,
}

impl<'s, 't> JavaScript<'s, 't> {
    fn text(&self, node: Node) -> &'s str {
        text(node, self.source)
    }

    /// An identifier or property name with its escapes decoded.
    fn name(&self, node: Node) -> String {
        decode_js_escapes(self.text(node))
    }

    // ---- pass 1: bindings -------------------------------------------------------------------

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
                let Some(module) = node
                    .child_by_field_name("source")
                    .and_then(|s| self.fold(s, 0))
                    .map(|s| normalize_module(&s))
                else {
                    return changed;
                };
                for clause in named_children(node)
                    .into_iter()
                    .filter(|c| c.kind() == "import_clause")
                {
                    for part in named_children(clause) {
                        match part.kind() {
                            "identifier" => {
                                changed |= self.bindings.alias(&self.name(part), module.clone())
                            }
                            "namespace_import" => {
                                for id in named_children(part) {
                                    changed |= self.bindings.alias(&self.name(id), module.clone());
                                }
                            }
                            "named_imports" => {
                                for spec in named_children(part) {
                                    let Some(imported) = spec.child_by_field_name("name") else {
                                        continue;
                                    };
                                    let imported_name = self
                                        .fold(imported, 0)
                                        .unwrap_or_else(|| self.name(imported));
                                    let local = spec
                                        .child_by_field_name("alias")
                                        .map_or_else(|| imported_name.clone(), |a| self.name(a));
                                    let meaning = if imported_name == "default" {
                                        module.clone()
                                    } else {
                                        qualify(&module, &imported_name)
                                    };
                                    changed |= self.bindings.alias(&local, meaning);
                                }
                            }
                            _ => {}
                        }
                    }
                }
            }
            "variable_declarator" => {
                if let (Some(name), Some(value)) = (
                    node.child_by_field_name("name"),
                    node.child_by_field_name("value"),
                ) {
                    changed |= self.bind_pattern(name, value);
                }
            }
            "assignment_expression" | "assignment_pattern" => {
                if let (Some(left), Some(right)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                ) {
                    changed |= self.bind_pattern(left, right);
                }
            }
            "function_declaration" | "generator_function_declaration" | "class_declaration" => {
                if let Some(name) = node.child_by_field_name("name") {
                    changed |= self.bindings.alias(&self.name(name), FUNCTION.to_owned());
                }
            }
            _ => {}
        }
        changed
    }

    /// Binds a declaration's pattern to what `value` means, through object destructuring.
    fn bind_pattern(&mut self, pattern: Node<'t>, value: Node<'t>) -> bool {
        let pattern = unparenthesized(pattern);
        match pattern.kind() {
            "identifier" => {
                let name = self.name(pattern);
                let mut changed = false;
                for meaning in self.resolve(value, 0) {
                    changed |= self.bindings.alias(&name, meaning);
                }
                if let Some(constant) = self.fold(value, 0) {
                    changed |= self.bindings.constant(&name, constant);
                }
                if let Some(integer) = self.integer(value, false) {
                    changed |= self.bindings.integer(&name, integer);
                }
                changed
            }
            "object_pattern" => {
                let sources = self.resolve(value, 0);
                self.bind_object_pattern(pattern, &sources, 0)
            }
            _ => false,
        }
    }

    /// `{exec, a: {b: c}} = sources`: each name bound to the property it takes.
    fn bind_object_pattern(&mut self, pattern: Node<'t>, sources: &[String], depth: usize) -> bool {
        if depth > MAX_EXPR_DEPTH || sources.is_empty() {
            return false;
        }
        let mut changed = false;
        for (_, key, target) in self.pattern_entries(pattern) {
            let Some(key) = key else { continue };
            let meanings: Vec<String> = sources
                .iter()
                .map(|s| canonical(qualify(s, &key)))
                .collect();
            match target.kind() {
                "identifier" | "shorthand_property_identifier_pattern" => {
                    let name = self.name(target);
                    for meaning in meanings {
                        changed |= self.bindings.alias(&name, meaning);
                    }
                }
                "object_pattern" => {
                    changed |= self.bind_object_pattern(target, &dedup_capped(meanings), depth + 1);
                }
                _ => {}
            }
        }
        changed
    }

    /// The entries of an object pattern: each entry, the key it takes (`None` when computed and not
    /// constant) and its target, past any default (`{a = 1}`, `{a: b = 1}`).
    fn pattern_entries(&mut self, pattern: Node<'t>) -> Vec<(Node<'t>, Option<String>, Node<'t>)> {
        let mut entries = Vec::new();
        for entry in named_children(pattern) {
            let (key, target) = match entry.kind() {
                "shorthand_property_identifier_pattern" => (Some(self.name(entry)), entry),
                "object_assignment_pattern" => match entry.child_by_field_name("left") {
                    Some(left) => (Some(self.name(left)), left),
                    None => continue,
                },
                "pair_pattern" => {
                    let (Some(key), Some(target)) = (
                        entry.child_by_field_name("key"),
                        entry.child_by_field_name("value"),
                    ) else {
                        continue;
                    };
                    (self.property_key(key), target)
                }
                _ => continue,
            };
            let target = match target.kind() {
                "assignment_pattern" => match target.child_by_field_name("left") {
                    Some(left) => left,
                    None => continue,
                },
                _ => target,
            };
            entries.push((entry, key, target));
        }
        entries
    }

    /// The name a property key stands for: `a`, `'a'`, `['a' + 'b']`.
    fn property_key(&mut self, key: Node<'t>) -> Option<String> {
        match key.kind() {
            "property_identifier" | "shorthand_property_identifier" => Some(self.name(key)),
            "computed_property_name" => named_children(key).first().and_then(|e| self.fold(*e, 0)),
            _ => self.fold(key, 0),
        }
    }

    // ---- resolution -------------------------------------------------------------------------

    fn resolve(&mut self, node: Node<'t>, depth: usize) -> Vec<String> {
        if depth > MAX_EXPR_DEPTH {
            self.too_deep.record(node);
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
            "identifier" | "shorthand_property_identifier" => {
                let name = self.name(node);
                if GLOBAL_OBJECTS.contains(&name.as_str()) {
                    return vec![String::new()];
                }
                let mut names = self.bindings.meanings(&name).unwrap_or_default().to_vec();
                // A declared local named like a module is that local, not the module.
                if !(self.declared.contains(&name) && NODE_MODULES.contains(&name.as_str())) {
                    names.push(name);
                }
                names
            }
            kind if FUNCTION_LITERALS.contains(&kind) => vec![FUNCTION.to_owned()],
            "member_expression" => {
                let (Some(object), Some(property)) = (
                    node.child_by_field_name("object"),
                    node.child_by_field_name("property"),
                ) else {
                    return Vec::new();
                };
                if property.kind() == "private_property_identifier" {
                    return Vec::new();
                }
                let property = self.name(property);
                self.resolve(object, depth)
                    .iter()
                    .map(|o| qualify(o, &property))
                    .collect()
            }
            "subscript_expression" => {
                let (Some(object), Some(index)) = (
                    node.child_by_field_name("object"),
                    node.child_by_field_name("index"),
                ) else {
                    return Vec::new();
                };
                let Some(key) = self.key(index, depth) else {
                    return Vec::new();
                };
                self.resolve(object, depth)
                    .iter()
                    .map(|o| qualify(o, &key))
                    .collect()
            }
            "call_expression" => self.resolve_call(node, depth),
            "parenthesized_expression" | "sequence_expression" | "await_expression" => {
                // `(0, eval)` is eval: a sequence's value is its last expression.
                match named_children(node).last() {
                    Some(last) => self.resolve(*last, depth),
                    None => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    /// A subscript's key: a constant string, or an integer index (`module.children[0]`).
    fn key(&mut self, index: Node<'t>, depth: usize) -> Option<String> {
        self.fold(index, depth)
            .or_else(|| self.integer(index, false).map(|n| n.to_string()))
    }

    /// A call as it is really made: `f.call(this, a)` and `f.apply(this, [a])` are `f(a)`.
    fn effective_call(&mut self, node: Node<'t>, depth: usize) -> (Vec<String>, Vec<Node<'t>>) {
        let Some(function) = node.child_by_field_name("function") else {
            return (Vec::new(), Vec::new());
        };
        let args = arguments(node.child_by_field_name("arguments"));
        if function.kind() == "import" {
            return (vec!["import".to_owned()], args);
        }
        let names = self.resolve(function, depth);
        let mut direct = Vec::new();
        let mut via_call = Vec::new();
        let mut via_apply = Vec::new();
        for name in names {
            if let Some(target) = name.strip_suffix(".call") {
                via_call.push(target.to_owned());
            } else if let Some(target) = name.strip_suffix(".apply") {
                via_apply.push(target.to_owned());
            }
            direct.push(name);
        }
        if !via_call.is_empty() {
            direct.extend(via_call);
            return (direct, args.into_iter().skip(1).collect());
        }
        if !via_apply.is_empty()
            && let Some(list) = args.get(1).filter(|a| a.kind() == "array")
        {
            direct.extend(via_apply);
            return (direct, named_children(*list));
        }
        (direct, args)
    }

    fn resolve_call(&mut self, node: Node<'t>, depth: usize) -> Vec<String> {
        let (functions, args) = self.effective_call(node, depth);
        let first = args.first().copied();
        let mut names = Vec::new();
        for f in functions {
            if f == "import" || LOADERS.contains(&f.as_str()) {
                if let Some(module) = first.and_then(|a| self.fold(a, depth)) {
                    names.push(normalize_module(&module));
                }
            } else if matches!(
                f.as_str(),
                "Reflect.get"
                    | "Object.getOwnPropertyDescriptor"
                    | "Reflect.getOwnPropertyDescriptor"
            ) {
                if let (Some(obj), Some(key)) = (first, args.get(1))
                    && let Some(key) = self.fold(*key, depth)
                {
                    let objects = self.resolve(obj, depth);
                    for object in objects {
                        let property = qualify(&object, &key);
                        names.push(if f == "Reflect.get" {
                            property
                        } else {
                            qualify(&property, DESCRIPTOR)
                        });
                    }
                }
            } else if f == "Object.getOwnPropertyDescriptors" {
                let objects = first.map(|o| self.resolve(o, depth)).unwrap_or_default();
                names.extend(objects.iter().map(|o| qualify(o, DESCRIPTORS)));
            } else if f == "module.createRequire" || f == "createRequire" {
                names.push("require".to_owned());
            } else if f.ends_with(".bind") {
                names.push(f.trim_end_matches(".bind").to_owned());
            }
        }
        names
    }

    // ---- constant folding -------------------------------------------------------------------

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
            "string" => Some(
                named_children(node)
                    .iter()
                    .map(|p| match p.kind() {
                        "escape_sequence" => decode_js_escapes(self.text(*p)),
                        _ => self.text(*p).to_owned(),
                    })
                    .collect(),
            ),
            "template_string" => {
                let mut out = String::new();
                for part in named_children(node) {
                    match part.kind() {
                        "string_fragment" => out.push_str(self.text(part)),
                        "escape_sequence" => out.push_str(&decode_js_escapes(self.text(part))),
                        "template_substitution" => {
                            out.push_str(&self.fold(*named_children(part).last()?, depth)?)
                        }
                        _ => {}
                    }
                }
                Some(out)
            }
            "binary_expression" => {
                let op = node.child_by_field_name("operator").map(|o| self.text(o));
                let left = node.child_by_field_name("left")?;
                let right = node.child_by_field_name("right")?;
                if op != Some("+") {
                    return None;
                }
                let l = self
                    .fold(left, depth)
                    .or_else(|| self.integer(left, false).map(|n| n.to_string()))?;
                let r = self
                    .fold(right, depth)
                    .or_else(|| self.integer(right, false).map(|n| n.to_string()))?;
                Some(l + &r)
            }
            "parenthesized_expression" => self.fold(*named_children(node).last()?, depth),
            "identifier" => self
                .bindings
                .constant_value(&self.name(node))
                .map(str::to_owned),
            "call_expression" => self.fold_call(node, depth),
            _ => None,
        }
    }

    fn fold_call(&mut self, node: Node<'t>, depth: usize) -> Option<String> {
        let function = node.child_by_field_name("function")?;
        let args = arguments(node.child_by_field_name("arguments"));
        if function.kind() == "member_expression" {
            let object = function.child_by_field_name("object")?;
            let method = self.name(function.child_by_field_name("property")?);
            // The whitespace `String.prototype.trim` removes: Unicode spaces and the BOM.
            let space = |c: char| c.is_whitespace() || c == '\u{feff}';
            match method.as_str() {
                "join" => {
                    let parts = self.fold_list(object, depth)?;
                    let separator = match args.first() {
                        Some(a) => self.fold(*a, depth)?,
                        None => ",".to_owned(),
                    };
                    return Some(parts.join(&separator));
                }
                "toLowerCase" => return self.fold(object, depth).map(|s| s.to_lowercase()),
                "toUpperCase" => return self.fold(object, depth).map(|s| s.to_uppercase()),
                "trim" => {
                    return self
                        .fold(object, depth)
                        .map(|s| s.trim_matches(space).to_owned());
                }
                "trimStart" | "trimLeft" => {
                    return self
                        .fold(object, depth)
                        .map(|s| s.trim_start_matches(space).to_owned());
                }
                "trimEnd" | "trimRight" => {
                    return self
                        .fold(object, depth)
                        .map(|s| s.trim_end_matches(space).to_owned());
                }
                "valueOf" => return self.fold(object, depth),
                "concat" => {
                    let mut out = self.fold(object, depth)?;
                    for a in args {
                        out.push_str(&self.fold(a, depth)?);
                    }
                    return Some(out);
                }
                "toString" => return self.fold_buffer(object, args.first().copied(), depth),
                _ => {}
            }
        }
        let first = *args.first()?;
        for name in self.resolve(function, depth) {
            let value = match name.as_str() {
                "atob" => self.fold(first, depth).and_then(|s| base64_text(&s)),
                "String" => self.fold(first, depth),
                "String.fromCharCode" | "String.fromCodePoint" => args
                    .iter()
                    .map(|a| {
                        self.integer(*a, false)
                            .and_then(|n| u32::try_from(n).ok())
                            .and_then(char::from_u32)
                    })
                    .collect(),
                "decodeURIComponent" | "unescape" => {
                    self.fold(first, depth).filter(|s| !s.contains('%'))
                }
                _ => None,
            };
            if value.is_some() {
                return value;
            }
        }
        None
    }

    /// `Buffer.from(s, 'base64').toString()` and friends.
    fn fold_buffer(
        &mut self,
        buffer: Node<'t>,
        encoding: Option<Node<'t>>,
        depth: usize,
    ) -> Option<String> {
        if encoding
            .is_some_and(|e| !matches!(self.fold(e, depth).as_deref(), Some("utf8" | "utf-8")))
        {
            return None;
        }
        if buffer.kind() != "call_expression" {
            return self.fold(buffer, depth);
        }
        let function = buffer.child_by_field_name("function")?;
        if !self
            .resolve(function, depth)
            .iter()
            .any(|f| f == "Buffer.from")
        {
            return None;
        }
        let args = arguments(buffer.child_by_field_name("arguments"));
        let data = self.fold(*args.first()?, depth)?;
        match args.get(1).map(|e| self.fold(*e, depth)) {
            None => Some(data),
            Some(Some(enc)) if enc == "base64" || enc == "base64url" => base64_text(&data),
            Some(Some(enc)) if enc == "hex" => hex_text(&data),
            Some(Some(enc)) if enc == "utf8" || enc == "utf-8" => Some(data),
            _ => None,
        }
    }

    /// An array of constant strings: `['ev', 'al']`, `'lave'.split('')`, `x.reverse()`.
    fn fold_list(&mut self, node: Node<'t>, depth: usize) -> Option<Vec<String>> {
        match node.kind() {
            "array" => named_children(node)
                .into_iter()
                .map(|item| self.fold(item, depth + 1))
                .collect(),
            "call_expression" => {
                let function = node.child_by_field_name("function")?;
                if function.kind() != "member_expression" {
                    return None;
                }
                let object = function.child_by_field_name("object")?;
                let method = self.name(function.child_by_field_name("property")?);
                let args = arguments(node.child_by_field_name("arguments"));
                match method.as_str() {
                    "reverse" => {
                        let mut items = self.fold_list(object, depth + 1)?;
                        items.reverse();
                        Some(items)
                    }
                    "split" => {
                        let s = self.fold(object, depth + 1)?;
                        let sep = self.fold(*args.first()?, depth + 1)?;
                        Some(if sep.is_empty() {
                            s.chars().map(String::from).collect()
                        } else {
                            s.split(sep.as_str()).map(str::to_owned).collect()
                        })
                    }
                    _ => None,
                }
            }
            "parenthesized_expression" => self.fold_list(*named_children(node).last()?, depth + 1),
            _ => None,
        }
    }

    /// A numeric constant, through names bound to integers. `largest` takes the largest value
    /// of a name bound to several (for sizes); otherwise such a name is unknown.
    fn integer(&self, node: Node, largest: bool) -> Option<i128> {
        fold_int_at(node, self.source, Some((&self.bindings, largest)), 0)
    }
}

impl<'s, 't> JavaScript<'s, 't> {
    // ---- pass 2: reporting ------------------------------------------------------------------

    fn report(&mut self, node: Node<'t>, out: &mut Collector, nested: &mut Vec<NestedCode>) {
        match node.kind() {
            "import_statement" | "export_statement" => {
                let Some(source) = node.child_by_field_name("source") else {
                    return;
                };
                match self.fold(source, 0) {
                    Some(module) => {
                        let module = normalize_module(&module);
                        out.push(
                            node,
                            FactKind::Import {
                                module: module.clone(),
                            },
                        );
                        self.report_named_imports(node, &module, out);
                    }
                    None => out.dynamic(
                        node,
                        DynamicKind::DynamicImport,
                        "import from a computed specifier",
                    ),
                }
            }
            "variable_declarator" | "assignment_expression" => self.report_destructuring(node, out),
            "identifier" | "shorthand_property_identifier"
                if is_reference(node, self.tree.parent(node)) && self.is_maximal(node) =>
            {
                for meaning in self.resolve(node, 0) {
                    self.report_use(node, meaning, false, Vec::new(), out);
                }
            }
            "member_expression" => {
                let object = node.child_by_field_name("object");
                if let Some(property) = node.child_by_field_name("property") {
                    let property = self.name(property);
                    if let Some(object) = object {
                        self.report_property(node, object, &property, out);
                    }
                }
                if self.is_maximal(node) {
                    for meaning in self.resolve(node, 0) {
                        self.report_use(node, meaning, false, Vec::new(), out);
                    }
                }
            }
            "subscript_expression" => self.report_subscript(node, out),
            "call_expression" | "new_expression" => {
                self.report_call(node, out, nested);
                if node.kind() == "call_expression" {
                    self.report_literal(node, out);
                }
            }
            "string" | "template_string" | "binary_expression" => self.report_literal(node, out),
            _ => {}
        }
    }

    /// A string constant, for rules on strings; one naming an engine internal is
    /// introspection in itself (`obj['__pro' + 'to__']`).
    fn report_literal(&mut self, node: Node<'t>, out: &mut Collector) {
        if let Some(value) = self.fold(node, 0) {
            if INTROSPECTION_PROPERTIES.contains(&value.as_str())
                && !CALL_STACK_PROPERTIES.contains(&value.as_str())
            {
                out.dynamic(
                    node,
                    DynamicKind::Introspection,
                    format!("string names `{value}`"),
                );
            }
            out.push(node, FactKind::Literal { value });
        }
    }

    /// What reaching `object.property` (or `object['property']`) reveals in itself.
    fn report_property(
        &mut self,
        node: Node<'t>,
        object: Node<'t>,
        property: &str,
        out: &mut Collector,
    ) {
        let reaches_internals = if CALL_STACK_PROPERTIES.contains(&property) {
            self.is_call_stack_holder(object)
        } else {
            INTROSPECTION_PROPERTIES.contains(&property)
        };
        if reaches_internals {
            out.dynamic(
                node,
                DynamicKind::Introspection,
                format!("`.{property}` reached"),
            );
        }
        if property != "constructor" {
            return;
        }
        let object = unparenthesized(object);
        if self.is_constructor_access(object) {
            out.dynamic(
                node,
                DynamicKind::Introspection,
                "`.constructor.constructor` reaches `Function`",
            );
            out.dynamic(
                node,
                DynamicKind::CodeEval,
                "`.constructor.constructor` is `Function`",
            );
        } else if matches!(
            object.kind(),
            "member_expression" | "subscript_expression" | "call_expression"
        ) && self.is_handed_on(node)
        {
            // `const F = [].map.constructor`: the constructor of what may be a function, kept
            // to be called later. Compared (`x.constructor === Y`) or read further
            // (`.name`), it is left alone.
            out.dynamic(
                node,
                DynamicKind::CodeEval,
                "the `.constructor` of a function value is `Function`",
            );
        }
    }

    /// True when an expression's value is stored, passed or returned as it is.
    fn is_handed_on(&self, node: Node<'t>) -> bool {
        let mut node = node;
        let mut parent = self.tree.parent(node);
        while let Some(p) = parent.filter(|p| p.kind() == "parenthesized_expression") {
            node = p;
            parent = self.tree.parent(p);
        }
        let Some(parent) = parent else {
            return false;
        };
        match parent.kind() {
            "variable_declarator" => parent.child_by_field_name("value") == Some(node),
            "assignment_expression" | "assignment_pattern" => {
                parent.child_by_field_name("right") == Some(node)
            }
            "arguments"
            | "array"
            | "return_statement"
            | "spread_element"
            | "pair"
            | "ternary_expression"
            | "sequence_expression" => true,
            _ => false,
        }
    }

    /// True for `arguments`, a function, or an existing `.callee`/`.caller`: the objects whose
    /// `.callee`/`.caller` reach other frames' functions.
    fn is_call_stack_holder(&mut self, object: Node<'t>) -> bool {
        let object = unparenthesized(object);
        if object.kind() == "identifier" && self.name(object) == "arguments" {
            return true;
        }
        if FUNCTION_LITERALS.contains(&object.kind()) {
            return true;
        }
        if object.kind() == "member_expression"
            && object
                .child_by_field_name("property")
                .is_some_and(|p| CALL_STACK_PROPERTIES.contains(&self.name(p).as_str()))
        {
            return true;
        }
        self.resolve(object, 0)
            .iter()
            .any(|n| n == FUNCTION || n == "Function" || n == "arguments")
    }

    /// `x.constructor` or `x['constructor']` — the first half of `.constructor.constructor`.
    fn is_constructor_access(&mut self, node: Node<'t>) -> bool {
        match node.kind() {
            "member_expression" => node
                .child_by_field_name("property")
                .is_some_and(|p| self.name(p) == "constructor"),
            "subscript_expression" => node
                .child_by_field_name("index")
                .and_then(|i| self.fold(i, 0))
                .is_some_and(|k| k == "constructor"),
            _ => false,
        }
    }

    fn report_named_imports(&mut self, node: Node<'t>, module: &str, out: &mut Collector) {
        let mut specs = Vec::new();
        walk(node, |n| {
            if n.kind() == "import_specifier" || n.kind() == "export_specifier" {
                specs.push(n);
            }
        });
        for spec in specs {
            if let Some(name) = spec.child_by_field_name("name") {
                let imported = self.fold(name, 0).unwrap_or_else(|| self.name(name));
                if imported != "default" {
                    self.report_use(
                        spec,
                        canonical(qualify(module, &imported)),
                        false,
                        Vec::new(),
                        out,
                    );
                }
            }
        }
    }

    /// `const {exec} = require('child_process')` uses `child_process.exec` right there.
    fn report_destructuring(&mut self, node: Node<'t>, out: &mut Collector) {
        let (pattern, value) = match node.kind() {
            "variable_declarator" => (
                node.child_by_field_name("name"),
                node.child_by_field_name("value"),
            ),
            _ => (
                node.child_by_field_name("left"),
                node.child_by_field_name("right"),
            ),
        };
        let (Some(pattern), Some(value)) = (pattern, value) else {
            return;
        };
        let pattern = unparenthesized(pattern);
        if pattern.kind() != "object_pattern" {
            return;
        }
        let sources = self.resolve(value, 0);
        let value_is_function = FUNCTION_LITERALS.contains(&unparenthesized(value).kind())
            || unparenthesized(value).kind() == "identifier"
                && self.name(unparenthesized(value)) == "arguments";
        self.report_object_pattern(pattern, &sources, value_is_function, out, 0);
    }

    fn report_object_pattern(
        &mut self,
        pattern: Node<'t>,
        sources: &[String],
        holds_call_stack: bool,
        out: &mut Collector,
        depth: usize,
    ) {
        if depth > MAX_EXPR_DEPTH {
            self.too_deep.record(pattern);
            return;
        }
        let holds_call_stack = holds_call_stack
            || sources
                .iter()
                .any(|s| s == FUNCTION || s == "Function" || s == "arguments");
        for (entry, key, target) in self.pattern_entries(pattern) {
            match key {
                Some(key) => {
                    let internal = if CALL_STACK_PROPERTIES.contains(&key.as_str()) {
                        holds_call_stack
                    } else {
                        INTROSPECTION_PROPERTIES.contains(&key.as_str())
                    };
                    if internal {
                        out.dynamic(
                            entry,
                            DynamicKind::Introspection,
                            format!("`{key}` destructured"),
                        );
                    }
                    let meanings: Vec<String> = sources
                        .iter()
                        .map(|s| canonical(qualify(s, &key)))
                        .collect();
                    for meaning in &meanings {
                        self.report_use(entry, meaning.clone(), false, Vec::new(), out);
                    }
                    if target.kind() == "object_pattern" {
                        let meanings = dedup_capped(meanings);
                        self.report_object_pattern(target, &meanings, false, out, depth + 1);
                    }
                }
                None if entry.kind() == "pair_pattern"
                    && sources.iter().any(|s| is_namespace(s)) =>
                {
                    out.dynamic(
                        entry,
                        DynamicKind::DynamicAttribute,
                        "destructured by a computed key",
                    )
                }
                None => {}
            }
        }
    }

    fn is_maximal(&mut self, node: Node<'t>) -> bool {
        let Some(parent) = self.tree.parent(node) else {
            return true;
        };
        let continues = match parent.kind() {
            "member_expression" | "subscript_expression" => {
                parent.child_by_field_name("object") == Some(node)
            }
            "call_expression" => return parent.child_by_field_name("function") != Some(node),
            "new_expression" => return parent.child_by_field_name("constructor") != Some(node),
            _ => false,
        };
        !continues || self.resolve(parent, 0).is_empty()
    }

    fn report_use(
        &mut self,
        node: Node,
        name: String,
        called: bool,
        args: Vec<String>,
        out: &mut Collector,
    ) {
        if EVAL_NAMES.contains(&name.as_str()) || is_under(&name, "vm") && name != "vm" {
            out.dynamic(
                node,
                DynamicKind::CodeEval,
                format!("`{name}` runs text as code"),
            );
        }
        if INTROSPECTION_NAMES.iter().any(|n| is_under(&name, n)) || reaches_call_stack(&name) {
            out.dynamic(
                node,
                DynamicKind::Introspection,
                format!("`{name}` reaches engine internals"),
            );
        }
        if !called && LOADERS.contains(&name.as_str()) && name != "require" {
            out.dynamic(
                node,
                DynamicKind::DynamicImport,
                format!("`{name}` used as a value"),
            );
        }
        out.push(node, FactKind::Use { name, called, args });
    }

    fn report_subscript(&mut self, node: Node<'t>, out: &mut Collector) {
        let (Some(object), Some(index)) = (
            node.child_by_field_name("object"),
            node.child_by_field_name("index"),
        ) else {
            return;
        };
        match self.key(index, 0) {
            Some(key) => self.report_property(node, object, &key, out),
            None => {
                // `self[k]` where `self` is a local (`const self = this`) is not the global.
                let bare = unparenthesized(object);
                let local_global_name = bare.kind() == "identifier"
                    && GLOBAL_OBJECTS.contains(&self.name(bare).as_str())
                    && self.declared.contains(&self.name(bare));
                let namespace = self
                    .resolve(object, 0)
                    .into_iter()
                    .filter(|o| !(o.is_empty() && local_global_name))
                    .find(|o| is_namespace(o));
                if let Some(namespace) = namespace {
                    let shown = if namespace.is_empty() {
                        "globalThis"
                    } else {
                        &namespace
                    };
                    out.dynamic(
                        node,
                        DynamicKind::DynamicAttribute,
                        format!("`{shown}[...]` looked up by a computed name"),
                    );
                }
            }
        }
        if self.is_maximal(node) {
            for meaning in self.resolve(node, 0) {
                self.report_use(node, meaning, false, Vec::new(), out);
            }
        }
    }

    /// The constant arguments a call's fact carries: strings as they are, integers in
    /// decimal. The content argument of `write*`/`append*` is data, not a path, and is left out.
    fn fact_args(&mut self, name: &str, args: &[Node<'t>]) -> Vec<String> {
        let method = name.rsplit(['.', '/']).next().unwrap_or(name);
        let writes = method.starts_with("write") || method.starts_with("append");
        args.iter()
            .take(MAX_FACT_ARGS)
            .enumerate()
            .filter(|(i, _)| !(writes && *i == 1))
            .filter_map(|(_, a)| self.key(*a, 0))
            .collect()
    }

    fn report_call(&mut self, node: Node<'t>, out: &mut Collector, nested: &mut Vec<NestedCode>) {
        let callee = if node.kind() == "new_expression" {
            node.child_by_field_name("constructor")
        } else {
            node.child_by_field_name("function")
        };
        let (functions, args) = if node.kind() == "new_expression" {
            let functions = callee.map(|c| self.resolve(c, 0)).unwrap_or_default();
            (functions, arguments(node.child_by_field_name("arguments")))
        } else {
            self.effective_call(node, 0)
        };
        if let Some(callee) = callee {
            self.report_constructor_call(node, callee, out);
        }
        let first = args.first().copied();
        let first_arg = first.and_then(|a| self.fold(a, 0));
        for name in functions {
            if name == "import" || LOADERS.contains(&name.as_str()) {
                match &first_arg {
                    Some(module) => out.push(
                        node,
                        FactKind::Import {
                            module: normalize_module(module),
                        },
                    ),
                    None => out.dynamic(
                        node,
                        DynamicKind::DynamicImport,
                        format!("`{name}` with a module name computed at run time"),
                    ),
                }
                if name == "import" {
                    continue;
                }
            }
            if matches!(
                name.as_str(),
                "Reflect.get"
                    | "Reflect.getOwnPropertyDescriptor"
                    | "Object.getOwnPropertyDescriptor"
            ) && args.get(1).and_then(|a| self.fold(*a, 0)).is_none()
            {
                let on_namespace = first.is_some_and(|o| {
                    name == "Reflect.get" || self.resolve(o, 0).iter().any(|n| is_namespace(n))
                });
                if on_namespace {
                    out.dynamic(
                        node,
                        DynamicKind::DynamicAttribute,
                        format!("`{name}` with a computed key"),
                    );
                }
            }
            if STRING_TIMERS.contains(&name.as_str())
                && first.is_some_and(|a| self.fold(a, 0).is_some())
            {
                out.dynamic(
                    node,
                    DynamicKind::CodeEval,
                    format!("`{name}` with a string runs it as code"),
                );
            }
            if EVAL_NAMES.contains(&name.as_str()) || is_under(&name, "vm") {
                // `Function(a, b, body)`: the body is the last argument.
                let code_arg = if name.ends_with("Function") {
                    args.last()
                } else {
                    first.as_ref()
                };
                if let Some(code) = code_arg.and_then(|a| self.fold(*a, 0)) {
                    nested.push(NestedCode {
                        code,
                        span: out.span(node),
                    });
                }
            }
            if name == "worker_threads.Worker" {
                self.report_worker(node, &args, out, nested);
            }
            if ALLOCATING.contains(&name.as_str())
                && let Some(size) = first.and_then(|a| self.integer(a, true))
                && size >= HUGE_ALLOCATION
            {
                out.dynamic(
                    node,
                    DynamicKind::HugeAllocation,
                    format!("`{name}` of {size} elements"),
                );
            }
            let fact_args = self.fact_args(&name, &args);
            self.report_use(node, name, true, fact_args, out);
        }
        self.report_repeat(node, first, out);
        if node.kind() == "call_expression" && self.is_maximal(node) {
            for meaning in self.resolve(node, 0) {
                self.report_use(node, meaning, false, Vec::new(), out);
            }
        }
    }

    /// `(() => {}).constructor('code')`, `[].map.constructor('code')`: calling the
    /// `.constructor` of a function value (a function literal, or a member or call result,
    /// which may be one) with arguments calls `Function`. A plain name's (`obj`, `this`) is
    /// left alone: it is usually an instance, whose constructor is its class.
    fn report_constructor_call(&mut self, node: Node<'t>, callee: Node<'t>, out: &mut Collector) {
        let callee = unparenthesized(callee);
        // `Function()` with no arguments makes an empty function; the clone idiom
        // `new this.value.constructor()` is that shape.
        let has_arguments = !arguments(node.child_by_field_name("arguments")).is_empty();
        if !has_arguments || !self.is_constructor_access(callee) {
            return;
        }
        let Some(object) = callee.child_by_field_name("object") else {
            return;
        };
        let object = unparenthesized(object);
        let function_like = FUNCTION_LITERALS.contains(&object.kind())
            || matches!(
                object.kind(),
                "member_expression" | "subscript_expression" | "call_expression"
            );
        if function_like {
            out.dynamic(
                node,
                DynamicKind::CodeEval,
                "calling a function's `.constructor` calls `Function`",
            );
        }
    }

    /// `new Worker(code, { eval: true })` runs `code`; `new Worker(path)` runs a script, which
    /// must be named by a constant.
    fn report_worker(
        &mut self,
        node: Node<'t>,
        args: &[Node<'t>],
        out: &mut Collector,
        nested: &mut Vec<NestedCode>,
    ) {
        let first = args.first().and_then(|a| self.fold(*a, 0));
        let evaluates = match args.get(1).map(|o| unparenthesized(*o)) {
            None => false,
            Some(options) if options.kind() == "object" => {
                let mut evaluates = false;
                for entry in named_children(options) {
                    match entry.kind() {
                        "pair" => {
                            let key = entry
                                .child_by_field_name("key")
                                .and_then(|k| self.property_key(k));
                            let value = entry.child_by_field_name("value").map(|v| self.text(v));
                            if key.as_deref() == Some("eval") && value != Some("false") {
                                evaluates = true;
                            }
                        }
                        "shorthand_property_identifier" => {
                            evaluates |= self.name(entry) == "eval";
                        }
                        "spread_element" => evaluates = true,
                        _ => {}
                    }
                }
                evaluates
            }
            Some(_) => true, // options computed at run time may say `eval: true`
        };
        let data_url = first
            .as_deref()
            .is_some_and(|s| s.trim_start().to_ascii_lowercase().starts_with("data:"));
        if evaluates || data_url {
            out.dynamic(
                node,
                DynamicKind::CodeEval,
                "`Worker` runs its first argument as code",
            );
            if let Some(code) = first.filter(|_| evaluates) {
                nested.push(NestedCode {
                    code,
                    span: out.span(node),
                });
            }
        } else if first.is_none() {
            out.dynamic(
                node,
                DynamicKind::DynamicImport,
                "`Worker` runs a script named at run time",
            );
        }
    }

    /// `'x'.repeat(1e10)`, `s.padEnd(2**40)`.
    fn report_repeat(&mut self, node: Node<'t>, first: Option<Node<'t>>, out: &mut Collector) {
        let Some(function) = node.child_by_field_name("function") else {
            return;
        };
        if function.kind() != "member_expression" {
            return;
        }
        let Some(method) = function
            .child_by_field_name("property")
            .map(|p| self.name(p))
        else {
            return;
        };
        if matches!(method.as_str(), "repeat" | "padStart" | "padEnd")
            && let Some(n) = first.and_then(|a| self.integer(a, true))
            && n >= HUGE_ALLOCATION
        {
            out.dynamic(
                node,
                DynamicKind::HugeAllocation,
                format!("`.{method}({n})`"),
            );
        }
    }
}

/// `arguments.callee`, `<function>.caller`, however they were reached (`Reflect.get`).
fn reaches_call_stack(name: &str) -> bool {
    name.rsplit_once('.').is_some_and(|(owner, last)| {
        CALL_STACK_PROPERTIES.contains(&last)
            && (matches!(owner, "arguments" | FUNCTION | "Function")
                || CALL_STACK_PROPERTIES
                    .iter()
                    .any(|p| owner.ends_with(&format!(".{p}"))))
    })
}

/// The objects whose members, looked up by a computed name, could be anything dangerous:
/// the global object, the loader, `process`, `Reflect`, and Node's modules.
fn is_namespace(name: &str) -> bool {
    name.is_empty()
        || matches!(name, "process" | "module" | "require" | "Reflect")
        || NODE_MODULES.contains(&name)
}

/// False for identifiers that name something being declared rather than used.
fn is_reference(node: Node, parent: Option<Node>) -> bool {
    let Some(parent) = parent else {
        return true;
    };
    let is_field = |field: &str| parent.child_by_field_name(field) == Some(node);
    match parent.kind() {
        "variable_declarator"
        | "function_declaration"
        | "function_expression"
        | "class_declaration"
        | "generator_function_declaration"
        | "method_definition"
        | "class" => !is_field("name"),
        "assignment_expression" | "assignment_pattern" => !is_field("left"),
        "pair_pattern" => !is_field("value"),
        "catch_clause" => !is_field("parameter"),
        "formal_parameters" | "import_specifier" | "import_clause" | "namespace_import"
        | "labeled_statement" | "break_statement" | "continue_statement" | "export_specifier"
        | "rest_pattern" | "array_pattern" => false,
        "arrow_function" => !is_field("parameter"),
        _ => true,
    }
}

/// A numeric constant: decimal, hex, octal, binary, exponent and BigInt literals, and names
/// bound to integers, combined with `+ - * ** <<`, saturating on overflow.
fn fold_int_at(
    node: Node,
    source: &str,
    names: Option<(&Bindings, bool)>,
    depth: usize,
) -> Option<i128> {
    if depth > 32 {
        return None;
    }
    let depth = depth + 1;
    match node.kind() {
        "number" => {
            let raw = text(node, source).replace('_', "");
            let raw = raw.trim_end_matches('n');
            parse_int(raw).or_else(|| {
                let v: f64 = raw.parse().ok()?;
                (v.is_finite() && v.fract() == 0.0).then(|| v.min(i128::MAX as f64) as i128)
            })
        }
        "identifier" => {
            let (bindings, largest) = names?;
            bindings.integer_value(&decode_js_escapes(text(node, source)), largest)
        }
        "parenthesized_expression" => {
            fold_int_at(*named_children(node).last()?, source, names, depth)
        }
        "unary_expression" => {
            let value = fold_int_at(node.child_by_field_name("argument")?, source, names, depth)?;
            match text(node.child_by_field_name("operator")?, source) {
                "-" => Some(value.saturating_neg()),
                "+" => Some(value),
                _ => None,
            }
        }
        "binary_expression" => {
            let l = fold_int_at(node.child_by_field_name("left")?, source, names, depth)?;
            let r = fold_int_at(node.child_by_field_name("right")?, source, names, depth)?;
            combine_ints(text(node.child_by_field_name("operator")?, source), l, r)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Language, analyze};
    use super::*;

    fn facts(code: &str) -> Vec<FactKind> {
        analyze(Language::JavaScript, code.as_bytes())
            .facts
            .into_iter()
            .map(|f| f.kind)
            .collect()
    }

    fn uses(code: &str) -> Vec<String> {
        facts(code)
            .into_iter()
            .filter_map(|f| match f {
                FactKind::Use { name, .. } => Some(name),
                _ => None,
            })
            .collect()
    }

    fn dynamic(code: &str) -> Vec<DynamicKind> {
        facts(code)
            .into_iter()
            .filter_map(|f| match f {
                FactKind::Dynamic { kind, .. } => Some(kind),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn loaders_and_destructuring_resolve() {
        for code in [
            "require('child_process').exec('id')",
            "require('node:child_process').execSync('id')",
            "const cp = require('child_process'); cp.spawn('sh')",
            "const {exec} = require('child_process'); exec('id')",
            "const {exec: run} = require('child_process'); run('id')",
            "import {exec} from 'child_process'; exec('id')",
            "import * as cp from 'node:child_process'; cp.exec('id')",
            "import cp from 'child_process'; cp.exec('id')",
            "const m = await import('child_process'); m.exec('id')",
            "(await import('child_process')).exec('id')",
            "process.mainModule.require('child_process').exec('id')",
            "module.constructor._load('child_process').exec('id')",
            "require('chi' + 'ld_process').exec('id')",
            "require(['child', 'process'].join('_')).exec('id')",
            "require.call(null, 'child_process').exec('id')",
            "const r = require; r('child_process').exec('x')",
            "require(`child_${'process'}`).exec('id')",
            "require(Buffer.from('Y2hpbGRfcHJvY2Vzcw==', 'base64').toString()).exec('id')",
            "require('ssecorp_dlihc'.split('').reverse().join('')).exec('id')",
            "require(' child_process '.trim()).exec('id')",
            "require('child_process\\n'.trimEnd()).exec('id')",
            "require('module').prototype.require('child_process').exec('id')",
            "module.children[0].require('child_process').exec('id')",
            "module.parent.require('child_process').exec('id')",
        ] {
            assert!(
                uses(code).iter().any(|u| is_under(u, "child_process")),
                "{code}: {:?}",
                uses(code)
            );
        }
    }

    #[test]
    fn escaped_and_global_evals_resolve() {
        for code in [
            "\\u0065val('1')",
            "ev\\u{61}l('1')",
            "globalThis['ev' + 'al']('1')",
            "global.eval('1')",
            "(0, eval)('1')",
            "Reflect.get(globalThis, 'eval')('1')",
            "new Function('return process')()",
            "(() => {}).constructor.constructor('return process')()",
            "setTimeout('process.exit()', 1)",
            "require('vm').runInThisContext('1')",
            "(() => {}).constructor('return process')()",
            "[].map.constructor('return process')()",
            "Function.prototype.constructor('return process')()",
            "const AF = (async () => {}).constructor; new AF('return 1')",
            "''.constructor['constructor']('return 1')()",
            "''['constructor']['constructor']('return 1')()",
            "Object.getOwnPropertyDescriptor(globalThis, 'eval').value('1')",
            "Object.getOwnPropertyDescriptors(globalThis).eval.value('1')",
            "const { constructor: { constructor: F2 } } = () => {}; F2('1')",
            "function f() {}\nf.constructor('return 1')()",
            "const { Worker } = require('worker_threads'); new Worker('1', { eval: true })",
        ] {
            assert!(
                dynamic(code).contains(&DynamicKind::CodeEval),
                "{code}: {:?}",
                facts(code)
            );
        }
    }

    #[test]
    fn benign_lookalikes_stay_quiet() {
        for code in [
            "console.log('child_process.exec')",
            "// eval('x')\nlet a = 1",
            "/a/.exec(s)",
            "JSON.parse('{}')",
            "model.eval()",
            "db.exec('select 1')",
            "setTimeout(() => 1, 10)",
            "const arr = [1,2]; arr[i]",
            "const vm = this; vm.message = 'x'",
            "function walk(node) { return node.callee; }",
            "const kind = { type: 'caller' }",
            "const self = this; self[key] = 1",
            "const obj = {}; const { [k]: v } = obj",
            "const ctorName = [].constructor.name",
            "const fnName = (() => {}).constructor.name",
            "new Worker('./worker.js')",
        ] {
            assert!(dynamic(code).is_empty(), "{code}: {:?}", facts(code));
        }
    }

    #[test]
    fn computed_names_are_reported() {
        assert!(dynamic("require(name)").contains(&DynamicKind::DynamicImport));
        assert!(dynamic("import(spec)").contains(&DynamicKind::DynamicImport));
        assert!(dynamic("globalThis[k]()").contains(&DynamicKind::DynamicAttribute));
        assert!(dynamic("'x'.repeat(1e10)").contains(&DynamicKind::HugeAllocation));
        assert!(dynamic("new Array(2**31)").contains(&DynamicKind::HugeAllocation));
        assert!(dynamic("({}).__proto__.polluted = 1").contains(&DynamicKind::Introspection));
        assert!(dynamic("const { mainModule } = process").contains(&DynamicKind::Introspection));
        assert!(dynamic("const { __proto__: p } = o").contains(&DynamicKind::Introspection));
        assert!(
            dynamic("function f() { return arguments.callee; }")
                .contains(&DynamicKind::Introspection)
        );
        assert!(
            dynamic("const { Worker } = require('worker_threads'); new Worker(path)")
                .contains(&DynamicKind::DynamicImport)
        );
        assert!(dynamic("const n = 1e10; 'x'.repeat(n)").contains(&DynamicKind::HugeAllocation));
    }

    #[test]
    fn canonical_names() {
        assert_eq!(canonical("<function>.constructor".into()), "Function");
        assert_eq!(
            canonical("a.b.constructor.constructor.x".into()),
            "Function.x"
        );
        assert_eq!(canonical("Object.prototype.constructor".into()), "Object");
        assert_eq!(canonical("eval.<descriptor>.value".into()), "eval");
        assert_eq!(canonical("<descriptors>.eval.value".into()), "eval");
        assert_eq!(
            canonical("module.children.12.require".into()),
            "module.require"
        );
        assert_eq!(
            canonical("module.childrenX.require".into()),
            "module.childrenX.require"
        );
        assert_eq!(
            canonical("require.main.parent.require".into()),
            "module.require"
        );
    }
}
