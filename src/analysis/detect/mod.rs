//! The detections: one small function per thing worth reporting, each run on the nodes it is
//! about. They ask the engine what names mean and read the dialect's tables; none knows
//! which language it runs on.

mod annotations;
mod attribute_names;
mod attributes;
mod buffers;
mod calls;
mod class_uses;
mod entities;
mod escapes;
mod imports;
mod literals;
mod own_members;
mod path_attributes;
mod paths;
mod rebinding;
mod subscripts;
mod type_text;
mod uses;

pub use attribute_names::makes_a_class;
pub use attributes::report_special;
pub use calls::{is_namespace, report_accessor};
pub use class_uses::{CLASS_DESCRIPTIONS, CLASS_READERS};
pub use own_members::{keeps_its_own_members, receiver_class};
pub use path_attributes::assigned_value;
pub use uses::{Site, report_use};

use super::engine::Engine;
use super::ir::{Kind, NodeId};

/// Runs every detection that applies to `id`.
pub fn report(e: &mut Engine, id: NodeId) {
    match e.ir.kind(id) {
        Kind::Import { .. } => imports::report(e, id),
        Kind::Name(_) => {
            uses::report_reference(e, id);
            annotations::report_type_name(e, id);
            literals::report_internal_name(e, id);
            rebinding::report_read_only_use(e, id);
        }
        Kind::This => uses::report_reference(e, id),
        Kind::Attr { .. } => {
            attributes::report(e, id);
            uses::report_reference(e, id);
            annotations::report_annotations_written(e, id);
            annotations::report_computed_type(e, id);
            annotations::report_module_redirect(e, id);
            path_attributes::report(e, id);
            rebinding::report_read_only_use(e, id);
        }
        Kind::Bind(_) => {
            annotations::report_annotations_written(e, id);
            annotations::report_module_redirect(e, id);
            literals::report_internal_name(e, id);
        }
        Kind::Arg { .. } => literals::report_internal_name(e, id),
        Kind::Index { .. } => {
            subscripts::report(e, id);
            uses::report_reference(e, id);
            literals::report(e, id);
            path_attributes::report(e, id);
            rebinding::report_read_only_use(e, id);
            attribute_names::report_key_store(e, id);
            annotations::report_computed_type(e, id);
        }
        Kind::Call { .. } => {
            entities::report(e, id);
            attribute_names::report_factory(e, id);
            attribute_names::report_key_store(e, id);
            calls::report(e, id);
            paths::report(e, id);
            path_attributes::report(e, id);
            uses::report_call(e, id);
            literals::report(e, id);
            annotations::report_annotations_written(e, id);
            annotations::report_computed_type(e, id);
            annotations::report_unreadable_fields(e, id);
            annotations::report_module_redirect(e, id);
            annotations::report_hint_namespaces(e, id);
            rebinding::report(e, id);
            rebinding::report_read_only_use(e, id);
        }
        Kind::Str { .. } | Kind::Template { .. } => {
            literals::report_string(e, id);
            annotations::report_text(e, id);
            annotations::report_annotations_written(e, id);
            annotations::report_module_redirect(e, id);
        }
        Kind::Binary { .. } => {
            literals::report(e, id);
            annotations::report_annotations_written(e, id);
            annotations::report_computed_type(e, id);
        }
        Kind::Cond { .. } | Kind::Walrus { .. } => annotations::report_computed_type(e, id),
        Kind::Assign { .. }
        | Kind::AugAssign { .. }
        | Kind::Delete { .. }
        | Kind::For { .. }
        | Kind::CompFor { .. }
        | Kind::WithItem { .. }
        | Kind::Catch { .. } => {
            rebinding::report(e, id);
            rebinding::report_read_only_augmented(e, id);
        }
        _ => {}
    }
    escapes::report(e, id);
}

/// True unless the enclosing chain (`x.attr`, `x[k]`, `x(...)`) continues this expression
/// and resolves, and so reports the longer name itself.
pub fn is_maximal(e: &mut Engine, id: NodeId) -> bool {
    let Some(parent) = e.ir.parent(id) else {
        return true;
    };
    let continues = match e.ir.kind(parent) {
        Kind::Attr { object, .. } => object == id,
        Kind::Index { object, .. } => object == id,
        Kind::Call { callee, .. } => return callee != id,
        _ => false,
    };
    !continues || e.resolve(parent, 0).is_empty()
}

/// True when `id` is the function a call calls.
pub fn is_callee(e: &Engine, id: NodeId) -> bool {
    e.ir.parent(id)
        .is_some_and(|p| matches!(e.ir.kind(p), Kind::Call { callee, .. } if callee == id))
}
