//! One hardened, single-use container: how it is configured from the policy's limits, started
//! with its runner attached, destroyed, and reaped if a previous gateway left it behind.

use std::collections::HashMap;
use std::pin::Pin;
use std::time::Duration;

use bollard::container::{AttachContainerResults, LogOutput};
use bollard::models::{ContainerCreateBody, HostConfig, ResourcesUlimits};
use bollard::query_parameters::{
    AttachContainerOptionsBuilder, KillContainerOptionsBuilder, ListContainersOptionsBuilder,
    RemoveContainerOptionsBuilder, StartContainerOptions,
};
use futures_util::{Stream, StreamExt};
use tokio::io::AsyncWrite;

use super::engine::{Engine, EngineKind, SandboxError};
use crate::policy::Limits;

/// Every container the gateway creates carries this label, so leftovers can be found.
pub const LABEL_MANAGED: &str = "code-sandbox-mcp.managed";
/// `<hostname>:<pid>` of the gateway that created the container.
pub const LABEL_OWNER: &str = "code-sandbox-mcp.owner";
/// A random id of the sandbox instance (one process may run several, e.g. tests).
pub const LABEL_INSTANCE: &str = "code-sandbox-mcp.instance";
/// The unprivileged user snippets run as (Debian's `nobody`).
pub const SANDBOX_USER: &str = "65534:65534";
/// The writable work dir: a tmpfs, also the snippet's current directory and HOME.
pub const WORK_DIR: &str = "/work";

/// Everything needed to start a container for one language under one policy.
#[derive(Clone)]
pub struct ContainerSpec {
    pub language: crate::analysis::Language,
    pub image: String,
    pub command: Vec<String>,
    pub limits: Limits,
    /// Variables passed through from the gateway's environment. Values are never logged.
    pub env: Vec<(String, String)>,
    /// The creating sandbox's id, for its final sweep.
    pub instance: String,
    /// The engine's make: Podman needs an explicit RLIMIT_NPROC (see [`task_limits`]).
    pub engine: EngineKind,
    /// The runtime is gVisor, which counts the snippet's processes itself (see [`task_limits`]).
    pub gvisor: bool,
}

/// A mount that hides a directory under an empty, read-only, non-executable tmpfs.
const SEALED_TMPFS: &str = "ro,nosuid,nodev,noexec,size=64k";

/// Headroom of the host's task limit under gVisor: each of the snippet's tasks costs gVisor
/// several host threads (measured here with runsc's default ptrace platform: 32 snippet
/// processes needed between 193 and 256 host tasks), plus gVisor's own kernel threads.
const GVISOR_HOST_TASKS_PER_TASK: u32 = 8;
const GVISOR_OWN_TASKS: u32 = 64;

/// RLIMIT_NPROC under Podman with runc. Podman 4.3, given any ulimit but this one, sets it to
/// a value its runtime may not raise to, and the container fails to start ("error setting
/// rlimit type 6"). Under runc the limit counts every process of the sandbox's uid on the
/// host, across containers, so it is a ceiling far above any one sandbox's pids limit.
const PODMAN_NPROC: u32 = 4096;

/// The host's task limit (pids cgroup) and the RLIMIT_NPROC to set, if any.
///
/// Under runc the snippet's tasks are host tasks, so the pids cgroup counts exactly them.
/// Under gVisor the cgroup counts gVisor's threads, and a limit the size of the policy's kills
/// gVisor itself after a few forks; so the cgroup gets headroom and the policy's limit is
/// applied inside gVisor's kernel as RLIMIT_NPROC, which there counts this sandbox's tasks
/// alone.
fn task_limits(pids: u32, gvisor: bool, engine: EngineKind) -> (i64, Option<i64>) {
    if gvisor {
        let host = pids
            .saturating_mul(GVISOR_HOST_TASKS_PER_TASK)
            .saturating_add(GVISOR_OWN_TASKS);
        (i64::from(host), Some(i64::from(pids)))
    } else if engine == EngineKind::Podman {
        (i64::from(pids), Some(i64::from(PODMAN_NPROC.max(pids))))
    } else {
        (i64::from(pids), None)
    }
}

pub type Output = Pin<Box<dyn Stream<Item = Result<LogOutput, bollard::errors::Error>> + Send>>;
pub type Input = Pin<Box<dyn AsyncWrite + Send>>;

/// A started container with its runner's stdin and output attached.
pub struct Started {
    pub id: String,
    pub input: Input,
    pub output: Output,
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

/// The container configuration: every item of the hardening checklist, from the limits.
pub fn create_body(spec: &ContainerSpec) -> ContainerCreateBody {
    let l = &spec.limits;
    let memory = i64::try_from(l.memory_bytes).unwrap_or(i64::MAX);
    let tmpfs_options = |noexec: bool| {
        format!(
            "rw,nosuid,nodev,{}size={},mode=1777",
            if noexec { "noexec," } else { "" },
            l.tmpfs_bytes
        )
    };
    let ulimit = |name: &str, value: i64| ResourcesUlimits {
        name: Some(name.to_owned()),
        soft: Some(value),
        hard: Some(value),
    };
    let (host_pids, nproc) = task_limits(l.pids, spec.gvisor, spec.engine);
    let mut ulimits = vec![
        ulimit("nofile", 256),
        ulimit("fsize", i64::try_from(l.tmpfs_bytes).unwrap_or(i64::MAX)),
        ulimit("core", 0),
    ];
    ulimits.extend(nproc.map(|n| ulimit("nproc", n)));
    let host = HostConfig {
        memory: Some(memory),
        // Swap equal to memory means no swap: the limit is the limit.
        memory_swap: Some(memory),
        nano_cpus: Some((l.cpus * 1e9) as i64),
        pids_limit: Some(host_pids),
        network_mode: Some("none".to_owned()),
        readonly_rootfs: Some(true),
        cap_drop: Some(vec!["ALL".to_owned()]),
        security_opt: Some(vec!["no-new-privileges:true".to_owned()]),
        tmpfs: Some(HashMap::from([
            (WORK_DIR.to_owned(), tmpfs_options(true)),
            ("/tmp".to_owned(), tmpfs_options(true)),
            // Podman mounts writable, executable tmpfs at /run and /var/tmp on a read-only
            // root; empty read-only ones there keep the root read-only on every engine.
            ("/run".to_owned(), SEALED_TMPFS.to_owned()),
            ("/var/tmp".to_owned(), SEALED_TMPFS.to_owned()),
        ])),
        // /dev/shm is writable on every engine (64 MiB by default): no more than the work dir.
        shm_size: Some(i64::try_from(l.tmpfs_bytes).unwrap_or(i64::MAX)),
        ulimits: Some(ulimits),
        // An init process as PID 1 reaps zombies and lets SIGKILL end everything at once.
        init: Some(true),
        runtime: l.runtime.clone(),
        auto_remove: Some(false),
        ..Default::default()
    };
    let mut env = vec![
        format!("HOME={WORK_DIR}"),
        "MPLBACKEND=Agg".to_owned(),
        "PYTHONDONTWRITEBYTECODE=1".to_owned(),
        "PYTHONIOENCODING=utf-8".to_owned(),
        "LANG=C.UTF-8".to_owned(),
    ];
    env.extend(spec.env.iter().map(|(k, v)| format!("{k}={v}")));
    ContainerCreateBody {
        image: Some(spec.image.clone()),
        cmd: Some(spec.command.clone()),
        user: Some(SANDBOX_USER.to_owned()),
        working_dir: Some(WORK_DIR.to_owned()),
        hostname: Some("sandbox".to_owned()),
        env: Some(env),
        labels: Some(HashMap::from([
            (LABEL_MANAGED.to_owned(), "true".to_owned()),
            (LABEL_OWNER.to_owned(), owner()),
            (LABEL_INSTANCE.to_owned(), spec.instance.clone()),
        ])),
        attach_stdin: Some(true),
        attach_stdout: Some(true),
        attach_stderr: Some(true),
        open_stdin: Some(true),
        // If the gateway disappears, the runner's stdin closes and the container exits.
        stdin_once: Some(true),
        tty: Some(false),
        network_disabled: Some(true),
        host_config: Some(host),
        ..Default::default()
    }
}

/// Creates, attaches and starts a container. On any failure the container is removed again.
pub async fn start(engine: &Engine, spec: &ContainerSpec) -> Result<Started, SandboxError> {
    let docker = &engine.docker;
    let created = docker
        .create_container(
            None::<bollard::query_parameters::CreateContainerOptions>,
            create_body(spec),
        )
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
            .await
            .map_err(|e| SandboxError::engine("attaching to a container", e))?;
        docker
            .start_container(&id, None::<StartContainerOptions>)
            .await
            .map_err(|e| SandboxError::container("starting a container", e))?;
        let mut output = output;
        wait_until_ready(&mut output, &spec.image).await?;
        Ok::<_, SandboxError>(Started {
            id: id.clone(),
            input,
            output,
        })
    }
    .await;
    if attached.is_err() {
        destroy(engine, &id).await;
    }
    attached
}

/// What the runner writes to stdout once its libraries are loaded and it waits for code.
const READY_MARKER: &[u8] = b"\0ready\0";
/// Longest a runner may take to get ready (a cold start on a busy host).
const READY_TIMEOUT: Duration = Duration::from_secs(120);
/// Most startup output kept for an error message.
const STARTUP_OUTPUT_CAP: usize = 16 << 10;

/// Reads the runner's output up to its ready marker, so a run's time limit starts with the
/// code, not with the interpreter's warm-up.
async fn wait_until_ready(output: &mut Output, image: &str) -> Result<(), SandboxError> {
    let deadline = tokio::time::Instant::now() + READY_TIMEOUT;
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
                stdout.extend_from_slice(&message);
                if stdout.ends_with(READY_MARKER) {
                    return if stdout.len() == READY_MARKER.len() {
                        Ok(())
                    } else {
                        Err(failed("unexpected output before it was ready", &stdout))
                    };
                }
                if stdout.len() > STARTUP_OUTPUT_CAP {
                    return Err(failed(
                        "unexpected output before it was ready",
                        &stdout[..STARTUP_OUTPUT_CAP],
                    ));
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
/// for). A container that is already gone is fine.
pub async fn destroy(engine: &Engine, id: &str) {
    let docker = &engine.docker;
    let _ = docker
        .kill_container(
            id,
            Some(KillContainerOptionsBuilder::new().signal("SIGKILL").build()),
        )
        .await;
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
        .await;
}

/// The containers (running or not) carrying `label` (`key` or `key=value`).
pub async fn list_labelled(
    engine: &Engine,
    label: &str,
) -> Result<Vec<bollard::models::ContainerSummary>, SandboxError> {
    let filters = HashMap::from([("label", vec![label.to_owned()])]);
    engine
        .docker
        .list_containers(Some(
            ListContainersOptionsBuilder::new()
                .all(true)
                .filters(&filters)
                .build(),
        ))
        .await
        .map_err(|e| SandboxError::engine("listing containers", e))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_limits_follow_the_runtime() {
        // runc on Docker: the pids cgroup counts the snippet's tasks exactly.
        assert_eq!(task_limits(64, false, EngineKind::Docker), (64, None));
        // Podman: the same cgroup, and the RLIMIT_NPROC ceiling it needs to start at all.
        assert_eq!(
            task_limits(64, false, EngineKind::Podman),
            (64, Some(i64::from(PODMAN_NPROC)))
        );
        // gVisor: the policy's limit inside gVisor's kernel, headroom for gVisor on the host.
        let (host, nproc) = task_limits(64, true, EngineKind::Docker);
        assert_eq!(nproc, Some(64));
        assert!(host >= 64 * 6, "{host}");
        assert_eq!(
            task_limits(u32::MAX, true, EngineKind::Podman).1,
            Some(i64::from(u32::MAX))
        );
    }
}
