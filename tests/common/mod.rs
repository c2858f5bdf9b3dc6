//! Helpers shared by the tests that run real containers. They need a running Docker Engine
//! (`.ci/run` installs and starts one); the sandbox images are built on first use.

#![allow(dead_code)]

use std::time::Duration;

use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::policy::Limits;
use code_sandbox_mcp::sandbox::{Execution, Sandbox, SandboxConfig};

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

pub async fn sandbox(limits: &Limits, pool_size: usize) -> Sandbox {
    let config = SandboxConfig {
        pool_size,
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
            let engine = code_sandbox_mcp::sandbox::Engine::connect()
                .await
                .unwrap_or_else(|e| panic!("these tests need a running Docker Engine: {e}"));
            for language in Language::ALL {
                let image = code_sandbox_mcp::sandbox::images::default_image(language);
                code_sandbox_mcp::sandbox::images::ensure(&engine, language, &image, true, None)
                    .await
                    .unwrap_or_else(|e| panic!("cannot build the {language} image: {e}"));
            }
        });
    });
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
