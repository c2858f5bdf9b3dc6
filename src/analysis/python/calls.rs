//! Pass 2 for calls: what each call is, with its constant arguments.

use tree_sitter::Node;

use super::names::{
    ATTRIBUTE_FUNCTIONS, CALLABLE_EVAL_NAMES, EVAL_NAMES, IMPORT_FUNCTIONS,
    INTROSPECTION_ATTRIBUTES, LOADER_METHODS, METHODCALLER, PATH_KEYWORDS, SPEC_FINDERS,
};
use super::report::Site;
use super::{
    CallArgs, Python, import_fact, namespace_of_method, normalize, shown, unparenthesized,
};
use crate::analysis::NestedCode;
use crate::analysis::collect::{Collector, MAX_FACT_ARGS, qualify};
use crate::analysis::facts::DynamicKind;

impl<'s, 't> Python<'s, 't> {
    /// The constant arguments a call's fact carries: every positional argument that folds
    /// (strings as they are, integers in decimal), then keyword arguments that name files.
    fn fact_args(&mut self, args: &CallArgs<'t>) -> Vec<String> {
        let mut values = Vec::new();
        for arg in args.positional.iter().take(MAX_FACT_ARGS) {
            if let Some(value) = self
                .fold(*arg, 0)
                .or_else(|| self.integer(*arg).map(|n| n.to_string()))
            {
                values.push(value);
            }
        }
        for (name, value) in &args.keywords {
            if values.len() >= MAX_FACT_ARGS {
                break;
            }
            if PATH_KEYWORDS.contains(&name.as_str())
                && let Some(value) = self.fold(*value, 0)
            {
                values.push(value);
            }
        }
        values
    }

    pub(super) fn report_call(
        &mut self,
        node: Node<'t>,
        out: &mut Collector,
        nested: &mut Vec<NestedCode>,
    ) {
        let Some(function) = node.child_by_field_name("function") else {
            return;
        };
        let args = CallArgs::of(node, self.source);
        let first = args.positional.first().copied();
        let first_arg = first.and_then(|a| self.fold(a, 0));
        let fact_args = self.fact_args(&args);
        if function.kind() == "attribute"
            && let Some(method) = function.child_by_field_name("attribute")
            && LOADER_METHODS.contains(&normalize(self.text(method)).as_str())
        {
            out.dynamic(
                node,
                DynamicKind::DynamicImport,
                "a loader runs a module the imports do not name",
            );
        }
        for name in self.resolve(function, 0) {
            let name = self.refine_call(name, &args);
            if IMPORT_FUNCTIONS.contains(&name.as_str()) || SPEC_FINDERS.contains(&name.as_str()) {
                match &first_arg {
                    Some(module) => {
                        let module = match name.as_str() {
                            "pkgutil.resolve_name" => module.split(':').next().unwrap_or_default(),
                            _ => module,
                        };
                        out.push(node, import_fact(module.to_owned()));
                    }
                    None => out.dynamic(
                        node,
                        DynamicKind::DynamicImport,
                        format!("`{name}` with a module name computed at run time"),
                    ),
                }
            }
            if let Some((_, index)) = ATTRIBUTE_FUNCTIONS.iter().find(|(f, _)| *f == name) {
                match args.positional.get(*index).and_then(|a| self.fold(*a, 0)) {
                    Some(attr) if INTROSPECTION_ATTRIBUTES.contains(&attr.as_str()) => {
                        out.dynamic(
                            node,
                            DynamicKind::Introspection,
                            format!("`{name}` reaches `{attr}`"),
                        );
                    }
                    Some(_) => {}
                    None => out.dynamic(
                        node,
                        DynamicKind::DynamicAttribute,
                        format!("`{name}` with an attribute name computed at run time"),
                    ),
                }
            }
            if let Some(namespace) = namespace_of_method(&name) {
                match &first_arg {
                    Some(module) if namespace == "sys.modules" => {
                        out.push(node, import_fact(module.clone()))
                    }
                    Some(_) => {}
                    None => out.dynamic(
                        node,
                        DynamicKind::DynamicAttribute,
                        format!("`{}` with a name computed at run time", shown(&name)),
                    ),
                }
            }
            if let Some(method) = name
                .strip_prefix(METHODCALLER)
                .and_then(|rest| rest.strip_prefix('.'))
            {
                let objects = first.map(|o| self.resolve(o, 0)).unwrap_or_default();
                for object in objects {
                    self.report_use(node, qualify(&object, method), Site::Call, Vec::new(), out);
                }
            }
            if EVAL_NAMES.contains(&name.as_str())
                && let Some(code) = &first_arg
            {
                nested.push(NestedCode {
                    code: code.clone(),
                    span: out.span(node),
                });
            }
            self.report_allocation(node, &name, &args, out);
            if name == "pow"
                && let [base, exponent] = args.positional.as_slice()
            {
                self.report_huge_power(node, *base, *exponent, out);
            }
            if name == "numpy.load" && self.allows_pickle(&args) {
                // `np.load(..., allow_pickle=True)` unpickles object arrays.
                self.report_use(node, "pickle.load".to_owned(), Site::Call, Vec::new(), out);
            }
            let site = if CALLABLE_EVAL_NAMES.contains(&name.as_str()) && self.runs_no_text(&args) {
                Site::CallWithoutCode
            } else {
                Site::Call
            };
            self.report_use(node, name, site, fact_args.clone(), out);
        }
        if self.is_maximal(node) {
            for meaning in self.resolve(node, 0) {
                self.report_use(node, meaning, Site::Reference, Vec::new(), out);
            }
        }
    }

    /// A called name made precise by its arguments: `yaml.load(s, Loader=yaml.SafeLoader)`
    /// is `yaml.safe_load`.
    fn refine_call(&mut self, name: String, args: &CallArgs<'t>) -> String {
        let safe = match name.as_str() {
            "yaml.load" => "yaml.safe_load",
            "yaml.load_all" => "yaml.safe_load_all",
            _ => return name,
        };
        let Some(loader) = args.get(1, "Loader") else {
            return name;
        };
        let loaders = self.resolve(loader, 0);
        let all_safe = !loaders.is_empty()
            && loaders.iter().all(|l| {
                l.starts_with("yaml.")
                    && matches!(
                        l.rsplit('.').next(),
                        Some("SafeLoader" | "CSafeLoader" | "BaseLoader" | "CBaseLoader")
                    )
            });
        if all_safe { safe.to_owned() } else { name }
    }

    /// `allow_pickle=` given and not the constant `False`.
    fn allows_pickle(&self, args: &CallArgs<'t>) -> bool {
        args.get(2, "allow_pickle")
            .is_some_and(|v| !matches!(self.text(v), "False" | "0" | "None"))
    }

    /// True when `timeit`'s statement and setup are lambdas or functions the snippet defines,
    /// not text.
    fn runs_no_text(&self, args: &CallArgs<'t>) -> bool {
        [args.get(0, "stmt"), args.get(1, "setup")]
            .into_iter()
            .flatten()
            .all(|arg| {
                let arg = unparenthesized(arg);
                match arg.kind() {
                    "lambda" => true,
                    "identifier" => {
                        let name = normalize(self.text(arg));
                        self.scopes.functions.contains(&name)
                            && self.bindings.meanings(&name).is_none()
                            && self.bindings.constant_value(&name).is_none()
                    }
                    _ => false,
                }
            })
    }
}
