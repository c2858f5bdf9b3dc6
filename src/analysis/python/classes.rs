//! The class of a value (`type(x)`, `x.__class__`) is a constructor the analyzer cannot name:
//! `type(open("a").raw)` is `io.FileIO`, `sys.stdin.buffer.raw.__class__` the same, and
//! calling either opens whatever path it is given, with no path function in sight. Read for
//! its name, compared, printed, displayed or tested with `isinstance`, it opens nothing; used any other
//! way (called, kept, passed on, a member taken) it is a value the analyzer cannot follow.

use crate::analysis::detect::{CLASS_DESCRIPTIONS, CLASS_READERS};
use crate::analysis::engine::Engine;
use crate::analysis::facts::DynamicKind;
use crate::analysis::ir::{BinOp, Kind, NodeId};

pub fn report(e: &mut Engine, id: NodeId) {
    if !is_class_of_value(e, id) || is_only_described(e, id) {
        return;
    }
    e.dynamic(
        id,
        DynamicKind::UntrackedValue,
        "the class of a value may be a file or a loader the analyzer cannot name; calling or \
         handing it on is not followed",
    );
}

/// `type(x)` with one argument, or `x.__class__`.
fn is_class_of_value(e: &mut Engine, id: NodeId) -> bool {
    match e.ir.kind(id) {
        Kind::Attr { name, .. } => e.name(name) == "__class__",
        Kind::Call { callee, .. } => {
            e.positional_args(id).len() == 1
                && !e.splatted(id)
                && e.names_of(callee).iter().any(|n| n == "type")
        }
        _ => false,
    }
}

fn is_only_described(e: &mut Engine, id: NodeId) -> bool {
    let Some(parent) = e.ir.parent(id) else {
        return false;
    };
    match e.ir.kind(parent) {
        Kind::Attr { object, name } if object == id => CLASS_DESCRIPTIONS.contains(&e.name(name)),
        Kind::Binary {
            op: BinOp::Compare, ..
        }
        | Kind::Compared
        | Kind::Interp { .. }
        // `type(x)` alone on a line: a notebook displays it.
        | Kind::ExprStatement => true,
        // `[type(v) for v in values]`, displayed or printed.
        Kind::Paren(_) | Kind::Comprehension { .. } => is_only_described(e, parent),
        Kind::Arg { .. } => {
            let Some(call) = e.ir.parent(parent) else {
                return false;
            };
            let Kind::Call { callee, .. } = e.ir.kind(call) else {
                return false;
            };
            let names = e.names_of(callee);
            !names.is_empty() && names.iter().all(|n| CLASS_READERS.contains(&n.as_str()))
        }
        _ => false,
    }
}
