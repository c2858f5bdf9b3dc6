//! The capability allowlist (a policy's `allow` section), compiled, and what it says about
//! one fact: whether an import, a name, a special attribute or a file path is allowed.
//!
//! Unknown is deny: a module not listed, a member a module's entry does not allow, a private
//! member (`_x`) not listed by name, a builtin or global not listed, a path the analyzer could
//! not fold. A name nothing in the snippet binds is not judged here: it fails when run.

use std::collections::BTreeMap;

use super::NamePattern;
use super::model::{AllowEntry, AllowFile, Members};
use crate::analysis::{FactKind, Language, Root};

/// The sandbox's writable directories, where files may always be opened: the work dir (where
/// relative paths resolve) and `/tmp`.
const WRITABLE: [&str; 2] = ["/work", "/tmp"];

/// Which members of a module or name may be used.
#[derive(Debug, Clone)]
pub enum MemberRule {
    /// Every public member.
    All,
    Only(Vec<NamePattern>),
    Except(Vec<NamePattern>),
}

impl MemberRule {
    /// True when `member` may be used. Private members (`_x`) only when listed by name.
    fn allows(&self, member: &str) -> bool {
        let private = member.starts_with('_');
        match self {
            MemberRule::All => !private,
            MemberRule::Only(list) => list
                .iter()
                .any(|p| p.text == member || (!private && p.matches(member))),
            MemberRule::Except(list) => !private && !list.iter().any(|p| p.matches(member)),
        }
    }

    /// True when the rule lists `member` by its exact name (an `only` entry, not a pattern).
    fn names(&self, member: &str) -> bool {
        match self {
            MemberRule::Only(list) => list.iter().any(|p| p.text == member),
            MemberRule::All | MemberRule::Except(_) => false,
        }
    }

    /// How the rule reads in a finding.
    fn describe(&self) -> String {
        match self {
            MemberRule::All => "every public member".to_owned(),
            MemberRule::Only(list) => {
                format!("only {}", shorten(list.iter().map(|p| p.text.as_str())))
            }
            MemberRule::Except(list) => format!(
                "every public member except {}",
                shorten(list.iter().map(|p| p.text.as_str()))
            ),
        }
    }
}

/// One language's allowlist.
#[derive(Debug, Clone, Default)]
pub struct LanguageAllow {
    pub modules: BTreeMap<String, MemberRule>,
    pub names: BTreeMap<String, MemberRule>,
    pub attributes: Vec<NamePattern>,
}

/// A policy's allowlist, per language, with the directories files may be opened under.
#[derive(Debug, Clone, Default)]
pub struct Allowlist {
    pub python: Option<LanguageAllow>,
    pub javascript: Option<LanguageAllow>,
    pub paths: Vec<String>,
    /// An allowed module must also be installed in the image (`allow.require_installed`).
    pub require_installed: bool,
}

/// What the image a snippet is about to run in can import, from its manifest: what
/// `allow.require_installed` is judged against. The policy knows nothing of images beyond
/// this.
pub struct Installed<'a> {
    /// The image's name, for the denial.
    pub image: &'a str,
    /// Whether a module (`pandas.io`, `lodash/fp`, `node:fs`) can be imported there.
    pub has: &'a dyn Fn(&str) -> bool,
}

/// Why a fact is not allowed.
pub struct Denied(pub String);

impl Allowlist {
    /// Adds a policy file's `allow` section to what it extends.
    pub fn extend(&mut self, file: &AllowFile) {
        for (slot, section) in [
            (&mut self.python, &file.python),
            (&mut self.javascript, &file.javascript),
        ] {
            let Some(section) = section else { continue };
            let allow = slot.get_or_insert_with(LanguageAllow::default);
            add_entries(&mut allow.modules, &section.modules);
            add_entries(&mut allow.names, &section.names);
            allow
                .attributes
                .extend(section.attributes.iter().map(|a| NamePattern::new(a)));
        }
        if let Some(required) = file.require_installed {
            self.require_installed = required;
        }
        for path in &file.paths {
            let path = path.trim_end_matches('/').to_owned();
            if !self.paths.contains(&path) {
                self.paths.push(path);
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.python.is_none() && self.javascript.is_none()
    }

    fn language(&self, language: Language) -> Option<&LanguageAllow> {
        match language {
            Language::Python => self.python.as_ref(),
            Language::JavaScript => self.javascript.as_ref(),
        }
    }

    /// Whether an import is allowed.
    pub fn module(&self, language: Language, module: &str) -> Result<(), Denied> {
        let Some(allow) = self.language(language) else {
            return Ok(());
        };
        if module_rule(allow, module).is_some() || holds_allowed_module(allow, module) {
            return Ok(());
        }
        Err(Denied(format!(
            "imports `{module}`, which this policy does not allow; it allows {}",
            shorten(allow.modules.keys().map(String::as_str))
        )))
    }

    /// Whether a use of a name is allowed: its module and the member taken from it, or the
    /// builtin or global and its member.
    pub fn name(&self, language: Language, name: &str, root: &Root) -> Result<(), Denied> {
        let Some(allow) = self.language(language) else {
            return Ok(());
        };
        match root {
            Root::Unbound => Ok(()),
            // A module itself, however it was reached (`from enum import bltns` is
            // `builtins`): judged as its import.
            Root::Module(module) if name == module => self.module(language, module),
            Root::Module(module) => {
                // `mpl_toolkits.mplot3d.Axes3D` reached from the package: the member is the
                // allowed submodule's.
                if let Some(submodule) = allowed_submodule(allow, module, name) {
                    return self.name(language, name, &Root::Module(submodule.to_owned()));
                }
                let Some(rule) = module_rule(allow, module) else {
                    return Err(Denied(format!(
                        "uses `{name}` from `{module}`, which this policy does not allow"
                    )));
                };
                let rest = name.strip_prefix(module.as_str()).unwrap_or("");
                match rest.strip_prefix('.') {
                    Some(members) => {
                        command_line(module, rule, members)?;
                        self.members(language, module, rule, members)
                    }
                    None => Ok(()),
                }
            }
            Root::Builtin => {
                let (root, members) = name.split_once('.').unwrap_or((name, ""));
                let Some(rule) = allow.names.get(root) else {
                    let kind = match language {
                        Language::Python => "builtin",
                        Language::JavaScript => "global",
                    };
                    return Err(Denied(format!(
                        "uses the {kind} `{root}`, which this policy does not allow"
                    )));
                };
                if members.is_empty() {
                    return Ok(());
                }
                self.members(language, root, rule, members)
            }
        }
    }

    /// Whether the dotted members taken from `owner` may be used: the first by the owner's
    /// rule, every later one (an attribute of a class, function or object the module holds:
    /// the analyzer has already named any module along the way by its own name) as an
    /// attribute of anything, so neither a private `_name` nor an unlisted special attribute
    /// passes at any depth.
    fn members(
        &self,
        language: Language,
        owner: &str,
        rule: &MemberRule,
        members: &str,
    ) -> Result<(), Denied> {
        let mut parts = members.split('.');
        let first = parts.next().unwrap_or_default();
        if is_dunder(first) {
            self.attribute(language, first)?;
        } else if !rule.allows(first) {
            return Err(Denied(format!(
                "uses `{owner}.{first}`; of `{owner}` this policy allows {}",
                rule.describe()
            )));
        }
        for part in parts {
            if is_dunder(part) {
                self.attribute(language, part)?;
            } else if part.starts_with('_') {
                return Err(Denied(format!(
                    "uses `{owner}.{members}`, which reaches the private `{part}`; private \
                     names are allowed on nothing"
                )));
            }
        }
        Ok(())
    }

    /// Whether a special attribute may be reached on any object.
    pub fn attribute(&self, language: Language, name: &str) -> Result<(), Denied> {
        let Some(allow) = self.language(language) else {
            return Ok(());
        };
        if allow.attributes.iter().any(|p| p.matches(name)) {
            Ok(())
        } else {
            Err(Denied(format!(
                "reaches `.{name}`, which this policy does not allow on any object; it allows {}",
                shorten(allow.attributes.iter().map(|p| p.text.as_str()))
            )))
        }
    }

    /// Whether a (normalized) path is inside the work dir or an allowed directory.
    pub fn path_inside(&self, path: &str) -> bool {
        if path.contains("://") || path.starts_with('~') {
            return false;
        }
        if !path.starts_with('/') {
            return !(path == ".." || path.starts_with("../"));
        }
        WRITABLE
            .into_iter()
            .chain(self.paths.iter().map(String::as_str))
            .any(|root| crate::analysis::is_under_path(path, root))
    }

    /// Whether an allowed module is installed in the image, when the policy requires it and
    /// the image is known.
    fn installed(
        &self,
        language: Language,
        module: &str,
        installed: Option<&Installed<'_>>,
    ) -> Result<(), Denied> {
        let Some(installed) = installed.filter(|_| self.require_installed) else {
            return Ok(());
        };
        if (installed.has)(module) {
            return Ok(());
        }
        let fix = match language {
            Language::Python => {
                "add its wheel with `--wheelhouse DIR` (or its Debian package with `--deb-packages FILE`)"
            }
            Language::JavaScript => {
                "add its `npm pack` tarball with `--npm-packages DIR` (or its Debian package with `--deb-packages FILE`)"
            }
        };
        Err(Denied(format!(
            "imports `{module}`, which this policy allows only when installed, and the image `{}` does not have it; to use it, {fix}",
            installed.image
        )))
    }

    /// Whether a fact is one the allowlist judges, and if so whether it is allowed (and, for
    /// an import under `require_installed`, installed in the image).
    pub fn judge(
        &self,
        language: Language,
        fact: &FactKind,
        installed: Option<&Installed<'_>>,
    ) -> Option<Result<(), Denied>> {
        self.language(language)?;
        match fact {
            FactKind::Import { module } => Some(
                self.module(language, module)
                    .and_then(|()| self.installed(language, module, installed)),
            ),
            FactKind::Use { name, root, .. } => Some(self.name(language, name, root)),
            FactKind::Attribute { name } => Some(self.attribute(language, name)),
            _ => None,
        }
    }
}

/// The member rule of a module: its own entry, or, for a submodule not listed, every public
/// member when its package's entry names it exactly (`os: [path]`). A submodule is never
/// covered by a rule that allows members wholesale (`numpy: {except: [...]}` does not allow
/// `numpy.lib`, nor `matplotlib` its `cbook`): a module is a capability of its own, reviewed
/// by name.
fn module_rule<'a>(allow: &'a LanguageAllow, module: &str) -> Option<&'a MemberRule> {
    if let Some(rule) = allow.modules.get(module) {
        return Some(rule);
    }
    let (package, below) = module.rsplit_once('.')?;
    let rule = allow.modules.get(package)?;
    rule.names(below).then_some(&MemberRule::All)
}

/// The longest allowed module below `module` that the dotted `name` runs through
/// (`mpl_toolkits.mplot3d` for `mpl_toolkits.mplot3d.Axes3D` rooted at `mpl_toolkits`).
fn allowed_submodule<'n>(allow: &LanguageAllow, module: &str, name: &'n str) -> Option<&'n str> {
    let below = name.strip_prefix(module)?.strip_prefix('.')?;
    let mut best = None;
    for (at, _) in below.match_indices('.').chain([(below.len(), "")]) {
        let candidate = &name[..module.len() + 1 + at];
        if allow.modules.contains_key(candidate) {
            best = Some(candidate);
        }
    }
    best
}

/// True when `package` is a package some allowed module lies in (`concurrent` for
/// `concurrent.futures`, `mpl_toolkits` for `mpl_toolkits.mplot3d`): importing the allowed
/// module runs the package's own code anyway, so `from concurrent import futures` and
/// `import concurrent` run nothing more. What is then taken from the package is judged by
/// name like any member, so `concurrent.anything_else` is still denied.
fn holds_allowed_module(allow: &LanguageAllow, package: &str) -> bool {
    let below = allow
        .modules
        .range(format!("{package}.")..)
        .next()
        .map(|(name, _)| name.as_str());
    below.is_some_and(|name| {
        name.strip_prefix(package)
            .is_some_and(|rest| rest.starts_with('.'))
    })
}

/// A module's command line and self-test (`base64.main()`, `gzip.main()`, `pandas.test()`):
/// they act on the files and options named in `sys.argv` (reading, writing, importing test
/// runners), not on the arguments the analyzer sees. Allowed only where a policy lists the
/// member by its exact name; the snippet's own `__main__.main` is its own function.
const COMMAND_LINES: &[&str] = &["main", "_main", "test", "_test"];

fn command_line(module: &str, rule: &MemberRule, members: &str) -> Result<(), Denied> {
    let first = members.split('.').next().unwrap_or_default();
    if module == "__main__" || !COMMAND_LINES.contains(&first) || rule.names(first) {
        return Ok(());
    }
    Err(Denied(format!(
        "uses `{module}.{first}`, a module's command line or self-test, which acts on \
         `sys.argv` rather than on its arguments; no module's is allowed unless the policy \
         lists it by name"
    )))
}

fn is_dunder(name: &str) -> bool {
    name.len() > 4 && name.starts_with("__") && name.ends_with("__")
}

fn add_entries(map: &mut BTreeMap<String, MemberRule>, entries: &[AllowEntry]) {
    for entry in entries {
        match entry {
            AllowEntry::All(name) => {
                map.insert(name.clone(), MemberRule::All);
            }
            AllowEntry::Members(members) => {
                for (name, members) in members {
                    let rule = match members {
                        Members::Only(list) => {
                            MemberRule::Only(list.iter().map(|m| NamePattern::new(m)).collect())
                        }
                        Members::Except { except } => {
                            MemberRule::Except(except.iter().map(|m| NamePattern::new(m)).collect())
                        }
                    };
                    // A later policy widens an earlier one's list; it never narrows it.
                    let merged = match (map.remove(name), rule) {
                        (Some(MemberRule::Only(mut old)), MemberRule::Only(new)) => {
                            old.extend(new);
                            MemberRule::Only(old)
                        }
                        (_, rule) => rule,
                    };
                    map.insert(name.clone(), merged);
                }
            }
        }
    }
}

/// Up to a dozen names, then how many more.
fn shorten<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.collect();
    const SHOWN: usize = 12;
    let mut text = names
        .iter()
        .take(SHOWN)
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        text.push_str(&format!(
            " and {} more (`sandbox-lint --list-rules` shows them all)",
            names.len() - SHOWN
        ));
    }
    if names.is_empty() {
        text = "nothing".to_owned();
    }
    text
}
