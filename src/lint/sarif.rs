//! `--format sarif`: SARIF 2.1.0, as GitHub code scanning and other SAST dashboards read it.

use serde_sarif::sarif::{
    ArtifactLocation, Location, Message, MultiformatMessageString, PhysicalLocation, Region,
    ReportingConfiguration, ReportingDescriptor, Result as SarifResult, ResultLevel, Run, Sarif,
    Tool, ToolComponent,
};

use super::FileReport;
use crate::policy::{Action, Policy};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

fn level(action: Action) -> ResultLevel {
    match action {
        Action::Deny => ResultLevel::Error,
        Action::Warn => ResultLevel::Warning,
        Action::Audit => ResultLevel::Note,
    }
}

fn text(s: &str) -> MultiformatMessageString {
    MultiformatMessageString::builder()
        .text(s.to_owned())
        .build()
}

/// A report path as a SARIF artifact URI: relative, forward slashes, no `./`.
fn uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    path.strip_prefix("./").unwrap_or(&path).to_owned()
}

pub fn render_sarif(policy: &Policy, reports: &[FileReport]) -> String {
    let rules: Vec<ReportingDescriptor> = policy
        .rules
        .iter()
        .map(|r| {
            let level_name = match r.action {
                Action::Deny => "error",
                Action::Warn => "warning",
                Action::Audit => "note",
            };
            ReportingDescriptor::builder()
                .id(r.id.clone())
                .short_description(text(&r.message))
                .full_description(text(r.docs.why.trim()))
                .help(text(&format!(
                    "{}\n\nInstead:\n{}",
                    r.docs.why.trim(),
                    r.docs.instead.trim()
                )))
                .default_configuration(
                    ReportingConfiguration::builder()
                        .level(serde_json::json!(level_name))
                        .build(),
                )
                .build()
        })
        .collect();
    let driver = ToolComponent::builder()
        .name("sandbox-lint")
        .version(env!("CARGO_PKG_VERSION"))
        .semantic_version(env!("CARGO_PKG_VERSION"))
        .rules(rules)
        .build();
    let results: Vec<SarifResult> = reports
        .iter()
        .flat_map(|report| {
            report.findings.iter().map(|f| {
                let region = Region::builder()
                    .start_line(i64::try_from(f.line).unwrap_or(i64::MAX))
                    .start_column(i64::try_from(f.column).unwrap_or(i64::MAX))
                    .build();
                let location = Location::builder()
                    .physical_location(
                        PhysicalLocation::builder()
                            .artifact_location(
                                ArtifactLocation::builder().uri(uri(&report.path)).build(),
                            )
                            .region(region)
                            .build(),
                    )
                    .build();
                SarifResult::builder()
                    .rule_id(f.rule.clone())
                    .level(level(f.action))
                    .message(
                        Message::builder()
                            .text(format!("{}: {}", f.detail, f.message))
                            .build(),
                    )
                    .locations(vec![location])
                    .build()
            })
        })
        .collect();
    let run = Run::builder()
        .tool(Tool::builder().driver(driver).build())
        .results(results)
        .column_kind(serde_json::json!("unicodeCodePoints"))
        .build();
    let sarif = Sarif::builder()
        .schema(SCHEMA)
        .version(serde_json::json!("2.1.0"))
        .runs(vec![run])
        .build();
    serde_json::to_string_pretty(&sarif).expect("SARIF serializes") + "\n"
}
