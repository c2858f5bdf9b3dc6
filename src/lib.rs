//! code-sandbox-mcp: a security-policy-first gateway that runs AI agents' Python and JavaScript
//! snippets in hardened containers.
//!
//! The pipeline, one module per stage: [`analysis`] turns source into facts, [`policy`] judges
//! the facts against a YAML policy, [`sandbox`] runs what passes in a hardened container, and
//! [`gateway`] joins them, with [`workdir`] checking the files that go in and come out and
//! [`sessions`] keeping the books of containers kept for one client; [`lint`] presents
//! verdicts to people and tools, and [`visible`] makes
//! program output safe to read. [`mcp`] serves the gateway to MCP clients, over stdio or
//! [`http`], where [`oauth`] checks access tokens and [`identity`] says who a client is.

pub mod analysis;
pub mod audit;
pub mod diagnostic;
pub mod gateway;
pub mod http;
pub mod identity;
pub mod lint;
pub mod mcp;
pub mod oauth;
pub mod policy;
pub mod sandbox;
pub mod sessions;
pub mod visible;
pub mod workdir;
