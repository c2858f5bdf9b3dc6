//! Differential test of parsing: every source the interpreter accepts must be either refused by
//! the analyzer (a parse error, which strict denies and standard warns of) or read as the same
//! calls. Every rule judges
//! tree-sitter's tree; where that tree and CPython's or Node's parser disagree (a tab after
//! spaces, a comment a lone carriage return ends, `<!--`, `await` as a name, an escaped
//! keyword), code the analyzer never saw runs, or code it judged does not.
//!
//! Sources are generated from a fixed seed out of the pieces where readers disagree: whitespace
//! and line ends of every kind, comment markers, string, f-string and template boundaries and
//! escapes, keywords and soft keywords in name positions, escaped and NFKC-normalised names,
//! indentation shapes, and JavaScript's ASI and regular-expression hazards. Each embeds
//! observable calls, `probe(N)` with an id `N` of its own (and other names spelled the same
//! risky ways: `ｅｖａｌ(N)`, `ev\u0061l(N)`, `await(N)`).
//!
//! The interpreter's reading comes from the project's images, all cases of a language in one
//! container: Python compiles each source as the runner does and walks `ast` for calls; Node
//! decides CommonJS or ES module as the runner does, walks the tree of the `acorn` the image
//! ships, and runs CommonJS sources with the callees recording (a call V8 runs that acorn did
//! not see still counts). The analyzer's reading is its [`FactKind::Use`] facts. For each
//! call id both must agree on the name, on a string second argument's text (when the analyzer
//! folds it) and on the functions and classes around the call; no call may be seen by one side
//! only. `PARSE_DIFF_SEED` explores other seeds, `PARSE_DIFF_CASES` sets the number of cases.

#[path = "../common/mod.rs"]
mod common;
mod javascript;
mod python;

use std::collections::BTreeMap;

use code_sandbox_mcp::analysis::{DynamicKind, FactKind, Language, analyze};
use code_sandbox_mcp::policy::Limits;
use common::rng::Rng;
use tree_sitter::Node;

/// Call ids: the first argument of each observable call, counted from here in each source,
/// far from any other number the generators write.
pub const FIRST_ID: u64 = 1000;
pub const LAST_ID: u64 = 2000;

const CASES_PER_LANGUAGE: usize = 20000;
const SEED: u64 = 0x5eed_9a45;

/// Hands out the call ids of one source.
pub struct Ids(u64);

impl Default for Ids {
    fn default() -> Ids {
        Ids(FIRST_ID)
    }
}

impl Ids {
    pub fn fresh(&mut self) -> u64 {
        self.0 += 1;
        self.0 - 1
    }
}

/// What a template's markers become, per language: `§` a fresh call id, `¤` a callee's name
/// (mostly `probe`, else one of `names`), `·` a space (or, one time in five, one of `spaces`),
/// `«` one of `strings`, `⏎` the line end and indentation the caller passes.
pub struct Pools {
    pub names: &'static [&'static str],
    pub spaces: &'static [&'static str],
    pub strings: &'static [&'static str],
}

impl Pools {
    pub fn expand(&self, rng: &mut Rng, ids: &mut Ids, template: &str, newline: &str) -> String {
        let mut out = String::new();
        for c in template.chars() {
            match c {
                '§' => out.push_str(&ids.fresh().to_string()),
                '¤' if rng.chance(60) => out.push_str("probe"),
                '¤' => out.push_str(rng.word(self.names)),
                '·' if rng.chance(80) => out.push(' '),
                '·' => out.push_str(rng.word(self.spaces)),
                '«' => out.push_str(rng.word(self.strings)),
                '⏎' => out.push_str(newline),
                c => out.push(c),
            }
        }
        out
    }
}

/// One observable call as a reader reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Call {
    name: String,
    /// The second argument when it is a string (as code points or UTF-16 units); for the
    /// analyzer, only when it folds it.
    text: Option<Vec<u32>>,
    /// The functions and classes around the call, outermost first; `None` when only known
    /// from running it.
    scopes: Option<Vec<String>>,
}

enum Reading {
    /// The analyzer reports a parse error (or a coding cookie, or a bound reached): strict
    /// denies the source, standard warns.
    Refused,
    Calls(BTreeMap<u64, Vec<Call>>),
}

pub fn base64_encode(data: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(data)
}

fn grammar(language: Language) -> tree_sitter::Language {
    match language {
        Language::Python => tree_sitter_python::LANGUAGE.into(),
        Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
    }
}

fn units(language: Language, text: &str) -> Vec<u32> {
    match language {
        Language::Python => text.chars().map(u32::from).collect(),
        Language::JavaScript => text.encode_utf16().map(u32::from).collect(),
    }
}

/// The calls the analyzer sees, or its refusal.
fn analyzer_reading(language: Language, source: &str) -> Reading {
    let analysis = analyze(language, source.as_bytes());
    let refused = analysis.facts.iter().any(|f| {
        matches!(
            f.kind,
            FactKind::Dynamic {
                kind: DynamicKind::ParseError
                    | DynamicKind::MisreadSource
                    | DynamicKind::CodingCookie
                    | DynamicKind::AnalysisLimit,
                ..
            }
        )
    });
    if refused {
        return Reading::Refused;
    }
    let text = analysis.source();
    let tree = analysis.tree().expect("a tree when nothing is refused");
    let mut calls: BTreeMap<u64, Vec<Call>> = BTreeMap::new();
    for fact in &analysis.facts {
        let FactKind::Use {
            name,
            called: true,
            args,
            ..
        } = &fact.kind
        else {
            continue;
        };
        let Some(id) = args
            .first()
            .and_then(|a| a.parse::<u64>().ok())
            .filter(|id| (FIRST_ID..LAST_ID).contains(id))
        else {
            continue;
        };
        let node = tree
            .root_node()
            .descendant_for_byte_range(fact.span.start_byte, fact.span.end_byte)
            .unwrap();
        // Code the analyzer reads out of a string (a doctest, `exec` of a constant) is judged
        // on purpose; the interpreter's tree has no call there.
        if within_string(node) {
            continue;
        }
        // `args` leaves out arguments that do not fold: the id must be the first one
        if !first_argument_holds(node, text, id) {
            continue;
        }
        calls.entry(id).or_default().push(Call {
            name: name.clone(),
            text: args.get(1).map(|t| units(language, t)),
            scopes: Some(scopes(language, node, text)),
        });
    }
    Reading::Calls(calls)
}

/// tree-sitter's tree of `source`, for reading a difference (`PARSE_DIFF_TREES`).
fn tree_of(language: Language, source: &str) -> String {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&grammar(language)).unwrap();
    parser.parse(source, None).unwrap().root_node().to_sexp()
}

/// Whether the first argument of the call at `node` spells `id` (`1000`, `"1000"`,
/// `await(1000)`, a template `` `1000` ``).
fn first_argument_holds(node: Node, text: &str, id: u64) -> bool {
    let mut current = Some(node);
    while let Some(n) = current {
        if matches!(n.kind(), "call" | "call_expression" | "new_expression") {
            let Some(arguments) = n.child_by_field_name("arguments") else {
                return true;
            };
            let mut cursor = arguments.walk();
            let first = arguments
                .named_children(&mut cursor)
                .find(|a| !matches!(a.kind(), "comment" | "line_continuation"));
            // a tagged template's argument is the template itself
            let first = if arguments.kind() == "template_string" {
                Some(arguments)
            } else {
                first
            };
            // a backslash may continue a string or template across lines: `100\<newline>0`
            let joined = |t: &str| {
                ["\\\r\n", "\\\n", "\\\r", "\\\u{2028}", "\\\u{2029}"]
                    .iter()
                    .fold(t.to_owned(), |t, continuation| t.replace(continuation, ""))
            };
            return first.is_some_and(|a| {
                a.utf8_text(text.as_bytes())
                    .is_ok_and(|t| joined(t).contains(&id.to_string()))
            });
        }
        current = n.parent();
    }
    true
}

fn within_string(node: Node) -> bool {
    let mut current = Some(node);
    while let Some(n) = current {
        match n.kind() {
            // an f-string's or template's substitution is code
            "interpolation" | "template_substitution" => return false,
            "string" => return true,
            _ => {}
        }
        current = n.parent();
    }
    false
}

/// The functions and classes around `node`, as the interpreter side labels them.
fn scopes(language: Language, node: Node, text: &str) -> Vec<String> {
    let mut labels = Vec::new();
    let mut child = node;
    while let Some(parent) = child.parent() {
        let name_of = |n: Node| {
            n.child_by_field_name("name")
                .and_then(|name| name.utf8_text(text.as_bytes()).ok())
                .unwrap_or_default()
                .to_owned()
        };
        // a method's or class's name is outside it, as a Python decorator is outside its
        // function
        let from_name = parent
            .child_by_field_name("name")
            .is_some_and(|n| n.id() == child.id());
        let label = match (language, parent.kind()) {
            (_, _) if from_name => None,
            (Language::Python, "function_definition") => Some(format!("def {}", name_of(parent))),
            (Language::Python, "class_definition") => Some(format!("class {}", name_of(parent))),
            (Language::Python, "lambda") => Some("lambda".to_owned()),
            (
                Language::Python,
                "list_comprehension"
                | "set_comprehension"
                | "dictionary_comprehension"
                | "generator_expression",
            ) => Some("comprehension".to_owned()),
            (
                Language::JavaScript,
                "function_declaration"
                | "function_expression"
                | "function"
                | "arrow_function"
                | "method_definition"
                | "generator_function"
                | "generator_function_declaration",
            ) => Some("function".to_owned()),
            (Language::JavaScript, "class_declaration" | "class") => Some("class".to_owned()),
            (Language::JavaScript, "class_static_block") => Some("static".to_owned()),
            (Language::JavaScript, "field_definition") => Some("field".to_owned()),
            _ => None,
        };
        labels.extend(label);
        child = parent;
    }
    labels.reverse();
    labels
}

/// The calls the interpreter reads in one source (from the program's JSON), or `None` when it
/// rejects the source.
fn interpreter_reading(result: &serde_json::Value) -> Option<BTreeMap<u64, Vec<Call>>> {
    let calls = result.get("calls")?.as_array().unwrap();
    let mut read: BTreeMap<u64, Vec<Call>> = BTreeMap::new();
    for call in calls {
        let call = call.as_array().unwrap();
        let units = |v: &serde_json::Value| -> Vec<u32> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|u| u.as_u64().unwrap() as u32)
                .collect()
        };
        let strings = |v: &serde_json::Value| -> Vec<String> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().to_owned())
                .collect()
        };
        read.entry(call[0].as_u64().unwrap())
            .or_default()
            .push(Call {
                name: call[1].as_str().unwrap().to_owned(),
                text: (!call[2].is_null()).then(|| units(&call[2])),
                scopes: (!call[3].is_null()).then(|| strings(&call[3])),
            });
    }
    Some(read)
}

/// How the two readings of one source differ, one line per difference, each starting with its
/// kind.
fn compare(
    language: Language,
    seen: &BTreeMap<u64, Vec<Call>>,
    run: &BTreeMap<u64, Vec<Call>>,
) -> Vec<String> {
    let mut found = Vec::new();
    for (id, calls) in run {
        let Some(analyzer) = seen.get(id) else {
            found.push(format!("missed: call {id} `{}`", calls[0].name));
            continue;
        };
        for call in calls {
            if !analyzer
                .iter()
                .any(|a| a.name == canonical(language, &call.name))
            {
                found.push(format!(
                    "name: call {id} is `{}` to the interpreter, {:?} to the analyzer",
                    call.name,
                    analyzer.iter().map(|a| &a.name).collect::<Vec<_>>()
                ));
            }
            if let Some(text) = &call.text
                && let Some(other) = analyzer.iter().find_map(|a| a.text.as_ref())
                && other != text
            {
                found.push(format!(
                    "text: call {id}'s string is {text:?} to the interpreter, {other:?} to the analyzer"
                ));
            }
            if let Some(scopes) = &call.scopes
                && !analyzer.iter().any(|a| a.scopes.as_ref() == Some(scopes))
            {
                found.push(format!(
                    "scope: call {id} is inside {scopes:?} to the interpreter, {:?} to the analyzer",
                    analyzer[0].scopes.as_ref().unwrap()
                ));
            }
        }
    }
    for (id, calls) in seen {
        if !run.contains_key(id) {
            found.push(format!(
                "phantom: call {id} `{}` the interpreter does not read",
                calls[0].name
            ));
        }
    }
    found
}

/// Pieces a mutation drops anywhere into a generated source: the combinations no template
/// spells out (most make a source the interpreter rejects, which is skipped).
const SHARDS: &[&str] = &[
    "\u{2028}", "<!--", "-->", "/*", "*/", "//", "`", "${", "}", "{", "'", "\"", "\\", "\r",
    "\x0c", "\t", "#", "\\\n", "=>", ";", "\n", "(", ")", "/", ":", "*", "@", "f'", "\\N",
];

/// The source with one to three shards dropped in at random places.
fn mutated(rng: &mut Rng, mut source: String) -> String {
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(source.len() + 1);
        if source.is_char_boundary(at) {
            source.insert_str(at, rng.word(SHARDS));
        }
    }
    source
}

/// A name as the analyzer spells every name of the same meaning: Python's platform modules
/// are `os` (`nt.system` is `os.system`).
fn canonical(language: Language, name: &str) -> String {
    if language == Language::Python {
        for (alias, meaning) in [("posixpath", "os.path"), ("posix", "os"), ("nt", "os")] {
            if name == alias || name.starts_with(&format!("{alias}.")) {
                return format!("{meaning}{}", &name[alias.len()..]);
            }
        }
    }
    name.to_owned()
}

fn generate(language: Language) -> Vec<String> {
    let seed = std::env::var("PARSE_DIFF_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(SEED);
    let count = std::env::var("PARSE_DIFF_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(CASES_PER_LANGUAGE);
    let mut rng = Rng::new(seed ^ language as u64);
    (0..count)
        .map(|_| {
            let source = match language {
                Language::Python => python::source(&mut rng),
                Language::JavaScript => javascript::source(&mut rng),
            };
            if rng.chance(25) {
                mutated(&mut rng, source)
            } else {
                source
            }
        })
        .collect()
}

async fn differences(language: Language) -> Vec<String> {
    let sources = generate(language);
    let program = match language {
        Language::Python => python::program(&sources),
        Language::JavaScript => javascript::program(&sources),
    };
    let limits = Limits {
        output_bytes: 16 << 20,
        timeout: std::time::Duration::from_secs(60),
        ..common::tight_limits()
    };
    let run = common::run_with(&limits, language, &program).await;
    assert_eq!(
        run.exit_code,
        Some(0),
        "the {language} program ran: {}",
        run.stderr
    );
    let results: Vec<serde_json::Value> = serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|e| panic!("{language} printed JSON ({e}): {}", run.stderr));
    assert_eq!(results.len(), sources.len());
    let (mut accepted, mut refused, mut calls) = (0, 0, 0);
    let mut by_kind: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (source, result) in sources.iter().zip(&results) {
        let Some(run) = interpreter_reading(result) else {
            continue;
        };
        accepted += 1;
        calls += run.len();
        let mut seen = match analyzer_reading(language, source) {
            Reading::Refused => {
                refused += 1;
                continue;
            }
            Reading::Calls(seen) => seen,
        };
        // calls of names the source binds are calls of its own values, not of names
        for id in result["bound"].as_array().unwrap() {
            seen.remove(&id.as_u64().unwrap());
        }
        for difference in compare(language, &seen, &run) {
            let kind = difference.split(':').next().unwrap().to_owned();
            let mut shown = format!("{difference}\n    in {source:?}");
            if std::env::var_os("PARSE_DIFF_TREES").is_some() {
                shown.push_str(&format!("\n    tree-sitter: {}", tree_of(language, source)));
                let facts = analyze(language, source.as_bytes()).facts;
                shown.push_str(&format!("\n    facts: {facts:?}"));
            }
            by_kind.entry(kind).or_default().push(shown);
        }
    }
    eprintln!(
        "{language}: {} sources generated, {accepted} accepted by the interpreter ({calls} calls), \
         {refused} of those refused by the analyzer",
        sources.len()
    );
    let show = std::env::var("PARSE_DIFF_SHOW")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let mut found = Vec::new();
    for (kind, all) in &by_kind {
        eprintln!("{language}: {} `{kind}` differences", all.len());
        found.extend(all.iter().take(show).cloned());
    }
    found
}

#[tokio::test]
async fn python_calls_read_as_cpython_reads_them() {
    let found = differences(Language::Python).await;
    assert!(found.is_empty(), "divergences:\n{}", found.join("\n"));
}

#[tokio::test]
async fn javascript_calls_read_as_node_reads_them() {
    let found = differences(Language::JavaScript).await;
    assert!(found.is_empty(), "divergences:\n{}", found.join("\n"));
}
