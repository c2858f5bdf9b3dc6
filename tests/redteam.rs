//! Red-team suite. `policies/fixtures/redteam/{python.py,javascript.js}` hold evasions the
//! analyzer catches (fixtures.rs checks their annotations with the standard policy); here every
//! snippet of them, split at the lines holding only `# ---` / `// ---`, must be denied by the
//! strict preset on its own. Evasions the analyzer does not catch are kept here instead, as
//! container tests proving the sandbox still stops them, next to payloads run directly in the
//! sandbox (no policy) that attack the container boundary itself. The container tests run on
//! every backend (Docker, Docker with gVisor, Podman).

mod common;

use std::path::Path;

use code_sandbox_mcp::analysis::{Carried, Language, analyze, analyze_with};
use code_sandbox_mcp::policy::{Verdict, load};

/// The snippets of a red-team fixture: the blocks between separator lines, each with the
/// 1-based line it starts on.
fn snippets(source: &str, separator: &str) -> Vec<(usize, String)> {
    let mut blocks = vec![(1, String::new())];
    for (index, line) in source.lines().enumerate() {
        if line.trim() == separator {
            blocks.push((index + 2, String::new()));
        } else {
            let block = &mut blocks.last_mut().unwrap().1;
            block.push_str(line);
            block.push('\n');
        }
    }
    blocks
}

/// The payload a container test runs is one strict denies.
fn assert_strict_denies(language: Language, code: &str) {
    let judgement = load("strict")
        .unwrap()
        .judge(&analyze(language, code.as_bytes()));
    assert_eq!(judgement.verdict, Verdict::Deny, "{code}\n{judgement:?}");
}

/// Each snippet, judged on its own, is denied by strict; the failure lists every one allowed.
fn assert_strict_denies_each<S: AsRef<str>>(python: &[S], javascript: &[&str]) {
    let policy = load("strict").unwrap();
    let python: Vec<&str> = python.iter().map(AsRef::as_ref).collect();
    let mut allowed = Vec::new();
    for (language, snippets) in [
        (Language::Python, python.as_slice()),
        (Language::JavaScript, javascript),
    ] {
        for code in snippets {
            if policy.judge(&analyze(language, code.as_bytes())).verdict != Verdict::Deny {
                allowed.push(*code);
            }
        }
    }
    assert!(allowed.is_empty(), "strict allows:\n{}", allowed.join("\n"));
}

/// Each form of a class after the set-up they share.
fn after(opening: &str, tails: &[&str]) -> Vec<String> {
    tails
        .iter()
        .map(|tail| format!("{opening}{tail}"))
        .collect()
}

/// Each Python snippet, ordinary code, is not denied by strict; the failure lists every one
/// denied.
fn assert_strict_allows_each(python: &[&str]) {
    let policy = load("strict").unwrap();
    let denied: Vec<&str> = python
        .iter()
        .copied()
        .filter(|code| {
            policy
                .judge(&analyze(Language::Python, code.as_bytes()))
                .verdict
                == Verdict::Deny
        })
        .collect();
    assert!(denied.is_empty(), "strict denies:\n{}", denied.join("\n"));
}

fn check_file(name: &str, language: Language, separator: &str, minimum: usize) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("policies/fixtures/redteam")
        .join(name);
    let source = std::fs::read_to_string(&path).unwrap();
    let policy = load("strict").unwrap();
    let blocks = snippets(&source, separator);
    assert!(
        blocks.len() >= minimum,
        "{name}: only {} snippets, want {minimum}",
        blocks.len()
    );
    let mut failures = Vec::new();
    for (line, block) in &blocks {
        let judgement = policy.judge(&analyze(language, block.as_bytes()));
        if judgement.verdict != Verdict::Deny {
            failures.push(format!(
                "{name}:{line}: {:?} ({} findings)\n{block}",
                judgement.verdict,
                judgement.findings.len()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} snippets not denied by strict:\n{}",
        failures.len(),
        blocks.len(),
        failures.join("\n")
    );
}

#[test]
fn strict_denies_every_python_snippet() {
    check_file("python.py", Language::Python, "# ---", 60);
}

#[test]
fn strict_denies_every_javascript_snippet() {
    check_file("javascript.js", Language::JavaScript, "// ---", 40);
}

/// Capabilities that are not module objects, and paths the snippet itself could change the
/// meaning of: one representative of each class a red-team pass found, each denied by strict
/// on its own (the fixtures under `policies/fixtures/strict/redteam-capabilities.*` hold more).
#[test]
fn strict_denies_capabilities_that_are_not_modules() {
    const PYTHON: &[&str] = &[
        // pandas' evaluator handed on as a value, or named by a string
        "import pandas as pd\nframe = pd.DataFrame({'a': [1]})\nclass Report:\n    evaluate = frame.eval\nprint(Report.evaluate('a.head.__globals__', engine='python'))\n",
        "import pandas as pd\nframe = pd.DataFrame({'a': [1]})\nprint(frame.pipe(pd.DataFrame.eval, 'a', engine='python'))\n",
        "import pandas as pd\nframe = pd.DataFrame({'a': [1]})\nframe.agg('query', 0, 'a == a', engine='python')\n",
        "import pandas as pd, operator\nframe = pd.DataFrame({'a': [1]})\nprint(operator.methodcaller('eval', 'a')(frame))\n",
        // a writer called by name
        "import pandas as pd\npd.DataFrame({'a': [1]}).agg('to_csv', 'helper.py')\n",
        // the class of a value opens a path no path function sees
        "import sys\nprint(sys.stdin.buffer.raw.__class__('/ETC/PASSWD'.swapcase()).read())\n",
        "import numpy as np\nm = np.memmap('s.bin', mode='w+', shape=(1,))\nprint(type(m)('/ETC/PASSWD'.swapcase(), mode='r'))\n",
        // links made at run time
        "from pathlib import Path\nPath('scratch').symlink_to('/tmp')\nprint(open('scratch/../etc/passwd').read())\n",
        // URLs as readers see them
        "import numpy as np\nprint(np.recfromcsv('http://192.0.2.1/data.csv'))\n",
        "import pandas as pd\nprint(pd.read_csv(' http://192.0.2.1/data.csv'))\n",
        "import numpy as np\nprint(np.fromregex('file://localhost/tmp/%2e%2e/etc/passwd', '(.*)', [('a', 'U9')]))\n",
        // a type whose value is text is evaluated again; doctest compiles examples alone
        r#"import typing
def f(x: "'__import__(\"os\").system(\"id\")'"):
    return x
print(typing.get_type_hints(f))
"#,
        r#"import doctest
def h():
    """
    >>> note = '''
    ... x
    >>> print(__import__('os').popen('id').read())
    >>> '''
    """
doctest.testmod()
"#,
        // a function's `__call__` is the function
        "import numpy as np\nprint(np.load.__call__('a.npy', allow_pickle=True))\n",
        // text vectorizers read the files their data names
        "from sklearn.feature_extraction.text import CountVectorizer\nv = CountVectorizer()\nv.set_params(input='filename')\nprint(v.fit(['/etc/passwd']).vocabulary_)\n",
        // numpy views with strides numpy never checks: any address
        "import numpy as np\nfrom numpy.lib.stride_tricks import as_strided\nb = np.zeros(8, np.uint8)\nprint(as_strided(b, (2, 8), (id(print), 1))[1])\n",
        // an XSLT stylesheet is a program that writes files
        "import pandas as pd\npd.read_xml('<r><a>1</a></r>', stylesheet='style.xsl')\n",
        // a folded method's limiting argument: count, maxsplit
        "print(open('/tmp/../etc/passwd'.replace('..', 'ok', 0)).read())\n",
        // a logging handler's path, rewritten
        "import logging\nlogging.basicConfig(filename='log.txt')\nh = logging.getLogger().handlers[0]\nh.baseFilename = 'colorsys.py'\n",
        // a scikit-learn cache unpickles the entries the snippet overwrites
        "from sklearn.pipeline import Pipeline\nfrom sklearn.linear_model import LinearRegression\nPipeline([('m', LinearRegression())], memory='cache')\n",
        // a class numpy reads a raw address from
        "import numpy as np\nclass V:\n    __array_interface__ = {'data': (id(print), False), 'shape': (8,), 'typestr': '|u1'}\nprint(np.asarray(V()))\n",
    ];
    const JAVASCRIPT: &[&str] = &[
        // `process` copied, passed, printed, yielded, tagged
        "const copy = { ...process };\nconsole.log(copy.env);\n",
        "console.log(Object.assign({}, process).env);\n",
        "console.log(process);\n",
        "const { ...rest } = process;\nconsole.log(rest.env);\n",
        "function* g() { yield process; }\nconsole.log(g().next().value.env);\n",
        "const tag = (s, p) => p;\nconsole.log(tag`${process}`.env);\n",
        // `with` makes an object's members free names
        "with (Object.getPrototypeOf(() => 0)) { console.log(constructor('return 1')()); }\n",
        // links and percent-encoded dots
        "const fs = require('fs');\nfs.promises.symlink('/tmp', 'hop');\n",
        "const fs = require('fs');\nconsole.log(fs.readFileSync(new URL('file:///tmp/%2e%2e/etc/passwd'), 'utf8'));\n",
        // split's limit keeps that many items
        "const fs = require('fs');\nconsole.log(fs.readFileSync('/tmp/..#y'.split('#', 1).join('x') + '/etc/passwd', 'utf8'));\n",
        // replaceAll's `$&` is the match
        "const fs = require('fs');\nconsole.log(fs.readFileSync('/tmp/./etc/passwd'.replaceAll('.', '$&$&'), 'utf8'));\n",
    ];
    assert_strict_denies_each(PYTHON, JAVASCRIPT);
}

/// `this` where the runtime decides what it is: a `'use strict'` that is no directive leaves a
/// function sloppy (its `this` the global object); a capability's event methods call their
/// listeners with `this` = the emitter; a session's call runs as a script, whose top-level
/// `this` is the global object (in a single run it is `module.exports`).
#[test]
fn strict_denies_this_bound_by_the_runtime() {
    let policy = load("strict").unwrap();
    let single = [
        "function f() {\n  'a' + 'b'\n  'use strict'\n  return this\n}\nconsole.log(f().process.env)\n",
        "console.log(1)\n'use strict'\nfunction f() { return this }\nconsole.log(f().process.env)\n",
        "process.on('exit', function () { console.log(this.env) })\n",
        "class L { load() { this.dlopen({ exports: {} }, 'libc.so.6') } }\nprocess.once('beforeExit', L.prototype.load)\n",
    ];
    for code in single {
        let judgement = policy.judge(&analyze(Language::JavaScript, code.as_bytes()));
        assert_eq!(judgement.verdict, Verdict::Deny, "{code}\n{judgement:?}");
    }
    let in_session = [
        "console.log(this.process.env)\n",
        "this.require('child_process').execSync('id')\n",
        "const g = (() => this)()\nconsole.log(g.process.env)\n",
    ];
    for code in in_session {
        let (call, _) = analyze_with(Language::JavaScript, code.as_bytes(), &Carried::default());
        assert_eq!(policy.judge(&call).verdict, Verdict::Deny, "{code}");
    }
    // The same top-level `this` in a single run is `module.exports`, an empty object.
    let run = analyze(
        Language::JavaScript,
        b"this.answer = 42\nconsole.log(this)\n",
    );
    assert_eq!(policy.judge(&run).verdict, Verdict::Allow);
}

/// The fourth pass's classes against the allowlist: one representative of each, denied by
/// strict on its own (`policies/fixtures/strict/redteam4.*` hold more, with benign shapes).
#[test]
fn strict_denies_the_fourth_pass_classes() {
    const PYTHON: &[&str] = &[
        // path parts given with `*`
        "import os\nparts = ['..', 'etc', 'passwd']\nprint(open(os.path.join('/tmp', *parts)).read())\n",
        // a module's member replaced before the folder trusts it
        "import os\nos.sep = '/../'\nprint(open(os.sep.join(['/tmp', 'etc/passwd'])).read())\n",
        // the snippet's globals imported from its own module
        "import os\nfrom __main__ import __dict__ as g\ng['os'].system('id')\n",
        // the working directory moved out of the work dir
        "import contextlib\nwith contextlib.chdir('/tmp/../etc'):\n    print(open('passwd').read())\n",
        // a file object reopened by its `__init__`
        "open('d.txt', 'w').write('x')\nf = open('d.txt', 'rb', buffering=0)\nf.__init__('//etc/passwd')\nprint(f.read().decode())\n",
        // a field type given as text to typing's functional forms
        "import typing\nRow = typing.TypedDict('Row', x=\"__import__('os').system('id')\")\ntyping.get_type_hints(Row)\n",
    ];
    const JAVASCRIPT: &[&str] = &[
        // path parts given with `...`
        "const fs = require('fs');\nconst path = require('path');\nconsole.log(fs.readFileSync(path.join('/tmp', ...['..', 'etc', 'passwd']), 'utf8'));\n",
        // a builtin's member replaced before the folder trusts it
        "const fs = require('fs');\nArray.prototype.join = function () { return '/tmp/../etc/passwd'; };\nconsole.log(fs.readFileSync(['data', 'csv'].join('.'), 'utf8'));\n",
        "const fs = require('fs');\nconst path = require('path');\nprocess.cwd = () => '/tmp/../etc';\nconsole.log(fs.readFileSync(path.resolve('passwd'), 'utf8'));\n",
        // an object whose prototype is a function: its computed keys reach `Function`
        "const o = { __proto__: () => 1 };\no[process.argv[2]]('return process')().exit(3);\n",
        "const o = Object.create(() => 1);\no[process.argv[2]]('return process')().exit(3);\n",
        "const o = {};\no[process.argv[3]] = () => 1;\no[process.argv[2]]('return process')().exit(3);\n",
    ];
    assert_strict_denies_each(PYTHON, JAVASCRIPT);
}

/// A fifth pass, against the fixes of the fourth: folds that kept what an error handler, a
/// wider whitespace or a 16-bit wrap changes, library members replaced by any store (unpacking,
/// loops, comprehensions, destructuring) or through a module's prototype, `__init__` named by
/// computed text, annotations written through an alias.
#[test]
fn strict_denies_the_fifth_pass_classes() {
    const PYTHON: &[&str] = &[
        "p = b\"/tmp/.\\xff./etc/passwd\".decode(\"ascii\", \"ignore\")\nprint(open(p).read())\n",
        "p = \"\\x1c/etc/passwd\".strip()\nprint(open(p).read())\n",
        "import os\nos.path.join, _ = (lambda *p: '/tmp/../etc/passwd'), 0\nprint(open(os.path.join('/tmp', 'x.txt')).read())\n",
        "import os\n[0 for os.path.normpath in [lambda p: '/tmp/../etc/passwd']]\nprint(open(os.path.normpath('/tmp/x.txt')).read())\n",
        "open('d.bin', 'wb').write(b'x')\nf = open('d.bin', 'rb', buffering=0)\ngetattr(f, ''.join(['__', 'init', '__']))('/tmp/../etc/passwd')\nprint(f.read().decode())\n",
        "import operator\nopen('d.bin', 'wb').write(b'x')\nf = open('d.bin', 'rb', buffering=0)\noperator.methodcaller('__in' + 'it__', '/tmp/../etc/passwd')(f)\n",
        "import typing\ndef f(a: int) -> int:\n    return a\nann = f.__annotations__\nann['return'] = \"__import__('os').system('id') or int\"\ntyping.get_type_hints(f)\n",
    ];
    const JAVASCRIPT: &[&str] = &[
        "const path = require('path'); const fs = require('fs');\n[path.join] = [() => '/tmp/../etc/passwd'];\nconsole.log(fs.readFileSync(path.join('/tmp', 'x.txt'), 'utf8'));\n",
        "const fs = require('fs');\nfor (String.prototype.toLowerCase of [function () { return '/tmp/../etc/passwd'; }]) ;\nconsole.log(fs.readFileSync('/TMP/X.TXT'.toLowerCase(), 'utf8'));\n",
        "const fs = require('fs');\nconsole.log(fs.readdirSync(String.fromCharCode(0x1002f)));\n",
        "const EE = require('events');\nEE.prototype.emit = function () { console.log(this.env); return true; };\nprocess.emitWarning('x');\n",
    ];
    assert_strict_denies_each(PYTHON, JAVASCRIPT);
    // What the folds still state exactly: ordinary code of the same shapes.
    let policy = load("strict").unwrap();
    for (language, code) in [
        (
            Language::Python,
            "print(b'data.csv'.decode('utf-8', 'ignore'), ' a '.strip())\n",
        ),
        (
            Language::JavaScript,
            "Array.prototype.heapify = function () { return this.length; };\nconsole.log([1].heapify(), String.fromCharCode(100, 97));\n",
        ),
    ] {
        assert_eq!(
            policy.judge(&analyze(language, code.as_bytes())).verdict,
            Verdict::Allow,
            "{code}"
        );
    }
}

/// The sixth pass's classes, one representative each (`policies/fixtures/strict/{path-readings,
/// pattern-keys}.*`, `python/{plotting-backends,type-annotations}.py` hold more).
#[test]
fn strict_denies_the_sixth_pass_classes() {
    const PYTHON: &[&str] = &[
        // a path that looks like a URL is a plain path to `open`
        "import os\nos.makedirs('a:/b', exist_ok=True)\nprint(open('a://b/../../../etc/passwd').read())\n",
        // every file-system method of a path, after `resolve()` joined the working directory
        "from pathlib import Path\nprint(next(Path('a').resolve().parent.parent.walk())[1])\n",
        // a class pattern's keywords read attributes
        "def f(): pass\nmatch f:\n    case object(__globals__=g):\n        print(g['__builtins__'])\n",
        // text held in a variable, evaluated as a type
        "import typing, json\ncode = json.loads('\"__import__(\\\\\"os\\\\\").system(\\\\\"id\\\\\") or int\"')\nclass K:\n    a: list[code]\nprint(typing.get_type_hints(K))\n",
        // a type parameter's bound
        "def f[T: __import__('os').popen('id').read()](): pass\n",
        // matplotlib evaluates `axes.prop_cycle` text
        "import matplotlib.pyplot as plt\ncode = '[print(1), [1]][1]'\nplt.rcParams.update({'axes.prop_cycle': code})\n",
        "import matplotlib.pyplot as plt\nwith open('t.mplstyle', 'w') as f:\n    f.write('axes.prop_cycle: [1]')\nplt.style.use('t.mplstyle')\n",
        // pandas selects options by pattern
        "import pandas as pd\nwith pd.option_context('plot.*end', 'subprocess'):\n    pd.Series([1]).plot()\n",
    ];
    const JAVASCRIPT: &[&str] = &[
        "const fs = require('fs');\nfs.mkdirSync('a:/b', { recursive: true });\nconsole.log(fs.readFileSync('a://b/../../../etc/passwd', 'utf8'));\n",
        "const fs = require('fs');\nconsole.log(fs.readdirSync({ href: 'x', protocol: 'file:', hostname: '', pathname: '/' }));\n",
        "const fs = require('fs');\nconst u = new URL('file:///work/data.txt');\nu.pathname = '/%65tc/passwd';\nconsole.log(fs.readFileSync(u, 'utf8'));\n",
        "function g({ constructor: F }) { return F; }\nconsole.log(g(Math.max)('return process.env')());\n",
        "for (const { constructor: F } of [Math.max]) console.log(F('return process.env')());\n",
        "const fs = require('fs');\nconst AP = Object.getPrototypeOf([]);\nAP.join = () => '/etc/passwd';\nconsole.log(fs.readFileSync(['a', 'b'].join('/'), 'utf8'));\n",
    ];
    assert_strict_denies_each(PYTHON, JAVASCRIPT);
    // A session carries which names may hold text: a later call's annotation is judged by it,
    // and a class defined earlier stays a type.
    let policy = load("strict").unwrap();
    let (_, first) = analyze_with(
        Language::Python,
        b"import json\nfrom dataclasses import dataclass\ncode = json.loads('\"int\"')\n@dataclass\nclass Point:\n    x: int\n",
        &Carried::default(),
    );
    let (text_later, _) = analyze_with(
        Language::Python,
        b"import typing\nclass K:\n    a: list[code]\nprint(typing.get_type_hints(K))\n",
        &first,
    );
    assert_eq!(policy.judge(&text_later).verdict, Verdict::Deny);
    let (class_later, _) = analyze_with(
        Language::Python,
        b"def norm(p: Point) -> float:\n    return abs(p.x)\n",
        &first,
    );
    assert_eq!(policy.judge(&class_later).verdict, Verdict::Allow);
}

/// The eighth pass's classes that the analyzer closes, one representative each
/// (`policies/fixtures/strict/{command-lines,attribute-names,doctest-factories,type-text,
/// xml-entities}.py` and `reparenting.js` hold more, with ordinary shapes): a module's command
/// line acting on `sys.argv`, attribute names given as data, doctest over docstrings library
/// factories write, annotation text that gives something other than a type, a library's
/// constructor re-parented, XML entities resolved from data.
#[test]
fn strict_denies_the_eighth_pass_classes() {
    const PYTHON: &[&str] = &[
        "import base64, sys\nargs = sys.argv\nargs.append(bytes(c ^ 1 for c in b'.dub.q`rrve').decode())\nbase64.main()\n",
        "import operator, sys\noperator.iadd(sys.argv, ['notes.txt'])\n",
        "import uuid\nuuid.main()\n",
        "import collections, json\nfields = json.loads('[\"tb_frame\"]')\nT = collections.namedtuple('T', fields)\n",
        "import enum, numpy as np\nkey = ''.join(chr(ord(c) - 1) for c in '``bssbz`joufsgbdf``')\nRaw = enum.Enum('Raw', {key: {'data': (0, False)}, 'A': 1})\nnp.asarray(Raw)\n",
        "from sklearn.datasets import load_iris\nkey = ''.join(chr(ord(c) - 1) for c in 'b')\nbunch = load_iris()\nbunch[key] = 1\n",
        "import doctest, enum\nkey = bytes(c ^ 1 for c in b'^^enb^^').decode()\nE = enum.Enum('E', {key: '>>> 1', 'A': 1})\ndoctest.testmod()\n",
        "import doctest, enum\nfrom dataclasses import dataclass\nU = enum.Enum('U', 'M', qualname='U\\n>>> 1')\n@dataclass\nclass M:\n    u: U\ndoctest.testmod()\n",
        "import doctest\nfrom dataclasses import dataclass\nclass U:\n    pass\nsetattr(U, '__qual' + 'name__', 'U\\n>>> 1')\n@dataclass\nclass M:\n    u: U\ndoctest.testmod()\n",
        "import doctest\nfrom dataclasses import dataclass\nclass W:\n    def __repr__(self):\n        return '\\n>>> 1'\n@dataclass\nclass M:\n    w: int = W()\ndoctest.testmod()\n",
        "import typing\nclass B:\n    x: 'Shape'\nB.Shape = \"__import__('os').system('id') or int\"\ntyping.get_type_hints(B)\n",
        "import typing\ntexts = [\"__import__('os').system('id') or int\"]\nclass B:\n    x: 'texts[0]'\ntyping.get_type_hints(B)\n",
        "import pandas as pd\nprint(pd.read_xml('data.xml', iterparse={'row': ['v']}))\n",
    ];
    const JAVASCRIPT: &[&str] = &[
        "const util = require('util');\nconst events = require('events');\nfunction Q() {}\nutil.inherits(events.EventEmitter, Q);\n",
        "import { inherits } from 'node:util';\nimport { EventEmitter } from 'node:events';\nclass Q {}\ninherits(EventEmitter, Q);\n",
    ];
    assert_strict_denies_each(PYTHON, JAVASCRIPT);
    let policy = load("strict").unwrap();
    // Ordinary code of the same shapes.
    for (language, code) in [
        (
            Language::Python,
            "import sys, collections, doctest\nfrom dataclasses import dataclass\nPoint = collections.namedtuple('Point', 'x y')\n@dataclass\nclass Cell:\n    row: int = 0\n    near: 'Cell | None' = None\ndef area(w, h):\n    \"\"\"\n    >>> area(2, 3)\n    6\n    \"\"\"\n    return w * h\nprint(sys.argv[1:], len(sys.argv))\ndoctest.testmod()\n",
        ),
        (
            Language::JavaScript,
            "const util = require('util');\nconst { EventEmitter } = require('events');\nfunction Ticker() {}\nutil.inherits(Ticker, EventEmitter);\n",
        ),
    ] {
        assert_eq!(
            policy.judge(&analyze(language, code.as_bytes())).verdict,
            Verdict::Allow,
            "{code}"
        );
    }
    // In a session, doctest and the typing machinery reach what earlier calls defined, whose
    // docstrings and annotation text were judged without them.
    let sessions: &[(&[&str], Verdict)] = &[
        (
            &[
                "def helper():\n    pass\nhelper.__doc__ = '>>> 1'\n",
                "import doctest\ndoctest.testmod()\n",
            ],
            Verdict::Deny,
        ),
        (
            &[
                "def area(w, h):\n    \"\"\"\n    >>> import os\n    \"\"\"\n    return w * h\n",
                "import doctest\ndoctest.testmod()\n",
            ],
            Verdict::Deny,
        ),
        (
            &[
                "import enum\nColor = enum.Enum('Color', {'__doc__': '>>> 1', 'RED': 1})\n",
                "import doctest\ndoctest.testmod()\n",
            ],
            Verdict::Deny,
        ),
        (
            &[
                "class Point:\n    x: 'Shape'\n",
                "import json, typing\nShape = json.loads('\"int\"')\nprint(typing.get_type_hints(Point))\n",
            ],
            Verdict::Deny,
        ),
        // a class of this call deriving from an earlier call's: its annotations are evaluated
        (
            &[
                "class Point:\n    x: 'Shape'\n",
                "import json, typing\nShape = json.loads('\"int\"')\nclass Q(Point):\n    pass\nprint(typing.get_type_hints(Q))\n",
            ],
            Verdict::Deny,
        ),
        // earlier calls that only imported: what this call runs is its own
        (
            &[
                "import doctest, typing\n",
                "def area(w, h):\n    \"\"\"\n    >>> area(2, 3)\n    6\n    \"\"\"\n    return w * h\nclass P:\n    x: 'int'\nprint(typing.get_type_hints(P))\ndoctest.testmod()\n",
            ],
            Verdict::Allow,
        ),
    ];
    for (calls, expected) in sessions {
        let last = strict_verdict_of_last_call(Language::Python, calls);
        assert_eq!(last, *expected, "{calls:?}");
    }
}

/// A directory walk enters whatever its `dirs` lists hold when it resumes: judged wherever its
/// items go, in a later call of a session too (the walk outlives the call that made it).
#[test]
fn strict_judges_a_walk_wherever_its_items_go() {
    const PYTHON: &[&str] = &[
        "import os\nfor (r, d, f), _ in zip(os.walk('.'), range(3)):\n    print(r, f)\n    d[:] = ['..']\n",
        "import os, itertools\nfor r, d, f in itertools.islice(os.walk('.'), 3):\n    d.append('..')\n",
        "import os\nfor t in os.walk('.'):\n    print(t[0], t[2])\n    t[1][:] = ['..']\n",
        "import os\ndef steer(w):\n    for r, d, f in w:\n        d[:] = ['..']\n        print(r, f)\nsteer(os.walk('.'))\n",
    ];
    assert_strict_denies_each(PYTHON, &[]);
    let policy = load("strict").unwrap();
    let (made, _) = analyze_with(
        Language::Python,
        b"import os\nwalker = os.walk('.')\nitem = next(walker)\nitem[1].append('..')\nprint(next(walker))\n",
        &Carried::default(),
    );
    assert_eq!(
        policy.judge(&made).verdict,
        Verdict::Deny,
        "the item is kept whole"
    );
    let (_, first_ok) = analyze_with(
        Language::Python,
        b"import os\nwalker = os.walk('.')\n",
        &Carried::default(),
    );
    for later in [
        "for r, d, f in walker:\n    d[:] = ['..']\n    print(r, f)\n",
        "again = walker\nr, d, f = next(again)\nd.append('..')\n",
        "for (r, d, f), _ in zip(walker, range(9)):\n    d.append('..')\n",
    ] {
        let (call, _) = analyze_with(Language::Python, later.as_bytes(), &first_ok);
        assert_eq!(policy.judge(&call).verdict, Verdict::Deny, "{later}");
    }
    let (pruned, _) = analyze_with(
        Language::Python,
        b"for r, d, f in walker:\n    d[:] = [x for x in d if x != 'cache']\n    print(r, f)\n",
        &first_ok,
    );
    assert_eq!(policy.judge(&pruned).verdict, Verdict::Allow);
}

/// A session's later call is judged with what the earlier calls bound: a name they bound is
/// that binding (a path object whose text climbed out of the work dir, say), never a builtin
/// or global of the same name, and never text that only looks like a string.
#[test]
fn strict_judges_a_later_call_by_what_earlier_calls_bound() {
    let sessions: &[(&[&str], Verdict)] = &[
        (
            &[
                "from pathlib import Path\nroot = Path('.')\n",
                "root = root.resolve().parent.parent\n",
                "print(list(root.iterdir()))\n",
            ],
            Verdict::Deny,
        ),
        (
            &[
                "from pathlib import Path\nroot = Path('.').resolve().parent.parent\n",
                "print(list(root.iterdir()))\n",
            ],
            Verdict::Deny,
        ),
        (
            &[
                "from pathlib import Path\nroot = Path('data')\n",
                "print(list(root.iterdir()))\n",
            ],
            Verdict::Allow,
        ),
    ];
    for (calls, expected) in sessions {
        let last = strict_verdict_of_last_call(Language::Python, calls);
        assert_eq!(last, *expected, "{calls:?}");
    }
}

/// The verdict on each call of a session under strict, each judged with what the earlier ones
/// bound.
fn strict_session_verdicts(language: Language, calls: &[&str]) -> Vec<Verdict> {
    let policy = load("strict").unwrap();
    let mut carried = Carried::default();
    let mut verdicts = Vec::new();
    for code in calls {
        let (call, next) = analyze_with(language, code.as_bytes(), &carried);
        verdicts.push(policy.judge(&call).verdict);
        carried = next;
    }
    verdicts
}

/// The verdict on a session's last call (see `strict_session_verdicts`).
fn strict_verdict_of_last_call(language: Language, calls: &[&str]) -> Verdict {
    strict_session_verdicts(language, calls)
        .pop()
        .unwrap_or(Verdict::Allow)
}

/// Code of an earlier call may run during a later one (a thread, a timer, a function the later
/// call calls) and rewrite a module-level name: a later call's own constant binding of that
/// name proves nothing about the path it opens. A name no earlier function writes stays proven.
#[test]
fn strict_judges_a_later_call_by_what_earlier_code_may_still_write() {
    const PYTHON_DENIED: &[&[&str]] = &[
        &[
            "import threading, time\ndef later():\n    global name\n    time.sleep(1.0)\n    name = '/etc/passwd'\nthreading.Thread(target=later).start()\n",
            "import time\nname = 'notes.txt'\nopen(name, 'w').write('hello')\ntime.sleep(2.0)\nprint(open(name).read())\n",
        ],
        &[
            "def reset():\n    global name\n    name = '/etc/passwd'\n",
            "name = 'notes.txt'\nreset()\nprint(open(name).read())\n",
        ],
        &[
            "import threading, time\nclass Later:\n    def run(self):\n        global name\n        time.sleep(1.0)\n        name = '/etc/passwd'\nthreading.Thread(target=Later().run).start()\n",
            "print(len('between'))\n",
            "import time\nname = 'notes.txt'\ntime.sleep(2.0)\nprint(open(name).read())\n",
        ],
        &[
            "steps = ((name := '/etc/passwd') for _ in range(1))\n",
            "name = 'notes.txt'\nnext(steps)\nprint(open(name).read())\n",
        ],
        &[
            "import threading, time\ndef later():\n    time.sleep(1.0)\n    globals()['name'] = '/etc/passwd'\nthreading.Thread(target=later).start()\n",
            "import time\nname = 'notes.txt'\ntime.sleep(2.0)\nprint(open(name).read())\n",
        ],
        &[
            "import threading, time\ndef later():\n    global n\n    time.sleep(1.0)\n    n = open('p.txt').read()\nthreading.Thread(target=later).start()\n",
            "import time\nn = 1\ntime.sleep(2.0)\nprint(open(f'data{n}').read())\n",
        ],
        &[
            "import logging\ndef stamp(record):\n    global name\n    name = open('p.txt').read()\n    return True\nlogging.getLogger('audit').addFilter(stamp)\n",
            "import logging\nname = 'notes.txt'\nlogging.getLogger('audit').warning('x')\nprint(open(name).read())\n",
        ],
        &[
            "import logging\nclass System:\n    class path:\n        join = staticmethod(lambda *p: open('p.txt').read())\ndef stamp(record):\n    global os\n    os = System\n    return True\nlogging.getLogger('audit').addFilter(stamp)\n",
            "import logging\nimport os\nlogging.getLogger('audit').warning('x')\nprint(open(os.path.join('data', 'notes.txt')).read())\n",
        ],
    ];
    const JAVASCRIPT_DENIED: &[&[&str]] = &[
        &[
            "var fs = require('fs');\nsetTimeout(() => { name = '/etc/passwd'; }, 1000);\nvar name = '';\n",
            "name = 'notes.txt';\nfs.writeFileSync(name, 'hello');\nnew Promise((done) => setTimeout(done, 1500)).then(() => console.log(fs.readFileSync(name, 'utf8')));\n",
        ],
        &[
            "function later() { target = '/etc/passwd'; }\nsetTimeout(later, 100);\n",
            "const fs = require('fs');\nvar target = 'notes.txt';\nsetTimeout(() => console.log(fs.readFileSync(target, 'utf8')), 500);\n",
        ],
        &[
            "let target = 'notes.txt';\nclass Later { run() { target = '/etc/passwd'; } }\nsetTimeout(() => new Later().run(), 100);\n",
            "const fs = require('fs');\ntarget = 'notes.txt';\nsetTimeout(() => console.log(fs.readFileSync(target, 'utf8')), 500);\n",
        ],
        &[
            "var fs = require('fs');\nsetTimeout(() => { n = fs.readFileSync('p.txt', 'utf8'); }, 500);\n",
            "var n = 1;\nnew Promise((done) => setTimeout(done, 1500)).then(() => console.log(fs.readFileSync('data' + n, 'utf8')));\n",
        ],
        &[
            "var box = { get size() { name = String.fromCharCode(47); return 1; } };\n",
            "const fs = require('fs');\nname = 'notes.txt';\nconsole.log(box.size, fs.readdirSync(name));\n",
        ],
    ];
    const PYTHON_ALLOWED: &[&[&str]] = &[
        &[
            "def area(w, h):\n    total = w * h\n    return total\n",
            "name = 'notes.txt'\nopen(name, 'w').write(str(area(2, 3)))\nprint(open(name).read())\n",
        ],
        &[
            "import threading\ncount = 0\ndef work():\n    global count\n    count += 1\nthreading.Thread(target=work).start()\n",
            "name = 'notes.txt'\nopen(name, 'w').write(str(count))\nprint(open(name).read())\n",
        ],
        &[
            "def area(w, h):\n    return w * h\n",
            "n = 1\nopen(f'data{n}.txt', 'w').write(str(area(2, 3)))\n",
        ],
    ];
    const JAVASCRIPT_ALLOWED: &[&[&str]] = &[&[
        "let count = 0;\nfunction area(w, h) { const total = w * h; count += 1; return total; }\n",
        "const fs = require('fs');\nconst name = 'notes.txt';\nfs.writeFileSync(name, String(area(2, 3)));\nconsole.log(fs.readFileSync(name, 'utf8'));\n",
    ]];
    for (language, sessions, expected) in [
        (Language::Python, PYTHON_DENIED, Verdict::Deny),
        (Language::JavaScript, JAVASCRIPT_DENIED, Verdict::Deny),
        (Language::Python, PYTHON_ALLOWED, Verdict::Allow),
        (Language::JavaScript, JAVASCRIPT_ALLOWED, Verdict::Allow),
    ] {
        for calls in sessions {
            assert_eq!(
                strict_verdict_of_last_call(language, calls),
                expected,
                "{calls:?}"
            );
        }
    }
}

/// The ninth pass's classes: source the interpreters read differently from the parser (a tab
/// after spaces, `<!--` in a script, `await` as a name), a digit before a `.` taken for a
/// number in pandas' expressions, and a session's later call on a frame an earlier call made.
/// (scipy's worker processes are kept in the snippet's own process by the runner: the sandbox
/// test `started_pythons_and_joblib_workers_stay_in_the_runner`.)
#[test]
fn strict_denies_the_ninth_pass_classes() {
    const PYTHON: &[&str] = &[
        "import os\ndef f():\n        x = 1\n  \tos.system('id')\n",
        "import os as os1\nimport pandas as pd\npd.DataFrame({'a': [1]}).eval(\"@os1.system('id')\")\n",
    ];
    const JAVASCRIPT: &[&str] = &[
        "const fs = require('fs');\nlet x = 1 <!-- 2; /*\nconsole.log(fs.readFileSync('/etc/passwd', 'utf8'));\n// */\n",
        "var await = require('fs').readFileSync;\nconsole.log(await ('/etc/passwd', 'utf8'));\n",
    ];
    assert_strict_denies_each(PYTHON, JAVASCRIPT);
    let policy = load("strict").unwrap();
    let (_, first) = analyze_with(
        Language::Python,
        b"import pandas as pd\nsales = pd.DataFrame({'q': [1]})\n",
        &Carried::default(),
    );
    let (later, _) = analyze_with(
        Language::Python,
        b"print(sales.eval(\"@pd.io.common.os.system('id')\"))\n",
        &first,
    );
    assert_eq!(policy.judge(&later).verdict, Verdict::Deny);
}

// --- Evasions the analyzer misses (strict allows them): the container holds.

on_every_backend! {
    /// A module object passed to a function as an argument. The standard policy does not
    /// follow arguments into parameters; the strict one denies a module it cannot follow. Run
    /// anyway, the shell runs only as the sandbox's own unprivileged user, with no capabilities
    /// and a read-only root.
    async fn payload_module_passed_as_an_argument_runs_a_shell_only_unprivileged(backend) {
        let code = "import os\ndef run_rt(m):\n    return m.popen(\"id -u; grep CapEff /proc/self/status; touch /etc/rt 2>/dev/null && echo wrote || echo read-only\").read()\nprint(run_rt(os))\n";
        let verdict = |policy: &str| {
            load(policy)
                .unwrap()
                .judge(&analyze(Language::Python, code.as_bytes()))
                .verdict
        };
        assert_eq!(verdict("standard"), Verdict::Allow);
        assert_eq!(verdict("strict"), Verdict::Deny);
        let e = backend.run_py(code).await;
        assert!(common::uids_masked(&e.stdout).starts_with("UID\n"), "{e:?}");
        assert!(e.stdout.contains("CapEff:\t0000000000000000"), "{e:?}");
        assert!(
            e.stdout.contains("read-only") && !e.stdout.contains("wrote"),
            "{e:?}"
        );
    }
}

on_every_backend! {
    /// A module written to the work dir and imported by a literal name: the analyzer cannot see
    /// its contents.
    async fn missed_written_then_imported_module_stays_unprivileged(backend) {
        let code = "open('helper_rt.py', 'w').write(\"import subprocess\\nOUT = subprocess.run(['/bin/sh', '-c', 'id -u; touch /usr/rt 2>/dev/null && echo wrote || echo read-only'], capture_output=True, text=True).stdout\\n\")\nimport helper_rt\nprint(helper_rt.OUT)\n";
        let e = backend.run_py(code).await;
        assert!(common::uids_masked(&e.stdout).starts_with("UID\nread-only"), "{e:?}");
    }
}

on_every_backend! {
    /// site.addsitedir executes the `import` lines of a .pth file written at run time.
    async fn missed_pth_file_code_cannot_write_the_root(backend) {
        let code = "import site\nopen('/tmp/rt_evil.pth', 'w').write(\"import os; print('pth-ran', os.getuid(), os.access('/etc', os.W_OK))\\n\")\nsite.addsitedir('/tmp')\n";
        let e = backend.run_py(code).await;
        assert!(common::uids_masked(&e.stdout).contains("pth-ran UID False"), "{e:?}");
    }
}

on_every_backend! {
    /// Network reached through an event loop's create_connection, which the analyzer misses,
    /// and, run directly, multiprocessing.connection and urllib.request after a bare
    /// `import urllib` (both caught since; see the red-team fixture).
    async fn missed_network_paths_find_no_network(backend) {
        let code = r#"import asyncio
import multiprocessing.connection
import urllib
try:
    multiprocessing.connection.Client(("192.0.2.1", 80))
    print("connected mp")
except OSError as e:
    print("blocked mp", e.errno)
async def probe_rt():
    await asyncio.wait_for(asyncio.get_running_loop().create_connection(asyncio.Protocol, "192.0.2.1", 80), 5)
try:
    asyncio.run(probe_rt())
    print("connected loop")
except (OSError, asyncio.TimeoutError) as e:
    print("blocked loop", type(e).__name__)
try:
    urllib.request.urlopen("http://192.0.2.1/", timeout=5)
    print("connected urllib")
except Exception as e:
    print("blocked urllib", type(e).__name__)
"#;
        let e = backend.run_py(code).await;
        assert!(!e.stdout.contains("connected"), "{e:?}");
        assert_eq!(e.stdout.matches("blocked").count(), 3, "{e:?}");
    }
}

on_every_backend! {
    /// JavaScript: a module written to the work dir, then required by a literal path: the
    /// analyzer cannot see its contents, and only the strict policy's allowlist (which has no
    /// such module) denies it. Run anyway, it runs only as the sandbox's own unprivileged user.
    async fn payload_javascript_written_then_required_module_runs_only_unprivileged(backend) {
        let code = "require('fs').writeFileSync('helper_rt.js', \"const cp = require('child_' + 'process'); let etc; try { require('fs').writeFileSync('/etc/rt', 'x'); etc = 'wrote'; } catch (e) { etc = e.code; } module.exports = cp.execSync('id -u').toString().trim() + '\\\\n' + etc;\");\nconsole.log(require('./helper_rt.js'));\n";
        assert_strict_denies(Language::JavaScript, code);
        let e = backend.run_js(code).await;
        let etc = backend.etc_write_error();
        assert_eq!(common::uids_masked(&e.stdout), format!("UID\n{etc}\n"), "{e:?}");
    }
}

on_every_backend! {
    /// pandas' evaluator kept as a class attribute runs a shell from its text (through the
    /// `pickle` module pandas 1.5 and 2.2 both hold in `pandas.core.generic`): strict denies
    /// it; run anyway, the shell runs only as the sandbox's unprivileged user.
    async fn payload_pandas_evaluator_as_a_value_runs_only_unprivileged(backend) {
        let code = "import pandas as pd\nframe = pd.DataFrame({'a': [1]})\nclass Report:\n    evaluate = frame.eval\nprint(Report.evaluate('a.head.__globals__[\"pickle\"].sys.modules[\"os\"].popen(\"id -u\").read()', engine='python'))\n";
        assert_strict_denies(Language::Python, code);
        let e = backend.run_py(code).await;
        assert!(common::uids_masked(&e.stdout).starts_with("UID"), "{e:?}");
    }
}

on_every_backend! {
    /// A copy of `process` hands out its environment without naming `process.env`: strict
    /// denies it; run anyway, the environment holds none of the host's variables.
    async fn payload_process_copy_finds_no_host_variable(backend) {
        assert!(std::env::var("CARGO_PKG_NAME").is_ok(), "run under cargo");
        let code = "const copy = { ...process };\nconsole.log(Object.keys(copy.env).length > 0, 'CARGO_PKG_NAME' in copy.env);\n";
        assert_strict_denies(Language::JavaScript, code);
        let e = backend.run_js(code).await;
        assert_eq!(e.stdout, "true false\n", "{e:?}");
    }
}

on_every_backend! {
    /// Path parts given with `*` or `...`, and a builtin replaced before the folder trusts it
    /// (the fourth pass's path classes): strict denies them; run anyway, a path they build
    /// outside the work dir meets a read-only root.
    async fn payload_paths_built_past_the_folder_meet_a_read_only_root(backend) {
        let python = "import os\ntry:\n    open(os.path.join('/tmp', *['..', 'etc', 'rt4_star']), 'w').write('x')\n    print('wrote')\nexcept OSError as e:\n    print('denied', e.errno)\n";
        assert_strict_denies(Language::Python, python);
        // A read-only root is EROFS, or EACCES under gVisor.
        let e = backend.run_py(python).await;
        assert!(e.stdout.starts_with("denied ") && !e.stdout.contains("wrote"), "{e:?}");
        let javascript = "const fs = require('fs');\nconst path = require('path');\nArray.prototype.join = function () { return '/tmp/../etc/rt4_join'; };\nfor (const p of [path.join('/tmp', ...['..', 'etc', 'rt4_spread']), ['data', 'csv'].join('.')]) {\n  try { fs.writeFileSync(p, 'x'); console.log('wrote'); } catch (e) { console.log('denied', e.code); }\n}\n";
        assert_strict_denies(Language::JavaScript, javascript);
        let e = backend.run_js(javascript).await;
        assert_eq!(e.stdout.matches("denied E").count(), 2, "{e:?}");
        assert!(!e.stdout.contains("wrote"), "{e:?}");
    }
}

on_every_backend! {
    /// A file object reopened by its `__init__` on another path: strict denies it; run anyway,
    /// reopening it for writing outside the work dir meets a read-only root.
    async fn payload_file_reopened_by_init_meets_a_read_only_root(backend) {
        let code = "f = open('rt4.bin', 'wb', buffering=0)\ntry:\n    f.__init__('/etc/rt4_init', 'w')\n    print('wrote')\nexcept OSError as e:\n    print('denied', e.errno)\n";
        assert_strict_denies(Language::Python, code);
        let e = backend.run_py(code).await;
        assert!(e.stdout.starts_with("denied ") && !e.stdout.contains("wrote"), "{e:?}");
    }
}

// --- Payloads run directly in the sandbox, bypassing the policy. The first three were
// analyzer misses, caught since (their snippets are in the red-team fixture): the container
// still holds when they are run directly.

on_every_backend! {
    /// pydoc.pipepager hands its second argument to a shell.
    async fn payload_pydoc_pipepager_shell_is_unprivileged(backend) {
        let code = "import pydoc\npydoc.pipepager('', 'id -u > /work/pp_rt.txt; (echo x > /etc/rt) 2>/dev/null && echo wrote >> /work/pp_rt.txt || echo read-only >> /work/pp_rt.txt')\nprint(open('/work/pp_rt.txt').read())\n";
        let e = backend.run_py(code).await;
        assert!(common::uids_masked(&e.stdout).starts_with("UID\nread-only"), "{e:?}");
    }
}

on_every_backend! {
    /// numpy.ctypeslib loads a shared library without naming ctypes; the native code still runs
    /// unprivileged.
    async fn payload_numpy_ctypeslib_native_code_runs_unprivileged(backend) {
        let code = "import os\nimport numpy\nfor d in ['/lib/x86_64-linux-gnu', '/usr/lib/x86_64-linux-gnu', '/lib/aarch64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/lib']:\n    if os.path.exists(d + '/libc.so.6'):\n        libc_rt = numpy.ctypeslib.load_library('libc.so.6', d)\n        break\nprint(libc_rt.getuid(), libc_rt.setuid(0), libc_rt.getuid())\n";
        let e = backend.run_py(code).await;
        assert_eq!(common::uids_masked(&e.stdout), "UID -1 UID\n", "{e:?}");
    }
}

on_every_backend! {
    /// A variable the gateway did not pass through is absent, however os is reached.
    async fn payload_private_os_alias_finds_no_host_secret(backend) {
        assert!(std::env::var("CARGO_PKG_NAME").is_ok(), "run under cargo");
        let code = "import tempfile\nprint(tempfile._os.environ.get('CARGO_PKG_NAME'))\n";
        let e = backend.run_py(code).await;
        assert_eq!(e.stdout, "None\n", "{e:?}");
    }
}

on_every_backend! {
    async fn payload_write_to_etc_fails(backend) {
        let code = "for p_rt in ['/etc/passwd', '/etc/rt_new', '/bin/sh']:\n    try:\n        open(p_rt, 'a').write('x')\n        print('wrote', p_rt)\n    except OSError as e:\n        print('denied', e.errno)\n";
        let e = backend.run_py(code).await;
        assert_eq!(e.stdout.matches("denied").count(), 3, "{e:?}");
        // /var/tmp is world-writable in the image: only the read-only root stops this write,
        // on every backend.
        let e = backend.run_js("for (const p of ['/var/tmp/rt', '/etc/rt']) { try { require('fs').writeFileSync(p, 'x'); console.log('wrote'); } catch (e) { console.log(e.code); } }").await;
        let etc = backend.etc_write_error();
        assert_eq!(e.stdout, format!("EROFS\n{etc}\n"), "{e:?}");
    }
}

on_every_backend! {
    async fn payload_connect_to_a_documentation_address_fails(backend) {
        let code = "import socket\ntry:\n    socket.create_connection(('192.0.2.1', 80), timeout=3)\n    print('connected')\nexcept OSError as e:\n    print('blocked', e.errno)\n";
        let e = backend.run_py(code).await;
        assert!(e.stdout.starts_with("blocked"), "{e:?}");
    }
}

on_every_backend! {
    async fn payload_proc_self_environ_holds_no_host_variable(backend) {
        assert!(std::env::var("CARGO_PKG_NAME").is_ok(), "run under cargo");
        let code = "data_rt = open('/proc/self/environ', 'rb').read()\nprint(len(data_rt) > 0, b'CARGO_PKG_NAME=' in data_rt, b'CARGO_MANIFEST_DIR=' in data_rt)\n";
        let e = backend.run_py(code).await;
        assert_eq!(e.stdout, "True False False\n", "{e:?}");
    }
}

/// Library surfaces found by surveying the allowed modules' own call sites of open, eval,
/// import and subprocess rather than by an attacker. Each payload was allowed by strict: the
/// settings ones, `base64.main` and the `agg` loop ran a shell or printed /etc/passwd,
/// `require.resolve` told which files exist, `connect` tried a Unix socket
/// (`policies/fixtures/strict/library-surfaces.*` hold the ordinary code beside them).
#[test]
fn strict_denies_the_library_surface_classes() {
    const CYCLE: &str = "'[g := (g.gi_frame.f_back.f_back.f_globals[\"__builtins__\"][\"__import__\"](\"os\").system(\"id\") for _ in [1]), [a for a in g]]'";
    let rc_params: Vec<String> = [
        "import matplotlib as mpl\nmpl.rcParamsDefault['axes.prop_cycle'] = CYCLE\n",
        "import matplotlib as mpl\nmpl.rcParamsOrig['axes.prop_cycle'] = CYCLE\nmpl.rcdefaults()\n",
        "import matplotlib as mpl\nr = mpl.rcParams.copy()\nr['axes.prop_cycle'] = CYCLE\n",
        "import matplotlib as mpl\nr = mpl.rcParams.find_all('axes')\nr['axes.prop_cycle'] = CYCLE\n",
        "import matplotlib as mpl\nr = mpl.rc_params()\nr['axes.prop_cycle'] = CYCLE\n",
        "import matplotlib as mpl\nmpl.RcParams.fromkeys(['axes.prop_cycle'], CYCLE)\n",
        "import matplotlib.pyplot as plt\nplt.style.library['x'] = {'axes.prop_cycle': CYCLE}\nplt.style.use('x')\n",
        "import matplotlib.pyplot as plt\nr = plt.rcParamsDefault\nr.update({'axes.prop_cycle': CYCLE})\n",
    ]
    .iter()
    .map(|code| code.replace("CYCLE", CYCLE))
    .collect();
    let mut python: Vec<&str> = rc_params.iter().map(String::as_str).collect();
    python.extend([
        // a command line that opens what `sys.argv` names
        "import base64, sys\nsys.argv.append('../etc/passwd')\nbase64.main()\n",
        // a method of the frame called by a name read from a loop: `eval` with `level=`
        // reaching the snippet's own globals
        "import pandas as pd\ndf = pd.DataFrame({'a': [1]})\nfor o in ['ev' + 'al']:\n    print(df.agg(o, expr=\"@pd.io.common.os.system('id')\", level=6))\n",
        "import pandas as pd\ndf = pd.DataFrame({'a': [1]})\nprint(df.agg(input(), expr=\"@pd.io.common.os.system('id')\", level=6))\n",
    ]);
    const JAVASCRIPT: &[&str] = &[
        // whether any file exists
        "let s = ''; for (const c of [47, 101, 116, 99, 47]) s += String.fromCharCode(c);\nconsole.log(require.resolve(s + 'passwd'));\n",
        // a piped stdout is a socket that connects anew
        "process.stdout.connect('x.sock');\n",
    ];
    assert_strict_denies_each(&python, JAVASCRIPT);
}

on_every_backend! {
    async fn payload_shell_runs_unprivileged_without_capabilities(backend) {
        let code = "import subprocess\nr_rt = subprocess.run(['/bin/sh', '-c', 'id; grep -E \"^(CapEff|CapPrm|NoNewPrivs)\" /proc/self/status'], capture_output=True, text=True)\nprint(r_rt.stdout)\n";
        let e = backend.run_py(code).await;
        let ids = common::uids_masked(&e.stdout);
        assert!(ids.starts_with("uid=UID"), "{e:?}");
        assert!(ids.contains("gid=UID"), "{e:?}");
        assert!(e.stdout.contains("CapEff:\t0000000000000000"), "{e:?}");
        assert!(e.stdout.contains("CapPrm:\t0000000000000000"), "{e:?}");
        // gVisor's /proc/self/status has no NoNewPrivs line; sandbox_limits asks prctl.
        if backend != common::Backend::Gvisor {
            assert!(e.stdout.contains("NoNewPrivs:\t1"), "{e:?}");
        }
    }
}

on_every_backend! {
    async fn payload_ctypes_libc_getuid_is_the_sandbox_user(backend) {
        let code = "import ctypes\nlibc_rt = ctypes.CDLL(None)\nprint(libc_rt.getuid(), libc_rt.geteuid(), libc_rt.setuid(0), libc_rt.getuid())\n";
        let e = backend.run_py(code).await;
        assert_eq!(common::uids_masked(&e.stdout), "UID UID -1 UID\n", "{e:?}");
    }
}

/// The eleventh pass's analyzer classes: a format method reached as a value or by
/// `methodcaller`, a docstring given by position to what `testmod` reads, numpy's
/// `refcheck=` switch, and a path rewritten through the global object by a sloppy callback.
/// (Its runner classes are tested in the sandbox: `log_formats_and_estimator_caches_stay_in_sight`,
/// `library_guards_refuse_what_data_would_steer`.)
#[test]
fn strict_denies_the_eleventh_pass_classes() {
    const PYTHON: &[&str] = &[
        "import operator\ntext = open('f.txt').read()\ndef probe():\n    return 1\nprint(operator.methodcaller('format', probe)(text))\n",
        "text = open('f.txt').read()\ndef probe():\n    return 1\nprint(list(map(str.format, [text], [probe])))\n",
        "text = open('f.txt').read()\nshow = text.format\ndef probe():\n    return 1\nprint(show(probe))\n",
        "text = open('f.txt').read()\ndef probe():\n    return 1\nprint(getattr(text, 'format')(probe))\n",
        "import operator\ntext = open('f.txt').read()\nprint(operator.attrgetter('format_map')(text)({'a': operator}))\n",
        "import doctest\ntext = open('doc.txt').read()\nclass Box:\n    size = property(lambda self: 1, None, None, text)\ndoctest.testmod()\n",
        "import doctest\nimport numpy as np\ntext = open('doc.txt').read()\ndef double(x):\n    return 2 * x\nclass Box:\n    size = property(np.vectorize(double, None, text))\ndoctest.testmod()\n",
        "import numpy as np\na = np.zeros(1 << 16, dtype=np.uint8)\nv = a[:]\na.resize(16, refcheck=False)\n",
        "import numpy as np\na = np.zeros(8)\noptions = dict(zip(['refcheck'], [False]))\na.resize(4, **options)\n",
    ];
    const JAVASCRIPT: &[&str] = &[
        "const fs = require('fs');\nname = 'notes.txt';\n[0].forEach(function () { this.name = '/etc/passwd'; });\nconsole.log(fs.readFileSync(name, 'utf8'));\n",
        "const fs = require('fs');\nvar folder = '.';\nPromise.resolve().then(function () { Object.assign(this, { folder: '/' }); });\nconsole.log(fs.readdirSync(folder));\n",
    ];
    assert_strict_denies_each(PYTHON, JAVASCRIPT);
}

/// The twelfth pass's analyzer classes: keyword names from data (`refcheck=` through a
/// partial, a grid's keys, extra keywords kept as attributes), a library's format class, an
/// object array over written bytes, native arrays trusted after construction, a descriptor
/// named from data, and a number given to `fs` as a path. (Its runner classes are tested in
/// the sandbox: `library_guards_refuse_what_data_would_steer`; its sessions in
/// `strict_judges_a_later_call_by_what_earlier_code_may_still_write`.)
#[test]
fn strict_denies_the_twelfth_pass_classes() {
    const PYTHON: &[&str] = &[
        "import numpy as np\nfrom functools import partial\nopts = dict(zip(['refcheck'], [False]))\na = np.zeros(8)\npartial(a.resize, **opts)(4)\n",
        "import numpy as np\nfrom scipy.interpolate import Rbf\nname = open('n.txt').read()\nx = np.linspace(0, 1, 5)\nRbf(x, x ** 2, **{name: 1})\n",
        "import os\nfrom matplotlib.ticker import StrMethodFormatter\ntext = open('f.txt').read()\ndef probe():\n    return 1\nprint(StrMethodFormatter(text)(probe))\n",
        "from sklearn.model_selection import GridSearchCV\nfrom sklearn.dummy import DummyClassifier\nGridSearchCV(DummyClassifier(), dict(zip(['str' + 'ategy'], [['prior']])))\n",
        "import numpy as np\ncells = np.ndarray((1,), dtype=object, buffer=bytearray(8))\n",
        "import numpy as np\nprint(np.rec.fromstring(bytes(8), dtype=[('cell', 'O')]))\n",
        "import numpy as np\nfrom scipy.interpolate import BSpline\nBSpline.construct_fast(np.arange(5.0), np.zeros(1), 0)\n",
        "import numpy as np\nfrom scipy import sparse\nm = sparse.csr_matrix(np.eye(3))\nm.indices[:] = 10\n",
        "import numpy as np\nfrom sklearn.neighbors import KDTree\ndata, order, nodes, bounds = KDTree(np.eye(3)).get_arrays()\n",
        "import functools\nname = open('n.txt').read()\nclass Holder:\n    pass\ncached = functools.cached_property(lambda self: 1)\ncached.__set_name__(Holder, name)\n",
        "print(open(5).read())\n",
    ];
    const JAVASCRIPT: &[&str] = &[
        "const fs = require('fs');\nfor (const fd of [5, 6]) console.log(fs.readFileSync(fd, 'utf8'));\n",
    ];
    assert_strict_denies_each(PYTHON, JAVASCRIPT);
}

/// The thirteenth pass's classes: a name with more than one binding folded through the one a
/// rule trusts (a module or builtin rebound to the snippet's own object, by a function, a
/// block, a closure or a second binding), `.query` and path methods skipped because the
/// object "resolves", a parenthesized docstring, numpy classes as object dtypes, an ndarray
/// subclass over bytes, and scipy objects' arrays changed after their check.
#[test]
fn strict_denies_the_thirteenth_pass_classes() {
    const PYTHON: &[&str] = &[
        "import os\nclass System:\n    class path:\n        join = staticmethod(lambda *p: open('h.txt').read())\nif True:\n    os = System\nprint(open(os.path.join('data', 'n.txt')).read())\n",
        "import os\nclass System:\n    class path:\n        join = staticmethod(lambda *p: open('h.txt').read())\ndef swap():\n    global os\n    os = System\nswap()\nprint(open(os.path.join('data', 'n.txt')).read())\n",
        "import timeit\npick = str\ndef pick(text):\n    return open('c.txt').read()\ntimeit.timeit(pick('1 + 1'), number=1)\n",
        "import pandas as pd\ndef frame():\n    return None\nframe = pd.DataFrame({'a': [1]})\nprint(frame.query(open('q.txt').read()))\n",
        "import math\nfrom pathlib import Path\nlink = math\nlink = Path('link.txt')\nlink.symlink_to(open('t.txt').read())\n",
        "import pandas as pd\nhow = len\nhow = 'qu' + 'ery'\nprint(pd.DataFrame({'a': [1]}).agg(how, expr=open('q.txt').read()))\n",
        "import doctest\ndef report():\n    (\"\"\"\n    >>> import os\n    >>> os.popen('id').read()\n    \"\"\")\ndoctest.testmod()\n",
        "import numpy as np\ncells = np.ndarray((1,), dtype=np.ndarray, buffer=bytearray(8))\n",
        "import numpy as np\nclass Cells(np.ndarray):\n    pass\ncells = Cells((1,), dtype=object, buffer=bytearray(8))\n",
        "import numpy as np\nfrom scipy import sparse\nm = sparse.csr_matrix(np.eye(3))\nm.data = np.zeros(1)\nprint(m @ np.ones(3))\n",
        "import numpy as np\nfrom scipy.interpolate import BSpline\nb = BSpline(np.arange(5.0), np.ones(4), 0)\nb.c = np.zeros(1)\n",
    ];
    const JAVASCRIPT: &[&str] = &[
        "var path = require('path');\nconst fs = require('fs');\nfunction swap() { path = { join: () => fs.readFileSync('h.txt', 'utf8') }; }\nswap();\nconsole.log(fs.readFileSync(path.join('data', 'n.txt'), 'utf8'));\n",
        "const fs = require('fs');\nlet { join } = require('path');\njoin = () => fs.readFileSync('h.txt', 'utf8');\nconsole.log(fs.readFileSync(join('data', 'n.txt'), 'utf8'));\n",
        "const fs = require('fs');\nlet pick = String;\npick = () => './helper.dat';\nrequire(pick('fs'));\n",
        "const fs = require('fs');\nlet B = Buffer;\nB = { from: () => ({ toString: () => fs.readFileSync('h.txt', 'utf8') }) };\nconsole.log(fs.readFileSync(B.from('notes.txt').toString(), 'utf8'));\n",
    ];
    assert_strict_denies_each(PYTHON, JAVASCRIPT);
}

/// The fourteenth pass's analyzer classes: an array over bytes built through a splat, an
/// array class handed on (a `type()` base, `partial`, `map`), a value that is one of two
/// expressions (`math if c else frame`), and a session name whose later values were not
/// carried (`var pick = String; pick = () => ...`).
#[test]
fn strict_denies_the_fourteenth_pass_classes() {
    const PYTHON: &[&str] = &[
        "import numpy as np\nargs = [(1,), object, bytearray(8)]\ncells = np.ndarray(*args)\n",
        "import numpy as np\nCells = type('Cells', (np.ndarray,), {})\ncells = Cells((1,), dtype=object, buffer=bytearray(8))\n",
        "import numpy as np\nfrom functools import partial\nmake = partial(np.ndarray, (1,), object)\ncells = make(buffer=bytearray(8))\n",
        "import math\nimport pandas as pd\nframe = math if len('x') > 5 else pd.DataFrame({'a': [1]})\nprint(frame.query(open('q.txt').read()))\n",
    ];
    assert_strict_denies_each(PYTHON, &[]);
    let policy = load("strict").unwrap();
    let (_, first) = analyze_with(
        Language::JavaScript,
        b"var pick = String;\npick = () => require('fs').readFileSync('h.txt', 'utf8');\n",
        &Carried::default(),
    );
    let (second, _) = analyze_with(
        Language::JavaScript,
        b"const fs = require('fs');\nconsole.log(fs.readFileSync(pick('data/notes.txt'), 'utf8'));\n",
        &first,
    );
    assert_eq!(policy.judge(&second).verdict, Verdict::Deny);
}

/// Fifteenth pass: `~user/..` paths a reader expands, attributes of `__main__` and of a
/// module's other members, `sys`'s streams a library swaps, decorated definitions and
/// metaclasses, a library base, and a pandas expression calling what an expression gives.
#[test]
fn strict_denies_the_fifteenth_pass_classes() {
    const PYTHON: &[&str] = &[
        "import pandas as pd\nprint(pd.read_csv('~sys/../etc/passwd', sep='\\t', header=None))\n",
        "import pandas as pd\nimport __main__\nframe = pd.DataFrame({'a': [1]})\nprint(__main__.frame.query(open('q.txt').read()))\n",
        "import pandas as pd\nframe = pd.DataFrame({'a': [1]})\nfrom __main__ import frame as table\nprint(table.query(open('q.txt').read()))\n",
        "import sys\nimport pandas as pd\nout = sys.stdout\nout.frame = pd.DataFrame({'a': [1]})\nprint(sys.stdout.frame.query(open('q.txt').read()))\n",
        "import sys, contextlib\nimport pandas as pd\nwith contextlib.redirect_stdout(pd.DataFrame({'a': [1]})):\n    r = sys.stdout.query(open('q.txt').read())\n",
        "import pandas as pd\ndef make(f):\n    return pd.DataFrame({'a': [1]})\n@make\ndef frame():\n    pass\nprint(frame.query(open('q.txt').read()))\n",
        "import pandas as pd\ndef make(name, bases, ns):\n    return pd.DataFrame({'a': [1]})\nclass frame(metaclass=make):\n    pass\nprint(frame.query(open('q.txt').read()))\n",
        "import pandas as pd\nclass Frame(pd.DataFrame):\n    pass\nprint(Frame.query(Frame({'a': [1]}), open('q.txt').read()))\n",
        "import pandas as pd\nrd = pd.read_csv\np = open('q.txt').read()\nframe = pd.DataFrame({'a': [1]})\nprint(frame.eval('(@rd)(@p)', engine='python'))\n",
        "from scipy import sparse\nm = sparse.coo_array(([1.0], ([0], [0])), shape=(1, 1))\nrows, cols = m.coords\ncols[:] = 4096\n",
        "from sklearn.tree import DecisionTreeRegressor\nt = DecisionTreeRegressor().fit([[0.0], [1.0]], [0.0, 1.0])\nt.tree_.feature[0] = 4096\n",
        "from sklearn.neighbors import KDTree\nt = KDTree([[0.0], [1.0]])\nt.idx_array = [4096, 4097]\n",
        // a keeper's maker called with the snippet's function: `staticmethod(make)(f)` is `make(f)`
        "import pandas as pd\ndef make(f):\n    return pd.DataFrame({'a': [1]})\n@staticmethod(make)\ndef frame():\n    pass\nprint(frame.query(open('q.txt').read()))\n",
        "import functools\nimport pandas as pd\ndef make(f):\n    return pd.DataFrame({'a': [1]})\n@functools.lru_cache(maxsize=make)\ndef frame():\n    pass\nprint(frame.query(open('q.txt').read()))\n",
        "import sys\nimport pandas as pd\nsys.modules['statistics'] = pd.DataFrame({'a': [1]})\nimport statistics\nprint(statistics.query(open('q.txt').read()))\n",
        "import pandas as pd\nrd = pd.read_csv\np = open('q.txt').read()\nframe = pd.DataFrame({'a': [1]})\nprint(frame.eval('@rd\u{203f}(@p)', engine='python'))\n",
    ];
    assert_strict_denies_each(PYTHON, &[]);
}

/// The seventeenth pass: pandas expression text read as Python's tokenizer reads it (three
/// quotes, names beyond ASCII), `deepcopy`'s memo, matplotlib's accessors composing a method
/// name, and subclasses of native-array classes replacing how instances are made or checked.
#[test]
fn strict_denies_the_seventeenth_pass_classes() {
    const PYTHON: &[&str] = &[
        "import pandas as pd\nframe = pd.DataFrame({'a': [1]})\nprint(frame.query(\"'''x'y''' != @pd.io.common.os.system('id') or '''w'v'''\", engine='python'))\n",
        "import os as o\u{203f}1\nimport pandas as pd\nframe = pd.DataFrame({'a': [1]})\nprint(frame.query(\"@o\u{203f}1.system('id') == 0\", engine='python'))\n",
        "import copy\nimport numpy as np\nfrom scipy.sparse import csr_array\nm = csr_array(np.eye(2))\nclass Memo(dict):\n    pass\nm2 = copy.deepcopy(m, Memo())\n",
        "import copy\nfrom scipy.sparse import csr_array\nm2 = copy.deepcopy(csr_array((1, 1)), memo={})\n",
        "import copy, functools\nfrom scipy.sparse import csr_array\ncopier = functools.partial(copy.deepcopy, memo={})\n",
        "import matplotlib.pyplot as plt\nfrom sklearn.neighbors import KDTree\ntree = KDTree([[0.0], [1.0]])\ndata, order, nodes, bounds = plt.getp(tree, 'arrays')\n",
        "import matplotlib.pyplot as plt\nfrom sklearn.neighbors import KDTree\nplt.getp(KDTree([[0.0], [1.0]]))\n",
        "import numpy as np\nfrom scipy.sparse import coo_array\nclass Loose(coo_array):\n    def _check(self):\n        pass\n",
        "import numpy as np\nfrom scipy.interpolate import BSpline\nclass Quick(BSpline):\n    def __init__(self, t, c, k):\n        self.t, self.c, self.k = t, c, k\n",
        "from scipy.sparse import coo_array\nLoose = type('Loose', (coo_array,), {'_check': lambda self: None})\n",
    ];
    assert_strict_denies_each(PYTHON, &[]);
    // A function of one call reading names a later call binds: some call is denied.
    let sessions: &[(Language, &[&str])] = &[
        (
            Language::Python,
            &[
                "def run():\n    return frame.query(text, engine='python')\n",
                "import pandas as pd\nframe = pd.DataFrame({'a': [1]})\ntext = bytes([97]).decode()\nprint(run())\n",
            ],
        ),
        (
            Language::Python,
            &[
                "def show():\n    print(reader(where, sep='\\t'))\n",
                "import pandas as pd\nreader = pd.read_csv\nwhere = 'data.csv'\nshow()\n",
            ],
        ),
        (
            Language::JavaScript,
            &[
                "function show() { return files.readFileSync(where, 'utf8'); }\n",
                "var files = require('fs');\nvar where = 'data.txt';\nconsole.log(show());\n",
            ],
        ),
    ];
    for (language, calls) in sessions {
        let verdicts = strict_session_verdicts(*language, calls);
        assert!(verdicts.contains(&Verdict::Deny), "{calls:?}: {verdicts:?}");
    }
    // Functions defined before the data they read, the data plain: every call allowed.
    let plain = [
        "def total():\n    return sum(values) * scale\n",
        "values = [1, 2, 3]\nscale = 2\nprint(total())\n",
    ];
    assert_eq!(
        strict_session_verdicts(Language::Python, &plain),
        [Verdict::Allow, Verdict::Allow]
    );
}

/// The eighteenth pass: a collection of paths, a native-array subclass made through the
/// snippet's own classes or a decorator, `__match_args__` naming a denied attribute, and an
/// artist class's dispatch called on any object; sessions rebinding what earlier functions
/// read are the gateway's (`a_session_call_rebinding_what_earlier_functions_read_...`).
#[test]
fn strict_denies_the_eighteenth_pass_classes() {
    const PYTHON: &[&str] = &[
        "from sklearn.datasets import load_svmlight_files\nwhere = ''.join(chr(c) for c in [47, 101, 116, 99])\nprint(load_svmlight_files([where]))\n",
        "from scipy.interpolate import BSpline\nclass Mid(BSpline):\n    pass\nclass Quick(Mid):\n    def __init__(self, t, c, k):\n        self.t, self.c, self.k = t, c, k\n",
        "from scipy.interpolate import BSpline\nclass Own:\n    def __init__(self, t, c, k):\n        self.t, self.c, self.k = t, c, k\nclass Quick(Own, BSpline):\n    pass\n",
        "import dataclasses\nfrom scipy.interpolate import BSpline\n@dataclasses.dataclass\nclass Quick(BSpline):\n    t: object\n    c: object\n    k: int\n",
        "import abc\nfrom sklearn.neighbors import KDTree\nclass Shape(abc.ABC):\n    __match_args__ = (''.join(['idx', '_array']),)\nShape.register(KDTree)\n",
        "import abc\nclass Shape(abc.ABC):\n    __match_args__ = ('idx_array',)\n",
        "import matplotlib.artist\nfrom sklearn.neighbors import KDTree\nprint(matplotlib.artist.Artist.properties(KDTree([[0.0], [1.0]]))['arrays'])\n",
    ];
    assert_strict_denies_each(PYTHON, &[]);
    // Ordinary code of the same shapes stays allowed.
    assert_strict_allows_each(&[
        "import pandas as pd\nframe = pd.DataFrame({'a': [1, 2]})\nprint(frame.replace([1], 3))\n",
        "class P:\n    __match_args__ = ('x', 'y')\n    def __init__(self, x, y):\n        self.x, self.y = x, y\nmatch P(1, 2):\n    case P(a, b):\n        print(a + b)\n",
        "from scipy.sparse import coo_array\nclass Named(coo_array):\n    def describe(self):\n        return self.shape\n",
        "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.set(xlabel='x', title='t')\nplt.setp(ax.get_xticklabels(), rotation=45)\n",
    ]);
}

/// The nineteenth pass: native-array subclasses through base expressions the analyzer must look
/// into (`*bases`, `typing.cast`, `next(iter([...]))`) or with another library's base whose
/// constructor builds them, and an artist dispatch called through the snippet's own class;
/// generator expressions of a session are the gateway's (judged again like functions).
#[test]
fn strict_denies_the_nineteenth_pass_classes() {
    const PYTHON: &[&str] = &[
        "import pandas as pd\nfrom scipy.interpolate import BSpline\nclass Quick(pd.Series, BSpline):\n    pass\n",
        "import pandas as pd\nfrom scipy.interpolate import BSpline\nQuick = type('Quick', (pd.Series, BSpline), {})\n",
        "from scipy.interpolate import BSpline\nbases = [BSpline]\nclass Quick(*bases):\n    def __init__(self, t, c, k):\n        self.t, self.c, self.k = t, c, k\n",
        "import typing\nfrom scipy.interpolate import BSpline\nclass Quick(typing.cast(type, BSpline)):\n    def __init__(self, t, c, k):\n        self.t, self.c, self.k = t, c, k\n",
        "from scipy.interpolate import BSpline\nclass Quick(next(iter([BSpline]))):\n    def __init__(self, t, c, k):\n        self.t, self.c, self.k = t, c, k\n",
        "import matplotlib.artist\nfrom sklearn.neighbors import KDTree\nclass Mine(matplotlib.artist.Artist):\n    pass\nprint(Mine.properties(KDTree([[0.0], [1.0]])))\n",
    ];
    assert_strict_denies_each(PYTHON, &[]);
    assert_strict_allows_each(&[
        "import collections\nclass P(collections.namedtuple('P', 'x y')):\n    def __repr__(self):\n        return 'p'\nclass E(Exception):\n    def __init__(self, m):\n        super().__init__(m)\n",
        "from scipy.sparse import csr_matrix\nclass Named(csr_matrix):\n    def describe(self):\n        return self.shape\n",
    ]);
}

/// The twentieth pass: matplotlib's getter dispatch reached with its object as a keyword,
/// through a class made by `type()`, or kept as a value; classes deriving from a native-array
/// class made by `type()` with bases that are not a literal tuple, or by other class makers.
/// Each was allowed by the binary the pass attacked.
#[test]
fn strict_denies_the_twentieth_pass_classes() {
    const INIT: &str = "from scipy.interpolate import BSpline\nclass Init:\n    def __init__(self, t, c, k):\n        self.t, self.c, self.k = t, c, k\n";
    let python: Vec<String> = [
        "import matplotlib.artist\nfrom sklearn.neighbors import KDTree\nprint(matplotlib.artist.Artist.properties(self=KDTree([[0.0], [1.0]])))\n",
        "import matplotlib.artist\nfrom sklearn.neighbors import KDTree\nclass Mine(matplotlib.artist.Artist):\n    pass\nm = Mine.properties\nprint(m(KDTree([[0.0], [1.0]])))\n",
        "import functools, matplotlib.artist\nfrom sklearn.neighbors import KDTree\nclass Mine(matplotlib.artist.Artist):\n    pass\nprint(functools.partial(Mine.properties, KDTree([[0.0], [1.0]]))())\n",
        "import matplotlib.artist\nfrom sklearn.neighbors import KDTree\nMine = type('Mine', (matplotlib.artist.Artist,), {})\nprint(Mine.properties(KDTree([[0.0], [1.0]])))\n",
        "import matplotlib.artist\nclass Mine(matplotlib.artist.Artist):\n    pass\nsetter = Mine.set\n",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain(
        [
            "bases = (Init, BSpline)\nQuick = type('Quick', bases, {})\n",
            "Quick = type('Quick', tuple([Init, BSpline]), {})\n",
            "Quick = type('Quick', (Init,) + (BSpline,), {})\n",
            "Quick = type('Quick', (Init, BSpline)[:], {})\n",
            "import abc\nQuick = abc.ABCMeta('Quick', (Init, BSpline), {})\n",
            "import dataclasses\nQuick = dataclasses.make_dataclass('Quick', [('t', object)], bases=(BSpline,))\n",
        ]
        .iter()
        .map(|tail| format!("{INIT}{tail}")),
    )
    .collect();
    assert_strict_denies_each(&python, &[]);
    assert_strict_allows_each(&[
        "import numpy as np\nfrom scipy.spatial import cKDTree\npoints = np.random.default_rng(0).random((10, 2))\nprint(cKDTree(points).query(points[:2], k=2))\n",
        "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.set(xlabel='x', title='t')\nd = {}\nd.update(a=1)\n",
        "Point = type('Point', (object,), {'x': 0})\nprint(type(Point()))\n",
        "from scipy.interpolate import BSpline\nSpline = type('Spline', (BSpline,), {'label': 'mine'})\n",
    ]);
}

/// The twenty-first pass: type text computed at run time, which `typing.get_type_hints`
/// evaluates as code. A functional form's fields built outside the call (a variable, a
/// comprehension, a `**` splat), and data standing inside a type (`List[code[0]]`,
/// `Optional[t.strip()]`, a name bound to an item of data). The runner refuses each at run
/// time too; the analyzer now denies them before they run.
#[test]
fn strict_denies_the_twenty_first_pass_classes() {
    const DATA: &str = "import json, typing, dataclasses\nfrom typing import List, Optional, Tuple\nd = json.loads('{\"k\": \"print(1)\"}')\nt = d['k']\n";
    let python = after(
        DATA,
        &[
            "fields = [('a', t)]\nN = typing.NamedTuple('N', fields)\n",
            "T = typing.TypedDict('T', {k: v for k, v in d.items()})\n",
            "C = dataclasses.make_dataclass('C', [(k, v) for k, v in d.items()])\n",
            "N = typing.NamedTuple('N', [('a', int), *[('b', t)]])\n",
            "N = typing.NamedTuple('N', **d)\n",
            "def f(x: List[d['k']]): pass\n",
            "def f(x: Optional[t.strip()]): pass\n",
            "def f(x: List[(t)]): pass\n",
            "def f(x: List[[t][0]]): pass\n",
            "def f(x: Tuple[int, t or 'int']): pass\n",
            "def f(x: typing.Callable[[t.lower()], int]): pass\n",
            "Alias = List[(u := t)]\n",
            "N = typing.NamedTuple('N', [('a', List[t.upper()])])\n",
        ],
    );
    assert_strict_denies_each(&python, &[]);
    assert_strict_allows_each(&[
        "from typing import List, Optional, Dict, Tuple, Callable, Annotated, Literal, Any, TypeVar, Generic\nimport numpy as np, numpy.typing as npt\nT = TypeVar('T')\nVector = list[float]\nclass Stack(Generic[T]):\n    pass\ndef f(a: List[int], b: Dict[str, Tuple[int, ...]], c: Callable[[int], str], d: Annotated[int, len('meta')], e: Literal['x', 'y'], g: np.ndarray, h: npt.NDArray[np.float64], i: 'np.ndarray | None', j: int | None = None, k: Vector = None, l: Stack[int] = None) -> Optional['Stack[T]']:\n    pass\n",
        "import dataclasses\nfrom typing import NamedTuple, TypedDict, List\nP = NamedTuple('P', [('x', float), ('y', float)])\nTD = TypedDict('TD', {'a': int, 'b': List[str]})\nC = dataclasses.make_dataclass('C', ['a', ('b', int), ('c', list, dataclasses.field(default_factory=list))])\n",
        "import numpy as np\nx = np.c_[np.ones(3), np.zeros(3)]\nq = np.r_[0:3, np.arange(2)]\nw: int = len([1]) + 1\n",
    ]);
}

/// The twenty-second pass: a path's flavour module reached on an instance
/// (`Path('.').parser.os`), directly or through format fields and attrgetter; a method of
/// the snippet's class given a library object as `self` (its private names are then the
/// library's); writers the path rule did not know (a canvas's `print_<format>`,
/// `AxesImage.write_png`, an archive's `extract`/`extractall`); a Node stream's `fd`
/// option; `Buffer.allocUnsafe`'s uninitialised memory; matplotlib's `backend_registry`,
/// which imports any module a `module://` name gives.
#[test]
fn strict_denies_the_twenty_second_pass_classes() {
    const SHM: &str = "'/dev/shm/x'";
    let python: Vec<String> = [
        "from pathlib import Path\nprint(Path('.').parser.os.popen('id').read())\n".to_string(),
        "from pathlib import Path\nprint('{0.parser.os.environ}'.format(Path('.')))\n".into(),
        "import operator\nfrom pathlib import Path\nprint(operator.attrgetter('parser.os.environ')(Path('.')))\n".into(),
        "import warnings\nclass Peek:\n    _module = None\n    def get(self):\n        return self._module\nprint(Peek.get(warnings.catch_warnings()).sys)\n".into(),
        "import warnings, functools\nclass Peek:\n    def get(self):\n        return self._module\nprint(functools.partial(Peek.get, warnings.catch_warnings())())\n".into(),
        "import warnings\nclass Peek:\n    @staticmethod\n    def get(self):\n        return self._module\nprint(Peek().get(warnings.catch_warnings()))\n".into(),
        "import warnings\nclass Peek:\n    def get(self):\n        return self._module\nprint(getattr(Peek, 'get')(warnings.catch_warnings()))\n".into(),
        "import warnings\nclass Peek:\n    def get(self):\n        return self._module\nprint(type(Peek()).get(warnings.catch_warnings()))\n".into(),
        "import warnings\nclass Peek:\n    def get(self):\n        return self._module\n    @classmethod\n    def via(cls, other):\n        return cls.get(other)\nprint(Peek.via(warnings.catch_warnings()))\n".into(),
        "from pathlib import Path\nclass Retarget:\n    def to(self, where):\n        self._str = where\np = Path('notes.txt')\nRetarget.to(p, '/etc/hostname')\nprint(p.read_text())\n".into(),
        format!("import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nfig.canvas.print_png({SHM})\n"),
        format!("import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nfig.canvas.print_pdf(filename={SHM})\n"),
        format!("import matplotlib.pyplot as plt, numpy as np\nfig, ax = plt.subplots()\nim = ax.imshow(np.eye(3))\nim.write_png({SHM})\n"),
        format!("import numpy as np\nnp.savez('b.npz', a=np.arange(3))\nnp.load('b.npz').zip.extract('a.npy', {SHM})\n"),
        format!("import numpy as np\nnp.savez('b.npz', a=np.arange(3))\nnp.load('b.npz').zip.extractall(path={SHM})\n"),
        "import matplotlib.pyplot as plt\nprint(plt.backend_registry.load_backend_module('module://os').popen('id').read())\n".into(),
        "from matplotlib import rcsetup\nprint(rcsetup.backend_registry.load_backend_module('module://subprocess'))\n".into(),
        "import matplotlib.pylab as pl\nregistry = pl.backend_registry\n".into(),
    ]
    .to_vec();
    assert_strict_denies_each(
        &python,
        &[
            "const fs = require('fs');\nfs.createReadStream('data.txt', { fd: 5 }).on('data', (d) => console.log(String(d)));\n",
            "const fs = require('fs');\nconst options = JSON.parse('{\"fd\": 5}');\nfs.createWriteStream('out.txt', options).write('x');\n",
            "console.log(Buffer.allocUnsafe(4096).toString('latin1'));\n",
            "const { Buffer: B } = require('buffer');\nconsole.log(B.allocUnsafeSlow(4096).toString('latin1'));\n",
        ],
    );
    assert_strict_allows_each(&[
        "class Base:\n    _limit = 3\n    def __init__(self, n):\n        self._n = n\nclass Sub(Base):\n    def __init__(self, n):\n        Base.__init__(self, n)\n        self._m = Base._limit\n    @classmethod\n    def make(cls):\n        return cls(cls._limit)\n    @property\n    def m(self):\n        return self._m\nprint(Sub.make().m)\n",
        "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nfig.canvas.print_png('plot.png')\nfig.savefig('plot.pdf')\n",
        "import pandas as pd\ns = pd.Series(['a1', 'b2'])\nprint(s.str.extract(r'(\\d)', expand=False))\n",
    ]);
}

/// The twenty-third pass: type text evaluated in another module's namespace (`__module__`
/// set however, `module=` given to a typed form, an enum or a forward reference, or copied
/// onto a class by `functools`); a library's private instance names read through the
/// snippet's own subclass or mixin; pandas' `query` reached through the snippet's own
/// `query` by giving its method another `self` or by a subclass with a library base first.
#[test]
fn strict_denies_the_twenty_third_pass_classes() {
    const POPEN: &str = "import typing\nclass popen:\n    pass\n";
    let mut python = after(
        POPEN,
        &[
            "class C:\n    __module__ = 'os'\n    a: 'popen'\nprint(typing.get_type_hints(C))\n",
            "class C:\n    a: 'popen'\nC.__module__ = 'os'\nprint(typing.get_type_hints(C))\n",
            "class C:\n    a: 'popen'\nsetattr(C, '__module__', 'os')\nprint(typing.get_type_hints(C))\n",
            "class Base:\n    def __init_subclass__(cls):\n        cls.__module__ = 'os'\nclass C(Base):\n    a: 'popen'\n",
            "import dataclasses\nC = dataclasses.make_dataclass('C', [('a', 'popen')], module='os')\n",
            "import enum\nE = enum.Enum('E', 'A B', module='os')\n",
            "print(typing.ForwardRef('popen', module='os'))\n",
            "print(typing.ForwardRef('popen', True, 'os'))\n",
            "import functools, os.path\nclass C:\n    a: 'popen'\nfunctools.update_wrapper(C, os.path.join)\n",
        ],
    );
    python.extend(
        [
            "import warnings\nclass CW(warnings.catch_warnings):\n    _module = None\n    def get(self):\n        return self._module\nprint(CW().get())\n",
            "import warnings\nclass Peek:\n    _module = None\n    def get(self):\n        return self._module\nclass X(warnings.catch_warnings, Peek):\n    pass\nprint(X().get())\n",
            "import pandas as pd\nclass Seg:\n    def query(self, s):\n        return s\n    def run(self, s):\n        return self.query(s)\nprint(Seg.run(pd.DataFrame({'a': [1]}), 'a > 0'))\n",
            "import pandas as pd\nclass Q:\n    def query(self, s):\n        return s\n    def run(self, s):\n        return self.query(s)\nclass F(pd.DataFrame, Q):\n    pass\nprint(F({'a': [1]}).run('a > 0'))\n",
            "import pandas as pd\nclass Q:\n    def query(self, s):\n        return s\n    def run(self, s):\n        return self.query(s)\nF = type('F', (pd.DataFrame, Q), {})\n",
        ]
        .map(String::from),
    );
    assert_strict_denies_each(&python, &[]);
    assert_strict_allows_each(&[
        "from typing import NamedTuple, List, Optional\nclass Point(NamedTuple):\n    x: float\n    y: float\nclass Shape:\n    count = 0\n    def __init__(self, name: str) -> None:\n        self._name = name\n        Shape.count += 1\n    @property\n    def name(self) -> str:\n        return self._name\nclass Square(Shape):\n    def __init__(self, side: float) -> None:\n        Shape.__init__(self, 'square')\n        self._side = side\nshapes: List[Shape] = [Square(2)]\nprint(isinstance(shapes[0], Shape), Point(1, 2)._asdict(), Point(1, 2)._replace(x=3), Point._fields)\n",
        "class Fenwick:\n    def __init__(self, n):\n        self._tree = [0] * (n + 1)\n    def query(self, i, j):\n        return sum(self._tree[i:j])\n    def get(self, i):\n        return self.query(i, i + 1)\nprint(Fenwick(4).get(1))\n",
    ]);
}

/// The twenty-fourth pass: a receiver relayed through another class's method that may be
/// given anything (a `staticmethod`, taken unbound, a property's `fget`); a library class's
/// method run on the snippet's own object; the module's `__name__` bound, which classes
/// made after take as their module for type text; `open`'s `opener`, which opens any
/// descriptor; a metaclass's own `query`, whose classes may derive from `pd.DataFrame`; a
/// path class's `__init__` run on a plain class's object; Node's `util.debug`, which is
/// `util.debuglog`.
#[test]
fn strict_denies_the_twenty_fourth_pass_classes() {
    const PEEK: &str = "import warnings\nclass Peek:\n    _module = None\n    def get(self):\n        return self._module\n";
    let mut python = after(
        PEEK,
        &[
            "class Relay:\n    @staticmethod\n    def go(self):\n        return Peek.get(self)\nprint(Relay.go(warnings.catch_warnings()))\n",
            "class Relay:\n    def go(self):\n        return Peek.get(self)\nprint(Relay.go(warnings.catch_warnings()))\n",
            "class Relay:\n    @property\n    def go(self):\n        return Peek.get(self)\nprint(Relay.go.fget(warnings.catch_warnings()))\n",
            "class Grab(Peek):\n    def grab(self):\n        warnings.catch_warnings.__init__(self)\n        return self._module\nprint(Grab().grab())\n",
            "p = Peek()\nwarnings.catch_warnings.__init__(p)\nprint(p.get())\n",
        ],
    );
    python.extend(
        [
            "import typing\nclass popen:\n    pass\n__name__ = 'os'\nclass C:\n    a: 'popen'\nprint(typing.get_type_hints(C))\n",
            "import typing\nclass popen:\n    pass\nfor __name__ in ['os']:\n    pass\nclass C:\n    a: 'popen'\n",
            "import typing\nclass popen:\n    pass\ndef rename():\n    global __name__\n    __name__ = 'os'\nrename()\n",
            "f = open('data.txt', 'w', opener=lambda path, flags: 4)\nf.write('0')\n",
            "import pathlib\nf = pathlib.Path('data.txt').open('w', opener=lambda p, fl: 1)\n",
            "import pandas as pd\nclass Meta(type):\n    def query(cls, frame, s):\n        return s\n    def run(cls, frame, s):\n        return cls.query(frame, s)\nF = Meta('F', (pd.DataFrame,), {})\nprint(F.run(pd.DataFrame({'a': [1]}), 'a > 0'))\n",
            "import gzip\np = ''.join(chr(c + 1) for c in [46, 100, 115, 98])\nclass Box:\n    def load(self, where):\n        gzip.GzipFile.__init__(self, where, 'rb')\n        return self.fileobj.read()\nprint(Box().load(p))\n",
        ]
        .map(String::from),
    );
    assert_strict_denies_each(&python, &["require('util').debug('section');\n"]);
    assert_strict_allows_each(&[
        "class Base:\n    def __init__(self, n):\n        self._n = n\nclass Mid(Base):\n    def __init__(self, n):\n        Base.__init__(self, n)\nclass Leaf(Mid):\n    def __init__(self, n):\n        Mid.__init__(self, n)\n        self._leaf = True\n    def both(self):\n        return self._n, self._leaf\nprint(Leaf(2).both(), __name__)\nwith open('out.txt', 'w') as f:\n    f.write('x')\n",
    ]);
}

/// The twenty-fifth pass reached the snippet's own class by something other than its name
/// and then either called its method unbound on a library object or made it a base next to
/// a library class: a class decorator's parameter, `__init_subclass__`'s or a
/// `classmethod`'s `cls`, the `__class__` cell, `.mro()`, `super()` in a `classmethod` or
/// `super(C, C)`, annotations read back (`get_args`, `get_type_hints`, even of text, a
/// dataclass's `fields`), a module's member (`__main__.Peek`), a base computed at run time,
/// and a name bound by a loop over instances.
#[test]
fn strict_denies_the_twenty_fifth_pass_classes() {
    const PEEK: &str = "import warnings, typing, dataclasses, __main__\nclass Peek:\n    _module = None\n    def grab(self):\n        return self._module\n";
    const LIB: &str = "warnings.catch_warnings()";
    let python = after(
        PEEK,
        &[
            &format!(
                "def register(kind):\n    kind.grab({LIB})\n    return kind\n@register\nclass Other(Peek):\n    pass\n"
            ),
            "KINDS = []\nclass Base:\n    _module = None\n    def grab(self):\n        return self._module\n    def __init_subclass__(cls, **kw):\n        KINDS.append(cls)\nclass Leaf(Base):\n    pass\nclass Both(warnings.catch_warnings, KINDS[0]):\n    pass\n",
            &format!(
                "class Kind(Peek):\n    @classmethod\n    def kind(cls):\n        return cls\nprint(Kind.kind().grab({LIB}))\n"
            ),
            "class Cell(Peek):\n    def kind(self):\n        return __class__\nclass Both(warnings.catch_warnings, Cell().kind()):\n    pass\n",
            &format!("print(Peek.mro()[0].grab({LIB}))\n"),
            &format!("T = typing.Type[Peek]\nprint(typing.get_args(T)[0].grab({LIB}))\n"),
            &format!(
                "def f(x: 'Peek'):\n    pass\nprint(typing.get_type_hints(f)['x'].grab({LIB}))\n"
            ),
            &format!(
                "@dataclasses.dataclass\nclass Holder:\n    k: Peek\nprint(dataclasses.fields(Holder)[0].type.grab({LIB}))\n"
            ),
            &format!(
                "class Sub(Peek):\n    @classmethod\n    def up(cls):\n        return super().grab\nprint(Sub.up()({LIB}))\n"
            ),
            &format!("class Sub(Peek):\n    pass\nprint(super(Sub, Sub).grab({LIB}))\n"),
            "class Both(warnings.catch_warnings, __main__.Peek):\n    pass\nprint(Both().grab())\n",
            "for p in [Peek()]:\n    warnings.catch_warnings.__enter__(p)\n",
        ],
    );
    assert_strict_denies_each(&python, &[]);
    assert_strict_allows_each(&[
        "class Account:\n    def __init__(self, owner):\n        self._owner = owner\n        self._balance = 0\n    def deposit(self, n):\n        self._balance += n\n        return self\n    @property\n    def balance(self):\n        return self._balance\n    @classmethod\n    def open(cls, owner):\n        return cls(owner)\n    def __repr__(self):\n        return f'{type(self).__name__}({self._owner!r})'\na = Account.open('ann').deposit(5)\nprint(a.balance, a, isinstance(a, Account), type(a) is Account)\n",
        "class Node:\n    def __init__(self, v):\n        self._v = v\n    def value(self):\n        return self._v\nclass Leaf(Node):\n    def __init__(self, v):\n        super().__init__(v)\n        super(Leaf, self).__init__(v)\n    def value(self):\n        return super().value() + 1\nprint(Leaf(1).value(), Node.__name__, str(Leaf))\n",
    ]);
}

/// The twenty-sixth pass named files by URLs in another case (`FILE:/etc/hostname`, read by
/// pandas as a file URL), gave every options object a descriptor through `Object.prototype`,
/// and took a stream's own `connect` out of its prototype with `Object.entries`.
#[test]
fn strict_denies_the_twenty_sixth_pass_classes() {
    assert_strict_denies_each(
        &[
            "import pandas as pd\nprint(pd.read_csv('FILE:/etc/hostname', header=None))\n",
            "import pandas as pd\nprint(pd.read_table('fIlE:/proc/self/envir%6fn', header=None))\n",
            "import pandas as pd\nprint(pd.read_csv('file:/etc/hostname#/../../tmp/x'))\n",
            "import pandas as pd\npd.DataFrame({'a': [1]}).to_csv('File:/dev/shm/x.csv')\n",
        ],
        &[
            "const fs = require('fs');\nObject.prototype.fd = 1;\nfs.createWriteStream('out.txt', {}).write('x');\n",
            "const fs = require('fs');\nObject.prototype['fd'] = 3;\nfs.createWriteStream('out.txt').write('x');\n",
            "const [name, connect] = Object.entries(Object.getPrototypeOf(process.stdout)).find(([k]) => k === 'connect');\nconnect.call(process.stdout, '/tmp/none.sock');\n",
            "const fns = Object.values(Object.getPrototypeOf(process.stdout));\nfns[3]('/run/x.sock');\n",
        ],
    );
    assert_strict_allows_each(&[
        "import pandas as pd\npd.DataFrame({'a': [1]}).to_csv('/tmp/out.csv')\nprint(pd.read_csv('FILE:/tmp/out.csv'))\n",
    ]);
}

/// The twenty-seventh pass took the snippet's class by looking `__class__` up by name
/// (`getattr`, `attrgetter`, dotted), then made it a base next to a library class or called
/// its method unbound on a library object, and reached a Node stream's native `_handle`
/// through a container. (Its other class, scipy objects changed after they were built, is
/// refused at run time: `native_index_arrays_reach_the_snippet_read_only`.)
#[test]
fn strict_denies_the_twenty_seventh_pass_classes() {
    const PEEK: &str = "import warnings, operator\nclass Peek:\n    _module = None\n    def grab(self):\n        return self._module\np = Peek()\n";
    let python = after(
        PEEK,
        &[
            "K = getattr(p, '__class__')\nprint(K.grab(warnings.catch_warnings()))\n",
            "print(operator.attrgetter('__class__')(p).grab(warnings.catch_warnings()))\n",
            "print(operator.attrgetter('__class__.grab')(p)(warnings.catch_warnings()))\n",
            "Both = type('Both', (warnings.catch_warnings, getattr(p, '__class__')), {})\nprint(Both().grab())\n",
            "w = warnings.catch_warnings()\nsetattr(w, '__class__', getattr(p, '__cla' + 'ss__'))\nprint(w.grab())\n",
        ],
    );
    assert_strict_denies_each(
        &python,
        &[
            "const zlib = require('zlib');\nconst kept = [zlib.createDeflate()];\nconsole.log(kept[0]._handle);\n",
            "const { _handle } = process.stdout;\nconsole.log(_handle);\n",
        ],
    );
}

/// The twenty-eighth pass gave keywords a rule judges by name through a `**` mapping whose
/// keys are readable (`refcheck=False` to `resize`, which frees memory a view still reads;
/// `usetex` to a text), through a function's `**kwargs`, or through an artist's `update`
/// mapping and `set_usetex`.
#[test]
fn strict_denies_the_twenty_eighth_pass_classes() {
    let python = after(
        "import functools\nimport numpy as np\nimport matplotlib.pyplot as plt\na = np.zeros(4096)\nv = a[:]\n",
        &[
            "kw = {'ref' + 'check': False}\nfunctools.partial(a.resize, **kw)(10_000_000)\n",
            "kw = {'refcheck': False}\nr = a.resize\nr(10_000_000, **kw)\n",
            "kw = dict(refcheck=False)\nfunctools.partial(np.ndarray.resize, a, **kw)(10_000_000)\n",
            "def grow(arr, n, **kw):\n    arr.resize(n, **kw)\ngrow(a, 10_000_000, refcheck=False)\n",
            "kw = {'use' + 'tex': True}\nplt.text(0.5, 0.5, r'\\input{/etc/hostname}', **kw)\n",
            "opts = {}\nopts['usetex'] = True\nplt.text(0, 0, 'x', **opts)\n",
            "t = plt.text(0.5, 0.5, 'x')\nt.update({'use' + 'tex': True})\n",
            "t = plt.text(0.5, 0.5, 'x')\nt.set_usetex(True)\n",
            "t = plt.text(0.5, 0.5, 'x')\nplt.setp(t, 'usetex', True)\n",
        ],
    );
    assert_strict_denies_each(&python, &[]);
    assert_strict_allows_each(&[
        "import matplotlib.pyplot as plt\ndef draw(x, **kw):\n    plt.plot(x, **kw)\ndraw([1, 2], color='red', lw=2)\nt = plt.text(0, 0, 'x')\nt.update({'color': 'blue'})\nplt.savefig('a.png')\n",
    ]);
}

/// The twenty-ninth pass gave `refcheck` twice, so that the value Python keeps (the last) was
/// not the one the analyzer read (a key written twice, stored twice, a mapping rebound or
/// spread over, callers giving different values); took the snippet's exception class back
/// whole from `sys.exc_info()` (and a warning record's `category`, `__exit__`'s first
/// argument); derived from a native-array class with a property or a class attribute
/// answering for its arrays; and freed a buffer a Node compressor's native handle still held
/// (taken out with `Object.values`, detached with `transfer`).
#[test]
fn strict_denies_the_twenty_ninth_pass_classes() {
    let mut python = after(
        "import numpy as np\na = np.zeros(4096)\nv = a[:]\n",
        &[
            "a.resize(10_000_000, **{'refcheck': True, 'refcheck': False})\n",
            "kw = {}\nkw['refcheck'] = False\nkw['refcheck'] = True\na.resize(10_000_000, **kw)\n",
            "kw = {'refcheck': True}\nkw = {'refcheck': False}\na.resize(10_000_000, **kw)\n",
            "a.resize(10_000_000, **{'refcheck': True, **{'refcheck': False}})\n",
            "def grow(n, **kw):\n    a.resize(n, **kw)\ngrow(1, refcheck=True)\ngrow(10_000_000, refcheck=False)\n",
        ],
    );
    python.extend(after(
        "import sys, warnings\nclass Peek(Exception):\n    _module = None\n    def grab(self):\n        return self._module\n",
        &[
            "try:\n    raise Peek()\nexcept Peek:\n    K = sys.exc_info()[0]\nprint(K.grab(warnings.catch_warnings()))\n",
            "try:\n    raise Peek()\nexcept Peek:\n    Both = type('Both', (warnings.catch_warnings, sys.exc_info()[0]), {})\nprint(Both().grab())\n",
        ],
    ));
    python.extend(after(
        "import numpy as np\nimport scipy.sparse as sp\nfrom matplotlib.tri import Triangulation\n",
        &[
            "class Sparse(sp.csr_matrix):\n    @property\n    def data(self):\n        return np.ones(1)\n    @data.setter\n    def data(self, value):\n        pass\nprint(Sparse(np.ones((64, 64))) @ np.ones(64))\n",
            "class Tri(Triangulation):\n    triangles = np.array([[0, 1, 4096]])\nprint(Tri([0.0, 1.0, 0.0], [0.0, 0.0, 1.0]))\n",
            "class Sparse(sp.csr_matrix):\n    pass\no = Sparse(np.ones((64, 64)))\nSparse.data = property(lambda self: np.ones(1))\nprint(o @ np.ones(64))\n",
            "class Sparse(sp.csr_matrix):\n    pass\nsetattr(Sparse, 'indices', property(lambda self: np.zeros(1, dtype=np.int32)))\n",
        ],
    ));
    // an exception's or a warning's class handed back by the interpreter or a library
    python.extend(after(
        "import warnings\nfrom sys import exc_info\nclass Base:\n    _module = None\n    def grab(self):\n        return self._module\n",
        &[
            "class Peek(Base, UserWarning):\n    pass\nwith warnings.catch_warnings(record=True) as seen:\n    warnings.simplefilter('always')\n    warnings.warn(Peek('note'))\nkind = seen[0].category\nMixed = type('Mixed', (warnings.catch_warnings, kind), {})\nprint(Mixed().grab())\n",
            "class Peek(Base, Exception):\n    pass\ntry:\n    raise Peek()\nexcept Exception:\n    kind = exc_info()[0]\nprint(kind.grab(warnings.catch_warnings()))\n",
            "class Peek(Base, Exception):\n    pass\nclass Catch:\n    def __enter__(self):\n        return self\n    def __exit__(self, kind, value, trace):\n        print(kind.grab(warnings.catch_warnings()))\n        return True\nwith Catch():\n    raise Peek()\n",
        ],
    ));
    assert_strict_denies_each(
        &python,
        &[
            "const zlib = require('zlib');\nconst handle = Object.values(zlib.createDeflate()).find((v) => v && v.init);\nconst buffer = new ArrayBuffer(64);\nhandle.init(15, 1, 8, 0, new Uint32Array(2), () => {}, new Uint8Array(buffer));\nbuffer.transfer();\n",
            "const copy = structuredClone(new ArrayBuffer(8), { transfer: [] });\n",
        ],
    );
    assert_strict_allows_each(&[
        "import numpy as np\nimport scipy.sparse as sp\nclass Scaled(sp.csr_matrix):\n    def total(self):\n        return float(self.sum())\nm = Scaled(np.eye(3))\nm.data = m.data * 2\nprint(m.total())\n",
    ]);
}

/// The thirtieth pass, against the classics, path proofs and the result, found a font file
/// named in a mapping of font properties (`legend(prop={"fname": ...})`), which FreeType
/// opened: an oracle of which files exist and how long they are. (Its forged result lines
/// are answered by the presentation: `what_the_program_prints_stays_inside_its_own_block`.)
#[test]
fn strict_denies_the_thirtieth_pass_classes() {
    let python = after(
        "import matplotlib.pyplot as plt\nfrom matplotlib.font_manager import FontProperties\nsecret = '/etc/' + 'shadow'\n",
        &[
            "plt.text(0, 0, 'x', fontproperties={'fname': secret})\n",
            "plt.plot([1]); plt.legend(['a'], prop=dict(fname=secret))\n",
            "t = plt.text(0, 0, 'x')\nt.set_fontproperties({'fname': '/etc/hostname'})\n",
            "plt.title('x', fontdict={'fname': '/proc/self/environ'})\n",
        ],
    );
    assert_strict_denies_each(&python, &[]);
    assert_strict_allows_each(&[
        "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.legend(['a'], prop={'size': 8})\nplt.title('x', fontdict={'fontsize': 12})\nplt.savefig('a.png')\n",
    ]);
}

/// The thirty-first pass took the snippet's class back through an exception base not named
/// like one (`ExceptionGroup`), changed a native-array subclass after it was made through
/// other target forms and through its own functions, and changed a `**` mapping through an
/// alias, a function, a container or `operator.setitem`. (Its font files named in other
/// forms, and its resizable buffers shrunk under a compressor, are refused at run time.)
#[test]
fn strict_denies_the_thirty_first_pass_classes() {
    let mut python = after(
        "import sys, warnings\nclass Holder:\n    _module = None\n    def grab(self):\n        return self._module\n",
        &[
            "class Peek(Holder, ExceptionGroup):\n    pass\ntry:\n    raise Peek('x', [ValueError()])\nexcept ExceptionGroup:\n    print(sys.exc_info()[0].grab(warnings.catch_warnings()))\n",
            "Base = KeyboardInterrupt\nclass Peek(Holder, Base):\n    pass\n",
        ],
    );
    python.extend(after(
        "import numpy as np\nimport scipy.sparse as sp\nfrom contextlib import nullcontext\nclass Sparse(sp.csr_matrix):\n    pass\nshort = property(lambda self: np.ones(1))\n",
        &[
            "def patch(k):\n    k.data = short\npatch(Sparse)\n",
            "(Sparse.data, other) = (short, 1)\n",
            "for Sparse.data in [short]:\n    pass\n",
            "with nullcontext(short) as Sparse.data:\n    pass\n",
            "kinds = [Sparse]\n",
        ],
    ));
    python.extend(after(
        "import operator\nimport numpy as np\na = np.zeros(4096)\nv = a[:]\nkw = {'refcheck': True}\n",
        &[
            "other = kw\nother['refcheck'] = False\na.resize(10_000_000, **kw)\n",
            "def flip(m):\n    m['refcheck'] = False\nflip(kw)\na.resize(10_000_000, **kw)\n",
            "operator.setitem(kw, 'refcheck', False)\na.resize(10_000_000, **kw)\n",
            "holder = [kw]\nholder[0]['refcheck'] = False\na.resize(10_000_000, **kw)\n",
        ],
    ));
    assert_strict_denies_each(&python, &[]);
    assert_strict_allows_each(&[
        "import numpy as np\nimport scipy.sparse as sp\nclass Sparse(sp.csr_matrix):\n    def total(self):\n        return float(self.sum())\nm = Sparse(np.eye(3))\nprint(isinstance(m, Sparse), Sparse.__name__, m.total())\n",
        "import matplotlib.pyplot as plt\nstyle = {'color': 'red'}\nprint(len(style), style.get('color'))\nplt.plot([1, 2], **style)\nplt.savefig('a.png')\n",
    ]);
}

/// The thirty-second pass, against the newest rules, reached a method's function by its bare
/// name in its own class body (and so called it on a library object), gave the snippet's own
/// base of a native-array subclass a property after an instance existed, changed a library's
/// class itself (`sp.csr_matrix.data = ...`), and set matplotlib's `figure.hooks` (a
/// `module:function` pyplot imports and calls). (Its scikit-learn fitted-state and Node byte
/// stream findings are refused at run time.)
#[test]
fn strict_denies_the_thirty_second_pass_classes() {
    let mut python = after(
        "import warnings\nclass Peek:\n    _module = None\n    def get(self):\n        return self._module\n",
        &[
            "    reach = staticmethod(get)\nprint(Peek().reach(warnings.catch_warnings()))\n",
            "    def run(self, f=get):\n        return f(warnings.catch_warnings())\nprint(Peek().run())\n",
            "    table = {'g': get}\nprint(Peek.table['g'](warnings.catch_warnings()))\n",
            "    __getitem__ = staticmethod(lambda k, f=get: f(k))\nprint(Peek()[warnings.catch_warnings()])\n",
        ],
    );
    python.extend(after(
        "import numpy as np\nimport scipy.sparse as sp\nimport matplotlib.tri as mtri\nshort = property(lambda self: np.ones(1))\nclass Base:\n    pass\nclass Sparse(Base, sp.csr_matrix):\n    pass\no = Sparse(np.ones((4, 4)))\n",
        &[
            "Base.data = short\n",
            "setattr(Base, 'data', short)\n",
            "sp.csr_matrix.data = short\n",
            "M = sp.csr_matrix\nfor M.data in [short]:\n    pass\n",
            "mtri.Triangulation.triangles = short\n",
            "setattr(sp.csr_matrix, 'data', short)\n",
        ],
    ));
    python.extend(after(
        "import matplotlib as mpl\nimport matplotlib.pyplot as plt\nhook = 'subprocess:call'\n",
        &[
            "mpl.rcParams['figure.hooks'] = [hook]\n",
            "plt.rc('figure', hooks=[hook])\n",
            "with plt.rc_context({'figure.hooks': [hook]}):\n    plt.figure()\n",
            "plt.style.use({'figure.hooks': [hook]})\n",
        ],
    ));
    assert_strict_denies_each(&python, &[]);
    assert_strict_allows_each(&[
        "class Temperature:\n    def __init__(self):\n        self._c = 0.0\n    def get_c(self):\n        return self._c\n    def set_c(self, value):\n        self._c = float(value)\n    celsius = property(get_c, set_c)\n    @property\n    def kelvin(self):\n        return self._c + 273.15\n    @kelvin.setter\n    def kelvin(self, value):\n        self._c = value - 273.15\nt = Temperature()\nt.celsius = 20\nt.kelvin = 300\nprint(t.celsius, t.kelvin)\n",
        "import pandas as pd\nimport matplotlib as mpl\nimport matplotlib.pyplot as plt\npd.options.display.max_rows = 20\nmpl.rcParams['figure.figsize'] = (4, 3)\nplt.rcParams['figure.hooks'] = []\nplt.plot([1, 2])\nplt.savefig('a.png')\n",
    ]);
}

/// The thirty-third pass, broad over the library surface, found file names parsed out of a
/// native option string (Qhull's `TI file` reopened the process's input on any file) and
/// file parameters on no list (scipy.odr's `rptfile` and `errfile`, on the class and on the
/// compiled function); and ordinary Node code denied (`class C extends require('events')`).
#[test]
fn strict_denies_the_thirty_third_pass_classes() {
    let mut python = after(
        "import numpy as np\nfrom scipy.spatial import ConvexHull, Delaunay, Voronoi\npoints = np.random.default_rng(0).random((10, 2))\nname = open('k.txt').read()\n",
        &[
            "ConvexHull(points, qhull_options='TI/etc/passwd')\n",
            "Delaunay(points, False, False, 'Qt TI ' + name)\n",
            "Voronoi(points, qhull_options=name)\n",
            "opts = {'qhull_options': 'TO /dev/shm/x'}\nConvexHull(points, **opts)\n",
        ],
    );
    python.extend(after(
        "import numpy as np\nfrom scipy import odr\nx = np.arange(5.0)\nP = open('k.txt').read()\n",
        &[
            "odr.ODR(odr.Data(x, 2 * x), odr.unilinear, beta0=[1.0, 0.0], rptfile=P).run()\n",
            "odr.ODR(odr.Data(x, 2 * x), odr.unilinear, beta0=[1.0, 0.0], errfile='/dev/shm/e').run()\n",
            "odr.odr(lambda b, x: b[0] * x, [1.0], 2 * x, x, rptfile=P)\n",
        ],
    ));
    assert_strict_denies_each(&python, &[]);
    assert_strict_allows_each(&[
        "import numpy as np\nfrom scipy.spatial import ConvexHull, Delaunay\npoints = np.random.default_rng(0).random((10, 2))\nprint(ConvexHull(points, qhull_options='QJ').volume, len(Delaunay(points, qhull_options=None).simplices))\n",
    ]);
    let emitter = "const EventEmitter = require('events');\nclass Counter extends EventEmitter {\n  bump() { this.emit('bump', 1); }\n}\nconst c = new Counter();\nc.on('bump', (n) => console.log(n));\nc.bump();\n";
    let verdict = load("strict")
        .unwrap()
        .judge(&analyze(Language::JavaScript, emitter.as_bytes()))
        .verdict;
    assert_ne!(verdict, Verdict::Deny, "{emitter}");
}

/// The thirty-fourth pass, against those closures, replaced the item lookup of matplotlib's
/// `RcParams` class (the settings exemption covered the class and its methods), glued a Qhull
/// `T` option inside another (`C-0TI file`), and deleted a library object's arrays before
/// storing new ones (refused at run time, as a byte stream detaching a compressor's input is).
#[test]
fn strict_denies_the_thirty_fourth_pass_classes() {
    let mut python = after(
        "import matplotlib as mpl\nimport matplotlib.pyplot as plt\nhooks = lambda self, key: ['subprocess:call']\n",
        &[
            "mpl.RcParams.__getitem__ = hooks\n",
            "setattr(mpl.RcParams, '__getitem__', hooks)\n",
            "mpl.rcParams.validate = {}\n",
            "plt.rcParams.__class__.get = hooks\n",
        ],
    );
    python.extend(after(
        "import numpy as np\nfrom scipy.spatial import ConvexHull, HalfspaceIntersection\npoints = np.random.default_rng(0).random((10, 2))\n",
        &[
            "ConvexHull(points, qhull_options='C-0TI/etc/hostname')\n",
            "ConvexHull(points, qhull_options='QJ C-0TO/dev/shm/x')\n",
        ],
    ));
    assert_strict_denies_each(&python, &[]);
    assert_strict_allows_each(&[
        "import matplotlib as mpl\nimport pandas as pd\nmpl.rcParams['lines.linewidth'] = 2\npd.options.display.precision = 3\nprint(mpl.rcParams['lines.linewidth'])\n",
    ]);
}

/// The thirty-fifth pass, broad over the compiled routines strict allows, swapped rows with
/// memory anywhere through LAPACK's pivots (`lu_solve`, and the raw routines
/// `get_lapack_funcs` hands out) and from there ran a shell, and crashed SuperLU, distances and
/// clustering with arrays or options that did not fit (refused at run time, where a policy
/// that denies processes also has the kernel refuse new programs). The raw LAPACK and BLAS
/// routines are off strict's allowlist.
#[test]
fn strict_denies_the_thirty_fifth_pass_classes() {
    let python = after(
        "import numpy as np\nimport scipy.linalg as la\n",
        &[
            "getrs, = la.get_lapack_funcs(('getrs',), (np.ones((2, 2)),))\n",
            "from scipy.linalg import get_blas_funcs\n",
            "from scipy.linalg import lapack\nlapack.dgetrs\n",
            "print(la.blas.dswap)\n",
            "import scipy.linalg.cython_lapack\n",
        ],
    );
    assert_strict_denies_each(&python, &[]);
    assert_strict_allows_each(&[
        "import numpy as np\nfrom scipy.linalg import lu_factor, lu_solve, solve, inv\na = np.array([[4.0, 3.0], [6.0, 3.0]])\nprint(lu_solve(lu_factor(a), np.ones(2)), solve(a, np.ones(2)), inv(a))\n",
    ]);
}

/// The thirty-seventh pass, broad over the analyzer, ran a docstring `dataclass` wrote at run
/// time (a field default's `repr` decoding text a session's earlier call held) through
/// `doctest.run_docstring_examples`: its target's docstring is now judged as `testmod`'s are.
/// (The thirty-sixth's bypasses of the run-time checks, objects and text given as pivots, an
/// object claiming a shape, are refused at run time.)
#[test]
fn strict_denies_the_thirty_seventh_pass_classes() {
    let python = after(
        "import doctest\nfrom dataclasses import dataclass, field\nclass Shown:\n    def __repr__(self):\n        return 'x'\n",
        &[
            "@dataclass\nclass C:\n    a: object = Shown()\ndoctest.run_docstring_examples(C, {})\n",
            "import dataclasses\n@dataclasses.dataclass\nclass C:\n    a: object = field(default=Shown())\ndoctest.run_docstring_examples(C, globals())\n",
        ],
    );
    assert_strict_denies_each(&python, &[]);
    assert_strict_allows_each(&[
        "import doctest\nfrom dataclasses import dataclass\n@dataclass\nclass Point:\n    \"\"\"\n    >>> Point(1, 2).x\n    1\n    \"\"\"\n    x: int\n    y: int = 0\ndef double(x):\n    \"\"\"\n    >>> 2 * 2\n    4\n    \"\"\"\n    return 2 * x\ndoctest.run_docstring_examples(double, {})\ndoctest.testmod()\n",
    ]);
}
