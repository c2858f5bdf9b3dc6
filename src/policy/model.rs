//! The policy file format, as serde types. The JSON Schema for editors is generated from these
//! (`sandbox-lint --print-schema`), so the schema and the loader cannot disagree.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::analysis::{DynamicKind, Language};

/// A policy file: a name, limits for the sandbox, and rules judged against the analyzer's facts.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "code-sandbox-mcp policy")]
pub struct PolicyFile {
    /// Short name, shown in findings and audit records.
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// A preset (`strict`, `strict-gvisor`, `standard`, `permissive`) or a path, relative to
    /// this file, whose limits and rules this policy starts from.
    pub extends: Option<String>,
    #[serde(default)]
    pub limits: LimitsFile,
    /// New rules, or complete replacements of inherited rules with the same id.
    #[serde(default)]
    pub rules: Vec<RuleFile>,
    /// Changes the action of inherited rules: `network-access: deny`.
    #[serde(default)]
    pub actions: BTreeMap<String, Action>,
    /// Removes inherited rules by id.
    #[serde(default)]
    pub disable: Vec<String>,
    /// A capability allowlist: what a snippet may use at all. Rules that match `unlisted`
    /// facts report whatever is not listed here. A policy that extends another adds to its
    /// allowlist.
    pub allow: Option<AllowFile>,
}

/// What a snippet may use, per language, and where it may open files.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AllowFile {
    pub python: Option<LanguageAllowFile>,
    pub javascript: Option<LanguageAllowFile>,
    /// Absolute directories under which files may be opened (relative paths are in the work
    /// dir, which is always allowed): `/work`, `/tmp`.
    #[serde(default)]
    pub paths: Vec<String>,
    /// Also deny importing an allowed module that the sandbox image does not have (its
    /// manifest lists no package providing it, and it is not in the language's standard
    /// library): the denial names the image and how to add the package (`--wheelhouse`,
    /// `--npm-packages`, `--deb-packages`). Judged where the image is known (serving and
    /// `run`), not by `sandbox-lint`. A policy that extends another may turn it on or off.
    pub require_installed: Option<bool>,
}

/// One language's allowlist.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LanguageAllowFile {
    /// Modules that may be imported, each with the members that may be used: `math` (every
    /// public member), `os: [getcwd, listdir]` (only these), `numpy: {except: [load]}` (every
    /// public member but these). A submodule is allowed when its package's members allow it,
    /// or when it is listed itself.
    #[serde(default)]
    pub modules: Vec<AllowEntry>,
    /// Names usable without an import, with their members: Python's builtins, JavaScript's
    /// globals (`console`, `process: [argv, stdout]`).
    #[serde(default)]
    pub names: Vec<AllowEntry>,
    /// Special attributes allowed on any object: Python's `__dunder__` names, JavaScript's
    /// `constructor`. Globs.
    #[serde(default)]
    pub attributes: Vec<String>,
}

/// A module or name, with every public member (`math`) or some (`os: [getcwd]`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum AllowEntry {
    All(String),
    Members(BTreeMap<String, Members>),
}

/// Which members may be used: a list (globs), or every public member except some.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Members {
    Only(Vec<String>),
    Except {
        /// Members excluded from an otherwise whole module (globs).
        except: Vec<String>,
    },
}

/// Sandbox limits. Each unset field keeps the inherited (or built-in default) value.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LimitsFile {
    /// Memory, swap included: `512MiB`, `1GiB`.
    #[schemars(regex(pattern = r"^\d+(\.\d+)?\s*([KMGT]i?B?|B)?$"))]
    pub memory: Option<String>,
    /// CPU share, in cores: `0.5`, `2`.
    pub cpus: Option<f64>,
    /// Most processes and threads at once.
    pub pids: Option<u32>,
    /// Wall-clock time before the container is killed: `30s`, `2m`.
    pub timeout: Option<String>,
    /// Cap on each of stdout and stderr: `1MiB`.
    pub output_bytes: Option<String>,
    /// Size of the writable work dir: `64MiB`.
    pub tmpfs_size: Option<String>,
    /// Most figures a Python run returns (those left open and those passed to `plt.show()`);
    /// more are reported, not returned.
    pub figures: Option<u32>,
    /// Largest PNG of one figure: `4MiB`.
    pub figure_bytes: Option<String>,
    /// Most files a call may send into the work dir.
    pub files_in: Option<u32>,
    /// Total size of the files a call sends in (decoded): `16MiB`; at most 128MiB.
    pub files_in_bytes: Option<String>,
    /// Most files a run returns from the work dir (new or changed ones).
    pub files_out: Option<u32>,
    /// Total size of the files a run returns: `32MiB`; at most 256MiB.
    pub files_out_bytes: Option<String>,
    pub network: Option<Network>,
    /// Container runtime, e.g. `runsc` for gVisor. Unset: the engine's default. A runtime the
    /// engine lacks stops the gateway at start-up; it never falls back to another.
    pub runtime: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Network {
    /// No network interface but loopback.
    None,
}

/// One rule.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuleFile {
    /// Lower-case words joined by hyphens: `process-exec`.
    #[schemars(regex(pattern = r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$"))]
    pub id: String,
    #[serde(default = "all_languages")]
    pub languages: Vec<Language>,
    pub severity: Severity,
    pub action: Action,
    /// Shown to the agent: what to do instead.
    pub message: String,
    #[serde(rename = "match")]
    pub matcher: MatchFile,
    /// The reviewer's documentation, shown by `sandbox-lint --explain`.
    pub docs: RuleDocs,
}

fn all_languages() -> Vec<Language> {
    Language::ALL.to_vec()
}

/// What a rule matches. A rule matches a fact when any of its keys does. Names are dotted
/// qualified names after alias resolution; a pattern also matches everything under it
/// (`subprocess` matches `subprocess.run`); `*` matches within one dotted part, `**` across.
/// Patterns that mean something in one language only go under `python:` or `javascript:`
/// (Node's `http` module is not Python's `http` package).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MatchFile {
    /// Modules imported: `subprocess`, `child_process`.
    #[serde(default)]
    pub modules: Vec<String>,
    /// Names used in any way (called, passed, assigned): `os.system`, `os.exec*`.
    #[serde(default)]
    pub names: Vec<String>,
    /// Names called; narrowed by `arguments` / `arguments_except` when given.
    #[serde(default)]
    pub calls: Vec<String>,
    /// Regex that one of the call's constant arguments must match for `calls` to match. The
    /// arguments are every positional argument that folds to a constant (strings as they are,
    /// integers in decimal) and Python keyword arguments that name files (`file=`, `path=`,
    /// `src=`, `dst=`, ...).
    pub arguments: Option<String>,
    /// Regex of exempt arguments. With `arguments`, an argument matching this does not count.
    /// Alone, it makes `calls` match every use of the names except a call with an argument
    /// matching it: calls whose arguments are not constant match, and so do references
    /// (`f = sys.setrecursionlimit`), which hand the function on to be called with arguments
    /// unknown.
    pub arguments_except: Option<String>,
    /// Constructs the analyzer could not resolve or flags as dangerous.
    #[serde(default)]
    pub dynamic: Vec<DynamicKind>,
    /// Regexes searched in string constants (after folding).
    #[serde(default)]
    pub strings: Vec<String>,
    /// Facts the policy's `allow` section does not allow: `modules` imported, `names` used
    /// (module members, builtins, globals), special `attributes`.
    #[serde(default)]
    pub unlisted: Vec<Unlisted>,
    /// File paths: `outside` the work dir and the allowed directories, or `unproven` (the
    /// analyzer could not fold them).
    #[serde(default)]
    pub paths: Vec<PathMatch>,
    /// Regexes searched in the file paths calls open, write, list or remove (folded and
    /// normalized): `\.py$` for a module the interpreter could import.
    #[serde(default)]
    pub path_names: Vec<String>,
    /// A raw tree-sitter query (for one language only); captures named `@match` are reported.
    /// At the top of `match` it needs a rule with exactly one language; under `python:` or
    /// `javascript:` it is written for that grammar.
    pub query: Option<String>,
    /// Patterns that apply only to Python snippets: the same keys as `match` (except
    /// `python` and `javascript`), judged in addition to the shared ones.
    pub python: Option<Box<MatchFile>>,
    /// Patterns that apply only to JavaScript snippets: the same keys as `match` (except
    /// `python` and `javascript`), judged in addition to the shared ones.
    pub javascript: Option<Box<MatchFile>>,
}

/// What an allowlist rule reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Unlisted {
    Modules,
    Names,
    Attributes,
}

/// Which file paths a rule reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PathMatch {
    Outside,
    Unproven,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuleDocs {
    /// Why the rule exists: the risk it stops.
    pub why: String,
    /// Code the rule catches.
    pub example: String,
    /// What to write instead.
    pub instead: String,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Low,
    Medium,
    High,
    Critical,
}

/// What a match does: `deny` stops the run, `warn` runs and reports, `audit` runs and records.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Audit,
    Warn,
    Deny,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Audit => "audit",
            Action::Warn => "warn",
            Action::Deny => "deny",
        }
    }
}

/// The JSON Schema of policy files.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(PolicyFile);
    serde_json::to_string_pretty(&schema).expect("a schema serializes") + "\n"
}
