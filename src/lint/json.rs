//! `--format json`: one object with the policy, each file's verdict and findings, and a summary.
//!
//! Each file's object is written by the worker that judged it ([`render_file`]); the document
//! around them is put together here, laid out exactly as `serde_json`'s pretty printer would lay
//! out the whole (which the tests check).

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
    indented(&pretty(&File::of(report)), FILE_INDENT)
}

pub fn render_json(policy: &Policy, reports: &[FileReport], summary: &Summary) -> String {
    let policy = PolicyInfo {
        name: &policy.name,
        origin: &policy.origin,
        digest: &policy.digest,
    };
    let files: usize = reports
        .iter()
        .map(|r| r.rendered.len() + 2 + FILE_INDENT.len())
        .sum();
    let mut out = String::with_capacity(files + 1024);
    out.push_str("{\n  \"policy\": ");
    out.push_str(&indented(&pretty(&policy), "  "));
    out.push_str(",\n  \"files\": [");
    for (i, report) in reports.iter().enumerate() {
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        out.push_str(FILE_INDENT);
        out.push_str(&report.rendered);
    }
    if !reports.is_empty() {
        out.push_str("\n  ");
    }
    out.push_str("],\n  \"summary\": ");
    out.push_str(&indented(&pretty(summary), "  "));
    out.push_str("\n}\n");
    out
}

fn pretty(value: &impl Serialize) -> String {
    serde_json::to_string_pretty(value).expect("reports serialize")
}

/// `json` with every line after the first indented by `indent`. JSON strings hold no raw
/// line breaks (they are escaped), so every line break is the layout's.
fn indented(json: &str, indent: &str) -> String {
    json.replace('\n', &format!("\n{indent}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Language;
    use crate::lint::{Format, lint_source};

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
