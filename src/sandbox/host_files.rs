//! Files the gateway writes on the host and gives its containers, in a private directory that
//! lives as long as the sandbox:
//!
//! - the seccomp profile, for Podman: its Docker-compatible API reads `seccomp=` as a path
//!   (Docker takes the JSON itself);
//! - `/etc/hosts`, `/etc/hostname` and an empty `/etc/resolv.conf`, mounted read-only over the
//!   engine's own: Podman copies the host's hosts file and resolver into every container, and
//!   both engines' files name the container's id in the mount table.
//!
//! The engine reads these paths on this host: the gateway only talks to local sockets.

use std::path::{Path, PathBuf};

use super::error::SandboxError;
use super::seccomp;

/// What `/etc/hosts` says in every sandbox: loopback, nothing of the host.
const HOSTS: &str = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n";
/// The sandbox's host name (also set as the container's UTS host name).
pub const HOSTNAME: &str = "sandbox";

pub struct HostFiles {
    dir: tempfile::TempDir,
}

impl HostFiles {
    pub fn create() -> Result<HostFiles, SandboxError> {
        let failed = |e: std::io::Error| SandboxError::EngineSetup {
            detail: format!("cannot write the sandbox's host files: {e}"),
            hint: "the gateway needs a writable temporary directory (TMPDIR, else /tmp)",
        };
        let dir = tempfile::Builder::new()
            .prefix("code-sandbox-mcp-")
            .tempdir()
            .map_err(failed)?;
        for (name, text) in [
            ("seccomp.json", seccomp::profile_json()),
            ("hosts", HOSTS),
            ("hostname", &format!("{HOSTNAME}\n")),
            ("resolv.conf", ""),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, text).map_err(failed)?;
            set_readable(&path).map_err(failed)?;
        }
        // The engine, and gVisor's file server, may read as another user.
        set_mode(dir.path(), 0o755).map_err(failed)?;
        Ok(HostFiles { dir })
    }

    pub fn seccomp_profile(&self) -> PathBuf {
        self.dir.path().join("seccomp.json")
    }

    /// Read-only bind mounts over the engine's `/etc` files, as `SOURCE:TARGET:ro`.
    pub fn binds(&self) -> Vec<String> {
        ["hosts", "hostname", "resolv.conf"]
            .iter()
            .map(|name| {
                format!(
                    "{}:/etc/{name}:ro",
                    self.dir.path().join(name).to_string_lossy()
                )
            })
            .collect()
    }
}

fn set_readable(path: &Path) -> std::io::Result<()> {
    set_mode(path, 0o644)
}

fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_written_readable_and_removed_with_the_sandbox() {
        let files = HostFiles::create().unwrap();
        let dir = files.dir.path().to_owned();
        let profile = std::fs::read_to_string(files.seccomp_profile()).unwrap();
        assert_eq!(profile, seccomp::profile_json());
        let binds = files.binds();
        assert_eq!(binds.len(), 3);
        assert!(
            binds
                .iter()
                .all(|b| b.starts_with(dir.to_str().unwrap()) && b.ends_with(":ro"))
        );
        assert_eq!(std::fs::read_to_string(dir.join("hosts")).unwrap(), HOSTS);
        drop(files);
        assert!(!dir.exists());
    }
}
