//! The labels every sandbox container carries: how a gateway finds its own containers, those
//! a crashed gateway left behind, and the user ids other gateways' containers hold, on any
//! backend.

/// Every container the gateway creates carries this label, so leftovers can be found.
pub const LABEL_MANAGED: &str = "code-sandbox-mcp.managed";
/// `<hostname>:<pid>` of the gateway that created the container.
pub const LABEL_OWNER: &str = "code-sandbox-mcp.owner";
/// A random id of the sandbox instance (one process may run several, e.g. tests).
pub const LABEL_INSTANCE: &str = "code-sandbox-mcp.instance";
/// The container's own uid (and gid), so gateways sharing an engine never pick the same.
pub const LABEL_UID: &str = "code-sandbox-mcp.uid";

/// This gateway's owner label value.
pub fn owner() -> String {
    format!("{}:{}", hostname(), std::process::id())
}

pub(super) fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_else(|_| "unknown".to_owned())
}
