//! The pipeline every entry point shares: analyze, judge, and only then run.

use std::future::Future;

use schemars::JsonSchema;
use serde::Serialize;

use crate::analysis::{
    Analysis, Carried, FactKind, Language, analyze, analyze_with, is_python_stdlib_module,
};
use crate::policy::{Action, Finding, Installed, Judgement, Policy, Verdict};
use crate::sandbox::transfer::Omitted;
use crate::sandbox::{Execution, LazySandbox, Preload, SandboxError};
use crate::workdir::{self, FileEntry, FileError, FileInfo, InputFile};

/// Largest snippet accepted. Larger code is refused before analysis or execution.
pub const MAX_CODE_BYTES: usize = crate::analysis::MAX_SOURCE_BYTES;

/// The outcome of one request to run code: the policy's verdict and findings, and, unless
/// the policy denied it, what the execution produced.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RunReport {
    /// `deny` means nothing ran.
    pub verdict: Verdict,
    pub findings: Vec<Finding>,
    /// False when the policy denied the code.
    pub ran: bool,
    #[serde(flatten)]
    pub execution: Execution,
    /// Names this run's files: `sandbox://runs/<run_id>/files/<path>`.
    pub run_id: String,
    /// Python figures (open at the end, or passed to `plt.show()`), in the order drawn; each
    /// is an `image/png` content block in the same order.
    pub figures: Vec<FigureInfo>,
    /// Files the run created or changed in the work dir, by path.
    pub files: Vec<FileInfo>,
    /// Figures and files not returned because of a limit (or not returnable), with why.
    pub omitted: Vec<Omitted>,
    /// For a call in a session: the session, and whether it is still open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionStatus>,
}

/// A session after one of its calls.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SessionStatus {
    pub session_id: String,
    /// False when this call ended the session (a timeout, an OOM kill, the program exited).
    pub open: bool,
    /// When it closes unless used again (RFC 3339), while open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// Why it ended, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended: Option<String>,
}

/// One returned figure.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FigureInfo {
    /// Position among the figures (0-based), and in the image content.
    pub index: usize,
    pub width: u32,
    pub height: u32,
    /// Size of the PNG.
    pub bytes: u64,
}

impl RunReport {
    /// A report of code that did not run.
    pub fn denied(judgement: Judgement) -> RunReport {
        RunReport {
            verdict: judgement.verdict,
            findings: judgement.findings,
            ran: false,
            execution: Execution::default(),
            run_id: String::new(),
            figures: Vec::new(),
            files: Vec::new(),
            omitted: Vec::new(),
            session: None,
        }
    }

    pub fn ran(judgement: Judgement, execution: Execution) -> RunReport {
        let run_id = crate::sandbox::random::nonce();
        let outputs = &execution.outputs;
        let figures = outputs
            .figures
            .iter()
            .enumerate()
            .map(|(index, f)| FigureInfo {
                index,
                width: f.width,
                height: f.height,
                bytes: f.png.len() as u64,
            })
            .collect();
        let files = outputs
            .files
            .iter()
            .map(|f| FileInfo {
                path: f.path.clone(),
                size: f.content.len() as u64,
                sha256: sha256_hex(&f.content),
                mime: workdir::mime_of(&f.path).to_owned(),
                uri: run_file_uri(&run_id, &f.path),
            })
            .collect();
        RunReport {
            verdict: judgement.verdict,
            findings: judgement.findings,
            ran: true,
            omitted: outputs.omitted.clone(),
            execution,
            run_id,
            figures,
            files,
            session: None,
        }
    }
}

/// The URI a run's file is read at.
pub fn run_file_uri(run_id: &str, path: &str) -> String {
    format!("sandbox://runs/{run_id}/files/{}", workdir::uri_path(path))
}

fn sha256_hex(data: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    #[error("the code is {size} bytes; the limit is {limit} bytes. Send a smaller snippet.")]
    TooLarge { size: usize, limit: usize },
    #[error("{0} Nothing ran.")]
    Files(#[from] FileError),
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
}

pub struct Gateway {
    pub policy: Policy,
    pub sandbox: LazySandbox,
}

impl Gateway {
    /// Analyzes and judges without running anything.
    pub async fn check(&self, language: Language, code: &str) -> Result<Judgement, GatewayError> {
        Ok(self.assess(language, code).await?.0)
    }

    /// Analyzes and judges, and says which runner class the code needs (from its imports).
    /// A policy that requires allowed modules to be installed also judges the imports
    /// against the image's manifest, which the sandbox has once started (it is started for
    /// that, unless the code is denied already).
    pub async fn assess(
        &self,
        language: Language,
        code: &str,
    ) -> Result<(Judgement, Preload), GatewayError> {
        check_size(code)?;
        let analysis = analyze(language, code.as_bytes());
        let judgement = self.judge(language, &analysis).await?;
        Ok((judgement, runner_class(&analysis)))
    }

    /// The policy's judgement of `analysis`; a policy that requires allowed modules to be
    /// installed also has the imports checked against the image's manifest.
    async fn judge(
        &self,
        language: Language,
        analysis: &Analysis,
    ) -> Result<Judgement, GatewayError> {
        let judgement = self.policy.judge(analysis);
        if !self.policy.allow.require_installed || judgement.verdict == Verdict::Deny {
            return Ok(judgement);
        }
        let sandbox = self.sandbox.get().await?;
        let (Some(image), Some(manifest)) = (sandbox.image(language), sandbox.manifest(language))
        else {
            return Ok(judgement);
        };
        let has = |module: &str| manifest.has_module(module);
        let installed = Installed { image, has: &has };
        Ok(self.policy.judge_in(analysis, Some(&installed)))
    }

    /// Analyzes and judges one call of a session, with the names its earlier calls bound;
    /// returns the names bound once this call has run too (keep them only if it runs).
    pub async fn assess_in_session(
        &self,
        language: Language,
        code: &str,
        carried: &Carried,
    ) -> Result<(Judgement, Carried), GatewayError> {
        check_size(code)?;
        let (analysis, next) = analyze_with(language, code.as_bytes(), carried);
        let mut judgement = self.judge(language, &analysis).await?;
        if judgement.verdict != Verdict::Deny {
            let changed = self
                .rejudge_definitions(language, code, carried, &next)
                .await?;
            if !changed.is_empty() {
                judgement.verdict = Verdict::Deny;
                judgement.findings.extend(changed);
            }
        }
        Ok((judgement, next))
    }

    /// The functions, classes and generator expressions of a session's earlier calls (see
    /// `Carried::definitions`), judged again beside this call's code and with the names it
    /// binds: a call that rebinds what one of them reads (`text = ...` for
    /// `def run(): frame.query(text)`, judged with the text it first had), or that uses one
    /// of them as no earlier call did (`Peek.get(library_object)` gives a method of an
    /// earlier class any `self`), changes what it does when called; the call's own code, read
    /// with the definitions as code rather than carried names, may do more than it showed
    /// alone (a class it defines, taken unbound by an earlier definition). Returns each denial
    /// this makes, but none the definitions had anyway (judged alone, without the module-level
    /// code around them); the call itself had none, or it would not be asked.
    async fn rejudge_definitions(
        &self,
        language: Language,
        code: &str,
        before: &Carried,
        after: &Carried,
    ) -> Result<Vec<Finding>, GatewayError> {
        let source = before.definitions();
        if source.is_empty() {
            return Ok(Vec::new());
        }
        let beside = format!("{source}\n{code}");
        let definition_lines = source.lines().count();
        let was = self
            .judge(
                language,
                &analyze_with(language, source.as_bytes(), before).0,
            )
            .await?;
        let now = self
            .judge(
                language,
                &analyze_with(language, beside.as_bytes(), after).0,
            )
            .await?;
        let denied = |f: &Finding| f.action == Action::Deny;
        // Beyond what is analyzed, every denial counts: what was cut off is unjudged.
        let whole = beside.len() <= crate::analysis::MAX_SOURCE_BYTES;
        Ok(now
            .findings
            .into_iter()
            .filter(|f| {
                denied(f)
                    && !(whole
                        && was.findings.iter().any(|w| {
                            denied(w)
                                && w.rule == f.rule
                                && (w.line, w.column) == (f.line, f.column)
                        }))
            })
            .map(|f| {
                // The call's code follows the definitions and an empty line.
                let place = if f.line > definition_lines + 1 {
                    format!("line {} of this call", f.line - definition_lines - 1)
                } else {
                    format!("line {} of the session's definitions", f.line)
                };
                Finding {
                    detail: format!(
                        "this call changes what a function or class of an earlier call does (it \
                         rebinds a name one reads, or uses one as no earlier call did); judged \
                         again beside it ({place}): {}",
                        f.detail
                    ),
                    line: 1,
                    column: 1,
                    span: None,
                    ..f
                }
            })
            .collect())
    }

    /// The whole pipeline. A denial is a normal outcome (`ran: false`), not an error.
    pub async fn run(
        &self,
        language: Language,
        code: &str,
        cancelled: impl Future<Output = ()>,
    ) -> Result<RunReport, GatewayError> {
        let (judgement, runner) = self.assess(language, code).await?;
        self.run_judged(language, code, &[], judgement, runner, cancelled)
            .await
    }

    /// Checks and decodes the files a caller sends with the code, under the policy's limits
    /// and its rules on file names (see [`Policy::check_input_files`]).
    pub fn check_files(&self, entries: &[FileEntry]) -> Result<Vec<InputFile>, GatewayError> {
        let files = workdir::decode(entries, &self.policy.limits)?;
        self.policy.check_input_files(&files)?;
        Ok(files)
    }

    /// The pipeline after [`Gateway::assess`] (and [`Gateway::check_files`]), for callers
    /// that keep the judgement (the MCP
    /// layer audits a run that fails or is cancelled with the verdict it had).
    pub async fn run_judged(
        &self,
        language: Language,
        code: &str,
        files: &[InputFile],
        judgement: Judgement,
        runner: Preload,
        cancelled: impl Future<Output = ()>,
    ) -> Result<RunReport, GatewayError> {
        if judgement.verdict == Verdict::Deny {
            return Ok(RunReport::denied(judgement));
        }
        let execution = self
            .sandbox
            .get()
            .await?
            .run_in(language, runner, code, files, cancelled)
            .await?;
        Ok(RunReport::ran(judgement, execution))
    }
}

/// Libraries the data runner preloads (the full runner adds matplotlib).
const DATA_MODULES: &[&str] = &["numpy", "pandas"];

/// The lightest runner that has what the code imports already loaded: light for the standard
/// library alone, data for numpy and pandas, full for anything else (matplotlib, scipy, a
/// module the image may not even have) and for code whose imports the analyzer could not see
/// (text run as code, a name built at run time, a parse error). Any class runs any code: this
/// only decides what is imported before the code arrives, so a wrong guess costs time, never
/// a result. JavaScript's runner has one class.
pub fn runner_class(analysis: &Analysis) -> Preload {
    if analysis.language != Language::Python {
        return Preload::Full;
    }
    let mut class = Preload::Light;
    for fact in &analysis.facts {
        let needs = match &fact.kind {
            FactKind::Import { module } => {
                let root = module.split('.').next().unwrap_or_default();
                if DATA_MODULES.contains(&root) {
                    Preload::Data
                } else if is_python_stdlib_module(root) {
                    Preload::Light
                } else {
                    Preload::Full
                }
            }
            FactKind::Dynamic { .. } => Preload::Full,
            _ => Preload::Light,
        };
        class = class.max(needs);
    }
    class
}

fn check_size(code: &str) -> Result<(), GatewayError> {
    if code.len() > MAX_CODE_BYTES {
        Err(GatewayError::TooLarge {
            size: code.len(),
            limit: MAX_CODE_BYTES,
        })
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gateway(policy: &str) -> Gateway {
        let policy = crate::policy::load(policy).unwrap();
        let sandbox = LazySandbox::new(Default::default(), policy.limits.clone());
        Gateway { policy, sandbox }
    }

    /// A session's call is judged with the names earlier calls bound: an alias of `os` bound
    /// in one call is `os` in the next, and only calls that ran add names.
    #[tokio::test]
    async fn a_session_call_is_judged_with_what_earlier_calls_bound() {
        for policy in ["standard", "strict"] {
            let g = gateway(policy);
            let py = Language::Python;
            let (first, carried) = g
                .assess_in_session(py, "import os as helper", &Carried::default())
                .await
                .unwrap();
            assert_ne!(first.verdict, Verdict::Deny, "{policy}");
            let (aliased, _) = g
                .assess_in_session(py, "helper.system('id')", &carried)
                .await
                .unwrap();
            let (direct, _) = g
                .assess_in_session(py, "import os\nos.system('id')", &Carried::default())
                .await
                .unwrap();
            assert_eq!(aliased.verdict, Verdict::Deny, "{policy}: {aliased:?}");
            let rules = |j: &Judgement| {
                j.findings
                    .iter()
                    .map(|f| f.rule.clone())
                    .collect::<Vec<_>>()
            };
            assert_eq!(rules(&aliased), rules(&direct), "{policy}");
            // Without the earlier call, `helper` is a free name: not `os`.
            let (fresh, _) = g
                .assess_in_session(py, "helper.system('id')", &Carried::default())
                .await
                .unwrap();
            assert!(
                !rules(&fresh).iter().any(|r| rules(&direct).contains(r)),
                "{policy}: {fresh:?}"
            );
            let (js_first, js_carried) = g
                .assess_in_session(
                    Language::JavaScript,
                    "const p = process;",
                    &Carried::default(),
                )
                .await
                .unwrap();
            assert_ne!(js_first.verdict, Verdict::Deny, "{policy}: {js_first:?}");
            let (js_next, _) = g
                .assess_in_session(Language::JavaScript, "p.binding('spawn_sync')", &js_carried)
                .await
                .unwrap();
            assert_eq!(js_next.verdict, Verdict::Deny, "{policy}: {js_next:?}");
        }
    }

    /// The verdict of a session's last call, after each earlier call was allowed.
    async fn last_verdict(g: &Gateway, language: Language, calls: &[&str]) -> Verdict {
        let mut carried = Carried::default();
        let mut verdict = Verdict::Allow;
        for (n, code) in calls.iter().enumerate() {
            let (judgement, next) = g.assess_in_session(language, code, &carried).await.unwrap();
            if n + 1 < calls.len() {
                assert_ne!(judgement.verdict, Verdict::Deny, "{code}: {judgement:?}");
            }
            verdict = judgement.verdict;
            carried = next;
        }
        verdict
    }

    /// A later call that rebinds what a function of an earlier call reads gets that function
    /// judged again: readable query text rebound to text built at run time, a path rebound
    /// outside the work dir, a module rebound into a name a function calls through. Rebinding
    /// data the function only computes with changes nothing.
    #[tokio::test]
    async fn a_session_call_rebinding_what_earlier_functions_read_is_judged_with_them() {
        let g = gateway("strict");
        let py = Language::Python;
        let first = "import pandas as pd\nframe = pd.DataFrame({'a': [1, 2]})\ntext = 'a > 1'\n\
                     path = 'data.csv'\ndef run():\n    return frame.query(text)\n\
                     def load():\n    return pd.read_csv(path)\nif True:\n    def scale():\n        \
                     return frame * factor\nfactor = 2\n";
        for (later, expected) in [
            ("text = bytes([97]).decode()\nrun()\n", Verdict::Deny),
            ("path = '/etc/passwd'\nload()\n", Verdict::Deny),
            (
                "frame = frame[frame.a > 1]\nfactor = 3\nprint(run(), scale())\n",
                Verdict::Allow,
            ),
        ] {
            assert_eq!(
                last_verdict(&g, py, &[first, later]).await,
                expected,
                "{later}"
            );
        }
        // A generator expression runs at each `next()`, with the globals of that time.
        let first = "import pandas as pd\nframe = pd.DataFrame({'a': [1]})\ntext = 'a > 1'\n\
                     rows = (frame.query(text) for _ in range(1))\n";
        for (later, expected) in [
            (
                "text = bytes([97]).decode()\nprint(next(rows))\n",
                Verdict::Deny,
            ),
            ("print(next(rows))\n", Verdict::Allow),
        ] {
            assert_eq!(
                last_verdict(&g, py, &[first, later]).await,
                expected,
                "{later}"
            );
        }
        let js = Language::JavaScript;
        let first = "let where = 'data.txt';\nfunction show() { return where.length; }\n";
        assert_eq!(
            last_verdict(&g, js, &[first, "where = 'other.txt';\nshow();\n"]).await,
            Verdict::Allow
        );
    }

    /// A later call that takes a method of an earlier call's class from the class, and so
    /// may give it any `self`, gets the class judged again beside that call: its private
    /// names are then a library object's. Calling the method on an instance stays allowed.
    #[tokio::test]
    async fn a_session_call_taking_an_earlier_method_unbound_is_judged_with_it() {
        let g = gateway("strict");
        let py = Language::Python;
        let first = "import warnings\nclass Peek:\n    _module = None\n    def get(self):\n        \
                     return self._module\n";
        for (later, expected) in [
            (
                "print(Peek.get(warnings.catch_warnings()))\n",
                Verdict::Deny,
            ),
            ("print(Peek().get())\n", Verdict::Allow),
        ] {
            assert_eq!(
                last_verdict(&g, py, &[first, later]).await,
                expected,
                "{later}"
            );
        }
        // The class the earlier definition relays to is this call's own.
        let relay =
            "class Relay:\n    @staticmethod\n    def go(obj):\n        return Peek.get(obj)\n";
        let later = "import warnings\nclass Peek:\n    _module = None\n    def get(self):\n        \
                     return self._module\nprint(Relay.go(warnings.catch_warnings()))\n";
        assert_eq!(last_verdict(&g, py, &[relay, later]).await, Verdict::Deny);
    }

    fn class(code: &str) -> Preload {
        runner_class(&analyze(Language::Python, code.as_bytes()))
    }

    #[test]
    fn the_runner_class_follows_the_imports() {
        assert_eq!(class("print(1)"), Preload::Light);
        assert_eq!(
            class("import json, os.path\nprint(json.dumps(1))"),
            Preload::Light
        );
        assert_eq!(
            class("import pandas as pd\nprint(pd.DataFrame({'a': [1]}))"),
            Preload::Data
        );
        assert_eq!(
            class("from numpy.linalg import norm\nimport math"),
            Preload::Data
        );
        assert_eq!(
            class("import matplotlib.pyplot as plt\nimport numpy"),
            Preload::Full
        );
        assert_eq!(class("import scipy.stats"), Preload::Full);
        assert_eq!(class("import notinstalled"), Preload::Full);
        assert_eq!(
            class("m = 'pan' + 'das'\n__import__(m + input())"),
            Preload::Full
        );
        assert_eq!(class("exec(input())"), Preload::Full);
        assert_eq!(
            runner_class(&analyze(Language::JavaScript, b"console.log(1)")),
            Preload::Full
        );
    }
}
