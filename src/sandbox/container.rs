//! One hardened, single-use container: started with its runner attached through a
//! [`Backend`], destroyed, and reaped if a previous gateway left it behind.

use std::time::Duration;

use futures_util::StreamExt;
use tracing::Instrument;

use super::backend::{Backend, Chunk, Input, Labelled, Output};
use super::error::SandboxError;
use super::labels::hostname;
pub use super::labels::{LABEL_INSTANCE, LABEL_MANAGED, LABEL_OWNER, LABEL_UID, owner};
use super::output::{Frames, Piece};
pub use super::spec::{ContainerSpec, WORK_DIR};
use super::uids::UidLease;

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

/// Creates, attaches and starts a container with a user id of its own. On any failure the
/// container is removed again.
///
/// Each phase is a span (`sandbox.uid`, `sandbox.create`, `sandbox.attach`, `sandbox.start`,
/// `sandbox.ready`) inside `sandbox.container`, so a subscriber that times spans shows where a
/// start's time goes.
pub async fn start(backend: &dyn Backend, spec: &ContainerSpec) -> Result<Started, SandboxError> {
    start_phases(backend, spec)
        .instrument(tracing::info_span!("sandbox.container", language = %spec.language))
        .await
}

async fn start_phases(
    backend: &dyn Backend,
    spec: &ContainerSpec,
) -> Result<Started, SandboxError> {
    let uid = spec
        .uids
        .lease(|uid| async move {
            let label = format!("{LABEL_UID}={uid}");
            Ok(!backend.list_labelled(&label).await?.is_empty())
        })
        .instrument(tracing::info_span!("sandbox.uid"))
        .await?;
    let id = backend
        .create(spec, uid.uid)
        .instrument(tracing::info_span!("sandbox.create"))
        .await?;
    let attached = async {
        let (input, mut output) = backend
            .attach(&id)
            .instrument(tracing::info_span!("sandbox.attach"))
            .await?;
        backend
            .start(&id)
            .instrument(tracing::info_span!("sandbox.start"))
            .await?;
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
            destroy(backend, &id).await;
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
            Some(Ok(Chunk::Stdout(message))) => {
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
            Some(Ok(Chunk::Stderr(message))) => {
                let room = STARTUP_OUTPUT_CAP.saturating_sub(stderr.len());
                stderr.extend_from_slice(&message[..message.len().min(room)]);
            }
            Some(Err(SandboxError::Engine { detail, .. })) => {
                return Err(SandboxError::Engine {
                    action: "reading a starting container's output".into(),
                    detail,
                });
            }
            Some(Err(e)) => return Err(e),
            None => return Err(failed("exited before it was ready", &stderr)),
        }
    }
}

/// Kills and removes a container at once (no grace period: nothing in it is worth waiting
/// for). A container that is already gone is fine. Spans: `sandbox.kill` (where the backend
/// kills first), `sandbox.remove`.
pub async fn destroy(backend: &dyn Backend, id: &str) {
    backend.remove(id).await;
}

/// Kills a container without removing it (the run's timeout; removal follows).
pub async fn kill(backend: &dyn Backend, id: &str) {
    backend
        .kill(id)
        .instrument(tracing::info_span!("sandbox.kill"))
        .await;
}

/// The containers (running or not) carrying `label` (`key` or `key=value`).
pub async fn list_labelled(
    backend: &dyn Backend,
    label: &str,
) -> Result<Vec<Labelled>, SandboxError> {
    backend.list_labelled(label).await
}

/// Removes containers left by gateways that no longer run on this host (a crash, `kill -9`).
/// Containers of live gateways, or of other hosts sharing the engine, are left alone.
/// Returns how many were removed.
pub async fn reap_leftovers(backend: &dyn Backend) -> Result<usize, SandboxError> {
    let list = list_labelled(backend, &format!("{LABEL_MANAGED}=true")).await?;
    let host = hostname();
    let me = std::process::id().to_string();
    let mut removed = 0;
    for Labelled { id, labels } in list {
        let owner = labels.get(LABEL_OWNER).cloned().unwrap_or_default();
        let (owner_host, owner_pid) = owner.rsplit_once(':').unwrap_or(("", ""));
        if owner_host != host || owner_pid == me || gateway_alive(owner_pid) {
            continue;
        }
        tracing::info!(container = %short(&id), owner = %owner, "removing a container left by a gateway that is gone");
        destroy(backend, &id).await;
        removed += 1;
    }
    Ok(removed)
}

/// Removes every container of one sandbox instance (the last sweep at its shutdown).
pub async fn remove_instance(backend: &dyn Backend, instance: &str) -> Result<usize, SandboxError> {
    let list = list_labelled(backend, &format!("{LABEL_INSTANCE}={instance}")).await?;
    let ids: Vec<String> = list.into_iter().map(|c| c.id).collect();
    for id in &ids {
        destroy(backend, id).await;
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
