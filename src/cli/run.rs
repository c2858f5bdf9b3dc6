//! `code-sandbox-mcp run FILE|-`: one snippet through the whole pipeline, at a terminal.
//! The program's stdout and stderr become ours, findings go to stderr, and the exit status
//! mirrors the program's, except for the outcomes that have their own status below.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use base64::Engine as _;
use clap::Args;
use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::gateway::{Gateway, RunReport};
use code_sandbox_mcp::policy::{Action, Policy, Verdict};
use code_sandbox_mcp::sandbox::LazySandbox;
use code_sandbox_mcp::visible::visible;
use code_sandbox_mcp::workdir::{self, Encoding, FileEntry, InputFile};

use super::{EXIT_SANDBOX_ERROR, SandboxArgs};

/// The policy denied the code; nothing ran ("cannot execute", as shells use it).
pub const EXIT_DENIED: u8 = 126;
/// The wall-clock limit was reached, as `timeout(1)` reports it.
pub const EXIT_TIMED_OUT: u8 = 124;
/// The memory limit was reached (128 + SIGKILL, as shells report a killed program).
pub const EXIT_OOM_KILLED: u8 = 137;
/// The program wrote so far past the output limit that it was killed: 128 + SIGPIPE, as
/// shells report a program whose reader stopped reading.
pub const EXIT_KILLED_FOR_OUTPUT: u8 = 141;

#[derive(Args)]
pub struct RunArgs {
    /// The snippet: a file, or `-` for stdin.
    pub file: String,
    /// Language (default: from the file's extension; python for stdin).
    #[arg(long, short)]
    pub language: Option<Language>,
    /// Print the structured result as JSON instead of the program's output.
    #[arg(long)]
    pub json: bool,
    /// A file to put in the work dir before the code runs, under its own name (`--file
    /// data.csv` is `data.csv` there). Repeatable.
    #[arg(long = "file", value_name = "PATH")]
    pub files: Vec<PathBuf>,
    /// Write the figures (figure-1.png, ...) and the files the run created or changed into DIR.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

pub async fn run(sandbox_args: &SandboxArgs, args: &RunArgs) -> ExitCode {
    match run_inner(sandbox_args, args).await {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_SANDBOX_ERROR)
        }
    }
}

async fn run_inner(sandbox_args: &SandboxArgs, args: &RunArgs) -> Result<ExitCode, String> {
    let policy = sandbox_args.load_policy()?;
    let (code, language) = read_snippet(args)?;
    let code = String::from_utf8(code).map_err(|e| {
        format!(
            "{}: not valid UTF-8 at byte {}; snippets are UTF-8 text",
            args.file,
            e.utf8_error().valid_up_to()
        )
    })?;
    let files = read_inputs(&args.files, &policy)?;
    // One snippet: no warm pool, a container of its own.
    let config = sandbox_args.config(vec![language], 0)?;
    let engine = config.engine.clone();
    let sandbox = LazySandbox::new(config, policy.limits.clone());
    let gateway = Gateway { policy, sandbox };
    // Judge first: a denied snippet needs no engine at all (unless the policy requires
    // allowed modules to be installed: then the image's manifest is read first).
    let (judgement, runner) = match gateway.assess(language, &code).await {
        Ok(assessed) => assessed,
        Err(e) => {
            gateway.sandbox.shutdown().await;
            let _ = super::engine_probe::spawn(engine).await;
            return Err(e.to_string());
        }
    };
    if judgement.verdict == Verdict::Deny {
        gateway.sandbox.shutdown().await;
        let report = RunReport::denied(judgement);
        emit(&report, args, &code);
        return Ok(ExitCode::from(EXIT_DENIED));
    }
    let probe = super::engine_probe::spawn(engine);
    let interrupted = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let result = gateway
        .run_judged(language, &code, &files, judgement, runner, interrupted)
        .await;
    gateway.sandbox.shutdown().await;
    if result.is_err() {
        // Its warning, with the fix, belongs before the error it explains.
        let _ = probe.await;
    }
    let report = result.map_err(|e| e.to_string())?;
    emit(&report, args, &code);
    for o in &report.omitted {
        eprintln!(
            "code-sandbox-mcp: not returned: {:?} {}: {}",
            o.kind, o.path, o.reason
        );
    }
    if let Some(dir) = &args.out {
        write_outputs(&report, dir)?;
    } else if !report.figures.is_empty() || !report.files.is_empty() {
        eprintln!(
            "code-sandbox-mcp: the run returned {} figure(s) and {} file(s); pass --out DIR to keep them",
            report.figures.len(),
            report.files.len()
        );
    }
    let e = &report.execution;
    Ok(if e.timed_out {
        ExitCode::from(EXIT_TIMED_OUT)
    } else if e.oom_killed {
        ExitCode::from(EXIT_OOM_KILLED)
    } else if e.killed_for_output {
        ExitCode::from(EXIT_KILLED_FOR_OUTPUT)
    } else {
        ExitCode::from(e.exit_code.map_or(EXIT_SANDBOX_ERROR, |c| (c & 0xff) as u8))
    })
}

/// The `--file` inputs, checked as the run tools check theirs.
fn read_inputs(paths: &[PathBuf], policy: &Policy) -> Result<Vec<InputFile>, String> {
    let mut entries = Vec::with_capacity(paths.len());
    for path in paths {
        let content =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| format!("--file {}: the file needs a UTF-8 name", path.display()))?;
        entries.push(FileEntry {
            path: name.to_owned(),
            content: base64::engine::general_purpose::STANDARD.encode(content),
            encoding: Encoding::Base64,
        });
    }
    workdir::decode(&entries, &policy.limits)
        .and_then(|files| policy.check_input_files(&files).map(|()| files))
        .map_err(|e| format!("--file {}: {}", paths[e.index].display(), e.problem))
}

/// `--out DIR`: the figures as figure-N.png, the files at their paths, each named on stderr.
fn write_outputs(report: &RunReport, dir: &Path) -> Result<(), String> {
    let outputs = &report.execution.outputs;
    let write = |relative: &str, data: &[u8]| -> Result<(), String> {
        let target = dir.join(relative);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        std::fs::write(&target, data)
            .map_err(|e| format!("cannot write {}: {e}", target.display()))?;
        eprintln!("code-sandbox-mcp: wrote {}", target.display());
        Ok(())
    };
    for (i, figure) in outputs.figures.iter().enumerate() {
        write(&format!("figure-{}.png", i + 1), &figure.png)?;
    }
    for file in &outputs.files {
        write(&file.path, &file.content)?;
    }
    Ok(())
}

fn read_snippet(args: &RunArgs) -> Result<(Vec<u8>, Language), String> {
    if args.file == "-" {
        let mut code = Vec::new();
        std::io::stdin()
            .read_to_end(&mut code)
            .map_err(|e| format!("reading stdin: {e}"))?;
        return Ok((code, args.language.unwrap_or(Language::Python)));
    }
    let path = Path::new(&args.file);
    let language = args
        .language
        .or_else(|| Language::from_path(path))
        .ok_or_else(|| format!("cannot tell the language of {}\n  hint: pass --language python or --language javascript", args.file))?;
    let code = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", args.file))?;
    Ok((code, language))
}

fn emit(report: &RunReport, args: &RunArgs, code: &str) {
    if args.json {
        let json = serde_json::to_string_pretty(report).expect("reports serialize");
        let _ = writeln!(std::io::stdout().lock(), "{json}");
        return;
    }
    let mut err = std::io::stderr().lock();
    for f in &report.findings {
        let label = match f.action {
            Action::Deny => "denied",
            Action::Warn => "warning",
            Action::Audit => "audit",
        };
        let line = code
            .lines()
            .nth(f.line.saturating_sub(1))
            .unwrap_or("")
            .trim();
        let _ = writeln!(
            err,
            "code-sandbox-mcp: {label} [{}] {}:{}:{}: {}\n    {line}\n    {}",
            f.rule, args.file, f.line, f.column, f.detail, f.message
        );
    }
    if !report.ran {
        let _ = writeln!(
            err,
            "code-sandbox-mcp: the policy denied this code; nothing ran"
        );
        return;
    }
    let e = &report.execution;
    // Hidden and display-changing characters shown as <U+XXXX>; `--json` keeps them.
    let _ = std::io::stdout()
        .lock()
        .write_all(visible(&e.stdout).as_bytes());
    let _ = err.write_all(visible(&e.stderr).as_bytes());
    if e.stdout_truncated || e.stderr_truncated {
        let _ = writeln!(
            err,
            "code-sandbox-mcp: output exceeded the policy's output limit and was truncated"
        );
    }
    if e.timed_out {
        let _ = writeln!(
            err,
            "code-sandbox-mcp: killed after the policy's time limit"
        );
    }
    if e.oom_killed {
        let _ = writeln!(
            err,
            "code-sandbox-mcp: killed for exceeding the policy's memory limit"
        );
    }
    if e.killed_for_output {
        let _ = writeln!(
            err,
            "code-sandbox-mcp: killed for writing far more output than the policy's output limit"
        );
    }
}
