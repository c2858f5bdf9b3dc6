//! The audit log: one JSON object per line, appended and flushed per record, for compliance
//! reviewers. It records who asked (the client's key and its OAuth subject), what was asked
//! and decided (code digest and size, never the code or any environment value), under which
//! policy, and how the run ended.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::analysis::Language;
use crate::gateway::RunReport;
use crate::identity::{ClientIdentity, ClientKey};
use crate::policy::{Finding, Limits, Policy, Verdict, format_size};

/// One audited request.
#[derive(Debug, Clone, Serialize)]
pub struct AuditRecord<'a> {
    /// RFC 3339, UTC.
    pub time: String,
    /// The client the request came from: `sub:<subject>`, `session:<id>`, `stdio` or
    /// `anonymous`.
    pub client: Option<String>,
    /// The `sub` claim of the client's OAuth access token.
    pub subject: Option<String>,
    pub tool: &'a str,
    /// The sandbox session (`open_session`) the request belongs to, if any.
    pub session_id: Option<String>,
    /// The request's language; absent for a request about a session the server does not
    /// know (closing an unknown or foreign id), whose language it cannot tell.
    pub language: Option<Language>,
    pub code_sha256: String,
    pub code_bytes: usize,
    pub policy: &'a str,
    pub policy_sha256: &'a str,
    pub verdict: Option<Verdict>,
    pub findings: Vec<AuditFinding<'a>>,
    pub limits: AuditLimits,
    pub ran: bool,
    pub exit_code: Option<i32>,
    pub duration_ms: Option<u64>,
    pub timed_out: bool,
    pub oom_killed: bool,
    /// The run was killed for writing more output than the policy's limit.
    pub killed_for_output: bool,
    /// The client cancelled the request (while it waited, or while it ran: see `ran`).
    pub cancelled: bool,
    /// Why the request failed, when it did (engine errors, cancellation, size).
    pub error: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct AuditFinding<'a> {
    pub rule: &'a str,
    pub action: &'a str,
    pub line: usize,
    pub column: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct AuditLimits {
    pub memory: String,
    pub cpus: f64,
    pub pids: u32,
    pub timeout_ms: u64,
    pub output_bytes: u64,
    pub tmpfs: String,
    pub runtime: Option<String>,
}

impl AuditLimits {
    pub fn of(limits: &Limits) -> AuditLimits {
        AuditLimits {
            memory: format_size(limits.memory_bytes),
            cpus: limits.cpus,
            pids: limits.pids,
            timeout_ms: u64::try_from(limits.timeout.as_millis()).unwrap_or(u64::MAX),
            output_bytes: limits.output_bytes,
            tmpfs: format_size(limits.tmpfs_bytes),
            runtime: limits.runtime.clone(),
        }
    }
}

impl<'a> AuditRecord<'a> {
    /// A record of a request, before its outcome is known.
    pub fn new(
        tool: &'a str,
        language: impl Into<Option<Language>>,
        code: &str,
        policy: &'a Policy,
    ) -> AuditRecord<'a> {
        AuditRecord {
            time: humantime::format_rfc3339_millis(SystemTime::now()).to_string(),
            client: None,
            subject: None,
            tool,
            session_id: None,
            language: language.into(),
            code_sha256: hex(&Sha256::digest(code.as_bytes())),
            code_bytes: code.len(),
            policy: &policy.name,
            policy_sha256: &policy.digest,
            verdict: None,
            findings: Vec::new(),
            limits: AuditLimits::of(&policy.limits),
            ran: false,
            exit_code: None,
            duration_ms: None,
            timed_out: false,
            oom_killed: false,
            killed_for_output: false,
            cancelled: false,
            error: None,
        }
    }

    /// Who made the request.
    pub fn by(mut self, key: &ClientKey, identity: &ClientIdentity) -> Self {
        self.client = Some(key.to_string());
        self.subject = identity.subject.clone();
        self
    }

    /// The sandbox session the request belongs to.
    pub fn in_session(mut self, session_id: &str) -> Self {
        self.session_id = Some(session_id.to_owned());
        self
    }

    /// A request the client cancelled; `ran` says whether it had started running.
    pub fn cancelled(mut self, ran: bool) -> Self {
        self.cancelled = true;
        self.ran = ran;
        self.error = Some(format!(
            "cancelled by the client {}",
            if ran { "while it ran" } else { "before it ran" }
        ));
        self
    }

    pub fn with_findings(mut self, verdict: Verdict, findings: &'a [Finding]) -> Self {
        self.verdict = Some(verdict);
        self.findings = findings
            .iter()
            .map(|f| AuditFinding {
                rule: &f.rule,
                action: f.action.as_str(),
                line: f.line,
                column: f.column,
            })
            .collect();
        self
    }

    pub fn with_report(self, report: &'a RunReport) -> Self {
        let mut record = self.with_findings(report.verdict, &report.findings);
        record.ran = report.ran;
        if report.ran {
            let e = &report.execution;
            record.exit_code = e.exit_code;
            record.duration_ms = Some(e.duration_ms);
            record.timed_out = e.timed_out;
            record.oom_killed = e.oom_killed;
            record.killed_for_output = e.killed_for_output;
        }
        record
    }

    pub fn with_error(mut self, error: impl ToString) -> Self {
        self.error = Some(error.to_string());
        self
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// An append-only JSON-lines file. Each record is written whole and flushed before the call
/// returns, so a crash loses at most the record being written.
pub struct AuditLog {
    path: PathBuf,
    file: Mutex<File>,
}

#[derive(Debug, thiserror::Error)]
#[error(
    "cannot open the audit log {path}: {source}\n  hint: check the directory exists and is writable"
)]
pub struct AuditError {
    path: PathBuf,
    source: std::io::Error,
}

impl AuditLog {
    pub fn open(path: &Path) -> Result<AuditLog, AuditError> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|source| AuditError {
                path: path.to_owned(),
                source,
            })?;
        Ok(AuditLog {
            path: path.to_owned(),
            file: Mutex::new(file),
        })
    }

    pub fn record(&self, record: &AuditRecord) {
        let mut line = serde_json::to_vec(record).expect("audit records serialize");
        line.push(b'\n');
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = file.write_all(&line).and_then(|()| file.flush()) {
            tracing::error!(path = %self.path.display(), error = %e, "cannot write the audit log");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze;
    use crate::policy::load;

    #[test]
    fn records_are_appended_as_json_lines_without_the_code() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        let policy = load("standard").unwrap();
        let code = "import os\nos.system('secret-command')";
        let judgement = policy.judge(&analyze(Language::Python, code.as_bytes()));
        let log = AuditLog::open(&path).unwrap();
        let alice = ClientIdentity::from_token("alice".into(), Default::default());
        log.record(
            &AuditRecord::new("run_python_code", Language::Python, code, &policy)
                .by(&ClientKey::Subject("alice".into()), &alice)
                .with_findings(judgement.verdict, &judgement.findings),
        );
        drop(log);
        let log = AuditLog::open(&path).unwrap();
        let judgement = policy.judge(&analyze(Language::Python, b"print(1)"));
        log.record(
            &AuditRecord::new("run_python_code", Language::Python, "print(1)", &policy)
                .by(&ClientKey::Stdio, &ClientIdentity::unrestricted())
                .with_findings(judgement.verdict, &judgement.findings)
                .cancelled(true),
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["verdict"], "deny");
        assert_eq!(lines[0]["findings"][0]["rule"], "process-exec");
        assert_eq!(lines[0]["code_bytes"], code.len());
        assert_eq!(lines[0]["code_sha256"].as_str().unwrap().len(), 64);
        assert_eq!(lines[0]["policy_sha256"], policy.digest.as_str());
        assert!(!text.contains("secret-command"));
        assert_eq!(
            (lines[0]["client"].as_str(), lines[0]["subject"].as_str()),
            (Some("sub:alice"), Some("alice"))
        );
        assert_eq!(lines[1]["client"], "stdio");
        assert!(lines[1]["subject"].is_null());
        // A cancelled run is recorded as what it was: allowed, ran, cancelled.
        assert_eq!(lines[1]["verdict"], "allow");
        assert_eq!(
            (lines[1]["ran"].as_bool(), lines[1]["cancelled"].as_bool()),
            (Some(true), Some(true))
        );
        assert!(lines[1]["error"].as_str().unwrap().contains("cancelled"));
    }
}
