//! `--format json`: one object with the policy, each file's verdict and findings, and a summary.

use serde::Serialize;

use super::{FileReport, Summary};
use crate::policy::{Finding, Policy};

#[derive(Serialize)]
struct Output<'a> {
    policy: PolicyInfo<'a>,
    files: Vec<File<'a>>,
    summary: &'a Summary,
}

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

pub fn render_json(policy: &Policy, reports: &[FileReport], summary: &Summary) -> String {
    let output = Output {
        policy: PolicyInfo {
            name: &policy.name,
            origin: &policy.origin,
            digest: &policy.digest,
        },
        files: reports
            .iter()
            .map(|r| File {
                path: &r.path,
                language: r.language.as_str(),
                verdict: r.verdict.as_str(),
                findings: &r.findings,
            })
            .collect(),
        summary,
    };
    serde_json::to_string_pretty(&output).expect("reports serialize") + "\n"
}
