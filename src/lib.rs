//! code-sandbox-mcp: a security-policy-first gateway that runs AI agents' Python and JavaScript
//! snippets in hardened containers.
//!
//! The pipeline, one module per stage: [`analysis`] turns source into facts, [`policy`] judges
//! the facts against a YAML policy, [`sandbox`] runs what passes in a hardened container, and
//! [`gateway`] joins them; [`lint`] presents verdicts to people and tools.

pub mod analysis;
pub mod audit;
pub mod diagnostic;
pub mod gateway;
pub mod lint;
pub mod mcp;
pub mod policy;
pub mod sandbox;
