//! Tool-call latency of `print(1)` through the MCP server over stdio, from rmcp's client:
//! median and p95 of sequential calls, and calls per second at concurrency 4, against
//! `docker run --rm` of the same snippet on the same image, measured in the same run; and
//! `print(1)` as a call in a session (`open_session`, then `session_id`), against the
//! single-use calls of the same run; a run that returns one simple figure; and a 1 MiB file
//! sent in, copied by the code and read back out through `resources/read`.
//!
//!     cargo bench --bench mcp_latency [-- CALLS]

mod common;

use common::{median_p95, ms};
use std::time::{Duration, Instant};

use base64::Engine;
use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::sandbox::images;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::object;
use rmcp::transport::TokioChildProcess;

fn main() {
    let calls: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(40);
    tokio::runtime::Runtime::new()
        .expect("runtime")
        .block_on(bench(calls));
}

async fn bench(calls: usize) {
    let server = env!("CARGO_BIN_EXE_code-sandbox-mcp");
    let mut command = tokio::process::Command::new(server);
    command.args(["--pool-size", "4", "--max-concurrent", "4"]);
    let client =
        ().serve(TokioChildProcess::new(command).expect("server"))
            .await
            .expect("handshake");
    let call = || async {
        let request = CallToolRequestParams::new("run_python_code")
            .with_arguments(object!({ "code": "print(1)" }));
        let result = client.call_tool(request).await.expect("call");
        assert_eq!(
            result.structured_content.expect("structured")["stdout"],
            "1\n"
        );
    };
    // Warm up: the first call waits for the pool to fill.
    call().await;
    tokio::time::sleep(Duration::from_secs(3)).await;

    let mut sequential = Vec::new();
    for _ in 0..calls {
        tokio::time::sleep(Duration::from_millis(400)).await; // let the pool refill between calls
        let started = Instant::now();
        call().await;
        sequential.push(started.elapsed());
    }
    let started = Instant::now();
    let mut done = 0;
    while done < calls {
        let batch = 4.min(calls - done);
        futures_util::future::join_all((0..batch).map(|_| call())).await;
        done += batch;
    }
    let concurrent_rate = calls as f64 / started.elapsed().as_secs_f64();

    let opened = client
        .call_tool(
            CallToolRequestParams::new("open_session")
                .with_arguments(object!({ "language": "python" })),
        )
        .await
        .expect("open_session");
    let session_id = opened.structured_content.expect("structured")["session_id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let mut in_session = Vec::new();
    for _ in 0..calls {
        let request = CallToolRequestParams::new("run_python_code")
            .with_arguments(object!({ "code": "print(1)", "session_id": session_id.clone() }));
        let started = Instant::now();
        let result = client.call_tool(request).await.expect("call");
        in_session.push(started.elapsed());
        assert_eq!(
            result.structured_content.expect("structured")["stdout"],
            "1\n"
        );
    }
    let mut figure = Vec::new();
    for _ in 0..calls {
        tokio::time::sleep(Duration::from_millis(400)).await;
        let request = CallToolRequestParams::new("run_python_code").with_arguments(object!({
            "code": "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\n"
        }));
        let started = Instant::now();
        let result = client.call_tool(request).await.expect("call");
        figure.push(started.elapsed());
        let images = result
            .content
            .iter()
            .filter(|c| c.as_image().is_some())
            .count();
        assert_eq!(images, 1, "one figure as image content: {result:?}");
    }

    const MIB: usize = 1 << 20;
    let payload: Vec<u8> = (0..MIB).map(|i| (i * 7 % 251) as u8).collect();
    let encoded = base64::engine::general_purpose::STANDARD.encode(&payload);
    let mut round_trip = Vec::new();
    for _ in 0..calls {
        tokio::time::sleep(Duration::from_millis(400)).await;
        let request = CallToolRequestParams::new("run_python_code").with_arguments(object!({
            "code": "import shutil\nshutil.copy('in.bin', 'out.bin')\n",
            "files": [{ "path": "in.bin", "content": encoded.clone(), "encoding": "base64" }]
        }));
        let started = Instant::now();
        let result = client.call_tool(request).await.expect("call");
        let structured = result.structured_content.expect("structured");
        let file = structured["files"]
            .as_array()
            .and_then(|files| files.iter().find(|f| f["path"] == "out.bin"))
            .unwrap_or_else(|| panic!("out.bin listed: {structured}"));
        let uri = file["uri"].as_str().expect("a uri").to_owned();
        let read = client
            .read_resource(rmcp::model::ReadResourceRequestParams::new(uri))
            .await
            .expect("resources/read");
        round_trip.push(started.elapsed());
        let back = match &read.contents[0] {
            rmcp::model::ResourceContents::BlobResourceContents { blob, .. } => {
                base64::engine::general_purpose::STANDARD
                    .decode(blob)
                    .expect("base64")
            }
            other => panic!("a blob: {other:?}"),
        };
        assert!(back == payload, "the file came back unchanged");
    }
    client.cancel().await.ok();

    let image = images::default_image(Language::Python);
    let mut docker = common::docker_run_times(&image, "print(1)", calls.min(15));
    let (m, p) = median_p95(&mut sequential);
    let (dm, dp) = median_p95(&mut docker);
    println!(
        "MCP tool call print(1) over stdio: median {:.1} ms, p95 {:.1} ms ({calls} calls)",
        ms(m),
        ms(p)
    );
    println!(
        "docker run --rm print(1):          median {:.1} ms, p95 {:.1} ms",
        ms(dm),
        ms(dp)
    );
    println!("ratio (median):                    {:.1}x", ms(dm) / ms(m));
    println!("concurrency 4, pool of 4:          {concurrent_rate:.1} calls/s");
    let (sm, sp) = median_p95(&mut in_session);
    println!(
        "print(1) in a session:             median {:.1} ms, p95 {:.1} ms ({:.2}x the single-use median)",
        ms(sm),
        ms(sp),
        ms(sm) / ms(m)
    );
    let (fm, fp) = median_p95(&mut figure);
    println!(
        "one figure back as image/png:      median {:.1} ms, p95 {:.1} ms",
        ms(fm),
        ms(fp)
    );
    let (rm, rp) = median_p95(&mut round_trip);
    println!(
        "1 MiB file in, copied, read back:  median {:.1} ms, p95 {:.1} ms",
        ms(rm),
        ms(rp)
    );
}
