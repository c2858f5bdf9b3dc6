//! What the one analyzer engine needs to know about a language: how names declare and
//! resolve, which names are modules, builtins and globals, what the calls that return modules
//! or names look like, how strings are built, and the tables of sinks each detection checks.
//! `python/` and `javascript/` implement it; the engine never asks which language it runs.

use std::borrow::Cow;

use super::engine::Engine;
use super::engine::scopes::Declaring;
use super::ir::NodeId;

/// What a name no scope declares stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FreeName {
    /// The global object (`globalThis`, `global`, `window`, `self`).
    GlobalObject,
    /// A builtin or global of that name (`open`, `console`), or a name that is simply
    /// undefined: either way the name itself.
    Itself,
}

/// Calls whose result the engine resolves from their arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallKind {
    /// Imports the module named by the first argument and returns it. `top_level`: returns
    /// the top-level package (`__import__('a.b')` is `a`); `colon`: the argument is
    /// `module:attribute` and the attribute is returned (`pkgutil.resolve_name`).
    Import { top_level: bool, colon: bool },
    /// Finds (and may load) the module named by the first argument, returning a spec or a
    /// loader (`importlib.util.find_spec`).
    FindModule,
    /// Looks up the attribute named by argument `name` on argument `object` (`getattr`,
    /// `Reflect.get`); with `descriptor`, returns the property's descriptor. `always`: a
    /// computed name is worth reporting on any object, not only on a namespace.
    GetAttr {
        object: usize,
        name: usize,
        descriptor: bool,
        always: bool,
    },
    /// Sets or deletes an attribute named by argument 1 (`setattr`, `delattr`).
    SetAttr,
    /// Every property descriptor of the first argument (`Object.getOwnPropertyDescriptors`).
    Descriptors,
    /// `operator.attrgetter(name)`.
    AttrGetter,
    /// `operator.methodcaller(name)`.
    MethodCaller,
    /// Calls the methods `prefix` + each name it is given on its first argument, whatever
    /// object that is: matplotlib's `getp(obj, "name")` (`obj.get_name()`) and `setp(obj,
    /// name=v)` (`obj.set_name(v)`); without a name, `getp` calls every getter.
    Accessor { prefix: &'static str },
    /// The snippet's own namespace: `globals()`, `locals()`, `vars()` without arguments.
    Globals,
    /// `vars(x)`: the attributes of `x` (without arguments, the snippet's namespace).
    Vars,
    /// Returns its first argument (`importlib.reload(m)`).
    Identity,
    /// Returns `require` (`module.createRequire(...)`).
    Require,
    /// `f.bind(...)`: returns `f`, bound.
    Bound,
}

/// Calls and methods that build strings, which the folder follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrFn {
    /// `str(x)`, `String(x)`.
    Same,
    /// `str(data, encoding)`: the same text only when the codec passes ASCII through as it is.
    Recode,
    /// `new URL(url)`, `url.fileURLToPath(url)`: the URL itself, or the path of a `file:` URL
    /// as Node reads it (`%2e%2e` is `..`); with a base (`new URL("passwd",
    /// "file:///etc/")`) a resolution the analyzer does not fold, so the path is unproven.
    Url,
    /// `chr(n)`; `String.fromCharCode(a, b, ...)` (`all` arguments).
    Chr {
        all: bool,
    },
    /// `b64decode(s)`, `atob(s)`; `url_safe`: the `-_` alphabet (`urlsafe_b64decode`).
    Base64 {
        url_safe: bool,
    },
    Hex,
    /// `codecs.decode(s, codec)`: rot13, hex or base64 by the second argument.
    Codec {
        decode: bool,
    },
    /// `os.path.join(a, b)`: an absolute part starts over.
    PathJoin,
    /// `os.path.normpath(p)`.
    NormPath,
    /// `os.path.abspath(p)`: normalized, from the working directory.
    AbsPath,
    /// `os.path.realpath(p)`: as `AbsPath`, inside the work dir only, where no link of the
    /// system's (`/bin` is `usr/bin`) changes the result.
    RealPath,
    /// `pathlib.Path(a, b)`: joined as `os.path.join` does, then parsed (no `.` or empty
    /// parts, no trailing slash, `.` for nothing).
    PurePath,
    /// Node's `path.join(a, b)`: joined (an absolute part does not start over), normalized.
    NodeJoin,
    /// Node's `path.normalize(p)`.
    NodeNormalize,
    /// Node's `path.resolve(a, b)`: the join, from the working directory.
    PathResolve,
    /// `os.path.expanduser(p)`: a leading `~` is the home directory (the work dir).
    ExpandUser,
    /// `decodeURIComponent(s)` of a string without escapes.
    Unescape,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrMethod {
    /// `sep.join(parts)` (Python: the object is the separator).
    JoinOnSeparator,
    /// `parts.join(sep)` (JavaScript: the object is the list; default separator `,`).
    JoinList,
    Lower,
    Upper,
    /// `chars`: the method takes the set of characters to strip (Python's `strip(chars)`);
    /// JavaScript's `trim()` takes none and ignores what it is given.
    Strip {
        start: bool,
        end: bool,
        chars: bool,
    },
    /// Python's `s.replace(old, new[, count])`: every occurrence, or the first `count`.
    Replace,
    /// JavaScript's `s.replaceAll(pattern, replacement)`: a replacement holding `$` is a
    /// pattern (`$&` is the match, `` $` `` the text before it), not text.
    ReplaceAll,
    /// `s.split(sep, n)`, a sequence: `max_splits` when `n` counts the splits made (Python's
    /// `maxsplit`), else the number of items kept (JavaScript's `limit`).
    Split {
        max_splits: bool,
    },
    /// `.decode(codec)`, `.encode(codec)`: the same text only when the codec passes ASCII
    /// through as it is (`utf-7`, `unicode_escape` or `punycode` do not).
    Recode,
    /// `.decode()`, `.encode()`, `.valueOf()`: the same text.
    Same,
    /// `a.concat(b, ...)`.
    Concat,
    /// `Buffer.from(s, enc).toString()`.
    BufferToString,
    /// `Path('a').joinpath('b', 'c')`.
    JoinPath,
    /// `Path('a').absolute()`: from the working directory, `..` kept, so `.parent` of the
    /// result climbs out of it (`Path('a').absolute().parent.parent` is `/`).
    Absolute,
    /// `Path('a').resolve()`: from the working directory, `..` applied; inside the work dir
    /// only, where no link of the system's (`/bin` is `usr/bin`) changes the result.
    Resolve,
    /// `Path('a/b').as_posix()`: the path's text.
    AsPosix,
    /// `Path('~/x').expanduser()`.
    ExpandUser,
    /// `Path('a/b').with_suffix('.txt')`: the last part's extension replaced (or added).
    WithSuffix,
    /// `Path('a/b').with_name('c')`: the last part replaced.
    WithName,
}

/// A function that runs code from text the snippet may hold: `code` lists where that text is
/// (argument index and keyword). Text the analyzer can see is analyzed as nested code;
/// anything else is code it cannot check.
#[derive(Debug, Clone, Copy)]
pub struct Runner {
    pub name: &'static str,
    pub code: &'static [(usize, &'static str)],
    /// Also accepts a callable in place of the text (`timeit.timeit(f)`).
    pub callables: bool,
    /// Runs the examples of the snippet's own docstrings (`doctest.testmod()`).
    pub docstrings: bool,
    /// Running visible text is not code-eval in itself (`timeit` of a constant statement);
    /// `eval` and `exec` are, whatever their text.
    pub visible_is_fine: bool,
}

/// A function that takes a file path: the positional indices and keywords that hold paths.
#[derive(Debug, Clone, Copy)]
pub struct PathFunction {
    /// A name, or a `prefix.*` pattern for every function of a module (`fs.*`).
    pub name: &'static str,
    pub positions: &'static [usize],
    pub keywords: &'static [&'static str],
}

/// The entry of the hand-written path function table that names `name`.
pub fn listed_path_function(tables: &Tables, name: &str) -> Option<PathFunction> {
    tables
        .path_functions
        .iter()
        .find(|f| crate::analysis::path_function_matches(f.name, name))
        .copied()
}

/// Where a method of an object the analyzer does not know finds the path it acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathMethod {
    /// The object is the path (`Path('x').read_text()`).
    OnReceiver,
    /// An argument is, by position or keyword (`df.to_csv('out.csv')`); a keyword may have
    /// `|`-separated spellings where classes of one family name it differently.
    Argument(usize, &'static str),
    /// Both are: the object is the source, the argument the target
    /// (`Path('a').rename('b')`, `Path('a').copy('b')`).
    ReceiverAndArgument(usize, &'static str),
    /// The object joined with a pattern argument is (`Path('.').glob('../*')` lists `/`).
    Pattern(usize, &'static str),
}

/// The name lists each detection checks, per language: one source for each.
pub struct Tables {
    /// Names that run text as code.
    pub eval: &'static [&'static str],
    /// Modules every function of which runs text as code (`vm`).
    pub eval_modules: &'static [&'static str],
    /// Of the code runners, those that read text the snippet holds.
    pub runners: &'static [Runner],
    /// Names that reach interpreter internals (frames, module caches, bindings).
    pub introspection_names: &'static [&'static str],
    /// Attributes that reach interpreter internals, on anything.
    pub introspection_attributes: &'static [&'static str],
    /// Functions that load code from a file or a spec built at run time.
    pub file_loaders: &'static [&'static str],
    /// Methods that run a module's code, on whatever object they are called on.
    pub loader_methods: &'static [&'static str],
    /// Functions that take file paths.
    pub path_functions: &'static [PathFunction],
    /// Keyword arguments that name files, carried on call facts.
    pub path_keywords: &'static [&'static str],
    /// Attributes of library objects that hold a path the object opens later: a logging
    /// handler's `baseFilename` (on its next record), a read stream's `path` (on the next
    /// tick, after the code that made it has run on).
    pub path_attributes: &'static [&'static str],
    /// Module members the program may replace while it runs, so their name proves nothing
    /// about the value (each with its attributes): the script's own globals as a module,
    /// streams a library call swaps.
    pub replaceable_members: &'static [&'static str],
    /// Builtin classes a snippet's class may extend and still be only its own (they bring
    /// no method a rule judges by name).
    pub plain_bases: &'static [&'static str],
    /// Modules whose export is a class that programs derive from (Node's `events` is
    /// `EventEmitter`): as a class's base the module is followed, since what the class
    /// inherits is the module's members, each judged where it is reached.
    pub base_modules: &'static [&'static str],
    /// Decorators that return the function or class they are given (or one wrapping it
    /// that calls it).
    pub definition_keepers: &'static [&'static str],
}

impl Tables {
    pub fn is_replaceable_member(&self, name: &str) -> bool {
        self.replaceable_members.iter().any(|m| {
            name.strip_prefix(m)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        })
    }
}

pub trait Dialect: Sync {
    fn tables(&self) -> &'static Tables;

    /// The function's file parameters, if it takes files.
    fn path_function(&self, name: &str) -> Option<PathFunction> {
        listed_path_function(self.tables(), name)
    }

    fn declaring(&self) -> Declaring;

    /// True when `x['k']` reads the member `k` of any object (JavaScript); in Python only a
    /// namespace's lookups do.
    fn index_reads_member(&self) -> bool;

    /// What a name no scope of the snippet declares stands for.
    fn free_name(&self, name: &str) -> FreeName;

    /// Python: a builtin name, which a module-level binding may not yet hide.
    fn is_builtin(&self, name: &str) -> bool;

    /// A module member that is itself a module: a submodule (`os.path`), or a module another
    /// module holds (`shutil.os`, `tempfile._os`), by its canonical name.
    fn member_module(&self, module: &str, member: &str) -> Option<Cow<'static, str>>;

    /// True when `module` is a known module path (a top-level standard module, or a module the
    /// snippet imports); a name rooted at one is rooted at a module.
    fn is_module(&self, path: &str) -> bool;

    /// The one spelling of a qualified name, if it is not already (`posix.system` is
    /// `os.system`, `process.mainModule.require` is `module.require`).
    fn canonical(&self, name: &str) -> Option<String>;

    /// A module name as written in an import (`node:fs`) as the analyzer names it (`fs`).
    fn module_specifier(&self, specifier: &str) -> String {
        specifier.to_owned()
    }

    /// Calls whose result the engine resolves from their arguments.
    fn call_kind(&self, name: &str) -> Option<CallKind>;

    /// The namespace a name is (`sys.modules`), or the namespace method it is
    /// (`sys.modules.get`).
    fn namespace_member(&self, owner: &str, member: &str) -> Option<NamespaceMember>;

    /// The name a member of any function is (JavaScript: a function's `constructor` is
    /// `Function`).
    fn function_member(&self, _member: &str) -> Option<&'static str> {
        None
    }

    /// Python: the `builtins` module, whose subscript (as `__builtins__`) is a builtin.
    fn is_builtins(&self, _module: &str) -> bool {
        false
    }

    /// A builtin or global object whose members, looked up by a computed name, could be
    /// anything dangerous (JavaScript's `process`, `module`, `require`, `Reflect`).
    fn is_namespace_name(&self, _name: &str) -> bool {
        false
    }

    /// An attribute name an allowlist of special attributes judges (Python's `__dunder__`
    /// names, JavaScript's `constructor`).
    fn is_special_attribute(&self, name: &str) -> bool;

    /// A member that is a number on a built-in sequence (`length`, `size`).
    fn is_size_member(&self, _member: &str) -> bool {
        false
    }

    /// True when the arithmetic operators give a number whatever their operands (JavaScript
    /// coerces them); false where a class may define them (Python's `__neg__`, and `%` and
    /// `*` on strings).
    fn operators_give_numbers(&self) -> bool;

    /// A function whose every element is a number when iterated (Python's `range`).
    fn iterates_numbers(&self, _name: &str) -> bool {
        false
    }

    /// A constructor or function that returns a built-in sequence (`Array.from`, `new Map`).
    fn constructs_sequence(&self, _name: &str) -> bool {
        false
    }

    /// A method that returns a number when called on a built-in sequence (`indexOf`,
    /// `charCodeAt`).
    fn method_returns_number(&self, _method: &str) -> bool {
        false
    }

    /// A function that returns a number (`Math.floor`, `parseInt`).
    fn returns_number(&self, _name: &str) -> bool {
        false
    }

    /// A builtin that returns a number, a text or a truth value, never an object it was
    /// given (`Math.max`, `String`, `Array.isArray`).
    fn returns_primitive(&self, _name: &str) -> bool {
        false
    }

    /// A method that returns a new sequence when called on a built-in one (`map`, `slice`,
    /// `split`).
    fn method_returns_data(&self, _method: &str) -> bool {
        false
    }

    /// Whether `from module import *` may bind `name`: a module whose names are not known
    /// may bind any.
    fn star_import_binds(&self, _module: &str, _name: &str) -> bool {
        true
    }

    /// A constructor of an in-memory file (Python's `io.StringIO`, `io.BytesIO`): a reader
    /// given one reads the text it holds, and opens no path.
    fn constructs_in_memory_file(&self, _name: &str) -> bool {
        false
    }

    /// A constructor or function that returns plain data (`Map`, `Array.from`, `JSON.parse`).
    fn constructs_data(&self, _name: &str) -> bool {
        false
    }

    /// A loader whose plain aliases (`const r = require`) are followed rather than reported as
    /// a loader handed around.
    fn follows_aliases_of(&self, _name: &str) -> bool {
        false
    }

    /// True when argument `index` of a call of `function` is data rather than a name or path
    /// (the content `fs.writeFileSync` writes), and so is left off the call's fact.
    fn is_content_argument(&self, _function: &str, _index: usize) -> bool {
        false
    }

    /// A name worth following beyond the tables: a function the policy checks call by call
    /// (JavaScript's timers, which run a string as code).
    fn is_tracked_name(&self, _name: &str) -> bool {
        false
    }

    /// A library's settings object whose stores (into an item, `by_item`, or an attribute) a
    /// rule judges by the value stored (Python: the items of matplotlib's `rcParams`, the
    /// attributes of `pandas.options` and its groups).
    fn is_settings_owner(&self, _owner: &str, _by_item: bool) -> bool {
        false
    }

    /// The module that is the snippet itself (Python's `__main__`): its members are the
    /// snippet's own globals.
    fn is_own_module(&self, _module: &str) -> bool {
        false
    }

    /// True when a parameter's values may be read from the calls of its function, given the
    /// guards of the engine's call-site reading: they name every way the language reaches a
    /// function other than by its name (namespaces, the module object, frames, special
    /// attributes, and the words of [`Dialect::call_stack_names`]).
    fn reads_parameters_from_calls(&self) -> bool {
        false
    }

    /// Names and properties that reach a running function's arguments or the functions that
    /// called it (JavaScript's `arguments`, `f.caller`, `arguments.callee`): through them a
    /// function is called, or its parameters changed, other than by a call of its name, so
    /// where the snippet uses one no parameter's values are read from the calls.
    fn call_stack_names(&self) -> &'static [&'static str] {
        &[]
    }

    /// True when a parameter takes its default whenever a call passes `undefined`
    /// (JavaScript), not only when the call leaves it out.
    fn undefined_takes_default(&self) -> bool {
        false
    }

    /// A name whose value is a known constant string (`os.sep`, `__dirname`).
    fn constant(&self, _name: &str) -> Option<&'static str> {
        None
    }

    /// Folding: a function that builds a string.
    fn string_function(&self, name: &str) -> Option<StrFn>;

    /// Folding: a string method.
    fn string_method(&self, method: &str) -> Option<StrMethod>;

    /// Where a method of an object the analyzer does not know finds its path
    /// (`Path.read_text`, `DataFrame.to_csv`).
    fn path_method(&self, _method: &str) -> Option<PathMethod> {
        None
    }

    /// The positional arguments and keywords the path method `method` takes, when it has a
    /// fixed signature (`Path.replace(target)`): a call passing more, or another keyword, is
    /// not that method (`text.replace("a", "b")` is `str.replace`), since the object that has
    /// it would refuse the call.
    fn path_method_signature(&self, _method: &str) -> Option<(usize, &'static [&'static str])> {
        None
    }

    /// Python: `a / b` joins paths (on `pathlib` paths).
    fn divides_paths(&self) -> bool {
        false
    }

    /// A definition's text, cut from its source where it stood after `indent`, as code that
    /// parses alone.
    fn standalone(&self, _indent: &str, text: &str) -> String {
        text.to_owned()
    }

    /// What a free `arguments` holds where no function of its own encloses it: CommonJS runs a
    /// module inside a wrapper called with `(exports, require, module, __filename, __dirname)`,
    /// so at the top level (and in arrow functions there) `arguments[1]` is `require`.
    fn wrapper_arguments(&self) -> &'static [&'static str] {
        &[]
    }

    /// JavaScript: `f.call(this, a)` and `f.apply(this, [a])` call `f`.
    fn forwards_calls(&self) -> bool {
        false
    }

    /// A called name made precise by the call's arguments (`yaml.load(s, Loader=SafeLoader)`
    /// is `yaml.safe_load`).
    fn refine_call(&self, _engine: &mut Engine, _call: NodeId, name: String) -> String {
        name
    }

    /// Language-specific detections on a string constant (after folding): Python's format
    /// fields walk the attributes they name (`"{0.__globals__}"`).
    fn report_text(&self, _engine: &mut Engine, _node: NodeId, _text: &str) {}

    /// Language-specific detections for one node, after the shared ones.
    fn report(&self, engine: &mut Engine, node: NodeId);
}

/// What a member of a namespace-holding name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamespaceMember {
    /// `sys.modules`.
    Modules,
    /// `X.__dict__`.
    DictOf,
    /// A lookup method of a namespace (`get`, `pop`, `setdefault`, `__getitem__`).
    Lookup,
}
