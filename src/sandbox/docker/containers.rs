//! Sandbox containers on Docker or Podman: the [`Backend`] requests, made through the
//! engine's Docker-compatible API with the configuration of [`super::hardening`].

use std::collections::HashMap;
use std::time::Duration;

use bollard::container::{AttachContainerResults, LogOutput};
use bollard::errors::Error as DockerError;
use bollard::query_parameters::{
    AttachContainerOptionsBuilder, CreateContainerOptions, InspectContainerOptions,
    KillContainerOptionsBuilder, ListContainersOptionsBuilder, RemoveContainerOptionsBuilder,
    StartContainerOptions,
};
use futures_util::future::BoxFuture;
use futures_util::{FutureExt, StreamExt};
use tracing::Instrument;

use super::engine::{Engine, EngineKind};
use super::hardening::create_body;
use crate::sandbox::SandboxError;
use crate::sandbox::backend::{Backend, Chunk, ExitState, Input, Labelled, Output};
use crate::sandbox::container::short;
use crate::sandbox::spec::ContainerSpec;

impl Backend for Engine {
    fn create<'a>(
        &'a self,
        spec: &'a ContainerSpec,
        uid: u32,
    ) -> BoxFuture<'a, Result<String, SandboxError>> {
        async move {
            let created = self
                .docker
                .create_container(None::<CreateContainerOptions>, create_body(spec, uid))
                .await
                .map_err(|e| match e {
                    DockerError::DockerResponseServerError {
                        status_code: 404, ..
                    } => SandboxError::image_missing(spec.language, &spec.image),
                    e => SandboxError::container("creating a container", e),
                })?;
            Ok(created.id)
        }
        .boxed()
    }

    fn attach<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(Input, Output), SandboxError>> {
        async move {
            let AttachContainerResults { output, input } = self
                .docker
                .attach_container(
                    id,
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
            let output: Output = Box::pin(output.filter_map(|item| {
                std::future::ready(match item {
                    Ok(LogOutput::StdOut { message }) => Some(Ok(Chunk::Stdout(message))),
                    Ok(LogOutput::StdErr { message }) => Some(Ok(Chunk::Stderr(message))),
                    // Without a terminal the engine sends nothing else.
                    Ok(_) => None,
                    Err(e) => Some(Err(SandboxError::engine("reading a container's output", e))),
                })
            }));
            Ok((input, output))
        }
        .boxed()
    }

    fn start<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), SandboxError>> {
        async move {
            self.docker
                .start_container(id, None::<StartContainerOptions>)
                .await
                .map_err(|e| SandboxError::container("starting a container", e))
        }
        .boxed()
    }

    fn kill<'a>(&'a self, id: &'a str) -> BoxFuture<'a, ()> {
        async move {
            let _ = self
                .docker
                .kill_container(
                    id,
                    Some(KillContainerOptionsBuilder::new().signal("SIGKILL").build()),
                )
                .await;
        }
        .boxed()
    }

    /// Docker's forced removal sends SIGKILL itself, so a kill request beforehand would only
    /// cost the engine a second round of work under load. Podman's sends the stop signal and
    /// waits out the stop timeout first, which the runner (ignoring signals) would sit
    /// through: there the kill comes first.
    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, ()> {
        async move {
            if self.kind == EngineKind::Podman {
                self.kill(id)
                    .instrument(tracing::info_span!("sandbox.kill"))
                    .await;
            }
            let removed = self
                .docker
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
                .await;
            match removed {
                Ok(())
                | Err(DockerError::DockerResponseServerError {
                    status_code: 404, ..
                }) => {}
                Err(e) => {
                    tracing::warn!(container = %short(id), error = %e, "could not remove container")
                }
            }
        }
        .boxed()
    }

    fn exit_state<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<ExitState, SandboxError>> {
        async move {
            for _ in 0..50 {
                let inspected = match self
                    .docker
                    .inspect_container(id, None::<InspectContainerOptions>)
                    .await
                {
                    Ok(inspected) => inspected,
                    // Podman briefly reports a state Docker's API does not have (`stopped`,
                    // between the process's exit and its cleanup); ask again.
                    Err(DockerError::JsonDataError { .. }) => {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                        continue;
                    }
                    Err(e) => return Err(SandboxError::engine("inspecting a container", e)),
                };
                let state = inspected.state.unwrap_or_default();
                if state.running != Some(true) {
                    // The runner's supervisor reports OOM kills of the program from the
                    // container's memory cgroup. This is for a runner that died itself:
                    // Docker reports an OOM kill here; Podman on cgroup v1 never does
                    // (checked with 4.3.1), so there a SIGKILL is reported as such, without
                    // a guess about who sent it.
                    return Ok(ExitState {
                        exit_code: state.exit_code.and_then(|c| i32::try_from(c).ok()),
                        oom_killed: state.oom_killed == Some(true),
                    });
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Ok(ExitState::default())
        }
        .boxed()
    }

    /// Podman's compatible API reports a container it is stopping as `stopped`, a state
    /// Docker's API (and so its client) does not have, and the whole list then fails to
    /// parse. The state lasts only until Podman's cleanup, so the list is asked for again
    /// for a little while.
    fn list_labelled<'a>(
        &'a self,
        label: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Labelled>, SandboxError>> {
        async move {
            const ATTEMPTS: u32 = 20;
            let filters = HashMap::from([("label", vec![label.to_owned()])]);
            let mut attempt = 1;
            loop {
                let listed = self
                    .docker
                    .list_containers(Some(
                        ListContainersOptionsBuilder::new()
                            .all(true)
                            .filters(&filters)
                            .build(),
                    ))
                    .await;
                match listed {
                    Err(DockerError::JsonDataError { ref message, .. })
                        if attempt < ATTEMPTS && message.contains("unknown variant") =>
                    {
                        attempt += 1;
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                    Err(e) => return Err(SandboxError::engine("listing containers", e)),
                    Ok(list) => {
                        return Ok(list
                            .into_iter()
                            .filter_map(|c| {
                                Some(Labelled {
                                    id: c.id?,
                                    labels: c.labels.unwrap_or_default(),
                                })
                            })
                            .collect());
                    }
                }
            }
        }
        .boxed()
    }
}
