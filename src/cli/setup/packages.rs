//! The Debian packages setup may install: how it tells each is already there, why each is
//! needed, and which the chosen backends need on a given host.

use std::collections::BTreeSet;

use super::host::{EngineName, Host};
use super::plan::{Backend, engines};

/// A Debian package setup may install, how to tell it is already there, and why it is needed.
#[derive(Debug, PartialEq, Eq)]
pub struct Need {
    pub package: &'static str,
    /// A program it installs: present if the program is, however it was installed (Docker's
    /// own packages provide `dockerd` too, and must not get `docker.io` beside them). `None`:
    /// asked of dpkg.
    pub program: Option<&'static str>,
    pub why: &'static str,
}

pub const DOCKER: Need = Need {
    package: "docker.io",
    program: Some("dockerd"),
    why: "Docker Engine, which runs the sandbox containers",
};
pub const RUNSC: Need = Need {
    package: "runsc",
    program: Some("runsc"),
    why: "gVisor, a kernel in user space between the snippet and the host",
};
pub const PODMAN: Need = Need {
    package: "podman",
    program: Some("podman"),
    why: "Podman, whose Docker-compatible API service runs the sandbox containers",
};
pub const MMDEBSTRAP: Need = Need {
    package: "mmdebstrap",
    program: Some("mmdebstrap"),
    why: "builds the sandbox images from Debian packages, so no container registry is needed",
};
pub const DEBIAN_KEYRING: Need = Need {
    package: "debian-archive-keyring",
    program: None,
    why: "lets mmdebstrap verify the Debian packages the images are made of (this host's archive is not Debian's)",
};
pub const PYTHON_VENV: Need = Need {
    package: "python3-venv",
    program: None,
    why: "the test suite's Python MCP client runs in a virtual environment (this is a source checkout, run through cargo)",
};

/// Every package setup knows, for observing them all at once.
pub const NEEDS: [&Need; 6] = [
    &DOCKER,
    &RUNSC,
    &PODMAN,
    &MMDEBSTRAP,
    &DEBIAN_KEYRING,
    &PYTHON_VENV,
];

/// The packages the backends need on this host.
pub fn needs(backends: &BTreeSet<Backend>, host: &Host) -> Vec<&'static Need> {
    let engines = engines(backends);
    let mut needs = Vec::new();
    if engines.contains(&EngineName::Docker) {
        needs.push(&DOCKER);
    }
    if backends.contains(&Backend::Gvisor) {
        needs.push(&RUNSC);
    }
    if engines.contains(&EngineName::Podman) {
        needs.push(&PODMAN);
    }
    needs.push(&MMDEBSTRAP);
    if !host.distro.is_debian_family() {
        needs.push(&DEBIAN_KEYRING);
    }
    if host.checkout {
        needs.push(&PYTHON_VENV);
    }
    needs
}
