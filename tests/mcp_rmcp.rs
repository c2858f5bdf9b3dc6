//! The server driven by rmcp's own client over stdio: listing, a run, progress notifications
//! during a long run, and cancellation, after which the run's container is gone.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bollard::query_parameters::ListContainersOptionsBuilder;
use code_sandbox_mcp::sandbox::Engine;
use code_sandbox_mcp::sandbox::container::LABEL_OWNER;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ClientRequest, Implementation,
    ProgressNotificationParam, Request,
};
use rmcp::service::{NotificationContext, PeerRequestOptions};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt, object};

#[derive(Clone, Default)]
struct Client {
    progress: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Client {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _ctx: NotificationContext<RoleClient>,
    ) {
        self.progress
            .lock()
            .unwrap()
            .push(params.message.unwrap_or_default());
    }
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("rmcp-test-client", "0"),
        )
    }
}

async fn containers_of(engine: &Engine, pid: u32) -> usize {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap()
        .trim()
        .to_owned();
    let filters = HashMap::from([("label", vec![format!("{LABEL_OWNER}={host}:{pid}")])]);
    engine
        .docker
        .list_containers(Some(
            ListContainersOptionsBuilder::new()
                .all(true)
                .filters(&filters)
                .build(),
        ))
        .await
        .unwrap()
        .len()
}

#[tokio::test]
async fn rmcp_client_runs_sees_progress_and_cancels() {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_code-sandbox-mcp"));
    command.args(["--pool-size", "0"]);
    let transport = TokioChildProcess::new(command).unwrap();
    let server_pid = transport.id().expect("the server has a pid");
    let handler = Client::default();
    let client = handler.clone().serve(transport).await.unwrap();

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert!(
        names.contains(&"run_python_code") && names.contains(&"check_code"),
        "{names:?}"
    );

    let result = client
        .call_tool(
            CallToolRequestParams::new("run_python_code")
                .with_arguments(object!({ "code": "print(sum(range(10)))" })),
        )
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.structured_content.unwrap()["stdout"], "45\n");

    // A run of about 2.5 s reports progress each second.
    let result = client
        .call_tool(
            CallToolRequestParams::new("run_python_code")
                .with_arguments(object!({ "code": "import time\ntime.sleep(2.5)\nprint('done')" })),
        )
        .await
        .unwrap();
    assert_eq!(result.structured_content.unwrap()["stdout"], "done\n");
    let progress = handler.progress.lock().unwrap().clone();
    assert!(
        !progress.is_empty() && progress[0].starts_with("running for"),
        "{progress:?}"
    );

    // Cancelling an endless run kills its container.
    let engine = Engine::connect().await.unwrap();
    let request = ClientRequest::CallToolRequest(Request::new(
        CallToolRequestParams::new("run_python_code")
            .with_arguments(object!({ "code": "while True:\n    pass" })),
    ));
    let started = Instant::now();
    let handle = client
        .send_cancellable_request(
            request,
            PeerRequestOptions::with_timeout(Duration::from_secs(2)),
        )
        .await
        .unwrap();
    assert!(
        handle.await_response().await.is_err(),
        "the request was cancelled by its timeout"
    );
    let mut remaining = usize::MAX;
    while started.elapsed() < Duration::from_secs(20) {
        remaining = containers_of(&engine, server_pid).await;
        if remaining == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(remaining, 0, "the cancelled run's container is still there");
    assert!(started.elapsed() < Duration::from_secs(20));

    client.cancel().await.unwrap();
}
