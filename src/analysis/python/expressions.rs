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
    report_named(e, call);
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return;
    };
    let Kind::Attr { object, name } = e.ir.kind(callee) else {
        return;
    };
    let method = e.name(name);
    if !EXPRESSION_METHODS.contains(&method) {
        return;
    }
    // A module's own function is judged by its name (`pandas.eval` is code-eval already); the
    // unbound method of a class (`pd.DataFrame.eval(frame, text)`) takes its text second.
    if e.resolve(object, 0).iter().any(|m| {
        e.path_text(m.value)
            .is_some_and(|n| n.starts_with("pandas.") && n.contains(|c: char| c.is_uppercase()))
    }) {
        e.dynamic(
            call,
            DynamicKind::CodeEval,
            format!("`.{method}` of a pandas class evaluates the text it is given"),
        );
        return;
    }
    if e.is_only_known(object)
        || is_constructed_by(e, object, &["sklearn.", "scipy."])
        || is_own_method(e, object, method)
    {
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

/// `self.query(i, j)` in a method of a class that defines `query` itself: the snippet's own
/// method, whose code the analyzer reads. `self` must be that class's own object (see
/// `receiver_class`: never given another object), and neither the class nor a subclass may
/// have a library base (`class F(pd.DataFrame, Seg)` resolves `query` to pandas'; a metaclass
/// makes classes of any bases; see `keeps_its_own_members`). An instance attribute set to a
/// frame's `query` is judged where it is stored (`report_value`).
fn is_own_method(e: &mut Engine, object: NodeId, method: &str) -> bool {
    let Some(class) = crate::analysis::detect::receiver_class(e, object) else {
        return false;
    };
    let Kind::Class { body, .. } = e.ir.kind(class) else {
        return false;
    };
    let defines_it = e.ir.list(body).iter().any(|&item| {
        matches!(e.ir.kind(item), Kind::Function { name: Some(n), .. }
            if matches!(e.ir.kind(n), Kind::Bind(s) if e.name(s) == method))
    });
    defines_it && crate::analysis::detect::keeps_its_own_members(e, class)
}

/// `frame.eval` or `frame.query` reached but not called right there (kept, passed, stored,
/// its `__call__` taken): the text it is called with later is not read.
pub fn report_value(e: &mut Engine, id: NodeId) {
    let Kind::Attr { object, name } = e.ir.kind(id) else {
        return;
    };
    let method = e.name(name);
    if !EXPRESSION_METHODS.contains(&method)
        || crate::analysis::detect::is_callee(e, id)
        || is_url_parts(e, object)
    {
        return;
    }
    // `pd.DataFrame.eval` handed to `pipe`; a module's own function is judged by its name.
    let resolved = e.resolve(object, 0).to_vec();
    if !resolved.is_empty()
        && !resolved.iter().any(|m| {
            e.path_text(m.value)
                .is_some_and(|n| n.starts_with("pandas.") && n.contains(|c: char| c.is_uppercase()))
        })
    {
        return;
    }
    e.dynamic(
        id,
        DynamicKind::CodeEval,
        format!("`.{method}` evaluates text, and is used here where its text is not seen"),
    );
}

/// True when the object is the parts of a URL (`urllib.parse.urlparse(u).query` is text): a
/// name bound only to what a `urllib.parse` function returns.
fn is_url_parts(e: &mut Engine, object: NodeId) -> bool {
    is_made_by(e, object, &["urllib.parse."], false)
}

/// True when the object is an instance of a class of those libraries, constructed right there
/// or bound to a name only that way: a scikit-learn or scipy object's `query` is its own
/// (`KDTree(X).query(points)`), never pandas' expression evaluator. (Their functions may
/// return a frame: `clone(frame, safe=False)`.)
pub(super) fn is_constructed_by(e: &mut Engine, object: NodeId, libraries: &[&str]) -> bool {
    is_made_by(e, object, libraries, true)
}

/// True when the object is what a function or class of those libraries returns (only classes
/// when `classes`: a name with a capital, `KDTree` or `cKDTree`), called right there or bound
/// to a name only that way.
pub(super) fn is_made_by(
    e: &mut Engine,
    object: NodeId,
    libraries: &[&str],
    classes: bool,
) -> bool {
    let object = e.ir.unparen(object);
    let made = |e: &mut Engine, value: NodeId| match e.ir.kind(e.ir.unparen(value)) {
        Kind::Call { callee, .. } => {
            let names = e.names_of(callee);
            !names.is_empty()
                && names.iter().all(|n| {
                    libraries.iter().any(|l| n.starts_with(l))
                        && (!classes
                            || n.rsplit('.')
                                .next()
                                .is_some_and(|last| last.contains(char::is_uppercase)))
                })
        }
        _ => false,
    };
    match e.ir.kind(object) {
        Kind::Call { .. } => made(e, object),
        Kind::Name(sym) => e.every_assigned_value(sym, object, made),
        _ => false,
    }
}

/// pandas calls a method named by a string (`frame.agg("eval", text)`, `apply("query")`), as
/// do `getattr` and `operator.methodcaller`: naming an evaluating method runs its text.
fn report_named(e: &mut Engine, call: NodeId) {
    /// pandas methods that call a method of the frame named by a string.
    const BY_NAME: &[&str] = &[
        "agg",
        "aggregate",
        "apply",
        "transform",
        "pipe",
        "applymap",
        "map",
        "resample",
    ];
    let Kind::Call { callee, args, .. } = e.ir.kind(call) else {
        return;
    };
    let method_by_name = match e.ir.kind(callee) {
        Kind::Attr { name, .. } => BY_NAME.contains(&e.name(name)),
        _ => false,
    };
    let looks_up = e.names_of(callee).iter().any(|n| {
        matches!(
            n.as_str(),
            "getattr" | "operator.methodcaller" | "operator.attrgetter"
        )
    });
    if !method_by_name && !looks_up {
        return;
    }
    if let Kind::Attr { name, .. } = e.ir.kind(callee)
        && DISPATCH_BY_NAME.contains(&e.name(name))
        && may_give_expression_text(e, call)
    {
        match e.arg(call, 0, "func") {
            Some(function) if e.fold(function, 0).is_none() => {
                report_unread_method_name(e, function)
            }
            Some(_) => {}
            // `frame.agg(**options)`
            None => e.dynamic(
                call,
                DynamicKind::UntrackedValue,
                "a method called by a name the analyzer cannot read: it may be `eval` or \
                 `query`, which evaluate text",
            ),
        }
    }
    for arg in e.ir.list(args).to_vec() {
        let Kind::Arg { value, .. } = e.ir.kind(arg) else {
            continue;
        };
        let text = e.fold(value, 0);
        // `frame.agg("to_csv", "m.py")`: a writer called by name writes where its arguments
        // say, which no path check reads.
        if let Some(method) = text.as_deref()
            && method.starts_with("to_")
            && e.dialect.path_method(method).is_some()
        {
            e.push(
                arg,
                crate::analysis::facts::FactKind::Path {
                    function: format!("a `{method}` called by name"),
                    path: None,
                },
            );
        }
        if let Some(text) = text
            && EXPRESSION_METHODS.contains(&&*text)
        {
            e.dynamic(
                arg,
                DynamicKind::CodeEval,
                format!(
                    "names the method `{text}`, which evaluates text the analyzer does not see"
                ),
            );
        }
    }
}

/// pandas methods whose `func` may be the name of a method of the frame, which they call
/// (`frame.agg("eval", expr=text)`); `pipe` and `map` call only what is callable.
const DISPATCH_BY_NAME: &[&str] = &["agg", "aggregate", "apply", "transform"];

/// True when the call may hand a method its text: `eval` and `query` take it as `expr`, which
/// `agg`, `apply` and `transform` pass on from their own `expr=`, their positional arguments
/// after the function and the axis, `args=`, or a `**` mapping. `frame.agg(name)` alone
/// evaluates nothing, and a scikit-learn estimator's `transform(X)` or a forest's `apply(X)`
/// takes data alone.
fn may_give_expression_text(e: &mut Engine, call: NodeId) -> bool {
    if e.splatted(call) {
        return true;
    }
    let Kind::Call { args, .. } = e.ir.kind(call) else {
        return false;
    };
    let mut positional = 0;
    for &arg in e.ir.list(args) {
        match e.ir.kind(arg) {
            Kind::Arg { name: None, .. } => positional += 1,
            Kind::Arg { name: Some(n), .. } if ["expr", "args"].contains(&e.name(n)) => {
                return true;
            }
            _ => {}
        }
    }
    positional > 2
}

/// How deep a method name is followed through names and containers.
const MAX_NAME_DEPTH: usize = 4;

/// The `func` of `frame.agg(func, ...)` when it does not fold to one text: each text it may be
/// (a loop over names, a parameter given constants) is judged like a written one, and a value
/// that may be text the analyzer cannot read (read from input, built at run time) may name
/// `eval` or `query`, whose text is not seen either.
fn report_unread_method_name(e: &mut Engine, function: NodeId) {
    if let Some(texts) = e.fold_candidates(function).filter(|t| !t.is_empty()) {
        if let Some(text) = texts
            .iter()
            .find(|t| EXPRESSION_METHODS.contains(&t.as_str()))
        {
            let text = text.clone();
            e.dynamic(
                function,
                DynamicKind::CodeEval,
                format!(
                    "may name the method `{text}`, which evaluates text the analyzer does not see"
                ),
            );
        }
        return;
    }
    if may_be_unread_text(e, function, 0) {
        e.dynamic(
            function,
            DynamicKind::UntrackedValue,
            "a method called by a name the analyzer cannot read: it may be `eval` or `query`, \
             which evaluate text; pass the function itself, or its name as a constant",
        );
    }
}

/// True unless the value is a function, a module's or the snippet's own, numbers, or a
/// container (a list of functions, a mapping of columns to them) whose items are all that or
/// constant texts other than `eval` and `query`.
fn may_be_unread_text(e: &mut Engine, value: NodeId, depth: usize) -> bool {
    let value = e.ir.unparen(value);
    if depth > MAX_NAME_DEPTH {
        return true;
    }
    if let Some(text) = e.fold(value, 0) {
        return EXPRESSION_METHODS.contains(&&*text);
    }
    if e.is_only_known(value) || e.is_numeric(value) {
        return false;
    }
    match e.ir.kind(value) {
        Kind::Function { .. } => false,
        Kind::Collection { items, .. } => e.ir.list(items).to_vec().into_iter().any(|item| {
            let item = match e.ir.kind(item) {
                Kind::Pair { value, .. } => value,
                _ => item,
            };
            may_be_unread_text(e, item, depth + 1)
        }),
        Kind::Name(sym) => !e.every_bind(sym, value, |e, bind| {
            match e.ir.parent(bind).map(|p| e.ir.kind(p)) {
                Some(Kind::Assign { targets, value }) if e.ir.list(targets).contains(&bind) => {
                    !may_be_unread_text(e, value, depth + 1)
                }
                // `def f(...)`, `class C`: the snippet's own function, undecorated
                Some(Kind::Function { .. } | Kind::Class { .. }) => {
                    e.ir.parent(bind)
                        .is_some_and(|def| e.binds_itself(def, depth))
                }
                _ => false,
            }
        }),
        _ => true,
    }
}

/// True for names, numbers, strings, operators, calls of bare names and `@local`: no attribute
/// access (a `.` outside a number), no dunder, no escape.
fn is_plain_arithmetic(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            // Python's tokenizer reads what this scan does not: names and numbers spelled
            // beyond ASCII (`o\u{203f}1.system` is a name), prefixed strings (`f'{...}'`).
            _ if !c.is_ascii() => return false,
            '\'' | '"' | '`'
                if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') =>
            {
                return false;
            }
            '\'' | '"' | '`' => {
                // A quoted string (three quotes open one only three close) or a backquoted
                // column name: skip to its end.
                let quote = if chars[i..].starts_with(&[c, c, c]) {
                    3
                } else {
                    1
                };
                let end = (i + quote..chars.len())
                    .find(|&j| chars[j] == '\\' || chars[j..].starts_with(&[c, c, c][..quote]));
                match end {
                    Some(j) if chars[j] == c => i = j + quote,
                    _ => return false,
                }
                continue;
            }
            '.' => {
                // A number's point: the digits before it start a number, not a name
                // (`os1.system` is an attribute).
                let mut start = i;
                while start > 0 && chars[start - 1].is_ascii_digit() {
                    start -= 1;
                }
                let digit_before = start < i
                    && (start == 0
                        || !(chars[start - 1].is_alphanumeric() || chars[start - 1] == '_'));
                let digit_after = chars.get(i + 1).is_some_and(char::is_ascii_digit);
                if !(digit_before || digit_after) {
                    return false;
                }
            }
            '_' if chars.get(i + 1) == Some(&'_') => return false,
            // `@reader(@path)`: calling one of the snippet's own names runs whatever it is
            // bound to (a library reader taken as a value) where no check of its arguments
            // looks. Names pandas provides (`sqrt(a)`) are no `@local`.
            '@' => {
                let mut j = i + 1;
                while chars
                    .get(j)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
                {
                    j += 1;
                }
                while chars.get(j).is_some_and(|c| c.is_whitespace()) {
                    j += 1;
                }
                if chars.get(j) == Some(&'(') {
                    return false;
                }
            }
            // `(@reader)(@path)`, `@readers[0](@path)`: a call of whatever an expression gives
            // (pandas calls the result); only a name pandas provides may be called.
            '(' if chars[..i]
                .iter()
                .rev()
                .find(|c| !c.is_whitespace())
                .is_some_and(|c| matches!(c, ')' | ']')) =>
            {
                return false;
            }
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
        assert!(!is_plain_arithmetic("@rd(@p, sep=@s)"));
        assert!(!is_plain_arithmetic("@rd (@p)"));
        assert!(!is_plain_arithmetic("(@rd)(@p, sep=@s)"));
        assert!(!is_plain_arithmetic("( @rd ) (@p)"));
        assert!(!is_plain_arithmetic("@readers[0](@p)"));
        assert!(!is_plain_arithmetic("@rd\u{203f}(@p)"));
        assert!(!is_plain_arithmetic("@rd\u{b7} (@p)"));
        assert!(!is_plain_arithmetic("@rde\u{301}(@p)"));
        assert!(is_plain_arithmetic("(a + b) * (c - d)"));
        assert!(is_plain_arithmetic("a + @scale * sqrt(b)"));
        assert!(!is_plain_arithmetic("@os1.system('id')"));
        assert!(!is_plain_arithmetic("x_2.attr"));
        assert!(is_plain_arithmetic("a > 1.5 and b < .5 + 2."));
        // strings as Python's tokenizer reads them
        assert!(!is_plain_arithmetic(
            "'''x'y''' != @pd.io.common.os.system('id') or '''w'v'''"
        ));
        assert!(!is_plain_arithmetic(
            "\"\"\"q\"q\"\"\" + @np.load('x') + \"\"\"q\"q\"\"\""
        ));
        assert!(is_plain_arithmetic("b == '''it's''' and a > 0"));
        assert!(is_plain_arithmetic("name == 'größe'"));
        assert!(!is_plain_arithmetic("f'{a}' == b"));
        assert!(!is_plain_arithmetic("b == rb'x'"));
        // names beyond ASCII, where a number's point would be an attribute
        assert!(!is_plain_arithmetic("@o\u{203f}1.system('id') == 0"));
        assert!(!is_plain_arithmetic("@p\u{b7}2.read_csv('/etc/passwd')"));
        assert!(!is_plain_arithmetic("größe > 3"));
    }
}
