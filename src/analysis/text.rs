//! Decoding of literal text: string escapes, identifier escapes and the common encodings
//! snippets use to hide names (`base64`, hex, rot13).

use base64::Engine;

/// Decodes the backslash escapes of a Python string body (`\x41`, `\u0041`, `\N{...}` is left
/// as is, octal `\101`, the single-character escapes). Unknown escapes stay literal, as in Python.
pub fn decode_python_escapes(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '0'..='7' => {
                let mut value = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.extend(char::from_u32(value));
            }
            'x' => push_hex(&mut out, &mut chars, 2, "\\x"),
            'u' => push_hex(&mut out, &mut chars, 4, "\\u"),
            'U' => push_hex(&mut out, &mut chars, 8, "\\U"),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'v' => out.push('\x0b'),
            '\n' => {}
            '\\' | '\'' | '"' => out.push(e),
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

fn push_hex(
    out: &mut String,
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    len: usize,
    prefix: &str,
) {
    let digits: String = (0..len)
        .map_while(|_| chars.next_if(char::is_ascii_hexdigit))
        .collect();
    match u32::from_str_radix(&digits, 16)
        .ok()
        .filter(|_| digits.len() == len)
        .and_then(char::from_u32)
    {
        Some(c) => out.push(c),
        None => {
            out.push_str(prefix);
            out.push_str(&digits);
        }
    }
}

/// Decodes JavaScript escapes in a string or identifier: `\x41`, `\u0041`, `\u{41}` and the
/// single-character escapes. JavaScript identifiers may be spelled with `\u` escapes
/// (`\u0065val` is `eval`), so identifiers go through this too.
pub fn decode_js_escapes(text: &str) -> String {
    if !text.contains('\\') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else { break };
        match e {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'v' => out.push('\x0b'),
            '0' if !chars.peek().is_some_and(char::is_ascii_digit) => out.push('\0'),
            'x' => push_hex(&mut out, &mut chars, 2, "x"),
            'u' if chars.peek() == Some(&'{') => {
                chars.next();
                let digits: String = chars.by_ref().take_while(|&c| c != '}').collect();
                out.extend(
                    u32::from_str_radix(&digits, 16)
                        .ok()
                        .and_then(char::from_u32),
                );
            }
            'u' => push_hex(&mut out, &mut chars, 4, "u"),
            '\n' | '\u{2028}' | '\u{2029}' => {}
            other => out.push(other),
        }
    }
    out
}

/// Decodes standard or URL-safe base64 into UTF-8 text, if it is both.
pub fn base64_text(encoded: &str) -> Option<String> {
    let trimmed: String = encoded.chars().filter(|c| !c.is_whitespace()).collect();
    let engines = [
        &base64::engine::general_purpose::STANDARD,
        &base64::engine::general_purpose::URL_SAFE,
        &base64::engine::general_purpose::STANDARD_NO_PAD,
        &base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ];
    engines
        .iter()
        .find_map(|e| e.decode(trimmed.as_bytes()).ok())
        .and_then(|bytes| String::from_utf8(bytes).ok())
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
        assert_eq!(decode_python_escapes(r"\x6fs"), "os");
        assert_eq!(decode_python_escapes(r"\157\163"), "os");
        assert_eq!(decode_python_escapes(r"\u0065val"), "eval");
        assert_eq!(decode_python_escapes(r"a\qb"), r"a\qb");
    }

    #[test]
    fn js_escapes() {
        assert_eq!(decode_js_escapes(r"\u0065val"), "eval");
        assert_eq!(decode_js_escapes(r"ev\u{61}l"), "eval");
        assert_eq!(decode_js_escapes(r"\x63hild_process"), "child_process");
    }

    #[test]
    fn encodings() {
        assert_eq!(base64_text("b3M=").as_deref(), Some("os"));
        assert_eq!(hex_text("6f 73").as_deref(), Some("os"));
        assert_eq!(rot13("flfgrz"), "system");
        assert_eq!(hex_text("6"), None);
    }
}
