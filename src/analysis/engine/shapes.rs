//! Value shapes the analysis can prove: a number (a key that cannot name a property such as
//! `constructor`, a template part that adds only digits to code), plain data (a literal array
//! or object, a new `Map`: not a function, so one lookup by a computed key cannot reach
//! `Function`), or a built-in sequence (a string, an array, a new `Map`: its `length` and
//! `indexOf` are the built-in ones, where an object of the snippet's could define its own).

use super::Engine;
use super::meaning::Value;
use crate::analysis::ir::{BinOp, CollectionKind, ConstKind, Kind, NodeId, Splat, Sym, UnOp};

/// Deepest expression the shape checks follow.
const MAX_SHAPE_DEPTH: usize = 16;

impl<'a> Engine<'a> {
    /// True when the expression certainly evaluates to a number.
    pub fn is_numeric(&mut self, id: NodeId) -> bool {
        self.numeric_at(id, 0)
    }

    fn numeric_at(&mut self, id: NodeId, depth: usize) -> bool {
        if depth > MAX_SHAPE_DEPTH {
            return false;
        }
        let ir = self.ir;
        match ir.kind(id) {
            Kind::Int(_) | Kind::Float => true,
            Kind::Paren(inner) => self.numeric_at(inner, depth + 1),
            Kind::Unary { op, arg } => match op {
                UnOp::Neg | UnOp::Pos | UnOp::Invert => {
                    self.dialect.operators_give_numbers() || self.numeric_at(arg, depth + 1)
                }
                UnOp::Other => false,
            },
            Kind::Binary { op, left, right } => match op {
                BinOp::Add => self.numeric_at(left, depth + 1) && self.numeric_at(right, depth + 1),
                BinOp::Logical | BinOp::Compare => false,
                // Python's `'%s' % x` formats and `s * 2` repeats; any class may define an
                // operator to return what it likes.
                _ => {
                    self.dialect.operators_give_numbers()
                        || (self.numeric_at(left, depth + 1) && self.numeric_at(right, depth + 1))
                }
            },
            Kind::Cond { then, other, .. } => {
                self.numeric_at(then, depth + 1) && self.numeric_at(other, depth + 1)
            }
            Kind::AugAssign { .. } => true,
            Kind::Name(sym) => self.binding_shape(sym, id, |b| !b.not_numeric),
            Kind::Attr { object, name } => {
                self.dialect.is_size_member(self.name(name)) && self.is_sequence(object)
            }
            Kind::Call { callee, .. } => {
                if let Kind::Attr { object, name } = ir.kind(callee)
                    && self.dialect.method_returns_number(self.name(name))
                    && self.is_sequence(object)
                {
                    return true;
                }
                let names = self.names_of(callee);
                !names.is_empty() && names.iter().all(|n| self.dialect.returns_number(n))
            }
            _ => false,
        }
    }

    /// True when the expression certainly evaluates to plain data: a literal array or object,
    /// a string, a new collection, or a name bound only to such values.
    pub fn is_plain_data(&mut self, id: NodeId) -> bool {
        let ir = self.ir;
        match ir.kind(ir.unparen(id)) {
            // `{__proto__: f}` inherits `f`'s members.
            Kind::Collection {
                kind: CollectionKind::List | CollectionKind::Map,
                items,
            } => !ir.list(items).iter().any(|&item| {
                matches!(ir.kind(item), Kind::Pair { key, .. }
                    if matches!(ir.kind(key), Kind::Str { name: true, .. })
                        && ir.str_value(key) == Some("__proto__"))
            }),
            Kind::Str { .. } | Kind::Template { .. } => true,
            Kind::Name(sym) => {
                self.binding_shape(sym, id, |b| !b.not_data) && !self.may_be_reprototyped(id)
            }
            Kind::Call { callee, new, args } => {
                if let Kind::Attr { object, name } = ir.kind(callee)
                    && !new
                    && self.dialect.method_returns_data(self.name(name))
                    && self.is_sequence(object)
                {
                    return true;
                }
                let names = self.names_of(callee);
                !names.is_empty()
                    && names.iter().all(|n| {
                        self.dialect.constructs_data(n)
                            && (n != "Object.create" || self.creates_from_data(args))
                    })
            }
            _ => false,
        }
    }

    /// `Object.create(null)` or `Object.create(data)`: an object that inherits no function's
    /// members (`Object.create(f)` inherits `f.constructor`, which is `Function`).
    fn creates_from_data(&mut self, args: crate::analysis::ir::List) -> bool {
        let ir = self.ir;
        match ir.list(args).first().map(|&a| ir.kind(a)) {
            Some(Kind::Arg { value, .. }) => {
                matches!(ir.kind(ir.unparen(value)), Kind::Const(ConstKind::Null))
                    || self.is_plain_data(value)
            }
            _ => false,
        }
    }

    /// JavaScript: whether the object a name holds may get a prototype it was not made with,
    /// so that its keys reach a function's members: a member set by a key that may be
    /// `__proto__` to a value that may be a function (`o[k] = f`), or the object given to a
    /// builtin that sets its members or prototype (`Object.assign(o, src)`).
    pub fn may_be_reprototyped(&mut self, name: NodeId) -> bool {
        if !self.dialect.index_reads_member() {
            return false;
        }
        let Kind::Name(sym) = self.ir.kind(self.ir.unparen(name)) else {
            return false;
        };
        let targets = self.reprototyped();
        let lookup = self
            .scopes
            .lookup(sym, self.scopes.scope_of(name), self.dialect.declaring());
        lookup
            .scopes
            .iter()
            .any(|&scope| targets.contains(&(scope, sym)))
    }

    /// The names [`Engine::may_be_reprototyped`] finds, read once from the syntax.
    fn reprototyped(&mut self) -> std::rc::Rc<[(super::scopes::ScopeId, Sym)]> {
        if let Some(known) = &self.reprototyped {
            return known.clone();
        }
        let ir = self.ir;
        let mut found = Vec::new();
        let add = |e: &Self, object: NodeId, found: &mut Vec<_>| {
            if let Kind::Name(sym) = ir.kind(ir.unparen(object)) {
                let lookup = e
                    .scopes
                    .lookup(sym, e.scopes.scope_of(object), e.dialect.declaring());
                for scope in lookup.scopes {
                    found.push((scope, sym));
                }
            }
        };
        for id in 0..ir.nodes.len() as NodeId {
            match ir.kind(id) {
                Kind::Assign { targets, value } if !is_primitive(ir, value) => {
                    for &t in ir.list(targets) {
                        if let Kind::Index { object, key } = ir.kind(t)
                            && !matches!(
                                ir.kind(ir.unparen(key)),
                                Kind::Str { text: Some(_), .. } | Kind::Int(_)
                            )
                        {
                            add(self, object, &mut found);
                        }
                    }
                }
                Kind::Call { callee, args, .. } => {
                    let setter = matches!(ir.kind(ir.unparen(callee)), Kind::Attr { name, .. }
                        if matches!(self.name(name), "assign" | "defineProperty" | "defineProperties" | "setPrototypeOf"));
                    if setter
                        && let Some(&first) = ir.list(args).first()
                        && let Kind::Arg { value, .. } = ir.kind(first)
                    {
                        add(self, value, &mut found);
                    }
                }
                _ => {}
            }
        }
        let found: std::rc::Rc<[_]> = found.into();
        self.reprototyped = Some(found.clone());
        found
    }

    /// True when the expression certainly evaluates to a built-in sequence: a string, an
    /// array or collection the snippet built with a literal or a built-in constructor, what
    /// a copying method of one returns, or a name bound only to such values.
    pub fn is_sequence(&mut self, id: NodeId) -> bool {
        self.sequence_at(id, 0)
    }

    fn sequence_at(&mut self, id: NodeId, depth: usize) -> bool {
        if depth > MAX_SHAPE_DEPTH {
            return false;
        }
        let ir = self.ir;
        let id = ir.unparen(id);
        match ir.kind(id) {
            Kind::Collection {
                kind: CollectionKind::List,
                ..
            }
            | Kind::Str { .. }
            | Kind::Template { .. } => true,
            Kind::Name(sym) => self.binding_shape(sym, id, |b| !b.not_sequence),
            Kind::Call { callee, new, .. } => {
                if let Kind::Attr { object, name } = ir.kind(callee)
                    && !new
                    && self.dialect.method_returns_data(self.name(name))
                {
                    return self.sequence_at(object, depth + 1);
                }
                let names = self.names_of(callee);
                !names.is_empty() && names.iter().all(|n| self.dialect.constructs_sequence(n))
            }
            _ => false,
        }
    }

    /// True when every element of what `iter` evaluates to is a number: a call of a function
    /// that iterates numbers (`range(n)`).
    pub fn iterates_numbers(&mut self, iter: NodeId) -> bool {
        let Kind::Call { callee, .. } = self.ir.kind(self.ir.unparen(iter)) else {
            return false;
        };
        let meanings = self.resolve(callee, 0);
        !meanings.is_empty()
            && meanings.iter().all(|m| match m.value {
                Value::Name(p) if !m.held => self.dialect.iterates_numbers(self.paths.text(p)),
                _ => false,
            })
    }

    fn sites(&mut self) -> &foldhash::HashMap<(super::scopes::ScopeId, Sym), super::Sites> {
        if self.sites.is_none() {
            let mut sites: foldhash::HashMap<_, super::Sites> = Default::default();
            for id in 0..self.ir.nodes.len() as NodeId {
                if let Kind::Bind(sym) = self.ir.kind(id)
                    && let Some(scope) = self.scopes.bind_scope(id)
                {
                    sites.entry((scope, sym)).or_default().binds.push(id);
                }
            }
            self.sites = Some(sites);
        }
        self.sites.as_ref().expect("built above")
    }

    /// Whether the name used at `at` may hold text rather than a type: some binding's value
    /// may be text, or (bound nowhere here) an earlier analysis bound it so.
    pub fn name_may_be_text(&mut self, sym: Sym, at: NodeId) -> bool {
        let lookup = self
            .scopes
            .lookup(sym, self.scopes.scope_of(at), self.dialect.declaring());
        if lookup.scopes.is_empty() {
            return self.context.holds_text(self.name(sym));
        }
        lookup.scopes.iter().any(|scope| {
            self.bindings
                .get(&(*scope, sym))
                .is_some_and(|b| b.may_be_text)
        })
    }

    /// Whether a bound value may be text rather than a type: not a generic (`list[int]`), a
    /// union, `None`, a collection, a function or class, a library's name, the result of a
    /// typing construct, or a name bound only to such.
    pub fn value_may_be_text(&mut self, value: NodeId) -> bool {
        let value = self.ir.unparen(value);
        match self.ir.kind(value) {
            // `list[int]`, not `row["kind"]`: an item of data may be text.
            Kind::Index { object, .. } => !self.names_a_type(object, 0),
            Kind::Binary {
                op: crate::analysis::ir::BinOp::BitOr,
                ..
            }
            | Kind::Const(_)
            | Kind::Collection { .. }
            | Kind::Function { .. }
            | Kind::Class { .. } => false,
            Kind::Name(sym) => self.name_may_be_text(sym, value),
            // `np.ndarray`: a library's name.
            Kind::Attr { .. } => self.resolve(value, 0).is_empty(),
            // `T = TypeVar("T")`, `Point = namedtuple(...)`.
            Kind::Call { callee, .. } => !self.names_of(callee).iter().any(|n| makes_types(n)),
            _ => true,
        }
    }

    /// Whether an expression names a type rather than data: a module's, a builtin's or the
    /// snippet's own class or function (`np.ndarray`, `int`, `Node`, `Outer.Inner`), or a name
    /// bound only to generics (`Vector = list[float]`), never a value held in a container.
    pub fn names_a_type(&mut self, id: NodeId, depth: usize) -> bool {
        let id = self.ir.unparen(id);
        let meanings = self.resolve(id, 0);
        if !meanings.is_empty() {
            return meanings.iter().all(|m| {
                !m.held && matches!(m.value, Value::Module(_) | Value::Name(_) | Value::Local(_))
            });
        }
        match self.ir.kind(id) {
            Kind::Attr { object, .. } => depth < 8 && self.names_a_type(object, depth + 1),
            Kind::Name(sym) if depth < 8 => self.every_assigned_value(sym, id, |e, value| match e
                .ir
                .kind(e.ir.unparen(value))
            {
                Kind::Index { object, .. } => e.names_a_type(object, depth + 1),
                Kind::Binary {
                    op: crate::analysis::ir::BinOp::BitOr,
                    ..
                } => true,
                _ => false,
            }),
            _ => false,
        }
    }

    /// The `Bind` nodes that set a binding.
    pub fn binds_of(&mut self, scope: super::scopes::ScopeId, sym: Sym) -> Vec<NodeId> {
        self.sites()
            .get(&(scope, sym))
            .map(|s| s.binds.clone())
            .unwrap_or_default()
    }

    /// True when every value `id` may hold is among its meanings: a module, a library's name,
    /// or the snippet's own function or class, bound by imports, definitions and assignments
    /// of such values only. `resolve` lists what it knows; a name also bound to a call's
    /// result (`frame = math; frame = pd.DataFrame(...)`) holds more than it lists, and a
    /// rule that trusts its meanings ("a module's function, judged by name") must not.
    pub fn is_only_known(&mut self, id: NodeId) -> bool {
        self.only_known_at(id, 0)
    }

    fn only_known_at(&mut self, id: NodeId, depth: usize) -> bool {
        if depth > MAX_SHAPE_DEPTH || self.resolve(id, 0).is_empty() {
            return false;
        }
        // `__main__.frame` is the snippet's own `frame`; `sys.stdout` whatever
        // `contextlib.redirect_stdout(x)` made it.
        if self.resolve(id, 0).iter().any(|m| {
            self.path_text(m.value)
                .is_some_and(|name| self.dialect.tables().is_replaceable_member(name))
        }) {
            return false;
        }
        let id = self.ir.unparen(id);
        match self.ir.kind(id) {
            // A module's module, function or class (`np.linalg`, `np.array`, `Math.max`);
            // never an attribute of a module's other members (`sys.implementation.x`), which
            // a snippet can set.
            Kind::Attr { object, .. } => {
                self.only_known_at(object, depth + 1)
                    && self.resolve(object, 0).iter().all(|m| match m.value {
                        Value::Name(p) => self.paths.module_len(p) == 0,
                        _ => true,
                    })
            }
            Kind::Name(sym) => self.name_only_known(sym, id, depth),
            // `math if c else frame`, `a or b`: either operand.
            Kind::Cond { then, other, .. } => {
                self.only_known_at(then, depth + 1) && self.only_known_at(other, depth + 1)
            }
            Kind::Binary {
                op: BinOp::Logical,
                left,
                right,
            } => self.only_known_at(left, depth + 1) && self.only_known_at(right, depth + 1),
            // A definition is the snippet's own function or class, when it binds itself.
            Kind::Function { .. } | Kind::Class { .. } => self.binds_itself(id, depth),
            // A module loaded by a constant name (`require('path')`, `__import__('os')`).
            Kind::Call { .. } => self
                .resolve(id, 0)
                .iter()
                .all(|m| !m.held && matches!(m.value, Value::Module(_))),
            // A call's result, an item, anything else: more than its meanings may say.
            _ => false,
        }
    }

    /// Whether the definition `def` makes its name the snippet's own function or class: every
    /// decorator returns what it is given (`functools.cache`, `dataclass`), and a class has
    /// no keyword (`metaclass=` makes the name whatever the metaclass returns) and no base
    /// but the snippet's own such classes, `object` and exceptions (a library base brings
    /// methods the class's meanings do not list: `class F(pd.DataFrame)` has `F.query`).
    pub fn binds_itself(&mut self, def: NodeId, depth: usize) -> bool {
        let heads = match self.ir.kind(def) {
            Kind::Function { decorators, .. } => decorators,
            Kind::Class { heads, .. } => heads,
            _ => return false,
        };
        let heads = self.ir.list(heads).to_vec();
        heads.into_iter().all(|head| match self.ir.kind(head) {
            Kind::Arg {
                name: None,
                value,
                splat: Splat::None,
            } => {
                self.only_known_at(value, depth + 1)
                    && self.resolve(value, 0).iter().all(|m| match m.value {
                        Value::Local(_) => true,
                        Value::Name(p) => {
                            let name = self.paths.text(p);
                            self.dialect.tables().plain_bases.contains(&name)
                        }
                        _ => false,
                    })
            }
            Kind::Arg { .. } => false,
            // a decorator, or a decorator's maker called with constants only
            // (`lru_cache(maxsize=None)`; `staticmethod(make)` would call `make`)
            _ => {
                let maker = match self.ir.kind(head) {
                    Kind::Call { callee, args, .. } => {
                        let constants = self.ir.list(args).to_vec().into_iter().all(|arg| {
                            matches!(self.ir.kind(arg), Kind::Arg { value, splat: Splat::None, .. }
                                if matches!(self.ir.kind(self.ir.unparen(value)), Kind::Const(_) | Kind::Str { .. }))
                        });
                        if !constants {
                            return false;
                        }
                        callee
                    }
                    _ => head,
                };
                let names = self.names_of(maker);
                let keepers = self.dialect.tables().definition_keepers;
                !names.is_empty() && names.iter().all(|n| keepers.contains(&n.as_str()))
            }
        })
    }

    /// The qualified name an import item binds: `from a import b` gives `a.b`, `import a.b`
    /// gives `a.b`.
    fn imported_name(&self, item: NodeId) -> Option<String> {
        let Kind::ImportItem {
            imported: Some(imported),
            ..
        } = self.ir.kind(item)
        else {
            return None;
        };
        let imported = self.ir.text(imported);
        match self.ir.kind(self.ir.parent(item)?) {
            Kind::Import {
                module: Some(module),
                plain: false,
                ..
            } => Some(format!("{}.{imported}", self.ir.text(module))),
            _ => Some(imported.to_owned()),
        }
    }

    /// [`Engine::is_only_known`] for the name `sym` used at `at`.
    pub(super) fn name_only_known(&mut self, sym: Sym, at: NodeId, depth: usize) -> bool {
        let lookup = self
            .scopes
            .lookup(sym, self.scopes.scope_of(at), self.dialect.declaring());
        let module_level =
            lookup.scopes.is_empty() || lookup.scopes.contains(&super::scopes::MODULE_SCOPE);
        // A session's earlier code (a log filter, a getter) may rebind it at any time.
        if module_level && self.written_by_earlier_code(sym, || self.is_lexical_module_name(sym)) {
            return false;
        }
        if lookup.scopes.is_empty() {
            // a builtin, a global, or an earlier call's binding, all of whose values it carried
            return !self.context.is_partly_known(self.name(sym));
        }
        self.every_bind(sym, at, |e, bind| {
            let Some(parent) = e.ir.parent(bind) else {
                return false;
            };
            match e.ir.kind(parent) {
                Kind::Import { .. } => true,
                // `from __main__ import frame` is the snippet's own `frame`.
                Kind::ImportItem { .. } => !e
                    .imported_name(parent)
                    .is_some_and(|name| e.dialect.tables().is_replaceable_member(&name)),
                Kind::Function { .. } | Kind::Class { .. } => e.binds_itself(parent, depth),
                Kind::Assign { targets, value } if e.ir.list(targets).contains(&bind) => {
                    e.only_known_at(value, depth + 1)
                }
                Kind::Decl {
                    target,
                    value: Some(value),
                    ..
                } if target == bind => e.only_known_at(value, depth + 1),
                _ => false,
            }
        })
    }

    /// Whether the name used at `at` is set somewhere in its first scope and every `Bind`
    /// node that sets it passes `test` (false for a name nothing binds): how a detection asks
    /// "is this name only ever a regex match / the parts of a URL / ...".
    pub fn every_bind(
        &mut self,
        sym: Sym,
        at: NodeId,
        mut test: impl FnMut(&mut Self, NodeId) -> bool,
    ) -> bool {
        let Some(scope) = self
            .scopes
            .lookup(sym, self.scopes.scope_of(at), self.dialect.declaring())
            .scopes
            .first()
            .copied()
        else {
            return false;
        };
        let binds = self.binds_of(scope, sym);
        !binds.is_empty() && binds.into_iter().all(|bind| test(self, bind))
    }

    /// Whether the name used at `at` is set only by plain assignments (`name = value`, one
    /// of the targets) whose values pass `test` (false for a name nothing binds).
    pub fn every_assigned_value(
        &mut self,
        sym: Sym,
        at: NodeId,
        mut test: impl FnMut(&mut Self, NodeId) -> bool,
    ) -> bool {
        self.every_bind(sym, at, |e, bind| {
            match e.ir.parent(bind).map(|p| e.ir.kind(p)) {
                Some(Kind::Assign { targets, value }) if e.ir.list(targets).contains(&bind) => {
                    test(e, value)
                }
                _ => false,
            }
        })
    }

    /// Whether every binding of the name used at `at` satisfies `shape` (false for a name
    /// nothing binds).
    fn binding_shape(&self, sym: Sym, at: NodeId, shape: impl Fn(&super::Binding) -> bool) -> bool {
        let lookup = self
            .scopes
            .lookup(sym, self.scopes.scope_of(at), self.dialect.declaring());
        !lookup.scopes.is_empty()
            && lookup.scopes.iter().all(|&scope| {
                self.bindings.get(&(scope, sym)).is_some_and(&shape)
                    && !(scope == super::scopes::MODULE_SCOPE
                        && self.written_by_earlier_code(sym, || self.is_lexical_module_name(sym)))
            })
    }

    /// `for (const k in o) o[k]`, `Object.keys(o).forEach(k => o[k])`: a key taken from the same
    /// object's own enumerable keys cannot be a prototype's `constructor`.
    pub fn is_own_key(&mut self, object: NodeId, key: NodeId) -> bool {
        let e = self;
        let Kind::Name(owner) = e.ir.kind(e.ir.unparen(object)) else {
            return false;
        };
        let is_owner = |e: &Self, source: NodeId| matches!(e.ir.kind(e.ir.unparen(source)), Kind::Name(s) if e.name(s) == e.name(owner));
        match e.ir.kind(e.ir.unparen(key)) {
            // `o[keys[i]]` with `keys = Object.keys(o)`.
            Kind::Index { .. } => e
                .indexed_keys_source(key)
                .is_some_and(|source| is_owner(e, source)),
            // `o[k]`: every binding of the key must come from the owner's keys.
            Kind::Name(k) => e.every_bind(k, key, |e, bind| {
                e.key_source(bind).is_some_and(|source| is_owner(e, source))
            }),
            _ => false,
        }
    }

    /// `keys[i]` with a numeric `i` and `keys = Object.keys(o)`: the `o` whose key it reads.
    fn indexed_keys_source(&mut self, value: NodeId) -> Option<NodeId> {
        let Kind::Index { object: keys, key } = self.ir.kind(self.ir.unparen(value)) else {
            return None;
        };
        if self.is_numeric(key) {
            self.keys_call(keys)
        } else {
            None
        }
    }

    /// The object whose own keys a key binding iterates: `for (k in o)`, `for (k of
    /// Object.keys(o))`, `for ([k, v] of Object.entries(o))`, `Object.keys(o).forEach(k => ...)`.
    fn key_source(&mut self, bind: NodeId) -> Option<NodeId> {
        let e = self;
        let ir = e.ir;
        let mut node = bind;
        loop {
            let parent = ir.parent(node)?;
            match ir.kind(parent) {
                // `const k = keys[i]` (or `k = keys[i]`) with `keys = Object.keys(o)`.
                Kind::Decl {
                    target,
                    value: Some(value),
                    ..
                } if target == node => return e.indexed_keys_source(value),
                Kind::Assign { targets, value } if ir.list(targets) == [node] => {
                    return e.indexed_keys_source(value);
                }
                Kind::TuplePattern { items } if ir.list(items).first() == Some(&node) => {
                    node = parent
                }
                Kind::For {
                    target, iter, keys, ..
                } if target == node => {
                    return if keys { Some(iter) } else { e.keys_call(iter) };
                }
                Kind::Param { .. } => {
                    let function = ir.parent(parent)?;
                    let Kind::Function { params, .. } = ir.kind(function) else {
                        return None;
                    };
                    let index = ir.list(params).iter().position(|&p| p == parent)?;
                    let (call, _) = ir.context(function)?;
                    let Kind::Arg { .. } = ir.kind(call) else {
                        return None;
                    };
                    let call = ir.parent(call)?;
                    let Kind::Call { callee, .. } = ir.kind(call) else {
                        return None;
                    };
                    let Kind::Attr { object, name } = ir.kind(callee) else {
                        return None;
                    };
                    let expected = if e.name(name) == "reduce" { 1 } else { 0 };
                    return (index == expected).then(|| e.keys_call(object)).flatten();
                }
                _ => return None,
            }
        }
    }

    /// True when every use of the array bound to `sym` in `scope` only reads it: indexed
    /// (not stored into), iterated, or given to a method that does not change it.
    fn is_only_read(&mut self, sym: Sym, scope: super::scopes::ScopeId) -> bool {
        const READING: &[&str] = &[
            "length",
            "forEach",
            "map",
            "filter",
            "some",
            "every",
            "reduce",
            "reduceRight",
            "includes",
            "indexOf",
            "find",
            "findIndex",
            "slice",
            "join",
        ];
        let ir = self.ir;
        for id in 0..ir.nodes.len() as NodeId {
            if !matches!(ir.kind(id), Kind::Name(s) if s == sym) {
                continue;
            }
            let lookup =
                self.scopes
                    .lookup(sym, self.scopes.scope_of(id), self.dialect.declaring());
            if !lookup.scopes.contains(&scope) {
                continue;
            }
            let Some(parent) = ir.parent(id) else {
                return false;
            };
            let read = match ir.kind(parent) {
                Kind::Index { object, .. } if object == id => {
                    !super::rewrites::is_store_target(self, parent)
                }
                Kind::Attr { object, name } if object == id => READING.contains(&self.name(name)),
                Kind::For { iter, .. } => iter == id,
                _ => false,
            };
            if !read {
                return false;
            }
        }
        true
    }

    /// `Object.keys(o)` / `Object.entries(o)` / `Object.getOwnPropertyNames(o)`: the `o`.
    fn keys_call(&mut self, call: NodeId) -> Option<NodeId> {
        let e = self;
        let call = e.ir.unparen(call);
        // `const keys = Object.keys(o); keys.forEach(...)`: a name bound only to that.
        if let Kind::Name(sym) = e.ir.kind(call) {
            let scope = *e
                .scopes
                .lookup(sym, e.scopes.scope_of(call), e.dialect.declaring())
                .scopes
                .first()?;
            if !e.is_only_read(sym, scope) {
                return None; // `keys.push('constructor')`, `keys[0] = ...`
            }
            let mut source = None;
            for bind in e.binds_of(scope, sym) {
                let value = match e.ir.kind(e.ir.parent(bind)?) {
                    Kind::Decl { value: Some(v), .. } | Kind::Assign { value: v, .. } => v,
                    _ => return None,
                };
                let owner = e.keys_call(value)?;
                let Kind::Name(owner_sym) = e.ir.kind(e.ir.unparen(owner)) else {
                    return None;
                };
                if source.is_some_and(|s: crate::analysis::ir::Sym| s != owner_sym) {
                    return None;
                }
                source = Some(owner_sym);
            }
            return source.and_then(|_| {
                // The owner node of the first binding, for the caller's name comparison.
                let bind = e.binds_of(scope, sym).into_iter().next()?;
                match e.ir.kind(e.ir.parent(bind)?) {
                    Kind::Decl { value: Some(v), .. } | Kind::Assign { value: v, .. } => {
                        e.keys_call(v)
                    }
                    _ => None,
                }
            });
        }
        let Kind::Call { callee, .. } = e.ir.kind(call) else {
            return None;
        };
        let is_keys = e.resolve(callee, 0).iter().any(|m| {
            matches!(m.value, Value::Name(p) if matches!(e.paths.text(p), "Object.keys" | "Object.entries"))
        });
        if !is_keys {
            return None;
        }
        e.positional_args(call).first().copied()
    }
}

/// A value that is no object: a string, a number, a boolean, `null`.
fn is_primitive(ir: &crate::analysis::ir::Ir, value: NodeId) -> bool {
    matches!(
        ir.kind(ir.unparen(value)),
        Kind::Str { .. } | Kind::Template { .. } | Kind::Int(_) | Kind::Float | Kind::Const(_)
    )
}

/// Functions whose result is a type, never text.
fn makes_types(name: &str) -> bool {
    name.starts_with("typing.")
        || name.starts_with("typing_extensions.")
        || name.starts_with("enum.")
        || matches!(
            name,
            "collections.namedtuple" | "dataclasses.make_dataclass" | "type"
        )
}
