//! Static analysis: source code in, [`Fact`]s out.
//!
//! The analyzer's rule is that what it cannot resolve, it reports: a snippet that hides a name
//! behind computation gets a [`DynamicKind`] fact, so a strict policy can deny anything it
//! cannot prove harmless. Every step is bounded (input size, parse time, expression depth,
//! number of facts, query matches), so hostile input yields findings, never a hang or a panic.
//! The analyzer knows nothing about policies.

mod collect;
mod detect;
mod dialect;
mod docstrings;
mod engine;
pub mod facts;
mod fidelity;
mod ir;
mod javascript;
mod pathtext;
mod python;
mod query;
mod separators;
mod syntax;
mod text;

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

pub use engine::Carried;
use engine::Role;
pub use facts::{DynamicKind, Fact, FactKind, Root, Span};
pub use query::{RawQuery, RawQueryError};
use serde::{Deserialize, Serialize};
use tree_sitter::{Parser, Tree};

/// Largest snippet analyzed. Larger input gets an `analysis-limit` fact and nothing else.
pub const MAX_SOURCE_BYTES: usize = 1024 * 1024;
/// Longest a parse may take before it is abandoned (tree-sitter parses 1 MiB in well under this).
pub const PARSE_TIME_LIMIT: Duration = Duration::from_secs(2);
/// How deep code run from the snippet's own text (`exec` of a constant, doctest examples) is
/// itself analyzed.
const MAX_NESTED_DEPTH: usize = 3;
/// Constant allocation sizes from here on are reported as resource bombs.
const HUGE_ALLOCATION: i128 = 100_000_000;
/// Parse errors reported per snippet; one is enough to act on, a few help to find them.
const MAX_PARSE_ERRORS: usize = 5;

/// A language the analyzer understands.
///
/// It is written under its canonical name (`python`, `javascript`) and read under any of
/// [`Language::NAMES`], in the CLI, MCP tool arguments and policies alike; the JSON Schemas
/// list the same names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    Python,
    JavaScript,
}

impl Language {
    pub const ALL: [Language; 2] = [Language::Python, Language::JavaScript];

    /// Every name a language is known by, the canonical one first. The one list behind
    /// parsing (case-insensitive), deserializing, the schemas and the error for an unknown name.
    pub const NAMES: [(&'static str, Language); 7] = [
        ("python", Language::Python),
        ("py", Language::Python),
        ("python3", Language::Python),
        ("javascript", Language::JavaScript),
        ("js", Language::JavaScript),
        ("node", Language::JavaScript),
        ("nodejs", Language::JavaScript),
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::JavaScript => "javascript",
        }
    }

    /// The language of a file, by its extension.
    pub fn from_path(path: &std::path::Path) -> Option<Language> {
        match path.extension()?.to_str()? {
            "py" | "pyw" => Some(Language::Python),
            "js" | "mjs" | "cjs" => Some(Language::JavaScript),
            _ => None,
        }
    }

    fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
        }
    }
}

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Language {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Language::NAMES
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(s))
            .map(|&(_, language)| language)
            .ok_or_else(|| {
                let names: Vec<&str> = Language::NAMES.iter().map(|(name, _)| *name).collect();
                format!(
                    "unknown language `{s}` (expected one of: {})",
                    names.join(", ")
                )
            })
    }
}

impl<'de> Deserialize<'de> for Language {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<str>::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

impl schemars::JsonSchema for Language {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Language".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = Language::NAMES.iter().map(|(name, _)| *name).collect();
        schemars::json_schema!({
            "description": "A language the analyzer understands, by any of its names.",
            "type": "string",
            "enum": names,
        })
    }
}

/// Code the snippet runs from its own text (`exec` of a constant, a doctest example, a
/// `timeit` statement): analyzed in turn, with the snippet's bindings, its facts reported at
/// `span`, or, with `origins`, at the source offset where each of its lines stands.
struct NestedCode {
    code: String,
    span: Span,
    origins: Option<Vec<usize>>,
    /// The bindings it runs with, when not just the snippet's (doctest's `extraglobs`).
    context: Option<Carried>,
}

/// The result of analyzing one snippet: its facts, plus the parsed tree for raw queries.
pub struct Analysis {
    pub language: Language,
    pub facts: Vec<Fact>,
    source: String,
    tree: Option<Tree>,
    /// Work the analysis took, in steps of its budget, nested code included.
    steps: u64,
}

impl Analysis {
    /// The (lossily decoded) source the facts refer to.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Work the analysis took, in steps of the budget that bounds it (see the engine), code
    /// it analyzed from text included: what a benchmark or a test of its cost counts.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The tree the facts were read from: parsed from the source with each JavaScript U+2028
    /// and U+2029 that ends a line to Node made a line feed (the same number of bytes), so the
    /// bytes of every code node are the source's.
    pub fn tree(&self) -> Option<&Tree> {
        self.tree.as_ref()
    }

    /// Runs a raw tree-sitter query over the snippet, within the query's match and time limits.
    /// Returns the spans of the nodes captured as `@match` (or of each whole match).
    pub fn query(&self, query: &RawQuery) -> Result<Vec<Span>, String> {
        match &self.tree {
            Some(tree) if query.language() == self.language => query.run(tree, &self.source),
            _ => Ok(Vec::new()),
        }
    }
}

/// Whether `name` is a top-level module of Python's standard library.
pub fn is_python_stdlib_module(name: &str) -> bool {
    python::is_stdlib_module(name)
}

/// Analyzes `source` as `language`. Never panics on any input.
pub fn analyze(language: Language, source: &[u8]) -> Analysis {
    analyze_at(language, source, 0, &Carried::default(), Role::Program).0
}

/// Analyzes `source` as one call of a session: code that runs after earlier code bound the
/// names in `context` (a name bound there is not a free name here), and before later calls
/// that may call its functions (so a parameter's values are not read from the calls seen).
/// Also returns what the snippet's module level binds (merged over `context`), for judging
/// the session's next call.
pub fn analyze_with(language: Language, source: &[u8], context: &Carried) -> (Analysis, Carried) {
    let (analysis, carried) = analyze_at(language, source, 0, context, Role::SessionCall);
    (analysis, carried.unwrap_or_else(|| context.clone()))
}

/// The analysis, and, for a session's call, the names its module level binds (worked out only
/// then, or for nested code that runs with them: a lint run has no use for them).
fn analyze_at(
    language: Language,
    source: &[u8],
    depth: usize,
    context: &Carried,
    role: Role,
) -> (Analysis, Option<Carried>) {
    let start_span = Span {
        start_byte: 0,
        end_byte: 0,
        line: 1,
        column: 1,
    };
    if source.len() > MAX_SOURCE_BYTES {
        let text = String::from_utf8_lossy(&source[..MAX_SOURCE_BYTES]).into_owned();
        let analysis = Analysis {
            language,
            facts: vec![Fact {
                kind: FactKind::Dynamic {
                    kind: DynamicKind::AnalysisLimit,
                    detail: format!(
                        "snippet is {} bytes; at most {MAX_SOURCE_BYTES} bytes are analyzed",
                        source.len()
                    ),
                },
                span: start_span,
            }],
            source: text,
            tree: None,
            steps: 0,
        };
        return (analysis, None);
    }
    let (text, encoding_problem) = match std::str::from_utf8(source) {
        Ok(text) => (text.to_owned(), None),
        Err(e) => (
            String::from_utf8_lossy(source).into_owned(),
            Some(format!("not valid UTF-8 at byte {}", e.valid_up_to())),
        ),
    };
    // The interpreters end a line at a lone carriage return; tree-sitter does not (a comment
    // would hide the code after it). Same length, so spans are unchanged.
    let text = lone_carriage_returns_as_newlines(text);
    let mut facts = Vec::new();
    if let Some(problem) = encoding_problem {
        facts.push(Fact {
            kind: dynamic(DynamicKind::ParseError, problem),
            span: start_span,
        });
    }
    if let Some(offset) = text.find('\0') {
        facts.push(Fact {
            kind: dynamic(DynamicKind::ParseError, "source contains a NUL byte"),
            span: Span::from_bytes(&text, offset, offset + 1),
        });
    }
    if language == Language::Python
        && let Some((span, cookie)) = unsafe_coding_cookie(&text)
    {
        facts.push(Fact {
            kind: dynamic(
                DynamicKind::CodingCookie,
                format!("coding cookie `{cookie}`: Python would decode this file differently"),
            ),
            span,
        });
    }
    // `parsed` is what the tree was parsed from (line separators made line feeds); spans
    // count lines in the source as written.
    let Some(Parsed {
        tree,
        text: parsed,
        unsettled,
    }) = parse_faithfully(language, text.clone()).or_else(|| {
        facts.push(Fact {
            kind: dynamic(
                DynamicKind::AnalysisLimit,
                "parsing took longer than its time limit",
            ),
            span: start_span,
        });
        None
    })
    else {
        let analysis = Analysis {
            language,
            facts,
            source: text,
            tree: None,
            steps: 0,
        };
        return (analysis, None);
    };
    let mut out = collect::Collector::new(&text);
    for fact in facts {
        out.push_at(fact.span, fact.kind);
    }
    report_parse_errors(&tree, &mut out);
    if unsettled {
        out.push_at(
            start_span,
            dynamic(
                DynamicKind::MisreadSource,
                "line comments that line separators (U+2028, U+2029) end, nested too deep to read",
            ),
        );
    }
    fidelity::report(language, &tree, &parsed, &mut out);
    let (ir, too_deep, strict_mode, dialect): (
        ir::Ir,
        Vec<(usize, usize)>,
        bool,
        &'static dyn dialect::Dialect,
    ) = match language {
        Language::Python => {
            let lowered = python::lower(tree.root_node(), &parsed);
            (lowered.ir, lowered.too_deep, false, &python::PYTHON)
        }
        Language::JavaScript => {
            let lowered = javascript::lower(tree.root_node(), &parsed);
            (
                lowered.ir,
                lowered.too_deep,
                lowered.strict,
                &javascript::JAVASCRIPT,
            )
        }
    };
    for (start, end) in too_deep {
        let span = out.span_of(start, end);
        out.push_at(
            span,
            dynamic(
                DynamicKind::AnalysisLimit,
                format!(
                    "code nested deeper than {} levels of syntax was not analyzed",
                    syntax::MAX_SYNTAX_DEPTH
                ),
            ),
        );
    }
    let mut engine = engine::Engine::new(&ir, &parsed, dialect, out, context, role, strict_mode);
    engine.run();
    let nested = std::mem::take(&mut engine.nested);
    let carried = (role == Role::SessionCall || nested.iter().any(|n| n.context.is_none()))
        .then(|| engine.carried());
    let mut steps = engine.steps_spent();
    let mut out = engine.into_collector();
    for inner in nested {
        if depth + 1 >= MAX_NESTED_DEPTH {
            out.push_at(
                inner.span,
                dynamic(
                    DynamicKind::AnalysisLimit,
                    "code nested in eval too deeply to analyze",
                ),
            );
            continue;
        }
        let context = inner
            .context
            .as_ref()
            .or(carried.as_ref())
            .unwrap_or(context);
        let (analysis, _) = analyze_at(
            language,
            inner.code.as_bytes(),
            depth + 1,
            context,
            Role::RunFromText,
        );
        steps += analysis.steps;
        for fact in analysis.facts {
            let span = match &inner.origins {
                None => inner.span,
                Some(origins) => {
                    let line = fact.span.line.saturating_sub(1);
                    match origins.get(line) {
                        Some(&at) => {
                            let column_bytes = fact.span.start_byte
                                - analysis.source[..fact.span.start_byte]
                                    .rfind('\n')
                                    .map_or(0, |i| i + 1);
                            let start = at + column_bytes;
                            let length = fact.span.end_byte - fact.span.start_byte;
                            out.span_of(start, start + length)
                        }
                        None => inner.span,
                    }
                }
            };
            out.push_at(span, fact.kind);
        }
    }
    let facts = out.into_facts();
    let analysis = Analysis {
        language,
        facts,
        source: text,
        tree: Some(tree),
        steps,
    };
    (analysis, carried.filter(|_| role == Role::SessionCall))
}

/// True when `name` is `prefix` or lies under it at a dot boundary (`os.path` under `os`).
pub(crate) fn is_under(name: &str, prefix: &str) -> bool {
    name == prefix
        || (name.len() > prefix.len()
            && name.starts_with(prefix)
            && name.as_bytes()[prefix.len()] == b'.')
}

/// `owner.member`, built directly: `format!` took several times as long, and names are
/// joined for most attribute reads.
pub(crate) fn dotted(owner: &str, member: &str) -> String {
    let mut path = String::with_capacity(owner.len() + 1 + member.len());
    path.push_str(owner);
    path.push('.');
    path.push_str(member);
    path
}

/// True when a normalized absolute path is `root` or lies under it.
pub(crate) fn is_under_path(path: &str, root: &str) -> bool {
    let root = root.trim_end_matches('/');
    path == root
        || (path.len() > root.len()
            && path.starts_with(root)
            && path.as_bytes()[root.len()] == b'/')
}

/// True when a function-name pattern (`open`; `fs.*` for every function of `fs`;
/// `pandas.read_*`) names `name`. `*` matches within one dotted part.
pub(crate) fn path_function_matches(pattern: &str, name: &str) -> bool {
    fn glob(p: &[u8], n: &[u8]) -> bool {
        match p {
            [] => n.is_empty(),
            [b'*', rest @ ..] => (0..=n.len())
                .take_while(|&i| i == 0 || n[i - 1] != b'.')
                .any(|i| glob(rest, &n[i..])),
            [c, rest @ ..] => n.first() == Some(c) && glob(rest, &n[1..]),
        }
    }
    // Most patterns differ from the name before their first `*`: compare that literal text
    // byte by byte (every call is checked against the whole table) and glob only the rest.
    let (pattern, name) = (pattern.as_bytes(), name.as_bytes());
    let mut literal = 0;
    while let Some(&c) = pattern.get(literal).filter(|&&c| c != b'*') {
        if name.get(literal) != Some(&c) {
            return false;
        }
        literal += 1;
    }
    if literal == pattern.len() {
        return name.len() == pattern.len();
    }
    glob(&pattern[literal..], &name[literal..])
}

/// Replaces each carriage return not followed by a line feed with a line feed.
fn lone_carriage_returns_as_newlines(text: String) -> String {
    if !text.contains('\r') {
        return text;
    }
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    for i in 0..bytes.len() {
        if bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n') {
            out[i] = b'\n';
        }
    }
    String::from_utf8(out).unwrap_or(text)
}

/// Rounds of parsing again after line separators became line feeds. Each round ends the first
/// line comment that ran past one (today only a hashbang line does, so two rounds settle any
/// source); a source still unsettled after these is refused rather than read half-way.
const MAX_SEPARATOR_ROUNDS: usize = 8;

/// A tree, and the text it was parsed from.
struct Parsed {
    tree: Tree,
    text: String,
    /// Separators were still to become line ends after the last round: the tree may hide
    /// code.
    unsettled: bool,
}

/// Parses, and where the parser's view differs from the interpreter's, makes them agree
/// first: a JavaScript line separator that ends a line to Node becomes a line feed, and the
/// text is parsed again (see [`separators`]), until none is left.
fn parse_faithfully(language: Language, mut text: String) -> Option<Parsed> {
    let mut tree = parse(language, &text)?;
    if language != Language::JavaScript {
        return Some(Parsed {
            tree,
            text,
            unsettled: false,
        });
    }
    for _ in 0..MAX_SEPARATOR_ROUNDS {
        let ends = separators::line_ends(&tree, &text);
        if ends.is_empty() {
            return Some(Parsed {
                tree,
                text,
                unsettled: false,
            });
        }
        for at in ends {
            text.replace_range(at..at + 3, "\n  ");
        }
        tree = parse(language, &text)?;
    }
    let unsettled = !separators::line_ends(&tree, &text).is_empty();
    Some(Parsed {
        tree,
        text,
        unsettled,
    })
}

fn dynamic(kind: DynamicKind, detail: impl Into<String>) -> FactKind {
    FactKind::Dynamic {
        kind,
        detail: detail.into(),
    }
}

pub(crate) fn parse(language: Language, text: &str) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&language.grammar()).ok()?;
    let started = Instant::now();
    let bytes = text.as_bytes();
    let mut read = |offset: usize, _: tree_sitter::Point| bytes.get(offset..).unwrap_or_default();
    let mut progress = |_: &tree_sitter::ParseState| {
        if started.elapsed() > PARSE_TIME_LIMIT {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let options = tree_sitter::ParseOptions::new().progress_callback(&mut progress);
    parser.parse_with_options(&mut read, None, Some(options))
}

/// Reports `ERROR` and `MISSING` nodes: the parser's view then differs from the interpreter's,
/// and what it could not parse was not analyzed.
fn report_parse_errors(tree: &Tree, out: &mut collect::Collector) {
    if !tree.root_node().has_error() {
        return;
    }
    let mut found = 0;
    syntax::walk(tree, |node| {
        if node.is_error() || node.is_missing() {
            let detail = if node.is_missing() {
                format!("syntax error: missing `{}`", node.kind())
            } else {
                "syntax error: the parser could not read this code".to_owned()
            };
            let span = out.span_of(node.start_byte(), node.end_byte());
            out.push_at(span, dynamic(DynamicKind::ParseError, detail));
            found += 1;
            if found >= MAX_PARSE_ERRORS {
                return None;
            }
            return Some(false);
        }
        Some(node.has_error())
    });
}

/// A PEP 263 cookie on line 1 or 2 naming an encoding under which the file could mean something
/// other than what was parsed as UTF-8. UTF-8 is always safe; ASCII supersets are safe for
/// pure-ASCII files; anything else (notably `utf-7`, which turns comments into code) is not.
fn unsafe_coding_cookie(text: &str) -> Option<(Span, String)> {
    let mut offset = 0;
    for line in text.split_inclusive('\n').take(2) {
        // The pattern needs the word `coding`: a line without it cannot match, and most
        // files never compile the pattern.
        let cookie = line
            .contains("coding")
            .then(|| regex_lite_cookie().captures(line))
            .flatten();
        if let Some(caps) = cookie {
            let name = caps.get(1)?;
            let encoding = name.as_str().to_ascii_lowercase().replace('_', "-");
            let safe_always = matches!(
                encoding.as_str(),
                "utf-8" | "utf8" | "u8" | "utf-8-sig" | "utf"
            );
            let ascii_superset = matches!(
                encoding.as_str(),
                "ascii"
                    | "us-ascii"
                    | "latin-1"
                    | "latin1"
                    | "iso-8859-1"
                    | "iso8859-1"
                    | "l1"
                    | "cp1252"
                    | "windows-1252"
                    | "iso-8859-15"
            );
            if safe_always || (ascii_superset && text.is_ascii()) {
                return None;
            }
            let start = offset + name.start();
            return Some((
                Span::from_bytes(text, start, start + name.len()),
                name.as_str().to_owned(),
            ));
        }
        if !line.trim_start().starts_with('#') && !line.trim().is_empty() {
            return None;
        }
        offset += line.len();
    }
    None
}

fn regex_lite_cookie() -> &'static regex::Regex {
    static COOKIE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    COOKIE.get_or_init(|| {
        regex::Regex::new(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)").expect("cookie regex is valid")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_function_patterns() {
        for (pattern, name, expected) in [
            ("open", "open", true),
            ("open", "opener", false),
            ("open", "io.open", false),
            ("fs.*", "fs.readFile", true),
            ("fs.*", "fs", false),
            ("fs.*", "fs.promises.readFile", false),
            ("fs.*", "fsx.readFile", false),
            ("pandas.read_*", "pandas.read_csv", true),
            ("pandas.read_*", "pandas.read_", true),
            ("pandas.read_*", "pandas.to_csv", false),
            ("*.open", "io.open", true),
            ("*.open", "a.b.open", false),
            ("a.*.b", "a.x.b", true),
            ("a.*.b", "a.x.y.b", false),
        ] {
            assert_eq!(
                path_function_matches(pattern, name),
                expected,
                "{pattern:?} on {name:?}"
            );
        }
    }

    fn kinds(language: Language, code: &[u8]) -> Vec<DynamicKind> {
        analyze(language, code)
            .facts
            .into_iter()
            .filter_map(|f| match f.kind {
                FactKind::Dynamic { kind, .. } => Some(kind),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn utf7_cookie_is_reported_and_utf8_is_not() {
        let hostile = b"# -*- coding: utf_7 -*-\n+AAo-import os\n";
        assert!(kinds(Language::Python, hostile).contains(&DynamicKind::CodingCookie));
        assert!(kinds(Language::Python, b"# coding: utf-8\nx = 1\n").is_empty());
        assert!(kinds(Language::Python, b"# -*- coding: latin-1 -*-\nx = 1\n").is_empty());
    }

    #[test]
    fn parse_errors_nul_and_bad_utf8_are_reported() {
        assert!(kinds(Language::Python, b"def (:\n").contains(&DynamicKind::ParseError));
        assert!(kinds(Language::Python, b"x = 1\0\n").contains(&DynamicKind::ParseError));
        assert!(
            kinds(Language::JavaScript, b"let x = '\xff\xfe';").contains(&DynamicKind::ParseError)
        );
    }

    #[test]
    fn oversized_input_is_an_analysis_limit() {
        let big = vec![b'#'; MAX_SOURCE_BYTES + 1];
        assert_eq!(
            kinds(Language::Python, &big),
            vec![DynamicKind::AnalysisLimit]
        );
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let deep = format!("x = {}1{}", "(".repeat(50_000), ")".repeat(50_000));
        let _ = analyze(Language::Python, deep.as_bytes());
        let chain = format!("x = os{}", ".a".repeat(50_000));
        assert!(kinds(Language::Python, chain.as_bytes()).contains(&DynamicKind::AnalysisLimit));
        let js = format!("x = {}1{}", "[".repeat(50_000), "]".repeat(50_000));
        let _ = analyze(Language::JavaScript, js.as_bytes());
    }

    /// A binary search whose bounds come from its own recursive calls: following each call's
    /// returns from every other call once took time exponential in the recursion.
    const RECURSIVE_SEARCH_JS: &str = "function search(a, key, start, end) {
  if (start > end) return start
  const mid = Math.floor((start + end) / 2)
  if (a[mid] < key) return search(a, key, mid + 1, end)
  else if (a[mid] > key) return search(a, key, start, mid - 1)
  return mid
}
console.log(search([1, 2, 3], 2, 0, 2))
";

    #[test]
    fn recursive_functions_cost_a_few_steps_a_node() {
        let python = "def search(a, key, start, end):
    if start > end:
        return start
    mid = (start + end) // 2
    if a[mid] < key:
        return search(a, key, mid + 1, end)
    elif a[mid] > key:
        return search(a, key, start, mid - 1)
    return mid
print(search([1, 2, 3], 2, 0, 2))
";
        // Many functions calling each other and themselves, each handing on its parameters:
        // a chain of calls through all of them is far longer than any expression is deep.
        let mut web = String::new();
        let mut web_py = String::new();
        for f in 0..12 {
            web.push_str(&format!(
                "function f{f}(a, b, c, d) {{
  if (a > d) return a
"
            ));
            web_py.push_str(&format!(
                "def f{f}(a, b, c, d):
    if a > d:
        return a
"
            ));
            for g in 0..12 {
                web.push_str(&format!(
                    "  if (b < {g}) return f{g}(b, c, d, a + 1)
"
                ));
                web_py.push_str(&format!(
                    "    if b < {g}:
        return f{g}(b, c, d, a + 1)
"
                ));
            }
            web.push_str(
                "  return f0(d, c, b, a)
}
",
            );
            web_py.push_str(
                "    return f0(d, c, b, a)
",
            );
        }
        web.push_str(
            "console.log(f0(1, 2, 3, 4))
",
        );
        web_py.push_str(
            "print(f0(1, 2, 3, 4))
",
        );
        for (language, code) in [
            (Language::JavaScript, RECURSIVE_SEARCH_JS),
            (Language::Python, python),
            (Language::JavaScript, web.as_str()),
            (Language::Python, web_py.as_str()),
        ] {
            let analysis = analyze(language, code.as_bytes());
            let kinds = kinds(language, code.as_bytes());
            assert!(!kinds.contains(&DynamicKind::AnalysisLimit), "{code}");
            // Far below the budget: ordinary code takes a few steps a node.
            let steps_per_byte = analysis.steps() as f64 / code.len() as f64;
            assert!(
                steps_per_byte < 2.0,
                "{} steps for {} bytes of\n{code}",
                analysis.steps(),
                code.len()
            );
        }
    }

    /// The engine over `code` with a budget of `steps`, as `analyze` runs it.
    fn kinds_with_budget(language: Language, code: &str, steps: u64) -> Vec<DynamicKind> {
        let Parsed { tree, text, .. } =
            parse_faithfully(language, code.to_owned()).expect("parses");
        let (ir, dialect): (ir::Ir, &'static dyn dialect::Dialect) = match language {
            Language::Python => (python::lower(tree.root_node(), &text).ir, &python::PYTHON),
            Language::JavaScript => (
                javascript::lower(tree.root_node(), &text).ir,
                &javascript::JAVASCRIPT,
            ),
        };
        let context = Carried::default();
        let out = collect::Collector::new(&text);
        let mut engine =
            engine::Engine::new(&ir, &text, dialect, out, &context, Role::Program, false);
        engine.set_budget(steps);
        engine.run();
        assert!(engine.steps_spent() <= steps);
        engine
            .into_collector()
            .into_facts()
            .into_iter()
            .filter_map(|f| match f.kind {
                FactKind::Dynamic { kind, .. } => Some(kind),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_spent_budget_stops_the_analysis_and_is_reported() {
        let needed = analyze(Language::JavaScript, RECURSIVE_SEARCH_JS.as_bytes()).steps();
        assert!(needed > 10);
        let cut = kinds_with_budget(Language::JavaScript, RECURSIVE_SEARCH_JS, needed / 2);
        assert!(cut.contains(&DynamicKind::AnalysisLimit), "{cut:?}");
        let whole = kinds_with_budget(Language::JavaScript, RECURSIVE_SEARCH_JS, needed);
        assert!(!whole.contains(&DynamicKind::AnalysisLimit), "{whole:?}");
        let python = "import os\nx = os\ny = x\ny.system('id')\n";
        let cut = kinds_with_budget(Language::Python, python, 2);
        assert!(cut.contains(&DynamicKind::AnalysisLimit), "{cut:?}");
    }

    #[test]
    fn code_in_constant_eval_strings_is_analyzed() {
        let facts = analyze(Language::Python, b"exec(\"import subprocess\")").facts;
        assert!(
            facts
                .iter()
                .any(|f| matches!(&f.kind, FactKind::Import { module } if module == "subprocess"))
        );
        let facts = analyze(Language::JavaScript, b"eval(\"require('child_process')\")").facts;
        assert!(
            facts.iter().any(
                |f| matches!(&f.kind, FactKind::Import { module } if module == "child_process")
            )
        );
    }
}
