//! Sessions over MCP: `open_session`, `close_session`, a run tool's call with `session_id`,
//! and the `sandbox://sessions` resource.
//!
//! A session is one container kept for one client, its interpreter's globals, imports and work
//! dir living from call to call. Every call is judged by the policy with the names the
//! session's earlier calls bound ([`crate::analysis::analyze_with`]), and those names are
//! updated only by a call that ran, so a denied call leaves the session as it was. A call that
//! ends the program (a timeout, an OOM kill, an exit of its process) or is cancelled ends the
//! session: its container is destroyed, and the answer says so.

use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};
use std::time::{Duration, Instant};

use rmcp::RoleServer;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::{CodeArgs, Shared, error_result, present};
use crate::analysis::{Carried, Language};
use crate::audit::AuditRecord;
use crate::gateway::{GatewayError, RunReport, SessionStatus};
use crate::identity::{ClientIdentity, ClientKey};
use crate::policy::{Verdict, format_size};
use crate::sandbox::{Execution, Kept, SandboxError};
use crate::sessions::{SessionError, SessionInfo, SessionLimits, Table};
use crate::workdir::FileEntry;

pub(super) const SESSIONS_URI: &str = "sandbox://sessions";

/// What the table holds for each session.
pub struct SessionState {
    /// The container and the names bound so far; `None` once the session ended. Held for the
    /// length of a call, so calls in one session run one after another.
    live: tokio::sync::Mutex<Option<Live>>,
    /// Cancelled when the session is closed or expires: a call running then is killed.
    closed: CancellationToken,
}

struct Live {
    kept: Kept,
    carried: Carried,
}

impl Drop for SessionState {
    fn drop(&mut self) {
        self.closed.cancel();
    }
}

pub struct Sessions {
    table: Mutex<Table<SessionState>>,
    reaper: OnceLock<()>,
}

impl Sessions {
    pub fn new(limits: SessionLimits) -> Sessions {
        Sessions {
            table: Mutex::new(Table::new(limits)),
            reaper: OnceLock::new(),
        }
    }

    fn table(&self) -> MutexGuard<'_, Table<SessionState>> {
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn limits(&self) -> SessionLimits {
        self.table().limits()
    }

    /// Ends every session; their containers are destroyed in the background (the sandbox's
    /// shutdown waits for that).
    pub fn close_all(&self) {
        let states = self.table().drain();
        for state in &states {
            state.closed.cancel();
        }
    }

    /// Starts the task that closes expired sessions, once, on the first session.
    fn start_reaper(shared: &Arc<Shared>) {
        shared.sessions.reaper.get_or_init(|| {
            let weak: Weak<Shared> = Arc::downgrade(shared);
            let limits = shared.sessions.limits();
            let period = (limits.idle.min(limits.lifetime) / 4)
                .clamp(Duration::from_millis(100), Duration::from_secs(5));
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(period).await;
                    let Some(shared) = weak.upgrade() else { return };
                    let expired = shared.sessions.table().expire(Instant::now());
                    for state in &expired {
                        state.closed.cancel();
                    }
                    if !expired.is_empty() {
                        tracing::info!(count = expired.len(), "closed expired sessions");
                    }
                }
            });
        });
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct OpenArgs {
    /// The session's language: `python` or `javascript`.
    pub language: Language,
    /// Files to write into the session's working directory first, as for the run tools:
    /// `[{"path": "data.csv", "content": "a,b\n1,2\n"}]` (`"encoding": "base64"` for binary).
    #[serde(default)]
    pub files: Vec<FileEntry>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CloseArgs {
    /// The id `open_session` returned.
    pub session_id: String,
}

/// A session just opened.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Opened {
    /// Pass it as `session_id` to run_python_code / run_javascript_code. Only this client can.
    pub session_id: String,
    pub language: Language,
    /// When the session closes unless used again (RFC 3339); each call moves it on.
    pub expires_at: String,
    pub idle_timeout_seconds: u64,
    pub max_lifetime_seconds: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ClosedSession {
    pub session_id: String,
    pub closed: bool,
}

/// The client a session belongs to, or why this client cannot have one.
fn owner(identity: &ClientIdentity, key: ClientKey) -> Result<ClientKey, String> {
    match key {
        ClientKey::Anonymous => Err(format!(
            "sessions need a client that can be told apart from others: an MCP session (the Mcp-Session-Id header) or an OAuth token{}",
            if identity.subject.is_some() {
                ""
            } else {
                "; this request has neither"
            }
        )),
        key => Ok(key),
    }
}

pub(super) async fn open(
    shared: &Arc<Shared>,
    args: &OpenArgs,
    identity: &ClientIdentity,
    key: ClientKey,
    cancelled: CancellationToken,
) -> Result<Opened, String> {
    let gateway = &shared.gateway;
    let record =
        AuditRecord::new("open_session", args.language, "", &gateway.policy).by(&key, identity);
    let fail = |error: String| {
        shared.audit(&record.clone().with_error(&error));
        error
    };
    let owner = owner(identity, key).map_err(fail)?;
    let files = gateway
        .check_files(&args.files)
        .map_err(|e| fail(e.to_string()))?;
    let ticket = shared
        .admissions
        .enter(&owner)
        .map_err(|busy| fail(busy.to_string()))?;
    let reservation = shared
        .sessions
        .table()
        .reserve()
        .map_err(|e| fail(e.to_string()))?;
    let kept = async {
        let _slot = ticket.slot().await;
        gateway
            .sandbox
            .get()
            .await?
            .keep(args.language, &files)
            .await
    };
    let kept = tokio::select! {
        kept = kept => kept,
        () = cancelled.cancelled() => Err(SandboxError::Cancelled),
    };
    let (kept, _) = match kept {
        Ok(kept) => kept,
        Err(e) => {
            shared.sessions.table().release(reservation);
            return Err(fail(format!("The session could not be opened: {e}")));
        }
    };
    let state = SessionState {
        live: tokio::sync::Mutex::new(Some(Live {
            kept,
            carried: Carried::default(),
        })),
        closed: CancellationToken::new(),
    };
    let now = Instant::now();
    let (id, expires_at) = {
        let mut table = shared.sessions.table();
        let id = table.insert(reservation, owner, args.language, state, now);
        let expires = table.expires_at(&id, now).unwrap_or_default();
        (id, expires)
    };
    Sessions::start_reaper(shared);
    shared.audit(&record.in_session(&id).with_findings(Verdict::Allow, &[]));
    let limits = shared.sessions.limits();
    Ok(Opened {
        session_id: id,
        language: args.language,
        expires_at,
        idle_timeout_seconds: limits.idle.as_secs(),
        max_lifetime_seconds: limits.lifetime.as_secs(),
    })
}

pub(super) fn close(
    shared: &Shared,
    args: &CloseArgs,
    identity: &ClientIdentity,
    key: ClientKey,
) -> Result<ClosedSession, String> {
    let closed = shared.sessions.table().close(&args.session_id, &key);
    let language = closed.as_ref().ok().map(|(language, _)| *language);
    let record = AuditRecord::new("close_session", language, "", &shared.gateway.policy)
        .by(&key, identity)
        .in_session(&args.session_id);
    match closed {
        Ok((_, state)) => {
            state.closed.cancel();
            drop(state);
            shared.audit(&record);
            Ok(ClosedSession {
                session_id: args.session_id.clone(),
                closed: true,
            })
        }
        Err(e) => {
            shared.audit(&record.with_error(&e));
            Err(e.to_string())
        }
    }
}

/// The caller's open sessions, as the `sandbox://sessions` resource shows them.
pub(super) fn list(shared: &Shared, key: &ClientKey) -> Vec<SessionInfo> {
    shared.sessions.table().list(key, Instant::now())
}

/// One call of a run tool in a session.
pub(super) async fn call(
    shared: &Shared,
    tool: &'static str,
    language: Language,
    args: &CodeArgs,
    session_id: &str,
    ctx: &RequestContext<RoleServer>,
) -> CallToolResult {
    let (code, files) = (args.code.as_str(), args.files.as_slice());
    let identity = ClientIdentity::of(ctx);
    let key = identity.key(ctx);
    let ctx_cancelled = ctx.ct.clone();
    let gateway = &shared.gateway;
    let record = AuditRecord::new(tool, language, code, &gateway.policy)
        .by(&key, &identity)
        .in_session(session_id);
    let failed = |error: String| {
        shared.audit(&record.clone().with_error(&error));
        error_result(error)
    };
    let found = shared
        .sessions
        .table()
        .use_session(session_id, &key, Instant::now());
    let (session_language, state) = match found {
        Ok(found) => found,
        Err(e) => return failed(e.to_string()),
    };
    let _in_use = InUse { shared, session_id };
    if session_language != language {
        return failed(format!(
            "the session `{session_id}` runs {session_language}, not {language}; call run_{}_code with it",
            session_language.as_str()
        ));
    }
    let files = match gateway.check_files(files) {
        Ok(files) => files,
        Err(e) => return failed(e.to_string()),
    };
    let ticket = match shared.admissions.enter(&key) {
        Ok(ticket) => ticket,
        Err(busy) => return failed(busy.to_string()),
    };
    // One call at a time per session; waiting ends if the client cancels or the session closes.
    let mut live = tokio::select! {
        live = state.live.lock() => live,
        () = ctx_cancelled.cancelled() => {
            shared.audit(&record.cancelled(false));
            return error_result(format!("The call was cancelled before it ran; nothing changed in the session `{session_id}`."));
        }
        () = state.closed.cancelled() => return failed(ended(shared, session_id, &key)),
    };
    let Some(current) = live.as_mut() else {
        return failed(ended(shared, session_id, &key));
    };
    let (judgement, carried) = match gateway
        .assess_in_session(language, code, &current.carried)
        .await
    {
        Ok(assessed) => assessed,
        Err(e) => return failed(e.to_string()),
    };
    let record = record.with_findings(judgement.verdict, &judgement.findings);
    if judgement.verdict == Verdict::Deny {
        let mut report = RunReport::denied(judgement.clone());
        report.session = Some(open_status(shared, session_id));
        shared.audit(&record.with_report(&report));
        return present::present(&report, &gateway.policy);
    }
    let progress = super::progress::spawn(ctx, gateway.policy.limits.timeout);
    let outcome = async {
        let _slot = tokio::select! {
            slot = ticket.slot() => slot,
            () = ctx_cancelled.cancelled() => return Err(Stop::Cancelled { ran: false }),
            () = state.closed.cancelled() => return Err(Stop::Closed),
        };
        let sandbox = gateway
            .sandbox
            .get()
            .await
            .map_err(|e| Stop::Failed(e.into()))?;
        let stop = async {
            tokio::select! {
                () = ctx_cancelled.cancelled() => {}
                () = state.closed.cancelled() => {}
            }
        };
        let run = sandbox.run_kept(&mut current.kept, code, &files, stop);
        match run.await {
            Ok(execution) => Ok(execution),
            Err(SandboxError::Cancelled) if state.closed.is_cancelled() => Err(Stop::Closed),
            Err(SandboxError::Cancelled) => Err(Stop::Cancelled { ran: true }),
            Err(e) => Err(Stop::Failed(e.into())),
        }
    }
    .await;
    progress.abort();
    match outcome {
        Ok(execution) if execution.program_lives => {
            current.carried = carried;
            drop(live);
            let mut report = RunReport::ran(judgement.clone(), execution);
            report.session = Some(open_status(shared, session_id));
            finish(shared, record, report, key)
        }
        Ok(execution) => {
            let why = why_it_ended(&execution, &gateway.policy.limits);
            *live = None;
            drop(live);
            shared.sessions.table().end(session_id, &why);
            let mut report = RunReport::ran(judgement.clone(), execution);
            report.session = Some(SessionStatus {
                session_id: session_id.to_owned(),
                open: false,
                expires_at: None,
                ended: Some(why),
            });
            finish(shared, record, report, key)
        }
        Err(stop) => {
            *live = None;
            drop(live);
            let (why, text) = match &stop {
                Stop::Cancelled { ran: false } => (
                    "the client cancelled a call before it ran".to_owned(),
                    format!("The call was cancelled before it ran; the session `{session_id}` is unchanged."),
                ),
                Stop::Cancelled { ran: true } => (
                    "the client cancelled a call while it ran, which killed the session's container".to_owned(),
                    format!("The call was cancelled while it ran: its container was killed, so the session `{session_id}` has ended (its variables and files are gone). Open a new one with open_session."),
                ),
                Stop::Closed => (
                    "closed while a call ran".to_owned(),
                    format!("The session `{session_id}` was closed (or expired) while the call ran; the call was killed."),
                ),
                Stop::Failed(e) => (
                    format!("the sandbox failed: {e}"),
                    format!("The sandbox could not run the call: {e}. The session `{session_id}` has ended."),
                ),
            };
            if let Stop::Cancelled { ran: false } = stop {
                shared.audit(&record.cancelled(false));
                return error_result(text);
            }
            shared.sessions.table().end(session_id, &why);
            match stop {
                Stop::Cancelled { ran } => shared.audit(&record.cancelled(ran)),
                _ => shared.audit(&record.with_error(&why)),
            }
            error_result(text)
        }
    }
}

/// A call under way in a session, until it returns however it ends: the session is not idle
/// meanwhile.
struct InUse<'a> {
    shared: &'a Shared,
    session_id: &'a str,
}

impl Drop for InUse<'_> {
    fn drop(&mut self) {
        self.shared
            .sessions
            .table()
            .done(self.session_id, Instant::now());
    }
}

enum Stop {
    Cancelled { ran: bool },
    Closed,
    Failed(GatewayError),
}

fn finish(
    shared: &Shared,
    record: AuditRecord<'_>,
    report: RunReport,
    key: ClientKey,
) -> CallToolResult {
    shared.audit(&record.with_report(&report));
    let files = &report.execution.outputs.files;
    shared.run_files.put(
        &report.run_id,
        key,
        files
            .iter()
            .map(|f| (f.path.clone(), f.content.clone()))
            .collect(),
    );
    present::present(&report, &shared.gateway.policy)
}

fn open_status(shared: &Shared, session_id: &str) -> SessionStatus {
    let expires_at = shared
        .sessions
        .table()
        .expires_at(session_id, Instant::now());
    SessionStatus {
        session_id: session_id.to_owned(),
        open: expires_at.is_some(),
        ended: expires_at
            .is_none()
            .then(|| "it was closed or expired meanwhile".to_owned()),
        expires_at,
    }
}

/// Why a call whose program did not live on ended the session.
fn why_it_ended(e: &Execution, limits: &crate::policy::Limits) -> String {
    if e.timed_out {
        format!(
            "a call reached the time limit of {} s, and its container was killed",
            limits.timeout.as_secs_f64()
        )
    } else if e.oom_killed {
        format!(
            "a call ran out of memory (the session's limit is {}), and its container was killed",
            format_size(limits.memory_bytes)
        )
    } else if e.killed_for_output {
        "a call flooded its output, and its container was killed".to_owned()
    } else if let Some(line) = e.stderr.lines().find(|l| l.starts_with("runner: ")) {
        // The runner's supervisor said why (its program died between calls).
        line["runner: ".len()..].to_owned()
    } else {
        format!(
            "its program's process exited (status {}) during a call",
            e.exit_code.map_or("unknown".to_owned(), |c| c.to_string())
        )
    }
}

/// The error for a session that ended while this call waited for it.
fn ended(shared: &Shared, session_id: &str, key: &ClientKey) -> String {
    let mut table = shared.sessions.table();
    let now = Instant::now();
    match table.use_session(session_id, key, now) {
        Err(e) => e.to_string(),
        Ok(_) => {
            table.done(session_id, now);
            SessionError::Ended {
                id: session_id.to_owned(),
                why: "it was closed".into(),
            }
            .to_string()
        }
    }
}
