//! The Python analyzer's constant tables: the names that run code, import modules, reach
//! attributes, introspect or allocate, the markers resolution uses, and the node kinds the
//! passes visit.

use std::collections::HashSet;
use std::sync::OnceLock;

/// Names that run text as code.
pub(super) const EVAL_NAMES: &[&str] = &[
    "eval",
    "exec",
    "compile",
    "execfile",
    "code.interact",
    "code.InteractiveInterpreter",
    "code.InteractiveConsole",
    "code.compile_command",
    "runpy.run_path",
    "runpy.run_module",
    "types.FunctionType",
    "types.CodeType",
    "timeit.timeit",
    "timeit.repeat",
    "timeit.Timer",
    "pdb.run",
    "pdb.runeval",
    "profile.run",
    "profile.runctx",
    "cProfile.run",
    "cProfile.runctx",
    "trace.Trace",
    "doctest.run_docstring_examples",
    "doctest.testmod",
    "doctest.testfile",
    "doctest.DocTestRunner",
];

/// Of [`EVAL_NAMES`], those that also accept callables: a call whose statements are all
/// lambdas or functions defined in the snippet runs no text, and importing them is harmless.
pub(super) const CALLABLE_EVAL_NAMES: &[&str] = &["timeit.timeit", "timeit.repeat", "timeit.Timer"];

/// Functions that import a module named by their first argument and return it.
/// `pkgutil.resolve_name` takes `module:attribute` and returns the attribute.
pub(super) const IMPORT_FUNCTIONS: &[&str] = &[
    "__import__",
    "importlib.import_module",
    "importlib.__import__",
    "pkgutil.resolve_name",
];

/// Functions that find (and so may load) a module named by their first argument, returning
/// a spec or loader rather than the module.
pub(super) const SPEC_FINDERS: &[&str] = &[
    "importlib.util.find_spec",
    "importlib.find_loader",
    "pkgutil.find_loader",
    "pkgutil.get_loader",
];

/// Functions that load code from a file or a spec built at run time: whatever they load, the
/// snippet's imports do not name it. Reported wherever used, except in an import statement.
pub(super) const FILE_LOADERS: &[&str] = &[
    "imp.load_source",
    "imp.load_module",
    "imp.load_compiled",
    "imp.load_package",
    "importlib.util.spec_from_file_location",
    "importlib.util.spec_from_loader",
    "importlib.util.module_from_spec",
    "importlib.machinery.SourceFileLoader",
    "importlib.machinery.SourcelessFileLoader",
    "zipimport.zipimporter",
];

/// Loader methods that run a module's code, whatever object they are called on.
pub(super) const LOADER_METHODS: &[&str] = &["exec_module", "load_module"];

/// Functions that look up an attribute by a name given as a string, with the argument index.
pub(super) const ATTRIBUTE_FUNCTIONS: &[(&str, usize)] = &[
    ("getattr", 1),
    ("setattr", 1),
    ("delattr", 1),
    ("object.__getattribute__", 1),
    ("type.__getattribute__", 1),
    ("operator.attrgetter", 0),
    ("operator.methodcaller", 0),
];

/// Methods of namespace dictionaries that look a name up by their first argument.
pub(super) const NAMESPACE_METHODS: &[&str] = &["get", "__getitem__", "setdefault", "pop"];

/// Attributes that reach interpreter internals: the classic sandbox-escape vocabulary.
pub(super) const INTROSPECTION_ATTRIBUTES: &[&str] = &[
    "__subclasses__",
    "__globals__",
    "__builtins__",
    "__mro__",
    "__bases__",
    "__base__",
    "__code__",
    "__closure__",
    "__func__",
    "__self__",
    "__objclass__",
    "__loader__",
    "__reduce__",
    "__reduce_ex__",
    "__getattribute__",
    "__traceback__",
    "f_globals",
    "f_locals",
    "f_back",
    "f_builtins",
    "f_code",
    "gi_frame",
    "gi_code",
    "cr_frame",
    "cr_code",
    "ag_frame",
    "ag_code",
    "tb_frame",
    "co_code",
];

/// Functions that hand out frames, live objects or tracing hooks.
pub(super) const INTROSPECTION_NAMES: &[&str] = &[
    "sys._getframe",
    "sys._current_frames",
    "sys.settrace",
    "sys.setprofile",
    "inspect.currentframe",
    "inspect.stack",
    "inspect.trace",
    "inspect.getouterframes",
    "inspect.getinnerframes",
    "gc.get_objects",
    "gc.get_referrers",
    "gc.get_referents",
    "breakpoint",
];

/// Calls whose first argument is a size or shape to allocate.
pub(super) const ALLOCATING_CALLS: &[&str] = &[
    "bytearray",
    "bytes",
    "os.urandom",
    "numpy.zeros",
    "numpy.ones",
    "numpy.empty",
    "numpy.full",
    "numpy.random.rand",
    "numpy.random.random",
    "numpy.random.randn",
];

/// Calls whose positional arguments are the dimensions of what they allocate.
pub(super) const DIMENSION_CALLS: &[&str] = &["numpy.random.rand", "numpy.random.randn"];

/// Keyword arguments that give a size or shape (`np.zeros(shape=...)`, `rng.random(size=...)`).
pub(super) const SIZE_KEYWORDS: &[&str] = &["shape", "size"];

/// Keyword arguments that name a file, carried on call facts like positional arguments.
pub(super) const PATH_KEYWORDS: &[&str] = &[
    "file",
    "path",
    "src",
    "dst",
    "fname",
    "filename",
    "filepath",
    "filepath_or_buffer",
    "path_or_buf",
    "database",
];

/// Modules other modules commonly hold as attributes (`shutil.os`, `asyncio.subprocess`).
/// Reached that way, they mean the module itself.
pub(super) const REEXPORTED_MODULES: &[&str] = &[
    "os",
    "sys",
    "subprocess",
    "posix",
    "nt",
    "builtins",
    "importlib",
    "ctypes",
    "socket",
    "pty",
    "_posixsubprocess",
];

/// The standard library's public top-level modules (`sys.stdlib_module_names`): names that
/// are modules even where the snippet does not import them by a statement.
const STDLIB_MODULES: &str = "abc aifc argparse array ast asynchat asyncio asyncore atexit \
    audioop base64 bdb binascii bisect builtins bz2 cProfile calendar cgi cgitb chunk cmath cmd \
    code codecs codeop collections colorsys compileall concurrent configparser contextlib \
    contextvars copy copyreg crypt csv ctypes curses dataclasses datetime dbm decimal difflib dis \
    distutils doctest email encodings ensurepip enum errno faulthandler fcntl filecmp fileinput \
    fnmatch fractions ftplib functools gc genericpath getopt getpass gettext glob graphlib grp \
    gzip hashlib heapq hmac html http idlelib imaplib imghdr imp importlib inspect io ipaddress \
    itertools json keyword lib2to3 linecache locale logging lzma mailbox mailcap marshal math \
    mimetypes mmap modulefinder msilib msvcrt multiprocessing netrc nis nntplib nt ntpath \
    nturl2path numbers opcode operator optparse os ossaudiodev pathlib pdb pickle pickletools \
    pipes pkgutil platform plistlib poplib posix posixpath pprint profile pstats pty pwd \
    py_compile pyclbr pydoc pydoc_data pyexpat queue quopri random re readline reprlib resource \
    rlcompleter runpy sched secrets select selectors shelve shlex shutil signal site smtpd \
    smtplib sndhdr socket socketserver spwd sqlite3 sre_compile sre_constants sre_parse ssl stat \
    statistics string stringprep struct subprocess sunau symtable sys sysconfig syslog tabnanny \
    tarfile telnetlib tempfile termios textwrap threading time timeit tkinter token tokenize \
    tomllib trace traceback tracemalloc tty turtle types typing unicodedata unittest urllib uu \
    uuid venv warnings wave weakref webbrowser winreg winsound wsgiref xdrlib xml xmlrpc zipapp \
    zipfile zipimport zlib zoneinfo";

pub(super) fn is_stdlib_module(name: &str) -> bool {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| STDLIB_MODULES.split_whitespace().collect())
        .contains(name)
}

/// Marker meaning "the module's global namespace" (`globals()`, `vars()`).
pub(super) const GLOBALS: &str = "<globals>";
/// Suffix meaning "an element of a container holding this": `holder = [os]` makes `holder`
/// mean `os[]`, and `holder[0]` (any key) means `os` again.
pub(super) const ELEMENT: &str = "[]";
/// Marker prefix of what `operator.attrgetter('a')` returns: calling it looks `a` up.
pub(super) const ATTRGETTER: &str = "<attrgetter>";
/// Marker prefix of what `operator.methodcaller('m')` returns: calling it calls `.m()`.
pub(super) const METHODCALLER: &str = "<methodcaller>";

/// Node kinds that bind names.
pub(super) const BINDING_KINDS: [&str; 6] = [
    "import_statement",
    "import_from_statement",
    "assignment",
    "named_expression",
    "default_parameter",
    "typed_default_parameter",
];

/// Comprehension node kinds: each is its own scope for the names its `for` clauses bind.
pub(super) const COMPREHENSIONS: [&str; 4] = [
    "list_comprehension",
    "set_comprehension",
    "dictionary_comprehension",
    "generator_expression",
];
