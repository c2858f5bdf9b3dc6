//! Python's tree-sitter tree lowered into the analyzer's one syntax ([`crate::analysis::ir`]).
//!
//! Identifiers are NFKC-normalized here, as the interpreter does (`ｅｘｅｃ` is `exec`), and
//! string literals are decoded as Python decodes them, or marked undecodable where the
//! analyzer cannot be sure (`\N{...}`).

use std::sync::OnceLock;

use tree_sitter::Node;
use unicode_normalization::UnicodeNormalization;

use crate::analysis::ir::{
    BinOp, Builder, CollectionKind, ConstKind, FunctionKind, Ir, Kind, List, NodeId, Splat, UnOp,
};
use crate::analysis::syntax::{
    KindNames, MAX_SYNTAX_DEPTH, children_in, field, field_id, integral_float, is_inert, parse_int,
    text,
};
use crate::analysis::text::decode_python_literal;

/// Python identifiers are compared after NFKC normalization, as the interpreter does.
pub fn normalize(name: &str) -> std::borrow::Cow<'_, str> {
    if name.is_ascii() {
        std::borrow::Cow::Borrowed(name)
    } else {
        std::borrow::Cow::Owned(name.nfkc().collect())
    }
}

/// Node kinds of pure literal data, which may nest deeper than lowering goes.
const INERT_KINDS: &[&str] = &[
    "list",
    "tuple",
    "set",
    "dictionary",
    "pair",
    "parenthesized_expression",
    "integer",
    "float",
    "string",
    "string_start",
    "string_content",
    "string_end",
    "escape_sequence",
    "concatenated_string",
    "true",
    "false",
    "none",
    "ellipsis",
    "unary_operator",
    "comment",
];

struct Fields {
    alias: u16,
    argument: u16,
    arguments: u16,
    attribute: u16,
    body: u16,
    definition: u16,
    expression: u16,
    format_specifier: u16,
    function: u16,
    key: u16,
    left: u16,
    module_name: u16,
    name: u16,
    object: u16,
    operator: u16,
    parameters: u16,
    right: u16,
    subject: u16,
    subscript: u16,
    superclasses: u16,
    type_parameters: u16,
    value: u16,
}

fn fields() -> &'static Fields {
    static FIELDS: OnceLock<Fields> = OnceLock::new();
    FIELDS.get_or_init(|| {
        let l: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
        let f = |name| field_id(&l, name);
        Fields {
            alias: f("alias"),
            argument: f("argument"),
            arguments: f("arguments"),
            attribute: f("attribute"),
            body: f("body"),
            definition: f("definition"),
            expression: f("expression"),
            format_specifier: f("format_specifier"),
            function: f("function"),
            key: f("key"),
            left: f("left"),
            module_name: f("module_name"),
            name: f("name"),
            object: f("object"),
            operator: f("operator"),
            parameters: f("parameters"),
            right: f("right"),
            subject: f("subject"),
            subscript: f("subscript"),
            superclasses: f("superclasses"),
            type_parameters: f("type_parameters"),
            value: f("value"),
        }
    })
}

/// The grammar's node kind names, read once.
fn kinds() -> &'static KindNames {
    static KINDS: OnceLock<KindNames> = OnceLock::new();
    KINDS.get_or_init(|| KindNames::new(&tree_sitter_python::LANGUAGE.into()))
}

/// A node's kind, as `Node::kind` gives it, from the table.
trait KindName {
    fn kind_name(&self) -> &'static str;
}

impl KindName for Node<'_> {
    fn kind_name(&self) -> &'static str {
        kinds().of(*self)
    }
}

/// A node's named children, comments excluded.
fn named_children(node: Node) -> Vec<Node> {
    crate::analysis::syntax::named_children(node, kinds())
}

/// The lowered snippet, and where lowering stopped at [`MAX_SYNTAX_DEPTH`].
pub struct Lowered {
    pub ir: Ir,
    pub too_deep: Vec<(usize, usize)>,
}

pub fn lower(root: Node, source: &str) -> Lowered {
    let mut l = Lower {
        b: Builder::for_source(source.len()),
        source,
        f: fields(),
        depth: 0,
        too_deep: Vec::new(),
        splat_free: None,
    };
    let id = l.b.open(root.start_byte(), root.end_byte());
    l.statements(named_children(root), true);
    l.b.close(id, Kind::Module);
    Lowered {
        ir: l.b.finish(),
        too_deep: l.too_deep,
    }
}

struct Lower<'s> {
    b: Builder,
    source: &'s str,
    f: &'static Fields,
    depth: usize,
    too_deep: Vec<(usize, usize)>,
    /// The id of a call, member or subscript node known not to start from a `*x` (see
    /// [`Lower::splat_base`]): set for the chain's base while its top is lowered, so a chain
    /// `a.b.c(x)` is walked down once, not once from every link.
    splat_free: Option<usize>,
}

impl<'s> Lower<'s> {
    fn text(&self, node: Node) -> &'s str {
        text(node, self.source)
    }

    fn sym(&mut self, node: Node) -> crate::analysis::ir::Sym {
        let name = normalize(text(node, self.source));
        self.b.intern(&name)
    }

    /// A block of statements; a leading constant string is a docstring when `docstring`.
    fn statements(&mut self, nodes: Vec<Node>, docstring: bool) -> List {
        let mark = self.b.mark();
        for (i, node) in nodes.into_iter().enumerate() {
            if i == 0 && docstring && self.is_docstring(node) {
                let id = self.b.open(node.start_byte(), node.end_byte());
                let inner = named_children(node)[0];
                let value = self.expr(inner);
                self.b.close(id, Kind::Docstring(value));
                self.b.push(id);
                continue;
            }
            if let Some(id) = self.stmt(node) {
                self.b.push(id);
            }
        }
        self.b.list_since(mark)
    }

    /// A statement that is only a constant string: CPython's docstring, parenthesized or not
    /// (`("doc")` is the same constant to the compiler).
    fn is_docstring(&self, node: Node) -> bool {
        if node.kind_name() != "expression_statement" {
            return false;
        }
        let children = named_children(node);
        let [first] = children.as_slice() else {
            return false;
        };
        let mut inner = *first;
        while inner.kind_name() == "parenthesized_expression" {
            match named_children(inner).as_slice() {
                [only] => inner = *only,
                _ => return false,
            }
        }
        matches!(inner.kind_name(), "string" | "concatenated_string")
    }

    /// The statements of a `block` node (or of any node holding statements).
    fn block(&mut self, node: Option<Node>, docstring: bool) -> List {
        match node {
            Some(n) => self.statements(named_children(n), docstring),
            None => List::default(),
        }
    }

    fn guard(&mut self, node: Node) -> bool {
        if self.depth >= MAX_SYNTAX_DEPTH {
            if is_inert(node, kinds(), INERT_KINDS) {
                return false;
            }
            if self.too_deep.len() < 5 {
                self.too_deep.push((node.start_byte(), node.end_byte()));
            }
            return false;
        }
        true
    }

    fn stmt(&mut self, node: Node) -> Option<NodeId> {
        if matches!(node.kind_name(), "comment" | "line_continuation") {
            return None;
        }
        if !self.guard(node) {
            return None;
        }
        self.depth += 1;
        let id = self.stmt_inner(node);
        self.depth -= 1;
        Some(id)
    }

    fn stmt_inner(&mut self, node: Node) -> NodeId {
        let f = self.f;
        match node.kind_name() {
            "expression_statement" => {
                let children = named_children(node);
                match children.as_slice() {
                    [one] if matches!(one.kind_name(), "assignment" | "augmented_assignment") => {
                        self.expr(*one)
                    }
                    [one] => {
                        let id = self.b.open(node.start_byte(), node.end_byte());
                        self.expr(*one);
                        self.b.close(id, Kind::ExprStatement);
                        id
                    }
                    _ => {
                        let id = self.b.open(node.start_byte(), node.end_byte());
                        self.sequence(node, CollectionKind::Tuple, &children);
                        self.b.close(id, Kind::ExprStatement);
                        id
                    }
                }
            }
            "function_definition" | "class_definition" => self.definition(node, node, Vec::new()),
            "decorated_definition" => {
                let decorators: Vec<Node> = named_children(node)
                    .into_iter()
                    .filter(|c| c.kind_name() == "decorator")
                    .collect();
                match field(node, f.definition) {
                    Some(def) => self.definition(def, node, decorators),
                    None => self.other(node),
                }
            }
            "import_statement" | "import_from_statement" => self.import(node),
            "for_statement" => {
                let id = self.b.open(node.start_byte(), node.end_byte());
                let mark = self.b.mark();
                let binder = self.b.open(node.start_byte(), node.end_byte());
                let iter = self.opt_expr(field(node, f.right));
                let target = self.target_opt(field(node, f.left));
                self.b.close(
                    binder,
                    Kind::For {
                        target,
                        iter,
                        keys: false,
                        decl: None,
                    },
                );
                self.b.push(binder);
                for child in named_children(node) {
                    if Some(child) == field(node, f.left) || Some(child) == field(node, f.right) {
                        continue;
                    }
                    let body = self.body_node(child);
                    self.b.push(body);
                }
                self.b.discard(mark);
                self.b.close(id, Kind::Other);
                id
            }
            "with_statement" => {
                let id = self.b.open(node.start_byte(), node.end_byte());
                let mark = self.b.mark();
                for child in named_children(node) {
                    if child.kind_name() == "with_clause" {
                        for item in named_children(child) {
                            let item_id = self.with_item(item);
                            self.b.push(item_id);
                        }
                    } else {
                        let body = self.body_node(child);
                        self.b.push(body);
                    }
                }
                self.b.discard(mark);
                self.b.close(id, Kind::Other);
                id
            }
            "except_clause" | "except_group_clause" => {
                let id = self.b.open(node.start_byte(), node.end_byte());
                let mark = self.b.mark();
                let alias = field(node, f.alias);
                for child in named_children(node) {
                    if Some(child) == alias {
                        continue;
                    }
                    if child.kind_name() == "block" {
                        let body = self.body_node(child);
                        self.b.push(body);
                    } else if child.kind_name() == "as_pattern" {
                        // `except E as e` in some grammar versions.
                        self.as_pattern_catch(child);
                    } else {
                        let e = self.expr(child);
                        self.b.push(e);
                    }
                }
                if let Some(alias) = alias {
                    let catch = self.b.open(alias.start_byte(), alias.end_byte());
                    let target = self.target(alias);
                    self.b.close(
                        catch,
                        Kind::Catch {
                            target: Some(target),
                        },
                    );
                    self.b.push(catch);
                }
                self.b.discard(mark);
                self.b.close(id, Kind::Other);
                id
            }
            "return_statement" => {
                let id = self.b.open(node.start_byte(), node.end_byte());
                let value = self.value_of_children(node);
                self.b.close(id, Kind::Return(value));
                id
            }
            "raise_statement" => {
                let id = self.b.open(node.start_byte(), node.end_byte());
                let children = named_children(node);
                children.first().map(|c| self.expr(*c));
                for extra in children.iter().skip(1) {
                    self.expr(*extra);
                }
                self.b.close(id, Kind::Raise);
                id
            }
            "global_statement" | "nonlocal_statement" => {
                let id = self.b.open(node.start_byte(), node.end_byte());
                let mark = self.b.mark();
                for name in named_children(node) {
                    if name.kind_name() == "identifier" {
                        let sym = self.sym(name);
                        let n = self
                            .b
                            .leaf(name.start_byte(), name.end_byte(), Kind::Bind(sym));
                        self.b.push(n);
                    }
                }
                let names = self.b.list_since(mark);
                self.b.close(
                    id,
                    Kind::Global {
                        names,
                        nonlocal: node.kind_name() == "nonlocal_statement",
                    },
                );
                id
            }
            "delete_statement" => {
                let id = self.b.open(node.start_byte(), node.end_byte());
                let mark = self.b.mark();
                for child in named_children(node) {
                    let items = if child.kind_name() == "expression_list" {
                        named_children(child)
                    } else {
                        vec![child]
                    };
                    for item in items {
                        let t = self.target(item);
                        self.b.push(t);
                    }
                }
                let targets = self.b.list_since(mark);
                self.b.close(id, Kind::Delete { targets });
                id
            }
            "match_statement" => {
                let id = self.b.open(node.start_byte(), node.end_byte());
                let mark = self.b.mark();
                for subject in children_in(node, f.subject) {
                    let opaque = self.b.open(subject.start_byte(), subject.end_byte());
                    self.expr(subject);
                    self.b.close(opaque, Kind::Opaque);
                    self.b.push(opaque);
                }
                if let Some(body) = field(node, f.body) {
                    for clause in named_children(body) {
                        let c = self.case_clause(clause);
                        self.b.push(c);
                    }
                }
                self.b.discard(mark);
                self.b.close(id, Kind::Other);
                id
            }
            "block" | "if_statement" | "elif_clause" | "else_clause" | "while_statement"
            | "try_statement" | "finally_clause" | "module" => {
                let id = self.b.open(node.start_byte(), node.end_byte());
                let mark = self.b.mark();
                for child in named_children(node) {
                    let lowered = if matches!(child.kind_name(), "block") {
                        Some(self.body_node(child))
                    } else if is_statement(child.kind_name()) {
                        self.stmt(child)
                    } else {
                        Some(self.expr(child))
                    };
                    if let Some(l) = lowered {
                        self.b.push(l);
                    }
                }
                self.b.discard(mark);
                self.b.close(id, Kind::Other);
                id
            }
            _ if is_statement(node.kind_name()) => self.other(node),
            _ => self.expr(node),
        }
    }

    fn value_of_children(&mut self, node: Node) -> Option<NodeId> {
        let children = named_children(node);
        match children.as_slice() {
            [] => None,
            [one] => Some(self.expr(*one)),
            many => Some(self.sequence(node, CollectionKind::Tuple, many)),
        }
    }

    /// `except E as e` written as an `as_pattern`.
    fn as_pattern_catch(&mut self, node: Node) {
        let children = named_children(node);
        for child in &children {
            if child.kind_name() == "as_pattern_target" {
                let catch = self.b.open(child.start_byte(), child.end_byte());
                let target = named_children(*child)
                    .first()
                    .map(|t| self.target(*t))
                    .unwrap_or_else(|| self.b.leaf(0, 0, Kind::Other));
                self.b.close(
                    catch,
                    Kind::Catch {
                        target: Some(target),
                    },
                );
                self.b.push(catch);
            } else {
                let e = self.expr(*child);
                self.b.push(e);
            }
        }
    }

    fn with_item(&mut self, item: Node) -> NodeId {
        let id = self.b.open(item.start_byte(), item.end_byte());
        let inner = field(item, self.f.value).unwrap_or(item);
        let (value, target) = if inner.kind_name() == "as_pattern" {
            let children = named_children(inner);
            let value = children
                .iter()
                .find(|c| c.kind_name() != "as_pattern_target")
                .map(|v| self.expr(*v));
            let target = children
                .iter()
                .find(|c| c.kind_name() == "as_pattern_target")
                .and_then(|t| named_children(*t).first().copied())
                .map(|t| self.target(t));
            (value, target)
        } else {
            (Some(self.expr(inner)), None)
        };
        let _ = value;
        self.b.close(id, Kind::WithItem { target });
        id
    }

    fn case_clause(&mut self, clause: Node) -> NodeId {
        let id = self.b.open(clause.start_byte(), clause.end_byte());
        let mark = self.b.mark();
        for child in named_children(clause) {
            match child.kind_name() {
                "block" => {
                    let body = self.body_node(child);
                    self.b.push(body);
                }
                "case_pattern" | "as_pattern" | "keyword_pattern" | "list_pattern"
                | "tuple_pattern" | "dict_pattern" | "class_pattern" | "union_pattern"
                | "splat_pattern" => self.pattern(child),
                _ => {
                    let e = self.expr(child);
                    self.b.push(e);
                }
            }
        }
        self.b.discard(mark);
        self.b.close(id, Kind::Other);
        id
    }

    /// A `match` pattern: bare names capture part of the subject; dotted names and classes
    /// are looked up.
    fn pattern(&mut self, node: Node) {
        if !self.guard(node) {
            return;
        }
        self.depth += 1;
        match node.kind_name() {
            "dotted_name" => {
                let parts = named_children(node);
                if parts.len() == 1 && self.text(parts[0]) != "_" {
                    let capture = self.b.open(node.start_byte(), node.end_byte());
                    let sym = self.sym(parts[0]);
                    let bind =
                        self.b
                            .leaf(parts[0].start_byte(), parts[0].end_byte(), Kind::Bind(sym));
                    self.b.close(capture, Kind::Capture(bind));
                    self.b.push(capture);
                } else if parts.len() > 1 {
                    let e = self.dotted_expr(node);
                    self.b.push(e);
                }
            }
            "identifier" => {
                if self.text(node) != "_" {
                    let capture = self.b.open(node.start_byte(), node.end_byte());
                    let sym = self.sym(node);
                    let bind = self
                        .b
                        .leaf(node.start_byte(), node.end_byte(), Kind::Bind(sym));
                    self.b.close(capture, Kind::Capture(bind));
                    self.b.push(capture);
                }
            }
            "class_pattern" => {
                for (i, child) in named_children(node).into_iter().enumerate() {
                    if i == 0 && child.kind_name() == "dotted_name" {
                        let e = self.dotted_expr(child);
                        self.b.push(e);
                    } else {
                        self.pattern(child);
                    }
                }
            }
            // `case C(name=pattern)` reads the subject's attribute `name` (as `getattr` does):
            // an attribute of an object the analyzer does not name, judged by its name.
            "keyword_pattern" => {
                let children = named_children(node);
                if let Some(&keyword) = children.first() {
                    let attr = self.b.open(node.start_byte(), node.end_byte());
                    let object = self
                        .b
                        .leaf(keyword.start_byte(), keyword.end_byte(), Kind::Other);
                    let name = self.sym(keyword);
                    self.b.close(attr, Kind::Attr { object, name });
                    self.b.push(attr);
                }
                for child in children.into_iter().skip(1) {
                    self.pattern(child);
                }
            }
            "as_pattern" => {
                for child in named_children(node) {
                    if child.kind_name() == "as_pattern_target" {
                        for t in named_children(child) {
                            self.pattern(t);
                        }
                    } else {
                        self.pattern(child);
                    }
                }
            }
            "string"
            | "concatenated_string"
            | "integer"
            | "float"
            | "true"
            | "false"
            | "none"
            | "complex_pattern" => {
                let e = self.expr(node);
                self.b.push(e);
            }
            _ => {
                for child in named_children(node) {
                    self.pattern(child);
                }
            }
        }
        self.depth -= 1;
    }

    /// A dotted name used as a value (`case Color.RED:`): a chain of attributes.
    fn dotted_expr(&mut self, node: Node) -> NodeId {
        let parts = named_children(node);
        let mut current: Option<NodeId> = None;
        // Build outermost first so parents precede children: open all, then close inside out.
        let mut opened = Vec::new();
        for part in parts.iter().skip(1).rev() {
            let _ = part;
            opened.push(self.b.open(node.start_byte(), node.end_byte()));
        }
        if let Some(first) = parts.first() {
            let sym = self.sym(*first);
            current = Some(
                self.b
                    .leaf(first.start_byte(), first.end_byte(), Kind::Name(sym)),
            );
        }
        for (part, id) in parts.iter().skip(1).zip(opened.into_iter().rev()) {
            let name = self.sym(*part);
            let object = current.unwrap_or(id);
            self.b.close(id, Kind::Attr { object, name });
            current = Some(id);
        }
        current.unwrap_or_else(|| self.b.leaf(node.start_byte(), node.end_byte(), Kind::Other))
    }

    /// The statements of a block or clause, as one node.
    fn body_node(&mut self, node: Node) -> NodeId {
        let id = self.b.open(node.start_byte(), node.end_byte());
        self.statements(named_children(node), false);
        self.b.close(id, Kind::Other);
        id
    }

    /// A function or class definition (`outer` spans its decorators too).
    fn definition(&mut self, def: Node, outer: Node, decorators: Vec<Node>) -> NodeId {
        let f = self.f;
        let id = self.b.open(outer.start_byte(), outer.end_byte());
        let mark = self.b.mark();
        for d in decorators {
            if let Some(e) = named_children(d).first() {
                let e = self.expr(*e);
                self.b.push(e);
            }
        }
        let class = def.kind_name() == "class_definition";
        // A class's decorators and its bases (keywords such as `metaclass=` too) are one list.
        let decorators = if class {
            List::default()
        } else {
            self.b.list_since(mark)
        };
        let name = field(def, f.name).map(|n| {
            let sym = self.sym(n);
            self.b.leaf(n.start_byte(), n.end_byte(), Kind::Bind(sym))
        });
        self.type_parameter_bounds(def);
        if class {
            if let Some(args) = field(def, f.superclasses) {
                for arg in named_children(args) {
                    let a = self.argument(arg);
                    self.b.push(a);
                }
            }
            let heads = self.b.list_since(mark);
            let body = self.block(field(def, f.body), true);
            self.b.close(
                id,
                Kind::Class {
                    declared: true,
                    name,
                    heads,
                    body,
                },
            );
            return id;
        }
        let params = match field(def, f.parameters) {
            Some(p) => self.parameters(p),
            None => List::default(),
        };
        // Annotations are evaluated when the function is defined: lower them as values.
        for child in named_children(def) {
            if child.kind_name() == "type" {
                let mark = self.b.mark();
                let e = self.expr(child);
                self.b.push(e);
                self.b.list_since(mark);
            }
        }
        let body = self.block(field(def, f.body), true);
        self.b.close(
            id,
            Kind::Function {
                kind: FunctionKind::Def,
                declared: true,
                name,
                params,
                body,
                decorators,
            },
        );
        id
    }

    /// `def f[T: bound]()`, `class C[T: (A, B)]`: a type parameter's bound or constraints are
    /// evaluated when `__bound__` or `__constraints__` is first read, as an annotation is
    /// when `typing.get_type_hints` reads it: lowered as annotations.
    fn type_parameter_bounds(&mut self, def: Node) {
        let Some(parameters) = field(def, self.f.type_parameters) else {
            return;
        };
        let mark = self.b.mark();
        for parameter in named_children(parameters) {
            let constrained = named_children(parameter)
                .into_iter()
                .find(|c| c.kind_name() == "constrained_type");
            if let Some(bound) = constrained.and_then(|c| named_children(c).get(1).copied()) {
                let e = self.expr(bound);
                self.b.push(e);
            }
        }
        self.b.discard(mark);
    }

    fn parameters(&mut self, node: Node) -> List {
        let f = self.f;
        let mark = self.b.mark();
        for p in named_children(node) {
            let inner = match p.kind_name() {
                "list_splat_pattern" | "dictionary_splat_pattern" => {
                    named_children(p).first().copied()
                }
                "keyword_separator" | "positional_separator" => continue,
                _ => Some(p),
            };
            let Some(inner) = inner else { continue };
            let id = self.b.open(p.start_byte(), p.end_byte());
            let target = match inner.kind_name() {
                "default_parameter" | "typed_default_parameter" => {
                    let d = self.b.open(inner.start_byte(), inner.end_byte());
                    let default = self.opt_expr(field(inner, f.value));
                    let target = self.target_opt(field(inner, f.name));
                    for child in named_children(inner) {
                        if child.kind_name() == "type" {
                            self.expr(child);
                        }
                    }
                    self.b.close(d, Kind::DefaultTarget { target, default });
                    d
                }
                "typed_parameter" => {
                    let mut target = None;
                    for child in named_children(inner) {
                        match child.kind_name() {
                            "type" => {
                                self.expr(child);
                            }
                            "list_splat_pattern" | "dictionary_splat_pattern" => {
                                if let Some(n) = named_children(child).first() {
                                    target = Some(self.target(*n));
                                }
                            }
                            _ => target = Some(self.target(child)),
                        }
                    }
                    target.unwrap_or_else(|| self.empty(inner))
                }
                _ => self.target(inner),
            };
            self.b.close(id, Kind::Param { target });
            self.b.push(id);
        }
        self.b.list_since(mark)
    }

    fn import(&mut self, node: Node) -> NodeId {
        let f = self.f;
        let id = self.b.open(node.start_byte(), node.end_byte());
        let plain = node.kind_name() == "import_statement";
        let module = if plain {
            None
        } else {
            // `from . import x`, `from ..pkg import y`: kept with their dots, naming the
            // snippet's own files relative to a package it does not have.
            field(node, f.module_name).map(|m| {
                let text = match m.kind_name() {
                    "relative_import" => named_children(m)
                        .iter()
                        .map(|part| match part.kind_name() {
                            "dotted_name" => self.dotted_text(*part),
                            _ => self.text(*part).to_owned(),
                        })
                        .collect::<String>(),
                    _ => self.dotted_text(m),
                };
                self.b.text(text)
            })
        };
        let mut star = false;
        let mark = self.b.mark();
        for child in children_in(node, f.name) {
            let item = self.b.open(child.start_byte(), child.end_byte());
            let aliased = child.kind_name() == "aliased_import";
            let (imported, local) = if aliased {
                let imported = field(child, f.name).map(|n| self.dotted_text(n));
                let local = field(child, f.alias).map(|a| {
                    let sym = self.sym(a);
                    self.b.leaf(a.start_byte(), a.end_byte(), Kind::Bind(sym))
                });
                (imported, local)
            } else {
                let imported = self.dotted_text(child);
                // `import a.b` binds `a`; `from m import a` binds `a`.
                let first = named_children(child).first().copied().unwrap_or(child);
                let sym = self.sym(first);
                let local = self
                    .b
                    .leaf(first.start_byte(), first.end_byte(), Kind::Bind(sym));
                (Some(imported), Some(local))
            };
            let imported = imported.map(|i| self.b.text(i));
            self.b.close(
                item,
                Kind::ImportItem {
                    imported,
                    local,
                    aliased,
                },
            );
            self.b.push(item);
        }
        for child in named_children(node) {
            if child.kind_name() == "wildcard_import" {
                star = true;
            }
        }
        let items = self.b.list_since(mark);
        self.b.close(
            id,
            Kind::Import {
                module,
                items,
                star,
                plain,
            },
        );
        id
    }

    fn dotted_text(&self, node: Node) -> String {
        if node.kind_name() == "dotted_name" {
            named_children(node)
                .iter()
                .map(|p| normalize(self.text(*p)).into_owned())
                .collect::<Vec<_>>()
                .join(".")
        } else {
            normalize(self.text(node)).into_owned()
        }
    }

    fn other(&mut self, node: Node) -> NodeId {
        self.wrap(node, Kind::Other)
    }

    /// A node of `kind` (one that keeps no fields) with every child lowered.
    fn wrap(&mut self, node: Node, kind: Kind) -> NodeId {
        let id = self.b.open(node.start_byte(), node.end_byte());
        let mark = self.b.mark();
        for child in named_children(node) {
            let lowered = if is_statement(child.kind_name()) || child.kind_name() == "block" {
                self.stmt(child)
            } else {
                Some(self.expr(child))
            };
            if let Some(l) = lowered {
                self.b.push(l);
            }
        }
        self.b.discard(mark);
        self.b.close(id, kind);
        id
    }

    fn empty(&mut self, node: Node) -> NodeId {
        self.b
            .leaf(node.start_byte(), node.start_byte(), Kind::Other)
    }

    fn opt_expr(&mut self, node: Option<Node>) -> NodeId {
        match node {
            Some(n) => self.expr(n),
            None => self.b.leaf(0, 0, Kind::Other),
        }
    }

    fn target_opt(&mut self, node: Option<Node>) -> NodeId {
        match node {
            Some(n) => self.target(n),
            None => self.b.leaf(0, 0, Kind::Other),
        }
    }

    /// An assignment target.
    fn target(&mut self, node: Node) -> NodeId {
        if !self.guard(node) {
            return self.empty(node);
        }
        self.depth += 1;
        let id = match node.kind_name() {
            "identifier" => {
                let sym = self.sym(node);
                self.b
                    .leaf(node.start_byte(), node.end_byte(), Kind::Bind(sym))
            }
            "pattern_list" | "tuple_pattern" | "list_pattern" | "tuple" | "list"
            | "expression_list" => {
                let id = self.b.open(node.start_byte(), node.end_byte());
                let mark = self.b.mark();
                for item in named_children(node) {
                    let t = self.target(item);
                    self.b.push(t);
                }
                let items = self.b.list_since(mark);
                self.b.close(id, Kind::TuplePattern { items });
                id
            }
            "list_splat_pattern" | "list_splat" => {
                let id = self.b.open(node.start_byte(), node.end_byte());
                let inner = named_children(node).first().copied();
                let t = self.target_opt(inner);
                self.b.close(id, Kind::Rest(t));
                id
            }
            "parenthesized_expression" => match named_children(node).as_slice() {
                [inner] => self.target(*inner),
                _ => self.expr(node),
            },
            // Attributes and subscripts are stores into objects: lowered as expressions.
            _ => self.expr(node),
        };
        self.depth -= 1;
        id
    }

    fn sequence(&mut self, node: Node, kind: CollectionKind, items: &[Node]) -> NodeId {
        let id = self.b.open(node.start_byte(), node.end_byte());
        let mark = self.b.mark();
        for item in items {
            let e = self.expr(*item);
            self.b.push(e);
        }
        let items = self.b.list_since(mark);
        self.b.close(id, Kind::Collection { kind, items });
        id
    }

    fn argument(&mut self, arg: Node) -> NodeId {
        let f = self.f;
        let id = self.b.open(arg.start_byte(), arg.end_byte());
        let kind = match arg.kind_name() {
            "keyword_argument" => {
                let name = field(arg, f.name).map(|n| self.sym(n));
                let value = self.opt_expr(field(arg, f.value));
                Kind::Arg {
                    name,
                    value,
                    splat: Splat::None,
                }
            }
            "list_splat" | "dictionary_splat" => {
                let value = self.opt_expr(named_children(arg).first().copied());
                Kind::Arg {
                    name: None,
                    value,
                    splat: if arg.kind_name() == "list_splat" {
                        Splat::Positional
                    } else {
                        Splat::Keywords
                    },
                }
            }
            _ => {
                let value = self.expr(arg);
                Kind::Arg {
                    name: None,
                    value,
                    splat: Splat::None,
                }
            }
        };
        self.b.close(id, kind);
        id
    }

    fn expr(&mut self, node: Node) -> NodeId {
        if !self.guard(node) {
            return self.empty(node);
        }
        self.depth += 1;
        let id = self.expr_inner(node);
        self.depth -= 1;
        id
    }

    fn expr_inner(&mut self, node: Node) -> NodeId {
        let (start, end) = (node.start_byte(), node.end_byte());
        // tree-sitter reads `[*g(1)]` and `x = *a.b, c` as calling or reading a member of
        // `*g`; CPython unpacks the whole `g(1)`: the chain is lowered whole, inside the
        // unpacking (the `*` at its base lowers to what it unpacks)
        // (`is_chain_base` asks tree-sitter for the parent, a walk down from the root: only
        // for the rare chain that starts from a star.)
        if matches!(node.kind_name(), "call" | "attribute" | "subscript") {
            if self.splat_free != Some(node.id()) && self.splat_base(node).is_some() {
                if !self.is_chain_base(node) {
                    let id = self.b.open(start, end);
                    let chain = self.expr_unwrapped(node);
                    self.b.close(id, Kind::Spread(chain));
                    return id;
                }
            } else {
                self.splat_free = Some(node.id());
            }
        }
        self.expr_unwrapped(node)
    }

    /// Lowers the base of a call, member or subscript chain, passing on what is known of
    /// `node`'s chain: the base of a chain without a `*x` has none either.
    fn chain_base(&mut self, node: Node, base: Option<Node>) -> NodeId {
        if self.splat_free == Some(node.id()) {
            self.splat_free = base.map(|b| b.id());
        }
        self.opt_expr(base)
    }

    /// The `*x` or `**x` a call, member or subscript chain starts from, if it starts from one.
    fn splat_base<'t>(&self, mut node: Node<'t>) -> Option<Node<'t>> {
        loop {
            let base = match node.kind_name() {
                "call" => field(node, self.f.function),
                "attribute" => field(node, self.f.object),
                "subscript" => field(node, self.f.object).or_else(|| field(node, self.f.value)),
                "list_splat" | "dictionary_splat" => return Some(node),
                _ => None,
            };
            node = base?;
        }
    }

    /// Whether `node` is the callee, object or subscripted value of its parent.
    fn is_chain_base(&self, node: Node) -> bool {
        let Some(parent) = node.parent() else {
            return false;
        };
        let base = match parent.kind_name() {
            "call" => field(parent, self.f.function),
            "attribute" => field(parent, self.f.object),
            "subscript" => field(parent, self.f.object).or_else(|| field(parent, self.f.value)),
            _ => None,
        };
        base.is_some_and(|b| b.id() == node.id())
    }

    fn expr_unwrapped(&mut self, node: Node) -> NodeId {
        let f = self.f;
        let (start, end) = (node.start_byte(), node.end_byte());
        match node.kind_name() {
            "identifier" => {
                let sym = self.sym(node);
                self.b.leaf(start, end, Kind::Name(sym))
            }
            "attribute" => {
                let id = self.b.open(start, end);
                let object = self.chain_base(node, field(node, f.object));
                let name = match field(node, f.attribute) {
                    Some(a) => self.sym(a),
                    None => self.b.intern(""),
                };
                self.b.close(id, Kind::Attr { object, name });
                id
            }
            "subscript" => {
                let id = self.b.open(start, end);
                let base = field(node, f.object).or_else(|| field(node, f.value));
                let object = self.chain_base(node, base);
                let keys = children_in(node, f.subscript);
                let key = match keys.as_slice() {
                    [one] => self.expr(*one),
                    many => self.sequence(node, CollectionKind::Tuple, many),
                };
                self.b.close(id, Kind::Index { object, key });
                id
            }
            "slice" => {
                let id = self.b.open(start, end);
                let mut parts: [Option<NodeId>; 3] = [None; 3];
                let mut slot = 0;
                let mut cursor = node.walk();
                for child in node.children(&mut cursor) {
                    if child.kind_name() == ":" {
                        slot = (slot + 1).min(2);
                    } else if child.is_named() && child.kind_name() != "comment" {
                        parts[slot] = Some(self.expr(child));
                    }
                }
                self.b.close(
                    id,
                    Kind::Slice {
                        start: parts[0],
                        stop: parts[1],
                        step: parts[2],
                    },
                );
                id
            }
            "call" => {
                let id = self.b.open(start, end);
                let callee = self.chain_base(node, field(node, f.function));
                let mark = self.b.mark();
                if let Some(args) = field(node, f.arguments) {
                    if args.kind_name() == "generator_expression" {
                        let a = self.argument(args);
                        self.b.push(a);
                    } else {
                        for arg in named_children(args) {
                            let a = self.argument(arg);
                            self.b.push(a);
                        }
                    }
                }
                let args = self.b.list_since(mark);
                self.b.close(
                    id,
                    Kind::Call {
                        callee,
                        args,
                        new: false,
                    },
                );
                id
            }
            "string" => self.string(node),
            "concatenated_string" => {
                let id = self.b.open(start, end);
                let mark = self.b.mark();
                for part in named_children(node) {
                    let p = self.expr(part);
                    self.b.push(p);
                }
                let parts = self.b.list_since(mark);
                self.b.close(id, Kind::Template { parts });
                id
            }
            "integer" => {
                let raw = self.text(node);
                let kind = if raw.ends_with(['j', 'J']) {
                    Kind::Float
                } else {
                    parse_int(raw).map_or(Kind::Float, Kind::Int)
                };
                self.b.leaf(start, end, kind)
            }
            "float" => {
                let raw = self.text(node);
                let kind = if raw.ends_with(['j', 'J']) {
                    Kind::Float
                } else {
                    integral_float(raw).map_or(Kind::Float, Kind::Int)
                };
                self.b.leaf(start, end, kind)
            }
            "true" => self.b.leaf(start, end, Kind::Const(ConstKind::True)),
            "false" => self.b.leaf(start, end, Kind::Const(ConstKind::False)),
            "none" => self.b.leaf(start, end, Kind::Const(ConstKind::Null)),
            "ellipsis" => self.b.leaf(start, end, Kind::Const(ConstKind::Ellipsis)),
            "binary_operator" | "boolean_operator" => {
                let id = self.b.open(start, end);
                let left = self.opt_expr(field(node, f.left));
                let right = self.opt_expr(field(node, f.right));
                let op = field(node, f.operator).map_or("", |o| self.text(o));
                self.b.close(
                    id,
                    Kind::Binary {
                        op: binary_op(op),
                        left,
                        right,
                    },
                );
                id
            }
            "comparison_operator" => {
                let operands = named_children(node);
                self.compare_chain(node, &operands)
            }
            "not_operator" | "unary_operator" => {
                let id = self.b.open(start, end);
                let arg = self.opt_expr(field(node, f.argument));
                let op = match field(node, f.operator).map(|o| self.text(o)) {
                    Some("-") => UnOp::Neg,
                    Some("+") => UnOp::Pos,
                    Some("~") => UnOp::Invert,
                    _ => UnOp::Other,
                };
                self.b.close(id, Kind::Unary { op, arg });
                id
            }
            "conditional_expression" => {
                let id = self.b.open(start, end);
                let children = named_children(node);
                let mut lowered = children.iter().map(|c| self.expr(*c)).collect::<Vec<_>>();
                let kind = if lowered.len() == 3 {
                    let other = lowered.pop().unwrap_or(0);
                    let test = lowered.pop().unwrap_or(0);
                    let then = lowered.pop().unwrap_or(0);
                    Kind::Cond { test, then, other }
                } else {
                    Kind::Other
                };
                self.b.close(id, kind);
                id
            }
            "named_expression" => {
                let id = self.b.open(start, end);
                let value = self.opt_expr(field(node, f.value));
                let target = self.target_opt(field(node, f.name));
                self.b.close(id, Kind::Walrus { target, value });
                id
            }
            "lambda" => {
                let id = self.b.open(start, end);
                let params = match field(node, f.parameters) {
                    Some(p) => self.parameters(p),
                    None => List::default(),
                };
                let mark = self.b.mark();
                if let Some(body) = field(node, f.body) {
                    let ret = self.b.open(body.start_byte(), body.end_byte());
                    let value = self.expr(body);
                    self.b.close(ret, Kind::Return(Some(value)));
                    self.b.push(ret);
                }
                let body = self.b.list_since(mark);
                self.b.close(
                    id,
                    Kind::Function {
                        kind: FunctionKind::Lambda,
                        declared: false,
                        name: None,
                        params,
                        body,
                        decorators: List::default(),
                    },
                );
                id
            }
            "list" | "tuple" | "set" | "expression_list" | "pattern_list" => {
                let kind = match node.kind_name() {
                    "list" => CollectionKind::List,
                    "set" => CollectionKind::Set,
                    _ => CollectionKind::Tuple,
                };
                let items = named_children(node);
                self.sequence(node, kind, &items)
            }
            "dictionary" => {
                let items = named_children(node);
                self.sequence(node, CollectionKind::Map, &items)
            }
            "pair" => {
                let id = self.b.open(start, end);
                let key = self.opt_expr(field(node, f.key));
                let value = self.opt_expr(field(node, f.value));
                self.b.close(id, Kind::Pair { key, value });
                id
            }
            "list_splat" | "dictionary_splat" if self.is_chain_base(node) => {
                self.opt_expr(named_children(node).first().copied())
            }
            "list_splat" | "dictionary_splat" | "parenthesized_list_splat" => {
                let id = self.b.open(start, end);
                let inner = self.opt_expr(named_children(node).first().copied());
                self.b.close(id, Kind::Spread(inner));
                id
            }
            "list_comprehension"
            | "set_comprehension"
            | "generator_expression"
            | "dictionary_comprehension" => self.comprehension(node),
            "parenthesized_expression" | "await" => {
                let children = named_children(node);
                match children.as_slice() {
                    [inner] => {
                        let id = self.b.open(start, end);
                        let value = self.expr(*inner);
                        self.b.close(id, Kind::Paren(value));
                        id
                    }
                    _ => self.other(node),
                }
            }
            "yield" => {
                let id = self.b.open(start, end);
                self.value_of_children(node);
                self.b.close(id, Kind::Yield);
                id
            }
            "assignment" => self.assignment(node),
            "augmented_assignment" => {
                let id = self.b.open(start, end);
                let value = field(node, f.right).map(|r| self.expr(r));
                let target = self.target_opt(field(node, f.left));
                self.b.close(id, Kind::AugAssign { target, value });
                id
            }
            "keyword_argument" | "list_splat_pattern" => self.argument(node),
            "dotted_name" => self.dotted_expr(node),
            "type" => self.wrap(node, Kind::Annotation),
            "generic_type" => self.generic_type(node),
            _ => self.other(node),
        }
    }

    /// `List["Node"]` where the grammar reads a type: a subscript like any other, so a typing
    /// construct's arguments (a `Literal`'s values) are told apart from the types it takes.
    fn generic_type(&mut self, node: Node) -> NodeId {
        let id = self.b.open(node.start_byte(), node.end_byte());
        let children = named_children(node);
        let object = self.opt_expr(
            children
                .iter()
                .find(|c| c.kind_name() != "type_parameter")
                .copied(),
        );
        let arguments: Vec<Node> = children
            .iter()
            .filter(|c| c.kind_name() == "type_parameter")
            .flat_map(|p| named_children(*p))
            .map(|t| match t.kind_name() {
                "type" => named_children(t).first().copied().unwrap_or(t),
                _ => t,
            })
            .collect();
        let key = match arguments.as_slice() {
            [one] => self.expr(*one),
            many => self.sequence(node, CollectionKind::Tuple, many),
        };
        self.b.close(id, Kind::Index { object, key });
        id
    }

    /// `a < b < c`: a chain of comparisons, each a boolean.
    fn compare_chain(&mut self, node: Node, operands: &[Node]) -> NodeId {
        let id = self.b.open(node.start_byte(), node.end_byte());
        let mark = self.b.mark();
        for operand in operands {
            let l = self.expr(*operand);
            self.b.push(l);
        }
        let children = self.b.list_since(mark);
        let kind = match self.b.list_ids(children) {
            [left, right] => Kind::Binary {
                op: BinOp::Compare,
                left: *left,
                right: *right,
            },
            // A chain (`a < b < c`) is a boolean too: nothing flows out of it.
            _ => Kind::Compared,
        };
        self.b.close(id, kind);
        id
    }

    fn assignment(&mut self, node: Node) -> NodeId {
        let f = self.f;
        let id = self.b.open(node.start_byte(), node.end_byte());
        // `a = b = c` nests: collect the targets outside in, the value at the end.
        let mut targets_nodes = Vec::new();
        let mut current = node;
        let value_node;
        loop {
            if let Some(left) = field(current, f.left) {
                targets_nodes.push(left);
            }
            for child in named_children(current) {
                if child.kind_name() == "type" {
                    // `x: int = 1`: the annotation is evaluated.
                    self.expr(child);
                }
            }
            match field(current, f.right) {
                Some(right) if right.kind_name() == "assignment" => current = right,
                other => {
                    value_node = other;
                    break;
                }
            }
        }
        let Some(value_node) = value_node else {
            // `x: int` binds nothing.
            for t in targets_nodes {
                self.expr(t);
            }
            self.b.close(id, Kind::Other);
            return id;
        };
        let value = self.expr(value_node);
        let mark = self.b.mark();
        for t in targets_nodes {
            let t = self.target(t);
            self.b.push(t);
        }
        let targets = self.b.list_since(mark);
        self.b.close(id, Kind::Assign { targets, value });
        id
    }

    fn comprehension(&mut self, node: Node) -> NodeId {
        let f = self.f;
        let id = self.b.open(node.start_byte(), node.end_byte());
        let clauses_mark = self.b.mark();
        for child in named_children(node) {
            match child.kind_name() {
                "for_in_clause" => {
                    let c = self.b.open(child.start_byte(), child.end_byte());
                    let rights = children_in(child, f.right);
                    let iter = match rights.as_slice() {
                        [one] => self.expr(*one),
                        many => self.sequence(child, CollectionKind::Tuple, many),
                    };
                    let target = self.target_opt(field(child, f.left));
                    self.b.close(c, Kind::CompFor { target, iter });
                    self.b.push(c);
                }
                "if_clause" => {
                    let c = self.other(child);
                    self.b.push(c);
                }
                _ => {}
            }
        }
        let clauses = self.b.list_since(clauses_mark);
        let mark = self.b.mark();
        if let Some(body) = field(node, f.body) {
            let e = self.expr(body);
            self.b.push(e);
        }
        self.b.discard(mark);
        self.b.close(id, Kind::Comprehension { clauses });
        id
    }

    fn string(&mut self, node: Node) -> NodeId {
        let f = self.f;
        let (start, end) = (node.start_byte(), node.end_byte());
        let children = named_children(node);
        let prefix = children
            .iter()
            .find(|c| c.kind_name() == "string_start")
            .map(|s| {
                self.text(*s)
                    .trim_end_matches(['"', '\''])
                    .to_ascii_lowercase()
            })
            .unwrap_or_default();
        let raw = prefix.contains('r');
        let bytes = prefix.contains('b');
        let formatted = prefix.contains('f') || prefix.contains('t');
        // `t"..."` is a `string.templatelib.Template`, not text; a string the parser had to
        // repair is not text the interpreter would read.
        let template = prefix.contains('t');
        let broken = node.has_error();
        let has_interpolation = children.iter().any(|c| c.kind_name() == "interpolation");
        if !formatted || !has_interpolation {
            // The source between the quotes, whole: the grammar's content nodes leave out
            // pieces (a raw string's backslash before a line end).
            let body = match children.iter().find(|c| c.kind_name() == "string_start") {
                Some(opening) => {
                    let quotes = self.text(*opening).len()
                        - self.text(*opening).trim_end_matches(['"', '\'']).len();
                    let closed = end.checked_sub(quotes).filter(|&e| {
                        e >= opening.end_byte() && self.text(node).ends_with(['"', '\''])
                    });
                    match closed {
                        Some(e) => self.source.get(opening.end_byte()..e).unwrap_or_default(),
                        None => "",
                    }
                    .to_owned()
                }
                None => String::new(),
            };
            let body = if formatted {
                body.replace("{{", "{").replace("}}", "}")
            } else {
                body
            };
            let text = decode_python_literal(&body, raw, bytes)
                .filter(|_| !template && !broken)
                .map(|t| self.b.text(t));
            return self.b.leaf(start, end, Kind::Str { text, name: false });
        }
        let id = self.b.open(start, end);
        let mark = self.b.mark();
        // The text between the fields, taken from the source whole, as above.
        let opening = children.iter().find(|c| c.kind_name() == "string_start");
        let body_start = opening.map_or(start, |c| c.end_byte());
        let quotes = opening.map_or(0, |o| {
            self.text(*o).len() - self.text(*o).trim_end_matches(['"', '\'']).len()
        });
        let body_end = end.saturating_sub(quotes).max(body_start);
        let piece = |this: &mut Self, from: usize, to: usize| {
            if from < to {
                let body = this
                    .source
                    .get(from..to)
                    .filter(|_| !broken)
                    .map(|b| b.replace("{{", "{").replace("}}", "}"));
                let text = body
                    .and_then(|b| decode_python_literal(&b, raw, bytes))
                    .map(|t| this.b.text(t));
                let s = this.b.leaf(from, to, Kind::Str { text, name: false });
                this.b.push(s);
            }
        };
        let mut at = body_start;
        for c in children
            .into_iter()
            .filter(|c| c.kind_name() == "interpolation")
        {
            piece(self, at, c.start_byte());
            at = c.end_byte();
            let i = self.b.open(c.start_byte(), c.end_byte());
            let value = self.opt_expr(field(c, f.expression));
            let spec = field(c, f.format_specifier);
            // `{x!r}` and `{x!a}` write the value's repr (folded for ASCII text); `{x=}` the
            // expression's own text too, which the folder does not model.
            let mut cursor = c.walk();
            let parts: Vec<Node> = c.children(&mut cursor).collect();
            let echoed = parts.iter().any(|k| k.kind_name() == "=");
            let conversion = parts
                .iter()
                .find(|k| k.kind_name() == "type_conversion")
                .map(|k| self.text(*k));
            let repr = matches!(conversion, Some("!r" | "!a"));
            if let Some(spec) = spec {
                for inner in named_children(spec) {
                    if let Some(e) = field(inner, f.expression) {
                        self.expr(e);
                    }
                }
            }
            self.b.close(
                i,
                Kind::Interp {
                    value,
                    spec: spec.is_some() || echoed,
                    repr,
                },
            );
            self.b.push(i);
        }
        piece(self, at, body_end);
        let parts = self.b.list_since(mark);
        self.b.close(id, Kind::Template { parts });
        id
    }
}

fn binary_op(op: &str) -> BinOp {
    match op {
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        "//" => BinOp::FloorDiv,
        "%" => BinOp::Mod,
        "**" => BinOp::Pow,
        "<<" => BinOp::Shl,
        ">>" => BinOp::Shr,
        "|" => BinOp::BitOr,
        "&" => BinOp::BitAnd,
        "^" => BinOp::BitXor,
        "@" => BinOp::MatMul,
        "and" | "or" => BinOp::Logical,
        _ => BinOp::Compare,
    }
}

fn is_statement(kind: &str) -> bool {
    matches!(
        kind,
        "expression_statement"
            | "function_definition"
            | "class_definition"
            | "decorated_definition"
            | "import_statement"
            | "import_from_statement"
            | "future_import_statement"
            | "for_statement"
            | "with_statement"
            | "except_clause"
            | "except_group_clause"
            | "return_statement"
            | "raise_statement"
            | "global_statement"
            | "nonlocal_statement"
            | "delete_statement"
            | "match_statement"
            | "if_statement"
            | "elif_clause"
            | "else_clause"
            | "while_statement"
            | "try_statement"
            | "finally_clause"
            | "assert_statement"
            | "pass_statement"
            | "break_statement"
            | "continue_statement"
            | "print_statement"
            | "exec_statement"
            | "type_alias_statement"
    )
}
