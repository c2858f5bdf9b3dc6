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
//!
//! One job per file: `names` holds the constant tables, `scopes` what the snippet's scopes
//! say about names, `bindings` is pass 1, `resolve` name resolution, `fold` constant folding
//! of strings and integers, `report` and `calls` are pass 2, and `sizes` finds the huge
//! allocations and integers pass 2 reports.

mod bindings;
mod calls;
mod fold;
mod names;
mod report;
mod resolve;
mod scopes;
mod sizes;
#[cfg(test)]
mod tests;

use tree_sitter::Node;
use unicode_normalization::UnicodeNormalization;

use super::NestedCode;
use super::collect::{
    Bindings, Collector, DeepRegions, FlatTree, IdMap, MAX_EXPR_DEPTH, arguments, named_children,
    settle_bindings, text,
};
use super::facts::FactKind;
use names::{BINDING_KINDS, GLOBALS, NAMESPACE_METHODS};
use scopes::{Scopes, dotted_text};

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
    settle_bindings(
        &mut py,
        |state| {
            state.memo.clear();
            state.folds.clear();
        },
        |state| state.collect_bindings(&binding_nodes),
    );
    py.compute_sizes();
    for i in 0..py.tree.nodes.len() {
        let node = py.tree.nodes[i];
        py.report(node, out, nested);
    }
    py.too_deep.report(out);
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
}

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
