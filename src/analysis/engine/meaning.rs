//! What a name or expression may stand for, as typed values rather than marker strings.

use foldhash::HashMap;

use crate::analysis::ir::NodeId;

/// An interned qualified name (`os.system`, `numpy.linalg`, `console.log`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PathId(u32);

/// A namespace dictionary, whose lookups by a constant name are resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Namespace {
    /// The snippet's own module namespace: `globals()`, and `locals()` or `vars()` at the
    /// module level.
    Globals,
    /// A function's own namespace: `locals()` or `vars()` inside it (a snapshot; writing it
    /// changes nothing).
    Locals(super::scopes::ScopeId),
    /// `sys.modules`: every loaded module by name.
    Modules,
    /// `X.__dict__`, `vars(X)`: the attributes of `X`.
    Dict(PathId),
}

/// What something may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Value {
    /// A module: `os`, `numpy.linalg`, Node's `fs`.
    Module(PathId),
    /// A name rooted at a module or at a builtin or global: `os.system`, `open`, `console.log`.
    /// The path records which prefix, if any, is the module.
    Name(PathId),
    /// The global object, under any name (`globalThis`, `global`, a sloppy function's `this`).
    Global,
    Namespace(Namespace),
    /// A method of a namespace that looks a name up (`globals().get`, `sys.modules.pop`).
    Lookup(Namespace),
    /// A function or class the snippet defines.
    Local(NodeId),
    /// What `operator.attrgetter('a')` returns: calling it on `x` gives `x.a` (the path holds
    /// the attribute's name).
    AttrGetter(PathId),
    /// What `operator.methodcaller('m')` returns: calling it on `x` calls `x.m()`.
    MethodCaller(PathId),
    /// A property descriptor of a name (`Object.getOwnPropertyDescriptor(O, 'k')`): its
    /// `.value` is the name.
    Descriptor(PathId),
    /// All property descriptors of a name (`Object.getOwnPropertyDescriptors(O)`).
    Descriptors(PathId),
    /// More values than the analysis keeps for one name or expression: the rest were not
    /// followed, so what this is cannot be judged (an analysis limit wherever it is used).
    TooMany,
}

/// A value, or an element of a container holding it (`holder = [os]`: `holder` holds `os`,
/// and `holder[0]` is `os` again). Containers in containers are not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Meaning {
    pub value: Value,
    pub held: bool,
}

impl Meaning {
    pub fn of(value: Value) -> Meaning {
        Meaning { value, held: false }
    }

    pub fn held(self) -> Option<Meaning> {
        (!self.held).then_some(Meaning {
            value: self.value,
            held: true,
        })
    }

    pub fn taken_out(self) -> Option<Meaning> {
        self.held.then_some(Meaning {
            value: self.value,
            held: false,
        })
    }
}

/// Most meanings kept for one name or expression (`f = a.x; f = b.y` gives two).
pub const MAX_MEANINGS: usize = 8;

/// Adds `m` to `list` unless present; true if the list changed. The last place is kept for
/// [`Value::TooMany`]: a list that would grow past it records that it overflowed rather than
/// dropping a meaning silently.
pub fn add_meaning(list: &mut Vec<Meaning>, m: Meaning) -> bool {
    if list.contains(&m) {
        return false;
    }
    if list.len() + 1 < MAX_MEANINGS || m.value == Value::TooMany {
        list.push(m);
        return true;
    }
    let overflow = Meaning::of(Value::TooMany);
    if list.contains(&overflow) {
        return false;
    }
    list.push(overflow);
    true
}

/// `list` cut to [`MAX_MEANINGS`], marking the cut with [`Value::TooMany`].
pub fn capped(mut list: Vec<Meaning>) -> Vec<Meaning> {
    if list.len() > MAX_MEANINGS {
        list.truncate(MAX_MEANINGS - 1);
        list.push(Meaning::of(Value::TooMany));
    }
    list
}

struct PathEntry {
    text: Box<str>,
    /// Byte length of the module prefix of the name; 0 when it is rooted at a builtin or
    /// global rather than a module.
    module_len: u32,
}

/// The qualified names of one analysis, interned.
#[derive(Default)]
pub struct Paths {
    entries: Vec<PathEntry>,
    ids: HashMap<(Box<str>, u32), PathId>,
}

impl Paths {
    /// The path `text` whose first `module_len` bytes name its module (0: none).
    pub fn intern(&mut self, text: &str, module_len: usize) -> PathId {
        let key = (Box::<str>::from(text), module_len as u32);
        if let Some(&id) = self.ids.get(&key) {
            return id;
        }
        let id = PathId(self.entries.len() as u32);
        self.entries.push(PathEntry {
            text: key.0.clone(),
            module_len: key.1,
        });
        self.ids.insert(key, id);
        id
    }

    pub fn text(&self, id: PathId) -> &str {
        &self.entries[id.0 as usize].text
    }

    /// The module a name belongs to, if it is rooted at one.
    pub fn module(&self, id: PathId) -> Option<&str> {
        let e = &self.entries[id.0 as usize];
        (e.module_len > 0).then(|| &e.text[..e.module_len as usize])
    }

    pub fn module_len(&self, id: PathId) -> usize {
        self.entries[id.0 as usize].module_len as usize
    }
}
