//! Constant folding: the string or integer an expression evaluates to, when it is built only
//! from literals, names bound to one constant, and the usual hiding transforms
//! (concatenation, formatting, join, reversal, `chr`, strip, case, base64/hex/rot13, paths).
//! Each fold computes exactly what the interpreter computes, or declines (`None`): a wrongly
//! folded name is a wrongly judged one. Case changes fold only ASCII (the interpreters' Unicode
//! case rules differ from Rust's in places); Python `bytes` are folded as the text the OS reads
//! a path of them as (UTF-8), and where their `str()` differs (`b'...'`) the fold declines.
//! `tests/fold_differential/` checks every fold against the real interpreters.

use std::rc::Rc;

use super::meaning::Value;
use super::{Engine, MAX_EXPR_DEPTH, MAX_FOLDED_LEN, Memo, Role};
use crate::analysis::dialect::{StrFn, StrMethod};
use crate::analysis::ir::{BinOp, CollectionKind, Kind, NodeId, Splat, UnOp};
use crate::analysis::pathtext::{
    self, PurePath, node_join, node_normalize, node_resolve, python_abspath, python_join,
    python_normpath, python_realpath,
};
use crate::analysis::text::{
    base64_bytes, hex_text, latin1_text, node_hex_text, node_url_path, python_repr, rot13,
};

/// The largest integer JavaScript's doubles hold exactly: beyond it `+` and `**` round.
const JS_EXACT_INT: i128 = 1 << 53;
/// Integers the folder computes exactly in Python (`i128` arithmetic saturates beyond).
const PYTHON_EXACT_INT: i128 = 1 << 120;

impl<'a> Engine<'a> {
    /// The constant string an expression evaluates to.
    pub fn fold(&mut self, id: NodeId, depth: usize) -> Option<Rc<str>> {
        match &self.folds[id as usize] {
            Memo::Known(hit) => return hit.clone(),
            Memo::InProgress => return None,
            Memo::Unknown => {}
        }
        if !self.spend() {
            return None;
        }
        if depth > MAX_EXPR_DEPTH {
            self.record_too_deep(id);
            return None;
        }
        self.folds[id as usize] = Memo::InProgress;
        let value = self
            .fold_uncached(id, depth + 1)
            .filter(|v| v.len() <= MAX_FOLDED_LEN)
            .map(Rc::from);
        self.folds[id as usize] = Memo::Known(value.clone());
        value
    }

    fn fold_uncached(&mut self, id: NodeId, depth: usize) -> Option<String> {
        let ir = self.ir;
        match ir.kind(id) {
            Kind::Str { .. } => ir.str_value(id).map(str::to_owned),
            Kind::Template { .. } if self.python_string_prefix(id).contains('t') => None,
            Kind::Template { parts } => {
                let mut out = String::new();
                for &part in ir.list(parts) {
                    out.push_str(&self.fold_piece(part, depth)?);
                    if out.len() > MAX_FOLDED_LEN {
                        return None;
                    }
                }
                Some(out)
            }
            Kind::Binary {
                op: BinOp::Add,
                left,
                right,
            } => {
                // Two numbers add up; a string and a number (JavaScript) concatenate.
                let l = self.fold(left, depth);
                let r = self.fold(right, depth);
                let numbers = self.dialect.index_reads_member();
                match (l, r) {
                    (Some(l), Some(r)) => Some(format!("{l}{r}")),
                    (Some(l), None) if numbers => Some(format!("{l}{}", self.number_text(right)?)),
                    (None, Some(r)) if numbers => Some(format!("{}{r}", self.number_text(left)?)),
                    _ => None,
                }
            }
            Kind::Binary {
                op: BinOp::Div,
                left,
                right,
            } if self.dialect.divides_paths() => {
                // `Path('data') / 'x.csv'`
                let l = self.fold(left, depth)?;
                let r = self.fold(right, depth)?;
                Some(PurePath::new([&*l, &*r]).text())
            }
            Kind::Binary {
                op: BinOp::Mod,
                left,
                right,
            } if self.dialect.divides_paths() => {
                // `"%s" % "x"`: Python's; a `bytes` argument formats as `b'...'`.
                if !self.known_text(left, 0) || !self.known_text(right, 0) {
                    return None;
                }
                let format = self.fold(left, depth)?;
                let arg = self.fold(right, depth)?;
                (format.matches('%').count() == 1 && format.contains("%s"))
                    .then(|| format.replacen("%s", &arg, 1))
            }
            Kind::Paren(inner) => self.fold(inner, depth).map(|s| s.to_string()),
            Kind::Name(sym) => self.constant_of_name(sym, id),
            Kind::Attr { object, name } => {
                // `Path('data/x.csv').parent`
                if self.name(name) == "parent" && self.dialect.divides_paths() {
                    let path = self.fold(object, depth)?;
                    return Some(PurePath::new([&*path]).parent().text());
                }
                self.constant_of_path(id, depth)
            }
            Kind::Index { object, key } => {
                // `'so'[::-1]`
                if let Kind::Slice {
                    start: None,
                    stop: None,
                    step: Some(step),
                } = ir.kind(key)
                    && self.exact_int(step, 0) == Some(-1)
                {
                    // Reversed bytes are not the reversed text of their UTF-8.
                    let text = self.known_text(object, 0);
                    return self
                        .fold(object, depth)
                        .filter(|s| text || s.is_ascii())
                        .map(|s| s.chars().rev().collect());
                }
                None
            }
            Kind::Call { .. } => self.fold_call(id, depth),
            _ => None,
        }
    }

    /// A piece of a concatenation or template: a string, or an integer in decimal (as
    /// JavaScript's `+` and every template write it).
    fn fold_piece(&mut self, id: NodeId, depth: usize) -> Option<String> {
        let ir = self.ir;
        let id = match ir.kind(id) {
            Kind::Interp {
                value,
                spec: false,
                repr: true,
            } => {
                let text = self.text_value(value, 0, false);
                return python_repr(&self.fold(value, depth).filter(|_| text)?);
            }
            Kind::Interp {
                value, spec: false, ..
            } => value,
            Kind::Interp { spec: true, .. } => return None,
            _ => return self.fold(id, depth).map(|s| s.to_string()),
        };
        // `f"{x}"` formats a `bytes` value as `b'...'`.
        if self.known_text(id, 0)
            && let Some(s) = self.fold(id, depth)
        {
            return Some(s.to_string());
        }
        self.number_text(id)
    }

    /// The prefix of a Python string literal (`rb`, `f`), lowercased; empty for others.
    fn python_string_prefix(&self, id: NodeId) -> String {
        if !self.dialect.divides_paths() {
            return String::new();
        }
        let (start, _) = self.ir.span(id);
        self.source
            .get(start..)
            .unwrap_or_default()
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    }

    /// An integer as `+` and templates write it, when the folder knows it exactly: in
    /// JavaScript one a double holds exactly, in Python one written as an integer literal
    /// (`1.0` reads as an integer elsewhere, but formats as `1.0`).
    fn number_text(&mut self, id: NodeId) -> Option<String> {
        self.exact_int(id, 0).map(|n| n.to_string())
    }

    /// An integer constant computed as the interpreter computes it, or `None`: JavaScript's
    /// numbers are doubles (exact up to 2^53, `<<` on 32 bits), Python's integers unbounded
    /// (exact here up to [`PYTHON_EXACT_INT`]); a float literal is no integer in Python.
    pub fn exact_int(&mut self, id: NodeId, depth: usize) -> Option<i128> {
        if depth > 16 {
            return None;
        }
        let js = self.dialect.index_reads_member();
        let bound = if js { JS_EXACT_INT } else { PYTHON_EXACT_INT };
        let ir = self.ir;
        let value = match ir.kind(id) {
            Kind::Int(n) => {
                let (start, end) = ir.span(id);
                let literal = self.source.get(start..end)?.to_ascii_lowercase();
                let float = !literal.starts_with("0x") && literal.contains(['.', 'e', 'j']);
                if !js && float {
                    return None;
                }
                n
            }
            Kind::Paren(inner) => self.exact_int(inner, depth + 1)?,
            Kind::Unary { op: UnOp::Neg, arg } => -self.exact_int(arg, depth + 1)?,
            Kind::Unary { op: UnOp::Pos, arg } => self.exact_int(arg, depth + 1)?,
            Kind::Binary { op, left, right } => {
                let l = self.exact_int(left, depth + 1)?;
                let r = self.exact_int(right, depth + 1)?;
                match op {
                    BinOp::Add => l.checked_add(r)?,
                    BinOp::Sub => l.checked_sub(r)?,
                    BinOp::Mul => l.checked_mul(r)?,
                    BinOp::Pow => l.checked_pow(u32::try_from(r).ok()?)?,
                    // ToInt32 of both sides, the count taken modulo 32.
                    BinOp::Shl if js => {
                        let shifted = (l.rem_euclid(1 << 32) as u32 as i32)
                            .wrapping_shl(r.rem_euclid(32) as u32);
                        i128::from(shifted)
                    }
                    BinOp::Shl => l.checked_mul(1i128.checked_shl(u32::try_from(r).ok()?)?)?,
                    _ => return None,
                }
            }
            Kind::Name(_) => {
                let source = self.sole_value(id)?;
                let value = self.exact_int(source, depth + 1)?;
                (self.int_value(id, false) == Some(value)).then_some(value)?
            }
            _ => return None,
        };
        (value.abs() <= bound).then_some(value)
    }

    /// The one value a name is ever bound to (`x = v`, `const x = v`), in its scope.
    fn sole_value(&mut self, name: NodeId) -> Option<NodeId> {
        let ir = self.ir;
        let Kind::Name(sym) = ir.kind(name) else {
            return None;
        };
        let scope = *self
            .scopes
            .lookup(sym, self.scopes.scope_of(name), self.dialect.declaring())
            .scopes
            .first()?;
        if self.module_name_rewritten(scope, sym) {
            return None;
        }
        let [bind] = self.binds_of(scope, sym)[..] else {
            return None;
        };
        match ir.kind(ir.parent(bind)?) {
            Kind::Decl {
                target,
                value: Some(v),
                ..
            } if target == bind => Some(v),
            Kind::Assign { targets, value } if ir.list(targets) == [bind] => Some(value),
            _ => None,
        }
    }

    /// True when the expression is surely text, not Python `bytes` (whose `str()`, `%s` and
    /// f-string form is `b'...'`, and whose byte-wise operations differ from the text's):
    /// always in JavaScript; in Python a `str` literal or f-string, or what text methods,
    /// `chr`, `str`, `.decode()` and paths return.
    pub fn known_text(&mut self, id: NodeId, depth: usize) -> bool {
        self.text_value(id, depth, true)
    }

    /// [`Engine::known_text`], with `paths`: counting `pathlib` paths (whose `str()` is
    /// their text, but whose `repr()` is not) as text.
    fn text_value(&mut self, id: NodeId, depth: usize, paths: bool) -> bool {
        if !self.dialect.divides_paths() {
            return true;
        }
        if depth > 8 {
            return false;
        }
        let ir = self.ir;
        let id = ir.unparen(id);
        match ir.kind(id) {
            Kind::Str { .. } | Kind::Template { .. } => {
                !self.python_string_prefix(id).contains(['b', 't'])
            }
            Kind::Binary {
                op: BinOp::Add | BinOp::Mod,
                left,
                ..
            } => self.text_value(left, depth + 1, paths),
            Kind::Binary { op: BinOp::Div, .. } => paths,
            Kind::Attr { name, .. } => paths && self.name(name) == "parent",
            Kind::Name(_) => match self.sole_value(id) {
                Some(v) => self.text_value(v, depth + 1, paths),
                None => false,
            },
            Kind::Call { callee, .. } => {
                // A module's function first (`os.path.expanduser(b"~")` returns bytes), then
                // a method of the object.
                let names: Vec<String> = self
                    .resolve(callee, depth + 1)
                    .iter()
                    .filter_map(|m| self.path_text(m.value).map(str::to_owned))
                    .collect();
                if !names.is_empty() {
                    return names.iter().all(|n| match self.dialect.string_function(n) {
                        Some(StrFn::Recode | StrFn::Chr { .. }) => true,
                        Some(StrFn::PurePath) => paths,
                        _ => false,
                    });
                }
                let Kind::Attr { object, name } = ir.kind(callee) else {
                    return false;
                };
                match self.name(name) {
                    "decode" | "as_posix" => true,
                    "with_suffix" | "with_name" | "joinpath" | "resolve" | "absolute"
                    | "expanduser" => paths,
                    "strip" | "lstrip" | "rstrip" | "lower" | "upper" | "casefold" | "replace"
                    | "join" => self.text_value(object, depth + 1, paths),
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// A name bound to exactly one constant string, everywhere it is bound.
    fn constant_of_name(&mut self, sym: crate::analysis::ir::Sym, at: NodeId) -> Option<String> {
        let lookup = self
            .scopes
            .lookup(sym, self.scopes.scope_of(at), self.dialect.declaring());
        let mut found: Option<String> = None;
        let mut sources = 0;
        for &scope in &lookup.scopes {
            if self.module_name_rewritten(scope, sym) {
                return None;
            }
            if let Some(binding) = self.bindings.get(&(scope, sym)) {
                sources += 1;
                if binding.opaque_string || binding.strings.len() != 1 {
                    return None;
                }
                found = Some(binding.strings[0].to_string());
            }
        }
        if sources == 0 && lookup.scopes.is_empty() {
            if self.rewrites.globals {
                return None;
            }
            // A program's well-known constant (`__dirname`) is its module's own, out of the
            // global object's reach; an earlier call's names are the global object's.
            let well_known = || self.dialect.constant(self.name(sym)).map(str::to_owned);
            if self.rewrites.global_object {
                return well_known().filter(|_| self.role == Role::Program);
            }
            return self
                .context
                .constant(self.name(sym))
                .map(str::to_owned)
                .or_else(well_known);
        }
        found
    }

    /// A name with a known constant value: `os.sep`, `path.sep`.
    fn constant_of_path(&mut self, id: NodeId, depth: usize) -> Option<String> {
        let meanings = self.resolve(id, depth);
        let mut found = None;
        for m in meanings.iter() {
            let Value::Name(p) = m.value else { return None };
            let value = self.dialect.constant(self.paths.text(p))?;
            if found.is_some_and(|f| f != value) {
                return None;
            }
            found = Some(value);
        }
        found.map(str::to_owned)
    }

    /// True when the name a dotted callee starts from (`os` of `os.path.join`) means only
    /// modules and their members: bound elsewhere to the snippet's own object as well (`os =
    /// System`), its members are that object's too, which the resolver may not list.
    fn root_is_only(&mut self, callee: NodeId, depth: usize) -> bool {
        let mut root = self.ir.unparen(callee);
        while let Kind::Attr { object, .. } = self.ir.kind(root) {
            root = self.ir.unparen(object);
        }
        if root == self.ir.unparen(callee) {
            // a plain name: its meanings were checked as the callee's; are they all it holds?
            return self.is_only_known(root);
        }
        let meanings = self.resolve(root, depth).to_vec();
        !meanings.is_empty()
            && meanings
                .iter()
                .all(|m| !m.held && matches!(m.value, Value::Module(_) | Value::Name(_)))
            && self.is_only_known(root)
    }

    fn fold_call(&mut self, id: NodeId, depth: usize) -> Option<String> {
        let ir = self.ir;
        let Kind::Call { callee, .. } = ir.kind(id) else {
            return None;
        };
        // Functions first: `codecs.decode(s, 'rot13')` is a call of `codecs.decode`, not
        // the `.decode()` method of a string. A callee that may also be something else (a
        // name rebound to the snippet's own function) folds to nothing: its result may be
        // whatever that function returns.
        let callees = self.resolve(callee, depth).to_vec();
        let all_string_functions = callees.iter().all(|m| {
            !m.held
                && matches!(m.value, Value::Name(p) | Value::Module(p)
                    if self.dialect.string_function(self.paths.text(p)).is_some())
        });
        if !callees.is_empty() && (!all_string_functions || !self.root_is_only(callee, depth)) {
            return None;
        }
        for m in callees {
            let (Value::Name(p) | Value::Module(p)) = m.value else {
                continue;
            };
            let Some(function) = self.dialect.string_function(self.paths.text(p)) else {
                continue;
            };
            let (positional, keywords) = function_arguments(function);
            let Some(args) = self.modeled_args(id, positional, keywords, depth) else {
                continue;
            };
            if function == StrFn::Recode && !self.ascii_codec(id, args.get(1).copied(), depth) {
                continue;
            }
            // `str(b"x")` is `"b'x'"`.
            if function == StrFn::Recode
                && args.len() == 1
                && self.keyword_arg(id, "encoding").is_none()
                && self.keyword_arg(id, "errors").is_none()
                && !self.known_text(args[0], 0)
            {
                continue;
            }
            if function == StrFn::Url && !self.url_goes_to_a_path_function(id, depth) {
                continue;
            }
            if let Some(value) = self.fold_function(function, &args, depth) {
                return Some(value);
            }
        }
        let Kind::Attr { object, name } = ir.kind(callee) else {
            return None;
        };
        let method = self.dialect.string_method(self.name(name))?;
        let (positional, keywords) = method_arguments(method);
        let args = self.modeled_args(id, positional, keywords, depth)?;
        if method == StrMethod::Recode && !self.ascii_codec(id, args.first().copied(), depth) {
            return None;
        }
        if method == StrMethod::Replace {
            let count = match (args.get(2), self.keyword_arg(id, "count")) {
                (Some(_), Some(_)) => return None,
                (Some(&c), None) | (None, Some(c)) => Some(self.exact_int(c, 0)?),
                (None, None) => None,
            };
            return self.fold_replace(object, &args, count, depth);
        }
        self.fold_method(method, object, &args, depth)
    }

    /// True unless `call` makes a `URL` object that goes anywhere but straight into a call
    /// of a file function, which takes it as a path (`fs.readFileSync(new URL(u))`): as text
    /// (`+`, `String()`, `concat`, a template) a URL object is its `href`, not the path folded
    /// for it.
    fn url_goes_to_a_path_function(&mut self, call: NodeId, depth: usize) -> bool {
        let ir = self.ir;
        if !matches!(ir.kind(call), Kind::Call { new: true, .. }) {
            return true; // `url.fileURLToPath(u)` returns the path as text
        }
        let mut at = call;
        while let Some(parent) = ir.parent(at)
            && matches!(ir.kind(parent), Kind::Paren(_))
        {
            at = parent;
        }
        let Some(arg) = ir.parent(at) else {
            return false;
        };
        let (
            Kind::Arg {
                splat: Splat::None, ..
            },
            Some(outer),
        ) = (ir.kind(arg), ir.parent(arg))
        else {
            return false;
        };
        let Kind::Call { callee, .. } = ir.kind(outer) else {
            return false;
        };
        let names: Vec<String> = self
            .resolve(callee, depth + 1)
            .iter()
            .filter_map(|m| self.path_text(m.value).map(str::to_owned))
            .collect();
        !names.is_empty()
            && names
                .iter()
                .all(|n| self.dialect.path_function(n).is_some())
    }

    /// The positional arguments of a call a fold reads, when the call passes nothing the fold
    /// does not model: at most `positional` positional ones and only the `keywords` named. A
    /// fold that ignored an argument (`replace`'s `count`, `split`'s `limit`, `b64decode`'s
    /// `altchars`) would state a constant the interpreter does not compute. A `*`/`...`
    /// argument is modeled only by folds of any number of arguments (`positional` is `None`:
    /// path joins, `concat`, `fromCharCode`), and only when it is a sequence of constants the
    /// folder knows (`join('out', *['a', 'b'])`), whose items are then arguments like any
    /// other, never skipped; `**` never is.
    fn modeled_args(
        &mut self,
        call: NodeId,
        positional: Option<usize>,
        keywords: &[&str],
        depth: usize,
    ) -> Option<Vec<NodeId>> {
        let ir = self.ir;
        let Kind::Call { args, .. } = ir.kind(call) else {
            return None;
        };
        let mut out = Vec::new();
        for &a in ir.list(args) {
            match ir.kind(a) {
                Kind::Arg {
                    splat: Splat::None,
                    name: None,
                    value,
                } => out.push(value),
                Kind::Arg {
                    splat: Splat::None,
                    name: Some(n),
                    ..
                } if keywords.contains(&self.name(n)) => {}
                Kind::Arg {
                    splat: Splat::Positional,
                    name: None,
                    value,
                } if positional.is_none() => {
                    for item in self.unchanged_items(value, 0)? {
                        self.fold(item, depth + 1)?;
                        out.push(item);
                    }
                }
                _ => return None,
            }
        }
        positional.is_none_or(|max| out.len() <= max).then_some(out)
    }

    /// `s.replace(old, new, count)`: every occurrence, or only the first `count` (a negative
    /// count is every one).
    fn fold_replace(
        &mut self,
        object: NodeId,
        args: &[NodeId],
        count: Option<i128>,
        depth: usize,
    ) -> Option<String> {
        let (from, to) = (*args.first()?, *args.get(1)?);
        let s = self.fold(object, depth)?;
        let from = self.fold(from, depth)?;
        let to = self.fold(to, depth)?;
        if from.is_empty() {
            return None;
        }
        Some(match count {
            Some(n) if n >= 0 => s.replacen(&*from, &to, usize::try_from(n).ok()?),
            _ => s.replace(&*from, &to),
        })
    }

    /// The items of a sequence nothing changes: a literal list or tuple, a name bound once to
    /// one and only ever read (`*parts`, `parts[1]`, `parts[:-1]`, `parts.slice(1)`,
    /// `len(parts)`), or a slice of such a sequence by constant bounds.
    fn unchanged_items(&mut self, value: NodeId, depth: usize) -> Option<Vec<NodeId>> {
        if depth > 8 {
            return None;
        }
        let ir = self.ir;
        let value = ir.unparen(value);
        match ir.kind(value) {
            Kind::Collection {
                kind: CollectionKind::List | CollectionKind::Tuple,
                items,
            } => {
                let items = ir.list(items);
                (!items
                    .iter()
                    .any(|&i| matches!(ir.kind(i), Kind::Spread(_) | Kind::Arg { .. })))
                .then(|| items.to_vec())
            }
            Kind::Name(sym) => {
                let scope = *self
                    .scopes
                    .lookup(sym, self.scopes.scope_of(value), self.dialect.declaring())
                    .scopes
                    .first()?;
                if self.module_name_rewritten(scope, sym) {
                    return None;
                }
                let [bind] = self.binds_of(scope, sym)[..] else {
                    return None;
                };
                let source = match ir.kind(ir.parent(bind)?) {
                    Kind::Decl {
                        target,
                        value: Some(v),
                        ..
                    } if target == bind => v,
                    Kind::Assign { targets, value } if ir.list(targets) == [bind] => value,
                    _ => return None,
                };
                if !matches!(ir.kind(ir.unparen(source)), Kind::Collection { .. })
                    || !self.only_read(sym, scope)
                {
                    return None;
                }
                self.unchanged_items(source, depth + 1)
            }
            Kind::Index { object, key } => {
                let Kind::Slice {
                    start,
                    stop,
                    step: None,
                } = ir.kind(key)
                else {
                    return None;
                };
                let items = self.unchanged_items(object, depth + 1)?;
                let (start, stop) = (self.bound(start)?, self.bound(stop)?);
                Some(slice_of(&items, start, stop))
            }
            Kind::Call { callee, .. } => {
                let Kind::Attr { object, name } = ir.kind(callee) else {
                    return None;
                };
                if self.name(name) != "slice" || !self.dialect.index_reads_member() {
                    return None;
                }
                let args = self.positional_args(value);
                if self.splatted(value) || args.len() > 2 {
                    return None;
                }
                let items = self.unchanged_items(object, depth + 1)?;
                let start = self.bound(args.first().copied())?;
                let stop = self.bound(args.get(1).copied())?;
                Some(slice_of(&items, start, stop))
            }
            _ => None,
        }
    }

    /// A slice bound: absent, or a constant integer.
    fn bound(&mut self, bound: Option<NodeId>) -> Option<Option<i128>> {
        match bound {
            None => Some(None),
            Some(b) => self.exact_int(b, 0).map(Some),
        }
    }

    /// True when every use of the name (bound in `scope`) only reads the sequence it holds.
    fn only_read(&mut self, sym: crate::analysis::ir::Sym, scope: super::scopes::ScopeId) -> bool {
        let ir = self.ir;
        for id in 0..ir.nodes.len() as NodeId {
            let Kind::Name(s) = ir.kind(id) else {
                continue;
            };
            if s != sym
                || !self
                    .scopes
                    .lookup(s, self.scopes.scope_of(id), self.dialect.declaring())
                    .scopes
                    .contains(&scope)
            {
                continue;
            }
            let Some((parent, child)) = ir.context(id) else {
                return false;
            };
            let reads = match ir.kind(parent) {
                Kind::Arg {
                    splat: Splat::Positional,
                    ..
                } => true,
                Kind::Index { object, key } if object == child => {
                    !is_written(ir, parent)
                        && matches!(ir.kind(key), Kind::Slice { .. } | Kind::Int(_))
                }
                Kind::Attr { object, name } if object == child => {
                    matches!(self.name(name), "slice" | "length") && !is_written(ir, parent)
                }
                Kind::Arg {
                    splat: Splat::None,
                    name: None,
                    ..
                } => ir.parent(parent).is_some_and(|call| {
                    matches!(ir.kind(call), Kind::Call { callee, .. }
                        if matches!(ir.kind(callee), Kind::Name(f) if self.name(f) == "len"))
                }),
                _ => false,
            };
            if !reads {
                return false;
            }
        }
        true
    }

    /// True when a recoding call's codec (at `positional`, or `encoding=`) is absent or one
    /// that leaves ASCII text as it is, so the text folded is the text the program gets.
    fn ascii_codec(&mut self, call: NodeId, positional: Option<NodeId>, depth: usize) -> bool {
        let Some(codec) = positional.or_else(|| self.keyword_arg(call, "encoding")) else {
            return true;
        };
        let Some(name) = self.fold(codec, depth) else {
            return false;
        };
        let name = name.to_ascii_lowercase().replace(['-', ' '], "_");
        matches!(
            name.as_str(),
            "utf_8"
                | "utf8"
                | "u8"
                | "utf"
                | "ascii"
                | "us_ascii"
                | "646"
                | "latin_1"
                | "latin1"
                | "iso_8859_1"
                | "iso8859_1"
                | "8859"
                | "l1"
                | "cp1252"
        )
    }

    fn fold_function(&mut self, function: StrFn, args: &[NodeId], depth: usize) -> Option<String> {
        if matches!(
            function,
            StrFn::PurePath | StrFn::NodeJoin | StrFn::PathResolve
        ) {
            let mut parts = Vec::new();
            for &a in args {
                parts.push(self.fold(a, depth)?.to_string());
            }
            let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
            return Some(match function {
                StrFn::PurePath => PurePath::new(parts).text(),
                StrFn::NodeJoin => node_join(parts),
                _ => node_resolve(&parts),
            });
        }
        let first = *args.first()?;
        match function {
            StrFn::Same => self.fold(first, depth).map(|s| s.to_string()),
            // Only ASCII text recodes to itself whatever the codec's error handler does with
            // other bytes (`errors="ignore"` drops them: `b"/tmp/.\xff./etc"` is `/tmp/../etc`).
            StrFn::Recode => self
                .fold(first, depth)
                .filter(|s| s.is_ascii())
                .map(|s| s.to_string()),
            StrFn::Url if args.len() > 1 => None,
            StrFn::Url => node_url_path(&self.fold(first, depth)?),
            StrFn::Chr { all } => {
                let codes = if all { args } else { &args[..1] };
                codes
                    .iter()
                    .map(|a| {
                        // Above 0xFFFF, `String.fromCharCode` wraps to 16 bits while `chr` and
                        // `fromCodePoint` do not: unknown rather than a guess.
                        self.exact_int(*a, 0)
                            .and_then(|n| u32::try_from(n).ok())
                            .filter(|&n| n <= 0xFFFF)
                            .and_then(char::from_u32)
                    })
                    .collect()
            }
            // Python's `b64decode` returns bytes (read as UTF-8 text, like the OS reads a
            // path); JavaScript's `atob` a string of one character per byte.
            StrFn::Base64 { url_safe } => {
                let bytes = base64_bytes(&self.fold(first, depth)?, url_safe)?;
                if self.dialect.divides_paths() {
                    String::from_utf8(bytes).ok()
                } else {
                    Some(latin1_text(&bytes))
                }
            }
            StrFn::Hex => hex_text(&self.fold(first, depth)?),
            StrFn::Codec { decode } => {
                let codec = self
                    .fold(*args.get(1)?, depth)?
                    .to_ascii_lowercase()
                    .replace('-', "_");
                let text = self.fold(first, depth)?;
                match codec.as_str() {
                    "rot13" | "rot_13" => Some(rot13(&text)),
                    "hex" if decode => hex_text(&text),
                    "base64" if decode => String::from_utf8(base64_bytes(&text, false)?).ok(),
                    _ => None,
                }
            }
            StrFn::PathJoin => {
                let mut parts = Vec::new();
                for &a in args {
                    parts.push(self.fold(a, depth)?.to_string());
                }
                Some(python_join(parts.iter().map(String::as_str)))
            }
            StrFn::NormPath => Some(python_normpath(&self.fold(first, depth)?)),
            StrFn::AbsPath => Some(python_abspath(&self.fold(first, depth)?)),
            StrFn::RealPath => python_realpath(&self.fold(first, depth)?),
            StrFn::NodeNormalize => Some(node_normalize(&self.fold(first, depth)?)),
            StrFn::PurePath | StrFn::NodeJoin | StrFn::PathResolve => None,
            StrFn::ExpandUser => expand_user(&self.fold(first, depth)?),
            StrFn::Unescape => self
                .fold(first, depth)
                .filter(|s| !s.contains('%'))
                .map(|s| s.to_string()),
        }
    }

    fn fold_method(
        &mut self,
        method: StrMethod,
        object: NodeId,
        args: &[NodeId],
        depth: usize,
    ) -> Option<String> {
        let ascii = |s: Rc<str>| s.is_ascii().then_some(s);
        match method {
            StrMethod::JoinOnSeparator => {
                let separator = self.fold(object, depth)?;
                let parts = self.fold_sequence(*args.first()?, depth)?;
                Some(parts.join(&separator))
            }
            StrMethod::JoinList => {
                let parts = self.fold_sequence(object, depth)?;
                let separator = match args.first() {
                    Some(a) => self.fold(*a, depth)?.to_string(),
                    None => ",".to_owned(),
                };
                Some(parts.join(&separator))
            }
            StrMethod::Lower => ascii(self.fold(object, depth)?).map(|s| s.to_ascii_lowercase()),
            StrMethod::Upper => ascii(self.fold(object, depth)?).map(|s| s.to_ascii_uppercase()),
            StrMethod::Strip { start, end, chars } => {
                let s = self.fold(object, depth)?;
                if !chars && !args.is_empty() {
                    return None;
                }
                let set: Option<Vec<char>> = match args.first() {
                    Some(a) if !matches!(self.ir.kind(*a), Kind::Const(_)) => {
                        Some(self.fold(*a, depth)?.chars().collect())
                    }
                    _ => None,
                };
                // `bytes.strip(chars)` strips bytes, not the characters their UTF-8 spells.
                if set
                    .as_ref()
                    .is_some_and(|set| set.iter().any(|c| !c.is_ascii()))
                    && !self.known_text(object, 0)
                {
                    return None;
                }
                // Python's and JavaScript's whitespace differ from Rust's outside ASCII, and
                // within it Python's `str.strip()` also strips the separators \x1c-\x1f,
                // which JavaScript's `trim()` and Python's `bytes.strip()` keep.
                if set.is_none() && (!s.is_ascii() || s.contains(['\x1c', '\x1d', '\x1e', '\x1f']))
                {
                    return None;
                }
                let strip = |c: char| match &set {
                    Some(chars) => chars.contains(&c),
                    None => c.is_ascii_whitespace() || c == '\x0b',
                };
                let mut t: &str = &s;
                if start {
                    t = t.trim_start_matches(strip);
                }
                if end {
                    t = t.trim_end_matches(strip);
                }
                Some(t.to_owned())
            }
            StrMethod::Replace => self.fold_replace(object, args, None, depth),
            StrMethod::ReplaceAll => {
                // `$&`, `` $` ``, `$'` and `$$` in the replacement are patterns: not folded.
                let to = self.fold(*args.get(1)?, depth)?;
                if to.contains('$') {
                    return None;
                }
                self.fold_replace(object, args, None, depth)
            }
            StrMethod::Split { .. } => None,
            StrMethod::Same => self.fold(object, depth).map(|s| s.to_string()),
            // As for `StrFn::Recode`: only ASCII text is sure to come out as it went in.
            StrMethod::Recode => ascii(self.fold(object, depth)?).map(|s| s.to_string()),
            StrMethod::Concat => {
                let mut out = self.fold(object, depth)?.to_string();
                for a in args {
                    out.push_str(&self.fold(*a, depth)?);
                }
                Some(out)
            }
            StrMethod::BufferToString => self.fold_buffer(object, args.first().copied(), depth),
            StrMethod::JoinPath => {
                let mut parts = vec![self.fold(object, depth)?.to_string()];
                for &a in args {
                    parts.push(self.fold(a, depth)?.to_string());
                }
                Some(PurePath::new(parts.iter().map(String::as_str)).text())
            }
            StrMethod::ExpandUser => expand_user(&self.fold(object, depth)?),
            StrMethod::WithSuffix | StrMethod::WithName => {
                let path = PurePath::new([&*self.fold(object, depth)?]);
                let given = self.fold(*args.first()?, depth)?;
                let changed = match method {
                    StrMethod::WithSuffix => path.with_suffix(&given),
                    _ => path.with_name(&given),
                };
                changed.map(|p| p.text())
            }
            StrMethod::AsPosix => Some(PurePath::new([&*self.fold(object, depth)?]).text()),
            StrMethod::Absolute => Some(
                PurePath::new([&*self.fold(object, depth)?])
                    .absolute()
                    .text(),
            ),
            StrMethod::Resolve => {
                let path = python_realpath(&self.fold(object, depth)?)?;
                Some(PurePath::new([path.as_str()]).text())
            }
        }
    }

    /// `Buffer.from(s, 'base64').toString()` and friends.
    fn fold_buffer(
        &mut self,
        buffer: NodeId,
        encoding: Option<NodeId>,
        depth: usize,
    ) -> Option<String> {
        if let Some(e) = encoding
            && !matches!(self.fold(e, depth).as_deref(), Some("utf8" | "utf-8"))
        {
            return None;
        }
        let ir = self.ir;
        let Kind::Call { callee, .. } = ir.kind(ir.unparen(buffer)) else {
            return self.fold(buffer, depth).map(|s| s.to_string());
        };
        let callees = self.resolve(callee, depth).to_vec();
        let is_from = !callees.is_empty()
            && callees
                .iter()
                .all(|m| matches!(m.value, Value::Name(p) if self.paths.text(p) == "Buffer.from"))
            && self.root_is_only(callee, depth);
        if !is_from {
            return None;
        }
        let args = self.modeled_args(ir.unparen(buffer), Some(2), &[], depth)?;
        let data = self.fold(*args.first()?, depth)?;
        match args.get(1) {
            None => Some(data.to_string()),
            Some(e) => match self.fold(*e, depth)?.as_ref() {
                "base64" | "base64url" => base64_bytes(&data, false)
                    .or_else(|| base64_bytes(&data, true))
                    .and_then(|b| String::from_utf8(b).ok()),
                "hex" => node_hex_text(&data),
                "utf8" | "utf-8" => Some(data.to_string()),
                _ => None,
            },
        }
    }

    /// A sequence of constant strings: a list or tuple of them, `reversed(...)` of one,
    /// `map(chr, [...])`, `'s'.split(sep)`, `[...].reverse()`, or a string (its characters).
    fn fold_sequence(&mut self, id: NodeId, depth: usize) -> Option<Vec<String>> {
        let ir = self.ir;
        let id = ir.unparen(id);
        match ir.kind(id) {
            Kind::Collection {
                kind: CollectionKind::List | CollectionKind::Tuple,
                items,
            } => ir
                .list(items)
                .iter()
                .map(|&item| self.fold(item, depth + 1).map(|s| s.to_string()))
                .collect(),
            Kind::Call { callee, .. } => {
                if let Kind::Attr { object, name } = ir.kind(callee) {
                    match self.name(name) {
                        "reverse" => {
                            let mut items = self.fold_sequence(object, depth + 1)?;
                            items.reverse();
                            return Some(items);
                        }
                        method => {
                            if let Some(StrMethod::Split { max_splits }) =
                                self.dialect.string_method(method)
                            {
                                return self.fold_split(id, object, max_splits, depth + 1);
                            }
                        }
                    }
                }
                let args = self.modeled_args(id, None, &[], depth).unwrap_or_default();
                let names: Vec<String> = self
                    .resolve(callee, depth + 1)
                    .iter()
                    .filter_map(|m| self.path_text(m.value).map(str::to_owned))
                    .collect();
                if names.iter().any(|n| n == "reversed") && args.len() == 1 {
                    let mut items = self.fold_sequence(args[0], depth + 1)?;
                    items.reverse();
                    return Some(items);
                }
                if names.iter().any(|n| n == "map")
                    && let [f, list] = args.as_slice()
                    && self
                        .resolve(*f, depth + 1)
                        .iter()
                        .any(|m| matches!(m.value, Value::Name(p) if self.paths.text(p) == "chr"))
                    && let Kind::Collection { items, .. } = ir.kind(ir.unparen(*list))
                {
                    return ir
                        .list(items)
                        .iter()
                        .map(|&n| {
                            self.exact_int(n, 0)
                                .and_then(|n| u32::try_from(n).ok())
                                .and_then(char::from_u32)
                                .map(String::from)
                        })
                        .collect();
                }
                self.fold(id, depth)
                    .map(|s| s.chars().map(String::from).collect())
            }
            _ => self
                .fold(id, depth)
                .map(|s| s.chars().map(String::from).collect()),
        }
    }

    /// `s.split(sep, n)` with a constant separator. Python's `n` (`maxsplit`) is the number of
    /// splits made (all when negative) and an empty separator an error; JavaScript's `limit`
    /// the number of items kept, and an empty separator splits into UTF-16 units (folded for
    /// ASCII text only).
    fn fold_split(
        &mut self,
        call: NodeId,
        object: NodeId,
        max_splits: bool,
        depth: usize,
    ) -> Option<Vec<String>> {
        let keywords: &[&str] = if max_splits {
            &["sep", "maxsplit"]
        } else {
            &[]
        };
        let args = self.modeled_args(call, Some(2), keywords, depth)?;
        let sep = match (args.first(), self.keyword_arg(call, "sep")) {
            (Some(&s), None) | (None, Some(s)) => s,
            _ => return None,
        };
        let limit = match (args.get(1), self.keyword_arg(call, "maxsplit")) {
            (Some(_), Some(_)) => return None,
            (Some(&n), None) | (None, Some(n)) => Some(self.exact_int(n, 0)?),
            (None, None) => None,
        };
        let s = self.fold(object, depth)?;
        let sep = self.fold(sep, depth)?;
        let mut items: Vec<String> = if sep.is_empty() {
            if max_splits || !s.is_ascii() {
                return None;
            }
            s.chars().map(String::from).collect()
        } else {
            match limit {
                Some(n) if max_splits && n >= 0 => {
                    let pieces = usize::try_from(n).ok()?.checked_add(1)?;
                    s.splitn(pieces, &*sep).map(str::to_owned).collect()
                }
                _ => s.split(&*sep).map(str::to_owned).collect(),
            }
        };
        if let Some(n) = limit
            && !max_splits
        {
            // `limit` is taken modulo 2^32 (`-1` keeps everything).
            let kept = usize::try_from(n.rem_euclid(1 << 32)).ok()?;
            items.truncate(kept);
        }
        Some(items)
    }

    /// An integer constant: literals, `int(...)`, names bound to integers, combined with
    /// `+ - * ** <<`, saturating on overflow. `largest` takes the largest value of a name
    /// bound to several (for sizes, which are only as safe as their largest value).
    pub fn int_value(&mut self, id: NodeId, largest: bool) -> Option<i128> {
        self.int_at(id, largest, 0)
    }

    fn int_at(&mut self, id: NodeId, largest: bool, depth: usize) -> Option<i128> {
        if depth > 32 {
            return None;
        }
        let ir = self.ir;
        match ir.kind(id) {
            Kind::Int(n) => Some(n),
            Kind::Paren(inner) => self.int_at(inner, largest, depth + 1),
            Kind::Name(sym) => {
                let lookup =
                    self.scopes
                        .lookup(sym, self.scopes.scope_of(id), self.dialect.declaring());
                let mut values = Vec::new();
                for scope in &lookup.scopes {
                    // The largest value seen stays a size the code may reach; an exact one
                    // needs every write of the name seen.
                    if !largest && self.module_name_rewritten(*scope, sym) {
                        return None;
                    }
                    let binding = self.bindings.get(&(*scope, sym))?;
                    if !largest && (binding.opaque_int || binding.ints.len() != 1) {
                        return None;
                    }
                    values.extend(binding.ints.iter().copied());
                }
                match values.as_slice() {
                    [one] => Some(*one),
                    many if largest => many.iter().copied().max(),
                    _ => None,
                }
            }
            Kind::Unary { op, arg } => {
                let v = self.int_at(arg, largest, depth + 1)?;
                match op {
                    UnOp::Neg => Some(v.saturating_neg()),
                    UnOp::Pos => Some(v),
                    _ => None,
                }
            }
            Kind::Binary { op, left, right } => {
                let l = self.int_at(left, largest, depth + 1)?;
                let r = self.int_at(right, largest, depth + 1)?;
                combine_ints(op, l, r)
            }
            Kind::Call { callee, .. } => {
                // `int(1e10)`
                let args = self.modeled_args(id, Some(1), &[], depth)?;
                let is_int = matches!(ir.kind(callee), Kind::Name(s) if self.name(s) == "int");
                match args.as_slice() {
                    [value] if is_int => self.int_at(*value, largest, depth + 1),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// The positional arguments (`None`: any number) and keywords a fold of `function` models.
fn function_arguments(function: StrFn) -> (Option<usize>, &'static [&'static str]) {
    match function {
        StrFn::Recode => (Some(3), &["encoding", "errors"]),
        StrFn::Codec { .. } => (Some(3), &["errors"]),
        StrFn::Chr { all: true }
        | StrFn::PathJoin
        | StrFn::PurePath
        | StrFn::NodeJoin
        | StrFn::PathResolve => (None, &[]),
        StrFn::Url => (Some(2), &[]),
        StrFn::Same
        | StrFn::Chr { all: false }
        | StrFn::Base64 { .. }
        | StrFn::NormPath
        | StrFn::AbsPath
        | StrFn::RealPath
        | StrFn::NodeNormalize
        | StrFn::Hex
        | StrFn::ExpandUser
        | StrFn::Unescape => (Some(1), &[]),
    }
}

/// The positional arguments (`None`: any number) and keywords a fold of `method` models.
fn method_arguments(method: StrMethod) -> (Option<usize>, &'static [&'static str]) {
    match method {
        StrMethod::Concat | StrMethod::JoinPath => (None, &[]),
        StrMethod::Recode => (Some(2), &["encoding", "errors"]),
        StrMethod::Replace => (Some(3), &["count"]),
        StrMethod::ReplaceAll | StrMethod::Split { .. } => (Some(2), &[]),
        StrMethod::JoinOnSeparator
        | StrMethod::JoinList
        | StrMethod::Strip { .. }
        | StrMethod::BufferToString
        | StrMethod::WithSuffix
        | StrMethod::WithName => (Some(1), &[]),
        StrMethod::Lower
        | StrMethod::Upper
        | StrMethod::Same
        | StrMethod::ExpandUser
        | StrMethod::Absolute
        | StrMethod::AsPosix => (Some(0), &[]),
        StrMethod::Resolve => (Some(1), &["strict"]),
    }
}

/// Saturating integer arithmetic: results too large for `i128` saturate to its bounds,
/// whatever the size of the operands, so `10**10**10` is simply "huge", computed at once.
pub fn combine_ints(op: BinOp, l: i128, r: i128) -> Option<i128> {
    let saturated = |negative: bool| if negative { i128::MIN } else { i128::MAX };
    Some(match op {
        BinOp::Add => l.saturating_add(r),
        BinOp::Sub => l.saturating_sub(r),
        BinOp::Mul => l.saturating_mul(r),
        BinOp::Pow => {
            if r < 0 {
                return None; // a float
            }
            let odd = r % 2 == 1;
            match l {
                0 => i128::from(r == 0),
                1 => 1,
                -1 => {
                    if odd {
                        -1
                    } else {
                        1
                    }
                }
                _ => match u32::try_from(r) {
                    Ok(exp) if exp <= 127 => l
                        .checked_pow(exp)
                        .unwrap_or_else(|| saturated(l < 0 && odd)),
                    _ => saturated(l < 0 && odd),
                },
            }
        }
        BinOp::Shl => {
            if r < 0 {
                return None; // a ValueError
            }
            if l == 0 {
                0
            } else {
                match u32::try_from(r) {
                    Ok(shift) if shift < 127 && l.unsigned_abs().leading_zeros() > shift + 1 => {
                        l << shift
                    }
                    _ => saturated(l < 0),
                }
            }
        }
        _ => return None,
    })
}

/// `os.path.expanduser`: `~` and `~/...` are the sandbox user's home, the work dir. `~name`
/// is another user's home directory, which the passwd database decides at run time
/// (`~sys` is `/dev`): not foldable.
fn expand_user(path: &str) -> Option<String> {
    match path.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => {
            Some(format!("{}{rest}", pathtext::WORK_DIR))
        }
        Some(_) => None,
        None => Some(path.to_owned()),
    }
}

/// `items[start:stop]`, with Python's and JavaScript's reading of negative and absent bounds.
fn slice_of(items: &[NodeId], start: Option<i128>, stop: Option<i128>) -> Vec<NodeId> {
    let len = items.len() as i128;
    let at = |b: i128| (if b < 0 { len + b } else { b }).clamp(0, len) as usize;
    let (from, to) = (start.map_or(0, at), stop.map_or(items.len(), at));
    if from >= to {
        return Vec::new();
    }
    items[from..to].to_vec()
}

/// True when the node is written: an assignment's (or a deletion's, or a loop's) target, or
/// the object of one.
fn is_written(ir: &crate::analysis::ir::Ir, mut id: NodeId) -> bool {
    loop {
        let Some(parent) = ir.parent(id) else {
            return false;
        };
        match ir.kind(parent) {
            Kind::Assign { targets, .. } | Kind::Delete { targets } => {
                return ir.list(targets).contains(&id);
            }
            Kind::AugAssign { target, .. }
            | Kind::For { target, .. }
            | Kind::CompFor { target, .. }
            | Kind::WithItem {
                target: Some(target),
                ..
            } => return target == id,
            // `delete a[0]` (and any operator but arithmetic, to be safe).
            Kind::Unary {
                op: UnOp::Other, ..
            } => return true,
            Kind::Attr { object, .. } | Kind::Index { object, .. } if object == id => id = parent,
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_saturate() {
        assert_eq!(combine_ints(BinOp::Pow, 10, 10_000), Some(i128::MAX));
        assert_eq!(combine_ints(BinOp::Pow, 10, 1 << 40), Some(i128::MAX));
        assert_eq!(
            combine_ints(BinOp::Pow, -10, (1 << 40) + 1),
            Some(i128::MIN)
        );
        assert_eq!(combine_ints(BinOp::Pow, 1, 1 << 40), Some(1));
        assert_eq!(combine_ints(BinOp::Shl, 1, 40), Some(1 << 40));
        assert_eq!(combine_ints(BinOp::Shl, 1, 1 << 40), Some(i128::MAX));
        assert_eq!(combine_ints(BinOp::Shl, 1, 127), Some(i128::MAX));
    }
}
