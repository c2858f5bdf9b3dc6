//! What an image really holds: its interpreter's version and the packages it can import,
//! as the image's own interpreter reports them (containers/*/image-setup.*). Descriptions,
//! `sandbox://environments`, `doctor` and policies read this instead of a fixed list.
//!
//! A derived image carries its manifest at /opt/sandbox/manifest.json, written when it was
//! made. For any image, the gateway asks the image itself (a probe container, about a second)
//! and keeps the answer in a cache keyed by the image's id, which names its content.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::docker::oneshot::{self, Job};
use super::docker::{self, Engine};
use super::error::SandboxError;
use crate::analysis::Language;

/// The interpreter versions the runners need (oldest supported).
pub const MIN_PYTHON: [u32; 2] = [3, 8];
pub const MIN_NODE: u32 = 16;

const PYTHON_SETUP: &str = include_str!("../../containers/python/image-setup.py");
const JS_SETUP: &str = include_str!("../../containers/javascript/image-setup.js");

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub language: String,
    pub interpreter: Interpreter,
    /// The language's packages: Python distributions, Node packages.
    pub packages: Vec<Package>,
    /// The language's standard library: Python's top-level modules, Node's built-in modules.
    #[serde(default)]
    pub standard: Vec<String>,
    /// The image's Debian packages, if it has dpkg's database.
    #[serde(default)]
    pub system: Vec<SystemPackage>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Interpreter {
    pub name: String,
    pub version: String,
    pub path: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Package {
    pub name: String,
    pub version: String,
    /// The top-level modules it provides (`import X`, `require('X')`).
    #[serde(default)]
    pub modules: Vec<String>,
    /// Added to the image from a wheelhouse or npm dir (not part of its base).
    #[serde(default)]
    pub added: bool,
    /// Installed on purpose (added, a Debian package apt did not pull in as a dependency,
    /// or not Debian's), as opposed to another package's dependency: what a description
    /// names.
    #[serde(default)]
    pub requested: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SystemPackage {
    pub name: String,
    pub version: String,
}

impl Manifest {
    /// `Python 3.11.2`.
    pub fn runtime(&self) -> String {
        format!("{} {}", self.interpreter.name, self.interpreter.version)
    }

    /// True if some package provides the top-level module `name`.
    pub fn provides(&self, module: &str) -> bool {
        let top = module.split('.').next().unwrap_or(module);
        self.packages
            .iter()
            .any(|p| p.modules.iter().any(|m| m == top || m == module))
    }

    /// True if `module` can be imported: a package provides it or the standard library
    /// has it. Python's `pandas.io` is judged by `pandas`; Node's `lodash/fp` by `lodash`,
    /// `@scope/pkg/x` by `@scope/pkg`, `node:fs` by `fs`.
    pub fn has_module(&self, module: &str) -> bool {
        let top = if self.language == "javascript" {
            let module = module.strip_prefix("node:").unwrap_or(module);
            if self.standard.iter().any(|m| m == module) {
                return true;
            }
            let parts = if module.starts_with('@') { 2 } else { 1 };
            module.split('/').take(parts).collect::<Vec<_>>().join("/")
        } else {
            module.split('.').next().unwrap_or(module).to_owned()
        };
        top == "__main__"
            || self.standard.contains(&top)
            || self.packages.iter().any(|p| p.modules.contains(&top))
    }

    /// `pandas 1.5.3` for up to `most` packages installed on purpose (added ones first),
    /// leaving out what is there only as their dependency.
    pub fn notable(&self, most: usize) -> Vec<String> {
        let mut chosen: Vec<&Package> = self
            .packages
            .iter()
            .filter(|p| p.added || p.requested)
            .collect();
        chosen.sort_by_key(|p| !p.added);
        chosen
            .into_iter()
            .take(most)
            .map(|p| format!("{} {}", p.name, p.version))
            .collect()
    }

    /// `pandas 1.5.3` for each package, sorted by name.
    pub fn package_list(&self) -> Vec<String> {
        self.packages
            .iter()
            .map(|p| format!("{} {}", p.name, p.version))
            .collect()
    }
}

/// The setup script and how the language's interpreter runs it with `spec` (JSON).
pub(super) fn setup_command(language: Language, spec: &serde_json::Value) -> Vec<String> {
    let spec = spec.to_string();
    let parts: Vec<&str> = match language {
        Language::Python => vec!["python3", "-I", "-c", PYTHON_SETUP, &spec],
        Language::JavaScript => vec!["node", "-e", JS_SETUP, &spec],
    };
    parts.into_iter().map(str::to_owned).collect()
}

/// The setup script's text (part of a derived image's recipe).
pub(super) fn setup_script(language: Language) -> &'static str {
    match language {
        Language::Python => PYTHON_SETUP,
        Language::JavaScript => JS_SETUP,
    }
}

/// The interpreter's minimum version, as the setup script's spec says it.
pub(super) fn min_version(language: Language) -> serde_json::Value {
    match language {
        Language::Python => serde_json::json!(MIN_PYTHON),
        Language::JavaScript => serde_json::json!(MIN_NODE),
    }
}

/// The interpreter a language's image must have on its PATH.
pub fn interpreter(language: Language) -> &'static str {
    match language {
        Language::Python => "python3",
        Language::JavaScript => "node",
    }
}

/// The error for an image whose setup or probe failed: what the script said, and a hint.
pub(super) fn unusable(
    language: Language,
    image: &str,
    finished: Option<&oneshot::Finished>,
) -> SandboxError {
    let Some(finished) = finished else {
        return SandboxError::UnusableImage {
            image: image.to_owned(),
            detail: format!(
                "it has no `{}` on its PATH, so {language} snippets cannot run in it",
                interpreter(language)
            ),
            hint: match language {
                Language::Python => {
                    "use an image with python3 (3.8 or newer) on its PATH, e.g. one built FROM a Debian or python:3-slim image"
                }
                Language::JavaScript => {
                    "use an image with node (16 or newer) on its PATH, e.g. one built FROM a Debian image with nodejs or a node:*-slim image"
                }
            },
        };
    };
    let said = String::from_utf8_lossy(&finished.stderr);
    let said = said
        .lines()
        .skip_while(|l| !l.starts_with("setup: "))
        .collect::<Vec<_>>()
        .join("\n");
    let detail = if said.is_empty() {
        format!(
            "its {} exited with status {}: {}",
            interpreter(language),
            finished.status,
            String::from_utf8_lossy(&finished.stderr).trim()
        )
    } else {
        said.trim_start_matches("setup: ").to_owned()
    };
    let hint = match finished.status {
        3 => "use an image with a newer interpreter",
        4 | 5 => {
            "fix the package named above in the wheelhouse or npm dir (add what it needs, or remove it), then run again; nothing was tagged"
        }
        6 => {
            "add wheels whose versions fit the image's own packages (or leave the conflicting one out), then run again; nothing was tagged"
        }
        _ => "check that the image runs its interpreter as root and as an unprivileged user",
    };
    SandboxError::UnusableImage {
        image: image.to_owned(),
        detail,
        hint,
    }
}

/// The manifest of `image`, from the cache or by asking the image (a probe container).
pub async fn of(
    engine: &Engine,
    language: Language,
    image: &str,
) -> Result<Manifest, SandboxError> {
    let id = docker::images::id(engine, image).await?;
    if let Some(manifest) = cached(&id, language) {
        return Ok(manifest);
    }
    let spec =
        serde_json::json!({ "install": false, "files": {}, "min_version": min_version(language) });
    let job = Job {
        image,
        command: setup_command(language, &spec),
        binds: Vec::new(),
        setup: false,
        timeout: Duration::from_secs(120),
    };
    let finished = oneshot::run(engine, &job, None).await?;
    let manifest = parse(language, image, finished.as_ref())?;
    remember(&id, language, &manifest);
    Ok(manifest)
}

/// The manifest a setup or probe printed, or the error it reported.
pub(super) fn parse(
    language: Language,
    image: &str,
    finished: Option<&oneshot::Finished>,
) -> Result<Manifest, SandboxError> {
    match finished {
        Some(f) if f.status == 0 => serde_json::from_slice(&f.stdout)
            .map_err(|e| SandboxError::Build(format!("the manifest of {image} is not valid: {e}"))),
        other => Err(unusable(language, image, other)),
    }
}

/// The cache file of an image id and language, keyed also by the setup script (a newer
/// script may report more).
fn cache_path(id: &str, language: Language) -> PathBuf {
    let script = crate::policy::digest([setup_script(language)].into_iter());
    let id = id.trim_start_matches("sha256:");
    cache_dir().join(format!(
        "{}-{}.json",
        &id[..id.len().min(24)],
        &script[..12]
    ))
}

fn cache_dir() -> PathBuf {
    use std::os::unix::fs::MetadataExt;
    let uid = std::fs::metadata("/proc/self").map_or(0, |m| m.uid());
    std::env::temp_dir().join(format!("code-sandbox-mcp-manifests-{uid}"))
}

fn cached(id: &str, language: Language) -> Option<Manifest> {
    let text = std::fs::read(cache_path(id, language)).ok()?;
    serde_json::from_slice(&text).ok()
}

/// Keeps a manifest for the next start. A cache that cannot be written only costs a probe.
pub(super) fn remember(id: &str, language: Language, manifest: &Manifest) {
    use std::os::unix::fs::DirBuilderExt;
    let _ = std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(cache_dir());
    let path = cache_path(id, language);
    let temporary = path.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::write(&temporary, serde_json::to_vec(manifest).expect("json")).is_ok() {
        let _ = std::fs::rename(&temporary, &path);
    }
}
