//! The functions of the snippet that a call the analysis does not resolve may run, for the
//! tracing of values that may be code (see [`holders`](super::holders)). A call that hands
//! such a value to something other than a function of the snippet the analysis resolves, or
//! a builtin, may be calling any function of the snippet that is not only ever called by its
//! name (a method, a callback, a function kept in an object): their parameters may be the
//! value. A builtin calls only the functions it is given. Proving a function is only called
//! by name (printed, exported from a snippet nothing imports) keeps ordinary code out of
//! that set.

use std::rc::Rc;

use super::Engine;
use super::bindings::Source;
use super::meaning::Value;
use super::scopes::ScopeId;
use super::taint::Taint;
use crate::analysis::ir::{Kind, NodeId, Sym};

impl<'a> Engine<'a> {
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

    /// True when every meaning of the callee is a function of a module or a global (a
    /// builtin), not one of the snippet's.
    fn is_builtin_callee(&mut self, callee: NodeId) -> bool {
        let callees = self.resolve(callee, 0);
        !callees.is_empty()
            && callees
                .iter()
                .all(|m| !m.held && matches!(m.value, Value::Name(_) | Value::Module(_)))
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
