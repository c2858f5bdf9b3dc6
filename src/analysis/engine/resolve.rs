//! Resolution: what an expression may stand for. Names through scopes and bindings,
//! attributes and subscripts through modules, namespaces and containers, and the calls that
//! return a module or name given by their arguments (`__import__`, `getattr`, `require`,
//! `Reflect.get`, a function of the snippet's that returns one).

use std::rc::Rc;

use super::meaning::{Meaning, Namespace, PathId, Value, add_meaning, capped};
use super::scopes::{Declaring, MODULE_SCOPE, ScopeId, ScopeKind};
use super::{Engine, MAX_EXPR_DEPTH, Memo, Role};
use crate::analysis::dialect::{CallKind, FreeName, NamespaceMember};
use crate::analysis::ir::{BinOp, CollectionKind, FunctionKind, Kind, NodeId, Splat, Sym};
use crate::analysis::text;

/// The path namespaces and descriptors of the global object record.
const GLOBAL_PATH: &str = "globalThis";

impl<'a> Engine<'a> {
    /// The meanings an expression may have (empty when unknown).
    pub fn resolve(&mut self, id: NodeId, depth: usize) -> Rc<[Meaning]> {
        match &self.memo[id as usize] {
            Memo::Known(hit) => return Rc::clone(hit),
            Memo::InProgress => return Rc::from([]),
            Memo::Unknown => {}
        }
        if !self.spend() {
            return Rc::from([]);
        }
        if depth > MAX_EXPR_DEPTH {
            self.record_too_deep(id);
            return Rc::from([]);
        }
        self.memo[id as usize] = Memo::InProgress;
        let found: Rc<[Meaning]> = capped(self.resolve_uncached(id, depth + 1)).into();
        self.memo[id as usize] = Memo::Known(Rc::clone(&found));
        found
    }

    fn resolve_uncached(&mut self, id: NodeId, depth: usize) -> Vec<Meaning> {
        let ir = self.ir;
        match ir.kind(id) {
            Kind::Name(sym) => self.resolve_name(sym, id),
            Kind::This => self.this_meanings(id),
            Kind::Attr { object, name } => {
                let mut out = Vec::new();
                for m in self.resolve(object, depth).iter().copied() {
                    for found in self.member(m, self.name(name)) {
                        add_meaning(&mut out, found);
                    }
                }
                out
            }
            Kind::Index { object, key } => self.resolve_index(object, key, depth),
            Kind::Call { .. } => self.resolve_call(id, depth),
            Kind::Paren(inner) => self.resolve(inner, depth).to_vec(),
            Kind::Cond { then, other, .. } => self.union(&[then, other], depth),
            Kind::Binary {
                op: BinOp::Logical,
                left,
                right,
            } => {
                // `window && x` is `x`: the global object and modules are always true.
                let tested = self.resolve(left, depth).to_vec();
                let always_true = !tested.is_empty()
                    && tested
                        .iter()
                        .all(|m| !m.held && matches!(m.value, Value::Global | Value::Module(_)));
                if always_true && self.is_and(left, right) {
                    self.resolve(right, depth).to_vec()
                } else {
                    self.union(&[left, right], depth)
                }
            }
            Kind::Seq { items } => match ir.list(items).last() {
                Some(&last) => self.resolve(last, depth).to_vec(),
                None => Vec::new(),
            },
            Kind::Walrus { value, .. } | Kind::Assign { value, .. } => {
                self.resolve(value, depth).to_vec()
            }
            Kind::Collection { items, .. } => {
                let mut out = Vec::new();
                for &item in ir.list(items) {
                    let value = match ir.kind(item) {
                        Kind::Pair { value, .. } => value,
                        Kind::Spread(_) => continue,
                        _ => item,
                    };
                    // An element of an element is not followed.
                    if matches!(ir.kind(ir.unparen(value)), Kind::Collection { .. }) {
                        continue;
                    }
                    for m in self.resolve(value, depth).iter() {
                        if let Some(h) = m.held() {
                            add_meaning(&mut out, h);
                        }
                    }
                }
                out
            }
            Kind::Function { .. } | Kind::Class { .. } => vec![Meaning::of(Value::Local(id))],
            _ => Vec::new(),
        }
    }

    fn union(&mut self, ids: &[NodeId], depth: usize) -> Vec<Meaning> {
        let mut out = Vec::new();
        for &id in ids {
            for m in self.resolve(id, depth).iter() {
                add_meaning(&mut out, *m);
            }
        }
        out
    }

    /// A name's meanings where it is used: its bindings in the scope it refers to, what an
    /// earlier analysis bound it to, and (where no certain local hides it) the builtin or
    /// global of that name, or what a star import brings.
    pub fn resolve_name(&mut self, sym: Sym, at: NodeId) -> Vec<Meaning> {
        let name = self.name(sym);
        let declaring = self.dialect.declaring();
        let lookup = self.scopes.lookup(sym, self.scopes.scope_of(at), declaring);
        let mut out = Vec::new();
        for &scope in &lookup.scopes {
            if let Some(binding) = self.bindings.get(&(scope, sym)) {
                for m in &binding.meanings {
                    add_meaning(&mut out, *m);
                }
            }
        }
        let free = lookup.scopes.is_empty();
        if free || lookup.scopes.contains(&MODULE_SCOPE) {
            for m in self.context_meanings(name) {
                add_meaning(&mut out, m);
            }
        }
        // A name an earlier call of the session bound is that binding (a frame, a path object,
        // whatever it holds), not a global of the same name; a builtin stays one too (the
        // binding may not have run). Code run from text may see other globals (`timeit`'s):
        // there both stay.
        let free = free
            && !(self.role == super::Role::SessionCall
                && self.context.binds(name)
                && !self.dialect.is_builtin(name));
        // A session's call may read a name nothing has bound yet, in a function a later call
        // runs after binding it: its value is that call's, unknown here (in a single run it
        // would only fail), and that call's binding is read where its analysis cannot follow.
        let later = free
            && self.role == super::Role::SessionCall
            && !self.dialect.is_builtin(name)
            && !self.context.binds(name);
        if later {
            self.bound_later.insert(sym);
        }
        let free = free && !later;
        if lookup.certain {
            return out;
        }
        match declaring {
            Declaring::EveryBinding => {
                let start = self.ir.node(at).start;
                let builtin =
                    self.dialect.is_builtin(name) && !self.scopes.bound_before(sym, start);
                if free || builtin {
                    add_meaning(&mut out, self.free_meaning(name));
                }
                // `from M import *` binds only the names M has.
                for m in self.star_modules.clone() {
                    if !self.dialect.star_import_binds(self.paths.text(m), name) {
                        continue;
                    }
                    let module = Meaning::of(Value::Module(m));
                    for found in self.member(module, name) {
                        add_meaning(&mut out, found);
                    }
                }
                for m in self.context.stars().to_vec() {
                    if !self.dialect.star_import_binds(&m, name) {
                        continue;
                    }
                    let module = self.module_meaning(&m);
                    for found in self.member(module, name) {
                        add_meaning(&mut out, found);
                    }
                }
            }
            Declaring::Declarations => {
                if free {
                    add_meaning(&mut out, self.free_meaning(name));
                }
            }
        }
        out
    }

    /// What a name no binding explains stands for: the global object, or the builtin or
    /// global itself (a name like a module's, `os`, that nothing imported is not that module:
    /// it fails when run, unless earlier code bound it, which `context` says).
    fn free_meaning(&mut self, name: &str) -> Meaning {
        match self.dialect.free_name(name) {
            FreeName::GlobalObject => Meaning::of(Value::Global),
            FreeName::Itself => {
                let canonical = self
                    .dialect
                    .canonical(name)
                    .unwrap_or_else(|| name.to_owned());
                if self.dialect.is_builtins(&canonical) {
                    return self.module_meaning(&canonical);
                }
                Meaning::of(Value::Name(self.paths.intern(&canonical, 0)))
            }
        }
    }

    /// The path a namespace or descriptor records for a meaning (the global object's is
    /// `globalThis`).
    fn path_of(&mut self, m: Meaning) -> Option<PathId> {
        if m.held {
            return None;
        }
        match m.value {
            Value::Module(p) | Value::Name(p) => Some(p),
            Value::Global => Some(self.paths.intern(GLOBAL_PATH, 0)),
            _ => None,
        }
    }

    /// The module-level meaning of a name (for `globals()['name']`).
    fn module_level_name(&mut self, name: &str) -> Vec<Meaning> {
        let mut out = Vec::new();
        if let Some(sym) = self.ir.names.get(name)
            && let Some(binding) = self.bindings.get(&(MODULE_SCOPE, sym))
        {
            out.extend(binding.meanings.iter().copied());
        }
        out.extend(self.context_meanings(name));
        add_meaning(&mut out, self.free_meaning(name));
        out
    }

    /// `arguments[1]` outside any function of its own: the module wrapper's `require` (see
    /// [`Dialect::wrapper_arguments`]).
    pub fn wrapper_argument(&mut self, object: NodeId, key: NodeId) -> Option<&'static str> {
        if !self.is_wrapper_arguments(object) {
            return None;
        }
        let key = self.fold_key(key, 0)?;
        let index: usize = key.parse().ok()?;
        self.dialect.wrapper_arguments().get(index).copied()
    }

    /// True for a free `arguments` no function of its own encloses (arrow functions have
    /// none): the module wrapper's, holding `require` and `module`.
    pub fn is_wrapper_arguments(&self, node: NodeId) -> bool {
        let node = self.ir.unparen(node);
        let Kind::Name(sym) = self.ir.kind(node) else {
            return false;
        };
        if self.name(sym) != "arguments" || self.dialect.wrapper_arguments().is_empty() {
            return false;
        }
        let scope = self.scopes.scope_of(node);
        if !self
            .scopes
            .lookup(sym, scope, self.dialect.declaring())
            .scopes
            .is_empty()
        {
            return false;
        }
        let mut scope = scope;
        loop {
            match self.scopes.kind(scope) {
                ScopeKind::Function(FunctionKind::Lambda)
                | ScopeKind::Comprehension
                | ScopeKind::Block => {}
                ScopeKind::Module => return true,
                ScopeKind::Function(_) | ScopeKind::Class => return false,
            }
            match self.scopes.parent(scope) {
                Some(p) => scope = p,
                None => return true,
            }
        }
    }

    /// JavaScript's `this`: the global object in a sloppy-mode plain function (or anything it
    /// is called as) and at the top level of a session's call (a script, run by
    /// `vm.runInThisContext`, not a CommonJS module), nothing the analysis tracks elsewhere.
    fn this_meanings(&self, at: NodeId) -> Vec<Meaning> {
        let mut scope = self.scopes.scope_of(at);
        loop {
            match self.scopes.kind(scope) {
                ScopeKind::Function(FunctionKind::Lambda) | ScopeKind::Comprehension => {}
                ScopeKind::Module if self.role == Role::SessionCall => {
                    return vec![Meaning::of(Value::Global)];
                }
                ScopeKind::Module => return Vec::new(),
                // A class's methods are strict code. An object literal's method is not: taken
                // off its object and called (`(0, o.f)()`, `const h = o.f; h()`), its `this`
                // is the global object in sloppy code, as a plain function's is.
                ScopeKind::Function(FunctionKind::Method) if self.in_class_body(scope) => {
                    return Vec::new();
                }
                ScopeKind::Function(FunctionKind::Def | FunctionKind::Method) => {
                    return if self.strict_mode || self.in_strict_function(scope) {
                        Vec::new()
                    } else {
                        vec![Meaning::of(Value::Global)]
                    };
                }
                ScopeKind::Class => return Vec::new(),
                ScopeKind::Block => {
                    let node = self.scopes.scopes[scope as usize].node;
                    if matches!(self.ir.kind(node), Kind::Class { .. }) {
                        return Vec::new();
                    }
                }
            }
            match self.scopes.parent(scope) {
                Some(p) => scope = p,
                None => return Vec::new(),
            }
        }
    }

    /// True when the scope is, or sits inside, a function whose body opens with
    /// `'use strict'`.
    fn in_strict_function(&self, scope: ScopeId) -> bool {
        let mut at = Some(scope);
        while let Some(s) = at {
            if matches!(self.scopes.kind(s), ScopeKind::Function(_))
                && self.has_strict_prologue(self.scopes.scopes[s as usize].node)
            {
                return true;
            }
            at = self.scopes.parent(s);
        }
        false
    }

    /// True when a function's body opens with a `'use strict'` directive (written exactly so:
    /// an escaped spelling is no directive), which makes it, and what it holds, strict code.
    fn has_strict_prologue(&self, function: NodeId) -> bool {
        let Kind::Function { body, .. } = self.ir.kind(function) else {
            return false;
        };
        let leading = self.ir.list(body).iter().map_while(|&statement| {
            let (start, end) = self.ir.span(statement);
            matches!(self.ir.kind(statement), Kind::ExprStatement)
                .then(|| self.source.get(start..end).unwrap_or_default())
        });
        text::js_prologue_is_strict(leading)
    }

    /// True when the scope (a method's) sits directly in a class body.
    fn in_class_body(&self, scope: ScopeId) -> bool {
        let Some(parent) = self.scopes.parent(scope) else {
            return false;
        };
        match self.scopes.kind(parent) {
            ScopeKind::Class => true,
            ScopeKind::Block => matches!(
                self.ir.kind(self.scopes.scopes[parent as usize].node),
                Kind::Class { .. }
            ),
            _ => false,
        }
    }

    /// A qualified name as a meaning: a module when the path is one, otherwise a name whose
    /// first `module_len` bytes are its module; in its canonical spelling.
    pub fn path_meaning(&mut self, text: &str, module_len: usize) -> Meaning {
        let (text, module_len) = match self.dialect.canonical(text) {
            Some(canonical) => {
                let keeps_module = module_len > 0
                    && canonical.len() > module_len
                    && canonical.as_bytes()[module_len] == b'.'
                    && canonical[..module_len] == text[..module_len.min(text.len())];
                let len = if keeps_module {
                    module_len
                } else {
                    self.module_prefix_len(&canonical)
                };
                (canonical, len)
            }
            None => (text.to_owned(), module_len),
        };
        let path = self.paths.intern(&text, module_len);
        if module_len == text.len() {
            Meaning::of(Value::Module(path))
        } else {
            Meaning::of(Value::Name(path))
        }
    }

    /// How much of a qualified name is its module: the longest prefix the dialect knows as a
    /// module (`numpy.random` of `numpy.random.Generator`), else its root if that is one.
    fn module_prefix_len(&self, name: &str) -> usize {
        let mut end = name.len();
        loop {
            let prefix = &name[..end];
            if prefix.contains('.') && self.dialect.is_module(prefix) {
                return end;
            }
            match prefix.rfind('.') {
                Some(dot) => end = dot,
                None => return if self.is_module_root(prefix) { end } else { 0 },
            }
        }
    }

    /// The meaning of a path recorded by a namespace or descriptor.
    fn meaning_of_path(&self, path: PathId) -> Meaning {
        if self.paths.text(path) == GLOBAL_PATH {
            return Meaning::of(Value::Global);
        }
        if self.paths.module_len(path) == self.paths.text(path).len() {
            Meaning::of(Value::Module(path))
        } else {
            Meaning::of(Value::Name(path))
        }
    }

    /// What `name` reached on something that means `m` means.
    pub fn member(&mut self, m: Meaning, name: &str) -> Vec<Meaning> {
        if m.held {
            return Vec::new();
        }
        match m.value {
            // Whatever it was, its members are not known either.
            Value::TooMany => vec![m],
            // `from __main__ import __dict__`: the snippet's globals, as `globals()` is.
            Value::Module(p)
                if self.dialect.is_own_module(self.paths.text(p)) && name == "__dict__" =>
            {
                vec![Meaning::of(Value::Namespace(Namespace::Globals))]
            }
            // `import __main__; __main__.x`, `from __main__ import x`: the snippet's own global.
            Value::Module(p) if self.dialect.is_own_module(self.paths.text(p)) => {
                self.module_level_name(name)
            }
            // `np.load.__call__` is `np.load`: calling it is calling the function.
            Value::Name(_) | Value::Local(_) if name == "__call__" => vec![m],
            Value::Module(p) | Value::Name(p) => {
                let owner = self.paths.text(p).to_owned();
                if let Some(special) = self.dialect.namespace_member(&owner, name) {
                    return vec![Meaning::of(match special {
                        NamespaceMember::Modules => Value::Namespace(Namespace::Modules),
                        NamespaceMember::DictOf => Value::Namespace(Namespace::Dict(p)),
                        NamespaceMember::Lookup => Value::Lookup(Namespace::Modules),
                    })];
                }
                let module_len = self.paths.module_len(p);
                if module_len > 0
                    && let Some(module) = self.dialect.member_module(&owner, name)
                {
                    return vec![self.module_meaning(&module)];
                }
                let text = crate::analysis::dotted(&owner, name);
                vec![self.path_meaning(&text, module_len)]
            }
            Value::Global => match self.dialect.free_name(name) {
                FreeName::GlobalObject => vec![Meaning::of(Value::Global)],
                FreeName::Itself => vec![self.free_meaning(name)],
            },
            Value::Namespace(ns) => {
                let shown = self.shown(Value::Namespace(ns)).unwrap_or_default();
                match self.dialect.namespace_member(&shown, name) {
                    Some(NamespaceMember::Lookup) => vec![Meaning::of(Value::Lookup(ns))],
                    _ => Vec::new(),
                }
            }
            Value::Local(_) => match self.dialect.function_member(name) {
                Some(global) => vec![self.path_meaning(global, 0)],
                None => Vec::new(),
            },
            Value::Descriptor(p) if name == "value" => vec![self.meaning_of_path(p)],
            Value::Descriptors(p) => {
                let owner = self.meaning_of_path(p);
                self.member(owner, name)
                    .into_iter()
                    .filter_map(|found| match found.value {
                        Value::Module(q) | Value::Name(q) => {
                            Some(Meaning::of(Value::Descriptor(q)))
                        }
                        _ => None,
                    })
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    fn resolve_index(&mut self, object: NodeId, key: NodeId, depth: usize) -> Vec<Meaning> {
        let ir = self.ir;
        // `[os][0]`, `(os, sys)[-2]`: an element of a literal sequence.
        if let Kind::Collection {
            kind: CollectionKind::List | CollectionKind::Tuple,
            items,
        } = ir.kind(ir.unparen(object))
            && let Some(index) = self.int_value(key, false)
        {
            let items = ir.list(items);
            let index = if index < 0 {
                index + items.len() as i128
            } else {
                index
            };
            return match usize::try_from(index).ok().and_then(|i| items.get(i)) {
                Some(&item) => self.resolve(item, depth).to_vec(),
                None => Vec::new(),
            };
        }
        if let Some(name) = self.wrapper_argument(object, key) {
            return vec![self.free_meaning(name)];
        }
        let objects = self.resolve(object, depth).to_vec();
        let mut out = Vec::new();
        for m in &objects {
            if let Some(inner) = m.taken_out() {
                add_meaning(&mut out, inner);
            }
        }
        let Some(k) = self.fold_key(key, depth) else {
            return out;
        };
        for m in objects.into_iter().filter(|m| !m.held) {
            let found = match m.value {
                Value::Namespace(ns) => self.lookup_in(ns, &k),
                Value::Module(p) if self.dialect.is_builtins(self.paths.text(p)) => {
                    vec![self.free_meaning(&k)]
                }
                _ if self.dialect.index_reads_member() => self.member(m, &k),
                _ => Vec::new(),
            };
            for f in found {
                add_meaning(&mut out, f);
            }
        }
        out
    }

    /// A subscript key: a constant string, or an integer index (`module.children[0]`).
    pub fn fold_key(&mut self, key: NodeId, depth: usize) -> Option<Rc<str>> {
        self.fold(key, depth)
            .or_else(|| self.int_value(key, false).map(|n| Rc::from(n.to_string())))
    }

    /// `namespace[key]`.
    pub fn lookup_in(&mut self, ns: Namespace, key: &str) -> Vec<Meaning> {
        match ns {
            Namespace::Locals(scope) => {
                let mut out = Vec::new();
                if let Some(sym) = self.ir.names.get(key)
                    && let Some(binding) = self.bindings.get(&(scope, sym))
                {
                    out.extend(binding.meanings.iter().copied());
                }
                out.extend(self.module_level_name(key));
                out
            }
            Namespace::Modules => vec![self.module_meaning(key)],
            Namespace::Globals => self.module_level_name(key),
            Namespace::Dict(p) => {
                let owner = self.meaning_of_path(p);
                self.member(owner, key)
            }
        }
    }

    /// What `globals()`, `locals()` or `vars()` called at `call` is: the module's namespace,
    /// except `locals()` and `vars()` inside a function, which are that function's own.
    fn own_namespace(&self, call: NodeId, name: &str) -> Meaning {
        match self.scopes.enclosing_function(self.scopes.scope_of(call)) {
            Some((scope, _)) if name != "globals" => {
                Meaning::of(Value::Namespace(Namespace::Locals(scope)))
            }
            _ => Meaning::of(Value::Namespace(Namespace::Globals)),
        }
    }

    /// The positional argument values of a call, in order (splats left out), and whether a
    /// splat hides more.
    pub fn positional_args(&self, call: NodeId) -> Vec<NodeId> {
        let Kind::Call { args, .. } = self.ir.kind(call) else {
            return Vec::new();
        };
        self.ir
            .list(args)
            .iter()
            .filter_map(|&a| match self.ir.kind(a) {
                Kind::Arg {
                    name: None,
                    value,
                    splat: Splat::None,
                } => Some(value),
                _ => None,
            })
            .collect()
    }

    /// True when a call passes arguments the analyzer cannot line up with the parameters
    /// (`f(*args)`, `f(**kwargs)`, `f(...items)`): any argument it looks for by position or
    /// keyword may be among them, so a check that reads arguments must fail closed.
    pub fn splatted(&self, call: NodeId) -> bool {
        let Kind::Call { args, .. } = self.ir.kind(call) else {
            return false;
        };
        self.ir
            .list(args)
            .iter()
            .any(|&a| matches!(self.ir.kind(a), Kind::Arg { splat, .. } if splat != Splat::None))
    }

    /// True when the logical operator between `left` and `right` is `&&` / `and`, whose value
    /// is its left operand only when that is false.
    pub fn is_and(&self, left: NodeId, right: NodeId) -> bool {
        let between = self
            .source
            .get(self.ir.span(left).1..self.ir.span(right).0)
            .unwrap_or_default()
            .trim_start();
        between.starts_with("&&") || between.starts_with("and")
    }

    /// The names an expression may stand for itself (`len`, `logging.Formatter`), not a
    /// container holding one.
    pub fn names_of(&mut self, id: NodeId) -> Vec<String> {
        self.resolve(id, 0)
            .iter()
            .filter_map(|m| match m.value {
                Value::Name(p) if !m.held => Some(self.paths.text(p).to_owned()),
                _ => None,
            })
            .collect()
    }

    /// What a call really calls, with the arguments it really passes: JavaScript's
    /// `f.call(this, a)` and `f.apply(this, [a])` call `f` with `a`.
    pub fn effective_call(&mut self, call: NodeId, depth: usize) -> (Vec<Meaning>, Vec<NodeId>) {
        let Kind::Call { callee, .. } = self.ir.kind(call) else {
            return (Vec::new(), Vec::new());
        };
        let mut callees = self.resolve(callee, depth).to_vec();
        let args = self.positional_args(call);
        if !self.dialect.forwards_calls() {
            return (callees, args);
        }
        let mut via_call = Vec::new();
        let mut via_apply = Vec::new();
        for m in &callees {
            let Value::Name(p) = m.value else { continue };
            let text = self.paths.text(p).to_owned();
            let module_len = self.paths.module_len(p);
            if let Some(target) = text.strip_suffix(".call") {
                via_call.push(self.path_meaning(target, module_len.min(target.len())));
            } else if let Some(target) = text.strip_suffix(".apply") {
                via_apply.push(self.path_meaning(target, module_len.min(target.len())));
            }
        }
        if !via_call.is_empty() {
            callees.extend(via_call);
            return (callees, args.into_iter().skip(1).collect());
        }
        if !via_apply.is_empty()
            && let Some(&list) = args.get(1)
            && let Kind::Collection {
                kind: CollectionKind::List,
                items,
            } = self.ir.kind(self.ir.unparen(list))
        {
            callees.extend(via_apply);
            return (callees, self.ir.list(items).to_vec());
        }
        (callees, args)
    }

    fn resolve_call(&mut self, call: NodeId, depth: usize) -> Vec<Meaning> {
        let (callees, args) = self.effective_call(call, depth);
        let first = args.first().copied();
        let mut out = Vec::new();
        for f in callees {
            let found: Vec<Meaning> = match f.value {
                _ if f.held => Vec::new(),
                Value::Local(function) => self.returned_meanings(function, depth),
                Value::AttrGetter(attr) => {
                    let objects = first
                        .map(|o| self.resolve(o, depth).to_vec())
                        .unwrap_or_default();
                    // `attrgetter("a.b")` walks `a`, then `b`.
                    let attr = self.paths.text(attr).to_owned();
                    let mut current = objects;
                    for part in attr.split('.') {
                        current = current
                            .into_iter()
                            .flat_map(|o| self.member(o, part))
                            .collect();
                    }
                    current
                }
                Value::Lookup(ns) => match first.and_then(|k| self.fold(k, depth)) {
                    Some(key) => self.lookup_in(ns, &key),
                    None => Vec::new(),
                },
                Value::Module(p) | Value::Name(p) => {
                    let text = self.paths.text(p).to_owned();
                    match self.dialect.call_kind(&text) {
                        Some(kind) => self.call_result(call, kind, &text, &args, depth),
                        None => Vec::new(),
                    }
                }
                _ => Vec::new(),
            };
            for m in found {
                add_meaning(&mut out, m);
            }
        }
        out
    }

    /// What a call of a function of the snippet returns: its `return` values, followed, but
    /// for a call made while that function's returns are already being followed (recursion,
    /// direct or through others), which stands for what the binding rounds learned it
    /// returns. Following such calls too would chain through every call of a web of
    /// functions calling each other, one level deeper each; the learned meanings grow with
    /// the bindings until they settle, so once settled they are all the function returns.
    fn returned_meanings(&mut self, function: NodeId, depth: usize) -> Vec<Meaning> {
        if self.following_returns.contains(&function) {
            return self
                .returned
                .get(&function)
                .map(|m| m.to_vec())
                .unwrap_or_default();
        }
        self.following_returns.push(function);
        let values = self.returns.get(&function).cloned().unwrap_or_default();
        let mut found = Vec::new();
        for v in values {
            for &m in self.resolve(v, depth).iter() {
                add_meaning(&mut found, m);
            }
        }
        self.following_returns.pop();
        found
    }

    /// Learns what a function's `return` values mean (see [`Engine::returned_meanings`]);
    /// true if that is new.
    pub(super) fn learn_returned_meanings(&mut self, function: NodeId) -> bool {
        let mut known = self
            .returned
            .get(&function)
            .map(|m| m.to_vec())
            .unwrap_or_default();
        let mut changed = false;
        for m in self.returned_meanings(function, 0) {
            changed |= add_meaning(&mut known, m);
        }
        if changed {
            self.returned.insert(function, known.into());
        }
        changed
    }

    /// What a call of a resolving function returns.
    fn call_result(
        &mut self,
        call: NodeId,
        kind: CallKind,
        name: &str,
        args: &[NodeId],
        depth: usize,
    ) -> Vec<Meaning> {
        let arg = |i: usize| args.get(i).copied();
        match kind {
            CallKind::Import { top_level, colon } => {
                let Some(module) = arg(0).and_then(|a| self.fold(a, depth)) else {
                    return Vec::new();
                };
                let module = self.dialect.module_specifier(&module);
                if colon {
                    let (m, attr) = module.split_once(':').unwrap_or((&module, ""));
                    let module = self.module_meaning(m);
                    if attr.is_empty() {
                        return vec![module];
                    }
                    let mut current = vec![module];
                    for part in attr.split('.') {
                        current = current
                            .into_iter()
                            .flat_map(|c| self.member(c, part))
                            .collect();
                    }
                    return current;
                }
                let module = if top_level {
                    module.split('.').next().unwrap_or_default().to_owned()
                } else {
                    module
                };
                vec![self.module_meaning(&module)]
            }
            CallKind::GetAttr {
                object,
                name: key,
                descriptor,
                ..
            } => {
                let (Some(o), Some(k)) = (arg(object), arg(key)) else {
                    return Vec::new();
                };
                let Some(k) = self.fold(k, depth) else {
                    return Vec::new();
                };
                let objects = self.resolve(o, depth).to_vec();
                let found: Vec<Meaning> = objects
                    .into_iter()
                    .flat_map(|o| self.member(o, &k))
                    .collect();
                if !descriptor {
                    return found;
                }
                found
                    .into_iter()
                    .filter_map(|m| match m.value {
                        Value::Module(p) | Value::Name(p) => {
                            Some(Meaning::of(Value::Descriptor(p)))
                        }
                        _ => None,
                    })
                    .collect()
            }
            CallKind::Descriptors => {
                let objects = arg(0)
                    .map(|o| self.resolve(o, depth).to_vec())
                    .unwrap_or_default();
                objects
                    .into_iter()
                    .filter_map(|m| self.path_of(m))
                    .map(|p| Meaning::of(Value::Descriptors(p)))
                    .collect()
            }
            CallKind::AttrGetter | CallKind::MethodCaller => {
                let Some(attr) = arg(0).and_then(|a| self.fold(a, depth)) else {
                    return Vec::new();
                };
                let attr = self.paths.intern(&attr, 0);
                if kind == CallKind::AttrGetter {
                    vec![Meaning::of(Value::AttrGetter(attr))]
                } else {
                    vec![Meaning::of(Value::MethodCaller(attr))]
                }
            }
            CallKind::Globals => vec![self.own_namespace(call, name)],
            CallKind::Vars => match arg(0) {
                None => vec![self.own_namespace(call, name)],
                Some(o) => self
                    .resolve(o, depth)
                    .to_vec()
                    .into_iter()
                    .filter_map(|m| self.path_of(m))
                    .map(|p| Meaning::of(Value::Namespace(Namespace::Dict(p))))
                    .collect(),
            },
            CallKind::Identity => arg(0)
                .map(|a| self.resolve(a, depth).to_vec())
                .unwrap_or_default(),
            CallKind::Require => vec![self.path_meaning("require", 0)],
            CallKind::Bound => match name.strip_suffix(".bind") {
                Some(target) => {
                    let module_len =
                        if self.is_module_root(target.split('.').next().unwrap_or_default()) {
                            target.split('.').next().unwrap_or_default().len()
                        } else {
                            0
                        };
                    vec![self.path_meaning(target, module_len)]
                }
                None => Vec::new(),
            },
            CallKind::FindModule | CallKind::SetAttr | CallKind::Accessor { .. } => Vec::new(),
        }
    }
}
