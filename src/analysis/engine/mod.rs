//! The one analyzer engine, for every language: scopes, bindings, resolution, folding and
//! reporting over the lowered syntax ([`crate::analysis::ir`]), with what differs between
//! languages asked of a [`Dialect`].
//!
//! Two passes. The first gathers what names are bound to (imports, assignments, defaults,
//! loops, definitions), repeating until nothing new is learned, so `a = os; b = a;
//! b.system` resolves whatever the order. The second reports, node by node, through the
//! detections in [`crate::analysis::detect`]. Bindings are flow-insensitive: every binding
//! anywhere counts, so hiding one in dead code or reordering statements hides nothing.

mod bindings;
mod budget;
mod callsites;
mod candidates;
mod carried;
mod fold;
mod holders;
mod instance_fields;
mod keywords;
pub mod meaning;
mod resolve;
pub mod rewrites;
pub mod scopes;
mod shapes;
mod taint;
mod this_holders;
mod unseen_calls;

use foldhash::{HashMap, HashMapExt};
use std::rc::Rc;

pub use carried::Carried;
use meaning::{Meaning, Namespace, PathId, Paths, Value};
use scopes::{ScopeId, Scopes};

use super::NestedCode;
use super::collect::Collector;
use super::dialect::Dialect;
use super::facts::{DynamicKind, FactKind};
use super::ir::{DeclKind, Ir, Kind, NodeId, Sym};

/// Deepest expression the resolver and folder descend into; deeper nesting is reported as an
/// analysis limit instead of being followed.
pub const MAX_EXPR_DEPTH: usize = 100;
/// Longest string the folder builds.
pub const MAX_FOLDED_LEN: usize = 4096;
/// What the analyzed code is: the assumptions that rest on seeing every use of a function or
/// name hold only for a whole program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A snippet run on its own: every call of its functions is in it.
    Program,
    /// One call of a session: later calls may call its functions and rebind its names.
    SessionCall,
    /// Text a snippet runs as code (`exec`, a doctest example, a `timeit` statement), with
    /// the snippet's globals.
    RunFromText,
}

/// Most rounds of binding collection: `b = a; a = os` needs two, and chains rarely more; one
/// that has not settled by then is reported as an analysis limit.
const BINDING_ROUNDS: usize = 12;
/// Separate too-deep regions reported per snippet.
const MAX_DEEP_REGIONS: usize = 5;

/// What one name is bound to, over every binding of it.
#[derive(Default, Clone)]
struct Binding {
    meanings: Vec<Meaning>,
    strings: Vec<Rc<str>>,
    ints: Vec<i128>,
    /// Some binding's value does not fold to a string.
    opaque_string: bool,
    /// Some binding's value is not a constant integer.
    opaque_int: bool,
    /// Some binding's value may not be a number.
    not_numeric: bool,
    /// Some binding's value may not be plain data (a literal array or object, a new map).
    not_data: bool,
    /// Some binding's value may not be a built-in sequence (a string, an array, a new `Map`).
    not_sequence: bool,
    /// What some binding's value may be as far as computed lookups go (see [`taint`]).
    taint: taint::Taint,
    /// Some binding's value may be text rather than a type (see `shapes::value_may_be_text`).
    may_be_text: bool,
}

/// The nodes that set one binding.
#[derive(Default)]
struct Sites {
    binds: Vec<NodeId>,
}

/// A memoized result: not computed yet, being computed (a cycle, as through a recursive
/// function's own returns, resolves to nothing on re-entry), or computed.
/// A question detections ask again and again about one of the snippet's classes, or about
/// the whole snippet (see `verdicts`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub enum Question {
    /// Whether the class's objects' private names are its own (`own_members`).
    KeepsItsOwnMembers,
    /// Whether the class's methods' first parameter is always one of its objects
    /// (`own_members`).
    ReceiverTrusted,
    /// Whether the snippet may read its annotations back as objects (`class_uses`).
    ReadsAnnotations,
    /// Whether every class reached other than by its name stays in plain hands
    /// (`class_uses`).
    ClassesStayNamed,
}

#[derive(Clone)]
enum Memo<T> {
    Unknown,
    InProgress,
    Known(T),
}

pub struct Engine<'a> {
    pub ir: &'a Ir,
    pub source: &'a str,
    pub dialect: &'static dyn Dialect,
    pub scopes: Scopes,
    pub paths: Paths,
    pub out: Collector<'a>,
    pub nested: Vec<NestedCode>,
    /// JavaScript: the code runs in strict mode, so a plain function's `this` is not the
    /// global object.
    pub strict_mode: bool,
    context: &'a Carried,
    role: Role,
    /// What the snippet may rewrite behind the binder's back, found once bindings settle.
    rewrites: rewrites::Rewrites,
    bindings: HashMap<(ScopeId, Sym), Binding>,
    /// Modules whose names `from M import *` brings in.
    star_modules: Vec<PathId>,
    /// Top-level names of the modules the snippet imports by statement.
    imported_roots: Vec<String>,
    /// For each function, the values its `return` statements give back.
    returns: HashMap<NodeId, Vec<NodeId>>,
    /// Where each binding is set (its `Bind` nodes), built when first asked.
    sites: Option<HashMap<(ScopeId, Sym), Sites>>,
    /// For each function, its calls when it is only ever called by name (see [`callsites`]).
    calls_of: HashMap<NodeId, Option<Rc<[NodeId]>>>,
    /// For each function, what the values it returns may be as far as computed lookups go,
    /// learned with the bindings (see [`taint`]).
    returned_taint: HashMap<NodeId, taint::Taint>,
    /// For each function, the meanings of the values it returns, learned with the bindings:
    /// what a recursive call of it stands for (see [`Engine::returned_meanings`]).
    returned: HashMap<NodeId, Rc<[Meaning]>>,
    /// The values each generator function yields (what its iterator hands out).
    yields: HashMap<NodeId, Vec<NodeId>>,
    /// The functions whose returns are being followed, innermost last.
    following_returns: Vec<NodeId>,
    /// The functions a call the analysis does not resolve may call (see [`unseen_calls`]).
    escaping: Option<Rc<[NodeId]>>,
    /// Such a value was passed as a `this` of functions not known (see [`this_holders`]).
    pub(super) this_anything: bool,
    /// What functions are given as `this` by `call`, `apply`, `bind` (see [`this_holders`]).
    this_of: HashMap<NodeId, taint::Taint>,
    /// Some object may hold such a value (see [`holders`]).
    some_holder: bool,
    /// A member of the global object was given such a value (see [`holders`]).
    global_holder: bool,
    /// Globals a member of which was given such a value (`module.exports.f = ...`).
    global_holders: Vec<Sym>,
    /// Names whose object may get a function's members (see [`Engine::may_be_reprototyped`]).
    reprototyped: Option<Rc<[(ScopeId, Sym)]>>,
    /// Holders are being followed to prove an object is data (see [`holders`]).
    holders_data_only: bool,
    /// Whether the snippet reads its own exports (see [`unseen_calls`]).
    exports_read: Option<bool>,
    /// Whether the snippet may load its own file again (see [`unseen_calls`]).
    may_reload_itself: Option<bool>,
    /// Whether the snippet may define a getter (see [`taint`]).
    accessors: Option<bool>,
    /// A parameter of a function called from where the analysis does not see was given
    /// such a value: whatever such calls pass may hold it (see [`holders`]).
    parameter_holder: bool,
    /// Classes whose methods store such a value in `this` (see [`this_holders`]).
    class_holds: std::collections::HashSet<NodeId>,
    /// Module-level names bound to a directory walk, carried for a later call to judge.
    walkers: Vec<Sym>,
    /// Names a session's call reads that nothing has bound yet (see `resolve_name`).
    bound_later: std::collections::BTreeSet<Sym>,
    /// The fields of the snippet's classes proven to hold only data, as (class, name), as
    /// far as this round's bindings show (see [`instance_fields`]).
    data_fields: Option<Rc<[(NodeId, &'a str)]>>,
    /// The proof found with the settled bindings, kept for a second settling when the
    /// rounds saw another (see [`Engine::settle_with_fields`]).
    pinned_fields: Option<Rc<[(NodeId, &'a str)]>>,
    /// The last proof found, and whether the rounds found different ones.
    last_fields: Option<Rc<[(NodeId, &'a str)]>>,
    fields_varied: bool,
    /// Whether no method can run with another `this` (see [`instance_fields`]).
    receivers_fixed: Option<bool>,
    /// What detections learned once bindings settled, about a class of the snippet (keyed by
    /// its node) or about the whole snippet (keyed by node 0), kept so that a question asked at
    /// every access (`self._x`) scans the snippet once.
    pub verdicts: HashMap<(NodeId, Question), bool>,
    memo: Vec<Memo<Rc<[Meaning]>>>,
    folds: Vec<Memo<Option<Rc<str>>>>,
    too_deep: Vec<NodeId>,
    budget: budget::Budget,
}

impl<'a> Engine<'a> {
    pub fn new(
        ir: &'a Ir,
        source: &'a str,
        dialect: &'static dyn Dialect,
        out: Collector<'a>,
        context: &'a Carried,
        role: Role,
        strict_mode: bool,
    ) -> Engine<'a> {
        let scopes = Scopes::of(ir, dialect.declaring());
        let mut returns: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
        let mut yields: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
        for id in 0..ir.nodes.len() as NodeId {
            if let Kind::Return(Some(value)) = ir.kind(id)
                && let Some(function) = ir.enclosing_function(id)
            {
                returns.entry(function).or_default().push(value);
            }
            if ir
                .parent(id)
                .is_some_and(|p| matches!(ir.kind(p), Kind::Yield))
                && let Some(function) = ir.enclosing_function(id)
            {
                yields.entry(function).or_default().push(id);
            }
        }
        let n = ir.nodes.len();
        Engine {
            ir,
            source,
            dialect,
            scopes,
            paths: Paths::default(),
            out,
            nested: Vec::new(),
            strict_mode,
            context,
            role,
            rewrites: rewrites::Rewrites::default(),
            bindings: HashMap::new(),
            star_modules: Vec::new(),
            imported_roots: Vec::new(),
            returns,
            sites: None,
            calls_of: HashMap::new(),
            returned_taint: HashMap::new(),
            returned: HashMap::new(),
            following_returns: Vec::new(),
            yields,
            escaping: None,
            this_anything: false,
            this_of: HashMap::new(),
            some_holder: false,
            global_holder: false,
            global_holders: Vec::new(),
            exports_read: None,
            may_reload_itself: None,
            accessors: None,
            holders_data_only: false,
            reprototyped: None,
            parameter_holder: false,
            class_holds: std::collections::HashSet::new(),
            walkers: Vec::new(),
            bound_later: std::collections::BTreeSet::new(),
            data_fields: None,
            pinned_fields: None,
            last_fields: None,
            fields_varied: false,
            receivers_fixed: None,
            memo: vec![Memo::Unknown; n],
            folds: vec![Memo::Unknown; n],
            too_deep: Vec::new(),
            verdicts: HashMap::new(),
            budget: budget::Budget::for_nodes(n),
        }
    }

    /// Runs both passes: bindings until they settle, then every detection on every node.
    pub fn run(&mut self) {
        self.collect_imported_roots();
        let binding_nodes: Vec<NodeId> = (0..self.ir.nodes.len() as NodeId)
            .filter(|&id| is_binding_construct(self.ir.kind(id), self.dialect.index_reads_member()))
            .collect();
        self.settle_bindings(&binding_nodes);
        // Which calls reach a function was asked while the bindings were incomplete.
        self.calls_of.clear();
        self.rewrites = self.find_rewrites();
        if self.rewrites.module_names() {
            // Module-level names may hold what no binding shows: learn again without
            // folding them.
            self.forget_learned();
            self.settle_bindings(&binding_nodes);
            self.calls_of.clear();
        }
        self.settle_with_fields(&binding_nodes);
        if self.role == Role::RunFromText && self.rewrites.any() {
            self.dynamic(
                self.ir.root(),
                DynamicKind::CodeEval,
                "code run from text rebinds the snippet's own names or a function's special \
                 attributes, so what runs after it is not what the analyzer sees",
            );
        }
        for id in 0..self.ir.nodes.len() as NodeId {
            super::detect::report(self, id);
            self.dialect.report(self, id);
        }
        self.report_too_deep();
        self.report_budget();
    }

    /// Drops what the binding rounds learned, to learn it again.
    fn forget_learned(&mut self) {
        self.bindings.clear();
        self.returned_taint.clear();
        self.returned.clear();
        self.this_anything = false;
        self.this_of.clear();
        self.some_holder = false;
        self.global_holder = false;
        self.global_holders.clear();
        self.parameter_holder = false;
        self.class_holds.clear();
    }

    /// Which fields hold only data is proven from the bindings, and read while they are
    /// learned: an early round, whose bindings are not all known yet, may prove less, and
    /// what it then took for code stays learned. When the rounds found another proof than
    /// the settled bindings give, the bindings are learned again with that one.
    fn settle_with_fields(&mut self, binding_nodes: &[NodeId]) {
        if self.last_fields.is_none() {
            return; // no round asked
        }
        let settled = self.data_fields();
        if !self.fields_varied || settled.is_empty() {
            return;
        }
        self.pinned_fields = Some(settled);
        self.forget_learned();
        self.settle_bindings(binding_nodes);
        self.calls_of.clear();
    }

    fn settle_bindings(&mut self, binding_nodes: &[NodeId]) {
        let mut settled = false;
        for _ in 0..BINDING_ROUNDS {
            self.forget();
            if !self.collect_bindings(binding_nodes) || self.budget.exhausted() {
                settled = true;
                break;
            }
        }
        self.forget();
        // Bindings cut short by the budget are reported as that, in `report_budget`.
        if !settled {
            self.dynamic(
                self.ir.root(),
                DynamicKind::AnalysisLimit,
                format!(
                    "names are bound through a chain longer than {BINDING_ROUNDS} steps; the \
                     analyzer did not follow it to its end"
                ),
            );
        }
    }

    /// What the snippet may rewrite behind the binder's back.
    pub fn rewrites(&self) -> rewrites::Rewrites {
        self.rewrites
    }

    /// True when the module-level binding of a name may not be the only way it was set, so
    /// its constant is not to be trusted: the module's namespace was written, or the global
    /// object and the name is one of its properties (not a `let`, `const` or class), or code
    /// of an earlier call may still write it (a thread or timer it started, a function of it
    /// this call calls).
    fn module_name_rewritten(&self, scope: ScopeId, sym: Sym) -> bool {
        scope == scopes::MODULE_SCOPE
            && (self.rewrites.globals
                || self.rewrites.global_object && !self.is_lexical_module_name(sym)
                || self.written_by_earlier_code(sym, || self.is_lexical_module_name(sym)))
    }

    /// A module-level `let`, `const` or class: never a property of the global object.
    fn is_lexical_module_name(&self, sym: Sym) -> bool {
        let ir = self.ir;
        let lexical = |target: NodeId| {
            matches!(ir.kind(target), Kind::Bind(s) | Kind::Name(s) if s == sym)
                && self.scopes.scope_of(target) == scopes::MODULE_SCOPE
        };
        (0..ir.nodes.len() as NodeId).any(|id| match ir.kind(id) {
            Kind::Decl {
                kind: DeclKind::Let | DeclKind::Const,
                target,
                ..
            } => lexical(target),
            Kind::Class {
                name: Some(name),
                declared: true,
                ..
            } => lexical(name),
            _ => false,
        })
    }

    /// The facts collected.
    pub fn into_collector(self) -> Collector<'a> {
        self.out
    }

    /// Drops memoized results: they may rest on bindings that were still incomplete.
    fn forget(&mut self) {
        self.memo.fill(Memo::Unknown);
        self.folds.fill(Memo::Unknown);
        self.data_fields = None;
    }

    fn collect_imported_roots(&mut self) {
        for id in 0..self.ir.nodes.len() as NodeId {
            if let Kind::Import {
                module,
                items,
                plain,
                ..
            } = self.ir.kind(id)
            {
                let mut names = Vec::new();
                if let Some(m) = module {
                    names.push(self.ir.text(m).to_owned());
                }
                if plain {
                    for &item in self.ir.list(items) {
                        if let Kind::ImportItem {
                            imported: Some(t), ..
                        } = self.ir.kind(item)
                        {
                            names.push(self.ir.text(t).to_owned());
                        }
                    }
                }
                for name in names {
                    let root = name.split('.').next().unwrap_or_default().to_owned();
                    if !root.is_empty() && !self.imported_roots.contains(&root) {
                        self.imported_roots.push(root);
                    }
                }
            }
        }
    }

    /// True when `root` is the top of a module the snippet imports, or a known module.
    pub fn is_module_root(&self, root: &str) -> bool {
        self.imported_roots.iter().any(|r| r == root) || self.dialect.is_module(root)
    }

    /// Records that resolution stopped at the depth limit at `node`.
    fn record_too_deep(&mut self, node: NodeId) {
        let (start, end) = self.ir.span(node);
        let overlaps = self.too_deep.iter().any(|&n| {
            let (s, e) = self.ir.span(n);
            s < end && start < e
        });
        if !overlaps && self.too_deep.len() < MAX_DEEP_REGIONS {
            self.too_deep.push(node);
        }
    }

    /// Takes one step of analysis work; false once the budget is spent, when the caller
    /// answers "unknown" at once (see [`budget`]).
    pub fn spend(&mut self) -> bool {
        self.budget.spend()
    }

    /// Steps of analysis work taken so far.
    pub fn steps_spent(&self) -> u64 {
        self.budget.spent()
    }

    /// Replaces the work budget: tests give a small one to see it run out.
    #[cfg(test)]
    pub fn set_budget(&mut self, steps: u64) {
        self.budget = budget::Budget::of(steps);
    }

    fn report_budget(&mut self) {
        if self.budget.exhausted() {
            let limit = self.budget.limit();
            self.dynamic(
                self.ir.root(),
                DynamicKind::AnalysisLimit,
                format!(
                    "the analysis took more than its {limit} steps (values followed along too \
                     many paths) and stopped; what it did not finish may hide anything"
                ),
            );
        }
    }

    fn report_too_deep(&mut self) {
        for node in std::mem::take(&mut self.too_deep) {
            self.dynamic(
                node,
                DynamicKind::AnalysisLimit,
                format!("expression nested deeper than {MAX_EXPR_DEPTH} levels was not resolved"),
            );
        }
    }

    // ---- reporting helpers ---------------------------------------------------------------

    pub fn push(&mut self, node: NodeId, kind: FactKind) {
        let (start, end) = self.ir.span(node);
        let span = self.out.span_of(start, end);
        self.out.push_at(span, kind);
    }

    pub fn dynamic(&mut self, node: NodeId, kind: DynamicKind, detail: impl Into<String>) {
        self.push(
            node,
            FactKind::Dynamic {
                kind,
                detail: detail.into(),
            },
        );
    }

    /// What earlier code of a session bound (empty outside one).
    pub fn context(&self) -> &'a Carried {
        self.context
    }

    pub fn name(&self, sym: Sym) -> &'a str {
        self.ir.name(sym)
    }

    /// How a meaning is spelled in findings: `os.system`, `globals()`, `sys.modules`.
    pub fn shown(&self, value: Value) -> Option<String> {
        Some(match value {
            Value::Module(p) | Value::Name(p) => self.paths.text(p).to_owned(),
            Value::Global => "globalThis".to_owned(),
            Value::Namespace(ns) => self.namespace_shown(ns),
            Value::Lookup(ns) => format!("{}.get", self.namespace_shown(ns)),
            _ => return None,
        })
    }

    fn namespace_shown(&self, ns: Namespace) -> String {
        match ns {
            Namespace::Globals => "globals()".to_owned(),
            Namespace::Locals(_) => "locals()".to_owned(),
            Namespace::Modules => "sys.modules".to_owned(),
            Namespace::Dict(p) => format!("{}.__dict__", self.paths.text(p)),
        }
    }

    /// The qualified name of a module or name meaning.
    pub fn path_text(&self, value: Value) -> Option<&str> {
        match value {
            Value::Module(p) | Value::Name(p) => Some(self.paths.text(p)),
            _ => None,
        }
    }

    /// The names the snippet's module level binds, with what they mean, for a later analysis
    /// (a session's next call, code run by `exec` or `doctest`).
    pub fn carried(&mut self) -> Carried {
        let mut carried = self.context.clone();
        // Names a later call may not read through their meanings alone: some value of theirs
        // is none of them (a call's result, a function's), or an earlier call said so.
        let module_names: Vec<Sym> = self
            .bindings
            .keys()
            .filter(|(scope, _)| *scope == scopes::MODULE_SCOPE)
            .map(|&(_, sym)| sym)
            .collect();
        for sym in module_names {
            let known = self
                .binds_of(scopes::MODULE_SCOPE, sym)
                .first()
                .is_some_and(|&at| self.name_only_known(sym, at, 0));
            let uncarried = self.bindings[&(scopes::MODULE_SCOPE, sym)]
                .meanings
                .iter()
                .any(|m| self.carry(*m).is_none());
            if !known || uncarried {
                carried.partly_known(self.name(sym));
            }
        }
        for (&(scope, sym), binding) in &self.bindings {
            if scope != scopes::MODULE_SCOPE {
                continue;
            }
            if binding.may_be_text {
                carried.may_be_text(self.name(sym));
            }
            if self.walkers.contains(&sym) {
                carried.walker(self.name(sym));
            }
            carried.bind(
                self.name(sym),
                binding.meanings.iter().filter_map(|m| self.carry(*m)),
                binding
                    .strings
                    .first()
                    .filter(|_| binding.strings.len() == 1 && !binding.opaque_string)
                    .filter(|_| !self.rewrites.module_names())
                    .map(|s| s.to_string()),
            );
        }
        for &m in &self.star_modules {
            carried.star(self.paths.text(m));
        }
        for &sym in &self.bound_later {
            carried.read_before_bound(self.name(sym));
        }
        self.carry_definitions(&mut carried);
        if self.rewrites.module_names() {
            carried.forget_constants();
        }
        self.carry_later_writes(&mut carried);
        carried
    }
}

impl Engine<'_> {
    /// The text of each function, class and generator expression outside any other,
    /// standing alone (see [`Carried::definitions`]): code that may run again, or run later.
    fn carry_definitions(&self, carried: &mut Carried) {
        let ir = self.ir;
        let deferred = |id: NodeId| match ir.kind(id) {
            Kind::Function { .. } | Kind::Class { .. } => true,
            // `(f(x) for x in xs)` runs at each `next()`, with the globals of that time.
            Kind::Comprehension { .. } => self.source[ir.span(id).0..].starts_with('('),
            _ => false,
        };
        for id in 1..ir.nodes.len() as NodeId {
            if !deferred(id) {
                continue;
            }
            let mut outer = ir.parent(id);
            while let Some(p) = outer
                && !deferred(p)
            {
                outer = ir.parent(p);
            }
            if outer.is_some() {
                continue;
            }
            let (start, end) = ir.span(id);
            let line_start = self.source[..start].rfind('\n').map_or(0, |i| i + 1);
            let indent = &self.source[line_start..start];
            let indent = if indent.trim().is_empty() { indent } else { "" };
            carried.define(&self.dialect.standalone(indent, &self.source[start..end]));
        }
    }
}

fn is_binding_construct(kind: Kind, follows_calls: bool) -> bool {
    if follows_calls && matches!(kind, Kind::Call { .. }) {
        return true; // values passed to parameters
    }
    matches!(
        kind,
        Kind::Assign { .. }
            | Kind::AugAssign { .. }
            | Kind::Walrus { .. }
            | Kind::Decl { .. }
            | Kind::For { .. }
            | Kind::CompFor { .. }
            | Kind::WithItem { .. }
            | Kind::Catch { .. }
            | Kind::Capture(_)
            | Kind::Param { .. }
            | Kind::Function { .. }
            | Kind::Class { .. }
            | Kind::Import { .. }
    )
}
