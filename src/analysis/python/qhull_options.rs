//! Qhull's option text. scipy's spatial classes hand `qhull_options` to Qhull as written, and
//! Qhull's `T` options open files in native code: `TI file` reopens the process's standard
//! input on any file (the snippet then reads it as its own input), `TO file` its output. An
//! option text is judged as a file the call opens: one with a `T` anywhere (Qhull reads on
//! inside a word after a number: `C-0TI file`; no other option has a capital `T`), or one the
//! analyzer cannot read, names a file no rule can prove is in the work dir. (The runner
//! refuses a `T` too.)

use crate::analysis::engine::Engine;
use crate::analysis::facts::FactKind;
use crate::analysis::ir::{ConstKind, Kind, NodeId};

/// scipy's classes that run Qhull, with the position of `qhull_options`.
const QHULL_USERS: &[(&str, usize)] = &[
    ("ConvexHull", 2),
    ("Delaunay", 3),
    ("Voronoi", 3),
    ("HalfspaceIntersection", 3),
];

const KEYWORD: &str = "qhull_options";

pub fn report(e: &mut Engine, call: NodeId) {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return;
    };
    let names = e.names_of(callee);
    let Some((class, at)) = names.iter().find_map(|n| {
        let (module, class) = n.rsplit_once('.')?;
        let module = module.starts_with("scipy.spatial");
        QHULL_USERS
            .iter()
            .find(|(c, _)| module && *c == class)
            .map(|&(c, at)| (c, at))
    }) else {
        return;
    };
    let given = if e.splatted(call) {
        Some(None) // options from a `*`/`**` argument: text not read
    } else {
        e.arg(call, at, KEYWORD)
            .filter(|&value| {
                !matches!(e.ir.kind(e.ir.unparen(value)), Kind::Const(ConstKind::Null))
            })
            .map(|value| e.fold(value, 0))
    };
    let Some(options) = given else {
        return; // scipy's own options only
    };
    // Qhull reads on inside a word after a number (`C-0TI file`): any `T` is taken for one.
    let opens_a_file = options.as_deref().is_none_or(|text| text.contains('T'));
    if opens_a_file {
        e.push(
            call,
            FactKind::Path {
                function: format!("scipy.spatial.{class}, whose {KEYWORD} may name a file"),
                path: None,
            },
        );
    }
}
