//! The MCP server (the default command): stdio, or streamable HTTP on a loopback address by
//! default. A non-loopback address requires authentication: OAuth access tokens, or a static
//! bearer token.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, ValueEnum};
use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::audit::AuditLog;
use code_sandbox_mcp::gateway::Gateway;
use code_sandbox_mcp::http::{self, HttpOptions};
use code_sandbox_mcp::mcp::{Admission, LineTransport, MAX_MESSAGE_BYTES, SandboxServer, Shared};
use code_sandbox_mcp::oauth::{OAuthSettings, TokenVerifier};
use code_sandbox_mcp::sandbox::LazySandbox;
use code_sandbox_mcp::sessions::{self, SessionLimits};
use rmcp::ServiceExt;

use super::{EXIT_SANDBOX_ERROR, SandboxArgs};

#[derive(Clone, Copy, ValueEnum)]
pub enum Transport {
    Stdio,
    Http,
}

#[derive(Args)]
pub struct ServerArgs {
    /// How clients connect.
    #[arg(long, value_enum, default_value_t = Transport::Stdio)]
    pub transport: Transport,
    /// Address for `--transport http` (path /mcp). Loopback unless clients authenticate.
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "ADDR")]
    pub listen: SocketAddr,
    /// Environment variable holding the bearer token HTTP clients must send.
    #[arg(long, value_name = "VAR")]
    pub auth_token_env: Option<String>,
    /// OAuth: the authorization server whose access tokens are accepted (their `iss`).
    #[arg(long, value_name = "URL", requires_all = ["oauth_audience", "oauth_jwks"])]
    pub oauth_issuer: Option<String>,
    /// OAuth: this server's canonical URI, the resource tokens must be issued for (their `aud`).
    #[arg(long, value_name = "URI", requires_all = ["oauth_issuer", "oauth_jwks"])]
    pub oauth_audience: Option<String>,
    /// OAuth: a file with the authorization server's public keys (a JWK set).
    #[arg(long, value_name = "FILE", requires_all = ["oauth_issuer", "oauth_audience"])]
    pub oauth_jwks: Option<PathBuf>,
    /// A browser origin (scheme://host[:port]) allowed to send requests, besides the server's
    /// own; repeat for more.
    #[arg(long, value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
    /// Append one JSON line per request to this file.
    #[arg(long, value_name = "PATH")]
    pub audit_log: Option<PathBuf>,
    /// Runs executing at once.
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub max_concurrent: usize,
    /// Further runs allowed to wait; beyond this a call gets a "busy" error at once.
    #[arg(long, default_value_t = 16, value_name = "N")]
    pub max_queue: usize,
    /// Runs one client may have executing at once (a client is its OAuth subject, else its
    /// MCP session); it may hold the same share of the queue. Default over HTTP: half of
    /// --max-concurrent, rounded up; over stdio, which serves one client, no limit.
    #[arg(long, value_name = "N")]
    pub max_concurrent_per_client: Option<usize>,
    /// Sessions (open_session) open at once, across clients; each holds a container.
    #[arg(long, default_value_t = sessions::DEFAULT_MAX, value_name = "N")]
    pub max_sessions: usize,
    /// A session unused this long is closed (e.g. 10m, 90s).
    #[arg(long, default_value = "10m", value_parser = humantime::parse_duration, value_name = "DURATION")]
    pub session_idle_timeout: std::time::Duration,
    /// A session is closed this long after it opened, however busy (e.g. 1h).
    #[arg(long, default_value = "1h", value_parser = humantime::parse_duration, value_name = "DURATION")]
    pub session_max_lifetime: std::time::Duration,
}

pub async fn serve(sandbox_args: &SandboxArgs, args: &ServerArgs) -> ExitCode {
    match serve_inner(sandbox_args, args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_SANDBOX_ERROR)
        }
    }
}

async fn serve_inner(sandbox_args: &SandboxArgs, args: &ServerArgs) -> Result<(), String> {
    let http_options = match args.transport {
        Transport::Http => Some(http_options(args)?),
        Transport::Stdio => None,
    };
    let policy = sandbox_args.load_policy()?;
    let audit = match &args.audit_log {
        Some(path) => Some(AuditLog::open(path).map_err(|e| e.to_string())?),
        None => None,
    };
    let config = sandbox_args.config(Language::ALL.to_vec(), sandbox_args.pool_size)?;
    let policy_name = policy.name.clone();
    super::engine_probe::spawn(config.engine.clone());
    let sandbox = LazySandbox::new(config, policy.limits.clone());
    let per_client_default = match args.transport {
        Transport::Http => Some(args.max_concurrent.div_ceil(2)),
        Transport::Stdio => None,
    };
    let admission = Admission {
        max_concurrent: args.max_concurrent,
        max_queue: args.max_queue,
        max_concurrent_per_client: args.max_concurrent_per_client.or(per_client_default),
    };
    let session_limits = SessionLimits {
        idle: args.session_idle_timeout,
        lifetime: args.session_max_lifetime,
        max: args.max_sessions,
    };
    let shared = Shared::new(
        Gateway { policy, sandbox },
        audit,
        admission,
        session_limits,
    );

    // Start the sandbox (engine, images, pools) now, but answer clients meanwhile: a first
    // image build takes minutes, longer than clients wait for an initialize response.
    let warming = Arc::clone(&shared);
    tokio::spawn(async move {
        if let Err(e) = warming.gateway.sandbox.get().await {
            tracing::error!("the sandbox is not ready: {e}");
            eprintln!("code-sandbox-mcp: the sandbox is not ready: {e}");
        }
    });

    let server = SandboxServer::new(Arc::clone(&shared));
    let result = match http_options {
        None => {
            eprintln!("code-sandbox-mcp: serving MCP on stdio with policy {policy_name}");
            serve_stdio(server).await
        }
        Some(options) => {
            eprintln!(
                "code-sandbox-mcp: serving MCP at http://{}{} with policy {policy_name}",
                args.listen,
                http::ENDPOINT
            );
            http::serve(server, options, shutdown_signal()).await
        }
    };
    shared.shutdown().await;
    result
}

/// The HTTP server's authentication and origins, checked before anything starts.
fn http_options(args: &ServerArgs) -> Result<HttpOptions, String> {
    let static_token = match &args.auth_token_env {
        None => None,
        Some(var) => match std::env::var(var) {
            Ok(value) if !value.trim().is_empty() => Some(value.trim().to_owned()),
            _ => {
                return Err(format!(
                    "--auth-token-env names {var}, which is not set or empty"
                ));
            }
        },
    };
    let oauth = match (&args.oauth_issuer, &args.oauth_audience, &args.oauth_jwks) {
        (Some(issuer), Some(audience), Some(jwks)) => Some(TokenVerifier::load(OAuthSettings {
            issuer: issuer.clone(),
            audience: audience.clone(),
            jwks: jwks.clone(),
        })?),
        _ => None,
    };
    HttpOptions::new(args.listen, static_token, oauth, &args.allow_origin)
}

/// Serves one client on stdin and stdout until either side ends. A message whose request
/// cannot be answered ends the connection with the reason (see `mcp::LineTransport`).
async fn serve_stdio(server: SandboxServer) -> Result<(), String> {
    // Pipes (how MCP clients start servers) are driven by tokio's reactor, not its blocking
    // pool, which saves a thread hand-off per message; other stdio falls back to the latter.
    let (read, write) = rmcp::transport::stdio_pipes();
    let (transport, closed) = LineTransport::new(read, write, MAX_MESSAGE_BYTES);
    let served = async {
        let service = server
            .serve(transport)
            .await
            .map_err(|e| format!("MCP handshake failed: {e}"))?;
        tokio::select! {
            result = service.waiting() => result.map(drop).map_err(|e| e.to_string()),
            _ = shutdown_signal() => Ok(()),
        }
    };
    let result = served.await;
    // The transport's own reason for ending the connection says more than what followed.
    match closed.reason() {
        Some(reason) => Err(reason),
        None => result,
    }
}

async fn shutdown_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = async { match term.as_mut() { Some(t) => { t.recv().await; } None => std::future::pending().await } } => {}
    }
}
