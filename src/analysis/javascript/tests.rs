use super::super::{Language, analyze};
use crate::analysis::facts::{DynamicKind, FactKind};
use crate::analysis::is_under;

fn facts(code: &str) -> Vec<FactKind> {
    analyze(Language::JavaScript, code.as_bytes())
        .facts
        .into_iter()
        .map(|f| f.kind)
        .collect()
}

fn uses(code: &str) -> Vec<String> {
    facts(code)
        .into_iter()
        .filter_map(|f| match f {
            FactKind::Use { name, .. } => Some(name),
            _ => None,
        })
        .collect()
}

fn dynamic(code: &str) -> Vec<DynamicKind> {
    facts(code)
        .into_iter()
        .filter_map(|f| match f {
            FactKind::Dynamic { kind, .. } => Some(kind),
            _ => None,
        })
        .collect()
}

#[test]
fn loaders_and_destructuring_resolve() {
    for code in [
        "require('child_process').exec('id')",
        "require('node:child_process').execSync('id')",
        "const cp = require('child_process'); cp.spawn('sh')",
        "const {exec} = require('child_process'); exec('id')",
        "const {exec: run} = require('child_process'); run('id')",
        "import {exec} from 'child_process'; exec('id')",
        "import * as cp from 'node:child_process'; cp.exec('id')",
        "import cp from 'child_process'; cp.exec('id')",
        "const m = await import('child_process'); m.exec('id')",
        "(await import('child_process')).exec('id')",
        "process.mainModule.require('child_process').exec('id')",
        "module.constructor._load('child_process').exec('id')",
        "require('chi' + 'ld_process').exec('id')",
        "require(['child', 'process'].join('_')).exec('id')",
        "require.call(null, 'child_process').exec('id')",
        "const r = require; r('child_process').exec('x')",
        "require(`child_${'process'}`).exec('id')",
        "require(Buffer.from('Y2hpbGRfcHJvY2Vzcw==', 'base64').toString()).exec('id')",
        "require('ssecorp_dlihc'.split('').reverse().join('')).exec('id')",
        "require(' child_process '.trim()).exec('id')",
        "require('child_process\\n'.trimEnd()).exec('id')",
        "require('module').prototype.require('child_process').exec('id')",
        "module.children[0].require('child_process').exec('id')",
        "module.parent.require('child_process').exec('id')",
    ] {
        assert!(
            uses(code).iter().any(|u| is_under(u, "child_process")),
            "{code}: {:?}",
            uses(code)
        );
    }
}

#[test]
fn escaped_and_global_evals_resolve() {
    for code in [
        "\\u0065val('1')",
        "ev\\u{61}l('1')",
        "globalThis['ev' + 'al']('1')",
        "global.eval('1')",
        "(0, eval)('1')",
        "Reflect.get(globalThis, 'eval')('1')",
        "new Function('return process')()",
        "(() => {}).constructor.constructor('return process')()",
        "setTimeout('process.exit()', 1)",
        "require('vm').runInThisContext('1')",
        "(() => {}).constructor('return process')()",
        "[].map.constructor('return process')()",
        "Function.prototype.constructor('return process')()",
        "const AF = (async () => {}).constructor; new AF('return 1')",
        "''.constructor['constructor']('return 1')()",
        "''['constructor']['constructor']('return 1')()",
        "Object.getOwnPropertyDescriptor(globalThis, 'eval').value('1')",
        "Object.getOwnPropertyDescriptors(globalThis).eval.value('1')",
        "const { constructor: { constructor: F2 } } = () => {}; F2('1')",
        "function f() {}\nf.constructor('return 1')()",
        "const { Worker } = require('worker_threads'); new Worker('1', { eval: true })",
    ] {
        assert!(
            dynamic(code).contains(&DynamicKind::CodeEval),
            "{code}: {:?}",
            facts(code)
        );
    }
}

#[test]
fn benign_lookalikes_stay_quiet() {
    for code in [
        "console.log('child_process.exec')",
        "// eval('x')\nlet a = 1",
        "/a/.exec(s)",
        "JSON.parse('{}')",
        "model.eval()",
        "db.exec('select 1')",
        "setTimeout(() => 1, 10)",
        "const arr = [1,2]; arr[i]",
        "const vm = this; vm.message = 'x'",
        "function walk(node) { return node.callee; }",
        "const kind = { type: 'caller' }",
        "const self = this; self[key] = 1",
        "const obj = {}; const { [k]: v } = obj",
        "const ctorName = [].constructor.name",
        "const fnName = (() => {}).constructor.name",
        "new Worker('./worker.js')",
    ] {
        assert!(dynamic(code).is_empty(), "{code}: {:?}", facts(code));
    }
}

#[test]
fn computed_names_are_reported() {
    assert!(dynamic("require(name)").contains(&DynamicKind::DynamicImport));
    assert!(dynamic("import(spec)").contains(&DynamicKind::DynamicImport));
    assert!(dynamic("globalThis[k]()").contains(&DynamicKind::DynamicAttribute));
    assert!(dynamic("'x'.repeat(1e10)").contains(&DynamicKind::HugeAllocation));
    assert!(dynamic("new Array(2**31)").contains(&DynamicKind::HugeAllocation));
    assert!(dynamic("({}).__proto__.polluted = 1").contains(&DynamicKind::Introspection));
    assert!(dynamic("const { mainModule } = process").contains(&DynamicKind::Introspection));
    assert!(dynamic("const { __proto__: p } = o").contains(&DynamicKind::Introspection));
    assert!(
        dynamic("function f() { return arguments.callee; }").contains(&DynamicKind::Introspection)
    );
    assert!(
        dynamic("const { Worker } = require('worker_threads'); new Worker(path)")
            .contains(&DynamicKind::DynamicImport)
    );
    assert!(dynamic("const n = 1e10; 'x'.repeat(n)").contains(&DynamicKind::HugeAllocation));
}

#[test]
fn canonical_names() {
    use crate::analysis::dialect::Dialect;
    let canonical = |name: &str| {
        super::JAVASCRIPT
            .canonical(name)
            .unwrap_or_else(|| name.to_owned())
    };
    assert_eq!(canonical("a.b.constructor.constructor.x"), "Function.x");
    assert_eq!(canonical("Object.prototype.constructor"), "Object");
    assert_eq!(canonical("module.children.12.require"), "module.require");
    assert_eq!(
        canonical("module.childrenX.require"),
        "module.childrenX.require"
    );
    assert_eq!(canonical("require.main.parent.require"), "module.require");
}

#[test]
fn a_leading_string_cut_inside_a_character_is_read_without_panic() {
    // An unterminated string whose text ends inside a byte sequence that is not UTF-8 (found by
    // the arbitrary-bytes property): reading the `"use strict"` directive must not slice
    // through a character; the snippet is a parse error like any other broken one.
    let code: &[u8] = b" A\x01%\x00\x000\n\"\x80\n;'\x00";
    let found = analyze(Language::JavaScript, code).facts;
    assert!(found.iter().any(|f| matches!(
        f.kind,
        FactKind::Dynamic {
            kind: DynamicKind::ParseError,
            ..
        }
    )));
}

#[test]
fn recursive_returns_are_followed_once() {
    // Each call of `search` returns further calls of it: followed anew at every level, the
    // taint query would branch three ways per level of its depth bound and never finish.
    let code = "function search(a, key, lo, hi) {\n  if (lo > hi) return lo\n  const mid = Math.floor((lo + hi) / 2)\n  if (a[mid] < key) return search(a, key, mid + 1, hi)\n  else if (a[mid] > key) return search(a, key, lo, mid - 1)\n  return search(a, key, mid, mid)\n}\nconsole.log(search([1, 2, 3], 2, 0, 2))\n";
    assert!(!dynamic(code).contains(&DynamicKind::ComputedMember));
    // A value that may be code still comes back through the recursion.
    let tainted = "function f(o, k, n) { if (n) return f(o, k, n - 1); return o[k]; }\nf(() => 1, process.argv[2], 3)('return 1')();\n";
    assert!(dynamic(tainted).contains(&DynamicKind::ComputedMember));
}

/// The path `fs.readFileSync(...)` is judged to open: `Some(None)` when it does not fold.
fn opened(expression: &str) -> Option<Option<String>> {
    let code = format!("const fs = require('fs');\nfs.readFileSync({expression});\n");
    facts(&code).into_iter().find_map(|f| match f {
        FactKind::Path { path, .. } => Some(path),
        _ => None,
    })
}

#[test]
fn limiting_arguments_fold_as_node_computes_them() {
    // Expected values are Node's own results.
    for (expression, expected) in [
        ("'a#b#c'.split('#', 1).join('x')", Some("a")),
        ("'a#b#c'.split('#', -1).join('x')", Some("axbxc")),
        ("'a#b#c'.split('#', 2).join('x')", Some("axb")),
        ("'a-b'.replaceAll('-', '_')", Some("a_b")),
        // patterns and ignored arguments: unknown, never a guess
        ("'a.b'.replaceAll('.', '$&$&')", None),
        ("'a.b'.replaceAll('.', \"$'\")", None),
        ("'xax'.trim('x')", None),
        ("Buffer.from('xxa').toString('utf8', 2)", None),
        ("'A'.toLocaleLowerCase('tr')", None),
        // fromCharCode wraps to 16 bits: 0x1002f is '/'
        ("String.fromCharCode(0x1002f) + 'etc/passwd'", None),
        ("String.fromCharCode(100, 97) + 'ta.csv'", Some("data.csv")),
    ] {
        assert_eq!(
            opened(expression),
            Some(expected.map(str::to_owned)),
            "{expression}"
        );
    }
}

#[test]
fn a_recursive_call_stands_for_everything_its_function_returns() {
    // `b` returns what `a` returns, which is `process` only by way of `b` itself: the
    // recursive call's learned meanings carry it back.
    let code = "function a(n) { if (n) return b(n - 1); return process; }\nfunction b(n) { const q = a(n); return q; }\nb(3).binding('spawn_sync');\n";
    let found = facts(code);
    assert!(
        found
            .iter()
            .any(|f| matches!(f, FactKind::Use { name, .. } if name == "process.binding")),
        "{found:?}"
    );
}

/// The paths a snippet's file calls open, `None` where unknown.
fn paths(code: &str) -> Vec<Option<String>> {
    facts(code)
        .into_iter()
        .filter_map(|f| match f {
            FactKind::Path { path, .. } => Some(path),
            _ => None,
        })
        .collect()
}

#[test]
fn a_path_parameter_is_read_from_every_call() {
    let load = "const fs = require('fs');\nconst load = (name, ext = 'txt') => fs.readFileSync(`${name}.${ext}`);\n";
    let mut both = paths(&format!("{load}load('a'); load('b', 'csv');\n"));
    both.sort();
    // Each parameter takes each of its values (a default whatever is passed: `undefined`
    // selects it), independently of the others.
    assert_eq!(
        both,
        ["a.csv", "a.txt", "b.csv", "b.txt"].map(|p| Some(p.to_owned()))
    );
    // Every way the function is reached other than by a plain call of its name leaves the
    // parameter unknown.
    for other in [
        "load`/etc/${'passwd'}`;",
        "load(...['/etc/passwd']);",
        "['x'].map(load);",
        "load.call(null, '/etc/passwd');",
        "function g() { return arguments[0]; }",
        "function g() { return g.caller; }",
        "function g() { return g['cal' + 'ler']; }",
        "function g() { return this.load('/etc/passwd'); }",
        "globalThis['lo' + 'ad']('/etc/passwd');",
        "var load2 = 1; load = load2;",
    ] {
        let found = paths(&format!("{load}load('a');\n{other}\n"));
        assert!(found.contains(&None), "{other}: {found:?}");
    }
    // A rest parameter hides those after it, not those before.
    let rest = "const fs = require('fs');\nconst r = (a, ...more) => fs.readFileSync(a) + fs.readFileSync(more[0]);\nr('a', 'b');\n";
    assert_eq!(paths(rest), [Some("a".to_owned()), None]);
}
