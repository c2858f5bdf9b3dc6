//! The engine going away mid-run, and coming back. The gateway reaches Docker through a
//! Unix-socket proxy this test controls: cutting it aborts every connection and refuses new
//! ones, as a stopped daemon would, without disturbing the real engine other tests use. A test
//! binary of its own, since it points DOCKER_HOST at the proxy.

mod common;

use std::path::Path;
use std::time::Duration;

use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::sandbox::SandboxError;
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::watch;

const DOCKER_SOCKET: &str = "/var/run/docker.sock";

fn spawn_proxy(path: &Path, up: watch::Receiver<bool>) {
    let listener = UnixListener::bind(path).unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut client, _)) = listener.accept().await else {
                return;
            };
            if !*up.borrow() {
                continue; // refused: dropped at once
            }
            let mut up = up.clone();
            tokio::spawn(async move {
                let Ok(mut engine) = UnixStream::connect(DOCKER_SOCKET).await else {
                    return;
                };
                tokio::select! {
                    _ = tokio::io::copy_bidirectional(&mut client, &mut engine) => {}
                    _ = up.wait_for(|is_up| !*is_up) => {}
                }
            });
        }
    });
}

#[tokio::test]
async fn the_engine_going_away_is_reported_and_the_next_run_works_once_it_is_back() {
    tokio::task::spawn_blocking(common::ensure_images)
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("docker.sock");
    let (switch, up) = watch::channel(true);
    spawn_proxy(&socket, up);
    // SAFETY: this binary has a single test, and nothing else reads the environment now.
    unsafe { std::env::set_var("DOCKER_HOST", format!("unix://{}", socket.display())) };

    let sandbox = common::sandbox(&common::tight_limits(), 1).await;
    assert!(sandbox.wait_warm(1, Duration::from_secs(60)).await);
    let ok = sandbox
        .run(Language::Python, "print('before')", std::future::pending())
        .await
        .unwrap();
    assert_eq!(ok.stdout, "before\n");

    // The engine disappears one second into a run.
    assert!(sandbox.wait_warm(1, Duration::from_secs(60)).await);
    let cut = async {
        tokio::time::sleep(Duration::from_secs(1)).await;
        switch.send(false).unwrap();
    };
    let (result, ()) = tokio::join!(
        sandbox.run(
            Language::Python,
            "import time\ntime.sleep(10)",
            std::future::pending()
        ),
        cut
    );
    match result {
        Err(error @ SandboxError::EngineLost { .. }) => {
            assert!(error.to_string().contains("hint"), "{error}");
        }
        other => panic!("expected the engine to be reported lost, got {other:?}"),
    }
    // While it is gone, a run fails at once with the same clear error.
    assert!(matches!(
        sandbox
            .run(Language::Python, "print(1)", std::future::pending())
            .await,
        Err(SandboxError::EngineLost { .. })
    ));

    // Back again: the next run works, on a fresh container.
    switch.send(true).unwrap();
    let mut recovered = None;
    for _ in 0..20 {
        match sandbox
            .run(Language::Python, "print('after')", std::future::pending())
            .await
        {
            Ok(e) => {
                recovered = Some(e);
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(500)).await,
        }
    }
    assert_eq!(
        recovered
            .expect("a run works once the engine is back")
            .stdout,
        "after\n"
    );
    sandbox.shutdown().await;
}
