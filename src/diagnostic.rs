//! Compiler-style source snippets, shared by policy errors and lint findings.

/// Renders `file:line:column`, the source line (`text`, line `line` of the file: callers with
/// many findings split the file once), and a marker under `width` characters:
///
/// ```text
///   --> job.py:3:1
///    |
///  3 | os.system('id')
///    | ^^^^^^^^^ calls `os.system`
/// ```
pub fn render_snippet(
    file: &str,
    text: &str,
    line: usize,
    column: usize,
    width: usize,
    label: &str,
) -> String {
    let text = sanitize(text);
    let gutter = line.to_string().len();
    let pad = " ".repeat(gutter);
    let shown_width = width.clamp(1, text.chars().count().saturating_sub(column - 1).max(1));
    let marker = format!(
        "{}{}",
        " ".repeat(column.saturating_sub(1)),
        "^".repeat(shown_width)
    );
    let label = if label.is_empty() {
        String::new()
    } else {
        format!(" {label}")
    };
    format!("{pad}--> {file}:{line}:{column}\n{pad} |\n{line} | {text}\n{pad} | {marker}{label}\n")
}

/// Replaces control characters (a hostile snippet's terminal escapes, tabs that would misalign
/// the marker) with visible or single-width stand-ins.
fn sanitize(line: &str) -> String {
    line.chars()
        .map(|c| match c {
            '\t' => ' ',
            c if c.is_control() => '\u{FFFD}',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_the_column() {
        let out = render_snippet("a.py", "os.system('id')", 2, 1, 9, "calls `os.system`");
        assert_eq!(
            out,
            " --> a.py:2:1\n  |\n2 | os.system('id')\n  | ^^^^^^^^^ calls `os.system`\n"
        );
    }

    #[test]
    fn escapes_are_neutralized() {
        let out = render_snippet("a.js", "x = '\u{1b}[2J'", 1, 1, 1, "");
        assert!(!out.contains('\u{1b}'));
    }
}
