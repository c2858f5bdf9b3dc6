//! Statistics shared by the benchmark programs.

use std::process::Command;
use std::time::{Duration, Instant};

/// Median and 95th percentile; sorts the samples.
pub fn median_p95(samples: &mut [Duration]) -> (Duration, Duration) {
    samples.sort();
    let p95 = ((samples.len() as f64 * 0.95).ceil() as usize)
        .saturating_sub(1)
        .min(samples.len() - 1);
    (samples[samples.len() / 2], samples[p95])
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Wall-clock times of `docker run --rm` running `code` with `python3 -c` on `image`: the
/// baseline every warm-pool figure is compared with.
#[allow(dead_code)]
pub fn docker_run_times(image: &str, code: &str, runs: usize) -> Vec<Duration> {
    (0..runs)
        .map(|_| {
            let started = Instant::now();
            let out = Command::new("docker")
                .args([
                    "run",
                    "--rm",
                    "--network",
                    "none",
                    image,
                    "python3",
                    "-c",
                    code,
                ])
                .output()
                .expect("the docker CLI");
            assert!(
                out.status.success(),
                "docker run failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            started.elapsed()
        })
        .collect()
}

/// Times of `iterations` calls of `code` on a warm container of class `preload` each (the
/// class the gateway gives the code). Before every call the pool is given time to hold every
/// container it means to keep, of every class, so only the call is timed, not a refill that
/// shares the CPU with it. Each run must exit 0.
#[allow(dead_code)]
pub async fn warm_call_times(
    sandbox: &code_sandbox_mcp::sandbox::Sandbox,
    preload: code_sandbox_mcp::sandbox::Preload,
    code: &str,
    iterations: usize,
) -> Vec<Duration> {
    let mut times = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        sandbox
            .wait_warm(usize::MAX, Duration::from_secs(120))
            .await;
        let started = Instant::now();
        let e = sandbox
            .run_class(
                code_sandbox_mcp::analysis::Language::Python,
                preload,
                code,
                std::future::pending(),
            )
            .await
            .expect("run");
        times.push(started.elapsed());
        assert_eq!(e.exit_code, Some(0), "{e:?}");
    }
    times
}

/// Calls per second of `calls` back-to-back runs of `code`: the pool refills only as fast as
/// the engine starts and warms containers.
#[allow(dead_code)]
pub async fn back_to_back_rate(
    sandbox: &code_sandbox_mcp::sandbox::Sandbox,
    preload: code_sandbox_mcp::sandbox::Preload,
    code: &str,
    calls: usize,
) -> f64 {
    let started = Instant::now();
    for _ in 0..calls {
        sandbox
            .run_class(
                code_sandbox_mcp::analysis::Language::Python,
                preload,
                code,
                std::future::pending(),
            )
            .await
            .expect("run");
    }
    calls as f64 / started.elapsed().as_secs_f64()
}
