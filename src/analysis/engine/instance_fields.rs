//! JavaScript: the fields of the snippet's own class that hold only data, so that a lookup
//! by a computed key in one (`this.heap[i]` in a heap's `swap`) reaches an element, never
//! `Function` (see [`taint`](super::taint): a computed lookup on what may be a function may be
//! its `constructor`).
//!
//! `this` in a method of a class is an instance of that class only while no method of it is
//! run with another `this`, and an instance's field `f` holds only what is stored in members
//! named `f`. So a field is proven to hold data when, over the whole snippet:
//! - no class extends another, and nothing names a way to reach or change a prototype, an
//!   accessor or a receiver (`prototype`, `__proto__`, `Object.create`, `Object.assign`,
//!   `defineProperty`, `Reflect`, `Proxy`, `call`, `apply`, `bind`, ...), by a name or a
//!   string;
//! - every member read named like one of the classes' methods is the callee of a call (a
//!   method is never taken as a value, so never run on another object), and the classes'
//!   members all have constant names;
//! - every store into a member named `f`, on whatever object, stores data: a literal array or
//!   object, a string, a number, a new data collection, a name holding only those;
//! - every lookup or store by a key that may name `f` or a method is made on a proven field
//!   or a name holding only data (which no instance is).
//!
//! The field's name is none an object inherits (`constructor`, `toString`, ...) nor a member
//! of the class itself; the method is not static (whose `this` is the class, a function).

use std::rc::Rc;

use super::Engine;
use crate::analysis::ir::{BinOp, FunctionKind, Kind, NodeId};

/// Names by which a snippet reaches or changes a prototype, an accessor or the receiver of a
/// call: any of them, anywhere, and no field is proven.
const RECEIVER_CHANGERS: &[&str] = &[
    "prototype",
    "__proto__",
    "setPrototypeOf",
    "getPrototypeOf",
    "create",
    "assign",
    "defineProperty",
    "defineProperties",
    "getOwnPropertyDescriptor",
    "getOwnPropertyDescriptors",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
    "fromEntries",
    "Reflect",
    "Proxy",
    "call",
    "apply",
    "bind",
    "eval",
    "Function",
];

/// What a store stores: data (never a function nor an instance), a number.
#[derive(Clone, Copy)]
struct Stored {
    data: bool,
    number: bool,
}

/// Members every object inherits: a field of that name may be the inherited function.
const INHERITED: &[&str] = &[
    "constructor",
    "__proto__",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toLocaleString",
    "toString",
    "valueOf",
];

impl<'a> Engine<'a> {
    /// True when `object` is `this.f` in a method of the snippet's own class, and every
    /// instance's `f` is proven to hold only data (see the module documentation).
    pub(super) fn is_data_field_of_this(&mut self, object: NodeId) -> bool {
        let ir = self.ir;
        let Kind::Attr { object: this, name } = ir.kind(ir.unparen(object)) else {
            return false;
        };
        if !matches!(ir.kind(ir.unparen(this)), Kind::This) {
            return false;
        }
        let Some(class) = self.instance_method_class(this) else {
            return false;
        };
        let field = (class, self.name(name));
        self.data_fields().contains(&field)
    }

    /// The class whose instance `this` is: that of the non-static method `this` is in.
    fn instance_method_class(&self, this: NodeId) -> Option<NodeId> {
        let ir = self.ir;
        let mut node = this;
        let function = loop {
            let parent = ir.parent(node)?;
            match ir.kind(parent) {
                Kind::Function {
                    kind: FunctionKind::Lambda,
                    ..
                } => {}
                Kind::Function { .. } => break parent,
                Kind::Class { .. } => return None, // a field's initializer or a static block
                _ => {}
            }
            node = parent;
        };
        let (pair, _) = ir.context(function)?;
        if !matches!(ir.kind(pair), Kind::Pair { value, .. } if value == function) {
            return None;
        }
        let class = ir.parent(pair)?;
        let (start, end) = ir.span(pair);
        let is_static = self.source[start..end].starts_with("static");
        (matches!(ir.kind(class), Kind::Class { .. }) && !is_static).then_some(class)
    }

    /// The `this.f` of some class's methods reached as `this.f` in that class's methods: the
    /// field `f` of the class's instances.
    fn field_of_this(&self, object: NodeId) -> Option<(NodeId, &'a str)> {
        let ir = self.ir;
        let Kind::Attr { object: this, name } = ir.kind(ir.unparen(object)) else {
            return None;
        };
        if !matches!(ir.kind(ir.unparen(this)), Kind::This) {
            return None;
        }
        Some((self.instance_method_class(this)?, self.name(name)))
    }

    /// The proven fields of every class of the snippet, found once, together: a field may
    /// be read by keys in another class's methods.
    pub(super) fn data_fields(&mut self) -> Rc<[(NodeId, &'a str)]> {
        if let Some(pinned) = &self.pinned_fields {
            return pinned.clone();
        }
        if let Some(known) = &self.data_fields {
            return known.clone();
        }
        // A proof that asks for itself (a key read from a field) finds nothing proven.
        self.data_fields = Some(Rc::from([]));
        let found: Rc<[(NodeId, &'a str)]> = self.prove_data_fields().into();
        self.data_fields = Some(found.clone());
        if self.last_fields.as_ref().is_some_and(|last| *last != found) {
            self.fields_varied = true;
        }
        self.last_fields = Some(found.clone());
        found
    }

    fn prove_data_fields(&mut self) -> Vec<(NodeId, &'a str)> {
        let ir = self.ir;
        if !self.receivers_are_fixed() {
            return Vec::new();
        }
        // The names of every class's members (of its methods apart: a class field holds a
        // value, and only a method runs with a `this`), and the fields read or written
        // through `this` in each class's methods.
        let mut members: Vec<&'a str> = Vec::new();
        let mut methods: Vec<&'a str> = Vec::new();
        let mut own_members: Vec<(NodeId, Vec<&'a str>)> = Vec::new();
        for id in 0..ir.nodes.len() as NodeId {
            if let Kind::Class { .. } = ir.kind(id) {
                let Some(names) = self.class_member_names(id) else {
                    return Vec::new();
                };
                members.extend(names.iter().map(|&(n, _)| n));
                methods.extend(names.iter().filter(|&&(_, m)| m).map(|&(n, _)| n));
                own_members.push((id, names.iter().map(|&(n, _)| n).collect()));
            }
        }
        let mut fields: Vec<(NodeId, &'a str)> = Vec::new();
        for id in 0..ir.nodes.len() as NodeId {
            if let Some((class, field)) = self.field_of_this(id)
                && !fields.contains(&(class, field))
                && !INHERITED.contains(&field)
                && own_members
                    .iter()
                    .any(|(c, names)| *c == class && !names.contains(&field))
            {
                fields.push((class, field));
            }
        }
        // Fields drop out until every store and keyed access keeps the rest data; of those,
        // the fields every store gives a number (`this.size++`) are numbers.
        let mut numbers = fields.clone();
        loop {
            let before = (fields.len(), numbers.len());
            for id in 0..ir.nodes.len() as NodeId {
                match ir.kind(id) {
                    Kind::Attr { name, .. } if methods.contains(&self.name(name)) => {
                        let called = matches!(ir.context(id), Some((call, callee))
                            if matches!(ir.kind(call), Kind::Call { callee: c, .. } if c == callee));
                        if !called {
                            return Vec::new();
                        }
                    }
                    Kind::Index { object, key }
                        if !self.keyed_access_keeps_fields(object, key, &members, &fields) =>
                    {
                        return Vec::new();
                    }
                    // `const { insert } = heap` takes a method as a value, which a builtin
                    // may then run on another object (`[1].forEach(insert, other)`).
                    Kind::PatternEntry { key, .. } => match self.fold_key(key, 0) {
                        Some(taken) if !methods.contains(&&*taken) => {}
                        _ => return Vec::new(),
                    },
                    // An object literal's member of a field's name is what that field would
                    // be in an object given the class's methods.
                    Kind::Pair { key, value }
                        if ir
                            .parent(id)
                            .is_some_and(|o| matches!(ir.kind(o), Kind::Collection { .. })) =>
                    {
                        match self.fold_key(key, 0) {
                            Some(field) => {
                                if fields.iter().any(|(_, f)| **f == *field) {
                                    if !self.is_field_data(value, 0) {
                                        fields.retain(|(_, f)| **f != *field);
                                    }
                                    if !self.is_numeric(value) {
                                        numbers.retain(|(_, f)| **f != *field);
                                    }
                                }
                            }
                            None => return Vec::new(),
                        }
                    }
                    Kind::Assign { targets, value } => {
                        for target in ir.list(targets).to_vec() {
                            for leaf in self.stored_members(target) {
                                // Inside a pattern the stored value is a part of `value`.
                                let whole = leaf == target;
                                let stored = Stored {
                                    data: whole && self.is_field_data(value, 0),
                                    number: whole && self.is_numeric(value),
                                };
                                self.keep_stored_fields(leaf, stored, &mut fields, &mut numbers);
                            }
                        }
                    }
                    Kind::For { target, .. } => {
                        for leaf in self.stored_members(target) {
                            let stored = Stored {
                                data: false,
                                number: false,
                            };
                            self.keep_stored_fields(leaf, stored, &mut fields, &mut numbers);
                        }
                    }
                    // `x.f += v` makes a number or a string; `x.f ||= v` may store `v`.
                    Kind::AugAssign {
                        target,
                        value: Some(value),
                    } => {
                        let (_, target_end) = ir.span(target);
                        let (value_start, _) = ir.span(value);
                        let operator = self.source.get(target_end..value_start).unwrap_or("");
                        let logical = ["||=", "&&=", "??="].iter().any(|o| operator.contains(o));
                        let stored = Stored {
                            data: !logical || self.is_field_data(value, 0),
                            number: !logical && self.is_numeric(value),
                        };
                        self.keep_stored_fields(target, stored, &mut fields, &mut numbers);
                    }
                    _ => {}
                }
            }
            numbers.retain(|f| fields.contains(f));
            if (fields.len(), numbers.len()) == before {
                return fields;
            }
        }
    }

    /// A store into `target` (`data` when what it stores is data) drops the fields it may
    /// break: a member of a field's name given something else (`x.f = g`), and a field whose
    /// object may get a new prototype (`this.f[k] = g` with `k` perhaps `__proto__`, as a
    /// swap by keys the caller chose does: `[a[i], a[j]] = [a[j], a[i]]` with `i` set to
    /// `'__proto__'` and `j` to `'push'`), through which its keys may reach `Function`.
    fn keep_stored_fields(
        &mut self,
        target: NodeId,
        stored: Stored,
        fields: &mut Vec<(NodeId, &'a str)>,
        numbers: &mut Vec<(NodeId, &'a str)>,
    ) {
        let ir = self.ir;
        match ir.kind(target) {
            Kind::Attr { name, .. } => {
                let field = self.name(name);
                if !stored.data {
                    fields.retain(|&(_, f)| f != field);
                }
                if !stored.number {
                    numbers.retain(|&(_, f)| f != field);
                }
            }
            Kind::Index { object, key } if !stored.data && !self.is_index_key(key, numbers) => {
                if let Some(field) = self.field_of_this(object) {
                    fields.retain(|&f| f != field);
                }
            }
            _ => {}
        }
    }

    /// A key that is never `__proto__`: a number (a field every store gives one, too), text
    /// holding a number's digits, or text that folds to something else.
    fn is_index_key(&mut self, key: NodeId, numbers: &[(NodeId, &'a str)]) -> bool {
        match self.fold_key(key, 0) {
            Some(text) => &*text != "__proto__",
            None => {
                self.is_numeric(key)
                    || self.key_holds_digits(key, 0)
                    || self
                        .field_of_this(key)
                        .is_some_and(|field| numbers.contains(&field))
            }
        }
    }

    /// The names of a class's methods, accessors and fields, when all are constant.
    /// Each with whether it is a method (or accessor) rather than a field.
    fn class_member_names(&self, class: NodeId) -> Option<Vec<(&'a str, bool)>> {
        let ir = self.ir;
        let Kind::Class { body, .. } = ir.kind(class) else {
            return None;
        };
        let mut names = vec![("constructor", true)];
        for &item in ir.list(body) {
            let method = matches!(ir.kind(item), Kind::Pair { .. });
            let name = match ir.kind(item) {
                Kind::Pair { key, .. } => ir.str_value(key)?,
                // A field, `[static] name [= value]`, is lowered as its parts.
                _ => {
                    let (start, end) = ir.span(item);
                    let text = self.source[start..end].trim_start();
                    let text = text.strip_prefix("static ").unwrap_or(text).trim_start();
                    let length = text
                        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '$' | '#')))
                        .unwrap_or(text.len());
                    if length == 0 {
                        return None; // a computed name, a static block
                    }
                    &text[..length]
                }
            };
            names.push((name, method));
            // A private member is read as `#name`; its bare name is kept too.
            if let Some(bare) = name.strip_prefix('#') {
                names.push((bare, method));
            }
        }
        Some(names)
    }

    /// True when no class extends another, no `with` puts an object's members in scope, and
    /// nothing names a way to change a prototype, an accessor or a call's receiver (see
    /// [`RECEIVER_CHANGERS`]).
    fn receivers_are_fixed(&mut self) -> bool {
        if let Some(known) = self.receivers_fixed {
            return known;
        }
        let ir = self.ir;
        let mut fixed = true;
        for id in 0..ir.nodes.len() as NodeId {
            let named = match ir.kind(id) {
                // `with (o) { f = g }` stores into `o` by a bare name.
                Kind::Class { .. } if self.extends(id) => {
                    fixed = false;
                    break;
                }
                Kind::With | Kind::Opaque => {
                    fixed = false;
                    break;
                }
                Kind::Name(sym) => Some(self.name(sym)),
                Kind::Attr { name, .. } => Some(self.name(name)),
                Kind::Str { .. } => ir.str_value(id),
                _ => None,
            };
            if named.is_some_and(|n| RECEIVER_CHANGERS.contains(&n)) {
                fixed = false;
                break;
            }
        }
        self.receivers_fixed = Some(fixed);
        fixed
    }

    /// `object[key]`, read or stored: it reaches no method and stores no field when the key
    /// cannot be the name of either, or the object is a proven field or a name holding only
    /// data (neither of which is an instance).
    fn keyed_access_keeps_fields(
        &mut self,
        object: NodeId,
        key: NodeId,
        members: &[&str],
        fields: &[(NodeId, &str)],
    ) -> bool {
        let ir = self.ir;
        let named = |n: &str| {
            members.contains(&n)
                || fields.iter().any(|&(_, f)| f == n)
                || RECEIVER_CHANGERS.contains(&n)
        };
        if let Some(text) = self.fold_key(key, 0) {
            return !named(&text);
        }
        if self.is_numeric(key) {
            return true;
        }
        let digits =
            |n: &&str| n.bytes().any(|b| b.is_ascii_digit()) || matches!(*n, "NaN" | "Infinity");
        if !members
            .iter()
            .chain(fields.iter().map(|(_, f)| f))
            .any(digits)
            && self.key_holds_digits(key, 0)
        {
            return true;
        }
        match ir.kind(ir.unparen(object)) {
            Kind::Attr { .. } => self
                .field_of_this(object)
                .is_some_and(|field| fields.contains(&field)),
            Kind::Name(_) => self.holds_only_data(object),
            _ => false,
        }
    }

    /// A value that is data, never a function or an instance: a literal array or object, a
    /// string, a number, a truth value, a new data collection, a name holding only those.
    fn is_field_data(&mut self, value: NodeId, depth: usize) -> bool {
        if depth > 16 {
            return false;
        }
        let ir = self.ir;
        let value = ir.unparen(value);
        if self.is_numeric(value) {
            return true;
        }
        match ir.kind(value) {
            Kind::Collection { .. } | Kind::Call { .. } => {
                self.is_plain_data(value) || {
                    let saved = std::mem::replace(&mut self.holders_data_only, true);
                    let fresh = self.is_fresh_object(value);
                    self.holders_data_only = saved;
                    fresh
                }
            }
            Kind::Str { .. }
            | Kind::Template { .. }
            | Kind::Int(_)
            | Kind::Float
            | Kind::Const(_)
            | Kind::Unary { .. } => true,
            // Every operator but `&&`, `||`, `??` makes a primitive.
            Kind::Binary {
                op: BinOp::Logical,
                left,
                right,
            } => self.is_field_data(left, depth + 1) && self.is_field_data(right, depth + 1),
            Kind::Binary { .. } => true,
            Kind::Cond { then, other, .. } => {
                self.is_field_data(then, depth + 1) && self.is_field_data(other, depth + 1)
            }
            Kind::Assign { value, .. } => self.is_field_data(value, depth + 1),
            Kind::Name(_) => self.holds_only_data(value),
            _ => false,
        }
    }
}
