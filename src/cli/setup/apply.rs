//! Carrying out one planned step. Each either completes (an engine it starts answers, a
//! runtime it registers is listed) or fails with what went wrong and where to look.

use std::fs::OpenOptions;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use bollard::query_parameters::ImportImageOptionsBuilder;
use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::sandbox::{Engine, images};
use futures_util::StreamExt;

use super::config_files::{self, ConfigRoot};
use super::host::{EngineName, find_program};
use super::plan::{DOCKERD_LOG, PODMAN_LOG, PODMAN_SERVICE_DIR, Step, systemd_unit};

/// How long a started engine may take to answer (dockerd's first start sets up its storage).
const START_TIMEOUT: Duration = Duration::from_secs(90);
/// How long a reloaded Docker may take to list runsc.
const RELOAD_TIMEOUT: Duration = Duration::from_secs(30);
const POLL: Duration = Duration::from_millis(250);

pub struct Context<'a> {
    pub root: &'a ConfigRoot,
    pub mirror: Option<&'a str>,
}

pub async fn apply(step: &Step, cx: &Context<'_>) -> Result<(), String> {
    match step {
        Step::Install(needs) => {
            let packages: Vec<&str> = needs.iter().map(|n| n.package).collect();
            run(Command::new("apt-get").args(["update", "-q"]))?;
            run(Command::new("apt-get")
                .args(["install", "-y", "-q", "--no-install-recommends"])
                .args(&packages))
        }
        Step::RegisterRunsc { path, text, .. } | Step::WritePodmanConf { path, text, .. } => {
            config_files::write(path, text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
        Step::Start {
            engine,
            systemd: true,
            ..
        } => {
            run(Command::new("systemctl").args(["start", systemd_unit(*engine)]))?;
            wait_until_answers(
                *engine,
                None,
                &format!("journalctl -u {}", systemd_unit(*engine)),
            )
            .await
        }
        Step::Start {
            engine,
            systemd: false,
            ..
        } => start_in_background(*engine, cx.root).await,
        Step::ReloadDocker => {
            let pid = dockerd_pid()?;
            run(Command::new("sh").args(["-c", "kill -HUP \"$1\"", "sh", &pid]))?;
            wait_for_runsc(&cx.root.log(DOCKERD_LOG).display().to_string()).await
        }
        Step::BuildImages { engine, .. } => build_images(*engine, cx.mirror).await,
    }
}

/// Runs a command with its output shown, as the step announced it.
fn run(command: &mut Command) -> Result<(), String> {
    let shown = format!("{command:?}").replace('"', "");
    println!("  $ {shown}");
    let status = command
        .env("DEBIAN_FRONTEND", "noninteractive")
        .stdin(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run `{shown}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "`{shown}` failed ({status}); its messages are above"
        ))
    }
}

/// Starts an engine as a daemon of its own session (`setsid`), so it outlives setup and no
/// signal meant for setup's terminal reaches it, logging to a file under /var/log.
async fn start_in_background(engine: EngineName, root: &ConfigRoot) -> Result<(), String> {
    let (program, args, dir, log): (&str, &[&str], &str, _) = match engine {
        EngineName::Docker => ("dockerd", &[], "/", root.log(DOCKERD_LOG)),
        EngineName::Podman => (
            "podman",
            &["system", "service", "--time=0", EngineName::Podman.socket()],
            PODMAN_SERVICE_DIR,
            root.log(PODMAN_LOG),
        ),
    };
    let program = find_program(program).ok_or_else(|| {
        format!("{program} is not installed (the install step should have installed it)")
    })?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {dir}: {e}"))?;
    if let Some(parent) = log.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    let output = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .map_err(|e| format!("cannot open {}: {e}", log.display()))?;
    let errors = output
        .try_clone()
        .map_err(|e| format!("cannot open {}: {e}", log.display()))?;
    let command_line = std::iter::once(program.display().to_string())
        .chain(args.iter().map(|a| (*a).to_owned()))
        .collect::<Vec<_>>()
        .join(" ");
    println!(
        "  $ cd {dir} && setsid {command_line} >> {} 2>&1 < /dev/null &",
        log.display()
    );
    let child = Command::new("setsid")
        .arg(&program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(output)
        .stderr(errors)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    wait_until_answers(engine, Some(child), &log.display().to_string()).await
}

/// Waits until the engine answers at its socket; fails early if the daemon exits.
async fn wait_until_answers(
    engine: EngineName,
    mut child: Option<Child>,
    log: &str,
) -> Result<(), String> {
    let started = Instant::now();
    loop {
        let last = match engine.connect().await {
            Ok(found) => {
                println!(
                    "  {} {} answers at {} after {:.1} s",
                    found.kind,
                    found.version,
                    engine.socket(),
                    started.elapsed().as_secs_f64()
                );
                return Ok(());
            }
            Err(e) => e,
        };
        if let Some(status) = child.as_mut().and_then(|c| c.try_wait().ok().flatten()) {
            return Err(format!(
                "{} exited ({status}) before answering{}",
                engine.label(),
                log_tail(log)
            ));
        }
        if started.elapsed() > START_TIMEOUT {
            return Err(format!(
                "{} did not answer at {} within {} s ({last}){}",
                engine.label(),
                engine.socket(),
                START_TIMEOUT.as_secs(),
                log_tail(log)
            ));
        }
        tokio::time::sleep(POLL).await;
    }
}

/// The end of a daemon's log file, to show why it failed (or where to look if it is a command).
fn log_tail(log: &str) -> String {
    match std::fs::read_to_string(log) {
        Ok(text) => {
            let lines: Vec<&str> = text.lines().collect();
            let tail = lines[lines.len().saturating_sub(20)..].join("\n    ");
            format!("; the end of {log}:\n    {tail}")
        }
        Err(_) => format!("; see `{log}`"),
    }
}

/// dockerd's pid, from its pid file, else by name.
fn dockerd_pid() -> Result<String, String> {
    if let Ok(pid) = std::fs::read_to_string("/var/run/docker.pid") {
        let pid = pid.trim();
        if !pid.is_empty() && Path::new(&format!("/proc/{pid}")).exists() {
            return Ok(pid.to_owned());
        }
    }
    let output = Command::new("pidof")
        .arg("dockerd")
        .output()
        .map_err(|e| format!("cannot find dockerd's pid: {e}"))?;
    String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .next()
        .map(str::to_owned)
        .ok_or_else(|| "Docker answers but no dockerd process was found to reload; reload it the way it was started".to_owned())
}

async fn wait_for_runsc(log: &str) -> Result<(), String> {
    let started = Instant::now();
    loop {
        if let Ok(engine) = EngineName::Docker.connect().await
            && let Ok(runtimes) = engine.runtimes().await
            && runtimes.iter().any(|r| r.is_gvisor() && r.installed)
        {
            println!("  Docker lists runsc");
            return Ok(());
        }
        if started.elapsed() > RELOAD_TIMEOUT {
            return Err(format!(
                "Docker did not list runsc within {} s of the reload; its log says why ({log} when setup started it, else `journalctl -u docker`)",
                RELOAD_TIMEOUT.as_secs(),
            ));
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Builds the images the engine lacks, each from its embedded recipe, or copies one from the
/// other engine when that has it: the tag is the recipe's digest, so it is the same image,
/// and a copy takes seconds where mmdebstrap takes a minute or more.
async fn build_images(engine: EngineName, mirror: Option<&str>) -> Result<(), String> {
    let target: Engine = engine.connect().await?;
    let other = match engine {
        EngineName::Docker => EngineName::Podman,
        EngineName::Podman => EngineName::Docker,
    };
    let source = other.connect().await.ok();
    for language in Language::ALL {
        let image = images::default_image(language);
        if exists(&target, &image).await? {
            println!("  {image} is already built for {}", engine.label());
            continue;
        }
        if let Some(source) = &source
            && exists(source, &image).await?
        {
            match copy_image(source, &target, &image).await {
                Ok(()) => continue,
                Err(e) => println!("  the copy failed ({e}); building it instead"),
            }
        }
        images::build(&target, language, &images::Recipe::default(), mirror)
            .await
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

async fn exists(engine: &Engine, image: &str) -> Result<bool, String> {
    images::exists(engine, image)
        .await
        .map_err(|e| e.to_string())
}

/// Streams `image` from one engine's export into the other's load (`docker save | podman
/// load`, through their APIs).
async fn copy_image(from: &Engine, to: &Engine, image: &str) -> Result<(), String> {
    let started = Instant::now();
    println!(
        "  copying {image} from {} into {} (same recipe, same image: no second build)",
        from.kind, to.kind
    );
    let options = ImportImageOptionsBuilder::new().quiet(true).build();
    let mut load = to
        .docker
        .import_image_stream(options, from.docker.export_image(image), None);
    while let Some(item) = load.next().await {
        item.map_err(|e| e.to_string())?;
    }
    if !exists(to, image).await? {
        return Err(format!("{} did not list {image} after loading it", to.kind));
    }
    println!(
        "  copied {image} in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
