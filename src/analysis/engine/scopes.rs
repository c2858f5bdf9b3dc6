//! Scopes: which scope each node is evaluated in, which names each scope declares, and what a
//! name refers to where it is used. Python's rules (function scopes, class bodies invisible to
//! nested functions, comprehensions, `global`/`nonlocal`) and JavaScript's (block scopes for
//! `let`/`const`/`class`, function scopes for `var` and parameters, implicit globals) differ
//! only in how a binding declares; the lookup is one.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use crate::analysis::ir::{DeclKind, FunctionKind, Ir, Kind, NodeId, Sym};

pub type ScopeId = u32;
pub const MODULE_SCOPE: ScopeId = 0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeKind {
    Module,
    Function(FunctionKind),
    Class,
    Comprehension,
    Block,
}

#[derive(Debug, Clone, Copy)]
pub struct Scope {
    pub kind: ScopeKind,
    pub parent: Option<ScopeId>,
    pub node: NodeId,
}

/// How bindings declare names in a language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declaring {
    /// Python: any binding declares the name in its scope (unless `global`/`nonlocal`).
    EveryBinding,
    /// JavaScript: only declarations do; a plain assignment stores into whatever the name
    /// refers to, or creates a global.
    Declarations,
}

/// Where a name used at some place may come from.
#[derive(Debug, Clone, Default)]
pub struct Lookup {
    /// Scopes whose binding of the name it may be (usually one).
    pub scopes: Vec<ScopeId>,
    /// The name is certainly the binding found (a local of a function); otherwise it may
    /// still be a builtin or global where the binding has not run.
    pub certain: bool,
}

pub struct Scopes {
    pub scopes: Vec<Scope>,
    /// For each node, the scope it is evaluated in.
    scope_of: Vec<ScopeId>,
    /// For each scope-creating node, its scope.
    own: HashMap<NodeId, ScopeId>,
    declared: HashSet<(ScopeId, Sym)>,
    /// Names a Python function declares `global`.
    global_in: HashSet<(ScopeId, Sym)>,
    /// Names a Python function declares `nonlocal`.
    nonlocal_in: HashSet<(ScopeId, Sym)>,
    /// For each `Bind` node, the scope whose binding of the name it sets.
    bind_scope: HashMap<NodeId, ScopeId>,
    /// Python names deleted or declared `global` somewhere: no binding of theirs is trusted
    /// to hide the builtin of that name.
    pub unstable: HashSet<Sym>,
    /// Python: byte offset after which a top-level, unconditional statement has bound the
    /// name (an import, `def`, `class` or assignment directly in the module's body).
    bound_from: HashMap<Sym, u32>,
}

impl Scopes {
    pub fn of(ir: &Ir, declaring: Declaring) -> Scopes {
        let mut s = Scopes {
            scopes: Vec::new(),
            scope_of: vec![MODULE_SCOPE; ir.nodes.len()],
            own: HashMap::new(),
            declared: HashSet::new(),
            global_in: HashSet::new(),
            nonlocal_in: HashSet::new(),
            unstable: HashSet::new(),
            bound_from: HashMap::new(),
            bind_scope: HashMap::new(),
        };
        s.scopes.push(Scope {
            kind: ScopeKind::Module,
            parent: None,
            node: ir.root(),
        });
        s.own.insert(ir.root(), MODULE_SCOPE);
        for id in 1..ir.nodes.len() as NodeId {
            let scope = s.child_scope(ir, id);
            s.scope_of[id as usize] = scope;
            let kind = match ir.kind(id) {
                Kind::Function { kind, .. } => Some(ScopeKind::Function(kind)),
                Kind::Class { .. } if declaring == Declaring::EveryBinding => {
                    Some(ScopeKind::Class)
                }
                Kind::Class { .. } | Kind::Block => Some(ScopeKind::Block),
                Kind::Comprehension { .. } => Some(ScopeKind::Comprehension),
                _ => None,
            };
            if let Some(kind) = kind {
                let new = s.scopes.len() as ScopeId;
                s.scopes.push(Scope {
                    kind,
                    parent: Some(scope),
                    node: id,
                });
                s.own.insert(id, new);
            }
        }
        s.collect_declarations(ir, declaring);
        s
    }

    /// The scope a node is evaluated in.
    pub fn scope_of(&self, id: NodeId) -> ScopeId {
        self.scope_of[id as usize]
    }

    /// The scope a scope-creating node opens.
    pub fn own(&self, id: NodeId) -> Option<ScopeId> {
        self.own.get(&id).copied()
    }

    /// The scope a child of `parent` is evaluated in: the parent's own scope for the parts that
    /// run inside it, the parent's scope for the parts that run where it is defined (a
    /// function's name, decorators and defaults, a class's bases, a comprehension's first
    /// iterable).
    fn child_scope(&self, ir: &Ir, id: NodeId) -> ScopeId {
        let Some(parent) = ir.parent(id) else {
            return MODULE_SCOPE;
        };
        let outer = self.scope_of[parent as usize];
        let inner = self.own.get(&parent).copied();
        match ir.kind(parent) {
            Kind::Module | Kind::Block => inner.unwrap_or(outer),
            Kind::Function { params, body, .. } => {
                let inside = ir.list(params).contains(&id) || ir.list(body).contains(&id);
                if inside {
                    inner.unwrap_or(outer)
                } else {
                    outer
                }
            }
            Kind::Class { body, .. } => {
                if ir.list(body).contains(&id) {
                    inner.unwrap_or(outer)
                } else {
                    outer
                }
            }
            Kind::Comprehension { .. } => inner.unwrap_or(outer),
            Kind::CompFor { iter, .. } if iter == id => {
                // The first clause's iterable runs outside the comprehension.
                let comprehension = ir.parent(parent);
                let first = comprehension.and_then(|c| match ir.kind(c) {
                    Kind::Comprehension { clauses, .. } => ir.list(clauses).first().copied(),
                    _ => None,
                });
                match (first, comprehension) {
                    (Some(first), Some(c)) if first == parent => self.scope_of[c as usize],
                    _ => outer,
                }
            }
            Kind::DefaultTarget { default, .. } if default == id => {
                // A parameter's default runs where the function is defined.
                let param = ir
                    .parent(parent)
                    .filter(|p| matches!(ir.kind(*p), Kind::Param { .. }));
                match param.and_then(|p| ir.parent(p)) {
                    Some(function) => self.scope_of[function as usize],
                    None => outer,
                }
            }
            _ => outer,
        }
    }

    fn collect_declarations(&mut self, ir: &Ir, declaring: Declaring) {
        for id in 0..ir.nodes.len() as NodeId {
            match ir.kind(id) {
                Kind::Global { names, nonlocal } => {
                    let scope = self.scope_of(id);
                    for &name in ir.list(names) {
                        if let Kind::Bind(sym) = ir.kind(name) {
                            if nonlocal {
                                self.nonlocal_in.insert((scope, sym));
                            } else {
                                self.global_in.insert((scope, sym));
                                self.declared.insert((MODULE_SCOPE, sym));
                                self.unstable.insert(sym);
                            }
                        }
                    }
                }
                Kind::Delete { targets } => {
                    for &t in ir.list(targets) {
                        if let Kind::Bind(sym) = ir.kind(t) {
                            self.unstable.insert(sym);
                        }
                    }
                }
                _ => {}
            }
        }
        // Declarations first, then JavaScript's plain stores, which land where the name is
        // declared (hoisting makes that independent of order).
        for stores in [false, true] {
            for id in 0..ir.nodes.len() as NodeId {
                let Kind::Bind(sym) = ir.kind(id) else {
                    continue;
                };
                let Some(construct) = binding_construct(ir, id) else {
                    continue;
                };
                let scope = match declaring {
                    Declaring::EveryBinding if !stores => {
                        self.python_declaring_scope(ir, id, construct)
                    }
                    Declaring::Declarations => {
                        let here = self.scope_of(id);
                        match (js_declaration_scope(self, ir, construct, here), stores) {
                            (Some(scope), false) => Some(scope),
                            (None, true) => {
                                Some(self.declaring_scope_of(sym, here).unwrap_or(MODULE_SCOPE))
                            }
                            _ => None,
                        }
                    }
                    _ => None,
                };
                if let Some(scope) = scope {
                    self.declared.insert((scope, sym));
                    self.bind_scope.insert(id, scope);
                    if declaring == Declaring::EveryBinding && scope == MODULE_SCOPE {
                        self.note_top_level(ir, construct, sym);
                    }
                }
            }
        }
        // Python `nonlocal x`: stores into the enclosing function's `x`.
        if declaring == Declaring::EveryBinding {
            for id in 0..ir.nodes.len() as NodeId {
                let Kind::Bind(sym) = ir.kind(id) else {
                    continue;
                };
                if self.bind_scope.contains_key(&id) {
                    continue;
                }
                let here = self.scope_of(id);
                if self.nonlocal_in.contains(&(here, sym))
                    && let Some(outer) = self.parent(here)
                    && let Some(&scope) = self.lookup(sym, outer, declaring).scopes.first()
                {
                    self.bind_scope.insert(id, scope);
                }
            }
        }
    }

    /// The scope whose binding a `Bind` node sets.
    pub fn bind_scope(&self, bind: NodeId) -> Option<ScopeId> {
        self.bind_scope.get(&bind).copied()
    }

    /// Python: the scope a binding declares in, past `global` and `nonlocal`.
    fn python_declaring_scope(&self, ir: &Ir, bind: NodeId, construct: NodeId) -> Option<ScopeId> {
        let mut scope = self.scope_of(bind);
        if matches!(ir.kind(construct), Kind::Walrus { .. }) {
            while self.scopes[scope as usize].kind == ScopeKind::Comprehension {
                scope = self.scopes[scope as usize].parent?;
            }
        }
        if matches!(ir.kind(construct), Kind::Global { .. }) {
            return None;
        }
        let Kind::Bind(sym) = ir.kind(bind) else {
            return None;
        };
        if self.global_in.contains(&(scope, sym)) {
            return Some(MODULE_SCOPE);
        }
        if self.nonlocal_in.contains(&(scope, sym)) {
            return None; // stored into an enclosing function's local, found by lookup
        }
        Some(scope)
    }

    /// The nearest function (or module) scope.
    fn function_scope(&self, mut scope: ScopeId) -> ScopeId {
        loop {
            let s = self.scopes[scope as usize];
            match (s.kind, s.parent) {
                (ScopeKind::Function(_) | ScopeKind::Module, _) | (_, None) => return scope,
                (_, Some(parent)) => scope = parent,
            }
        }
    }

    /// The innermost scope from `scope` outwards that declares `sym` (declarations collected
    /// so far).
    fn declaring_scope_of(&self, sym: Sym, mut scope: ScopeId) -> Option<ScopeId> {
        loop {
            if self.declared.contains(&(scope, sym)) {
                return Some(scope);
            }
            scope = self.scopes[scope as usize].parent?;
        }
    }

    /// Records where an unconditional top-level statement binds `sym`.
    fn note_top_level(&mut self, ir: &Ir, construct: NodeId, sym: Sym) {
        let statement = match ir.kind(construct) {
            Kind::ImportItem { .. } => ir.parent(construct),
            _ => Some(construct),
        };
        let Some(statement) = statement else { return };
        if ir.parent(statement) != Some(ir.root()) {
            return;
        }
        let unconditional = matches!(
            ir.kind(statement),
            Kind::Import { .. } | Kind::Function { .. } | Kind::Class { .. } | Kind::Assign { .. }
        );
        if unconditional {
            let end = ir.node(statement).end;
            let entry = self.bound_from.entry(sym).or_insert(end);
            *entry = (*entry).min(end);
        }
    }

    /// What `sym`, used in scope `from`, refers to.
    pub fn lookup(&self, sym: Sym, from: ScopeId, declaring: Declaring) -> Lookup {
        let mut lookup = Lookup::default();
        let mut scope = Some(from);
        while let Some(s) = scope {
            let info = self.scopes[s as usize];
            let visible = !(info.kind == ScopeKind::Class && s != from);
            if visible {
                if declaring == Declaring::EveryBinding && self.global_in.contains(&(s, sym)) {
                    lookup.scopes.push(MODULE_SCOPE);
                    return lookup;
                }
                if self.declared.contains(&(s, sym)) {
                    lookup.scopes.push(s);
                    match (declaring, info.kind) {
                        (Declaring::Declarations, _) => {
                            lookup.certain = true;
                            return lookup;
                        }
                        (_, ScopeKind::Function(_) | ScopeKind::Comprehension)
                            if !self.unstable.contains(&sym) =>
                        {
                            lookup.certain = true;
                            return lookup;
                        }
                        (_, ScopeKind::Module) => return lookup,
                        // A class body's binding may not have run: look further out too.
                        _ => {}
                    }
                }
            }
            scope = info.parent;
        }
        lookup
    }

    /// Python: true when a top-level statement that ran before byte `at` certainly bound `sym`.
    pub fn bound_before(&self, sym: Sym, at: u32) -> bool {
        !self.unstable.contains(&sym) && self.bound_from.get(&sym).is_some_and(|&end| end <= at)
    }

    /// The innermost enclosing function of a scope, with its kind (for JavaScript's `this`).
    pub fn enclosing_function(&self, mut scope: ScopeId) -> Option<(ScopeId, FunctionKind)> {
        loop {
            let s = self.scopes[scope as usize];
            if let ScopeKind::Function(kind) = s.kind {
                return Some((scope, kind));
            }
            scope = s.parent?;
        }
    }

    pub fn kind(&self, scope: ScopeId) -> ScopeKind {
        self.scopes[scope as usize].kind
    }

    pub fn parent(&self, scope: ScopeId) -> Option<ScopeId> {
        self.scopes[scope as usize].parent
    }
}

/// JavaScript: the scope a declaration declares in; `None` for a plain store (`x = ...`),
/// which declares nothing but stores into whatever `x` is, or creates a global.
fn js_declaration_scope(
    scopes: &Scopes,
    ir: &Ir,
    construct: NodeId,
    here: ScopeId,
) -> Option<ScopeId> {
    match ir.kind(construct) {
        Kind::Decl {
            kind: DeclKind::Var,
            ..
        }
        | Kind::For {
            decl: Some(DeclKind::Var),
            ..
        }
        | Kind::Param { .. } => Some(scopes.function_scope(here)),
        Kind::Function { declared, .. } => {
            if declared {
                Some(scopes.function_scope(here))
            } else {
                scopes.own(construct)
            }
        }
        Kind::Class { declared, .. } => {
            if declared {
                Some(here)
            } else {
                scopes.own(construct)
            }
        }
        Kind::Decl { .. } | Kind::For { decl: Some(_), .. } | Kind::Catch { .. } => Some(here),
        Kind::Import { .. } | Kind::ImportItem { .. } => Some(MODULE_SCOPE),
        _ => None,
    }
}

/// The construct a `Bind` node binds for: the assignment, declaration, parameter, import,
/// loop, `with`, `except`, definition or `global` statement, past the patterns around it.
pub fn binding_construct(ir: &Ir, bind: NodeId) -> Option<NodeId> {
    let mut child = bind;
    let mut parent = ir.parent(bind)?;
    loop {
        match ir.kind(parent) {
            Kind::TuplePattern { .. }
            | Kind::ObjectPattern { .. }
            | Kind::PatternEntry { .. }
            | Kind::Rest(_)
            | Kind::Paren(_) => {}
            Kind::DefaultTarget { target, .. } => {
                if target != child {
                    return None;
                }
            }
            Kind::Capture(_) => return Some(parent),
            _ => return Some(parent),
        }
        child = parent;
        parent = ir.parent(parent)?;
    }
}
