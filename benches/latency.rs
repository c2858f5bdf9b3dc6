//! End-to-end latency of the execution engine with a warm pool, against `docker run --rm` of
//! the same snippets on the same image, measured in the same run (absolute times on a shared
//! machine are noise; the ratios hold). Needs a running Docker Engine and the images.
//!
//!     cargo bench --bench latency [-- ITERATIONS]

mod common;

use common::{median_p95, ms};

use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::policy::Limits;
use code_sandbox_mcp::sandbox::{Preload, Sandbox, SandboxConfig, images};

const PRINT: &str = "print(1)";
const PANDAS: &str = "import pandas as pd\ndf = pd.DataFrame({'a': range(100), 'b': range(100)})\nprint(df.describe().loc['mean'].sum())";

fn main() {
    let iterations: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(30);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(bench(iterations));
}

async fn bench(iterations: usize) {
    let config = SandboxConfig {
        pool_size: 2,
        languages: vec![Language::Python],
        ..Default::default()
    };
    let sandbox = Sandbox::start(&config, &Limits::default())
        .await
        .expect("a running engine and the images");
    let image = images::default_image(Language::Python);
    println!("{iterations} iterations per case, image {image}\n");
    println!("{:<34} {:>10} {:>10}", "case", "median", "p95");
    for (name, preload, code) in [
        ("print(1)", Preload::Light, PRINT),
        ("pandas describe", Preload::Data, PANDAS),
    ] {
        let mut warm = common::warm_call_times(&sandbox, preload, code, iterations).await;
        let mut cold = common::docker_run_times(&image, code, iterations.min(15));
        let (wm, wp) = median_p95(&mut warm);
        let (cm, cp) = median_p95(&mut cold);
        println!(
            "{:<34} {:>8.1}ms {:>8.1}ms",
            format!("{name}: warm pool"),
            ms(wm),
            ms(wp)
        );
        println!(
            "{:<34} {:>8.1}ms {:>8.1}ms",
            format!("{name}: docker run --rm"),
            ms(cm),
            ms(cp)
        );
        println!(
            "{:<34} {:>9.1}x\n",
            format!("{name}: ratio (median)"),
            ms(cm) / ms(wm)
        );
    }
    // Sustained: back-to-back calls, the pool refilling as fast as the engine creates containers.
    let per_second = common::back_to_back_rate(&sandbox, Preload::Light, PRINT, iterations).await;
    println!("sustained print(1), one caller: {per_second:.1} calls/s");
    sandbox.shutdown().await;
}
