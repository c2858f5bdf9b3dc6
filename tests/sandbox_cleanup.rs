//! Nothing is left behind: containers are removed after every kind of ending, pools are
//! drained at shutdown, and leftovers of a dead gateway are reaped at the next start.
//! A test binary of its own, so its containers (labelled with this process's pid) are the
//! only ones carrying that owner label; the backends take turns for the same reason.

mod common;

use std::collections::HashMap;
use std::time::Duration;

use bollard::models::ContainerCreateBody;
use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::sandbox::container::{LABEL_MANAGED, LABEL_OWNER, owner};
use code_sandbox_mcp::sandbox::{Engine, images};
use common::{Backend, tight_limits};

async fn containers_with_owner(engine: &Engine, owner: &str) -> Vec<String> {
    code_sandbox_mcp::sandbox::container::list_labelled(engine, &format!("{LABEL_OWNER}={owner}"))
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .collect()
}

#[tokio::test]
async fn no_container_survives_any_ending_and_leftovers_are_reaped() {
    for backend in [Backend::Docker, Backend::Gvisor, Backend::Podman] {
        if backend.selected() {
            check(backend).await;
        }
    }
}

async fn check(backend: Backend) {
    let name = backend.name();
    let limits = code_sandbox_mcp::policy::Limits {
        timeout: Duration::from_secs(2),
        ..tight_limits()
    };
    let sandbox = backend.sandbox(&limits, 2).await;
    let engine = sandbox.engine().clone();
    assert!(
        sandbox.wait_warm(2, Duration::from_secs(60)).await,
        "{name}: the pool did not fill"
    );
    let endings = [
        ("print('normal')", None),
        ("raise SystemExit(5)", None),
        ("while True:\n    pass", None),
        ("import os\nos._exit(9)", None),
        (
            "chunks = []\nwhile True:\n    chunks.append(bytearray(32 << 20))",
            None,
        ),
        ("while True:\n    pass", Some(Duration::from_millis(300))),
    ];
    for (code, cancel_after) in endings {
        let cancelled = async move {
            match cancel_after {
                Some(d) => tokio::time::sleep(d).await,
                None => std::future::pending().await,
            }
        };
        let _ = sandbox.run(Language::Python, code, cancelled).await;
    }
    let js = sandbox
        .run(
            Language::JavaScript,
            "console.log(1)",
            std::future::pending(),
        )
        .await
        .unwrap();
    assert_eq!(js.stdout, "1\n", "{name}");
    sandbox.shutdown().await;
    assert_eq!(
        containers_with_owner(&engine, &owner()).await,
        Vec::<String>::new(),
        "{name}: containers left behind"
    );

    // A container left by a gateway that died (its pid no longer exists) is reaped at start.
    let host = owner().rsplit_once(':').unwrap().0.to_owned();
    let dead_owner = format!("{host}:4194303");
    let body = ContainerCreateBody {
        image: Some(images::default_image(Language::Python)),
        cmd: Some(vec!["sleep".into(), "600".into()]),
        labels: Some(HashMap::from([
            (LABEL_MANAGED.to_owned(), "true".to_owned()),
            (LABEL_OWNER.to_owned(), dead_owner.clone()),
        ])),
        ..Default::default()
    };
    engine
        .docker
        .create_container(
            None::<bollard::query_parameters::CreateContainerOptions>,
            body,
        )
        .await
        .unwrap();
    assert_eq!(
        containers_with_owner(&engine, &dead_owner).await.len(),
        1,
        "{name}"
    );
    let restarted = backend.sandbox(&limits, 0).await;
    assert!(
        containers_with_owner(&engine, &dead_owner).await.is_empty(),
        "{name}: the leftover was not reaped"
    );
    restarted.shutdown().await;
}
