//! scipy's `workers=` (`differential_evolution`, `brute`, `quad_vec`, ...) starts a
//! `multiprocessing` pool for any count but 1: worker processes started outside the runner,
//! which strict's allowlist keeps out (`multiprocessing` is not on it). A lambda or a
//! library's function there is a map called in the snippet's own process; any other value
//! may be a count.

use crate::analysis::engine::Engine;
use crate::analysis::facts::DynamicKind;
use crate::analysis::ir::{ConstKind, Kind, NodeId};

pub fn report(e: &mut Engine, call: NodeId) {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return;
    };
    let Some(workers) = e.keyword_arg(call, "workers") else {
        return;
    };
    if !e.names_of(callee).iter().any(|n| n.starts_with("scipy.")) {
        return;
    }
    let value = e.ir.unparen(workers);
    let one_process = matches!(
        e.ir.kind(value),
        Kind::Int(1) | Kind::Const(ConstKind::Null)
    ) || matches!(e.ir.kind(value), Kind::Function { .. })
        || !e.resolve(value, 0).is_empty() && !e.is_numeric(value);
    if !one_process {
        e.dynamic(
            workers,
            DynamicKind::UntrackedValue,
            "scipy's `workers=` starts worker processes (a multiprocessing pool) for any count \
             but 1: leave it out",
        );
    }
}
