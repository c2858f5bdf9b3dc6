//! Where a value that may be code (see [`taint`](super::taint)) goes besides names: the
//! objects that keep it. Together with [`this_holders`](super::this_holders) (what `this`
//! holds) and [`unseen_calls`](super::unseen_calls) (the functions a call the analysis does
//! not resolve may hand it to), each place is followed where the analysis can see all of it,
//! and reported where it cannot, so no such value reaches a call unseen.
//!
//! An object keeps the value when it is stored in a member (`o.k = t`, `o[i] = t`) or handed
//! to a built-in method that keeps it (`a.push(t)`, `m.set(k, t)`). The object is followed
//! back to every name that may hold it: a name bound only to fresh objects (`{}`, `[]`,
//! `new Map()`) or to other such names, a parameter given only such names by every call. All
//! of them hold the value; anything else (a member of another object, a call's result, a
//! parameter of a function called from where the analysis does not see) is reported. The same
//! walk, asked for data only, proves a name never holds a function (see
//! [`Engine::holds_only_data`]).

use super::Engine;
use super::scopes::ScopeId;
use crate::analysis::dialect::FreeName;
use crate::analysis::ir::{BinOp, CollectionKind, Kind, NodeId, Sym};

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
pub(super) const ITERATING: &[&str] = &[
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

    pub(super) fn mark_binding(&mut self, key: (ScopeId, Sym), keyed: bool) -> bool {
        self.some_holder = true;
        let binding = self.bindings.entry(key).or_default();
        if binding.taint.holds && (binding.taint.keyed || !keyed) {
            return false;
        }
        binding.taint.holds = true;
        binding.taint.keyed |= keyed;
        true
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
            return self.this_keeps_unseen(object);
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

    /// The members a store target writes (see [`member_leaves`]).
    pub fn stored_members(&self, target: NodeId) -> Vec<NodeId> {
        member_leaves(self.ir, target)
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
