//! pandas' expression strings. `DataFrame.eval` and `DataFrame.query` (and the same methods of
//! other objects the analyzer does not know) evaluate their text: with the Python engine, an
//! attribute chain from a local (`@pd.io.common.os.system('id')`) reaches anything. A text that
//! folds to plain column arithmetic (names, numbers, strings, operators, bare `@local`) is
//! fine; any other text is text run as code.

use crate::analysis::engine::Engine;
use crate::analysis::facts::DynamicKind;
use crate::analysis::ir::{Kind, NodeId};

/// Methods that evaluate an expression string.
const EXPRESSION_METHODS: &[&str] = &["eval", "query"];

pub fn report(e: &mut Engine, call: NodeId) {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return;
    };
    let Kind::Attr { object, name } = e.ir.kind(callee) else {
        return;
    };
    let method = e.name(name);
    // A module's own function is judged by its name (`pandas.eval` is code-eval already).
    if !EXPRESSION_METHODS.contains(&method) || !e.resolve(object, 0).is_empty() {
        return;
    }
    let text = if e.splatted(call) {
        None
    } else {
        match e.arg(call, 0, "expr") {
            // `tree.query(1, 5)`: a number is no text.
            Some(arg) if e.is_numeric(arg) => return,
            Some(arg) => e.fold(arg, 0),
            None => return, // `model.eval()`: no text
        }
    };
    if text.as_deref().is_some_and(is_plain_arithmetic) {
        return;
    }
    e.dynamic(
        call,
        DynamicKind::CodeEval,
        format!(
            "`.{method}` evaluates its text, which is not plain column arithmetic the analyzer \
             can read (an attribute, a dunder or a text built at run time)"
        ),
    );
}

/// True for names, numbers, strings, operators, calls of bare names and `@local`: no attribute
/// access (a `.` outside a number), no dunder, no escape.
fn is_plain_arithmetic(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\'' | '"' | '`' => {
                // A quoted string or a backquoted column name: skip to its end.
                let end = chars[i + 1..].iter().position(|&d| d == c || d == '\\');
                match end {
                    Some(n) if chars[i + 1 + n] == c => i += n + 2,
                    _ => return false,
                }
                continue;
            }
            '.' => {
                let digit_before = i > 0 && chars[i - 1].is_ascii_digit();
                let digit_after = chars.get(i + 1).is_some_and(char::is_ascii_digit);
                if !(digit_before || digit_after) {
                    return false;
                }
            }
            '_' if chars.get(i + 1) == Some(&'_') => return false,
            '\\' | ';' | ':' | '{' | '}' | '#' | '$' => return false,
            _ => {}
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::is_plain_arithmetic;

    #[test]
    fn plain_arithmetic() {
        assert!(is_plain_arithmetic("a > 5 and b == 'x.y'"));
        assert!(is_plain_arithmetic("c = a * 2.5 + sqrt(b)"));
        assert!(is_plain_arithmetic("`my col` < @limit"));
        assert!(!is_plain_arithmetic("@pd.io.common.os.system('id')"));
        assert!(!is_plain_arithmetic("a.__class__"));
        assert!(!is_plain_arithmetic("x.str.len()"));
        assert!(!is_plain_arithmetic("'unterminated"));
        assert!(!is_plain_arithmetic("a ; b"));
    }
}
