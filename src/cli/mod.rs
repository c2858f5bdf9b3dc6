//! The `code-sandbox-mcp` commands. Options shared by every command that runs code live here.

pub mod doctor;
pub mod engine_probe;
pub mod images;
pub mod run;
pub mod server;
pub mod setup;

use std::collections::HashMap;
use std::path::PathBuf;

use clap::Args;
use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::policy::{self, DEFAULT_POLICY, Policy};
use code_sandbox_mcp::sandbox::{EngineChoice, Extras, Recipe, SandboxConfig, Suite, UidRange};

/// Exit status for a failure of the gateway itself (engine, image, policy), as `docker run`.
pub const EXIT_SANDBOX_ERROR: u8 = 125;

#[derive(Args, Clone)]
pub struct SandboxArgs {
    /// Container engine: docker, podman, a unix:// socket URL, or auto (DOCKER_HOST if set,
    /// else whichever of Docker and Podman answers, Docker if both).
    #[arg(
        long,
        global = true,
        default_value = "auto",
        env = "SANDBOX_ENGINE",
        value_name = "ENGINE"
    )]
    pub engine: EngineChoice,
    /// Policy file, or a preset: strict, strict-gvisor, standard, permissive.
    #[arg(long, short, global = true, default_value = DEFAULT_POLICY, env = "SANDBOX_POLICY")]
    pub policy: String,
    /// Image for Python snippets (default: the image built from the embedded recipe). Any
    /// image with python3 on its PATH: the gateway adds its runner in a derived image.
    #[arg(long, global = true, value_name = "IMAGE")]
    pub python_image: Option<String>,
    /// Image for JavaScript snippets: any image with node on its PATH.
    #[arg(long, global = true, value_name = "IMAGE")]
    pub js_image: Option<String>,
    /// Python wheels to add to the Python image (`pip install --no-index`: nothing is
    /// downloaded). The image with them is derived on first use and kept.
    #[arg(long, global = true, value_name = "DIR")]
    pub wheelhouse: Option<PathBuf>,
    /// npm tarballs (`npm pack` output) to add to the JavaScript image.
    #[arg(long, global = true, value_name = "DIR")]
    pub npm_packages: Option<PathBuf>,
    /// Debian packages to add to the images built from the recipe: one package name a line,
    /// `#` for comments. Installed from the apt sources when the image is built (on first
    /// use); the image's tag covers them.
    #[arg(long, global = true, value_name = "FILE")]
    pub deb_packages: Option<PathBuf>,
    /// Debian release both languages' images built from the recipe come from: bookworm
    /// (Python 3.11, Node.js 18), trixie (Python 3.13, Node.js 20) or forky (Python 3.14,
    /// Node.js 24). Default: trixie for Python, forky for JavaScript (the suites whose
    /// interpreters are supported upstream).
    #[arg(long, global = true, env = "SANDBOX_SUITE", value_name = "SUITE")]
    pub suite: Option<Suite>,
    /// Gateway environment variables passed into containers, e.g. `GEMINI_API_KEY,OTHER`.
    /// Their values are never logged.
    #[arg(long, global = true, value_delimiter = ',', value_name = "VARS")]
    pub pass_through_env: Vec<String>,
    /// Warm containers kept ready per language.
    #[arg(long, global = true, default_value_t = 2, value_name = "N")]
    pub pool_size: usize,
    /// Apt sources file or mirror URL for image builds (default: this host's apt sources).
    #[arg(long, global = true, value_name = "SOURCES")]
    pub mirror: Option<String>,
    /// Fail instead of building missing images.
    #[arg(long, global = true)]
    pub no_build: bool,
    /// User ids for sandbox containers, one per container: FIRST-LAST. Ids no host user and
    /// no other container uses (with rootless Podman: ids inside its subordinate range).
    #[arg(
        long,
        global = true,
        default_value_t = UidRange::default(),
        env = "SANDBOX_UIDS",
        value_name = "FIRST-LAST"
    )]
    pub sandbox_uids: UidRange,
}

impl SandboxArgs {
    /// The sandbox configuration, with `CONTAINER_IMAGE` + `CONTAINER_LANGUAGE` applied as the
    /// original project documents (flags win over the environment).
    pub fn config(
        &self,
        languages: Vec<Language>,
        pool_size: usize,
    ) -> Result<SandboxConfig, String> {
        let mut images = HashMap::new();
        if let Ok(image) = std::env::var("CONTAINER_IMAGE") {
            let language: Language = std::env::var("CONTAINER_LANGUAGE")
                .map_err(|_| "CONTAINER_IMAGE is set but CONTAINER_LANGUAGE is not\n  hint: set CONTAINER_LANGUAGE=python or javascript".to_owned())?
                .parse()
                .map_err(|e| format!("CONTAINER_LANGUAGE: {e}"))?;
            images.insert(language, image);
        }
        if let Some(image) = &self.python_image {
            images.insert(Language::Python, image.clone());
        }
        if let Some(image) = &self.js_image {
            images.insert(Language::JavaScript, image.clone());
        }
        Ok(SandboxConfig {
            engine: self.engine.clone(),
            images,
            extras: Extras {
                wheelhouse: self.wheelhouse.clone(),
                npm_packages: self.npm_packages.clone(),
            },
            recipe: self.recipe()?,
            pool_size,
            pass_through_env: self.pass_through_env.clone(),
            build_missing_images: !self.no_build,
            mirror: self.mirror.clone(),
            languages,
            uids: self.sandbox_uids,
        })
    }

    /// The suite and added Debian packages of the images built from the recipe.
    pub fn recipe(&self) -> Result<Recipe, String> {
        let deb_packages = match &self.deb_packages {
            Some(path) => Recipe::read_deb_packages(path)?,
            None => Vec::new(),
        };
        Ok(Recipe {
            suite: self.suite,
            deb_packages,
        })
    }

    pub fn load_policy(&self) -> Result<Policy, String> {
        policy::load(&self.policy).map_err(|e| e.to_string())
    }
}

/// Logs go to stderr (stdout may be the MCP channel); the level comes from `RUST_LOG`.
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}
