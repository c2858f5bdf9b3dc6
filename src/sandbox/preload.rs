//! What a runner imports before code arrives. A warm runner that has already imported what a
//! snippet needs answers at once; importing more than it needs makes every container cost
//! more to start (numpy and pandas take about 0.3 s of CPU, matplotlib as much again), which
//! under load is what bounds throughput. So containers come in classes, and each call takes
//! one of the class its caller asks for. The sandbox does not choose: callers derive the class
//! from what they know of the code (the gateway, from the analyzer's imports).

use std::fmt;
use std::str::FromStr;

/// A runner's warm-up, lightest first. A heavier runner runs any code a lighter one runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Preload {
    /// Nothing beyond the interpreter.
    Light,
    /// numpy and pandas, and matplotlib's settings (not pyplot): pandas imports matplotlib
    /// when code plots, and matplotlib reads settings files from the work dir when first
    /// imported, so it is imported before any input file arrives.
    Data,
    /// numpy, pandas and matplotlib (Agg) with pyplot, a figure already drawn once.
    Full,
}

impl Preload {
    pub const ALL: [Preload; 3] = [Preload::Light, Preload::Data, Preload::Full];

    pub fn as_str(self) -> &'static str {
        match self {
            Preload::Light => "light",
            Preload::Data => "data",
            Preload::Full => "full",
        }
    }

    /// Relative memory of a warm runner of this class (Python, idle, measured with `docker
    /// stats`: light 12 MiB, data 59 MiB, full 69 MiB), for sharing the pool's memory budget.
    pub fn weight(self) -> usize {
        match self {
            Preload::Light => 1,
            Preload::Data => 5,
            Preload::Full => 6,
        }
    }
}

impl fmt::Display for Preload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Preload {
    type Err = String;

    fn from_str(text: &str) -> Result<Preload, String> {
        Preload::ALL
            .into_iter()
            .find(|p| p.as_str() == text)
            .ok_or_else(|| format!("unknown runner class `{text}` (expected light, data or full)"))
    }
}
