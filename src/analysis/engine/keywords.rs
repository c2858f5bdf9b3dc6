//! Keyword arguments as a call gives them: written out (`refcheck=False`), or from a `**`
//! mapping the analyzer can read (a dict display, `dict(...)`, a key stored later, a
//! function's `**kwargs` as its callers wrote them). A rule that judges a keyword by name
//! asks here, so that no spelling of the same keyword passes it by; where several values may
//! be given, the keyword is a value the analysis does not read.

use std::rc::Rc;

use super::Engine;
use crate::analysis::ir::{BinOp, Kind, NodeId, Splat, Sym};

impl<'a> Engine<'a> {
    /// The keyword argument `name=` of a call.
    pub fn keyword_arg(&mut self, call: NodeId, name: &str) -> Option<NodeId> {
        self.keyword_arg_within(call, name, 0)
    }

    fn keyword_arg_within(&mut self, call: NodeId, name: &str, depth: usize) -> Option<NodeId> {
        let ir = self.ir;
        let Kind::Call { args, .. } = ir.kind(call) else {
            return None;
        };
        let written = ir.list(args).iter().find_map(|&a| match ir.kind(a) {
            Kind::Arg {
                name: Some(n),
                value,
                ..
            } if self.name(n) == name => Some(value),
            _ => None,
        });
        if written.is_some() {
            return written; // Python refuses the same keyword twice in one call
        }
        let mut found = Vec::new();
        for &a in ir.list(args) {
            if let Kind::Arg {
                splat: Splat::Keywords,
                value,
                ..
            } = ir.kind(a)
            {
                self.splatted_keyword(value, name, depth, &mut found);
            }
        }
        Self::one_value(found)
    }

    /// The one value found, or, when several may be the one given (a key written twice, a
    /// mapping rebound, callers giving different values), the first place the keyword may be
    /// given from: a value the analysis does not read, which each rule judges as unknown.
    fn one_value(found: Vec<(NodeId, NodeId)>) -> Option<NodeId> {
        match found.as_slice() {
            [] => None,
            [(value, _)] => Some(*value),
            [(_, from), ..] => Some(*from),
        }
    }

    /// The value a mapping (a `**` argument, or one given whole: `artist.update({...})`)
    /// gives the key `name`.
    pub fn mapping_value(&mut self, mapping: NodeId, name: &str) -> Option<NodeId> {
        let mut found = Vec::new();
        self.splatted_keyword(mapping, name, 0, &mut found);
        Self::one_value(found)
    }

    /// Every value a `**` mapping may give the keyword `name`, each with the mapping it is
    /// given from: a key written in a dict display or `dict(...)`, stored under that key, or
    /// given by the callers of a function whose `**kwargs` it is, when its calls are all seen.
    /// Mappings whose keys cannot be read are denied as such (`keyword_splats`).
    fn splatted_keyword(
        &mut self,
        mapping: NodeId,
        name: &str,
        depth: usize,
        found: &mut Vec<(NodeId, NodeId)>,
    ) {
        const MAX_DEPTH: usize = 4;
        let ir = self.ir;
        let mapping = ir.unparen(mapping);
        if depth > MAX_DEPTH {
            return; // a mapping passed on round a recursion: its keys are its callers'
        }
        match ir.kind(mapping) {
            Kind::Collection { items, .. } => {
                for &item in ir.list(items) {
                    match ir.kind(item) {
                        Kind::Pair { key, value } if self.fold(key, 0).as_deref() == Some(name) => {
                            found.push((value, mapping));
                        }
                        Kind::Spread(inner) => self.splatted_keyword(inner, name, depth + 1, found),
                        _ => {}
                    }
                }
            }
            // `dict(a=1, **other)`, `dict(other)`
            Kind::Call { args, .. } => {
                for &arg in ir.list(args) {
                    match ir.kind(arg) {
                        Kind::Arg {
                            name: Some(n),
                            value,
                            ..
                        } if self.name(n) == name => found.push((value, mapping)),
                        Kind::Arg {
                            name: None, value, ..
                        } => self.splatted_keyword(value, name, depth + 1, found),
                        _ => {}
                    }
                }
            }
            Kind::Name(sym) => {
                // `kw["name"] = value` (anything else storing there: a value not read)
                for id in 0..ir.nodes.len() as NodeId {
                    if let Kind::Index { object, key } = ir.kind(id)
                        && matches!(ir.kind(ir.unparen(object)), Kind::Name(s) if s == sym)
                        && super::rewrites::is_store_target(self, id)
                        && self.fold(key, 0).as_deref() == Some(name)
                    {
                        let value = match ir.parent(id).map(|p| ir.kind(p)) {
                            Some(Kind::Assign { targets, value })
                                if ir.list(targets).contains(&id) =>
                            {
                                value
                            }
                            _ => id,
                        };
                        found.push((value, mapping));
                    }
                }
                let lookup = self.scopes.lookup(
                    sym,
                    self.scopes.scope_of(mapping),
                    self.dialect.declaring(),
                );
                let Some(&scope) = lookup.scopes.first() else {
                    return;
                };
                for bind in self.binds_of(scope, sym) {
                    let Some(construct) = super::scopes::binding_construct(ir, bind) else {
                        continue;
                    };
                    match ir.kind(construct) {
                        Kind::Assign { value, .. } => {
                            self.splatted_keyword(value, name, depth + 1, found);
                        }
                        // `def f(**kw)`: what its callers give it (when its calls are not
                        // all seen, `keyword_splats` denies the mapping in strict)
                        Kind::Param { .. } => {
                            let Some(calls) = self.keyword_parameter_calls(construct) else {
                                continue;
                            };
                            for &call in calls.iter() {
                                if let Some(value) = self.keyword_arg_within(call, name, depth + 1)
                                {
                                    found.push((value, mapping));
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }

    /// The calls of the function whose `**kwargs` parameter `param` is, when they are all
    /// seen: its keys are the keywords they give. `None` for any other parameter, and for a
    /// function called where the analysis does not see (a method, one handed on).
    pub fn keyword_parameter_calls(&mut self, param: NodeId) -> Option<Rc<[NodeId]>> {
        let ir = self.ir;
        if !matches!(ir.kind(param), Kind::Param { .. })
            || !self.source[ir.span(param).0..].starts_with("**")
        {
            return None;
        }
        self.calls_by_name(ir.parent(param)?)
    }

    /// Whether a mapping's name (as read at `at`) is used other than to be read, to have an
    /// item stored under a key, or to be given as `**`: aliased, handed to a function, put in
    /// a container, it may be changed where no store names it (`operator.setitem(kw, ...)`).
    pub fn mapping_handed_on(&mut self, sym: Sym, at: NodeId) -> bool {
        let lookup = self
            .scopes
            .lookup(sym, self.scopes.scope_of(at), self.dialect.declaring());
        let Some(&scope) = lookup.scopes.first() else {
            return true;
        };
        const READING_METHODS: &[&str] = &["get", "keys", "values", "items", "copy"];
        const READING_FUNCTIONS: &[&str] =
            &["print", "len", "str", "repr", "dict", "list", "sorted"];
        let ir = self.ir;
        (0..ir.nodes.len() as NodeId).any(|id| {
            if !matches!(ir.kind(id), Kind::Name(s) if s == sym) {
                return false;
            }
            let lookup = self
                .scopes
                .lookup(sym, self.scopes.scope_of(id), self.dialect.declaring());
            if lookup.scopes.first() != Some(&scope) {
                return false;
            }
            let Some(parent) = ir.parent(id) else {
                return true;
            };
            match ir.kind(parent) {
                Kind::Arg {
                    splat: Splat::Keywords,
                    ..
                }
                | Kind::Index { .. }
                | Kind::Interp { .. }
                | Kind::Compared
                | Kind::Binary {
                    op: BinOp::Compare,
                    ..
                } => false,
                Kind::Attr { name, .. } => !READING_METHODS.contains(&self.name(name)),
                Kind::Arg { .. } => !ir.parent(parent).is_some_and(|call| {
                    matches!(ir.kind(call), Kind::Call { callee, .. }
                        if self.names_of(callee).iter().any(|n| READING_FUNCTIONS.contains(&n.as_str())))
                }),
                _ => true,
            }
        })
    }

    /// The argument at `index`, or the keyword argument `name`.
    pub fn arg(&mut self, call: NodeId, index: usize, name: &str) -> Option<NodeId> {
        self.positional_args(call)
            .get(index)
            .copied()
            .or_else(|| self.keyword_arg(call, name))
    }
}
