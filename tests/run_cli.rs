//! `code-sandbox-mcp run` and `doctor` as a user runs them: the real binary, real containers.

mod common;

use assert_cmd::Command;
use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;

fn gateway() -> Command {
    Command::cargo_bin("code-sandbox-mcp").unwrap()
}

fn snippet(dir: &tempfile::TempDir, name: &str, code: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, code).unwrap();
    path.display().to_string()
}

#[test]
fn output_and_exit_status_are_the_programs() {
    common::ensure_images();
    let dir = tempfile::tempdir().unwrap();
    let file = snippet(
        &dir,
        "job.py",
        "import sys\nprint('to stdout')\nprint('to stderr', file=sys.stderr)\nsys.exit(7)\n",
    );
    gateway()
        .args(["run", &file])
        .assert()
        .code(7)
        .stdout("to stdout\n")
        .stderr(contains("to stderr"));
    gateway()
        .args(["run", "-", "--language", "javascript"])
        .write_stdin("console.log(6 * 7)")
        .assert()
        .code(0)
        .stdout("42\n");
}

#[test]
fn each_outcome_has_its_own_status() {
    common::ensure_images();
    let dir = tempfile::tempdir().unwrap();
    let policy = snippet(
        &dir,
        "tight.yaml",
        "name: tight\nextends: standard\nlimits:\n  timeout: 2s\n  memory: 256MiB\n",
    );
    let denied = snippet(
        &dir,
        "denied.py",
        "import subprocess\nsubprocess.run(['id'])\n",
    );
    gateway()
        .args(["run", &denied])
        .assert()
        .code(126)
        .stdout("")
        .stderr(contains("process-exec"))
        .stderr(contains("nothing ran"));
    let slow = snippet(&dir, "slow.py", "while True:\n    pass\n");
    gateway()
        .args(["run", "--policy", &policy, &slow])
        .assert()
        .code(124)
        .stderr(contains("time limit"));
    let hungry = snippet(
        &dir,
        "hungry.py",
        "blocks = []\nwhile True:\n    blocks.append(bytearray(32 << 20))\n",
    );
    gateway()
        .args(["run", "--policy", &policy, &hungry])
        .assert()
        .code(137)
        .stderr(contains("memory limit"));
    // 125 is the gateway's own failure; a run cut for flooding its output has its own status.
    let flood = snippet(
        &dir,
        "flood.py",
        "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n",
    );
    gateway()
        .args(["run", "--policy", &policy, &flood])
        .assert()
        .code(141)
        .stderr(contains("far more output than the policy's output limit"));
}

#[test]
fn hidden_characters_are_shown_and_kept_in_json() {
    common::ensure_images();
    let dir = tempfile::tempdir().unwrap();
    let file = snippet(
        &dir,
        "bidi.py",
        "print('invoice\\u202etxt.exe \\x1b[2J zero\\u200bwidth')\n",
    );
    gateway()
        .args(["run", "--policy", "permissive", &file])
        .assert()
        .code(0)
        .stdout("invoice<U+202E>txt.exe <U+001B>[2J zero<U+200B>width\n");
    let out = gateway()
        .args(["run", "--policy", "permissive", "--json", &file])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(
        report["stdout"],
        "invoice\u{202e}txt.exe \u{1b}[2J zero\u{200b}width\n"
    );
}

#[test]
fn json_prints_the_structured_result() {
    common::ensure_images();
    let dir = tempfile::tempdir().unwrap();
    let file = snippet(
        &dir,
        "warned.py",
        "import os\nprint(os.environ.get('NOPE'))\n",
    );
    let out = gateway()
        .args(["run", "--json", &file])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(report["verdict"], "warn");
    assert_eq!(report["ran"], true);
    assert_eq!(report["stdout"], "None\n");
    assert_eq!(report["findings"][0]["rule"], "environment-secrets");
    for key in [
        "exit_code",
        "stderr",
        "duration_ms",
        "timed_out",
        "oom_killed",
        "killed_for_output",
        "stdout_truncated",
        "stderr_truncated",
    ] {
        assert!(report.get(key).is_some(), "missing {key}");
    }
}

#[test]
fn engine_and_image_problems_are_explained() {
    common::ensure_images();
    let dir = tempfile::tempdir().unwrap();
    let file = snippet(&dir, "ok.py", "print(1)\n");
    gateway()
        .env("DOCKER_HOST", "unix:///nonexistent/docker.sock")
        .args(["run", &file])
        .assert()
        .code(125)
        .stderr(contains("cannot reach a container engine"))
        .stderr(contains("hint"));
    gateway()
        .args(["--engine", "dockr", "run", &file])
        .assert()
        .code(2)
        .stderr(contains(
            "expected auto, docker, podman or a unix:// socket URL",
        ));
    gateway()
        .args([
            "run",
            "--python-image",
            "code-sandbox-python:does-not-exist",
            &file,
        ])
        .assert()
        .code(125)
        .stderr(contains("does not exist"))
        .stderr(contains("images build"));
    gateway()
        .env("CONTAINER_IMAGE", "x:y")
        .env_remove("CONTAINER_LANGUAGE")
        .args(["run", &file])
        .assert()
        .code(125)
        .stderr(contains("CONTAINER_LANGUAGE"));
}

#[test]
fn doctor_checks_the_host_and_the_limits() {
    common::ensure_images();
    gateway()
        .arg("doctor")
        .assert()
        .code(0)
        .stdout(contains("container engine"))
        .stdout(contains("one of their own from 1900000000-1900999999"))
        .stdout(contains("own profile").and(contains("handed to Docker")))
        .stdout(contains("the gateway's profile is in force"))
        .stdout(contains("memory limit 512MiB (policy: 512MiB)"))
        .stdout(contains("all checks passed"));
}

#[test]
fn doctor_proves_each_isolation_level() {
    if common::Backend::Gvisor.selected() {
        gateway()
            .args(["--policy", "strict-gvisor", "doctor"])
            .assert()
            .code(0)
            .stdout(contains("snippets see gVisor's kernel"))
            .stdout(contains("seccomp under gVisor: `runsc`"))
            .stdout(contains("process limit 64 (policy: 64)"))
            .stdout(contains("memory limit 256MiB (policy: 256MiB)"))
            .stdout(contains("all checks passed"));
    }
    if common::Backend::Podman.selected() {
        gateway()
            .args(["--engine", "podman", "doctor"])
            .assert()
            .code(0)
            .stdout(contains("container engine Podman"))
            .stdout(contains("snippets share the host's kernel"))
            .stdout(contains("whose path Podman reads"))
            .stdout(contains("the gateway's profile is in force"))
            // Podman runs its default runtime whatever a container asks for: a runsc it lists
            // is not what the sandboxes use.
            .stdout(contains("seccomp under gVisor").not())
            .stdout(contains("all checks passed"));
        gateway()
            .args(["--engine", "podman", "--policy", "strict-gvisor", "doctor"])
            .assert()
            .code(1)
            .stdout(contains("Podman cannot run these snippets under `runsc`"));
    }
}

#[test]
fn pass_through_values_reach_the_code_but_never_the_logs() {
    common::ensure_images();
    let dir = tempfile::tempdir().unwrap();
    let file = snippet(
        &dir,
        "env.py",
        "import os\nprint(len(os.environ['CSM_API_KEY']))\n",
    );
    let secret = "sk-test-1f9c2a7e5b";
    let output = gateway()
        .env("RUST_LOG", "trace")
        .env("CSM_API_KEY", secret)
        .args([
            "run",
            "--policy",
            "permissive",
            "--pass-through-env",
            "CSM_API_KEY",
            &file,
        ])
        .assert()
        .code(0)
        .stdout(format!("{}\n", secret.len()))
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.is_empty(),
        "trace logging produced nothing; the check would prove nothing"
    );
    assert!(
        !stderr.contains(secret),
        "the secret appeared in the logs:\n{stderr}"
    );
}

#[test]
fn files_go_in_with_file_and_come_out_with_out() {
    common::ensure_images();
    let dir = tempfile::tempdir().unwrap();
    let data = snippet(&dir, "numbers.csv", "n\n1\n2\n3\n");
    let file = snippet(
        &dir,
        "chart.py",
        "import pandas as pd\nimport matplotlib.pyplot as plt\n\
         n = pd.read_csv('numbers.csv')['n']\nopen('sum.txt', 'w').write(str(n.sum()))\n\
         plt.figure(figsize=(2, 1), dpi=50)\nplt.plot(n)\n",
    );
    let out = dir.path().join("out");
    gateway()
        .args(["run", "--file", &data, "--out"])
        .arg(&out)
        .arg(&file)
        .assert()
        .code(0)
        .stderr(contains("wrote").and(contains("figure-1.png")));
    assert_eq!(std::fs::read_to_string(out.join("sum.txt")).unwrap(), "6");
    let png = std::fs::read(out.join("figure-1.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    assert!(
        !out.join("numbers.csv").exists(),
        "an unchanged input is not returned"
    );
    gateway()
        .args(["run", "--file", "/no/such/file.csv", &file])
        .assert()
        .code(125)
        .stderr(contains("/no/such/file.csv"));
    // A module sent as an input file would be imported by a library by its name: strict
    // refuses it before anything starts; standard takes it.
    let module = snippet(&dir, "tabulate.py", "import os\nos.system('id')\n");
    gateway()
        .args(["run", "--policy", "strict", "--file", &module, &file])
        .assert()
        .code(125)
        .stderr(contains("tabulate.py").and(contains("code-file-written")));
}
