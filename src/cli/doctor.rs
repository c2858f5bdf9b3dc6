//! `code-sandbox-mcp doctor`: checks what the gateway needs on this host and prints the fix for
//! whatever is missing. It ends by running a probe in a real sandbox to prove the limits hold.

use std::fmt::Write;
use std::process::ExitCode;
use std::time::Duration;

use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::policy::format_size;
use code_sandbox_mcp::sandbox::{Engine, EngineKind, Sandbox, images, manifest, seccomp};

use super::SandboxArgs;

/// Reads, inside the sandbox, what the container actually enforces. prctl asks the kernel the
/// snippet sees, which under gVisor is gVisor's (its /proc/self/status omits NoNewPrivs).
const PROBE: &str = r#"
import ctypes, json, os, resource, socket
libc = ctypes.CDLL(None, use_errno=True)
def refused(call):
    ctypes.set_errno(0)
    result = call()
    return result == -1 and ctypes.get_errno() == 1
def vsock_refused():
    try:
        socket.socket(40, socket.SOCK_STREAM).close()  # AF_VSOCK: created, never connected
        return False
    except OSError:
        return True
def read(*paths):
    for p in paths:
        try:
            return open(p).read().strip()
        except OSError:
            pass
    return None
status = dict(l.split(":\t", 1) for l in open("/proc/self/status").read().splitlines() if ":\t" in l)
try:
    open("/etc/probe", "w"); root_writable = True
except OSError:
    root_writable = False
print(json.dumps({
    "uid": os.getuid(),
    "cap_eff": status.get("CapEff", "").strip(),
    "no_new_privs": libc.prctl(39, 0, 0, 0, 0),
    "seccomp": libc.prctl(21, 0, 0, 0, 0),
    "kernel": os.uname().release,
    "mem_total_kib": int(read("/proc/meminfo").split()[1]),
    "nproc": resource.getrlimit(resource.RLIMIT_NPROC)[0],
    "memory": read("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"),
    "pids": read("/sys/fs/cgroup/pids.max", "/sys/fs/cgroup/pids/pids.max"),
    "interfaces": sorted(os.listdir("/sys/class/net")),
    "root_writable": root_writable,
    "work_writable": os.access("/work", os.W_OK),
    "unshare_refused": refused(lambda: libc.unshare(0x10000000)),
    "vsock_refused": vsock_refused(),
}))
"#;

/// What the checks found, as the text `doctor` prints. Collected rather than printed as it
/// goes, so `setup` can check several engines at once and still print each report whole.
#[derive(Default)]
pub struct Report {
    pub failures: usize,
    pub text: String,
}

impl Report {
    fn ok(&mut self, what: &str) {
        let _ = writeln!(self.text, "ok    {what}");
    }
    fn fail(&mut self, what: &str, fix: &str) {
        self.failures += 1;
        let _ = writeln!(self.text, "FAIL  {what}\n      fix: {fix}");
    }
    fn note(&mut self, what: &str) {
        let _ = writeln!(self.text, "note  {what}");
    }
}

pub async fn doctor(args: &SandboxArgs) -> ExitCode {
    let report = examine(args).await;
    print!("{}", report.text);
    if report.failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Runs every check; the report ends with a summary line.
pub async fn examine(args: &SandboxArgs) -> Report {
    let mut report = Report::default();
    check_host(&mut report, args).await;
    if report.failures == 0 {
        report.text.push_str("\nall checks passed\n");
    } else {
        let _ = writeln!(
            report.text,
            "\n{} check(s) failed; as root, `code-sandbox-mcp setup` installs and starts what is missing (README, \"Installation\")",
            report.failures
        );
    }
    report
}

async fn check_host(report: &mut Report, args: &SandboxArgs) {
    let policy = match args.load_policy() {
        Ok(p) => {
            report.ok(&format!(
                "policy {} loads ({} rules, from {})",
                p.name,
                p.rules.len(),
                p.origin
            ));
            p
        }
        Err(e) => {
            report.fail(&format!("policy `{}` does not load", args.policy), &e);
            return;
        }
    };
    let engine = match Engine::connect(&args.engine).await {
        Ok(engine) => {
            report.ok(&format!(
                "container engine {} {} (API {}) at {} (--engine {})",
                engine.kind, engine.version, engine.api_version, engine.endpoint, args.engine
            ));
            engine
        }
        Err(e) => {
            report.fail("no container engine answers", &e.to_string());
            return;
        }
    };
    match engine.runtimes().await {
        Ok(runtimes) => {
            let names = |installed: bool| {
                runtimes
                    .iter()
                    .filter(|r| r.installed == installed)
                    .map(|r| r.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            report.ok(&format!("runtimes: {}", names(true)));
            let missing = names(false);
            if !missing.is_empty() {
                report.note(&format!(
                    "runtimes the engine lists but this host lacks: {missing}"
                ));
            }
            if !runtimes.iter().any(|r| r.name == "runsc" && r.installed) {
                report.note("gVisor (runsc) is not available: policies with `runtime: runsc`, such as strict-gvisor, cannot run here (README, section \"gVisor\")");
            }
            let handed = match engine.kind {
                EngineKind::Docker => "handed to Docker with each container",
                EngineKind::Podman => {
                    "written to a private file whose path Podman reads for each container"
                }
            };
            report.ok(&format!(
                "seccomp: every container gets the gateway's own profile {} ({} calls allowed; no namespaces, mounts, io_uring, keyrings, bpf, ptrace, memfd, or sockets but unix, inet and inet6), {handed}",
                seccomp::digest(),
                seccomp::allowed_count()
            ));
            // Podman's compatible API runs its default runtime whatever a container asks for,
            // so a gVisor it lists matters only when it is that default.
            let used = |r: &&code_sandbox_mcp::sandbox::docker::Runtime| {
                r.installed && r.is_gvisor() && (engine.kind == EngineKind::Docker || r.default)
            };
            for gvisor in runtimes.iter().filter(used) {
                if gvisor.applies_seccomp() {
                    report.ok(&format!("seccomp under gVisor: `{}` runs with --oci-seccomp, so the profile applies inside gVisor too", gvisor.name));
                } else {
                    report.note(&format!(
                        "seccomp under gVisor: `{}` is registered without --oci-seccomp, so it is handed the profile but does not apply it; gVisor's own kernel answers every call (namespaces and io_uring stay inside it, AF_VSOCK, bpf, userfaultfd and perf events do not exist there) and gVisor runs under its own filter on the host. Add \"--oci-seccomp\" to its runtimeArgs to apply the profile there too",
                        gvisor.name
                    ));
                }
            }
        }
        Err(e) => report.fail("cannot list runtimes", &e.to_string()),
    }
    if let Err(e) = engine
        .require_runtime(policy.limits.runtime.as_deref())
        .await
    {
        report.fail(
            &format!("policy {} asks for a runtime the engine lacks", policy.name),
            &e.to_string(),
        );
    }
    let config = match args.config(Language::ALL.to_vec(), 0) {
        Ok(c) => c,
        Err(e) => {
            report.fail("invalid image settings", &e);
            return;
        }
    };
    let mut have_python = false;
    for language in Language::ALL {
        let image = config.image(language);
        match images::exists(&engine, &image).await {
            Ok(true) => {
                report.ok(&format!("{language} image {image} is built"));
                have_python |= language == Language::Python;
                match manifest::of(&engine, language, &image).await {
                    Ok(m) => report.ok(&format!(
                        "{language} image {image} has {}; packages: {}",
                        m.runtime(),
                        if m.packages.is_empty() {
                            "none".to_owned()
                        } else {
                            m.package_list().join(", ")
                        }
                    )),
                    Err(e) => report.fail(&format!("{language} image {image} is not usable"), &e.to_string()),
                }
            }
            Ok(false) => report.fail(
                &format!("{language} image {image} is not built"),
                "run `code-sandbox-mcp images build` (as root; about a minute per image), or start the server, which builds it on first use",
            ),
            Err(e) => report.fail(&format!("cannot look up {image}"), &e.to_string()),
        }
    }
    let mmdebstrap = std::process::Command::new("sh")
        .args(["-c", "command -v mmdebstrap"])
        .output();
    if mmdebstrap.is_ok_and(|o| o.status.success()) {
        report.ok("mmdebstrap is installed (images can be built here)");
    } else {
        report.note("mmdebstrap is not installed: images cannot be built on this host (apt-get install mmdebstrap)");
    }
    if have_python {
        probe(report, args, &policy).await;
    }
}

/// Runs the probe in a sandbox with the policy's limits and compares what it sees.
async fn probe(report: &mut Report, args: &SandboxArgs, policy: &code_sandbox_mcp::policy::Policy) {
    let Ok(config) = args.config(vec![Language::Python], 0) else {
        return;
    };
    let sandbox = match Sandbox::start(&config, &policy.limits).await {
        Ok(s) => s,
        Err(e) => {
            report.fail("cannot start a sandbox", &e.to_string());
            return;
        }
    };
    let run = sandbox
        .run(
            Language::Python,
            PROBE,
            tokio::time::sleep(Duration::from_secs(60)),
        )
        .await;
    sandbox.shutdown().await;
    let execution = match run {
        Ok(e) if e.exit_code == Some(0) => e,
        Ok(e) => {
            report.fail(
                "the probe did not run cleanly",
                &format!("exit {:?}: {}", e.exit_code, e.stderr.trim()),
            );
            return;
        }
        Err(e) => {
            report.fail("the probe could not run", &e.to_string());
            return;
        }
    };
    let Ok(seen) = serde_json::from_str::<serde_json::Value>(execution.stdout.trim()) else {
        report.fail("the probe's output is unreadable", execution.stdout.trim());
        return;
    };
    let limits = &policy.limits;
    let check = |report: &mut Report, ok: bool, what: String| {
        if ok {
            report.ok(&what);
        } else {
            report.fail(&what, "the engine did not apply this limit; check its cgroup setup (`docker info` warnings)");
        }
    };
    let uid = seen["uid"].as_u64().and_then(|u| u32::try_from(u).ok());
    check(
        report,
        uid.is_some_and(|u| u != 0 && config.uids.contains(u)),
        format!(
            "snippets run as uid {}, one of their own from {}",
            seen["uid"], config.uids
        ),
    );
    check(
        report,
        seen["cap_eff"] == "0000000000000000",
        format!("no capabilities (CapEff {})", seen["cap_eff"]),
    );
    check(
        report,
        seen["no_new_privs"] == 1,
        "no-new-privileges is set".to_owned(),
    );
    let host_kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|k| k.trim().to_owned())
        .unwrap_or_default();
    let kernel = seen["kernel"].as_str().unwrap_or("?");
    // gVisor answers the snippet's system calls with a kernel of its own.
    let gvisor = kernel != host_kernel;
    if gvisor {
        report.ok(&format!(
            "snippets see gVisor's kernel ({kernel}), not the host's ({host_kernel})"
        ));
        report.note("seccomp: gVisor's kernel answers the snippet's calls; gVisor itself runs filtered on the host");
    } else {
        report.note(&format!(
            "snippets share the host's kernel ({host_kernel}); for gVisor's kernel in between, use a policy with `runtime: runsc` (strict-gvisor)"
        ));
        check(
            report,
            seen["seccomp"] == 2,
            "a seccomp filter is active".to_owned(),
        );
        check(
            report,
            seen["unshare_refused"] == true && seen["vsock_refused"] == true,
            "the gateway's profile is in force: user namespaces and AF_VSOCK sockets are refused"
                .to_owned(),
        );
    }
    check(
        report,
        seen["interfaces"] == serde_json::json!(["lo"]),
        format!("network interfaces: {}", seen["interfaces"]),
    );
    check(
        report,
        seen["root_writable"] == false,
        "the root filesystem is read-only".to_owned(),
    );
    check(
        report,
        seen["work_writable"] == true,
        "the work dir /work is writable".to_owned(),
    );
    // gVisor shows no cgroup files; it sizes its memory to the limit and enforces the
    // process limit as RLIMIT_NPROC in its own kernel.
    let memory = if gvisor {
        seen["mem_total_kib"].as_u64().map(|k| k * 1024)
    } else {
        seen["memory"].as_str().and_then(|m| m.parse::<u64>().ok())
    };
    check(
        report,
        memory == Some(limits.memory_bytes),
        format!(
            "memory limit {} (policy: {})",
            memory.map_or("none".into(), format_size),
            format_size(limits.memory_bytes)
        ),
    );
    let pids = if gvisor {
        seen["nproc"].as_u64().and_then(|n| u32::try_from(n).ok())
    } else {
        seen["pids"].as_str().and_then(|p| p.parse::<u32>().ok())
    };
    check(
        report,
        pids == Some(limits.pids),
        format!(
            "process limit {} (policy: {})",
            pids.map_or("none".into(), |p| p.to_string()),
            limits.pids
        ),
    );
}
