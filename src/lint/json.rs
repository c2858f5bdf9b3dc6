//! `--format json`: one object with the policy, each file's verdict and findings, and a summary.
//!
//! Each file's object is written by the worker that judged it ([`render_file`]); the document
//! around them is put together here, laid out exactly as `serde_json`'s pretty printer would lay
//! out the whole (which the tests check).

use std::io::{self, IoSlice, Write};

use serde::Serialize;

use super::{FileReport, Summary};
use crate::policy::{Finding, Policy};

#[derive(Serialize)]
struct PolicyInfo<'a> {
    name: &'a str,
    origin: &'a str,
    digest: &'a str,
}

#[derive(Serialize)]
struct File<'a> {
    path: &'a str,
    language: &'a str,
    verdict: &'a str,
    findings: &'a [Finding],
}

impl<'a> File<'a> {
    fn of(report: &'a FileReport) -> File<'a> {
        File {
            path: &report.path,
            language: report.language.as_str(),
            verdict: report.verdict.as_str(),
            findings: &report.findings,
        }
    }
}

/// Indentation of a file's object in the document: inside `files`, inside the top object.
const FILE_INDENT: &str = "    ";

/// One file's object, pretty-printed and indented as it stands in the document.
pub(super) fn render_file(report: &FileReport) -> String {
    indented(&File::of(report), FILE_INDENT)
}

pub fn render_json(policy: &Policy, reports: &[FileReport], summary: &Summary) -> String {
    let files: usize = reports
        .iter()
        .map(|r| r.rendered.len() + 2 + FILE_INDENT.len())
        .sum();
    let mut out = Vec::with_capacity(files + 1024);
    write_json(policy, reports, summary, &mut out).expect("a Vec takes every write");
    String::from_utf8(out).expect("every part is UTF-8")
}

/// The document [`render_json`] makes, written part by part: the files' parts go straight to
/// `out` (in as few system calls as `out` allows), with no copy of the whole (megabytes over a
/// large directory) made first.
pub fn write_json(
    policy: &Policy,
    reports: &[FileReport],
    summary: &Summary,
    out: &mut impl Write,
) -> io::Result<()> {
    let policy = PolicyInfo {
        name: &policy.name,
        origin: &policy.origin,
        digest: &policy.digest,
    };
    let policy = indented(&policy, "  ");
    let summary = indented(summary, "  ");
    let mut parts = Vec::with_capacity(2 * reports.len() + 6);
    parts.push(IoSlice::new(b"{\n  \"policy\": "));
    parts.push(IoSlice::new(policy.as_bytes()));
    parts.push(IoSlice::new(b",\n  \"files\": ["));
    for (i, report) in reports.iter().enumerate() {
        let before: &[u8] = if i == 0 { b"\n    " } else { b",\n    " };
        parts.push(IoSlice::new(before));
        parts.push(IoSlice::new(report.rendered.as_bytes()));
    }
    let after_files: &[u8] = if reports.is_empty() {
        b"],\n  \"summary\": "
    } else {
        b"\n  ],\n  \"summary\": "
    };
    parts.push(IoSlice::new(after_files));
    parts.push(IoSlice::new(summary.as_bytes()));
    parts.push(IoSlice::new(b"\n}\n"));
    write_all_vectored(out, &mut parts)
}

/// `Write::write_all` for many slices at once (the standard library's is not stable yet).
fn write_all_vectored(out: &mut impl Write, mut parts: &mut [IoSlice]) -> io::Result<()> {
    while !parts.is_empty() {
        match out.write_vectored(parts) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(written) => IoSlice::advance_slices(&mut parts, written),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// `value` laid out as `serde_json`'s pretty printer lays it out, with every line after the
/// first indented by `indent` more: as it stands inside the document. Written in one pass by
/// [`Nested`] rather than indented afterwards, which copied every file's part once more.
fn indented(value: &impl Serialize, indent: &'static str) -> String {
    let mut out = Vec::with_capacity(1024);
    let formatter = Nested {
        outer: indent.as_bytes(),
        depth: 0,
        has_value: false,
    };
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    value.serialize(&mut serializer).expect("reports serialize");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// `serde_json`'s pretty layout (two spaces per level, `"key": value`, empty arrays and
/// objects as `[]` and `{}`), starting `outer` in from the left margin.
struct Nested {
    outer: &'static [u8],
    depth: usize,
    /// Whether the array or object being written has an element yet.
    has_value: bool,
}

impl Nested {
    fn new_line<W: ?Sized + std::io::Write>(&self, writer: &mut W) -> std::io::Result<()> {
        writer.write_all(b"\n")?;
        writer.write_all(self.outer)?;
        for _ in 0..self.depth {
            writer.write_all(b"  ")?;
        }
        Ok(())
    }

    fn begin<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        open: &[u8],
    ) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        writer.write_all(open)
    }

    fn end<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        close: &[u8],
    ) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.new_line(writer)?;
        }
        writer.write_all(close)
    }

    fn element<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if !first {
            writer.write_all(b",")?;
        }
        self.new_line(writer)
    }
}

impl serde_json::ser::Formatter for Nested {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.begin(writer, b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.end(writer, b"]")
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.element(writer, first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        _writer: &mut W,
    ) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.begin(writer, b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.end(writer, b"}")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.element(writer, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
    ) -> std::io::Result<()> {
        writer.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        _writer: &mut W,
    ) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Language;
    use crate::lint::{Format, lint_source};

    fn pretty(value: &impl Serialize) -> String {
        serde_json::to_string_pretty(value).expect("reports serialize")
    }

    /// The whole document, as one value.
    #[derive(Serialize)]
    struct Output<'a> {
        policy: PolicyInfo<'a>,
        files: Vec<File<'a>>,
        summary: &'a Summary,
    }

    /// The document put together from the files' parts is byte for byte what `serde_json`
    /// prints for the whole: with no file, one, and several, with and without findings and
    /// with text that needs escaping.
    #[test]
    fn document_is_serde_jsons_layout() {
        let policy = crate::policy::load("standard").unwrap();
        let snippets: [(&str, Language, &str); 4] = [
            (
                "a.py",
                Language::Python,
                "import os\nos.system('ls \"x\"\\n')\n",
            ),
            ("b\\\"c.js", Language::JavaScript, "const x = 1\n"),
            (
                "d.py",
                Language::Python,
                "eval(input())\nopen('/etc/passwd')\n",
            ),
            (
                "e.js",
                Language::JavaScript,
                "require('child_process').exec('id')\n",
            ),
        ];
        let reports: Vec<FileReport> = snippets
            .iter()
            .map(|(path, language, code)| {
                lint_source(&policy, path, *language, code.as_bytes(), Format::Json)
            })
            .collect();
        assert!(reports.iter().any(|r| r.findings.len() > 1));
        assert!(reports.iter().any(|r| r.findings.is_empty()));
        for count in [0, 1, reports.len()] {
            let some = &reports[..count];
            let summary = Summary::of(some, 0);
            let whole = Output {
                policy: PolicyInfo {
                    name: &policy.name,
                    origin: &policy.origin,
                    digest: &policy.digest,
                },
                files: some.iter().map(File::of).collect(),
                summary: &summary,
            };
            assert_eq!(
                render_json(&policy, some, &summary),
                pretty(&whole) + "\n",
                "{count} files"
            );
        }
    }
}
