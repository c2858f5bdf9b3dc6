//! The fact sink: facts deduplicated and bounded, with spans computed from byte offsets.

use foldhash::{HashSet, HashSetExt};

use super::facts::{DynamicKind, Fact, FactKind, LineIndex, Span};

/// Most facts one analysis records; hostile input could otherwise make millions.
pub const MAX_FACTS: usize = 10_000;
/// Constant arguments carried on one call's fact.
pub const MAX_FACT_ARGS: usize = 8;

/// Collects facts, deduplicated, within [`MAX_FACTS`].
pub struct Collector<'s> {
    lines: LineIndex<'s>,
    facts: Vec<Fact>,
    seen: HashSet<(usize, usize, FactKind)>,
    limited: bool,
}

impl<'s> Collector<'s> {
    pub fn new(source: &'s str) -> Self {
        Collector {
            lines: LineIndex::new(source),
            facts: Vec::new(),
            seen: HashSet::new(),
            limited: false,
        }
    }

    pub fn span_of(&self, start: usize, end: usize) -> Span {
        self.lines.span(start, end)
    }

    pub fn push_at(&mut self, span: Span, kind: FactKind) {
        if !self
            .seen
            .insert((span.start_byte, span.end_byte, kind.clone()))
        {
            return;
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
        self.facts.push(Fact { kind, span });
    }

    pub fn into_facts(self) -> Vec<Fact> {
        self.facts
    }
}
