//! Name resolution: the qualified names an expression may stand for.

use tree_sitter::Node;

use super::names::{
    ATTRGETTER, ELEMENT, GLOBALS, IMPORT_FUNCTIONS, METHODCALLER, REEXPORTED_MODULES,
};
use super::{CallArgs, Python, canonical, namespace_of_method, normalize, unparenthesized};
use crate::analysis::collect::{
    MAX_CANDIDATES, MAX_EXPR_DEPTH, dedup_capped, named_children, qualify,
};

impl<'s, 't> Python<'s, 't> {
    /// The qualified names an expression may stand for (empty when unknown).
    pub(super) fn resolve(&mut self, node: Node<'t>, depth: usize) -> Vec<String> {
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
    pub(super) fn expand(&self, names: Vec<String>) -> Vec<String> {
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

    /// Byte offsets in `name` where a module reached as an attribute of a module starts,
    /// past any leading underscores of a private alias (`tempfile._os`).
    pub(super) fn reexports(&self, name: &str) -> Vec<usize> {
        let mut offsets = Vec::new();
        let Some(root) = name.split('.').next() else {
            return offsets;
        };
        if !self.scopes.is_module(root) {
            return offsets;
        }
        let mut at = root.len() + 1;
        for part in name.split('.').skip(1) {
            // `tempfile._os` is `os` under a private name.
            let public = part.trim_start_matches('_');
            if REEXPORTED_MODULES.contains(&part) {
                offsets.push(at);
            } else if public.len() < part.len() && REEXPORTED_MODULES.contains(&public) {
                offsets.push(at + part.len() - public.len());
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
                let values = self.resolve(value, depth);
                // An element of a container bound to a name, whatever the key.
                let mut names: Vec<String> = values
                    .iter()
                    .filter_map(|v| v.strip_suffix(ELEMENT).map(str::to_owned))
                    .collect();
                if let Some(key) = self.fold(key, depth) {
                    names.extend(
                        values
                            .iter()
                            .flat_map(|v| self.lookup_in_namespace(v, &key)),
                    );
                }
                names
            }
            // `holder = [os]`, `{"m": os}`: what the container holds, marked as its elements.
            "list" | "tuple" | "set" => self.elements(named_children(node), depth),
            "dictionary" => {
                let values = named_children(node)
                    .into_iter()
                    .filter_map(|pair| pair.child_by_field_name("value"))
                    .collect();
                self.elements(values, depth)
            }
            "call" => self.resolve_call(node, depth),
            "parenthesized_expression" => match named_children(node).as_slice() {
                [inner] => self.resolve(*inner, depth),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// The meanings of a container's items, each marked as an element ([`ELEMENT`]). Nested
    /// containers are skipped: an element of an element is not followed, and deeply nested
    /// data must not count against the resolution depth.
    fn elements(&mut self, items: Vec<Node<'t>>, depth: usize) -> Vec<String> {
        let mut names = Vec::new();
        for item in items {
            if matches!(
                unparenthesized(item).kind(),
                "list" | "tuple" | "set" | "dictionary"
            ) {
                continue;
            }
            for name in self.resolve(item, depth) {
                if !name.ends_with(ELEMENT) {
                    names.push(format!("{name}{ELEMENT}"));
                }
            }
        }
        names
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
}
