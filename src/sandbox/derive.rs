//! Images derived from any image with an interpreter: the gateway brings its runner itself,
//! and adds a team's own packages from local files (a wheelhouse, `npm pack` tarballs).
//!
//! A derived image is one layer on top of its base: a setup container of the base image,
//! run by the base's own interpreter (containers/*/image-setup.*), writes the runner files,
//! installs the packages and the manifest, and is committed only if all of it worked. Its tag
//! is a digest of the base image's id, the runner, the setup script and every added file, so
//! the same inputs are derived once, anything changed is derived again, and adding a wheel
//! redoes only this layer (seconds), never the base.

use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::docker::oneshot::{self, Job};
use super::docker::{self, Engine};
use super::error::SandboxError;
use super::images;
use super::manifest::{self, Manifest};
use crate::analysis::Language;

/// Packages added to the images, from local files only.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extras {
    /// A directory of Python wheels, installed with `pip install --no-index`.
    pub wheelhouse: Option<PathBuf>,
    /// A directory of npm tarballs (`npm pack` output).
    pub npm_packages: Option<PathBuf>,
}

impl Extras {
    /// The directory of packages added to one language's image, if any.
    pub fn dir(&self, language: Language) -> Option<&Path> {
        match language {
            Language::Python => self.wheelhouse.as_deref(),
            Language::JavaScript => self.npm_packages.as_deref(),
        }
    }
}

/// How missing images are made.
pub struct Build<'a> {
    /// Our own images' suite and added Debian packages.
    pub recipe: &'a images::Recipe,
    /// Build (or derive) images that are missing, instead of failing.
    pub missing: bool,
    /// Apt sources file or mirror URL for builds; unset: the host's apt sources.
    pub mirror: Option<&'a str>,
}

/// The image snippets run in, and what it holds.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub image: String,
    pub manifest: Manifest,
}

/// Where the setup container sees the added files and pip.
const EXTRA_MOUNT: &str = "/tmp/code-sandbox-build/extra";
const PIP_MOUNT: &str = "/tmp/code-sandbox-build/pip.whl";
/// Where Debian's python3-pip-whl keeps pip as a wheel, which runs from the wheel itself:
/// the setup uses it when installing into an image without pip of its own.
const HOST_WHEELS: &str = "/usr/share/python-wheels";

/// The image for `language`: `base` itself when it is our own image and nothing is added,
/// else the image derived from `base` with the runner and `extra`'s packages (derived now if
/// missing and `build_missing`). Our own base image is built first if missing.
pub async fn prepare(
    engine: &Engine,
    language: Language,
    base: &str,
    extra: Option<&Path>,
    build: &Build<'_>,
) -> Result<Prepared, SandboxError> {
    let ours = base == images::image_for(language, build.recipe);
    if !ours && !build.recipe.deb_packages.is_empty() {
        return Err(SandboxError::Build(format!(
            "--deb-packages adds Debian packages to the images built here from the recipe, and {base} is not one\n  hint: install those packages in {base} itself, or leave out the {language} image option to use the recipe's"
        )));
    }
    let build_missing = build.missing;
    images::ensure(
        engine,
        language,
        base,
        build.recipe,
        build_missing,
        build.mirror,
    )
    .await?;
    if ours && extra.is_none() {
        let manifest = manifest::of(engine, language, base).await?;
        return Ok(Prepared {
            image: base.to_owned(),
            manifest,
        });
    }
    let inputs = Inputs::read(language, extra)?;
    let base_id = docker::images::id(engine, base).await?;
    let tag = derived_tag(language, &base_id, &inputs);
    if !images::exists(engine, &tag).await? {
        if !build_missing {
            return Err(SandboxError::Build(format!(
                "the {language} image derived from {base} ({tag}) is not built and --no-build is set\n  hint: run `code-sandbox-mcp images build` with the same image and package options"
            )));
        }
        return derive(engine, language, base, &inputs, &tag).await;
    }
    let manifest = manifest::of(engine, language, &tag).await?;
    Ok(Prepared {
        image: tag,
        manifest,
    })
}

/// The added files of one language, read and checked on the host before anything starts.
struct Inputs {
    dir: Option<PathBuf>,
    /// (file name, SHA-256) of every added file, sorted.
    files: Vec<(String, String)>,
    /// A pip wheel of this host, for images without pip.
    pip: Option<PathBuf>,
}

impl Inputs {
    fn read(language: Language, dir: Option<&Path>) -> Result<Inputs, SandboxError> {
        let Some(dir) = dir else {
            return Ok(Inputs {
                dir: None,
                files: Vec::new(),
                pip: None,
            });
        };
        let (suffix, what, fix) = match language {
            Language::Python => (".whl", "wheelhouse", "`pip wheel --wheel-dir DIR PACKAGE`"),
            Language::JavaScript => (".tgz", "npm packages dir", "`npm pack PACKAGE`"),
        };
        let bad = |problem: String| {
            SandboxError::Build(format!(
                "the {what} {}: {problem}\n  hint: fill it with {fix}",
                dir.display()
            ))
        };
        let dir = std::fs::canonicalize(dir).map_err(|e| bad(e.to_string()))?;
        let mut files = Vec::new();
        for entry in std::fs::read_dir(&dir).map_err(|e| bad(e.to_string()))? {
            let entry = entry.map_err(|e| bad(e.to_string()))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            if !name.ends_with(suffix) {
                return Err(bad(format!(
                    "{name} is not a {suffix} file; only those are installed"
                )));
            }
            let bytes = std::fs::read(entry.path()).map_err(|e| bad(format!("{name}: {e}")))?;
            files.push((name, format!("{:x}", Sha256::digest(&bytes))));
        }
        if files.is_empty() {
            return Err(bad(format!("it holds no {suffix} files")));
        }
        files.sort();
        let pip = (language == Language::Python).then(host_pip).flatten();
        Ok(Inputs {
            dir: Some(dir),
            files,
            pip,
        })
    }
}

/// The newest pip wheel of this host (Debian's python3-pip-whl), if any.
fn host_pip() -> Option<PathBuf> {
    let mut wheels: Vec<PathBuf> = std::fs::read_dir(HOST_WHEELS)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("pip-") && n.ends_with(".whl"))
        })
        .collect();
    wheels.sort();
    wheels.pop()
}

/// `code-sandbox-python-custom:<12 hex digits>` of everything the derived image is made of.
fn derived_tag(language: Language, base_id: &str, inputs: &Inputs) -> String {
    let mut hasher = Sha256::new();
    let mut part = |text: &str| {
        hasher.update((text.len() as u64).to_be_bytes());
        hasher.update(text.as_bytes());
    };
    part("derived-v1");
    part(language.as_str());
    part(base_id);
    part(manifest::setup_script(language));
    for (path, _, text) in images::runner_files(language) {
        part(path);
        part(text);
    }
    let pip = inputs.pip.as_ref().and_then(|p| p.file_name());
    part(
        &pip.map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    );
    for (name, digest) in &inputs.files {
        part(name);
        part(digest);
    }
    let digest = format!("{:x}", hasher.finalize());
    format!(
        "code-sandbox-{}-custom:{}",
        language.as_str(),
        &digest[..12]
    )
}

async fn derive(
    engine: &Engine,
    language: Language,
    base: &str,
    inputs: &Inputs,
    tag: &str,
) -> Result<Prepared, SandboxError> {
    let lock = images::lock("code-sandbox-mcp-image-derive.lock").await?;
    if images::exists(engine, tag).await? {
        drop(lock);
        let manifest = manifest::of(engine, language, tag).await?;
        return Ok(Prepared {
            image: tag.to_owned(),
            manifest,
        });
    }
    let started = std::time::Instant::now();
    images::progress(&format!(
        "deriving {tag} from {base}: the runner{}",
        match &inputs.dir {
            Some(dir) => format!(
                " and {} package files from {}",
                inputs.files.len(),
                dir.display()
            ),
            None => String::new(),
        }
    ));
    let files: serde_json::Map<String, serde_json::Value> = images::runner_files(language)
        .into_iter()
        .map(|(path, mode, text)| (path.to_owned(), serde_json::json!([mode, text])))
        .collect();
    let mut binds = Vec::new();
    let extra = inputs.dir.as_ref().map(|dir| {
        binds.push(format!("{}:{EXTRA_MOUNT}:ro", dir.display()));
        EXTRA_MOUNT
    });
    let pip = inputs.pip.as_ref().map(|pip| {
        binds.push(format!("{}:{PIP_MOUNT}:ro", pip.display()));
        PIP_MOUNT
    });
    let spec = serde_json::json!({
        "install": true,
        "files": files,
        "wheelhouse": if language == Language::Python { extra } else { None },
        "npm": if language == Language::JavaScript { extra } else { None },
        "pip": pip,
        "min_version": manifest::min_version(language),
    });
    let job = Job {
        image: base,
        command: manifest::setup_command(language, &spec),
        binds,
        setup: true,
        timeout: Duration::from_secs(600),
    };
    let (repo, version) = tag.rsplit_once(':').expect("a derived tag has a version");
    let commit = oneshot::Commit {
        repo,
        tag: version,
        command: images::runner_command(language, false),
    };
    let finished = oneshot::run(engine, &job, Some(&commit)).await?;
    let manifest = manifest::parse(language, base, finished.as_ref())?;
    let id = finished
        .and_then(|f| f.committed)
        .ok_or_else(|| SandboxError::Build(format!("the engine did not commit {tag}")))?;
    manifest::remember(&id, language, &manifest);
    images::progress(&format!(
        "derived {tag} in {:.1} s ({})",
        started.elapsed().as_secs_f64(),
        manifest.runtime()
    ));
    drop(lock);
    Ok(Prepared {
        image: tag.to_owned(),
        manifest,
    })
}

/// The tag of the image derived from `base` with `extra`'s packages (whether built or not).
pub async fn tag_for(
    engine: &Engine,
    language: Language,
    base: &str,
    extra: Option<&Path>,
) -> Result<String, SandboxError> {
    let inputs = Inputs::read(language, extra)?;
    let base_id = docker::images::id(engine, base).await?;
    Ok(derived_tag(language, &base_id, &inputs))
}
