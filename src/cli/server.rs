//! The MCP server (the default command).

use std::process::ExitCode;

use clap::Args;

use super::SandboxArgs;

#[derive(Args)]
pub struct ServerArgs {}

pub async fn serve(_sandbox: &SandboxArgs, _server: &ServerArgs) -> ExitCode {
    eprintln!("error: the MCP server is not available in this build");
    ExitCode::from(super::EXIT_SANDBOX_ERROR)
}
