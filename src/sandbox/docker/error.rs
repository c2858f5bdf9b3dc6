//! Docker's errors turned into the sandbox's own, so nothing above the backend sees the
//! client library: a lost connection is told from a refused request, and a known gap in the
//! engine's setup comes with its fix.

use crate::sandbox::SandboxError;

impl SandboxError {
    /// Wraps an error of creating or starting a container, with the fix when it is a known
    /// gap in the engine's setup rather than a problem of this run.
    pub(super) fn container(action: &str, error: bollard::errors::Error) -> SandboxError {
        let detail = error.to_string();
        let hint = if detail.contains("seccomp profile") {
            Some(
                "Podman reads the sandbox's seccomp profile from a file the gateway writes under its temporary directory (TMPDIR, else /tmp): the engine must run on this host and be able to read it",
            )
        } else if detail.contains("urpc method") {
            Some(
                "gVisor (runsc) failed inside; the engine's log says why. runsc from Debian must be registered with `\"runtimeArgs\": [\"--network=none\"]` (README, section \"gVisor\")",
            )
        } else {
            None
        };
        match hint {
            Some(hint) => SandboxError::EngineSetup { detail, hint },
            None => SandboxError::engine(action, error),
        }
    }

    /// Wraps an engine error, telling a lost connection from a refused request.
    pub(super) fn engine(action: impl Into<String>, error: bollard::errors::Error) -> SandboxError {
        use bollard::errors::Error as E;
        let detail = error.to_string();
        match error {
            E::IOError { .. }
            | E::HyperResponseError { .. }
            | E::HyperLegacyError { .. }
            | E::RequestTimeoutError
            | E::SocketNotFoundError(_) => SandboxError::EngineLost { detail },
            _ => SandboxError::Engine {
                action: action.into(),
                detail,
            },
        }
    }
}
