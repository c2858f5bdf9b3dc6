//! Execution: each snippet in a fresh, hardened, single-use container taken from a warm pool.
//!
//! The sandbox knows nothing about policies: it is given [`Limits`] and code that has already
//! been judged. Containers carry a label so leftovers of a crashed gateway are reaped at the
//! next start, and every container is removed after its run, however the run ended.

pub mod backend;
mod build_log;
pub mod container;
pub mod derive;
pub mod docker;
mod error;
mod exec;
mod host_files;
pub mod images;
mod labels;
pub mod manifest;
mod output;
pub mod pool;
mod preload;
pub mod random;
mod recipe;
pub mod seccomp;
mod spec;
pub mod transfer;
pub mod uids;

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

pub use backend::Backend;
pub use derive::Extras;
/// The Docker or Podman connection, under the name it had before backends were separated.
pub use docker::engine;
pub use docker::{Engine, EngineChoice, EngineKind};
pub use error::SandboxError;
pub use exec::Execution;
use exec::Keep;
pub use preload::Preload;
pub use recipe::{Recipe, Suite};
use tokio_util::task::TaskTracker;
use tracing::Instrument;
pub use uids::UidRange;

use crate::analysis::Language;
use crate::policy::Limits;
use crate::workdir::InputFile;
use container::{ContainerSpec, Started};
use host_files::HostFiles;
use manifest::Manifest;
use pool::Pool;
use uids::UidPool;

/// How the sandbox is set up.
#[derive(Debug, Clone)]
pub struct SandboxConfig {
    /// The container engine to run in.
    pub engine: EngineChoice,
    /// Image per language; unset means the image built from our recipe. Any image with the
    /// language's interpreter works: the gateway derives one with its runner from it.
    pub images: HashMap<Language, String>,
    /// Packages added to the images (derived on first use).
    pub extras: Extras,
    /// The Debian suite of our own images, and Debian packages added to them (built on
    /// first use).
    pub recipe: images::Recipe,
    /// Warm containers kept per language.
    pub pool_size: usize,
    /// Names of gateway environment variables passed into containers.
    pub pass_through_env: Vec<String>,
    /// Build our images when missing (instead of failing).
    pub build_missing_images: bool,
    /// Apt sources file or mirror URL for image builds; unset: the host's apt sources.
    pub mirror: Option<String>,
    /// Languages to prepare (images checked, pools filled).
    pub languages: Vec<Language>,
    /// The user ids containers run as, one per container.
    pub uids: UidRange,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            engine: EngineChoice::Auto,
            images: HashMap::new(),
            extras: Extras::default(),
            recipe: images::Recipe::default(),
            pool_size: 2,
            pass_through_env: Vec::new(),
            build_missing_images: true,
            mirror: None,
            languages: Language::ALL.to_vec(),
            uids: UidRange::default(),
        }
    }
}

impl SandboxConfig {
    /// How this configuration's missing images are made.
    pub fn build(&self) -> derive::Build<'_> {
        derive::Build {
            recipe: &self.recipe,
            missing: self.build_missing_images,
            mirror: self.mirror.as_deref(),
        }
    }

    pub fn image(&self, language: Language) -> String {
        self.images
            .get(&language)
            .cloned()
            .unwrap_or_else(|| images::image_for(language, &self.recipe))
    }
}

/// A connected engine with a warm pool per language.
pub struct Sandbox {
    /// The engine the images were prepared in (and that runs the containers).
    engine: Engine,
    /// What creates, runs and removes the containers.
    backend: Arc<dyn Backend>,
    pools: HashMap<Language, Arc<Pool>>,
    manifests: HashMap<Language, Manifest>,
    limits: Limits,
    teardown: TaskTracker,
    instance: String,
}

impl Sandbox {
    /// Connects to the engine, checks the policy's runtime exists, removes what a crashed
    /// gateway left behind, makes sure the images exist (building ours if allowed), and starts
    /// filling the pools.
    pub async fn start(config: &SandboxConfig, limits: &Limits) -> Result<Sandbox, SandboxError> {
        let engine = Engine::connect(&config.engine).await?;
        let runtime = engine.require_runtime(limits.runtime.as_deref()).await?;
        let gvisor = runtime.as_ref().is_some_and(engine::Runtime::is_gvisor);
        let backend: Arc<dyn Backend> = Arc::new(engine.clone());
        let reaped = container::reap_leftovers(backend.as_ref()).await?;
        if reaped > 0 {
            tracing::info!(reaped, "removed containers left by an earlier gateway");
        }
        let env = pass_through(&config.pass_through_env);
        let instance = random::nonce()[..16].to_owned();
        let uids = UidPool::new(config.uids);
        let host_files = Arc::new(HostFiles::create()?);
        let mut pools = HashMap::new();
        let mut manifests = HashMap::new();
        for &language in &config.languages {
            let prepared = derive::prepare(
                &engine,
                language,
                &config.image(language),
                config.extras.dir(language),
                &config.build(),
            )
            .await?;
            manifests.insert(language, prepared.manifest);
            let spec = ContainerSpec {
                language,
                preload: Preload::Full,
                image: prepared.image,
                command: images::runner_command(language, gvisor),
                limits: limits.clone(),
                env: env.clone(),
                instance: instance.clone(),
                engine: engine.kind,
                gvisor,
                uids: Arc::clone(&uids),
                host_files: Arc::clone(&host_files),
            };
            pools.insert(
                language,
                Pool::start(
                    Arc::clone(&backend),
                    spec,
                    config.pool_size,
                    classes(language),
                ),
            );
        }
        Ok(Sandbox {
            engine,
            backend,
            pools,
            manifests,
            limits: limits.clone(),
            teardown: TaskTracker::new(),
            instance,
        })
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The image in use for a language, if it was prepared.
    pub fn image(&self, language: Language) -> Option<&str> {
        self.pools.get(&language).map(|p| p.spec().image.as_str())
    }

    /// What a language's image holds, if it was prepared.
    pub fn manifest(&self, language: Language) -> Option<&Manifest> {
        self.manifests.get(&language)
    }

    /// Waits until each pool holds `count` warm containers (for benchmarks and tests).
    pub async fn wait_warm(&self, count: usize, timeout: Duration) -> bool {
        for pool in self.pools.values() {
            if !pool.wait_ready(count, timeout).await {
                return false;
            }
        }
        true
    }

    /// Runs `code` in a fresh container whose runner has everything preloaded.
    pub async fn run(
        &self,
        language: Language,
        code: &str,
        cancelled: impl Future<Output = ()>,
    ) -> Result<Execution, SandboxError> {
        self.run_in(language, Preload::Full, code, &[], cancelled)
            .await
    }

    /// [`Sandbox::run`] in a runner that preloaded at least `preload` (any class runs any
    /// code; a lighter one starts sooner and leaves heavy imports to the code).
    pub async fn run_class(
        &self,
        language: Language,
        preload: Preload,
        code: &str,
        cancelled: impl Future<Output = ()>,
    ) -> Result<Execution, SandboxError> {
        self.run_in(language, preload, code, &[], cancelled).await
    }

    /// [`Sandbox::run`] with files written into the work dir first (checked by the caller,
    /// see [`crate::workdir::decode`]).
    pub async fn run_with_files(
        &self,
        language: Language,
        code: &str,
        files: &[InputFile],
        cancelled: impl Future<Output = ()>,
    ) -> Result<Execution, SandboxError> {
        self.run_in(language, Preload::Full, code, files, cancelled)
            .await
    }

    /// Runs `code` in a fresh container whose runner preloaded at least `preload`, with
    /// `files` written into its work dir first. Returns as soon as the runner reports the end;
    /// the container is killed and removed in the background. Resolving `cancelled` kills it.
    pub async fn run_in(
        &self,
        language: Language,
        preload: Preload,
        code: &str,
        files: &[InputFile],
        cancelled: impl Future<Output = ()>,
    ) -> Result<Execution, SandboxError> {
        let started = self
            .pool(language)?
            .take(preload)
            .instrument(tracing::info_span!("sandbox.take"))
            .await?;
        // Removal is tied to this guard, so it happens however the run ends, even when the
        // caller drops this future (a client that went away).
        let mut teardown = Teardown {
            backend: Arc::clone(&self.backend),
            started: Some(started),
            tracker: self.teardown.clone(),
        };
        let started = teardown.started.as_mut().expect("set above");
        exec::execute(
            self.backend.as_ref(),
            started,
            code,
            files,
            &self.limits,
            Keep::Once,
            cancelled,
        )
        .instrument(tracing::info_span!("sandbox.run"))
        .await
    }

    /// A container kept for a session: a warm runner of the heaviest class (a session's later
    /// calls may import anything), switched into session mode by a first call that writes
    /// `files` and runs nothing. Destroyed when the [`Kept`] is dropped.
    pub async fn keep(
        &self,
        language: Language,
        files: &[InputFile],
    ) -> Result<(Kept, Execution), SandboxError> {
        let pool = self.pool(language)?;
        let started = pool
            .take(Preload::Full)
            .instrument(tracing::info_span!("sandbox.take"))
            .await?;
        let mut kept = Kept(Teardown {
            backend: Arc::clone(&self.backend),
            started: Some(started),
            tracker: self.teardown.clone(),
        });
        let execution = self
            .run_kept(&mut kept, "", files, std::future::pending())
            .await?;
        if !execution.program_lives {
            return Err(SandboxError::Protocol {
                detail: format!(
                    "the runner did not keep its program for a session (exit status {:?}): {}",
                    execution.exit_code,
                    execution.stderr.trim()
                ),
            });
        }
        Ok((kept, execution))
    }

    /// One call of a session in its kept container. Unless the result says the program lives
    /// on ([`Execution::program_lives`]), the container is finished: drop the [`Kept`].
    pub async fn run_kept(
        &self,
        kept: &mut Kept,
        code: &str,
        files: &[InputFile],
        cancelled: impl Future<Output = ()>,
    ) -> Result<Execution, SandboxError> {
        let started = kept.0.started.as_mut().expect("a kept container");
        exec::execute(
            self.backend.as_ref(),
            started,
            code,
            files,
            &self.limits,
            Keep::Session,
            cancelled,
        )
        .instrument(tracing::info_span!("sandbox.session_call"))
        .await
    }

    fn pool(&self, language: Language) -> Result<&Arc<Pool>, SandboxError> {
        self.pools
            .get(&language)
            .ok_or_else(|| SandboxError::Engine {
                action: "choosing a container".into(),
                detail: format!("no {language} sandbox is configured"),
            })
    }

    /// Stops the pools, waits until every container this sandbox created is gone, and sweeps
    /// any container still carrying this sandbox's instance label.
    pub async fn shutdown(&self) {
        for pool in self.pools.values() {
            pool.close().await;
        }
        self.teardown.close();
        self.teardown.wait().await;
        if let Err(e) = container::remove_instance(self.backend.as_ref(), &self.instance).await {
            tracing::warn!(error = %e, "could not sweep this sandbox's containers");
        }
    }
}

/// A session's container, kept between its calls; killed and removed (in the background)
/// when dropped, like a single run's.
pub struct Kept(Teardown);

impl Kept {
    /// The container's id, for logs.
    pub fn container(&self) -> &str {
        self.0.started.as_ref().map_or("", |s| s.id.as_str())
    }
}

/// Kills and removes a run's container in the background when dropped; its user id returns
/// to the pool once the container is gone.
struct Teardown {
    backend: Arc<dyn Backend>,
    started: Option<Started>,
    tracker: TaskTracker,
}

impl Drop for Teardown {
    fn drop(&mut self) {
        let Some(started) = self.started.take() else {
            return;
        };
        let backend = Arc::clone(&self.backend);
        match tokio::runtime::Handle::try_current() {
            Ok(_) => {
                self.tracker.spawn(async move {
                    container::destroy(backend.as_ref(), &started.id).await;
                    drop(started);
                });
            }
            Err(_) => {
                tracing::warn!(container = %container::short(&started.id), "no runtime to remove the container; the next start reaps it")
            }
        }
    }
}

/// A sandbox started on first use (and started again after a failed start), so a server can
/// answer its clients at once while images build or the engine comes up.
pub struct LazySandbox {
    config: SandboxConfig,
    limits: Limits,
    slot: tokio::sync::Mutex<Option<Arc<Sandbox>>>,
}

impl LazySandbox {
    pub fn new(config: SandboxConfig, limits: Limits) -> LazySandbox {
        LazySandbox {
            config,
            limits,
            slot: tokio::sync::Mutex::new(None),
        }
    }

    pub fn config(&self) -> &SandboxConfig {
        &self.config
    }

    /// The running sandbox, starting it if needed. Callers wait while another caller starts it.
    pub async fn get(&self) -> Result<Arc<Sandbox>, SandboxError> {
        let mut slot = self.slot.lock().await;
        if let Some(sandbox) = slot.as_ref() {
            return Ok(Arc::clone(sandbox));
        }
        let sandbox = Arc::new(Sandbox::start(&self.config, &self.limits).await?);
        *slot = Some(Arc::clone(&sandbox));
        Ok(sandbox)
    }

    /// The running sandbox, waiting at most `wait` for a start under way (never starting one).
    pub async fn started_within(&self, wait: Duration) -> Option<Arc<Sandbox>> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Ok(slot) = self.slot.try_lock()
                && let Some(sandbox) = slot.as_ref()
            {
                return Some(Arc::clone(sandbox));
            }
            if tokio::time::Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub async fn shutdown(&self) {
        if let Some(sandbox) = self.slot.lock().await.take() {
            sandbox.shutdown().await;
        }
    }
}

/// The runner classes a language's image has: the Python runner preloads by class; the
/// JavaScript runner has nothing heavy to preload, so it has one.
fn classes(language: Language) -> Vec<Preload> {
    match language {
        Language::Python => Preload::ALL.to_vec(),
        Language::JavaScript => vec![Preload::Full],
    }
}

/// Reads the named variables from the gateway's environment (absent ones are skipped).
/// Only names are ever logged.
fn pass_through(names: &[String]) -> Vec<(String, String)> {
    names
        .iter()
        .filter_map(|name| match std::env::var(name) {
            Ok(value) => Some((name.clone(), value)),
            Err(_) => {
                tracing::warn!(variable = %name, "pass-through variable is not set; skipped");
                None
            }
        })
        .collect()
}
