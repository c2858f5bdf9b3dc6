//! JavaScript sources from the pieces where tree-sitter and Node may read differently, and the
//! program that reads them as the runner does in the project's image (CommonJS, or an ES
//! module when only that compiles), with the image's `acorn` and by running them.

use crate::common::rng::Rng;
use crate::{FIRST_ID, Ids, Pools};

const POOLS: Pools = Pools {
    // Names as Node reads them after decoding escapes, and the words that are names in a
    // script but keywords elsewhere.
    names: &[
        "pr\\u006fbe",
        "\\u{70}robe",
        "pr\\u{00006F}be",
        "eval",
        "ev\\u0061l",
        "\\u0065val",
        "await",
        "aw\\u0061it",
        "yield",
        "yi\\u0065ld",
        "let",
        "l\\u0065t",
        "async",
        "of",
        "static",
        "get",
        "set",
        "probe\u{200c}",
        "\u{2118}robe",
        "\u{1d4ab}robe",
        "\\u{1d4ab}robe",
        "pro\\u200dbe",
        "\u{2160}",
    ],
    spaces: &[
        "\t", "\x0b", "\x0c", "\u{a0}", "\u{feff}", "\u{1680}", "\u{2000}", "\u{2009}", "\u{202f}",
        "\u{205f}", "\u{3000}", "\u{180e}", "\u{200b}", "/**/", "/*\n*/", "\n", "\r", "\u{2028}",
        "\u{2029}", "",
    ],
    strings: &[
        "'a'",
        "'probe(1)'",
        "\"\\\"\"",
        "'\\''",
        "'a\\\nb'",
        "'a\\\r\nb'",
        "'a\\\u{2028}b'",
        "'\u{2028}'",
        "'\u{2029}'",
        "'\\u{41}\\x42\\103'",
        "'\\0'",
        "`a${'b'}`",
        "`\\${x}`",
        "`a\r\nb`",
        "`a\rb`",
        "`\\u{41}`",
        "String.raw`\\u`",
        "'<!--'",
        "'-->'",
        "'//'",
        "'/*'",
        "`${'`'}`",
    ],
};

/// Statements and expressions, joined by separators.
const ITEMS: &[&str] = &[
    "¤(§)",
    "¤·(·§·)",
    "¤(§, «)",
    "x·=·¤(§)",
    "x = «; ¤(§)",
    "// ¤(§)",
    "// c\r¤(§)",
    "// c\u{2028}¤(§)",
    "// c\u{2029}¤(§)",
    "// c\u{85}¤(§)",
    "/* ¤(§) */ ¤(§)",
    "/*⏎ ¤(§) */ --> ¤(§)",
    "/*⏎*/ --> ¤(§)",
    "/**/ --> ¤(§)",
    "/*\u{2028}*/ --> ¤(§)",
    "--> ¤(§)",
    "⏎--> ¤(§)",
    " \t--> ¤(§)⏎¤(§)",
    "x = 1 <!-- ¤(§)",
    "<!-- ¤(§)",
    "a = b --> ¤(§)",
    "x --> ¤(§)",
    "x = a <!--b; ¤(§)",
    "x = 1⏎/¤(§)/g",
    "x = a⏎/¤(§)/i.test(s)",
    "{}⏎/¤(§)/",
    "({})⏎/¤(§)/g",
    "x = y /¤(§)/ z",
    "x = /[/]¤(§)/; ¤(§)",
    "x = /[/]/; ¤(§)",
    "x = /\\/¤(§)/",
    "x = /<!--/; ¤(§)",
    "if (a) /¤(§)/.test(b)",
    "x = a++ /¤(§)/ 2",
    "x = typeof /¤(§)/",
    "x = (a) /¤(§)/ b",
    "function f(){}/¤(§)/g",
    "x = function(){}/¤(§)/g",
    "x = a⏎++/¤(§)/b",
    "x = ¤⏎(§)",
    "¤(§)⏎(¤(§))",
    "let x = 1⏎[¤(§)]",
    "a = b⏎`${¤(§)}`",
    "function r(){ return⏎¤(§) }",
    "x = ¤⏎`§`",
    "await(¤(§))",
    "await ¤(§)",
    "¤(await(§))",
    "async function a(){ await ¤(§) }",
    "function n(){ await(¤(§)) }",
    "function n(){ aw\\u0061it(¤(§)) }",
    "function* g(){ yield ¤(§) }",
    "function* g(){ yield⏎(¤(§)) }",
    "function n(){ yield(¤(§)) }",
    "async⏎function a(){ await(¤(§)) }",
    "x = async⏎function(){ await(¤(§)) }",
    "x = async (y) => await ¤(§)",
    "x = async⏎(y) => ¤(§)",
    "x = async⏎(¤(§))",
    "var yield = 1; ¤(§)",
    "let⏎x = ¤(§)",
    "let⏎[a] = [¤(§)]",
    "var let = ¤(§)",
    "x = let⏎[0]; ¤(§)",
    "for (x of ¤(§));",
    "for (let of of ¤(§));",
    "for (async of ¤(§));",
    "for (let in ¤(§));",
    "v\\u0061r x = ¤(§)",
    "\\u0069f (¤(§)) ¤(§)",
    "x = { \\u0069f: ¤(§) }",
    "x = { await: ¤(§), yield: ¤(§) }",
    "'\\u2028'; ¤(§)",
    "\"\\\n¤(§)\"",
    "'\u{2028}¤(§)'",
    "`${¤(§)}`",
    "`${`${¤(§)}`}`",
    "`\\${¤(§)}`",
    "`$${¤(§)}`",
    "`${'}'}${¤(§)}`",
    "`${ {a:¤(§)}.a }`",
    "`${'`'}${¤(§)}`",
    "`<!-- ${¤(§)}`",
    "`${ /* } */ ¤(§)}`",
    "`${ // }⏎¤(§)}`",
    "'\\'; ¤(§)'",
    "x = '<!--'; ¤(§)",
    "function f(){ ¤(§) }",
    "class K { static { ¤(§) } m(){ ¤(§) } x = ¤(§) }",
    "class K { [¤(§)]() { ¤(§) } static x = ¤(§) }",
    "class K { static⏎m(){ ¤(§) } }",
    "class K { get⏎m(){ ¤(§) } }",
    "class K { async⏎m(){ ¤(§) } }",
    "class K { 'constructor'(){ ¤(§) } }",
    "({ m(){ ¤(§) } })",
    "({ async *m(){ ¤(§) } })",
    "label: ¤(§)",
    "if (¤(§)) ¤(§); else ¤(§)",
    "{ ¤(§) }",
    "x = () => ¤(§)",
    "x = () =>⏎¤(§)",
    "x = a ? ¤(§) : ¤(§)",
    "x = a?.5:¤(§)",
    "x = 1..toString(¤(§))",
    "x = 0.1.toFixed⏎(¤(§))",
    "x = a --¤(§)",
    "x = 1 /* */ / ¤(§)",
    "x = `${¤(§)}` /¤(§)/ 2",
    "import x from 'y'",
    "export const v = ¤(§)",
    "import.meta; ¤(§)",
    "new ¤(§)",
    "#x; ¤(§)",
    "x = #!¤(§)",
    "x = 1 // ¤(§) \\⏎¤(§)",
    "x = '\\u{2028}'⏎¤(§)",
    // a name before `/` divides; a keyword before it starts a regular expression
    "await /¤(§)/g",
    "yield /¤(§)/g",
    "x = let /¤(§)/g",
    "x = of /¤(§)/g",
    "function r(){ return /¤(§)/g }",
    "function* g(){ yield /¤(§)/g }",
    "switch (1) { case /¤(§)/: ¤(§) }",
    "x = void /¤(§)/g",
    "x = a⏎/*/¤(§)/ */ / 2",
    "x = a /*⏎*/ /¤(§)/g",
    "x = {}/¤(§)/g",
    "x = [] /¤(§)/g",
    "x = `` /¤(§)/g",
    "x = a.if /¤(§)/g",
    "x = a.yield⏎/¤(§)/g",
    // labels, and keywords as property names
    "yield: ¤(§)",
    "await: ¤(§)",
    "let: ¤(§)",
    "async: ¤(§)",
    "x = { get: ¤(§), set: ¤(§), async: ¤(§), static: ¤(§) }",
    "x = a.await(¤(§))",
    "class K { static async *[¤(§)]() { ¤(§) } }",
    "class K { #p = ¤(§); m(){ #p in this } }",
    "class K { static⏎async⏎m(){ ¤(§) } }",
    "x = new.target",
    "for await (x of ¤(§));",
    "x = (a)⏎=> ¤(§)",
    "x = 1_000 + ¤(§)",
    "x = 0.toString(¤(§))",
    "x = 1.toString(¤(§))",
    "x = 08.5 + ¤(§)",
    "x = 0b1n + ¤(§)",
    "'use\\x20strict'; var let = 1; ¤(§)",
    "x = a⏎?.5:¤(§)",
    // member calls, reported as `a.name`
    "x = a.¤(§)",
    "x = a?.¤(§)",
    "x = a⏎.¤(§)",
    "x = a /* */ .¤(§)",
    "x = a.¤⏎(§)",
    "x = a.¤`§`",
    "x = a?.¤`§`",
    // JSX-looking comparisons, escaped modifiers, comments that look like regexes
    "x = a <b> ¤(§)",
    "x = y<z>(¤(§))",
    "x = a </¤(§)/ b",
    "\\u0061sync function f(){ await(¤(§)) }",
    "class K { st\\u0061tic m(){ ¤(§) } }",
    "x = { \\u0061sync m(){ ¤(§) } }",
    "x = { g\\u0065t m(){ ¤(§) } }",
    "x = 1 /*/ ¤(§) /*/ + 2",
    "x = 1 //*/ ¤(§)⏎+ 2",
    "x = /[\\]/]/; ¤(§)",
    "x = /a/v; ¤(§)",
    "x = (async) => ¤(§)",
    "async function* q(){ for await (x of y) ¤(§) }",
    "x = a⏎(¤(§))⏎[¤(§)]",
    "function* g(){ yield⏎/¤(§)/g }",
    "x = `a${¤(§)}b${`c${¤(§)}`}`",
    // a block or an object after `=>` and at a statement's start
    "x = () => {a: ¤(§)}",
    "x = () => ({a: ¤(§)})",
    "({a: ¤(§)})",
    "{a: ¤(§)}",
    "x = () => {}⏎/¤(§)/g",
    "x = () => {}⏎(¤(§))",
    "x = function(){}⏎(¤(§))",
    "function f(){}⏎(¤(§))",
    "{a: 1}⏎`${¤(§)}`",
    "{a: 1}⏎(¤(§))",
    "{}⏎(¤(§))",
    "function f(){}⏎`${¤(§)}`",
    "class C {}⏎(¤(§))",
    "x = class {}⏎(¤(§))",
    "x = async () => {a: 1}⏎`${¤(§)}`",
    "x = (p) => {a: p}⏎[¤(§)]",
    // comment markers inside regular expressions, slashes after every kind of token
    "x = /[/*]/; ¤(§) //*/",
    "x = /[*/]/; ¤(§)",
    "x = /\\/*/; ¤(§) //*/",
    "x = a //*/ ¤(§)",
    "x = 'a' /¤(§)/g",
    "x = 1 /¤(§)/g",
    "x = this /¤(§)/g",
    "x = null /¤(§)/g",
    "x = a instanceof /¤(§)/g",
    "if (a) ; else /¤(§)/g",
    "do /¤(§)/g; while (0)",
    "x = a.b(c) /¤(§)/g",
    "x = a[0] /¤(§)/g",
    "x = a⏎++b⏎¤(§)",
    // every place a call can stand, for the analyzer's lowering to reach
    "function f(a = ¤(§)) {}",
    "const {a = ¤(§)} = {}",
    "const [b = ¤(§)] = []",
    "const {[¤(§)]: c} = {}",
    "x = [...¤(§)]",
    "x = {...¤(§)}",
    "x = a?.(¤(§))",
    "x = (¤(§), ¤(§))",
    "void ¤(§); delete ¤(§); typeof ¤(§)",
    "for (const k in ¤(§)) ¤(§)",
    "switch (¤(§)) { case ¤(§): ¤(§); default: ¤(§) }",
    "try { ¤(§) } catch ({[¤(§)]: e}) { ¤(§) } finally { ¤(§) }",
    "class K extends ¤(§) {}",
    "x ??= ¤(§); x ||= ¤(§); x &&= ¤(§)",
    "x = { get [¤(§)]() { return ¤(§) } }",
    "function* g(){ yield* ¤(§) }",
    "class K { #m(){ ¤(§) } static #p = ¤(§) }",
    "x = a ? b : c ? ¤(§) : d",
    "x = `${a}${¤(§)}`",
    "label: { ¤(§); break label; }",
    "while (0) ¤(§)",
    "do { ¤(§) } while (¤(§))",
    "for (let i = ¤(§); i < ¤(§); i++) ¤(§)",
    "x = new (¤(§))()",
    "x = a[¤(§)][¤(§)]",
    "x = ¤(§)?.a.b",
    "x = -¤(§) ** 2",
    "x = (-¤(§)) ** 2",
    "if (a) ¤(§); else if (b) ¤(§)",
    "x = new a.b(¤(§))",
    "x = a.b`${¤(§)}`",
    "class K extends B { m(){ super.m(¤(§)) } constructor(){ super(¤(§)) } }",
    "x = (0, ¤)(§)",
    "x = a?.[¤(§)]",
    "x = a => b => ¤(§)",
    "x = [...a.¤(§)]",
    "f(...¤(§), ...a.¤(§))",
    "x = {...a.¤(§), [¤(§)]: ¤(§)}",
    "x = a.b[c](¤(§))",
    "x = (¤(§))(¤(§))",
    "x = [¤(§)][0](¤(§))",
    "x = ¤(§)(§)",
    "x = ¤(§)`§`",
    "x = !¤(§) + ~¤(§) - -¤(§)",
    "x = a, ¤(§)",
    "x = a in ¤(§)",
    "x = ¤(§) ?? ¤(§)",
    "export default ¤(§)",
    "export function e(){ ¤(§) }",
    "export { a as default }; ¤(§)",
];

const SEPARATORS: &[&str] = &[
    ";", " ", "\r\n", "\r", "\u{2028}", "\u{2029}", "\n\n", ";\n", "\n", "\n", "\n",
];

const STARTS: &[&str] = &[
    "#!/usr/bin/env node\n",
    "#!probe(1)\u{2028}",
    "#! probe(1)\r",
    "\u{feff}",
    "\u{feff}#!probe(1)\n",
    "\u{feff}#!/usr/bin/env node\u{2028}",
    "'use strict';\n",
    "\"use strict\"\n",
    "<!-- \n",
    "-->\n",
    "  --> \n",
];

pub fn source(rng: &mut Rng) -> String {
    let mut ids = Ids::default();
    let mut out = String::new();
    if rng.chance(8) {
        out.push_str(rng.word(STARTS));
    }
    let items = 1 + rng.below(4);
    for item in 0..items {
        let separator = rng.word(SEPARATORS);
        let newline = if rng.chance(75) {
            "\n"
        } else {
            rng.word(&["\r\n", "\r", "\u{2028}", "\u{2029}", "\n\n", " \n"])
        };
        let template = rng.word(ITEMS);
        out.push_str(&POOLS.expand(rng, &mut ids, template, newline));
        if item + 1 < items {
            out.push_str(separator);
        }
    }
    if rng.chance(30) {
        out.push('\n');
    }
    out
}

/// A program that decides, as the runner does, whether each source is CommonJS (it compiles
/// as a function body with the loader's parameters) or an ES module (it fails with one of the
/// errors that mean "module syntax"), reads its calls from acorn's tree for that goal, and
/// runs the CommonJS ones with the callees recording: a call V8 runs that acorn did not see is
/// added, without scopes.
pub fn program(sources: &[String]) -> String {
    let payload = crate::base64_encode(&serde_json::to_vec(sources).unwrap());
    let names: Vec<String> = std::iter::once("probe".to_owned())
        .chain(
            [
                "eval", "await", "yield", "let", "async", "of", "static", "get", "set",
            ]
            .iter()
            .map(|s| s.to_string()),
        )
        .collect();
    let names = serde_json::to_string(&names).unwrap();
    format!(
        r#"
const acorn = require('acorn');
const vm = require('vm');
process.on('unhandledRejection', () => {{}});
const FIRST = {FIRST_ID}, LAST = {last};
const NAMES = {names};
const PARAMS = ['exports', 'require', 'module', '__filename', '__dirname'];
const ESM_ERRORS = [
  'Cannot use import statement outside a module',
  "Unexpected token 'export'",
  "Cannot use 'import.meta' outside a module",
  'await is only valid in async functions and the top level bodies of modules',
  "Identifier 'module' has already been declared",
  "Identifier 'exports' has already been declared",
  "Identifier 'require' has already been declared",
  "Identifier '__filename' has already been declared",
  "Identifier '__dirname' has already been declared",
];
const units = (s) => {{ const u = []; for (let i = 0; i < s.length; i++) u.push(s.charCodeAt(i)); return u; }};
function text(node) {{
  if (!node) return null;
  if (node.type === 'Literal' && typeof node.value === 'string') return units(node.value);
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0 && node.quasis[0].value.cooked != null)
    return units(node.quasis[0].value.cooked);
  return null;
}}
function label(node) {{
  switch (node.type) {{
    case 'FunctionDeclaration': case 'FunctionExpression': case 'ArrowFunctionExpression': return 'function';
    case 'ClassDeclaration': case 'ClassExpression': return 'class';
    case 'StaticBlock': return 'static';
    case 'PropertyDefinition': return 'field';
  }}
  return null;
}}
// an id (a number, or its digits as a string: the analyzer's arguments are text), or an id
// awaited (an ES module's `probe(await(1))` passes the id)
const digits = (v) => typeof v === 'number' || (typeof v === 'string' && /^[0-9]+$/.test(v));
const idOf = (n) => (!n ? NaN : n.type === 'AwaitExpression' ? idOf(n.argument)
  : n.type === 'Literal' && digits(n.value) ? Number(n.value)
  : n.type === 'TemplateLiteral' && n.expressions.length === 0 && digits(n.quasis[0].value.cooked)
    ? Number(n.quasis[0].value.cooked) : NaN);
const isId = (n) => idOf(n) >= FIRST && idOf(n) < LAST;
// `name`, or `name.member` (optional or not): the names the analyzer reports calls by
function calleeName(callee) {{
  if (callee.type === 'ChainExpression') return calleeName(callee.expression);
  // `(0, f)(x)` calls `f`
  if (callee.type === 'SequenceExpression') return calleeName(callee.expressions[callee.expressions.length - 1]);
  if (callee.type === 'Identifier') return callee.name;
  if (callee.type === 'MemberExpression' && !callee.computed && callee.object.type === 'Identifier'
      && callee.property.type === 'Identifier') return callee.object.name + '.' + callee.property.name;
  return null;
}}
const bound = new Set();
function bindings(target) {{
  if (!target) return;
  switch (target.type) {{
    case 'Identifier': bound.add(target.name); break;
    case 'ObjectPattern': for (const p of target.properties) bindings(p.type === 'RestElement' ? p.argument : p.value); break;
    case 'ArrayPattern': for (const e of target.elements) bindings(e); break;
    case 'AssignmentPattern': bindings(target.left); break;
    case 'RestElement': bindings(target.argument); break;
  }}
}}
function visit(node, scopes, out) {{
  if ((node.type === 'CallExpression' || node.type === 'NewExpression') && calleeName(node.callee) && isId(node.arguments[0]))
    out.push([idOf(node.arguments[0]), calleeName(node.callee), text(node.arguments[1]), scopes]);
  // a tag called with a template whose text is an id: the analyzer reads that text as the argument
  if (node.type === 'TaggedTemplateExpression' && calleeName(node.tag)) {{
    const q = node.quasi;
    let folded = q.quasis[0].value.cooked;
    q.expressions.forEach((e, i) => {{ folded += isId(e) ? String(idOf(e)) : '?'; folded += q.quasis[i + 1].value.cooked; }});
    const id = /^[0-9]+$/.test(folded) ? Number(folded) : NaN;
    if (id >= FIRST && id < LAST) out.push([id, calleeName(node.tag), null, scopes]);
  }}
  // names the source binds: a call of one calls the snippet's own value, not a name
  for (const target of [node.type === 'VariableDeclarator' && node.id, node.type === 'AssignmentExpression' && node.left,
      node.type === 'UpdateExpression' && node.argument,
      (node.type === 'FunctionDeclaration' || node.type === 'ClassDeclaration' || node.type === 'FunctionExpression' || node.type === 'ClassExpression') && node.id,
      node.type === 'CatchClause' && node.param,
      (node.type === 'ForInStatement' || node.type === 'ForOfStatement') && node.left, ...(node.params || [])]) bindings(target);
  const l = label(node);
  const inner = l ? scopes.concat([l]) : scopes;
  for (const key of Object.keys(node)) {{
    const v = node[key];
    if (Array.isArray(v)) {{ for (const c of v) if (c && typeof c.type === 'string') visit(c, inner, out); }}
    else if (v && typeof v === 'object' && typeof v.type === 'string') visit(v, inner, out);
  }}
}}
const out = [];
for (const written of JSON.parse(Buffer.from("{payload}", "base64").toString())) {{
  // Node's loader drops a byte order mark before compiling (so a hashbang may follow one)
  const source = written.charCodeAt(0) === 0xfeff ? written.slice(1) : written;
  let goal = 'cjs';
  try {{
    vm.compileFunction(source, PARAMS, {{ filename: '/work/snippet.js' }});
  }} catch (e) {{
    if (e instanceof SyntaxError && ESM_ERRORS.some((m) => e.message.includes(m))) goal = 'esm';
    else {{ out.push({{ rejected: String(e && e.message) }}); continue; }}
  }}
  let tree;
  try {{
    tree = acorn.parse(source, {{ ecmaVersion: 'latest', sourceType: goal === 'esm' ? 'module' : 'script',
      allowReturnOutsideFunction: goal === 'cjs', allowHashBang: true }});
  }} catch (e) {{
    out.push({{ rejected: 'acorn (' + goal + '): ' + e.message }});
    continue;
  }}
  const all = [];
  bound.clear();
  visit(tree, [], all);
  const root = (name) => name.split('.')[0];
  const calls = all.filter((c) => !bound.has(root(c[1])));
  if (goal === 'cjs') {{
    const ran = [];
    // what a call returns: callable, constructible, recording nothing (a name bound to it
    // is the snippet's own value)
    const inert = function () {{ return inert; }};
    const recorder = (name) => function (...args) {{
      // a loop of calls ends the case
      if (ran.length > 1000) throw new Error('too many calls');
      if (typeof args[0] === 'number' && args[0] >= FIRST && args[0] < LAST) ran.push([args[0], name]);
      return inert;
    }};
    try {{
      const fn = vm.compileFunction(source, PARAMS.concat(NAMES), {{ filename: '/work/snippet.js' }});
      // bounded: a loop whose condition is a call's value never ends
      globalThis.__case = () => fn({{}}, () => ({{}}), {{}}, '/work/snippet.js', '/work', ...NAMES.map(recorder));
      vm.runInThisContext('__case()', {{ timeout: 200 }});
    }} catch (e) {{}}
    for (const [id, name] of ran) {{
      if (!bound.has(root(name)) && !calls.some((c) => c[0] === id && c[1] === name)) calls.push([id, name, null, null]);
    }}
  }}
  out.push({{ calls, goal, bound: all.filter((c) => bound.has(root(c[1]))).map((c) => c[0]) }});
}}
console.log(JSON.stringify(out));
"#,
        last = crate::LAST_ID,
    )
}
