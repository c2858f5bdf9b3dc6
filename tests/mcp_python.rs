//! The server driven by the official Python MCP client (`mcp` from PyPI, its ClientSession
//! and Client) and by fastmcp's Client: tools, schemas, annotations, Python and JavaScript
//! runs, a denial, a timeout, check_code under every language name, resources, bad arguments,
//! 20 MB of code over stdio and HTTP, streamable HTTP with and without the bearer token, 20
//! concurrent calls, and no warning from any client. The clients live in
//! tests/mcp/python_client.py; their virtualenv is made on first use under target/ (pip needs
//! the package index).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The Python clients the test drives.
const REQUIREMENTS: &[&str] = &["mcp>=2.3,<3", "fastmcp>=4.1,<5"];

fn venv_python() -> PathBuf {
    // The tests of this file run at once; one makes the virtualenv.
    static MAKING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _making = MAKING.lock().unwrap_or_else(|e| e.into_inner());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let venv = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root.join("target"), PathBuf::from)
        .join("mcp-venv");
    let python = venv.join("bin/python");
    // The marker holds what was installed, so a change of requirements installs again.
    let ready = venv.join(".installed");
    if std::fs::read_to_string(&ready).ok().as_deref() != Some(REQUIREMENTS.join(" ").as_str()) {
        let made = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .expect("python3 is needed for the MCP client tests");
        assert!(
            made.success(),
            "python3 -m venv failed (Debian: apt-get install python3-venv)"
        );
        let installed = Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(REQUIREMENTS)
            .status()
            .unwrap();
        assert!(installed.success(), "pip install {REQUIREMENTS:?} failed");
        std::fs::write(&ready, REQUIREMENTS.join(" ")).unwrap();
    }
    python
}

/// Runs a client script of tests/mcp/ against the server under a policy written from `policy`
/// (YAML), and checks that it succeeded and printed every `ok ...` line in `checks`.
fn run_client_script(script: &str, policy: &str, checks: &[&str]) {
    common::ensure_images();
    let python = venv_python();
    let dir = tempfile::tempdir().unwrap();
    let policy_path = dir.path().join("policy.yaml");
    std::fs::write(&policy_path, policy).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp")
        .join(script);
    let output = Command::new(python)
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_code-sandbox-mcp"))
        .arg(&policy_path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{} failed\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        script.display()
    );
    for check in checks {
        assert!(stdout.contains(check), "missing `{check}` in\n{stdout}");
    }
}

#[test]
fn the_official_python_client_works_end_to_end() {
    run_client_script(
        "python_client.py",
        "name: test-short\nextends: standard\nlimits:\n  timeout: 3s\n",
        &[
            "ok list_tools",
            "ok run_python_code",
            "ok a denied snippet",
            "ok a timeout",
            "ok check_code",
            "ok 20 MB of code over stdio",
            "ok streamable HTTP",
            "ok the Python SDK's Client",
            "ok fastmcp's Client",
            "ok the bearer token",
            "ok a non-loopback",
            "ok 20 concurrent calls",
            "ok no client logged or raised a warning",
        ],
    );
}

/// Figures, files in and out, run files read back, and their owner, with the official client
/// over stdio and HTTP (tests/mcp/files_client.py).
#[test]
fn figures_and_files_travel_with_the_official_python_client() {
    run_client_script(
        "files_client.py",
        "name: test-files\nextends: standard\nlimits:\n  figures: 2\n  files_in: 3\n  files_in_bytes: 64KiB\n",
        &[
            "ok figures come back as PNGs",
            "ok CSV in, pandas chart and CSV out",
            "ok binary files go in as base64",
            "ok JavaScript takes files in",
            "ok bad file entries are errors",
            "ok figures over the limit are reported",
            "ok over HTTP, a run's files are read by its client and refused to another",
        ],
    );
}

/// Sessions with the official client over stdio and HTTP (tests/mcp/sessions_client.py): state
/// kept across calls, judged with what earlier calls bound, isolated between sessions and
/// clients, limits and endings said plainly, no container left behind, and a killed server's
/// session reaped by the next.
#[test]
fn sessions_work_with_the_official_python_client() {
    run_client_script(
        "sessions_client.py",
        "name: test-sessions\nextends: standard\nlimits:\n  timeout: 3s\n",
        &[
            "ok a session keeps a DataFrame across three calls",
            "ok `import os as helper` then `helper.system` is denied like os.system",
            "ok a denied call leaves the session as it was",
            "ok two sessions see nothing of each other",
            "ok wrong tool, unknown and closed ids are clear errors",
            "ok a JavaScript session keeps its declarations",
            "ok a call at the time limit ends the session",
            "ok a call out of memory ends the session",
            "ok --max-sessions is a clear error",
            "ok close_session removes the session's container",
            "ok an idle session expires",
            "ok cancelling a call kills it and ends the session",
            "ok no container is left after the server exits",
            "ok over HTTP, a session is its client's alone",
            "ok the HTTP server leaves no container behind",
            "ok a session's container left by a killed server is reaped at the next start",
        ],
    );
}
