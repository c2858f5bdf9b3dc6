//! Constant folding: the string or integer an expression evaluates to, when it is built only
//! from literals, names bound to one constant, and the usual hiding transforms
//! (concatenation, formatting, join, reversal, `chr`, strip, case, base64/hex/rot13).
//! Case changes fold only ASCII: the interpreters' Unicode case rules differ from Rust's in
//! places, and a wrongly folded name is a wrongly judged one.

use std::rc::Rc;

use super::meaning::Value;
use super::{Engine, MAX_EXPR_DEPTH, MAX_FOLDED_LEN, Memo};
use crate::analysis::dialect::{StrFn, StrMethod};
use crate::analysis::ir::{BinOp, CollectionKind, Kind, NodeId, Splat, UnOp};
use crate::analysis::text::{base64_text, hex_text, node_url_path, rot13};

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
                let l = self.fold_piece(left, depth)?;
                let r = self.fold_piece(right, depth)?;
                Some(l + &r)
            }
            Kind::Binary {
                op: BinOp::Div,
                left,
                right,
            } if self.dialect.divides_paths() => {
                // `Path('data') / 'x.csv'`
                let l = self.fold(left, depth)?;
                let r = self.fold(right, depth)?;
                Some(join_paths([&*l, &*r]))
            }
            Kind::Binary {
                op: BinOp::Mod,
                left,
                right,
            } => {
                let format = self.fold(left, depth)?;
                let arg = self.fold(right, depth)?;
                (format.matches("%s").count() == 1 && !format.contains("%%"))
                    .then(|| format.replacen("%s", &arg, 1))
            }
            Kind::Paren(inner) => self.fold(inner, depth).map(|s| s.to_string()),
            Kind::Name(sym) => self.constant_of_name(sym, id),
            Kind::Attr { object, name } => {
                // `Path('data/x.csv').parent`
                if self.name(name) == "parent" && self.dialect.divides_paths() {
                    let path = self.fold(object, depth)?;
                    return Some(match path.trim_end_matches('/').rsplit_once('/') {
                        Some(("", _)) => "/".to_owned(),
                        Some((dir, _)) => dir.to_owned(),
                        None => ".".to_owned(),
                    });
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
                    && self.int_value(step, false) == Some(-1)
                {
                    return self.fold(object, depth).map(|s| s.chars().rev().collect());
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
            Kind::Interp { value, spec: false } => value,
            Kind::Interp { spec: true, .. } => return None,
            _ => id,
        };
        if let Some(s) = self.fold(id, depth) {
            return Some(s.to_string());
        }
        let concatenates_numbers = self.dialect.index_reads_member()
            || matches!(ir.kind(ir.parent(id)?), Kind::Interp { .. });
        if concatenates_numbers {
            return self.int_value(id, false).map(|n| n.to_string());
        }
        None
    }

    /// A name bound to exactly one constant string, everywhere it is bound.
    fn constant_of_name(&mut self, sym: crate::analysis::ir::Sym, at: NodeId) -> Option<String> {
        let lookup = self
            .scopes
            .lookup(sym, self.scopes.scope_of(at), self.dialect.declaring());
        let mut found: Option<String> = None;
        let mut sources = 0;
        for &scope in &lookup.scopes {
            if self.module_names_rewritten(scope) {
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
            // An earlier analysis's constant, or a well-known one (`__dirname`).
            return self
                .context
                .constant(self.name(sym))
                .map(str::to_owned)
                .or_else(|| self.dialect.constant(self.name(sym)).map(str::to_owned));
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

    fn fold_call(&mut self, id: NodeId, depth: usize) -> Option<String> {
        let ir = self.ir;
        let Kind::Call { callee, .. } = ir.kind(id) else {
            return None;
        };
        // Functions first: `codecs.decode(s, 'rot13')` is a call of `codecs.decode`, not
        // the `.decode()` method of a string.
        for m in self.resolve(callee, depth).to_vec() {
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
                (Some(&c), None) | (None, Some(c)) => Some(self.int_value(c, false)?),
                (None, None) => None,
            };
            return self.fold_replace(object, &args, count, depth);
        }
        self.fold_method(method, object, &args, depth)
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
            Some(b) => self.int_value(b, false).map(Some),
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
        if matches!(function, StrFn::PathJoin) && args.is_empty() {
            return Some(".".to_owned()); // `Path()`
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
                        self.int_value(*a, false)
                            .and_then(|n| u32::try_from(n).ok())
                            .filter(|&n| n <= 0xFFFF)
                            .and_then(char::from_u32)
                    })
                    .collect()
            }
            StrFn::Base64 => base64_text(&self.fold(first, depth)?),
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
                    "base64" if decode => base64_text(&text),
                    _ => None,
                }
            }
            StrFn::PathJoin | StrFn::PathResolve => {
                let mut parts = Vec::new();
                if function == StrFn::PathResolve {
                    parts.push(WORK_DIR.to_owned());
                }
                for &a in args {
                    parts.push(self.fold(a, depth)?.to_string());
                }
                Some(join_paths(parts.iter().map(String::as_str)))
            }
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
                Some(join_paths(parts.iter().map(String::as_str)))
            }
            StrMethod::ExpandUser => expand_user(&self.fold(object, depth)?),
            StrMethod::Absolute => Some(join_paths([WORK_DIR, &*self.fold(object, depth)?])),
            StrMethod::WithSuffix | StrMethod::WithName => {
                let path = self.fold(object, depth)?.to_string();
                let given = self.fold(*args.first()?, depth)?;
                let (dir, last) = match path.rsplit_once('/') {
                    Some((dir, last)) => (format!("{dir}/"), last),
                    None => (String::new(), path.as_str()),
                };
                let last = match method {
                    StrMethod::WithSuffix => {
                        let stem = match last.rfind('.') {
                            Some(at) if at > 0 => &last[..at],
                            _ => last,
                        };
                        format!("{stem}{given}")
                    }
                    _ => given.to_string(),
                };
                Some(format!("{dir}{last}"))
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
        let is_from = self
            .resolve(callee, depth)
            .iter()
            .any(|m| matches!(m.value, Value::Name(p) if self.paths.text(p) == "Buffer.from"));
        if !is_from {
            return None;
        }
        let args = self.modeled_args(ir.unparen(buffer), Some(2), &[], depth)?;
        let data = self.fold(*args.first()?, depth)?;
        match args.get(1) {
            None => Some(data.to_string()),
            Some(e) => match self.fold(*e, depth)?.as_ref() {
                "base64" | "base64url" => base64_text(&data),
                "hex" => hex_text(&data),
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
                            self.int_value(n, false)
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
            (Some(&n), None) | (None, Some(n)) => Some(self.int_value(n, false)?),
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
        StrFn::Chr { all: true } | StrFn::PathJoin | StrFn::PathResolve => (None, &[]),
        StrFn::Url => (Some(2), &[]),
        StrFn::Same
        | StrFn::Chr { all: false }
        | StrFn::Base64
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
        StrMethod::Lower | StrMethod::Upper | StrMethod::Same | StrMethod::ExpandUser => {
            (Some(0), &[])
        }
        StrMethod::Absolute => (Some(1), &["strict"]),
    }
}

/// The working directory and home of every snippet: the work dir, as the runners set it.
const WORK_DIR: &str = "/work";

/// Joins path parts as `os.path.join` does: an absolute part starts over.
fn join_paths<'p>(parts: impl IntoIterator<Item = &'p str>) -> String {
    let mut out = String::new();
    for part in parts {
        if part.starts_with('/') || out.is_empty() {
            out = part.to_owned();
        } else if out.ends_with('/') {
            out.push_str(part);
        } else {
            out.push('/');
            out.push_str(part);
        }
    }
    out
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
        Some(rest) if rest.is_empty() || rest.starts_with('/') => Some(format!("{WORK_DIR}{rest}")),
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
