//! SymPy reads text as Python: `sympify` (and every SymPy function that takes an expression,
//! which calls it: `simplify("...")`, `solve("...")`) transforms the text a little (names it
//! does not know become symbols) and evaluates it, builtins included. Text given to SymPy is
//! read as code where the snippet shows it; text its parsers get that the analyzer cannot see
//! is code run from text. The names SymPy's constructors take (`symbols("x y")`,
//! `Symbol("x")`) are names, not expressions.

use crate::analysis::NestedCode;
use crate::analysis::engine::Engine;
use crate::analysis::facts::DynamicKind;
use crate::analysis::ir::{Kind, NodeId};

/// SymPy's parsers: their first argument is text, or an expression (a number, a SymPy object).
const PARSERS: &[&str] = &["sympify", "parse_expr", "eval_expr", "S"];

/// SymPy functions whose text arguments are names.
const NAME_TAKERS: &[&str] = &[
    "symbols",
    "Symbol",
    "var",
    "Dummy",
    "Wild",
    "Function",
    "IndexedBase",
    "Idx",
    "MatrixSymbol",
    "Indexed",
    "Str",
];

pub fn report(e: &mut Engine, call: NodeId) {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return;
    };
    let names = e.names_of(callee);
    let sympy = names.iter().any(|n| {
        n.strip_prefix("sympy.")
            .is_some_and(|rest| !NAME_TAKERS.contains(&rest.rsplit('.').next().unwrap_or(rest)))
    });
    if !sympy {
        return;
    }
    let parser = names.iter().any(|n| {
        n.starts_with("sympy.") && PARSERS.contains(&n.rsplit('.').next().unwrap_or_default())
    });
    let first = e.positional_args(call).first().copied();
    let unseen = match first {
        _ if e.splatted(call) => true,
        Some(text) => e.fold(text, 0).is_none() && e.value_may_be_text(text) && !e.is_numeric(text),
        None => false,
    };
    if parser && unseen {
        e.dynamic(
            call,
            DynamicKind::CodeEval,
            "SymPy's parser evaluates text as Python; this text is built at run time",
        );
    }
    for arg in e.positional_args(call) {
        if let Some(text) = e.fold(arg, 0) {
            let (start, end) = e.ir.span(call);
            let span = e.out.span_of(start, end);
            e.nested.push(NestedCode {
                code: text.to_string(),
                span,
                origins: None,
                context: None,
            });
        }
    }
}
