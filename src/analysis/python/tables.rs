//! Python's name tables: builtins, standard modules and their submodules, the names that run
//! code, import, reach internals or take file paths.

use foldhash::HashSet;
use std::sync::OnceLock;

use crate::analysis::dialect::{PathFunction, Runner, Tables};

/// Names that run text as code (the runners below are handled by what their text is).
const EVAL: &[&str] = &[
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
    "timeit.main",
    "typing.ForwardRef",
    "matplotlib.rcsetup.validate_cycler",
    "typing._eval_type",
    "pdb.run",
    "pdb.runeval",
    "pdb.runctx",
    "pdb.runcall",
    "profile.run",
    "profile.runctx",
    "cProfile.run",
    "cProfile.runctx",
    "trace.Trace",
    "doctest.run_docstring_examples",
    "doctest.testmod",
    "doctest.testfile",
    "doctest.DocTestRunner",
    "doctest.DebugRunner",
    "doctest.debug_src",
    "doctest.debug_script",
];

/// Runners whose text the analyzer reads: a statement given as a constant, or the examples of
/// the snippet's own docstrings.
const RUNNERS: &[Runner] = &[
    Runner {
        name: "timeit.timeit",
        code: &[(0, "stmt"), (1, "setup")],
        callables: true,
        docstrings: false,
        visible_is_fine: true,
    },
    Runner {
        name: "timeit.repeat",
        code: &[(0, "stmt"), (1, "setup")],
        callables: true,
        docstrings: false,
        visible_is_fine: true,
    },
    Runner {
        name: "timeit.Timer",
        code: &[(0, "stmt"), (1, "setup")],
        callables: true,
        docstrings: false,
        visible_is_fine: true,
    },
    Runner {
        name: "typing.ForwardRef",
        code: &[(0, "arg")],
        callables: false,
        docstrings: false,
        visible_is_fine: true,
    },
    Runner {
        name: "profile.run",
        code: &[(0, "statement")],
        callables: false,
        docstrings: false,
        visible_is_fine: true,
    },
    Runner {
        name: "cProfile.run",
        code: &[(0, "statement")],
        callables: false,
        docstrings: false,
        visible_is_fine: true,
    },
    Runner {
        name: "doctest.testmod",
        code: &[],
        callables: false,
        docstrings: true,
        visible_is_fine: true,
    },
    Runner {
        name: "doctest.run_docstring_examples",
        code: &[],
        callables: false,
        docstrings: true,
        visible_is_fine: true,
    },
];

/// Functions that hand out frames, live objects or tracing hooks.
const INTROSPECTION_NAMES: &[&str] = &[
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
    // debuggers and the pure profilers: tracing hooks that hand frames to the snippet's
    // methods, and objects whose `run`/`runctx` run text (`cProfile.run(text)` is a runner)
    "bdb",
    "pdb",
    "trace",
    "profile.Profile",
    "cProfile.Profile",
];

/// Attributes that reach interpreter internals: the classic sandbox-escape vocabulary.
const INTROSPECTION_ATTRIBUTES: &[&str] = &[
    // numpy builds an array over whatever memory address this describes: any object with it,
    // under any name that becomes an attribute (a label, a field, an accessor), reads and
    // writes the process's memory
    "__array_interface__",
    "__array_struct__",
    // what a `unittest.mock` patcher replaced, imported from the name it was given
    "get_original",
    "temp_original",
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

/// Members that hand out a capability on whatever object has them, which the analyzer cannot
/// type: an asyncio event loop (reached from any task or future by `get_loop`) starts
/// processes and opens sockets and pipes without `subprocess`, `socket` or `os`; an ndarray's
/// `ctypes` helper holds the `ctypes` module; `to_clipboard` runs the clipboard tools.
pub const CAPABILITY_ATTRIBUTES: &[&str] = &[
    // links made at run time change what a path proven lexically names (`link/../etc`)
    "symlink_to",
    "hardlink_to",
    "link_to",
    "get_loop",
    "subprocess_shell",
    "subprocess_exec",
    "create_connection",
    "create_datagram_endpoint",
    "create_server",
    "create_unix_connection",
    "create_unix_server",
    "connect_accepted_socket",
    "connect_read_pipe",
    "connect_write_pipe",
    "sock_connect",
    "sock_accept",
    "sock_sendall",
    "sock_sendto",
    "sock_sendfile",
    "sock_recv",
    "sock_recvfrom",
    "sendfile",
    "start_tls",
    "getaddrinfo",
    "getnameinfo",
    "add_reader",
    "add_writer",
    "add_signal_handler",
    "ctypes",
    "to_clipboard",
    // scipy's splines and piecewise polynomials built without their checks: the native
    // evaluators then read coefficients past the end of their arrays
    "construct_fast",
    // a sparse matrix's index arrays: changed after the matrix checked them, its native
    // kernels read and write outside the arrays they index
    "indices",
    "indptr",
    // a COO array's coordinates, the same for its kernels
    "coords",
    // scikit-learn's trees hand out the index arrays their native queries trust (neighbour
    // trees' arrays, a fitted decision tree's node arrays)
    "get_arrays",
    "idx_array",
    "node_data",
    "node_bounds",
    "tree_",
    // matplotlib's artists call every `get_*` method of whatever object they are given as
    // `self` (`properties`, `pprint_getters`), so the name reaches the getters above however
    // the method is held: through a class the snippet made, stored, or passed on
    "properties",
    "pprint_getters",
    // a path's flavour module (`Path(".").parser` is `os.path`, whose `os` is `os`): the one
    // class attribute of the survey's library classes that holds a module, reached on
    // instances the analyzer does not type
    "parser",
    // matplotlib runs LaTeX on a text so marked (reading any file it names with `\input`);
    // the keyword and the setting are judged where they are written, the setter here, so
    // that `setp(t, "usetex", ...)` and `t.update({"usetex": ...})` reach it too
    "set_usetex",
];

/// Functions (or whole modules) that load code from a file, a spec built at run time or a
/// name found in data.
const FILE_LOADERS: &[&str] = &[
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
    // `EntryPoint(name, "module:attr", group).load()` imports and returns what its text names
    "importlib.metadata.EntryPoint",
    // Whole modules that load code named by data: configuration loaders (`fileConfig`
    // evaluates handler arguments, `dictConfig` calls any dotted name it is given), `pydoc`
    // (`locate` imports and returns any name; its pagers run shell commands) and `site`
    // (`addsitedir` runs the `import` lines of `.pth` files).
    "logging.config",
    "pydoc",
    "site",
];

/// Keyword arguments that name a file, carried on call facts like positional arguments.
const PATH_KEYWORDS: &[&str] = &[
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

const fn paths(
    name: &'static str,
    positions: &'static [usize],
    keywords: &'static [&'static str],
) -> PathFunction {
    PathFunction {
        name,
        positions,
        keywords,
    }
}

/// Functions that take file paths, with where the paths are.
const PATH_FUNCTIONS: &[PathFunction] = &[
    paths("open", &[0], &["file"]),
    paths("io.open", &[0], &["file"]),
    paths("io.FileIO", &[0], &["file"]),
    paths("codecs.open", &[0], &["filename"]),
    paths("os.open", &[0], &["path"]),
    paths("os.listdir", &[0], &["path"]),
    // The working directory every later relative path is resolved against: proven inside the
    // work dir (or /tmp), it keeps the analyzer's reading of those paths (against /work) on
    // the safe side, since any climb out of it climbs out of /work too.
    paths("os.chdir", &[0], &["path"]),
    paths("contextlib.chdir", &[0], &["path"]),
    paths("os.scandir", &[0], &["path"]),
    paths("os.walk", &[0], &["top"]),
    paths("os.stat", &[0], &["path"]),
    paths("os.lstat", &[0], &["path"]),
    paths("os.remove", &[0], &["path"]),
    paths("os.unlink", &[0], &["path"]),
    paths("os.rmdir", &[0], &["path"]),
    paths("os.removedirs", &[0], &["name"]),
    paths("os.mkdir", &[0], &["path"]),
    paths("os.makedirs", &[0], &["name"]),
    paths("os.rename", &[0, 1], &["src", "dst"]),
    paths("os.renames", &[0, 1], &["old", "new"]),
    paths("os.replace", &[0, 1], &["src", "dst"]),
    paths("os.chmod", &[0], &["path"]),
    paths("os.chown", &[0], &["path"]),
    paths("os.chdir", &[0], &["path"]),
    paths("os.chroot", &[0], &["path"]),
    paths("os.symlink", &[0, 1], &["src", "dst"]),
    paths("os.link", &[0, 1], &["src", "dst"]),
    paths("os.readlink", &[0], &["path"]),
    paths("os.access", &[0], &["path"]),
    paths("os.truncate", &[0], &["path"]),
    paths("os.mkfifo", &[0], &["path"]),
    paths("os.mknod", &[0], &["path"]),
    paths("os.utime", &[0], &["path"]),
    paths("os.path.exists", &[0], &["path"]),
    paths("os.path.lexists", &[0], &["path"]),
    paths("os.path.isfile", &[0], &["path"]),
    paths("os.path.isdir", &[0], &["s"]),
    paths("os.path.islink", &[0], &["path"]),
    paths("os.path.getsize", &[0], &["filename"]),
    paths("os.path.getmtime", &[0], &["filename"]),
    paths("os.path.realpath", &[0], &["filename"]),
    paths("shutil.*", &[0, 1], &["src", "dst", "path"]),
    paths("pathlib.Path", &[0, 1, 2, 3], &[]),
    paths("pathlib.PosixPath", &[0, 1, 2, 3], &[]),
    paths("pathlib.PurePath", &[0, 1, 2, 3], &[]),
    paths("pathlib.PurePosixPath", &[0, 1, 2, 3], &[]),
    // A method taken from the class is given its path first (`Path.read_text(p)`).
    paths("pathlib.Path.*", &[0], &[]),
    paths("pathlib.PosixPath.*", &[0], &[]),
    paths("pathlib.PurePath.*", &[0], &[]),
    paths("pathlib.PurePosixPath.*", &[0], &[]),
    paths("glob.glob", &[0], &["pathname", "root_dir"]),
    paths("glob.iglob", &[0], &["pathname", "root_dir"]),
    paths("fileinput.input", &[0], &["files"]),
    paths("linecache.getline", &[0], &["filename"]),
    paths("linecache.getlines", &[0], &["filename"]),
    paths("tarfile.open", &[0], &["name"]),
    paths("zipfile.ZipFile", &[0], &["file"]),
    paths("sqlite3.connect", &[0], &["database"]),
    paths("gzip.open", &[0], &["filename"]),
    paths("bz2.open", &[0], &["filename"]),
    paths("lzma.open", &[0], &["filename"]),
    paths("gzip.GzipFile", &[0], &["filename"]),
    paths("bz2.BZ2File", &[0], &["filename"]),
    paths("lzma.LZMAFile", &[0], &["filename"]),
    paths("logging.basicConfig", &[], &["filename"]),
    paths("logging.FileHandler", &[0], &["filename"]),
    // Warnings show the source line of the file they name, read through linecache.
    paths("warnings.formatwarning", &[2], &["filename"]),
    paths("warnings.showwarning", &[2], &["filename"]),
    paths("warnings.warn_explicit", &[2], &["filename"]),
    paths("numpy.load", &[0], &["file"]),
    paths("numpy.loadtxt", &[0], &["fname"]),
    paths("numpy.genfromtxt", &[0], &["fname"]),
    paths("numpy.fromfile", &[0], &["file"]),
    paths("numpy.memmap", &[0], &["filename"]),
    paths("numpy.save", &[0], &["file"]),
    paths("numpy.savez", &[0], &["file"]),
    paths("numpy.savez_compressed", &[0], &["file"]),
    paths("numpy.savetxt", &[0], &["fname"]),
    paths(
        "pandas.read_*",
        &[0],
        &["filepath_or_buffer", "path_or_buffer", "path", "io"],
    ),
    paths("pandas.ExcelFile", &[0], &["path_or_buffer"]),
    paths("pandas.HDFStore", &[0], &["path"]),
    paths("matplotlib.pyplot.savefig", &[0], &["fname"]),
    paths("matplotlib.pyplot.imread", &[0], &["fname"]),
    paths("matplotlib.pyplot.imsave", &[0], &["fname"]),
    paths("matplotlib.image.imread", &[0], &["fname"]),
    paths("matplotlib.image.imsave", &[0], &["fname"]),
    paths("matplotlib.pyplot.style.use", &[0], &["style"]),
    paths("matplotlib.style.use", &[0], &["style"]),
    paths("matplotlib.style.context", &[0], &["style"]),
    paths("matplotlib.pyplot.style.context", &[0], &["style"]),
    paths("matplotlib.rc_file", &[0], &["fname"]),
    paths("scipy.io.loadmat", &[0], &["file_name"]),
    paths("scipy.io.savemat", &[0], &["file_name"]),
    paths("scipy.io.mmread", &[0], &["source"]),
    paths("scipy.io.wavfile.read", &[0], &["filename"]),
    // Matrix Market files are read and written by parameters the survey does not take for
    // files (`source`, `target`: names the libraries also give axes and arrays).
    paths("scipy.io.mminfo", &[0], &["source"]),
    paths("scipy.io.mmwrite", &[0], &["target"]),
    // `f` is a file here and a function nearly everywhere else.
    paths("sklearn.datasets.dump_svmlight_file", &[2], &["f"]),
    // numpy 2's `numpy.core.records` hands its members over by `__getattr__`, so the survey,
    // which lists members by `dir`, does not see its `fromfile` (`numpy.rec.fromfile`).
    paths("numpy.core.records.fromfile", &[0], &["fd"]),
    paths(
        "matplotlib.mathtext.math_to_image",
        &[1],
        &["filename_or_obj"],
    ),
    paths("sklearn.datasets.load_files", &[0], &["container_path"]),
    paths("sklearn.datasets.load_svmlight_file", &[0], &["f"]),
    paths("sklearn.datasets.load_svmlight_files", &[0], &["files"]),
    paths("joblib.load", &[0], &["filename"]),
    paths("joblib.dump", &[1], &["filename"]),
];

pub static TABLES: Tables = Tables {
    eval: EVAL,
    eval_modules: &[],
    runners: RUNNERS,
    introspection_names: INTROSPECTION_NAMES,
    introspection_attributes: INTROSPECTION_ATTRIBUTES,
    file_loaders: FILE_LOADERS,
    loader_methods: &["exec_module", "load_module"],
    path_functions: PATH_FUNCTIONS,
    path_keywords: PATH_KEYWORDS,
    path_attributes: &["baseFilename"],
    // `__main__.x` is the snippet's `x`; `contextlib.redirect_stdout(x)` makes `sys.stdout` `x`.
    replaceable_members: &["__main__", "sys.stdout", "sys.stderr", "sys.stdin"],
    plain_bases: &[
        "object",
        "BaseException",
        "Exception",
        "ArithmeticError",
        "AssertionError",
        "AttributeError",
        "IndexError",
        "KeyError",
        "LookupError",
        "NotImplementedError",
        "OverflowError",
        "RuntimeError",
        "TypeError",
        "ValueError",
        "ZeroDivisionError",
        "Warning",
        "UserWarning",
    ],
    base_modules: &[],
    definition_keepers: &[
        "staticmethod",
        "classmethod",
        "property",
        "abc.abstractmethod",
        "dataclasses.dataclass",
        "enum.unique",
        "functools.cache",
        "functools.cached_property",
        "functools.lru_cache",
        "functools.total_ordering",
        "functools.wraps",
        "typing.final",
        "typing.overload",
        "typing.runtime_checkable",
    ],
};

/// Modules other modules commonly hold as attributes (`shutil.os`, `asyncio.subprocess`).
/// Reached that way, or under a private alias (`tempfile._os`), they mean the module itself.
pub const REEXPORTED_MODULES: &[&str] = &[
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
    "shutil",
    "io",
    "pickle",
    "marshal",
];

/// Python's builtins (`dir(builtins)` in 3.11), and the names every module has.
const BUILTINS: &str = "ArithmeticError AssertionError AttributeError BaseException \
    BaseExceptionGroup BlockingIOError BrokenPipeError BufferError BytesWarning \
    ChildProcessError ConnectionAbortedError ConnectionError ConnectionRefusedError \
    ConnectionResetError DeprecationWarning EOFError Ellipsis EncodingWarning \
    EnvironmentError Exception ExceptionGroup False FileExistsError FileNotFoundError \
    FloatingPointError FutureWarning GeneratorExit IOError ImportError ImportWarning \
    IndentationError IndexError InterruptedError IsADirectoryError KeyError \
    KeyboardInterrupt LookupError MemoryError ModuleNotFoundError NameError None \
    NotADirectoryError NotImplemented NotImplementedError OSError OverflowError \
    PendingDeprecationWarning PermissionError ProcessLookupError RecursionError \
    ReferenceError ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration \
    StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError \
    True TypeError UnboundLocalError UnicodeDecodeError UnicodeEncodeError UnicodeError \
    UnicodeTranslateError UnicodeWarning UserWarning ValueError Warning ZeroDivisionError \
    __build_class__ __debug__ __doc__ __import__ __loader__ __name__ __package__ __spec__ \
    __builtins__ __annotations__ __file__ __cached__ \
    abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr \
    classmethod compile complex copyright credits delattr dict dir divmod enumerate eval \
    exec exit filter float format frozenset getattr globals hasattr hash help hex id input \
    int isinstance issubclass iter len license list locals map max memoryview min next \
    object oct open ord pow print property quit range repr reversed round set setattr slice \
    sorted staticmethod str sum super tuple type vars zip";

pub fn is_builtin(name: &str) -> bool {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| BUILTINS.split_whitespace().collect())
        .contains(name)
}

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
    zipfile zipimport zlib zoneinfo _posixsubprocess _socket _ctypes _pickle _io _thread";

pub fn is_stdlib_module(name: &str) -> bool {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| STDLIB_MODULES.split_whitespace().collect())
        .contains(name)
}

/// Submodules reached as attributes of their package, as the interpreter has them loaded in
/// practice: the standard library's, and those of the data libraries the image ships.
const SUBMODULES: &str = "os.path importlib.util importlib.machinery importlib.abc \
    importlib.resources importlib.metadata logging.config logging.handlers \
    concurrent.futures multiprocessing.connection multiprocessing.pool \
    multiprocessing.shared_memory multiprocessing.managers multiprocessing.process \
    asyncio.subprocess asyncio.events asyncio.base_events http.client http.server \
    http.cookiejar urllib.request urllib.parse urllib.error urllib.response xml.etree \
    xml.etree.ElementTree xml.dom xml.dom.minidom xml.sax email.mime json.decoder \
    json.encoder collections.abc ctypes.util unittest.mock xmlrpc.client xmlrpc.server \
    dbm.dumb encodings.idna \
    numpy.linalg numpy.fft numpy.random numpy.ma numpy.polynomial numpy.lib numpy.testing \
    numpy.ctypeslib numpy.f2py numpy.distutils numpy.core numpy.char numpy.rec numpy.matlib \
    numpy.emath numpy.dtypes numpy.exceptions numpy.typing numpy.compat numpy.lib.npyio \
    numpy.lib.format numpy.lib.stride_tricks numpy.lib.recfunctions numpy.testing.extbuild \
    numpy.polynomial.polynomial numpy.polynomial.chebyshev numpy.polynomial.legendre \
    numpy.polynomial.hermite numpy.polynomial.laguerre numpy.core.multiarray \
    pandas.api pandas.api.types pandas.api.extensions pandas.api.indexers pandas.io \
    pandas.io.common pandas.io.parsers pandas.io.formats pandas.io.json pandas.io.pickle \
    pandas.io.sql pandas.core pandas.plotting pandas.tseries pandas.tseries.offsets \
    pandas.testing pandas.errors pandas.arrays pandas.util pandas.compat \
    matplotlib.pyplot matplotlib.cm matplotlib.colors matplotlib.ticker matplotlib.dates \
    matplotlib.patches matplotlib.lines matplotlib.animation matplotlib.gridspec \
    matplotlib.image matplotlib.font_manager matplotlib.style matplotlib.axes \
    matplotlib.figure matplotlib.collections matplotlib.text matplotlib.transforms \
    matplotlib.path matplotlib.markers matplotlib.legend matplotlib.colorbar \
    matplotlib.backends matplotlib.rcsetup matplotlib.mlab matplotlib.scale \
    matplotlib.patheffects matplotlib.widgets matplotlib.table matplotlib.testing \
    scipy.stats scipy.optimize scipy.linalg scipy.sparse scipy.sparse.linalg scipy.signal \
    scipy.integrate scipy.interpolate scipy.special scipy.spatial scipy.spatial.distance \
    scipy.cluster scipy.cluster.hierarchy scipy.cluster.vq scipy.fft scipy.fftpack scipy.io \
    scipy.io.wavfile scipy.ndimage scipy.misc scipy.constants scipy.odr scipy.datasets \
    sklearn.base sklearn.calibration sklearn.cluster sklearn.compose sklearn.covariance \
    sklearn.cross_decomposition sklearn.datasets sklearn.decomposition \
    sklearn.discriminant_analysis sklearn.dummy sklearn.ensemble sklearn.exceptions \
    sklearn.feature_extraction sklearn.feature_extraction.text sklearn.feature_selection \
    sklearn.gaussian_process sklearn.impute sklearn.inspection sklearn.isotonic \
    sklearn.kernel_approximation sklearn.kernel_ridge sklearn.linear_model sklearn.manifold \
    sklearn.metrics sklearn.metrics.pairwise sklearn.mixture sklearn.model_selection \
    sklearn.multiclass sklearn.multioutput sklearn.naive_bayes sklearn.neighbors \
    sklearn.neural_network sklearn.pipeline sklearn.preprocessing sklearn.random_projection \
    sklearn.semi_supervised sklearn.svm sklearn.tree sklearn.utils sklearn.experimental";

fn submodules() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| SUBMODULES.split_whitespace().collect())
}

/// True when `path` is a known submodule.
pub fn is_submodule(path: &str) -> bool {
    submodules().contains(path)
}

/// Methods of namespace dictionaries that look a name up by their first argument.
pub const NAMESPACE_METHODS: &[&str] = &["get", "__getitem__", "setdefault", "pop"];

/// Calls whose first argument is a size or shape to allocate.
pub const ALLOCATING_CALLS: &[&str] = &[
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
pub const DIMENSION_CALLS: &[&str] = &["numpy.random.rand", "numpy.random.randn"];

/// Keyword arguments that give a size or shape (`np.zeros(shape=...)`, `rng.random(size=...)`).
pub const SIZE_KEYWORDS: &[&str] = &["shape", "size"];
