//! A bound on how much work one analysis does, counted in steps rather than time, so the
//! bound holds whatever the machine's load: every resolution, fold, taint or candidate step
//! that is not a memoized answer spends one. The limits on depth, meanings and binding
//! rounds bound each query; this bounds their product, which code built to make the
//! analysis follow the same values along many paths (recursive calls handing parameters to
//! each other) could otherwise make exponential.
//!
//! Once spent, every query answers "unknown" at once and the snippet gets an
//! `analysis-limit` fact: the analysis stops early and says so, and a policy that denies
//! what the analyzer could not finish reading denies it.

/// Steps every analysis may take, whatever its size.
const BASE_STEPS: u64 = 100_000;
/// Steps more per node of the lowered syntax. Ordinary code takes at most a few a node (7 in
/// the worst of some 8,000 files of algorithms, utilities and notebook cells, 3,000 in all);
/// the rest is headroom.
pub const STEPS_PER_NODE: u64 = 200;

pub struct Budget {
    left: u64,
    limit: u64,
    exhausted: bool,
}

impl Budget {
    /// The budget of an analysis of `nodes` nodes.
    pub fn for_nodes(nodes: usize) -> Budget {
        Budget::of(BASE_STEPS.saturating_add(STEPS_PER_NODE.saturating_mul(nodes as u64)))
    }

    pub(super) fn of(steps: u64) -> Budget {
        Budget {
            left: steps,
            limit: steps,
            exhausted: false,
        }
    }

    /// Takes one step; false (for this and every later step) once none is left.
    pub fn spend(&mut self) -> bool {
        if self.left == 0 {
            self.exhausted = true;
            return false;
        }
        self.left -= 1;
        true
    }

    /// True once a step was refused.
    pub fn exhausted(&self) -> bool {
        self.exhausted
    }

    /// Steps taken so far.
    pub fn spent(&self) -> u64 {
        self.limit - self.left
    }

    /// Steps this budget allows.
    pub fn limit(&self) -> u64 {
        self.limit
    }
}
