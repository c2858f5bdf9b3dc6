//! Constant folding: the strings and integers an expression evaluates to.

use tree_sitter::Node;

use super::JavaScript;
use crate::analysis::collect::{
    Bindings, MAX_EXPR_DEPTH, MAX_FOLDED_LEN, arguments, combine_ints, named_children, parse_int,
    text,
};
use crate::analysis::text::{base64_text, decode_js_escapes, hex_text};

impl<'s, 't> JavaScript<'s, 't> {
    pub(super) fn fold(&mut self, node: Node<'t>, depth: usize) -> Option<String> {
        if depth > MAX_EXPR_DEPTH {
            self.too_deep.record(node);
            return None;
        }
        if let Some(hit) = self.folds.get(&node.id()) {
            return hit.clone();
        }
        let value = self
            .fold_uncached(node, depth + 1)
            .filter(|v| v.len() <= MAX_FOLDED_LEN);
        self.folds.insert(node.id(), value.clone());
        value
    }

    fn fold_uncached(&mut self, node: Node<'t>, depth: usize) -> Option<String> {
        match node.kind() {
            "string" => Some(
                named_children(node)
                    .iter()
                    .map(|p| match p.kind() {
                        "escape_sequence" => decode_js_escapes(self.text(*p)),
                        _ => self.text(*p).to_owned(),
                    })
                    .collect(),
            ),
            "template_string" => {
                let mut out = String::new();
                for part in named_children(node) {
                    match part.kind() {
                        "string_fragment" => out.push_str(self.text(part)),
                        "escape_sequence" => out.push_str(&decode_js_escapes(self.text(part))),
                        "template_substitution" => {
                            out.push_str(&self.fold(*named_children(part).last()?, depth)?)
                        }
                        _ => {}
                    }
                }
                Some(out)
            }
            "binary_expression" => {
                let op = node.child_by_field_name("operator").map(|o| self.text(o));
                let left = node.child_by_field_name("left")?;
                let right = node.child_by_field_name("right")?;
                if op != Some("+") {
                    return None;
                }
                let l = self
                    .fold(left, depth)
                    .or_else(|| self.integer(left, false).map(|n| n.to_string()))?;
                let r = self
                    .fold(right, depth)
                    .or_else(|| self.integer(right, false).map(|n| n.to_string()))?;
                Some(l + &r)
            }
            "parenthesized_expression" => self.fold(*named_children(node).last()?, depth),
            "identifier" => self
                .bindings
                .constant_value(&self.name(node))
                .map(str::to_owned),
            "call_expression" => self.fold_call(node, depth),
            _ => None,
        }
    }

    fn fold_call(&mut self, node: Node<'t>, depth: usize) -> Option<String> {
        let function = node.child_by_field_name("function")?;
        let args = arguments(node.child_by_field_name("arguments"));
        if function.kind() == "member_expression" {
            let object = function.child_by_field_name("object")?;
            let method = self.name(function.child_by_field_name("property")?);
            // The whitespace `String.prototype.trim` removes: Unicode spaces and the BOM.
            let space = |c: char| c.is_whitespace() || c == '\u{feff}';
            match method.as_str() {
                "join" => {
                    let parts = self.fold_list(object, depth)?;
                    let separator = match args.first() {
                        Some(a) => self.fold(*a, depth)?,
                        None => ",".to_owned(),
                    };
                    return Some(parts.join(&separator));
                }
                "toLowerCase" => return self.fold(object, depth).map(|s| s.to_lowercase()),
                "toUpperCase" => return self.fold(object, depth).map(|s| s.to_uppercase()),
                "trim" => {
                    return self
                        .fold(object, depth)
                        .map(|s| s.trim_matches(space).to_owned());
                }
                "trimStart" | "trimLeft" => {
                    return self
                        .fold(object, depth)
                        .map(|s| s.trim_start_matches(space).to_owned());
                }
                "trimEnd" | "trimRight" => {
                    return self
                        .fold(object, depth)
                        .map(|s| s.trim_end_matches(space).to_owned());
                }
                "valueOf" => return self.fold(object, depth),
                "concat" => {
                    let mut out = self.fold(object, depth)?;
                    for a in args {
                        out.push_str(&self.fold(a, depth)?);
                    }
                    return Some(out);
                }
                "toString" => return self.fold_buffer(object, args.first().copied(), depth),
                _ => {}
            }
        }
        let first = *args.first()?;
        for name in self.resolve(function, depth) {
            let value = match name.as_str() {
                "atob" => self.fold(first, depth).and_then(|s| base64_text(&s)),
                "String" => self.fold(first, depth),
                "String.fromCharCode" | "String.fromCodePoint" => args
                    .iter()
                    .map(|a| {
                        self.integer(*a, false)
                            .and_then(|n| u32::try_from(n).ok())
                            .and_then(char::from_u32)
                    })
                    .collect(),
                "decodeURIComponent" | "unescape" => {
                    self.fold(first, depth).filter(|s| !s.contains('%'))
                }
                _ => None,
            };
            if value.is_some() {
                return value;
            }
        }
        None
    }

    /// `Buffer.from(s, 'base64').toString()` and friends.
    fn fold_buffer(
        &mut self,
        buffer: Node<'t>,
        encoding: Option<Node<'t>>,
        depth: usize,
    ) -> Option<String> {
        if encoding
            .is_some_and(|e| !matches!(self.fold(e, depth).as_deref(), Some("utf8" | "utf-8")))
        {
            return None;
        }
        if buffer.kind() != "call_expression" {
            return self.fold(buffer, depth);
        }
        let function = buffer.child_by_field_name("function")?;
        if !self
            .resolve(function, depth)
            .iter()
            .any(|f| f == "Buffer.from")
        {
            return None;
        }
        let args = arguments(buffer.child_by_field_name("arguments"));
        let data = self.fold(*args.first()?, depth)?;
        match args.get(1).map(|e| self.fold(*e, depth)) {
            None => Some(data),
            Some(Some(enc)) if enc == "base64" || enc == "base64url" => base64_text(&data),
            Some(Some(enc)) if enc == "hex" => hex_text(&data),
            Some(Some(enc)) if enc == "utf8" || enc == "utf-8" => Some(data),
            _ => None,
        }
    }

    /// An array of constant strings: `['ev', 'al']`, `'lave'.split('')`, `x.reverse()`.
    fn fold_list(&mut self, node: Node<'t>, depth: usize) -> Option<Vec<String>> {
        match node.kind() {
            "array" => named_children(node)
                .into_iter()
                .map(|item| self.fold(item, depth + 1))
                .collect(),
            "call_expression" => {
                let function = node.child_by_field_name("function")?;
                if function.kind() != "member_expression" {
                    return None;
                }
                let object = function.child_by_field_name("object")?;
                let method = self.name(function.child_by_field_name("property")?);
                let args = arguments(node.child_by_field_name("arguments"));
                match method.as_str() {
                    "reverse" => {
                        let mut items = self.fold_list(object, depth + 1)?;
                        items.reverse();
                        Some(items)
                    }
                    "split" => {
                        let s = self.fold(object, depth + 1)?;
                        let sep = self.fold(*args.first()?, depth + 1)?;
                        Some(if sep.is_empty() {
                            s.chars().map(String::from).collect()
                        } else {
                            s.split(sep.as_str()).map(str::to_owned).collect()
                        })
                    }
                    _ => None,
                }
            }
            "parenthesized_expression" => self.fold_list(*named_children(node).last()?, depth + 1),
            _ => None,
        }
    }

    /// A numeric constant, through names bound to integers. `largest` takes the largest value
    /// of a name bound to several (for sizes); otherwise such a name is unknown.
    pub(super) fn integer(&self, node: Node, largest: bool) -> Option<i128> {
        fold_int_at(node, self.source, Some((&self.bindings, largest)), 0)
    }
}

/// A numeric constant: decimal, hex, octal, binary, exponent and BigInt literals, and names
/// bound to integers, combined with `+ - * ** <<`, saturating on overflow.
fn fold_int_at(
    node: Node,
    source: &str,
    names: Option<(&Bindings, bool)>,
    depth: usize,
) -> Option<i128> {
    if depth > 32 {
        return None;
    }
    let depth = depth + 1;
    match node.kind() {
        "number" => {
            let raw = text(node, source).replace('_', "");
            let raw = raw.trim_end_matches('n');
            parse_int(raw).or_else(|| {
                let v: f64 = raw.parse().ok()?;
                (v.is_finite() && v.fract() == 0.0).then(|| v.min(i128::MAX as f64) as i128)
            })
        }
        "identifier" => {
            let (bindings, largest) = names?;
            bindings.integer_value(&decode_js_escapes(text(node, source)), largest)
        }
        "parenthesized_expression" => {
            fold_int_at(*named_children(node).last()?, source, names, depth)
        }
        "unary_expression" => {
            let value = fold_int_at(node.child_by_field_name("argument")?, source, names, depth)?;
            match text(node.child_by_field_name("operator")?, source) {
                "-" => Some(value.saturating_neg()),
                "+" => Some(value),
                _ => None,
            }
        }
        "binary_expression" => {
            let l = fold_int_at(node.child_by_field_name("left")?, source, names, depth)?;
            let r = fold_int_at(node.child_by_field_name("right")?, source, names, depth)?;
            combine_ints(text(node.child_by_field_name("operator")?, source), l, r)
        }
        _ => None,
    }
}
