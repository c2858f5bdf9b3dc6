//! Loading policies: presets embedded in the binary or YAML files, `extends` chains, merging
//! and validation. Every error names the file, line and column and says how to fix it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use regex::Regex;

use super::model::{LimitsFile, MatchFile, PolicyFile, RuleFile};
use super::{Allowlist, Limits, Matcher, NamePattern, Policy, Rule};
use crate::analysis::{Language, RawQuery};
use crate::diagnostic::render_snippet;

/// The presets, embedded so `--policy strict` works from any directory.
pub const PRESETS: &[(&str, &str)] = &[
    ("strict", include_str!("../../policies/strict.yaml")),
    (
        "strict-gvisor",
        include_str!("../../policies/strict-gvisor.yaml"),
    ),
    ("standard", include_str!("../../policies/standard.yaml")),
    ("permissive", include_str!("../../policies/permissive.yaml")),
];

/// The policy used when none is named.
pub const DEFAULT_POLICY: &str = "standard";

/// Largest policy file read; policies are short documents.
const MAX_POLICY_BYTES: usize = 1024 * 1024;
/// Longest `extends` chain.
const MAX_EXTENDS_DEPTH: usize = 8;

/// The rule on starting processes: a policy that denies it also has the kernel refuse new
/// programs to the snippet's process (`Limits::start_programs`).
const PROCESS_EXEC: &str = "process-exec";

#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("cannot read policy `{path}`: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "no policy file `{0}`, and it is not a preset\n  hint: give a path to a YAML policy, or one of the presets: strict, strict-gvisor, standard, permissive"
    )]
    NotFound(String),
    #[error("{rendered}")]
    Invalid {
        file: String,
        line: usize,
        column: usize,
        message: String,
        rendered: String,
    },
}

/// Where a policy's text came from, for messages and for resolving `extends`.
#[derive(Clone)]
enum Origin {
    Preset(&'static str),
    File(PathBuf),
}

impl Origin {
    fn display(&self) -> String {
        match self {
            Origin::Preset(name) => format!("<preset {name}>"),
            Origin::File(path) => path.display().to_string(),
        }
    }
}

struct Source {
    origin: Origin,
    text: String,
}

impl Source {
    /// An error at `line:column` of this source, rendered with the offending line.
    fn error(&self, line: usize, column: usize, message: &str, hint: &str) -> PolicyError {
        let file = self.origin.display();
        let mut rendered = format!("error: {message}\n");
        rendered.push_str(&render_snippet(
            &file,
            self.text.lines().nth(line.saturating_sub(1)).unwrap_or(""),
            line,
            column,
            1,
            "",
        ));
        if !hint.is_empty() {
            rendered.push_str(&format!("  = hint: {hint}\n"));
        }
        PolicyError::Invalid {
            file,
            line,
            column,
            message: message.to_owned(),
            rendered: rendered.trim_end().to_owned(),
        }
    }

    /// An error about `needle`, located at its first occurrence after `anchor` (or anywhere).
    fn error_at(
        &self,
        anchor: Option<&str>,
        needle: &str,
        message: &str,
        hint: &str,
    ) -> PolicyError {
        let (line, column) = locate(&self.text, anchor, needle);
        self.error(line, column, message, hint)
    }
}

/// 1-based line and column of `needle`'s first occurrence after `anchor`'s (or anywhere).
fn locate(text: &str, anchor: Option<&str>, needle: &str) -> (usize, usize) {
    let from = anchor.and_then(|a| text.find(a)).unwrap_or(0);
    let offset = text[from..]
        .find(needle)
        .map(|i| i + from)
        .or_else(|| anchor.and_then(|a| text.find(a)))
        .unwrap_or(0);
    let span = crate::analysis::Span::from_bytes(text, offset, offset);
    (span.line, span.column)
}

/// Loads a policy by preset name or path. An existing path wins over a preset of the same name.
pub fn load(spec: &str) -> Result<Policy, PolicyError> {
    let source = read_spec(spec, None)?;
    load_source(source)
}

/// Loads a policy from YAML text, as if read from `name` (for tests and tools).
pub fn load_str(name: &str, text: &str) -> Result<Policy, PolicyError> {
    load_source(Source {
        origin: Origin::File(PathBuf::from(name)),
        text: text.to_owned(),
    })
}

fn preset(name: &str) -> Option<Source> {
    let bare = name
        .strip_suffix(".yaml")
        .or_else(|| name.strip_suffix(".yml"))
        .unwrap_or(name);
    PRESETS
        .iter()
        .find(|(n, _)| *n == bare)
        .map(|(n, text)| Source {
            origin: Origin::Preset(n),
            text: (*text).to_owned(),
        })
}

/// Finds a policy: a file (relative to `base` when given), else a preset.
fn read_spec(spec: &str, base: Option<&Path>) -> Result<Source, PolicyError> {
    let path = match base {
        Some(dir) => dir.join(spec),
        None => PathBuf::from(spec),
    };
    if path.is_file() {
        let bytes = std::fs::read(&path).map_err(|source| PolicyError::Read {
            path: path.clone(),
            source,
        })?;
        if bytes.len() > MAX_POLICY_BYTES {
            return Err(PolicyError::Read {
                path,
                source: std::io::Error::other(format!(
                    "file is {} bytes; policies are limited to {MAX_POLICY_BYTES}",
                    bytes.len()
                )),
            });
        }
        let text = String::from_utf8(bytes).map_err(|e| PolicyError::Read {
            path: path.clone(),
            source: std::io::Error::other(format!(
                "not UTF-8 at byte {}",
                e.utf8_error().valid_up_to()
            )),
        })?;
        return Ok(Source {
            origin: Origin::File(path),
            text,
        });
    }
    preset(spec).ok_or_else(|| PolicyError::NotFound(path.display().to_string()))
}

fn parse(source: &Source) -> Result<PolicyFile, PolicyError> {
    let mut options = serde_saphyr::Options::default();
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = 16;
    budget.max_nodes = 50_000;
    budget.max_documents = 1;
    options.budget = Some(budget);
    serde_saphyr::from_str_with_options(&source.text, options).map_err(|err| {
        let (line, column) = err
            .location()
            .map_or((1, 1), |l| (l.line().max(1) as usize, l.column().max(1) as usize));
        let message = err.without_snippet().to_string();
        let message = strip_location_suffix(&message);
        source.error(
            line,
            column,
            message,
            "policy keys and values are described in policies/policy.schema.json (`sandbox-lint --print-schema`)",
        )
    })
}

/// serde-saphyr ends its one-line messages with " at line N, column M"; the snippet says it.
fn strip_location_suffix(message: &str) -> &str {
    message
        .rfind(" at line ")
        .map_or(message, |i| &message[..i])
}

/// A policy file with the sources it was assembled from, before compilation.
struct Draft {
    name: String,
    description: String,
    limits: LimitsFile,
    /// Each rule with the index (into `sources`) of the file that defined it.
    rules: Vec<(RuleFile, usize)>,
    allow: Allowlist,
    sources: Vec<Source>,
}

fn load_source(source: Source) -> Result<Policy, PolicyError> {
    let draft = assemble(source, 0)?;
    compile(draft)
}

/// Reads a policy and, recursively, what it extends, then applies it on top.
fn assemble(source: Source, depth: usize) -> Result<Draft, PolicyError> {
    let file = parse(&source)?;
    let mut draft = match &file.extends {
        None => Draft {
            name: String::new(),
            description: String::new(),
            limits: LimitsFile::default(),
            rules: Vec::new(),
            allow: Allowlist::default(),
            sources: Vec::new(),
        },
        Some(parent) => {
            if depth >= MAX_EXTENDS_DEPTH {
                return Err(source.error_at(
                    None,
                    "extends",
                    &format!("`extends` chain is longer than {MAX_EXTENDS_DEPTH} policies"),
                    "check for a policy that extends itself, directly or through others",
                ));
            }
            let base = match &source.origin {
                Origin::File(path) => path.parent().map(Path::to_path_buf),
                Origin::Preset(_) => None,
            };
            let parent_source = match (&source.origin, base) {
                (Origin::File(_), Some(dir)) => read_spec(parent, Some(&dir)),
                _ => preset(parent).ok_or_else(|| PolicyError::NotFound(parent.clone())),
            }
            .map_err(|e| match e {
                PolicyError::NotFound(_) => source.error_at(
                    None,
                    parent,
                    &format!("`extends: {parent}` names neither a file nor a preset"),
                    "use a path relative to this file, or one of: strict, strict-gvisor, standard, permissive",
                ),
                other => other,
            })?;
            assemble(parent_source, depth + 1)?
        }
    };
    let index = draft.sources.len();
    apply(&mut draft, &file, &source, index)?;
    draft.sources.push(source);
    Ok(draft)
}

/// Applies one file's contents on top of what it extends.
fn apply(
    draft: &mut Draft,
    file: &PolicyFile,
    source: &Source,
    index: usize,
) -> Result<(), PolicyError> {
    draft.name = file.name.clone();
    if !file.description.is_empty() || draft.description.is_empty() {
        draft.description = file.description.clone();
    }
    let l = &file.limits;
    let d = &mut draft.limits;
    macro_rules! inherit {
        ($($field:ident),*) => { $( if l.$field.is_some() { d.$field = l.$field.clone(); } )* };
    }
    inherit!(
        memory,
        cpus,
        pids,
        timeout,
        output_bytes,
        tmpfs_size,
        figures,
        figure_bytes,
        files_in,
        files_in_bytes,
        files_out,
        files_out_bytes,
        network,
        runtime
    );

    for id in &file.disable {
        let before = draft.rules.len();
        draft.rules.retain(|(r, _)| &r.id != id);
        if draft.rules.len() == before {
            return Err(unknown_rule(source, "disable", id, draft));
        }
    }
    let mut seen = std::collections::HashSet::new();
    for rule in &file.rules {
        if !seen.insert(rule.id.clone()) {
            return Err(source.error_at(
                Some(&format!("id: {}", rule.id)),
                &format!("id: {}", rule.id),
                &format!("rule `{}` is defined twice in this file", rule.id),
                "give each rule a distinct id",
            ));
        }
        match draft.rules.iter_mut().find(|(r, _)| r.id == rule.id) {
            Some(slot) => *slot = (rule.clone(), index),
            None => draft.rules.push((rule.clone(), index)),
        }
    }
    if let Some(allow) = &file.allow {
        draft.allow.extend(allow);
    }
    for (id, action) in &file.actions {
        match draft.rules.iter_mut().find(|(r, _)| &r.id == id) {
            Some((rule, _)) => rule.action = *action,
            None => return Err(unknown_rule(source, "actions", id, draft)),
        }
    }
    Ok(())
}

fn unknown_rule(source: &Source, key: &str, id: &str, draft: &Draft) -> PolicyError {
    let known: Vec<&str> = draft.rules.iter().map(|(r, _)| r.id.as_str()).collect();
    source.error_at(
        Some(&format!("{key}:")),
        id,
        &format!("`{key}` names rule `{id}`, which this policy does not have"),
        &format!("known rules: {}", known.join(", ")),
    )
}

fn compile(draft: Draft) -> Result<Policy, PolicyError> {
    let Draft {
        name,
        description,
        limits,
        rules,
        allow,
        sources,
    } = draft;
    let last = sources.last().expect("a draft has at least one source");
    let mut limits = compile_limits(&limits, last)?;
    // A policy that lists the Python modules a snippet may import keeps the work dir off the
    // snippet's module path: no module of its own could be imported anyway, and a file there
    // could stand in for an optional dependency a library imports by name.
    limits.own_modules = allow.python.is_none()
        || !rules.iter().any(|(rule, _)| {
            rule.action == super::Action::Deny
                && rule.languages.contains(&Language::Python)
                && rule_unlisted(&rule.matcher).contains(&super::model::Unlisted::Modules)
        });
    limits.start_programs = !rules
        .iter()
        .any(|(rule, _)| rule.id == PROCESS_EXEC && rule.action == super::Action::Deny);
    let mut compiled = Vec::with_capacity(rules.len());
    for (rule, at) in rules {
        let uses_allowlist = !rule_unlisted(&rule.matcher).is_empty();
        if uses_allowlist && allow.is_empty() {
            let source = &sources[at];
            return Err(source.error_at(
                Some(&format!("id: {}", rule.id)),
                "unlisted:",
                &format!(
                    "rule `{}` matches facts the allowlist does not allow, but the policy has no `allow` section",
                    rule.id
                ),
                "add an `allow:` section listing the modules, names and attributes snippets may use, or extend `strict`",
            ));
        }
        compiled.push(compile_rule(rule, &sources[at])?);
    }
    let origin = last.origin.display();
    let digest = super::digest(sources.iter().map(|s| s.text.as_str()));
    Ok(Policy {
        name,
        description,
        origin,
        digest,
        limits,
        rules: compiled,
        allow,
    })
}

/// Every `unlisted` key of a `match` section and its language sections.
fn rule_unlisted(matcher: &MatchFile) -> Vec<super::model::Unlisted> {
    let mut all = matcher.unlisted.clone();
    for section in [&matcher.python, &matcher.javascript].into_iter().flatten() {
        all.extend(section.unlisted.iter().copied());
    }
    all
}

fn compile_limits(file: &LimitsFile, source: &Source) -> Result<Limits, PolicyError> {
    let defaults = Limits::default();
    let size =
        |value: &Option<String>, key: &str, min: u64, default: u64| -> Result<u64, PolicyError> {
            let Some(text) = value else {
                return Ok(default);
            };
            match parse_size(text) {
                Some(bytes) if bytes >= min => Ok(bytes),
                Some(_) => Err(source.error_at(
                    Some("limits:"),
                    &format!("{key}:"),
                    &format!(
                        "`{key}: {text}` is below the minimum of {}",
                        format_size(min)
                    ),
                    &format!("use at least {}", format_size(min)),
                )),
                None => Err(source.error_at(
                    Some("limits:"),
                    &format!("{key}:"),
                    &format!("`{key}: {text}` is not a size"),
                    "write a number with a unit, e.g. 512MiB, 64MiB, 1GiB or 256KiB",
                )),
            }
        };
    let memory_bytes = size(&file.memory, "memory", 16 << 20, defaults.memory_bytes)?;
    let output_bytes = size(
        &file.output_bytes,
        "output_bytes",
        1 << 10,
        defaults.output_bytes,
    )?;
    let tmpfs_bytes = size(
        &file.tmpfs_size,
        "tmpfs_size",
        1 << 20,
        defaults.tmpfs_bytes,
    )?;
    let at_most = |bytes: u64, key: &str, max: u64| -> Result<u64, PolicyError> {
        if bytes <= max {
            return Ok(bytes);
        }
        Err(source.error_at(
            Some("limits:"),
            &format!("{key}:"),
            &format!("`{key}` is above the maximum of {}", format_size(max)),
            &format!("use at most {}", format_size(max)),
        ))
    };
    let figure_bytes = size(&file.figure_bytes, "figure_bytes", 0, defaults.figure_bytes)?;
    let figure_bytes = at_most(figure_bytes, "figure_bytes", 64 << 20)?;
    let files_in_bytes = size(
        &file.files_in_bytes,
        "files_in_bytes",
        0,
        defaults.files_in_bytes,
    )?;
    let files_in_bytes = at_most(files_in_bytes, "files_in_bytes", 128 << 20)?;
    let files_out_bytes = size(
        &file.files_out_bytes,
        "files_out_bytes",
        0,
        defaults.files_out_bytes,
    )?;
    let files_out_bytes = at_most(files_out_bytes, "files_out_bytes", 256 << 20)?;
    let timeout = match &file.timeout {
        None => defaults.timeout,
        Some(text) => match humantime::parse_duration(text) {
            Ok(d) if d >= Duration::from_millis(100) && d <= Duration::from_secs(3600) => d,
            _ => {
                return Err(source.error_at(
                    Some("limits:"),
                    "timeout:",
                    &format!("`timeout: {text}` is not a duration between 100ms and 1h"),
                    "write e.g. 10s, 30s or 2m",
                ));
            }
        },
    };
    let cpus = file.cpus.unwrap_or(defaults.cpus);
    if !(0.01..=64.0).contains(&cpus) {
        return Err(source.error_at(
            Some("limits:"),
            "cpus:",
            &format!("`cpus: {cpus}` is outside 0.01..=64"),
            "give the CPU share in cores, e.g. 0.5 or 2",
        ));
    }
    let pids = file.pids.unwrap_or(defaults.pids);
    if pids < 4 {
        return Err(source.error_at(
            Some("limits:"),
            "pids:",
            &format!("`pids: {pids}` leaves no room for the interpreter"),
            "allow at least 4 processes and threads; 64 or more suits numpy's thread pools",
        ));
    }
    Ok(Limits {
        memory_bytes,
        cpus,
        pids,
        timeout,
        output_bytes,
        tmpfs_bytes,
        figures: file.figures.unwrap_or(defaults.figures),
        figure_bytes,
        files_in: file.files_in.unwrap_or(defaults.files_in),
        files_in_bytes,
        files_out: file.files_out.unwrap_or(defaults.files_out),
        files_out_bytes,
        network: file.network.unwrap_or(defaults.network),
        runtime: file.runtime.clone(),
        own_modules: defaults.own_modules,
        start_programs: defaults.start_programs,
    })
}

fn compile_rule(rule: RuleFile, source: &Source) -> Result<Rule, PolicyError> {
    let anchor = format!("id: {}", rule.id);
    let anchor = Some(anchor.as_str());
    if !is_rule_id(&rule.id) {
        return Err(source.error_at(
            anchor,
            &rule.id,
            &format!(
                "rule id `{}` is not lower-case words joined by hyphens",
                rule.id
            ),
            "write ids like `process-exec` or `no-network`",
        ));
    }
    if rule.languages.is_empty() {
        return Err(source.error_at(
            anchor,
            "languages:",
            &format!("rule `{}` applies to no language", rule.id),
            "list python, javascript or both, or leave `languages` out for both",
        ));
    }
    let matcher = compile_matcher(rule.matcher, &rule.id, &rule.languages, None, source)?;
    if matcher.is_empty() {
        return Err(source.error_at(
            anchor,
            "match:",
            &format!("rule `{}` matches nothing", rule.id),
            "give at least one of modules, names, calls, dynamic, strings, paths, path_names, unlisted or query",
        ));
    }
    Ok(Rule {
        id: rule.id,
        languages: rule.languages,
        severity: rule.severity,
        action: rule.action,
        message: rule.message.trim().to_owned(),
        docs: rule.docs,
        matcher,
    })
}

/// Lower-case words of letters and digits joined by single hyphens, starting with a letter
/// (`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`; checked by hand: compiling that pattern for every rule
/// was a third of loading a preset).
fn is_rule_id(id: &str) -> bool {
    id.starts_with(|c: char| c.is_ascii_lowercase())
        && !id.ends_with('-')
        && !id.contains("--")
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// Compiles a `match` section: the rule's own (`section: None`) or a language's.
fn compile_matcher(
    file: MatchFile,
    id: &str,
    languages: &[Language],
    section: Option<Language>,
    source: &Source,
) -> Result<Matcher, PolicyError> {
    let anchor = format!("id: {id}");
    let anchor = Some(anchor.as_str());
    let MatchFile {
        modules,
        names,
        calls,
        arguments,
        arguments_except,
        dynamic,
        strings,
        query,
        unlisted,
        paths,
        path_names,
        python,
        javascript,
    } = file;
    let regex = |pattern: &str, key: &str| {
        Regex::new(pattern).map_err(|e| {
            source.error_at(
                anchor,
                &format!("{key}:"),
                &format!(
                    "`{key}` of rule `{id}` is not a valid regex: {}",
                    first_line(&e.to_string())
                ),
                "regexes use Rust's regex syntax (no look-around); escape literal dots as \\.",
            )
        })
    };
    let arguments = arguments
        .as_deref()
        .map(|p| regex(p, "arguments"))
        .transpose()?;
    let arguments_except = arguments_except
        .as_deref()
        .map(|p| regex(p, "arguments_except"))
        .transpose()?;
    for (key, given) in [
        ("arguments", arguments.is_some()),
        ("arguments_except", arguments_except.is_some()),
    ] {
        if given && calls.is_empty() {
            return Err(source.error_at(
                anchor,
                &format!("{key}:"),
                &format!("rule `{id}` has `{key}` but no `calls` for it to narrow"),
                "add the functions whose arguments should be checked under `calls` (in the same section)",
            ));
        }
    }
    let strings = strings
        .iter()
        .map(|p| regex(p, "strings"))
        .collect::<Result<Vec<_>, _>>()?;
    let path_names = path_names
        .iter()
        .map(|p| regex(p, "path_names"))
        .collect::<Result<Vec<_>, _>>()?;
    let query = match query {
        None => None,
        Some(text) => {
            let language = match (section, languages) {
                (Some(language), _) | (None, &[language]) => language,
                (None, _) => {
                    return Err(source.error_at(
                        anchor,
                        "query:",
                        &format!("rule `{id}` has a query but {} languages", languages.len()),
                        "a tree-sitter query is written for one grammar: set `languages` to exactly one, or put the query under `python:` or `javascript:`",
                    ));
                }
            };
            Some(RawQuery::compile(language, &text).map_err(|e| {
                source.error_at(
                    anchor,
                    "query:",
                    &format!("query of rule `{id}` does not compile: {e}"),
                    "check node and field names against the grammar (tree-sitter-python / tree-sitter-javascript)",
                )
            })?)
        }
    };
    let mut sections = Vec::new();
    for (language, nested) in [
        (Language::Python, python),
        (Language::JavaScript, javascript),
    ] {
        let Some(nested) = nested else { continue };
        let key = language.as_str();
        if section.is_some() {
            return Err(source.error_at(
                anchor,
                &format!("{key}:"),
                &format!("rule `{id}` has a `{key}` section inside a language section"),
                "language sections sit directly under `match` and do not nest",
            ));
        }
        if !languages.contains(&language) {
            return Err(source.error_at(
                anchor,
                &format!("{key}:"),
                &format!("rule `{id}` has a `{key}` section but does not apply to {key}"),
                &format!("add {key} to the rule's `languages`, or remove the section"),
            ));
        }
        sections.push((
            language,
            compile_matcher(*nested, id, languages, Some(language), source)?,
        ));
    }
    Ok(Matcher {
        modules: modules.iter().map(|p| NamePattern::new(p)).collect(),
        names: names.iter().map(|p| NamePattern::new(p)).collect(),
        calls: calls.iter().map(|p| NamePattern::new(p)).collect(),
        arguments,
        arguments_except,
        dynamic,
        strings,
        query,
        unlisted,
        paths,
        path_names,
        sections,
    })
}

fn first_line(s: &str) -> &str {
    s.lines().last().unwrap_or(s).trim()
}

/// Parses `512MiB`, `1GiB`, `64m`, `1.5G`, `4096`. Single letters and `KiB`-style units are
/// binary (as Docker reads `512m`); `KB`-style units are decimal.
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let factor: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "ki" | "kib" => 1024.0,
        "m" | "mi" | "mib" => 1024.0 * 1024.0,
        "g" | "gi" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "t" | "ti" | "tib" => 1024.0f64.powi(4),
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        _ => return None,
    };
    let bytes = number * factor;
    (bytes.is_finite() && bytes >= 0.0 && bytes < u64::MAX as f64).then_some(bytes as u64)
}

/// `536870912` as `512MiB`.
pub fn format_size(bytes: u64) -> String {
    for (unit, size) in [("GiB", 1u64 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] {
        if bytes >= size && bytes.is_multiple_of(size) {
            return format!("{}{unit}", bytes / size);
        }
    }
    format!("{bytes}B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_ids_are_checked_as_the_pattern_says() {
        let pattern = Regex::new(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$").expect("valid");
        for id in [
            "process-exec",
            "a",
            "a1",
            "no-network-2",
            "x-1-y",
            "",
            "-a",
            "a-",
            "a--b",
            "1a",
            "A",
            "aB",
            "a_b",
            "a b",
            "a.b",
            "é",
            "a-é",
            "process-exec\n",
            "--",
            "-",
        ] {
            assert_eq!(is_rule_id(id), pattern.is_match(id), "{id:?}");
        }
    }

    fn error_of(yaml: &str) -> (usize, usize, String) {
        match load_str("p.yaml", yaml) {
            Err(PolicyError::Invalid {
                line,
                column,
                rendered,
                ..
            }) => (line, column, rendered),
            Err(other) => panic!("unexpected error {other}"),
            Ok(_) => panic!("policy loaded"),
        }
    }

    use super::super::model::Action;

    #[test]
    fn presets_load_with_the_promised_actions() {
        let standard = load("standard").unwrap();
        let strict = load("strict.yaml").unwrap();
        let permissive = load("permissive").unwrap();
        // strict has every rule of standard, and its allowlist rules besides.
        assert!(
            standard
                .rules
                .iter()
                .all(|r| strict.rules.iter().any(|s| s.id == r.id))
        );
        assert!(strict.rules.len() > standard.rules.len());
        assert!(!strict.allow.is_empty() && standard.allow.is_empty());
        let action = |p: &Policy, id: &str| p.rules.iter().find(|r| r.id == id).unwrap().action;
        assert_eq!(action(&standard, "process-exec"), Action::Deny);
        assert_eq!(action(&standard, "network-access"), Action::Warn);
        assert_eq!(action(&strict, "network-access"), Action::Deny);
        assert!(permissive.rules.iter().all(|r| r.action == Action::Audit));
        assert!(strict.limits.memory_bytes < standard.limits.memory_bytes);
        assert_eq!(strict.name, "strict");
        let gvisor = load("strict-gvisor").unwrap();
        assert_eq!(gvisor.limits.runtime.as_deref(), Some("runsc"));
        assert_eq!(strict.limits.runtime, None);
        assert!(standard.limits.own_modules && !strict.limits.own_modules);
        assert!(!standard.limits.start_programs && !strict.limits.start_programs);
        assert!(permissive.limits.start_programs);
        assert_eq!(
            Limits {
                runtime: None,
                ..gvisor.limits.clone()
            },
            strict.limits
        );
        let actions = |p: &Policy| {
            p.rules
                .iter()
                .map(|r| (r.id.clone(), r.action))
                .collect::<Vec<_>>()
        };
        assert_eq!(actions(&gvisor), actions(&strict));
    }

    #[test]
    fn unknown_keys_are_errors_with_positions() {
        let (line, column, rendered) = error_of("name: x\nlimits:\n  memroy: 1GiB\n");
        assert_eq!((line, column), (3, 3));
        assert!(rendered.contains("memroy"), "{rendered}");
        assert!(rendered.contains("p.yaml:3:3"), "{rendered}");
    }

    #[test]
    fn semantic_errors_point_at_the_value() {
        let (line, _, rendered) =
            error_of("name: x\nextends: standard\nactions:\n  no-such-rule: deny\n");
        assert_eq!(line, 4);
        assert!(rendered.contains("known rules"), "{rendered}");
        let (line, _, _) = error_of("name: x\nlimits:\n  memory: lots\n");
        assert_eq!(line, 3);
        let (line, _, rendered) = error_of(
            "name: x\nrules:\n  - id: bad-regex\n    severity: low\n    action: warn\n    message: m\n    match:\n      strings: ['(']\n    docs: {why: a, example: b, instead: c}\n",
        );
        assert_eq!(line, 8, "{rendered}");
    }

    #[test]
    fn extends_cycles_and_missing_parents_fail_cleanly() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.yaml");
        std::fs::write(&a, "name: a\nextends: b.yaml\n").unwrap();
        std::fs::write(dir.path().join("b.yaml"), "name: b\nextends: a.yaml\n").unwrap();
        assert!(matches!(
            load(a.to_str().unwrap()),
            Err(PolicyError::Invalid { .. })
        ));
        let (line, _, _) = error_of("name: x\nextends: nowhere.yaml\n");
        assert_eq!(line, 2);
    }

    #[test]
    fn a_file_extending_a_preset_overrides_fields() {
        let policy = load_str(
            "mine.yaml",
            "name: mine\nextends: strict\nlimits:\n  timeout: 5s\ndisable: [parse-error]\n",
        )
        .unwrap();
        assert_eq!(policy.limits.timeout, Duration::from_secs(5));
        assert_eq!(policy.limits.memory_bytes, 256 << 20);
        assert!(policy.rules.iter().all(|r| r.id != "parse-error"));
    }

    #[test]
    fn language_sections_are_checked() {
        let rule = |languages: &str, matcher: &str| {
            format!(
                "name: x\nrules:\n  - id: r\n    languages: {languages}\n    severity: low\n    action: warn\n    message: m\n    match:\n{matcher}    docs: {{why: a, example: b, instead: c}}\n"
            )
        };
        let ok = rule(
            "[python, javascript]",
            "      python:\n        modules: [http]\n      javascript:\n        query: '(identifier) @match'\n",
        );
        let policy = load_str("p.yaml", &ok).unwrap();
        assert_eq!(policy.rules[0].matcher.sections.len(), 2);
        let (line, _, rendered) = error_of(&rule(
            "[python]",
            "      javascript:\n        modules: [http]\n",
        ));
        assert_eq!(line, 9, "{rendered}");
        assert!(
            rendered.contains("does not apply to javascript"),
            "{rendered}"
        );
        let (_, _, rendered) = error_of(&rule(
            "[python, javascript]",
            "      python:\n        python:\n          modules: [http]\n",
        ));
        assert!(rendered.contains("inside a language section"), "{rendered}");
        let (_, _, rendered) = error_of(&rule(
            "[python]",
            "      arguments_except: 'x'\n      modules: [os]\n",
        ));
        assert!(rendered.contains("no `calls`"), "{rendered}");
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("512MiB"), Some(512 << 20));
        assert_eq!(parse_size("64m"), Some(64 << 20));
        assert_eq!(parse_size("1.5GiB"), Some(3 << 29));
        assert_eq!(parse_size("1MB"), Some(1_000_000));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(format_size(256 << 10), "256KiB");
    }
}
