//! Sandbox images, built on this machine from Debian packages: no container registry is
//! involved. The recipes under `containers/` are embedded in the binary; an image's tag is a
//! digest of its recipe, so an unchanged recipe is never rebuilt and a changed one always is.

use std::io::Write;
use std::process::Stdio;

use super::build_log;
pub use super::docker::images::exists;
use super::docker::{self, Engine};
use super::error::SandboxError;
pub use super::recipe::{Recipe, Suite};
use crate::analysis::Language;

const BUILD_SCRIPT: &str = include_str!("../../containers/build-image.sh");

/// The files of one language's recipe, as (path under `containers/`, contents).
fn recipe_files(language: Language) -> [(&'static str, &'static str); 3] {
    match language {
        Language::Python => [
            ("build-image.sh", BUILD_SCRIPT),
            (
                "python/packages.txt",
                include_str!("../../containers/python/packages.txt"),
            ),
            (
                "python/runner.py",
                include_str!("../../containers/python/runner.py"),
            ),
        ],
        Language::JavaScript => [
            ("build-image.sh", BUILD_SCRIPT),
            (
                "javascript/packages.txt",
                include_str!("../../containers/javascript/packages.txt"),
            ),
            (
                "javascript/runner.js",
                include_str!("../../containers/javascript/runner.js"),
            ),
        ],
    }
}

/// The runner files a sandbox image holds, as (path in the image, mode, contents): what a
/// derived image gets (see [`super::derive`]).
pub(super) fn runner_files(language: Language) -> Vec<(&'static str, u32, &'static str)> {
    let [_, _, (name, text)] = recipe_files(language);
    let path = match name {
        "python/runner.py" => "/opt/sandbox/runner.py",
        _ => "/opt/sandbox/runner.js",
    };
    vec![(path, 0o644, text)]
}

/// `code-sandbox-python:<first 12 hex digits of the recipe's SHA-256>`: the image of the
/// embedded recipe on the language's default suite with no added packages.
pub fn default_image(language: Language) -> String {
    image_for(language, &Recipe::default())
}

/// The tag of the image built from the embedded recipe with `recipe`'s choices: a digest of
/// the recipe's files, the suite and every added package, so each choice is built once and
/// kept, and choosing a language's default suite by name selects the default image.
pub fn image_for(language: Language, recipe: &Recipe) -> String {
    let files = recipe_files(language);
    let mut parts: Vec<&str> = files
        .iter()
        .flat_map(|(name, text)| [*name, *text])
        .collect();
    parts.extend(["suite", recipe.suite(language).as_str()]);
    if !recipe.deb_packages.is_empty() {
        parts.push("deb-packages");
        parts.extend(recipe.deb_packages.iter().map(String::as_str));
    }
    let digest = crate::policy::digest(parts.into_iter());
    format!("code-sandbox-{}:{}", language.as_str(), &digest[..12])
}

/// The runner command of the images built from our recipes: the runner's supervisor, PID 1.
///
/// The JavaScript supervisor runs from an executable-only copy of node under runc, which makes
/// it non-dumpable (containers/javascript/runner.js explains why); gVisor cannot run a file it
/// may not read, and keeps /proc/1/mem from the snippet by itself.
pub fn runner_command(language: Language, gvisor: bool) -> Vec<String> {
    let parts: &[&str] = match (language, gvisor) {
        (Language::Python, _) => &["python3", "-I", "-S", "/opt/sandbox/runner.py"],
        (Language::JavaScript, false) => {
            &["/opt/sandbox/node-supervisor", "/opt/sandbox/runner.js"]
        }
        (Language::JavaScript, true) => &["node", "/opt/sandbox/runner.js"],
    };
    parts.iter().map(|s| (*s).to_owned()).collect()
}

/// Where to say what is happening: stderr, since stdout may carry the MCP protocol.
pub(super) fn progress(message: &str) {
    eprintln!("code-sandbox-mcp: {message}");
}

/// Makes sure the image exists: our own images (of `recipe`) are built when missing (if
/// allowed); an image the user named must already exist.
pub async fn ensure(
    engine: &Engine,
    language: Language,
    image: &str,
    recipe: &Recipe,
    build_missing: bool,
    mirror: Option<&str>,
) -> Result<(), SandboxError> {
    if exists(engine, image).await? {
        return Ok(());
    }
    let ours = image == image_for(language, recipe);
    if !ours || !build_missing {
        return Err(SandboxError::image_missing(language, image));
    }
    progress(&format!(
        "the {language} sandbox image {image} is not built yet; building it now (first use, a minute or more)"
    ));
    build(engine, language, recipe, mirror).await
}

/// Builds one language's image from its recipe: mmdebstrap makes the root filesystem, the
/// engine imports it. Concurrent builders (two gateways starting at once) take turns on a
/// lock file, and the second finds the image already there. The image is tagged only after
/// all of it worked.
pub async fn build(
    engine: &Engine,
    language: Language,
    recipe: &Recipe,
    mirror: Option<&str>,
) -> Result<(), SandboxError> {
    let image = image_for(language, recipe);
    let lock = build_lock().await?;
    if exists(engine, &image).await? {
        drop(lock);
        progress(&format!("{image} is already built"));
        return Ok(());
    }
    check_builder()?;
    let work = tempfile::Builder::new()
        .prefix("code-sandbox-image-")
        .tempdir()
        .map_err(|e| SandboxError::Build(format!("cannot create a build directory: {e}")))?;
    for (name, text) in recipe_files(language) {
        let path = work.path().join(name);
        std::fs::create_dir_all(path.parent().expect("recipe paths have a parent"))
            .and_then(|()| std::fs::write(&path, text))
            .map_err(|e| SandboxError::Build(format!("cannot write {}: {e}", path.display())))?;
    }
    let tarball = work.path().join("rootfs.tar");
    let started = std::time::Instant::now();
    progress(&format!(
        "building {image} with mmdebstrap (its progress follows)"
    ));
    let mut command = tokio::process::Command::new("bash");
    command
        .arg(work.path().join("build-image.sh"))
        .arg(language.as_str())
        .arg(&image)
        .env("KEEP_TAR", &tarball)
        .env("NO_IMPORT", "1")
        .env("SUITE", recipe.suite(language).as_str())
        .env("EXTRA_PACKAGES", recipe.deb_packages.join(","))
        .stdin(Stdio::null())
        // The builder's output is progress for people: it goes to stderr, never to stdout.
        .stdout(std::io::stderr())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(mirror) = mirror {
        command.env("MIRROR", mirror);
    }
    let (status, said) = build_log::run(command)
        .await
        .map_err(|e| SandboxError::Build(format!("cannot run the build script: {e}")))?;
    if !status.success() {
        return Err(build_log::failure(
            &status,
            &said,
            recipe,
            recipe.suite(language),
        ));
    }
    let size = std::fs::metadata(&tarball).map(|m| m.len()).unwrap_or(0);
    progress(&format!(
        "importing the root filesystem ({} MB) into {}",
        size / 1_000_000,
        engine.kind
    ));
    docker::images::import(engine, &tarball, &image).await?;
    progress(&format!(
        "built {image} in {:.0} s",
        started.elapsed().as_secs_f64()
    ));
    drop(lock);
    Ok(())
}

/// An exclusive lock held for the duration of a build.
pub(super) async fn build_lock() -> Result<std::fs::File, SandboxError> {
    lock("code-sandbox-mcp-image-build.lock").await
}

/// An exclusive lock file of this name in the temporary directory. Derived images take their
/// own (a derivation takes seconds and must not wait for a base image's build of minutes).
pub(super) async fn lock(name: &str) -> Result<std::fs::File, SandboxError> {
    let path = std::env::temp_dir().join(name);
    tokio::task::spawn_blocking(move || {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| {
                SandboxError::Build(format!(
                    "cannot open the build lock {}: {e}",
                    path.display()
                ))
            })?;
        if file.try_lock().is_err() {
            progress("another image build is running; waiting for it");
            file.lock()
                .map_err(|e| SandboxError::Build(format!("cannot take the build lock: {e}")))?;
        }
        let _ = (&file).write(b"");
        Ok(file)
    })
    .await
    .map_err(|e| SandboxError::Build(format!("build lock task failed: {e}")))?
}

/// Image builds run mmdebstrap in root mode.
fn check_builder() -> Result<(), SandboxError> {
    let which = std::process::Command::new("sh")
        .args(["-c", "command -v mmdebstrap"])
        .output();
    if !which.is_ok_and(|o| o.status.success()) {
        return Err(SandboxError::Build(
            "mmdebstrap is not installed\n  hint: apt-get install mmdebstrap (Debian/Ubuntu), then run `code-sandbox-mcp images build`".into(),
        ));
    }
    let root = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(2) == Some("0"))
        })
        .unwrap_or(false);
    if !root {
        return Err(SandboxError::Build(
            "building images needs root (mmdebstrap runs in root mode)\n  hint: run `sudo code-sandbox-mcp images build` once; later runs find the images".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_derive_from_the_recipe() {
        let py = default_image(Language::Python);
        assert!(py.starts_with("code-sandbox-python:"));
        assert_eq!(py.len(), "code-sandbox-python:".len() + 12);
        assert_ne!(
            py.split(':').nth(1),
            default_image(Language::JavaScript).split(':').nth(1)
        );
        assert_eq!(py, default_image(Language::Python));
    }

    #[test]
    fn the_tag_covers_the_suite_and_the_added_packages() {
        let py = default_image(Language::Python);
        let recipe = |suite, deb_packages: &[&str]| Recipe {
            suite,
            deb_packages: deb_packages.iter().map(|&p| p.to_owned()).collect(),
        };
        let tags = [
            image_for(Language::Python, &recipe(Some(Suite::Bookworm), &[])),
            image_for(Language::Python, &recipe(None, &["python3-six"])),
        ];
        assert!(tags.iter().all(|t| t.starts_with("code-sandbox-python:")));
        assert!(tags.iter().all(|t| *t != py));
        assert_ne!(tags[0], tags[1]);
        // Naming a language's default suite selects its default image.
        for language in Language::ALL {
            let named = recipe(Some(Suite::default_for(language)), &[]);
            assert_eq!(image_for(language, &named), default_image(language));
        }
    }
}
