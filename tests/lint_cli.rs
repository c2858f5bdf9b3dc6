//! `sandbox-lint` as a user runs it: the real binary, real files, exit codes and formats.

use assert_cmd::Command;
use serde_json::Value;

fn lint() -> Command {
    Command::cargo_bin("sandbox-lint").unwrap()
}

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn exit_codes_follow_the_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let clean = write(&dir, "clean.py", "print(sum(range(10)))\n");
    let warned = write(&dir, "warned.py", "import socket\n");
    let denied = write(
        &dir,
        "denied.js",
        "require('child_process').execSync('id')\n",
    );
    lint().arg(&clean).assert().code(0);
    lint().arg(&warned).assert().code(0);
    lint()
        .args(["--policy", "strict", &warned])
        .assert()
        .code(1);
    lint().arg(&denied).assert().code(1);
    lint()
        .args(["--policy", "permissive", &denied])
        .assert()
        .code(0);
}

#[test]
fn human_output_shows_rule_position_and_source_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(&dir, "job.py", "import os\nos.system('ls /')\n");
    let out = lint()
        .arg(&file)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("error[process-exec]: calls `os.system`"),
        "{out}"
    );
    assert!(out.contains(&format!("{file}:2:1")), "{out}");
    assert!(out.contains("2 | os.system('ls /')"), "{out}");
    assert!(out.contains("^^^^^^^^^"), "{out}");
}

#[test]
fn json_output_has_the_documented_shape() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir, "src/a.py", "import subprocess\n");
    write(
        &dir,
        "src/b.mjs",
        "import fs from 'node:fs'\nconsole.log(1)\n",
    );
    write(&dir, "src/node_modules/c.js", "eval('x')\n");
    write(&dir, "src/.hidden/d.py", "eval('x')\n");
    write(&dir, "src/notes.txt", "eval('x')\n");
    let out = lint()
        .args(["--format", "json", dir.path().join("src").to_str().unwrap()])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let json: Value = serde_json::from_slice(&out).unwrap();
    let files = json["files"].as_array().unwrap();
    assert_eq!(files.len(), 2, "{json}");
    let a = &files[0];
    assert!(a["path"].as_str().unwrap().ends_with("a.py"));
    assert_eq!(a["language"], "python");
    assert_eq!(a["verdict"], "deny");
    let finding = &a["findings"][0];
    for key in ["rule", "severity", "action", "message", "line", "column"] {
        assert!(!finding[key].is_null(), "missing {key} in {finding}");
    }
    assert_eq!(
        (finding["line"].as_u64(), finding["column"].as_u64()),
        (Some(1), Some(8))
    );
    assert_eq!(files[1]["language"], "javascript");
    assert_eq!(files[1]["verdict"], "allow");
    assert_eq!(json["summary"]["denied"], 1);
    assert_eq!(json["summary"]["files"], 2);
}

#[test]
fn sarif_output_is_sarif_2_1_0() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(&dir, "x.py", "import os\nprint(os.environ)\neval('1')\n");
    let out = lint()
        .args(["--format", "sarif", &file])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let sarif: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    assert!(sarif["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let run = &sarif["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "sandbox-lint");
    let rules: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{results:?}");
    for r in results {
        assert!(rules.contains(&r["ruleId"].as_str().unwrap()));
        let region = &r["locations"][0]["physicalLocation"]["region"];
        assert!(region["startLine"].as_u64().unwrap() >= 1);
        assert!(["error", "warning", "note"].contains(&r["level"].as_str().unwrap()));
    }
    assert_eq!(results[0]["level"], "warning");
    assert_eq!(results[1]["level"], "error");
}

#[test]
fn stdin_and_language_flag() {
    lint()
        .args(["-", "--language", "javascript"])
        .write_stdin("eval('1')")
        .assert()
        .code(1);
    lint()
        .arg("-")
        .write_stdin("print('eval(1)')")
        .assert()
        .code(0);
}

#[test]
fn usage_policy_and_read_errors_exit_2_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    lint()
        .assert()
        .code(2)
        .stderr(predicates::str::contains("hint"));
    lint()
        .arg("/no/such/file.py")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no such file"));
    let unknown = write(&dir, "a.rb", "puts 1");
    lint()
        .arg(&unknown)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--language"));
    let bad = write(
        &dir,
        "bad.yaml",
        "name: bad\nextends: standard\nactions:\n  process-exek: warn\n",
    );
    let file = write(&dir, "ok.py", "x = 1\n");
    lint()
        .args(["--policy", &bad, &file])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("bad.yaml:4:3"))
        .stderr(predicates::str::contains("known rules"));
    lint()
        .args(["--policy", "no-such-preset", &file])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("presets"));
    lint().args(["--format", "xml", &file]).assert().code(2);
}

#[test]
fn rules_can_be_listed_and_explained() {
    let out = lint()
        .args(["--policy", "strict", "--list-rules"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("network-access") && out.contains("deny"),
        "{out}"
    );
    let out = lint()
        .args(["--explain", "introspection-escape"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("## Why") && out.contains("__subclasses__"),
        "{out}"
    );
    lint()
        .args(["--explain", "nope"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("process-exec"));
}

#[test]
fn a_custom_policy_with_a_raw_query_works_from_any_directory() {
    let dir = tempfile::tempdir().unwrap();
    let policy = write(
        &dir,
        "p/mine.yaml",
        r#"name: mine
extends: strict
rules:
  - id: no-print
    languages: [python]
    severity: low
    action: deny
    message: Return values instead of printing.
    match:
      query: '(call function: (identifier) @f (#eq? @f "print")) @match'
    docs: {why: Output is collected elsewhere., example: print(1), instead: result = 1}
"#,
    );
    let file = write(&dir, "x.py", "x = 1\nprint(x)\n");
    lint()
        .current_dir("/")
        .args(["--policy", &policy, "--format", "json", &file])
        .assert()
        .code(1)
        .stdout(predicates::str::contains("\"no-print\""));
}

#[test]
fn the_committed_schema_is_current() {
    let out = lint()
        .arg("--print-schema")
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let committed = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/policies/policy.schema.json"
    ))
    .unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        committed,
        "run `sandbox-lint --print-schema > policies/policy.schema.json`"
    );
}

#[test]
fn hostile_input_yields_findings_not_crashes() {
    let dir = tempfile::tempdir().unwrap();
    let nul = dir.path().join("nul.py");
    std::fs::write(&nul, b"x = 1\0\nimport os\n").unwrap();
    let bad_utf8 = dir.path().join("bad.js");
    std::fs::write(&bad_utf8, b"let s = '\xff';\n").unwrap();
    let huge = dir.path().join("huge.py");
    std::fs::write(&huge, "x = 1\n".repeat(300_000)).unwrap();
    let deep = dir.path().join("deep.py");
    std::fs::write(
        &deep,
        format!("x = {}1{}\n", "[".repeat(20_000), "]".repeat(20_000)),
    )
    .unwrap();
    lint()
        .args(["--policy", "strict", nul.to_str().unwrap()])
        .assert()
        .code(1)
        .stdout(predicates::str::contains("parse-error"));
    lint()
        .args(["--policy", "strict", bad_utf8.to_str().unwrap()])
        .assert()
        .code(1)
        .stdout(predicates::str::contains("UTF-8"));
    lint()
        .arg(huge.to_str().unwrap())
        .assert()
        .code(1)
        .stdout(predicates::str::contains("analysis-limit"));
    lint().arg(deep.to_str().unwrap()).assert().code(0);
}
