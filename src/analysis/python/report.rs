//! Pass 2: the facts for imports, names, literals and subscripts.

use tree_sitter::Node;

use super::names::{
    ATTRIBUTE_FUNCTIONS, CALLABLE_EVAL_NAMES, EVAL_NAMES, FILE_LOADERS, IMPORT_FUNCTIONS,
    INTROSPECTION_ATTRIBUTES, INTROSPECTION_NAMES,
};
use super::{Python, children_by_field, import_fact, is_namespace, is_reference, normalize, shown};
use crate::analysis::NestedCode;
use crate::analysis::collect::{Collector, qualify};
use crate::analysis::facts::{DynamicKind, FactKind};

/// Where a use of a name is reported from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Site {
    /// Named in an expression: passed, stored, or the object of an attribute.
    Reference,
    /// Named by `from M import name`.
    Import,
    /// Called.
    Call,
    /// Called with arguments known not to be code (`timeit.timeit(lambda: f())`).
    CallWithoutCode,
}

impl<'s, 't> Python<'s, 't> {
    pub(super) fn report(
        &mut self,
        node: Node<'t>,
        out: &mut Collector,
        nested: &mut Vec<NestedCode>,
    ) {
        match node.kind() {
            "import_statement" => {
                for name in children_by_field(node, "name") {
                    let module = match name.kind() {
                        "aliased_import" => {
                            name.child_by_field_name("name").map(|m| self.dotted(m))
                        }
                        _ => Some(self.dotted(name)),
                    };
                    if let Some(module) = module {
                        out.push(name, import_fact(module));
                    }
                }
            }
            "import_from_statement" => {
                let Some(module) = self.imported_module(node) else {
                    return;
                };
                out.push(node, import_fact(module.clone()));
                for name in children_by_field(node, "name") {
                    let imported = match name.kind() {
                        "aliased_import" => {
                            name.child_by_field_name("name").map(|n| self.dotted(n))
                        }
                        _ => Some(self.dotted(name)),
                    };
                    if let Some(imported) = imported {
                        for full in self.expand(vec![qualify(&module, &imported)]) {
                            self.report_use(name, full, Site::Import, Vec::new(), out);
                        }
                    }
                }
            }
            "identifier" if is_reference(node, self.tree.parent(node)) && self.is_maximal(node) => {
                let name = normalize(self.text(node));
                if name == "__builtins__" {
                    out.dynamic(node, DynamicKind::Introspection, "`__builtins__` reached");
                }
                for meaning in self.resolve(node, 0) {
                    self.report_use(node, meaning, Site::Reference, Vec::new(), out);
                }
            }
            "attribute" => {
                if let Some(attr) = node.child_by_field_name("attribute") {
                    let attr = normalize(self.text(attr));
                    if INTROSPECTION_ATTRIBUTES.contains(&attr.as_str()) {
                        out.dynamic(
                            node,
                            DynamicKind::Introspection,
                            format!("`.{attr}` reached"),
                        );
                    }
                }
                if self.is_maximal(node) {
                    for meaning in self.resolve(node, 0) {
                        self.report_use(node, meaning, Site::Reference, Vec::new(), out);
                    }
                }
            }
            "subscript" => {
                self.report_subscript(node, out);
                self.report_literal(node, out);
            }
            "call" => {
                self.report_call(node, out, nested);
                self.report_literal(node, out);
            }
            "binary_operator" => {
                self.report_repetition(node, out);
                self.report_power(node, out);
                self.report_literal(node, out);
            }
            "string" => {
                let in_concatenation = self
                    .tree
                    .parent(node)
                    .is_some_and(|p| p.kind() == "concatenated_string");
                if !in_concatenation {
                    self.report_literal(node, out);
                }
            }
            "concatenated_string" => self.report_literal(node, out),
            _ => {}
        }
    }

    /// A string constant, for rules on strings; one that names interpreter internals is
    /// introspection in itself (`getattr(f, '__glo' + 'bals__')`).
    fn report_literal(&mut self, node: Node<'t>, out: &mut Collector) {
        if let Some(value) = self.fold(node, 0) {
            if INTROSPECTION_ATTRIBUTES.contains(&value.as_str()) {
                out.dynamic(
                    node,
                    DynamicKind::Introspection,
                    format!("string names `{value}`"),
                );
            }
            out.push(node, FactKind::Literal { value });
        }
    }

    /// True unless the enclosing chain (`x.attr`, `x[k]`, `x(...)`) resolves and so reports
    /// the longer name itself.
    pub(super) fn is_maximal(&mut self, node: Node<'t>) -> bool {
        let Some(parent) = self.tree.parent(node) else {
            return true;
        };
        let continues = match parent.kind() {
            "attribute" => parent.child_by_field_name("object") == Some(node),
            "subscript" => parent.child_by_field_name("value") == Some(node),
            "call" => return parent.child_by_field_name("function") != Some(node),
            _ => false,
        };
        !continues || self.resolve(parent, 0).is_empty()
    }

    pub(super) fn report_use(
        &mut self,
        node: Node,
        name: String,
        site: Site,
        args: Vec<String>,
        out: &mut Collector,
    ) {
        let called = matches!(site, Site::Call | Site::CallWithoutCode);
        if EVAL_NAMES.contains(&name.as_str()) {
            let runs_no_text = CALLABLE_EVAL_NAMES.contains(&name.as_str())
                && matches!(site, Site::Import | Site::CallWithoutCode);
            if !runs_no_text {
                out.dynamic(
                    node,
                    DynamicKind::CodeEval,
                    format!("`{name}` runs text as code"),
                );
            }
        }
        if INTROSPECTION_NAMES.contains(&name.as_str()) {
            out.dynamic(
                node,
                DynamicKind::Introspection,
                format!("`{name}` reaches interpreter internals"),
            );
        }
        if site == Site::Reference && IMPORT_FUNCTIONS.contains(&name.as_str()) {
            out.dynamic(
                node,
                DynamicKind::DynamicImport,
                format!("`{name}` used as a value"),
            );
        }
        if site != Site::Import && FILE_LOADERS.contains(&name.as_str()) {
            out.dynamic(
                node,
                DynamicKind::DynamicImport,
                format!("`{name}` loads code the imports do not name"),
            );
        }
        if site == Site::Reference && ATTRIBUTE_FUNCTIONS.iter().any(|(f, _)| *f == name) {
            out.dynamic(
                node,
                DynamicKind::DynamicAttribute,
                format!("`{name}` used as a value"),
            );
        }
        // `asyncio.subprocess.subprocess`: a module reached as another module's attribute
        // is loaded as surely as by an import statement.
        for at in self.reexports(&name) {
            let module = name[at..].split('.').next().unwrap_or_default();
            out.push(node, import_fact(module.to_owned()));
        }
        out.push(node, FactKind::Use { name, called, args });
    }

    fn report_subscript(&mut self, node: Node<'t>, out: &mut Collector) {
        let (Some(value), Some(key)) = (
            node.child_by_field_name("value"),
            node.child_by_field_name("subscript"),
        ) else {
            return;
        };
        let namespaces: Vec<String> = self
            .resolve(value, 0)
            .into_iter()
            .filter(|v| is_namespace(v))
            .collect();
        if !namespaces.is_empty() {
            match self.fold(key, 0) {
                Some(key) if namespaces.iter().any(|n| n == "sys.modules") => {
                    out.push(node, import_fact(key));
                }
                Some(_) => {}
                None => out.dynamic(
                    node,
                    DynamicKind::DynamicAttribute,
                    format!(
                        "`{}[...]` looked up by a computed name",
                        shown(&namespaces[0])
                    ),
                ),
            }
        }
        if self.is_maximal(node) {
            for meaning in self.resolve(node, 0) {
                self.report_use(node, meaning, Site::Reference, Vec::new(), out);
            }
        }
    }
}
