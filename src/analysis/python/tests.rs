use super::super::{Language, analyze};
use crate::analysis::facts::{DynamicKind, FactKind};

/// True if `name` is `module` or something inside it; used by the tests below.
fn under(name: &str, module: &str) -> bool {
    crate::analysis::is_under(name, module)
}

fn uses(code: &str) -> Vec<String> {
    analyze(Language::Python, code.as_bytes())
        .facts
        .into_iter()
        .filter_map(|f| match f.kind {
            FactKind::Use { name, .. } => Some(name),
            _ => None,
        })
        .collect()
}

fn imports(code: &str) -> Vec<String> {
    analyze(Language::Python, code.as_bytes())
        .facts
        .into_iter()
        .filter_map(|f| match f.kind {
            FactKind::Import { module } => Some(module),
            _ => None,
        })
        .collect()
}

fn dynamic(code: &str) -> Vec<DynamicKind> {
    analyze(Language::Python, code.as_bytes())
        .facts
        .into_iter()
        .filter_map(|f| match f.kind {
            FactKind::Dynamic { kind, .. } => Some(kind),
            _ => None,
        })
        .collect()
}

#[test]
fn aliases_and_rebinding_resolve() {
    for code in [
        "import os as o\no.system('id')",
        "from os import system as s\ns('id')",
        "from os import *\nsystem('id')",
        "import sys, os\nos.system('id')",
        "f = os.system\nf('id')",
        "import os\na = os\nb = a\nb.system('id')",
        "b = a\na = __import__('os')\nb.system('id')",
        "__import__('o' + 's').system('id')",
        "import importlib\nimportlib.import_module('o' 's').system('id')",
        "getattr(__import__('os'), 'sys' + 'tem')('id')",
        "import sys\nsys.modules['os'].system('id')",
        "m = 'os'\n__import__(m).system('id')",
        "__import__(''.join(['o', 's'])).system('id')",
        "__import__('so'[::-1]).system('id')",
        "import base64\n__import__(base64.b64decode('b3M=').decode()).system('id')",
        "__import__(f\"{'o'}s\").system('id')",
        "(lambda: __import__('os'))\nimport os as _o; _o.system('x')",
        "__import__(' os '.strip()).system('id')",
        "__import__('xxosxx'.strip('x')).system('id')",
        "import posix\nposix.system('id')",
        "import sys\nsys.modules['nt'].system('id')",
        "import shutil\nshutil.os.system('id')",
        "import pkgutil\npkgutil.resolve_name('os:system')('id')",
        "import os\n[os][0].system('id')",
        "import os\n(os, 1)[-2].system('id')",
        "import os\n(lambda: os)().system('id')",
        "import operator, os\noperator.attrgetter('system')(os)('id')",
        "import codecs\n__import__(codecs.decode('bf', 'rot13')).system('id')",
    ] {
        assert!(
            uses(code).iter().any(|u| under(u, "os.system")),
            "{code}: {:?}",
            uses(code)
        );
    }
}

#[test]
fn modules_reached_through_other_modules_are_imports() {
    assert!(
        imports("import asyncio\nasyncio.subprocess.subprocess.run('id')")
            .contains(&"subprocess".to_owned())
    );
    assert!(
        imports("import os\nos.sys.modules['subprocess'].run('id')")
            .contains(&"subprocess".to_owned())
    );
    assert!(
        imports("import importlib.util\nimportlib.util.find_spec('subprocess')")
            .contains(&"subprocess".to_owned())
    );
    // an attribute of a value that is not a module is not a module
    assert!(!imports("arr = make()\narr.ctypes.data").contains(&"ctypes".to_owned()));
}

#[test]
fn nfkc_identifiers_resolve() {
    assert!(dynamic("ｅｘｅｃ('1')").contains(&DynamicKind::CodeEval));
    assert!(dynamic("𝘦𝘷𝘢𝘭('1')").contains(&DynamicKind::CodeEval));
}

#[test]
fn builtins_namespace_lookups_resolve() {
    for code in [
        "import builtins\nvars(builtins)['exec']('1')",
        "import builtins\nbuiltins.__dict__['eval']('1')",
        "__builtins__.__dict__['exec']('1')",
    ] {
        assert!(dynamic(code).contains(&DynamicKind::CodeEval), "{code}");
    }
}

#[test]
fn locals_and_imports_hide_the_builtin_only_where_certain() {
    for code in [
        "def run(model, eval=False):\n    return model if eval else None",
        "f = lambda eval: eval + 1",
        "xs = [eval for eval in range(3)]",
        "from re import compile\npattern = compile('a+')",
        "from importlib import import_module",
        "import timeit\ntimeit.timeit(lambda: sum(range(10)), number=3)",
        "import yaml\nyaml.load(text, Loader=yaml.SafeLoader)",
    ] {
        let found = dynamic(code);
        assert!(
            !found.contains(&DynamicKind::CodeEval)
                && !found.contains(&DynamicKind::DynamicImport)
                && !found.contains(&DynamicKind::ParseError)
                && !found.contains(&DynamicKind::MisreadSource),
            "{code}: {found:?}"
        );
    }
    for code in [
        "x = eval\nx('1')",
        "eval('1')",
        "def f(eval=eval):\n    return eval('1')",
        "compile('x', '', 'exec')\nfrom re import compile",
        "for eval in []:\n    pass\neval('1')",
        "def f(eval):\n    del eval\n    eval('1')",
        "if cond:\n    from re import compile\ncompile('x', '', 'exec')",
        "xs = [y for y in eval('[1]')]",
    ] {
        assert!(dynamic(code).contains(&DynamicKind::CodeEval), "{code}");
    }
}

#[test]
fn benign_lookalikes_stay_quiet() {
    for code in [
        "print('os.system(1)')",
        "# os.system('id')\nx = 1",
        "model.eval()",
        "cursor.exec('x')",
        "import ast\nast.literal_eval('1')",
        "import re\nre.compile('a+')",
        "import json\njson.loads('{}')",
        "import operator\nkey = operator.attrgetter('name')",
    ] {
        assert!(dynamic(code).is_empty(), "{code}: {:?}", dynamic(code));
        assert!(
            !uses(code).iter().any(|u| u == "os.system" || u == "eval"),
            "{code}"
        );
    }
}

#[test]
fn computed_names_are_reported() {
    assert!(dynamic("__import__(name)").contains(&DynamicKind::DynamicImport));
    assert!(dynamic("getattr(os, n)()").contains(&DynamicKind::DynamicAttribute));
    assert!(
        dynamic("().__class__.__bases__[0].__subclasses__()").contains(&DynamicKind::Introspection)
    );
    assert!(dynamic("import sys\nsys.modules.get(n)").contains(&DynamicKind::DynamicAttribute));
    assert!(dynamic("globals().get(n)").contains(&DynamicKind::DynamicAttribute));
    assert!(dynamic("vars()[n]").contains(&DynamicKind::DynamicAttribute));
    assert!(dynamic("x = 'a' * 10**10").contains(&DynamicKind::HugeAllocation));
    assert!(!dynamic("x = 'a' * 10").contains(&DynamicKind::HugeAllocation));
    // Content, not a size: the product of these bytes is huge, the allocation is not.
    assert!(
        !dynamic("p = bytes([47, 101, 116, 99, 47, 112, 97, 115, 115, 119, 100])")
            .contains(&DynamicKind::HugeAllocation)
    );
    assert!(dynamic("b = bytearray(10**10)").contains(&DynamicKind::HugeAllocation));
}

#[test]
fn huge_allocations_are_seen_through() {
    for code in [
        "x = ('x') * 10**10",
        "x = 'x' * 10**5 * 10**5",
        "x = 'x' * int(1e10)",
        "x = 'x' * 10**(2**40)",
        "import numpy as np\nnp.zeros(shape=(10**5, 10**5))",
        "import numpy as np\nnp.random.rand(10**5, 10**5)",
        "n = 10**10\nx = 'x' * n",
        "x = 10**10**10",
        "x = pow(10, 10**10)",
        "x = 1 << 10**10",
    ] {
        assert!(
            dynamic(code).contains(&DynamicKind::HugeAllocation),
            "{code}: {:?}",
            dynamic(code)
        );
    }
    for code in [
        "x = 2**1000",
        "x = 10**100",
        "x = 2.0**10000",
        "n = 10\nx = 'x' * n",
    ] {
        assert!(
            !dynamic(code).contains(&DynamicKind::HugeAllocation),
            "{code}"
        );
    }
}

/// The path `open(...)` is judged to open: `Some(None)` when it does not fold.
fn opened(code: &str) -> Option<Option<String>> {
    analyze(Language::Python, code.as_bytes())
        .facts
        .into_iter()
        .find_map(|f| match f.kind {
            FactKind::Path { path, .. } => Some(path),
            _ => None,
        })
}

#[test]
fn limiting_arguments_fold_as_python_computes_them() {
    // Expected values are Python's own results.
    for (expression, expected) in [
        (r#""a-b-c".replace("-", "_", 1)"#, Some("a_b-c")),
        (r#""a-b-c".replace("-", "_", 0)"#, Some("a-b-c")),
        (r#""a-b-c".replace("-", "_", -1)"#, Some("a_b_c")),
        (r#""a-b-c".replace("-", "_", count=1)"#, Some("a_b-c")),
        (r#""_".join("a.b.c".split(".", 1))"#, Some("a_b.c")),
        (r#""_".join("a.b.c".split(".", maxsplit=0))"#, Some("a.b.c")),
        (
            r#""_".join("a.b.c".split(sep=".", maxsplit=-1))"#,
            Some("a_b_c"),
        ),
        // arguments a fold does not model: unknown, never a guess
        (r#""a-b".replace("-", "_", False)"#, None),
        (r#""a-b".replace("-", *["_", 0])"#, None),
        (r#""_".join("a.b".split(".", 1, 2))"#, None),
        (r#""_".join("a.b".split(""))"#, None),
        (r#""xa".strip(*["x"])"#, None),
        (r#""a".lower(1)"#, None),
        // what an error handler or Python's wider whitespace would change: unknown
        (r#"b"/tmp/.\xff./etc".decode("ascii", "ignore")"#, None),
        (
            r#"str(b"/tmp/.\xc0\xaf./etc", "utf-8", errors="ignore")"#,
            None,
        ),
        (r#""\x1c/etc/passwd".strip()"#, None),
        (r#"b"data.csv".decode("utf-8", "ignore")"#, Some("data.csv")),
        (r#"" data.csv ".strip()"#, Some("data.csv")),
    ] {
        let code = format!("open({expression})\n");
        assert_eq!(
            opened(&code),
            Some(expected.map(str::to_owned)),
            "{expression}"
        );
    }
}

#[test]
fn a_recursive_call_stands_for_everything_its_function_returns() {
    // `b` returns what `a` returns, which is `os` only by way of `b` itself.
    let code = "def a(n):\n    if n:\n        return b(n - 1)\n    return __import__('os')\ndef b(n):\n    q = a(n)\n    return q\nb(3).system('id')\n";
    assert!(
        uses(code).iter().any(|u| u == "os.system"),
        "{:?}",
        uses(code)
    );
}
