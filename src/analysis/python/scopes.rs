//! What the snippet's scopes say about names, gathered once before resolution: where a name
//! is certainly a local or an imported module, and so does not stand for the builtin.

use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use super::names::{COMPREHENSIONS, is_stdlib_module};
use super::{children_by_field, normalize};
use crate::analysis::collect::{FlatTree, named_children, qualify, text, walk};

/// Scopes recorded per name before a name counts as unknown (hostile input could declare
/// thousands); past this, the name keeps its builtin meaning everywhere.
const MAX_SCOPES_PER_NAME: usize = 64;

/// A byte range where a name is certainly a local (parameter, comprehension or loop
/// variable), with an optional hole evaluated outside it (a comprehension's first iterable).
struct LocalScope {
    start: usize,
    end: usize,
    hole: Option<(usize, usize)>,
}

/// What the snippet's scopes say about names, gathered once before resolution.
#[derive(Default)]
pub(super) struct Scopes {
    locals: HashMap<String, Vec<LocalScope>>,
    /// Name → end of the earliest unconditional top-level import statement binding it.
    imported: HashMap<String, usize>,
    /// Names deleted, declared `global`/`nonlocal`, or in too many scopes: no scope is trusted
    /// to hide their builtin meaning.
    unstable: HashSet<String>,
    /// Top-level names of the modules the snippet imports by statement.
    module_roots: HashSet<String>,
    /// Names of the functions the snippet defines.
    pub(super) functions: HashSet<String>,
}

impl Scopes {
    pub(super) fn of(tree: &FlatTree, source: &str) -> Scopes {
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
    pub(super) fn is_local(&self, name: &str, at: usize) -> bool {
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
    pub(super) fn is_imported(&self, name: &str, at: usize) -> bool {
        !self.unstable.contains(name) && self.imported.get(name).is_some_and(|&end| end <= at)
    }

    /// True when `root` names a module: imported by the snippet or in the standard library.
    pub(super) fn is_module(&self, root: &str) -> bool {
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
pub(super) fn import_names(node: Node, source: &str) -> Vec<(Option<String>, String)> {
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
pub(super) fn dotted_text(node: Node, source: &str) -> String {
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
