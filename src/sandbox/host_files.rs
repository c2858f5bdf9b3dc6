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
//!
//! The directory is removed when the sandbox ends. A gateway that is killed cannot remove it,
//! so each directory names its owner (process id and start time), and every new one first
//! removes the directories of owners that are gone.

use std::path::{Path, PathBuf};

use super::error::SandboxError;
use super::seccomp;

/// What `/etc/hosts` says in every sandbox: loopback, nothing of the host.
const HOSTS: &str = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n";
/// The sandbox's host name (also set as the container's UTS host name).
pub const HOSTNAME: &str = "sandbox";
/// The start of every host-files directory's name.
const PREFIX: &str = "code-sandbox-mcp-";
/// The file naming the process a directory belongs to.
const OWNER: &str = "owner";

pub struct HostFiles {
    dir: tempfile::TempDir,
}

impl HostFiles {
    pub fn create() -> Result<HostFiles, SandboxError> {
        let failed = |e: std::io::Error| SandboxError::EngineSetup {
            detail: format!("cannot write the sandbox's host files: {e}"),
            hint: "the gateway needs a writable temporary directory (TMPDIR, else /tmp)",
        };
        let removed = remove_abandoned(&std::env::temp_dir());
        if removed > 0 {
            tracing::info!(
                removed,
                "removed host-file directories of gateways that were killed"
            );
        }
        let dir = tempfile::Builder::new()
            .prefix(PREFIX)
            .tempdir()
            .map_err(failed)?;
        // Without an owner (no /proc to name it by), no later gateway removes the directory.
        if let Some(owner) = identity(std::process::id()) {
            std::fs::write(dir.path().join(OWNER), owner).map_err(failed)?;
        }
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

/// A running process as `PID START`, its start time (in clock ticks since boot) telling it
/// from a later process given the same id; `None` when no process has that id.
fn identity(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces and parentheses; the
    // start time is field 22, the 20th after it.
    let start = stat[stat.rfind(')')? + 1..].split_whitespace().nth(19)?;
    Some(format!("{pid} {start}"))
}

/// Removes the host-file directories under `root` whose owner is no longer running, and
/// returns how many. Only this user's directories that name an owner are touched: one being
/// made (no owner yet), or one of another user or kind, is left alone.
fn remove_abandoned(root: &Path) -> usize {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(root) else {
        return 0;
    };
    // `/proc/self` belongs to the process's effective user.
    let Ok(me) = std::fs::metadata("/proc/self").map(|m| m.uid()) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let dir = entry.path();
        let ours = entry.file_name().to_string_lossy().starts_with(PREFIX)
            && entry.metadata().is_ok_and(|m| m.is_dir() && m.uid() == me);
        let Some(owner) = ours
            .then(|| std::fs::read_to_string(dir.join(OWNER)).ok())
            .flatten()
        else {
            continue;
        };
        let alive = owner
            .split_whitespace()
            .next()
            .and_then(|pid| pid.parse().ok())
            .and_then(identity)
            .is_some_and(|now| now == owner);
        if !alive && std::fs::remove_dir_all(&dir).is_ok() {
            removed += 1;
        }
    }
    removed
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
        assert_eq!(
            std::fs::read_to_string(dir.join(OWNER)).unwrap(),
            identity(std::process::id()).unwrap()
        );
        drop(files);
        assert!(!dir.exists());
    }

    #[test]
    fn directories_of_killed_gateways_are_removed_and_no_other() {
        let root = tempfile::tempdir().unwrap();
        let make = |name: &str, owner: Option<String>| {
            let dir = root.path().join(name);
            std::fs::create_dir(&dir).unwrap();
            std::fs::write(dir.join("hosts"), HOSTS).unwrap();
            if let Some(owner) = owner {
                std::fs::write(dir.join(OWNER), owner).unwrap();
            }
            dir
        };
        // A process that ran and ended: its id may be reused, its identity is gone.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let ended = identity(child.id()).unwrap_or_else(|| format!("{} 1", child.id()));
        child.wait().unwrap();
        let killed = make("code-sandbox-mcp-killed", Some(ended));
        // The same id as a running process, but another start: the id was reused.
        let me = identity(std::process::id()).unwrap();
        let reused = make(
            "code-sandbox-mcp-reused",
            Some(format!("{} 1", std::process::id())),
        );
        let running = make("code-sandbox-mcp-running", Some(me));
        let being_made = make("code-sandbox-mcp-new", None);
        let other = make("other-killed", Some("4194304 1".to_owned()));
        assert_eq!(remove_abandoned(root.path()), 2);
        assert!(!killed.exists() && !reused.exists());
        assert!(running.exists() && being_made.exists() && other.exists());
    }
}
