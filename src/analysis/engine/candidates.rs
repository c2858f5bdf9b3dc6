//! The few texts an expression may evaluate to, for reading the code a runner is given
//! (`timeit(f"{name}(data)")` for `name` in `("sort", "search")`): each template part, name
//! or `__name__` followed back to the values that may flow into it.

use super::meaning::{MAX_MEANINGS, Value};
use super::{Engine, MAX_FOLDED_LEN};
use crate::analysis::ir::{BinOp, CollectionKind, Kind, NodeId, Splat};

/// Deepest chain of names, loops and calls followed back.
const MAX_CANDIDATE_DEPTH: usize = 16;

impl<'a> Engine<'a> {
    /// The texts an expression may evaluate to, when there are a few and each is known: a
    /// template over a loop variable that takes constant values (`f"{f}(1)"` for `f` in
    /// `("a", "b")`), a function's `__name__`, a number (as `0`: its digits are no code), a
    /// parameter given only such values by the calls of its function.
    pub fn fold_candidates(&mut self, id: NodeId) -> Option<Vec<String>> {
        self.candidates_at(id, 0)
    }

    fn candidates_at(&mut self, id: NodeId, depth: usize) -> Option<Vec<String>> {
        if depth > MAX_CANDIDATE_DEPTH || !self.spend() {
            return None;
        }
        if let Some(one) = self.fold(id, 0) {
            return Some(vec![one.to_string()]);
        }
        let ir = self.ir;
        match ir.kind(id) {
            Kind::Paren(inner) => self.candidates_at(inner, depth + 1),
            Kind::Interp { value, spec, repr } => {
                if self.is_numeric(value) {
                    return Some(vec!["0".to_owned()]);
                }
                // `f"{b'x'}"` and `f"{t'x'}"` write the object's repr, not its text.
                let literal = matches!(ir.kind(value), Kind::Str { .. } | Kind::Template { .. });
                if spec || literal && !self.known_text(value, 0) {
                    return None;
                }
                let texts = self.candidates_at(value, depth + 1)?;
                if repr {
                    return texts
                        .iter()
                        .map(|t| crate::analysis::text::python_repr(t))
                        .collect();
                }
                Some(texts)
            }
            Kind::Template { parts } => {
                let mut texts = vec![String::new()];
                for &part in ir.list(parts) {
                    let options = self.candidates_at(part, depth + 1)?;
                    texts = product(&texts, &options)?;
                }
                Some(texts)
            }
            Kind::Binary {
                op: BinOp::Add,
                left,
                right,
            } => {
                let l = self.candidates_at(left, depth + 1)?;
                let r = self.candidates_at(right, depth + 1)?;
                product(&l, &r)
            }
            Kind::Name(_) if self.is_numeric(id) => Some(vec!["0".to_owned()]),
            Kind::Name(_) => {
                let mut texts = Vec::new();
                for source in self.value_sources(id, depth + 1)? {
                    if source == id || ir.is_construction(source) {
                        return None;
                    }
                    for text in self.candidates_at(source, depth + 1)? {
                        if !texts.contains(&text) {
                            texts.push(text);
                        }
                    }
                }
                (!texts.is_empty() && texts.len() <= MAX_MEANINGS).then_some(texts)
            }
            Kind::Attr { object, name } if self.name(name) == "__name__" => {
                self.function_names(object, depth + 1)
            }
            _ if self.is_numeric(id) => Some(vec!["0".to_owned()]),
            _ => None,
        }
    }

    /// The names of the functions an expression may be, when each is a plain `def` of the
    /// snippet and nothing rewrites a function's special attributes (`f.__name__ = ...`).
    fn function_names(&mut self, object: NodeId, depth: usize) -> Option<Vec<String>> {
        if self.rewrites.definitions {
            return None;
        }
        let mut texts = Vec::new();
        for source in self.value_sources(object, depth)? {
            let mut definitions = Vec::new();
            if matches!(self.ir.kind(source), Kind::Function { .. }) {
                definitions.push(source);
            } else {
                for m in self.resolve(source, 0).iter() {
                    match m.value {
                        Value::Local(node) if !m.held => definitions.push(node),
                        _ => return None,
                    }
                }
            }
            if definitions.is_empty() {
                return None;
            }
            for definition in definitions {
                let Kind::Function {
                    name: Some(n),
                    decorators,
                    ..
                } = self.ir.kind(definition)
                else {
                    return None;
                };
                let Kind::Bind(sym) = self.ir.kind(n) else {
                    return None;
                };
                if !self.ir.list(decorators).is_empty() {
                    return None;
                }
                let text = self.name(sym).to_owned();
                if !texts.contains(&text) {
                    texts.push(text);
                }
            }
        }
        (!texts.is_empty() && texts.len() <= MAX_MEANINGS).then_some(texts)
    }

    /// [`Engine::value_sources`] from the top.
    pub fn value_sources_of(&mut self, id: NodeId) -> Option<Vec<NodeId>> {
        self.value_sources(id, 0)
    }

    /// The expressions whose values may flow into `id`, following names back through their
    /// assignments, the items of the literal collections their loops take, and (for a
    /// parameter) the arguments of its function's calls; an expression that is no such name
    /// is its own source. `None` when some binding is of another kind, or leads too far.
    fn value_sources(&mut self, id: NodeId, depth: usize) -> Option<Vec<NodeId>> {
        if depth > MAX_CANDIDATE_DEPTH || !self.spend() {
            return None;
        }
        let id = self.ir.unparen(id);
        let Kind::Name(sym) = self.ir.kind(id) else {
            return Some(vec![id]);
        };
        if self.is_numeric(id) {
            return Some(vec![id]); // a number, whatever binds it
        }
        let lookup = self
            .scopes
            .lookup(sym, self.scopes.scope_of(id), self.dialect.declaring());
        if lookup.scopes.is_empty() {
            // Bound by earlier code, a builtin, or nothing.
            return self.fold(id, 0).map(|_| vec![id]);
        }
        let mut sources = Vec::new();
        for scope in lookup.scopes {
            if self.module_name_rewritten(scope, sym) {
                return None;
            }
            let binds = self.binds_of(scope, sym);
            if binds.is_empty() {
                return None;
            }
            for bind in binds {
                for source in self.bind_sources(bind, depth + 1)? {
                    if !sources.contains(&source) {
                        sources.push(source);
                    }
                }
                if sources.len() > MAX_MEANINGS {
                    return None;
                }
            }
        }
        Some(sources)
    }

    /// What one binding of a name gives it.
    fn bind_sources(&mut self, bind: NodeId, depth: usize) -> Option<Vec<NodeId>> {
        let ir = self.ir;
        let parent = ir.parent(bind)?;
        let flows_from = match ir.kind(parent) {
            Kind::Assign { targets, value } if ir.list(targets).contains(&bind) => vec![value],
            Kind::Walrus { target, value } if target == bind => vec![value],
            Kind::Decl {
                target,
                value: Some(value),
                ..
            } if target == bind => vec![value],
            Kind::For { .. } | Kind::CompFor { .. } if ir.loop_iterable(bind).is_some() => {
                self.items_of(ir.loop_iterable(bind)?, depth)?
            }
            Kind::Function { name: Some(n), .. } if n == bind => return Some(vec![parent]),
            Kind::Param { target } if target == bind => self.parameter_arguments(parent)?,
            Kind::DefaultTarget { target, .. } if target == bind => {
                let param = ir.parent(parent)?;
                matches!(ir.kind(param), Kind::Param { .. })
                    .then_some(())
                    .and_then(|_| self.parameter_arguments(param))?
            }
            _ => return None,
        };
        let mut sources = Vec::new();
        for value in flows_from {
            for source in self.value_sources(value, depth + 1)? {
                if !sources.contains(&source) {
                    sources.push(source);
                }
            }
        }
        Some(sources)
    }

    /// The items of a collection a loop takes: a literal list, tuple or set, or a name bound
    /// only to a literal tuple (which nothing can change).
    fn items_of(&mut self, iter: NodeId, depth: usize) -> Option<Vec<NodeId>> {
        let ir = self.ir;
        let iter = ir.unparen(iter);
        match ir.kind(iter) {
            Kind::Collection {
                kind: CollectionKind::List | CollectionKind::Tuple | CollectionKind::Set,
                items,
            } => {
                let items = ir.list(items);
                let spread = items.iter().any(|&i| {
                    matches!(ir.kind(i), Kind::Spread(_))
                        || matches!(ir.kind(i), Kind::Arg { splat, .. } if splat != Splat::None)
                });
                (!spread && items.len() <= MAX_MEANINGS).then(|| items.to_vec())
            }
            Kind::Name(_) => {
                let mut items = Vec::new();
                for source in self.value_sources(iter, depth + 1)? {
                    let source = ir.unparen(source);
                    let Kind::Collection {
                        kind: CollectionKind::Tuple,
                        ..
                    } = ir.kind(source)
                    else {
                        return None;
                    };
                    items.extend(self.items_of(source, depth + 1)?);
                }
                Some(items)
            }
            _ => None,
        }
    }
}

/// Every concatenation of one text from each list, if there are not too many and none is too
/// long.
fn product(left: &[String], right: &[String]) -> Option<Vec<String>> {
    if left.len() * right.len() > MAX_MEANINGS {
        return None;
    }
    let mut texts = Vec::new();
    for l in left {
        for r in right {
            if l.len() + r.len() > MAX_FOLDED_LEN {
                return None;
            }
            texts.push(format!("{l}{r}"));
        }
    }
    Some(texts)
}
