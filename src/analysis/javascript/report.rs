//! Pass 2: the facts for imports, names, properties, destructuring, literals and subscripts.

use tree_sitter::Node;

use super::names::{
    CALL_STACK_PROPERTIES, EVAL_NAMES, FUNCTION, FUNCTION_LITERALS, GLOBAL_OBJECTS,
    INTROSPECTION_NAMES, INTROSPECTION_PROPERTIES, LOADERS,
};
use super::{
    JavaScript, canonical, is_namespace, is_reference, normalize_module, reaches_call_stack,
    unparenthesized,
};
use crate::analysis::NestedCode;
use crate::analysis::collect::{Collector, MAX_EXPR_DEPTH, dedup_capped, is_under, qualify, walk};
use crate::analysis::facts::{DynamicKind, FactKind};

impl<'s, 't> JavaScript<'s, 't> {
    pub(super) fn report(
        &mut self,
        node: Node<'t>,
        out: &mut Collector,
        nested: &mut Vec<NestedCode>,
    ) {
        match node.kind() {
            "import_statement" | "export_statement" => {
                let Some(source) = node.child_by_field_name("source") else {
                    return;
                };
                match self.fold(source, 0) {
                    Some(module) => {
                        let module = normalize_module(&module);
                        out.push(
                            node,
                            FactKind::Import {
                                module: module.clone(),
                            },
                        );
                        self.report_named_imports(node, &module, out);
                    }
                    None => out.dynamic(
                        node,
                        DynamicKind::DynamicImport,
                        "import from a computed specifier",
                    ),
                }
            }
            "variable_declarator" | "assignment_expression" => self.report_destructuring(node, out),
            "identifier" | "shorthand_property_identifier"
                if is_reference(node, self.tree.parent(node)) && self.is_maximal(node) =>
            {
                for meaning in self.resolve(node, 0) {
                    self.report_use(node, meaning, false, Vec::new(), out);
                }
            }
            "member_expression" => {
                let object = node.child_by_field_name("object");
                if let Some(property) = node.child_by_field_name("property") {
                    let property = self.name(property);
                    if let Some(object) = object {
                        self.report_property(node, object, &property, out);
                    }
                }
                if self.is_maximal(node) {
                    for meaning in self.resolve(node, 0) {
                        self.report_use(node, meaning, false, Vec::new(), out);
                    }
                }
            }
            "subscript_expression" => self.report_subscript(node, out),
            "call_expression" | "new_expression" => {
                self.report_call(node, out, nested);
                if node.kind() == "call_expression" {
                    self.report_literal(node, out);
                }
            }
            "string" | "template_string" | "binary_expression" => self.report_literal(node, out),
            _ => {}
        }
    }

    /// A string constant, for rules on strings; one naming an engine internal is
    /// introspection in itself (`obj['__pro' + 'to__']`).
    fn report_literal(&mut self, node: Node<'t>, out: &mut Collector) {
        if let Some(value) = self.fold(node, 0) {
            if INTROSPECTION_PROPERTIES.contains(&value.as_str())
                && !CALL_STACK_PROPERTIES.contains(&value.as_str())
            {
                out.dynamic(
                    node,
                    DynamicKind::Introspection,
                    format!("string names `{value}`"),
                );
            }
            out.push(node, FactKind::Literal { value });
        }
    }

    /// What reaching `object.property` (or `object['property']`) reveals in itself.
    fn report_property(
        &mut self,
        node: Node<'t>,
        object: Node<'t>,
        property: &str,
        out: &mut Collector,
    ) {
        let reaches_internals = if CALL_STACK_PROPERTIES.contains(&property) {
            self.is_call_stack_holder(object)
        } else {
            INTROSPECTION_PROPERTIES.contains(&property)
        };
        if reaches_internals {
            out.dynamic(
                node,
                DynamicKind::Introspection,
                format!("`.{property}` reached"),
            );
        }
        if property != "constructor" {
            return;
        }
        let object = unparenthesized(object);
        if self.is_constructor_access(object) {
            out.dynamic(
                node,
                DynamicKind::Introspection,
                "`.constructor.constructor` reaches `Function`",
            );
            out.dynamic(
                node,
                DynamicKind::CodeEval,
                "`.constructor.constructor` is `Function`",
            );
        } else if matches!(
            object.kind(),
            "member_expression" | "subscript_expression" | "call_expression"
        ) && self.is_handed_on(node)
        {
            // `const F = [].map.constructor`: the constructor of what may be a function, kept
            // to be called later. Compared (`x.constructor === Y`) or read further
            // (`.name`), it is left alone.
            out.dynamic(
                node,
                DynamicKind::CodeEval,
                "the `.constructor` of a function value is `Function`",
            );
        }
    }

    /// True when an expression's value is stored, passed or returned as it is.
    fn is_handed_on(&self, node: Node<'t>) -> bool {
        let mut node = node;
        let mut parent = self.tree.parent(node);
        while let Some(p) = parent.filter(|p| p.kind() == "parenthesized_expression") {
            node = p;
            parent = self.tree.parent(p);
        }
        let Some(parent) = parent else {
            return false;
        };
        match parent.kind() {
            "variable_declarator" => parent.child_by_field_name("value") == Some(node),
            "assignment_expression" | "assignment_pattern" => {
                parent.child_by_field_name("right") == Some(node)
            }
            "arguments"
            | "array"
            | "return_statement"
            | "spread_element"
            | "pair"
            | "ternary_expression"
            | "sequence_expression" => true,
            _ => false,
        }
    }

    /// True for `arguments`, a function, or an existing `.callee`/`.caller`: the objects whose
    /// `.callee`/`.caller` reach other frames' functions.
    fn is_call_stack_holder(&mut self, object: Node<'t>) -> bool {
        let object = unparenthesized(object);
        if object.kind() == "identifier" && self.name(object) == "arguments" {
            return true;
        }
        if FUNCTION_LITERALS.contains(&object.kind()) {
            return true;
        }
        if object.kind() == "member_expression"
            && object
                .child_by_field_name("property")
                .is_some_and(|p| CALL_STACK_PROPERTIES.contains(&self.name(p).as_str()))
        {
            return true;
        }
        self.resolve(object, 0)
            .iter()
            .any(|n| n == FUNCTION || n == "Function" || n == "arguments")
    }

    /// `x.constructor` or `x['constructor']` — the first half of `.constructor.constructor`.
    pub(super) fn is_constructor_access(&mut self, node: Node<'t>) -> bool {
        match node.kind() {
            "member_expression" => node
                .child_by_field_name("property")
                .is_some_and(|p| self.name(p) == "constructor"),
            "subscript_expression" => node
                .child_by_field_name("index")
                .and_then(|i| self.fold(i, 0))
                .is_some_and(|k| k == "constructor"),
            _ => false,
        }
    }

    fn report_named_imports(&mut self, node: Node<'t>, module: &str, out: &mut Collector) {
        let mut specs = Vec::new();
        walk(node, |n| {
            if n.kind() == "import_specifier" || n.kind() == "export_specifier" {
                specs.push(n);
            }
        });
        for spec in specs {
            if let Some(name) = spec.child_by_field_name("name") {
                let imported = self.fold(name, 0).unwrap_or_else(|| self.name(name));
                if imported != "default" {
                    self.report_use(
                        spec,
                        canonical(qualify(module, &imported)),
                        false,
                        Vec::new(),
                        out,
                    );
                }
            }
        }
    }

    /// `const {exec} = require('child_process')` uses `child_process.exec` right there.
    fn report_destructuring(&mut self, node: Node<'t>, out: &mut Collector) {
        let (pattern, value) = match node.kind() {
            "variable_declarator" => (
                node.child_by_field_name("name"),
                node.child_by_field_name("value"),
            ),
            _ => (
                node.child_by_field_name("left"),
                node.child_by_field_name("right"),
            ),
        };
        let (Some(pattern), Some(value)) = (pattern, value) else {
            return;
        };
        let pattern = unparenthesized(pattern);
        if pattern.kind() != "object_pattern" {
            return;
        }
        let sources = self.resolve(value, 0);
        let value_is_function = FUNCTION_LITERALS.contains(&unparenthesized(value).kind())
            || unparenthesized(value).kind() == "identifier"
                && self.name(unparenthesized(value)) == "arguments";
        self.report_object_pattern(pattern, &sources, value_is_function, out, 0);
    }

    fn report_object_pattern(
        &mut self,
        pattern: Node<'t>,
        sources: &[String],
        holds_call_stack: bool,
        out: &mut Collector,
        depth: usize,
    ) {
        if depth > MAX_EXPR_DEPTH {
            self.too_deep.record(pattern);
            return;
        }
        let holds_call_stack = holds_call_stack
            || sources
                .iter()
                .any(|s| s == FUNCTION || s == "Function" || s == "arguments");
        for (entry, key, target) in self.pattern_entries(pattern) {
            match key {
                Some(key) => {
                    let internal = if CALL_STACK_PROPERTIES.contains(&key.as_str()) {
                        holds_call_stack
                    } else {
                        INTROSPECTION_PROPERTIES.contains(&key.as_str())
                    };
                    if internal {
                        out.dynamic(
                            entry,
                            DynamicKind::Introspection,
                            format!("`{key}` destructured"),
                        );
                    }
                    let meanings: Vec<String> = sources
                        .iter()
                        .map(|s| canonical(qualify(s, &key)))
                        .collect();
                    for meaning in &meanings {
                        self.report_use(entry, meaning.clone(), false, Vec::new(), out);
                    }
                    if target.kind() == "object_pattern" {
                        let meanings = dedup_capped(meanings);
                        self.report_object_pattern(target, &meanings, false, out, depth + 1);
                    }
                }
                None if entry.kind() == "pair_pattern"
                    && sources.iter().any(|s| is_namespace(s)) =>
                {
                    out.dynamic(
                        entry,
                        DynamicKind::DynamicAttribute,
                        "destructured by a computed key",
                    )
                }
                None => {}
            }
        }
    }

    pub(super) fn is_maximal(&mut self, node: Node<'t>) -> bool {
        let Some(parent) = self.tree.parent(node) else {
            return true;
        };
        let continues = match parent.kind() {
            "member_expression" | "subscript_expression" => {
                parent.child_by_field_name("object") == Some(node)
            }
            "call_expression" => return parent.child_by_field_name("function") != Some(node),
            "new_expression" => return parent.child_by_field_name("constructor") != Some(node),
            _ => false,
        };
        !continues || self.resolve(parent, 0).is_empty()
    }

    pub(super) fn report_use(
        &mut self,
        node: Node,
        name: String,
        called: bool,
        args: Vec<String>,
        out: &mut Collector,
    ) {
        if EVAL_NAMES.contains(&name.as_str()) || is_under(&name, "vm") && name != "vm" {
            out.dynamic(
                node,
                DynamicKind::CodeEval,
                format!("`{name}` runs text as code"),
            );
        }
        if INTROSPECTION_NAMES.iter().any(|n| is_under(&name, n)) || reaches_call_stack(&name) {
            out.dynamic(
                node,
                DynamicKind::Introspection,
                format!("`{name}` reaches engine internals"),
            );
        }
        // Aliases of `require` are followed (`const r = require`), but not into containers or
        // parameters: `[require][0](...)`, `{ r: require }`, `((r) => r(...))(require)`.
        let require_escapes = name == "require"
            && (node.kind() == "shorthand_property_identifier"
                || self.tree.parent(node).is_some_and(|p| match p.kind() {
                    "array" | "arguments" => true,
                    "pair" => p.child_by_field_name("value") == Some(node),
                    _ => false,
                }));
        if !called && LOADERS.contains(&name.as_str()) && (name != "require" || require_escapes) {
            out.dynamic(
                node,
                DynamicKind::DynamicImport,
                format!("`{name}` used as a value"),
            );
        }
        out.push(node, FactKind::Use { name, called, args });
    }

    fn report_subscript(&mut self, node: Node<'t>, out: &mut Collector) {
        let (Some(object), Some(index)) = (
            node.child_by_field_name("object"),
            node.child_by_field_name("index"),
        ) else {
            return;
        };
        match self.key(index, 0) {
            Some(key) => self.report_property(node, object, &key, out),
            None => {
                // `self[k]` where `self` is a local (`const self = this`) is not the global.
                let bare = unparenthesized(object);
                let local_global_name = bare.kind() == "identifier"
                    && GLOBAL_OBJECTS.contains(&self.name(bare).as_str())
                    && self.declared.contains(&self.name(bare));
                let namespace = self
                    .resolve(object, 0)
                    .into_iter()
                    .filter(|o| !(o.is_empty() && local_global_name))
                    .find(|o| is_namespace(o));
                if let Some(namespace) = namespace {
                    let shown = if namespace.is_empty() {
                        "globalThis"
                    } else {
                        &namespace
                    };
                    out.dynamic(
                        node,
                        DynamicKind::DynamicAttribute,
                        format!("`{shown}[...]` looked up by a computed name"),
                    );
                }
            }
        }
        if self.is_maximal(node) {
            for meaning in self.resolve(node, 0) {
                self.report_use(node, meaning, false, Vec::new(), out);
            }
        }
    }
}
