"""Surveys the Python sandbox image for the analyzer's table of module members
(`module_members.txt` beside this file).

A module a policy allows holds other modules and functions as attributes: `enum.bltns` is
`builtins`, `matplotlib.pyplot.np` is `numpy`, `pandas.pandas` is `pandas`, `tarfile.bltn_open`
is the builtin `open`. Reached that way, a name means what it is, not what it is spelled as, so
the analyzer needs to know, for every member of every module a snippet can reach, whether it is
a module (and which) or a function or class taken from a module with capabilities (and which).
Only the interpreter can say: this script asks it.

It is run inside the real image by `tests/module_members.rs`, which appends
`main([...roots...])` with the strict policy's modules, compares the output with the committed
table and, with `UPDATE_MODULE_MEMBERS=1`, writes it. Every root and every public submodule of
a root package is imported first (a snippet may import any of them, and each import adds
attributes to its package and loads what it uses), then every module reachable from the roots
through public attributes is surveyed.

Output, sorted, one line each:
    module OWNER.MEMBER TARGET   the member is the module TARGET
    alias OWNER.MEMBER TARGET    the member is TARGET, a function or class of a module with
                                 capabilities defined outside OWNER's package
    path OWNER.MEMBER AT NAME    the member, a function or class of a data library, takes a
                                 file by its parameter NAME (at position AT, or `-` when it
                                 can only be passed by keyword)
    star ROOT NAME...            `from ROOT import *` binds exactly these names (for each
                                 root): any other name it leaves as it was, so `print` after
                                 `from os import *` is still the builtin
Names are spelled as the analyzer spells them (`posix` is `os`, `posixpath` is `os.path`,
`_io` is `io`, `builtins.open` is `open`).
"""

import builtins
import importlib
import inspect
import pkgutil
import platform
import sys
import types
import warnings

warnings.simplefilter("ignore")

# Parts of a package's tree that are not its API and that snippets do not import.
SKIPPED_PARTS = {"tests", "test", "testing", "conftest", "setup", "f2py", "distutils"}

# Module-level names whose value differs from one interpreter start to the next, so the table
# could not be the image's: a loop variable left over after iterating a set of objects hashed by
# address (`for npfunc in _ufuncs_with_fixed_point_at_zero` in scipy.sparse). What such a name
# holds is left unknown to the analyzer, like any member the table does not list.
UNSTABLE_MEMBERS = {"scipy.sparse.data.npfunc", "scipy.sparse._data.npfunc"}

# Modules whose functions and classes reach files, processes, the network, the interpreter's
# internals or code loading: a member of another package that is one of theirs is reported
# as itself (`matplotlib.Path` is `pathlib.Path`). Aliases of harmless helpers
# (`hmac.compare_digest` from `_hashlib`) keep the name their module gives them.
CAPABILITY_MODULES = {
    "builtins", "os", "io", "pathlib", "shutil", "subprocess", "socket", "pickle", "marshal",
    "ctypes", "importlib", "inspect", "gc", "sys", "tempfile", "tokenize", "linecache",
    "urllib", "http", "runpy", "code", "codeop", "multiprocessing", "signal", "atexit", "pty",
    "select", "mmap", "tarfile", "zipfile", "zipimport", "pkgutil", "webbrowser", "ssl",
    "ftplib", "smtplib", "sqlite3", "shelve", "dbm", "glob", "fileinput", "gzip", "bz2",
    "lzma", "resource", "fcntl", "sysconfig", "site", "pdb", "bdb", "trace", "doctest",
    "timeit", "cProfile", "profile", "threading", "asyncio", "concurrent", "joblib",
    "_posixsubprocess", "_frozen_importlib", "_frozen_importlib_external", "_imp", "_pickle",
    "_socket", "_ctypes",
}


# The data libraries: their functions that take paths or load pickles are in the analyzer's
# tables under their own names, so a re-export elsewhere (`matplotlib.pylab.load` is
# `numpy.load`) is reported as itself too.
DATA_LIBRARIES = {"numpy", "pandas", "scipy", "matplotlib", "sklearn"}

# Parameter names by which the data libraries' functions take a file to read or write
# (`numpy.fromregex(file, ...)`, `matplotlib.rc_params_from_file(fname)`,
# `pandas.read_xml(..., stylesheet=...)`, `scipy.odr.ODR(..., rptfile=...)`). Every function
# of theirs with one is a path function to the analyzer, so a reader or writer nobody listed
# by hand still has its path judged: any name with `file` in it is one (see `takes_a_file`),
# and so are these. Names that the libraries also use for other things (`path`: a matplotlib
# `Path` object; `fp`: `numpy.interp`'s y values; `source`: an axis; `dir` in `tickdir`, a
# direction) are not here.
FILE_PARAMETERS = {
    "fname", "fid", "fd", "path_or_buf", "path_or_buffer", "stylesheet", "container_path",
    "destpath", "directory", "style_dir", "fontpath", "fontpaths",
}

# Names with `file` in them that take a flag, not a file.
FLAGS_NAMED_FOR_FILES = {"asfileobj", "convert_file_like"}


def canonical(name):
    """The analyzer's spelling of a qualified name."""
    for alias, meaning in (("posixpath", "os.path"), ("posix", "os"), ("_io", "io")):
        if name == alias or name.startswith(alias + "."):
            name = meaning + name[len(alias):]
    if name.startswith("builtins.") and name.count(".") == 1:
        name = name[len("builtins."):]
    return name


def package(name):
    """The top-level package of a module, C accelerators (`_json`) with their module."""
    return name.split(".")[0].lstrip("_")


def load(roots):
    """Imports every root and every public submodule of the root packages."""
    for root in roots:
        try:
            module = importlib.import_module(root)
        except BaseException:
            continue
        paths = getattr(module, "__path__", None) or []
        for info in pkgutil.walk_packages(paths, root + ".", onerror=lambda _: None):
            parts = info.name.split(".")[root.count(".") + 1:]
            if any(p.startswith("_") or p in SKIPPED_PARTS for p in parts):
                continue
            try:
                importlib.import_module(info.name)
            except BaseException:
                pass


def members(obj):
    """An object's attributes, lazily loaded ones included (`__getattr__`, `__dir__`)."""
    try:
        names = sorted(dir(obj))
    except BaseException:
        return
    for name in names:
        try:
            yield name, getattr(obj, name)
        except BaseException:
            continue


def spellings(modules):
    """The shortest public spelling of every function, class and object the surveyed modules
    hold, within its own package (`numpy.random.Generator`, not
    `numpy.random._generator.Generator`): the name the analyzer's tables use."""
    best = {}
    for module in modules:
        owner = canonical(module.__name__)
        for name, value in members(module):
            if name.startswith("_") or isinstance(value, types.ModuleType):
                continue
            home = getattr(value, "__module__", None)
            if not isinstance(home, str) or package(home) != package(owner):
                continue
            spelling = owner + "." + name
            key = id(value)
            if key not in best or (spelling.count("."), spelling) < (
                best[key][1].count("."),
                best[key][1],
            ):
                best[key] = (value, spelling)
    return {key: spelling for key, (_, spelling) in best.items()}


def alias_of(owner, value, spelled):
    """What a function or class is, if it comes from a module with capabilities outside the
    owner's package: its public spelling in its own package, else where it was defined."""
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None)
    if not (callable(value) and isinstance(module, str) and isinstance(qualname, str)):
        return None
    if package(module) == package(owner):
        return None
    if module.split(".")[0] not in CAPABILITY_MODULES | DATA_LIBRARIES:
        return None
    # A module with capabilities is judged by its own names, whatever it imported them from.
    if owner.split(".")[0] in CAPABILITY_MODULES:
        return None
    # Of the builtins, the functions (`open`, `exec`); its classes and exceptions are no
    # capability, and a type whose `__module__` says builtins may be no builtin (`method`).
    if module == "builtins" and (
        isinstance(value, type) or getattr(builtins, qualname, None) is not value
    ):
        return None
    return spelled.get(id(value)) or canonical(module + "." + qualname)


def reachable(roots):
    """Every module reachable from the roots through public attributes."""
    found = {}
    queue = [sys.modules[r] for r in reversed(roots) if r in sys.modules]
    while queue:
        module = queue.pop()
        owner = canonical(module.__name__)
        if owner in found:
            continue
        found[owner] = module
        for name, value in members(module):
            if isinstance(value, types.ModuleType) and not name.startswith("_"):
                queue.append(value)
    return found


def takes_a_file(name):
    """Whether a parameter of a data library's function takes a file, by its name."""
    named_for_a_file = "file" in name.lower() and name not in FLAGS_NAMED_FOR_FILES
    return named_for_a_file or name in FILE_PARAMETERS


def parameters_of(value):
    """A callable's parameters, `(name, positional)` each: from its signature, or, for a
    compiled function that has none (`scipy.odr.odr`), from the first line of its
    documentation when that writes the call out (`odr(fcn, beta0, y, x, ..., rptfile=None)`)."""
    try:
        return [
            (p.name, p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
            for p in inspect.signature(value).parameters.values()
        ]
    except BaseException:
        pass
    doc = getattr(value, "__doc__", None)
    name = getattr(value, "__name__", None)
    if not isinstance(doc, str) or not isinstance(name, str):
        return []
    text = doc.lstrip()
    if not text.startswith(name + "("):
        return []
    depth, end = 0, None
    for at, char in enumerate(text[len(name):], len(name)):
        depth += char in "([{"
        depth -= char in ")]}"
        if depth == 0:
            end = at
            break
    if end is None:
        return []
    found, positional, depth, word = [], True, 0, ""
    for char in text[len(name) + 1:end] + ",":
        if char == "," and depth == 0:
            word = word.split("=")[0].strip()
            if word in ("*", "/") or word.startswith("*"):
                positional = positional and word == "/"
            elif word.isidentifier():
                found.append((word, positional))
            word = ""
            continue
        depth += char in "([{"
        depth -= char in ")]}"
        word += char if depth == 0 and char not in ")]}" else ""
    return found


def file_parameters(value):
    """Where a function or class takes a file: `(position or None, name)` for each parameter
    `takes_a_file` names."""
    found = []
    position = 0
    for name, positional in parameters_of(value):
        if takes_a_file(name):
            found.append((position if positional else None, name))
        if positional:
            position += 1
    return found


def compiled_part_of(home, owner):
    """Whether a function whose `__module__` is `home` is a data library's own compiled code
    (`scipy.odr.odr` says `_odrpack`, the bare name of its extension module)."""
    return (
        "." not in home
        and home not in sys.stdlib_module_names
        and home.lstrip("_") not in sys.modules
        and package(owner) in DATA_LIBRARIES
    )


def survey(roots):
    modules = reachable(roots)
    spelled = spellings(modules.values())
    entries = {}
    for owner, module in modules.items():
        for name, value in members(module):
            key = owner + "." + name
            if isinstance(value, types.ModuleType):
                entries[key] = ("module", canonical(value.__name__))
                continue
            if name.startswith("_") or key in UNSTABLE_MEMBERS:
                continue
            alias = alias_of(owner, value, spelled)
            if alias is not None and alias != key:
                entries[key] = ("alias", alias)
            home = getattr(value, "__module__", None)
            if (
                alias is None
                and callable(value)
                and isinstance(home, str)
                and (package(home) in DATA_LIBRARIES or compiled_part_of(home, owner))
            ):
                for position, name in file_parameters(value):
                    at = "-" if position is None else str(position)
                    entries[f"{key} {name}"] = ("path", at)
            # A class or object holding a module as an attribute (`Cls.helpers`).
            if not isinstance(value, (types.FunctionType, types.BuiltinFunctionType)):
                for attr, held in members(value):
                    if isinstance(held, types.ModuleType) and not attr.startswith("__"):
                        entries[key + "." + attr] = ("module", canonical(held.__name__))
    return entries


def star_names(module):
    """The names `from module import *` binds: `__all__` when the module has one (looked up
    as the statement does, as an attribute), else every public name of its namespace."""
    try:
        names = module.__all__
    except AttributeError:
        names = [n for n in vars(module) if not n.startswith("_")]
    return sorted({n for n in names if isinstance(n, str)})


def main(roots):
    # `__main__` is the snippet itself, whose members are its own globals.
    roots = [r for r in roots if not r.startswith("__")]
    # The sandbox runs joblib's workers as threads, so joblib leaves its process backend
    # unimported there; a snippet may still import it, so the survey sees it too.
    import os
    os.environ.pop("JOBLIB_MULTIPROCESSING", None)
    load(roots)
    entries = survey(roots)
    versions = [("python", platform.python_version())]
    for name in ("numpy", "pandas", "matplotlib", "scipy", "sklearn"):
        if name in sys.modules:
            versions.append((name, getattr(sys.modules[name], "__version__", "?")))
    print("# Generated by module_members.py in the Python sandbox image; do not edit.")
    print("# " + ", ".join(f"{name} {version}" for name, version in versions))
    for key in sorted(entries):
        kind, target = entries[key]
        if kind == "path":
            member, name = key.split(" ")
            print(kind, member, target, name)
        else:
            print(kind, key, target)
    for root in sorted(r for r in roots if r in sys.modules):
        print("star", canonical(root), *star_names(sys.modules[root]))
