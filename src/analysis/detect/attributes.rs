//! Attributes: the names that reach interpreter internals on anything, the special, private
//! and capability names an allowlist of attributes judges on anything (but a private name the
//! snippet gives its own objects), and modules reached as another module's attribute, which
//! are loaded as surely as by an import statement (`shutil.os`, `asyncio.subprocess`).

use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::Value;
use crate::analysis::facts::{DynamicKind, FactKind};
use crate::analysis::ir::{Kind, NodeId};

pub fn report(e: &mut Engine, id: NodeId) {
    let Kind::Attr { object, name } = e.ir.kind(id) else {
        return;
    };
    let name = e.name(name);
    if e.dialect.tables().introspection_attributes.contains(&name) {
        e.dynamic(id, DynamicKind::Introspection, format!("`.{name}` reached"));
    }
    let private = name.starts_with('_') && !name.ends_with("__");
    // A capability name that is a module's member (`np.indices`, the function) is that
    // member, judged by the module's allowlist; on anything else it is the capability.
    let module_member = !name.starts_with('_')
        && e.resolve(object, 0)
            .iter()
            .any(|m| !m.held && matches!(m.value, Value::Module(_)));
    if !(private && super::own_members::is_own_member(e, object, name) || module_member) {
        report_special(e, id, name);
    }
    let owners = e.resolve(object, 0);
    let owner_is_module = owners
        .iter()
        .any(|m| !m.held && matches!(m.value, Value::Module(_) | Value::Name(_)));
    if !owner_is_module {
        return;
    }
    for m in e.resolve(id, 0).to_vec() {
        if let Value::Module(p) = m.value
            && !m.held
        {
            let module = e.paths.text(p).to_owned();
            e.push(id, FactKind::Import { module });
        }
    }
}

/// A special attribute (a Python `__dunder__`, JavaScript's `constructor`), for allowlists of
/// them. JavaScript's `constructor` only compared or named (`x.constructor === Object`,
/// `x.constructor.name`) reaches nothing.
pub fn report_special(e: &mut Engine, id: NodeId, name: &str) {
    if !e.dialect.is_special_attribute(name) {
        return;
    }
    if name == "constructor"
        && let Some((parent, _)) = e.ir.context(id)
    {
        let inert = match e.ir.kind(parent) {
            Kind::Binary {
                op: crate::analysis::ir::BinOp::Compare,
                ..
            } => true,
            Kind::Attr { name, .. } => e.name(name) == "name",
            _ => false,
        };
        if inert {
            return;
        }
    }
    e.push(
        id,
        FactKind::Attribute {
            name: name.to_owned(),
        },
    );
}
