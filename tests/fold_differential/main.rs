//! Differential test of constant folding: every string the analyzer folds must be the string the
//! interpreter computes, or unknown. Strict judges modules, members and paths by folded text,
//! so a fold that models only part of a function (an error handler, a wider whitespace set, a
//! wrap-around) is a way past it.
//!
//! Expressions are generated from a fixed seed out of every fold the analyzer has (literal
//! spellings and escapes, f-strings and templates, `+` and `%`, slices, joins, splits, strip,
//! case, replace, codecs, base64 and hex, `chr` and `fromCharCode`, URLs, path joins and
//! pathlib) over inputs that stress them (control characters, Unicode whitespace, case-special
//! and astral characters, malformed escapes, odd counts, splats and keywords). The analyzer's
//! value is the argument a call's [`FactKind::Use`] carries (`print(E)`, `console.log(E)`);
//! the cases it folds are run together in one container per language, each in a namespace of
//! its own, and every value that differs is a failure. A case the interpreter rejects (an
//! exception) computes nothing, so any fold of it opens, imports and reaches nothing.
//!
//! Values are compared as Python code points and JavaScript UTF-16 units. A Python `bytes`
//! value is compared as the text the operating system reads it as (`os.fsdecode`), a path as
//! `os.fspath`, a JavaScript `URL` as the path a `file:` URL names (`url.fileURLToPath`) or its
//! `href`; an integer as its decimal text (a call's arguments carry folded integers too).

mod cases;
#[path = "../common/mod.rs"]
mod common;

use cases::{Case, generate};
use code_sandbox_mcp::analysis::{DynamicKind, FactKind, Language, analyze};
use code_sandbox_mcp::policy::Limits;

const PYTHON_HEADER: &str = "import base64, binascii, codecs, os, os.path, pathlib\nfrom pathlib import Path, PurePath, PosixPath, PurePosixPath\n";
const JS_HEADER: &str = "const path = require('path');\nconst url = require('url');\n";

fn analyzed_code(language: Language, case: &Case) -> String {
    match language {
        Language::Python => format!("{PYTHON_HEADER}{}print({})\n", case.prelude, case.expr),
        Language::JavaScript => {
            format!("{JS_HEADER}{}console.log({});\n", case.prelude, case.expr)
        }
    }
}

/// The value the analyzer folds the case's expression to: the argument its call carries.
/// Code it cannot parse (a NUL byte, a repaired tree) is a parse error every policy acts on,
/// whatever it folded: unknown.
fn folded(language: Language, case: &Case) -> Option<String> {
    let sink = match language {
        Language::Python => "print",
        Language::JavaScript => "console.log",
    };
    let code = analyzed_code(language, case);
    let facts = analyze(language, code.as_bytes()).facts;
    let unreadable = facts.iter().any(|f| {
        matches!(
            f.kind,
            FactKind::Dynamic {
                kind: DynamicKind::ParseError | DynamicKind::MisreadSource,
                ..
            }
        )
    });
    if unreadable {
        return None;
    }
    facts
        .into_iter()
        .find_map(|f| match f.kind {
            FactKind::Use { name, args, .. } if name == sink => Some(args),
            _ => None,
        })
        .and_then(|args| args.into_iter().next())
}

/// A Python program that evaluates every case in a namespace of its own and prints, per case,
/// the value as code points (or the exception's or type's name), as JSON.
fn python_program(cases: &[&Case]) -> String {
    let sources: Vec<String> = cases
        .iter()
        .map(|c| format!("{PYTHON_HEADER}{}__value = ({}\n)\n", c.prelude, c.expr))
        .collect();
    let payload = base64_encode(&serde_json::to_vec(&sources).unwrap());
    format!(
        r#"
import base64, json, os, pathlib, warnings
warnings.simplefilter("ignore")
out = []
for source in json.loads(base64.b64decode("{payload}")):
    ns = {{}}
    try:
        exec(compile(source, "<case>", "exec"), ns)
        v = ns["__value"]
    except BaseException as e:
        out.append({{"error": type(e).__name__}})
        continue
    if isinstance(v, (bytes, bytearray)):
        v = os.fsdecode(bytes(v))
    elif isinstance(v, pathlib.PurePath):
        v = os.fspath(v)
    elif isinstance(v, int) and not isinstance(v, bool):
        v = str(v)
    if isinstance(v, str):
        out.append({{"value": [ord(c) for c in v]}})
    else:
        out.append({{"type": type(v).__name__}})
print(json.dumps(out))
"#
    )
}

fn js_program(cases: &[&Case]) -> String {
    let sources: Vec<String> = cases
        .iter()
        .map(|c| format!("{JS_HEADER}{}return ({}\n);", c.prelude, c.expr))
        .collect();
    let payload = base64_encode(&serde_json::to_vec(&sources).unwrap());
    format!(
        r#"
const out = [];
for (const source of JSON.parse(Buffer.from("{payload}", "base64").toString())) {{
  let v;
  try {{
    v = new Function("require", "__dirname", "__filename", source)(require, __dirname, __filename);
    if (v instanceof URL) v = v.protocol === "file:" ? require("url").fileURLToPath(v) : v.href;
  }} catch (e) {{
    out.push({{ error: String(e && e.name) }});
    continue;
  }}
  if (typeof v === "number" && Number.isInteger(v)) v = String(v);
  if (typeof v === "string") {{
    const units = [];
    for (let i = 0; i < v.length; i++) units.push(v.charCodeAt(i));
    out.push({{ value: units }});
  }} else {{
    out.push({{ type: typeof v }});
  }}
}}
console.log(JSON.stringify(out));
"#
    )
}

fn base64_encode(data: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(data)
}

/// The interpreter's value as code points (Python) or UTF-16 units (JavaScript) of `folded`.
fn units(language: Language, text: &str) -> Vec<u32> {
    match language {
        Language::Python => text.chars().map(u32::from).collect(),
        Language::JavaScript => text.encode_utf16().map(u32::from).collect(),
    }
}

async fn differences(language: Language) -> Vec<String> {
    let cases = generate(language);
    let mut kept: Vec<(&Case, String)> = Vec::new();
    for case in &cases {
        if let Some(value) = folded(language, case) {
            kept.push((case, value));
        }
    }
    let program = {
        let only: Vec<&Case> = kept.iter().map(|(c, _)| *c).collect();
        match language {
            Language::Python => python_program(&only),
            Language::JavaScript => js_program(&only),
        }
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
    assert_eq!(results.len(), kept.len());
    eprintln!(
        "{language}: {} cases generated, {} folded, {} raised in the interpreter",
        cases.len(),
        kept.len(),
        results.iter().filter(|r| r.get("error").is_some()).count()
    );
    let mut found = Vec::new();
    for ((case, value), result) in kept.iter().zip(&results) {
        if result.get("error").is_some() {
            continue;
        }
        let expected: Option<Vec<u32>> = result.get("value").map(|v| {
            v.as_array()
                .unwrap()
                .iter()
                .map(|u| u.as_u64().unwrap() as u32)
                .collect()
        });
        if expected.as_deref() != Some(&units(language, value)[..]) {
            let real = match &expected {
                Some(units) => format!("{:?}", decode_units(language, units)),
                None => format!("a {}", result["type"]),
            };
            found.push(format!(
                "{language}: {}{}\n    analyzer: {value:?}\n    interpreter: {real}",
                case.prelude, case.expr
            ));
        }
    }
    found
}

fn decode_units(language: Language, units: &[u32]) -> String {
    match language {
        Language::Python => units
            .iter()
            .map(|&u| char::from_u32(u).map_or_else(|| format!("\\u{{{u:x}}}"), String::from))
            .collect(),
        Language::JavaScript => {
            let units: Vec<u16> = units.iter().map(|&u| u as u16).collect();
            char::decode_utf16(units)
                .map(|c| {
                    c.map_or_else(
                        |e| format!("\\u{{{:x}}}", e.unpaired_surrogate()),
                        String::from,
                    )
                })
                .collect()
        }
    }
}

#[tokio::test]
async fn python_folds_compute_what_python_computes() {
    let found = differences(Language::Python).await;
    assert!(
        found.is_empty(),
        "{} divergences:\n{}",
        found.len(),
        found.join("\n")
    );
}

#[tokio::test]
async fn javascript_folds_compute_what_node_computes() {
    let found = differences(Language::JavaScript).await;
    assert!(
        found.is_empty(),
        "{} divergences:\n{}",
        found.len(),
        found.join("\n")
    );
}
