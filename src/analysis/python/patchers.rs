//! `unittest.mock.patch("os.system")` imports its target's module by name: the patcher's
//! `getter()` hands that module back (and `get_original()`, an introspection attribute, the
//! original member). A patcher's `getter` is therefore an import the imports do not name.
//! Patching itself (`with patch("os.system") as fake:`) hands out only the replacement.

use crate::analysis::engine::Engine;
use crate::analysis::facts::DynamicKind;
use crate::analysis::ir::{Kind, NodeId};

/// How many names a patcher may pass through before it counts as lost.
const MAX_ALIASES: usize = 4;

pub fn report(e: &mut Engine, id: NodeId) {
    let Kind::Attr { object, name } = e.ir.kind(id) else {
        return;
    };
    if e.name(name) == "getter" && is_patcher(e, object, 0) {
        e.dynamic(
            id,
            DynamicKind::DynamicImport,
            "a `unittest.mock` patcher's `getter` imports the module its target names",
        );
    }
}

/// `patch(...)`, `patch.object(...)`, ..., or a name bound to one.
fn is_patcher(e: &mut Engine, id: NodeId, depth: usize) -> bool {
    let id = e.ir.unparen(id);
    match e.ir.kind(id) {
        Kind::Call { callee, .. } => e
            .names_of(callee)
            .iter()
            .any(|n| crate::analysis::is_under(n, "unittest.mock.patch")),
        Kind::Name(sym) if depth < MAX_ALIASES => {
            // any of its bindings (`every_bind` visits them all when the test holds)
            let mut some = false;
            e.every_bind(sym, id, |e, bind| {
                let value = e.ir.parent(bind).and_then(|p| match e.ir.kind(p) {
                    Kind::Assign { value, .. } => Some(value),
                    _ => None,
                });
                some |= value.is_some_and(|v| is_patcher(e, v, depth + 1));
                true
            });
            some
        }
        _ => false,
    }
}
