//! Name resolution: the qualified names an expression may stand for.

use tree_sitter::Node;

use super::names::{
    DESCRIPTOR, DESCRIPTORS, FUNCTION, FUNCTION_LITERALS, GLOBAL_OBJECTS, LOADERS, NODE_MODULES,
};
use super::{JavaScript, canonical, normalize_module};
use crate::analysis::collect::{MAX_EXPR_DEPTH, arguments, dedup_capped, named_children, qualify};

impl<'s, 't> JavaScript<'s, 't> {
    pub(super) fn resolve(&mut self, node: Node<'t>, depth: usize) -> Vec<String> {
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
    pub(super) fn key(&mut self, index: Node<'t>, depth: usize) -> Option<String> {
        self.fold(index, depth)
            .or_else(|| self.integer(index, false).map(|n| n.to_string()))
    }

    /// A call as it is really made: `f.call(this, a)` and `f.apply(this, [a])` are `f(a)`.
    pub(super) fn effective_call(
        &mut self,
        node: Node<'t>,
        depth: usize,
    ) -> (Vec<String>, Vec<Node<'t>>) {
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
}
