//! Helpers both lowerings share for reading tree-sitter trees: field ids looked up once
//! (`child_by_field_name` compares strings on every call), named children, node text, and the
//! depth bound that keeps hostile nesting from exhausting the stack.

use tree_sitter::Node;

/// Deepest syntax nesting lowered. Below this the subtree is not analyzed and the snippet gets
/// an analysis-limit fact: lowering recurses, and tokio's worker threads have small stacks.
pub const MAX_SYNTAX_DEPTH: usize = 200;

/// Field ids of a grammar, by name, resolved once per grammar.
pub fn field_id(language: &tree_sitter::Language, name: &str) -> u16 {
    language
        .field_id_for_name(name)
        .map_or(u16::MAX, |id| id.get())
}

/// The child in a field.
pub fn field<'t>(node: Node<'t>, id: u16) -> Option<Node<'t>> {
    node.child_by_field_id(id)
}

/// A grammar's node kind names, by kind id, read from the grammar once. `Node::kind` looks
/// the name up, measures it and checks that it is UTF-8 on every call, and lowering asks for
/// the kind of nearly every node, often more than once.
pub struct KindNames {
    names: Vec<Box<str>>,
}

impl KindNames {
    pub fn new(language: &tree_sitter::Language) -> KindNames {
        let names = (0..language.node_kind_count())
            .map(|id| {
                let id = u16::try_from(id).unwrap_or(u16::MAX);
                language.node_kind_for_id(id).unwrap_or_default().into()
            })
            .collect();
        KindNames { names }
    }

    /// What `node.kind()` returns: the name of its kind id (a public symbol or an alias;
    /// tree-sitter reserves the two highest ids for errors).
    pub fn of(&self, node: Node) -> &str {
        let id = node.kind_id();
        match self.names.get(usize::from(id)) {
            Some(name) => name,
            None if id == u16::MAX => "ERROR",
            None if id == u16::MAX - 1 => "_ERROR",
            None => "",
        }
    }
}

/// Most named children a node may have to be read by index rather than with a cursor.
/// Reading child `i` scans the children before it, so this is quadratic, but for the few
/// children most nodes have it costs a fraction of creating a cursor and stepping it.
const CHILDREN_READ_BY_INDEX: usize = 12;

/// The named children of a node, comments and Python's line continuations excluded: a
/// backslash ending a line may stand between any two tokens (`*\<newline>f(x)`), and is no
/// operand.
pub fn named_children<'t>(node: Node<'t>, kinds: &KindNames) -> Vec<Node<'t>> {
    let is_code = |c: &Node| {
        !matches!(
            kinds.of(*c),
            "comment" | "html_comment" | "line_continuation"
        )
    };
    let count = node.named_child_count();
    if count <= CHILDREN_READ_BY_INDEX {
        return (0..count as u32)
            .filter_map(|i| node.named_child(i))
            .filter(is_code)
            .collect();
    }
    let mut cursor = node.walk();
    node.named_children(&mut cursor).filter(is_code).collect()
}

/// The children of a node in a field.
pub fn children_in<'t>(node: Node<'t>, id: u16) -> Vec<Node<'t>> {
    let Some(id) = std::num::NonZeroU16::new(id) else {
        return Vec::new();
    };
    let mut cursor = node.walk();
    node.children_by_field_id(id, &mut cursor).collect()
}

/// The source text of a node.
pub fn text<'s>(node: Node, source: &'s str) -> &'s str {
    source.get(node.byte_range()).unwrap_or("")
}

/// The value of an integer literal, decimal or with a `0x`, `0o` or `0b` prefix, `_`
/// separators allowed; too large saturates to `i128::MAX`.
pub fn parse_int(text: &str) -> Option<i128> {
    let lower = text.replace('_', "").to_ascii_lowercase();
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

/// A float literal's value when it is integral (`1e10`), saturated.
pub fn integral_float(text: &str) -> Option<i128> {
    let value: f64 = text.replace('_', "").parse().ok()?;
    (value.is_finite() && value.fract() == 0.0).then(|| value.min(i128::MAX as f64) as i128)
}

/// True when a subtree holds only literal data (containers of numbers, strings and constants):
/// nothing in it can have an effect, so nesting it deeper than lowering goes hides nothing.
/// Walks without recursion.
pub fn is_inert(node: Node, kinds: &KindNames, inert_kinds: &[&str]) -> bool {
    let mut cursor = node.walk();
    loop {
        let n = cursor.node();
        if n.is_named() && !inert_kinds.contains(&kinds.of(n)) {
            return false;
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.node() == node {
                return true;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return true;
            }
        }
    }
}

/// Visits a tree's nodes in source order, the children of a node only when `visit` says so;
/// stops when it returns `None`.
pub fn walk<'t>(tree: &'t tree_sitter::Tree, mut visit: impl FnMut(Node<'t>) -> Option<bool>) {
    let mut cursor = tree.walk();
    'walk: loop {
        let Some(descend) = visit(cursor.node()) else {
            return;
        };
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::KindNames;
    use crate::analysis::{Language, parse};

    /// Every node of every fixture (both grammars, broken code with `ERROR` and `MISSING`
    /// nodes too) has the kind name the table gives.
    #[test]
    fn kind_names_agree_with_tree_sitter() {
        let broken = [
            (Language::Python, "def f(:\n  x = = 1\nclass\n"),
            (Language::Python, "print('a' if else)\n\x01\x02 ) ]"),
            (Language::JavaScript, "function (a, { b\nlet = ;\n`${"),
            (Language::JavaScript, "if (x { y( }\n<div>"),
        ];
        let mut sources: Vec<(Language, String)> = broken
            .iter()
            .map(|(language, code)| (*language, code.to_string()))
            .collect();
        for entry in walk_files(std::path::Path::new("policies/fixtures")) {
            let Some(language) = Language::from_path(&entry) else {
                continue;
            };
            sources.push((language, std::fs::read_to_string(&entry).unwrap()));
        }
        assert!(sources.len() > 50, "the fixtures are there");
        let (mut nodes, mut errors) = (0, 0);
        for language in [Language::Python, Language::JavaScript] {
            let kinds = KindNames::new(&language.grammar());
            for (_, source) in sources.iter().filter(|(l, _)| *l == language) {
                let tree = parse(language, source).unwrap();
                let mut cursor = tree.walk();
                'walk: loop {
                    let node = cursor.node();
                    assert_eq!(kinds.of(node), node.kind(), "{node:?}");
                    nodes += 1;
                    errors += usize::from(node.is_error() || node.is_missing());
                    if cursor.goto_first_child() {
                        continue;
                    }
                    while !cursor.goto_next_sibling() {
                        if !cursor.goto_parent() {
                            break 'walk;
                        }
                    }
                }
            }
        }
        assert!(
            nodes > 10_000 && errors > 4,
            "{nodes} nodes, {errors} errors"
        );
    }

    fn walk_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                found.extend(walk_files(&path));
            } else {
                found.push(path);
            }
        }
        found
    }
}
