//! Running one snippet in a started container: send the code, take the runner's frames
//! (output under its caps, then the end), stop at the end frame, the wall-clock limit, a
//! flood, or cancellation.

use std::future::Future;
use std::time::Instant;

use futures_util::StreamExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::io::AsyncWriteExt;

use super::backend::{Backend, Chunk, ExitState};
use super::container::{self, Started};
use super::error::SandboxError;
use super::output::{Capture, Frames, Piece, ProtocolError};
use super::random;
use super::transfer::{self, Collector, Outputs};
use crate::policy::Limits;
use crate::workdir::InputFile;

/// Output beyond this many times the cap (or 16 MiB, if more) ends the run: a flood is not
/// worth waiting out.
const FLOOD_FACTOR: u64 = 16;
const FLOOD_MINIMUM: u64 = 16 << 20;

/// What one execution produced.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Execution {
    /// The program's exit status (128 + N when signal N ended it); absent when it was killed
    /// for time or output, or cancelled.
    pub exit_code: Option<i32>,
    /// Standard output, capped; invalid UTF-8 is replaced with U+FFFD.
    pub stdout: String,
    /// Standard error, capped; invalid UTF-8 is replaced with U+FFFD.
    pub stderr: String,
    /// From sending the code to the end of the run.
    pub duration_ms: u64,
    /// The wall-clock limit was reached and the container killed.
    pub timed_out: bool,
    /// The memory limit was reached and the kernel killed the program (as the container's
    /// memory cgroup or the engine reported it).
    pub oom_killed: bool,
    /// The program wrote so far past the output limit that it was killed.
    pub killed_for_output: bool,
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    /// Figures and files that came back (presented by the caller, not serialized here).
    #[serde(skip)]
    #[schemars(skip)]
    pub outputs: Outputs,
    /// A session's call only: the runner said its program lives on for the next call.
    #[serde(skip)]
    #[schemars(skip)]
    pub program_lives: bool,
}

/// The end frame's payload: how the program's process ended, as its supervisor saw it.
#[derive(Debug, Deserialize)]
struct EndReport {
    nonce: String,
    status: i32,
    #[serde(default)]
    oom_killed: bool,
    /// False only at the end of a session's call whose program lives on.
    #[serde(default = "yes")]
    ended: bool,
}

fn yes() -> bool {
    true
}

/// One call or the only one: what the runner is told to do after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// The container's only run (it is destroyed after).
    Once,
    /// A session's call: the program lives on for the next one.
    Session,
}

enum Ending {
    /// The end frame arrived.
    Finished(EndReport),
    /// The output stream closed without an end frame: the runner (or its container) died.
    Exited,
    TimedOut,
    Flood,
    Cancelled,
    /// The stream broke the protocol.
    Broken(String),
}

/// Runs `code` in `started` under `limits`. The container is not removed here: the caller
/// destroys it (in the background, so the answer does not wait for teardown), or, for a
/// session's call that ended with its program alive ([`Execution::program_lives`]), keeps it
/// for the next call, attach streams and all.
pub async fn execute(
    backend: &dyn Backend,
    started: &mut Started,
    code: &str,
    files: &[InputFile],
    limits: &Limits,
    keep: Keep,
    cancelled: impl Future<Output = ()>,
) -> Result<Execution, SandboxError> {
    let id = started.id.clone();
    let nonce = random::nonce();
    let began = Instant::now();
    let deadline = tokio::time::Instant::now() + limits.timeout;
    let transfer = transfer::request(files, limits);
    let session = if keep == Keep::Session {
        " session"
    } else {
        ""
    };
    let header = format!("{nonce} {} {}{session}\n", code.len(), transfer.len());
    let input = &mut started.input;
    let sent = async {
        input.write_all(header.as_bytes()).await?;
        input.write_all(code.as_bytes()).await?;
        input.write_all(&transfer).await?;
        input.flush().await
    };
    let mut collector = Collector::new(limits);
    let mut stdout = Capture::new(limits.output_bytes);
    let mut stderr = Capture::new(limits.output_bytes);
    let mut frames = Frames::new();
    let mut end = None;
    let flood = (limits.output_bytes.saturating_mul(FLOOD_FACTOR)).max(FLOOD_MINIMUM);
    tokio::pin!(cancelled);
    // Sending races with the deadline too: a runner that never reads must not hang the call.
    tokio::select! {
        result = sent => result.map_err(|e| SandboxError::EngineLost { detail: format!("sending the code: {e}") })?,
        _ = tokio::time::sleep_until(deadline) => {}
        _ = &mut cancelled => {}
    }
    let output = &mut started.output;
    let ending = loop {
        let item = tokio::select! {
            biased;
            _ = &mut cancelled => break Ending::Cancelled,
            _ = tokio::time::sleep_until(deadline) => break Ending::TimedOut,
            item = output.next() => item,
        };
        match item {
            Some(Ok(Chunk::Stdout(message))) => {
                let pushed = frames.push(&message, |piece| match piece {
                    Piece::Stdout(bytes) => stdout.push(bytes),
                    Piece::Stderr(bytes) => stderr.push(bytes),
                    Piece::Exit(report) => {
                        end = Some(
                            serde_json::from_slice::<EndReport>(report)
                                .map_err(|e| format!("an unreadable end frame: {e}")),
                        )
                    }
                    Piece::Ready(_) => end = Some(Err("a second ready frame".to_owned())),
                    Piece::File(header) => {
                        if let Err(why) = collector.header(header) {
                            end = Some(Err(why));
                        }
                    }
                    Piece::FileData(bytes) => {
                        if let Err(why) = collector.data(bytes) {
                            end = Some(Err(why));
                        }
                    }
                });
                if let Err(ProtocolError(why)) = pushed {
                    break Ending::Broken(why);
                }
            }
            // The supervisor's own messages ("runner: ..."): part of the run's stderr.
            Some(Ok(Chunk::Stderr(message))) => stderr.push(&message),
            Some(Err(e)) => return Err(e),
            None => break Ending::Exited,
        }
        match end.take() {
            Some(Ok(report)) if report.nonce == nonce => break Ending::Finished(report),
            Some(Ok(_)) => break Ending::Broken("an end frame with another run's nonce".into()),
            Some(Err(why)) => break Ending::Broken(why),
            None => {}
        }
        if stdout.len() + stderr.len() > flood {
            break Ending::Flood;
        }
    };
    let program_lives =
        matches!(&ending, Ending::Finished(report) if keep == Keep::Session && !report.ended);
    // Close the streams before any kill: an engine writing a flood into an attach stream
    // nobody reads holds the kill request until it times out (60 s on Docker).
    if !program_lives {
        started.close_streams();
    }
    let duration_ms = u64::try_from(began.elapsed().as_millis()).unwrap_or(u64::MAX);
    let mut result = Execution {
        duration_ms,
        program_lives,
        ..Default::default()
    };
    match ending {
        Ending::Finished(report) => {
            result.exit_code = Some(report.status);
            result.oom_killed = report.oom_killed;
            match collector.finish() {
                Ok(outputs) => result.outputs = outputs,
                Err(why) => {
                    container::kill(backend, &id).await;
                    return Err(SandboxError::Protocol { detail: why });
                }
            }
        }
        Ending::Exited => {
            let ExitState {
                exit_code,
                oom_killed,
            } = backend.exit_state(&id).await?;
            result.exit_code = exit_code;
            result.oom_killed = oom_killed;
        }
        Ending::TimedOut => {
            container::kill(backend, &id).await;
            result.timed_out = true;
        }
        Ending::Flood => {
            container::kill(backend, &id).await;
            result.killed_for_output = true;
        }
        Ending::Cancelled => {
            container::kill(backend, &id).await;
            return Err(SandboxError::Cancelled);
        }
        Ending::Broken(why) => {
            container::kill(backend, &id).await;
            return Err(SandboxError::Protocol { detail: why });
        }
    }
    (result.stdout, result.stdout_truncated) = stdout.finish();
    (result.stderr, result.stderr_truncated) = stderr.finish();
    Ok(result)
}
