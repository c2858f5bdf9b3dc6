//! Program output made safe to read: characters that are invisible, or that change how the
//! text around them is shown, are replaced with a visible `<U+XXXX>`.
//!
//! Output is untrusted. Bidirectional controls (U+202E RIGHT-TO-LEFT OVERRIDE, the isolates)
//! make a terminal or an editor show text in another order than it is; zero-width and tag
//! characters hide text from a person while a model still reads it; terminal control
//! sequences (ESC, a lone carriage return) rewrite what is already on the screen. Readable
//! text (an MCP result's text, `run`'s output at a terminal) shows them; structured output
//! keeps the bytes as the program wrote them.

use std::borrow::Cow;
use std::fmt::Write;

/// `text` with every hidden or display-changing character shown as `<U+XXXX>`; borrowed when
/// there is none. Newlines and tabs stay, and so does the carriage return of a CRLF.
pub fn visible(text: &str) -> Cow<'_, str> {
    let chars: Vec<char> = text.chars().collect();
    let shown = |i: usize| {
        let c = chars[i];
        match c {
            '\r' => chars.get(i + 1) == Some(&'\n'),
            '\u{200D}' => joins_emoji(&chars, i),
            c => !hidden(c),
        }
    };
    if (0..chars.len()).all(shown) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for (i, &c) in chars.iter().enumerate() {
        if shown(i) {
            out.push(c);
        } else {
            let _ = write!(out, "<U+{:04X}>", u32::from(c));
        }
    }
    Cow::Owned(out)
}

/// Characters with no glyph of their own, or that reorder or rewrite what is displayed.
fn hidden(c: char) -> bool {
    matches!(c,
        // C0 controls (ESC starts terminal sequences) but tab and newline; DEL; C1 controls.
        '\0'..='\u{08}' | '\u{0B}'..='\u{1F}' | '\u{7F}'..='\u{9F}'
        // Unicode's format characters (category Cf): soft hyphen, Arabic and Syriac marks,
        // Mongolian vowel separator, zero-width space and joiners, LRM/RLM, bidi embeddings,
        // overrides and isolates, invisible operators, the byte-order mark, interlinear
        // annotations, and the tag characters that can spell hidden ASCII.
        | '\u{AD}' | '\u{600}'..='\u{605}' | '\u{61C}' | '\u{6DD}' | '\u{70F}'
        | '\u{890}'..='\u{891}' | '\u{8E2}' | '\u{180E}' | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206F}'
        | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}' | '\u{110BD}' | '\u{110CD}'
        | '\u{13430}'..='\u{1343F}' | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}'
        | '\u{E0001}' | '\u{E0020}'..='\u{E007F}'
        // Line and paragraph separators, which many displays do not break on.
        | '\u{2028}' | '\u{2029}'
        // Blank "letters" that show as nothing: the combining grapheme joiner, Hangul
        // fillers, Khmer inherent vowels, and the supplementary variation selectors.
        | '\u{34F}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}' | '\u{3164}'
        | '\u{FFA0}' | '\u{E0100}'..='\u{E01EF}'
    )
}

/// A zero-width joiner inside an emoji sequence (👩‍💻) stays: there it is visible as the
/// sequence it forms.
fn joins_emoji(chars: &[char], i: usize) -> bool {
    let emoji = |c: Option<&char>| {
        c.is_some_and(
            |&c| matches!(c, '\u{1F000}'..='\u{1FAFF}' | '\u{2600}'..='\u{27BF}' | '\u{FE0F}'),
        )
    };
    i > 0 && emoji(chars.get(i - 1)) && emoji(chars.get(i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_text_is_untouched_and_borrowed() {
        for text in [
            "plain\n\ttext",
            "crlf\r\nlines",
            "Grüße, 日本語, עברית",
            "👩\u{200D}💻 ❤\u{FE0F}",
        ] {
            assert!(matches!(visible(text), Cow::Borrowed(_)), "{text:?}");
        }
    }

    #[test]
    fn bidi_controls_are_shown() {
        // The classic: a file name that displays as "exe.txt" reversed.
        assert_eq!(visible("invoice\u{202E}txt.exe"), "invoice<U+202E>txt.exe");
        assert_eq!(visible("a\u{2066}b\u{2069}"), "a<U+2066>b<U+2069>");
    }

    #[test]
    fn invisible_and_terminal_characters_are_shown() {
        assert_eq!(visible("pass\u{200B}word"), "pass<U+200B>word");
        assert_eq!(visible("\u{1B}[2Jcleared"), "<U+001B>[2Jcleared");
        assert_eq!(visible("safe\rEVIL"), "safe<U+000D>EVIL");
        assert_eq!(visible("\u{FEFF}bom"), "<U+FEFF>bom");
        // ASCII spelled in tag characters: invisible, read by models.
        assert_eq!(visible("hi\u{E0069}"), "hi<U+E0069>");
        assert_eq!(visible("a\u{200D}b"), "a<U+200D>b");
        assert_eq!(visible("nul\0"), "nul<U+0000>");
    }
}
