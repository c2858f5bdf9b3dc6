//! Load through the real server: 200 calls at concurrency 8. Every call is answered, the
//! server's memory stays bounded, and no container is left once it exits.

mod common;

use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::{ServiceExt, object};

const CALLS: usize = 200;
const CONCURRENCY: usize = 8;

#[tokio::test]
async fn two_hundred_calls_at_concurrency_eight() {
    tokio::task::spawn_blocking(common::ensure_images)
        .await
        .unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_code-sandbox-mcp"));
    command.args([
        "--pool-size",
        "4",
        "--max-concurrent",
        "4",
        "--max-queue",
        "16",
    ]);
    let transport = TokioChildProcess::new(command).unwrap();
    let pid = transport.id().unwrap();
    let client = ().serve(transport).await.unwrap();
    let call = |i: usize| {
        let client = &client;
        async move {
            let code = format!("print({i} * 3)");
            let result = client
                .call_tool(
                    CallToolRequestParams::new("run_python_code")
                        .with_arguments(object!({ "code": code })),
                )
                .await
                .expect("every call is answered");
            (i, result)
        }
    };
    // Warm up once so the baseline includes the loaded runtime and the filled pool.
    call(0).await;
    let baseline = common::rss_kib(pid);
    let started = Instant::now();
    let mut answered = 0;
    let mut peak = baseline;
    for batch in (1..=CALLS).collect::<Vec<_>>().chunks(CONCURRENCY) {
        let results = futures_util::future::join_all(batch.iter().map(|&i| call(i))).await;
        for (i, result) in results {
            assert_eq!(
                result.is_error,
                Some(false),
                "call {i}: {:?}",
                result.content
            );
            assert_eq!(
                result.structured_content.unwrap()["stdout"],
                format!("{}\n", i * 3)
            );
            answered += 1;
        }
        peak = peak.max(common::rss_kib(pid));
    }
    let elapsed = started.elapsed();
    eprintln!(
        "{answered} calls at concurrency {CONCURRENCY} in {:.1} s ({:.1} calls/s); server RSS {} KiB before, {} KiB peak",
        elapsed.as_secs_f64(),
        answered as f64 / elapsed.as_secs_f64(),
        baseline,
        peak
    );
    assert_eq!(answered, CALLS);
    assert!(
        peak < baseline + 64 * 1024,
        "server memory grew from {baseline} KiB to {peak} KiB"
    );
    client.cancel().await.unwrap();

    let engine = code_sandbox_mcp::sandbox::Engine::connect(&Default::default())
        .await
        .unwrap();
    let label = common::owner_label(pid);
    let mut left = usize::MAX;
    for _ in 0..100 {
        left = code_sandbox_mcp::sandbox::container::list_labelled(&engine, &label)
            .await
            .unwrap()
            .len();
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(left, 0, "containers left behind after the server exited");
}
