//! Decoding of literal text: string escapes, identifier escapes and the common encodings
//! snippets use to hide names (`base64`, hex, rot13).

use base64::Engine;

/// Decodes a Python string or bytes literal's body as the interpreter does, or `None` where the
/// analyzer cannot be sure what it would read (`\N{...}` names, surrogates, malformed escapes):
/// a name the analyzer decoded wrongly would be a name it judged wrongly. Line ends read as
/// `\n` (Python reads source with universal newlines). Bytes are read as the operating system
/// reads a path of them, as UTF-8; bytes that are not UTF-8 are `None`.
pub fn decode_python_literal(body: &str, raw: bool, bytes: bool) -> Option<String> {
    if bytes && !body.is_ascii() {
        return None; // a SyntaxError in Python
    }
    let body = &universal_newlines(body);
    let text = decode_python_escapes(body, raw, bytes)?;
    if bytes && !text.is_ascii() {
        let raw_bytes: Vec<u8> = text.chars().map(|c| c as u8).collect();
        return String::from_utf8(raw_bytes).ok();
    }
    Some(text)
}

/// `\r\n` and `\r` as `\n`, as Python reads source and JavaScript reads template text.
pub fn universal_newlines(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n").into()
    } else {
        text.into()
    }
}

/// The escapes of a Python literal's body decoded; byte values of a bytes literal as the
/// characters U+0000..U+00FF.
fn decode_python_escapes(body: &str, raw: bool, bytes: bool) -> Option<String> {
    if raw || !body.contains('\\') {
        return Some(body.to_owned());
    }
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let e = chars.next()?;
        match e {
            '\n' => {}
            '\r' => {
                chars.next_if_eq(&'\n');
            }
            '\\' | '\'' | '"' => out.push(e),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0b'),
            '0'..='7' => {
                let mut value = e.to_digit(8)?;
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                if bytes && value > 0xff {
                    return None;
                }
                out.push(char::from_u32(value)?);
            }
            'x' => out.push(char::from_u32(hex_digits(&mut chars, 2)?)?),
            'u' if !bytes => out.push(char::from_u32(hex_digits(&mut chars, 4)?)?),
            'U' if !bytes => out.push(char::from_u32(hex_digits(&mut chars, 8)?)?),
            'N' if !bytes => return None,
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    Some(out)
}

/// Exactly `count` hex digits, as a number.
fn hex_digits(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, count: usize) -> Option<u32> {
    let mut value = 0u32;
    for _ in 0..count {
        value = value.checked_mul(16)? + chars.next()?.to_digit(16)?;
    }
    Some(value)
}

/// Decodes a JavaScript string literal's body (between the quotes, or a template's text) as
/// the engine does, legacy octal escapes included, or `None` where it cannot be sure (a lone
/// surrogate, a malformed escape).
pub fn decode_js_string(body: &str) -> Option<String> {
    if !body.contains('\\') {
        return Some(body.to_owned());
    }
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let e = chars.next()?;
        match e {
            '\n' | '\u{2028}' | '\u{2029}' => {}
            '\r' => {
                chars.next_if_eq(&'\n');
            }
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0b'),
            '0'..='7' => {
                // Legacy octal: up to three digits from 0-3, two from 4-7 (at most 0o377).
                let mut value = e.to_digit(8)?;
                let max_more = if e <= '3' { 2 } else { 1 };
                for _ in 0..max_more {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(value)?);
            }
            'x' => out.push(char::from_u32(hex_digits(&mut chars, 2)?)?),
            'u' => {
                let unit = if chars.next_if_eq(&'{').is_some() {
                    let mut value = 0u32;
                    let mut any = false;
                    loop {
                        let c = chars.next()?;
                        if c == '}' {
                            break;
                        }
                        value = value.checked_mul(16)?.checked_add(c.to_digit(16)?)?;
                        any = true;
                    }
                    if !any {
                        return None;
                    }
                    value
                } else {
                    hex_digits(&mut chars, 4)?
                };
                if (0xd800..0xdc00).contains(&unit) {
                    // A surrogate pair spelled as two escapes.
                    let mut rest = chars.clone();
                    if rest.next() != Some('\\') || rest.next() != Some('u') {
                        return None;
                    }
                    let low = hex_digits(&mut rest, 4)?;
                    if !(0xdc00..0xe000).contains(&low) {
                        return None;
                    }
                    chars = rest;
                    out.push(char::from_u32(
                        0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00),
                    )?);
                } else {
                    out.push(char::from_u32(unit)?);
                }
            }
            other => out.push(other),
        }
    }
    Some(out)
}

/// A JavaScript identifier with its `\u` escapes decoded (`\u0065val` is `eval`).
pub fn decode_js_identifier(text: &str) -> String {
    if !text.contains('\\') {
        return text.to_owned();
    }
    decode_js_string(text).unwrap_or_else(|| text.to_owned())
}

/// Decodes base64 of one alphabet (`+/`, or `-_` when `url_safe`), padded or not, with
/// whitespace between the characters. Anything else is `None`: the decoders differ in what
/// else they skip (Python drops any character outside the alphabet, Node's `Buffer` reads
/// both alphabets, `atob` refuses both), so only input all of them read alike is decoded.
pub fn base64_bytes(encoded: &str, url_safe: bool) -> Option<Vec<u8>> {
    let trimmed: String = encoded.chars().filter(|c| !c.is_whitespace()).collect();
    let engines = if url_safe {
        [
            &base64::engine::general_purpose::URL_SAFE,
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
        ]
    } else {
        [
            &base64::engine::general_purpose::STANDARD,
            &base64::engine::general_purpose::STANDARD_NO_PAD,
        ]
    };
    engines
        .iter()
        .find_map(|e| e.decode(trimmed.as_bytes()).ok())
}

/// Bytes as a string of one character per byte (`atob`'s result, Latin-1).
pub fn latin1_text(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// `Buffer.from(s, 'hex').toString()`: Node reads pairs of hex digits up to the first pair
/// that is not one (`'6f 73'` is `o`), then decodes UTF-8.
pub fn node_hex_text(encoded: &str) -> Option<String> {
    let bytes: Vec<u8> = encoded
        .as_bytes()
        .chunks_exact(2)
        .map_while(|pair| {
            let digit = |b: u8| char::from(b).to_digit(16);
            Some((digit(pair[0])? * 16 + digit(pair[1])?) as u8)
        })
        .collect();
    String::from_utf8(bytes).ok()
}

/// Decodes a hex string (`bytes.fromhex('6f73')`, spaces allowed) into UTF-8 text.
pub fn hex_text(encoded: &str) -> Option<String> {
    let digits: Vec<u8> = encoded
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    let bytes = digits
        .chunks(2)
        .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    String::from_utf8(bytes).ok()
}

/// A URL as Node's file functions take it (`fs.readFileSync(new URL(u))`): a `file:` URL
/// becomes the path WHATWG parsing and `url.fileURLToPath` make of it: `.` and `..` segments
/// applied (`%2e%2e` is `..` too) and `%73elf` decoded to `self`. Tabs and newlines are dropped anywhere
/// and spaces and control characters at either end; the query and fragment are cut off;
/// the host must be empty or `localhost`; percent escapes are decoded. `None` where Node
/// would refuse the URL (another host, an encoded `/`, bytes that are not UTF-8). A URL of
/// another scheme stays as it is: the network's, not a file.
pub fn node_url_path(url: &str) -> Option<String> {
    let cleaned: String = url
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let Some(scheme_end) = cleaned.find(':') else {
        return Some(cleaned);
    };
    if !cleaned[..scheme_end].eq_ignore_ascii_case("file") {
        // Another scheme's URL reads as its `href`, which percent-encodes and normalizes:
        // only a URL already in that form is known.
        let plain = cleaned[..scheme_end]
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"+-.".contains(&b))
            && cleaned[scheme_end + 1..]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&b));
        return plain.then_some(cleaned);
    }
    // A special URL reads `\` as `/`.
    let rest = cleaned[scheme_end + 1..].replace('\\', "/");
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let path = match rest.strip_prefix("//") {
        Some(authority) => {
            let (host, path) = authority.split_at(authority.find('/').unwrap_or(authority.len()));
            if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
                return None;
            }
            path
        }
        None => rest,
    };
    // Node refuses an encoded `/` in a file URL's path.
    if path.to_ascii_lowercase().contains("%2f") {
        return None;
    }
    let path = url_dot_segments(path);
    let bytes = percent_decode(&path);
    String::from_utf8(bytes).ok()
}

/// A URL path with its `.` and `..` segments applied as URL parsing applies them (`%2e` is a
/// dot there too; never above the root; a last `.` or `..` leaves a trailing slash).
fn url_dot_segments(path: &str) -> String {
    let path = path.strip_prefix('/').unwrap_or(path);
    let segments: Vec<&str> = path.split('/').collect();
    let mut kept: Vec<&str> = Vec::new();
    for (i, segment) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        let lower = segment.to_ascii_lowercase().replace("%2e", ".");
        match lower.as_str() {
            ".." => {
                kept.pop();
                if last {
                    kept.push("");
                }
            }
            "." if last => kept.push(""),
            "." => {}
            _ => kept.push(segment),
        }
    }
    format!("/{}", kept.join("/"))
}

/// `%XX` escapes decoded to their bytes, as URL parsers decode a path; a `%` not followed by
/// two hex digits stays as it is.
pub fn percent_decode(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (
                bytes.get(i + 1).and_then(|&b| hex(b)),
                bytes.get(i + 2).and_then(|&b| hex(b)),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

/// Whether a JavaScript directive prologue makes its code strict, given the source text of
/// the leading statements of a script or function body. The prologue is the statements that
/// are each a string literal alone (`'a' + 'b'` and `('x')` are not, and end it); `'use
/// strict'` counts only inside it and spelled without escapes, as the engine reads it. Any
/// doubt reads as sloppy code, where a plain function's `this` is the global object.
pub fn js_prologue_is_strict<'a>(statements: impl IntoIterator<Item = &'a str>) -> bool {
    for statement in statements {
        let text = statement.trim_end();
        let text = text.strip_suffix(';').unwrap_or(text).trim_end();
        if text == "'use strict'" || text == "\"use strict\"" {
            return true;
        }
        if !is_one_js_string_literal(text) {
            return false;
        }
    }
    false
}

/// True when `text` is exactly one quoted string literal, nothing before or after it.
fn is_one_js_string_literal(text: &str) -> bool {
    let mut chars = text.char_indices();
    let Some((_, quote @ ('\'' | '"'))) = chars.next() else {
        return false;
    };
    let mut escaped = false;
    for (i, c) in chars {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            _ if c == quote => return i + c.len_utf8() == text.len(),
            _ => {}
        }
    }
    false
}

/// Python's `repr()` of an ASCII string (`{x!r}`, `{x!a}`); `None` for other text, whose
/// escaping depends on Unicode's printable classes.
pub fn python_repr(text: &str) -> Option<String> {
    if !text.is_ascii() {
        return None;
    }
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::from(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            _ if c == quote => {
                out.push('\\');
                out.push(c);
            }
            _ if c < ' ' || c == '\x7f' => out.push_str(&format!("\\x{:02x}", c as u32)),
            _ => out.push(c),
        }
    }
    out.push(quote);
    Some(out)
}

/// ROT13, as `codecs.decode(s, 'rot13')` applies it.
pub fn rot13(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            'a'..='z' => (((c as u8 - b'a') + 13) % 26 + b'a') as char,
            'A'..='Z' => (((c as u8 - b'A') + 13) % 26 + b'A') as char,
            _ => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_escapes() {
        let str_ = |s| decode_python_literal(s, false, false);
        assert_eq!(str_(r"\x6fs").as_deref(), Some("os"));
        assert_eq!(str_(r"\157\163").as_deref(), Some("os"));
        assert_eq!(str_(r"\u0065val").as_deref(), Some("eval"));
        assert_eq!(str_(r"a\qb").as_deref(), Some(r"a\qb"));
        // Unsure is unknown, never a wrong name.
        assert_eq!(str_(r"\N{LATIN SMALL LETTER O}s"), None);
        assert_eq!(str_(r"\x6"), None);
        // In bytes, \u is no escape.
        assert_eq!(
            decode_python_literal(r"\u0065", false, true).as_deref(),
            Some(r"\u0065")
        );
        assert_eq!(
            decode_python_literal(r"\x2fetc", false, true).as_deref(),
            Some("/etc")
        );
        assert_eq!(
            decode_python_literal(r"\x6fs", true, false).as_deref(),
            Some(r"\x6fs")
        );
    }

    #[test]
    fn js_strings() {
        assert_eq!(
            decode_js_string(r"\143hild_process").as_deref(),
            Some("child_process")
        );
        assert_eq!(decode_js_string(r"\x63p").as_deref(), Some("cp"));
        assert_eq!(decode_js_string(r"\u{63}p").as_deref(), Some("cp"));
        assert_eq!(
            decode_js_string(r"\ud83d\ude00").as_deref(),
            Some("\u{1F600}")
        );
        assert_eq!(decode_js_string(r"\ud83d"), None);
        assert_eq!(decode_js_string(r"a\qb").as_deref(), Some("aqb"));
        assert_eq!(decode_js_string(r"\08").as_deref(), Some("\u{0}8"));
    }

    #[test]
    fn js_identifiers() {
        assert_eq!(decode_js_identifier(r"\u0065val"), "eval");
        assert_eq!(decode_js_identifier(r"ev\u{61}l"), "eval");
    }

    #[test]
    fn file_urls_read_as_node_reads_them() {
        let path = |u| node_url_path(u);
        assert_eq!(
            path("file:///tmp/%2e%2e/etc/passwd").as_deref(),
            Some("/etc/passwd")
        );
        assert_eq!(
            path("file:///tmp/%2E./proc/%73elf/environ").as_deref(),
            Some("/proc/self/environ")
        );
        assert_eq!(
            path("FILE://localhost/etc/hosts").as_deref(),
            Some("/etc/hosts")
        );
        assert_eq!(
            path(" file:/tmp/.\n./etc\\x?q#f").as_deref(),
            Some("/etc/x")
        );
        assert_eq!(path("file:etc/passwd").as_deref(), Some("/etc/passwd"));
        assert_eq!(path("file://evil/etc/passwd"), None);
        assert_eq!(path("file:///tmp/a%2fb"), None);
        assert_eq!(path("file:///tmp/%ff"), None);
        assert_eq!(path("file:///tmp/100%"), Some("/tmp/100%".to_owned()));
        assert_eq!(path("file:///tmp/%+f"), Some("/tmp/%+f".to_owned()));
        assert_eq!(path("https://example.com/%2e%2e"), None);
        assert_eq!(path("node:fs").as_deref(), Some("node:fs"));
    }

    #[test]
    fn encodings() {
        assert_eq!(base64_bytes("b3M=", false).as_deref(), Some(&b"os"[..]));
        assert_eq!(base64_bytes("_-8", false), None);
        assert_eq!(node_hex_text("6f 73").as_deref(), Some("o"));
        assert_eq!(hex_text("6f 73").as_deref(), Some("os"));
        assert_eq!(rot13("flfgrz"), "system");
        assert_eq!(hex_text("6"), None);
    }

    #[test]
    fn a_prologue_is_only_string_literals_from_the_top() {
        let strict = |stmts: &[&str]| js_prologue_is_strict(stmts.iter().copied());
        assert!(strict(&["'use strict';"]));
        assert!(strict(&["\"use asm\"", "'a\\'b'", "'use strict'", "f()"]));
        assert!(!strict(&["'a' + 'b'", "'use strict'"]));
        assert!(!strict(&["'x'.length", "'use strict'"]));
        assert!(!strict(&["console.log(1)", "'use strict'"]));
        assert!(!strict(&["('use strict')"]));
        assert!(!strict(&["'use\\x20strict'"]));
        assert!(!strict(&["'a', 'b'", "'use strict'"]));
        assert!(!strict(&[]));
    }
}
