//! Faults from outside the gateway: a container killed by someone else, the image deleted
//! while serving, and the gateway itself killed with SIGKILL mid-run. A test binary of its own,
//! so the containers labelled with this process's pid are only these tests'.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::sandbox::container::{LABEL_OWNER, list_labelled, owner};
use code_sandbox_mcp::sandbox::{Engine, Sandbox, SandboxConfig, SandboxError, images};
use common::tight_limits;

async fn wait_for_containers(engine: &Engine, label: &str, count: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let ids: Vec<String> = list_labelled(engine, label)
            .await
            .unwrap()
            .into_iter()
            .map(|c| c.id)
            .collect();
        if ids.len() == count || Instant::now() > deadline {
            return ids;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn faults_from_outside_are_reported_and_recovered_from() {
    let sandbox = common::sandbox(&tight_limits(), 0).await;
    let engine = sandbox.engine().clone();
    let label = format!("{LABEL_OWNER}={}", owner());

    // 1. The container is killed from outside mid-run: the run ends with the kill's status.
    let killer = {
        let engine = engine.clone();
        let label = label.clone();
        tokio::spawn(async move {
            for id in wait_for_containers(&engine, &label, 1).await {
                // Kill only once the snippet is running (its output shows in the logs), not
                // while the runner is still starting.
                let deadline = Instant::now() + Duration::from_secs(60);
                while Instant::now() < deadline {
                    let logs = Command::new("docker").args(["logs", &id]).output().unwrap();
                    if String::from_utf8_lossy(&logs.stdout).contains("up") {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Command::new("docker").args(["kill", &id]).output().unwrap();
            }
        })
    };
    let e = sandbox
        .run(
            Language::Python,
            "import time\nprint('up', flush=True)\ntime.sleep(30)",
            std::future::pending(),
        )
        .await
        .unwrap();
    killer.await.unwrap();
    assert_eq!(e.exit_code, Some(137), "{e:?}");
    assert!(!e.timed_out && !e.oom_killed);
    assert_eq!(e.stdout, "up\n");
    sandbox.shutdown().await;

    // 2. The image is deleted while serving: a clear error naming the image and the fix,
    //    and runs work again once it is back. (The recipe's own image: a team's image is
    //    served through a derived layer of its own, which its removal does not touch.)
    let image = images::default_image(Language::Python);
    let backup = "code-sandbox-python:fault-test-backup";
    let docker = |args: &[&str]| {
        Command::new("docker")
            .args(args)
            .status()
            .unwrap()
            .success()
    };
    assert!(docker(&["tag", &image, backup]));
    let config = SandboxConfig {
        pool_size: 0,
        languages: vec![Language::Python],
        ..Default::default()
    };
    let sandbox = Sandbox::start(&config, &tight_limits()).await.unwrap();
    let first = sandbox
        .run(Language::Python, "print(1)", std::future::pending())
        .await;
    assert!(docker(&["rmi", &image]));
    let missing = sandbox
        .run(Language::Python, "print(2)", std::future::pending())
        .await;
    assert!(docker(&["tag", backup, &image]));
    assert!(docker(&["rmi", backup]));
    assert_eq!(first.unwrap().stdout, "1\n");
    match missing {
        Err(error @ SandboxError::ImageMissing { .. }) => {
            let message = error.to_string();
            assert!(
                message.contains(&image) && message.contains("images build"),
                "{message}"
            );
        }
        other => panic!("expected a missing-image error, got {other:?}"),
    }
    assert_eq!(
        sandbox
            .run(Language::Python, "print(3)", std::future::pending())
            .await
            .unwrap()
            .stdout,
        "3\n"
    );
    sandbox.shutdown().await;

    // 3. The gateway is killed with SIGKILL mid-run: its container stays behind, and the next
    //    gateway to start reaps it.
    let dir = tempfile::tempdir().unwrap();
    let snippet = dir.path().join("long.py");
    std::fs::write(&snippet, "import time\ntime.sleep(60)\n").unwrap();
    let mut gateway = std::process::Command::new(env!("CARGO_BIN_EXE_code-sandbox-mcp"))
        .arg("run")
        .arg(&snippet)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let dead_label = common::owner_label(gateway.id());
    assert_eq!(
        wait_for_containers(&engine, &dead_label, 1).await.len(),
        1,
        "the run's container never appeared"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    gateway.kill().unwrap();
    gateway.wait().unwrap();
    assert_eq!(
        wait_for_containers(&engine, &dead_label, 1).await.len(),
        1,
        "a SIGKILLed gateway cannot clean up"
    );
    let next = common::sandbox(&tight_limits(), 0).await;
    assert!(
        list_labelled(&engine, &dead_label)
            .await
            .unwrap()
            .is_empty(),
        "the next start did not reap the leftover"
    );
    next.shutdown().await;
}
