//! The connection to the container engine (Docker, or Podman's Docker-compatible API), and
//! the errors a user can act on.

use std::time::Duration;

use bollard::Docker;

/// Timeout of ordinary engine requests (not of snippet runs, which have their own limit).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error(
        "cannot reach the container engine at {endpoint}: {detail}\n  hint: start Docker (`systemctl start docker`, or `dockerd > /var/log/dockerd.log 2>&1 &` as root), or point DOCKER_HOST at a running engine"
    )]
    NoEngine { endpoint: String, detail: String },
    #[error(
        "the {language} sandbox image `{image}` does not exist\n  hint: build it with `code-sandbox-mcp images build`, or pass an existing image with --{language_flag}-image"
    )]
    ImageMissing {
        language: &'static str,
        language_flag: &'static str,
        image: String,
    },
    #[error(
        "the container engine stopped answering during the run: {detail}\n  hint: check that the engine is running; the next run reconnects once it is back"
    )]
    EngineLost { detail: String },
    #[error("container engine error while {action}: {detail}")]
    Engine { action: String, detail: String },
    #[error("image build failed: {0}")]
    Build(String),
    #[error(
        "the engine has no runtime `{runtime}` (it has: {available})\n  hint: install and register it with the engine (see the README's gVisor section), or remove `runtime` from the policy's limits"
    )]
    MissingRuntime { runtime: String, available: String },
    #[error("the sandbox is busy: {0}")]
    Busy(String),
    #[error("the run was cancelled")]
    Cancelled,
    #[error(
        "the runner in image `{image}` did not start ({detail})\n  hint: images must be built from this version's recipes (`code-sandbox-mcp images build`); a custom image needs the runner at /opt/sandbox/"
    )]
    RunnerFailed { image: String, detail: String },
}

impl SandboxError {
    pub fn image_missing(language: crate::analysis::Language, image: &str) -> SandboxError {
        SandboxError::ImageMissing {
            language: language.as_str(),
            language_flag: match language {
                crate::analysis::Language::Python => "python",
                crate::analysis::Language::JavaScript => "js",
            },
            image: image.to_owned(),
        }
    }

    /// Wraps an engine error, telling a lost connection from a refused request.
    pub fn engine(action: impl Into<String>, error: bollard::errors::Error) -> SandboxError {
        use bollard::errors::Error as E;
        let detail = error.to_string();
        match error {
            E::IOError { .. }
            | E::HyperResponseError { .. }
            | E::HyperLegacyError { .. }
            | E::RequestTimeoutError
            | E::SocketNotFoundError(_) => SandboxError::EngineLost { detail },
            _ => SandboxError::Engine {
                action: action.into(),
                detail,
            },
        }
    }
}

/// A connected engine and what it reported about itself.
#[derive(Clone)]
pub struct Engine {
    pub docker: Docker,
    pub endpoint: String,
    pub version: String,
    pub api_version: String,
}

impl Engine {
    /// Connects to `DOCKER_HOST` (a `unix://` socket) or the default Docker socket, and
    /// negotiates the API version: Debian's engine speaks an older API than bollard's default.
    pub async fn connect() -> Result<Engine, SandboxError> {
        let endpoint = std::env::var("DOCKER_HOST")
            .unwrap_or_else(|_| "unix:///var/run/docker.sock".to_owned());
        let no_engine = |detail: String| SandboxError::NoEngine {
            endpoint: endpoint.clone(),
            detail,
        };
        let socket = endpoint
            .strip_prefix("unix://")
            .ok_or_else(|| no_engine("only unix:// sockets are supported".to_owned()))?;
        let docker = Docker::connect_with_socket(
            socket,
            REQUEST_TIMEOUT.as_secs(),
            bollard::API_DEFAULT_VERSION,
        )
        .map_err(|e| no_engine(e.to_string()))?;
        let docker = docker
            .negotiate_version()
            .await
            .map_err(|e| no_engine(e.to_string()))?;
        let version = docker
            .version()
            .await
            .map_err(|e| no_engine(e.to_string()))?;
        Ok(Engine {
            docker,
            endpoint,
            version: version.version.unwrap_or_default(),
            api_version: version.api_version.unwrap_or_default(),
        })
    }

    /// The runtimes the engine can start containers with (`runc`, `runsc`, ...).
    pub async fn runtimes(&self) -> Result<Vec<String>, SandboxError> {
        let info = self
            .docker
            .info()
            .await
            .map_err(|e| SandboxError::engine("reading engine info", e))?;
        let mut names: Vec<String> = info.runtimes.unwrap_or_default().into_keys().collect();
        names.sort();
        Ok(names)
    }

    /// Fails unless the engine has `runtime`: a policy that asks for gVisor must never get a
    /// weaker runtime silently.
    pub async fn require_runtime(&self, runtime: Option<&str>) -> Result<(), SandboxError> {
        let Some(runtime) = runtime else {
            return Ok(());
        };
        let available = self.runtimes().await?;
        if available.iter().any(|r| r == runtime) {
            Ok(())
        } else {
            Err(SandboxError::MissingRuntime {
                runtime: runtime.to_owned(),
                available: available.join(", "),
            })
        }
    }
}
