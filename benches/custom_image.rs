//! Warm latency of a team's image against the default image, measured in the same run: the
//! team's image is the default one with a wheel added (`--wheelhouse`), a derived image of one
//! more layer. Calls alternate between the two sandboxes so both see the same machine load;
//! the ratio is the figure (target: 1.0).
//!
//!     cargo bench --bench custom_image [-- docker|podman] [-- ITERATIONS]

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{median_p95, ms};

use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::policy::Limits;
use code_sandbox_mcp::sandbox::{EngineChoice, Extras, Preload, Sandbox, SandboxConfig};

/// Every call goes to the full runner (the pool's one class then), so each call finds a warm
/// container of its class and only the image differs.
const CASES: [(&str, Preload, &str); 2] = [
    ("print(1)", Preload::Full, "print(1)"),
    (
        "pandas describe",
        Preload::Full,
        "import pandas as pd\ndf = pd.DataFrame({'a': range(100), 'b': range(100)})\nprint(df.describe().loc['mean'].sum())",
    ),
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let engine = if args.iter().any(|a| a == "podman") {
        EngineChoice::Podman
    } else {
        EngineChoice::Docker
    };
    let iterations: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(30);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(bench(engine, iterations));
}

async fn bench(engine: EngineChoice, iterations: usize) {
    let wheelhouse = tempfile::tempdir().expect("a temporary directory");
    wheel(wheelhouse.path());
    let config = |wheelhouse: Option<&Path>| SandboxConfig {
        engine: engine.clone(),
        pool_size: 2,
        languages: vec![Language::Python],
        extras: Extras {
            wheelhouse: wheelhouse.map(Path::to_owned),
            npm_packages: None,
        },
        ..Default::default()
    };
    let limits = Limits::default();
    let default = Sandbox::start(&config(None), &limits)
        .await
        .expect("a running engine and the images");
    let custom = Sandbox::start(&config(Some(wheelhouse.path())), &limits)
        .await
        .expect("the derived image");
    println!(
        "{iterations} iterations per case on {engine}, alternating\n  default: {}\n  custom:  {}\n",
        default.image(Language::Python).unwrap_or_default(),
        custom.image(Language::Python).unwrap_or_default()
    );
    println!("{:<34} {:>10} {:>10}", "case", "median", "p95");
    for (name, preload, code) in CASES {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..iterations {
            settle(&[&default, &custom]).await;
            a.push(call(&default, preload, code).await);
            settle(&[&default, &custom]).await;
            b.push(call(&custom, preload, code).await);
        }
        let (am, ap) = median_p95(&mut a);
        let (bm, bp) = median_p95(&mut b);
        for (label, m, p) in [("default image", am, ap), ("custom image", bm, bp)] {
            println!(
                "{:<34} {:>8.1}ms {:>8.1}ms",
                format!("{name}: {label}"),
                ms(m),
                ms(p)
            );
        }
        println!(
            "{:<34} {:>9.2}x\n",
            format!("{name}: custom / default"),
            ms(bm) / ms(am)
        );
    }
    default.shutdown().await;
    custom.shutdown().await;
}

/// Waits until both sandboxes hold every warm container their pools keep, so the call timed
/// next shares the machine with no refill of either.
async fn settle(sandboxes: &[&Sandbox]) {
    for sandbox in sandboxes {
        sandbox
            .wait_warm(usize::MAX, Duration::from_secs(120))
            .await;
    }
}

/// One call on a warm container, timed alone.
async fn call(sandbox: &Sandbox, preload: Preload, code: &str) -> Duration {
    let started = Instant::now();
    let e = sandbox
        .run_class(Language::Python, preload, code, std::future::pending())
        .await
        .expect("run");
    let elapsed = started.elapsed();
    assert_eq!(e.exit_code, Some(0), "{e:?}");
    elapsed
}

/// A pure-Python wheel `benchwheel` 1.0, written with the host's python3.
fn wheel(dir: &Path) {
    let script = format!(
        r#"import zipfile
files = {{
    "benchwheel/__init__.py": "X = 1\n",
    "benchwheel-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: benchwheel\nVersion: 1.0\n",
    "benchwheel-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}}
files["benchwheel-1.0.dist-info/RECORD"] = "".join(p + ",,\n" for p in files) + "benchwheel-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile("{}/benchwheel-1.0-py3-none-any.whl", "w") as z:
    for path, text in sorted(files.items()):
        z.writestr(zipfile.ZipInfo(path, (2020, 1, 1, 0, 0, 0)), text)
"#,
        dir.display()
    );
    let done = Command::new("python3")
        .args(["-c", &script])
        .status()
        .expect("python3");
    assert!(done.success());
}
