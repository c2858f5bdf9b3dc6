//! JavaScript's line separators. Node ends a line at U+2028 and U+2029 as at a line feed (a
//! line comment ends there, semicolon insertion and `-->` see a new line); tree-sitter reads
//! them as spaces between tokens and runs a hashbang line past them. Where one is a line end
//! to Node, the analyzer makes it a line feed (three bytes for three: `"\n  "`) and parses
//! again.

use tree_sitter::Tree;

const SEPARATORS: [char; 2] = ['\u{2028}', '\u{2029}'];

/// The offsets of the separators that are line ends to Node in what `tree` shows of `text`:
/// every one in code or in a block comment, the first in each line comment (`//`, HTML-like,
/// a hashbang line). The rest of a line comment is code once the first ends it, so its own
/// separators are found by parsing again: a string there keeps them (`'a\<U+2028>b'` is
/// `"ab"`). Strings, template text and regular expressions keep theirs.
pub fn line_ends(tree: &Tree, text: &str) -> Vec<usize> {
    if !text.contains(SEPARATORS) {
        return Vec::new();
    }
    // Ranges whose separators stay, in document order (the walk's order; none overlap).
    let mut kept: Vec<(usize, usize)> = Vec::new();
    let mut ends: Vec<usize> = Vec::new();
    super::syntax::walk(tree, |node| {
        match node.kind() {
            "string" | "regex" => {
                kept.push((node.start_byte(), node.end_byte()));
                return Some(false);
            }
            // a template's text keeps them, its substitutions are code
            "template_string" => {
                let mut cursor = node.walk();
                for part in node.children(&mut cursor) {
                    if part.kind() != "template_substitution" {
                        kept.push((part.start_byte(), part.end_byte()));
                    }
                }
            }
            "comment" | "html_comment" | "hash_bang_line" => {
                let body = &text[node.byte_range()];
                if !body.starts_with("/*")
                    && let Some(first) = body.find(SEPARATORS)
                {
                    ends.push(node.start_byte() + first);
                    kept.push((node.start_byte() + first + 3, node.end_byte()));
                }
                return Some(false);
            }
            _ => {}
        }
        Some(true)
    });
    kept.sort_unstable();
    for (at, _) in text.match_indices(SEPARATORS) {
        let before = kept.partition_point(|&(start, _)| start <= at);
        let inside = before > 0 && at < kept[before - 1].1;
        if !inside {
            ends.push(at);
        }
    }
    // a line comment's first separator is in no kept range: found twice
    ends.sort_unstable();
    ends.dedup();
    ends
}

#[cfg(test)]
mod tests {
    use crate::analysis::{DynamicKind, FactKind, Language, analyze};

    fn ends(text: &str) -> Vec<usize> {
        let tree = crate::analysis::parse(Language::JavaScript, text).unwrap();
        super::line_ends(&tree, text)
    }

    #[test]
    fn code_and_block_comments_end_lines_strings_and_templates_do_not() {
        let text = "a\u{2028}b /* \u{2029} */ 'c\u{2028}' `d\u{2029}${e\u{2028}}`";
        let found: Vec<&str> = ends(text).iter().map(|&at| &text[at..at + 3]).collect();
        assert_eq!(found.len(), 3, "{found:?}");
        let at = |needle: &str| text.find(needle).unwrap();
        assert_eq!(
            ends(text),
            vec![at("\u{2028}b"), at("\u{2029} */"), at("\u{2028}}")]
        );
    }

    #[test]
    fn only_the_first_separator_of_a_line_comment_ends_it() {
        // the second is in a string once the first ends the comment
        let text = "// a\u{2028}x = 'b\\\u{2028}c'";
        assert_eq!(ends(text), vec![4]);
    }

    fn parse_errors(code: &str) -> Vec<String> {
        analyze(Language::JavaScript, code.as_bytes())
            .facts
            .into_iter()
            .filter_map(|f| match f.kind {
                FactKind::Dynamic {
                    kind: DynamicKind::ParseError,
                    detail,
                } => Some(detail),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn code_after_a_hashbang_line_a_separator_ends_is_read_in_a_second_round() {
        let code = "#!node\u{2028}x = '\\\u{2028}'; // c\u{2028}eval('1')";
        let facts = analyze(Language::JavaScript, code.as_bytes()).facts;
        assert!(
            facts
                .iter()
                .any(|f| matches!(&f.kind, FactKind::Use { name, .. } if name == "eval")),
            "{facts:?}"
        );
        assert!(parse_errors(code).is_empty(), "{:?}", parse_errors(code));
    }
}
