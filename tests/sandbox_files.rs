//! Files in and figures and files out, on every backend: what goes in lands in the work dir,
//! only new or changed regular files of the work dir come back (a link to a host file does
//! not), a forged figure that is not a PNG is refused, and limits are reported, not silent.

mod common;

use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::policy::Limits;
use code_sandbox_mcp::sandbox::{Execution, Preload};
use code_sandbox_mcp::workdir::InputFile;
use common::tight_limits;

async fn run(
    backend: common::Backend,
    limits: &Limits,
    language: Language,
    code: &str,
    files: &[InputFile],
) -> Execution {
    let sandbox = backend.sandbox(limits, 0).await;
    let result = sandbox
        .run_with_files(language, code, files, std::future::pending())
        .await;
    sandbox.shutdown().await;
    result.unwrap_or_else(|e| panic!("run on {} failed: {e}", backend.name()))
}

fn input(path: &str, content: &[u8]) -> InputFile {
    InputFile {
        path: path.into(),
        content: content.to_vec(),
    }
}

const ESCAPES: &str = r#"
import os
os.symlink("/etc/passwd", "passwd-link")
os.makedirs("/tmp/.sandbox-figures", exist_ok=True)
open("/tmp/.sandbox-figures/0000.png", "w").write("not a png")
print(open("in/data.csv").read(), end="")
open("in/data.csv", "a").write("3,4\n")
open("new.txt", "w").write("new")
"#;

on_every_backend! {
    /// Inputs are written before the code runs; a changed input and a new file come back;
    /// a link out of the work dir and a forged figure do not.
    async fn only_regular_files_of_the_work_dir_come_back(backend) {
        let files = [input("in/data.csv", b"a,b\n1,2\n"), input("same.bin", &[0, 1, 2])];
        let e = run(backend, &tight_limits(), Language::Python, ESCAPES, &files).await;
        assert_eq!(e.stdout, "a,b\n1,2\n", "{e:?}");
        let out = &e.outputs;
        let returned: Vec<(&str, &[u8])> =
            out.files.iter().map(|f| (f.path.as_str(), f.content.as_slice())).collect();
        assert_eq!(returned, [("in/data.csv", &b"a,b\n1,2\n3,4\n"[..]), ("new.txt", b"new")], "{out:?}");
        assert!(out.figures.is_empty(), "{out:?}");
        let omitted: Vec<(&str, &str)> =
            out.omitted.iter().map(|o| (o.path.as_str(), o.reason.as_str())).collect();
        assert!(omitted.contains(&("0000.png", "not a PNG image")), "{omitted:?}");
        assert!(omitted.iter().any(|(p, r)| *p == "passwd-link" && r.contains("not a regular file")), "{omitted:?}");
    }
}

on_every_backend! {
    /// JavaScript gets its inputs and returns its files, but not its own snippet file.
    async fn javascript_files_travel_too(backend) {
        let code = "const fs = require('fs');\nfs.writeFileSync('out.txt', fs.readFileSync('in.txt', 'utf8') + '!');";
        let e = run(backend, &tight_limits(), Language::JavaScript, code, &[input("in.txt", b"hi")]).await;
        let returned: Vec<(&str, &[u8])> =
            e.outputs.files.iter().map(|f| (f.path.as_str(), f.content.as_slice())).collect();
        assert_eq!(returned, [("out.txt", &b"hi!"[..])], "{e:?}");
    }
}

on_every_backend! {
    /// Over the limits, figures and files are listed with the reason instead of returned.
    async fn limits_are_reported(backend) {
        let limits = Limits { figures: 1, files_out: 1, ..tight_limits() };
        let code = "import matplotlib.pyplot as plt\nplt.figure(figsize=(1, 1), dpi=10)\nplt.show()\nplt.figure(figsize=(2, 1), dpi=10)\nfor n in 'ab':\n    open(n, 'w').write(n)\n";
        let e = run(backend, &limits, Language::Python, code, &[]).await;
        let out = &e.outputs;
        assert_eq!(out.figures.len(), 1, "{e:?}");
        assert_eq!((out.figures[0].width, out.figures[0].height), (10, 10));
        assert_eq!(out.files.len(), 1, "{out:?}");
        let reasons: Vec<&str> = out.omitted.iter().map(|o| o.reason.as_str()).collect();
        assert_eq!(reasons.len(), 2, "{reasons:?}");
        assert!(reasons[0].contains("1 figures") && reasons[1].contains("1 files"), "{reasons:?}");
    }
}

on_every_backend! {
    /// matplotlib reads `matplotlibrc` from the working directory when first imported, and
    /// evaluates a settings file's `axes.prop_cycle` as Python: every runner class that has
    /// pandas (which imports matplotlib to plot) has read its settings before an input file of
    /// that name arrives. (A light runner gets only code that imports the standard library.)
    async fn a_matplotlibrc_input_file_is_not_read(backend) {
        let rc = input("matplotlibrc", b"lines.linewidth: 7\n");
        let code = "import pandas as pd\npd.Series([1, 2]).plot()\nimport matplotlib\nprint(matplotlib.rcParams['lines.linewidth'])\n";
        for class in [Preload::Data, Preload::Full] {
            let sandbox = backend.sandbox(&tight_limits(), 0).await;
            let e = sandbox
                .run_in(Language::Python, class, code, std::slice::from_ref(&rc), std::future::pending())
                .await;
            sandbox.shutdown().await;
            let e = e.unwrap_or_else(|err| panic!("{class} on {}: {err}", backend.name()));
            assert_eq!(e.stdout.trim(), "1.5", "{class}: {e:?}");
        }
    }
}

on_every_backend! {
    /// A policy that lists the modules a snippet may import keeps the work dir off its module
    /// path: a file there never stands in for a module a library imports by name (an optional
    /// dependency such as `tabulate`, which pandas' `to_markdown` imports if present). Under
    /// any other policy the snippet's own modules import, last on the path.
    async fn only_policies_without_a_module_list_import_the_snippets_own_modules(backend) {
        let module = input("tabulate.py", b"print('work dir module ran')\n");
        let code = "import pandas as pd\ntry:\n    pd.DataFrame({'a': [1]}).to_markdown()\nexcept ImportError:\n    print('no tabulate')\n";
        let listed = code_sandbox_mcp::policy::load("strict").unwrap().limits;
        assert!(!listed.own_modules);
        let e = run(backend, &listed, Language::Python, code, std::slice::from_ref(&module)).await;
        assert_eq!(e.stdout.trim(), "no tabulate", "{e:?}");
        let e = run(backend, &tight_limits(), Language::Python, "import tabulate\n", std::slice::from_ref(&module)).await;
        assert_eq!(e.stdout.trim(), "work dir module ran", "{e:?}");
    }
}

on_every_backend! {
    /// Text for matplotlib's `axes.prop_cycle` (in `rcParams`, a style, a settings file) is
    /// read as `cycler(...)` calls of literals: anything else in it is refused, never
    /// evaluated, and the library's own styles still load.
    async fn cycler_text_is_read_never_evaluated(backend) {
        let code = r#"
import matplotlib as mpl
import matplotlib.pyplot as plt
mpl.rcParams["axes.prop_cycle"] = "cycler('color', ['r', 'g']) + cycler('linestyle', ['-', '--'])"
print(len(mpl.rcParams["axes.prop_cycle"]))
for style in plt.style.available:
    plt.style.use(style)
try:
    mpl.rcParams["axes.prop_cycle"] = "cycler('color', [(lambda: print('evaluated') or 'r')()])"
except ValueError:
    print("refused")
"#;
        for class in [Preload::Light, Preload::Full] {
            let sandbox = backend.sandbox(&tight_limits(), 0).await;
            let e = sandbox
                .run_in(Language::Python, class, code, &[], std::future::pending())
                .await;
            sandbox.shutdown().await;
            let e = e.unwrap_or_else(|err| panic!("{class} on {}: {err}", backend.name()));
            assert_eq!(e.stdout.trim(), "2\nrefused", "{class}: {e:?}");
        }
    }
}

on_every_backend! {
    /// Pythons a snippet starts put no working dir first on their module path (a `json.py`
    /// written to the work dir is not what `python3 -c 'import json'` imports there), and
    /// joblib's workers are threads and scipy's `workers=` maps run in the snippet's process.
    async fn started_pythons_and_joblib_workers_stay_in_the_runner(backend) {
        let code = r#"
import os, subprocess, sys
open("json.py", "w").write("raise SystemExit('shadowed')\n")
out = subprocess.run([sys.executable, "-c", "import json; print(json.__name__)"], capture_output=True, text=True)
print(out.stdout.strip() or out.stderr.strip())
from joblib import Parallel, delayed
print(set(Parallel(n_jobs=2)(delayed(os.getpid)() for _ in range(4))) == {os.getpid()})
from scipy.optimize import differential_evolution
pids = set()
def cost(x):
    pids.add(os.getpid())
    return float((x ** 2).sum())
differential_evolution(cost, [(-1, 1)], workers=2, maxiter=2, polish=False, updating="deferred")
print(pids == {os.getpid()})
"#;
        let e = run(backend, &tight_limits(), Language::Python, code, &[]).await;
        assert_eq!(e.stdout.trim(), "json\nTrue\nTrue", "{e:?}");
    }
}

on_every_backend! {
    /// A log format the snippet builds at run time walks public names only (whatever
    /// `Formatter` subclass carries it), and scikit-learn's `memory=` cache (here through a
    /// splat) keeps no directory whose pickles a later fit would load.
    async fn log_formats_and_estimator_caches_stay_in_sight(backend) {
        let code = r#"
import logging, os, sys
class Brief(logging.Formatter):
    pass
def probe():
    return 1
log = logging.getLogger("t")
log.propagate = False
walking = logging.StreamHandler(sys.stdout)
walking.setFormatter(Brief("".join(["{msg.__glo", "bals__[os].environ}"]), style="{"))
log.addHandler(walking)
log.warning(probe)
log.removeHandler(walking)
plain = logging.StreamHandler(sys.stdout)
plain.setFormatter(Brief("{levelname} {message!r}", style="{"))
log.addHandler(plain)
log.warning("plain")
import numpy as np
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.linear_model import LinearRegression
options = dict(zip(["memory"], ["cache"]))
model = make_pipeline(StandardScaler(), LinearRegression(), **options)
for _ in range(2):
    model.fit(np.arange(6.0).reshape(3, 2), [1.0, 2.0, 3.0])
print(round(float(model.predict([[0.0, 1.0]])[0]), 3), os.path.exists("cache"))
"#;
        let e = run(backend, &tight_limits(), Language::Python, code, &[]).await;
        assert_eq!(e.stdout.trim(), "WARNING 'plain'\n1.0 False", "{e:?}");
        assert!(e.stderr.contains("may not reach '__globals__'"), "{e:?}");
    }
}

on_every_backend! {
    /// Data never names a special attribute a library sets (pandas' accessors, logging's
    /// `extra=`, scipy's ODR output: `__array_interface__` is a memory address to numpy), nor
    /// does a name that only claims not to be one (a `str` subclass, a mapping listing other
    /// keys when read again, an object equal to the name),
    /// scipy's sparse indices are copied and checked before a native kernel reads them (by the
    /// class's own check; a subclass overriding it is refused; the caller's array changed afterwards
    /// changes nothing), and doctest runs the examples of
    /// docstrings written in the snippet only (not one given by position at run time);
    /// matplotlib's backend registry loads its own backends, not a `module://` name's module;
    /// a log format's fields walk no module (a path's `parser` is `os.path`).
    async fn library_guards_refuse_what_data_would_steer(backend) {
        let code = r#"
import doctest, logging
import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
special = "".join(["__array_", "interface__"])
def attempt(label, action):
    try:
        action()
        print(label, "ran")
    except (KeyError, ValueError, TypeError) as exc:
        print(label, "refused")
attempt("accessor", lambda: pd.api.extensions.register_dataframe_accessor(special)(object))
attempt("extra", lambda: logging.getLogger("t").warning("x", extra={special: {}}))
class Lying(str):
    def startswith(self, prefix):
        return False
class Shifty(dict):
    looks = 0
    def __iter__(self):
        Shifty.looks += 1
        return iter([] if Shifty.looks == 1 else list(dict.keys(self)))
class Equal:
    def __hash__(self):
        return hash(special)
    def __eq__(self, other):
        return other == special
attempt("extra subclass", lambda: logging.getLogger("t").warning("x", extra={Lying(special): {}}))
attempt("extra shifting", lambda: logging.getLogger("t").warning("x", extra=Shifty({special: {}})))
attempt("extra equal", lambda: logging.getLogger("t").warning("x", extra={Equal(): {}}))
attempt("accessor subclass", lambda: pd.api.extensions.register_series_accessor(Lying(special))(object))
from scipy.sparse import coo_matrix
def loose_coo():
    class LooseCoo(coo_matrix):
        def _check(self):
            pass
    return LooseCoo((np.ones(1), (np.array([0]), np.array([10**6]))), shape=(1, 2))
attempt("coo subclass", loose_coo)
attempt("sparse", lambda: csr_matrix((np.ones(2), np.array([0, 10**6]), np.array([0, 1, 2])), shape=(2, 2)))
class Loose(csr_matrix):
    def check_format(self, full_check=False):
        return None
attempt("sparse subclass", lambda: Loose((np.ones(2), np.array([0, 10**6]), np.array([0, 1, 2])), shape=(2, 2)))
from scipy import odr
attempt("odr output", lambda: odr.Output((np.ones(1), np.ones(1), np.eye(1), {special: {}, "info": 1})))
columns = np.array([0, 1], dtype=np.int32)
kept = csr_matrix((np.ones(2), columns, np.array([0, 1, 2], dtype=np.int32)), shape=(2, 2))
columns += 10**6
print("sparse after", kept.dot(np.ones(2)).tolist())
ran = []
def double(x):
    """
    >>> ran.append(double(2))
    """
    return 2 * x
class Box:
    size = property(lambda self: 1, None, None, "".join([">>> ran.append(", "'made')\n"]))
attempt("made docstring", lambda: doctest.run_docstring_examples(Box.size, {"ran": ran}))
doctest.run_docstring_examples(double, {"double": double, "ran": ran})
print("examples run", ran)
import matplotlib.pyplot as plt
attempt("backend module", lambda: plt.backend_registry.load_backend_module("module://os"))
print("agg loads", plt.backend_registry.load_backend_module("agg").__name__)
from pathlib import Path
record = logging.LogRecord("n", 30, "p", 1, Path("a"), (), None)
attempt("log field module", lambda: logging.Formatter("{msg.parser.os.name}", style="{").format(record))
print(logging.Formatter("{levelname} {msg.name}", style="{").format(record))
"#;
        let e = run(backend, &tight_limits(), Language::Python, code, &[]).await;
        assert_eq!(
            e.stdout.trim(),
            "accessor refused\nextra refused\nextra subclass refused\nextra shifting refused\nextra equal refused\naccessor subclass refused\ncoo subclass refused\nsparse refused\nsparse subclass refused\nodr output refused\nsparse after [1.0, 1.0]\nmade docstring refused\nexamples run [4]\nbackend module refused\nagg loads matplotlib.backends.backend_agg\nlog field module refused\nWARNING a",
            "{e:?}"
        );
    }
}

on_every_backend! {
    /// The index arrays scipy's native kernels trust reach the snippet read-only, however it
    /// takes them (attribute, `getattr`, a tuple of coordinates) and whatever it then writes
    /// with (item store, `out=`, `copyto`, the writeable flag), and are never replaced (nor a
    /// matrix's `data` but by an array of its shape), while scipy's own updates in
    /// place (summing duplicates, sorting, adding points) and the compiled interpolators that
    /// read them still work.
    async fn native_index_arrays_reach_the_snippet_read_only(backend) {
        let code = r#"
import numpy as np
from scipy import sparse
from scipy.spatial import Delaunay
from scipy.interpolate import LinearNDInterpolator
def attempt(label, action):
    try:
        action()
        print(label, "ran")
    except ValueError:
        print(label, "refused")
m = sparse.coo_matrix((np.ones(4), (np.arange(4), np.zeros(4, dtype=np.int32))), shape=(4, 1))
attempt("col", lambda: m.col.__setitem__(slice(None), 10**6))
attempt("coords", lambda: m.coords[1].__setitem__(slice(None), 10**6))
attempt("getattr", lambda: getattr(m, "row").__setitem__(0, 10**6))
attempt("out", lambda: np.add(m.col, 10**6, out=m.col))
attempt("copyto", lambda: np.copyto(m.col, 10**6))
attempt("flag", lambda: m.col.setflags(write=True))
print("coo", (m @ np.ones(1)).tolist())
tri = Delaunay(np.array([[0, 0], [1, 0], [0, 1], [1, 1], [0.4, 0.6]]), incremental=True)
attempt("simplices", lambda: tri.simplices.__setitem__(slice(None), 4096))
print("linear", LinearNDInterpolator(tri, np.arange(5.0))([[0.25, 0.25]]).round(3).tolist())
tri.add_points([[0.8, 0.2]])
print("added", len(tri.simplices), tri.find_simplex([[0.1, 0.1]]).tolist())
attempt("simplices replaced", lambda: setattr(tri, "simplices", np.zeros((1, 3), dtype=np.int32)))
from scipy.interpolate import make_interp_spline
spline = make_interp_spline(np.arange(6.0), np.arange(6.0) ** 2)
attempt("degree", lambda: setattr(spline, "k", 40))
c = sparse.csr_matrix((np.array([1.0, 0, 2, 3]), np.array([1, 0, 1, 0]), np.array([0, 2, 4])), shape=(2, 2))
c.sum_duplicates()
c.eliminate_zeros()
print("csr", c.toarray().tolist(), c.indices.tolist())
attempt("short data", lambda: setattr(c, "data", np.ones(1)))
attempt("indices", lambda: setattr(c, "indices", np.zeros(3, dtype=np.int32)))
attempt("row", lambda: setattr(m, "row", np.zeros(4, dtype=np.int32)))
c.data = c.data * 2
print("scaled", c.toarray().tolist())
import matplotlib.pyplot as plt
plt.plot([1, 2]); plt.legend(["a"], prop={"size": 8})
attempt("font file", lambda: plt.text(0, 0, "x", fontproperties={"fname": "/etc/hostname"}))
from matplotlib.tri import Triangulation, LinearTriInterpolator
t = Triangulation([0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0])
attempt("triangles", lambda: t.triangles.__setitem__(slice(None), 4096))
t.set_mask([True, False])
print("tri", round(float(LinearTriInterpolator(t, np.arange(4.0))(0.8, 0.8)), 3), t.get_masked_triangles().tolist())
"#;
        let e = run(backend, &tight_limits(), Language::Python, code, &[]).await;
        assert_eq!(
            e.stdout.trim(),
            "col refused\ncoords refused\ngetattr refused\nout refused\ncopyto refused\nflag refused\ncoo [1.0, 1.0, 1.0, 1.0]\nsimplices refused\nlinear [1.75]\nadded 6 [3]\nsimplices replaced refused\ndegree refused\ncsr [[0.0, 1.0], [3.0, 2.0]] [1, 0, 1]\nshort data refused\nindices refused\nrow refused\nscaled [[0.0, 2.0], [6.0, 4.0]]\nfont file refused\ntriangles refused\ntri 2.4 [[0, 1, 3]]",
            "{e:?}"
        );
    }
}

on_every_backend! {
    /// A class deriving from a native-array class, however it is made (`type()` with bases
    /// built at run time, a metaclass, `partial(type)`, `make_dataclass`, which writes
    /// `__init__` after the class exists), may not have a class of the snippet's own in its
    /// ancestry that replaces how instances are made or answers for their arrays (a property,
    /// a class attribute); one that only adds public methods, and
    /// the libraries' own subclasses, still work. Type text evaluated by `typing` or
    /// `inspect` may only name types.
    async fn native_array_classes_and_type_text_refuse_what_the_snippet_made(backend) {
        let code = r#"
import abc, dataclasses, functools, inspect, typing
import numpy as np
from scipy.interpolate import BSpline, make_interp_spline
from scipy import sparse
class Init:
    def __init__(self, t, c, k):
        self.t, self.c, self.k, self.extrapolate, self.axis = t, c, k, True, 0
def attempt(label, make):
    try:
        make()(np.arange(400.0), np.zeros(4), 3)
        print(label, "ran")
    except TypeError:
        print(label, "refused")
bases = (Init, BSpline)
attempt("type", lambda: type("Quick", bases, {}))
attempt("meta", lambda: abc.ABCMeta("Quick", bases[:], {}))
attempt("partial", lambda: functools.partial(type, "Quick")(bases, {}))
fields = [("t", object), ("c", object), ("k", int), ("extrapolate", bool, True), ("axis", int, 0)]
attempt("dataclass", lambda: dataclasses.make_dataclass("Quick", fields, bases=(BSpline,)))
shadow = {"c": property(lambda self: np.zeros(1))}
attempt("property", lambda: type("Quick", (BSpline,), shadow))
attempt("class attribute", lambda: type("Quick", (BSpline,), {"k": 40}))
class Named(BSpline):
    def area(self):
        return round(float(self.integrate(0, 1)), 3)
s = make_interp_spline(np.linspace(0, 1, 8), np.linspace(0, 1, 8) ** 2)
print("named", Named(s.t, s.c, s.k).area(), sparse.random(4, 4, density=0.5, format="csr").tocoo().shape)
text = "__import__('os')" + ".getcwd()"
for label, thing in (("namedtuple", lambda: typing.NamedTuple("N", [("a", text)])),
                     ("generic", lambda: type("H", (), {"__annotations__": {"a": typing.List[text]}}))):
    try:
        typing.get_type_hints(thing())
        print(label, "ran")
    except TypeError:
        print(label, "refused")
def f(a: "typing.Optional[np.ndarray]", b: "list[int] | None" = None): pass
print("hints", sorted(typing.get_type_hints(f)), sorted(inspect.get_annotations(f, eval_str=True)))
"#;
        let e = run(backend, &tight_limits(), Language::Python, code, &[]).await;
        assert_eq!(
            e.stdout.trim(),
            "type refused\nmeta refused\npartial refused\ndataclass refused\nproperty refused\nclass attribute refused\nnamed 0.333 (4, 4)\nnamedtuple refused\ngeneric refused\nhints ['a', 'b'] ['a', 'b']",
            "{e:?}"
        );
    }
}

on_every_backend! {
    /// Source lines in tracebacks and warnings come only from the module path, the work dir and
    /// /tmp: a warning or a fake traceback naming a system file (or a link to one) shows none
    /// of it, while a library's own frames still show their source.
    async fn tracebacks_and_warnings_show_no_system_file(backend) {
        let code = r#"
import json, linecache, os, traceback, warnings
os.symlink("/etc/passwd", "link")
warnings.warn_explicit("look", UserWarning, "/etc/passwd", 1)
warnings.warn_explicit("look", UserWarning, "link", 1)
print(repr(linecache.getline("/etc/passwd", 1)), repr(linecache.getline("link", 1)))
try:
    json.loads("{")
except ValueError:
    traceback.print_exc()
"#;
        let e = run(backend, &tight_limits(), Language::Python, code, &[]).await;
        assert_eq!(e.stdout.trim(), "'' ''", "{e:?}");
        assert!(!e.stderr.contains("root:"), "{e:?}");
        assert!(e.stderr.contains("return _default_decoder.decode(s)"), "library source shown: {e:?}");
    }
}

on_every_backend! {
    /// An XML document's external entities name files: lxml's `iterparse` (pandas'
    /// `read_xml(iterparse=...)`) resolves only the entities the document defines itself.
    async fn xml_external_entities_are_not_read(backend) {
        let data = input(
            "data.xml",
            b"<?xml version=\"1.0\"?><!DOCTYPE d [<!ENTITY e SYSTEM \"file:///etc/passwd\"><!ENTITY i \"inner\">]><d><row><v>&e;</v></row><row><v>&i;</v></row></d>",
        );
        let plain = input("plain.xml", b"<d><row><v>1</v></row><row><v>2</v></row></d>");
        let code = r#"
import pandas as pd
print(pd.read_xml("plain.xml", iterparse={"row": ["v"]}).v.tolist())
try:
    print(pd.read_xml("data.xml", iterparse={"row": ["v"]}).v.tolist())
except Exception as e:
    print("refused", type(e).__name__)
"#;
        let e = run(backend, &tight_limits(), Language::Python, code, &[data, plain]).await;
        assert_eq!(e.stdout.trim(), "[1, 2]\nrefused XMLSyntaxError", "{e:?}");
    }
}

on_every_backend! {
    /// pandas answers attribute lookups from labels (and scikit-learn's `Bunch`, scipy's
    /// results from keys), but never for special names: a label `__array_interface__` made
    /// numpy build an array over any address.
    async fn special_names_never_come_from_labels(backend) {
        let code = r#"
import numpy as np, pandas as pd
from sklearn.utils import Bunch
key = "".join(["__array", "_interface__"])
spec = {"data": (0, False), "shape": (8,), "typestr": "|u1", "version": 3}
series = pd.Series([spec], index=[key], dtype=object)
print(np.asarray(series).dtype, pd.DataFrame({"a": [1]}).a.tolist())
bunch = Bunch(x=1)
bunch[key] = spec
print(bunch.x, hasattr(bunch, key))
"#;
        let e = run(backend, &tight_limits(), Language::Python, code, &[]).await;
        assert_eq!(e.stdout.trim(), "object [1]\n1 False", "{e:?}");
    }
}

on_every_backend! {
    /// Library code the snippet could point at anything: matplotlib's `figure.hooks` (a
    /// `module:function` imported and called with each new figure) is refused however it is
    /// stored or read (an `RcParams` class whose item lookup the snippet replaced); Qhull's `T`
    /// options (which reopen the process's input or output on any file), even glued inside
    /// another option, are refused while its other options work; a scikit-learn estimator's
    /// fitted index arrays are neither replaced, changed in place, deleted nor added by the
    /// snippet (nor a sparse matrix's arrays deleted), while other fitted arrays keep their
    /// shape, hyperparameters change freely and scikit-learn's own fitting (a warm start)
    /// works; and the guards keep the libraries' signatures.
    async fn library_hooks_qhull_options_and_fitted_state_refuse_the_snippet(backend) {
        let code = r#"
import inspect
import numpy as np
import matplotlib as mpl
import matplotlib.pyplot as plt
def attempt(label, action):
    try:
        action()
        print(label, "ran")
    except ValueError:
        print(label, "refused")
attempt("hooks", lambda: mpl.rcParams.__setitem__("figure.hooks", ["os:getcwd"]))
dict.__setitem__(mpl.rcParams, "figure.hooks", ["os:getcwd"])
attempt("hooks stored", plt.figure)
dict.__setitem__(mpl.rcParams, "figure.hooks", [])
read = mpl.RcParams.__getitem__
mpl.RcParams.__getitem__ = lambda self, key: ["os:getcwd"] if key == "figure.hooks" else read(self, key)
attempt("hooks read", plt.figure)
mpl.RcParams.__getitem__ = read
plt.figure()
from scipy.spatial import ConvexHull
points = np.random.default_rng(0).random((12, 2))
attempt("input file", lambda: ConvexHull(points, qhull_options="TI /etc/hostname"))
attempt("output file", lambda: ConvexHull(points, False, "Qt TO /tmp/x"))
attempt("glued input file", lambda: ConvexHull(points, qhull_options="C-0TI/etc/hostname"))
print("hull", round(ConvexHull(points, qhull_options="QJ").volume, 3) > 0)
from sklearn.svm import SVC
from sklearn.ensemble import RandomForestClassifier
X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]] * 5)
y = np.array([0, 1, 1, 0] * 5)
clf = SVC(kernel="linear").fit(X, y)
attempt("support", lambda: setattr(clf, "support_", np.arange(10**5, dtype=np.int32)))
attempt("support in place", lambda: clf.support_.__setitem__(0, 10**6))
attempt("dual shape", lambda: setattr(clf, "dual_coef_", np.ones((1, 1))))
attempt("support deleted", lambda: delattr(clf, "support_"))
attempt("fitted added", lambda: setattr(SVC(), "support_", np.zeros(2, dtype=np.int32)))
from scipy import sparse
m = sparse.csr_matrix(np.eye(3))
attempt("data deleted", lambda: delattr(m, "data"))
clf.dual_coef_ = clf.dual_coef_ * 1.0
print("svc", clf.predict(X[:4]).tolist())
rf = RandomForestClassifier(n_estimators=3, warm_start=True, random_state=0).fit(X, y)
rf.n_estimators += 2
print("forest", len(rf.fit(X, y).estimators_), rf.classes_.tolist())
from scipy.odr import ODR
print("signature", list(inspect.signature(ODR).parameters)[:3])
"#;
        let e = run(backend, &tight_limits(), Language::Python, code, &[]).await;
        assert_eq!(
            e.stdout.trim(),
            "hooks refused\nhooks stored refused\nhooks read refused\ninput file refused\noutput file refused\nglued input file refused\nhull True\nsupport refused\nsupport in place refused\ndual shape refused\nsupport deleted refused\nfitted added refused\ndata deleted refused\nsvc [0, 1, 1, 0]\nforest 5 [0, 1]\nsignature ['data', 'model', 'beta0']",
            "{e:?}"
        );
    }
}

on_every_backend! {
    /// Compiled routines that read arrays the snippet gives by sizes they take on trust: LAPACK's
    /// pivots (`lu_solve`), SuperLU's options and permutations, a distance's weights and
    /// inverse covariance, a clustering's criterion. Each is refused when it does not fit, and
    /// a factorization's permutations reach the snippet as copies, while the same routines
    /// given what fits still answer.
    async fn compiled_routines_refuse_arrays_that_do_not_fit(backend) {
        let code = r#"
import numpy as np
from scipy.linalg import lu_factor, lu_solve
from scipy.sparse import csc_matrix
from scipy.sparse.linalg import splu, spilu, factorized, spsolve
from scipy.spatial.distance import cdist, pdist
from scipy.cluster.hierarchy import linkage, fcluster
def attempt(label, action):
    try:
        action()
        print(label, "ran")
    except (ValueError, AttributeError):
        print(label, "refused")
a = np.array([[4.0, 3.0], [6.0, 3.0]])
lu, piv = lu_factor(a)
attempt("pivot far", lambda: lu_solve((lu, np.array([0, 10**6], dtype=np.int32)), np.ones(2)))
attempt("pivots short", lambda: lu_solve((lu, piv[:1]), np.ones(2)))
attempt("pivots as objects", lambda: lu_solve((lu, np.array([0, 10**6], dtype=object)), np.ones(2)))
attempt("pivots as text", lambda: lu_solve((lu, np.array(["0", "100000"])), np.ones(2)))
class Claims(list):
    shape = (10**6, 10**6)
attempt("claimed factors", lambda: lu_solve((Claims(lu.tolist()), np.array([0, 5000], dtype=np.int32)), np.ones(2)))
print("solved", np.allclose(a @ lu_solve((lu, piv), np.ones(2)), 1))
m = csc_matrix(np.array([[2.0, 1.0], [0.0, 3.0]]))
attempt("fact", lambda: splu(m, options={"Fact": "FACTORED"}))
class Hidden(dict):
    def __iter__(self):
        return iter(["Equil"])
    def keys(self):
        return ["Equil"]
attempt("fact hidden", lambda: splu(m, options=Hidden(Fact="FACTORED")))
attempt("own ordering", lambda: spsolve(m, np.ones(2), permc_spec="MY_PERMC"))
factors = splu(m, options={"Equil": False})
factors.perm_c[1] = 40
attempt("store", lambda: setattr(factors, "perm_c", None))
print("factors", factors.solve(np.array([3.0, 3.0])).tolist(), factorized(m)(np.array([3.0, 3.0])).tolist())
print("ilu", spilu(m, drop_tol=1e-4).solve(np.ones(2)).round(3).tolist())
points = np.random.default_rng(0).random((5, 3))
attempt("inverse covariance", lambda: cdist(points, points, "mahalanobis", VI=np.eye(1)))
attempt("variances", lambda: pdist(points, "seuclidean", V=np.ones(1)))
class Rows(list):
    shape = (3, 3)
attempt("said shape", lambda: cdist(points, points, "mahalanobis", VI=Rows([[1.0]])))
print("distances", cdist(points[:1], points[1:2], "mahalanobis", VI=np.eye(3)).shape, pdist(points, "seuclidean", V=np.ones(3)).shape)
Z = linkage(points)
attempt("criterion", lambda: fcluster(Z, 0.5, criterion="monocrit", monocrit=np.zeros(1)))
attempt("inconsistency", lambda: fcluster(Z, 0.5, criterion="inconsistent", R=np.zeros((1, 4))))
print("clusters", len(fcluster(Z, 0.5, criterion="monocrit", monocrit=np.zeros(len(Z)))))
"#;
        let e = run(backend, &tight_limits(), Language::Python, code, &[]).await;
        assert_eq!(
            e.stdout.trim(),
            "pivot far refused\npivots short refused\npivots as objects refused\npivots as text refused\nclaimed factors refused\nsolved True\nfact refused\nfact hidden refused\nown ordering refused\nstore refused\nfactors [1.0, 1.0] [1.0, 1.0]\nilu [0.333, 0.333]\ninverse covariance refused\nvariances refused\nsaid shape refused\ndistances (1, 1) (10,)\ncriterion refused\ninconsistency refused\nclusters 5",
            "{e:?}"
        );
    }
}
