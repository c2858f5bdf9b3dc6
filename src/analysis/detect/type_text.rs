//! Whether a type written as text provably evaluates to a type. `typing.get_type_hints`
//! evaluates annotation text as an expression (attributes, subscripts and all) with the
//! class's namespace as it is at the call, and evaluates the result again when it is a string
//! (as it does every string inside a generic). The text's code is analyzed where it stands;
//! what it evaluates to is judged here: a (dotted) name of a class, function, module member or
//! typing construct, a generic's subscript of such types, `None`, `...`, a union, or text of
//! the same kind. Anything else (an attribute of something that is not a module, a subscript
//! of data, `__doc__`, a name that may hold text or that the snippet stores onto an object
//! after the class body) may give text that nobody read.

use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::Value;
use crate::analysis::engine::rewrites::is_store_target;
use crate::analysis::ir::{Kind, NodeId};
use tree_sitter::Node;

/// Deepest nesting of a type's text judged; deeper text is not proven.
const MAX_DEPTH: usize = 32;

/// Why the type text `text`, written at `at`, may not evaluate to a type; `None` when it does.
pub fn not_a_type(e: &mut Engine, at: NodeId, text: &str) -> Option<String> {
    judge_text(e, at, text, 0).err()
}

fn judge_text(e: &mut Engine, at: NodeId, text: &str, depth: usize) -> Result<(), String> {
    let unreadable = || "text the analyzer cannot read as a type".to_owned();
    let source = format!("(\n{text}\n)\n");
    let tree = crate::analysis::parse(crate::analysis::Language::Python, &source)
        .filter(|t| !t.root_node().has_error())
        .ok_or_else(unreadable)?;
    let root = tree.root_node();
    let statement = root
        .named_child(0)
        .filter(|_| root.named_child_count() == 1)
        .ok_or_else(unreadable)?;
    let expression = statement
        .named_child(0)
        .filter(|_| statement.kind() == "expression_statement")
        .ok_or_else(unreadable)?;
    let mut judge = Judge {
        e,
        at,
        source: &source,
        depth,
    };
    judge.type_of(expression, depth)
}

struct Judge<'j, 'e> {
    e: &'j mut Engine<'e>,
    at: NodeId,
    source: &'j str,
    depth: usize,
}

impl Judge<'_, '_> {
    fn text(&self, node: Node) -> &str {
        &self.source[node.byte_range()]
    }

    /// Judges an expression that typing evaluates as a type.
    fn type_of(&mut self, node: Node, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err("a type's text nested too deep to judge".to_owned());
        }
        match node.kind() {
            "parenthesized_expression" => self.children(node, depth, Self::type_of),
            "none" | "ellipsis" => Ok(()),
            "identifier" => self.name(node),
            "attribute" => self.dotted(node),
            "subscript" => self.subscript(node, depth),
            "binary_operator" => {
                let op = node
                    .child_by_field_name("operator")
                    .map(|o| self.text(o).to_owned());
                if op.as_deref() != Some("|") {
                    return Err(format!("`{}` is not a type", self.text(node)));
                }
                self.children(node, depth, Self::type_of)
            }
            // `Callable[[int], str]`
            "list" | "tuple" => self.children(node, depth, Self::type_of),
            // text inside a type is a forward reference, evaluated in turn
            "string" => {
                let inner = plain_string(self.text(node))
                    .ok_or_else(|| {
                        format!("`{}` is text the analyzer cannot read", self.text(node))
                    })?
                    .to_owned();
                if self.depth + depth > MAX_DEPTH {
                    return Err("a type's text nested too deep to judge".to_owned());
                }
                judge_text(self.e, self.at, &inner, self.depth + depth + 1)
            }
            _ => Err(format!(
                "`{}` may evaluate to something other than a type",
                self.text(node)
            )),
        }
    }

    fn children(
        &mut self,
        node: Node,
        depth: usize,
        judge: fn(&mut Self, Node, usize) -> Result<(), String>,
    ) -> Result<(), String> {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            if child.kind() == "comment" {
                continue;
            }
            judge(self, child, depth + 1)?;
        }
        Ok(())
    }

    /// A bare name: looked up in the class's namespace at the call (so not one the snippet
    /// stores onto any object), then in the module's (so not one that may hold text).
    fn name(&mut self, node: Node) -> Result<(), String> {
        let word = self.text(node).to_owned();
        if word.starts_with("__") && word.ends_with("__") {
            return Err(format!("`{word}` is an interpreter attribute, not a type"));
        }
        if stored_as_attribute(self.e, &word) {
            return Err(format!(
                "`{word}` is stored onto an object at run time, and a class's annotations are \
                 evaluated in its namespace as it is then"
            ));
        }
        if let Some(sym) = self.e.ir.names.get(&word)
            && self.e.name_may_be_text(sym, self.at)
        {
            return Err(format!("`{word}` may hold text"));
        }
        Ok(())
    }

    /// `np.ndarray`, `typing.List`: a member of a module, private members excluded.
    fn dotted(&mut self, node: Node) -> Result<(), String> {
        let text = self.text(node).to_owned();
        let mut parts = text.split('.').map(str::trim);
        let root = parts.next().unwrap_or_default().to_owned();
        if parts.any(|p| p.starts_with('_')) {
            return Err(format!("`{text}` reaches a private or special attribute"));
        }
        let module = self.e.ir.names.get(&root).is_some_and(|sym| {
            let meanings = self.e.resolve_name(sym, self.at);
            !meanings.is_empty()
                && meanings.iter().all(|m| {
                    !m.held
                        && match m.value {
                            Value::Module(_) => true,
                            Value::Name(p) => self.e.paths.module_len(p) > 0,
                            _ => false,
                        }
                })
        });
        if module {
            Ok(())
        } else {
            Err(format!(
                "`{text}` is an attribute of `{root}`, which is not a module: what it holds may \
                 be text"
            ))
        }
    }

    /// `List[int]`, `dict[str, "Node"]`, `Literal["a"]`: a generic's subscript.
    fn subscript(&mut self, node: Node, depth: usize) -> Result<(), String> {
        let Some(base) = node.child_by_field_name("value") else {
            return Err(format!("`{}` is not a type", self.text(node)));
        };
        let base_text = self.text(base).to_owned();
        match base.kind() {
            "identifier" => self.name(base)?,
            "attribute" => self.dotted(base)?,
            _ => return Err(format!("`{base_text}` is not a generic type")),
        }
        if defines_class_getitem(self.e) {
            return Err(format!(
                "`{base_text}[...]` may call the snippet's own `__class_getitem__`"
            ));
        }
        let last = base_text.rsplit('.').next().unwrap_or_default().trim();
        let mut cursor = node.walk();
        let items: Vec<Node> = node
            .children_by_field_name("subscript", &mut cursor)
            .collect();
        for (i, item) in items.into_iter().enumerate() {
            match last {
                // values, not types
                "Literal" => {}
                // metadata after the type: analyzed as code, never evaluated as a type
                "Annotated" if i > 0 => {}
                _ => self.type_of(item, depth + 1)?,
            }
        }
        Ok(())
    }
}

/// The text of a plain string literal (no prefix, no escapes), if that is what `literal` is.
fn plain_string(literal: &str) -> Option<&str> {
    for quote in ["\"\"\"", "'''", "\"", "'"] {
        if let Some(inner) = literal
            .strip_prefix(quote)
            .and_then(|s| s.strip_suffix(quote))
        {
            return (!inner.contains('\\') && !inner.contains(quote)).then_some(inner);
        }
    }
    None
}

/// Whether the snippet stores an attribute named `word` onto any object (`B.Shape = ...`,
/// `cls.Shape = ...`, `setattr(B, "Shape", ...)`).
fn stored_as_attribute(e: &mut Engine, word: &str) -> bool {
    for id in 0..e.ir.nodes.len() as NodeId {
        let stored = match e.ir.kind(id) {
            Kind::Attr { name, .. } => e.name(name) == word && is_store_target(e, id),
            Kind::Call { callee, .. } => {
                let names = e.names_of(callee);
                names.iter().any(|n| n == "setattr")
                    && e.positional_args(id)
                        .get(1)
                        .is_some_and(|&name| e.fold(name, 0).is_none_or(|n| &*n == word))
            }
            _ => false,
        };
        if stored {
            return true;
        }
    }
    false
}

/// Whether the snippet defines `__class_getitem__` anywhere (a subscript of its class may then
/// give anything).
fn defines_class_getitem(e: &Engine) -> bool {
    e.ir.names.get("__class_getitem__").is_some_and(|sym| {
        (0..e.ir.nodes.len() as NodeId).any(|id| matches!(e.ir.kind(id), Kind::Bind(s) if s == sym))
    })
}
