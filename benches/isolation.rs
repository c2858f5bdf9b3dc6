//! What each isolation level costs: the warm-path latency of `print(1)` under Docker with
//! runc, Docker with gVisor (runsc) and Podman with runc, with `docker run --rm` of the same
//! snippet as the baseline, all in one run. It also times a container's start to ready (what
//! refilling the pool costs) and back-to-back calls. Needs both engines, runsc registered with
//! Docker, and the images on both (`.ci/run` sets all of this up).
//!
//!     cargo bench --bench isolation [-- ITERATIONS]

mod common;

use common::{median_p95, ms};
use std::time::{Duration, Instant};

use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::policy::Limits;
use code_sandbox_mcp::sandbox::{EngineChoice, Preload, Sandbox, SandboxConfig, images};

const PRINT: &str = "print(1)";

struct Level {
    name: &'static str,
    engine: EngineChoice,
    runtime: Option<&'static str>,
}

const LEVELS: [Level; 3] = [
    Level {
        name: "Docker, runc",
        engine: EngineChoice::Docker,
        runtime: None,
    },
    Level {
        name: "Docker, gVisor (runsc)",
        engine: EngineChoice::Docker,
        runtime: Some("runsc"),
    },
    Level {
        name: "Podman, runc",
        engine: EngineChoice::Podman,
        runtime: None,
    },
];

struct Measured {
    warm: Duration,
    warm_p95: Duration,
    ready: Duration,
    per_second: f64,
}

fn main() {
    let iterations: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(30);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let image = images::default_image(Language::Python);
    println!("{iterations} iterations per level, print(1), image {image}\n");
    let mut results = Vec::new();
    for level in &LEVELS {
        results.push(runtime.block_on(measure(level, iterations)));
    }
    let mut cold = common::docker_run_times(&image, PRINT, iterations.min(15));
    let (cold_median, cold_p95) = median_p95(&mut cold);

    println!(
        "{:<24} {:>9} {:>9} {:>10} {:>11} {:>9} {:>11}",
        "level", "median", "p95", "vs runc", "vs dkr run", "ready", "calls/s"
    );
    let runc = results[0].warm;
    for (level, m) in LEVELS.iter().zip(&results) {
        println!(
            "{:<24} {:>7.1}ms {:>7.1}ms {:>9.2}x {:>10.1}x {:>7.0}ms {:>11.1}",
            level.name,
            ms(m.warm),
            ms(m.warm_p95),
            ms(m.warm) / ms(runc),
            ms(cold_median) / ms(m.warm),
            ms(m.ready),
            m.per_second
        );
    }
    println!(
        "{:<24} {:>7.1}ms {:>7.1}ms {:>9.2}x",
        "docker run --rm (runc)",
        ms(cold_median),
        ms(cold_p95),
        ms(cold_median) / ms(runc)
    );
}

async fn measure(level: &Level, iterations: usize) -> Measured {
    let config = SandboxConfig {
        engine: level.engine.clone(),
        pool_size: 2,
        languages: vec![Language::Python],
        ..Default::default()
    };
    let limits = Limits {
        runtime: level.runtime.map(str::to_owned),
        ..Limits::default()
    };
    let started = Instant::now();
    let sandbox = Sandbox::start(&config, &limits)
        .await
        .unwrap_or_else(|e| panic!("{}: {e}", level.name));
    assert!(
        sandbox.wait_warm(1, Duration::from_secs(120)).await,
        "{}: no warm container",
        level.name
    );
    let ready = started.elapsed();
    let first = sandbox
        .run_class(
            Language::Python,
            Preload::Light,
            PRINT,
            std::future::pending(),
        )
        .await
        .expect("run");
    assert_eq!(
        (first.stdout.as_str(), first.exit_code),
        ("1\n", Some(0)),
        "{first:?}"
    );
    let mut warm = common::warm_call_times(&sandbox, Preload::Light, PRINT, iterations).await;
    let (median, p95) = median_p95(&mut warm);
    let per_second =
        common::back_to_back_rate(&sandbox, Preload::Light, PRINT, iterations.min(15)).await;
    sandbox.shutdown().await;
    Measured {
        warm: median,
        warm_p95: p95,
        ready,
        per_second,
    }
}
