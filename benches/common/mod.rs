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
