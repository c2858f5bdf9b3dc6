//! The analyzer's output: language-neutral facts about a snippet.
//!
//! Policies match facts, never syntax trees, so a rule written once covers every spelling the
//! analyzers can see through (`os.system`, `o.system` after `import os as o`,
//! `getattr(__import__('o'+'s'), 'system')` all become the same [`FactKind::Use`]).

use serde::Serialize;

/// Where a fact was found. Lines and columns are 1-based; columns count Unicode characters,
/// so a marker under a source line lines up however many bytes the characters take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Span {
    pub start_byte: usize,
    pub end_byte: usize,
    pub line: usize,
    pub column: usize,
}

impl Span {
    /// The span of `start..end` in `source`, computing line and character column.
    pub fn from_bytes(source: &str, start: usize, end: usize) -> Span {
        let start = floor_char_boundary(source, start.min(source.len()));
        let end = floor_char_boundary(source, end.clamp(start, source.len()));
        let before = &source[..start];
        let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = source[line_start..start].chars().count() + 1;
        Span {
            start_byte: start,
            end_byte: end,
            line,
            column,
        }
    }
}

/// Turns byte offsets into spans in O(log lines) each, where [`Span::from_bytes`] scans from
/// the start: a snippet can carry thousands of facts.
pub struct LineIndex<'s> {
    source: &'s str,
    line_starts: Vec<usize>,
}

impl<'s> LineIndex<'s> {
    pub fn new(source: &'s str) -> Self {
        let line_starts = std::iter::once(0)
            .chain(source.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex {
            source,
            line_starts,
        }
    }

    pub fn span(&self, start: usize, end: usize) -> Span {
        let source = self.source;
        let start = floor_char_boundary(source, start.min(source.len()));
        let end = floor_char_boundary(source, end.clamp(start, source.len()));
        let line = self.line_starts.partition_point(|&s| s <= start);
        let line_start = self.line_starts[line - 1];
        let column = source[line_start..start].chars().count() + 1;
        Span {
            start_byte: start,
            end_byte: end,
            line,
            column,
        }
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// One thing the analyzer established about the snippet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fact {
    pub kind: FactKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "fact", rename_all = "kebab-case")]
pub enum FactKind {
    /// A module is loaded: `import os`, `require('node:fs')`, `__import__('o' + 's')`.
    /// Names are normalized (`node:` prefix dropped, Python dotted path kept whole).
    Import { module: String },
    /// A use of a name whose meaning was resolved, written fully qualified: `os.system`,
    /// `child_process.exec`, or a builtin such as `open` or `eval`. `called` is true at a call
    /// site; `args` are the call's arguments that fold to constants (strings, and integers
    /// written in decimal), in order: every positional argument, then Python keyword
    /// arguments that name files (`file=`, `path=`, `src=`, `dst=`, ...). Arguments that do
    /// not fold are left out, so `args` says what is known, not how many there are.
    /// `root` says what the name starts from: a module (`numpy.linalg` for
    /// `numpy.linalg.norm`), a builtin or global, or a name nothing in the snippet binds.
    Use {
        name: String,
        called: bool,
        args: Vec<String>,
        root: Root,
    },
    /// A special attribute reached on a value the analyzer does not follow: a Python
    /// `__dunder__` name, JavaScript's `constructor`.
    Attribute { name: String },
    /// A file path a call opens, lists, writes or removes: folded and normalized (`..`, `.`,
    /// `//`, `file:` URLs, bytes), or `None` when the analyzer could not fold it.
    Path {
        function: String,
        path: Option<String>,
    },
    /// A construct whose effect cannot be proven statically, or that is dangerous in itself.
    Dynamic { kind: DynamicKind, detail: String },
    /// A string constant, after folding literal concatenation and simple transforms.
    Literal { value: String },
}

/// What a used name starts from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Root {
    /// A module, by its full name.
    Module(String),
    /// A builtin (Python) or global (JavaScript) of the interpreter.
    Builtin,
    /// A name the snippet never binds and the interpreter does not define: it fails when run,
    /// unless earlier code bound it (which a session's carried bindings say).
    Unbound,
}

/// The kinds of construct the analyzer reports because it cannot prove them harmless.
/// Policies refer to them by their kebab-case names (`dynamic: [code-eval]`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum DynamicKind {
    /// Text run as code: `eval`, `exec`, `compile`, `Function`, `vm`, string timers.
    CodeEval,
    /// A module loaded by a name that does not fold to a constant.
    DynamicImport,
    /// An attribute or global looked up by a name that does not fold to a constant.
    DynamicAttribute,
    /// Reaching interpreter internals: `__subclasses__`, `__globals__`, frames, `__proto__`.
    Introspection,
    /// An allocation whose constant size is far beyond any sandbox's memory limit.
    HugeAllocation,
    /// Source the parser could not read as the language; the analysis may be incomplete.
    ParseError,
    /// Source the interpreter reads differently from the analyzer's parser (a tab after spaces
    /// in Python's indentation, `<!--` or a Unicode space between tokens in a Node script):
    /// what would run is not what was judged.
    MisreadSource,
    /// A PEP 263 coding cookie naming an encoding other than UTF-8: Python would decode the
    /// file differently from how it was analyzed.
    CodingCookie,
    /// The input exceeded an analysis bound (size, nesting, time); the rest was not analyzed.
    AnalysisLimit,
    /// A module, namespace, the global object, or a function checked call by call (a loader,
    /// `getattr`, a file opener), passed, returned, stored or matched where the analyzer
    /// cannot follow what is done with it.
    UntrackedValue,
    /// JavaScript: a member looked up by a key that is neither constant nor a number, on a
    /// value that may be a function, whose result is then called or handed on (any
    /// function's `constructor` is `Function`).
    ComputedMember,
}

impl DynamicKind {
    pub const ALL: [DynamicKind; 11] = [
        DynamicKind::CodeEval,
        DynamicKind::DynamicImport,
        DynamicKind::DynamicAttribute,
        DynamicKind::Introspection,
        DynamicKind::HugeAllocation,
        DynamicKind::ParseError,
        DynamicKind::MisreadSource,
        DynamicKind::CodingCookie,
        DynamicKind::AnalysisLimit,
        DynamicKind::UntrackedValue,
        DynamicKind::ComputedMember,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DynamicKind::CodeEval => "code-eval",
            DynamicKind::DynamicImport => "dynamic-import",
            DynamicKind::DynamicAttribute => "dynamic-attribute",
            DynamicKind::Introspection => "introspection",
            DynamicKind::HugeAllocation => "huge-allocation",
            DynamicKind::ParseError => "parse-error",
            DynamicKind::MisreadSource => "misread-source",
            DynamicKind::CodingCookie => "coding-cookie",
            DynamicKind::AnalysisLimit => "analysis-limit",
            DynamicKind::UntrackedValue => "untracked-value",
            DynamicKind::ComputedMember => "computed-member",
        }
    }
}

impl std::fmt::Display for DynamicKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn span_counts_characters_not_bytes() {
        let src = "x = 1\nｅｘｅｃ('1')";
        let start = src.find('(').unwrap();
        let span = Span::from_bytes(src, start, start + 1);
        assert_eq!((span.line, span.column), (2, 5));
    }

    #[test]
    fn line_index_agrees_with_scanning() {
        let src = "a\nbé c\n\nd";
        let index = LineIndex::new(src);
        for i in 0..=src.len() {
            assert_eq!(index.span(i, i), Span::from_bytes(src, i, i), "offset {i}");
        }
    }

    #[test]
    fn span_clamps_offsets_inside_characters() {
        let src = "é";
        let span = Span::from_bytes(src, 1, 99);
        assert_eq!((span.start_byte, span.end_byte), (0, 2));
    }
}
