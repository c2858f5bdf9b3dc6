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
//!
//! One job per file: `names` holds the constant tables, `bindings` is pass 1, `resolve` name
//! resolution, `fold` constant folding of strings and integers, and `report` and `calls` are
//! pass 2.

mod bindings;
mod calls;
mod fold;
mod names;
mod report;
mod resolve;
#[cfg(test)]
mod tests;

use std::collections::HashSet;

use tree_sitter::Node;

use super::NestedCode;
use super::collect::{
    Bindings, Collector, DeepRegions, FlatTree, IdMap, MAX_EXPR_DEPTH, is_under, named_children,
    settle_bindings, text,
};
use super::text::decode_js_escapes;
use names::{
    BINDING_KINDS, CALL_STACK_PROPERTIES, DESCRIPTOR, DESCRIPTORS, FUNCTION, NODE_MODULES,
};

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
    settle_bindings(
        &mut js,
        |state| {
            state.memo.clear();
            state.folds.clear();
        },
        |state| state.collect_bindings(&binding_nodes),
    );
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
