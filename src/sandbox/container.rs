//! One hardened, single-use container: started with its runner attached (configured by
//! [`super::hardening`]), destroyed, and reaped if a previous gateway left it behind.

use std::collections::HashMap;
use std::pin::Pin;
use std::time::Duration;

use bollard::container::{AttachContainerResults, LogOutput};
use bollard::query_parameters::{
    AttachContainerOptionsBuilder, KillContainerOptionsBuilder, ListContainersOptionsBuilder,
    RemoveContainerOptionsBuilder, StartContainerOptions,
};
use futures_util::{Stream, StreamExt};
use tokio::io::AsyncWrite;
use tracing::Instrument;

use super::engine::{Engine, SandboxError};
pub use super::hardening::ContainerSpec;
use super::hardening::create_body;
use super::output::{Frames, Piece};
use super::uids::UidLease;

/// Every container the gateway creates carries this label, so leftovers can be found.
pub const LABEL_MANAGED: &str = "code-sandbox-mcp.managed";
/// `<hostname>:<pid>` of the gateway that created the container.
pub const LABEL_OWNER: &str = "code-sandbox-mcp.owner";
/// A random id of the sandbox instance (one process may run several, e.g. tests).
pub const LABEL_INSTANCE: &str = "code-sandbox-mcp.instance";
/// The container's own uid (and gid), so gateways sharing an engine never pick the same.
pub const LABEL_UID: &str = "code-sandbox-mcp.uid";
/// The writable work dir: a tmpfs, also the snippet's current directory and HOME.
pub const WORK_DIR: &str = "/work";

pub type Output = Pin<Box<dyn Stream<Item = Result<LogOutput, bollard::errors::Error>> + Send>>;
pub type Input = Pin<Box<dyn AsyncWrite + Send>>;

/// A started container with its runner's stdin and output attached.
pub struct Started {
    pub id: String,
    pub input: Input,
    pub output: Output,
    /// The container's user id, returned when this is dropped (after the container is gone).
    pub uid: UidLease,
}

impl Started {
    /// Drops the attach streams (the container lives on until it is destroyed).
    pub fn close_streams(&mut self) {
        self.output = Box::pin(futures_util::stream::empty());
        self.input = Box::pin(tokio::io::sink());
    }
}

/// This gateway's owner label value.
pub fn owner() -> String {
    format!("{}:{}", hostname(), std::process::id())
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_else(|_| "unknown".to_owned())
}

/// Creates, attaches and starts a container with a user id of its own. On any failure the
/// container is removed again.
///
/// Each phase is a span (`sandbox.uid`, `sandbox.create`, `sandbox.attach`, `sandbox.start`,
/// `sandbox.ready`) inside `sandbox.container`, so a subscriber that times spans shows where a
/// start's time goes.
pub async fn start(engine: &Engine, spec: &ContainerSpec) -> Result<Started, SandboxError> {
    start_phases(engine, spec)
        .instrument(tracing::info_span!("sandbox.container", language = %spec.language))
        .await
}

async fn start_phases(engine: &Engine, spec: &ContainerSpec) -> Result<Started, SandboxError> {
    let docker = &engine.docker;
    let uid = spec
        .uids
        .lease(engine)
        .instrument(tracing::info_span!("sandbox.uid"))
        .await?;
    let created = docker
        .create_container(
            None::<bollard::query_parameters::CreateContainerOptions>,
            create_body(spec, uid.uid),
        )
        .instrument(tracing::info_span!("sandbox.create"))
        .await
        .map_err(|e| match e {
            bollard::errors::Error::DockerResponseServerError {
                status_code: 404, ..
            } => SandboxError::image_missing(spec.language, &spec.image),
            e => SandboxError::container("creating a container", e),
        })?;
    let id = created.id;
    let attached = async {
        let AttachContainerResults { output, input } = docker
            .attach_container(
                &id,
                Some(
                    AttachContainerOptionsBuilder::new()
                        .stdin(true)
                        .stdout(true)
                        .stderr(true)
                        .stream(true)
                        .logs(false)
                        .build(),
                ),
            )
            .instrument(tracing::info_span!("sandbox.attach"))
            .await
            .map_err(|e| SandboxError::engine("attaching to a container", e))?;
        docker
            .start_container(&id, None::<StartContainerOptions>)
            .instrument(tracing::info_span!("sandbox.start"))
            .await
            .map_err(|e| SandboxError::container("starting a container", e))?;
        let mut output = output;
        wait_until_ready(&mut output, &spec.image)
            .instrument(tracing::info_span!("sandbox.ready"))
            .await?;
        Ok::<_, SandboxError>((input, output))
    }
    .await;
    match attached {
        Ok((input, output)) => Ok(Started {
            id,
            input,
            output,
            uid,
        }),
        Err(e) => {
            destroy(engine, &id).await;
            drop(uid);
            Err(e)
        }
    }
}

/// Longest a runner may take to get ready (a cold start on a busy host).
const READY_TIMEOUT: Duration = Duration::from_secs(120);
/// Most startup output kept for an error message.
const STARTUP_OUTPUT_CAP: usize = 16 << 10;

/// Reads the runner's output up to its ready frame, so a run's time limit starts with the
/// code, not with the interpreter's warm-up.
async fn wait_until_ready(output: &mut Output, image: &str) -> Result<(), SandboxError> {
    let deadline = tokio::time::Instant::now() + READY_TIMEOUT;
    let mut frames = Frames::new();
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let failed = |why: &str, stderr: &[u8]| SandboxError::RunnerFailed {
        image: image.to_owned(),
        detail: format!(
            "{why}{}",
            if stderr.is_empty() {
                String::new()
            } else {
                format!(": {}", String::from_utf8_lossy(stderr).trim())
            }
        ),
    };
    loop {
        let item = tokio::select! {
            item = output.next() => item,
            _ = tokio::time::sleep_until(deadline) => return Err(failed(&format!("not ready after {} s", READY_TIMEOUT.as_secs()), &stderr)),
        };
        match item {
            Some(Ok(LogOutput::StdOut { message })) => {
                let room = STARTUP_OUTPUT_CAP.saturating_sub(stdout.len());
                stdout.extend_from_slice(&message[..message.len().min(room)]);
                // The ready frame must be the first and only thing written.
                let mut ready = false;
                let mut other = false;
                let pushed = frames.push(&message, |piece| match piece {
                    Piece::Ready(_) if !ready && !other => ready = true,
                    _ => other = true,
                });
                if pushed.is_err() || other || (ready && !frames.at_boundary()) {
                    return Err(failed("unexpected output before it was ready", &stdout));
                }
                if ready {
                    return Ok(());
                }
            }
            Some(Ok(LogOutput::StdErr { message })) => {
                let room = STARTUP_OUTPUT_CAP.saturating_sub(stderr.len());
                stderr.extend_from_slice(&message[..message.len().min(room)]);
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => {
                return Err(SandboxError::engine(
                    "reading a starting container's output",
                    e,
                ));
            }
            None => return Err(failed("exited before it was ready", &stderr)),
        }
    }
}

/// Kills and removes a container at once (no grace period: nothing in it is worth waiting
/// for). A container that is already gone is fine. Spans: `sandbox.kill`, `sandbox.remove`.
///
/// Docker's forced removal sends SIGKILL itself, so a kill request beforehand would only cost
/// the engine a second round of work under load. Podman's sends the stop signal and waits
/// out the stop timeout first, which the runner (ignoring signals) would sit through: there
/// the kill comes first.
pub async fn destroy(engine: &Engine, id: &str) {
    let docker = &engine.docker;
    if engine.kind == super::engine::EngineKind::Podman {
        kill(engine, id).await;
    }
    match docker
        .remove_container(
            id,
            Some(
                RemoveContainerOptionsBuilder::new()
                    .force(true)
                    .v(true)
                    .build(),
            ),
        )
        .instrument(tracing::info_span!("sandbox.remove"))
        .await
    {
        Ok(())
        | Err(bollard::errors::Error::DockerResponseServerError {
            status_code: 404, ..
        }) => {}
        Err(e) => tracing::warn!(container = %short(id), error = %e, "could not remove container"),
    }
}

/// Kills a container without removing it (the run's timeout; removal follows).
pub async fn kill(engine: &Engine, id: &str) {
    let _ = engine
        .docker
        .kill_container(
            id,
            Some(KillContainerOptionsBuilder::new().signal("SIGKILL").build()),
        )
        .instrument(tracing::info_span!("sandbox.kill"))
        .await;
}

/// The containers (running or not) carrying `label` (`key` or `key=value`).
///
/// Podman's compatible API reports a container it is stopping as `stopped`, a state Docker's
/// API (and so bollard) does not have, and the whole list then fails to parse. The state
/// lasts only until Podman's cleanup, so the list is asked for again for a little while.
pub async fn list_labelled(
    engine: &Engine,
    label: &str,
) -> Result<Vec<bollard::models::ContainerSummary>, SandboxError> {
    const ATTEMPTS: u32 = 20;
    let filters = HashMap::from([("label", vec![label.to_owned()])]);
    let mut attempt = 1;
    loop {
        let listed = engine
            .docker
            .list_containers(Some(
                ListContainersOptionsBuilder::new()
                    .all(true)
                    .filters(&filters)
                    .build(),
            ))
            .await;
        match listed {
            Err(bollard::errors::Error::JsonDataError { ref message, .. })
                if attempt < ATTEMPTS && message.contains("unknown variant") =>
            {
                attempt += 1;
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            other => return other.map_err(|e| SandboxError::engine("listing containers", e)),
        }
    }
}

/// Removes containers left by gateways that no longer run on this host (a crash, `kill -9`).
/// Containers of live gateways, or of other hosts sharing the engine, are left alone.
/// Returns how many were removed.
pub async fn reap_leftovers(engine: &Engine) -> Result<usize, SandboxError> {
    let list = list_labelled(engine, &format!("{LABEL_MANAGED}=true")).await?;
    let host = hostname();
    let me = std::process::id().to_string();
    let mut removed = 0;
    for container in list {
        let Some(id) = container.id else { continue };
        let owner = container
            .labels
            .as_ref()
            .and_then(|l| l.get(LABEL_OWNER))
            .cloned()
            .unwrap_or_default();
        let (owner_host, owner_pid) = owner.rsplit_once(':').unwrap_or(("", ""));
        if owner_host != host || owner_pid == me || gateway_alive(owner_pid) {
            continue;
        }
        tracing::info!(container = %short(&id), owner = %owner, "removing a container left by a gateway that is gone");
        destroy(engine, &id).await;
        removed += 1;
    }
    Ok(removed)
}

/// Removes every container of one sandbox instance (the last sweep at its shutdown).
pub async fn remove_instance(engine: &Engine, instance: &str) -> Result<usize, SandboxError> {
    let list = list_labelled(engine, &format!("{LABEL_INSTANCE}={instance}")).await?;
    let ids: Vec<String> = list.into_iter().filter_map(|c| c.id).collect();
    for id in &ids {
        destroy(engine, id).await;
    }
    Ok(ids.len())
}

/// True if a process `pid` runs on this host. A recycled pid only defers the clean-up to a
/// later start; it never removes a live gateway's containers.
fn gateway_alive(pid: &str) -> bool {
    !pid.is_empty()
        && pid.bytes().all(|b| b.is_ascii_digit())
        && std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// A container id as people read it.
pub fn short(id: &str) -> &str {
    &id[..id.len().min(12)]
}
