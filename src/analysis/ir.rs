//! The one syntax both languages are lowered into, so that scopes, bindings, resolution,
//! folding and reporting are written once.
//!
//! Each language's `lower` module turns its tree-sitter tree into these nodes. Only the
//! constructs the analysis reasons about get a kind of their own; every other construct is
//! [`Kind::Other`], whose children are still lowered and visited. A value that flows into an
//! `Other` node flows where the analysis cannot follow it, which is exactly what the strict
//! policy needs to know.
//!
//! Nodes live in one vector in source order (a parent before its children), each with its
//! parent and byte span; lists of children live in a second vector. Identifiers are interned
//! (after the language's own normalization: NFKC for Python, escape decoding for JavaScript),
//! and string literals are stored decoded, or as undecodable when the analyzer cannot be sure
//! what the interpreter would read.

use foldhash::HashMap;

pub type NodeId = u32;

/// An interned identifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(pub u32);

/// A slice of [`Ir::lists`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct List {
    start: u32,
    len: u32,
}

impl List {
    pub fn is_empty(self) -> bool {
        self.len == 0
    }
}

/// A decoded string literal, by index into [`Ir::texts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextId(pub u32);

#[derive(Debug, Clone, Copy)]
pub struct Node {
    pub kind: Kind,
    pub parent: NodeId,
    pub start: u32,
    pub end: u32,
}

/// What a function-like node is: its `this` and its scope differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionKind {
    /// Python `def`, JavaScript `function` (its own `this`).
    Def,
    /// Python `lambda`, JavaScript arrow function (no `this` of its own).
    Lambda,
    /// A method of a class or object literal (its `this` is the object).
    Method,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CollectionKind {
    List,
    Tuple,
    Set,
    /// Python dict, JavaScript object literal: items are [`Kind::Pair`]s (or spreads).
    Map,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclKind {
    Var,
    Let,
    Const,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Splat {
    None,
    /// `*args`, JavaScript `...args`.
    Positional,
    /// `**kwargs`.
    Keywords,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConstKind {
    True,
    False,
    /// Python `None`, JavaScript `null` and `undefined`.
    Null,
    Ellipsis,
}

/// Binary operators the analysis folds or whose value is one of the operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    Shl,
    Shr,
    BitOr,
    BitAnd,
    BitXor,
    MatMul,
    /// `or`, `||`, `??`, `and`, `&&`: the value is one of the operands.
    Logical,
    /// Comparisons, `in`, `instanceof`: the value is a boolean.
    Compare,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Pos,
    Invert,
    /// `not`, `!`, `typeof`, `void`, `delete`: the value is not the operand.
    Other,
}

/// The constructs the analysis reasons about.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    Module,
    // ---- expressions ------------------------------------------------------------------
    /// A reference to a name.
    Name(Sym),
    /// JavaScript `this`.
    This,
    /// JavaScript `super`.
    Super,
    /// `object.name` (JavaScript `object?.name` too).
    Attr {
        object: NodeId,
        name: Sym,
    },
    /// `object[key]`.
    Index {
        object: NodeId,
        key: NodeId,
    },
    /// A call or, with `new`, a JavaScript construction. `args` are [`Kind::Arg`]s.
    Call {
        callee: NodeId,
        args: List,
        new: bool,
    },
    /// One argument of a call: positional, keyword (`name=`), or splatted.
    Arg {
        name: Option<Sym>,
        value: NodeId,
        splat: Splat,
    },
    /// A string (or bytes) literal; `None` when the analyzer cannot be sure what it decodes
    /// to. `name`: written as a name, not a string (a JavaScript property key or method name).
    Str {
        text: Option<TextId>,
        name: bool,
    },
    /// An f-string or template literal: parts are `Str` and `Interp` nodes.
    Template {
        parts: List,
    },
    /// One `{...}` of a template. `spec` is true when it has a format specifier (or
    /// Python's `{x=}`); `repr` when it writes the value's `repr()` (`{x!r}`, `{x!a}`).
    Interp {
        value: NodeId,
        spec: bool,
        repr: bool,
    },
    /// An integer literal (saturated), or an integral float literal.
    Int(i128),
    /// A number the analysis does not fold (a fraction, infinite, NaN).
    Float,
    Const(ConstKind),
    Binary {
        op: BinOp,
        left: NodeId,
        right: NodeId,
    },
    Unary {
        op: UnOp,
        arg: NodeId,
    },
    /// A chain of comparisons (`a < b < c`): a boolean; nothing flows out of its operands.
    Compared,
    /// `a if test else b`, `test ? a : b`.
    Cond {
        test: NodeId,
        then: NodeId,
        other: NodeId,
    },
    /// JavaScript's comma operator: the value is the last item.
    Seq {
        items: List,
    },
    /// Parentheses, `await`: the value is the inner one.
    Paren(NodeId),
    /// A list, tuple, set, dict or object literal.
    Collection {
        kind: CollectionKind,
        items: List,
    },
    /// A dict or object entry. `key` is the key expression (a `Str` for identifier keys).
    Pair {
        key: NodeId,
        value: NodeId,
    },
    /// `...x` in a literal, `*x` or `**x` in a Python display.
    Spread(NodeId),
    /// `a:b:c`, the key of a slicing subscript.
    Slice {
        start: Option<NodeId>,
        stop: Option<NodeId>,
        step: Option<NodeId>,
    },
    /// A function, lambda or method. `params` are [`Kind::Param`]s; `body` its statements (a
    /// lambda's body is one expression, whose value is returned).
    /// `declared`: the name is bound where the function is defined (a Python `def`, a
    /// JavaScript function declaration), not only inside it (a function expression).
    Function {
        kind: FunctionKind,
        declared: bool,
        name: Option<NodeId>,
        params: List,
        body: List,
        decorators: List,
    },
    /// A class; `declared` as for functions. `heads`: what runs to make it besides its
    /// body, whose result the name may hold instead of a plain class: Python's decorators,
    /// bases and keywords (`metaclass=`), JavaScript's `extends` (each an `Arg` but
    /// decorators).
    Class {
        declared: bool,
        name: Option<NodeId>,
        heads: List,
        body: List,
    },
    /// A comprehension or generator expression: its own scope. The first `for` clause's
    /// iterable is evaluated outside it.
    Comprehension {
        clauses: List,
    },
    /// `for target in iter` inside a comprehension.
    CompFor {
        target: NodeId,
        iter: NodeId,
    },
    Yield,
    // ---- binding targets ---------------------------------------------------------------
    /// A name being bound.
    Bind(Sym),
    /// A destructuring target: `[a, b]`, `(a, *b)`, JavaScript `[a, ...b]`.
    TuplePattern {
        items: List,
    },
    /// `{key: target = default, ...rest}`. Entries are [`Kind::PatternEntry`] and `Rest`.
    ObjectPattern {
        entries: List,
    },
    /// One entry of an object pattern: the key taken (`key` a `Str` or computed expression)
    /// and its target.
    PatternEntry {
        key: NodeId,
        target: NodeId,
    },
    /// `target = default` in a pattern or parameter list.
    DefaultTarget {
        target: NodeId,
        default: NodeId,
    },
    /// `*rest`, `...rest`, `**rest` in a pattern or parameter list.
    Rest(NodeId),
    /// A parameter: its target (a `Bind`, a pattern, or a `DefaultTarget`).
    Param {
        target: NodeId,
    },
    // ---- statements and binding constructs ---------------------------------------------
    /// `a = b = value` (targets in order), JavaScript `a = value` (also an expression).
    Assign {
        targets: List,
        value: NodeId,
    },
    /// `target op= value`, `x++`.
    AugAssign {
        target: NodeId,
        value: Option<NodeId>,
    },
    /// Python's walrus `(name := value)`: binds in the enclosing function and is the value.
    Walrus {
        target: NodeId,
        value: NodeId,
    },
    /// A JavaScript declarator: `var|let|const target = value`.
    Decl {
        kind: DeclKind,
        target: NodeId,
        value: Option<NodeId>,
    },
    /// An import: `module` is the literal module name (`None` when computed or relative).
    /// Python `import a.b` binds `a`; items are [`Kind::ImportItem`]s.
    Import {
        module: Option<TextId>,
        items: List,
        star: bool,
        /// A Python `import a, b.c` statement (each item names its own module).
        plain: bool,
    },
    /// One imported name: `imported` (a dotted path or `default`/`*`), bound as `local`;
    /// `aliased` when an `as` names the local (`import a.b` binds `a`, `import a.b as c`
    /// binds `c` to `a.b`).
    ImportItem {
        imported: Option<TextId>,
        local: Option<NodeId>,
        aliased: bool,
    },
    /// `for target in iter` / `for (target of iter)`; `keys` for JavaScript `for-in`, `decl`
    /// when a JavaScript head declares its target (`for (const x of ...)`).
    For {
        target: NodeId,
        iter: NodeId,
        keys: bool,
        decl: Option<DeclKind>,
    },
    /// `with value as target` (one item).
    WithItem {
        target: Option<NodeId>,
    },
    /// `except T as target`, `catch (target)`.
    Catch {
        target: Option<NodeId>,
    },
    /// Names declared `global` or `nonlocal`.
    Global {
        names: List,
        nonlocal: bool,
    },
    /// `del targets`.
    Delete {
        targets: List,
    },
    Return(Option<NodeId>),
    Raise,
    /// A Python `match` subject, or a JavaScript `with` object: the value is taken apart (or
    /// put on the scope chain) where the analysis does not follow it.
    Opaque,
    /// A name bound by a `match` pattern to part of the subject.
    Capture(NodeId),
    /// A JavaScript block (`{ ... }`, a `for` head, a `catch` clause): a scope for `let`,
    /// `const` and `class`.
    Block,
    /// A statement whose value is discarded (`os` alone on a line).
    ExprStatement,
    /// A docstring: the first statement of a module, class or function, when it is a
    /// constant string.
    Docstring(NodeId),
    /// JavaScript `with (object) body`.
    With,
    /// A Python type annotation, with its children: evaluated when its definition runs, and
    /// the strings in it evaluated again, as code, by `typing.get_type_hints`.
    Annotation,
    /// Anything else, with its children.
    Other,
}

/// Identifiers, interned.
#[derive(Default)]
pub struct Interner {
    ids: HashMap<Box<str>, Sym>,
    names: Vec<Box<str>>,
}

impl Interner {
    pub fn intern(&mut self, name: &str) -> Sym {
        if let Some(&sym) = self.ids.get(name) {
            return sym;
        }
        let sym = Sym(self.names.len() as u32);
        self.names.push(name.into());
        self.ids.insert(name.into(), sym);
        sym
    }

    pub fn get(&self, name: &str) -> Option<Sym> {
        self.ids.get(name).copied()
    }

    pub fn name(&self, sym: Sym) -> &str {
        &self.names[sym.0 as usize]
    }
}

/// A lowered snippet.
pub struct Ir {
    pub nodes: Vec<Node>,
    lists: Vec<NodeId>,
    texts: Vec<Box<str>>,
    pub names: Interner,
}

impl Ir {
    pub fn root(&self) -> NodeId {
        0
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    pub fn kind(&self, id: NodeId) -> Kind {
        self.nodes[id as usize].kind
    }

    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        (id != 0).then(|| self.nodes[id as usize].parent)
    }

    pub fn list(&self, list: List) -> &[NodeId] {
        &self.lists[list.start as usize..(list.start + list.len) as usize]
    }

    pub fn text(&self, id: TextId) -> &str {
        &self.texts[id.0 as usize]
    }

    pub fn name(&self, sym: Sym) -> &str {
        self.names.name(sym)
    }

    /// The constant string a `Str` node holds.
    pub fn str_value(&self, id: NodeId) -> Option<&str> {
        match self.kind(id) {
            Kind::Str { text: Some(t), .. } => Some(self.text(t)),
            _ => None,
        }
    }

    /// The function a node belongs to (its nearest enclosing `Function`).
    pub fn enclosing_function(&self, mut id: NodeId) -> Option<NodeId> {
        while let Some(parent) = self.parent(id) {
            if matches!(self.kind(parent), Kind::Function { .. }) {
                return Some(parent);
            }
            id = parent;
        }
        None
    }

    /// The expression inside any parentheses.
    pub fn unparen(&self, mut id: NodeId) -> NodeId {
        while let Kind::Paren(inner) = self.kind(id) {
            id = inner;
        }
        id
    }

    /// The iterable a loop binds `bind` from, when `bind` is the loop's whole target: `for bind
    /// in iter`, a comprehension's `for`, JavaScript's `for...of` (its `for...in` gives keys,
    /// not items).
    pub fn loop_iterable(&self, bind: NodeId) -> Option<NodeId> {
        match self.kind(self.parent(bind)?) {
            Kind::For {
                target,
                iter,
                keys: false,
                ..
            }
            | Kind::CompFor { target, iter }
                if target == bind =>
            {
                Some(iter)
            }
            _ => None,
        }
    }

    /// True for `new X(...)`: an object, which may change after it is made (`u = new
    /// URL('file:///work/a'); u.pathname = '/etc/passwd'`), so a name bound to one has no
    /// constant text even when the construction folds to one.
    pub fn is_construction(&self, id: NodeId) -> bool {
        matches!(self.kind(self.unparen(id)), Kind::Call { new: true, .. })
    }

    /// The parent, past any parentheses: where the value of `id` goes.
    pub fn context(&self, mut id: NodeId) -> Option<(NodeId, NodeId)> {
        loop {
            let parent = self.parent(id)?;
            if matches!(self.kind(parent), Kind::Paren(_)) {
                id = parent;
                continue;
            }
            return Some((parent, id));
        }
    }

    /// The span of a node in source bytes.
    pub fn span(&self, id: NodeId) -> (usize, usize) {
        let node = self.node(id);
        (node.start as usize, node.end as usize)
    }
}

/// Builds an [`Ir`] in source order. Lowerers open a node, lower its children (which record
/// this node as their parent), then close it with its kind.
pub struct Builder {
    ir: Ir,
    /// Nodes opened and not yet closed.
    open: Vec<NodeId>,
    /// Pending children lists, built on a stack and copied out when a list is finished.
    scratch: Vec<NodeId>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            ir: Ir {
                nodes: Vec::new(),
                lists: Vec::new(),
                texts: Vec::new(),
                names: Interner::default(),
            },
            open: Vec::new(),
            scratch: Vec::new(),
        }
    }
}

/// A list being gathered: a mark on the builder's scratch stack.
#[derive(Clone, Copy)]
pub struct Mark(usize);

impl Builder {
    /// A builder with room for the nodes a snippet of `source_len` bytes usually lowers to
    /// (about one per eight bytes), so building does not copy the node array at every
    /// doubling.
    pub fn for_source(source_len: usize) -> Self {
        let mut builder = Builder::default();
        builder.ir.nodes.reserve(source_len / 8 + 16);
        builder
    }

    /// Opens a node spanning `start..end`; its kind is set by [`Builder::close`].
    pub fn open(&mut self, start: usize, end: usize) -> NodeId {
        let id = self.ir.nodes.len() as NodeId;
        let parent = self.open.last().copied().unwrap_or(0);
        self.ir.nodes.push(Node {
            kind: Kind::Other,
            parent,
            start: start as u32,
            end: end as u32,
        });
        self.open.push(id);
        id
    }

    pub fn close(&mut self, id: NodeId, kind: Kind) {
        debug_assert_eq!(self.open.last(), Some(&id));
        self.open.pop();
        self.ir.nodes[id as usize].kind = kind;
    }

    /// A leaf node.
    pub fn leaf(&mut self, start: usize, end: usize, kind: Kind) -> NodeId {
        let id = self.open(start, end);
        self.close(id, kind);
        id
    }

    pub fn mark(&self) -> Mark {
        Mark(self.scratch.len())
    }

    pub fn push(&mut self, id: NodeId) {
        self.scratch.push(id);
    }

    /// The ids of a finished list.
    pub fn list_ids(&self, list: List) -> &[NodeId] {
        &self.ir.lists[list.start as usize..(list.start + list.len) as usize]
    }

    /// Drops the ids pushed since `mark`: a node that keeps no list of its children (every node
    /// knows its parent).
    pub fn discard(&mut self, mark: Mark) {
        self.scratch.truncate(mark.0);
    }

    /// The ids pushed since `mark`, as a list.
    pub fn list_since(&mut self, mark: Mark) -> List {
        let start = self.ir.lists.len() as u32;
        self.ir.lists.extend(self.scratch.drain(mark.0..));
        List {
            start,
            len: self.ir.lists.len() as u32 - start,
        }
    }

    pub fn intern(&mut self, name: &str) -> Sym {
        self.ir.names.intern(name)
    }

    pub fn text(&mut self, text: String) -> TextId {
        let id = TextId(self.ir.texts.len() as u32);
        self.ir.texts.push(text.into_boxed_str());
        id
    }

    pub fn finish(self) -> Ir {
        debug_assert!(self.open.is_empty());
        self.ir
    }
}
