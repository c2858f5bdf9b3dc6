//! Helper containers that run one command of an image's own interpreter to its end: probing
//! what an image holds, and setting up a derived image (then committed as a new image).
//!
//! They are not sandboxes for snippets, but they run a user's image, so they get no network,
//! no capabilities, no new privileges and bounded memory and tasks; only a setup runs as root
//! on a writable root (it installs files), a probe runs as `nobody` on a read-only one.

use std::collections::HashMap;
use std::time::Duration;

use bollard::container::{AttachContainerResults, LogOutput};
use bollard::models::{ContainerCreateBody, HostConfig};
use bollard::query_parameters::{
    AttachContainerOptionsBuilder, CommitContainerOptionsBuilder, StartContainerOptions,
};
use futures_util::StreamExt;

use super::engine::{Engine, SandboxError};
use crate::sandbox::container;
use crate::sandbox::labels::{LABEL_MANAGED, LABEL_OWNER};

/// One command to run in a helper container.
pub struct Job<'a> {
    pub image: &'a str,
    /// The interpreter and its arguments (the image's entrypoint is replaced).
    pub command: Vec<String>,
    /// `host:container:ro` bind mounts (a wheelhouse, pip).
    pub binds: Vec<String>,
    /// Run as root on a writable root (a setup) instead of `nobody` on a read-only one.
    pub setup: bool,
    pub timeout: Duration,
}

/// What the command did.
pub struct Finished {
    pub status: i64,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// The committed image's id, when asked for and the command succeeded.
    pub committed: Option<String>,
}

/// Most output kept from a helper (a manifest of a large image is tens of KiB).
const OUTPUT_CAP: usize = 8 << 20;

/// How to commit a setup container: as `repo:tag`, with `command` as the image's own (so a
/// bare `docker run -i` of it starts the runner).
pub struct Commit<'a> {
    pub repo: &'a str,
    pub tag: &'a str,
    pub command: Vec<String>,
}

/// Starts the job's container, waits for its end and, if it exited 0 and `commit` is given,
/// commits it as that image (so a failed setup never leaves a tag). The
/// container is removed however this ends. `Err` only for engine failures and a command the
/// image cannot start (no such interpreter), which comes back as `Ok(None)`.
pub async fn run(
    engine: &Engine,
    job: &Job<'_>,
    commit: Option<&Commit<'_>>,
) -> Result<Option<Finished>, SandboxError> {
    let docker = &engine.docker;
    let created = docker
        .create_container(
            None::<bollard::query_parameters::CreateContainerOptions>,
            body(job),
        )
        .await
        .map_err(|e| match e {
            bollard::errors::Error::DockerResponseServerError {
                status_code: 404, ..
            } => SandboxError::Build(format!("the image `{}` does not exist", job.image)),
            e => SandboxError::engine("creating a helper container", e),
        })?;
    let id = created.id;
    let result = attach_and_wait(engine, &id, job, commit).await;
    container::destroy(engine, &id).await;
    result
}

async fn attach_and_wait(
    engine: &Engine,
    id: &str,
    job: &Job<'_>,
    commit: Option<&Commit<'_>>,
) -> Result<Option<Finished>, SandboxError> {
    let docker = &engine.docker;
    // Docker refuses to start a command the image does not have; Podman already refuses to
    // attach to it (it prepares the container's process then).
    let lacks_command = |e: &bollard::errors::Error| {
        let text = e.to_string();
        text.contains("not found") || text.contains("no such file")
    };
    let attached = docker
        .attach_container(
            id,
            Some(
                AttachContainerOptionsBuilder::new()
                    .stdout(true)
                    .stderr(true)
                    .stream(true)
                    .logs(true)
                    .build(),
            ),
        )
        .await;
    let AttachContainerResults { mut output, .. } = match attached {
        Ok(attached) => attached,
        Err(e) if lacks_command(&e) => return Ok(None),
        Err(e) => return Err(SandboxError::engine("attaching to a helper container", e)),
    };
    if let Err(e) = docker
        .start_container(id, None::<StartContainerOptions>)
        .await
    {
        if lacks_command(&e) {
            return Ok(None);
        }
        return Err(SandboxError::container("starting a helper container", e));
    }
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let read = async {
        while let Some(item) = output.next().await {
            match item {
                Ok(LogOutput::StdOut { message }) if stdout.len() < OUTPUT_CAP => {
                    stdout.extend_from_slice(&message)
                }
                Ok(LogOutput::StdErr { message }) if stderr.len() < OUTPUT_CAP => {
                    stderr.extend_from_slice(&message)
                }
                Ok(_) => {}
                Err(e) => return Err(SandboxError::engine("reading a helper's output", e)),
            }
        }
        Ok(())
    };
    match tokio::time::timeout(job.timeout, read).await {
        Ok(result) => result?,
        Err(_) => {
            return Err(SandboxError::Build(format!(
                "a helper container of `{}` did not finish within {} s",
                job.image,
                job.timeout.as_secs()
            )));
        }
    }
    let status = exit_status(engine, id).await?;
    // An interpreter the image lacks: runc's exec fails after the start (exit status 127).
    if status == 127 && stdout.is_empty() {
        return Ok(None);
    }
    let committed = match commit {
        Some(commit) if status == 0 => Some(commit_as(engine, id, commit).await?),
        _ => None,
    };
    Ok(Some(Finished {
        status,
        stdout,
        stderr,
        committed,
    }))
}

/// The exit status of a container whose output has ended (it may take a moment to be
/// reported as exited).
async fn exit_status(engine: &Engine, id: &str) -> Result<i64, SandboxError> {
    for _ in 0..100 {
        let inspected = engine
            .docker
            .inspect_container(
                id,
                None::<bollard::query_parameters::InspectContainerOptions>,
            )
            .await;
        let state = match inspected {
            Ok(inspected) => inspected.state,
            // Podman reports a container it is stopping as `stopped`, a state Docker's API
            // (and so bollard) does not know; it lasts only until Podman's cleanup.
            Err(bollard::errors::Error::JsonDataError { ref message, .. })
                if message.contains("unknown variant") =>
            {
                None
            }
            Err(e) => return Err(SandboxError::engine("inspecting a helper container", e)),
        };
        if let Some(state) = state
            && state.running != Some(true)
        {
            return Ok(state.exit_code.unwrap_or(-1));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(SandboxError::Build(
        "a helper container's output ended but it kept running".into(),
    ))
}

/// Commits the container, with the helper's command and labels replaced in the image's
/// configuration (the gateway gives every sandbox its command itself).
async fn commit_as(engine: &Engine, id: &str, commit: &Commit<'_>) -> Result<String, SandboxError> {
    let Commit { repo, tag, command } = commit;
    let (entrypoint, cmd) = command.split_first().expect("a command");
    let json = |v: &[String]| serde_json::to_string(v).expect("json");
    let changes = format!(
        "ENTRYPOINT {}\nCMD {}\nLABEL {LABEL_MANAGED}= {LABEL_OWNER}=",
        json(std::slice::from_ref(entrypoint)),
        json(cmd)
    );
    let options = CommitContainerOptionsBuilder::new()
        .container(id)
        .repo(repo)
        .tag(tag)
        .comment("code-sandbox-mcp: derived sandbox image")
        .changes(&changes)
        .build();
    let done = engine
        .docker
        .commit_container(options, bollard::models::ContainerConfig::default())
        .await
        .map_err(|e| SandboxError::Build(format!("cannot commit the image {repo}:{tag}: {e}")))?;
    Ok(done.id)
}

fn body(job: &Job<'_>) -> ContainerCreateBody {
    let (entrypoint, cmd) = job.command.split_first().expect("a command");
    let host = HostConfig {
        network_mode: Some("none".to_owned()),
        readonly_rootfs: Some(!job.setup),
        cap_drop: Some(vec!["ALL".to_owned()]),
        // A setup writes as root into directories of the image's root (Podman refuses even
        // that to a root without these).
        cap_add: job.setup.then(|| {
            ["CHOWN", "DAC_OVERRIDE", "FOWNER"]
                .map(str::to_owned)
                .to_vec()
        }),
        security_opt: Some(vec!["no-new-privileges:true".to_owned()]),
        memory: Some(1 << 30),
        pids_limit: Some(256),
        binds: Some(job.binds.clone()),
        tmpfs: (!job.setup).then(|| HashMap::from([("/tmp".to_owned(), "size=64m".to_owned())])),
        ..Default::default()
    };
    ContainerCreateBody {
        image: Some(job.image.to_owned()),
        entrypoint: Some(vec![entrypoint.clone()]),
        cmd: Some(cmd.to_vec()),
        user: Some(if job.setup { "0:0" } else { "65534:65534" }.to_owned()),
        working_dir: Some("/".to_owned()),
        env: Some(vec!["LANG=C.UTF-8".to_owned()]),
        labels: Some(HashMap::from([
            (LABEL_MANAGED.to_owned(), "true".to_owned()),
            (LABEL_OWNER.to_owned(), crate::sandbox::labels::owner()),
        ])),
        attach_stdout: Some(true),
        attach_stderr: Some(true),
        network_disabled: Some(true),
        host_config: Some(host),
        ..Default::default()
    }
}
