//! The JavaScript analyzer's constant tables: the global objects, modules and names that run
//! code, load modules, introspect or allocate, the markers resolution uses, and the node kinds
//! the passes visit.

/// Names that stand for the global object.
pub(super) const GLOBAL_OBJECTS: &[&str] = &["globalThis", "global", "window", "self"];

/// What a function value (a function or class literal or declaration) resolves to.
pub(super) const FUNCTION: &str = "<function>";
/// Marker part: `X.<descriptor>` is what `Object.getOwnPropertyDescriptor(X's owner, key)`
/// returns; its `.value` is `X`.
pub(super) const DESCRIPTOR: &str = "<descriptor>";
/// Marker part: `O.<descriptors>` is `Object.getOwnPropertyDescriptors(O)`.
pub(super) const DESCRIPTORS: &str = "<descriptors>";

/// Node's built-in modules. A local declared with one of these names is not the module: the
/// module is only a global in the REPL, where it is never shadowed by a declaration.
pub(super) const NODE_MODULES: &[&str] = &[
    "assert",
    "async_hooks",
    "buffer",
    "child_process",
    "cluster",
    "constants",
    "dgram",
    "diagnostics_channel",
    "dns",
    "domain",
    "events",
    "fs",
    "http",
    "http2",
    "https",
    "inspector",
    "net",
    "os",
    "path",
    "perf_hooks",
    "punycode",
    "querystring",
    "readline",
    "repl",
    "stream",
    "string_decoder",
    "sys",
    "timers",
    "tls",
    "trace_events",
    "tty",
    "url",
    "util",
    "v8",
    "vm",
    "wasi",
    "worker_threads",
    "zlib",
];

/// Functions that load a module named by their first argument.
pub(super) const LOADERS: &[&str] = &[
    "require",
    "module.require",
    "module._load",
    "module.Module._load",
];

/// Names that run text as code.
pub(super) const EVAL_NAMES: &[&str] = &[
    "eval",
    "Function",
    "AsyncFunction",
    "GeneratorFunction",
    "vm.runInThisContext",
    "vm.runInNewContext",
    "vm.runInContext",
    "vm.Script",
    "vm.compileFunction",
    "vm.SourceTextModule",
    "vm.createScript",
];

/// Timers run a string first argument as code.
pub(super) const STRING_TIMERS: &[&str] = &["setTimeout", "setInterval", "setImmediate"];

/// Properties that reach engine or loader internals.
pub(super) const INTROSPECTION_PROPERTIES: &[&str] = &[
    "__proto__",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
    "callee",
    "caller",
    "mainModule",
    "prepareStackTrace",
];

/// Of [`INTROSPECTION_PROPERTIES`], those that only mean something on `arguments` or on a
/// function (`node.callee` in an AST walker is harmless).
pub(super) const CALL_STACK_PROPERTIES: &[&str] = &["callee", "caller"];

pub(super) const INTROSPECTION_NAMES: &[&str] = &[
    "module._cache",
    "require.cache",
    "module._resolveFilename",
    "module._extensions",
    "v8.setFlagsFromString",
    "process.binding",
    "process._linkedBinding",
];

/// Constructors and functions whose first argument is a size to allocate.
pub(super) const ALLOCATING: &[&str] = &[
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

/// Node kinds that bind names.
pub(super) const BINDING_KINDS: [&str; 7] = [
    "import_statement",
    "variable_declarator",
    "assignment_expression",
    "assignment_pattern",
    "function_declaration",
    "generator_function_declaration",
    "class_declaration",
];

/// Node kinds of function values.
pub(super) const FUNCTION_LITERALS: &[&str] = &[
    "function_expression",
    "arrow_function",
    "generator_function",
    "class",
];
