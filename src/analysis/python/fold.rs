//! Constant folding: the strings and integers an expression evaluates to.

use tree_sitter::Node;

use super::{Python, normalize};
use crate::analysis::collect::{
    Bindings, MAX_EXPR_DEPTH, MAX_FOLDED_LEN, arguments, combine_ints, named_children, parse_int,
    text,
};
use crate::analysis::text::{base64_text, decode_python_escapes, hex_text, rot13};

impl<'s, 't> Python<'s, 't> {
    /// The constant string an expression evaluates to, when it is built only from literals,
    /// known constants and the usual hiding transforms (concatenation, join, reversal, chr,
    /// strip, base64/hex/rot13 decoding).
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
            "string" => self.fold_string(node, depth),
            "concatenated_string" => {
                let mut out = String::new();
                for part in named_children(node) {
                    out.push_str(&self.fold(part, depth)?);
                }
                Some(out)
            }
            "binary_operator" => {
                let op = node.child_by_field_name("operator").map(|o| self.text(o));
                let left = node.child_by_field_name("left")?;
                let right = node.child_by_field_name("right")?;
                match op {
                    Some("+") => Some(self.fold(left, depth)? + &self.fold(right, depth)?),
                    Some("%") => {
                        let format = self.fold(left, depth)?;
                        let arg = self.fold(right, depth)?;
                        (format.matches("%s").count() == 1).then(|| format.replace("%s", &arg))
                    }
                    _ => None,
                }
            }
            "parenthesized_expression" => match named_children(node).as_slice() {
                [inner] => self.fold(*inner, depth),
                _ => None,
            },
            "identifier" => self
                .bindings
                .constant_value(&normalize(self.text(node)))
                .map(str::to_owned),
            "subscript" => {
                let value = node.child_by_field_name("value")?;
                let key = node.child_by_field_name("subscript")?;
                (key.kind() == "slice" && self.text(key).replace(' ', "") == "::-1")
                    .then(|| self.fold(value, depth))
                    .flatten()
                    .map(|s| s.chars().rev().collect())
            }
            "call" => self.fold_call(node, depth),
            _ => None,
        }
    }

    fn fold_string(&mut self, node: Node<'t>, depth: usize) -> Option<String> {
        let mut out = String::new();
        let mut raw = false;
        let mut formatted = false;
        for part in named_children(node) {
            match part.kind() {
                "string_start" => {
                    let prefix = self.text(part).to_ascii_lowercase();
                    raw = prefix.contains('r');
                    formatted = prefix.contains('f');
                }
                "string_content" => {
                    let body = self.text(part);
                    let body = if raw {
                        body.to_owned()
                    } else {
                        decode_python_escapes(body)
                    };
                    if formatted {
                        out.push_str(&body.replace("{{", "{").replace("}}", "}"));
                    } else {
                        out.push_str(&body);
                    }
                }
                "interpolation" => {
                    if part.child_by_field_name("format_specifier").is_some() {
                        return None;
                    }
                    out.push_str(&self.fold(part.child_by_field_name("expression")?, depth)?);
                }
                _ => {}
            }
        }
        Some(out)
    }

    fn fold_call(&mut self, node: Node<'t>, depth: usize) -> Option<String> {
        let function = node.child_by_field_name("function")?;
        let args = arguments(node.child_by_field_name("arguments"));
        // Functions first: `codecs.decode(s, 'rot13')` is a call of `codecs.decode`, not the
        // `.decode()` method of a string.
        if let Some(first) = args.first().copied() {
            for name in self.resolve(function, depth) {
                let decoded = match name.as_str() {
                    "str" => self.fold(first, depth),
                    "chr" => self
                        .integer(first)
                        .and_then(|n| u32::try_from(n).ok())
                        .and_then(char::from_u32)
                        .map(String::from),
                    "base64.b64decode"
                    | "base64.standard_b64decode"
                    | "base64.urlsafe_b64decode" => {
                        self.fold(first, depth).and_then(|s| base64_text(&s))
                    }
                    "bytes.fromhex" | "binascii.unhexlify" | "binascii.a2b_hex" => {
                        self.fold(first, depth).and_then(|s| hex_text(&s))
                    }
                    "codecs.decode" | "codecs.encode" => {
                        let codec = args.get(1).and_then(|a| self.fold(*a, depth));
                        match codec
                            .as_deref()
                            .map(|c| c.to_ascii_lowercase().replace('-', "_"))
                        {
                            Some(c) if c == "rot13" || c == "rot_13" => {
                                self.fold(first, depth).map(|s| rot13(&s))
                            }
                            Some(c) if c == "hex" && name == "codecs.decode" => {
                                self.fold(first, depth).and_then(|s| hex_text(&s))
                            }
                            Some(c) if c == "base64" && name == "codecs.decode" => {
                                self.fold(first, depth).and_then(|s| base64_text(&s))
                            }
                            _ => None,
                        }
                    }
                    _ => None,
                };
                if decoded.is_some() {
                    return decoded;
                }
            }
        }
        if function.kind() != "attribute" {
            return None;
        }
        let object = function.child_by_field_name("object")?;
        let method = self.text(function.child_by_field_name("attribute")?);
        match method {
            "join" => {
                let separator = self.fold(object, depth)?;
                let parts = self.fold_sequence(*args.first()?, depth)?;
                Some(parts.join(&separator))
            }
            "decode" | "encode" => self.fold(object, depth),
            "strip" | "lstrip" | "rstrip" => {
                let s = self.fold(object, depth)?;
                let chars: Option<Vec<char>> = match args.first() {
                    Some(a) if self.text(*a) != "None" => {
                        Some(self.fold(*a, depth)?.chars().collect())
                    }
                    _ => None,
                };
                let strip = |c: char| match &chars {
                    Some(set) => set.contains(&c),
                    None => c.is_whitespace(),
                };
                Some(
                    match method {
                        "strip" => s.trim_matches(strip),
                        "lstrip" => s.trim_start_matches(strip),
                        _ => s.trim_end_matches(strip),
                    }
                    .to_owned(),
                )
            }
            "lower" | "casefold" => self.fold(object, depth).map(|s| s.to_lowercase()),
            "upper" => self.fold(object, depth).map(|s| s.to_uppercase()),
            "replace" if args.len() == 2 => {
                let s = self.fold(object, depth)?;
                let from = self.fold(args[0], depth)?;
                let to = self.fold(args[1], depth)?;
                (!from.is_empty()).then(|| s.replace(&from, &to))
            }
            _ => None,
        }
    }

    /// A list/tuple of constant strings, a `reversed(...)` of one, or a string (its characters).
    fn fold_sequence(&mut self, node: Node<'t>, depth: usize) -> Option<Vec<String>> {
        match node.kind() {
            "list" | "tuple" => named_children(node)
                .into_iter()
                .map(|item| self.fold(item, depth))
                .collect(),
            "call" => {
                let function = node.child_by_field_name("function")?;
                let args = arguments(node.child_by_field_name("arguments"));
                match (self.text(function), args.as_slice()) {
                    ("reversed", [inner]) => {
                        let mut items = self.fold_sequence(*inner, depth)?;
                        items.reverse();
                        Some(items)
                    }
                    ("map", [f, inner]) if self.text(*f) == "chr" => self
                        .fold_int_list(*inner)?
                        .into_iter()
                        .map(|n| {
                            u32::try_from(n)
                                .ok()
                                .and_then(char::from_u32)
                                .map(String::from)
                        })
                        .collect(),
                    _ => None,
                }
            }
            _ => self
                .fold(node, depth)
                .map(|s| s.chars().map(String::from).collect()),
        }
    }

    fn fold_int_list(&self, node: Node) -> Option<Vec<i128>> {
        match node.kind() {
            "list" | "tuple" => named_children(node)
                .into_iter()
                .map(|n| self.integer(n))
                .collect(),
            _ => None,
        }
    }

    /// An integer constant, through names bound to exactly one integer.
    pub(super) fn integer(&self, node: Node) -> Option<i128> {
        fold_int_at(node, self.source, Some(&self.bindings), 0)
    }
}

/// An integer constant: literals (with `_`, hex, octal, binary, integral floats), `int(...)`
/// and names bound to exactly one integer, combined with `+ - * ** <<`. Overflow saturates,
/// so `10**10**10` is simply "huge", computed in no time.
pub(super) fn fold_int_at(
    node: Node,
    source: &str,
    names: Option<&Bindings>,
    depth: usize,
) -> Option<i128> {
    if depth > 32 {
        return None;
    }
    let depth = depth + 1;
    match node.kind() {
        "integer" => parse_int(&text(node, source).replace('_', "")),
        "float" => {
            let v: f64 = text(node, source).replace('_', "").parse().ok()?;
            (v.is_finite() && v.fract() == 0.0).then(|| v.min(i128::MAX as f64) as i128)
        }
        "identifier" => names?.integer_value(&normalize(text(node, source)), false),
        "parenthesized_expression" => match named_children(node).as_slice() {
            [inner] => fold_int_at(*inner, source, names, depth),
            _ => None,
        },
        "call" => {
            // `int(1e10)`
            let function = node.child_by_field_name("function")?;
            let args = arguments(node.child_by_field_name("arguments"));
            match (text(function, source), args.as_slice()) {
                ("int", [value]) => fold_int_at(*value, source, names, depth),
                _ => None,
            }
        }
        "unary_operator" => {
            let value = fold_int_at(node.child_by_field_name("argument")?, source, names, depth)?;
            match text(node.child_by_field_name("operator")?, source) {
                "-" => Some(value.saturating_neg()),
                "+" => Some(value),
                _ => None,
            }
        }
        "binary_operator" => {
            let l = fold_int_at(node.child_by_field_name("left")?, source, names, depth)?;
            let r = fold_int_at(node.child_by_field_name("right")?, source, names, depth)?;
            combine_ints(text(node.child_by_field_name("operator")?, source), l, r)
        }
        _ => None,
    }
}
