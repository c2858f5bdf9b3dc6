//! JavaScript's computed lookups, followed to where they are called. `x[k]`, with `k` neither
//! a constant nor a number nor one of `x`'s own keys, and `x` something that may be a function,
//! may be `x.constructor`: `Function`, which turns text into code. Such a value "may be code";
//! what holds one (a container, an object it was stored in) "may hold code", and any member of
//! that may be code again. Names bound to them, what calls given them return, the parameters
//! they are passed to (callbacks' too) carry the same. A call of something that may be code is
//! what the strict policy denies; used as data (compared, printed, counted, copied, its
//! ordinary methods called) it reaches nothing.

use super::Engine;
use super::bindings::Source;
use crate::analysis::ir::{BinOp, Kind, NodeId, Splat};

/// Deepest expression the taint check follows.
const MAX_TAINT_DEPTH: usize = 24;

/// What a value may be, as far as computed lookups go.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Taint {
    /// The value itself may be `Function` (or a function made from text by it).
    pub is: bool,
    /// The value may hold one: a member or element of it may be.
    pub holds: bool,
}

impl Taint {
    const NONE: Taint = Taint {
        is: false,
        holds: false,
    };
    const IS: Taint = Taint {
        is: true,
        holds: false,
    };
    const HOLDS: Taint = Taint {
        is: false,
        holds: true,
    };

    pub fn any(self) -> bool {
        self.is || self.holds
    }

    fn or(self, other: Taint) -> Taint {
        Taint {
            is: self.is || other.is,
            holds: self.holds || other.holds,
        }
    }

    /// What a member or element of such a value may be.
    fn member(self) -> Taint {
        if self.holds { Taint::IS } else { Taint::NONE }
    }

    /// What putting such a value into a container makes of the container.
    fn stored(self) -> Taint {
        if self.any() {
            Taint::HOLDS
        } else {
            Taint::NONE
        }
    }
}

impl<'a> Engine<'a> {
    /// What the expression's value may be, as far as computed lookups go.
    pub fn taint(&mut self, id: NodeId) -> Taint {
        if self.dialect.index_reads_member() {
            self.taint_at(id, 0)
        } else {
            Taint::NONE
        }
    }

    /// True when calling the expression's value may run text as code.
    pub fn may_be_code(&mut self, id: NodeId) -> bool {
        self.taint(id).is
    }

    fn taint_at(&mut self, id: NodeId, depth: usize) -> Taint {
        if depth > MAX_TAINT_DEPTH {
            // Recursive functions reach this through their own parameters in ordinary code,
            // so failing closed here would deny them; parentheses no longer count (below).
            return Taint::NONE;
        }
        let ir = self.ir;
        let next = depth + 1;
        match ir.kind(id) {
            Kind::Index { object, .. } => {
                let member = self.taint_at(object, next).member();
                if self.is_computed_lookup(id) {
                    member.or(Taint::IS)
                } else {
                    member
                }
            }
            // `t.call`, `t.apply`, `t.bind(x)` are `t` itself, called; any other member of
            // `Function` reaches nothing (its `constructor` is an attribute no allowlist has).
            Kind::Attr { object, name } => {
                let owner = self.taint_at(object, next);
                let forwarded = matches!(self.name(name), "call" | "apply" | "bind") && owner.is;
                owner
                    .member()
                    .or(if forwarded { Taint::IS } else { Taint::NONE })
            }
            Kind::Name(sym) => {
                let lookup =
                    self.scopes
                        .lookup(sym, self.scopes.scope_of(id), self.dialect.declaring());
                lookup.scopes.iter().fold(Taint::NONE, |acc, scope| {
                    acc.or(self
                        .bindings
                        .get(&(*scope, sym))
                        .map_or(Taint::NONE, |b| b.taint))
                })
            }
            // Parentheses change nothing; their nesting is bounded by the syntax depth.
            Kind::Paren(inner) => self.taint_at(inner, depth),
            Kind::Spread(inner) => self.taint_at(inner, next).stored(),
            Kind::Walrus { value, .. } | Kind::Assign { value, .. } => self.taint_at(value, next),
            Kind::Cond { then, other, .. } => {
                self.taint_at(then, next).or(self.taint_at(other, next))
            }
            Kind::Binary {
                op: BinOp::Logical,
                left,
                right,
            } => self.taint_at(left, next).or(self.taint_at(right, next)),
            Kind::Seq { items } => match ir.list(items).last() {
                Some(&last) => self.taint_at(last, next),
                None => Taint::NONE,
            },
            Kind::Collection { items, .. } => {
                let mut taint = Taint::NONE;
                for item in ir.list(items).to_vec() {
                    let value = match ir.kind(item) {
                        Kind::Pair { value, .. } => value,
                        _ => item,
                    };
                    taint = taint.or(self.taint_at(value, next).stored());
                }
                taint
            }
            Kind::Call { callee, args, .. } => {
                // Calling what may be code makes code; calling a function given such a value may
                // hand it back.
                let mut taint = if self.taint_at(callee, next).is {
                    Taint::IS
                } else {
                    Taint::NONE
                };
                for &arg in ir.list(args) {
                    if let Kind::Arg { value, .. } = ir.kind(arg) {
                        let given = self.taint_at(value, next);
                        if given.any() {
                            taint = taint.or(given).or(Taint::IS);
                        }
                        // A callback's results become what the call returns, or its elements
                        // (`[n].map(s => P[s])[0]`).
                        if let Kind::Function { .. } = ir.kind(ir.unparen(value)) {
                            let returned = self.taint_of_returns(ir.unparen(value), next);
                            taint = taint.or(returned).or(returned.stored());
                        }
                    }
                }
                // What a function of the snippet returns.
                for m in self.resolve(callee, 0).to_vec() {
                    if let super::meaning::Value::Local(function) = m.value {
                        taint = taint.or(self.taint_of_returns(function, next));
                    }
                }
                taint
            }
            _ => Taint::NONE,
        }
    }

    /// What a function of the snippet may return, each function followed once per query.
    fn taint_of_returns(&mut self, function: NodeId, depth: usize) -> Taint {
        if self.taint_returns.contains(&function) {
            return Taint::NONE; // already being followed further up: nothing new here
        }
        self.taint_returns.push(function);
        let values = self.returns.get(&function).cloned().unwrap_or_default();
        let mut taint = Taint::NONE;
        for v in values {
            taint = taint.or(self.taint_at(v, depth));
        }
        self.taint_returns.pop();
        taint
    }

    /// `x[k]`: a lookup by a key that is neither constant, nor a number, nor one of `x`'s own
    /// keys, on something that is not plain data.
    pub fn is_computed_lookup(&mut self, id: NodeId) -> bool {
        let Kind::Index { object, key } = self.ir.kind(id) else {
            return false;
        };
        self.dialect.index_reads_member()
            && self.fold_key(key, 0).is_none()
            && !matches!(self.ir.kind(self.ir.unparen(key)), Kind::Slice { .. })
            && !self.is_numeric(key)
            && !self.is_plain_data(object)
            && !self.is_own_key(object, key)
    }

    /// `x.y = value`, `x[k] = value`: storing such a value in `x` makes `x` hold it.
    pub(super) fn taint_store(&mut self, target: NodeId, value: NodeId) -> bool {
        let ir = self.ir;
        if !matches!(ir.kind(target), Kind::Attr { .. } | Kind::Index { .. })
            || !self.taint(value).any()
        {
            return false;
        }
        self.taint_holder(target)
    }

    /// Marks the variable at the root of `target` (`m` of `m.a[0]`) as holding what may be code.
    fn taint_holder(&mut self, target: NodeId) -> bool {
        let ir = self.ir;
        let mut root = ir.unparen(target);
        while let Kind::Attr { object, .. } | Kind::Index { object, .. } = ir.kind(root) {
            root = ir.unparen(object);
        }
        let Kind::Name(sym) = ir.kind(root) else {
            return false;
        };
        let lookup = self
            .scopes
            .lookup(sym, self.scopes.scope_of(root), self.dialect.declaring());
        let mut changed = false;
        for scope in lookup.scopes {
            let binding = self.bindings.entry((scope, sym)).or_default();
            if !binding.taint.holds {
                binding.taint.holds = true;
                changed = true;
            }
        }
        changed
    }

    /// A call passes such values on: to the parameters of a function of the snippet it calls,
    /// and to the parameters of the callbacks it is given (`[t].map(f => f('...'))`).
    pub(super) fn taint_parameters(&mut self, call: NodeId) -> bool {
        let ir = self.ir;
        let Kind::Call { callee, args, .. } = ir.kind(call) else {
            return false;
        };
        let values: Vec<(NodeId, Splat)> = ir
            .list(args)
            .iter()
            .filter_map(|&a| match ir.kind(a) {
                Kind::Arg { value, splat, .. } => Some((value, splat)),
                _ => None,
            })
            .collect();
        let given: Vec<Taint> = values.iter().map(|&(v, _)| self.taint(v)).collect();
        let receiver = match ir.kind(callee) {
            Kind::Attr { object, .. } => self.taint(object),
            _ => Taint::NONE,
        };
        let mut changed = false;
        if given.iter().any(|t| t.any()) {
            let spread = values.iter().any(|(_, s)| *s != Splat::None);
            for m in self.resolve(callee, 0).to_vec() {
                if let super::meaning::Value::Local(function) = m.value
                    && let Kind::Function { params, .. } = ir.kind(function)
                {
                    for (i, &param) in ir.list(params).iter().enumerate() {
                        let taint = given.get(i).copied().unwrap_or_default();
                        if taint.any() || spread {
                            changed |= self.bind(param, Source::Tainted(taint.or(Taint::IS)));
                        }
                    }
                }
            }
        }
        let handed = given.iter().fold(receiver, |acc, t| acc.or(*t));
        if handed.any() {
            for &(value, _) in &values {
                if let Kind::Function { params, .. } = ir.kind(ir.unparen(value)) {
                    for &param in ir.list(params) {
                        changed |= self.bind(param, Source::Tainted(Taint::IS.or(handed)));
                    }
                }
            }
        }
        changed
    }
}
