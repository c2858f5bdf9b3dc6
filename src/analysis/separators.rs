//! JavaScript's line separators. Node ends a line at U+2028 and U+2029 as at a line feed (a
//! line comment ends there, semicolon insertion and `-->` see a new line); tree-sitter reads
//! them as spaces. Where one is a line end to Node, the analyzer makes it a line feed (three
//! bytes for three: `"\n  "`) and parses again.

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
