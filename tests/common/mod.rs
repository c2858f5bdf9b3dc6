//! Helpers shared by the tests that run real containers. They need a running Docker Engine
//! (`.ci/run` installs and starts one); the sandbox images are built on first use. The
//! execution and attack suites run once per [`Backend`]: Docker with runc, Docker with gVisor,
//! and Podman.

#![allow(dead_code)]

pub mod http;
pub mod oauth;
pub mod rng;

use std::time::Duration;

use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::policy::Limits;
use code_sandbox_mcp::sandbox::{EngineChoice, Execution, Sandbox, SandboxConfig};

/// Limits small enough that attacks hit them quickly.
pub fn tight_limits() -> Limits {
    Limits {
        memory_bytes: 256 << 20,
        cpus: 1.0,
        pids: 32,
        timeout: Duration::from_secs(20),
        output_bytes: 64 << 10,
        tmpfs_bytes: 8 << 20,
        ..Limits::default()
    }
}

/// The images' recipe the suites run on: each language's default suite, or `SANDBOX_SUITE`
/// (which the gateway's own command line reads too, so servers the tests start use the same
/// images).
pub fn recipe() -> code_sandbox_mcp::sandbox::Recipe {
    let suite = std::env::var("SANDBOX_SUITE")
        .ok()
        .map(|s| s.parse().expect("SANDBOX_SUITE names a suite"));
    code_sandbox_mcp::sandbox::Recipe {
        suite,
        ..Default::default()
    }
}

pub async fn sandbox(limits: &Limits, pool_size: usize) -> Sandbox {
    let config = SandboxConfig {
        pool_size,
        recipe: recipe(),
        ..SandboxConfig::default()
    };
    match Sandbox::start(&config, limits).await {
        Ok(s) => s,
        Err(e) => panic!("these tests need a running Docker Engine and the sandbox images: {e}"),
    }
}

/// Runs one snippet in a fresh sandbox with `limits`, then tears the sandbox down.
pub async fn run_with(limits: &Limits, language: Language, code: &str) -> Execution {
    let sandbox = sandbox(limits, 0).await;
    let result = sandbox.run(language, code, std::future::pending()).await;
    sandbox.shutdown().await;
    result.unwrap_or_else(|e| panic!("run failed: {e}"))
}

pub async fn run_py(code: &str) -> Execution {
    run_with(&tight_limits(), Language::Python, code).await
}

/// Builds the sandbox images if they are missing (once per machine; concurrent callers wait
/// on the build lock). Tests that drive the server call this first, so a first build shows its
/// progress here instead of inside a server while a client waits.
pub fn ensure_images() {
    static DONE: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    DONE.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let engine = code_sandbox_mcp::sandbox::Engine::connect(&Default::default())
                .await
                .unwrap_or_else(|e| panic!("these tests need a running Docker Engine: {e}"));
            let recipe = recipe();
            for language in Language::ALL {
                let image = code_sandbox_mcp::sandbox::images::image_for(language, &recipe);
                code_sandbox_mcp::sandbox::images::ensure(
                    &engine, language, &image, &recipe, true, None,
                )
                .await
                .unwrap_or_else(|e| panic!("cannot build the {language} image: {e}"));
            }
        });
    });
}

/// `text` with every number in the sandbox's uid range written as `UID`: each container runs
/// as a user id of its own, so tests compare the rest.
pub fn uids_masked(text: &str) -> String {
    let range = code_sandbox_mcp::sandbox::UidRange::default();
    let numbers = regex::Regex::new(r"\d+").expect("valid regex");
    numbers
        .replace_all(text, |n: &regex::Captures| match n[0].parse::<u32>() {
            Ok(uid) if range.contains(uid) => "UID".to_owned(),
            _ => n[0].to_owned(),
        })
        .into_owned()
}

/// Resident memory of a process, in KiB (0 if it cannot be read).
pub fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// The owner label the gateway process `pid` on this host puts on its containers.
pub fn owner_label(pid: u32) -> String {
    let owner = code_sandbox_mcp::sandbox::container::owner();
    let host = owner.rsplit_once(':').expect("owner is host:pid").0;
    format!(
        "{}={host}:{pid}",
        code_sandbox_mcp::sandbox::container::LABEL_OWNER
    )
}

/// An engine and runtime the container suites run on. All three are required unless
/// `SANDBOX_TEST_BACKENDS` (comma-separated names) leaves some out, for a machine that lacks
/// gVisor or Podman; `.ci/run` installs all three.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// Docker Engine with its default runtime, runc.
    Docker,
    /// Docker Engine with gVisor's runsc: the snippet sees gVisor's kernel, not the host's.
    Gvisor,
    /// Podman through its Docker-compatible API socket.
    Podman,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::Docker => "docker",
            Backend::Gvisor => "gvisor",
            Backend::Podman => "podman",
        }
    }

    /// False when `SANDBOX_TEST_BACKENDS` leaves this backend out; the caller says so and
    /// returns.
    pub fn selected(self) -> bool {
        let chosen = std::env::var("SANDBOX_TEST_BACKENDS")
            .map(|list| list.split(',').any(|name| name.trim() == self.name()))
            .unwrap_or(true);
        if !chosen {
            eprintln!(
                "SKIPPED on {}: SANDBOX_TEST_BACKENDS does not name it",
                self.name()
            );
        }
        chosen
    }

    /// The error code of creating a file in the read-only `/etc` as the sandbox's user: gVisor
    /// checks permissions before the read-only mount, Linux the mount first.
    pub fn etc_write_error(self) -> &'static str {
        if self == Backend::Gvisor {
            "EACCES"
        } else {
            "EROFS"
        }
    }

    /// True when the gateway's seccomp profile is in force: always under runc; under gVisor
    /// only when runsc is registered with `--oci-seccomp` (otherwise gVisor's own kernel
    /// answers every call).
    pub async fn applies_seccomp(self) -> bool {
        if self != Backend::Gvisor {
            return true;
        }
        let engine = code_sandbox_mcp::sandbox::Engine::connect(&self.engine())
            .await
            .expect("the engine answers");
        engine
            .runtimes()
            .await
            .expect("the engine lists its runtimes")
            .iter()
            .any(|r| r.name == "runsc" && r.applies_seccomp())
    }

    pub fn engine(self) -> EngineChoice {
        match self {
            Backend::Docker | Backend::Gvisor => EngineChoice::Docker,
            Backend::Podman => EngineChoice::Podman,
        }
    }

    /// `limits` with this backend's runtime.
    pub fn limits(self, limits: &Limits) -> Limits {
        Limits {
            runtime: (self == Backend::Gvisor).then(|| "runsc".to_owned()),
            ..limits.clone()
        }
    }

    pub fn config(self, pool_size: usize) -> SandboxConfig {
        SandboxConfig {
            engine: self.engine(),
            pool_size,
            recipe: recipe(),
            ..SandboxConfig::default()
        }
    }

    /// A sandbox on this backend with `limits` (and this backend's runtime).
    pub async fn sandbox(self, limits: &Limits, pool_size: usize) -> Sandbox {
        match Sandbox::start(&self.config(pool_size), &self.limits(limits)).await {
            Ok(s) => s,
            Err(e) => panic!(
                "the {} backend is not ready (leave it out with SANDBOX_TEST_BACKENDS): {e}",
                self.name()
            ),
        }
    }

    /// Runs one snippet in a fresh sandbox on this backend, then tears the sandbox down.
    pub async fn run(self, limits: &Limits, language: Language, code: &str) -> Execution {
        let sandbox = self.sandbox(limits, 0).await;
        let result = sandbox.run(language, code, std::future::pending()).await;
        sandbox.shutdown().await;
        result.unwrap_or_else(|e| panic!("run on {} failed: {e}", self.name()))
    }

    pub async fn run_py(self, code: &str) -> Execution {
        self.run(&tight_limits(), Language::Python, code).await
    }

    pub async fn run_js(self, code: &str) -> Execution {
        self.run(&tight_limits(), Language::JavaScript, code).await
    }
}

/// Defines a container test once and runs it on every [`Backend`]: `name::docker`,
/// `name::gvisor` and `name::podman`.
#[macro_export]
macro_rules! on_every_backend {
    ($(#[$meta:meta])* async fn $name:ident($backend:ident) $body:block) => {
        $(#[$meta])*
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            async fn check($backend: $crate::common::Backend) $body

            #[tokio::test]
            async fn docker() {
                if $crate::common::Backend::Docker.selected() {
                    check($crate::common::Backend::Docker).await
                }
            }

            #[tokio::test]
            async fn gvisor() {
                if $crate::common::Backend::Gvisor.selected() {
                    check($crate::common::Backend::Gvisor).await
                }
            }

            #[tokio::test]
            async fn podman() {
                if $crate::common::Backend::Podman.selected() {
                    check($crate::common::Backend::Podman).await
                }
            }
        }
    };
}
