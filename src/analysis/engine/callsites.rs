//! A parameter's values, read from the calls of its function: `def bench(name):
//! timeit(f"{name}(data)")` called as `bench("sort")` runs `sort(data)`.
//!
//! Sound only when every call is one the analysis sees, so the reading is refused unless:
//! the code is a whole program (not a session's call, which later calls could follow, nor
//! code run from text); the function is a plain `def` (no decorator), bound once, in a module
//! or function (a method is called through its object); every use of its name is a call of
//! it; nothing else names it (a string, an attribute, an import, a keyword: `globals()["f"]`,
//! `__main__.f`, text a runner runs); nothing reaches the snippet's namespaces or module
//! object, frames or function internals (`vars()`, `sys.modules[__name__]`, `__globals__`);
//! nothing rewrites a function's special attributes (`f.__defaults__ = ...`); it has no
//! `*args`/`**kwargs`, and no call passes `*`/`**` arguments.
//!
//! JavaScript, besides: the function is a declaration or a `const`/`let`/`var` bound once to
//! it, or a class's private method (`#m`), which only the class's code can name, every
//! `x.#m` being a call; the snippet names none of [`Dialect::call_stack_names`] (`arguments`, `caller`,
//! `callee`), by a name, a property or a key; every call is a plain call (a tagged template
//! passes the template's parts, not its text); a rest parameter hides only the parameters
//! from it on; a default is a value whatever a call passes (`undefined` selects it).
//!
//! [`Dialect::call_stack_names`]: crate::analysis::dialect::Dialect::call_stack_names

use std::rc::Rc;

use super::meaning::Value;
use super::{Engine, Role};
use crate::analysis::ir::{Kind, NodeId, Splat};

impl<'a> Engine<'a> {
    /// The expressions the calls of a parameter's function give it (its default where a
    /// call leaves it out), when every call is known.
    pub(super) fn parameter_arguments(&mut self, param: NodeId) -> Option<Vec<NodeId>> {
        let ir = self.ir;
        let function = ir.parent(param)?;
        let Kind::Function { params, .. } = ir.kind(function) else {
            return None;
        };
        let params = ir.list(params);
        let index = params.iter().position(|&p| p == param)?;
        let name = self.parameter_name(param)?;
        let default = match ir.kind(self.param_target(param)) {
            Kind::DefaultTarget { default, .. } => Some(default),
            _ => None,
        };
        if params
            .iter()
            .enumerate()
            .any(|(i, &p)| self.hides_parameter(p, i, index))
        {
            return None;
        }
        let calls = self.calls_by_name(function)?;
        let mut values = Vec::new();
        for &call in calls.iter() {
            let Kind::Call { args, .. } = ir.kind(call) else {
                return None;
            };
            let mut positional = 0;
            let mut given = None;
            for &arg in ir.list(args) {
                let Kind::Arg {
                    name: keyword,
                    value,
                    splat,
                } = ir.kind(arg)
                else {
                    return None;
                };
                if splat != Splat::None {
                    return None;
                }
                match keyword {
                    Some(k) if self.name(k) == name => given = Some(value),
                    Some(_) => {}
                    None => {
                        if positional == index {
                            given = given.or(Some(value));
                        }
                        positional += 1;
                    }
                }
            }
            // A call that gives the parameter nothing and has no default fails before the
            // body runs (Python) or gives `undefined`, which names no path, module or member
            // (JavaScript). JavaScript takes the default for any `undefined` given too.
            if self.dialect.undefined_takes_default()
                && let (Some(_), Some(default)) = (given, default)
            {
                values.push(default);
            }
            if let Some(value) = given.or(default) {
                values.push(value);
            }
        }
        Some(values)
    }

    /// The calls of a function, when it is only ever called by its name (see the module
    /// documentation for what else must hold).
    pub(super) fn calls_by_name(&mut self, function: NodeId) -> Option<Rc<[NodeId]>> {
        if let Some(known) = self.calls_of.get(&function) {
            return known.clone();
        }
        let found = self.find_calls_by_name(function).map(Rc::from);
        self.calls_of.insert(function, found.clone());
        found
    }

    fn find_calls_by_name(&mut self, function: NodeId) -> Option<Vec<NodeId>> {
        if self.role != Role::Program
            || !self.dialect.reads_parameters_from_calls()
            || self.rewrites.module_names()
            || self.rewrites.definitions
        {
            return None;
        }
        let ir = self.ir;
        let Kind::Function { decorators, .. } = ir.kind(function) else {
            return None;
        };
        let call_stack = self.dialect.call_stack_names();
        // A function with no name called right where it is written (`(function (a) {...})(x)`)
        // has that one call.
        if let Kind::Function { name: None, .. } = ir.kind(function)
            && let Some((call, callee)) = ir.context(function)
            && is_callee(ir.kind(call), callee)
        {
            let names_call_stack = (0..ir.nodes.len() as NodeId).any(|id| {
                matches!(ir.kind(id), Kind::Name(s) | Kind::Bind(s)
                    if call_stack.contains(&self.name(s)))
            });
            return (!names_call_stack && self.is_plain_call(call)).then(|| vec![call]);
        }
        if let Some(private) = self.private_method_name(function) {
            return self.private_method_calls(private);
        }
        let bind = self.function_binding(function)?;
        let Kind::Bind(sym) = ir.kind(bind) else {
            return None;
        };
        let scope = self.scopes.bind_scope(bind)?;
        let name = self.name(sym);
        let in_module_or_function = matches!(
            self.scopes.kind(scope),
            super::scopes::ScopeKind::Module | super::scopes::ScopeKind::Function(_)
        );
        if !ir.list(decorators).is_empty()
            || !in_module_or_function
            || name.starts_with("__")
            || self.binds_of(scope, sym) != [bind]
        {
            return None;
        }
        let tables = self.dialect.tables();
        let mut calls = Vec::new();
        for id in 0..ir.nodes.len() as NodeId {
            match ir.kind(id) {
                Kind::Name(s) | Kind::Bind(s) if call_stack.contains(&self.name(s)) => {
                    return None;
                }
                Kind::Index { key, .. }
                    if !call_stack.is_empty()
                        && self
                            .fold_key(key, 0)
                            .is_some_and(|k| *k == *name || call_stack.contains(&&*k)) =>
                {
                    return None;
                }
                Kind::Name(s) if s == sym => {
                    let lookup =
                        self.scopes
                            .lookup(s, self.scopes.scope_of(id), self.dialect.declaring());
                    if !lookup.scopes.contains(&scope) {
                        continue;
                    }
                    match ir.context(id) {
                        Some((call, callee))
                            if is_callee(ir.kind(call), callee) && self.is_plain_call(call) =>
                        {
                            calls.push(call)
                        }
                        // `export { f }` of a snippet nothing imports.
                        _ if self.is_unimported_export(id) => {}
                        _ => return None,
                    }
                    continue;
                }
                Kind::Str { text: None, .. } => return None,
                Kind::Str { .. } => {
                    if ir.str_value(id).is_some_and(|s| s.contains(name)) {
                        return None;
                    }
                    continue;
                }
                Kind::Attr { name: attr, .. } => {
                    let attr = self.name(attr);
                    if attr == name
                        || tables.introspection_attributes.contains(&attr)
                        || call_stack.contains(&attr)
                    {
                        return None;
                    }
                }
                Kind::ImportItem {
                    imported: Some(t), ..
                } if ir.text(t) == name => return None,
                Kind::Arg { name: Some(k), .. } if self.name(k) == name => return None,
                _ => {}
            }
            if !matches!(
                ir.kind(id),
                Kind::Name(_) | Kind::Attr { .. } | Kind::Call { .. } | Kind::Index { .. }
            ) {
                continue;
            }
            let reaches_internals = self.resolve(id, 0).to_vec().into_iter().any(|m| {
                self.own_state(m.value).is_some()
                    || matches!(m.value, Value::Name(p)
                        if tables.introspection_names.contains(&self.paths.text(p)))
            });
            if reaches_internals && !super::rewrites::given_to_a_runner(self, id) {
                return None;
            }
        }
        // No call at all: the body never runs, and its parameters take no value.
        Some(calls)
    }

    /// A JavaScript class's private method (`#swap(i, j) {}`), by its name, when no other
    /// class member of the snippet has that name (a nested class's `#swap` is another).
    fn private_method_name(&self, function: NodeId) -> Option<&'a str> {
        let ir = self.ir;
        let (pair, child) = ir.context(function)?;
        let Kind::Pair { key, value } = ir.kind(pair) else {
            return None;
        };
        let class = ir.parent(pair)?;
        if value != child || !matches!(ir.kind(class), Kind::Class { .. }) {
            return None;
        }
        let name = ir.str_value(key).filter(|n| n.starts_with('#'))?;
        let declared = (0..ir.nodes.len() as NodeId)
            .filter(|&id| match ir.kind(id) {
                Kind::Class { body, .. } => ir.list(body).iter().any(|&item| {
                    let (start, end) = ir.span(item);
                    self.source[start..end].contains(name)
                }),
                _ => false,
            })
            .count();
        (declared == 1).then_some(name)
    }

    /// The calls of a private method: only its class's code can name it (`this.#m`), so when
    /// every such name is the callee of a plain call, and nothing reaches the call stack,
    /// those are all its calls.
    fn private_method_calls(&mut self, private: &str) -> Option<Vec<NodeId>> {
        let ir = self.ir;
        let call_stack = self.dialect.call_stack_names();
        let mut calls = Vec::new();
        for id in 0..ir.nodes.len() as NodeId {
            match ir.kind(id) {
                Kind::Name(s) | Kind::Bind(s) if call_stack.contains(&self.name(s)) => {
                    return None;
                }
                Kind::Attr { name, .. } if call_stack.contains(&self.name(name)) => return None,
                Kind::Attr { name, .. } if self.name(name) == private => match ir.context(id) {
                    Some((call, callee))
                        if is_callee(ir.kind(call), callee) && self.is_plain_call(call) =>
                    {
                        calls.push(call)
                    }
                    _ => return None,
                },
                _ => {}
            }
        }
        Some(calls)
    }

    /// The name a function is bound to, when one binding gives it its name: its definition
    /// (`def f`, `function f`) or a declaration of it (`const f = (p) => ...`).
    pub(super) fn function_binding(&self, function: NodeId) -> Option<NodeId> {
        let ir = self.ir;
        if let Kind::Function {
            name: Some(bind), ..
        } = ir.kind(function)
        {
            return Some(bind);
        }
        let (parent, child) = ir.context(function)?;
        match ir.kind(parent) {
            Kind::Decl {
                target,
                value: Some(value),
                ..
            } if value == child => Some(target),
            _ => None,
        }
    }

    /// A call whose arguments are the ones written in it: not a tagged template, which is
    /// called with the template's parts.
    fn is_plain_call(&self, call: NodeId) -> bool {
        let Kind::Call { callee, .. } = self.ir.kind(call) else {
            return false;
        };
        let (_, callee_end) = self.ir.span(callee);
        let (_, call_end) = self.ir.span(call);
        let rest = self.source[callee_end..call_end].trim_start();
        rest.is_empty() || rest.starts_with('(') || rest.starts_with("?.(")
    }

    /// The name a parameter is passed by, as a keyword.
    fn parameter_name(&self, param: NodeId) -> Option<&'a str> {
        let target = match self.ir.kind(self.param_target(param)) {
            Kind::DefaultTarget { target, .. } => target,
            _ => self.param_target(param),
        };
        match self.ir.kind(target) {
            Kind::Bind(sym) => Some(self.name(sym)),
            _ => None,
        }
    }

    fn param_target(&self, param: NodeId) -> NodeId {
        match self.ir.kind(param) {
            Kind::Param { target } => target,
            _ => param,
        }
    }

    /// True when some parameter of `function` keeps the one at `index` from being read.
    pub(super) fn hides_parameter_at(&self, function: NodeId, index: usize) -> bool {
        let Kind::Function { params, .. } = self.ir.kind(function) else {
            return true;
        };
        self.ir
            .list(params)
            .iter()
            .enumerate()
            .any(|(i, &p)| self.hides_parameter(p, i, index))
    }

    /// True when the parameter at `position` keeps the one at `index` from being read: a
    /// Python `*args` or `**kwargs` anywhere (keywords and packing move every other), a
    /// JavaScript `...rest` at or before it (the lowering keeps only the name; the source
    /// shows the star or the dots).
    fn hides_parameter(&self, param: NodeId, position: usize, index: usize) -> bool {
        let (start, _) = self.ir.span(param);
        let source = &self.source[start..];
        source.starts_with('*') || (source.starts_with("...") && position <= index)
    }
}

fn is_callee(call: Kind, child: NodeId) -> bool {
    matches!(call, Kind::Call { callee, .. } if callee == child)
}
