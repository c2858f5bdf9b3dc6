//! The MCP layer: tools and resources over rmcp, wiring the gateway to clients. It decides
//! only how results are presented (structured content plus readable text, errors an agent can
//! act on), admission (a bounded queue with a share per client), what each tool needs of a
//! client's scopes, progress, cancellation and the audit trail.

mod admission;
mod framing;
mod present;
mod progress;
mod request_id;
mod resources;
pub mod run_files;
pub mod schema;
pub mod scopes;
pub mod sessions;

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::{ToolCallContext, schema_for_output};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorCode,
    Implementation, ListResourcesResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{
    ErrorData as McpError, Json, RoleServer, ServerHandler, tool, tool_handler, tool_router,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use self::admission::{Admission, Admissions, Busy};
pub use self::framing::{Closed, LineTransport, MAX_MESSAGE_BYTES, message_too_large};
pub use self::request_id::IdScanner;
use crate::analysis::Language;
use crate::audit::{AuditLog, AuditRecord};
use crate::gateway::{Gateway, GatewayError};
use crate::identity::{ClientIdentity, Scope};
use crate::policy::{Finding, Verdict};
use crate::sandbox::SandboxError;
use crate::sessions::SessionLimits;
use crate::workdir::FileEntry;
use run_files::RunFiles;
use sessions::Sessions;

/// Everything the tools share, across sessions (HTTP serves one server value per session).
pub struct Shared {
    pub gateway: Gateway,
    pub audit: Option<AuditLog>,
    pub admissions: Admissions,
    /// Files runs returned, for resources/read.
    pub run_files: RunFiles,
    /// Containers kept for one client between calls.
    pub sessions: Sessions,
}

impl Shared {
    pub fn new(
        gateway: Gateway,
        audit: Option<AuditLog>,
        admission: Admission,
        sessions: SessionLimits,
    ) -> Arc<Shared> {
        Arc::new(Shared {
            gateway,
            audit,
            admissions: Admissions::new(admission),
            run_files: RunFiles::new(run_files::DEFAULT_TTL, run_files::DEFAULT_CAPACITY),
            sessions: Sessions::new(sessions),
        })
    }

    /// Closes every session and stops the sandbox, waiting until their containers are gone.
    pub async fn shutdown(&self) {
        self.sessions.close_all();
        self.gateway.sandbox.shutdown().await;
    }

    fn audit(&self, record: &AuditRecord) {
        if let Some(audit) = &self.audit {
            audit.record(record);
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CodeArgs {
    /// The complete program to run. Print results to stdout; files go in the working directory.
    pub code: String,
    /// Files to write into the working directory before the code runs, e.g. a CSV to analyse:
    /// `[{"path": "data.csv", "content": "a,b\n1,2\n"}]`. Binary files: `"encoding": "base64"`.
    #[serde(default)]
    pub files: Vec<FileEntry>,
    /// Run in this session (from open_session): its variables, imports and files from earlier
    /// calls are there. Omit for a fresh, single-use sandbox.
    #[serde(default)]
    pub session_id: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CheckArgs {
    /// The code's language.
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

/// How long listing the tools waits for the sandbox to start, to describe its images.
const TOOLS_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

#[derive(Clone)]
pub struct SandboxServer {
    shared: Arc<Shared>,
    tool_router: ToolRouter<Self>,
    /// The tools' names, sorted, for errors and the environments resource.
    tool_names: Arc<[String]>,
}

#[tool_router]
impl SandboxServer {
    pub fn new(shared: Arc<Shared>) -> SandboxServer {
        let policy = &shared.gateway.policy;
        let mut router = Self::tool_router();
        let mut python = Self::run_python_code_tool_attr();
        python.description =
            Some(present::describe_run_tool(policy, Language::Python, None).into());
        let mut javascript = Self::run_javascript_code_tool_attr();
        javascript.description =
            Some(present::describe_run_tool(policy, Language::JavaScript, None).into());
        let mut open_session = Self::open_session_tool_attr();
        open_session.description =
            Some(present::describe_open_session(policy, shared.sessions.limits()).into());
        let mut alias = javascript.clone();
        alias.name = "run_js_code".into();
        router = router
            .with_route((python, Self::run_python_code))
            .with_route((javascript, Self::run_javascript_code))
            .with_route((alias, Self::run_javascript_code))
            .with_route((open_session, Self::open_session));
        for route in router.map.values_mut() {
            let tool = &mut route.attr;
            tool.input_schema = Arc::new(schema::plain(&tool.input_schema));
            tool.output_schema = tool
                .output_schema
                .as_ref()
                .map(|s| Arc::new(schema::plain(s)));
        }
        let mut tool_names: Vec<String> = router.map.keys().map(|k| k.to_string()).collect();
        tool_names.sort();
        SandboxServer {
            shared,
            tool_router: router,
            tool_names: tool_names.into(),
        }
    }

    /// Run Python code in the sandbox.
    #[tool(
        output_schema = schema_for_output::<crate::gateway::RunReport>(),
        annotations(title = "Run Python", read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn run_python_code(
        &self,
        Parameters(args): Parameters<CodeArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.run("run_python_code", Language::Python, &args, ctx)
            .await
    }

    /// Run JavaScript code in the sandbox.
    #[tool(
        output_schema = schema_for_output::<crate::gateway::RunReport>(),
        annotations(title = "Run JavaScript", read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn run_javascript_code(
        &self,
        Parameters(args): Parameters<CodeArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.run("run_javascript_code", Language::JavaScript, &args, ctx)
            .await
    }

    /// Open a session: one sandbox kept for this client, like a notebook kernel.
    #[tool(
        output_schema = schema_for_output::<sessions::Opened>(),
        annotations(title = "Open a session", read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn open_session(
        &self,
        Parameters(args): Parameters<sessions::OpenArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<sessions::Opened>, String> {
        let identity = ClientIdentity::of(&ctx);
        let key = identity.key(&ctx);
        sessions::open(&self.shared, &args, &identity, key, ctx.ct.clone())
            .await
            .map(Json)
    }

    /// Close a session: its container, variables and files are destroyed.
    #[tool(annotations(
        title = "Close a session",
        read_only_hint = false,
        destructive_hint = true,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn close_session(
        &self,
        Parameters(args): Parameters<sessions::CloseArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<sessions::ClosedSession>, String> {
        let identity = ClientIdentity::of(&ctx);
        let key = identity.key(&ctx);
        sessions::close(&self.shared, &args, &identity, key).map(Json)
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
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<CheckReport>, String> {
        let shared = &self.shared;
        let identity = ClientIdentity::of(&ctx);
        let record = AuditRecord::new(
            "check_code",
            args.language,
            &args.code,
            &shared.gateway.policy,
        )
        .by(&identity.key(&ctx), &identity);
        match shared.gateway.check(args.language, &args.code).await {
            Ok(judgement) => {
                shared.audit(&record.with_findings(judgement.verdict, &judgement.findings));
                Ok(Json(CheckReport {
                    verdict: judgement.verdict,
                    findings: judgement.findings,
                }))
            }
            Err(e) => {
                shared.audit(&record.with_error(&e));
                Err(e.to_string())
            }
        }
    }
}

impl SandboxServer {
    /// One run: admission, judgement, a slot, the sandbox, and the audit record of whatever
    /// happened, including a cancellation while waiting or running.
    async fn run(
        &self,
        tool: &'static str,
        language: Language,
        args: &CodeArgs,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        if let Some(session_id) = &args.session_id {
            return sessions::call(&self.shared, tool, language, args, session_id, &ctx).await;
        }
        let code = args.code.as_str();
        let shared = &self.shared;
        let gateway = &shared.gateway;
        let identity = ClientIdentity::of(&ctx);
        let client = identity.key(&ctx);
        let ticket = match shared.admissions.enter(&client) {
            Ok(ticket) => ticket,
            Err(busy) => return error_result(busy.to_string()),
        };
        let record = AuditRecord::new(tool, language, code, &gateway.policy).by(&client, &identity);
        let checked = match gateway.check_files(&args.files) {
            Ok(files) => gateway
                .assess(language, code)
                .await
                .map(|assessed| (files, assessed)),
            Err(error) => Err(error),
        };
        let (files, (judgement, runner)) = match checked {
            Ok(checked) => checked,
            Err(error) => {
                shared.audit(&record.with_error(&error));
                return error_result(error.to_string());
            }
        };
        let record = record.with_findings(judgement.verdict, &judgement.findings);
        let cancelled = ctx.ct.clone();
        let progress = progress::spawn(&ctx, gateway.policy.limits.timeout);
        let outcome = async {
            let _slot = if judgement.verdict == Verdict::Deny {
                None
            } else {
                tokio::select! {
                    slot = ticket.slot() => Some(slot),
                    () = cancelled.cancelled() => return Err(Cancelled { ran: false }),
                }
            };
            let run = gateway.run_judged(
                language,
                code,
                &files,
                judgement.clone(),
                runner,
                cancelled.clone().cancelled_owned(),
            );
            match run.await {
                Err(GatewayError::Sandbox(SandboxError::Cancelled)) => Err(Cancelled { ran: true }),
                other => Ok(other),
            }
        }
        .await;
        progress.abort();
        match outcome {
            Ok(Ok(report)) => {
                shared.audit(&record.with_report(&report));
                let files = &report.execution.outputs.files;
                shared.run_files.put(
                    &report.run_id,
                    client,
                    files
                        .iter()
                        .map(|f| (f.path.clone(), f.content.clone()))
                        .collect(),
                );
                present::present(&report, &gateway.policy)
            }
            Ok(Err(error)) => {
                shared.audit(&record.with_error(&error));
                error_result(match &error {
                    GatewayError::TooLarge { .. } | GatewayError::Files(_) => error.to_string(),
                    GatewayError::Sandbox(e) => format!("The sandbox could not run the code: {e}"),
                })
            }
            Err(Cancelled { ran }) => {
                shared.audit(&record.cancelled(ran));
                error_result("The run was cancelled.".into())
            }
        }
    }

    /// The error for a tool that does not exist, naming it and the real ones.
    fn unknown_tool(&self, name: &str) -> McpError {
        McpError::invalid_params(
            format!(
                "unknown tool `{name}`; the tools are: {}",
                self.tool_names.join(", ")
            ),
            Some(serde_json::json!({ "tool": name, "tools": &*self.tool_names })),
        )
    }
}

/// A run the client cancelled, before or after it started.
struct Cancelled {
    ran: bool,
}

pub(super) fn error_result(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// The error for a client whose token lacks the scope a request needs. Over HTTP the client
/// gets a 403 before this point; this is the same rule enforced where the work is done.
fn missing_scope(scope: Scope, what: &str) -> McpError {
    McpError::new(
        ErrorCode::INVALID_REQUEST,
        format!("{what} needs the scope {scope}, which this client's token does not grant"),
        Some(serde_json::json!({ "error": "insufficient_scope", "scope": scope.as_str() })),
    )
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for SandboxServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().build())
            .with_server_info(Implementation::new("code-sandbox-mcp", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "Runs Python and JavaScript in isolated, single-use containers after the `{}` security policy has checked the code; \
                 open_session keeps one container for this client, so variables, imports and files persist between calls. \
                 Resources: policy://active (the policy's rules and limits), sandbox://environments (languages, images, libraries), \
                 sandbox://sessions (this client's open sessions).",
                self.shared.gateway.policy.name
            ))
    }

    /// The tools, with the run tools' descriptions naming what their images really hold once
    /// the sandbox has started (waiting a little for it: it usually starts in a second).
    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListToolsResult, McpError> {
        let mut tools = self.tool_router.list_all();
        let sandbox = self.shared.gateway.sandbox.started_within(TOOLS_WAIT).await;
        if let Some(sandbox) = sandbox {
            for tool in &mut tools {
                let language = match tool.name.as_ref() {
                    "run_python_code" => Language::Python,
                    "run_javascript_code" | "run_js_code" => Language::JavaScript,
                    _ => continue,
                };
                tool.description = Some(
                    present::describe_run_tool(
                        &self.shared.gateway.policy,
                        language,
                        sandbox.manifest(language),
                    )
                    .into(),
                );
            }
        }
        let cache_hints = context
            .protocol_version()
            .is_some_and(|v| v >= rmcp::model::ProtocolVersion::V_2026_07_28);
        Ok(rmcp::model::ListToolsResult {
            result_type: Some(rmcp::model::ResultType::COMPLETE),
            tools,
            meta: None,
            next_cursor: None,
            ttl_ms: cache_hints.then_some(0),
            cache_scope: cache_hints.then_some(rmcp::model::CacheScope::Public),
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if !self.tool_router.has_route(&request.name) {
            return Err(self.unknown_tool(&request.name));
        }
        let scope = scopes::for_tool(&request.name);
        if !ClientIdentity::of(&ctx).may(scope) {
            return Err(missing_scope(scope, &format!("the tool {}", request.name)));
        }
        self.tool_router
            .call(ToolCallContext::new(self, request, ctx))
            .await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(resources::list()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        if !ClientIdentity::of(&ctx).may(Scope::Check) {
            return Err(missing_scope(Scope::Check, "reading a resource"));
        }
        if request.uri == sessions::SESSIONS_URI {
            let client = ClientIdentity::of(&ctx).key(&ctx);
            return Ok(resources::sessions(&self.shared, &client).into());
        }
        if RunFiles::claims(&request.uri) {
            let client = ClientIdentity::of(&ctx).key(&ctx);
            return resources::read_run_file(&self.shared, &request.uri, &client).map(Into::into);
        }
        resources::read(&self.shared, &request.uri, &self.tool_names)
            .await
            .map(Into::into)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::{LazySandbox, SandboxConfig};

    fn server() -> SandboxServer {
        let policy = crate::policy::load("standard").unwrap();
        let sandbox = LazySandbox::new(SandboxConfig::default(), policy.limits.clone());
        let admission = Admission {
            max_concurrent: 1,
            max_queue: 0,
            max_concurrent_per_client: None,
        };
        SandboxServer::new(Shared::new(
            Gateway { policy, sandbox },
            None,
            admission,
            SessionLimits::default(),
        ))
    }

    #[test]
    fn every_tool_has_a_line_in_the_scope_table() {
        let server = server();
        for name in server.tool_names.iter() {
            assert!(
                scopes::TOOL_SCOPES.iter().any(|(tool, _)| tool == name),
                "the tool {name} needs a line in mcp::scopes::TOOL_SCOPES"
            );
        }
        assert_eq!(server.tool_names.len(), scopes::TOOL_SCOPES.len());
    }

    #[test]
    fn schemas_are_plain_json_schema_and_name_every_language() {
        let server = server();
        for tool in server.tool_router.list_all() {
            let input = serde_json::to_string(&tool.input_schema).unwrap();
            let output = serde_json::to_string(&tool.output_schema).unwrap();
            for text in [&input, &output] {
                assert!(!text.contains("\"format\""), "{}: {text}", tool.name);
            }
        }
        let check = server.tool_router.get("check_code").unwrap();
        let schema = serde_json::to_string(&check.input_schema).unwrap();
        for (name, _) in Language::NAMES {
            assert!(
                schema.contains(&format!("\"{name}\"")),
                "{name} missing from {schema}"
            );
        }
    }

    #[test]
    fn an_unknown_tool_is_named_with_the_real_ones() {
        let error = server().unknown_tool("run_ruby_code");
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert!(
            error.message.contains("`run_ruby_code`"),
            "{}",
            error.message
        );
        assert!(
            error
                .message
                .contains("check_code, close_session, open_session, run_javascript_code, run_js_code, run_python_code"),
            "{}",
            error.message
        );
    }
}
