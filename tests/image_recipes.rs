//! The images built here from Debian packages, with a team's choices: Debian packages added
//! from a list (`--deb-packages`), and the Debian suite (`--suite`; by default each
//! language's own). Built through the program's own `images build`, on Docker (the builder
//! is the same for both engines).

mod common;

use std::path::Path;
use std::process::{Command, Output};

use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::sandbox::{
    Engine, EngineChoice, Recipe, Sandbox, SandboxConfig, Suite, images,
};

/// `code-sandbox-mcp --engine docker images build ARGS`.
fn images_build(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_code-sandbox-mcp"))
        .args(["--engine", "docker", "images", "build"])
        .args(args)
        .output()
        .unwrap()
}

fn package_list(dir: &Path, text: &str) -> String {
    let path = dir.join("packages.txt");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn config(recipe: Recipe, languages: Vec<Language>) -> SandboxConfig {
    SandboxConfig {
        engine: EngineChoice::Docker,
        recipe,
        languages,
        pool_size: 0,
        ..SandboxConfig::default()
    }
}

#[tokio::test]
async fn debian_packages_from_a_list_are_in_the_image_its_tag_names() {
    let dir = tempfile::tempdir().unwrap();
    let list = package_list(dir.path(), "# the team's packages\nnode-ms  # durations\n");
    let built = images_build(&["--language", "javascript", "--deb-packages", &list]);
    let said = String::from_utf8_lossy(&built.stderr);
    assert!(built.status.success(), "{said}");
    let recipe = Recipe {
        deb_packages: vec!["node-ms".to_owned()],
        ..Recipe::default()
    };
    let tag = images::image_for(Language::JavaScript, &recipe);
    assert!(said.contains(&tag), "{said}");
    assert_ne!(tag, images::default_image(Language::JavaScript));

    // Serving with the same list selects that image; its manifest names the package as
    // installed on purpose, so the description names it.
    let sandbox = Sandbox::start(
        &config(recipe, vec![Language::JavaScript]),
        &common::tight_limits(),
    )
    .await
    .unwrap();
    assert_eq!(sandbox.image(Language::JavaScript), Some(tag.as_str()));
    let manifest = sandbox.manifest(Language::JavaScript).unwrap();
    assert!(manifest.has_module("ms"), "{manifest:?}");
    assert!(
        manifest.notable(12).iter().any(|p| p.starts_with("ms ")),
        "{:?}",
        manifest.notable(12)
    );
    let run = sandbox
        .run(
            Language::JavaScript,
            "console.log(require('ms')('2h'))",
            std::future::pending(),
        )
        .await
        .unwrap();
    assert_eq!(run.stdout, "7200000\n", "{run:?}");
    sandbox.shutdown().await;
}

#[tokio::test]
async fn a_missing_debian_package_fails_the_build_naming_it_and_tags_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let list = package_list(dir.path(), "node-ms\nsandbox-no-such-package\n");
    let built = images_build(&["--language", "javascript", "--deb-packages", &list]);
    let said = String::from_utf8_lossy(&built.stderr);
    assert_eq!(built.status.code(), Some(125), "{said}");
    let error = said
        .lines()
        .skip_while(|l| !l.starts_with("error:"))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        error.contains("`sandbox-no-such-package`")
            && error.contains("--deb-packages file")
            && error.contains("nothing was tagged"),
        "{error}"
    );
    let recipe = Recipe {
        deb_packages: vec!["node-ms".to_owned(), "sandbox-no-such-package".to_owned()],
        ..Recipe::default()
    };
    let engine = Engine::connect(&EngineChoice::Docker).await.unwrap();
    let tag = images::image_for(Language::JavaScript, &recipe);
    assert!(
        !images::exists(&engine, &tag).await.unwrap(),
        "{tag} was tagged"
    );

    // A line that is no package name is refused before anything is built.
    let list = package_list(dir.path(), "node-ms\n--allow-unauthenticated\n");
    let built = images_build(&["--language", "javascript", "--deb-packages", &list]);
    let said = String::from_utf8_lossy(&built.stderr);
    assert!(
        !built.status.success() && said.contains("line 2") && !said.contains("mmdebstrap"),
        "{said}"
    );
}

#[tokio::test]
async fn debian_packages_do_not_apply_to_an_image_the_user_named() {
    let dir = tempfile::tempdir().unwrap();
    let list = package_list(dir.path(), "node-ms\n");
    let built = Command::new(env!("CARGO_BIN_EXE_code-sandbox-mcp"))
        .args(["--engine", "docker", "--js-image"])
        .arg(images::default_image(Language::JavaScript))
        .args([
            "--deb-packages",
            &list,
            "images",
            "build",
            "--language",
            "javascript",
        ])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&built.stderr);
    assert!(
        !built.status.success() && said.contains("--deb-packages adds Debian packages"),
        "{said}"
    );
}

/// The default images: the Python image from trixie, the JavaScript image from forky, whose
/// interpreters are supported upstream (Node.js 20, trixie's, is not), built by the same
/// `images build` a fresh host's `setup` runs.
#[tokio::test]
async fn the_default_images_have_supported_interpreters_and_run_the_checks() {
    library_and_node_checks(None, "Python 3.13", "24").await;
}

/// Bookworm, the release the images came from before, stays selectable.
#[tokio::test]
async fn bookworm_images_run_the_library_and_node_checks() {
    library_and_node_checks(Some(Suite::Bookworm), "Python 3.11", "18").await;
}

/// Forky for both languages: Python 3.14 and its newer libraries.
#[tokio::test]
async fn forky_images_run_the_library_and_node_checks() {
    library_and_node_checks(Some(Suite::Forky), "Python 3.14", "24").await;
}

/// A suite's images (built here if missing) have the interpreters expected of it and run the
/// same checks as each other: the data libraries with a figure, type hints resolved while
/// type text that is code is refused (on 3.14 through `annotationlib` too), and Node's workers
/// and ES modules.
async fn library_and_node_checks(suite: Option<Suite>, python: &str, node_major: &str) {
    let suite_args = suite.map_or(Vec::new(), |s| vec!["--suite", s.as_str()]);
    let built = images_build(&suite_args);
    let said = String::from_utf8_lossy(&built.stderr);
    assert!(built.status.success(), "{said}");
    let recipe = Recipe {
        suite,
        ..Recipe::default()
    };
    let sandbox = Sandbox::start(
        &config(recipe.clone(), Language::ALL.to_vec()),
        &common::tight_limits(),
    )
    .await
    .unwrap();
    assert_eq!(
        sandbox.image(Language::Python),
        Some(images::image_for(Language::Python, &recipe).as_str())
    );
    let runtime = sandbox.manifest(Language::Python).unwrap().runtime();
    assert!(runtime.starts_with(&format!("{python}.")), "{runtime}");
    let runtime = sandbox.manifest(Language::JavaScript).unwrap().runtime();
    assert!(
        runtime.starts_with(&format!("Node.js {node_major}.")),
        "{runtime}"
    );

    let code = r#"
import io
import numpy as np, pandas as pd, matplotlib.pyplot as plt
from scipy import optimize
from sklearn.linear_model import LinearRegression
x = np.arange(20.0).reshape(-1, 1)
print("sklearn", round(float(LinearRegression().fit(x, 3 * x.ravel() + 1).coef_[0]), 3))
print("scipy", round(float(optimize.brentq(lambda v: v * v - 2, 0, 2)), 4))
print("pandas", pd.DataFrame({"a": range(10)}).a.sum())
fig = plt.figure(); plt.plot([1, 2]); buf = io.BytesIO(); fig.savefig(buf, format="png"); print("png", buf.getvalue()[:4] == b"\x89PNG")
import inspect, typing
def hinted(a: "typing.List[int]") -> "int": pass
print("hints", typing.get_type_hints(hinted)["a"] == typing.List[int], inspect.signature(hinted, eval_str=True).return_annotation is int)
def refused(evaluate):
    try:
        evaluate()
    except TypeError:
        return True
def coded(x: "print('ran') or int"): pass
evaluations = [lambda: typing.get_type_hints(typing.NamedTuple("N", [("a", "print('ran') or int")])),
               lambda: typing.get_type_hints(coded), lambda: inspect.get_annotations(coded, eval_str=True)]
try:
    import annotationlib
    evaluations += [lambda: annotationlib.get_annotations(coded, eval_str=True),
                    lambda: annotationlib.ForwardRef("print('ran') or int").evaluate()]
except ImportError:
    pass
print("type text refused", all(refused(each) for each in evaluations))
"#;
    let run = sandbox
        .run(Language::Python, code, std::future::pending())
        .await
        .unwrap();
    assert_eq!(
        run.stdout,
        "sklearn 3.0\nscipy 1.4142\npandas 45\npng True\nhints True True\ntype text refused True\n",
        "{run:?}"
    );
    let js = "import { Worker } from 'node:worker_threads';\nconst w = new Worker('require(\"worker_threads\").parentPort.postMessage(6 * 7)', { eval: true });\nconst m = await new Promise((resolve) => w.on('message', resolve));\nconsole.log('worker', m, process.versions.node.split('.')[0]);\n";
    let run = sandbox
        .run(Language::JavaScript, js, std::future::pending())
        .await
        .unwrap();
    assert_eq!(run.stdout, format!("worker 42 {node_major}\n"), "{run:?}");
    sandbox.shutdown().await;
}
