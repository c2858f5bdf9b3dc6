//! Human output: compiler-style diagnostics, a line per file, a closing summary; and the
//! rule listing and explanations (`--list-rules`, `--explain`).

use std::fmt::Write;

use crate::analysis::Language;

use super::{FileReport, Summary};
use crate::diagnostic::render_snippet;
use crate::policy::{Action, Policy, Rule, format_size};

fn label(action: Action) -> &'static str {
    match action {
        Action::Deny => "error",
        Action::Warn => "warning",
        Action::Audit => "note",
    }
}

/// One file's diagnostics and its closing line.
pub(super) fn render_file(report: &FileReport, source: &str) -> String {
    let mut out = String::new();
    // Split once: a file with many findings would otherwise be scanned once per finding.
    let lines: Vec<&str> = if report.findings.is_empty() {
        Vec::new()
    } else {
        source.lines().collect()
    };
    for f in &report.findings {
        let _ = writeln!(out, "{}[{}]: {}", label(f.action), f.rule, f.detail);
        let width = f.span.map_or(1, |s| {
            source[s.start_byte..s.end_byte]
                .lines()
                .next()
                .map_or(1, |l| l.chars().count())
        });
        out.push_str(&render_snippet(
            &report.path,
            lines.get(f.line.wrapping_sub(1)).copied().unwrap_or(""),
            f.line,
            f.column,
            width,
            "",
        ));
        let pad = " ".repeat(f.line.to_string().len());
        let _ = writeln!(out, "{pad} = {}\n", f.message);
    }
    let _ = writeln!(
        out,
        "{}: {} ({} finding{})",
        report.path,
        report.verdict.as_str(),
        report.findings.len(),
        if report.findings.len() == 1 { "" } else { "s" }
    );
    out
}

/// The files' diagnostics in order, then the summary.
pub fn render_human(policy: &Policy, reports: &[FileReport], summary: &Summary) -> String {
    let mut out: String = reports.iter().map(|r| r.rendered.as_str()).collect();
    let _ = writeln!(
        out,
        "\nchecked {} file{} with policy {}: {} denied, {} warned, {} allowed{}",
        summary.files,
        if summary.files == 1 { "" } else { "s" },
        policy.name,
        summary.denied,
        summary.warned,
        summary.allowed,
        if summary.errors > 0 {
            format!(", {} unreadable", summary.errors)
        } else {
            String::new()
        }
    );
    out
}

pub fn list_rules(policy: &Policy) -> String {
    let mut out = format!(
        "policy {} ({})\n{}\n\n",
        policy.name, policy.origin, policy.description
    );
    let width = policy.rules.iter().map(|r| r.id.len()).max().unwrap_or(0);
    for rule in &policy.rules {
        let languages: Vec<&str> = rule.languages.iter().map(|l| l.as_str()).collect();
        let _ = writeln!(
            out,
            "{:width$}  {:5}  {:8}  {}",
            rule.id,
            rule.action.as_str(),
            rule.severity.as_str(),
            languages.join(",")
        );
    }
    write_allowlist(&mut out, &policy.allow);
    let l = &policy.limits;
    let _ = writeln!(
        out,
        "\nlimits: memory {}, cpus {}, pids {}, timeout {}s, output {} per stream, work dir {}, network none, runtime {}",
        format_size(l.memory_bytes),
        l.cpus,
        l.pids,
        l.timeout.as_secs_f64(),
        format_size(l.output_bytes),
        format_size(l.tmpfs_bytes),
        l.runtime.as_deref().unwrap_or("engine default"),
    );
    out
}

/// The policy's allowlist, if it has one: every module, name and attribute it allows.
fn write_allowlist(out: &mut String, allow: &crate::policy::Allowlist) {
    if allow.is_empty() {
        return;
    }
    let rules = |map: &std::collections::BTreeMap<String, crate::policy::MemberRule>| {
        map.iter()
            .map(|(name, rule)| match rule {
                crate::policy::MemberRule::All => name.clone(),
                crate::policy::MemberRule::Only(list) => format!(
                    "{name} [{}]",
                    list.iter()
                        .map(|p| p.text.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                crate::policy::MemberRule::Except(list) => format!(
                    "{name} [all but {}]",
                    list.iter()
                        .map(|p| p.text.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    for (language, section) in [
        (Language::Python, &allow.python),
        (Language::JavaScript, &allow.javascript),
    ] {
        let Some(section) = section else { continue };
        let _ = writeln!(out, "\nallowed in {language}:");
        let _ = writeln!(out, "  modules: {}", rules(&section.modules));
        let _ = writeln!(out, "  names: {}", rules(&section.names));
        let attributes: Vec<&str> = section.attributes.iter().map(|p| p.text.as_str()).collect();
        let _ = writeln!(out, "  attributes: {}", attributes.join(", "));
    }
    let mut paths = vec![
        "the work dir (relative paths)".to_owned(),
        "/tmp".to_owned(),
    ];
    paths.extend(allow.paths.iter().filter(|p| *p != "/tmp").cloned());
    let _ = writeln!(out, "  files under: {}", paths.join(", "));
    if allow.require_installed {
        let _ = writeln!(
            out,
            "  require_installed: an allowed module must also be installed in the sandbox image (its manifest; see sandbox://environments)"
        );
    }
}

/// A rule of `policy` explained: why, an example, what to write instead, what it matches.
pub fn explain_rule(policy: &Policy, rule: &Rule) -> String {
    let languages: Vec<&str> = rule.languages.iter().map(|l| l.as_str()).collect();
    let mut out = format!(
        "{} ({} severity, action {}, {})\n\n## Why\n{}\n\n## Example\n{}\n\n## Instead\n{}\n\n## Message to the agent\n{}\n\n## Matches\n",
        rule.id,
        rule.severity.as_str(),
        rule.action.as_str(),
        languages.join(", "),
        rule.docs.why.trim(),
        indent(rule.docs.example.trim()),
        indent(rule.docs.instead.trim()),
        rule.message,
    );
    let required = policy.allow.require_installed;
    describe_matcher(&mut out, &rule.matcher, "", required);
    for (language, section) in &rule.matcher.sections {
        let _ = writeln!(out, "- in {language} only:");
        describe_matcher(&mut out, section, "  ", required);
    }
    out
}

/// One line per key of a rule's `match` section.
fn describe_matcher(
    out: &mut String,
    m: &crate::policy::Matcher,
    indent: &str,
    require_installed: bool,
) {
    let list = |names: &[crate::policy::NamePattern]| {
        names
            .iter()
            .map(|n| n.text.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !m.modules.is_empty() {
        let _ = writeln!(out, "{indent}- imports of: {}", list(&m.modules));
    }
    if !m.names.is_empty() {
        let _ = writeln!(out, "{indent}- uses of: {}", list(&m.names));
    }
    if !m.calls.is_empty() {
        let _ = write!(out, "{indent}- calls of: {}", list(&m.calls));
        if let Some(a) = &m.arguments {
            let _ = write!(out, " with a constant argument matching /{a}/");
        }
        if let Some(e) = &m.arguments_except {
            let _ = write!(out, ", except with an argument matching /{e}/");
        }
        out.push('\n');
    }
    if !m.dynamic.is_empty() {
        let kinds: Vec<&str> = m.dynamic.iter().map(|k| k.as_str()).collect();
        let _ = writeln!(
            out,
            "{indent}- constructs the analyzer reports as: {}",
            kinds.join(", ")
        );
    }
    for s in &m.strings {
        let _ = writeln!(out, "{indent}- string constants matching /{s}/");
    }
    for s in &m.path_names {
        let _ = writeln!(out, "{indent}- file paths matching /{s}/");
    }
    for kind in &m.unlisted {
        let what = match kind {
            crate::policy::Unlisted::Modules => "imports of modules the allowlist does not list",
            crate::policy::Unlisted::Names => {
                "uses of members, builtins and globals the allowlist does not list"
            }
            crate::policy::Unlisted::Attributes => "special attributes the allowlist does not list",
        };
        let _ = writeln!(out, "{indent}- {what}");
        if require_installed && *kind == crate::policy::Unlisted::Modules {
            let _ = writeln!(
                out,
                "{indent}- imports of modules the allowlist lists but the sandbox image does not have (`allow.require_installed`; judged when serving and running, where the image is known)"
            );
        }
    }
    for kind in &m.paths {
        let what = match kind {
            crate::policy::PathMatch::Outside => {
                "file paths outside the work dir, /tmp and the allowed directories"
            }
            crate::policy::PathMatch::Unproven => "file paths the analyzer cannot fold",
        };
        let _ = writeln!(out, "{indent}- {what}");
    }
    if m.query.is_some() {
        let _ = writeln!(out, "{indent}- a raw tree-sitter query");
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
