//! Source the interpreter reads differently from tree-sitter. Every rule judges tree-sitter's
//! tree, so where the tree and the interpreter disagree, code the analyzer never saw runs
//! (or code it saw does not): each such construct is a parse error, whatever it does.
//!
//! - Python: indentation with a tab after spaces. CPython moves a tab to the next multiple of
//!   8 columns, tree-sitter's scanner adds 8, so the two may close different blocks (a line
//!   CPython runs at module level is dead code inside a function to the analyzer). Also an
//!   indentation of 65536 columns or more, past the scanner's counter.
//! - JavaScript: `<!--` and `-->` outside literals and comments, which Node reads as comments
//!   to the end of the line in a script (tree-sitter as operators); `await` and `yield` where
//!   a script may read them as names (outside an async function or a generator, or bound as
//!   names), which tree-sitter reads as operators.

use tree_sitter::{Node, Tree};

use super::collect::Collector;
use super::facts::DynamicKind;
use super::{Language, dynamic};

/// The widest indentation tree-sitter-python's scanner counts.
const MAX_INDENT_COLUMNS: usize = 1 << 16;

pub fn report(language: Language, tree: &Tree, text: &str, out: &mut Collector) {
    match language {
        Language::Python => report_python_indentation(text, out),
        Language::JavaScript => report_javascript(tree, text, out),
    }
}

fn push(out: &mut Collector, start: usize, end: usize, detail: &str) {
    let span = out.span_of(start, end);
    out.push_at(span, dynamic(DynamicKind::ParseError, detail));
}

fn report_python_indentation(text: &str, out: &mut Collector) {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let indent: &str = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
        if let Some(space) = indent.find(' ')
            && indent[space..].contains('\t')
        {
            push(
                out,
                offset,
                offset + indent.len(),
                "indentation with a tab after spaces: Python and the analyzer may read different \
                 blocks here; indent with spaces only",
            );
        }
        let columns = indent.chars().fold(
            0usize,
            |c, ch| if ch == '\t' { (c / 8 + 1) * 8 } else { c + 1 },
        );
        if columns >= MAX_INDENT_COLUMNS {
            push(
                out,
                offset,
                offset + indent.len(),
                "indentation too deep for the analyzer to count",
            );
        }
        offset += line.len();
    }
}

fn report_javascript(tree: &Tree, text: &str, out: &mut Collector) {
    let mut literals: Vec<(usize, usize)> = Vec::new();
    let mut module = false;
    let mut suspects: Vec<Node> = Vec::new();
    let mut names: Vec<Node> = Vec::new();
    super::syntax::walk(tree, |node| {
        match node.kind() {
            "string" | "template_string" | "regex" | "comment" | "html_comment" => {
                literals.push((node.start_byte(), node.end_byte()));
                // a template's substitutions are code
                return Some(node.kind() == "template_string");
            }
            "import_statement" | "export_statement" => module = true,
            "await_expression" | "yield_expression" => suspects.push(node),
            "identifier" | "shorthand_property_identifier_pattern"
                if matches!(node.utf8_text(text.as_bytes()), Ok("await" | "yield")) =>
            {
                names.push(node);
            }
            _ => {}
        }
        Some(true)
    });
    for node in names {
        push(
            out,
            node.start_byte(),
            node.end_byte(),
            "`await` or `yield` used as a name: Node and the analyzer read it differently; \
             choose another name",
        );
    }
    for node in suspects {
        let awaits = node.kind() == "await_expression";
        let fine = match enclosing_function(node) {
            Some(function) if awaits => has_child(function, "async"),
            Some(function) => is_generator(function),
            // top level: a module awaits; a script reads `await (x)` as a call of `await`
            None => awaits && module,
        };
        if !fine {
            push(
                out,
                node.start_byte(),
                node.end_byte(),
                "`await` or `yield` where a script may read it as a name (outside an async \
                 function or a generator): move it into one, or make the file a module",
            );
        }
    }
    for marker in ["<!--", "-->"] {
        for (at, _) in text.match_indices(marker) {
            if !literals.iter().any(|&(s, e)| s <= at && at < e) {
                push(
                    out,
                    at,
                    at + marker.len(),
                    "`<!--` or `-->` outside a string or comment: Node reads it as a comment \
                     to the end of the line, the analyzer as operators; add spaces (`a < !--b`)",
                );
            }
        }
    }
}

/// The nearest function around a node (not a class body's static block: `await` is refused
/// there).
fn enclosing_function(node: Node) -> Option<Node> {
    let mut current = node.parent();
    while let Some(n) = current {
        if matches!(
            n.kind(),
            "function_declaration"
                | "function_expression"
                | "function"
                | "arrow_function"
                | "method_definition"
                | "generator_function"
                | "generator_function_declaration"
        ) {
            return Some(n);
        }
        current = n.parent();
    }
    None
}

fn has_child(node: Node, kind: &str) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor).any(|c| c.kind() == kind)
}

fn is_generator(function: Node) -> bool {
    function.kind().starts_with("generator_function") || has_child(function, "*")
}
