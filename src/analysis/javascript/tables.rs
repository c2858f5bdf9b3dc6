//! JavaScript's name tables: the global object's names, Node's modules, and the names that
//! run code, load modules, reach internals, allocate or take file paths.

use crate::analysis::dialect::{PathFunction, Runner, Tables};

/// Names that stand for the global object.
pub const GLOBAL_OBJECTS: &[&str] = &["globalThis", "global", "window", "self"];

/// The names the engine defines without an import: ECMAScript's and Node's globals, and the
/// names CommonJS gives every module (`require`, `module`, `exports`, `__dirname`).
const GLOBALS: &str = "AbortController AbortSignal AggregateError Array ArrayBuffer AsyncFunction Atomics \
    BigInt BigInt64Array BigUint64Array Blob Boolean BroadcastChannel Buffer \
    ByteLengthQueuingStrategy CompressionStream CountQueuingStrategy Crypto CryptoKey \
    CustomEvent DOMException DataView Date DecompressionStream Error EvalError Event \
    EventTarget File FinalizationRegistry Float32Array Float64Array FormData Function \
    GeneratorFunction Headers Infinity Int16Array Int32Array Int8Array Intl Iterator JSON \
    Map Math MessageChannel MessageEvent MessagePort NaN Number Object Performance \
    PerformanceEntry PerformanceMark PerformanceMeasure PerformanceObserver \
    PerformanceObserverEntryList PerformanceResourceTiming Promise Proxy RangeError \
    ReadableByteStreamController ReadableStream ReadableStreamBYOBReader \
    ReadableStreamBYOBRequest ReadableStreamDefaultController ReadableStreamDefaultReader \
    ReferenceError Reflect RegExp Request Response Set SharedArrayBuffer String SubtleCrypto \
    Symbol SyntaxError TextDecoder TextDecoderStream TextEncoder TextEncoderStream \
    TransformStream TransformStreamDefaultController TypeError URIError URL URLSearchParams \
    Uint16Array Uint32Array Uint8Array Uint8ClampedArray WeakMap WeakRef WeakSet WebAssembly \
    WebSocket WritableStream WritableStreamDefaultController WritableStreamDefaultWriter \
    __dirname __filename atob btoa clearImmediate clearInterval clearTimeout console crypto \
    decodeURI decodeURIComponent encodeURI encodeURIComponent escape eval exports fetch \
    global globalThis isFinite isNaN module navigator parseFloat parseInt performance \
    process queueMicrotask require self setImmediate setInterval setTimeout structuredClone \
    undefined unescape window";

pub fn is_global(name: &str) -> bool {
    static SET: std::sync::OnceLock<foldhash::HashSet<&'static str>> = std::sync::OnceLock::new();
    SET.get_or_init(|| GLOBALS.split_whitespace().collect())
        .contains(name)
}

/// Node's built-in modules (`process`, `console` and `module` are globals first). A module
/// `a/b` is also the member `b` of `a` (`fs.promises` is `fs/promises`).
pub const NODE_MODULES: &[&str] = &[
    "assert",
    "assert/strict",
    "async_hooks",
    "buffer",
    "child_process",
    "cluster",
    "constants",
    "crypto",
    "dgram",
    "diagnostics_channel",
    "dns",
    "dns/promises",
    "domain",
    "events",
    "fs",
    "fs/promises",
    "http",
    "http2",
    "https",
    "inspector",
    "inspector/promises",
    "net",
    "os",
    "path",
    "path/posix",
    "path/win32",
    "perf_hooks",
    "punycode",
    "querystring",
    "readline",
    "readline/promises",
    "repl",
    "stream",
    "stream/consumers",
    "stream/promises",
    "stream/web",
    "string_decoder",
    "sys",
    "timers",
    "timers/promises",
    "tls",
    "trace_events",
    "tty",
    "url",
    "util",
    "util/types",
    "v8",
    "vm",
    "wasi",
    "worker_threads",
    "zlib",
];

const EVAL: &[&str] = &["eval", "Function", "AsyncFunction", "GeneratorFunction"];

/// `Function(a, b, body)`: the body is the last argument.
const RUNNERS: &[Runner] = &[
    Runner {
        name: "Function",
        code: &[(usize::MAX, "")],
        callables: false,
        docstrings: false,
        visible_is_fine: false,
    },
    Runner {
        name: "AsyncFunction",
        code: &[(usize::MAX, "")],
        callables: false,
        docstrings: false,
        visible_is_fine: false,
    },
    Runner {
        name: "GeneratorFunction",
        code: &[(usize::MAX, "")],
        callables: false,
        docstrings: false,
        visible_is_fine: false,
    },
];

/// Names that reach the loader's or the engine's internals.
const INTROSPECTION_NAMES: &[&str] = &[
    "module._cache",
    "require.cache",
    "module._resolveFilename",
    "module._extensions",
    "module._compile",
    "v8.setFlagsFromString",
    "process.binding",
    "process._linkedBinding",
    "arguments.callee",
    "arguments.caller",
    "Function.caller",
    "Function.arguments",
];

/// Properties that reach engine or loader internals on anything. (`callee` and `caller` only
/// mean that on `arguments` or a function, and are judged where they are reached.)
const INTROSPECTION_ATTRIBUTES: &[&str] = &[
    "__proto__",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
    "mainModule",
    "prepareStackTrace",
    // A stack frame's function and receiver (V8's CallSite): another frame's internals.
    "getFunction",
    "getThis",
];

/// Properties that reach other frames' functions on `arguments` or a function.
pub const CALL_STACK_PROPERTIES: &[&str] = &["callee", "caller"];

/// What reaches a running function's arguments (`arguments[0] = x` rewrites a sloppy
/// function's first parameter) or its callers (`g.caller(x)` calls whatever called `g`).
pub const CALL_STACK_NAMES: &[&str] = &["arguments", "callee", "caller"];

/// Timers run a string first argument as code.
pub const STRING_TIMERS: &[&str] = &["setTimeout", "setInterval", "setImmediate"];

/// Globals that are capabilities as a whole: `process` holds the environment (`env`), native
/// bindings (`binding`, `dlopen`) and the module system (`mainModule`), `module` the loader.
/// Their members are judged where they are read (`process.argv`), so each is followed only
/// there: copied (`{...process}`, `Object.assign`), passed (`console.log(process)`), stored,
/// returned, thrown or put on a `with` scope, it hands those members out unnamed.
pub const CAPABILITY_GLOBALS: &[&str] = &["process", "module"];

/// Constructors and functions whose first argument is a size to allocate.
pub const ALLOCATING: &[&str] = &[
    "Array",
    "ArrayBuffer",
    "SharedArrayBuffer",
    "Buffer.alloc",
    "Buffer.allocUnsafe",
    "Buffer.allocUnsafeSlow",
    "Uint8Array",
    "Int8Array",
    "Uint16Array",
    "Int16Array",
    "Uint32Array",
    "Int32Array",
    "Float32Array",
    "Float64Array",
    "BigInt64Array",
    "BigUint64Array",
];

/// The parameters of Node's file functions that are paths, by the function's name without
/// its module or `Sync` (`readFileSync`, `fs.promises.readFile` and `readFile` take the same
/// ones). Only these are paths: an options object (`mkdirSync('out', {recursive: true})`) or
/// the data written is not. Functions of a file descriptor take no path.
const FS_PATH_PARAMETERS: &[(&str, &[usize])] = &[
    // from, to
    ("rename", &[0, 1]),
    ("copyFile", &[0, 1]),
    ("cp", &[0, 1]),
    // the link's target, then the link
    ("link", &[0, 1]),
    ("symlink", &[0, 1]),
    ("access", &[0]),
    ("appendFile", &[0]),
    ("chmod", &[0]),
    ("chown", &[0]),
    ("createReadStream", &[0]),
    ("createWriteStream", &[0]),
    ("ReadStream", &[0]),
    ("WriteStream", &[0]),
    ("exists", &[0]),
    ("glob", &[0]),
    ("lchmod", &[0]),
    ("lchown", &[0]),
    ("lstat", &[0]),
    ("lutimes", &[0]),
    ("mkdir", &[0]),
    ("mkdtemp", &[0]),
    ("open", &[0]),
    ("openAsBlob", &[0]),
    ("opendir", &[0]),
    ("readdir", &[0]),
    ("readFile", &[0]),
    ("readlink", &[0]),
    ("realpath", &[0]),
    ("rm", &[0]),
    ("rmdir", &[0]),
    ("stat", &[0]),
    ("statfs", &[0]),
    ("truncate", &[0]),
    ("unlink", &[0]),
    ("unwatchFile", &[0]),
    ("utimes", &[0]),
    ("watch", &[0]),
    ("watchFile", &[0]),
    ("writeFile", &[0]),
    ("close", &[]),
    ("fchmod", &[]),
    ("fchown", &[]),
    ("fdatasync", &[]),
    ("fstat", &[]),
    ("fsync", &[]),
    ("ftruncate", &[]),
    ("futimes", &[]),
    ("read", &[]),
    ("readv", &[]),
    ("write", &[]),
    ("writev", &[]),
];

/// The modules (and member paths) whose functions [`FS_PATH_PARAMETERS`] describes.
const FS_MODULES: &[&str] = &["fs.", "fs/promises.", "fs.promises."];

/// A file function of Node's by its full name (`fs.mkdirSync`, `fs/promises.readFile`),
/// with the parameters that are paths.
pub fn fs_path_function(name: &str) -> Option<PathFunction> {
    let function = FS_MODULES.iter().find_map(|m| name.strip_prefix(m))?;
    let base = function.strip_suffix("Sync").unwrap_or(function);
    FS_PATH_PARAMETERS
        .iter()
        .find(|(f, _)| *f == base)
        .map(|&(_, positions)| PathFunction {
            name: "fs.*",
            positions,
            keywords: &[],
        })
}

/// Path functions [`fs_path_function`] does not know. Another function of `fs` takes its
/// first two arguments as paths: unknown is unproven, never assumed harmless.
const PATH_FUNCTIONS: &[PathFunction] = &[
    PathFunction {
        name: "fs.*",
        positions: &[0, 1],
        keywords: &[],
    },
    PathFunction {
        name: "fs.promises.*",
        positions: &[0, 1],
        keywords: &[],
    },
    PathFunction {
        name: "fs/promises.*",
        positions: &[0, 1],
        keywords: &[],
    },
    PathFunction {
        name: "process.chdir",
        positions: &[0],
        keywords: &[],
    },
];

pub static TABLES: Tables = Tables {
    eval: EVAL,
    eval_modules: &["vm"],
    runners: RUNNERS,
    introspection_names: INTROSPECTION_NAMES,
    introspection_attributes: INTROSPECTION_ATTRIBUTES,
    file_loaders: &[],
    loader_methods: &["_compile"],
    path_functions: PATH_FUNCTIONS,
    path_keywords: &[],
    path_attributes: &["path"],
    replaceable_members: &[],
    plain_bases: &[
        "Object",
        "Error",
        "RangeError",
        "ReferenceError",
        "SyntaxError",
        "TypeError",
    ],
    base_modules: &["events"],
    definition_keepers: &[],
};
