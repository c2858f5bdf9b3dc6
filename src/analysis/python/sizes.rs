//! Huge allocations and integers: the value of every constant integer expression and how
//! often each sequence is repeated, computed bottom-up once, and the facts for what is too big.

use tree_sitter::Node;

use super::fold::fold_int_at;
use super::names::{ALLOCATING_CALLS, DIMENSION_CALLS, SIZE_KEYWORDS};
use super::{CallArgs, Python, normalize, unparenthesized};
use crate::analysis::HUGE_ALLOCATION;
use crate::analysis::collect::{Collector, arguments, combine_ints, named_children};
use crate::analysis::facts::DynamicKind;

/// Bits from which a constant integer expression counts as a bomb: computing or printing an
/// integer of 100 million bits (12.5 MB) takes minutes, and no snippet needs one.
const HUGE_BITS: f64 = HUGE_ALLOCATION as f64;

impl<'s, 't> Python<'s, 't> {
    /// A size or a shape: `10**9`, or `(10**5, 10**5)` as the product of its dimensions
    /// (report pass only).
    fn size(&self, node: Node) -> Option<i128> {
        match unparenthesized(node).kind() {
            "tuple" | "list" => named_children(unparenthesized(node))
                .into_iter()
                .map(|d| self.largest(d))
                .try_fold(1i128, |acc, d| Some(acc.saturating_mul(d?))),
            _ => self.largest(node),
        }
    }

    /// `bytearray(10**10)`, `np.zeros((10**5, 10**5))`, `np.ones(shape=...)`,
    /// `np.random.rand(10**5, 10**5)`.
    pub(super) fn report_allocation(
        &self,
        node: Node,
        name: &str,
        args: &CallArgs<'t>,
        out: &mut Collector,
    ) {
        let mut sizes = Vec::new();
        if DIMENSION_CALLS.contains(&name) && args.positional.len() > 1 {
            sizes.push(
                args.positional
                    .iter()
                    .map(|d| self.largest(*d))
                    .try_fold(1i128, |acc, d| Some(acc.saturating_mul(d?))),
            );
        } else if matches!(name, "bytes" | "bytearray") {
            // `bytes(n)` allocates n bytes; `bytes([47, 101])` is content, not a shape.
            sizes.push(args.positional.first().and_then(|a| self.largest(*a)));
        } else if ALLOCATING_CALLS.contains(&name) {
            sizes.push(args.positional.first().and_then(|a| self.size(*a)));
        }
        if name == "numpy" || name.starts_with("numpy.") || ALLOCATING_CALLS.contains(&name) {
            for keyword in SIZE_KEYWORDS {
                sizes.push(args.keyword(keyword).and_then(|a| self.size(a)));
            }
        }
        if let Some(size) = sizes.into_iter().flatten().max()
            && size >= HUGE_ALLOCATION
        {
            out.dynamic(
                node,
                DynamicKind::HugeAllocation,
                format!("`{name}` of {size} elements"),
            );
        }
    }

    /// `'x' * 10**10`, `[0] * (1 << 40)`, `("x" * 10**5) * 10**5`: a sequence repeated far
    /// beyond any memory limit.
    pub(super) fn report_repetition(&self, node: Node, out: &mut Collector) {
        if node.child_by_field_name("operator").map(|o| self.text(o)) != Some("*") {
            return;
        }
        if let Some(&n) = self.repeats.get(&node.id())
            && n >= HUGE_ALLOCATION
        {
            out.dynamic(
                node,
                DynamicKind::HugeAllocation,
                format!("a sequence repeated {n} times"),
            );
        }
    }

    /// Fills `sizes` and `repeats`, children before parents.
    pub(super) fn compute_sizes(&mut self) {
        for i in (0..self.tree.nodes.len()).rev() {
            let node = self.tree.nodes[i];
            if let Some(value) = self.size_of_node(node) {
                self.sizes.insert(node.id(), value);
            }
            if let Some(count) = self.repeats_of_node(node) {
                self.repeats.insert(node.id(), count);
            }
        }
    }

    /// One step of [`fold_int_at`], reading the operands from `sizes`.
    fn size_of_node(&self, node: Node) -> Option<i128> {
        let known = |n: Option<Node>| n.and_then(|n| self.sizes.get(&n.id()).copied());
        match node.kind() {
            "integer" | "float" => fold_int_at(node, self.source, None, 0),
            "identifier" => self
                .bindings
                .integer_value(&normalize(self.text(node)), true),
            "parenthesized_expression" => match named_children(node).as_slice() {
                [inner] => known(Some(*inner)),
                _ => None,
            },
            "call" => {
                let function = node.child_by_field_name("function")?;
                let args = arguments(node.child_by_field_name("arguments"));
                match (self.text(function), args.as_slice()) {
                    ("int", [value]) => known(Some(*value)),
                    _ => None,
                }
            }
            "unary_operator" => {
                let value = known(node.child_by_field_name("argument"))?;
                match self.text(node.child_by_field_name("operator")?) {
                    "-" => Some(value.saturating_neg()),
                    "+" => Some(value),
                    _ => None,
                }
            }
            "binary_operator" => {
                let l = known(node.child_by_field_name("left"))?;
                let r = known(node.child_by_field_name("right"))?;
                combine_ints(self.text(node.child_by_field_name("operator")?), l, r)
            }
            _ => None,
        }
    }

    /// How many times a repeated sequence holds its literal: 1 for the literal itself.
    fn repeats_of_node(&self, node: Node) -> Option<i128> {
        match node.kind() {
            "string" | "concatenated_string" | "list" | "tuple" | "list_comprehension" => Some(1),
            "parenthesized_expression" => match named_children(node).as_slice() {
                [inner] => self.repeats.get(&inner.id()).copied(),
                _ => None,
            },
            "binary_operator" => {
                if node.child_by_field_name("operator").map(|o| self.text(o)) != Some("*") {
                    return None;
                }
                let left = node.child_by_field_name("left")?;
                let right = node.child_by_field_name("right")?;
                [(left, right), (right, left)]
                    .into_iter()
                    .find_map(|(sequence, count)| {
                        let inner = self.repeats.get(&sequence.id())?;
                        Some(inner.saturating_mul(*self.sizes.get(&count.id())?))
                    })
            }
            _ => None,
        }
    }

    /// A constant integer expression's value, names at their largest (report pass only).
    fn largest(&self, node: Node) -> Option<i128> {
        self.sizes.get(&node.id()).copied()
    }

    /// `10**10**10`, `1 << 10**10`: an integer so large that computing it is the bomb.
    /// Reported once, at the outermost such operation.
    pub(super) fn report_power(&self, node: Node<'t>, out: &mut Collector) {
        let Some(bits) = self.power_bits(node).filter(|b| *b >= HUGE_BITS) else {
            return;
        };
        let outer_also_huge = self
            .tree
            .parent(node)
            .and_then(|p| self.power_bits(p))
            .is_some_and(|b| b >= HUGE_BITS);
        if !outer_also_huge {
            out.dynamic(
                node,
                DynamicKind::HugeAllocation,
                format!("an integer of about {bits:.0} bits"),
            );
        }
    }

    /// The approximate size in bits of a constant `a ** b` or `a << b`.
    fn power_bits(&self, node: Node) -> Option<f64> {
        if node.kind() != "binary_operator" {
            return None;
        }
        let op = self.text(node.child_by_field_name("operator")?);
        let left = node.child_by_field_name("left")?;
        let right = node.child_by_field_name("right")?;
        match op {
            "**" => self.power_call_bits(left, right),
            "<<" => {
                let (value, shift) = (self.largest(left)?, self.largest(right)?);
                (value != 0 && shift > 0)
                    .then(|| shift as f64 + (value.unsigned_abs() as f64).log2())
            }
            _ => None,
        }
    }

    /// The approximate size in bits of `base ** exponent` (also `pow(base, exponent)`).
    fn power_call_bits(&self, base: Node, exponent: Node) -> Option<f64> {
        if unparenthesized(base).kind() == "float" {
            return None; // float powers overflow at once rather than grow
        }
        let (base, exponent) = (self.largest(base)?, self.largest(exponent)?);
        (base.unsigned_abs() >= 2 && exponent > 0)
            .then(|| exponent as f64 * (base.unsigned_abs() as f64).log2())
    }

    pub(super) fn report_huge_power(
        &self,
        node: Node,
        base: Node,
        exponent: Node,
        out: &mut Collector,
    ) {
        if let Some(bits) = self.power_call_bits(base, exponent)
            && bits >= HUGE_BITS
        {
            out.dynamic(
                node,
                DynamicKind::HugeAllocation,
                format!("an integer of about {bits:.0} bits"),
            );
        }
    }
}
