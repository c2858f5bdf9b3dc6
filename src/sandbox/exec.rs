//! Running one snippet in a started container: send the code, stream the output under its
//! caps, stop at the runner's end marker, the wall-clock limit, a flood, or cancellation.

use std::future::Future;
use std::time::{Duration, Instant};

use bollard::container::LogOutput;
use bollard::query_parameters::InspectContainerOptions;
use futures_util::StreamExt;
use schemars::JsonSchema;
use serde::Serialize;
use tokio::io::AsyncWriteExt;

use super::container::{self, Started};
use super::engine::{Engine, EngineKind, SandboxError};
use super::output::{Capture, new_nonce};
use crate::policy::Limits;

/// Output beyond this many times the cap (or 16 MiB, if more) ends the run: a flood is not
/// worth waiting out.
const FLOOD_FACTOR: u64 = 16;
const FLOOD_MINIMUM: u64 = 16 << 20;

/// What one execution produced.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Execution {
    /// The program's exit status; absent when it was killed for time or flood, or cancelled.
    pub exit_code: Option<i32>,
    /// Standard output, capped; invalid UTF-8 is replaced with U+FFFD.
    pub stdout: String,
    /// Standard error, capped; invalid UTF-8 is replaced with U+FFFD.
    pub stderr: String,
    /// From sending the code to the end of the run.
    pub duration_ms: u64,
    /// The wall-clock limit was reached and the container killed.
    pub timed_out: bool,
    /// The memory limit was reached and the kernel killed the program.
    pub oom_killed: bool,
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
}

enum Ending {
    /// Both end markers arrived.
    Finished,
    /// The output stream closed: the program (or its container) exited without a marker.
    Exited,
    TimedOut,
    Flood,
    Cancelled,
}

/// Runs `code` in `started` under `limits`. The container is not removed here: the caller
/// destroys it (in the background, so the answer does not wait for teardown).
pub async fn execute(
    engine: &Engine,
    started: Started,
    code: &str,
    limits: &Limits,
    cancelled: impl Future<Output = ()>,
) -> Result<Execution, SandboxError> {
    let Started {
        id,
        mut input,
        mut output,
    } = started;
    let nonce = new_nonce();
    let began = Instant::now();
    let deadline = tokio::time::Instant::now() + limits.timeout;
    let header = format!("{nonce} {}\n", code.len());
    let sent = async {
        input.write_all(header.as_bytes()).await?;
        input.write_all(code.as_bytes()).await?;
        input.flush().await
    };
    let mut stdout = Capture::new(limits.output_bytes);
    let mut stderr = Capture::new(limits.output_bytes);
    let flood = (limits.output_bytes.saturating_mul(FLOOD_FACTOR)).max(FLOOD_MINIMUM);
    tokio::pin!(cancelled);
    // Sending races with the deadline too: a runner that never reads must not hang the call.
    tokio::select! {
        result = sent => result.map_err(|e| SandboxError::EngineLost { detail: format!("sending the code: {e}") })?,
        _ = tokio::time::sleep_until(deadline) => {}
        _ = &mut cancelled => {}
    }
    let ending = loop {
        tokio::select! {
            biased;
            _ = &mut cancelled => break Ending::Cancelled,
            _ = tokio::time::sleep_until(deadline) => break Ending::TimedOut,
            item = output.next() => match item {
                Some(Ok(LogOutput::StdOut { message })) => { stdout.push(&message, &nonce); }
                Some(Ok(LogOutput::StdErr { message })) => { stderr.push(&message, &nonce); }
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(SandboxError::engine("reading a container's output", e)),
                None => break Ending::Exited,
            },
        }
        if stdout.exit_code().is_some() && stderr.exit_code().is_some() {
            break Ending::Finished;
        }
        if stdout.output_len() + stderr.output_len() > flood {
            break Ending::Flood;
        }
    };
    // Close the streams before any kill: an engine writing a flood into an attach stream
    // nobody reads holds the kill request until it times out (60 s on Docker).
    drop(output);
    drop(input);
    let duration_ms = u64::try_from(began.elapsed().as_millis()).unwrap_or(u64::MAX);
    let marker_code = stdout.exit_code().or(stderr.exit_code());
    let mut result = Execution {
        duration_ms,
        ..Default::default()
    };
    match ending {
        Ending::Finished => result.exit_code = marker_code,
        Ending::Exited => {
            let (exit_code, oom_killed) = exit_state(engine, &id).await?;
            result.exit_code = marker_code.or(exit_code);
            result.oom_killed = oom_killed;
        }
        Ending::TimedOut => {
            container::kill(engine, &id).await;
            result.timed_out = true;
        }
        Ending::Flood => container::kill(engine, &id).await,
        Ending::Cancelled => {
            container::kill(engine, &id).await;
            return Err(SandboxError::Cancelled);
        }
    }
    (result.stdout, result.stdout_truncated) = stdout.finish();
    (result.stderr, result.stderr_truncated) = stderr.finish();
    Ok(result)
}

/// The exit code and OOM flag of a container whose output has ended, once it has stopped.
async fn exit_state(engine: &Engine, id: &str) -> Result<(Option<i32>, bool), SandboxError> {
    for _ in 0..50 {
        let inspected = match engine
            .docker
            .inspect_container(id, None::<InspectContainerOptions>)
            .await
        {
            Ok(inspected) => inspected,
            // Podman briefly reports a state Docker's API does not have (`stopped`, between
            // the process's exit and its cleanup); ask again.
            Err(bollard::errors::Error::JsonDataError { .. }) => {
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
            Err(e) => return Err(SandboxError::engine("inspecting a container", e)),
        };
        let state = inspected.state.unwrap_or_default();
        if state.running != Some(true) {
            let code = state.exit_code.and_then(|c| i32::try_from(c).ok());
            // Podman on cgroup v1 never reports OOM kills (checked with 4.3.1: `OOMKilled`
            // stays false, and no event says so). The gateway sent no kill on this path, so a
            // SIGKILL (137) is taken as the OOM killer's; only the snippet killing itself
            // with SIGKILL would be reported wrongly.
            let oom = state.oom_killed == Some(true)
                || (engine.kind == EngineKind::Podman && code == Some(137));
            return Ok((code, oom));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok((None, false))
}
