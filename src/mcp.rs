//! The MCP layer: tools and resources over rmcp, wiring the gateway to clients. It decides
//! only how results are presented (structured content plus readable text, errors an agent can
//! act on), admission (a bounded queue), progress, cancellation and the audit trail.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::schema_for_output;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ListResourcesResult, PaginatedRequestParams,
    ProgressNotificationParam, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    Resource, ResourceContents, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{
    ErrorData as McpError, Json, RoleServer, ServerHandler, tool, tool_handler, tool_router,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;

use crate::analysis::Language;
use crate::audit::{AuditLog, AuditRecord};
use crate::gateway::{Gateway, GatewayError, RunReport};
use crate::policy::{Action, Finding, Verdict, format_size};

/// How many runs execute at once, and how many more may wait.
#[derive(Debug, Clone, Copy)]
pub struct Admission {
    pub max_concurrent: usize,
    pub max_queue: usize,
}

/// Everything the tools share, across sessions (HTTP serves one server value per session).
pub struct Shared {
    pub gateway: Gateway,
    pub audit: Option<AuditLog>,
    admission: Admission,
    running: Semaphore,
    in_flight: AtomicUsize,
}

impl Shared {
    pub fn new(gateway: Gateway, audit: Option<AuditLog>, admission: Admission) -> Arc<Shared> {
        Arc::new(Shared {
            gateway,
            audit,
            admission,
            running: Semaphore::new(admission.max_concurrent.max(1)),
            in_flight: AtomicUsize::new(0),
        })
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CodeArgs {
    /// The complete program to run. Print results to stdout; files go in the working directory.
    pub code: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CheckArgs {
    /// `python` or `javascript`.
    pub language: Language,
    /// The code to check; it is not run.
    pub code: String,
}

/// The analyzer's verdict on code that was not run.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CheckReport {
    pub verdict: Verdict,
    pub findings: Vec<Finding>,
}

#[derive(Clone)]
pub struct SandboxServer {
    shared: Arc<Shared>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl SandboxServer {
    pub fn new(shared: Arc<Shared>) -> SandboxServer {
        let mut router = Self::tool_router();
        let mut python = Self::run_python_code_tool_attr();
        python.description = Some(describe_run_tool(&shared, Language::Python).into());
        let mut javascript = Self::run_javascript_code_tool_attr();
        javascript.description = Some(describe_run_tool(&shared, Language::JavaScript).into());
        let mut alias = javascript.clone();
        alias.name = "run_js_code".into();
        router = router
            .with_route((python, Self::run_python_code))
            .with_route((javascript, Self::run_javascript_code))
            .with_route((alias, Self::run_javascript_code));
        SandboxServer {
            shared,
            tool_router: router,
        }
    }

    /// Run Python code in the sandbox.
    #[tool(
        output_schema = schema_for_output::<RunReport>(),
        annotations(title = "Run Python", read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn run_python_code(
        &self,
        Parameters(args): Parameters<CodeArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.run("run_python_code", Language::Python, &args.code, ctx)
            .await
    }

    /// Run JavaScript code in the sandbox.
    #[tool(
        output_schema = schema_for_output::<RunReport>(),
        annotations(title = "Run JavaScript", read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn run_javascript_code(
        &self,
        Parameters(args): Parameters<CodeArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.run("run_javascript_code", Language::JavaScript, &args.code, ctx)
            .await
    }

    /// Check Python or JavaScript code against the sandbox's security policy without running
    /// it: returns the verdict (allow, warn or deny) and each finding with its rule, line and
    /// what to do instead.
    #[tool(annotations(
        title = "Check code",
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn check_code(
        &self,
        Parameters(args): Parameters<CheckArgs>,
    ) -> Result<Json<CheckReport>, String> {
        let shared = &self.shared;
        let record = AuditRecord::new(
            "check_code",
            args.language,
            &args.code,
            &shared.gateway.policy,
        );
        match shared.gateway.check(args.language, &args.code) {
            Ok(judgement) => {
                if let Some(audit) = &shared.audit {
                    audit.record(&record.with_findings(judgement.verdict, &judgement.findings));
                }
                Ok(Json(CheckReport {
                    verdict: judgement.verdict,
                    findings: judgement.findings,
                }))
            }
            Err(e) => {
                if let Some(audit) = &shared.audit {
                    audit.record(&record.with_error(&e));
                }
                Err(e.to_string())
            }
        }
    }
}

impl SandboxServer {
    async fn run(
        &self,
        tool: &'static str,
        language: Language,
        code: &str,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let shared = &self.shared;
        let Some(_admitted) = Admitted::enter(shared) else {
            let a = shared.admission;
            return CallToolResult::error(vec![ContentBlock::text(format!(
                "The sandbox is busy: {} runs are executing and {} waiting, its maximum. Retry in a few seconds.",
                a.max_concurrent, a.max_queue
            ))]);
        };
        let cancelled = ctx.ct.clone();
        let progress = spawn_progress(&ctx, shared.gateway.policy.limits.timeout);
        let outcome = async {
            let _running = shared
                .running
                .acquire()
                .await
                .expect("the semaphore is never closed");
            shared
                .gateway
                .run(language, code, cancelled.cancelled_owned())
                .await
        }
        .await;
        progress.abort();
        let policy = &shared.gateway.policy;
        let record = AuditRecord::new(tool, language, code, policy);
        match outcome {
            Ok(report) => {
                if let Some(audit) = &shared.audit {
                    audit.record(&record.with_report(&report));
                }
                present(&report, policy)
            }
            Err(error) => {
                if let Some(audit) = &shared.audit {
                    audit.record(&record.with_error(&error));
                }
                let text = match &error {
                    GatewayError::TooLarge { .. } => error.to_string(),
                    GatewayError::Sandbox(e) => format!("The sandbox could not run the code: {e}"),
                };
                CallToolResult::error(vec![ContentBlock::text(text)])
            }
        }
    }
}

/// One admitted request (running or queued); dropping it frees the place.
struct Admitted<'a>(&'a Shared);

impl<'a> Admitted<'a> {
    fn enter(shared: &'a Shared) -> Option<Admitted<'a>> {
        let limit = shared.admission.max_concurrent + shared.admission.max_queue;
        let previous = shared.in_flight.fetch_add(1, Ordering::AcqRel);
        if previous >= limit {
            shared.in_flight.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        Some(Admitted(shared))
    }
}

impl Drop for Admitted<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Sends a progress notification every second while a run lasts, when the client asked for
/// progress (sent a token).
fn spawn_progress(
    ctx: &RequestContext<RoleServer>,
    limit: Duration,
) -> tokio::task::JoinHandle<()> {
    let token = ctx.meta.get_progress_token();
    let peer = ctx.peer.clone();
    tokio::spawn(async move {
        let Some(token) = token else { return };
        let started = Instant::now();
        loop {
            tokio::time::sleep(Duration::from_secs(1)).await;
            let elapsed = started.elapsed().as_secs_f64();
            let note = ProgressNotificationParam::new(token.clone(), elapsed.floor())
                .with_total(limit.as_secs_f64())
                .with_message(format!(
                    "running for {elapsed:.0} s (limit {} s)",
                    limit.as_secs()
                ));
            if peer.notify_progress(note).await.is_err() {
                return;
            }
        }
    })
}

/// The tool result: the report as structured content, and text a model reads. A denial, a
/// timeout and an OOM kill are errors (`isError`), each saying what happened and what to do.
fn present(report: &RunReport, policy: &crate::policy::Policy) -> CallToolResult {
    let value = serde_json::to_value(report).expect("reports serialize");
    let e = &report.execution;
    let limits = &policy.limits;
    let mut text = String::new();
    let is_error = if !report.ran {
        text.push_str(&format!("The sandbox policy `{}` denied this code; nothing ran. Fix each finding and try again:\n", policy.name));
        push_findings(&mut text, &report.findings, |f| f.action == Action::Deny);
        true
    } else if e.timed_out {
        text.push_str(&format!(
            "The code was killed at the sandbox's time limit of {} s. Make it faster, or process less data per call.\n",
            limits.timeout.as_secs_f64()
        ));
        true
    } else if e.oom_killed {
        text.push_str(&format!(
            "The code was killed for exceeding the sandbox's memory limit of {}. Use less memory: smaller data, chunks, generators.\n",
            format_size(limits.memory_bytes)
        ));
        true
    } else {
        let code = e.exit_code.map_or("unknown".to_owned(), |c| c.to_string());
        text.push_str(&format!("Exit code {code} ({} ms).\n", e.duration_ms));
        false
    };
    if report.ran {
        if !e.stdout.is_empty() {
            text.push_str(&format!(
                "--- stdout ---\n{}\n",
                e.stdout.trim_end_matches('\n')
            ));
        }
        if !e.stderr.is_empty() {
            text.push_str(&format!(
                "--- stderr ---\n{}\n",
                e.stderr.trim_end_matches('\n')
            ));
        }
        if e.stdout_truncated || e.stderr_truncated {
            text.push_str(&format!(
                "(output beyond {} per stream was cut off)\n",
                format_size(limits.output_bytes)
            ));
        }
        if !report.findings.is_empty() {
            text.push_str("Policy notes (the code ran):\n");
            push_findings(&mut text, &report.findings, |_| true);
        }
    }
    let mut result = if is_error {
        CallToolResult::structured_error(value)
    } else {
        CallToolResult::structured(value)
    };
    result.content = vec![ContentBlock::text(text.trim_end().to_owned())];
    result
}

fn push_findings(text: &mut String, findings: &[Finding], include: impl Fn(&Finding) -> bool) {
    for f in findings.iter().filter(|f| include(f)) {
        text.push_str(&format!(
            "- line {}, column {}: [{}] {}. What to do instead: {}\n",
            f.line, f.column, f.rule, f.detail, f.message
        ));
    }
}

/// A run tool's description: what the sandbox has, its limits, and what the policy forbids.
fn describe_run_tool(shared: &Shared, language: Language) -> String {
    let policy = &shared.gateway.policy;
    let l = &policy.limits;
    let runtime = match language {
        Language::Python => {
            "Python 3.11 with the standard library, numpy, pandas, matplotlib (Agg backend: save figures to files such as plot.png), scipy and scikit-learn"
        }
        Language::JavaScript => {
            "Node.js 18 (CommonJS, or ES modules when the code uses import/export; top-level await works there)"
        }
    };
    let ids = |action: Action| {
        policy
            .rules
            .iter()
            .filter(|r| r.action == action && r.languages.contains(&language))
            .map(|r| r.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut text = format!(
        "Run {language} code in a fresh, isolated sandbox and get its stdout, stderr and exit code. It has {runtime}; \
         nothing can be installed. There is no network. The working directory /work is writable ({} in all) and so is /tmp; \
         everything else is read-only. Limits: {} of memory, {} CPU, {} s, {} of output per stream. \
         Before it runs, the code is checked by the `{}` security policy",
        format_size(l.tmpfs_bytes),
        format_size(l.memory_bytes),
        l.cpus,
        l.timeout.as_secs_f64(),
        format_size(l.output_bytes),
        policy.name,
    );
    let denied = ids(Action::Deny);
    if !denied.is_empty() {
        text.push_str(&format!(", which denies: {denied}"));
    }
    let warned = ids(Action::Warn);
    if !warned.is_empty() {
        text.push_str(&format!("; and warns on: {warned}"));
    }
    text.push_str(". A denied call returns an error naming each rule and line and what to write instead; fix the code and call again. Use check_code to check code without running it.");
    text
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for SandboxServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().build())
            .with_server_info(Implementation::new("code-sandbox-mcp", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "Runs Python and JavaScript in isolated, single-use containers after the `{}` security policy has checked the code. \
                 Resources: policy://active (the policy's rules and limits), sandbox://environments (languages, images, libraries).",
                self.shared.gateway.policy.name
            ))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(vec![
            Resource::new("policy://active", "active-policy")
                .with_description("The active security policy: its rules (what is denied, warned, audited) and the sandbox limits")
                .with_mime_type("application/json"),
            Resource::new("sandbox://environments", "environments")
                .with_description("The languages, images and libraries of the sandbox")
                .with_mime_type("application/json"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let text = match request.uri.as_str() {
            "policy://active" => policy_resource(&self.shared),
            "sandbox://environments" => environments_resource(&self.shared),
            other => {
                return Err(McpError::resource_not_found(
                    format!("no resource {other}; see resources/list"),
                    None,
                ));
            }
        };
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, request.uri.clone()).with_mime_type("application/json"),
        ])
        .into())
    }
}

fn policy_resource(shared: &Shared) -> String {
    let policy = &shared.gateway.policy;
    let l = &policy.limits;
    let rules: Vec<serde_json::Value> = policy
        .rules
        .iter()
        .map(|r| {
            serde_json::json!({
                "id": r.id, "action": r.action, "severity": r.severity, "languages": r.languages,
                "message": r.message, "why": r.docs.why.trim(), "instead": r.docs.instead.trim(),
            })
        })
        .collect();
    let value = serde_json::json!({
        "name": policy.name, "description": policy.description, "origin": policy.origin, "sha256": policy.digest,
        "limits": {
            "memory": format_size(l.memory_bytes), "cpus": l.cpus, "pids": l.pids, "timeout_seconds": l.timeout.as_secs_f64(),
            "output_bytes_per_stream": l.output_bytes, "work_dir": format_size(l.tmpfs_bytes), "network": "none",
            "runtime": l.runtime.clone().unwrap_or_else(|| "engine default".into()),
        },
        "rules": rules,
    });
    serde_json::to_string_pretty(&value).expect("json")
}

fn environments_resource(shared: &Shared) -> String {
    let config = shared.gateway.sandbox.config();
    let value = serde_json::json!({
        "python": {
            "image": config.image(Language::Python),
            "runtime": "Python 3.11 (Debian bookworm)",
            "libraries": ["numpy", "pandas", "matplotlib", "scipy", "scikit-learn"],
            "preloaded": ["numpy", "pandas", "matplotlib.pyplot (Agg)"],
        },
        "javascript": {
            "image": config.image(Language::JavaScript),
            "runtime": "Node.js 18 (Debian bookworm)",
            "libraries": [],
        },
        "work_dir": "/work",
        "network": "none",
        "engine": config.engine.to_string(),
        "container_runtime": shared.gateway.policy.limits.runtime.clone().unwrap_or_else(|| "engine default".into()),
        "tools": ["run_python_code", "run_javascript_code", "run_js_code", "check_code"],
    });
    serde_json::to_string_pretty(&value).expect("json")
}
