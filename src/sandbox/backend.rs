//! The seam between the sandbox and whatever runs its containers.
//!
//! The pool, the run protocol and the clean-up speak only to a [`Backend`]; the Docker and
//! Podman one lives in [`super::docker`]. Another place to run sandboxes (a cluster's pods, a
//! microVM monitor) is one more implementation of this trait: nothing above it changes.
//!
//! Methods return boxed futures so the sandbox can hold any backend as `dyn Backend`, chosen
//! at start, without making every type above it generic.

use std::collections::HashMap;
use std::pin::Pin;

use bytes::Bytes;
use futures_util::Stream;
use futures_util::future::BoxFuture;
use tokio::io::AsyncWrite;

use super::error::SandboxError;
use super::spec::ContainerSpec;

/// One piece of a container's output, in the order the backend received it. The runner's
/// protocol frames travel on stdout; stderr carries its supervisor's own messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Chunk {
    Stdout(Bytes),
    Stderr(Bytes),
}

/// A container's output, from its start until it exits (then the stream ends).
pub type Output = Pin<Box<dyn Stream<Item = Result<Chunk, SandboxError>> + Send>>;
/// A container's stdin. Closing it (dropping this) makes the runner exit.
pub type Input = Pin<Box<dyn AsyncWrite + Send>>;

/// How a container ended, as its backend saw it from outside.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExitState {
    /// Its main process's exit status (128 + N for signal N); `None` while it still runs.
    pub exit_code: Option<i32>,
    /// The backend knows the kernel killed it for memory (its cgroup's OOM killer).
    pub oom_killed: bool,
}

/// A container found by label, with all its labels (for reaping: who owns it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Labelled {
    pub id: String,
    pub labels: HashMap<String, String>,
}

/// What the sandbox needs from the thing that runs its containers.
///
/// Every container is single-use: created, attached, started, then killed and removed. The
/// sandbox never reuses an id after [`Backend::remove`]. Errors are [`SandboxError`]s: a
/// backend tells a lost connection ([`SandboxError::EngineLost`]) from a refused request, and
/// a missing image ([`SandboxError::ImageMissing`]) from other failures, because the gateway
/// answers each differently.
pub trait Backend: Send + Sync {
    /// Creates (does not start) a container for `spec`, running as `uid` (user and group),
    /// and returns its id.
    ///
    /// The container must enforce every limit of `spec.limits` but the wall clock, which the
    /// sandbox keeps itself: memory without swap, CPUs, tasks, sizes of the writable tmpfs
    /// mounts and of files. It gets the whole hardening (docs/scale-out.md lists it): no
    /// network, read-only root, no capabilities, no new privileges, the seccomp profile,
    /// `spec.limits.runtime` if set (never a weaker one instead). It carries the labels
    /// [`super::container`] defines (managed, owner, instance, uid) and reports them to
    /// [`Backend::list_labelled`]: reaping a crashed gateway's leftovers, the last sweep at
    /// shutdown and the uid check between gateways all find containers by them. A missing
    /// image is [`SandboxError::ImageMissing`].
    fn create<'a>(
        &'a self,
        spec: &'a ContainerSpec,
        uid: u32,
    ) -> BoxFuture<'a, Result<String, SandboxError>>;

    /// Attaches to a created container's stdin and output, before it starts, so nothing the
    /// runner writes is lost.
    fn attach<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(Input, Output), SandboxError>>;

    /// Starts a created, attached container.
    fn start<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), SandboxError>>;

    /// Kills a container's processes at once (SIGKILL, no grace period: the runner ignores
    /// signals and nothing in it is worth waiting for). Never fails: a container that is
    /// already gone is what was wanted.
    fn kill<'a>(&'a self, id: &'a str) -> BoxFuture<'a, ()>;

    /// Kills (if still running) and removes a container with its volumes, at once. A
    /// container that is already gone is fine; other failures are logged, never returned,
    /// since removal runs in the background and the next start reaps what is left. The
    /// removal is timed as a `sandbox.remove` span (and a kill it needs first as
    /// `sandbox.kill`), as the phase benchmark reads them.
    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, ()>;

    /// How a container whose output stream has ended exited: waits briefly (about a second)
    /// for the backend to report it stopped, and gives `exit_code: None` if it still runs.
    fn exit_state<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<ExitState, SandboxError>>;

    /// Every container, running or not, carrying `label` (`key` or `key=value`), of any
    /// gateway sharing this backend.
    fn list_labelled<'a>(
        &'a self,
        label: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Labelled>, SandboxError>>;
}
