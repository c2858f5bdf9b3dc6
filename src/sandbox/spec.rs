//! What a sandbox container is made of: everything a [`super::backend::Backend`] needs to
//! create one for a language under a policy.

use std::sync::Arc;

use super::docker::EngineKind;
use super::host_files::HostFiles;
use super::preload::Preload;
use super::uids::UidPool;
use crate::policy::Limits;

/// The writable work dir: a tmpfs, also the snippet's current directory and HOME.
pub const WORK_DIR: &str = "/work";

/// Everything needed to start a container for one language under one policy.
#[derive(Clone)]
pub struct ContainerSpec {
    pub language: crate::analysis::Language,
    /// What the runner imports before it is ready (`SANDBOX_PRELOAD`).
    pub preload: Preload,
    pub image: String,
    pub command: Vec<String>,
    pub limits: Limits,
    /// Variables passed through from the gateway's environment. Values are never logged.
    pub env: Vec<(String, String)>,
    /// The creating sandbox's id, for its final sweep.
    pub instance: String,
    /// The engine's make: Podman needs an explicit RLIMIT_NPROC (see the Docker backend's
    /// hardening).
    pub engine: EngineKind,
    /// The runtime is gVisor, which counts the snippet's processes itself.
    pub gvisor: bool,
    /// Where each container's own user id comes from.
    pub uids: Arc<UidPool>,
    /// The seccomp profile (for Podman) and the `/etc` files mounted into every container.
    pub host_files: Arc<HostFiles>,
}
