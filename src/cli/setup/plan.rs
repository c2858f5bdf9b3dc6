//! From what was observed to what to do: the steps that bring a host to a state where the
//! chosen backends run sandboxes, each with what it changes and why. Computing a plan changes
//! nothing, so `setup --check` prints one and `setup` applies one.

use std::collections::BTreeSet;
use std::path::PathBuf;

use clap::ValueEnum;

use super::config_files::{self, ConfigRoot, PODMAN_ULIMITS_LINE, RunscEntry};
use super::host::{EngineName, EngineState, Host};
use super::packages::{Need, needs};

/// What a sandbox runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub enum Backend {
    /// Docker Engine with its default runtime, runc.
    Docker,
    /// Docker Engine with gVisor's runsc registered (policies with `runtime: runsc`).
    Gvisor,
    /// Podman's Docker-compatible API service.
    Podman,
}

impl Backend {
    pub fn engine(self) -> EngineName {
        match self {
            Backend::Docker | Backend::Gvisor => EngineName::Docker,
            Backend::Podman => EngineName::Podman,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Backend::Docker => "docker",
            Backend::Gvisor => "gvisor",
            Backend::Podman => "podman",
        }
    }
}

/// The engines the backends run on, each once.
pub fn engines(backends: &BTreeSet<Backend>) -> Vec<EngineName> {
    let set: BTreeSet<EngineName> = backends.iter().map(|b| b.engine()).collect();
    set.into_iter().collect()
}

/// One change to the host.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Install(Vec<&'static Need>),
    RegisterRunsc {
        path: PathBuf,
        text: String,
        created: bool,
    },
    WritePodmanConf {
        path: PathBuf,
        text: String,
        created: bool,
    },
    Start {
        engine: EngineName,
        systemd: bool,
        /// Why it is counted as not running.
        detail: String,
    },
    /// Docker runs, but without runsc: it reloads its runtimes on SIGHUP, without stopping
    /// anything. The signal itself rather than `systemctl reload docker` (which sends the same
    /// one), so it works however dockerd was started.
    ReloadDocker,
    /// `None`: the engine does not answer yet, so which images it lacks is not known.
    BuildImages {
        engine: EngineName,
        images: Option<Vec<String>>,
    },
}

const HOW_IMAGES_ARE_MADE: &str = "mmdebstrap, then an import, about a minute each; one the other engine already has is copied from it instead";

/// Where a daemon started in the background logs, and the directory it runs in.
pub const DOCKERD_LOG: &str = "dockerd.log";
pub const PODMAN_LOG: &str = "podman-service.log";
/// conmon drops an `oom` file in the working directory of Podman's service.
pub const PODMAN_SERVICE_DIR: &str = "/run/podman";

impl Step {
    /// What the step does (first) and why (second), in words a user can check.
    pub fn describe(&self, root: &ConfigRoot) -> (String, String) {
        match self {
            Step::Install(needs) => (
                format!(
                    "install {} (apt-get update, then apt-get install --no-install-recommends)",
                    needs.iter().map(|n| n.package).collect::<Vec<_>>().join(" ")
                ),
                needs
                    .iter()
                    .map(|n| format!("{}: {}", n.package, n.why))
                    .collect::<Vec<_>>()
                    .join("; "),
            ),
            Step::RegisterRunsc { path, created, .. } => (
                if *created {
                    format!("create {} registering gVisor's runsc as a Docker runtime", path.display())
                } else {
                    format!(
                        "add a \"runsc\" entry under \"runtimes\" in {}, keeping every other setting",
                        path.display()
                    )
                },
                "Docker runs a container under gVisor only through a runtime registered there; Debian's runsc starts containers only with --network=none, and sandboxes have no network anyway".to_owned(),
            ),
            Step::WritePodmanConf { path, created, .. } => (
                if *created {
                    format!("create {} with `[containers]` `{PODMAN_ULIMITS_LINE}`", path.display())
                } else {
                    format!(
                        "add `{PODMAN_ULIMITS_LINE}` under [containers] in {}, keeping every other setting",
                        path.display()
                    )
                },
                "without it Podman hands every container the ulimits of whatever process started its service, which need not suit the sandbox's own per-container limits".to_owned(),
            ),
            Step::Start {
                engine,
                systemd: true,
                detail,
            } => (
                format!(
                    "start {} (`systemctl start {}`)",
                    engine.label(),
                    systemd_unit(*engine)
                ),
                format!("nothing answers at {} ({detail})", engine.socket()),
            ),
            Step::Start {
                engine: EngineName::Docker,
                systemd: false,
                detail,
            } => (
                format!(
                    "start dockerd in the background, detached, logging to {}",
                    root.log(DOCKERD_LOG).display()
                ),
                format!(
                    "nothing answers at {} ({detail}), and systemd does not manage services here",
                    EngineName::Docker.socket()
                ),
            ),
            Step::Start {
                engine: EngineName::Podman,
                systemd: false,
                detail,
            } => (
                format!(
                    "start Podman's API service in the background (`podman system service --time=0 {}`), detached, in {PODMAN_SERVICE_DIR}, logging to {}",
                    EngineName::Podman.socket(),
                    root.log(PODMAN_LOG).display()
                ),
                format!(
                    "the gateway talks to Podman through this Docker-compatible API and nothing answers there ({detail}); systemd does not manage services here; it runs in {PODMAN_SERVICE_DIR} because conmon leaves an `oom` file in the service's working directory"
                ),
            ),
            Step::ReloadDocker => (
                "reload Docker's configuration (SIGHUP to dockerd, as `systemctl reload docker` does)".to_owned(),
                "the running dockerd does not list runsc yet; a reload registers runtimes without stopping any container".to_owned(),
            ),
            Step::BuildImages { engine, images } => (
                match images {
                    Some(images) => format!(
                        "build the sandbox images {} for {} ({HOW_IMAGES_ARE_MADE})",
                        images.join(", "),
                        engine.label()
                    ),
                    None => format!(
                        "build the sandbox images {} lacks, once it answers ({HOW_IMAGES_ARE_MADE})",
                        engine.label()
                    ),
                },
                "snippets run only in these images, and each engine keeps its own; they are built from Debian packages because no registry is used".to_owned(),
            ),
        }
    }
}

pub fn systemd_unit(engine: EngineName) -> &'static str {
    match engine {
        EngineName::Docker => "docker",
        EngineName::Podman => "podman.socket",
    }
}

/// The steps, in the order they apply, and what setup noticed but leaves alone.
#[derive(Debug, Default)]
pub struct Plan {
    pub steps: Vec<Step>,
    pub notes: Vec<String>,
}

/// Plans the changes that bring `host` to running `backends`. Fails, before anything changes,
/// on a configuration file it must not overwrite or on images it could not build.
pub fn plan(
    host: &Host,
    backends: &BTreeSet<Backend>,
    root: &ConfigRoot,
    mirror: Option<&str>,
) -> Result<Plan, String> {
    let mut plan = Plan::default();
    let missing: Vec<&'static Need> = needs(backends, host)
        .into_iter()
        .filter(|n| !host.installed.contains(n.package))
        .collect();
    if !missing.is_empty() {
        plan.steps.push(Step::Install(missing));
    }
    if backends.contains(&Backend::Gvisor) {
        let path = root.daemon_json();
        let runsc = host
            .runsc
            .as_ref()
            .map_or_else(|| "/usr/bin/runsc".to_owned(), |p| p.display().to_string());
        match config_files::merge_runsc(&path, host.daemon_json.as_deref(), &runsc)
            .map_err(|e| e.to_string())?
        {
            RunscEntry::Registered => {}
            RunscEntry::RegisteredOtherwise(entry) => plan.notes.push(format!(
                "{} already registers runsc as {entry}; left as it is (Debian's runsc also needs \"runtimeArgs\": [\"--network=none\"])",
                path.display()
            )),
            RunscEntry::Add(text) => plan.steps.push(Step::RegisterRunsc {
                path,
                text,
                created: host.daemon_json.is_none(),
            }),
        }
    }
    let engines = engines(backends);
    if engines.contains(&EngineName::Podman)
        && let Some(text) = config_files::add_podman_ulimits(host.containers_conf.as_deref())
    {
        if matches!(host.podman, EngineState::Up { .. }) {
            plan.notes.push(format!(
                "Podman's API service is running and reads {} only when it starts: restart it yourself for `default_ulimits` to apply (setup never restarts a running engine)",
                root.containers_conf().display()
            ));
        }
        plan.steps.push(Step::WritePodmanConf {
            path: root.containers_conf(),
            text,
            created: host.containers_conf.is_none(),
        });
    }
    for &engine in &engines {
        match host.engine(engine) {
            EngineState::Down { detail } => plan.steps.push(Step::Start {
                engine,
                systemd: host.systemd,
                detail: detail.clone(),
            }),
            EngineState::Up { gvisor: false, .. }
                if engine == EngineName::Docker && backends.contains(&Backend::Gvisor) =>
            {
                plan.steps.push(Step::ReloadDocker);
            }
            _ => {}
        }
    }
    for &engine in &engines {
        let images = match host.engine(engine) {
            EngineState::Up { missing_images, .. } if missing_images.is_empty() => continue,
            EngineState::Up { missing_images, .. } => Some(missing_images.clone()),
            _ => None,
        };
        if host.distro.is_ubuntu() && mirror.is_none() {
            return Err(format!(
                "the sandbox images are Debian systems (trixie, forky), built from Debian's packages, and this host's apt sources are {}'s\n  fix: pass --mirror with a Debian mirror's URL, or an apt sources file that names one, then run setup again",
                host.distro.name
            ));
        }
        plan.steps.push(Step::BuildImages { engine, images });
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::super::host::Distro;
    use super::super::packages::{DOCKER, MMDEBSTRAP, NEEDS, PYTHON_VENV};
    use super::*;

    fn backends(list: &[Backend]) -> BTreeSet<Backend> {
        list.iter().copied().collect()
    }

    fn ready() -> EngineState {
        EngineState::Up {
            gvisor: true,
            missing_images: Vec::new(),
        }
    }

    /// A Debian host where everything is in place for every backend.
    fn host_in_place() -> Host {
        Host {
            distro: Distro::parse("ID=debian\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"),
            systemd: false,
            checkout: false,
            installed: NEEDS.iter().map(|n| n.package).collect(),
            runsc: Some("/usr/bin/runsc".into()),
            daemon_json: Some(
                r#"{"runtimes":{"runsc":{"path":"/usr/bin/runsc","runtimeArgs":["--network=none"]}}}"#
                    .into(),
            ),
            containers_conf: Some(format!("[containers]\n{PODMAN_ULIMITS_LINE}\n")),
            docker: ready(),
            podman: ready(),
        }
    }

    fn root() -> ConfigRoot {
        ConfigRoot("/".into())
    }

    fn all() -> BTreeSet<Backend> {
        backends(&[Backend::Docker, Backend::Gvisor, Backend::Podman])
    }

    #[test]
    fn nothing_to_do_when_everything_is_in_place() {
        let plan = plan(&host_in_place(), &all(), &root(), None).unwrap();
        assert_eq!(plan.steps, []);
        assert_eq!(plan.notes, Vec::<String>::new());
    }

    #[test]
    fn a_fresh_host_gets_every_step_in_order() {
        let down = || EngineState::Down {
            detail: "no socket".into(),
        };
        let host = Host {
            installed: BTreeSet::new(),
            runsc: None,
            daemon_json: None,
            containers_conf: None,
            docker: down(),
            podman: down(),
            checkout: true,
            ..host_in_place()
        };
        let plan = plan(&host, &all(), &root(), None).unwrap();
        let Step::Install(needs) = &plan.steps[0] else {
            panic!("{:?}", plan.steps)
        };
        let packages: Vec<&str> = needs.iter().map(|n| n.package).collect();
        assert_eq!(
            packages,
            ["docker.io", "runsc", "podman", "mmdebstrap", "python3-venv"]
        );
        assert!(
            matches!(&plan.steps[1], Step::RegisterRunsc { created: true, path, .. } if path.ends_with("etc/docker/daemon.json"))
        );
        assert!(matches!(
            &plan.steps[2],
            Step::WritePodmanConf { created: true, .. }
        ));
        assert!(matches!(
            &plan.steps[3],
            Step::Start {
                engine: EngineName::Docker,
                systemd: false,
                ..
            }
        ));
        assert!(matches!(
            &plan.steps[4],
            Step::Start {
                engine: EngineName::Podman,
                systemd: false,
                ..
            }
        ));
        assert_eq!(
            plan.steps[5..],
            [
                Step::BuildImages {
                    engine: EngineName::Docker,
                    images: None
                },
                Step::BuildImages {
                    engine: EngineName::Podman,
                    images: None
                },
            ]
        );
        assert_eq!(plan.steps.len(), 7);
        assert!(plan.notes.is_empty());
    }

    #[test]
    fn the_default_backend_needs_docker_alone() {
        let host = Host {
            installed: BTreeSet::new(),
            daemon_json: None,
            containers_conf: None,
            docker: EngineState::Down {
                detail: "gone".into(),
            },
            podman: EngineState::NotNeeded,
            ..host_in_place()
        };
        let plan = plan(&host, &backends(&[Backend::Docker]), &root(), None).unwrap();
        let Step::Install(needs) = &plan.steps[0] else {
            panic!()
        };
        assert_eq!(
            needs.iter().map(|n| n.package).collect::<Vec<_>>(),
            ["docker.io", "mmdebstrap"]
        );
        assert!(matches!(
            plan.steps[1],
            Step::Start {
                engine: EngineName::Docker,
                ..
            }
        ));
        assert!(matches!(
            plan.steps[2],
            Step::BuildImages {
                engine: EngineName::Docker,
                images: None
            }
        ));
        assert_eq!(
            plan.steps.len(),
            3,
            "no daemon.json and no containers.conf: {:?}",
            plan.steps
        );
    }

    #[test]
    fn a_running_docker_without_runsc_is_reloaded_not_restarted() {
        let host = Host {
            daemon_json: Some(r#"{"log-level": "warn"}"#.into()),
            docker: EngineState::Up {
                gvisor: false,
                missing_images: Vec::new(),
            },
            systemd: true,
            ..host_in_place()
        };
        let plan = plan(&host, &backends(&[Backend::Gvisor]), &root(), None).unwrap();
        let Step::RegisterRunsc {
            text,
            created: false,
            ..
        } = &plan.steps[0]
        else {
            panic!("{:?}", plan.steps)
        };
        assert!(
            text.contains("\"log-level\": \"warn\"") && text.contains("--network=none"),
            "{text}"
        );
        assert_eq!(plan.steps[1], Step::ReloadDocker);
        assert_eq!(plan.steps.len(), 2);
        let (what, why) = plan.steps[1].describe(&root());
        assert!(
            what.contains("SIGHUP to dockerd") && why.contains("runsc"),
            "{what} / {why}"
        );
    }

    #[test]
    fn missing_images_are_named_and_present_ones_are_left() {
        let host = Host {
            podman: EngineState::Up {
                gvisor: false,
                missing_images: vec!["code-sandbox-javascript:abc".into()],
            },
            ..host_in_place()
        };
        let plan = plan(&host, &all(), &root(), None).unwrap();
        assert_eq!(
            plan.steps,
            [Step::BuildImages {
                engine: EngineName::Podman,
                images: Some(vec!["code-sandbox-javascript:abc".into()])
            }]
        );
    }

    #[test]
    fn settings_that_exist_are_never_rewritten_and_say_so() {
        let host = Host {
            daemon_json: Some(r#"{"runtimes":{"runsc":{"path":"/opt/runsc"}}}"#.into()),
            containers_conf: Some("[containers]\ndefault_ulimits = []\n".into()),
            ..host_in_place()
        };
        let plan = plan(&host, &all(), &root(), None).unwrap();
        assert_eq!(plan.steps, []);
        assert_eq!(plan.notes.len(), 1);
        assert!(plan.notes[0].contains("/opt/runsc") && plan.notes[0].contains("left as it is"));
    }

    #[test]
    fn podman_conf_written_while_podman_runs_asks_for_a_restart_it_does_not_do() {
        let host = Host {
            containers_conf: None,
            ..host_in_place()
        };
        let plan = plan(&host, &backends(&[Backend::Podman]), &root(), None).unwrap();
        assert!(matches!(plan.steps[..], [Step::WritePodmanConf { .. }]));
        assert!(
            plan.notes[0].contains("never restarts a running engine"),
            "{:?}",
            plan.notes
        );
    }

    #[test]
    fn a_daemon_json_that_is_not_json_stops_the_plan() {
        let host = Host {
            daemon_json: Some("{ runtimes: }".into()),
            ..host_in_place()
        };
        let error = plan(&host, &all(), &root(), None).unwrap_err();
        assert!(
            error.starts_with("/etc/docker/daemon.json: is not valid JSON"),
            "{error}"
        );
        // Docker alone never reads it.
        assert!(plan(&host, &backends(&[Backend::Docker]), &root(), None).is_ok());
    }

    #[test]
    fn python3_venv_is_for_a_source_checkout_only() {
        let mut host = host_in_place();
        host.installed.remove("python3-venv");
        assert_eq!(plan(&host, &all(), &root(), None).unwrap().steps, []);
        host.checkout = true;
        assert_eq!(
            plan(&host, &all(), &root(), None).unwrap().steps,
            [Step::Install(vec![&PYTHON_VENV])]
        );
    }

    #[test]
    fn ubuntu_builds_images_only_from_a_debian_mirror() {
        let host = Host {
            distro: Distro::parse("ID=ubuntu\nID_LIKE=debian\nPRETTY_NAME=\"Ubuntu 24.04 LTS\"\n"),
            docker: EngineState::Up {
                gvisor: true,
                missing_images: vec!["code-sandbox-python:abc".into()],
            },
            ..host_in_place()
        };
        let docker = backends(&[Backend::Docker]);
        let error = plan(&host, &docker, &root(), None).unwrap_err();
        assert!(
            error.contains("Ubuntu 24.04 LTS") && error.contains("--mirror"),
            "{error}"
        );
        let with_mirror = plan(&host, &docker, &root(), Some("/etc/apt/debian.sources")).unwrap();
        assert_eq!(with_mirror.steps.len(), 1);
    }

    #[test]
    fn every_step_says_what_and_why() {
        let steps = [
            Step::Install(vec![&DOCKER, &MMDEBSTRAP]),
            Step::Start {
                engine: EngineName::Docker,
                systemd: false,
                detail: "refused".into(),
            },
            Step::Start {
                engine: EngineName::Podman,
                systemd: false,
                detail: "refused".into(),
            },
            Step::Start {
                engine: EngineName::Podman,
                systemd: true,
                detail: "refused".into(),
            },
            Step::BuildImages {
                engine: EngineName::Podman,
                images: None,
            },
        ];
        let root = ConfigRoot("/tmp/root".into());
        for step in &steps {
            let (what, why) = step.describe(&root);
            assert!(!what.is_empty() && !why.is_empty(), "{step:?}");
        }
        assert!(
            steps[0]
                .describe(&root)
                .1
                .contains("docker.io: Docker Engine")
        );
        assert!(
            steps[1]
                .describe(&root)
                .0
                .contains("/tmp/root/var/log/dockerd.log")
        );
        assert!(steps[2].describe(&root).1.contains("`oom` file"));
        assert!(
            steps[3]
                .describe(&root)
                .0
                .contains("systemctl start podman.socket")
        );
    }
}
