//! The steps by hand, for a host setup will not change itself: not root, or a distribution
//! whose packages it does not know. The same commands as the README's manual section, for
//! the backends asked for.

use std::collections::BTreeSet;

use super::config_files::{PODMAN_ULIMITS_LINE, runsc_runtime};
use super::host::{Distro, EngineName};
use super::plan::{Backend, DOCKERD_LOG, PODMAN_LOG, PODMAN_SERVICE_DIR, engines};

/// Why setup does not do the work itself.
pub enum Refusal<'a> {
    NotRoot,
    Distribution(&'a Distro),
}

/// What to do instead, ready to paste: `exe` is this program, `backends` the setup's own.
pub fn manual_steps(refusal: &Refusal<'_>, backends: &BTreeSet<Backend>, exe: &str) -> String {
    let list = backends
        .iter()
        .map(|b| b.name())
        .collect::<Vec<_>>()
        .join(",");
    let mut out = String::new();
    let mut line = |text: &str| {
        out.push_str(text);
        out.push('\n');
    };
    match refusal {
        Refusal::NotRoot => {
            line(
                "setup installs packages, writes engine settings under /etc and starts services, so it runs only as root.",
            );
            line("Run it as root:");
            line(&format!("    sudo {exe} setup --backends {list}"));
            line("or do the same by hand, as root:");
            line("    apt-get update");
            line(&format!(
                "    apt-get install -y --no-install-recommends {}",
                packages(backends).join(" ")
            ));
        }
        Refusal::Distribution(distro) => {
            line(&format!(
                "setup knows the packages of Debian and Ubuntu; this host runs {}.",
                distro.name
            ));
            line("Install with its package manager:");
            for (package, what) in generic_packages(backends) {
                line(&format!("    {what} (Debian's package: {package})"));
            }
            line("then, as root:");
        }
    }
    for command in configure_and_start(backends) {
        line(&format!("    {command}"));
    }
    let mirror = match refusal {
        Refusal::Distribution(_) => " --mirror DEBIAN_MIRROR_URL",
        Refusal::NotRoot => "",
    };
    for engine in engines(backends) {
        line(&format!(
            "    {exe} --engine {}{mirror} images build",
            engine.flag()
        ));
    }
    for backend in backends {
        let policy = match backend {
            Backend::Gvisor => " --policy strict-gvisor",
            _ => "",
        };
        line(&format!(
            "    {exe} --engine {}{policy} doctor",
            backend.engine().flag()
        ));
    }
    if matches!(refusal, Refusal::Distribution(_)) {
        line(
            "The images are Debian systems (trixie, forky): --mirror names a Debian mirror (a URL or an apt sources file), and mmdebstrap needs Debian's archive keys.",
        );
    }
    out
}

/// The Debian packages for the backends, in install order.
fn packages(backends: &BTreeSet<Backend>) -> Vec<&'static str> {
    generic_packages(backends)
        .into_iter()
        .map(|(p, _)| p)
        .collect()
}

fn generic_packages(backends: &BTreeSet<Backend>) -> Vec<(&'static str, &'static str)> {
    let engines = engines(backends);
    let mut list = Vec::new();
    if engines.contains(&EngineName::Docker) {
        list.push(("docker.io", "Docker Engine"));
    }
    if backends.contains(&Backend::Gvisor) {
        list.push(("runsc", "gVisor's runsc"));
    }
    if engines.contains(&EngineName::Podman) {
        list.push(("podman", "Podman"));
    }
    list.push(("mmdebstrap", "mmdebstrap, which builds the images"));
    list
}

/// The configuration and start commands, each safe to run on a host that has some of it.
fn configure_and_start(backends: &BTreeSet<Backend>) -> Vec<String> {
    let mut commands = Vec::new();
    let engines = engines(backends);
    if backends.contains(&Backend::Gvisor) {
        let entry = serde_json::json!({ "runtimes": { "runsc": runsc_runtime("/usr/bin/runsc") } });
        commands.push(format!(
            "mkdir -p /etc/docker && test -e /etc/docker/daemon.json || echo '{entry}' > /etc/docker/daemon.json   # if it exists, add the \"runsc\" entry under \"runtimes\" by hand"
        ));
    }
    if engines.contains(&EngineName::Docker) {
        commands.push(format!(
            "systemctl start docker   # without systemd: setsid dockerd >> /var/log/{DOCKERD_LOG} 2>&1 < /dev/null &"
        ));
    }
    if backends.contains(&Backend::Gvisor) {
        commands.push(
            "systemctl reload docker   # registers runsc in a running Docker; without systemd: kill -HUP $(pidof dockerd)"
                .to_owned(),
        );
    }
    if engines.contains(&EngineName::Podman) {
        commands.push(format!(
            "mkdir -p /etc/containers && test -e /etc/containers/containers.conf || printf '[containers]\\n%s\\n' '{PODMAN_ULIMITS_LINE}' > /etc/containers/containers.conf   # if it exists, add that line under [containers] by hand"
        ));
        commands.push(format!(
            "systemctl start podman.socket   # without systemd: mkdir -p {PODMAN_SERVICE_DIR} && (cd {PODMAN_SERVICE_DIR} && setsid podman system service --time=0 {} >> /var/log/{PODMAN_LOG} 2>&1 < /dev/null &)",
            EngineName::Podman.socket()
        ));
    }
    commands
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> BTreeSet<Backend> {
        [Backend::Docker, Backend::Gvisor, Backend::Podman].into()
    }

    #[test]
    fn not_root_gets_the_root_command_and_every_step_for_the_backends() {
        let text = manual_steps(&Refusal::NotRoot, &all(), "/opt/code-sandbox-mcp");
        assert!(
            text.contains("sudo /opt/code-sandbox-mcp setup --backends docker,gvisor,podman"),
            "{text}"
        );
        assert!(
            text.contains(
                "apt-get install -y --no-install-recommends docker.io runsc podman mmdebstrap"
            ),
            "{text}"
        );
        assert!(text.contains(r#"{"runtimes":{"runsc":{"path":"/usr/bin/runsc","runtimeArgs":["--network=none"]}}}"#), "{text}");
        assert!(text.contains("systemctl reload docker"), "{text}");
        assert!(
            text.contains("podman system service --time=0 unix:///run/podman/podman.sock"),
            "{text}"
        );
        assert!(
            text.contains("/opt/code-sandbox-mcp --engine podman images build"),
            "{text}"
        );
        assert!(
            text.contains("/opt/code-sandbox-mcp --engine docker --policy strict-gvisor doctor"),
            "{text}"
        );
    }

    #[test]
    fn docker_alone_mentions_neither_gvisor_nor_podman() {
        let text = manual_steps(&Refusal::NotRoot, &[Backend::Docker].into(), "csm");
        assert!(
            text.contains("apt-get install -y --no-install-recommends docker.io mmdebstrap\n"),
            "{text}"
        );
        for absent in ["runsc", "podman", "containers.conf"] {
            assert!(!text.contains(absent), "{absent} in {text}");
        }
    }

    #[test]
    fn another_distribution_gets_what_to_install_by_name_and_the_mirror() {
        let distro = Distro::parse("ID=fedora\nPRETTY_NAME=\"Fedora Linux 40\"\n");
        let text = manual_steps(&Refusal::Distribution(&distro), &all(), "csm");
        assert!(text.contains("this host runs Fedora Linux 40"), "{text}");
        assert!(
            text.contains("gVisor's runsc (Debian's package: runsc)"),
            "{text}"
        );
        assert!(!text.contains("apt-get"), "{text}");
        assert!(
            text.contains("csm --engine docker --mirror DEBIAN_MIRROR_URL images build"),
            "{text}"
        );
    }
}
