//! Judging an analysis against a policy: which rules match which facts, and the verdict.

use serde::Serialize;

use super::{Action, Allowlist, Installed, Matcher, PathMatch, Policy, Rule, Severity, Unlisted};
use crate::analysis::{Analysis, FactKind, Language, Span};
use crate::workdir::{FileError, InputFile};

/// The outcome for a snippet: the strongest action among its findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Allow,
    Warn,
    Deny,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Warn => "warn",
            Verdict::Deny => "deny",
        }
    }
}

/// One rule matched at one place.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Finding {
    pub rule: String,
    pub severity: Severity,
    pub action: Action,
    /// What the agent should do instead (the rule's message).
    pub message: String,
    /// What matched, e.g. "calls `os.system`".
    pub detail: String,
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    #[serde(skip)]
    #[schemars(skip)]
    pub span: Option<Span>,
}

#[derive(Debug, Clone)]
pub struct Judgement {
    pub verdict: Verdict,
    pub findings: Vec<Finding>,
}

impl Policy {
    /// Applies every rule for the analysis's language to its facts. One finding per rule and
    /// line; findings in source order.
    pub fn judge(&self, analysis: &Analysis) -> Judgement {
        self.judge_in(analysis, None)
    }

    /// [`Policy::judge`] for a snippet about to run in a known image: an allowlist that
    /// requires allowed modules to be installed also judges the imports against it.
    pub fn judge_in(&self, analysis: &Analysis, installed: Option<&Installed<'_>>) -> Judgement {
        let mut findings = Vec::new();
        let mut seen = foldhash::HashSet::default();
        // A fact (or a line) a specific rule already denies is not also reported as merely
        // unlisted: `import subprocess` is a process escape, not an unknown module.
        let mut denied_facts = foldhash::HashSet::default();
        let mut denied_lines = foldhash::HashSet::default();
        let language = analysis.language;
        let rules: Vec<&Rule> = self
            .rules
            .iter()
            .filter(|r| r.languages.contains(&language))
            .collect();
        let (allowlist_rules, specific_rules): (Vec<&Rule>, Vec<&Rule>) =
            rules.into_iter().partition(|r| r.uses_allowlist());
        for rule in specific_rules.into_iter().chain(allowlist_rules) {
            let mut hit = |span: Span, detail: String| {
                if seen.insert((rule.id.as_str(), span.start_byte)) {
                    findings.push(finding(rule, span, detail));
                }
            };
            let matchers: Vec<&Matcher> = std::iter::once(&rule.matcher)
                .chain(
                    rule.matcher
                        .sections
                        .iter()
                        .filter(|(language, _)| *language == analysis.language)
                        .map(|(_, section)| section),
                )
                .collect();
            let judges_allowlist = rule.uses_allowlist();
            let kinds = matchers.iter().fold(0, |all, m| all | kinds_matched(m));
            for (index, fact) in analysis.facts.iter().enumerate() {
                if kinds & kind_bit(&fact.kind) == 0 {
                    continue;
                }
                let line_denied = denied_lines.contains(&fact.span.line);
                if judges_allowlist && (denied_facts.contains(&index) || line_denied) {
                    continue;
                }
                let detail = matchers
                    .iter()
                    .find_map(|m| matches(m, &fact.kind, &self.allow, language, installed));
                if let Some(detail) = detail {
                    if rule.action == Action::Deny {
                        denied_facts.insert(index);
                        denied_lines.insert(fact.span.line);
                    }
                    hit(fact.span, detail);
                }
            }
            for query in matchers.iter().filter_map(|m| m.query.as_ref()) {
                match analysis.query(query) {
                    Ok(spans) => {
                        for span in spans {
                            hit(span, "matches the rule's tree-sitter query".to_owned());
                        }
                    }
                    Err(limit) => hit(
                        Span {
                            start_byte: 0,
                            end_byte: 0,
                            line: 1,
                            column: 1,
                        },
                        format!("the rule's query could not finish: {limit}"),
                    ),
                }
            }
        }
        findings.sort_by(|a, b| (a.line, a.column, &a.rule).cmp(&(b.line, b.column, &b.rule)));
        // One finding per rule and line: `open("/etc/passwd")` is one problem, not a call and
        // a string.
        let mut reported = foldhash::HashSet::default();
        findings.retain(|f| reported.insert((f.rule.clone(), f.line)));
        let verdict = findings
            .iter()
            .map(|f| match f.action {
                Action::Deny => Verdict::Deny,
                Action::Warn => Verdict::Warn,
                Action::Audit => Verdict::Allow,
            })
            .max()
            .unwrap_or(Verdict::Allow);
        Judgement { verdict, findings }
    }
}

fn finding(rule: &Rule, span: Span, detail: String) -> Finding {
    Finding {
        rule: rule.id.clone(),
        severity: rule.severity,
        action: rule.action,
        message: rule.message.clone(),
        detail,
        line: span.line,
        column: span.column,
        span: Some(span),
    }
}

impl Rule {
    /// True for a rule that reports what the allowlist does not allow.
    fn uses_allowlist(&self) -> bool {
        !self.matcher.unlisted.is_empty()
            || self
                .matcher
                .sections
                .iter()
                .any(|(_, s)| !s.unlisted.is_empty())
    }
}

/// One bit per kind of fact, for [`kinds_matched`].
mod kind_bits {
    pub const IMPORT: u8 = 1;
    pub const USE: u8 = 1 << 1;
    pub const ATTRIBUTE: u8 = 1 << 2;
    pub const PATH: u8 = 1 << 3;
    pub const DYNAMIC: u8 = 1 << 4;
    pub const LITERAL: u8 = 1 << 5;
}

fn kind_bit(fact: &FactKind) -> u8 {
    match fact {
        FactKind::Import { .. } => kind_bits::IMPORT,
        FactKind::Use { .. } => kind_bits::USE,
        FactKind::Attribute { .. } => kind_bits::ATTRIBUTE,
        FactKind::Path { .. } => kind_bits::PATH,
        FactKind::Dynamic { .. } => kind_bits::DYNAMIC,
        FactKind::Literal { .. } => kind_bits::LITERAL,
    }
}

/// The kinds of fact [`matches`] can match for `m` (it answers `None` for the others), so
/// judging skips the rest without trying every pattern of the rule on them.
fn kinds_matched(m: &Matcher) -> u8 {
    use kind_bits::*;
    if !m.unlisted.is_empty() {
        return m.unlisted.iter().fold(0, |all, kind| {
            all | match kind {
                Unlisted::Modules => IMPORT,
                Unlisted::Names => USE,
                Unlisted::Attributes => ATTRIBUTE,
            }
        });
    }
    let lists = [
        (IMPORT, m.modules.is_empty()),
        (USE, m.names.is_empty() && m.calls.is_empty()),
        (PATH, m.paths.is_empty() && m.path_names.is_empty()),
        (DYNAMIC, m.dynamic.is_empty()),
        (LITERAL, m.strings.is_empty()),
    ];
    lists
        .into_iter()
        .filter(|&(_, empty)| !empty)
        .fold(0, |all, (bit, _)| all | bit)
}

/// Why `fact` matches `matcher`, if it does.
fn matches(
    m: &Matcher,
    fact: &FactKind,
    allow: &Allowlist,
    language: Language,
    installed: Option<&Installed<'_>>,
) -> Option<String> {
    if !m.unlisted.is_empty() {
        let kind = match fact {
            FactKind::Import { .. } => Unlisted::Modules,
            FactKind::Use { .. } => Unlisted::Names,
            FactKind::Attribute { .. } => Unlisted::Attributes,
            _ => return None,
        };
        if !m.unlisted.contains(&kind) {
            return None;
        }
        return match allow.judge(language, fact, installed)? {
            Ok(()) => None,
            Err(denied) => Some(denied.0),
        };
    }
    match fact {
        FactKind::Import { module } => m
            .modules
            .iter()
            .any(|p| p.matches(module))
            .then(|| format!("imports `{module}`")),
        FactKind::Use {
            name, called, args, ..
        } => {
            if m.names.iter().any(|p| p.matches(name)) {
                let verb = if *called { "calls" } else { "uses" };
                return Some(format!("{verb} `{name}`"));
            }
            if !m.calls.iter().any(|p| p.matches(name)) {
                return None;
            }
            let exempt =
                |arg: &String| m.arguments_except.as_ref().is_some_and(|e| e.is_match(arg));
            match (&m.arguments, &m.arguments_except) {
                // Narrowed: a call with some argument that matches and is not exempt.
                (Some(pattern), _) => args
                    .iter()
                    .find(|arg| pattern.is_match(arg) && !exempt(arg))
                    .filter(|_| *called)
                    .map(|arg| format!("calls `{name}` with {:?}", truncate(arg, 80))),
                // Only exemptions: every use matches except a call with an exempt argument; a
                // reference hands the function on to be called with arguments unknown.
                (None, Some(_)) if !*called => Some(format!("uses `{name}`")),
                (None, Some(_)) => (!args.iter().any(exempt)).then(|| format!("calls `{name}`")),
                (None, None) => called.then(|| format!("calls `{name}`")),
            }
        }
        FactKind::Dynamic { kind, detail } => m
            .dynamic
            .contains(kind)
            .then(|| format!("{kind}: {detail}")),
        FactKind::Path { function, path } => match path {
            None if m.paths.contains(&PathMatch::Unproven) => Some(format!(
                "calls `{function}` with a path the analyzer cannot fold to a constant"
            )),
            Some(p) if m.paths.contains(&PathMatch::Outside) && !allow.path_inside(p) => {
                Some(format!("calls `{function}` with {:?}", truncate(p, 80)))
            }
            Some(p) if m.path_names.iter().any(|r| r.is_match(p)) => {
                Some(format!("calls `{function}` with {:?}", truncate(p, 80)))
            }
            _ => None,
        },
        FactKind::Attribute { .. } => None,
        FactKind::Literal { value } => m
            .strings
            .iter()
            .any(|r| r.is_match(value))
            .then(|| format!("string {:?}", truncate(value, 80))),
    }
}

impl Policy {
    /// Input files are written into the work dir, where a library may load them as code (an
    /// optional dependency pandas imports by name, a `matplotlibrc`): a file whose name a
    /// denying rule's `path_names` matches (strict's `code-file-written`) is refused, as the
    /// snippet writing it would be.
    pub fn check_input_files(&self, files: &[InputFile]) -> Result<(), FileError> {
        for (index, file) in files.iter().enumerate() {
            let refusing = self.rules.iter().find(|rule| {
                rule.action == Action::Deny
                    && std::iter::once(&rule.matcher)
                        .chain(rule.matcher.sections.iter().map(|(_, m)| m))
                        .any(|m| m.path_names.iter().any(|r| r.is_match(&file.path)))
            });
            if let Some(rule) = refusing {
                return Err(FileError {
                    index,
                    path: file.path.clone(),
                    problem: format!(
                        "the interpreter or a library would load a file of this name as code, \
                         which the policy's rule `{}` refuses: {}",
                        rule.id, rule.message
                    ),
                });
            }
        }
        Ok(())
    }
}

fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::{Language, analyze};
    use crate::policy::load;

    fn verdict(policy: &str, language: Language, code: &str) -> super::Verdict {
        load(policy)
            .unwrap()
            .judge(&analyze(language, code.as_bytes()))
            .verdict
    }

    #[test]
    fn presets_give_the_promised_verdicts() {
        use super::Verdict::*;
        let py = Language::Python;
        assert_eq!(verdict("standard", py, "import os\nos.system('id')"), Deny);
        assert_eq!(
            verdict("permissive", py, "import os\nos.system('id')"),
            Allow
        );
        assert_eq!(verdict("standard", py, "import socket"), Warn);
        assert_eq!(verdict("strict", py, "import socket"), Deny);
        assert_eq!(verdict("strict", py, "print(sum(range(10)))"), Allow);
        assert_eq!(verdict("strict", py, "open('/etc/passwd').read()"), Deny);
        assert_eq!(
            verdict("strict", py, "open('data.csv', 'w').write('x')"),
            Allow
        );
        assert_eq!(verdict("strict", py, "open('/work/out.txt', 'w')"), Allow);
        assert_eq!(verdict("strict", py, "open('/tmp/../etc/shadow')"), Deny);
        assert_eq!(verdict("strict", py, "open('../secret')"), Deny);
        let js = Language::JavaScript;
        assert_eq!(
            verdict("standard", js, "require('child_process').exec('id')"),
            Deny
        );
        assert_eq!(
            verdict("standard", js, "console.log(process.env.HOME)"),
            Warn
        );
        assert_eq!(
            verdict("strict", js, "console.log([1,2].map(x => x * 2))"),
            Allow
        );
    }

    #[test]
    fn language_sections_and_arguments() {
        use super::Verdict::*;
        let py = Language::Python;
        let js = Language::JavaScript;
        // Node's http module is network access; Python's http package is not.
        assert_eq!(verdict("strict", js, "require('http')"), Deny);
        assert_eq!(verdict("strict", py, "from http import HTTPStatus"), Allow);
        assert_eq!(verdict("strict", py, "process.env"), Allow);
        assert_eq!(verdict("strict", js, "process.env"), Deny);
        // Any path argument counts, and keyword arguments naming files do too.
        assert_eq!(
            verdict("strict", py, "import shutil\nshutil.copy('a', '/opt/x')"),
            Deny
        );
        assert_eq!(verdict("strict", py, "open(file='/opt/x')"), Deny);
        assert_eq!(verdict("strict", py, "open('a.txt', 'w')"), Allow);
        // `arguments_except` alone exempts matching calls only.
        assert_eq!(
            verdict("strict", py, "import sys\nsys.setrecursionlimit(5000)"),
            Allow
        );
        assert_eq!(
            verdict("strict", py, "import sys\nsys.setrecursionlimit(n)"),
            Deny
        );
    }

    #[test]
    fn require_installed_denies_an_allowed_module_the_image_lacks() {
        use super::Verdict::*;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.yaml");
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/policies/fixtures/strict-team-wheels.yaml"
        );
        std::fs::write(&path, format!("name: t\nextends: {fixture}\n")).unwrap();
        let policy = load(path.to_str().unwrap()).unwrap();
        assert!(policy.allow.require_installed);
        let has =
            |module: &str| ["math", "sandboxtinypkg"].contains(&module.split('.').next().unwrap());
        let installed = crate::policy::Installed {
            image: "team-image:1",
            has: &has,
        };
        let judge = |code: &str, installed: Option<&crate::policy::Installed<'_>>| {
            policy.judge_in(&analyze(Language::Python, code.as_bytes()), installed)
        };
        // Widened: the wheel's module is allowed by the policy file, and installed.
        let code = "import math\nimport sandboxtinypkg\nprint(sandboxtinypkg.hello())";
        assert_eq!(judge(code, Some(&installed)).verdict, Allow);
        // Allowed but not installed: denied, naming the image and the fix.
        let judgement = judge("import sandboxabsentpkg", Some(&installed));
        assert_eq!(judgement.verdict, Deny);
        let detail = &judgement.findings[0].detail;
        assert!(
            detail.contains("team-image:1") && detail.contains("--wheelhouse"),
            "{detail}"
        );
        // Where no image is known (sandbox-lint), only the allowlist judges.
        assert_eq!(judge("import sandboxabsentpkg", None).verdict, Allow);
        // Not allowed at all stays denied as unlisted, installed or not.
        assert_eq!(judge("import socket", Some(&installed)).verdict, Deny);
        // A policy extending it may turn the requirement off again.
        std::fs::write(
            &path,
            format!("name: t\nextends: {fixture}\nallow:\n  require_installed: false\n"),
        )
        .unwrap();
        assert!(
            !load(path.to_str().unwrap())
                .unwrap()
                .allow
                .require_installed
        );
    }

    #[test]
    fn findings_carry_rule_message_and_position() {
        let policy = load("standard").unwrap();
        let judgement = policy.judge(&analyze(Language::Python, b"x = 1\nimport subprocess\n"));
        let f = &judgement.findings[0];
        assert_eq!((f.rule.as_str(), f.line, f.column), ("process-exec", 2, 8));
        assert!(f.message.contains("Do the work in the"));
    }

    #[test]
    fn strict_refuses_input_files_named_like_code() {
        use crate::workdir::InputFile;
        let file = |path: &str| InputFile {
            path: path.to_owned(),
            content: b"import os".to_vec(),
        };
        let strict = crate::policy::load("strict").unwrap();
        for name in [
            "tabulate.py",
            "lib/__init__.py",
            "matplotlibrc",
            "x.pth",
            "m.so",
        ] {
            let refused = strict.check_input_files(&[file("data.csv"), file(name)]);
            let error = refused.expect_err(name);
            assert_eq!((error.index, error.path.as_str()), (1, name));
            assert!(error.problem.contains("code-file-written"), "{error}");
        }
        assert!(
            strict
                .check_input_files(&[file("data.csv"), file("notes/a.txt")])
                .is_ok()
        );
        let standard = crate::policy::load("standard").unwrap();
        assert!(standard.check_input_files(&[file("mine.py")]).is_ok());
    }
}
