//! Writes the binder does not read. Folding a name to the text it was bound to, reading a
//! function's `__name__`, and taking a parameter's values from the calls of its function all
//! assume that every write of the name is a binding the analysis saw. Python has other ways
//! to write: through the snippet's own module (`import __main__; __main__.x = ...`,
//! `setattr(sys.modules[__name__], "x", ...)`), through its namespace dictionary
//! (`globals()["x"] = ...`, `vars().update(x=...)`), and, for a function's name or defaults,
//! through its attributes (`f.__name__ = ...`, `functools.wraps`). This pass finds them, so
//! those assumptions are dropped where they would not hold, and a write into the module's own
//! namespace is reported as reaching interpreter internals: under any policy, a name bound
//! that way (`globals()["json"] = os`) would otherwise run as whatever the binder saw.

use super::Engine;
use super::meaning::{Namespace, Value};
use crate::analysis::facts::DynamicKind;
use crate::analysis::ir::{Kind, NodeId};

/// Methods of a namespace dictionary that only read it.
const READING_METHODS: &[&str] = &[
    "values",
    "keys",
    "items",
    "get",
    "copy",
    "__contains__",
    "__len__",
    "__getitem__",
];

/// Functions that, given a module or namespace, only read it.
const READING_FUNCTIONS: &[&str] = &[
    "getattr",
    "hasattr",
    "vars",
    "dir",
    "isinstance",
    "type",
    "id",
    "print",
    "repr",
    "len",
    "Reflect.get",
    "Reflect.has",
    "Reflect.ownKeys",
    "Reflect.getOwnPropertyDescriptor",
    "Object.getOwnPropertyDescriptor",
    "Object.getOwnPropertyDescriptors",
    "Object.getOwnPropertyNames",
    "Object.keys",
    "Object.values",
    "Object.entries",
    "console.log",
];

/// Functions that set attributes by a name given as an argument.
const ATTRIBUTE_SETTERS: &[&str] = &["setattr", "delattr"];

/// Functions that copy attributes, `__name__` among them, from one function to another.
const ATTRIBUTE_COPIERS: &[&str] = &["functools.wraps", "functools.update_wrapper"];

/// What the snippet may rewrite behind the binder's back.
#[derive(Debug, Clone, Copy, Default)]
pub struct Rewrites {
    /// The module's own names, through the module object or its namespace dictionary.
    pub globals: bool,
    /// Special attributes of functions and classes (`__name__`, `__defaults__`, `__code__`).
    pub definitions: bool,
    /// JavaScript's global object, whose properties are a script's `var`s, functions and
    /// undeclared names (not its `let`, `const` and classes): written through some name of it
    /// (`this.name = ...` in a sloppy callback, `Object.assign(globalThis, ...)`).
    pub global_object: bool,
    /// Names of enclosing scopes, by `global` or `nonlocal`: code run from text inside a
    /// function (a `timeit` statement) rebinds the snippet's own names that way.
    pub declares_outer: bool,
}

impl Rewrites {
    pub fn any(self) -> bool {
        self.globals || self.global_object || self.definitions || self.declares_outer
    }

    /// True when some module-level names may hold what no binding shows.
    pub fn module_names(self) -> bool {
        self.globals || self.global_object
    }
}

impl<'a> Engine<'a> {
    /// Scans the snippet once its bindings are known; reports each write of the snippet's
    /// own module or namespace as introspection.
    pub(super) fn find_rewrites(&mut self) -> Rewrites {
        let mut found = Rewrites::default();
        for id in 0..self.ir.nodes.len() as NodeId {
            match self.ir.kind(id) {
                Kind::Global { .. } => found.declares_outer = true,
                Kind::Attr { name, .. } => {
                    let name = self.name(name);
                    let special = name.starts_with("__") && name.ends_with("__");
                    if special && (is_store_target(self, id) || is_setattr_method(name)) {
                        found.definitions = true;
                    }
                }
                Kind::Call { .. } if self.sets_special_attributes(id) => {
                    found.definitions = true;
                }
                _ => {}
            }
            if !matches!(
                self.ir.kind(id),
                Kind::Name(_)
                    | Kind::This
                    | Kind::Attr { .. }
                    | Kind::Call { .. }
                    | Kind::Index { .. }
            ) {
                continue;
            }
            let meanings = self.resolve(id, 0).to_vec();
            // JavaScript's global object holds a script's `var`s, functions and undeclared
            // names: a write through it (`this.name = ...` in a sloppy callback) rebinds
            // them where no binding shows it. Its own members are judged as they are read,
            // so the write is no finding; the names' constants are no longer trusted.
            if meanings.iter().any(|m| !m.held && m.value == Value::Global)
                && self.writes_global(id)
            {
                found.global_object = true;
            }
            let writable = meanings
                .iter()
                .filter(|m| !m.held)
                .find_map(|m| self.own_state(m.value));
            if let Some(shown) = writable
                && self.writes_through(id)
            {
                found.globals = true;
                self.dynamic(
                    id,
                    DynamicKind::Introspection,
                    format!(
                        "`{shown}` is written (or handed where it may be): the snippet's own \
                         names could then hold what no binding the analyzer read shows"
                    ),
                );
            }
        }
        found
    }

    /// How a value that holds the snippet's own names is shown, when `value` is one: its
    /// module (`__main__`) or its namespace (`globals()`, that module's `__dict__`).
    pub(super) fn own_state(&self, value: Value) -> Option<String> {
        let own = |e: &Self, p| e.dialect.is_own_module(e.paths.text(p));
        match value {
            Value::Module(p) if own(self, p) => self.shown(value),
            Value::Namespace(Namespace::Dict(p)) | Value::Lookup(Namespace::Dict(p))
                if own(self, p) =>
            {
                self.shown(value)
            }
            Value::Namespace(Namespace::Globals) | Value::Lookup(Namespace::Globals) => {
                self.shown(value)
            }
            _ => None,
        }
    }

    /// True unless the use at `id` only reads what it holds: an attribute or item read, a
    /// reading method, a reading function, a runner's `globals=`, or a new name for it
    /// (whose own uses are checked in turn).
    fn writes_through(&mut self, id: NodeId) -> bool {
        let Some((parent, child)) = self.ir.context(id) else {
            return false;
        };
        match self.ir.kind(parent) {
            Kind::Attr { object, name } if object == child => {
                let name = self.name(name);
                if is_store_target(self, parent) {
                    return true;
                }
                // A module's attribute is read; a namespace's method may write.
                let module = self
                    .resolve(id, 0)
                    .iter()
                    .any(|m| matches!(m.value, Value::Module(_)));
                !(module || READING_METHODS.contains(&name) || name == "__dict__")
            }
            Kind::Index { object, .. } if object == child => is_store_target(self, parent),
            // `globals().get("x")`: a lookup method called.
            Kind::Call { callee, .. } if callee == child => false,
            Kind::Arg { .. } => {
                if given_to_a_runner(self, id) {
                    return false;
                }
                let Some(call) = self.ir.parent(parent) else {
                    return true;
                };
                let Kind::Call { callee, .. } = self.ir.kind(call) else {
                    return true;
                };
                let callees = self.resolve(callee, 0).to_vec();
                callees.is_empty()
                    || callees.iter().any(|m| match m.value {
                        Value::Name(p) => !READING_FUNCTIONS.contains(&self.paths.text(p)),
                        _ => true,
                    })
            }
            Kind::Assign { value, .. } | Kind::Walrus { value, .. } => value != child,
            Kind::Decl { .. }
            | Kind::Cond { .. }
            | Kind::Binary { .. }
            | Kind::For { .. }
            | Kind::CompFor { .. }
            | Kind::Compared
            | Kind::ExprStatement => false,
            _ => true,
        }
    }

    /// True when the use at `id` of the global object may write a member of it: a store into
    /// one, or the object handed where it may be written (`Object.assign(this, ...)`). Its
    /// members read or called are judged as they are.
    fn writes_global(&mut self, id: NodeId) -> bool {
        let Some((parent, child)) = self.ir.context(id) else {
            return false;
        };
        match self.ir.kind(parent) {
            Kind::Attr { object, .. } | Kind::Index { object, .. } if object == child => {
                is_store_target(self, parent)
            }
            _ => self.writes_through(id),
        }
    }

    /// `setattr(f, name, v)` with a special or computed name, `functools.wraps(g)`.
    fn sets_special_attributes(&mut self, call: NodeId) -> bool {
        let Kind::Call { callee, .. } = self.ir.kind(call) else {
            return false;
        };
        let names: Vec<String> = self
            .resolve(callee, 0)
            .iter()
            .filter_map(|m| self.path_text(m.value).map(str::to_owned))
            .collect();
        names.iter().any(|name| {
            if ATTRIBUTE_COPIERS.contains(&name.as_str()) {
                return true;
            }
            ATTRIBUTE_SETTERS.contains(&name.as_str())
                && self
                    .arg(call, 1, "name")
                    .and_then(|a| self.fold(a, 0))
                    .is_none_or(|attr| attr.starts_with("__"))
        })
    }
}

/// `object.__setattr__(f, "__name__", v)`: the method itself, reached by name.
fn is_setattr_method(name: &str) -> bool {
    matches!(name, "__setattr__" | "__delattr__")
}

/// True when `id` is written, not read: an assignment's, loop's or `with`'s target (or part
/// of one), an augmented assignment's target, or deleted.
pub fn is_store_target(e: &Engine, id: NodeId) -> bool {
    let mut child = id;
    while let Some((parent, _)) = e.ir.context(child) {
        match e.ir.kind(parent) {
            Kind::TuplePattern { .. } | Kind::Rest(_) => child = parent,
            Kind::Assign { targets, .. } => return e.ir.list(targets).contains(&child),
            Kind::Delete { targets } => return e.ir.list(targets).contains(&child),
            Kind::AugAssign { target, .. } | Kind::For { target, .. } => return target == child,
            Kind::CompFor { target, .. } => return target == child,
            Kind::WithItem { target } => return target == Some(child),
            _ => return false,
        }
    }
    false
}

/// True for an argument of a call of a code runner (`timeit(stmt, globals=globals())`): the
/// namespace is read there, and the text run with it is analyzed in turn.
pub fn given_to_a_runner(e: &mut Engine, id: NodeId) -> bool {
    let Some((arg, _)) = e.ir.context(id) else {
        return false;
    };
    let Kind::Arg { .. } = e.ir.kind(arg) else {
        return false;
    };
    let Some(call) = e.ir.parent(arg) else {
        return false;
    };
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return false;
    };
    let tables = e.dialect.tables();
    e.resolve(callee, 0).iter().any(|m| match m.value {
        Value::Name(p) => tables.runners.iter().any(|r| r.name == e.paths.text(p)),
        _ => false,
    })
}
