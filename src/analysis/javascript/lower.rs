//! JavaScript's tree-sitter tree lowered into the analyzer's one syntax
//! ([`crate::analysis::ir`]).
//!
//! Identifier escapes are decoded here (`\u0065val` is `eval`), and string literals are
//! decoded as the engine decodes them (legacy octal escapes included), or marked undecodable
//! where the analyzer cannot be sure.

use std::sync::OnceLock;

use tree_sitter::Node;

use crate::analysis::ir::{
    BinOp, Builder, CollectionKind, ConstKind, DeclKind, FunctionKind, Ir, Kind, List, NodeId,
    Splat, Sym, UnOp,
};
use crate::analysis::syntax::{
    KindNames, MAX_SYNTAX_DEPTH, children_in, field, field_id, integral_float, is_inert, parse_int,
    text,
};
use crate::analysis::text::{
    decode_js_identifier, decode_js_string, js_prologue_is_strict, universal_newlines,
};

/// Node kinds of pure literal data, which may nest deeper than lowering goes.
const INERT_KINDS: &[&str] = &[
    "array",
    "object",
    "pair",
    "parenthesized_expression",
    "number",
    "string",
    "string_fragment",
    "escape_sequence",
    "true",
    "false",
    "null",
    "undefined",
    "property_identifier",
    "unary_expression",
    "comment",
];

struct Fields {
    alias: u16,
    alternative: u16,
    argument: u16,
    arguments: u16,
    body: u16,
    condition: u16,
    consequence: u16,
    constructor: u16,
    declaration: u16,
    decorator: u16,
    function: u16,
    index: u16,
    key: u16,
    kind: u16,
    left: u16,
    member: u16,
    name: u16,
    object: u16,
    operator: u16,
    parameter: u16,
    parameters: u16,
    property: u16,
    right: u16,
    source: u16,
    value: u16,
}

fn fields() -> &'static Fields {
    static FIELDS: OnceLock<Fields> = OnceLock::new();
    FIELDS.get_or_init(|| {
        let l: tree_sitter::Language = tree_sitter_javascript::LANGUAGE.into();
        let f = |name| field_id(&l, name);
        Fields {
            alias: f("alias"),
            alternative: f("alternative"),
            argument: f("argument"),
            arguments: f("arguments"),
            body: f("body"),
            condition: f("condition"),
            consequence: f("consequence"),
            constructor: f("constructor"),
            declaration: f("declaration"),
            decorator: f("decorator"),
            function: f("function"),
            index: f("index"),
            key: f("key"),
            kind: f("kind"),
            left: f("left"),
            member: f("member"),
            name: f("name"),
            object: f("object"),
            operator: f("operator"),
            parameter: f("parameter"),
            parameters: f("parameters"),
            property: f("property"),
            right: f("right"),
            source: f("source"),
            value: f("value"),
        }
    })
}

/// The grammar's node kind names, read once.
fn kinds() -> &'static KindNames {
    static KINDS: OnceLock<KindNames> = OnceLock::new();
    KINDS.get_or_init(|| KindNames::new(&tree_sitter_javascript::LANGUAGE.into()))
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

/// The lowered snippet, where lowering stopped at [`MAX_SYNTAX_DEPTH`], and whether the code is
/// strict-mode code (a `'use strict'` prologue, or an ES module), in which a plain function's
/// `this` is `undefined` rather than the global object.
pub struct Lowered {
    pub ir: Ir,
    pub too_deep: Vec<(usize, usize)>,
    pub strict: bool,
}

pub fn lower(root: Node, source: &str) -> Lowered {
    let mut l = Lower {
        b: Builder::default(),
        source,
        f: fields(),
        depth: 0,
        too_deep: Vec::new(),
        module: false,
    };
    let children = named_children(root);
    let strict = js_prologue_is_strict(
        children
            .iter()
            .filter(|c| !matches!(c.kind_name(), "comment" | "hash_bang_line"))
            .map_while(|c| (c.kind_name() == "expression_statement").then(|| text(*c, source))),
    );
    let id = l.b.open(root.start_byte(), root.end_byte());
    l.statements(children);
    l.b.close(id, Kind::Module);
    Lowered {
        ir: l.b.finish(),
        too_deep: l.too_deep,
        strict: strict || l.module,
    }
}

struct Lower<'s> {
    b: Builder,
    source: &'s str,
    f: &'static Fields,
    depth: usize,
    too_deep: Vec<(usize, usize)>,
    /// An `import` or `export` statement was seen: the code is an ES module.
    module: bool,
}

impl<'s> Lower<'s> {
    fn text(&self, node: Node) -> &'s str {
        text(node, self.source)
    }

    fn source_text(&self, from: usize, to: usize) -> Option<&'s str> {
        self.source.get(from..to)
    }

    fn sym(&mut self, node: Node) -> Sym {
        let name = decode_js_identifier(text(node, self.source));
        self.b.intern(&name)
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

    fn empty(&mut self, at: usize) -> NodeId {
        self.b.leaf(at, at, Kind::Other)
    }

    fn statements(&mut self, nodes: Vec<Node>) -> List {
        let mark = self.b.mark();
        for node in nodes {
            if let Some(id) = self.stmt(node) {
                self.b.push(id);
            }
        }
        self.b.list_since(mark)
    }

    fn stmt(&mut self, node: Node) -> Option<NodeId> {
        if matches!(
            node.kind_name(),
            "comment" | "html_comment" | "hash_bang_line" | "empty_statement"
        ) {
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

    /// A block-like node: its statements, in a scope of their own.
    fn block(&mut self, node: Node) -> NodeId {
        let id = self.b.open(node.start_byte(), node.end_byte());
        self.statements(named_children(node));
        self.b.close(id, Kind::Block);
        id
    }

    fn stmt_inner(&mut self, node: Node) -> NodeId {
        let f = self.f;
        let (start, end) = (node.start_byte(), node.end_byte());
        match node.kind_name() {
            "expression_statement" => {
                let id = self.b.open(start, end);
                if let Some(e) = named_children(node).first() {
                    self.expr(*e);
                }
                self.b.close(id, Kind::ExprStatement);
                id
            }
            "statement_block" | "switch_body" | "class_static_block" => self.block(node),
            "variable_declaration" | "lexical_declaration" | "using_declaration" => {
                self.declaration(node)
            }
            "function_declaration" | "generator_function_declaration" => {
                self.function(node, FunctionKind::Def, true)
            }
            "class_declaration" => self.class(node, true),
            "import_statement" => self.import(node),
            "export_statement" => self.export(node),
            "for_statement" => {
                let id = self.b.open(start, end);
                let mark = self.b.mark();
                for child in named_children(node) {
                    if let Some(s) = self.stmt_or_expr(child) {
                        self.b.push(s);
                    }
                }
                self.b.discard(mark);
                self.b.close(id, Kind::Block);
                id
            }
            "for_in_statement" => {
                let id = self.b.open(start, end);
                let mark = self.b.mark();
                let decl = field(node, f.kind).map(|k| match self.text(k) {
                    "var" => DeclKind::Var,
                    "const" | "using" | "await" => DeclKind::Const,
                    _ => DeclKind::Let,
                });
                let keys = field(node, f.operator).is_some_and(|o| self.text(o) == "in");
                let binder = self.b.open(start, end);
                let iter = match field(node, f.right) {
                    Some(r) => self.expr(r),
                    None => self.empty(start),
                };
                let target = match field(node, f.left) {
                    Some(l) => self.pattern(l),
                    None => self.empty(start),
                };
                self.b.close(
                    binder,
                    Kind::For {
                        target,
                        iter,
                        keys,
                        decl,
                    },
                );
                self.b.push(binder);
                if let Some(value) = field(node, f.value) {
                    let v = self.expr(value);
                    self.b.push(v);
                }
                if let Some(body) = field(node, f.body)
                    && let Some(b) = self.stmt(body)
                {
                    self.b.push(b);
                }
                self.b.discard(mark);
                self.b.close(id, Kind::Block);
                id
            }
            "catch_clause" => {
                let id = self.b.open(start, end);
                let mark = self.b.mark();
                if let Some(param) = field(node, f.parameter) {
                    let c = self.b.open(param.start_byte(), param.end_byte());
                    let target = self.pattern(param);
                    self.b.close(
                        c,
                        Kind::Catch {
                            target: Some(target),
                        },
                    );
                    self.b.push(c);
                }
                if let Some(body) = field(node, f.body) {
                    let b = self.block(body);
                    self.b.push(b);
                }
                self.b.discard(mark);
                self.b.close(id, Kind::Block);
                id
            }
            "return_statement" | "throw_statement" => {
                let id = self.b.open(start, end);
                let value = named_children(node).first().map(|e| self.expr(*e));
                let kind = if node.kind_name() == "return_statement" {
                    Kind::Return(value)
                } else {
                    Kind::Raise
                };
                self.b.close(id, kind);
                id
            }
            "with_statement" => {
                let id = self.b.open(start, end);
                if let Some(o) = field(node, f.object) {
                    self.expr(o);
                }
                if let Some(b) = field(node, f.body) {
                    self.stmt(b);
                }
                self.b.close(id, Kind::With);
                id
            }
            "if_statement" => {
                let id = self.b.open(start, end);
                let mark = self.b.mark();
                for child in [
                    field(node, f.condition),
                    field(node, f.consequence),
                    field(node, f.alternative),
                ]
                .into_iter()
                .flatten()
                {
                    if let Some(s) = self.stmt_or_expr(child) {
                        self.b.push(s);
                    }
                }
                self.b.discard(mark);
                self.b.close(id, Kind::Other);
                id
            }
            _ => self.other(node),
        }
    }

    fn stmt_or_expr(&mut self, node: Node) -> Option<NodeId> {
        if is_statement(node.kind_name()) {
            self.stmt(node)
        } else {
            Some(self.expr(node))
        }
    }

    /// Anything else: its children, statements or expressions.
    fn other(&mut self, node: Node) -> NodeId {
        let id = self.b.open(node.start_byte(), node.end_byte());
        let mark = self.b.mark();
        for child in named_children(node) {
            if matches!(child.kind_name(), "statement_identifier" | "comment") {
                continue;
            }
            if let Some(s) = self.stmt_or_expr(child) {
                self.b.push(s);
            }
        }
        self.b.discard(mark);
        self.b.close(id, Kind::Other);
        id
    }

    fn declaration(&mut self, node: Node) -> NodeId {
        let f = self.f;
        let kind = match node.kind_name() {
            "variable_declaration" => DeclKind::Var,
            _ => match field(node, f.kind).map(|k| self.text(k)) {
                Some("let") => DeclKind::Let,
                _ => DeclKind::Const,
            },
        };
        let id = self.b.open(node.start_byte(), node.end_byte());
        let mark = self.b.mark();
        for declarator in named_children(node) {
            if declarator.kind_name() != "variable_declarator" {
                continue;
            }
            let d = self.b.open(declarator.start_byte(), declarator.end_byte());
            let value = field(declarator, f.value).map(|v| self.expr(v));
            let target = match field(declarator, f.name) {
                Some(n) => self.pattern(n),
                None => self.empty(declarator.start_byte()),
            };
            self.b.close(
                d,
                Kind::Decl {
                    kind,
                    target,
                    value,
                },
            );
            self.b.push(d);
        }
        self.b.discard(mark);
        self.b.close(id, Kind::Other);
        id
    }

    fn import(&mut self, node: Node) -> NodeId {
        self.module = true;
        let f = self.f;
        let id = self.b.open(node.start_byte(), node.end_byte());
        let module = field(node, f.source).and_then(|s| self.string_value(s));
        let module = module.map(|m| self.b.text(m));
        let mark = self.b.mark();
        for clause in named_children(node) {
            if clause.kind_name() != "import_clause" {
                continue;
            }
            for part in named_children(clause) {
                match part.kind_name() {
                    "identifier" => {
                        let imported = Some(self.b.text("default".to_owned()));
                        self.import_item(part, imported, Some(part));
                    }
                    "namespace_import" => {
                        let imported = Some(self.b.text("*".to_owned()));
                        let local = named_children(part).first().copied();
                        self.import_item(part, imported, local);
                    }
                    "named_imports" => {
                        for spec in named_children(part) {
                            if spec.kind_name() != "import_specifier" {
                                continue;
                            }
                            let name = field(spec, f.name);
                            let imported = name.and_then(|n| self.key_text(n));
                            let imported = imported.map(|i| self.b.text(i));
                            let local = field(spec, f.alias).or(name);
                            self.import_item(spec, imported, local);
                        }
                    }
                    _ => {}
                }
            }
        }
        let items = self.b.list_since(mark);
        self.b.close(
            id,
            Kind::Import {
                module,
                items,
                star: false,
                plain: false,
            },
        );
        id
    }

    fn import_item(
        &mut self,
        node: Node,
        imported: Option<crate::analysis::ir::TextId>,
        local: Option<Node>,
    ) {
        let item = self.b.open(node.start_byte(), node.end_byte());
        let local = local.filter(|l| l.kind_name() == "identifier").map(|l| {
            let sym = self.sym(l);
            self.b.leaf(l.start_byte(), l.end_byte(), Kind::Bind(sym))
        });
        self.b.close(
            item,
            Kind::ImportItem {
                imported,
                local,
                aliased: true,
            },
        );
        self.b.push(item);
    }

    /// `export ... from 'm'` imports `m`; `export default x` and `export {x}` hand values out
    /// of the module, where the analysis does not follow them.
    fn export(&mut self, node: Node) -> NodeId {
        self.module = true;
        let f = self.f;
        if let Some(source) = field(node, f.source) {
            let id = self.b.open(node.start_byte(), node.end_byte());
            let module = self.string_value(source).map(|m| self.b.text(m));
            let mark = self.b.mark();
            let mut star = true;
            for child in named_children(node) {
                if child.kind_name() == "export_clause" {
                    star = false;
                    for spec in named_children(child) {
                        let imported = field(spec, f.name).and_then(|n| self.key_text(n));
                        let imported = imported.map(|i| self.b.text(i));
                        self.import_item(spec, imported, None);
                    }
                }
            }
            let items = self.b.list_since(mark);
            self.b.close(
                id,
                Kind::Import {
                    module,
                    items,
                    star,
                    plain: false,
                },
            );
            return id;
        }
        if let Some(declaration) = field(node, f.declaration) {
            return self
                .stmt(declaration)
                .unwrap_or_else(|| self.empty(node.start_byte()));
        }
        let id = self.b.open(node.start_byte(), node.end_byte());
        let mark = self.b.mark();
        for child in named_children(node) {
            match child.kind_name() {
                "export_clause" => {
                    for spec in named_children(child) {
                        if let Some(name) = field(spec, f.name)
                            && name.kind_name() == "identifier"
                        {
                            let sym = self.sym(name);
                            let n =
                                self.b
                                    .leaf(name.start_byte(), name.end_byte(), Kind::Name(sym));
                            self.b.push(n);
                        }
                    }
                }
                "decorator" | "comment" => {}
                _ => {
                    if let Some(s) = self.stmt_or_expr(child) {
                        self.b.push(s);
                    }
                }
            }
        }
        self.b.discard(mark);
        self.b.close(id, Kind::Other);
        id
    }

    /// A string node's decoded value.
    fn string_value(&self, node: Node) -> Option<String> {
        if node.kind_name() != "string" {
            return None;
        }
        let raw = self.text(node);
        let body = raw.get(1..raw.len().saturating_sub(1))?;
        decode_js_string(body)
    }

    /// The name a property key or import/export name stands for.
    fn key_text(&self, node: Node) -> Option<String> {
        match node.kind_name() {
            "string" => self.string_value(node),
            "number" => Some(self.text(node).to_owned()),
            _ => Some(decode_js_identifier(self.text(node))),
        }
    }

    fn function(&mut self, node: Node, kind: FunctionKind, declared: bool) -> NodeId {
        let f = self.f;
        let id = self.b.open(node.start_byte(), node.end_byte());
        let decorators = self.decorators(node);
        let name = match field(node, f.name) {
            Some(n) if n.kind_name() == "identifier" => {
                let sym = self.sym(n);
                Some(self.b.leaf(n.start_byte(), n.end_byte(), Kind::Bind(sym)))
            }
            _ => None,
        };
        let params = self.parameters(node);
        let mark = self.b.mark();
        match field(node, f.body) {
            Some(body) if body.kind_name() == "statement_block" => {
                for stmt in named_children(body) {
                    if let Some(s) = self.stmt(stmt) {
                        self.b.push(s);
                    }
                }
            }
            Some(expr) => {
                let ret = self.b.open(expr.start_byte(), expr.end_byte());
                let value = self.expr(expr);
                self.b.close(ret, Kind::Return(Some(value)));
                self.b.push(ret);
            }
            None => {}
        }
        let body = self.b.list_since(mark);
        self.b.close(
            id,
            Kind::Function {
                kind,
                declared,
                name,
                params,
                body,
                decorators,
            },
        );
        id
    }

    fn decorators(&mut self, node: Node) -> List {
        let mark = self.b.mark();
        for d in children_in(node, self.f.decorator) {
            if let Some(e) = named_children(d).first() {
                let e = self.expr(*e);
                self.b.push(e);
            }
        }
        self.b.list_since(mark)
    }

    fn parameters(&mut self, node: Node) -> List {
        let f = self.f;
        let mark = self.b.mark();
        let params = match (field(node, f.parameters), field(node, f.parameter)) {
            (Some(list), _) => named_children(list),
            (None, Some(single)) => vec![single],
            _ => Vec::new(),
        };
        for p in params {
            let id = self.b.open(p.start_byte(), p.end_byte());
            let target = if p.kind_name() == "rest_pattern" {
                match named_children(p).first() {
                    Some(i) => self.pattern(*i),
                    None => self.empty(p.start_byte()),
                }
            } else {
                self.pattern(p)
            };
            self.b.close(id, Kind::Param { target });
            self.b.push(id);
        }
        self.b.list_since(mark)
    }

    fn class(&mut self, node: Node, declared: bool) -> NodeId {
        let f = self.f;
        let id = self.b.open(node.start_byte(), node.end_byte());
        self.decorators(node);
        let name = match field(node, f.name) {
            Some(n) if n.kind_name() == "identifier" => {
                let sym = self.sym(n);
                Some(self.b.leaf(n.start_byte(), n.end_byte(), Kind::Bind(sym)))
            }
            _ => None,
        };
        let mark = self.b.mark();
        for child in named_children(node) {
            if child.kind_name() == "class_heritage" {
                for e in named_children(child) {
                    let a = self.b.open(e.start_byte(), e.end_byte());
                    let value = self.expr(e);
                    self.b.close(
                        a,
                        Kind::Arg {
                            name: None,
                            value,
                            splat: Splat::None,
                        },
                    );
                    self.b.push(a);
                }
            }
        }
        let heads = self.b.list_since(mark);
        let mark = self.b.mark();
        if let Some(body) = field(node, f.body) {
            for member in children_in(body, f.member) {
                let m = match member.kind_name() {
                    "method_definition" => self.method(member),
                    "class_static_block" => self.block(member),
                    _ => self.other(member),
                };
                self.b.push(m);
            }
        }
        let body = self.b.list_since(mark);
        self.b.close(
            id,
            Kind::Class {
                declared,
                name,
                heads,
                body,
            },
        );
        id
    }

    /// A method: a pair of its key and the function.
    fn method(&mut self, node: Node) -> NodeId {
        let f = self.f;
        let id = self.b.open(node.start_byte(), node.end_byte());
        let key = match field(node, f.name) {
            Some(k) => self.property_key(k),
            None => self.empty(node.start_byte()),
        };
        let value = self.function(node, FunctionKind::Method, false);
        self.b.close(id, Kind::Pair { key, value });
        id
    }

    /// An object key: a `Str` for names, strings and numbers, the expression when computed.
    fn property_key(&mut self, key: Node) -> NodeId {
        let (start, end) = (key.start_byte(), key.end_byte());
        match key.kind_name() {
            "computed_property_name" => match named_children(key).last() {
                Some(e) => self.expr(*e),
                None => self.empty(start),
            },
            _ => {
                let value = self.key_text(key);
                let text = value.map(|v| self.b.text(v));
                let name = matches!(
                    key.kind_name(),
                    "property_identifier" | "private_property_identifier"
                );
                self.b.leaf(start, end, Kind::Str { text, name })
            }
        }
    }

    /// A binding target or pattern.
    fn pattern(&mut self, node: Node) -> NodeId {
        if !self.guard(node) {
            return self.empty(node.start_byte());
        }
        self.depth += 1;
        let id = self.pattern_inner(node);
        self.depth -= 1;
        id
    }

    fn pattern_inner(&mut self, node: Node) -> NodeId {
        let f = self.f;
        let (start, end) = (node.start_byte(), node.end_byte());
        match node.kind_name() {
            "identifier" | "shorthand_property_identifier_pattern" => {
                let sym = self.sym(node);
                self.b.leaf(start, end, Kind::Bind(sym))
            }
            "undefined" => {
                let sym = self.b.intern("undefined");
                self.b.leaf(start, end, Kind::Bind(sym))
            }
            "array_pattern" => {
                let id = self.b.open(start, end);
                let mark = self.b.mark();
                for item in named_children(node) {
                    let t = self.pattern(item);
                    self.b.push(t);
                }
                let items = self.b.list_since(mark);
                self.b.close(id, Kind::TuplePattern { items });
                id
            }
            "object_pattern" => {
                let id = self.b.open(start, end);
                let mark = self.b.mark();
                for entry in named_children(node) {
                    let e = match entry.kind_name() {
                        "shorthand_property_identifier_pattern" => {
                            let e = self.b.open(entry.start_byte(), entry.end_byte());
                            let name = decode_js_identifier(self.text(entry));
                            let text = Some(self.b.text(name));
                            let key = self.b.leaf(
                                entry.start_byte(),
                                entry.end_byte(),
                                Kind::Str { text, name: false },
                            );
                            let target = self.pattern(entry);
                            self.b.close(e, Kind::PatternEntry { key, target });
                            e
                        }
                        "object_assignment_pattern" => {
                            let e = self.b.open(entry.start_byte(), entry.end_byte());
                            let left = field(entry, f.left);
                            let key = match left {
                                Some(l)
                                    if l.kind_name() == "shorthand_property_identifier_pattern" =>
                                {
                                    let name = decode_js_identifier(self.text(l));
                                    let text = Some(self.b.text(name));
                                    self.b.leaf(
                                        l.start_byte(),
                                        l.end_byte(),
                                        Kind::Str { text, name: false },
                                    )
                                }
                                _ => self.empty(entry.start_byte()),
                            };
                            let d = self.b.open(entry.start_byte(), entry.end_byte());
                            let default = match field(entry, f.right) {
                                Some(r) => self.expr(r),
                                None => self.empty(entry.end_byte()),
                            };
                            let target = match left {
                                Some(l) => self.pattern(l),
                                None => self.empty(entry.start_byte()),
                            };
                            self.b.close(d, Kind::DefaultTarget { target, default });
                            self.b.close(e, Kind::PatternEntry { key, target: d });
                            e
                        }
                        "pair_pattern" => {
                            let e = self.b.open(entry.start_byte(), entry.end_byte());
                            let key = match field(entry, f.key) {
                                Some(k) => self.property_key(k),
                                None => self.empty(entry.start_byte()),
                            };
                            let target = match field(entry, f.value) {
                                Some(v) => self.pattern(v),
                                None => self.empty(entry.end_byte()),
                            };
                            self.b.close(e, Kind::PatternEntry { key, target });
                            e
                        }
                        "rest_pattern" => self.pattern(entry),
                        _ => self.expr(entry),
                    };
                    self.b.push(e);
                }
                let entries = self.b.list_since(mark);
                self.b.close(id, Kind::ObjectPattern { entries });
                id
            }
            "assignment_pattern" => {
                let id = self.b.open(start, end);
                let default = match field(node, f.right) {
                    Some(r) => self.expr(r),
                    None => self.empty(end),
                };
                let target = match field(node, f.left) {
                    Some(l) => self.pattern(l),
                    None => self.empty(start),
                };
                self.b.close(id, Kind::DefaultTarget { target, default });
                id
            }
            "rest_pattern" => {
                let id = self.b.open(start, end);
                let inner = match named_children(node).first() {
                    Some(i) => self.pattern(*i),
                    None => self.empty(start),
                };
                self.b.close(id, Kind::Rest(inner));
                id
            }
            "parenthesized_expression" => match named_children(node).last() {
                Some(inner) => self.pattern(*inner),
                None => self.empty(start),
            },
            // Members and subscripts are stores into objects: lowered as expressions.
            _ => self.expr(node),
        }
    }

    fn expr(&mut self, node: Node) -> NodeId {
        if !self.guard(node) {
            return self.empty(node.start_byte());
        }
        self.depth += 1;
        let id = self.expr_inner(node);
        self.depth -= 1;
        id
    }

    fn expr_inner(&mut self, node: Node) -> NodeId {
        let f = self.f;
        let (start, end) = (node.start_byte(), node.end_byte());
        match node.kind_name() {
            "identifier" | "shorthand_property_identifier" => {
                let sym = self.sym(node);
                self.b.leaf(start, end, Kind::Name(sym))
            }
            "this" => self.b.leaf(start, end, Kind::This),
            "super" => self.b.leaf(start, end, Kind::Super),
            "undefined" | "null" => self.b.leaf(start, end, Kind::Const(ConstKind::Null)),
            "true" => self.b.leaf(start, end, Kind::Const(ConstKind::True)),
            "false" => self.b.leaf(start, end, Kind::Const(ConstKind::False)),
            "import" => {
                let sym = self.b.intern("import");
                self.b.leaf(start, end, Kind::Name(sym))
            }
            "member_expression" => {
                let id = self.b.open(start, end);
                let object = match field(node, f.object) {
                    Some(o) => self.expr(o),
                    None => self.empty(start),
                };
                let name = match field(node, f.property) {
                    Some(p) => self.sym(p),
                    None => self.b.intern(""),
                };
                self.b.close(id, Kind::Attr { object, name });
                id
            }
            "subscript_expression" => {
                let id = self.b.open(start, end);
                let object = match field(node, f.object) {
                    Some(o) => self.expr(o),
                    None => self.empty(start),
                };
                let key = match field(node, f.index) {
                    Some(k) => self.expr(k),
                    None => self.empty(end),
                };
                self.b.close(id, Kind::Index { object, key });
                id
            }
            "call_expression" | "new_expression" => {
                let id = self.b.open(start, end);
                let new = node.kind_name() == "new_expression";
                let callee_field = if new { f.constructor } else { f.function };
                let callee = match field(node, callee_field) {
                    Some(c) => self.expr(c),
                    None => self.empty(start),
                };
                let mark = self.b.mark();
                if let Some(args) = field(node, f.arguments) {
                    if args.kind_name() == "template_string" {
                        // A tagged template: the tag is called with the template's text.
                        let a = self.b.open(args.start_byte(), args.end_byte());
                        let value = self.expr(args);
                        self.b.close(
                            a,
                            Kind::Arg {
                                name: None,
                                value,
                                splat: Splat::None,
                            },
                        );
                        self.b.push(a);
                    } else {
                        for arg in named_children(args) {
                            let a = self.b.open(arg.start_byte(), arg.end_byte());
                            let (value, splat) = if arg.kind_name() == "spread_element" {
                                let inner = match named_children(arg).first() {
                                    Some(i) => self.expr(*i),
                                    None => self.empty(arg.start_byte()),
                                };
                                (inner, Splat::Positional)
                            } else {
                                (self.expr(arg), Splat::None)
                            };
                            self.b.close(
                                a,
                                Kind::Arg {
                                    name: None,
                                    value,
                                    splat,
                                },
                            );
                            self.b.push(a);
                        }
                    }
                }
                let args = self.b.list_since(mark);
                self.b.close(id, Kind::Call { callee, args, new });
                id
            }
            "string" => {
                let value = self.string_value(node);
                let text = value.map(|v| self.b.text(v));
                self.b.leaf(start, end, Kind::Str { text, name: false })
            }
            "template_string" => {
                let id = self.b.open(start, end);
                let mark = self.b.mark();
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                // The text between the backticks and the substitutions, taken from the source
                // whole: what the grammar leaves out of its fragments (a NUL) is text too.
                // A template the parser had to repair is not text the engine would read.
                let broken = node.has_error() || !self.text(node).ends_with('`');
                let (inner_start, inner_end) = (start + 1, end.saturating_sub(1).max(start + 1));
                let piece = |this: &mut Self, from: usize, to: usize| {
                    if from < to {
                        let raw = this.source_text(from, to).filter(|_| !broken);
                        let text = raw
                            .and_then(|raw| decode_js_string(&universal_newlines(raw)))
                            .map(|t| this.b.text(t));
                        let leaf = this.b.leaf(from, to, Kind::Str { text, name: false });
                        this.b.push(leaf);
                    }
                };
                let mut at = inner_start;
                for child in children {
                    if child.kind_name() == "template_substitution" {
                        piece(self, at, child.start_byte());
                        at = child.end_byte();
                        let i = self.b.open(child.start_byte(), child.end_byte());
                        let value = match named_children(child).last() {
                            Some(e) => self.expr(*e),
                            None => self.empty(child.start_byte()),
                        };
                        self.b.close(
                            i,
                            Kind::Interp {
                                value,
                                spec: false,
                                repr: false,
                            },
                        );
                        self.b.push(i);
                    }
                }
                piece(self, at, inner_end);
                let parts = self.b.list_since(mark);
                self.b.close(id, Kind::Template { parts });
                id
            }
            "number" => {
                let raw = self.text(node).replace('_', "");
                let raw = raw.trim_end_matches('n');
                let value = if raw.len() > 1
                    && raw.starts_with('0')
                    && raw[1..].bytes().all(|b| b.is_ascii_digit())
                {
                    // A legacy octal literal (`0755`), or decimal when it has an 8 or 9.
                    if raw.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
                        i128::from_str_radix(&raw[1..], 8).ok()
                    } else {
                        raw.parse().ok()
                    }
                } else {
                    parse_int(raw).or_else(|| integral_float(raw))
                };
                self.b
                    .leaf(start, end, value.map_or(Kind::Float, Kind::Int))
            }
            "binary_expression" => {
                let id = self.b.open(start, end);
                let left = match field(node, f.left) {
                    Some(l) => self.expr(l),
                    None => self.empty(start),
                };
                let right = match field(node, f.right) {
                    Some(r) => self.expr(r),
                    None => self.empty(end),
                };
                let op = match field(node, f.operator).map(|o| self.text(o)) {
                    Some("+") => BinOp::Add,
                    Some("-") => BinOp::Sub,
                    Some("*") => BinOp::Mul,
                    Some("/") => BinOp::Div,
                    Some("%") => BinOp::Mod,
                    Some("**") => BinOp::Pow,
                    Some("<<") => BinOp::Shl,
                    Some(">>" | ">>>") => BinOp::Shr,
                    Some("|") => BinOp::BitOr,
                    Some("&") => BinOp::BitAnd,
                    Some("^") => BinOp::BitXor,
                    Some("&&" | "||" | "??") => BinOp::Logical,
                    _ => BinOp::Compare,
                };
                self.b.close(id, Kind::Binary { op, left, right });
                id
            }
            "unary_expression" => {
                let id = self.b.open(start, end);
                let arg = match field(node, f.argument) {
                    Some(a) => self.expr(a),
                    None => self.empty(start),
                };
                let op = match field(node, f.operator).map(|o| self.text(o)) {
                    Some("-") => UnOp::Neg,
                    Some("+") => UnOp::Pos,
                    Some("~") => UnOp::Invert,
                    _ => UnOp::Other,
                };
                self.b.close(id, Kind::Unary { op, arg });
                id
            }
            "update_expression" => {
                let id = self.b.open(start, end);
                let target = match field(node, f.argument) {
                    Some(a) => self.pattern(a),
                    None => self.empty(start),
                };
                self.b.close(
                    id,
                    Kind::AugAssign {
                        target,
                        value: None,
                    },
                );
                id
            }
            "ternary_expression" => {
                let id = self.b.open(start, end);
                let test = match field(node, f.condition) {
                    Some(c) => self.expr(c),
                    None => self.empty(start),
                };
                let then = match field(node, f.consequence) {
                    Some(c) => self.expr(c),
                    None => self.empty(start),
                };
                let other = match field(node, f.alternative) {
                    Some(c) => self.expr(c),
                    None => self.empty(end),
                };
                self.b.close(id, Kind::Cond { test, then, other });
                id
            }
            "sequence_expression" => {
                let id = self.b.open(start, end);
                let mark = self.b.mark();
                for item in named_children(node) {
                    let e = self.expr(item);
                    self.b.push(e);
                }
                let items = self.b.list_since(mark);
                self.b.close(id, Kind::Seq { items });
                id
            }
            "parenthesized_expression" | "await_expression" => {
                let id = self.b.open(start, end);
                let inner = match named_children(node).last() {
                    Some(i) => self.expr(*i),
                    None => self.empty(start),
                };
                self.b.close(id, Kind::Paren(inner));
                id
            }
            "yield_expression" => {
                let id = self.b.open(start, end);
                named_children(node).first().map(|v| self.expr(*v));
                self.b.close(id, Kind::Yield);
                id
            }
            "assignment_expression" => {
                let id = self.b.open(start, end);
                let value = match field(node, f.right) {
                    Some(r) => self.expr(r),
                    None => self.empty(end),
                };
                let target = match field(node, f.left) {
                    Some(l) => self.pattern(l),
                    None => self.empty(start),
                };
                let mark = self.b.mark();
                self.b.push(target);
                let targets = self.b.list_since(mark);
                self.b.close(id, Kind::Assign { targets, value });
                id
            }
            "augmented_assignment_expression" => {
                let id = self.b.open(start, end);
                let value = match field(node, f.right) {
                    Some(r) => self.expr(r),
                    None => self.empty(end),
                };
                let target = match field(node, f.left) {
                    Some(l) => self.pattern(l),
                    None => self.empty(start),
                };
                let logical = field(node, f.operator)
                    .is_some_and(|o| matches!(self.text(o), "||=" | "&&=" | "??="));
                if logical {
                    // `x ||= value` may store the value itself.
                    let mark = self.b.mark();
                    self.b.push(target);
                    let targets = self.b.list_since(mark);
                    self.b.close(id, Kind::Assign { targets, value });
                } else {
                    self.b.close(
                        id,
                        Kind::AugAssign {
                            target,
                            value: Some(value),
                        },
                    );
                }
                id
            }
            "array" => self.collection(node, CollectionKind::List),
            "object" => self.collection(node, CollectionKind::Map),
            "pair" => {
                let id = self.b.open(start, end);
                let key = match field(node, f.key) {
                    Some(k) => self.property_key(k),
                    None => self.empty(start),
                };
                let value = match field(node, f.value) {
                    Some(v) => self.expr(v),
                    None => self.empty(end),
                };
                self.b.close(id, Kind::Pair { key, value });
                id
            }
            "method_definition" => self.method(node),
            "spread_element" => {
                let id = self.b.open(start, end);
                let inner = match named_children(node).first() {
                    Some(i) => self.expr(*i),
                    None => self.empty(start),
                };
                self.b.close(id, Kind::Spread(inner));
                id
            }
            "function_expression" | "generator_function" => {
                self.function(node, FunctionKind::Def, false)
            }
            "arrow_function" => self.function(node, FunctionKind::Lambda, false),
            "class" => self.class(node, false),
            _ if is_statement(node.kind_name()) => self.stmt_inner(node),
            _ => self.other(node),
        }
    }

    fn collection(&mut self, node: Node, kind: CollectionKind) -> NodeId {
        let id = self.b.open(node.start_byte(), node.end_byte());
        let mark = self.b.mark();
        for item in named_children(node) {
            let e = if item.kind_name() == "shorthand_property_identifier" {
                // `{require}` is `{require: require}`.
                let p = self.b.open(item.start_byte(), item.end_byte());
                let name = decode_js_identifier(self.text(item));
                let text = Some(self.b.text(name));
                let key = self.b.leaf(
                    item.start_byte(),
                    item.end_byte(),
                    Kind::Str { text, name: false },
                );
                let value = self.expr(item);
                self.b.close(p, Kind::Pair { key, value });
                p
            } else {
                self.expr(item)
            };
            self.b.push(e);
        }
        let items = self.b.list_since(mark);
        self.b.close(id, Kind::Collection { kind, items });
        id
    }
}

fn is_statement(kind: &str) -> bool {
    matches!(
        kind,
        "expression_statement"
            | "statement_block"
            | "variable_declaration"
            | "lexical_declaration"
            | "using_declaration"
            | "function_declaration"
            | "generator_function_declaration"
            | "class_declaration"
            | "import_statement"
            | "export_statement"
            | "for_statement"
            | "for_in_statement"
            | "catch_clause"
            | "return_statement"
            | "throw_statement"
            | "with_statement"
            | "if_statement"
            | "else_clause"
            | "while_statement"
            | "do_statement"
            | "try_statement"
            | "finally_clause"
            | "switch_statement"
            | "switch_body"
            | "switch_case"
            | "switch_default"
            | "labeled_statement"
            | "break_statement"
            | "continue_statement"
            | "debugger_statement"
            | "empty_statement"
            | "class_static_block"
    )
}
