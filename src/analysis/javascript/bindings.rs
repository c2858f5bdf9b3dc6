//! Pass 1: the bindings (`require`, `import`, destructuring, assignments, default parameters,
//! function declarations), collected until they stop changing.

use tree_sitter::Node;

use super::names::FUNCTION;
use super::{JavaScript, canonical, normalize_module, unparenthesized};
use crate::analysis::collect::{MAX_EXPR_DEPTH, dedup_capped, named_children, qualify};

impl<'s, 't> JavaScript<'s, 't> {
    pub(super) fn collect_bindings(&mut self, nodes: &[Node<'t>]) -> bool {
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
    pub(super) fn pattern_entries(
        &mut self,
        pattern: Node<'t>,
    ) -> Vec<(Node<'t>, Option<String>, Node<'t>)> {
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
    pub(super) fn property_key(&mut self, key: Node<'t>) -> Option<String> {
        match key.kind() {
            "property_identifier" | "shorthand_property_identifier" => Some(self.name(key)),
            "computed_property_name" => named_children(key).first().and_then(|e| self.fold(*e, 0)),
            _ => self.fold(key, 0),
        }
    }
}
