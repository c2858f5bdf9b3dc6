//! Source the interpreter reads differently from tree-sitter. Every rule judges tree-sitter's
//! tree, so where the tree and the interpreter disagree, code the analyzer never saw runs
//! (or code it saw does not): each such construct is refused (`misread-source`, denied by
//! every gating policy), whatever it does.
//!
//! - Python: indentation with a tab after spaces. CPython moves a tab to the next multiple of
//!   8 columns, tree-sitter's scanner adds 8, so the two may close different blocks (a line
//!   CPython runs at module level is dead code inside a function to the analyzer). Also an
//!   indentation of 65536 columns or more, past the scanner's counter. And `:=` at the top of
//!   an f-string's replacement field: CPython starts the format spec at the `:` (`f'{y:=x}'`
//!   formats `y` with the spec `=x`), tree-sitter reads an assignment of `x` to `y`.
//! - JavaScript: `<!--` and `-->` outside literals and comments, which Node reads as comments
//!   to the end of the line in a script (tree-sitter as operators), and the HTML-like comments
//!   tree-sitter does read as comments: it ends the statement before one, where Node goes on
//!   (`x = a` then `--> …` then `/probe(1)/g` divides by a call); `await` and `yield` where
//!   a script may read them as names (outside an async function or a generator, or bound as
//!   names), which tree-sitter reads as operators; spaces beyond ASCII between tokens, where
//!   tree-sitter's scanner may end a statement Node continues. And an arrow function's `{`,
//!   which opens a block to Node and may open an object to tree-sitter (`(eval) => {a: 1}` then
//!   a template on the next line: tree-sitter puts the template in the arrow, where `eval` is
//!   its parameter; Node ends the statement and runs the template with the global `eval`), or
//!   an arrow function continued as an operand, callee or object (`() => {}` then `/a/g` on the
//!   next line: a regular expression to Node, a division to tree-sitter).

use tree_sitter::{Node, Tree};

use super::collect::Collector;
use super::facts::DynamicKind;
use super::{Language, dynamic};

/// The widest indentation tree-sitter-python's scanner counts.
const MAX_INDENT_COLUMNS: usize = 1 << 16;

pub fn report(language: Language, tree: &Tree, text: &str, out: &mut Collector) {
    match language {
        Language::Python => report_python(tree, text, out),
        Language::JavaScript => report_javascript(tree, text, out),
    }
}

fn push(out: &mut Collector, start: usize, end: usize, detail: &str) {
    let span = out.span_of(start, end);
    out.push_at(span, dynamic(DynamicKind::MisreadSource, detail));
}

/// Python's two checks ride on one walk of the tree, and only when the text holds something
/// to check: a line whose indentation the two readers may count differently (rare), or a `:=`
/// (the only spelling of the token an f-string's field could misread). Most files need no walk.
fn report_python(tree: &Tree, text: &str, out: &mut Collector) {
    let lines = indentation_suspects(text);
    let walrus = text.contains(":=");
    if lines.is_empty() && !walrus {
        return;
    }
    // The outermost strings, in order: lines inside one (a docstring's drawing) have no
    // indentation to count.
    let mut strings: Vec<(usize, usize)> = Vec::new();
    super::syntax::walk(tree, |node| {
        match node.kind() {
            "string" => {
                if strings
                    .last()
                    .is_none_or(|&(_, end)| end <= node.start_byte())
                {
                    strings.push((node.start_byte(), node.end_byte()));
                }
                return Some(walrus);
            }
            "interpolation" | "format_expression" => report_replacement_field(node, out),
            _ => {}
        }
        Some(true)
    });
    for (start, end, detail) in lines {
        let before = strings.partition_point(|&(s, _)| s < start);
        let inside = before > 0 && start < strings[before - 1].1;
        if !inside {
            push(out, start, end, detail);
        }
    }
}

/// Lines whose indentation CPython and tree-sitter's scanner may count differently, as
/// (start, end, why) byte spans.
fn indentation_suspects(text: &str) -> Vec<(usize, usize, &'static str)> {
    let mut suspects = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let indent: &str = &line[..line.len() - line.trim_start_matches([' ', '\t', '\x0c']).len()];
        let rest = &line[indent.len()..];
        // CPython starts counting again after a form feed; a backslash ending a line of
        // indentation alone joins the next line's to it for tree-sitter's scanner only.
        let mixed = indent
            .find(' ')
            .is_some_and(|space| indent[space..].contains('\t'));
        let after_form_feed = indent.rfind('\x0c').is_some_and(|at| at + 1 < indent.len());
        let continued = rest.trim_end_matches(['\n', '\r']) == "\\";
        if mixed || after_form_feed || continued {
            suspects.push((
                offset,
                offset + indent.len() + usize::from(continued),
                "indentation that Python and the analyzer may count differently (a tab after \
                 spaces, a form feed before more indentation, or a line continued from its \
                 indentation): indent with spaces only",
            ));
        }
        if indent.len() >= MAX_INDENT_COLUMNS / 8 {
            let columns = indent.chars().fold(0usize, |c, ch| match ch {
                '\t' => (c / 8 + 1) * 8,
                '\x0c' => 0,
                _ => c + 1,
            });
            if columns >= MAX_INDENT_COLUMNS {
                suspects.push((
                    offset,
                    offset + indent.len(),
                    "indentation too deep for the analyzer to count",
                ));
            }
        }
        offset += line.len();
    }
    suspects
}

/// `:=` at the top of an f-string's replacement field.
fn report_replacement_field(field: Node, out: &mut Collector) {
    let Some(expression) = field.child_by_field_name("expression") else {
        return;
    };
    let mut cursor = expression.walk();
    let assigns = match expression.kind() {
        "named_expression" => true,
        "expression_list" | "pattern_list" => expression
            .named_children(&mut cursor)
            .any(|item| item.kind() == "named_expression"),
        _ => false,
    };
    if assigns {
        push(
            out,
            expression.start_byte(),
            expression.end_byte(),
            "`:=` in an f-string's replacement field starts Python's format spec, not an \
             assignment: put the assignment in parentheses",
        );
    }
}

fn report_javascript(tree: &Tree, text: &str, out: &mut Collector) {
    let mut literals: Vec<(usize, usize)> = Vec::new();
    let mut module = false;
    let mut suspects: Vec<Node> = Vec::new();
    let mut names: Vec<Node> = Vec::new();
    let mut html_comments: Vec<Node> = Vec::new();
    let mut arrows: Vec<Node> = Vec::new();
    super::syntax::walk(tree, |node| {
        match node.kind() {
            "string" | "regex" | "comment" | "html_comment" => {
                literals.push((node.start_byte(), node.end_byte()));
                if node.kind() == "html_comment" {
                    html_comments.push(node);
                }
                return Some(false);
            }
            // a template's text is a literal, its substitutions code
            "template_string" => {
                let mut cursor = node.walk();
                for part in node.children(&mut cursor) {
                    if part.kind() != "template_substitution" {
                        literals.push((part.start_byte(), part.end_byte()));
                    }
                }
            }
            "import_statement" | "export_statement" => module = true,
            "await_expression" | "yield_expression" => suspects.push(node),
            "arrow_function" => arrows.push(node),
            "identifier" | "shorthand_property_identifier_pattern"
                if node
                    .utf8_text(text.as_bytes())
                    .is_ok_and(|name| matches!(&*unescaped(name), "await" | "yield")) =>
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
    for arrow in arrows {
        if let Some(detail) = misread_arrow(arrow, text) {
            push(out, arrow.start_byte(), arrow.end_byte(), detail);
        }
    }
    for node in html_comments {
        push(
            out,
            node.start_byte(),
            node.end_byte(),
            "an HTML-like comment (`<!--` or `-->`): Node and the analyzer may end the statement \
             before it differently; use `//`",
        );
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
    report_unicode_spaces(text, &literals, out);
}

/// Spaces beyond ASCII between tokens (a no-break space, U+FEFF, U+3000, ...). Node reads
/// every one as a space; tree-sitter's scanner, which decides where a statement without `;`
/// ends by the next character, knows only ASCII ones: after a line break it ends the
/// statement, so `1⏎\u{a0}/ 2; code; x /⏎1` was a regular expression to the analyzer and a
/// division around code to Node.
fn report_unicode_spaces(text: &str, literals: &[(usize, usize)], out: &mut Collector) {
    for (at, c) in text.char_indices() {
        let space = matches!(
            c,
            '\u{a0}' | '\u{1680}' | '\u{2000}'
                ..='\u{200b}' | '\u{202f}' | '\u{205f}' | '\u{2060}' | '\u{3000}' | '\u{feff}'
        );
        if space
            && !(at == 0 && c == '\u{feff}')
            && !literals.iter().any(|&(s, e)| s <= at && at < e)
        {
            push(
                out,
                at,
                at + c.len_utf8(),
                &format!(
                    "a space beyond ASCII (U+{:04X}) outside a string or comment: Node and the \
                     analyzer may end the statement in different places; write an ASCII space",
                    c as u32
                ),
            );
        }
    }
}

/// Why tree-sitter's reading of an arrow function cannot be Node's, if it cannot.
fn misread_arrow(arrow: Node, text: &str) -> Option<&'static str> {
    let body = arrow.child_by_field_name("body")?;
    if body.kind() != "statement_block" && text.as_bytes().get(body.start_byte()) == Some(&b'{') {
        return Some(
            "an arrow function's `{` opens a block to Node, an object to the analyzer: wrap an \
             object in parentheses (`=> ({...})`), or write the block's statements",
        );
    }
    // An arrow function is a whole assignment expression: nothing goes on from it (Node ends
    // the statement at the line end instead).
    let parent = arrow.parent()?;
    let operand = matches!(
        parent.kind(),
        "binary_expression"
            | "call_expression"
            | "member_expression"
            | "subscript_expression"
            | "ternary_expression"
            | "update_expression"
    ) && parent.start_byte() == arrow.start_byte();
    operand.then_some(
        "an arrow function continued as an operand: Node ends the statement after it; end it \
         with `;` or wrap the function in parentheses",
    )
}

/// The nearest function around a node (not a class body's static block: `await` is refused
/// there). A method's computed name is outside it: `async [await(x)]() {}` runs `await(x)`
/// where the class is.
fn enclosing_function(node: Node) -> Option<Node> {
    let mut child = node;
    let mut current = node.parent();
    while let Some(n) = current {
        let from_name = n
            .child_by_field_name("name")
            .is_some_and(|name| name.id() == child.id());
        child = n;
        current = n.parent();
        if from_name && n.kind() == "method_definition" {
            continue;
        }
        // a class field's initializer and a static block are functions of their own, never
        // async
        if matches!(
            n.kind(),
            "field_definition"
                | "public_field_definition"
                | "class_static_block"
                | "function_declaration"
                | "function_expression"
                | "function"
                | "arrow_function"
                | "method_definition"
                | "generator_function"
                | "generator_function_declaration"
        ) {
            return Some(n);
        }
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

/// An identifier with its `\u` escapes decoded (`aw\u0061it` is `await` to Node).
fn unescaped(name: &str) -> std::borrow::Cow<'_, str> {
    if !name.contains('\\') {
        return std::borrow::Cow::Borrowed(name);
    }
    let mut out = String::new();
    let mut rest = name;
    while let Some(at) = rest.find("\\u") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let (hex, used) = match after.strip_prefix('{') {
            Some(braced) => match braced.find('}') {
                Some(end) => (&braced[..end], end + 2),
                None => break,
            },
            None => (after.get(..4).unwrap_or(after), 4.min(after.len())),
        };
        match u32::from_str_radix(hex, 16).ok().and_then(char::from_u32) {
            Some(c) => out.push(c),
            None => out.push('\u{fffd}'),
        }
        rest = &after[used..];
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use crate::analysis::facts::{DynamicKind, FactKind};
    use crate::analysis::{Language, analyze};

    /// The lines `misread-source` is reported on (1-based).
    fn misread_lines(source: &str) -> Vec<usize> {
        analyze(Language::Python, source.as_bytes())
            .facts
            .iter()
            .filter(|fact| {
                matches!(
                    &fact.kind,
                    FactKind::Dynamic {
                        kind: DynamicKind::MisreadSource,
                        ..
                    }
                )
            })
            .map(|fact| fact.span.line)
            .collect()
    }

    #[test]
    fn indentation_inside_a_string_is_text_and_outside_it_is_judged() {
        let drawing = "x = '''\n  \tdrawn\n'''\nif x:\n  \ty = f'{x!r}' + '''\n  \tmore\n'''\n";
        assert_eq!(misread_lines(drawing), vec![5]);
    }

    #[test]
    fn a_walrus_in_a_field_is_found_inside_and_beside_other_strings() {
        let source = "a = 'x'\nb = f'{a:=1}' + f'''{\"q\"}'''\nc = f'{(d:=2)}'\n";
        assert_eq!(misread_lines(source), vec![2]);
    }
}
