//! Where a container start's time goes: runs `print(1)` (or `console.log(1)`) in containers
//! started one at a time (no warm pool, so every call starts its own) and prints the median
//! and 95th percentile of each phase span the sandbox records (`sandbox.uid`, `.create`,
//! `.attach`, `.start`, `.ready`, `.run`, `.kill`, `.remove`).
//!
//!     cargo run --example phases -- [docker|podman] [runsc] [CALLS] [light|data|full] [python|javascript] [bookworm|trixie|forky]

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::policy::Limits;
use code_sandbox_mcp::sandbox::{EngineChoice, Preload, Recipe, Sandbox, SandboxConfig, Suite};
use tracing::span::{Attributes, Id};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

static TIMES: Mutex<BTreeMap<&'static str, Vec<Duration>>> = Mutex::new(BTreeMap::new());

/// Records how long each span lived, by name.
struct SpanTimes;

struct Opened(Instant);

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> Layer<S> for SpanTimes {
    fn on_new_span(&self, _: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(Opened(Instant::now()));
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(&id)
            && let Some(Opened(at)) = span.extensions().get::<Opened>()
        {
            TIMES
                .lock()
                .unwrap()
                .entry(span.name())
                .or_default()
                .push(at.elapsed());
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let engine = if args.iter().any(|a| a == "podman") {
        EngineChoice::Podman
    } else {
        EngineChoice::Docker
    };
    let runtime = args
        .iter()
        .any(|a| a == "runsc")
        .then(|| "runsc".to_owned());
    let calls: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(10);
    let preload = args
        .iter()
        .find_map(|a| a.parse::<Preload>().ok())
        .unwrap_or(Preload::Full);
    let suite = args.iter().find_map(|a| a.parse::<Suite>().ok());
    let language = args
        .iter()
        .find_map(|a| a.parse::<Language>().ok())
        .unwrap_or(Language::Python);
    let code = match language {
        Language::Python => "print(1)",
        Language::JavaScript => "console.log(1)",
    };
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(SpanTimes))
        .expect("subscriber");
    let config = SandboxConfig {
        engine,
        pool_size: 0,
        languages: vec![language],
        recipe: Recipe {
            suite,
            ..Recipe::default()
        },
        ..Default::default()
    };
    let limits = Limits {
        runtime,
        ..Limits::default()
    };
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let image = rt.block_on(async {
        let sandbox = Sandbox::start(&config, &limits).await.expect("sandbox");
        for _ in 0..calls {
            let e = sandbox
                .run_class(language, preload, code, std::future::pending())
                .await
                .expect("run");
            assert_eq!((e.stdout.as_str(), e.exit_code), ("1\n", Some(0)), "{e:?}");
        }
        let image = format!(
            "{} ({})",
            sandbox.image(language).unwrap_or_default(),
            sandbox
                .manifest(language)
                .map_or("?".into(), |m| m.runtime())
        );
        sandbox.shutdown().await;
        image
    });
    println!(
        "{calls} calls, {preload} runner, image {image}, {} suite, load {}",
        config.recipe.suite(language),
        load()
    );
    println!("{:<20} {:>9} {:>9}", "phase", "median", "p95");
    for (name, times) in TIMES.lock().unwrap().iter_mut() {
        times.sort();
        let p95 = times[(times.len() * 95).div_ceil(100).saturating_sub(1)];
        println!(
            "{name:<20} {:>7.1}ms {:>7.1}ms",
            times[times.len() / 2].as_secs_f64() * 1e3,
            p95.as_secs_f64() * 1e3
        );
    }
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}
