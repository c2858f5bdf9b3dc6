//! What a snippet's module level binds, carried into a later analysis: the next call of a
//! session (a name bound in one call is not a free name in the next), and code the snippet
//! runs from its own text (`exec` of a constant, doctest examples, `timeit` statements), which
//! runs with the snippet's globals.

use std::collections::BTreeMap;

use super::Engine;
use super::meaning::{Meaning, Namespace, Value};
use super::scopes::ScopeKind;
use crate::analysis::ir::{Kind, NodeId, Sym};

/// A meaning in a form that outlives one analysis.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum CarriedMeaning {
    Module(String),
    /// A name; `module_len` bytes of it are its module (0: a builtin or global).
    Name {
        text: String,
        module_len: usize,
    },
    Global,
    Globals,
    Modules,
}

/// Names bound by earlier code, with what they may mean.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Carried {
    names: BTreeMap<String, Vec<CarriedMeaning>>,
    constants: BTreeMap<String, Option<String>>,
    stars: Vec<String>,
    /// Names whose value may be text rather than a type: evaluated as code where a type is.
    texts: std::collections::BTreeSet<String>,
    /// Names bound to a directory walk still running: a later call may steer it.
    walkers: std::collections::BTreeSet<String>,
    /// Module-level names that code of an earlier call may still write while a later call
    /// runs or whenever it calls back into that code: a function, lambda or generator
    /// that assigns them (a thread's target, a timer's callback). A later call's own
    /// binding of such a name proves nothing about what it holds when read.
    written_later: std::collections::BTreeSet<String>,
    /// Module-level names an earlier call bound to more than their carried meanings show (a
    /// module, then a call's result): a later call trusts no rule's reading of them.
    partly_known: std::collections::BTreeSet<String>,
    /// Names code of an earlier call reads before anything bound them (a function run by a
    /// later call): a later call's binding of one is read where its analysis cannot follow.
    read_before_bound: std::collections::BTreeSet<String>,
    /// The text of every function, class and generator expression earlier calls made outside
    /// any other, each standing alone: code a later call may run again, judged once more with
    /// what that call binds (see `definitions`).
    definitions: String,
    /// An earlier call wrote module-level names by no binding the analyzer reads, and may
    /// write again from code still running: Python through the module or its namespace
    /// (`globals()[k] = ...`), JavaScript through the global object (then only names that
    /// are its properties: not a `let`, `const` or class).
    pub(super) namespace_written: NamespaceWritten,
}

/// How an earlier call wrote module-level names where no binding shows it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct NamespaceWritten {
    /// Through the module object or its namespace dictionary: any name.
    pub globals: bool,
    /// Through JavaScript's global object: its properties.
    pub global_object: bool,
}

/// Most meanings carried for one name.
const MAX_CARRIED: usize = 8;

impl Carried {
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
            && self.constants.is_empty()
            && self.stars.is_empty()
            && self.texts.is_empty()
            && self.walkers.is_empty()
            && self.written_later.is_empty()
            && self.partly_known.is_empty()
            && self.read_before_bound.is_empty()
            && self.definitions.is_empty()
            && self.namespace_written == NamespaceWritten::default()
    }

    /// Marks every carried name as holding no known constant: something rewrote the
    /// module's names where no binding shows it.
    pub(super) fn forget_constants(&mut self) {
        for value in self.constants.values_mut() {
            *value = None;
        }
    }

    /// Names carried.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub(super) fn bind(
        &mut self,
        name: &str,
        meanings: impl Iterator<Item = CarriedMeaning>,
        constant: Option<String>,
    ) {
        let list = self.names.entry(name.to_owned()).or_default();
        for m in meanings {
            if list.len() < MAX_CARRIED && !list.contains(&m) {
                list.push(m);
            }
        }
        // Two different constants (or one and something else) are no constant.
        match (self.constants.get(name), constant) {
            (None, c) => {
                self.constants.insert(name.to_owned(), c);
            }
            (Some(Some(old)), Some(new)) if *old == new => {}
            _ => {
                self.constants.insert(name.to_owned(), None);
            }
        }
    }

    /// Whether every name an earlier analysis bound is a module or a module's member (`import
    /// numpy as np`, `from math import sqrt`), and nothing else was carried.
    pub(super) fn binds_only_modules(&self) -> bool {
        self.stars.is_empty()
            && self.texts.is_empty()
            && self.walkers.is_empty()
            && self.written_later.is_empty()
            && self.partly_known.is_empty()
            && self.read_before_bound.is_empty()
            && self.definitions.is_empty()
            && self.namespace_written == NamespaceWritten::default()
            && self.names.values().all(|meanings| {
                !meanings.is_empty()
                    && meanings.iter().all(|m| match m {
                        CarriedMeaning::Module(_) => true,
                        CarriedMeaning::Name { module_len, .. } => *module_len > 0,
                        _ => false,
                    })
            })
    }

    /// Whether an earlier analysis bound `name` at module level.
    pub(super) fn binds(&self, name: &str) -> bool {
        self.names.contains_key(name)
    }

    /// Earlier calls' functions, classes and generator expressions, as one source: a later
    /// call that rebinds a name one of them reads (`text = ...` for `def run():
    /// frame.query(text)`) changes what it does, so the gateway judges this source again with
    /// that call's names.
    pub fn definitions(&self) -> &str {
        &self.definitions
    }

    pub(super) fn define(&mut self, text: &str) {
        self.definitions.push_str(text);
        self.definitions.push('\n');
    }

    pub(super) fn read_before_bound(&mut self, name: &str) {
        self.read_before_bound.insert(name.to_owned());
    }

    /// Whether code of an earlier call reads `name` where a binding of this call reaches it
    /// unseen.
    pub fn is_read_before_bound(&self, name: &str) -> bool {
        self.read_before_bound.contains(name)
    }

    pub(super) fn may_be_text(&mut self, name: &str) {
        self.texts.insert(name.to_owned());
    }

    /// Whether an earlier analysis bound `name` to a value that may be text.
    pub(super) fn holds_text(&self, name: &str) -> bool {
        self.texts.contains(name)
    }

    pub(super) fn walker(&mut self, name: &str) {
        self.walkers.insert(name.to_owned());
    }

    /// Whether an earlier analysis bound `name` to a directory walk.
    pub(super) fn holds_walker(&self, name: &str) -> bool {
        !self.walkers.is_empty() && self.walkers.contains(name)
    }

    pub(super) fn star(&mut self, module: &str) {
        if !self.stars.iter().any(|s| s == module) {
            self.stars.push(module.to_owned());
        }
    }

    pub(super) fn stars(&self) -> &[String] {
        &self.stars
    }

    /// The one constant earlier calls bound `name` to, unless code of theirs may still
    /// rebind it.
    pub(super) fn constant(&self, name: &str) -> Option<&str> {
        if self.is_written_later(name)
            || self.namespace_written.globals
            || self.namespace_written.global_object
        {
            return None;
        }
        self.constants.get(name).and_then(|c| c.as_deref())
    }

    pub(super) fn may_be_written_later(&mut self, name: &str) {
        self.written_later.insert(name.to_owned());
    }

    /// Records that an earlier call bound `name` to values its carried meanings do not list.
    pub(super) fn partly_known(&mut self, name: &str) {
        self.partly_known.insert(name.to_owned());
    }

    /// Whether an earlier call bound `name` to values its carried meanings do not list.
    pub(super) fn is_partly_known(&self, name: &str) -> bool {
        self.partly_known.contains(name)
    }

    /// Whether code of an earlier call may assign the module-level `name` at any time.
    pub(super) fn is_written_later(&self, name: &str) -> bool {
        !self.written_later.is_empty() && self.written_later.contains(name)
    }

    fn meanings(&self, name: &str) -> &[CarriedMeaning] {
        self.names.get(name).map(Vec::as_slice).unwrap_or_default()
    }
}

impl<'a> Engine<'a> {
    /// The snippet's bindings, plus `name` bound to what `value` means (doctest's
    /// `extraglobs={"name": value}`).
    pub fn carried_with(&mut self, extra: &[(String, NodeId)]) -> Carried {
        let mut carried = self.carried();
        for (name, value) in extra {
            let meanings: Vec<CarriedMeaning> = self
                .resolve(*value, 0)
                .iter()
                .filter_map(|m| self.carry(*m))
                .collect();
            let constant = self.fold(*value, 0).map(|s| s.to_string());
            carried.bind(name, meanings.into_iter(), constant);
        }
        carried
    }

    pub(super) fn carry(&self, m: Meaning) -> Option<CarriedMeaning> {
        if m.held {
            return None;
        }
        Some(match m.value {
            Value::Module(p) => CarriedMeaning::Module(self.paths.text(p).to_owned()),
            Value::Name(p) => CarriedMeaning::Name {
                text: self.paths.text(p).to_owned(),
                module_len: self.paths.module_len(p),
            },
            Value::Global => CarriedMeaning::Global,
            Value::Namespace(Namespace::Globals) => CarriedMeaning::Globals,
            Value::Namespace(Namespace::Modules) => CarriedMeaning::Modules,
            _ => return None,
        })
    }

    /// True in a later call of a session (or code nested in one) when an earlier analysis
    /// bound a name to anything but a module (a function, a class, data): what it holds was
    /// judged without this call's runners.
    pub fn in_later_call(&self) -> bool {
        !self.context.binds_only_modules()
    }

    /// Notes, in what is carried to later calls, the module-level names code of this call may
    /// still write after it ends: bound at module level from inside a function, lambda or
    /// generator (Python's `global`, JavaScript's store into a top-level or undeclared name),
    /// or through the module's namespace or the global object. A thread or timer started here
    /// runs on during the next call, and the next call may call such a function itself.
    pub(super) fn carry_later_writes(&self, carried: &mut Carried) {
        for id in 0..self.ir.nodes.len() as NodeId {
            let Kind::Bind(sym) = self.ir.kind(id) else {
                continue;
            };
            if self.scopes.bind_scope(id) == Some(super::scopes::MODULE_SCOPE)
                && self.runs_later(self.scopes.scope_of(id))
            {
                carried.may_be_written_later(self.name(sym));
            }
        }
        carried.namespace_written.globals |= self.rewrites.globals;
        carried.namespace_written.global_object |= self.rewrites.global_object;
    }

    /// Whether code in `scope` may run after the module's code has ended: it is in a function
    /// or a comprehension (a generator's body runs as it is drawn from).
    fn runs_later(&self, mut scope: super::scopes::ScopeId) -> bool {
        loop {
            match self.scopes.kind(scope) {
                ScopeKind::Function(_) | ScopeKind::Comprehension => return true,
                ScopeKind::Module => return false,
                ScopeKind::Class | ScopeKind::Block => {}
            }
            match self.scopes.parent(scope) {
                Some(parent) => scope = parent,
                None => return false,
            }
        }
    }

    /// Whether a module-level name is one code of an earlier call may write at any time, so
    /// no binding of it here proves what it holds: assigned by an earlier call's function, or
    /// the earlier call wrote the module's namespace (any name) or the global object (its
    /// properties, which `lexical`, a `let`, `const` or class, is not).
    pub(super) fn written_by_earlier_code(&self, sym: Sym, lexical: impl FnOnce() -> bool) -> bool {
        let written = &self.context.namespace_written;
        self.context.is_written_later(self.name(sym))
            || written.globals
            || written.global_object && !lexical()
    }

    /// Records that the module-level name `sym` holds a directory walk, for a later call.
    pub fn carry_walker(&mut self, sym: Sym) {
        if !self.walkers.contains(&sym) {
            self.walkers.push(sym);
        }
    }

    /// Whether the name used at `at` may be a walk an earlier call bound: carried so, and bound
    /// here at most at module level (a use there may come before the new binding).
    pub fn is_carried_walker(&self, sym: Sym, at: NodeId) -> bool {
        if !self.context.holds_walker(self.name(sym)) {
            return false;
        }
        let lookup = self
            .scopes
            .lookup(sym, self.scopes.scope_of(at), self.dialect.declaring());
        lookup.scopes.is_empty() || lookup.scopes.contains(&super::scopes::MODULE_SCOPE)
    }

    /// Whether the name used at `id` is bound nowhere here but by an earlier analysis: its
    /// value may be an object that analysis could not carry (a path, a stream), whatever a
    /// global of the same name would be. (Code a runner gives other globals, `timeit`'s,
    /// may still see the global: both stay meanings of it.)
    pub fn is_carried_name(&self, id: NodeId) -> bool {
        let Kind::Name(sym) = self.ir.kind(self.ir.unparen(id)) else {
            return false;
        };
        self.scopes
            .lookup(sym, self.scopes.scope_of(id), self.dialect.declaring())
            .scopes
            .is_empty()
            && self.context.binds(self.name(sym))
    }

    /// What an earlier analysis bound `name` to.
    pub(super) fn context_meanings(&mut self, name: &str) -> Vec<Meaning> {
        let carried = self.context.meanings(name).to_vec();
        carried
            .into_iter()
            .map(|c| match c {
                CarriedMeaning::Module(m) => {
                    Meaning::of(Value::Module(self.paths.intern(&m, m.len())))
                }
                CarriedMeaning::Name { text, module_len } => {
                    Meaning::of(Value::Name(self.paths.intern(&text, module_len)))
                }
                CarriedMeaning::Global => Meaning::of(Value::Global),
                CarriedMeaning::Globals => Meaning::of(Value::Namespace(Namespace::Globals)),
                CarriedMeaning::Modules => Meaning::of(Value::Namespace(Namespace::Modules)),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::{Carried, Language, analyze_with};

    fn carried(language: Language, code: &str) -> Carried {
        analyze_with(language, code.as_bytes(), &Carried::default()).1
    }

    #[test]
    fn names_functions_assign_at_module_level_are_written_later() {
        let python = carried(
            Language::Python,
            "name = 'a.txt'\nkept = 'b.txt'\ndef later():\n    global name\n    local = 'c'\n    name = local\nclass Now:\n    global now\n    now = 'd'\nsteps = ((drawn := 1) for _ in range(2))\n",
        );
        assert!(python.is_written_later("name"));
        assert!(
            python.is_written_later("drawn"),
            "a generator runs as it is drawn"
        );
        for proven in ["kept", "local", "now", "later", "steps"] {
            assert!(!python.is_written_later(proven), "{proven}");
        }
        assert_eq!(python.constant("name"), None);
        assert_eq!(python.constant("kept"), Some("b.txt"));
        assert_eq!(
            python.constant("now"),
            Some("d"),
            "a class body runs once, now"
        );

        let javascript = carried(
            Language::JavaScript,
            "var name = 'a';\nlet kept = 'b';\n{ block = 'c'; }\nsetTimeout(() => { name = 'x'; undeclared = 'y'; let own = 'z'; own = 'w'; }, 1);\nclass Later { run() { kept2 = 'v'; } }\n",
        );
        for written in ["name", "undeclared", "kept2"] {
            assert!(javascript.is_written_later(written), "{written}");
        }
        for proven in ["kept", "block", "own"] {
            assert!(!javascript.is_written_later(proven), "{proven}");
        }
        assert_eq!(javascript.constant("kept"), Some("b"));
    }

    #[test]
    fn written_later_names_accumulate_over_calls() {
        let first = carried(
            Language::Python,
            "def later():\n    global name\n    name = 'x'\n",
        );
        let (_, second) = analyze_with(Language::Python, b"other = 'y'\n", &first);
        assert!(second.is_written_later("name"));
        assert_eq!(second.constant("other"), Some("y"));
    }

    #[test]
    fn a_written_namespace_leaves_no_constant() {
        let python = carried(
            Language::Python,
            "def later():\n    globals()['name'] = 'x'\n",
        );
        let (_, next) = analyze_with(Language::Python, b"other = 'y'\n", &python);
        assert_eq!(next.constant("other"), None);
    }
}
