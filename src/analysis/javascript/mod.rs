//! JavaScript (Node.js): what differs from Python for the one engine. `lower` reads
//! tree-sitter's tree into the shared syntax; `tables` lists the names; `functions` holds what
//! only JavaScript's functions can do (`.constructor` is `Function`, `arguments.callee`,
//! workers, string timers); this file answers the engine's questions.
//!
//! JavaScript reaches globals through the global object under many names (`globalThis`,
//! `global`, `window`, `self`, a sloppy function's `this`), all of which resolve to it, and
//! the module system through many paths (`process.mainModule`, `require.main`,
//! `module.constructor`), all of which resolve to `module`.

mod functions;
mod lower;
pub mod tables;
#[cfg(test)]
mod tests;

use std::borrow::Cow;

pub use lower::lower;

use super::dialect::{
    CallKind, Dialect, FreeName, NamespaceMember, PathFunction, StrFn, StrMethod, Tables,
};
use super::engine::Engine;
use super::engine::scopes::Declaring;
use super::ir::NodeId;
use tables::{CALL_STACK_NAMES, CAPABILITY_GLOBALS, GLOBAL_OBJECTS, NODE_MODULES, STRING_TIMERS};

pub struct JavaScript;

pub static JAVASCRIPT: JavaScript = JavaScript;

impl Dialect for JavaScript {
    fn tables(&self) -> &'static Tables {
        &tables::TABLES
    }

    /// Node's file functions by their path parameters, then the table.
    fn path_function(&self, name: &str) -> Option<PathFunction> {
        tables::fs_path_function(name)
            .or_else(|| super::dialect::listed_path_function(&tables::TABLES, name))
    }

    fn declaring(&self) -> Declaring {
        Declaring::Declarations
    }

    fn index_reads_member(&self) -> bool {
        true
    }

    fn free_name(&self, name: &str) -> FreeName {
        if GLOBAL_OBJECTS.contains(&name) {
            FreeName::GlobalObject
        } else {
            FreeName::Itself
        }
    }

    fn is_builtin(&self, name: &str) -> bool {
        tables::is_global(name)
    }

    /// `fs.promises` is the module `fs/promises`, `path.posix` is `path/posix`: the same
    /// object, judged by that module's rule whichever way it is reached.
    fn member_module(&self, module: &str, member: &str) -> Option<Cow<'static, str>> {
        NODE_MODULES
            .iter()
            .find(|m| {
                m.strip_prefix(module)
                    .and_then(|rest| rest.strip_prefix('/'))
                    .is_some_and(|rest| rest == member)
            })
            .map(|m| Cow::Borrowed(*m))
    }

    fn is_module(&self, path: &str) -> bool {
        NODE_MODULES.contains(&path)
    }

    fn canonical(&self, name: &str) -> Option<String> {
        let through = if name.contains("constructor") || name.contains("prototype") {
            through_functions(name)
        } else {
            name.to_owned()
        };
        let canonical = through_loader(through);
        (canonical != name).then_some(canonical)
    }

    /// Module specifiers name the same module with or without the `node:` scheme.
    fn module_specifier(&self, specifier: &str) -> String {
        specifier
            .strip_prefix("node:")
            .unwrap_or(specifier)
            .to_owned()
    }

    fn call_kind(&self, name: &str) -> Option<CallKind> {
        Some(match name {
            "require" | "module.require" | "module._load" | "import" => CallKind::Import {
                top_level: false,
                colon: false,
            },
            "Reflect.get" => CallKind::GetAttr {
                object: 0,
                name: 1,
                descriptor: false,
                always: true,
            },
            "Object.getOwnPropertyDescriptor" | "Reflect.getOwnPropertyDescriptor" => {
                CallKind::GetAttr {
                    object: 0,
                    name: 1,
                    descriptor: true,
                    always: false,
                }
            }
            "Object.getOwnPropertyDescriptors" => CallKind::Descriptors,
            "module.createRequire" | "createRequire" => CallKind::Require,
            _ if name.ends_with(".bind") => CallKind::Bound,
            _ => return None,
        })
    }

    fn namespace_member(&self, _owner: &str, _member: &str) -> Option<NamespaceMember> {
        None
    }

    fn function_member(&self, member: &str) -> Option<&'static str> {
        Some(match member {
            "constructor" => "Function",
            "caller" => "Function.caller",
            "arguments" => "Function.arguments",
            _ => return None,
        })
    }

    fn is_namespace_name(&self, name: &str) -> bool {
        matches!(
            name,
            "process" | "module" | "require" | "Reflect" | "exports"
        )
    }

    /// Besides the names that reach prototypes and call stacks, `connect`: `process.stdout`
    /// and `process.stderr` are sockets when piped, and a socket's `connect` opens a new
    /// connection (to any Unix socket path) on whatever object has it; `_handle`, the native
    /// handle of a stream, socket or compressor, whose methods act on descriptors and memory
    /// past the checks of the object around it; and an `ArrayBuffer`'s `transfer`, which
    /// detaches memory native code may still hold and write after it is freed.
    fn is_special_attribute(&self, name: &str) -> bool {
        matches!(
            name,
            "constructor"
                | "__proto__"
                | "prototype"
                | "caller"
                | "callee"
                | "connect"
                | "_handle"
                | "transfer"
                | "transferToFixedLength"
        )
    }

    fn is_size_member(&self, member: &str) -> bool {
        matches!(member, "length" | "size" | "byteLength")
    }

    fn method_returns_number(&self, method: &str) -> bool {
        matches!(
            method,
            "indexOf"
                | "lastIndexOf"
                | "findIndex"
                | "findLastIndex"
                | "charCodeAt"
                | "codePointAt"
                | "search"
                | "localeCompare"
                | "getTime"
                | "valueOf"
                | "push"
                | "unshift"
        )
    }

    fn returns_primitive(&self, name: &str) -> bool {
        self.returns_number(name)
            || name.starts_with("console.")
            || matches!(
                name,
                "String"
                    | "Boolean"
                    | "isNaN"
                    | "isFinite"
                    | "encodeURIComponent"
                    | "decodeURIComponent"
                    | "encodeURI"
                    | "decodeURI"
                    | "Array.isArray"
                    | "Number.isInteger"
                    | "Number.isSafeInteger"
                    | "Number.isFinite"
                    | "Number.isNaN"
                    | "Object.is"
                    | "Object.isFrozen"
                    | "Object.isSealed"
                    | "JSON.stringify"
            )
    }

    fn returns_number(&self, name: &str) -> bool {
        name.starts_with("Math.")
            || matches!(
                name,
                "Number"
                    | "parseInt"
                    | "parseFloat"
                    | "Number.parseInt"
                    | "Number.parseFloat"
                    | "Date.now"
            )
    }

    fn method_returns_data(&self, method: &str) -> bool {
        matches!(
            method,
            "map"
                | "filter"
                | "slice"
                | "concat"
                | "split"
                | "flat"
                | "flatMap"
                | "sort"
                | "reverse"
                | "fill"
                | "keys"
                | "values"
                | "entries"
                | "match"
                | "matchAll"
                | "toSorted"
                | "toReversed"
        )
    }

    fn operators_give_numbers(&self) -> bool {
        true
    }

    fn constructs_sequence(&self, name: &str) -> bool {
        matches!(
            name,
            "Map"
                | "Set"
                | "Array"
                | "Array.from"
                | "Array.of"
                | "Object.keys"
                | "Object.values"
                | "Object.entries"
                | "String"
        )
    }

    fn constructs_data(&self, name: &str) -> bool {
        matches!(
            name,
            "Map"
                | "Set"
                | "WeakMap"
                | "WeakSet"
                | "Array"
                | "Array.from"
                | "Array.of"
                | "Object.create"
                | "Object.fromEntries"
                | "Object.keys"
                | "Object.values"
                | "Object.entries"
                | "JSON.parse"
                | "String"
        )
    }

    fn follows_aliases_of(&self, name: &str) -> bool {
        name == "require"
    }

    /// The content argument of `write*`/`append*` is data, not a path.
    fn is_content_argument(&self, function: &str, index: usize) -> bool {
        let method = function.rsplit(['.', '/']).next().unwrap_or(function);
        index == 1 && (method.starts_with("write") || method.starts_with("append"))
    }

    /// `process` holds the environment, native bindings and `dlopen`: followed where a member
    /// of it is taken, it goes nowhere else (spread, copied, passed, printed, returned).
    fn is_tracked_name(&self, name: &str) -> bool {
        STRING_TIMERS.contains(&name) || CAPABILITY_GLOBALS.contains(&name)
    }

    /// A function is reached only by its name, as in Python, once `arguments` and the
    /// call-stack properties are out of the picture (see [`CALL_STACK_NAMES`]).
    fn reads_parameters_from_calls(&self) -> bool {
        true
    }

    fn call_stack_names(&self) -> &'static [&'static str] {
        CALL_STACK_NAMES
    }

    fn undefined_takes_default(&self) -> bool {
        true
    }

    fn constant(&self, name: &str) -> Option<&'static str> {
        Some(match name {
            "__dirname" => crate::analysis::pathtext::WORK_DIR,
            "__filename" => "/work/snippet.js",
            "path.sep" => "/",
            _ => return None,
        })
    }

    fn string_function(&self, name: &str) -> Option<StrFn> {
        Some(match name {
            "atob" => StrFn::Base64 { url_safe: false },
            "String" => StrFn::Same,
            "String.fromCharCode" | "String.fromCodePoint" => StrFn::Chr { all: true },
            "decodeURIComponent" | "decodeURI" | "unescape" => StrFn::Unescape,
            "path.join" | "path/posix.join" => StrFn::NodeJoin,
            "path.resolve" | "path/posix.resolve" => StrFn::PathResolve,
            "path.normalize" | "path/posix.normalize" => StrFn::NodeNormalize,
            "URL" | "url.URL" | "url.fileURLToPath" => StrFn::Url,
            _ => return None,
        })
    }

    fn string_method(&self, method: &str) -> Option<StrMethod> {
        Some(match method {
            "join" => StrMethod::JoinList,
            "toLowerCase" | "toLocaleLowerCase" => StrMethod::Lower,
            "toUpperCase" | "toLocaleUpperCase" => StrMethod::Upper,
            "trim" => StrMethod::Strip {
                start: true,
                end: true,
                chars: false,
            },
            "trimStart" | "trimLeft" => StrMethod::Strip {
                start: true,
                end: false,
                chars: false,
            },
            "trimEnd" | "trimRight" => StrMethod::Strip {
                start: false,
                end: true,
                chars: false,
            },
            "valueOf" => StrMethod::Same,
            "concat" => StrMethod::Concat,
            "toString" => StrMethod::BufferToString,
            "replaceAll" => StrMethod::ReplaceAll,
            "split" => StrMethod::Split { max_splits: false },
            _ => return None,
        })
    }

    fn forwards_calls(&self) -> bool {
        true
    }

    fn wrapper_arguments(&self) -> &'static [&'static str] {
        &["exports", "require", "module", "__filename", "__dirname"]
    }

    fn report(&self, e: &mut Engine, id: NodeId) {
        functions::report(e, id);
    }
}

/// Through functions: a function's `.constructor` is `Function`, so is
/// `x.constructor.constructor` for any `x`, and `X.prototype.constructor` is `X`.
fn through_functions(name: &str) -> String {
    let parts: Vec<&str> = name.split('.').collect();
    let mut out: Vec<&str> = Vec::with_capacity(parts.len());
    let mut i = 0;
    while i < parts.len() {
        let part = parts[i];
        let next = parts.get(i + 1).copied();
        match (out.last().copied(), part) {
            (Some("Function"), "constructor") => {}
            (Some("constructor"), "constructor") => {
                out.clear();
                out.push("Function");
            }
            (Some(_), "prototype") if next == Some("constructor") => i += 1,
            _ => out.push(part),
        }
        i += 1;
    }
    out.join(".")
}

/// Through the loader: `process.mainModule`, `require.main`, `require.extensions` (the
/// loader's `_extensions`, whose entries compile files), `module.constructor`,
/// `module.Module`, `module.prototype`, `module.parent` and `module.children[n]` all lead to
/// the module system, so they are spelled `module`.
fn through_loader(mut name: String) -> String {
    // Each rewrite shortens the name, so this ends.
    'rewrite: loop {
        for (from, to) in [
            ("process.mainModule", "module"),
            ("require.main", "module"),
            ("require.extensions", "module._extensions"),
            ("module.constructor", "module"),
            ("module.Module", "module"),
            ("module.prototype", "module"),
            ("module.parent", "module"),
        ] {
            if crate::analysis::is_under(&name, from) {
                name = format!("{to}{}", &name[from.len()..]);
                continue 'rewrite;
            }
        }
        if let Some(rest) = name.strip_prefix("module.children.") {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits > 0 && (rest.len() == digits || rest.as_bytes()[digits] == b'.') {
                name = format!("module{}", &rest[digits..]);
                continue 'rewrite;
            }
        }
        return name;
    }
}
