//! Pass 2 for calls: what each call and `new` is, with its constant arguments.

use tree_sitter::Node;

use super::names::{ALLOCATING, EVAL_NAMES, FUNCTION_LITERALS, LOADERS, STRING_TIMERS};
use super::{JavaScript, is_namespace, normalize_module, unparenthesized};
use crate::analysis::collect::{Collector, MAX_FACT_ARGS, arguments, is_under, named_children};
use crate::analysis::facts::{DynamicKind, FactKind};
use crate::analysis::{HUGE_ALLOCATION, NestedCode};

impl<'s, 't> JavaScript<'s, 't> {
    /// The constant arguments a call's fact carries: strings as they are, integers in
    /// decimal. The content argument of `write*`/`append*` is data, not a path, and is left out.
    fn fact_args(&mut self, name: &str, args: &[Node<'t>]) -> Vec<String> {
        let method = name.rsplit(['.', '/']).next().unwrap_or(name);
        let writes = method.starts_with("write") || method.starts_with("append");
        args.iter()
            .take(MAX_FACT_ARGS)
            .enumerate()
            .filter(|(i, _)| !(writes && *i == 1))
            .filter_map(|(_, a)| self.key(*a, 0))
            .collect()
    }

    pub(super) fn report_call(
        &mut self,
        node: Node<'t>,
        out: &mut Collector,
        nested: &mut Vec<NestedCode>,
    ) {
        let callee = if node.kind() == "new_expression" {
            node.child_by_field_name("constructor")
        } else {
            node.child_by_field_name("function")
        };
        let (functions, args) = if node.kind() == "new_expression" {
            let functions = callee.map(|c| self.resolve(c, 0)).unwrap_or_default();
            (functions, arguments(node.child_by_field_name("arguments")))
        } else {
            self.effective_call(node, 0)
        };
        if let Some(callee) = callee {
            self.report_constructor_call(node, callee, out);
        }
        let first = args.first().copied();
        let first_arg = first.and_then(|a| self.fold(a, 0));
        for name in functions {
            if name == "import" || LOADERS.contains(&name.as_str()) {
                match &first_arg {
                    Some(module) => out.push(
                        node,
                        FactKind::Import {
                            module: normalize_module(module),
                        },
                    ),
                    None => out.dynamic(
                        node,
                        DynamicKind::DynamicImport,
                        format!("`{name}` with a module name computed at run time"),
                    ),
                }
                if name == "import" {
                    continue;
                }
            }
            if matches!(
                name.as_str(),
                "Reflect.get"
                    | "Reflect.getOwnPropertyDescriptor"
                    | "Object.getOwnPropertyDescriptor"
            ) && args.get(1).and_then(|a| self.fold(*a, 0)).is_none()
            {
                let on_namespace = first.is_some_and(|o| {
                    name == "Reflect.get" || self.resolve(o, 0).iter().any(|n| is_namespace(n))
                });
                if on_namespace {
                    out.dynamic(
                        node,
                        DynamicKind::DynamicAttribute,
                        format!("`{name}` with a computed key"),
                    );
                }
            }
            if STRING_TIMERS.contains(&name.as_str())
                && first.is_some_and(|a| self.fold(a, 0).is_some())
            {
                out.dynamic(
                    node,
                    DynamicKind::CodeEval,
                    format!("`{name}` with a string runs it as code"),
                );
            }
            if EVAL_NAMES.contains(&name.as_str()) || is_under(&name, "vm") {
                // `Function(a, b, body)`: the body is the last argument.
                let code_arg = if name.ends_with("Function") {
                    args.last()
                } else {
                    first.as_ref()
                };
                if let Some(code) = code_arg.and_then(|a| self.fold(*a, 0)) {
                    nested.push(NestedCode {
                        code,
                        span: out.span(node),
                    });
                }
            }
            if name == "worker_threads.Worker" {
                self.report_worker(node, &args, out, nested);
            }
            if ALLOCATING.contains(&name.as_str())
                && let Some(size) = first.and_then(|a| self.integer(a, true))
                && size >= HUGE_ALLOCATION
            {
                out.dynamic(
                    node,
                    DynamicKind::HugeAllocation,
                    format!("`{name}` of {size} elements"),
                );
            }
            let fact_args = self.fact_args(&name, &args);
            self.report_use(node, name, true, fact_args, out);
        }
        self.report_repeat(node, first, out);
        if node.kind() == "call_expression" && self.is_maximal(node) {
            for meaning in self.resolve(node, 0) {
                self.report_use(node, meaning, false, Vec::new(), out);
            }
        }
    }

    /// `(() => {}).constructor('code')`, `[].map.constructor('code')`: calling the
    /// `.constructor` of a function value (a function literal, or a member or call result,
    /// which may be one) with arguments calls `Function`. A plain name's (`obj`, `this`) is
    /// left alone: it is usually an instance, whose constructor is its class.
    fn report_constructor_call(&mut self, node: Node<'t>, callee: Node<'t>, out: &mut Collector) {
        let callee = unparenthesized(callee);
        // `Function()` with no arguments makes an empty function; the clone idiom
        // `new this.value.constructor()` is that shape.
        let has_arguments = !arguments(node.child_by_field_name("arguments")).is_empty();
        if !has_arguments || !self.is_constructor_access(callee) {
            return;
        }
        let Some(object) = callee.child_by_field_name("object") else {
            return;
        };
        let object = unparenthesized(object);
        let function_like = FUNCTION_LITERALS.contains(&object.kind())
            || matches!(
                object.kind(),
                "member_expression" | "subscript_expression" | "call_expression"
            );
        if function_like {
            out.dynamic(
                node,
                DynamicKind::CodeEval,
                "calling a function's `.constructor` calls `Function`",
            );
        }
    }

    /// `new Worker(code, { eval: true })` runs `code`; `new Worker(path)` runs a script, which
    /// must be named by a constant.
    fn report_worker(
        &mut self,
        node: Node<'t>,
        args: &[Node<'t>],
        out: &mut Collector,
        nested: &mut Vec<NestedCode>,
    ) {
        let first = args.first().and_then(|a| self.fold(*a, 0));
        let evaluates = match args.get(1).map(|o| unparenthesized(*o)) {
            None => false,
            Some(options) if options.kind() == "object" => {
                let mut evaluates = false;
                for entry in named_children(options) {
                    match entry.kind() {
                        "pair" => {
                            let key = entry
                                .child_by_field_name("key")
                                .and_then(|k| self.property_key(k));
                            let value = entry.child_by_field_name("value").map(|v| self.text(v));
                            if key.as_deref() == Some("eval") && value != Some("false") {
                                evaluates = true;
                            }
                        }
                        "shorthand_property_identifier" => {
                            evaluates |= self.name(entry) == "eval";
                        }
                        "spread_element" => evaluates = true,
                        _ => {}
                    }
                }
                evaluates
            }
            Some(_) => true, // options computed at run time may say `eval: true`
        };
        let data_url = first
            .as_deref()
            .is_some_and(|s| s.trim_start().to_ascii_lowercase().starts_with("data:"));
        if evaluates || data_url {
            out.dynamic(
                node,
                DynamicKind::CodeEval,
                "`Worker` runs its first argument as code",
            );
            if let Some(code) = first.filter(|_| evaluates) {
                nested.push(NestedCode {
                    code,
                    span: out.span(node),
                });
            }
        } else if first.is_none() {
            out.dynamic(
                node,
                DynamicKind::DynamicImport,
                "`Worker` runs a script named at run time",
            );
        }
    }

    /// `'x'.repeat(1e10)`, `s.padEnd(2**40)`.
    fn report_repeat(&mut self, node: Node<'t>, first: Option<Node<'t>>, out: &mut Collector) {
        let Some(function) = node.child_by_field_name("function") else {
            return;
        };
        if function.kind() != "member_expression" {
            return;
        }
        let Some(method) = function
            .child_by_field_name("property")
            .map(|p| self.name(p))
        else {
            return;
        };
        if matches!(method.as_str(), "repeat" | "padStart" | "padEnd")
            && let Some(n) = first.and_then(|a| self.integer(a, true))
            && n >= HUGE_ALLOCATION
        {
            out.dynamic(
                node,
                DynamicKind::HugeAllocation,
                format!("`.{method}({n})`"),
            );
        }
    }
}
