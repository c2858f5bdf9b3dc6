//! Which OAuth scope each MCP request needs. One table keyed by tool: a new tool gets its
//! line here, and a tool without one needs the strongest scope, so nothing new is open by
//! accident (a test holds every routed tool to having a line).

use crate::identity::Scope;

/// The scope each tool needs.
pub const TOOL_SCOPES: &[(&str, Scope)] = &[
    ("check_code", Scope::Check),
    ("run_python_code", Scope::Execute),
    ("run_javascript_code", Scope::Execute),
    ("run_js_code", Scope::Execute),
    ("open_session", Scope::Execute),
    ("close_session", Scope::Execute),
];

/// The scope a tool needs: its line in [`TOOL_SCOPES`], else [`Scope::Execute`].
pub fn for_tool(name: &str) -> Scope {
    TOOL_SCOPES
        .iter()
        .find(|(tool, _)| *tool == name)
        .map_or(Scope::Execute, |&(_, scope)| scope)
}

/// The scope a JSON-RPC request needs, given its method and, for `tools/call`, the tool's
/// name. Lifecycle and discovery (initialize, ping, tools/list, notifications) need only a
/// valid token.
pub fn for_request(method: &str, tool: Option<&str>) -> Option<Scope> {
    match method {
        "tools/call" => Some(for_tool(tool.unwrap_or_default())),
        m if m.starts_with("resources/") => Some(Scope::Check),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_code_needs_execute_and_judging_it_needs_check() {
        assert_eq!(
            for_request("tools/call", Some("run_python_code")),
            Some(Scope::Execute)
        );
        assert_eq!(
            for_request("tools/call", Some("check_code")),
            Some(Scope::Check)
        );
        assert_eq!(for_request("resources/read", None), Some(Scope::Check));
        assert_eq!(for_request("tools/list", None), None);
        assert_eq!(for_request("initialize", None), None);
    }

    #[test]
    fn a_tool_without_a_line_needs_the_strongest_scope() {
        assert_eq!(for_tool("run_ruby_code"), Scope::Execute);
        assert_eq!(for_request("tools/call", None), Some(Scope::Execute));
    }
}
