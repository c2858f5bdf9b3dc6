//! The read-only resources: the active policy and the sandbox's environments.

use rmcp::ErrorData as McpError;
use rmcp::model::{ReadResourceResult, Resource, ResourceContents};

use base64::Engine as _;

use super::Shared;
use crate::analysis::Language;
use crate::identity::ClientKey;
use crate::policy::format_size;

pub(super) const POLICY_URI: &str = "policy://active";
pub(super) const ENVIRONMENTS_URI: &str = "sandbox://environments";

pub(super) fn list() -> Vec<Resource> {
    vec![
        Resource::new(POLICY_URI, "active-policy")
            .with_description("The active security policy: its rules (what is denied, warned, audited) and the sandbox limits")
            .with_mime_type("application/json"),
        Resource::new(ENVIRONMENTS_URI, "environments")
            .with_description("The languages and their images: interpreter version and every package each image holds")
            .with_mime_type("application/json"),
        Resource::new(super::sessions::SESSIONS_URI, "sessions")
            .with_description("This client's open sessions (open_session): id, language, calls, when each expires")
            .with_mime_type("application/json"),
    ]
}

/// One resource's contents; an unknown URI is a "resource not found" error that carries the
/// URI and names the real ones.
pub(super) async fn read(
    shared: &Shared,
    uri: &str,
    tools: &[String],
) -> Result<ReadResourceResult, McpError> {
    let text = match uri {
        POLICY_URI => policy_resource(shared),
        ENVIRONMENTS_URI => environments_resource(shared, tools).await,
        other => {
            return Err(McpError::resource_not_found(
                format!(
                    "no resource {other}; the resources are {POLICY_URI}, {ENVIRONMENTS_URI} and {}",
                    super::sessions::SESSIONS_URI
                ),
                Some(serde_json::json!({ "uri": other })),
            ));
        }
    };
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(text, uri).with_mime_type("application/json"),
    ]))
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

/// Each language's image and what its manifest names, once the sandbox has started (waiting
/// a little for a start under way).
async fn environments_resource(shared: &Shared, tools: &[String]) -> String {
    let config = shared.gateway.sandbox.config();
    let sandbox = shared
        .gateway
        .sandbox
        .started_within(std::time::Duration::from_secs(3))
        .await;
    let environment = |language: Language| match &sandbox {
        Some(sandbox) => match sandbox.manifest(language) {
            Some(m) => serde_json::json!({
                "image": sandbox.image(language),
                "runtime": m.runtime(),
                "packages": m.packages.iter().map(|p| serde_json::json!({
                    "name": p.name, "version": p.version, "modules": p.modules, "added": p.added,
                })).collect::<Vec<_>>(),
            }),
            None => serde_json::json!({ "image": config.image(language), "error": "not prepared" }),
        },
        None => {
            serde_json::json!({ "image": config.image(language), "error": "the sandbox is still starting (or could not start: see the server's log); read this again" })
        }
    };
    let value = serde_json::json!({
        "python": environment(Language::Python),
        "javascript": environment(Language::JavaScript),
        "work_dir": "/work",
        "network": "none",
        "engine": config.engine.to_string(),
        "container_runtime": shared.gateway.policy.limits.runtime.clone().unwrap_or_else(|| "engine default".into()),
        "tools": tools,
    });
    serde_json::to_string_pretty(&value).expect("json")
}

/// The caller's open sessions.
pub(super) fn sessions(shared: &Shared, client: &ClientKey) -> ReadResourceResult {
    let list = super::sessions::list(shared, client);
    let text =
        serde_json::to_string_pretty(&serde_json::json!({ "sessions": list })).expect("json");
    ReadResourceResult::new(vec![
        ResourceContents::text(text, super::sessions::SESSIONS_URI)
            .with_mime_type("application/json"),
    ])
}

/// A file a run returned, for the client that made the run (text as text, the rest base64).
pub(super) fn read_run_file(
    shared: &Shared,
    uri: &str,
    client: &ClientKey,
) -> Result<ReadResourceResult, McpError> {
    let file = shared.run_files.read(uri, client).map_err(|why| {
        McpError::resource_not_found(why, Some(serde_json::json!({ "uri": uri })))
    })?;
    let contents = match text_of(file.mime, &file.content) {
        Some(text) => ResourceContents::text(text, uri),
        None => ResourceContents::blob(
            base64::engine::general_purpose::STANDARD.encode(file.content.as_slice()),
            uri,
        ),
    };
    Ok(ReadResourceResult::new(vec![
        contents.with_mime_type(file.mime),
    ]))
}

/// The file as text, when its type is textual and it is UTF-8.
pub(super) fn text_of<'a>(mime: &str, content: &'a [u8]) -> Option<&'a str> {
    let textual = mime.starts_with("text/")
        || matches!(
            mime,
            "application/json" | "application/xml" | "application/yaml" | "image/svg+xml"
        );
    textual.then(|| std::str::from_utf8(content).ok()).flatten()
}
