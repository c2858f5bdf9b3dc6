//! `traceback` suggests names for an `ImportError` that says where a name was imported from:
//! it imports the module the error names (`ImportError("...", name="m")` with `name_from` set),
//! so formatting such an error is an import of that module, made where no import statement
//! shows it. The module an error is given is an import of it; setting `name_from` makes it
//! one of any name.

use crate::analysis::engine::Engine;
use crate::analysis::engine::rewrites::is_store_target;
use crate::analysis::facts::{DynamicKind, FactKind};
use crate::analysis::ir::{Kind, NodeId};

/// The exceptions whose `name` traceback imports.
const IMPORT_ERRORS: &[&str] = &["ImportError", "ModuleNotFoundError"];

pub fn report(e: &mut Engine, id: NodeId) {
    match e.ir.kind(id) {
        Kind::Call { callee, .. } => {
            let names = e.names_of(callee);
            if !names.iter().any(|n| IMPORT_ERRORS.contains(&n.as_str())) {
                return;
            }
            if e.splatted(id) {
                return e.dynamic(id, DynamicKind::DynamicImport, "an ImportError's module, given through `**`: traceback imports it by that name");
            }
            if let Some(module) = e.keyword_arg(id, "name") {
                match e.fold(module, 0) {
                    Some(module) => e.push(
                        id,
                        FactKind::Import {
                            module: module.to_string(),
                        },
                    ),
                    None => e.dynamic(
                        id,
                        DynamicKind::DynamicImport,
                        "an ImportError's module named at run time: traceback imports it by that name",
                    ),
                }
            }
        }
        Kind::Attr { name, .. } if e.name(name) == "name_from" && is_store_target(e, id) => {
            e.dynamic(
                id,
                DynamicKind::DynamicImport,
                "`name_from` set on an error: traceback imports the module the error names",
            );
        }
        _ => {}
    }
}
