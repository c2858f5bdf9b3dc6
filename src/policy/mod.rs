//! Policies: YAML rules judged against the analyzer's facts, plus the sandbox limits.
//!
//! The policy sees facts, never syntax trees (raw queries are run by the analysis module on
//! its behalf), and it knows nothing about containers: it hands [`Limits`] to whoever runs code.

mod allow;
mod eval;
mod load;
pub mod model;

use std::time::Duration;

use regex::Regex;
use sha2::{Digest, Sha256};

use crate::analysis::{DynamicKind, Language, RawQuery};
pub use allow::{Allowlist, Installed, MemberRule};
pub use eval::{Finding, Judgement, Verdict};
pub use load::{DEFAULT_POLICY, PRESETS, PolicyError, format_size, load, load_str, parse_size};
pub use model::{Action, Network, PathMatch, RuleDocs, Severity, Unlisted};

/// A loaded, validated policy.
#[derive(Debug)]
pub struct Policy {
    pub name: String,
    pub description: String,
    /// Where it was loaded from: a path, or `<preset NAME>`.
    pub origin: String,
    /// SHA-256 of the policy text and everything it extends, for audit records.
    pub digest: String,
    pub limits: Limits,
    pub rules: Vec<Rule>,
    /// What snippets may use at all; empty when the policy has no `allow` section.
    pub allow: Allowlist,
}

impl Policy {
    pub fn rule(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.id == id)
    }
}

/// Resource limits for one execution, in concrete units.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    pub memory_bytes: u64,
    pub cpus: f64,
    pub pids: u32,
    pub timeout: Duration,
    /// Cap on each of stdout and stderr.
    pub output_bytes: u64,
    pub tmpfs_bytes: u64,
    /// Most figures returned per run, and the largest PNG of one.
    pub figures: u32,
    pub figure_bytes: u64,
    /// Most files sent in per call, and their total size.
    pub files_in: u32,
    pub files_in_bytes: u64,
    /// Most files returned per run, and their total size.
    pub files_out: u32,
    pub files_out_bytes: u64,
    pub network: Network,
    /// Container runtime; `None` is the engine's default.
    pub runtime: Option<String>,
    /// Whether the work dir is on a Python snippet's module path (its own modules import).
    /// Not under a policy that lists the modules a snippet may import (see `load`).
    pub own_modules: bool,
    /// Whether the snippet's process may start other programs (`execve`). Not under a policy
    /// that denies `process-exec`: the kernel then refuses what the analyzer denies, even to
    /// code that reached it past the analysis (a native library's memory bug).
    pub start_programs: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory_bytes: 512 << 20,
            cpus: 1.0,
            pids: 128,
            timeout: Duration::from_secs(30),
            output_bytes: 1 << 20,
            tmpfs_bytes: 64 << 20,
            figures: 16,
            figure_bytes: 4 << 20,
            files_in: 32,
            files_in_bytes: 16 << 20,
            files_out: 32,
            files_out_bytes: 32 << 20,
            network: Network::None,
            runtime: None,
            own_modules: true,
            start_programs: true,
        }
    }
}

#[derive(Debug)]
pub struct Rule {
    pub id: String,
    pub languages: Vec<Language>,
    pub severity: Severity,
    pub action: Action,
    pub message: String,
    pub docs: RuleDocs,
    pub matcher: Matcher,
}

/// A rule's compiled `match` section. `sections` hold the patterns that apply to one
/// language only (`match: {python: {...}, javascript: {...}}`); they never nest further.
#[derive(Debug)]
pub struct Matcher {
    pub modules: Vec<NamePattern>,
    pub names: Vec<NamePattern>,
    pub calls: Vec<NamePattern>,
    pub arguments: Option<Regex>,
    pub arguments_except: Option<Regex>,
    pub dynamic: Vec<DynamicKind>,
    pub strings: Vec<Regex>,
    pub query: Option<RawQuery>,
    pub unlisted: Vec<Unlisted>,
    pub paths: Vec<PathMatch>,
    pub path_names: Vec<Regex>,
    pub sections: Vec<(Language, Matcher)>,
}

impl Matcher {
    fn is_empty(&self) -> bool {
        self.modules.is_empty()
            && self.names.is_empty()
            && self.calls.is_empty()
            && self.dynamic.is_empty()
            && self.strings.is_empty()
            && self.query.is_none()
            && self.unlisted.is_empty()
            && self.paths.is_empty()
            && self.path_names.is_empty()
            && self.sections.iter().all(|(_, s)| s.is_empty())
    }
}

/// A glob over dotted names: `*` stays within one part, `**` crosses parts, `?` is one
/// character, and a pattern also matches every name under it (`os.exec*` matches `os.execv`
/// and `os.execv.__call__`). Matched directly rather than through regexes: a policy has
/// hundreds of patterns, and compiling them would dominate the start-up of every command.
#[derive(Debug, Clone)]
pub struct NamePattern {
    pub text: String,
    /// Length of the pattern's text before its first wildcard: a name that does not start
    /// with that text cannot match, which rejects most names before any globbing (a policy
    /// judges every fact against every pattern).
    literal: usize,
}

impl NamePattern {
    pub fn new(glob: &str) -> NamePattern {
        NamePattern {
            text: glob.to_owned(),
            literal: glob.find(['*', '?']).unwrap_or(glob.len()),
        }
    }

    pub fn matches(&self, name: &str) -> bool {
        let (pattern, name) = (self.text.as_bytes(), name.as_bytes());
        // The first byte alone turns most names away, without a call to compare the rest.
        if self.literal > 0 && name.first() != pattern.first() {
            return false;
        }
        if !name.starts_with(&pattern[..self.literal]) {
            return false;
        }
        if self.literal == pattern.len() {
            // No wildcard: the name itself or a name under it.
            return name.len() == pattern.len() || name[pattern.len()] == b'.';
        }
        glob(pattern, name)
            || name
                .iter()
                .enumerate()
                .any(|(i, &c)| c == b'.' && glob(pattern, &name[..i]))
    }
}

fn glob(pattern: &[u8], name: &[u8]) -> bool {
    match pattern {
        [] => name.is_empty(),
        [b'*', b'*', rest @ ..] => (0..=name.len()).any(|i| glob(rest, &name[i..])),
        [b'*', rest @ ..] => {
            for i in 0..=name.len() {
                if glob(rest, &name[i..]) {
                    return true;
                }
                if name.get(i) == Some(&b'.') {
                    return false;
                }
            }
            false
        }
        [b'?', rest @ ..] => name.first().is_some_and(|&c| c != b'.') && glob(rest, &name[1..]),
        [c, rest @ ..] => name.first() == Some(c) && glob(rest, &name[1..]),
    }
}

/// SHA-256, hex, of texts joined with a separator that cannot occur in them.
pub(crate) fn digest<'a>(texts: impl Iterator<Item = &'a str>) -> String {
    let mut hasher = Sha256::new();
    for text in texts {
        hasher.update(text.as_bytes());
        hasher.update([0u8]);
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_patterns() {
        let p = NamePattern::new("os.exec*");
        assert!(p.matches("os.execvp"));
        assert!(p.matches("os.execv.__call__"));
        assert!(!p.matches("os.path.exec"));
        assert!(!p.matches("osx.exec"));
        assert!(NamePattern::new("subprocess").matches("subprocess.run"));
        assert!(!NamePattern::new("subprocess").matches("subprocessing"));
        assert!(NamePattern::new("fs/promises.*").matches("fs/promises.readFile"));
        assert!(NamePattern::new("a.**").matches("a.b.c"));
        assert!(NamePattern::new("os.popen?").matches("os.popen2"));
        assert!(!NamePattern::new("os.*").matches("os"));
        assert!(NamePattern::new("pandas.read_*").matches("pandas.read_csv"));
    }

    /// The literal-prefix shortcut answers as globbing every dotted prefix of the name would.
    #[test]
    fn name_pattern_shortcut_agrees_with_globbing() {
        let patterns = [
            "",
            "os",
            "os.system",
            "os.exec*",
            "os.*",
            "*",
            "**",
            "a.**",
            "os.popen?",
            "?s",
            "*.system",
            "subprocess",
            "fs/promises.*",
            "pandas.read_*",
            "os.path.**.x",
        ];
        let names = [
            "",
            ".",
            "os",
            "os.",
            "os.system",
            "os.systems",
            "os.system.__call__",
            "os.execvp",
            "os.path",
            "os.path.join",
            "osx",
            "subprocess.run",
            "subprocessing",
            "a",
            "a.b.c",
            "os.popen2",
            "os.popen",
            "fs/promises.readFile",
            "pandas.read_csv",
            "os.path.y.x",
        ];
        for pattern in patterns {
            let compiled = NamePattern::new(pattern);
            for name in names {
                let by_globbing = glob(pattern.as_bytes(), name.as_bytes())
                    || name
                        .bytes()
                        .enumerate()
                        .any(|(i, c)| c == b'.' && glob(pattern.as_bytes(), &name.as_bytes()[..i]));
                assert_eq!(
                    compiled.matches(name),
                    by_globbing,
                    "{pattern:?} on {name:?}"
                );
            }
        }
    }
}
