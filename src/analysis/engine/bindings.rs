//! Pass 1: what each name is bound to, over every binding of it: imports, assignments and
//! declarations (through destructuring), walrus, loops over containers, parameters and their
//! defaults, definitions. `with`, `except`, `match` captures and augmented assignments bind
//! values the analysis does not know.

use std::rc::Rc;

use super::meaning::{Meaning, Value, add_meaning};
use super::{Binding, Engine};
use crate::analysis::ir::{CollectionKind, Kind, NodeId};

/// Where a bound value comes from.
pub(super) enum Source {
    /// An expression's value.
    Expr(NodeId),
    /// One element of an expression's value (a loop variable, an unpacked item).
    Element(NodeId),
    /// The member `key` of an expression's value (JavaScript destructuring).
    Member(NodeId, Rc<str>),
    /// Known meanings (a definition, an import).
    Meanings(Vec<Meaning>),
    /// A number the analysis does not know (`i++`, `i += 1`).
    Number,
    /// A value that may be (or hold) code taken by a computed key (see `taint`).
    Tainted(super::taint::Taint),
    /// A value the analysis does not know.
    Unknown,
}

impl<'a> Engine<'a> {
    /// One round over the binding constructs; true if anything new was learned.
    pub(super) fn collect_bindings(&mut self, nodes: &[NodeId]) -> bool {
        let mut changed = false;
        for &id in nodes {
            changed |= self.bind_construct(id);
        }
        changed
    }

    fn bind_construct(&mut self, id: NodeId) -> bool {
        let ir = self.ir;
        match ir.kind(id) {
            Kind::Assign { targets, value } => {
                let mut changed = false;
                for &t in ir.list(targets) {
                    changed |= self.bind(t, Source::Expr(value));
                    changed |= self.taint_store(t, value);
                }
                changed
            }
            Kind::Call { .. } => self.taint_parameters(id),
            Kind::Decl { target, value, .. } => match value {
                Some(v) => self.bind(target, Source::Expr(v)),
                // `var i;` is `undefined` until assigned: as a key or in text, the word
                // `undefined`, which reaches no member and adds no code; like a number.
                None => self.bind(target, Source::Number),
            },
            Kind::Walrus { target, value } => self.bind(target, Source::Expr(value)),
            Kind::AugAssign { target, value } => {
                let numeric = value.is_none_or(|v| self.is_numeric(v));
                self.bind(
                    target,
                    if numeric {
                        Source::Number
                    } else {
                        Source::Unknown
                    },
                )
            }
            Kind::For {
                target, iter, keys, ..
            } => {
                if keys {
                    self.bind(target, Source::Unknown)
                } else {
                    self.bind(target, Source::Element(iter))
                }
            }
            Kind::CompFor { target, iter } => self.bind(target, Source::Element(iter)),
            Kind::WithItem {
                target: Some(t), ..
            }
            | Kind::Catch { target: Some(t) }
            | Kind::Capture(t)
            | Kind::Param { target: t, .. } => self.bind(t, Source::Unknown),
            Kind::Function { name, .. } => {
                let mut changed = self.taint_returns(id);
                changed |= self.learn_returned_meanings(id);
                if let Some(n) = name {
                    changed |= self.bind(n, Source::Meanings(vec![Meaning::of(Value::Local(id))]));
                }
                changed
            }
            Kind::Class { name: Some(n), .. } => {
                self.bind(n, Source::Meanings(vec![Meaning::of(Value::Local(id))]))
            }
            Kind::Import { .. } => self.bind_import(id),
            _ => false,
        }
    }

    fn bind_import(&mut self, id: NodeId) -> bool {
        let ir = self.ir;
        let Kind::Import {
            module,
            items,
            star,
            plain,
        } = ir.kind(id)
        else {
            return false;
        };
        let module = module.map(|m| self.dialect.module_specifier(ir.text(m)));
        let mut changed = false;
        if star && let Some(m) = &module {
            let path = self.paths.intern(m, m.len());
            if !self.star_modules.contains(&path) {
                self.star_modules.push(path);
                changed = true;
            }
        }
        for &item in ir.list(items) {
            let Kind::ImportItem {
                imported,
                local: Some(local),
                aliased,
            } = ir.kind(item)
            else {
                continue;
            };
            let imported = imported.map(|t| ir.text(t).to_owned());
            let meanings = match (plain, &module, imported) {
                // `import a.b.c` binds `a`; `import a.b as c` binds `c` to `a.b`.
                (true, _, Some(name)) => {
                    let module = if aliased {
                        name
                    } else {
                        name.split('.').next().unwrap_or_default().to_owned()
                    };
                    vec![self.module_meaning(&module)]
                }
                (false, Some(m), Some(name)) if name == "default" || name == "*" => {
                    vec![self.module_meaning(m)]
                }
                (false, Some(m), Some(name)) => {
                    let module = self.module_meaning(m);
                    self.member(module, &name)
                }
                _ => Vec::new(),
            };
            changed |= self.bind(local, Source::Meanings(meanings));
        }
        changed
    }

    /// The meaning of a module imported by name.
    pub fn module_meaning(&mut self, name: &str) -> Meaning {
        let name = self
            .dialect
            .canonical(name)
            .unwrap_or_else(|| name.to_owned());
        Meaning::of(Value::Module(self.paths.intern(&name, name.len())))
    }

    /// Binds a target (a name, or a pattern of them) to what `source` gives; true if that is
    /// new.
    pub(super) fn bind(&mut self, target: NodeId, source: Source) -> bool {
        let ir = self.ir;
        match ir.kind(target) {
            Kind::Bind(sym) => {
                let Some(scope) = self.scopes.bind_scope(target) else {
                    return false;
                };
                let (meanings, string, int) = self.source_values(&source);
                // `for name in ("a", "b")`: each constant the loop gives the name.
                let element_strings = match &source {
                    Source::Element(v) => self.constant_items(*v),
                    _ => None,
                };
                let (numeric, data, sequence) = match &source {
                    Source::Expr(v) => (
                        self.is_numeric(*v),
                        self.is_plain_data(*v),
                        self.is_sequence(*v),
                    ),
                    Source::Number => (true, false, false),
                    Source::Element(v) => (self.iterates_numbers(*v), false, false),
                    _ => (false, false, false),
                };
                let taint = match &source {
                    Source::Expr(v) => self.taint(*v),
                    // An element or member of what may hold code may be code.
                    Source::Element(v) | Source::Member(v, _) => {
                        let t = self.taint(*v);
                        super::taint::Taint {
                            is: t.holds,
                            holds: false,
                        }
                    }
                    Source::Tainted(t) => *t,
                    _ => super::taint::Taint::default(),
                };
                let text = match &source {
                    Source::Expr(v) => self.value_may_be_text(*v),
                    Source::Meanings(_) | Source::Number => false,
                    _ => true,
                };
                let binding = self.bindings.entry((scope, sym)).or_default();
                let mut changed = match element_strings {
                    Some(items) => {
                        let mut changed = false;
                        for m in meanings {
                            changed |= add_meaning(&mut binding.meanings, m);
                        }
                        for item in items {
                            changed |= add_string(binding, item);
                        }
                        if !binding.opaque_int {
                            binding.opaque_int = true;
                            changed = true;
                        }
                        changed
                    }
                    None => add_all(binding, meanings, string, int),
                };
                if !numeric && !binding.not_numeric {
                    binding.not_numeric = true;
                    changed = true;
                }
                if !data && !binding.not_data {
                    binding.not_data = true;
                    changed = true;
                }
                if !sequence && !binding.not_sequence {
                    binding.not_sequence = true;
                    changed = true;
                }
                if text && !binding.may_be_text {
                    binding.may_be_text = true;
                    changed = true;
                }
                if (taint.is && !binding.taint.is) || (taint.holds && !binding.taint.holds) {
                    binding.taint.is |= taint.is;
                    binding.taint.holds |= taint.holds;
                    changed = true;
                }
                changed
            }
            Kind::TuplePattern { items } => {
                let targets = ir.list(items);
                if let Source::Expr(value) = source
                    && let Kind::Collection {
                        kind: CollectionKind::List | CollectionKind::Tuple,
                        items: values,
                    } = ir.kind(ir.unparen(value))
                    && ir.list(values).len() == targets.len()
                    && !ir
                        .list(values)
                        .iter()
                        .any(|v| matches!(ir.kind(*v), Kind::Spread(_)))
                {
                    let mut changed = false;
                    for (&t, &v) in targets.iter().zip(ir.list(values)) {
                        changed |= self.bind(t, Source::Expr(v));
                    }
                    return changed;
                }
                let mut changed = false;
                for &t in targets {
                    let item = match &source {
                        Source::Expr(v) | Source::Element(v) => Source::Element(*v),
                        _ => Source::Unknown,
                    };
                    changed |= self.bind(t, item);
                }
                changed
            }
            Kind::ObjectPattern { entries } => {
                let mut changed = false;
                for &entry in ir.list(entries) {
                    match ir.kind(entry) {
                        Kind::PatternEntry { key, target } => {
                            let key = self.fold(key, 0);
                            let item = match (&source, key) {
                                (Source::Expr(v), Some(k)) => Source::Member(*v, k),
                                _ => Source::Unknown,
                            };
                            changed |= self.bind(target, item);
                        }
                        _ => changed |= self.bind(entry, Source::Unknown),
                    }
                }
                changed
            }
            Kind::DefaultTarget {
                target: inner,
                default,
            } => {
                let a = self.bind(inner, source);
                let b = self.bind(inner, Source::Expr(default));
                a || b
            }
            Kind::Rest(inner) => self.bind(inner, Source::Unknown),
            Kind::Param { target: inner, .. } => self.bind(inner, source),
            _ => false,
        }
    }

    /// The constants a literal list or tuple holds, when every item is one (strings, or
    /// integers in decimal).
    fn constant_items(&mut self, collection: NodeId) -> Option<Vec<Rc<str>>> {
        let ir = self.ir;
        let Kind::Collection {
            kind: CollectionKind::List | CollectionKind::Tuple | CollectionKind::Set,
            items,
        } = ir.kind(ir.unparen(collection))
        else {
            return None;
        };
        let items = ir.list(items).to_vec();
        if items.is_empty() || items.len() > super::meaning::MAX_MEANINGS {
            return None;
        }
        items
            .into_iter()
            .map(|item| {
                self.fold(item, 0)
                    .or_else(|| self.int_value(item, false).map(|n| Rc::from(n.to_string())))
            })
            .collect()
    }

    /// The meanings, constant string and constant integer a source gives (`None` when it
    /// gives none).
    fn source_values(&mut self, source: &Source) -> (Vec<Meaning>, Option<Rc<str>>, Option<i128>) {
        match source {
            Source::Expr(v) => {
                let meanings = self.resolve(*v, 0).to_vec();
                let string = if self.ir.is_construction(*v) {
                    None
                } else {
                    self.fold(*v, 0)
                };
                let int = self.int_value(*v, false);
                (meanings, string, int)
            }
            Source::Element(v) => {
                let meanings: Vec<Meaning> = self
                    .resolve(*v, 0)
                    .iter()
                    .filter_map(|m| m.taken_out())
                    .collect();
                (meanings, None, None)
            }
            Source::Member(v, key) => {
                let mut meanings = Vec::new();
                for m in self.resolve(*v, 0).to_vec() {
                    for found in self.member(m, key) {
                        add_meaning(&mut meanings, found);
                    }
                }
                (meanings, None, None)
            }
            Source::Meanings(m) => (m.clone(), None, None),
            Source::Number | Source::Tainted(_) | Source::Unknown => (Vec::new(), None, None),
        }
    }
}

fn add_string(binding: &mut Binding, s: Rc<str>) -> bool {
    if binding.strings.len() < super::meaning::MAX_MEANINGS
        && !binding.strings.iter().any(|x| **x == *s)
    {
        binding.strings.push(s);
        true
    } else {
        false
    }
}

fn add_all(
    binding: &mut Binding,
    meanings: Vec<Meaning>,
    string: Option<Rc<str>>,
    int: Option<i128>,
) -> bool {
    let mut changed = false;
    for m in meanings {
        changed |= add_meaning(&mut binding.meanings, m);
    }
    match string {
        Some(s) => changed |= add_string(binding, s),
        None if !binding.opaque_string => {
            binding.opaque_string = true;
            changed = true;
        }
        None => {}
    }
    match int {
        Some(n)
            if binding.ints.len() < super::meaning::MAX_MEANINGS && !binding.ints.contains(&n) =>
        {
            binding.ints.push(n);
            changed = true;
        }
        Some(_) => {}
        None if !binding.opaque_int => {
            binding.opaque_int = true;
            changed = true;
        }
        None => {}
    }
    changed
}
