//! Sustained throughput under load: calls per second, p50 and p95 at concurrency 8 for 30 s,
//! through the real MCP server (stdio), against `docker run --rm` of the same snippet on the
//! same image at the same concurrency, measured in the same run, phases interleaved. Every
//! answer is checked. Also states the idle memory of the server and its warm pool.
//!
//!     cargo bench --bench load [-- SECONDS]

mod common;

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::sandbox::images;
use common::{median_p95, ms};
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt, object};

const CONCURRENCY: usize = 8;
const SNIPPETS: [(&str, &str, &str); 2] = [
    ("print(1)", "print(1)", "1\n"),
    (
        "pandas sum",
        "import pandas as pd\nprint(pd.DataFrame({'a': [1, 2, 3]})['a'].sum())",
        "6\n",
    ),
];

struct Rate {
    per_second: f64,
    p50: Duration,
    p95: Duration,
}

fn main() {
    let seconds: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(30);
    let window = Duration::from_secs(seconds);
    let image = images::default_image(Language::Python);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let (client, pid) = server().await;
        let client = Arc::new(client);
        // One call of each brings up the sandbox and fills the pools.
        for (_, code, want) in SNIPPETS {
            call(&client, code, want).await;
        }
        tokio::time::sleep(Duration::from_secs(5)).await;
        let (server_kib, pool_mib, pool_count) = idle_memory(pid);
        println!(
            "idle: server {:.1} MiB RSS, warm pool {pool_count} containers {pool_mib:.0} MiB, load {}",
            server_kib as f64 / 1024.0,
            load()
        );
        println!(
            "{:<12} {:<16} {:>8} {:>9} {:>9} {:>8}",
            "snippet", "how", "calls/s", "p50", "p95", "ratio"
        );
        for (name, code, want) in SNIPPETS {
            let docker = docker_rate(&image, code, want, window).await;
            let ours = server_rate(&client, code, want, window).await;
            for (how, r) in [("docker run --rm", &docker), ("MCP server", &ours)] {
                println!(
                    "{name:<12} {how:<16} {:>8.2} {:>7.0}ms {:>7.0}ms {:>7.2}x",
                    r.per_second,
                    ms(r.p50),
                    ms(r.p95),
                    r.per_second / docker.per_second
                );
            }
        }
        println!("load average after: {}", load());
    });
}

async fn server() -> (RunningService<RoleClient, ()>, u32) {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_code-sandbox-mcp"));
    command.args([
        "--max-concurrent",
        &CONCURRENCY.to_string(),
        "--max-queue",
        "64",
    ]);
    let transport = TokioChildProcess::new(command).expect("the server");
    let pid = transport.id().expect("its pid");
    (().serve(transport).await.expect("connected"), pid)
}

async fn call(client: &RunningService<RoleClient, ()>, code: &str, want: &str) {
    let result = client
        .call_tool(
            CallToolRequestParams::new("run_python_code").with_arguments(object!({ "code": code })),
        )
        .await
        .expect("answered");
    assert_eq!(result.is_error, Some(false), "{:?}", result.content);
    assert_eq!(
        result.structured_content.expect("structured")["stdout"],
        want
    );
}

/// `CONCURRENCY` workers calling back to back until `window` has passed.
async fn server_rate(
    client: &Arc<RunningService<RoleClient, ()>>,
    code: &'static str,
    want: &'static str,
    window: Duration,
) -> Rate {
    let started = Instant::now();
    let workers = (0..CONCURRENCY).map(|_| {
        let client = Arc::clone(client);
        tokio::spawn(async move {
            let mut times = Vec::new();
            while started.elapsed() < window {
                let at = Instant::now();
                call(&client, code, want).await;
                times.push(at.elapsed());
            }
            times
        })
    });
    collect(futures_util::future::join_all(workers).await, started)
}

async fn docker_rate(
    image: &str,
    code: &'static str,
    want: &'static str,
    window: Duration,
) -> Rate {
    let started = Instant::now();
    let workers = (0..CONCURRENCY).map(|_| {
        let image = image.to_owned();
        tokio::spawn(async move {
            let mut times = Vec::new();
            while started.elapsed() < window {
                let at = Instant::now();
                let out = tokio::process::Command::new("docker")
                    .args([
                        "run",
                        "--rm",
                        "--network",
                        "none",
                        &image,
                        "python3",
                        "-c",
                        code,
                    ])
                    .output()
                    .await
                    .expect("the docker CLI");
                assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{out:?}");
                times.push(at.elapsed());
            }
            times
        })
    });
    collect(futures_util::future::join_all(workers).await, started)
}

fn collect(workers: Vec<Result<Vec<Duration>, tokio::task::JoinError>>, started: Instant) -> Rate {
    let elapsed = started.elapsed();
    let mut times: Vec<Duration> = workers
        .into_iter()
        .flat_map(|w| w.expect("worker"))
        .collect();
    let (p50, p95) = median_p95(&mut times);
    Rate {
        per_second: times.len() as f64 / elapsed.as_secs_f64(),
        p50,
        p95,
    }
}

/// The server's RSS (KiB), and the memory (MiB) and number of its warm containers.
fn idle_memory(pid: u32) -> (u64, f64, usize) {
    let server = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0);
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let label = format!("label=code-sandbox-mcp.owner={}:{pid}", host.trim());
    let ids = Command::new("docker")
        .args(["ps", "-q", "--filter", &label])
        .output()
        .expect("docker ps");
    let ids: Vec<String> = String::from_utf8_lossy(&ids.stdout)
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    if ids.is_empty() {
        return (server, 0.0, 0);
    }
    let stats = Command::new("docker")
        .args(["stats", "--no-stream", "--format", "{{.MemUsage}}"])
        .args(&ids)
        .output()
        .expect("docker stats");
    let mib: f64 = String::from_utf8_lossy(&stats.stdout)
        .lines()
        .filter_map(|l| {
            let used = l.split('/').next()?.trim();
            let (number, unit) = used.split_at(used.find(|c: char| c.is_alphabetic())?);
            let n: f64 = number.parse().ok()?;
            Some(match unit {
                "GiB" => n * 1024.0,
                "KiB" | "kB" => n / 1024.0,
                _ => n,
            })
        })
        .sum();
    (server, mib, ids.len())
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}
