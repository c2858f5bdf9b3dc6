//! The cases the differential test runs: expressions built from every fold the analyzer has,
//! over inputs chosen to stress them, from a deterministic generator.

use code_sandbox_mcp::analysis::Language;

use crate::common::rng::Rng;

/// Cases generated per language (before keeping those the analyzer folds).
const CASES_PER_LANGUAGE: usize = 12000;
const SEED: u64 = 0x5eed_f01d;

/// Characters that stress folds: ASCII controls and separators, Unicode whitespace, characters
/// whose case mapping changes length or leaves ASCII, combining and astral characters.
const SPECIAL_CHARS: &[char] = &[
    '\0', '\x07', '\x08', '\t', '\n', '\x0b', '\x0c', '\r', '\x1b', '\x1c', '\x1d', '\x1e', '\x1f',
    ' ', '\x7f', '\u{85}', '\u{a0}', '\u{1680}', '\u{2000}', '\u{200a}', '\u{200b}', '\u{2028}',
    '\u{2029}', '\u{202f}', '\u{205f}', '\u{3000}', '\u{feff}', 'ß', 'İ', 'ı', 'ﬁ', '\u{212a}',
    'ſ', '\u{212b}', 'ǅ', 'Σ', 'ς', '\u{307}', 'é', 'ÿ', '\u{ff}', '😀', '𝐀', '\u{fffd}',
];

/// Pieces of names and paths.
const WORDS: &[&str] = &[
    "os",
    "sys",
    "system",
    "etc",
    "passwd",
    "a",
    "b",
    "x.csv",
    "data",
    ".",
    "..",
    "/",
    "//",
    "~",
    "~root",
    "tmp",
    "work",
    "%2e",
    "%2f",
    "%",
    "$&",
    "$$",
    "%s",
    "%%",
    "{",
    "}",
    "{{",
    "A",
    "Z",
    "I",
    "K",
    "sh",
    "b3M=",
    "6f73",
    "file:",
    "node:",
    "child_process",
    "\\",
    "-",
    "_",
    ",",
    "a.b.c",
    "x.tar.gz",
    ".bashrc",
    "",
];

pub fn text(rng: &mut Rng) -> String {
    let mut s = String::new();
    for _ in 0..rng.below(4) {
        match rng.below(10) {
            0..=4 => s.push_str(rng.word(WORDS)),
            5 | 6 => s.push(*rng.pick(SPECIAL_CHARS)),
            7 => s.push(char::from(rng.below(128) as u8)),
            _ => s.push(*rng.pick(&['/', '.', 'o', 's', ' ', 'X'])),
        }
    }
    s
}

pub fn int(rng: &mut Rng, python: bool) -> String {
    let common = [
        "0",
        "1",
        "2",
        "3",
        "-1",
        "-2",
        "65",
        "0x41",
        "0o101",
        "1_0",
        "-0",
        "47",
        "0xFFFF",
        "0x10000",
        "0x1F600",
        "0xD800",
        "0x110000",
        "-65",
        "2**32",
        "2**32 + 1",
        "2**53",
        "2**53 + 1",
        "2**64",
        "10**21",
        "10**30",
        "1 << 20",
        "1.0",
        "65.5",
        "True",
        "False",
    ];
    let s = rng.pick(&common).to_string();
    if python {
        s
    } else {
        s.replace("True", "true")
            .replace("False", "false")
            .replace("1_0", "10")
    }
}

/// A Python string literal spelled in one of the ways the interpreter reads: prefixes, quotes,
/// escapes (valid, unknown and malformed ones), line continuations.
pub fn python_literal(rng: &mut Rng) -> String {
    let prefix = *rng.pick(&[
        "", "", "", "r", "b", "rb", "B", "u", "f", "rf", "R", "Br", "t", "rt",
    ]);
    let quote = *rng.pick(&["'", "\"", "'''", "\"\"\""]);
    let bytes = prefix.to_ascii_lowercase().contains('b');
    let raw = prefix.to_ascii_lowercase().contains('r');
    let triple = quote.len() == 3;
    let mut body = String::new();
    for _ in 0..rng.below(6) {
        match rng.below(12) {
            0 => body.push_str(&format!("\\x{:02x}", rng.below(256))),
            1 => body.push_str(&format!("\\{:o}", rng.below(512))),
            2 => body.push_str(&format!("\\u{:04x}", rng.next_u64() % 0x10000)),
            3 => body.push_str(rng.word(&[
                "\\U0001f600",
                "\\U00110000",
                "\\N{BULLET}",
                "\\q",
                "\\8",
                "\\\\",
                "\\'",
                "\\\"",
                "\\\n",
                "\\a\\b\\f\\v\\t\\r\\n\\0",
                "\\x4",
                "\\u12",
            ])),
            4 if triple => body.push_str(rng.word(&["\r\n", "\r", "\n"])),
            5 if prefix.contains(['f', 'F', 't']) => body.push_str(rng.word(&["{{", "}}"])),
            6 => {
                let c = *rng.pick(SPECIAL_CHARS);
                if !matches!(c, '\n' | '\r' | '\0' | '\\') && (!bytes || c.is_ascii()) {
                    body.push(c);
                }
            }
            _ => {
                let word = rng.pick(WORDS);
                if !word.contains(['{', '}', '\\']) {
                    body.push_str(word);
                }
            }
        }
    }
    // Keep the literal closed: no quote character unescaped, no ending backslash in raw text.
    let q = quote.chars().next().unwrap();
    let mut safe = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(n) => {
                    safe.push(c);
                    safe.push(n);
                }
                None => safe.push('x'),
            }
        } else if c == q {
            safe.push('\\');
            safe.push(c);
        } else {
            safe.push(c);
        }
    }
    if raw && safe.ends_with('\\') {
        safe.push('x');
    }
    if triple && safe.ends_with(q) {
        safe.push('x');
    }
    format!("{prefix}{quote}{safe}{quote}")
}

/// A JavaScript string literal or template with escapes of every kind.
pub fn js_literal(rng: &mut Rng) -> String {
    let quote = *rng.pick(&["'", "\"", "`"]);
    let mut body = String::new();
    for _ in 0..rng.below(6) {
        match rng.below(12) {
            0 => body.push_str(&format!("\\x{:02x}", rng.below(256))),
            1 => body.push_str(&format!("\\{:o}", rng.below(300))),
            2 => body.push_str(&format!("\\u{:04x}", rng.next_u64() % 0x10000)),
            3 => body.push_str(&format!("\\u{{{:x}}}", rng.next_u64() % 0x110100)),
            4 => body.push_str(rng.word(&[
                "\\ud83d\\ude00",
                "\\uD83D\\u{DE00}",
                "\\ud83d",
                "\\q",
                "\\8",
                "\\\\",
                "\\'",
                "\\\"",
                "\\\n",
                "\\\r\n",
                "\\\u{2028}",
                "\\b\\f\\v\\t\\r\\n\\0",
                "\\x4",
                "\\u12",
                "\\u{}",
                "\\08",
                "\\`",
                "\\$",
            ])),
            5 if quote == "`" => body.push_str(rng.word(&["\r\n", "\r", "\n", "${'x'}", "${1}"])),
            6 => {
                let c = *rng.pick(SPECIAL_CHARS);
                if !matches!(c, '\n' | '\r' | '\\') {
                    body.push(c);
                }
            }
            _ => {
                let word = rng.pick(WORDS);
                if !word.contains('\\') {
                    body.push_str(word);
                }
            }
        }
    }
    let q = quote.chars().next().unwrap();
    let mut safe = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                safe.push(c);
                safe.push(n);
            }
        } else if c == q || (q == '`' && c == '$' && chars.peek() == Some(&'{')) {
            safe.push('\\');
            safe.push(c);
        } else {
            safe.push(c);
        }
    }
    let literal = format!("{quote}{safe}{quote}");
    if quote == "`" && rng.chance(20) {
        format!("String.raw{literal}")
    } else {
        literal
    }
}

/// A plain (escaped) literal of `s`, as both languages read `"..."` with `\u{...}`-free escapes.
pub fn quoted(s: &str, python: bool) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if python => out.push_str(&format!("\\U{:08x}", c as u32)),
            c => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
        }
    }
    out.push('"');
    out
}

/// Data to encode: text, or bytes that are not UTF-8 a third of the time.
pub fn data(rng: &mut Rng) -> Vec<u8> {
    if rng.chance(33) {
        (0..rng.below(6)).map(|_| rng.below(256) as u8).collect()
    } else {
        text(rng).into_bytes()
    }
}

pub fn base64_input(rng: &mut Rng) -> String {
    use base64::Engine;
    let data = data(rng);
    let engines = [
        &base64::engine::general_purpose::STANDARD,
        &base64::engine::general_purpose::URL_SAFE,
        &base64::engine::general_purpose::STANDARD_NO_PAD,
        &base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ];
    let mut encoded = rng.pick(&engines).encode(&data);
    if rng.chance(40) && !encoded.is_empty() {
        let at = rng.below(encoded.len() + 1);
        let junk = *rng.pick(&[
            " ", "\n", "\t", "\x0b", "\x1c", "!", "-", "_", "=", "\u{a0}", "é", "b3M=",
        ]);
        encoded.insert_str(at, junk);
    }
    encoded
}

pub fn hex_input(rng: &mut Rng) -> String {
    let mut encoded: String = data(rng).iter().map(|b| format!("{b:02x}")).collect();
    if rng.chance(40) {
        let at = rng.below(encoded.len() + 1);
        let junk = *rng.pick(&[" ", "\n", "\t", "\x0b", "\x1c", "g", "0", "\u{a0}", "F"]);
        encoded.insert_str(at, junk);
    }
    if rng.chance(30) {
        encoded = encoded.to_ascii_uppercase();
    }
    encoded
}

/// A Python string expression built from the folds the analyzer has.
pub fn python_expr(rng: &mut Rng, depth: usize) -> String {
    if depth == 0 || rng.chance(25) {
        return match rng.below(4) {
            0 | 1 => python_literal(rng),
            _ => quoted(&text(rng), true),
        };
    }
    let d = depth - 1;
    let mut e = || python_expr(rng, d);
    let a = e();
    let b = e();
    let c = e();
    let n = int(rng, true);
    let m = int(rng, true);
    let s = quoted(&text(rng), true);
    match rng.below(40) {
        0 => format!("{a} + {b}"),
        1 => format!("{a} {b}"),
        2 => format!(
            "f\"{{{a}{}}}{}\"",
            rng.pick(&["", "!r", "!s", "!a", "=", ":>3", ":", "!r:>2"]),
            rng.pick(&["", "x", "{{", "\\x41", "{1}", "{n}"])
                .replace("{n}", &format!("{{{n}}}"))
        ),
        3 => format!("{a} % {b}"),
        4 => format!("\"%s\" % {a}"),
        5 => format!(
            "{a}[::{}]",
            rng.pick(&["-1", "1", "-2", "2", "", "True", "-True"])
        ),
        6 => format!("{a}[{n}:]"),
        7 => format!("{a}.join([{b}, {c}])"),
        8 => format!("{a}.join({b})"),
        9 => format!("{a}.join(reversed({b}))"),
        10 => format!("\"\".join(map(chr, [{n}, {m}]))"),
        11 => format!("{a}.join({b}.split({c}))"),
        12 => format!(
            "{a}.join({b}.split({}))",
            rng.pick(&[
                format!("{c}, {n}"),
                format!("{c}, maxsplit={n}"),
                format!("sep={c}"),
                format!("sep={c}, maxsplit={n}"),
                "None".to_owned(),
                String::new(),
                format!("*[{c}]"),
            ])
        ),
        13 => format!(
            "{a}.{}({})",
            rng.pick(&["strip", "lstrip", "rstrip"]),
            rng.pick(&[
                String::new(),
                b.clone(),
                "None".to_owned(),
                format!("*[{b}]"),
                format!("chars={b}")
            ])
        ),
        14 => format!("{a}.{}()", rng.pick(&["lower", "upper", "casefold"])),
        15 => format!("{a}.replace({b}, {c})"),
        16 => format!(
            "{a}.replace({b}, {c}, {})",
            rng.pick(&[n.clone(), format!("count={n}")])
        ),
        17 => format!(
            "{a}.{}({})",
            rng.pick(&["encode", "decode"]),
            rng.pick(&[
                "",
                "'utf-8'",
                "'ascii'",
                "'latin-1'",
                "'utf-8', 'ignore'",
                "'ascii', 'replace'",
                "'utf-16'",
                "'cp1252'",
                "errors='ignore'",
                "encoding='utf_8'",
                "'utf-8', errors='surrogateescape'",
                "'unicode_escape'",
                "'idna'",
                "'punycode'",
                "'rot13'",
            ])
        ),
        18 => format!(
            "str({a}{})",
            rng.pick(&[
                "",
                ", 'utf-8'",
                ", 'ascii', 'ignore'",
                ", encoding='latin-1'",
                ", 'utf-8', errors='strict'",
                ", 'unicode_escape'",
            ])
        ),
        19 => format!("chr({n})"),
        20 => format!(
            "base64.{}({}{})",
            rng.pick(&["b64decode", "standard_b64decode", "urlsafe_b64decode"]),
            rng.pick(&["", "b"]),
            quoted(&base64_input(rng), true),
        ),
        21 => format!(
            "{}({})",
            rng.pick(&["bytes.fromhex", "binascii.unhexlify", "binascii.a2b_hex"]),
            quoted(&hex_input(rng), true)
        ),
        22 => format!(
            "codecs.{}({a}, {})",
            rng.pick(&["decode", "encode"]),
            rng.pick(&[
                "'rot13'",
                "'rot_13'",
                "'ROT-13'",
                "'rot 13'",
                "'hex'",
                "'base64'",
                "'rot13', 'ignore'",
                "errors='strict', encoding='rot13'"
            ])
        ),
        23 => format!(
            "codecs.decode({}{}, {})",
            rng.pick(&["", "b"]),
            quoted(
                &if rng.chance(50) {
                    hex_input(rng)
                } else {
                    base64_input(rng)
                },
                true
            ),
            rng.pick(&["'hex'", "'base64'", "'hex_codec'", "'base64_codec'"])
        ),
        24 => format!(
            "os.path.join({a}, {b}{})",
            rng.pick(&["", ", \"c\"", ", *[\"/x\", \"y\"]"])
        ),
        25 => format!(
            "{}({})",
            rng.pick(&[
                "Path",
                "PurePath",
                "PosixPath",
                "PurePosixPath",
                "pathlib.Path"
            ]),
            rng.pick(&[
                String::new(),
                a.clone(),
                format!("{a}, {b}"),
                format!("*[{a}, {b}]")
            ])
        ),
        26 => format!("Path({a}) / {b}"),
        27 => format!("{a} / Path({b})"),
        28 => format!("Path({a}).joinpath({b}{})", rng.pick(&["", ", \"c\""])),
        29 => format!("Path({a}).parent{}", rng.pick(&["", ".parent"])),
        30 => format!("Path({a}).with_suffix({b})"),
        31 => format!("Path({a}).with_name({b})"),
        32 => format!(
            "Path({a}).{}",
            rng.pick(&[
                "resolve()",
                "resolve(strict=False)",
                "absolute()",
                "absolute().parent.parent",
                "as_posix()",
                "expanduser()",
            ])
        ),
        33 => format!(
            "os.path.{}({a})",
            rng.pick(&["normpath", "abspath", "expanduser", "realpath"])
        ),
        34 => format!("os.{}({a})", rng.pick(&["fspath", "fsdecode"])),
        35 => rng
            .pick(&[
                "os.sep",
                "os.path.sep",
                "os.curdir",
                "os.path.curdir",
                "os.extsep",
                "os.pardir",
                "os.path.pardir",
            ])
            .to_string(),
        36 => format!("{s}.join([{n}])"),
        37 => format!("f\"{{{n}}}\""),
        38 => format!("{a}.split({b})[{n}]"),
        _ => s,
    }
}

/// A JavaScript string expression built from the folds the analyzer has.
pub fn js_expr(rng: &mut Rng, depth: usize) -> String {
    if depth == 0 || rng.chance(25) {
        return match rng.below(4) {
            0 | 1 => js_literal(rng),
            _ => quoted(&text(rng), false),
        };
    }
    let d = depth - 1;
    let mut e = || js_expr(rng, d);
    let a = e();
    let b = e();
    let c = e();
    let n = int(rng, false);
    let m = int(rng, false);
    let s = quoted(&text(rng), false);
    match rng.below(34) {
        0 => format!("{a} + {b}"),
        1 => format!("{a} + ({n})"),
        2 => format!("({n}) + {a}"),
        3 => format!("({n}) + ({m}) + {a}"),
        4 => format!("`${{{a}}}x${{{n}}}`"),
        5 => format!("{a} % {b}"),
        6 => format!(
            "{a}.concat({b}{})",
            rng.pick(&["", ", \"c\""]).replace('c', &n)
        ),
        7 => format!(
            "{a}.{}({})",
            rng.pick(&[
                "toLowerCase",
                "toUpperCase",
                "toLocaleLowerCase",
                "toLocaleUpperCase"
            ]),
            rng.pick(&["", "", "'tr'", "'en-US'"])
        ),
        8 => format!(
            "{a}.{}({})",
            rng.pick(&["trim", "trimStart", "trimEnd", "trimLeft", "trimRight"]),
            rng.pick(&["", "", "'x'"])
        ),
        9 => format!("[{a}, {b}].join({})", rng.pick(&[String::new(), c.clone()])),
        10 => format!("[{a}, {b}].reverse().join({c})"),
        11 => format!("{a}.split({b}).join({c})"),
        12 => format!("{a}.split({b}, {n}).join({c})"),
        13 => format!("{a}.split('').reverse().join('')"),
        14 => format!("{a}.replaceAll({b}, {c})"),
        15 => format!("{a}.replace({b}, {c})"),
        16 => format!("String({a})"),
        17 => format!("{a}.{}()", rng.pick(&["valueOf", "toString"])),
        18 => format!(
            "String.{}({n}{})",
            rng.pick(&["fromCharCode", "fromCodePoint"]),
            rng.pick(&[String::new(), format!(", {m}"), format!(", ...[{m}]")])
        ),
        19 => format!("atob({})", quoted(&base64_input(rng), false)),
        20 => format!(
            "Buffer.from({}, {}).toString({})",
            quoted(&base64_input(rng), false),
            rng.pick(&["'base64'", "'base64url'"]),
            rng.pick(&["", "'utf8'", "'utf-8'", "'latin1'"])
        ),
        21 => format!(
            "Buffer.from({}, 'hex').toString()",
            quoted(&hex_input(rng), false)
        ),
        22 => format!(
            "Buffer.from({a}{}).toString()",
            rng.pick(&["", ", 'utf8'", ", 'latin1'"])
        ),
        23 => format!(
            "{}({a})",
            rng.pick(&["decodeURIComponent", "decodeURI", "unescape"])
        ),
        24 => format!(
            "path.{}({a}{})",
            rng.pick(&["join", "resolve", "normalize", "posix.join"]),
            rng.pick(&[String::new(), format!(", {b}"), format!(", ...[{b}, {c}]")])
        ),
        25 => format!(
            "require('path').{}({a}, {b})",
            rng.pick(&["join", "resolve"])
        ),
        26 => format!(
            "{}({})",
            rng.pick(&["new URL", "url.fileURLToPath", "new url.URL"]),
            rng.pick(&[
                a.clone(),
                format!("'file://' + {a}"),
                format!("'file:///' + {a}"),
                format!("'FILE:' + {a}"),
                format!("'node:' + {a}"),
                format!("{a}, 'file:///etc/'"),
            ])
        ),
        27 => rng
            .pick(&["__dirname", "__filename", "path.sep"])
            .to_string(),
        28 => format!("{a}.split({b})[{n}]"),
        29 => format!("[{a}, {b}].slice({n}).join({c})"),
        _ => s,
    }
}

/// One generated case: the statements it needs (names bound before), and the expression.
pub struct Case {
    pub prelude: String,
    pub expr: String,
}

/// A case reading names: a constant, a list of constants, an integer, a name bound twice.
pub fn python_named(rng: &mut Rng) -> Case {
    let a = python_expr(rng, 1);
    let b = python_expr(rng, 1);
    let c = python_expr(rng, 1);
    let n = int(rng, true);
    let (prelude, expr) = match rng.below(12) {
        0 => (format!("x = {a}\n"), "f\"{x}/{x}\"".to_owned()),
        1 => (format!("x = {a}\n"), format!("x + {b}")),
        2 => (format!("x = {a}\n"), "\"%s\" % x".to_owned()),
        3 => (format!("x = {a}\n"), "str(x)".to_owned()),
        4 => (
            format!("parts = [{a}, {b}, {c}]\n"),
            "\"/\".join(parts)".to_owned(),
        ),
        5 => (
            format!("parts = [{a}, {b}, {c}]\n"),
            "os.path.join(*parts)".to_owned(),
        ),
        6 => (
            format!("parts = [{a}, {b}, {c}]\n"),
            format!("\"/\".join(parts[{n}:])"),
        ),
        7 => (format!("parts = ({a}, {b})\n"), "Path(*parts)".to_owned()),
        8 => (format!("n = {n}\n"), format!("f\"{{n}}\" + {a}")),
        9 => (format!("n = {n}\n"), format!("{a}.replace({b}, {c}, n)")),
        10 => (format!("x = {a}\nx = {b}\n"), "x".to_owned()),
        _ => (format!("n = {n}\n"), "chr(n)".to_owned()),
    };
    Case { prelude, expr }
}

pub fn js_named(rng: &mut Rng) -> Case {
    let a = js_expr(rng, 1);
    let b = js_expr(rng, 1);
    let c = js_expr(rng, 1);
    let n = int(rng, false);
    let (prelude, expr) = match rng.below(11) {
        0 => (format!("const x = {a};\n"), "`${x}/${x}`".to_owned()),
        1 => (format!("const x = {a};\n"), format!("x + {b}")),
        2 => (format!("const x = {a};\n"), "String(x)".to_owned()),
        3 => (
            format!("const parts = [{a}, {b}, {c}];\n"),
            "parts.join('/')".to_owned(),
        ),
        4 => (
            format!("const parts = [{a}, {b}, {c}];\n"),
            "path.join(...parts)".to_owned(),
        ),
        5 => (
            format!("const parts = [{a}, {b}, {c}];\n"),
            format!("parts.slice({n}).join('/')"),
        ),
        6 => (format!("const n = {n};\n"), format!("{a} + n")),
        7 => (
            format!("const n = {n};\n"),
            "String.fromCharCode(n)".to_owned(),
        ),
        8 => (
            format!("const n = {n};\n"),
            format!("{a}.split({b}, n).join({c})"),
        ),
        9 => (format!("let x = {a};\nx = {b};\n"), "x".to_owned()),
        _ => (format!("var n = {n};\nn++;\n"), format!("{a} + n")),
    };
    Case { prelude, expr }
}

pub fn generate(language: Language) -> Vec<Case> {
    // `FOLD_DIFF_SEED` explores other cases; the default keeps runs repeatable.
    let seed = std::env::var("FOLD_DIFF_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(SEED);
    let mut rng = Rng::new(seed ^ language as u64);
    (0..CASES_PER_LANGUAGE)
        .map(|_| {
            let depth = 1 + rng.below(3);
            match (language, rng.chance(15)) {
                (Language::Python, true) => python_named(&mut rng),
                (Language::JavaScript, true) => js_named(&mut rng),
                (Language::Python, false) => Case {
                    prelude: String::new(),
                    expr: python_expr(&mut rng, depth),
                },
                (Language::JavaScript, false) => Case {
                    prelude: String::new(),
                    expr: js_expr(&mut rng, depth),
                },
            }
        })
        .collect()
}
