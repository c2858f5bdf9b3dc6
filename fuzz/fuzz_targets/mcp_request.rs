//! Arbitrary bytes as the JSON-RPC stream a client sends the MCP server, through the same line
//! transport as stdio (with a small message limit, so oversized lines are exercised too). No
//! container is ever started: the engine address points nowhere, so run tools fail fast while
//! framing, parsing, routing, argument validation, check_code and resources are exercised. The
//! server must neither panic nor hang; it ends when the input does.
#![no_main]

use std::time::Duration;

use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::gateway::Gateway;
use code_sandbox_mcp::mcp::{Admission, LineTransport, SandboxServer, Shared};
use code_sandbox_mcp::sandbox::{LazySandbox, SandboxConfig};
use libfuzzer_sys::fuzz_target;
use rmcp::ServiceExt;
use tokio::io::AsyncWriteExt;

fuzz_target!(|data: &[u8]| {
    static INIT: std::sync::Once = std::sync::Once::new();
    // SAFETY: set once, before any thread of this process reads the environment.
    INIT.call_once(|| unsafe { std::env::set_var("DOCKER_HOST", "unix:///nonexistent/fuzz.sock") });
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let policy = code_sandbox_mcp::policy::load("standard").unwrap();
        let config = SandboxConfig { pool_size: 0, languages: vec![Language::Python], ..Default::default() };
        let sandbox = LazySandbox::new(config, policy.limits.clone());
        let shared = Shared::new(Gateway { policy, sandbox }, None, Admission { max_concurrent: 1, max_queue: 1, max_concurrent_per_client: None }, Default::default());
        let (client, server_io) = tokio::io::duplex(64 * 1024);
        let (server_read, server_write) = tokio::io::split(server_io);
        let (client_read, mut client_write) = tokio::io::split(client);
        let drain = tokio::spawn(async move {
            let mut sink = tokio::io::sink();
            let mut client_read = client_read;
            let _ = tokio::io::copy(&mut client_read, &mut sink).await;
        });
        let feed = async move {
            let _ = client_write.write_all(data).await;
            let _ = client_write.shutdown().await;
        };
        let serve = async {
            let (transport, _closed) = LineTransport::new(server_read, server_write, 4096);
            if let Ok(service) = SandboxServer::new(shared).serve(transport).await {
                let _ = service.waiting().await;
            }
        };
        let finished = tokio::time::timeout(Duration::from_secs(5), async { tokio::join!(feed, serve) }).await;
        assert!(finished.is_ok(), "the server did not finish after its input ended");
        drain.abort();
    });
});
