//! Switches that turn off a native library's own memory checks. `ndarray.resize(...,
//! refcheck=False)` frees the buffer other arrays still view: through such a view the snippet
//! reads and writes memory the interpreter reuses for its own objects, and from there can undo
//! anything done in-process. The check stays on: `refcheck=` is allowed only as `True`, and a
//! `resize` given a `**` mapping may carry it.

use crate::analysis::engine::Engine;
use crate::analysis::facts::DynamicKind;
use crate::analysis::ir::{ConstKind, Kind, NodeId, Splat};

pub fn report(e: &mut Engine, call: NodeId) {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return;
    };
    if let Some(value) = e.keyword_arg(call, "refcheck")
        && !matches!(e.ir.kind(e.ir.unparen(value)), Kind::Const(ConstKind::True))
    {
        switched_off(e, value);
        return;
    }
    let resize = match e.ir.kind(callee) {
        Kind::Attr { name, .. } => e.name(name) == "resize",
        _ => false,
    };
    let Kind::Call { args, .. } = e.ir.kind(call) else {
        return;
    };
    let mapping = e.ir.list(args).iter().any(|&arg| {
        matches!(
            e.ir.kind(arg),
            Kind::Arg {
                splat: Splat::Keywords,
                ..
            }
        )
    });
    if resize && mapping {
        switched_off(e, call);
    }
}

fn switched_off(e: &mut Engine, at: NodeId) {
    e.dynamic(
        at,
        DynamicKind::Introspection,
        "`refcheck=` other than True lets `resize` free memory other arrays still view (reads \
         and writes of freed memory): leave it out, or copy with `np.resize(a, shape)`",
    );
}
