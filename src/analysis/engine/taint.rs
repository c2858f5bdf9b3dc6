//! JavaScript's computed lookups, followed to where they are called. `x[k]`, with `k` neither
//! a constant nor a number nor one of `x`'s own keys, and `x` something that may be a function,
//! may be `x.constructor`: `Function`, which turns text into code. Such a value "may be code";
//! what holds one (a container, an object it was stored in) "may hold code", and any member of
//! that may be code again. Names bound to them, what calls given them return, the parameters
//! they are passed to (callbacks' too) carry the same. A call of something that may be code is
//! what the strict policy denies; used as data (compared, printed, counted, copied, its
//! ordinary methods called) it reaches nothing.
//!
//! What a function of the snippet returns is learned with the bindings, once per round, and
//! a call reads that: following a function's returns from each of its calls would follow a
//! recursive function's calls of itself along every path, a cost exponential in its depth.
//! So one expression's taint looks only at the expression itself, its names' bindings and
//! those summaries.

use super::bindings::Source;
use super::{Engine, MAX_EXPR_DEPTH};
use crate::analysis::ir::{BinOp, CollectionKind, Kind, NodeId, Splat};

/// How deep a key's expression is followed to show it holds a number's digits.
const MAX_KEY_DEPTH: usize = 8;

/// What a value may be, as far as computed lookups go.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Taint {
    /// The value itself may be `Function` (or a function made from text by it).
    pub is: bool,
    /// The value may hold one: a member or element of it may be, or hold one in turn.
    pub holds: bool,
    /// The value may be a function whose calls return one (or what holds one).
    pub gives: bool,
    /// What it holds may be under any key, a name too (`o[k] = t`, `{a: t}`), not only under
    /// an index (`a[i] = t` with a key holding digits, `a.push(t)`, `[t]`): a member read by
    /// its name (`a.push`, `o.a`) may then be one.
    pub keyed: bool,
}

impl Taint {
    const NONE: Taint = Taint {
        is: false,
        holds: false,
        gives: false,
        keyed: false,
    };
    pub(super) const IS: Taint = Taint {
        is: true,
        holds: false,
        gives: false,
        keyed: false,
    };
    pub(super) const HOLDS: Taint = Taint {
        is: false,
        holds: true,
        gives: false,
        keyed: true,
    };
    /// Holds such a value only under indices (see [`Taint::keyed`]).
    pub(super) const ELEMENTS: Taint = Taint {
        is: false,
        holds: true,
        gives: false,
        keyed: false,
    };
    pub(super) const GIVES: Taint = Taint {
        is: false,
        holds: false,
        gives: true,
        keyed: false,
    };
    /// What a value the analysis did not follow may be.
    pub(super) const ANY: Taint = Taint {
        is: true,
        holds: true,
        gives: true,
        keyed: true,
    };

    pub fn any(self) -> bool {
        self.is || self.holds || self.gives
    }

    pub(super) fn or(self, other: Taint) -> Taint {
        Taint {
            is: self.is || other.is,
            holds: self.holds || other.holds,
            gives: self.gives || other.gives,
            keyed: self.keyed || other.keyed,
        }
    }

    /// What a member or element of such a value may be: what it holds may be code, hold code
    /// in turn (`[[t]]`, `{a: {t}}`) or return it (a method).
    pub(super) fn member(self) -> Taint {
        if self.holds { Taint::ANY } else { Taint::NONE }
    }

    /// What a member read by its name may be (`a.push`, `o.a`): anything, when what it holds
    /// may be under a name; when it holds such values only under indices, a builtin's method
    /// (or one the snippet added to a prototype) whose calls may hand them back.
    pub(super) fn named_member(self) -> Taint {
        match (self.keyed, self.holds) {
            (true, _) => Taint::ANY,
            (false, true) => Taint::GIVES,
            (false, false) => Taint::NONE,
        }
    }

    /// What putting such a value into a list as an element makes of the list.
    pub(super) fn stored_as_element(self) -> Taint {
        if self.any() {
            Taint::ELEMENTS
        } else {
            Taint::NONE
        }
    }

    /// What putting such a value into a container makes of the container.
    pub(super) fn stored(self) -> Taint {
        if self.any() {
            Taint::HOLDS
        } else {
            Taint::NONE
        }
    }

    /// What calling such a value returns.
    fn called(self) -> Taint {
        match (self.is, self.gives) {
            (_, true) => Taint::ANY,
            (true, false) => Taint::IS,
            (false, false) => Taint::NONE,
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
        // The walk stays inside one expression, so only nesting makes it deep; what it did not
        // follow may be anything, and is reported.
        if depth > MAX_EXPR_DEPTH {
            self.record_too_deep(id);
            return Taint::ANY;
        }
        if !self.spend() {
            return Taint::ANY;
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
                // `NaN` and `Infinity` are the names of keys that are numbers.
                let mut member = if matches!(self.name(name), "NaN" | "Infinity") {
                    owner.member()
                } else {
                    owner.named_member()
                };
                // A getter the snippet defines may hand back an element (`get y() { return
                // this[0]; }` on a prototype), so the member itself may be one.
                if member.gives && !owner.keyed && self.may_define_accessors() {
                    member = member.or(Taint::IS);
                }
                member.or(if forwarded { Taint::IS } else { Taint::NONE })
            }
            Kind::Name(sym) => {
                let lookup =
                    self.scopes
                        .lookup(sym, self.scopes.scope_of(id), self.dialect.declaring());
                // A global object (`module`, `window`) a member of which was given such a value.
                if lookup.scopes.is_empty()
                    && (self.global_holder || self.global_holders.contains(&sym))
                {
                    return Taint::ANY;
                }
                lookup.scopes.iter().fold(Taint::NONE, |acc, scope| {
                    acc.or(self
                        .bindings
                        .get(&(*scope, sym))
                        .map_or(Taint::NONE, |b| b.taint))
                })
            }
            Kind::This => self.this_taint(id, next),
            // A function gives what its `return`s give; a class's instances hold what its
            // methods return or store in `this`.
            Kind::Function { .. } if self.returned_taint(id).any() => Taint::GIVES,
            Kind::Class { .. } => self.class_taint(id),
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
            Kind::Collection { kind, items } => {
                let mut taint = Taint::NONE;
                for item in ir.list(items).to_vec() {
                    let value = match ir.kind(item) {
                        Kind::Pair { value, .. } => value,
                        _ => item,
                    };
                    let held = self.taint_at(value, next);
                    // An array literal's items are its elements; an object's are named.
                    taint = taint.or(if kind == CollectionKind::List {
                        held.stored_as_element()
                    } else {
                        held.stored()
                    });
                }
                taint
            }
            Kind::Call { callee, args, .. } => {
                let call_id = id;
                // A builtin that makes a number, a text or a truth value of its arguments hands
                // none of them back.
                let names = self.names_of(callee);
                if !names.is_empty() && names.iter().all(|n| self.dialect.returns_primitive(n)) {
                    return Taint::NONE;
                }
                // Calling what may be code makes code; calling a function given such a value may
                // hand it back.
                let mut taint = self.taint_at(callee, next).called();
                for &arg in ir.list(args) {
                    if let Kind::Arg { value, .. } = ir.kind(arg) {
                        let given = self.arg_taint(call_id, value, next);
                        if given.any() {
                            taint = taint.or(given).or(Taint::IS);
                        }
                        // What a call does with what it is given may put it under any name
                        // (`Object.fromEntries([['x', t]])`).
                        if given.holds {
                            taint = taint.or(Taint::HOLDS);
                        }
                        // A callback's results become what the call returns, or its elements
                        // (`[n].map(s => P[s])[0]`).
                        if let Kind::Function { .. } = ir.kind(ir.unparen(value)) {
                            let returned = self.returned_taint(ir.unparen(value));
                            taint = taint.or(returned).or(returned.stored());
                        }
                    }
                }
                // What a function of the snippet returns; a new instance of its class.
                for m in self.resolve(callee, 0).to_vec() {
                    if let super::meaning::Value::Local(local) = m.value {
                        taint = taint.or(match ir.kind(local) {
                            Kind::Class { .. } => self.class_taint(local),
                            _ => self.returned_taint(local),
                        });
                    }
                }
                if let Kind::Name(_) = ir.kind(ir.unparen(callee)) {
                    for function in self.callee_functions(callee).unwrap_or_default() {
                        taint = taint.or(self.returned_taint(function));
                    }
                }
                taint
            }
            _ => Taint::NONE,
        }
    }

    /// What an argument hands the callee: its value, or for a tagged template
    /// (`` tag`${t}` ``) what its substitutions are.
    fn arg_taint(&mut self, call: NodeId, value: NodeId, depth: usize) -> Taint {
        if !self.is_tagged_template(call, value) {
            return self.taint_at(value, depth);
        }
        let ir = self.ir;
        let Kind::Template { parts } = ir.kind(value) else {
            return Taint::NONE;
        };
        let mut taint = Taint::NONE;
        for part in ir.list(parts).to_vec() {
            if let Kind::Interp { value, .. } = ir.kind(part) {
                taint = taint.or(self.taint_at(value, depth + 1));
            }
        }
        taint
    }

    /// True when `value` is the template a tag is called with: no parenthesis between the
    /// callee and it.
    fn is_tagged_template(&self, call: NodeId, value: NodeId) -> bool {
        let ir = self.ir;
        let (Kind::Call { callee, .. }, Kind::Template { .. }) = (ir.kind(call), ir.kind(value))
        else {
            return false;
        };
        let (_, callee_end) = ir.span(callee);
        let (value_start, _) = ir.span(value);
        callee_end <= value_start
            && self
                .source
                .get(callee_end..value_start)
                .is_some_and(|between| !between.contains('('))
    }

    /// `taint_at` for the holders' queries, which go on from `depth`.
    pub(super) fn taint_at_depth(&mut self, id: NodeId, depth: usize) -> Taint {
        self.taint_at(id, depth)
    }

    /// True when the snippet may define an accessor: a getter (`get y() {}`), or a way to
    /// give an object one or a prototype that has one (`Object.defineProperty`,
    /// `__defineGetter__`, `Proxy`, `Reflect`, `Object.create`, `__proto__`).
    fn may_define_accessors(&mut self) -> bool {
        if let Some(known) = self.accessors {
            return known;
        }
        const WAYS: &[&str] = &[
            "defineProperty",
            "defineProperties",
            "__defineGetter__",
            "__lookupGetter__",
            "Proxy",
            "Reflect",
            "setPrototypeOf",
            "__proto__",
            "create",
        ];
        let text = self.source;
        let bytes = text.as_bytes();
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
        let getter = text.match_indices("get").any(|(at, _)| {
            if at > 0 && word(bytes[at - 1]) {
                return false;
            }
            let rest = &text[at + 3..];
            let trimmed = rest.trim_start();
            if trimmed.len() == rest.len() {
                return false; // `get(`, `getter`: no getter
            }
            if trimmed.starts_with('[') {
                return true;
            }
            let name_len = trimmed.bytes().take_while(|&b| word(b)).count();
            name_len > 0 && trimmed[name_len..].trim_start().starts_with('(')
        });
        let known = getter || WAYS.iter().any(|w| text.contains(w));
        self.accessors = Some(known);
        known
    }

    /// What the values a function returns may be, as learned so far.
    pub(super) fn returned_taint(&self, function: NodeId) -> Taint {
        self.returned_taint
            .get(&function)
            .copied()
            .unwrap_or_default()
    }

    /// Learns what a function's `return` values may be; true if that is new.
    pub(super) fn taint_returns(&mut self, function: NodeId) -> bool {
        let values = self.returns.get(&function).cloned().unwrap_or_default();
        let mut taint = Taint::NONE;
        for v in values {
            taint = taint.or(self.taint(v));
        }
        // A generator's calls give an iterator holding what it yields.
        for v in self.yields.get(&function).cloned().unwrap_or_default() {
            taint = taint.or(self.taint(v).stored());
        }
        let known = self.returned_taint(function);
        if known.or(taint) == known {
            return false;
        }
        self.returned_taint.insert(function, known.or(taint));
        true
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
            && !self.keys_are_plain(key)
            && !self.key_holds_digits(key, 0)
            && !self.flows_only_plain_data(object)
            && !self.holds_only_data(object)
            && !self.is_data_field_of_this(object)
    }

    /// A key that is one of a few known texts, none of which names a function's internals
    /// (a parameter every call gives a plain name: `bindKey(obj, 'greet')`).
    fn keys_are_plain(&mut self, key: NodeId) -> bool {
        const SPECIAL: &[&str] = &[
            "constructor",
            "__proto__",
            "prototype",
            "caller",
            "callee",
            "arguments",
            "call",
            "apply",
            "bind",
        ];
        let key = self.ir.unparen(key);
        matches!(self.ir.kind(key), Kind::Name(_))
            && self.fold_candidates(key).is_some_and(|keys| {
                !keys.is_empty()
                    && keys
                        .iter()
                        .all(|k| !SPECIAL.contains(&k.as_str()) && !k.starts_with("__"))
            })
    }

    /// A key whose text, whatever it is, holds a number's (`i + 1`, `` `row${n}` ``, a name
    /// only such keys flow into): digits, `NaN` or `Infinity`, which no name of a function's
    /// internals (`constructor`, `__proto__`, `caller`, ...) contains, so it reaches none.
    pub(super) fn key_holds_digits(&mut self, key: NodeId, depth: usize) -> bool {
        if depth > MAX_KEY_DEPTH || self.is_numeric(key) {
            return depth <= MAX_KEY_DEPTH;
        }
        let ir = self.ir;
        let key = ir.unparen(key);
        match ir.kind(key) {
            // Concatenation keeps both texts whole; an addition of numbers is a number.
            Kind::Binary {
                op: BinOp::Add,
                left,
                right,
            } => self.key_holds_digits(left, depth + 1) || self.key_holds_digits(right, depth + 1),
            Kind::Template { parts } => {
                ir.list(parts)
                    .to_vec()
                    .into_iter()
                    .any(|part| match ir.kind(part) {
                        Kind::Interp { value, .. } => self.key_holds_digits(value, depth + 1),
                        Kind::Str { .. } => ir
                            .str_value(part)
                            .is_some_and(|t| t.bytes().any(|b| b.is_ascii_digit())),
                        _ => false,
                    })
            }
            Kind::Str { .. } => ir
                .str_value(key)
                .is_some_and(|t| t.bytes().any(|b| b.is_ascii_digit())),
            Kind::Name(sym) => {
                let lookup =
                    self.scopes
                        .lookup(sym, self.scopes.scope_of(key), self.dialect.declaring());
                if lookup.scopes.is_empty() {
                    return false;
                }
                for scope in lookup.scopes {
                    let binds = self.binds_of(scope, sym);
                    if binds.is_empty() {
                        return false;
                    }
                    for bind in binds {
                        if !self.bind_holds_digits(bind, depth + 1) {
                            return false;
                        }
                    }
                }
                true
            }
            _ => false,
        }
    }

    /// What one binding of a key's name gives it holds a number's digits: a value that does,
    /// `i++` (a number), `i += v` with such a `v` (added or joined, or `NaN`), a parameter
    /// every call gives such a value.
    fn bind_holds_digits(&mut self, bind: NodeId, depth: usize) -> bool {
        let ir = self.ir;
        let Some(parent) = ir.parent(bind) else {
            return false;
        };
        let values = match ir.kind(parent) {
            Kind::Decl {
                target,
                value: Some(v),
                ..
            } if target == bind => vec![v],
            Kind::Assign { targets, value } if ir.list(targets).contains(&bind) => vec![value],
            Kind::AugAssign { target, value } if target == bind => match value {
                None => return true,
                Some(v) => vec![v],
            },
            // What every call gives it, or what an array's method hands its callback.
            Kind::Param { target } if target == bind => match self
                .parameter_arguments(parent)
                .or_else(|| self.callback_values(parent))
            {
                Some(args) if !args.is_empty() => args,
                _ => return false,
            },
            _ => return false,
        };
        values.into_iter().all(|v| self.key_holds_digits(v, depth))
    }

    /// A name (a parameter) that only literal arrays, objects and strings flow into.
    fn flows_only_plain_data(&mut self, object: NodeId) -> bool {
        let object = self.ir.unparen(object);
        if !matches!(self.ir.kind(object), Kind::Name(_)) || self.may_be_reprototyped(object) {
            return false;
        }
        self.value_sources_of(object).is_some_and(|sources| {
            !sources.is_empty()
                && sources.into_iter().all(|s| {
                    // `{__proto__: f}` is no plain data.
                    s != object
                        && self.is_plain_data(s)
                        && matches!(
                            self.ir.kind(self.ir.unparen(s)),
                            Kind::Collection {
                                kind: CollectionKind::List | CollectionKind::Map,
                                ..
                            } | Kind::Str { .. }
                                | Kind::Template { .. }
                        )
                })
        })
    }

    /// What storing `value` into `object` (`object[k] = value`) adds to what `object` may
    /// hold: nothing when the value is only read out of `object` itself, or else fresh data
    /// (`o[k] = o[k] || []`), which any lookup in `object` reaches already.
    pub fn stored_taint(&mut self, object: NodeId, value: NodeId) -> Taint {
        if self.restores_own(object, value, 0) {
            Taint::NONE
        } else {
            self.taint(value)
        }
    }

    fn restores_own(&mut self, object: NodeId, value: NodeId, depth: usize) -> bool {
        if depth > MAX_KEY_DEPTH {
            return false;
        }
        let ir = self.ir;
        let value = ir.unparen(value);
        let own_or_data = |e: &mut Self, side: NodeId| {
            e.restores_own(object, side, depth + 1)
                || e.is_plain_data(side)
                || e.is_numeric(side)
                || matches!(e.ir.kind(e.ir.unparen(side)), Kind::Const(_))
        };
        match ir.kind(value) {
            Kind::Index { object: read, .. } => {
                same_place(ir, object, read) && self.is_fresh_data_name(object)
            }
            // A name bound only to such reads (`const temp = a[i]; a[j] = temp`).
            Kind::Name(_) => self.value_sources_of(value).is_some_and(|sources| {
                !sources.is_empty()
                    && sources.into_iter().all(|s| {
                        s != value
                            && matches!(ir.kind(ir.unparen(s)), Kind::Index { .. })
                            && self.restores_own(object, s, depth + 1)
                    })
            }),
            Kind::Binary {
                op: BinOp::Logical,
                left,
                right,
            } => own_or_data(self, left) && own_or_data(self, right),
            Kind::Cond { then, other, .. } => own_or_data(self, then) && own_or_data(self, other),
            // A swap by destructuring: `[a[i], a[j]] = [a[j], a[i]]`.
            Kind::Collection {
                kind: CollectionKind::List,
                items,
            } => {
                ir.list(items).to_vec().into_iter().all(|item| {
                    !matches!(ir.kind(item), Kind::Spread(_)) && own_or_data(self, item)
                })
            }
            _ => false,
        }
    }

    /// A name bound once, to an object or array the snippet makes with a literal or a data
    /// constructor: never a function (whose one-step lookups reach `Function`), and always
    /// the same object where it is read. `this` may be any object, a function too
    /// (`m.call(f)`, a static method's class), so it is none.
    fn is_fresh_data_name(&mut self, object: NodeId) -> bool {
        self.fresh_data_at(object, 0)
    }

    fn fresh_data_at(&mut self, object: NodeId, depth: usize) -> bool {
        let ir = self.ir;
        let object = ir.unparen(object);
        if depth > MAX_KEY_DEPTH {
            return false;
        }
        let Kind::Name(sym) = ir.kind(object) else {
            return self.is_fresh_data_value(object);
        };
        let lookup =
            self.scopes
                .lookup(sym, self.scopes.scope_of(object), self.dialect.declaring());
        let [scope] = lookup.scopes[..] else {
            return false;
        };
        let [bind] = self.binds_of(scope, sym)[..] else {
            return false;
        };
        let Some(parent) = ir.parent(bind) else {
            return false;
        };
        match ir.kind(parent) {
            Kind::Decl {
                target,
                value: Some(value),
                ..
            } if target == bind => self.is_fresh_data_value(value),
            // `[...rest]`, `{...rest}` in a pattern: a new array or plain object.
            Kind::Rest(inner) if inner == bind => true,
            // A parameter every call gives such an object, or a `reduce` accumulator that
            // starts as one and is handed back as it is.
            Kind::Param { target } if target == bind => self
                .parameter_arguments(parent)
                .or_else(|| self.callback_values(parent))
                .is_some_and(|args| {
                    !args.is_empty()
                        && args.into_iter().all(|a| {
                            matches!(ir.kind(ir.unparen(a)), Kind::Name(s) if s == sym
                                && self.scopes.lookup(s, self.scopes.scope_of(a),
                                    self.dialect.declaring()).scopes[..] == [scope])
                                || self.fresh_data_at(a, depth + 1)
                        })
                }),
            _ => false,
        }
    }

    /// An object or array made right there with a literal or a data constructor.
    fn is_fresh_data_value(&mut self, value: NodeId) -> bool {
        let ir = self.ir;
        let value = ir.unparen(value);
        let saved = std::mem::replace(&mut self.holders_data_only, true);
        let fresh = self.is_fresh_object(value)
            && matches!(ir.kind(value), Kind::Collection { .. } | Kind::Call { .. })
            && (!matches!(ir.kind(value), Kind::Collection { .. }) || self.is_plain_data(value));
        self.holders_data_only = saved;
        fresh
    }

    /// `x.y = value`, `x[k] = value`: storing such a value in `x` makes every name that
    /// may hold `x` hold it (see [`holders`](super::holders)).
    pub(super) fn taint_store(&mut self, target: NodeId, value: NodeId) -> bool {
        let ir = self.ir;
        let (Kind::Attr { object, .. } | Kind::Index { object, .. }) = ir.kind(target) else {
            return false;
        };
        if !self.stored_taint(object, value).any() {
            return false;
        }
        if let Kind::This = ir.kind(ir.unparen(object)) {
            return self.store_in_this(object);
        }
        // Under a number, the key is an index (or `NaN`, `Infinity`, read below as names):
        // a key that only holds digits (`'x' + 1`) may be any name.
        let keyed = match ir.kind(target) {
            Kind::Index { key, .. } => !self.is_numeric(key),
            _ => true,
        };
        self.mark_holders(object, keyed)
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
        let given: Vec<Taint> = values
            .iter()
            .map(|&(v, _)| self.arg_taint(call, v, 0))
            .collect();
        let tagged = values
            .iter()
            .any(|&(v, _)| self.is_tagged_template(call, v));
        let receiver = match ir.kind(callee) {
            Kind::Attr { object, .. } => self.taint(object),
            _ => Taint::NONE,
        };
        let mut changed = self.mark_passed(call);
        if given.iter().any(|t| t.any()) {
            // A tag takes the substitutions as its later parameters.
            let spread = tagged || values.iter().any(|(_, s)| *s != Splat::None);
            for function in self.callee_functions(callee).unwrap_or_default() {
                if let Kind::Function { params, .. } = ir.kind(function) {
                    for (i, &param) in ir.list(params).iter().enumerate() {
                        let taint = given.get(i).copied().unwrap_or_default();
                        // A function that gives such a value is only that; anything else may
                        // be one too.
                        let taint = if taint.is || taint.holds || spread {
                            taint.or(Taint::IS)
                        } else {
                            taint
                        };
                        if taint.any() {
                            changed |= self.bind(param, Source::Tainted(taint));
                        }
                    }
                }
            }
        }
        let handed = given.iter().fold(receiver, |acc, t| acc.or(*t));
        if given.iter().any(|t| t.any()) {
            changed |= self.hand_unseen(call, handed);
            if let Some(target) = self.storing_target(call) {
                let keyed = !self.stores_as_elements(callee);
                changed |= self.mark_holders(target, keyed);
            }
        }
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

/// True when two expressions name the same object in one statement: the same name, `this`,
/// or the same member of such (`this.map`).
fn same_place(ir: &crate::analysis::ir::Ir, a: NodeId, b: NodeId) -> bool {
    match (ir.kind(ir.unparen(a)), ir.kind(ir.unparen(b))) {
        (Kind::Name(x), Kind::Name(y)) => x == y,
        (Kind::This, Kind::This) => true,
        (Kind::Attr { object: x, name: m }, Kind::Attr { object: y, name: n }) => {
            m == n && same_place(ir, x, y)
        }
        _ => false,
    }
}
