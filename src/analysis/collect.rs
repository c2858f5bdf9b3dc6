//! Shared machinery of the per-language analyzers: the fact sink with its bounds, and the
//! binding table that resolves local names to what they mean.

use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use super::facts::{DynamicKind, Fact, FactKind, LineIndex, Span};

/// Most facts one analysis records; hostile input could otherwise make millions.
pub const MAX_FACTS: usize = 10_000;
/// Deepest expression the resolver and folder descend into. Deeper nesting is reported as an
/// analysis limit instead of being followed, so no input can exhaust the stack.
pub const MAX_EXPR_DEPTH: usize = 100;
/// At most this many meanings are kept for one name (`f = a.x; f = b.y` gives two).
pub const MAX_CANDIDATES: usize = 8;
/// Longest string the folder builds, so `'a' * 10**9`-style folding cannot allocate wildly.
pub const MAX_FOLDED_LEN: usize = 4096;
/// Separate too-deep regions reported per snippet: enough to find them all in practice,
/// bounded so a file of thousands of deep expressions does not drown the findings.
pub const MAX_DEEP_REGIONS: usize = 5;
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

    pub fn span(&self, node: Node) -> Span {
        self.lines.span(node.start_byte(), node.end_byte())
    }

    pub fn push(&mut self, node: Node, kind: FactKind) {
        let span = self.span(node);
        self.push_at(span, kind);
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

    pub fn dynamic(&mut self, node: Node, kind: DynamicKind, detail: impl Into<String>) {
        self.push(
            node,
            FactKind::Dynamic {
                kind,
                detail: detail.into(),
            },
        );
    }

    /// Reports that an expression was too deeply nested to follow.
    pub fn too_deep(&mut self, node: Node) {
        self.dynamic(
            node,
            DynamicKind::AnalysisLimit,
            format!("expression nested deeper than {MAX_EXPR_DEPTH} levels was not resolved"),
        );
    }

    pub fn into_facts(self) -> Vec<Fact> {
        self.facts
    }
}

/// What local names stand for, gathered flow-insensitively: every binding anywhere in the
/// snippet counts, so reordering statements or hiding a binding in dead code cannot hide a
/// meaning. A name may stand for several things; all are kept (up to [`MAX_CANDIDATES`]).
#[derive(Default)]
pub struct Bindings {
    aliases: HashMap<String, Vec<String>>,
    constants: HashMap<String, Vec<String>>,
    integers: HashMap<String, Vec<i128>>,
}

impl Bindings {
    /// Records that `name` may stand for `meaning`. Returns true if that is new.
    pub fn alias(&mut self, name: &str, meaning: String) -> bool {
        add_candidate(self.aliases.entry(name.to_owned()).or_default(), meaning)
    }

    /// Records that `name` may hold the constant string `value`. Returns true if that is new.
    pub fn constant(&mut self, name: &str, value: String) -> bool {
        add_candidate(self.constants.entry(name.to_owned()).or_default(), value)
    }

    /// Records that `name` may hold the integer `value`. Returns true if that is new.
    pub fn integer(&mut self, name: &str, value: i128) -> bool {
        let list = self.integers.entry(name.to_owned()).or_default();
        if list.len() >= MAX_CANDIDATES || list.contains(&value) {
            return false;
        }
        list.push(value);
        true
    }

    /// The integer a name holds: exactly, when one value is known; or, for sizes, the
    /// largest of the values it may hold (a size is only as safe as its largest candidate).
    pub fn integer_value(&self, name: &str, largest: bool) -> Option<i128> {
        match self.integers.get(name).map(Vec::as_slice) {
            Some([one]) => Some(*one),
            Some(many) if largest => many.iter().copied().max(),
            _ => None,
        }
    }

    pub fn meanings(&self, name: &str) -> Option<&[String]> {
        self.aliases.get(name).map(Vec::as_slice)
    }

    /// The constant a name holds, when exactly one is known.
    pub fn constant_value(&self, name: &str) -> Option<&str> {
        match self.constants.get(name).map(Vec::as_slice) {
            Some([one]) => Some(one),
            _ => None,
        }
    }
}

fn add_candidate(list: &mut Vec<String>, value: String) -> bool {
    if list.len() >= MAX_CANDIDATES || list.contains(&value) {
        return false;
    }
    list.push(value);
    true
}

/// Nodes where resolution stopped at [`MAX_EXPR_DEPTH`], one per separate region: a cutoff
/// inside (or around) a region already recorded is the same deep expression.
#[derive(Default)]
pub struct DeepRegions<'t> {
    nodes: Vec<Node<'t>>,
}

impl<'t> DeepRegions<'t> {
    pub fn record(&mut self, node: Node<'t>) {
        let overlaps = self
            .nodes
            .iter()
            .any(|n| n.start_byte() < node.end_byte() && node.start_byte() < n.end_byte());
        if !overlaps && self.nodes.len() < MAX_DEEP_REGIONS {
            self.nodes.push(node);
        }
    }

    /// Reports each region as an analysis limit.
    pub fn report(&self, out: &mut Collector) {
        for node in &self.nodes {
            out.too_deep(*node);
        }
    }
}

/// Most rounds of binding collection: `b = a; a = os` needs two, and chains rarely more.
const BINDING_ROUNDS: usize = 4;

/// Repeats `round` (one pass over the binding nodes) until it learns nothing new, calling
/// `forget` before each round and once after: resolutions cached while the bindings were
/// still incomplete must not outlive them.
pub fn settle_bindings<S>(
    state: &mut S,
    forget: impl Fn(&mut S),
    mut round: impl FnMut(&mut S) -> bool,
) {
    for _ in 0..BINDING_ROUNDS {
        forget(state);
        if !round(state) {
            break;
        }
    }
    forget(state);
}

/// Joins a resolved prefix and an attribute name into a qualified name.
pub fn qualify(prefix: &str, attr: &str) -> String {
    if prefix.is_empty() {
        attr.to_owned()
    } else {
        format!("{prefix}.{attr}")
    }
}

/// True when `name` is `prefix` or lies under it at a dot boundary (`os.path` under `os`).
pub fn is_under(name: &str, prefix: &str) -> bool {
    name == prefix
        || (name.len() > prefix.len()
            && name.starts_with(prefix)
            && name.as_bytes()[prefix.len()] == b'.')
}

/// Keeps at most [`MAX_CANDIDATES`] distinct names.
pub fn dedup_capped(mut names: Vec<String>) -> Vec<String> {
    let mut seen = HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    names.truncate(MAX_CANDIDATES);
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_under_respects_dot_boundaries() {
        assert!(is_under("os.path.join", "os"));
        assert!(is_under("os", "os"));
        assert!(!is_under("osmosis", "os"));
    }

    #[test]
    fn constants_with_two_values_are_not_folded() {
        let mut b = Bindings::default();
        b.constant("m", "os".into());
        assert_eq!(b.constant_value("m"), Some("os"));
        b.constant("m", "sys".into());
        assert_eq!(b.constant_value("m"), None);
    }

    #[test]
    fn ints_saturate() {
        assert_eq!(combine_ints("**", 10, 10_000), Some(i128::MAX));
        assert_eq!(combine_ints("**", 10, 1 << 40), Some(i128::MAX));
        assert_eq!(combine_ints("**", -10, (1 << 40) + 1), Some(i128::MIN));
        assert_eq!(combine_ints("**", 1, 1 << 40), Some(1));
        assert_eq!(combine_ints("<<", 1, 40), Some(1 << 40));
        assert_eq!(combine_ints("<<", 1, 1 << 40), Some(i128::MAX));
        assert_eq!(combine_ints("<<", 1, 127), Some(i128::MAX));
        assert_eq!(parse_int("0x10"), Some(16));
    }
}

/// Calls `visit` on every node below and including `root`, in source order, without recursion
/// (hostile nesting cannot exhaust the stack).
pub fn walk<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>)) {
    let mut cursor = root.walk();
    loop {
        visit(cursor.node());
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// Hashes tree-sitter node ids (addresses) with one multiplication: SipHash costs more than
/// the analysis itself on small snippets, and these keys are not attacker-chosen strings.
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A map keyed by node id.
pub type IdMap<V> = HashMap<usize, V, std::hash::BuildHasherDefault<IdHasher>>;

/// The tree flattened once into pre-order, with each node's parent. Later passes iterate the
/// list instead of walking cursors again, and tree-sitter's own `Node::parent` (which searches
/// down from the root, making deep input quadratic) is never needed.
pub struct FlatTree<'t> {
    pub nodes: Vec<Node<'t>>,
    parents: IdMap<Node<'t>>,
}

impl<'t> FlatTree<'t> {
    pub fn of(root: Node<'t>) -> Self {
        let mut nodes = Vec::new();
        let mut parents = IdMap::default();
        let mut stack: Vec<Node<'t>> = Vec::new();
        let mut cursor = root.walk();
        loop {
            let node = cursor.node();
            nodes.push(node);
            if let Some(parent) = stack.last() {
                parents.insert(node.id(), *parent);
            }
            if cursor.goto_first_child() {
                stack.push(node);
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return FlatTree { nodes, parents };
                }
                stack.pop();
            }
        }
    }

    pub fn parent(&self, node: Node<'t>) -> Option<Node<'t>> {
        self.parents.get(&node.id()).copied()
    }

    /// The nodes of the given kinds, in source order.
    pub fn of_kinds(&self, kinds: &[&str]) -> Vec<Node<'t>> {
        self.nodes
            .iter()
            .copied()
            .filter(|n| kinds.contains(&n.kind()))
            .collect()
    }
}

/// The source text of a node.
pub fn text<'s>(node: Node, source: &'s str) -> &'s str {
    source.get(node.byte_range()).unwrap_or("")
}

/// The named children of a node, collected (tree-sitter iterates them through a cursor).
pub fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// The argument expressions of a call's argument list, skipping comments.
pub fn arguments<'t>(args: Option<Node<'t>>) -> Vec<Node<'t>> {
    args.map(named_children)
        .unwrap_or_default()
        .into_iter()
        .filter(|n| n.kind() != "comment")
        .collect()
}

/// The value of an integer literal, decimal or with a `0x`, `0o` or `0b` prefix (without `_`
/// separators); too large saturates to `i128::MAX`.
pub fn parse_int(text: &str) -> Option<i128> {
    let lower = text.to_ascii_lowercase();
    let (digits, radix) = match lower.get(..2) {
        Some("0x") => (&lower[2..], 16),
        Some("0o") => (&lower[2..], 8),
        Some("0b") => (&lower[2..], 2),
        _ => (lower.as_str(), 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    Some(i128::from_str_radix(digits, radix).unwrap_or(i128::MAX))
}

/// Saturating integer arithmetic shared by the Python and JavaScript folders. Results too
/// large for `i128` saturate to its bounds, whatever the size of the operands.
pub fn combine_ints(op: &str, l: i128, r: i128) -> Option<i128> {
    let saturated = |negative: bool| if negative { i128::MIN } else { i128::MAX };
    Some(match op {
        "+" => l.saturating_add(r),
        "-" => l.saturating_sub(r),
        "*" => l.saturating_mul(r),
        "**" => {
            if r < 0 {
                return None; // a float
            }
            let odd = r % 2 == 1;
            match l {
                0 => i128::from(r == 0),
                1 => 1,
                -1 => {
                    if odd {
                        -1
                    } else {
                        1
                    }
                }
                _ => match u32::try_from(r) {
                    Ok(exp) if exp <= 127 => l
                        .checked_pow(exp)
                        .unwrap_or_else(|| saturated(l < 0 && odd)),
                    _ => saturated(l < 0 && odd),
                },
            }
        }
        "<<" => {
            if r < 0 {
                return None; // a ValueError
            }
            if l == 0 {
                0
            } else {
                match u32::try_from(r) {
                    Ok(shift) if shift < 127 && l.unsigned_abs().leading_zeros() > shift + 1 => {
                        l << shift
                    }
                    _ => saturated(l < 0),
                }
            }
        }
        _ => return None,
    })
}
