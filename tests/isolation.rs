//! The isolation levels are what they claim: under gVisor a snippet sees gVisor's kernel, not
//! the host's; a runtime the engine lacks stops the gateway at start-up instead of falling back
//! to a weaker one; and each engine is found and recognized for what it is.

mod common;

use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::policy::Limits;
use code_sandbox_mcp::sandbox::{Engine, EngineChoice, EngineKind, Sandbox, SandboxError};
use common::{Backend, tight_limits};

/// The kernel release and the first kernel log line a snippet sees (or the error reading it).
const KERNEL_PROBE: &str = "import os, subprocess\nprint(os.uname().release)\nlog = subprocess.run(['dmesg'], capture_output=True, text=True)\nprint((log.stdout.splitlines() or [log.stderr.strip()])[0])\n";

fn host_kernel() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .unwrap()
        .trim()
        .to_owned()
}

#[tokio::test]
async fn under_gvisor_the_snippet_sees_gvisors_kernel() {
    if !Backend::Gvisor.selected() {
        return;
    }
    let e = Backend::Gvisor.run_py(KERNEL_PROBE).await;
    let lines: Vec<&str> = e.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{e:?}");
    assert_ne!(lines[0], host_kernel(), "the host kernel is visible: {e:?}");
    assert!(
        lines[1].contains("Starting gVisor"),
        "gVisor's kernel log was expected: {e:?}"
    );
}

/// The contrast: under runc (Docker or Podman) the snippet shares the host's kernel, which is
/// exactly what gVisor removes. Its kernel log stays closed to the unprivileged snippet.
#[tokio::test]
async fn under_runc_the_snippet_shares_the_host_kernel() {
    for backend in [Backend::Docker, Backend::Podman] {
        if !backend.selected() {
            continue;
        }
        let e = backend.run_py(KERNEL_PROBE).await;
        let lines: Vec<&str> = e.stdout.lines().collect();
        assert_eq!(lines.first(), Some(&host_kernel().as_str()), "{e:?}");
        assert!(
            lines.get(1).is_some_and(|l| l.contains("not permitted")),
            "the host's kernel log must stay unreadable: {e:?}"
        );
    }
}

#[tokio::test]
async fn a_runtime_the_engine_lacks_stops_the_start() {
    for backend in [Backend::Docker, Backend::Podman] {
        if !backend.selected() {
            continue;
        }
        let limits = Limits {
            runtime: Some("no-such-runtime".into()),
            ..tight_limits()
        };
        let error = match Sandbox::start(&backend.config(0), &limits).await {
            Err(e) => e,
            Ok(sandbox) => {
                sandbox.shutdown().await;
                panic!("{} started without the runtime", backend.name());
            }
        };
        assert!(
            matches!(&error, SandboxError::MissingRuntime { runtime, .. } if runtime == "no-such-runtime"),
            "{error}"
        );
        let message = error.to_string();
        assert!(message.contains("never falls back"), "{message}");
        assert!(
            message.contains("runc"),
            "the usable runtimes are listed: {message}"
        );
    }
}

/// Podman lists every runtime of its default configuration, installed or not: a policy asking
/// for one that is listed but missing must fail at start-up too, not at the first run.
#[tokio::test]
async fn a_runtime_podman_lists_but_lacks_stops_the_start() {
    if !Backend::Podman.selected() {
        return;
    }
    let engine = Engine::connect(&EngineChoice::Podman).await.unwrap();
    let runtimes = engine.runtimes().await.unwrap();
    let Some(missing) = runtimes.iter().find(|r| !r.installed) else {
        panic!("expected Podman to list a runtime this host lacks: {runtimes:?}");
    };
    let limits = Limits {
        runtime: Some(missing.name.clone()),
        ..tight_limits()
    };
    let result = Sandbox::start(&Backend::Podman.config(0), &limits).await;
    assert!(
        matches!(&result, Err(SandboxError::MissingRuntime { runtime, .. }) if *runtime == missing.name),
        "{:?}",
        result.err()
    );
}

/// Podman's Docker-compatible API runs every container under its default runtime whatever
/// the request says (a container asked for runsc saw the host's kernel): the gateway must
/// refuse to start rather than report gVisor and give runc.
#[tokio::test]
async fn podman_refuses_a_runtime_it_would_ignore() {
    if !Backend::Podman.selected() {
        return;
    }
    let engine = Engine::connect(&EngineChoice::Podman).await.unwrap();
    let runtimes = engine.runtimes().await.unwrap();
    assert!(
        runtimes
            .iter()
            .any(|r| r.name == "runsc" && r.installed && !r.default),
        "this test needs runsc installed and not Podman's default: {runtimes:?}"
    );
    let result = Sandbox::start(
        &Backend::Podman.config(0),
        &Backend::Gvisor.limits(&tight_limits()),
    )
    .await;
    let error = match result {
        Err(e) => e,
        Ok(sandbox) => {
            sandbox.shutdown().await;
            panic!("Podman started a sandbox that asked for runsc");
        }
    };
    assert!(
        matches!(&error, SandboxError::RuntimeNotSelectable { runtime, default }
            if runtime == "runsc" && runtimes.iter().any(|r| r.default && r.name == *default)),
        "{error}"
    );
    assert!(error.to_string().contains("never falls back"), "{error}");
}

#[tokio::test]
async fn each_engine_is_recognized_and_auto_detection_takes_the_one_that_answers() {
    let podman = Engine::connect(&EngineChoice::Podman).await.unwrap();
    assert_eq!(podman.kind, EngineKind::Podman);
    let docker = Engine::connect(&EngineChoice::Docker).await.unwrap();
    assert_eq!(docker.kind, EngineKind::Docker);
    // A socket URL is recognized by what answers, not by its path.
    let by_url = Engine::connect(&EngineChoice::Socket(podman.endpoint.clone()))
        .await
        .unwrap();
    assert_eq!(by_url.kind, EngineKind::Podman);

    let dead = "unix:///nonexistent/docker.sock".to_owned();
    let found = Engine::detect(&[dead.clone(), podman.endpoint.clone()])
        .await
        .unwrap();
    assert_eq!(found.kind, EngineKind::Podman, "only Podman answers");
    let found = Engine::detect(&[docker.endpoint.clone(), podman.endpoint.clone()])
        .await
        .unwrap();
    assert_eq!(
        found.kind,
        EngineKind::Docker,
        "Docker wins when both answer"
    );
    let error = match Engine::detect(std::slice::from_ref(&dead)).await {
        Err(e) => e.to_string(),
        Ok(_) => panic!("a dead socket answered"),
    };
    assert!(
        error.contains(&dead) && error.contains("--engine"),
        "{error}"
    );
}

/// The same snippet gives the same answer on every backend: the engines differ in isolation,
/// not in behaviour.
#[tokio::test]
async fn every_backend_runs_both_languages_alike() {
    for backend in [Backend::Docker, Backend::Gvisor, Backend::Podman] {
        if !backend.selected() {
            continue;
        }
        let sandbox = backend.sandbox(&tight_limits(), 0).await;
        let python = sandbox
            .run(
                Language::Python,
                "import numpy\nprint(int(numpy.arange(5).sum()))",
                std::future::pending(),
            )
            .await;
        let javascript = sandbox
            .run(
                Language::JavaScript,
                "console.log([1, 2, 3].reduce((a, b) => a + b))",
                std::future::pending(),
            )
            .await;
        sandbox.shutdown().await;
        let (python, javascript) = (python.unwrap(), javascript.unwrap());
        assert_eq!(
            (python.stdout.as_str(), python.exit_code),
            ("10\n", Some(0)),
            "{}: {python:?}",
            backend.name()
        );
        assert_eq!(
            (javascript.stdout.as_str(), javascript.exit_code),
            ("6\n", Some(0)),
            "{}: {javascript:?}",
            backend.name()
        );
    }
}
