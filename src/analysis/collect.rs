//! The fact sink: facts deduplicated and bounded, with spans computed from byte offsets.

use std::hash::BuildHasher;

use foldhash::{HashMap, HashMapExt};

use super::facts::{DynamicKind, Fact, FactKind, LineIndex, Span};

/// Most facts one analysis records; hostile input could otherwise make millions.
pub const MAX_FACTS: usize = 10_000;
/// Constant arguments carried on one call's fact.
pub const MAX_FACT_ARGS: usize = 8;

/// Collects facts, deduplicated, within [`MAX_FACTS`].
pub struct Collector<'s> {
    lines: LineIndex<'s>,
    facts: Vec<Fact>,
    /// The first recorded fact with each (start, end, hash of kind): duplicates are found
    /// without keeping a second copy of every fact.
    seen: HashMap<(usize, usize, u64), usize>,
    hasher: foldhash::fast::RandomState,
    limited: bool,
}

impl<'s> Collector<'s> {
    pub fn new(source: &'s str) -> Self {
        Collector {
            lines: LineIndex::new(source),
            facts: Vec::new(),
            seen: HashMap::new(),
            hasher: foldhash::fast::RandomState::default(),
            limited: false,
        }
    }

    pub fn span_of(&self, start: usize, end: usize) -> Span {
        self.lines.span(start, end)
    }

    pub fn push_at(&mut self, span: Span, kind: FactKind) {
        let key = (span.start_byte, span.end_byte, self.hasher.hash_one(&kind));
        let first = self.seen.get(&key).copied();
        if let Some(index) = first {
            let same =
                |f: &Fact| f.kind == kind && (f.span.start_byte, f.span.end_byte) == (key.0, key.1);
            // Equal keys almost always mean the same fact; a hash collision checks them all.
            if same(&self.facts[index]) || self.facts.iter().any(same) {
                return;
            }
        }
        if self.facts.len() >= MAX_FACTS {
            if !self.limited {
                self.limited = true;
                self.facts.push(Fact {
                    kind: FactKind::Dynamic {
                        kind: DynamicKind::AnalysisLimit,
                        detail: format!("more than {MAX_FACTS} facts; the rest was not recorded"),
                    },
                    span,
                });
            }
            return;
        }
        if first.is_none() {
            self.seen.insert(key, self.facts.len());
        }
        self.facts.push(Fact { kind, span });
    }

    pub fn into_facts(self) -> Vec<Fact> {
        self.facts
    }
}
