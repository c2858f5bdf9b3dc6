//! The container configuration: every item of the hardening checklist, from the policy's
//! limits, for one container running as its own user id.

use std::collections::HashMap;

use bollard::models::{ContainerCreateBody, HostConfig, ResourcesUlimits};

use super::engine::EngineKind;
use crate::sandbox::host_files::HOSTNAME;
use crate::sandbox::labels::{LABEL_INSTANCE, LABEL_MANAGED, LABEL_OWNER, LABEL_UID, owner};
use crate::sandbox::seccomp;
use crate::sandbox::spec::{ContainerSpec, WORK_DIR};

/// A mount that hides a directory under an empty, read-only, non-executable tmpfs.
const SEALED_TMPFS: &str = "ro,nosuid,nodev,noexec,size=64k";

/// Paths hidden from the snippet: Docker's defaults (which a container's own list replaces)
/// and what identifies the host: its boot id, kernel command line and machine (DMI) data.
const MASKED_PATHS: &[&str] = &[
    "/proc/asound",
    "/proc/acpi",
    "/proc/kcore",
    "/proc/keys",
    "/proc/latency_stats",
    "/proc/timer_list",
    "/proc/timer_stats",
    "/proc/sched_debug",
    "/proc/scsi",
    "/sys/firmware",
    "/sys/devices/virtual/powercap",
    "/proc/sys/kernel/random/boot_id",
    "/proc/cmdline",
    "/sys/devices/virtual/dmi",
];

/// Headroom of the host's task limit under gVisor: each of the snippet's tasks costs gVisor
/// several host threads (measured here with runsc's default ptrace platform: 32 snippet
/// processes needed between 193 and 256 host tasks), plus gVisor's own kernel threads.
const GVISOR_HOST_TASKS_PER_TASK: u32 = 8;
const GVISOR_OWN_TASKS: u32 = 64;

/// RLIMIT_NPROC under Podman with runc. Podman 4.3, given any ulimit but this one, sets it to
/// a value its runtime may not raise to, and the container fails to start ("error setting
/// rlimit type 6"). Under runc the limit counts every process of the container's uid on the
/// host; the uid is the container's own, so this is only a ceiling behind its pids limit.
const PODMAN_NPROC: u32 = 4096;

/// The host's task limit (pids cgroup) and the RLIMIT_NPROC to set, if any.
///
/// Under runc the snippet's tasks are host tasks, so the pids cgroup counts exactly them.
/// Under gVisor the cgroup counts gVisor's threads, and a limit the size of the policy's kills
/// gVisor itself after a few forks; so the cgroup gets headroom and the policy's limit is
/// applied inside gVisor's kernel as RLIMIT_NPROC, which there counts this sandbox's tasks
/// alone.
fn task_limits(pids: u32, gvisor: bool, engine: EngineKind) -> (i64, Option<i64>) {
    if gvisor {
        let host = pids
            .saturating_mul(GVISOR_HOST_TASKS_PER_TASK)
            .saturating_add(GVISOR_OWN_TASKS);
        (i64::from(host), Some(i64::from(pids)))
    } else if engine == EngineKind::Podman {
        (i64::from(pids), Some(i64::from(PODMAN_NPROC.max(pids))))
    } else {
        (i64::from(pids), None)
    }
}

/// The container configuration: every item of the hardening checklist, from the limits, for a
/// container running as `uid`.
pub fn create_body(spec: &ContainerSpec, uid: u32) -> ContainerCreateBody {
    let l = &spec.limits;
    let memory = i64::try_from(l.memory_bytes).unwrap_or(i64::MAX);
    let tmpfs_options = |noexec: bool| {
        format!(
            "rw,nosuid,nodev,{}size={},mode=1777",
            if noexec { "noexec," } else { "" },
            l.tmpfs_bytes
        )
    };
    let ulimit = |name: &str, value: i64| ResourcesUlimits {
        name: Some(name.to_owned()),
        soft: Some(value),
        hard: Some(value),
    };
    let (host_pids, nproc) = task_limits(l.pids, spec.gvisor, spec.engine);
    let mut ulimits = vec![
        ulimit("nofile", 256),
        ulimit("fsize", i64::try_from(l.tmpfs_bytes).unwrap_or(i64::MAX)),
        ulimit("core", 0),
    ];
    ulimits.extend(nproc.map(|n| ulimit("nproc", n)));
    let mut security_opt = vec!["no-new-privileges:true".to_owned()];
    let mut masked_paths = None;
    match spec.engine {
        // Docker takes the profile itself, and a list of masked paths.
        EngineKind::Docker => {
            security_opt.push(format!("seccomp={}", seccomp::profile_json()));
            masked_paths = Some(MASKED_PATHS.iter().map(|p| (*p).to_owned()).collect());
        }
        // Podman's compatible API reads the profile from a path and ignores MaskedPaths, but
        // takes its own `mask=` option (added to its defaults).
        EngineKind::Podman => {
            security_opt.push(format!(
                "seccomp={}",
                spec.host_files.seccomp_profile().to_string_lossy()
            ));
            security_opt.push(format!("mask={}", MASKED_PATHS.join(":")));
        }
    }
    let host = HostConfig {
        memory: Some(memory),
        // Swap equal to memory means no swap: the limit is the limit.
        memory_swap: Some(memory),
        nano_cpus: Some((l.cpus * 1e9) as i64),
        pids_limit: Some(host_pids),
        network_mode: Some("none".to_owned()),
        readonly_rootfs: Some(true),
        cap_drop: Some(vec!["ALL".to_owned()]),
        security_opt: Some(security_opt),
        masked_paths,
        // The container's cgroup path (its id) stays out of /proc/self/cgroup (Docker; Podman's
        // compatible API ignores this).
        cgroupns_mode: Some(bollard::models::HostConfigCgroupnsModeEnum::PRIVATE),
        binds: Some(spec.host_files.binds()),
        tmpfs: Some(HashMap::from([
            (WORK_DIR.to_owned(), tmpfs_options(true)),
            ("/tmp".to_owned(), tmpfs_options(true)),
            // Podman mounts writable, executable tmpfs at /run and /var/tmp on a read-only
            // root; empty read-only ones there keep the root read-only on every engine.
            ("/run".to_owned(), SEALED_TMPFS.to_owned()),
            ("/var/tmp".to_owned(), SEALED_TMPFS.to_owned()),
        ])),
        // /dev/shm is writable on every engine (64 MiB by default): no more than the work dir.
        shm_size: Some(i64::try_from(l.tmpfs_bytes).unwrap_or(i64::MAX)),
        ulimits: Some(ulimits),
        // No init process: the runner is PID 1. It reaps orphans itself, and as the init of
        // its PID namespace it cannot be signalled by the snippet (under runc) and holds the
        // container's output alone (runners/*: "Protocol").
        init: Some(false),
        runtime: l.runtime.clone(),
        auto_remove: Some(false),
        ..Default::default()
    };
    let mut env = vec![
        format!("HOME={WORK_DIR}"),
        "MPLBACKEND=Agg".to_owned(),
        "PYTHONDONTWRITEBYTECODE=1".to_owned(),
        "PYTHONIOENCODING=utf-8".to_owned(),
        // No Python the snippet starts (`python3 -m`, `-c`, a worker) puts the working dir
        // first on its module path, where a file written there would stand in for any module.
        "PYTHONSAFEPATH=1".to_owned(),
        // joblib (scikit-learn's `n_jobs`) runs threads, not worker processes: a container
        // has a CPU or less, and its workers would be programs started outside the runner.
        "JOBLIB_MULTIPROCESSING=0".to_owned(),
        "LANG=C.UTF-8".to_owned(),
        format!("SANDBOX_PRELOAD={}", spec.preload),
    ];
    env.extend(spec.env.iter().map(|(k, v)| format!("{k}={v}")));
    ContainerCreateBody {
        image: Some(spec.image.clone()),
        // The runner's command replaces the image's entrypoint too: an image derived from a
        // team's own may have one (a shell script), and the runner must be PID 1 itself.
        entrypoint: Some(spec.command[..1].to_vec()),
        cmd: Some(spec.command[1..].to_vec()),
        user: Some(format!("{uid}:{uid}")),
        working_dir: Some(WORK_DIR.to_owned()),
        hostname: Some(HOSTNAME.to_owned()),
        env: Some(env),
        labels: Some(HashMap::from([
            (LABEL_MANAGED.to_owned(), "true".to_owned()),
            (LABEL_OWNER.to_owned(), owner()),
            (LABEL_INSTANCE.to_owned(), spec.instance.clone()),
            (LABEL_UID.to_owned(), uid.to_string()),
        ])),
        attach_stdin: Some(true),
        attach_stdout: Some(true),
        attach_stderr: Some(true),
        open_stdin: Some(true),
        // If the gateway disappears, the runner's stdin closes and the container exits.
        stdin_once: Some(true),
        tty: Some(false),
        network_disabled: Some(true),
        host_config: Some(host),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_limits_follow_the_runtime() {
        // runc on Docker: the pids cgroup counts the snippet's tasks exactly.
        assert_eq!(task_limits(64, false, EngineKind::Docker), (64, None));
        // Podman: the same cgroup, and the RLIMIT_NPROC ceiling it needs to start at all.
        assert_eq!(
            task_limits(64, false, EngineKind::Podman),
            (64, Some(i64::from(PODMAN_NPROC)))
        );
        // gVisor: the policy's limit inside gVisor's kernel, headroom for gVisor on the host.
        let (host, nproc) = task_limits(64, true, EngineKind::Docker);
        assert_eq!(nproc, Some(64));
        assert!(host >= 64 * 6, "{host}");
        assert_eq!(
            task_limits(u32::MAX, true, EngineKind::Podman).1,
            Some(i64::from(u32::MAX))
        );
    }
}
