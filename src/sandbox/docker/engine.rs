//! The connection to the container engine: Docker, or Podman through its Docker-compatible
//! API. Both are driven by the same requests, so a container gets the same hardening on
//! either; only how the engine is found differs.

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use bollard::Docker;

pub use crate::sandbox::error::SandboxError;

/// Timeout of ordinary engine requests (not of snippet runs, which have their own limit).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// Which engine to use, as given by `--engine`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum EngineChoice {
    /// `DOCKER_HOST` if set; otherwise whichever of Docker and Podman answers (Docker if both).
    #[default]
    Auto,
    /// `DOCKER_HOST`, or Docker's default socket.
    Docker,
    /// `CONTAINER_HOST`, or Podman's rootful or rootless API socket.
    Podman,
    /// A `unix://` socket URL of either engine.
    Socket(String),
}

impl FromStr for EngineChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<EngineChoice, String> {
        match s {
            "auto" => Ok(EngineChoice::Auto),
            "docker" => Ok(EngineChoice::Docker),
            "podman" => Ok(EngineChoice::Podman),
            url if url.starts_with("unix://") && url.len() > "unix://".len() => {
                Ok(EngineChoice::Socket(url.to_owned()))
            }
            other => Err(format!(
                "unknown engine `{other}`: expected auto, docker, podman or a unix:// socket URL"
            )),
        }
    }
}

impl fmt::Display for EngineChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineChoice::Auto => f.write_str("auto"),
            EngineChoice::Docker => f.write_str("docker"),
            EngineChoice::Podman => f.write_str("podman"),
            EngineChoice::Socket(url) => f.write_str(url),
        }
    }
}

/// The engine's make, read from its version report (not from the socket's path).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineKind {
    Docker,
    Podman,
}

impl fmt::Display for EngineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EngineKind::Docker => "Docker",
            EngineKind::Podman => "Podman",
        })
    }
}

/// A runtime the engine reports, and whether it can actually start containers here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runtime {
    pub name: String,
    /// The program the engine runs, when it says.
    pub path: Option<String>,
    /// False when the engine names an absolute path that does not exist on this host: Podman
    /// lists every runtime of its default configuration, installed or not.
    pub installed: bool,
    /// The engine's default runtime, used when a container names none.
    pub default: bool,
    /// The arguments the engine passes the runtime (Docker's `runtimeArgs`).
    pub args: Vec<String>,
}

impl Runtime {
    /// gVisor, by its registered name or by the program it runs.
    pub fn is_gvisor(&self) -> bool {
        self.name == "runsc"
            || self
                .path
                .as_deref()
                .and_then(|p| Path::new(p).file_name())
                .is_some_and(|f| f == "runsc")
    }

    /// gVisor applies a container's seccomp profile inside its sandbox only when registered
    /// with `--oci-seccomp`; without it, its own kernel answers every call.
    pub fn applies_seccomp(&self) -> bool {
        !self.is_gvisor()
            || self
                .args
                .iter()
                .any(|a| a == "--oci-seccomp" || a == "-oci-seccomp" || a == "--oci-seccomp=true")
    }
}

/// A connected engine and what it reported about itself.
#[derive(Clone)]
pub struct Engine {
    pub docker: Docker,
    pub endpoint: String,
    pub kind: EngineKind,
    pub version: String,
    pub api_version: String,
}

impl Engine {
    /// Connects to the chosen engine and negotiates the API version (Debian's Docker speaks an
    /// older API than bollard's default, Podman its own compatible one).
    pub async fn connect(choice: &EngineChoice) -> Result<Engine, SandboxError> {
        match choice {
            EngineChoice::Socket(url) => Engine::connect_to(url).await,
            EngineChoice::Docker => Engine::connect_to(&docker_endpoint()).await,
            EngineChoice::Podman => Engine::detect(&podman_endpoints()).await,
            EngineChoice::Auto => match std::env::var("DOCKER_HOST") {
                Ok(url) => Engine::connect_to(&url).await,
                Err(_) => {
                    let mut candidates = vec![docker_endpoint()];
                    candidates.extend(podman_endpoints());
                    Engine::detect(&candidates).await
                }
            },
        }
    }

    async fn connect_to(endpoint: &str) -> Result<Engine, SandboxError> {
        let no_engine = |detail: String| SandboxError::NoEngine {
            endpoint: endpoint.to_owned(),
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
        let podman = version
            .components
            .iter()
            .flatten()
            .any(|c| c.name.contains("Podman"));
        Ok(Engine {
            docker,
            endpoint: endpoint.to_owned(),
            kind: if podman {
                EngineKind::Podman
            } else {
                EngineKind::Docker
            },
            version: version.version.unwrap_or_default(),
            api_version: version.api_version.unwrap_or_default(),
        })
    }

    /// Connects to the first of `endpoints` that answers, in order (auto-detection); the
    /// error names every endpoint tried and why it failed.
    pub async fn detect(endpoints: &[String]) -> Result<Engine, SandboxError> {
        let mut failures = Vec::new();
        for endpoint in endpoints {
            match Engine::connect_to(endpoint).await {
                Ok(engine) => {
                    tracing::info!(endpoint = %engine.endpoint, kind = %engine.kind, "using this container engine");
                    return Ok(engine);
                }
                Err(SandboxError::NoEngine { detail, .. }) => {
                    failures.push(format!("{endpoint}: {detail}"))
                }
                Err(other) => return Err(other),
            }
        }
        Err(SandboxError::NoEngine {
            endpoint: endpoints.join(" or "),
            detail: failures.join("; "),
        })
    }

    /// The runtimes the engine reports (`runc`, `runsc`, ...), sorted by name.
    pub async fn runtimes(&self) -> Result<Vec<Runtime>, SandboxError> {
        let info = self
            .docker
            .info()
            .await
            .map_err(|e| SandboxError::engine("reading engine info", e))?;
        let default = info.default_runtime.unwrap_or_default();
        let mut runtimes: Vec<Runtime> = info
            .runtimes
            .unwrap_or_default()
            .into_iter()
            .map(|(name, runtime)| {
                let args = runtime.runtime_args.unwrap_or_default();
                let path = runtime.path;
                // The socket is local (unix:// only), so the engine's paths are this host's.
                let installed = path
                    .as_deref()
                    .is_none_or(|p| !p.starts_with('/') || Path::new(p).exists());
                Runtime {
                    default: name == default,
                    name,
                    path,
                    installed,
                    args,
                }
            })
            .collect();
        runtimes.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(runtimes)
    }

    /// The runtime a policy names, which must be installed: a policy that asks for gVisor
    /// must never get a weaker runtime silently. `None` (the engine's default) when it names
    /// none.
    pub async fn require_runtime(
        &self,
        runtime: Option<&str>,
    ) -> Result<Option<Runtime>, SandboxError> {
        let Some(wanted) = runtime else {
            return Ok(None);
        };
        let usable: Vec<Runtime> = self
            .runtimes()
            .await?
            .into_iter()
            .filter(|r| r.installed)
            .collect();
        match usable.iter().find(|r| r.name == wanted) {
            // Podman's Docker-compatible API ignores a container's runtime and runs its
            // default (checked with 4.3.1): anything else would silently be runc.
            Some(found) if self.kind == EngineKind::Podman && !found.default => {
                Err(SandboxError::RuntimeNotSelectable {
                    runtime: wanted.to_owned(),
                    default: usable
                        .iter()
                        .find(|r| r.default)
                        .map_or_else(|| "unknown".to_owned(), |r| r.name.clone()),
                })
            }
            Some(found) => Ok(Some(found.clone())),
            None => Err(SandboxError::MissingRuntime {
                engine: self.kind.to_string(),
                runtime: wanted.to_owned(),
                available: usable
                    .iter()
                    .map(|r| r.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }
}

fn docker_endpoint() -> String {
    std::env::var("DOCKER_HOST").unwrap_or_else(|_| "unix:///var/run/docker.sock".to_owned())
}

/// `CONTAINER_HOST` (Podman's own setting), else the rootful socket and, for a user with a
/// runtime dir, the rootless one.
fn podman_endpoints() -> Vec<String> {
    if let Ok(url) = std::env::var("CONTAINER_HOST") {
        return vec![url];
    }
    let mut endpoints = vec!["unix:///run/podman/podman.sock".to_owned()];
    if let Ok(dir) = std::env::var("XDG_RUNTIME_DIR") {
        endpoints.push(format!("unix://{dir}/podman/podman.sock"));
    }
    endpoints
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_choices_parse_and_print_back() {
        for text in ["auto", "docker", "podman", "unix:///run/podman/podman.sock"] {
            let choice: EngineChoice = text.parse().unwrap();
            assert_eq!(choice.to_string(), text);
        }
        assert_eq!(
            "unix:///x.sock".parse::<EngineChoice>(),
            Ok(EngineChoice::Socket("unix:///x.sock".into()))
        );
        for bad in ["", "dockr", "unix://", "tcp://127.0.0.1:2375"] {
            let error = bad.parse::<EngineChoice>().unwrap_err();
            assert!(error.contains("expected auto, docker, podman"), "{error}");
        }
    }
}
