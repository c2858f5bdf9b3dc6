//! Statistics shared by the benchmark programs.

use std::time::Duration;

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
