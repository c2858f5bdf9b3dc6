//! The analyzer's survey of what the members of real modules are
//! (`src/analysis/python/module_members.txt`) must be what the Python sandbox image says today.
//! Here the generator (`module_members.py`) runs in a real sandbox, with every module the
//! strict policy allows as a root, and its output must equal the committed table: a new
//! package version, a new module on the allowlist or a changed generator makes this fail until
//! the table is regenerated, with `UPDATE_MODULE_MEMBERS=1 cargo test --test module_members`.

mod common;

use std::path::Path;
use std::time::Duration;

use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::policy::{Limits, load};

const GENERATOR: &str = include_str!("../src/analysis/python/module_members.py");

fn table_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/analysis/python/module_members.txt")
}

/// The modules the strict policy allows, as the generator's roots.
fn roots() -> Vec<String> {
    let strict = load("strict").unwrap();
    let python = strict.allow.python.expect("strict has a Python allowlist");
    python.modules.keys().cloned().collect()
}

#[tokio::test]
async fn the_module_member_table_matches_the_image() {
    let roots = roots();
    assert!(roots.iter().any(|r| r == "numpy"), "{roots:?}");
    let quoted: Vec<String> = roots.iter().map(|r| format!("{r:?}")).collect();
    let code = format!("{GENERATOR}\nmain([{}])\n", quoted.join(", "));
    // Importing every public submodule of the data libraries takes seconds and a few hundred
    // MiB; the table is a few hundred KiB.
    let limits = Limits {
        memory_bytes: 1 << 30,
        timeout: Duration::from_secs(180),
        output_bytes: 8 << 20,
        ..common::tight_limits()
    };
    let run = common::run_with(&limits, Language::Python, &code).await;
    assert_eq!(run.exit_code, Some(0), "{}", run.stderr);
    assert!(!run.stdout_truncated, "the table outgrew the output limit");
    let fresh = run.stdout;
    assert!(
        fresh.contains("module matplotlib.pyplot.np numpy\n"),
        "the survey found none of the modules it must: {}",
        &fresh[..fresh.len().min(2000)]
    );
    let path = table_path();
    if std::env::var_os("UPDATE_MODULE_MEMBERS").is_some() {
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap();
    if committed != fresh {
        let old: std::collections::BTreeSet<&str> = committed.lines().collect();
        let new: std::collections::BTreeSet<&str> = fresh.lines().collect();
        let gone: Vec<&&str> = old.difference(&new).take(20).collect();
        let added: Vec<&&str> = new.difference(&old).take(20).collect();
        panic!(
            "{} is stale: regenerate it with `UPDATE_MODULE_MEMBERS=1 cargo test --test \
             module_members` and review the change.\nno longer in the image: {gone:#?}\nnew in \
             the image: {added:#?}",
            path.display()
        );
    }
}
