//! The server driven by rmcp's own client over stdio: listing, a run, progress notifications
//! during a long run, and cancellation, after which the run's container is gone; the client
//! logs no warning along the way.

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use code_sandbox_mcp::sandbox::Engine;
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

/// Records the warnings (and errors) logged on this thread, where the client runs.
#[derive(Clone, Default)]
struct Warnings(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Warnings {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Warnings {
    fn record(&self) -> tracing::subscriber::DefaultGuard {
        let writer = self.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::WARN)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        tracing::subscriber::set_default(subscriber)
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

async fn containers_of(engine: &Engine, pid: u32) -> usize {
    code_sandbox_mcp::sandbox::container::list_labelled(engine, &common::owner_label(pid))
        .await
        .unwrap()
        .len()
}

#[tokio::test]
async fn rmcp_client_runs_sees_progress_and_cancels() {
    tokio::task::spawn_blocking(common::ensure_images)
        .await
        .unwrap();
    let warnings = Warnings::default();
    let _recording = warnings.record();
    let audit_dir = tempfile::tempdir().unwrap();
    let audit = audit_dir.path().join("audit.jsonl");
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_code-sandbox-mcp"));
    command
        .args(["--pool-size", "0", "--audit-log"])
        .arg(&audit);
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
    let engine = Engine::connect(&Default::default()).await.unwrap();
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

    // A denied call, then the audit trail of everything so far.
    let denied = client
        .call_tool(
            CallToolRequestParams::new("run_python_code")
                .with_arguments(object!({ "code": "import os\nos.system('echo TOPSECRET')" })),
        )
        .await
        .unwrap();
    assert_eq!(denied.is_error, Some(true));
    client.cancel().await.unwrap();
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&audit)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(
        (lines[0]["tool"].as_str(), lines[0]["exit_code"].as_i64()),
        (Some("run_python_code"), Some(0))
    );
    // The cancelled run is recorded as what it was: allowed, ran, cancelled.
    assert!(
        lines[2]["error"].as_str().unwrap().contains("cancelled"),
        "{}",
        lines[2]
    );
    assert_eq!(
        (
            lines[2]["verdict"].as_str(),
            lines[2]["ran"].as_bool(),
            lines[2]["cancelled"].as_bool()
        ),
        (Some("allow"), Some(true), Some(true)),
        "{}",
        lines[2]
    );
    assert_eq!(lines[2]["client"], "stdio");
    assert_eq!(
        (lines[3]["verdict"].as_str(), lines[3]["ran"].as_bool()),
        (Some("deny"), Some(false))
    );
    assert_eq!(lines[3]["findings"][0]["rule"], "process-exec");
    assert_eq!(lines[3]["policy"], "standard");
    assert!(
        !std::fs::read_to_string(&audit)
            .unwrap()
            .contains("TOPSECRET"),
        "the audit log must not contain code"
    );
    assert_eq!(warnings.text(), "", "the rmcp client warned");
}

#[tokio::test]
async fn calls_beyond_the_queue_get_a_busy_error_at_once() {
    tokio::task::spawn_blocking(common::ensure_images)
        .await
        .unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_code-sandbox-mcp"));
    command.args([
        "--pool-size",
        "1",
        "--max-concurrent",
        "1",
        "--max-queue",
        "0",
    ]);
    let client = ().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();
    let call = |code: &'static str| {
        let client = &client;
        async move {
            client
                .call_tool(
                    CallToolRequestParams::new("run_python_code")
                        .with_arguments(object!({ "code": code })),
                )
                .await
                .unwrap()
        }
    };
    let slow = call("import time\ntime.sleep(3)\nprint('slow')");
    let refused = async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let started = Instant::now();
        let result = call("print('second')").await;
        (result, started.elapsed())
    };
    let (slow, (refused, waited)) = tokio::join!(slow, refused);
    assert_eq!(slow.structured_content.unwrap()["stdout"], "slow\n");
    assert_eq!(refused.is_error, Some(true));
    let text = refused.content[0].as_text().unwrap().text.clone();
    assert!(text.contains("busy"), "{text}");
    assert!(
        waited < Duration::from_secs(2),
        "a busy answer comes at once, not after {waited:?}"
    );
    client.cancel().await.unwrap();
}

/// Output is untrusted: in the text a model reads, a right-to-left override or text spelled in
/// invisible tag characters is shown as <U+XXXX>; the structured result keeps the bytes.
#[tokio::test]
async fn hidden_characters_are_shown_in_the_text_and_kept_in_the_structure() {
    tokio::task::spawn_blocking(common::ensure_images)
        .await
        .unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_code-sandbox-mcp"));
    command.args(["--pool-size", "0"]);
    let client = Client::default()
        .serve(TokioChildProcess::new(command).unwrap())
        .await
        .unwrap();
    let result = client
        .call_tool(
            CallToolRequestParams::new("run_python_code")
                .with_arguments(object!({ "code": "print('a\\u202eb\\U000E0041')" })),
        )
        .await
        .unwrap();
    client.cancel().await.unwrap();
    let text = result.content[0].as_text().unwrap().text.clone();
    assert!(text.contains("a<U+202E>b<U+E0041>"), "{text}");
    assert_eq!(
        result.structured_content.unwrap()["stdout"],
        "a\u{202e}b\u{e0041}\n"
    );
}
