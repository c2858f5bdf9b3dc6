//! Properties of the analyzer under arbitrary and adversarial input (proptest):
//! it never panics and stays within its bounds, and a finding does not disappear when the
//! snippet that produced it is wrapped in another construct.

use std::collections::BTreeSet;

use code_sandbox_mcp::analysis::{Language, analyze};
use code_sandbox_mcp::policy::{Policy, load};
use proptest::prelude::*;

fn policy() -> &'static Policy {
    static POLICY: std::sync::OnceLock<Policy> = std::sync::OnceLock::new();
    POLICY.get_or_init(|| load("strict").unwrap())
}

fn rules(language: Language, code: &str) -> BTreeSet<String> {
    policy()
        .judge(&analyze(language, code.as_bytes()))
        .findings
        .into_iter()
        .map(|f| f.rule)
        .collect()
}

/// Expressions that must be denied, each on its own (a statement-free expression).
const PYTHON_EXPRESSIONS: &[&str] = &[
    "__import__('os').system('id')",
    "__import__('o' + 's').popen('id')",
    "getattr(__import__('os'), 'sys' + 'tem')('id')",
    "eval('1 + 1')",
    "exec(compile('x = 1', 's', 'exec'))",
    "().__class__.__bases__[0].__subclasses__()",
    "__import__('subprocess').run(['id'])",
    "__import__('ctypes').CDLL(None)",
    "__import__('pickle').loads(b'')",
    "__import__(name)",
    "open('/etc/passwd').read()",
    "__import__('socket').socket()",
    "__import__('os').environ['HOME']",
    "'x' * 10**12",
];

const JS_EXPRESSIONS: &[&str] = &[
    "require('child_process').execSync('id')",
    "require('chi' + 'ld_process').exec('id')",
    "eval('1 + 1')",
    "new Function('return process')()",
    "globalThis['ev' + 'al']('1')",
    "(() => {}).constructor('return 1')()",
    "process.mainModule.require('child_process')",
    "require(name)",
    "require('fs').readFileSync('/etc/passwd')",
    "require('net').connect(80, 'localhost')",
    "process.env.HOME",
    "'x'.repeat(1e12)",
];

/// Wrappers placing an expression `{}` inside another construct (each is valid code).
const PYTHON_WRAPPERS: &[&str] = &[
    "def f():\n    return {}\n",
    "class C:\n    x = {}\n",
    "f = lambda: {}\n",
    "xs = [{} for _ in range(1)]\n",
    "def deco(g):\n    return g\n@deco({})\ndef g():\n    pass\n",
    "def f(a={}):\n    return a\n",
    "s = f\"{{}}\"\n",
    "try:\n    pass\nfinally:\n    {}\n",
    "match 1:\n    case 1:\n        {}\n",
    "async def f():\n    async with x:\n        {}\n",
    "if False:\n    {}\n",
    "while False:\n    y = ({}, 1)\n",
];

const JS_WRAPPERS: &[&str] = &[
    "function f() { return {}; }\n",
    "const g = () => () => {};\n",
    "class C { field = {}; }\n",
    "class D { get v() { return {}; } }\n",
    "(async () => { await {}; })();\n",
    "const s = `${{}}`;\n",
    "if (false) { {}; }\n",
    "try { } finally { {}; }\n",
    "const o = { k: {} };\n",
    "for (const x of []) { {}; }\n",
];

/// The wrapper with its first `{}` replaced by the expression (so `f"{{}}"` gives `f"{EXPR}"`).
fn wrap(wrapper: &str, expression: &str) -> String {
    wrapper.replacen("{}", expression, 1)
}

/// Every expression in every wrapper (the space is small enough to try exhaustively).
fn assert_findings_survive(language: Language, expressions: &[&str], wrappers: &[&str]) {
    let mut failures = Vec::new();
    for expression in expressions {
        let bare = rules(language, expression);
        assert!(!bare.is_empty(), "{expression} should be denied on its own");
        for wrapper in wrappers {
            let code = wrap(wrapper, expression);
            let wrapped = rules(language, &code);
            let lost: Vec<&String> = bare.iter().filter(|r| !wrapped.contains(*r)).collect();
            if !lost.is_empty() {
                failures.push(format!("{lost:?} lost in:\n{code}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn python_findings_survive_wrapping() {
    assert_findings_survive(Language::Python, PYTHON_EXPRESSIONS, PYTHON_WRAPPERS);
}

#[test]
fn javascript_findings_survive_wrapping() {
    assert_findings_survive(Language::JavaScript, JS_EXPRESSIONS, JS_WRAPPERS);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..4096), js in any::<bool>()) {
        let language = if js { Language::JavaScript } else { Language::Python };
        let analysis = analyze(language, &bytes);
        let _ = policy().judge(&analysis);
        for fact in &analysis.facts {
            prop_assert!(fact.span.end_byte <= analysis.source().len());
            prop_assert!(fact.span.line >= 1 && fact.span.column >= 1);
        }
    }

    #[test]
    fn code_like_noise_never_panics(tokens in proptest::collection::vec(
        prop::sample::select(vec!["(", ")", "[", "]", "{", "}", "'", "\"", "`", "${", "+", ".", "os", "eval", "require", "__import__",
            "getattr", "import", "from", "lambda", ":", "=", ",", "\n", "    ", "\\u0065", "x", "1e9", "**", "*", "#", "//"]),
        0..400), js in any::<bool>()) {
        let code = tokens.concat();
        let language = if js { Language::JavaScript } else { Language::Python };
        let _ = policy().judge(&analyze(language, code.as_bytes()));
    }
}
