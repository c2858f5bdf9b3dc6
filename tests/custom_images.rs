//! Any image with an interpreter runs snippets: the gateway derives an image with its runner
//! (and a team's own wheels) from it. The base is a slim Debian image with python3 alone,
//! built here from Debian packages once and kept under a tag of its recipe, on every backend.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::sandbox::{
    Engine, EngineChoice, Extras, Sandbox, SandboxConfig, SandboxError, derive,
};
use common::Backend;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::{ServiceExt, object};

const SLIM_RECIPE: &str = include_str!("images/slim-python.sh");

/// `code-sandbox-test-slim-python:<recipe digest>` in `backend`'s engine, built (mmdebstrap,
/// then an import into each engine that lacks it) if missing. Concurrent tests take turns on
/// a lock file.
fn slim_image(backend: Backend) -> String {
    let digest = format!("{:x}", <sha2::Sha256 as sha2::Digest>::digest(SLIM_RECIPE));
    let image = format!("code-sandbox-test-slim-python:{}", &digest[..12]);
    let engine = match backend.engine() {
        EngineChoice::Podman => "podman",
        _ => "docker",
    };
    let lock =
        std::fs::File::create(std::env::temp_dir().join("code-sandbox-test-slim.lock")).unwrap();
    lock.lock().unwrap();
    let exists = Command::new(engine)
        .args(["image", "inspect", &image])
        .output()
        .unwrap();
    if !exists.status.success() {
        let dir = tempfile::tempdir().unwrap();
        let tar = dir.path().join("rootfs.tar");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/images/slim-python.sh");
        let built = Command::new("bash").arg(script).arg(&tar).status().unwrap();
        assert!(built.success(), "building the slim test image failed");
        let imported = Command::new(engine)
            .args(["import"])
            .arg(&tar)
            .arg(&image)
            .status()
            .unwrap();
        assert!(imported.success());
    }
    image
}

async fn slim(backend: Backend) -> String {
    tokio::task::spawn_blocking(move || slim_image(backend))
        .await
        .unwrap()
}

/// A pure-Python wheel written with the host's python3 (no network): `name` 1.0 with a module
/// `name` whose `hello()` says hello, requiring `requires` if given.
fn wheel(dir: &Path, name: &str, requires: Option<&str>) {
    let requires = requires
        .map(|r| format!("Requires-Dist: {r}\\n"))
        .unwrap_or_default();
    let script = format!(
        r#"import zipfile
files = {{
    "{name}/__init__.py": "def hello():\n    return 'hello from {name}'\n",
    "{name}-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n{requires}",
    "{name}-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}}
files["{name}-1.0.dist-info/RECORD"] = "".join(p + ",,\n" for p in files) + "{name}-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile("{dir}/{name}-1.0-py3-none-any.whl", "w") as z:
    for path, text in sorted(files.items()):
        info = zipfile.ZipInfo(path, (2020, 1, 1, 0, 0, 0))
        z.writestr(info, text)
"#,
        dir = dir.display()
    );
    let done = Command::new("python3")
        .args(["-c", &script])
        .status()
        .unwrap();
    assert!(done.success());
}

fn config(backend: Backend, python_image: String, wheelhouse: Option<PathBuf>) -> SandboxConfig {
    SandboxConfig {
        images: [(Language::Python, python_image)].into(),
        extras: Extras {
            wheelhouse,
            npm_packages: None,
        },
        languages: vec![Language::Python],
        pool_size: 0,
        engine: backend.engine(),
        ..SandboxConfig::default()
    }
}

/// The gateway's command line for `backend`: its engine, and under gVisor a policy file that
/// runs snippets with runsc (`policy` extended, or the default), kept in `dir`.
fn server_args(backend: Backend, dir: &Path, policy: Option<&str>) -> Vec<String> {
    let mut args = vec!["--engine".to_owned(), backend.engine().to_string()];
    let base = policy.unwrap_or("standard");
    if backend == Backend::Gvisor {
        let path = dir.join("gvisor.yaml");
        std::fs::write(
            &path,
            format!("name: test-gvisor\nextends: {base}\nlimits:\n  runtime: runsc\n"),
        )
        .unwrap();
        args.extend(["--policy".to_owned(), path.display().to_string()]);
    } else if let Some(policy) = policy {
        args.extend(["--policy".to_owned(), policy.to_owned()]);
    }
    args
}

on_every_backend! {
    /// An image with python3 alone runs snippets through a derived image with the runner as
    /// PID 1, and a missing library is the snippet's ordinary ImportError.
    async fn an_image_with_only_python_runs_snippets(backend) {
        let slim = slim(backend).await;
        let sandbox = Sandbox::start(&config(backend, slim.clone(), None), &backend.limits(&common::tight_limits()))
            .await
            .unwrap();
        let manifest = sandbox.manifest(Language::Python).unwrap();
        assert!(manifest.runtime().starts_with("Python 3."), "{manifest:?}");
        assert!(!manifest.provides("pandas"), "{manifest:?}");
        assert!(sandbox.image(Language::Python).unwrap().starts_with("code-sandbox-python-custom:"));

        let run = sandbox.run(Language::Python, "print(1)", std::future::pending()).await.unwrap();
        assert_eq!((run.stdout.as_str(), run.exit_code), ("1\n", Some(0)), "{run:?}");
        // The runner is PID 1 and the snippet another process, as in our own images.
        let run = sandbox
            .run(
                Language::Python,
                "import os\nprint(os.getpid() != 1, open('/proc/1/cmdline').read().split('\\0')[:2])",
                std::future::pending(),
            )
            .await
            .unwrap();
        assert!(run.stdout.starts_with("True ['python3', '-I']"), "{run:?}");
        let run = sandbox.run(Language::Python, "import pandas", std::future::pending()).await.unwrap();
        assert_eq!(run.exit_code, Some(1));
        assert!(run.stderr.contains("No module named 'pandas'"), "{run:?}");
        sandbox.shutdown().await;
    }
}

on_every_backend! {
    async fn an_image_without_the_interpreter_is_refused_with_what_is_missing(backend) {
        let slim = slim(backend).await;
        let mut config = config(backend, String::new(), None);
        config.images = [(Language::JavaScript, slim.clone())].into();
        config.languages = vec![Language::JavaScript];
        let error = match Sandbox::start(&config, &backend.limits(&common::tight_limits())).await {
            Ok(_) => panic!("an image without node was accepted"),
            Err(e) => e,
        };
        assert!(matches!(error, SandboxError::UnusableImage { .. }), "{error}");
        let text = error.to_string();
        assert!(text.contains(&slim) && text.contains("no `node` on its PATH"), "{text}");
    }
}

/// Calls `run_python_code` with `code` and returns the result's structured content and text.
async fn call_python(
    client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    code: &str,
) -> (serde_json::Value, String) {
    let result = client
        .call_tool(
            CallToolRequestParams::new("run_python_code").with_arguments(object!({ "code": code })),
        )
        .await
        .unwrap();
    let text = serde_json::to_string(&result.content).unwrap();
    let structured = result
        .structured_content
        .unwrap_or_else(|| panic!("no structured content: {text}"));
    (structured, text)
}

on_every_backend! {
    async fn wheels_from_a_local_wheelhouse_are_importable_through_mcp(backend) {
        let slim = slim(backend).await;
        let (wheelhouse, policies) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        wheel(wheelhouse.path(), "sandboxtinypkg", None);
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_code-sandbox-mcp"));
        command
            .args(server_args(backend, policies.path(), None))
            .args(["--pool-size", "0", "--python-image", &slim, "--wheelhouse"])
            .arg(wheelhouse.path());
        let client = ().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();
        let (structured, _) =
            call_python(&client, "import sandboxtinypkg\nprint(sandboxtinypkg.hello())").await;
        assert_eq!(structured["stdout"], "hello from sandboxtinypkg\n", "{structured}");
        // The tool's description and sandbox://environments name what the image really holds.
        let tools = client.list_all_tools().await.unwrap();
        let python = tools.iter().find(|t| t.name == "run_python_code").unwrap();
        let description = python.description.as_deref().unwrap();
        assert!(
            description.contains("Python 3.11")
                && description.contains("sandboxtinypkg 1.0")
                && !description.contains("numpy"),
            "{description}"
        );
        let environments = client
            .read_resource(rmcp::model::ReadResourceRequestParams::new("sandbox://environments"))
            .await
            .unwrap();
        let text = serde_json::to_string(&environments.contents).unwrap();
        assert!(text.contains("sandboxtinypkg") && !text.contains("pandas"), "{text}");
        client.cancel().await.unwrap();

        // The image's manifest names the wheel as added.
        let sandbox = Sandbox::start(
            &config(backend, slim, Some(wheelhouse.path().to_owned())),
            &backend.limits(&common::tight_limits()),
        )
        .await
        .unwrap();
        let manifest = sandbox.manifest(Language::Python).unwrap();
        let added: Vec<_> = manifest.packages.iter().filter(|p| p.added).map(|p| p.name.as_str()).collect();
        assert_eq!(added, ["sandboxtinypkg"]);
        assert!(manifest.provides("sandboxtinypkg"));
        sandbox.shutdown().await;
    }
}

on_every_backend! {
    /// The strict allowlist, widened in a policy file with a wheel's module and one the image
    /// does not have, and `require_installed`: the wheel's module runs, the absent one is
    /// denied naming the image and the option that adds it, the standard library passes.
    async fn a_widened_strict_policy_allows_a_wheel_and_requires_it_installed(backend) {
        let slim = slim(backend).await;
        let (wheelhouse, policies) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        wheel(wheelhouse.path(), "sandboxtinypkg", None);
        let policy = Path::new(env!("CARGO_MANIFEST_DIR")).join("policies/fixtures/strict-team-wheels.yaml");
        let policy = policy.display().to_string();
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_code-sandbox-mcp"));
        command
            .args(server_args(backend, policies.path(), Some(&policy)))
            .args(["--pool-size", "0", "--python-image", &slim, "--wheelhouse"])
            .arg(wheelhouse.path());
        let client = ().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();
        let (structured, _) = call_python(
            &client,
            "import math\nimport sandboxtinypkg\nprint(sandboxtinypkg.hello(), math.floor(2.5))",
        )
        .await;
        assert_eq!(structured["stdout"], "hello from sandboxtinypkg 2\n", "{structured}");
        let (structured, text) = call_python(&client, "import sandboxabsentpkg\nprint(1)").await;
        assert_eq!(structured["ran"], false, "{structured}");
        let image = "code-sandbox-python-custom:";
        assert!(
            text.contains("sandboxabsentpkg") && text.contains(image) && text.contains("--wheelhouse"),
            "{text}"
        );
        client.cancel().await.unwrap();
    }
}

on_every_backend! {
    async fn a_broken_wheelhouse_fails_the_build_naming_the_package_and_tags_nothing(backend) {
        let slim = slim(backend).await;
        let wheelhouse = tempfile::tempdir().unwrap();
        wheel(wheelhouse.path(), "sandboxneedsmore", Some("sandbox-missing-dependency"));
        let engine = Engine::connect(&backend.engine()).await.unwrap();
        let tag = derive::tag_for(&engine, Language::Python, &slim, Some(wheelhouse.path()))
            .await
            .unwrap();
        let error = match Sandbox::start(
            &config(backend, slim.clone(), Some(wheelhouse.path().to_owned())),
            &backend.limits(&common::tight_limits()),
        )
        .await
        {
            Ok(_) => panic!("a wheel with a missing dependency was installed"),
            Err(e) => e.to_string(),
        };
        assert!(
            error.contains("sandbox-missing-dependency") && error.contains("nothing was tagged"),
            "{error}"
        );
        assert!(
            !code_sandbox_mcp::sandbox::images::exists(&engine, &tag).await.unwrap(),
            "{tag} was left behind"
        );

        // Something that is not a wheel is named before anything starts.
        std::fs::write(wheelhouse.path().join("notes.txt"), "x").unwrap();
        let error = derive::tag_for(&engine, Language::Python, &slim, Some(wheelhouse.path()))
            .await
            .unwrap_err()
            .to_string();
        assert!(error.contains("notes.txt is not a .whl file"), "{error}");
    }
}

/// An `npm pack`-style tarball of a package `name` 1.0.0 whose `hello()` says hello,
/// depending on `needs` if given.
fn npm_tarball(dir: &Path, name: &str, needs: Option<&str>) {
    let source = tempfile::tempdir().unwrap();
    let package = source.path().join("package");
    std::fs::create_dir(&package).unwrap();
    let dependencies = needs
        .map(|n| format!(r#","dependencies":{{"{n}":"^1"}}"#))
        .unwrap_or_default();
    std::fs::write(
        package.join("package.json"),
        format!(r#"{{"name":"{name}","version":"1.0.0","main":"index.js"{dependencies}}}"#),
    )
    .unwrap();
    std::fs::write(
        package.join("index.js"),
        format!("exports.hello = () => 'hello from {name}';\n"),
    )
    .unwrap();
    let done = Command::new("tar")
        .args(["--mtime=2020-01-01", "--owner=0", "--group=0", "-czf"])
        .arg(dir.join(format!("{name}-1.0.0.tgz")))
        .arg("-C")
        .arg(source.path())
        .arg("package")
        .env("GZIP", "-n")
        .status()
        .unwrap();
    assert!(done.success());
}

on_every_backend! {
    async fn npm_tarballs_are_importable_and_the_supervisor_stays_closed(backend) {
        let dir = tempfile::tempdir().unwrap();
        npm_tarball(dir.path(), "sandbox-tiny-js", None);
        let mut config = config(backend, String::new(), None);
        config.images.clear();
        config.languages = vec![Language::JavaScript];
        config.extras.npm_packages = Some(dir.path().to_owned());
        let limits = backend.limits(&common::tight_limits());
        let sandbox = Sandbox::start(&config, &limits).await.unwrap();
        assert!(sandbox.image(Language::JavaScript).unwrap().starts_with("code-sandbox-javascript-custom:"));
        assert!(sandbox.manifest(Language::JavaScript).unwrap().provides("sandbox-tiny-js"));
        let code = "const fs = require('fs');\n\
            console.log(require('sandbox-tiny-js').hello());\n\
            console.log(fs.readFileSync('/proc/1/cmdline', 'utf8').split('\\0')[0]);\n\
            try { fs.openSync('/proc/1/mem', 'r'); console.log('open'); } catch (e) { console.log(e.code); }";
        let run = sandbox.run(Language::JavaScript, code, std::future::pending()).await.unwrap();
        // Under runc the supervisor is the executable-only copy of node; gVisor runs node
        // itself and keeps /proc/1/mem from the snippet on its own.
        let lines: Vec<&str> = run.stdout.lines().collect();
        let supervisor = if backend == Backend::Gvisor { "node" } else { "/opt/sandbox/node-supervisor" };
        assert_eq!(lines[..2], ["hello from sandbox-tiny-js", supervisor], "{run:?}");
        assert!(lines.len() == 3 && lines[2] != "open", "{run:?}");
        sandbox.shutdown().await;

        // A package whose dependency is not there fails the build, naming both.
        let broken = tempfile::tempdir().unwrap();
        npm_tarball(broken.path(), "sandbox-needs-more", Some("sandbox-absent-dep"));
        config.extras.npm_packages = Some(broken.path().to_owned());
        let error = match Sandbox::start(&config, &limits).await {
            Ok(_) => panic!("a package with a missing dependency was installed"),
            Err(e) => e.to_string(),
        };
        assert!(error.contains("sandbox-needs-more") && error.contains("sandbox-absent-dep"), "{error}");
    }
}
