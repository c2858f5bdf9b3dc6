//! Where a value that may be code (see [`taint`](super::taint)) goes besides names: the
//! objects that keep it, `this`, and the functions a call the analysis does not resolve may
//! hand it to. Each is followed where the analysis can see all of it, and reported where it
//! cannot, so no such value reaches a call unseen.
//!
//! - An object keeps the value when it is stored in a member (`o.k = t`, `o[i] = t`) or
//!   handed to a built-in method that keeps it (`a.push(t)`, `m.set(k, t)`). The object is followed back to every name that may hold it: a name
//!   bound only to fresh objects (`{}`, `[]`, `new Map()`) or to other such names, a
//!   parameter given only such names by every call. All of them hold the value; anything
//!   else (a member of another object, a call's result, a parameter of a function called
//!   from where the analysis does not see) is reported.
//! - `this` holds what is stored in it: in a class's method, every instance of the class
//!   does (and the class, for its static methods); in an object literal's method, that
//!   object. Elsewhere a store in `this` is reported. `this` may be any object that holds
//!   such a value once one is passed as a `this` (`f.call(t)`) or some object holds one.
//! - A call that hands such a value to something other than a function of the snippet the
//!   analysis resolves, or a builtin, may be calling any function of the snippet that is not
//!   only ever called by its name (a method, a callback, a function kept in an object):
//!   their parameters may be the value. A builtin calls only the functions it is given.

use std::rc::Rc;

use super::Engine;
use super::bindings::Source;
use super::meaning::Value;
use super::scopes::ScopeId;
use super::taint::Taint;
use crate::analysis::dialect::FreeName;
use crate::analysis::ir::{BinOp, CollectionKind, FunctionKind, Kind, NodeId, Sym};

/// Longest chain of names and parameters followed back from an object.
const MAX_HOLDER_DEPTH: usize = 16;

/// Methods of built-in objects that keep what they are given in the object (`a.push(t)`,
/// `m.set(k, t)`, an emitter's listeners). A method of the snippet's own objects is followed
/// instead, as a function that may be called (see [`Engine::hand_unseen`]).
const KEEPING: &[&str] = &[
    "set",
    "add",
    "push",
    "unshift",
    "splice",
    "fill",
    "with",
    "append",
    "prepend",
    "appendChild",
    "on",
    "once",
    "addListener",
    "prependListener",
    "prependOnceListener",
    "addEventListener",
    "register",
];

/// Array methods that call their callback with an element, its index and the array.
const ITERATING: &[&str] = &[
    "forEach",
    "map",
    "filter",
    "some",
    "every",
    "find",
    "findIndex",
    "findLast",
    "findLastIndex",
    "flatMap",
];

/// Builtins that store their later arguments into their first (`Object.assign(target, src)`).
const STORING_INTO_FIRST: &[&str] = &[
    "Object.assign",
    "Object.defineProperty",
    "Object.defineProperties",
    "Object.setPrototypeOf",
];

impl<'a> Engine<'a> {
    /// True when `object` is a name that only ever holds objects or arrays the snippet made
    /// with literals or data constructors (followed as the holders are), or strings and
    /// numbers: never a function, so a key it is read by reaches no `Function`.
    pub fn holds_only_data(&mut self, object: NodeId) -> bool {
        if !matches!(self.ir.kind(self.ir.unparen(object)), Kind::Name(_)) {
            return false;
        }
        let saved = std::mem::replace(&mut self.holders_data_only, true);
        let mut names = Vec::new();
        let data = self.collect_holders(object, 0, &mut names);
        self.holders_data_only = saved;
        data
    }

    /// The names that may hold the object `object` evaluates to, when every one is known (see
    /// the module documentation); `None` when the object may be one the analysis does not
    /// follow.
    pub fn holder_names(&mut self, object: NodeId) -> Option<Vec<(ScopeId, Sym)>> {
        let mut names = Vec::new();
        self.collect_holders(object, 0, &mut names).then_some(names)
    }

    fn collect_holders(
        &mut self,
        object: NodeId,
        depth: usize,
        names: &mut Vec<(ScopeId, Sym)>,
    ) -> bool {
        if depth > MAX_HOLDER_DEPTH {
            return false;
        }
        let ir = self.ir;
        let object = ir.unparen(object);
        match ir.kind(object) {
            Kind::Name(sym) => {
                if self.holders_data_only && self.may_be_reprototyped(object) {
                    return false;
                }
                let lookup =
                    self.scopes
                        .lookup(sym, self.scopes.scope_of(object), self.dialect.declaring());
                if lookup.scopes.is_empty() {
                    if self.holders_data_only {
                        return false;
                    }
                    // A global (`module`, `exports`): that name holds it; the global object
                    // itself (`window.k = t`): every free name may.
                    if self.dialect.free_name(self.name(sym)) == FreeName::GlobalObject {
                        self.global_holder = true;
                    } else if !self.global_holders.contains(&sym) {
                        self.global_holders.push(sym);
                    }
                    return true;
                }
                for scope in lookup.scopes {
                    if names.contains(&(scope, sym)) {
                        continue;
                    }
                    names.push((scope, sym));
                    let binds = self.binds_of(scope, sym);
                    if binds.is_empty() {
                        return false;
                    }
                    for bind in binds {
                        if !self.bind_holders(bind, depth + 1, names) {
                            return false;
                        }
                    }
                }
                true
            }
            // What the expression's value is: its last item, either branch, the value assigned.
            Kind::Seq { items } => match ir.list(items).last() {
                Some(&last) => self.collect_holders(last, depth + 1, names),
                None => true,
            },
            Kind::Cond { then, other, .. }
            | Kind::Binary {
                op: BinOp::Logical,
                left: then,
                right: other,
            } => {
                self.collect_holders(then, depth + 1, names)
                    && self.collect_holders(other, depth + 1, names)
            }
            Kind::Assign { value, .. } => self.collect_holders(value, depth + 1, names),
            _ => self.is_fresh_object(object),
        }
    }

    /// What one binding of a holder's name gives it: a fresh object, another holder, or (for
    /// a parameter) what every call passes.
    fn bind_holders(
        &mut self,
        bind: NodeId,
        depth: usize,
        names: &mut Vec<(ScopeId, Sym)>,
    ) -> bool {
        let ir = self.ir;
        let Some(parent) = ir.parent(bind) else {
            return false;
        };
        let values = match ir.kind(parent) {
            Kind::Decl { target, value, .. } if target == bind => match value {
                Some(v) => vec![v],
                None => return true,
            },
            Kind::Assign { targets, value } if ir.list(targets).contains(&bind) => vec![value],
            Kind::Function { name: Some(n), .. } | Kind::Class { name: Some(n), .. }
                if n == bind =>
            {
                return true;
            }
            Kind::Param { target } if target == bind => match self.parameter_values(parent) {
                Some(values) => values,
                // Unknown callers: whatever they pass is marked as they pass it, but it may be
                // anything, so no proof of data.
                None => return !self.holders_data_only,
            },
            Kind::DefaultTarget { target, .. } if target == bind => {
                let Some(param) = ir.parent(parent) else {
                    return false;
                };
                if !matches!(ir.kind(param), Kind::Param { .. }) {
                    return false;
                }
                match self.parameter_values(param) {
                    Some(values) => values,
                    None => return !self.holders_data_only,
                }
            }
            _ => return false,
        };
        values
            .into_iter()
            .all(|v| self.collect_holders(v, depth + 1, names))
    }

    /// What a parameter may be: the arguments every call gives it, what an array's iteration
    /// method gives its callback, or, for a function called from where the analysis does not
    /// see, whatever such calls pass (see [`Engine::mark_passed`]).
    fn parameter_values(&mut self, param: NodeId) -> Option<Vec<NodeId>> {
        let args = self
            .parameter_arguments(param)
            .or_else(|| self.callback_values(param));
        if args.is_none() && !self.holders_data_only {
            self.parameter_holder = true;
        }
        args
    }

    /// `a.forEach((x, i, all) => ...)`, `a.reduce((acc, x, i, all) => ..., init)`: an element
    /// of the array (when the array's elements are known), a number, the array itself, and
    /// the accumulator (the initial value, or what the callback returns).
    pub(super) fn callback_values(&mut self, param: NodeId) -> Option<Vec<NodeId>> {
        let ir = self.ir;
        let function = ir.parent(param)?;
        let Kind::Function { params, .. } = ir.kind(function) else {
            return None;
        };
        let position = ir.list(params).iter().position(|&p| p == param)?;
        let (arg, _) = ir.context(function)?;
        let Kind::Arg { .. } = ir.kind(arg) else {
            return None;
        };
        let call = ir.parent(arg)?;
        let Kind::Call { callee, args, .. } = ir.kind(call) else {
            return None;
        };
        let args = ir.list(args);
        if args.first() != Some(&arg) || self.hides_parameter_at(function, position) {
            return None;
        }
        let Kind::Attr { object, name } = ir.kind(ir.unparen(callee)) else {
            return None;
        };
        let method = self.name(name);
        let accumulates = matches!(method, "reduce" | "reduceRight");
        if !accumulates && !ITERATING.contains(&method) {
            return None;
        }
        let position = match (accumulates, position) {
            (true, 0) => {
                let mut values = self.returns.get(&function).cloned().unwrap_or_default();
                match args.get(1).map(|&a| ir.kind(a)) {
                    Some(Kind::Arg { value, .. }) => values.push(value),
                    _ => values.extend(self.elements(object)?),
                }
                return Some(values);
            }
            (true, p) => p - 1,
            (false, p) => p,
        };
        match position {
            0 => self.elements(object),
            1 => Some(Vec::new()), // an index, a number
            _ => Some(vec![object]),
        }
    }

    /// The elements of an array literal, or of a name bound only to array literals (a
    /// parameter: by every call).
    fn elements(&mut self, array: NodeId) -> Option<Vec<NodeId>> {
        self.elements_at(array, 0)
    }

    fn elements_at(&mut self, array: NodeId, depth: usize) -> Option<Vec<NodeId>> {
        if depth > MAX_HOLDER_DEPTH {
            return None;
        }
        let ir = self.ir;
        let array = ir.unparen(array);
        match ir.kind(array) {
            Kind::Collection {
                kind: CollectionKind::List,
                items,
            } => {
                let items = ir.list(items);
                (!items.iter().any(|&i| matches!(ir.kind(i), Kind::Spread(_))))
                    .then(|| items.to_vec())
            }
            Kind::Name(sym) => {
                let scope = *self
                    .scopes
                    .lookup(sym, self.scopes.scope_of(array), self.dialect.declaring())
                    .scopes
                    .first()?;
                let mut out = Vec::new();
                for bind in self.binds_of(scope, sym) {
                    let parent = ir.parent(bind)?;
                    let value = match ir.kind(parent) {
                        Kind::Decl {
                            target,
                            value: Some(v),
                            ..
                        } if target == bind => v,
                        Kind::Param { target } if target == bind => {
                            for arg in self.parameter_arguments(parent)? {
                                out.extend(self.elements_at(arg, depth + 1)?);
                            }
                            continue;
                        }
                        _ => return None,
                    };
                    if !matches!(
                        ir.kind(ir.unparen(value)),
                        Kind::Collection {
                            kind: CollectionKind::List,
                            ..
                        }
                    ) {
                        return None;
                    }
                    out.extend(self.elements_at(value, depth + 1)?);
                }
                Some(out)
            }
            _ => None,
        }
    }

    /// An object made right there, which nothing else holds yet: a literal, a function, a
    /// new built-in collection; or a primitive, into which nothing is stored.
    pub(super) fn is_fresh_object(&mut self, id: NodeId) -> bool {
        let ir = self.ir;
        match ir.kind(id) {
            Kind::Function { .. } => !self.holders_data_only,
            // `{__proto__: f}` inherits a function's members.
            Kind::Collection { .. } if self.holders_data_only && !self.is_plain_data(id) => false,
            Kind::Collection { .. }
            | Kind::Str { .. }
            | Kind::Template { .. }
            | Kind::Int(_)
            | Kind::Float
            | Kind::Const(_) => true,
            // A number or a boolean the operators make.
            Kind::Binary { .. } | Kind::Unary { .. } => self.is_numeric(id),
            Kind::Call { callee, .. } => {
                let names = self.names_of(callee);
                // `Object.create(f)` inherits a function's members.
                !names.is_empty()
                    && names.iter().all(|n| {
                        self.dialect.constructs_data(n)
                            && !(self.holders_data_only && n == "Object.create")
                            && (n != "Object.create" || self.is_plain_data(id))
                    })
            }
            _ => false,
        }
    }

    /// Marks every name that may hold `object` as holding what may be code; true if that is
    /// new. Where the holders are not all known, the store is reported instead (see
    /// [`Engine::keeps_unseen`]).
    /// `keyed`: what is stored may be under a name (see [`Taint::keyed`]).
    pub(super) fn mark_holders(&mut self, object: NodeId, keyed: bool) -> bool {
        let Some(names) = self.holder_names(object) else {
            return false;
        };
        let mut changed = false;
        for key in names {
            changed |= self.mark_binding(key, keyed);
        }
        changed
    }

    /// True when the storing call keeps what it is given as elements, never under a name
    /// the object's members are read by: `a.push(t)`, `m.set(k, t)`, `s.add(t)`.
    pub(super) fn stores_as_elements(&mut self, callee: NodeId) -> bool {
        const ELEMENT_KEEPING: &[&str] =
            &["set", "add", "push", "unshift", "splice", "fill", "with"];
        if !self.names_of(callee).is_empty() {
            return false; // `Object.assign`, `Object.defineProperty`: named members
        }
        matches!(self.ir.kind(self.ir.unparen(callee)),
            Kind::Attr { name, .. } if ELEMENT_KEEPING.contains(&self.name(name)))
    }

    /// True when `object` may keep what is stored in it where the taint does not follow: not
    /// every name that may hold it is known, or one of them was not marked as holding.
    pub fn keeps_unseen(&mut self, object: NodeId) -> bool {
        if let Kind::This = self.ir.kind(self.ir.unparen(object)) {
            return match self.this_owner(object) {
                ThisOwner::Class(class) => !self.class_holds.contains(&class),
                ThisOwner::Object(o) => !self
                    .object_name(o)
                    .and_then(|key| self.bindings.get(&key))
                    .is_some_and(|b| b.taint.holds),
                ThisOwner::Other(_) => true,
            };
        }
        match self.holder_names(object) {
            None => true,
            Some(names) => names
                .iter()
                .any(|key| !self.bindings.get(key).is_some_and(|b| b.taint.holds)),
        }
    }

    /// The object a call may store its tainted arguments into: the receiver of a keeping
    /// method, or the first argument of a storing builtin. `None` when the call stores nothing the snippet can read back.
    pub fn storing_target(&mut self, call: NodeId) -> Option<NodeId> {
        let ir = self.ir;
        let Kind::Call { callee, args, .. } = ir.kind(call) else {
            return None;
        };
        let names = self.names_of(callee);
        if names
            .iter()
            .any(|n| STORING_INTO_FIRST.contains(&n.as_str()))
        {
            let first = *ir.list(args).first()?;
            return match ir.kind(first) {
                Kind::Arg { value, .. } => Some(value),
                _ => None,
            };
        }
        // `Array.prototype.push.call(o, t)`: a keeping method run on `o`.
        if let Kind::Attr { object, name } = ir.kind(ir.unparen(callee))
            && matches!(self.name(name), "call" | "apply")
            && self.names_of(object).iter().any(|n| {
                n.rsplit('.')
                    .next()
                    .is_some_and(|method| KEEPING.contains(&method))
            })
        {
            let first = *ir.list(args).first()?;
            return match ir.kind(first) {
                Kind::Arg { value, .. } => Some(value),
                _ => None,
            };
        }
        if !names.is_empty() {
            return None; // a function of a module or a global, which keeps nothing
        }
        match ir.kind(ir.unparen(callee)) {
            Kind::Attr { object, name } if KEEPING.contains(&self.name(name)) => Some(object),
            _ => None,
        }
    }

    /// True when every meaning of the callee is a function (or class) of the snippet, whose
    /// parameters and returns the taint follows.
    pub(super) fn follows_call(&mut self, callee: NodeId) -> bool {
        self.callee_functions(callee).is_some()
    }

    /// The functions of the snippet a call runs, when each is known: what the callee
    /// resolves to (a class runs its `constructor`), or, for a name that resolves to nothing
    /// (a parameter), the function literals that flow into it.
    pub(super) fn callee_functions(&mut self, callee: NodeId) -> Option<Vec<NodeId>> {
        let ir = self.ir;
        let resolved = self.resolve(callee, 0);
        if !resolved.is_empty() {
            let mut functions = Vec::new();
            for m in resolved.iter() {
                match m.value {
                    Value::Local(local) if !m.held => match ir.kind(local) {
                        Kind::Class { .. } => functions.extend(self.called_function(local)),
                        Kind::Function { .. } => functions.push(local),
                        _ => return None,
                    },
                    _ => return None,
                }
            }
            return Some(functions);
        }
        if !matches!(ir.kind(ir.unparen(callee)), Kind::Name(_)) {
            return None;
        }
        let sources = self.value_sources_of(callee)?;
        if sources.is_empty() {
            return None;
        }
        sources
            .into_iter()
            .map(|s| {
                let s = ir.unparen(s);
                matches!(ir.kind(s), Kind::Function { .. }).then_some(s)
            })
            .collect()
    }

    /// The functions of the snippet that a call the analysis does not resolve may be
    /// calling: every one but a function bound once to a name that is only ever the callee
    /// of calls (and never a member's name or in a string, `this.f`, `globalThis['f']`).
    pub(super) fn escaping_functions(&mut self) -> Rc<[NodeId]> {
        if let Some(known) = &self.escaping {
            return known.clone();
        }
        let ir = self.ir;
        let mut valued: Vec<(ScopeId, Sym)> = Vec::new();
        let mut members: Vec<&str> = Vec::new();
        let mut strings: Vec<&str> = Vec::new();
        for id in 0..ir.nodes.len() as NodeId {
            match ir.kind(id) {
                Kind::Name(sym) => {
                    let called = matches!(ir.context(id),
                        Some((call, callee)) if matches!(ir.kind(call), Kind::Call { callee: c, .. } if c == callee));
                    if !called
                        && !self.is_unread_export(id)
                        && !self.is_only_shown(id)
                        && !self.is_unimported_export(id)
                    {
                        let lookup = self.scopes.lookup(
                            sym,
                            self.scopes.scope_of(id),
                            self.dialect.declaring(),
                        );
                        for scope in lookup.scopes {
                            valued.push((scope, sym));
                        }
                    }
                }
                Kind::Attr { name, .. } => members.push(self.name(name)),
                // An object literal's key names a member of that object, whose value is
                // judged where it is written.
                Kind::Str { .. }
                    if !matches!(ir.context(id), Some((pair, child))
                        if matches!(ir.kind(pair), Kind::Pair { key, .. } if key == child)) =>
                {
                    strings.extend(ir.str_value(id))
                }
                _ => {}
            }
        }
        let mut escaping = Vec::new();
        for id in 0..ir.nodes.len() as NodeId {
            if !matches!(ir.kind(id), Kind::Function { .. }) {
                continue;
            }
            let only_called = self.function_binding(id).is_some_and(|bind| {
                let Kind::Bind(sym) = ir.kind(bind) else {
                    return false;
                };
                let Some(scope) = self.scopes.bind_scope(bind) else {
                    return false;
                };
                let name = self.name(sym);
                self.binds_of(scope, sym) == [bind]
                    && !valued.contains(&(scope, sym))
                    && !members.contains(&name)
                    && !strings.iter().any(|s| s.contains(name))
            });
            if !only_called {
                escaping.push(id);
            }
        }
        let escaping: Rc<[NodeId]> = escaping.into();
        self.escaping = Some(escaping.clone());
        escaping
    }

    /// A name handed, alone or as an item of literal arrays and objects, only to a builtin
    /// that makes text or a number of it (`console.log(f)`, `String(f)`, the value of
    /// `JSON.stringify`): nothing calls the function through it, nor gets it back. A function
    /// kept under `toJSON`, `toString`, `valueOf` or a computed key (`[inspect.custom]`) is
    /// one those builtins call, so it does not count.
    fn is_only_shown(&mut self, id: NodeId) -> bool {
        let ir = self.ir;
        let mut node = id;
        loop {
            let Some((parent, child)) = ir.context(node) else {
                return false;
            };
            match ir.kind(parent) {
                Kind::Pair { key, value } if value == child => {
                    if !matches!(ir.kind(key), Kind::Str { .. })
                        || ir
                            .str_value(key)
                            .is_none_or(|k| matches!(k, "toJSON" | "toString" | "valueOf"))
                    {
                        return false;
                    }
                }
                Kind::Collection { .. } | Kind::Paren(_) => {}
                Kind::Arg { .. } => {
                    let Some(call) = ir.parent(parent) else {
                        return false;
                    };
                    let Kind::Call {
                        callee, args, new, ..
                    } = ir.kind(call)
                    else {
                        return false;
                    };
                    if new {
                        return false;
                    }
                    let position = ir.list(args).iter().position(|&a| a == parent);
                    let names = self.names_of(callee);
                    return !names.is_empty()
                        && names.iter().all(|n| match n.as_str() {
                            "JSON.stringify" => position == Some(0),
                            _ => n.starts_with("console.") || self.dialect.returns_primitive(n),
                        });
                }
                _ => return false,
            }
            node = parent;
        }
    }

    /// `export { f }` in a snippet that cannot import itself: it is the program, no module
    /// imports it, so nothing calls `f` through its exports. A dynamic `import`, `import.meta`
    /// or a `require` of anything but a literal name of a package could load the snippet's
    /// own file again and reach them.
    pub(super) fn is_unimported_export(&mut self, id: NodeId) -> bool {
        let ir = self.ir;
        let Some(parent) = ir.parent(id) else {
            return false;
        };
        let (start, end) = ir.span(parent);
        if !matches!(ir.kind(parent), Kind::Other) || !self.source[start..end].starts_with("export")
        {
            return false;
        }
        if let Some(reloads) = self.may_reload_itself {
            return !reloads;
        }
        let mut reloads = false;
        for n in 0..ir.nodes.len() as NodeId {
            // `import ... from './x.js'`: a file of the work dir, which may import this one.
            if let Kind::Import {
                module: Some(module),
                ..
            } = ir.kind(n)
            {
                let module = ir.text(module);
                reloads |=
                    module.starts_with('.') || module.starts_with('/') || module.contains(':');
                continue;
            }
            let Kind::Name(sym) = ir.kind(n) else {
                continue;
            };
            match self.name(sym) {
                "import" => reloads = true,
                "require" => {
                    let literal = matches!(ir.context(n), Some((call, callee))
                    if matches!(ir.kind(call), Kind::Call { callee: c, args, .. }
                        if c == callee
                            && ir.list(args).len() == 1
                            && matches!(ir.kind(ir.list(args)[0]), Kind::Arg { value, .. }
                                if ir.str_value(value).is_some_and(|m| {
                                    !m.starts_with('.') && !m.starts_with('/')
                                }))));
                    reloads |= !literal;
                }
                _ => {}
            }
        }
        self.may_reload_itself = Some(reloads);
        !reloads
    }

    /// `module.exports = f`, `exports.f = f`, `module.exports.f = f` in a snippet that never
    /// reads its exports: no code but the snippet's runs, so nothing calls `f` through them.
    fn is_unread_export(&mut self, id: NodeId) -> bool {
        let ir = self.ir;
        let Some((parent, child)) = ir.context(id) else {
            return false;
        };
        let Kind::Assign { targets, value } = ir.kind(parent) else {
            return false;
        };
        if value != child {
            return false;
        }
        let exports = |e: &Self, t: NodeId| {
            let mut root = t;
            let mut path = Vec::new();
            while let Kind::Attr { object, name } = ir.kind(root) {
                path.push(e.name(name));
                root = object;
            }
            let Kind::Name(base) = ir.kind(root) else {
                return false;
            };
            let base = e.name(base);
            (base == "exports" && !path.is_empty())
                || (base == "module" && path.last() == Some(&"exports"))
        };
        if !ir.list(targets).iter().all(|&t| exports(self, t)) {
            return false;
        }
        if let Some(read) = self.exports_read {
            return !read;
        }
        let read = (0..ir.nodes.len() as NodeId).any(|n| match ir.kind(n) {
                Kind::Name(s) => {
                    let name = self.name(s);
                    (name == "exports" || name == "module")
                        && !matches!(ir.context(n), Some((p, _)) if matches!(ir.kind(p), Kind::Attr { .. }))
                }
                Kind::Attr { name, .. } => self.name(name) == "exports" && !is_assigned(ir, n),
                _ => false,
            });
        self.exports_read = Some(read);
        !read
    }

    /// The name a function is kept under where it is written: a method (`{m() {}}`, a
    /// class's `m() {}`, `{m: () => ...}`) or a member it is assigned to (`x.m = function`).
    /// `None` when it goes anywhere else.
    fn member_name(&self, function: NodeId) -> Option<&'a str> {
        let ir = self.ir;
        let (parent, child) = ir.context(function)?;
        match ir.kind(parent) {
            Kind::Pair { key, value } if value == child => {
                let kept_in = ir.parent(parent)?;
                matches!(
                    ir.kind(kept_in),
                    Kind::Collection { .. } | Kind::Class { .. }
                )
                .then(|| ir.str_value(key))
                .flatten()
            }
            Kind::Assign { targets, value } if value == child => match ir.list(targets) {
                [target] => match ir.kind(*target) {
                    Kind::Attr { name, .. } => Some(self.name(name)),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        }
    }

    /// A call hands `handed` in its arguments: to a `this` (`f.call(t)`, `a.map(f, t)`), to
    /// the functions a builtin is given, or, from a call the analysis does not resolve, to
    /// every escaping function. True if that is new.
    pub(super) fn hand_unseen(&mut self, call: NodeId, handed: Taint) -> bool {
        let ir = self.ir;
        let Kind::Call { callee, args, .. } = ir.kind(call) else {
            return false;
        };
        let mut changed = false;
        if let Some((function, this)) = self.given_this(callee, args) {
            let given = self.taint(this);
            if given.any() {
                changed |= self.give_this(function, given);
            }
        }
        if self.follows_call(callee) {
            return changed; // its parameters are bound by `taint_parameters`
        }
        if !self.is_builtin_callee(callee) {
            return changed | self.taint_escaping_parameters(handed, Some(callee));
        }
        let names = self.names_of(callee);
        if names.iter().all(|n| calls_nothing_given(n)) {
            return changed;
        }
        let positions: Option<Vec<usize>> = names
            .iter()
            .map(|n| callback_positions(n).map(<[usize]>::to_vec))
            .try_fold(Vec::new(), |mut all, p| {
                all.extend(p?);
                Some(all)
            });
        // A builtin calls the functions it is given: those the analysis resolves take the
        // values; an expression that may be a function it does not resolve may be any.
        for (position, arg) in ir.list(args).to_vec().into_iter().enumerate() {
            let Kind::Arg { value, .. } = ir.kind(arg) else {
                continue;
            };
            if positions.as_ref().is_some_and(|p| !p.contains(&position)) {
                continue;
            }
            let value = ir.unparen(value);
            match ir.kind(value) {
                Kind::Function { .. }
                | Kind::Collection { .. }
                | Kind::Str { .. }
                | Kind::Template { .. }
                | Kind::Int(_)
                | Kind::Float => {}
                _ => {
                    let locals: Vec<NodeId> = self
                        .resolve(value, 0)
                        .iter()
                        .filter_map(|m| match m.value {
                            Value::Local(f) => Some(f),
                            _ => None,
                        })
                        .collect();
                    if locals.is_empty() {
                        if !self.is_plain_data(value) && !self.is_numeric(value) {
                            changed |= self.taint_escaping_parameters(handed, None);
                        }
                        continue;
                    }
                    for local in locals {
                        if let Some(function) = self.called_function(local) {
                            changed |= self.taint_parameters_of(function, handed);
                        }
                    }
                }
            }
        }
        changed
    }

    /// Once a parameter of a function called from where the analysis does not see holds such
    /// a value, every object such a call passes (its arguments, its receiver: a builtin hands
    /// them to the functions it is given) may be that parameter: the names holding them hold
    /// it too. True if that is new.
    pub(super) fn mark_passed(&mut self, call: NodeId) -> bool {
        let ir = self.ir;
        let Kind::Call { callee, args, .. } = ir.kind(call) else {
            return false;
        };
        if !self.parameter_holder || self.follows_call(callee) {
            return false;
        }
        // A builtin that calls nothing it is given (`Math.min(a)`, `console.log(o)`) hands
        // its arguments to no function of the snippet; a builtin's receiver (`Math`) is none
        // of the snippet's objects.
        let builtin = self.is_builtin_callee(callee);
        if builtin {
            let names = self.names_of(callee);
            if names
                .iter()
                .all(|n| calls_nothing_given(n) || self.dialect.returns_primitive(n))
            {
                return false;
            }
        }
        let mut objects: Vec<NodeId> = ir
            .list(args)
            .iter()
            .filter_map(|&a| match ir.kind(a) {
                Kind::Arg { value, .. } => Some(value),
                _ => None,
            })
            .collect();
        if let Kind::Attr { object, .. } = ir.kind(ir.unparen(callee))
            && !builtin
        {
            objects.push(object);
        }
        let mut changed = false;
        for object in objects {
            let mut root = ir.unparen(object);
            while let Kind::Attr { object, .. } | Kind::Index { object, .. } = ir.kind(root) {
                root = ir.unparen(object);
            }
            changed |= match ir.kind(root) {
                Kind::This => self.store_in_this(root),
                Kind::Name(_) => self.mark_holders(root, true),
                _ => false,
            };
        }
        changed
    }

    /// The function a call runs with a `this` taken from its arguments, and that argument:
    /// `f.call(x)`, `f.apply(x)`, `f.bind(x)`, `a.map(f, x)`, `Array.from(a, f, x)`.
    fn given_this(
        &self,
        callee: NodeId,
        args: crate::analysis::ir::List,
    ) -> Option<(NodeId, NodeId)> {
        let ir = self.ir;
        let Kind::Attr { object, name } = ir.kind(ir.unparen(callee)) else {
            return None;
        };
        let arg = |position: usize| match ir.kind(*ir.list(args).get(position)?) {
            Kind::Arg { value, .. } => Some(value),
            _ => None,
        };
        match self.name(name) {
            "call" | "apply" | "bind" => Some((object, arg(0)?)),
            "from" => Some((arg(1)?, arg(2)?)),
            method if ITERATING.contains(&method) => Some((arg(0)?, arg(1)?)),
            _ => None,
        }
    }

    /// `function` runs with `this` as `given`: the functions it is, when known, or else any.
    /// True if that is new.
    fn give_this(&mut self, function: NodeId, given: Taint) -> bool {
        let functions = match self.ir.kind(self.ir.unparen(function)) {
            Kind::Function { .. } => Some(vec![self.ir.unparen(function)]),
            _ => self.callee_functions(function),
        };
        match functions {
            Some(functions) => {
                let mut changed = false;
                for f in functions {
                    let known = self.this_of.get(&f).copied().unwrap_or_default();
                    if known.or(given) != known {
                        self.this_of.insert(f, known.or(given));
                        changed = true;
                    }
                }
                changed
            }
            None if !self.this_anything => {
                self.this_anything = true;
                true
            }
            None => false,
        }
    }

    /// True when every meaning of the callee is a function of a module or a global (a
    /// builtin), not one of the snippet's.
    fn is_builtin_callee(&mut self, callee: NodeId) -> bool {
        let callees = self.resolve(callee, 0);
        !callees.is_empty()
            && callees
                .iter()
                .all(|m| !m.held && matches!(m.value, Value::Name(_) | Value::Module(_)))
    }

    /// The function a call of a snippet's definition runs: a function itself, or a class's
    /// `constructor`.
    pub(super) fn called_function(&self, local: NodeId) -> Option<NodeId> {
        let ir = self.ir;
        match ir.kind(local) {
            Kind::Function { .. } => Some(local),
            Kind::Class { body, .. } => {
                ir.list(body).iter().find_map(|&item| match ir.kind(item) {
                    Kind::Pair { key, value }
                        if ir.str_value(key) == Some("constructor")
                            && matches!(ir.kind(value), Kind::Function { .. }) =>
                    {
                        Some(value)
                    }
                    _ => None,
                })
            }
            _ => None,
        }
    }

    fn taint_parameters_of(&mut self, function: NodeId, handed: Taint) -> bool {
        let Kind::Function { params, .. } = self.ir.kind(function) else {
            return false;
        };
        let mut changed = false;
        for &param in self.ir.list(params) {
            changed |= self.bind(param, Source::Tainted(Taint::IS.or(handed)));
        }
        changed
    }

    /// Every escaping function the callee may be takes `handed`: for `x.name(...)`, those
    /// kept under that name (`{name() {...}}`, `x.name = function`, a class's method) and
    /// those kept where no name shows; for any other callee, all. True if that is new.
    fn taint_escaping_parameters(&mut self, handed: Taint, callee: Option<NodeId>) -> bool {
        let ir = self.ir;
        let called_name = callee.and_then(|c| match ir.kind(ir.unparen(c)) {
            Kind::Attr { name, .. } if !matches!(self.name(name), "call" | "apply" | "bind") => {
                Some(self.name(name))
            }
            _ => None,
        });
        let mut changed = false;
        for function in self.escaping_functions().iter().copied() {
            if let Some(called) = called_name
                && self
                    .member_name(function)
                    .is_some_and(|kept| kept != called)
            {
                continue;
            }
            changed |= self.taint_parameters_of(function, handed);
        }
        changed
    }

    /// What `this` may be at `id`, as far as computed lookups go.
    pub(super) fn this_taint(&mut self, id: NodeId, depth: usize) -> Taint {
        if self.this_anything {
            return Taint::ANY;
        }
        let given = self
            .this_function(id)
            .and_then(|f| self.this_of.get(&f).copied())
            .unwrap_or_default();
        given.or(self.owner_this_taint(id, depth))
    }

    /// The function whose `this` a `this` is (not an arrow function, which has none).
    pub(super) fn this_function(&self, id: NodeId) -> Option<NodeId> {
        let ir = self.ir;
        let mut node = id;
        while let Some(parent) = ir.parent(node) {
            match ir.kind(parent) {
                Kind::Function {
                    kind: FunctionKind::Lambda,
                    ..
                } => {}
                Kind::Function { .. } => return Some(parent),
                _ => {}
            }
            node = parent;
        }
        None
    }

    fn owner_this_taint(&mut self, id: NodeId, depth: usize) -> Taint {
        match self.this_owner(id) {
            ThisOwner::Class(class) if self.class_holds.contains(&class) => Taint::ANY,
            ThisOwner::Object(object) => {
                let bound = self
                    .object_name(object)
                    .and_then(|key| self.bindings.get(&key))
                    .map_or(Taint::default(), |b| b.taint);
                self.taint_at_depth(object, depth)
                    .or(bound)
                    .member()
                    .or(bound)
            }
            // A function kept in an object (`o.m = function () {...}`) runs with that object
            // as `this`, which may be any that holds such a value.
            ThisOwner::Other(Some(function))
                if self.some_holder && self.escaping_functions().contains(&function) =>
            {
                Taint::ANY
            }
            _ => Taint::default(),
        }
    }

    /// What instances of a class hold: what its methods return, what they store in `this`,
    /// and, for a class that extends another, what any class's do.
    pub(super) fn class_taint(&mut self, class: NodeId) -> Taint {
        let own = |e: &mut Self, class: NodeId| {
            let ir = e.ir;
            let Kind::Class { body, .. } = ir.kind(class) else {
                return false;
            };
            e.class_holds.contains(&class)
                || ir.list(body).iter().any(|&item| match ir.kind(item) {
                    Kind::Pair { value, .. } => e.returned_taint(value).any(),
                    _ => false,
                })
        };
        let mut holds = own(self, class);
        if !holds && self.extends(class) {
            for id in 0..self.ir.nodes.len() as NodeId {
                if matches!(self.ir.kind(id), Kind::Class { .. }) && own(self, id) {
                    holds = true;
                    break;
                }
            }
        }
        if holds {
            Taint::HOLDS
        } else {
            Taint::default()
        }
    }

    /// `class A extends B`: instances run methods the class does not show.
    fn extends(&self, class: NodeId) -> bool {
        let (start, end) = self.ir.span(class);
        let text = &self.source[start..end];
        let head = text.split('{').next().unwrap_or(text);
        head.contains("extends")
    }

    /// A definition's name carries what calling it gives (a function returning such a value)
    /// or what its instances hold (a class). True if that is new.
    pub(super) fn bind_definition_taint(&mut self, name: NodeId, definition: NodeId) -> bool {
        let taint = match self.ir.kind(definition) {
            Kind::Class { .. } => self.class_taint(definition),
            _ if self.returned_taint(definition).any() => Taint::GIVES,
            _ => return false,
        };
        taint.any() && self.bind(name, Source::Tainted(taint))
    }

    /// The members a store target writes (see [`member_leaves`]).
    pub fn stored_members(&self, target: NodeId) -> Vec<NodeId> {
        member_leaves(self.ir, target)
    }

    /// A class field given such a value (`x = t`, `static x = t`): the class and its
    /// instances hold it. True if that is new.
    pub(super) fn taint_class_fields(&mut self, class: NodeId) -> bool {
        let ir = self.ir;
        let Kind::Class { body, .. } = ir.kind(class) else {
            return false;
        };
        if self.class_holds.contains(&class) {
            return false;
        }
        for item in ir.list(body).to_vec() {
            // A field (`x = t;`) is lowered as its parts; a method is a `Pair`.
            if !matches!(ir.kind(item), Kind::Other) {
                continue;
            }
            let (_, end) = ir.span(item);
            let mut part = item + 1;
            while (part as usize) < ir.nodes.len() && ir.span(part).0 < end {
                if ir.parent(part) == Some(item) && self.taint(part).any() {
                    return self.class_holds.insert(class);
                }
                part += 1;
            }
        }
        false
    }

    /// `this.k = value` with such a value: the class's instances, or the object literal's
    /// name, hold it. True if that is new.
    pub(super) fn store_in_this(&mut self, this: NodeId) -> bool {
        match self.this_owner(this) {
            ThisOwner::Class(class) => self.class_holds.insert(class),
            ThisOwner::Object(object) => match self.object_name(object) {
                Some(key) => self.mark_binding(key, true),
                None => false,
            },
            ThisOwner::Other(_) => false,
        }
    }

    /// The function whose `this` is meant at `id`: a class's method (or a field's
    /// initializer), an object literal's, or another.
    fn this_owner(&self, id: NodeId) -> ThisOwner {
        let ir = self.ir;
        let mut node = id;
        while let Some(parent) = ir.parent(node) {
            match ir.kind(parent) {
                Kind::Function {
                    kind: FunctionKind::Lambda,
                    ..
                } => {}
                Kind::Function { .. } => {
                    let Some(pair) = ir.parent(parent) else {
                        return ThisOwner::Other(Some(parent));
                    };
                    if !matches!(ir.kind(pair), Kind::Pair { value, .. } if value == parent) {
                        return ThisOwner::Other(Some(parent));
                    }
                    return match ir.parent(pair) {
                        Some(c) if matches!(ir.kind(c), Kind::Class { .. }) => ThisOwner::Class(c),
                        Some(o) if matches!(ir.kind(o), Kind::Collection { .. }) => {
                            ThisOwner::Object(o)
                        }
                        _ => ThisOwner::Other(Some(parent)),
                    };
                }
                Kind::Class { .. } => return ThisOwner::Class(parent),
                _ => {}
            }
            node = parent;
        }
        ThisOwner::Other(None)
    }

    /// The name an object literal is bound to where it is written (`const o = {...}`).
    fn object_name(&self, object: NodeId) -> Option<(ScopeId, Sym)> {
        let ir = self.ir;
        let (parent, child) = ir.context(object)?;
        let target = match ir.kind(parent) {
            Kind::Decl {
                target,
                value: Some(v),
                ..
            } if v == child => target,
            Kind::Assign { targets, value } if value == child && ir.list(targets).len() == 1 => {
                ir.list(targets)[0]
            }
            _ => return None,
        };
        let Kind::Bind(sym) = ir.kind(target) else {
            return None;
        };
        Some((self.scopes.bind_scope(target)?, sym))
    }

    fn mark_binding(&mut self, key: (ScopeId, Sym), keyed: bool) -> bool {
        self.some_holder = true;
        let binding = self.bindings.entry(key).or_default();
        if binding.taint.holds && (binding.taint.keyed || !keyed) {
            return false;
        }
        binding.taint.holds = true;
        binding.taint.keyed |= keyed;
        true
    }
}

/// The members a store target writes (`o.k`, `o[i]`), alone or inside a destructuring
/// pattern (`[o.k] = ...`, `({a: o.k} = ...)`, defaults and rests included).
pub(super) fn member_leaves(ir: &crate::analysis::ir::Ir, target: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut stack = vec![target];
    while let Some(t) = stack.pop() {
        match ir.kind(t) {
            Kind::TuplePattern { items } => stack.extend(ir.list(items).iter().copied()),
            Kind::ObjectPattern { entries } => stack.extend(ir.list(entries).iter().copied()),
            Kind::PatternEntry { target, .. } | Kind::DefaultTarget { target, .. } => {
                stack.push(target)
            }
            Kind::Rest(inner) => stack.push(inner),
            Kind::Attr { .. } | Kind::Index { .. } => out.push(t),
            _ => {}
        }
    }
    out
}

/// Whose `this` a `this` is: a class's, an object literal's, or that of another function
/// (or of the module).
enum ThisOwner {
    Class(NodeId),
    Object(NodeId),
    Other(Option<NodeId>),
}

/// True when `id` is written, not read: the target of an assignment, or the object of a
/// member that is.
fn is_assigned(ir: &crate::analysis::ir::Ir, mut id: NodeId) -> bool {
    loop {
        let Some(parent) = ir.parent(id) else {
            return false;
        };
        match ir.kind(parent) {
            Kind::Assign { targets, .. } => return ir.list(targets).contains(&id),
            Kind::Attr { object, .. } if object == id => id = parent,
            _ => return false,
        }
    }
}

/// Builtins that call only the functions given at these positions (`JSON.stringify(v,
/// replacer)`, `Array.from(items, map)`, `setTimeout(f, ms)`).
fn callback_positions(name: &str) -> Option<&'static [usize]> {
    Some(match name {
        "JSON.stringify" | "JSON.parse" | "Array.from" => &[1],
        "setTimeout" | "setInterval" | "setImmediate" | "queueMicrotask" | "process.nextTick" => {
            &[0]
        }
        "Object.fromEntries" | "Object.create" | "structuredClone" | "Promise.resolve"
        | "Promise.all" | "Promise.allSettled" | "Promise.race" | "Promise.any" => &[],
        _ => return None,
    })
}

/// Builtins that call none of the functions they are given (what they read of an object's
/// own methods, `toString` and the like, runs with no value of the caller's).
fn calls_nothing_given(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "String",
        "Number",
        "Boolean",
        "BigInt",
        "parseInt",
        "parseFloat",
        "isNaN",
        "isFinite",
        "encodeURIComponent",
        "decodeURIComponent",
        "encodeURI",
        "decodeURI",
        "Array.isArray",
        "Array.of",
        "Number.isInteger",
        "Number.isFinite",
        "Number.isNaN",
        "Object.keys",
        "Object.values",
        "Object.entries",
        "Object.freeze",
        "Object.isFrozen",
        "Object.getOwnPropertyNames",
        "Object.is",
    ];
    name.starts_with("console.") || name.starts_with("Math.") || NAMES.contains(&name)
}
