//! What `setup` observes about the host before it plans anything: the distribution, who runs
//! it, whether systemd manages services, which programs are installed, the two configuration
//! files, and whether each engine answers (with its runtimes and images). Observing changes
//! nothing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::sandbox::{Engine, EngineChoice, SandboxError, images};

use super::config_files::{self, ConfigRoot};

/// How long one engine may take to answer before setup counts it as not running.
const ENGINE_PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// The two engines setup manages, at their standard sockets as root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum EngineName {
    Docker,
    Podman,
}

impl EngineName {
    pub fn socket(self) -> &'static str {
        match self {
            EngineName::Docker => "unix:///var/run/docker.sock",
            EngineName::Podman => "unix:///run/podman/podman.sock",
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            EngineName::Docker => "Docker",
            EngineName::Podman => "Podman",
        }
    }
    /// The `--engine` value that selects it.
    pub fn flag(self) -> &'static str {
        match self {
            EngineName::Docker => "docker",
            EngineName::Podman => "podman",
        }
    }
    pub async fn connect(self) -> Result<Engine, String> {
        let choice = EngineChoice::Socket(self.socket().to_owned());
        match tokio::time::timeout(ENGINE_PROBE_TIMEOUT, Engine::connect(&choice)).await {
            Ok(Ok(engine)) => Ok(engine),
            Ok(Err(SandboxError::NoEngine { detail, .. })) => Err(detail),
            Ok(Err(e)) => Err(e.to_string().lines().next().unwrap_or_default().to_owned()),
            Err(_) => Err(format!(
                "no answer within {} s",
                ENGINE_PROBE_TIMEOUT.as_secs()
            )),
        }
    }
}

/// The distribution, from `os-release`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Distro {
    /// `ID`: `debian`, `ubuntu`, ...
    pub id: String,
    /// `ID_LIKE`, split.
    pub like: Vec<String>,
    /// `PRETTY_NAME`, for messages.
    pub name: String,
}

impl Distro {
    /// Parses os-release's `KEY=value` lines (values optionally quoted).
    pub fn parse(text: &str) -> Distro {
        let value = |key: &str| {
            text.lines()
                .filter_map(|l| l.trim().strip_prefix(key)?.strip_prefix('='))
                .next_back()
                .map(|v| v.trim().trim_matches(|c| c == '"' || c == '\'').to_owned())
                .unwrap_or_default()
        };
        let id = value("ID");
        Distro {
            like: value("ID_LIKE")
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
            name: Some(value("PRETTY_NAME"))
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| id.clone()),
            id,
        }
    }

    pub fn read(path: &Path) -> Distro {
        std::fs::read_to_string(path).map_or_else(
            |e| Distro {
                id: String::new(),
                like: Vec::new(),
                name: format!("unknown ({} could not be read: {e})", path.display()),
            },
            |text| Distro::parse(&text),
        )
    }

    /// Debian, or a distribution derived from it: its packages have Debian's names.
    pub fn is_debian_family(&self) -> bool {
        self.id == "debian" || self.like.iter().any(|l| l == "debian")
    }

    /// Ubuntu (or derived from it), whose own archive is not Debian's: the sandbox images are
    /// Debian (trixie, forky), so building them needs a Debian mirror and Debian's archive keys.
    pub fn is_ubuntu(&self) -> bool {
        self.id == "ubuntu" || self.like.iter().any(|l| l == "ubuntu")
    }

    pub fn supported(&self) -> bool {
        self.is_debian_family() || self.is_ubuntu()
    }
}

/// One engine as observed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineState {
    /// Not observed: no chosen backend needs it.
    NotNeeded,
    /// No answer at its socket.
    Down { detail: String },
    /// It answers.
    Up {
        /// gVisor is registered and its program installed.
        gvisor: bool,
        /// Our images it lacks.
        missing_images: Vec<String>,
    },
}

/// Everything setup's plan is computed from.
#[derive(Debug, Clone)]
pub struct Host {
    pub distro: Distro,
    /// systemd is PID 1 and manages services, so engines are started through it.
    pub systemd: bool,
    /// Run through cargo from a source checkout, which has a test suite to prepare for.
    pub checkout: bool,
    /// The installed programs and packages setup knows (see [`super::packages::Need`]).
    pub installed: BTreeSet<&'static str>,
    /// Where the runsc program is, if installed.
    pub runsc: Option<PathBuf>,
    pub daemon_json: Option<String>,
    pub containers_conf: Option<String>,
    pub docker: EngineState,
    pub podman: EngineState,
}

impl Host {
    pub fn engine(&self, name: EngineName) -> &EngineState {
        match name {
            EngineName::Docker => &self.docker,
            EngineName::Podman => &self.podman,
        }
    }
}

/// The effective user id, from the kernel's own account of this process.
pub fn effective_uid() -> Option<u32> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// systemd is PID 1 and has booted the system (what `sd_booted()` checks).
fn systemd_runs() -> bool {
    Path::new("/run/systemd/system").is_dir()
        && std::fs::read_to_string("/proc/1/comm").is_ok_and(|c| c.trim() == "systemd")
}

/// Where a program is: `PATH`, then the system directories root's `PATH` has (a user's may
/// lack the `sbin` ones, where `dockerd` lives).
pub fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(
            [
                "/usr/local/sbin",
                "/usr/local/bin",
                "/usr/sbin",
                "/usr/bin",
                "/sbin",
                "/bin",
                "/usr/libexec/podman",
            ]
            .map(PathBuf::from),
        )
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// Whether dpkg has a package installed (for packages that install no program of their own).
fn dpkg_installed(package: &str) -> bool {
    std::process::Command::new("dpkg-query")
        .args(["-W", "-f=${db:Status-Abbrev}", package])
        .output()
        .is_ok_and(|o| o.status.success() && o.stdout.starts_with(b"ii"))
}

/// Looks at the host. Engines in `engines` are asked whether they answer; the others are
/// [`EngineState::NotNeeded`].
pub async fn observe(root: &ConfigRoot, engines: &[EngineName]) -> Result<Host, String> {
    let mut installed = BTreeSet::new();
    for need in super::packages::NEEDS {
        let present = match need.program {
            Some(program) => find_program(program).is_some(),
            None => dpkg_installed(need.package),
        };
        if present {
            installed.insert(need.package);
        }
    }
    let observe_engine = |name: EngineName| async move {
        if !engines.contains(&name) {
            return EngineState::NotNeeded;
        }
        match name.connect().await {
            Ok(engine) => engine_state(&engine).await,
            Err(detail) => EngineState::Down { detail },
        }
    };
    let (docker, podman) = tokio::join!(
        observe_engine(EngineName::Docker),
        observe_engine(EngineName::Podman)
    );
    Ok(Host {
        distro: Distro::read(&root.os_release()),
        systemd: systemd_runs(),
        checkout: from_checkout(),
        installed,
        runsc: find_program("runsc"),
        daemon_json: config_files::read(&root.daemon_json()).map_err(|e| e.to_string())?,
        containers_conf: config_files::read(&root.containers_conf()).map_err(|e| e.to_string())?,
        docker,
        podman,
    })
}

async fn engine_state(engine: &Engine) -> EngineState {
    let gvisor = engine
        .runtimes()
        .await
        .is_ok_and(|r| r.iter().any(|r| r.is_gvisor() && r.installed));
    let mut missing_images = Vec::new();
    for language in Language::ALL {
        let image = images::default_image(language);
        if !images::exists(engine, &image).await.unwrap_or(false) {
            missing_images.push(image);
        }
    }
    EngineState::Up {
        gvisor,
        missing_images,
    }
}

/// `cargo run` from a source checkout: cargo sets `CARGO_MANIFEST_DIR` for the program it
/// runs, and a checkout has the test suite.
fn from_checkout() -> bool {
    std::env::var_os("CARGO_MANIFEST_DIR").is_some_and(|dir| Path::new(&dir).join("tests").is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_release_is_read_as_the_distributions_write_it() {
        let debian = Distro::parse(
            "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nID=debian\n",
        );
        assert_eq!(debian.id, "debian");
        assert_eq!(debian.name, "Debian GNU/Linux 12 (bookworm)");
        assert!(debian.supported() && debian.is_debian_family() && !debian.is_ubuntu());

        let ubuntu = Distro::parse("ID=ubuntu\nID_LIKE=debian\nPRETTY_NAME=\"Ubuntu 24.04 LTS\"\n");
        assert!(ubuntu.supported() && ubuntu.is_ubuntu());

        let mint = Distro::parse("ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n");
        assert!(mint.supported() && mint.is_ubuntu());

        let fedora = Distro::parse("ID=fedora\nPRETTY_NAME='Fedora Linux 40'\n");
        assert!(!fedora.supported());
        assert_eq!(fedora.name, "Fedora Linux 40");

        let rocky = Distro::parse("ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n");
        assert!(!rocky.supported());
        assert_eq!(rocky.name, "rocky");
    }

    #[test]
    fn a_missing_os_release_is_no_supported_distribution() {
        let distro = Distro::read(Path::new("/nonexistent/etc/os-release"));
        assert!(!distro.supported());
        assert!(distro.name.contains("could not be read"), "{}", distro.name);
    }

    #[test]
    fn the_effective_uid_is_read() {
        // The test runs as some user; the kernel's answer matches the owner of what it creates.
        use std::os::unix::fs::MetadataExt;
        let file = tempfile::NamedTempFile::new().unwrap();
        assert_eq!(
            effective_uid(),
            Some(file.as_file().metadata().unwrap().uid())
        );
    }
}
