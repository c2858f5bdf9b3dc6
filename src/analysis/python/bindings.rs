//! Pass 1: the bindings (imports, assignments, default arguments, integer constants), collected
//! until they stop changing.

use tree_sitter::Node;

use super::scopes::import_names;
use super::{Python, innermost_value, normalize};
use crate::analysis::collect::named_children;

impl<'s, 't> Python<'s, 't> {
    /// Records every binding in the tree; returns true if anything new was learned.
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
    pub(super) fn imported_module(&self, node: Node) -> Option<String> {
        let module = node.child_by_field_name("module_name")?;
        (module.kind() == "dotted_name").then(|| self.dotted(module))
    }
}
