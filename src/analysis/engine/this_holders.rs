//! What `this` holds, for the tracing of values that may be code (see
//! [`holders`](super::holders)). A `this` is an object the analysis cannot name, so what is
//! stored in it is followed to where that object may be read again: in a class's method,
//! every instance of the class does (and the class, for its static methods); in an object
//! literal's method, that object. Elsewhere a store in `this` is reported. `this` may be any
//! object that holds such a value once one is passed as a `this` (`f.call(t)`) or some
//! object holds one.

use super::Engine;
use super::bindings::Source;
use super::holders::ITERATING;
use super::scopes::ScopeId;
use super::taint::Taint;
use crate::analysis::ir::{FunctionKind, Kind, NodeId, Sym};

impl<'a> Engine<'a> {
    /// True when a store in `this` may be kept where the taint does not follow: `this` is
    /// not a class's or a named object literal's, or it was not marked as holding.
    pub(super) fn this_keeps_unseen(&mut self, this: NodeId) -> bool {
        match self.this_owner(this) {
            ThisOwner::Class(class) => !self.class_holds.contains(&class),
            ThisOwner::Object(o) => !self
                .object_name(o)
                .and_then(|key| self.bindings.get(&key))
                .is_some_and(|b| b.taint.holds),
            ThisOwner::Other(_) => true,
        }
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
    pub(super) fn extends(&self, class: NodeId) -> bool {
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

    /// The function a call runs with a `this` taken from its arguments, and that argument:
    /// `f.call(x)`, `f.apply(x)`, `f.bind(x)`, `a.map(f, x)`, `Array.from(a, f, x)`.
    pub(super) fn given_this(
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
    pub(super) fn give_this(&mut self, function: NodeId, given: Taint) -> bool {
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
}

/// Whose `this` a `this` is: a class's, an object literal's, or that of another function
/// (or of the module).
enum ThisOwner {
    Class(NodeId),
    Object(NodeId),
    Other(Option<NodeId>),
}
