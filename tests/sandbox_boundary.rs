//! The container boundary, attacked on every backend: the gateway's seccomp profile, a user
//! per sandbox, a result the snippet cannot forge, and what the snippet learns of the host.
//! Like `sandbox_limits`, these run the sandbox without a policy: they prove what the container
//! stops on its own.

mod common;

use std::collections::HashMap;

use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::policy::Limits;
use code_sandbox_mcp::sandbox::{Execution, SandboxError, UidRange};
use common::{Backend, tight_limits};

/// Tries each call the profile refuses and prints `name:ok` or `name:<errno name>`. Sockets
/// are only created, never connected (an AF_VSOCK socket may reach this VM's host).
const REFUSED_CALLS: &str = r#"
import ctypes, errno, os, platform, socket
libc = ctypes.CDLL(None, use_errno=True)
NR = {"x86_64": dict(io_uring_setup=425, keyctl=250, add_key=248, bpf=321, userfaultfd=323,
                     perf_event_open=298, clone3=435, pivot_root=155, clone=56),
      "aarch64": dict(io_uring_setup=425, keyctl=219, add_key=217, bpf=280, userfaultfd=282,
                      perf_event_open=241, clone3=435, pivot_root=41, clone=220)}[platform.machine()]
def report(name, result):
    if result == -1:
        print(f"{name}:{errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno())}")
    else:
        print(f"{name}:ok")
def call(name, fn, *args):
    ctypes.set_errno(0)
    result = fn(*args)
    if name.startswith("clone") and result == 0:
        os._exit(0)  # a child, should the clone have worked
    report(name, result)
    if result not in (-1, 0) and name in ("io_uring_setup", "memfd_create", "userfaultfd", "perf_event_open", "bpf"):
        os.close(result)
sc = libc.syscall
params = ctypes.create_string_buffer(120)
iov = (ctypes.c_void_p * 2)(ctypes.addressof(params), 1)
call("unshare_user", libc.unshare, 0x10000000)
call("unshare_mount", libc.unshare, 0x20000)
call("clone_newuser", sc, NR["clone"], 0x10000000 | 17, 0, 0, 0, 0)
call("clone3", sc, NR["clone3"], None, 0)
call("setns", libc.setns, 0, 0)
call("mount", libc.mount, b"none", b"/tmp", b"tmpfs", 0, None)
call("pivot_root", sc, NR["pivot_root"], b"/tmp", b"/tmp")
call("io_uring_setup", sc, NR["io_uring_setup"], 4, params)
call("keyctl", sc, NR["keyctl"], 0, -3, 0)
call("add_key", sc, NR["add_key"], b"user", b"k", b"v", 1, -3)
call("bpf", sc, NR["bpf"], 0, params, 120)
call("userfaultfd", sc, NR["userfaultfd"], 0)
call("perf_event_open", sc, NR["perf_event_open"], params, 0, -1, -1, 0)
call("ptrace_attach_pid1", libc.ptrace, 16, 1, None, None)
call("process_vm_readv_pid1", libc.process_vm_readv, 1, iov, 1, iov, 1, 0)
call("personality_linux32", libc.personality, 8)
call("memfd_create", libc.memfd_create, b"x", 0)
for name, family, kind in (("vsock", 40, socket.SOCK_STREAM), ("netlink", 16, socket.SOCK_RAW), ("packet", 17, socket.SOCK_RAW)):
    try:
        socket.socket(family, kind).close()
        print(f"socket_{name}:ok")
    except OSError as e:
        print(f"socket_{name}:{errno.errorcode.get(e.errno, e.errno)}")
print("kernel:" + os.uname().release)
"#;

fn parse(stdout: &str) -> HashMap<String, String> {
    stdout
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// Two Python snippets run at the same time, each in a container of its own.
async fn two_at_once(backend: Backend, a: &str, b: &str) -> (Execution, Execution) {
    let sandbox = backend.sandbox(&tight_limits(), 2).await;
    let (a, b) = tokio::join!(
        sandbox.run(Language::Python, a, std::future::pending()),
        sandbox.run(Language::Python, b, std::future::pending()),
    );
    sandbox.shutdown().await;
    (a.unwrap(), b.unwrap())
}

fn host_file(path: &str) -> String {
    std::fs::read_to_string(path).unwrap().trim().to_owned()
}

on_every_backend! {
    /// Each call the profile refuses, tried for real. Under runc (Docker, Podman) the profile
    /// answers; under gVisor without `--oci-seccomp` gVisor's own kernel does, and what it
    /// implements (namespaces, io_uring, memfd) stays inside it: the host's kernel never sees
    /// the call.
    async fn the_seccomp_profile_refuses_namespaces_and_kernel_surfaces(backend) {
        let e = backend.run_py(REFUSED_CALLS).await;
        let seen = parse(&e.stdout);
        assert_eq!(seen.len(), 21, "{e:?}");
        if backend.applies_seccomp().await {
            for (call, result) in &seen {
                let expected = match call.as_str() {
                    "kernel" => continue,
                    // ENOSYS so that glibc falls back to clone, whose flags are checked.
                    "clone3" => "ENOSYS",
                    _ => "EPERM",
                };
                assert_eq!(result, expected, "{call} on {}: {e:?}", backend.name());
            }
        } else {
            assert_ne!(seen["kernel"], host_file("/proc/sys/kernel/osrelease"), "{e:?}");
            for call in [
                "socket_vsock", "bpf", "userfaultfd", "perf_event_open", "ptrace_attach_pid1",
                "process_vm_readv_pid1", "keyctl", "add_key", "personality_linux32", "mount",
                "clone_newuser", "clone3",
            ] {
                assert_ne!(seen[call], "ok", "{call} under gVisor: {e:?}");
            }
        }
    }
}

on_every_backend! {
    /// The 32-bit system-call table (`int 0x80` from 64-bit code) is outside the profile: its
    /// multiplexers hide their arguments from any filter. Under runc the kernel kills the
    /// caller (SIGSYS); gVisor has no 32-bit table at all.
    async fn thirty_two_bit_system_calls_are_refused(backend) {
        if std::env::consts::ARCH != "x86_64" {
            return;
        }
        let code = "import ctypes, mmap, os\nbuf = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)\nbuf.write(bytes([0xb8, 20, 0, 0, 0, 0xcd, 0x80, 0xc3]))  # mov eax, 20 (getpid); int 0x80; ret\ngetpid32 = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(buf)))\npid = os.fork()\nif pid == 0:\n    print('returned', getpid32(), flush=True)\n    os._exit(0)\n_, status = os.waitpid(pid, 0)\nprint('signal', os.WTERMSIG(status) if os.WIFSIGNALED(status) else None)\n";
        let e = backend.run_py(code).await;
        if backend.applies_seccomp().await {
            assert_eq!(e.stdout, "signal 31\n", "SIGSYS expected: {e:?}");
        } else {
            // gVisor has no 32-bit table: it refuses the call with an error, which depends on
            // how it reads the registers (EINVAL, or EBADF when it takes `int 0x80` for the
            // 64-bit call of that number with a stray descriptor). Never the pid.
            let returned: Option<i64> = e
                .stdout
                .strip_prefix("returned ")
                .and_then(|rest| rest.lines().next())
                .and_then(|n| n.parse().ok());
            assert!(
                returned.is_some_and(|n| n < 0) && e.stdout.ends_with("signal None\n"),
                "an error return expected: {e:?}"
            );
        }
    }
}

on_every_backend! {
    /// What the profile allows is enough for the libraries and the runners: threads and
    /// processes, AF_UNIX/AF_INET/AF_INET6 on loopback, numpy, pandas, matplotlib,
    /// scikit-learn, and Node's workers and child processes.
    async fn the_libraries_work_under_the_profile(backend) {
        let code = r#"
import io, socket, subprocess, threading
import numpy as np, pandas as pd, matplotlib.pyplot as plt
from sklearn.linear_model import LinearRegression
x = np.arange(20.0).reshape(-1, 1)
print("sklearn", round(float(LinearRegression().fit(x, 3 * x.ravel() + 1).coef_[0]), 3))
print("pandas", pd.DataFrame({"a": range(10)}).a.sum())
fig = plt.figure(); plt.plot([1, 2]); buf = io.BytesIO(); fig.savefig(buf, format="png"); print("png", buf.getvalue()[:4] == b"\x89PNG")
t = threading.Thread(target=lambda: None); t.start(); t.join(); print("thread ok")
print("process", subprocess.run(["true"]).returncode)
a, b = socket.socketpair(); a.send(b"u"); print("unix", b.recv(1))
for family, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
    server = socket.socket(family); server.bind((host, 0)); server.listen()
    client = socket.create_connection(server.getsockname()[:2]); conn, _ = server.accept()
    client.send(b"i"); print(family.name, conn.recv(1))
"#;
        let e = backend.run_py(code).await;
        assert_eq!(
            e.stdout,
            "sklearn 3.0\npandas 45\npng True\nthread ok\nprocess 0\nunix b'u'\nAF_INET b'i'\nAF_INET6 b'i'\n",
            "{e:?}"
        );
        let js = "const { Worker } = require('worker_threads');\nconst w = new Worker('require(\"worker_threads\").parentPort.postMessage(6 * 7)', { eval: true });\nw.on('message', (m) => {\n  console.log('worker', m);\n  console.log('child', require('child_process').spawnSync('true').status);\n  const server = require('net').createServer((s) => s.end('n')).listen(0, '127.0.0.1', () => {\n    require('net').connect(server.address().port, '127.0.0.1').on('data', (d) => { console.log('tcp', d.toString()); process.exit(0); });\n  });\n});\n";
        let e = backend.run_js(js).await;
        assert_eq!(e.stdout, "worker 42\nchild 0\ntcp n\n", "{e:?}");
    }
}

on_every_backend! {
    /// `noexec` on the work dir, /tmp and /dev/shm stops running a program written there, and
    /// under runc also the dynamic loader mapping one; the profile refuses memfd_create, the
    /// file no mount covers. gVisor checks noexec only for execve: there the loader and a
    /// memfd run native code, against gVisor's kernel.
    async fn programs_written_by_the_snippet_do_not_run(backend) {
        let code = r#"
import ctypes, errno, os, shutil, subprocess
for d in ("/work", "/tmp", "/dev/shm"):
    path = d + "/prog"
    shutil.copy("/bin/uname", path); os.chmod(path, 0o755)
    try:
        subprocess.run([path]); print("exec ran")
    except OSError as e:
        print("exec", errno.errorcode[e.errno])
    loader = subprocess.run(["/lib64/ld-linux-x86-64.so.2", path, "-r"], capture_output=True, text=True)
    print("loader", "ran " + loader.stdout.strip() if loader.returncode == 0 else "refused")
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.memfd_create(b"prog", 0)
if fd < 0:
    print("memfd", errno.errorcode[ctypes.get_errno()])
else:
    os.write(fd, open("/bin/uname", "rb").read())
    print("memfd ran", subprocess.run([f"/proc/self/fd/{fd}", "-r"], pass_fds=[fd], capture_output=True, text=True).stdout.strip())
"#;
        if std::env::consts::ARCH != "x86_64" {
            return;
        }
        let e = backend.run_py(code).await;
        let lines: Vec<&str> = e.stdout.lines().collect();
        assert_eq!(lines.len(), 7, "{e:?}");
        assert!(lines.iter().step_by(2).take(3).all(|l| *l == "exec EACCES"), "{e:?}");
        let loaders = &lines[1..6];
        if backend == Backend::Gvisor {
            let host = host_file("/proc/sys/kernel/osrelease");
            for line in loaders.iter().step_by(2) {
                let release = line.strip_prefix("loader ran ").unwrap_or_else(|| panic!("{e:?}"));
                assert_ne!(release, host, "a program ran against the host's kernel: {e:?}");
            }
        } else {
            assert!(loaders.iter().step_by(2).all(|l| *l == "loader refused"), "{e:?}");
        }
        if backend.applies_seccomp().await {
            assert_eq!(lines[6], "memfd EPERM", "{e:?}");
        } else {
            assert!(lines[6].starts_with("memfd ran "), "{e:?}");
        }
    }
}

on_every_backend! {
    /// The work dir is searched last for imports: a module file the snippet writes imports
    /// under its own name, but never in place of a standard-library module or an installed
    /// package that the policy allowed by name.
    async fn a_file_the_snippet_writes_does_not_stand_in_for_a_module(backend) {
        let code = r#"
for name in ("colorsys", "statistics", "numpy", "mine"):
    with open(name + ".py", "w") as f:
        f.write("import sys; print('shadowed', __name__); sys.stdout.flush()\n")
import colorsys, statistics, numpy
print(colorsys.__file__.startswith("/usr/"), statistics.__file__.startswith("/usr/"), numpy.__file__.startswith("/usr/"))
import mine
"#;
        let e = backend.run_py(code).await;
        assert_eq!(e.stdout, "True True True\nshadowed mine\n", "{e:?}");
    }
}

on_every_backend! {
    /// Two containers never share a user id, and each id comes from the configured range.
    async fn each_container_runs_as_a_user_of_its_own(backend) {
        let code = "import os\nprint(os.getuid(), os.getgid(), os.access('/opt/sandbox/runner.py', os.R_OK), os.access('/work', os.W_OK))";
        let (a, b) = two_at_once(backend, code, code).await;
        let ids = |stdout: &str| -> Vec<String> { stdout.split_whitespace().map(str::to_owned).collect() };
        let (ids_a, ids_b) = (ids(&a.stdout), ids(&b.stdout));
        assert_eq!(ids_a.len(), 4, "{a:?}");
        assert_eq!(ids_a[0], ids_a[1], "gid = uid: {a:?}");
        assert_eq!(ids_a[2..], ["True", "True"], "image readable, work dir writable: {a:?}");
        let range = UidRange::default();
        for uid in [&ids_a[0], &ids_b[0]] {
            assert!(range.contains(uid.parse().unwrap()), "{uid} outside {range}");
        }
        assert_ne!(ids_a[0], ids_b[0], "two sandboxes shared a uid");
    }
}

on_every_backend! {
    /// A per-user kernel limit used up in one sandbox leaves another alone: with one shared
    /// uid, one sandbox holding every inotify instance (128 here) made the next one fail.
    async fn a_per_user_limit_used_up_in_one_sandbox_leaves_another_alone(backend) {
        let hog = "import ctypes, time\nlibc = ctypes.CDLL(None, use_errno=True)\nfds = []\nwhile len(fds) < 1000:\n    fd = libc.inotify_init()\n    if fd < 0:\n        break\n    fds.append(fd)\nprint('held', len(fds), ctypes.get_errno(), flush=True)\ntime.sleep(4)\n";
        let other = "import ctypes, time\ntime.sleep(1.5)\nlibc = ctypes.CDLL(None, use_errno=True)\nfd = libc.inotify_init()\nprint('other', fd >= 0, ctypes.get_errno())\n";
        let (hog, other) = two_at_once(backend, hog, other).await;
        assert!(hog.stdout.starts_with("held "), "{hog:?}");
        if backend != Backend::Gvisor {
            // Under runc the hog was stopped by the per-user limit itself (gVisor keeps its own).
            let limit = host_file("/proc/sys/fs/inotify/max_user_instances");
            assert!(hog.stdout.starts_with(&format!("held {limit} 24")), "EMFILE at the limit: {hog:?}");
        }
        assert_eq!(other.stdout, "other True 0\n", "the hog's limit reached the other sandbox: {hog:?} {other:?}");
    }
}

on_every_backend! {
    /// Python: the snippet cannot read what decides its result, and what looks like an end
    /// frame in its output is only output. The supervisor is not dumpable, and signals from
    /// the snippet do not reach it under runc (gVisor lets SIGKILL through: the run then ends
    /// with the container's status, never with one the snippet chose).
    async fn python_cannot_forge_or_stop_its_result(backend) {
        let code = r#"
import os, signal, sys
for path, mode in (("/proc/1/mem", "rb"), ("/proc/1/environ", "rb")):
    try:
        open(path, mode).read(1); print("read", path)
    except OSError as e:
        print("refused", path)
forged = b"X" + (40).to_bytes(4, "big") + b'{"nonce": "' + b"0" * 32 + b'", "status": 0}'
sys.stdout.buffer.write(forged); sys.stdout.flush()
for s in (signal.SIGTERM, signal.SIGINT, signal.SIGUSR1):
    os.kill(1, s)
print("after")
sys.exit(7)
"#;
        let e = backend.run_py(code).await;
        assert_eq!(e.exit_code, Some(7), "{e:?}");
        assert!(e.stdout.contains("refused /proc/1/mem"), "{e:?}");
        assert!(e.stdout.contains("\"status\": 0}after\n"), "the forged frame is output: {e:?}");
        if backend != Backend::Gvisor {
            assert!(!e.stdout.contains("read /proc/1/"), "{e:?}");
        }
        let e = backend.run_py("import os, signal, time\nos.kill(1, signal.SIGKILL)\ntime.sleep(2)\nprint('survived')\n").await;
        if backend == Backend::Gvisor {
            assert_eq!((e.exit_code, e.stdout.as_str()), (Some(137), ""), "{e:?}");
        } else {
            assert_eq!((e.exit_code, e.stdout.as_str()), (Some(0), "survived\n"), "{e:?}");
        }
    }
}

on_every_backend! {
    /// A declared end (the status the program writes on its status pipe, fd 4) ends the run
    /// at once: nothing the program does after it reaches the gateway, and the status is one
    /// sys.exit could have given.
    async fn a_declared_end_stops_everything_after_it(backend) {
        let code = "import os, time\nprint('before', flush=True)\nos.write(4, b'0\\n')\ntime.sleep(3)\nprint('after', flush=True)\nos._exit(9)\n";
        let e = backend.run_py(code).await;
        assert_eq!((e.exit_code, e.stdout.as_str()), (Some(0), "before\n"), "{e:?}");
        // Not a speed figure: the end came before the program's 3 s sleep was over.
        assert!(e.duration_ms < 2500, "the end waited for the program: {e:?}");
    }
}

on_every_backend! {
    /// JavaScript: no buffer shows memory the program did not write. `allocUnsafe` is zeroed,
    /// and a small buffer's `.buffer` is its own bytes, not a pool holding other buffers'
    /// (the runner's, the program's source). And no buffer native code may hold is freed or
    /// shrunk under it: none is detached (`transfer`, `structuredClone` or `postMessage` with
    /// a transfer list, an array or any other iterable, or a byte stream's read, enqueue or
    /// response, which are given copies however the snippet redefines how buffers are
    /// copied), resized or grown; a random fill
    /// writes at the call, not later off the main thread, and still calls back afterwards.
    async fn javascript_buffers_show_no_memory_of_others(backend) {
        let code = "const small = Buffer.from('a');\nconsole.log(small.buffer.byteLength, Buffer.concat([small, Buffer.from('bc')]).buffer.byteLength);\nconsole.log(Buffer.allocUnsafe(4096).every((b) => b === 0), Buffer.allocUnsafeSlow(4096).every((b) => b === 0));\nconst b = new ArrayBuffer(64, { maxByteLength: 128 });\nconsole.log(typeof b.resize, typeof b.transfer, typeof SharedArrayBuffer.prototype.grow);\nstructuredClone(b, { transfer: [b] });\nstructuredClone(b, { transfer: new Set([b]) });\nconst { port1 } = new MessageChannel();\nport1.postMessage(b, [b]);\nport1.close();\nconsole.log(b.byteLength);\nconst random = new Uint8Array(16);\nlet returned = false;\nrequire('crypto').randomFill(random, 8, (err, buf) => console.log('called back', err, returned, buf === random));\nreturned = true;\nconsole.log(random.slice(0, 8).every((v) => v === 0), random.slice(8).some((v) => v !== 0));\nconst view = new Uint8Array(64);\nArrayBuffer.prototype.slice = function keep() { return this; };\nconst source = new (require('stream').Readable)({ read() {} });\nrequire('stream').Readable.toWeb(source, { type: 'bytes' }).getReader({ mode: 'byob' }).read(view).then((x) => console.log('byob', x.value.length, view.byteLength));\nsource.push(Buffer.from('z'));\n";
        let e = backend.run_js(code).await;
        assert_eq!(e.stdout, "1 3\ntrue true\nundefined undefined undefined\n64\ntrue true\ncalled back null true true\nbyob 1 64\n", "{e:?}");
    }
}

on_every_backend! {
    /// JavaScript: the supervisor's memory is closed and SIGUSR1 (which opens Node's inspector
    /// on port 9229) has no effect on it.
    async fn javascript_cannot_reach_its_supervisor(backend) {
        let code = "const fs = require('fs');\nfor (const p of ['/proc/1/mem', '/proc/1/environ']) { try { fs.readFileSync(p); console.log('read', p); } catch (e) { console.log('refused', p); } }\nprocess.kill(1, 'SIGUSR1');\nsetTimeout(() => {\n  require('net').connect(9229, '127.0.0.1').on('connect', () => { console.log('inspector open'); process.exit(0); }).on('error', () => { console.log('no inspector'); process.exit(5); });\n}, 1000);\n";
        let e = backend.run_js(code).await;
        assert_eq!(e.exit_code, Some(5), "{e:?}");
        assert!(e.stdout.contains("refused /proc/1/mem\n") && e.stdout.ends_with("no inspector\n"), "{e:?}");
        if backend != Backend::Gvisor {
            assert!(e.stdout.contains("refused /proc/1/environ\n"), "{e:?}");
        }
    }
}

on_every_backend! {
    /// Under gVisor the snippet can open the supervisor's stdout (gVisor does not close
    /// /proc/1/fd to the same user) and write into the frame stream; a forged end frame lacks
    /// the run's nonce, so the gateway stops the run with an error rather than report it.
    /// Under runc the descriptor stays closed.
    async fn frames_written_past_the_supervisor_are_refused(backend) {
        let code = "import os\ntry:\n    fd = os.open('/proc/1/fd/1', os.O_WRONLY)\nexcept OSError:\n    print('closed')\n    raise SystemExit(3)\nbody = b'{\"nonce\": \"' + b'0' * 32 + b'\", \"status\": 0, \"oom_killed\": false}'\nos.write(fd, b'X' + len(body).to_bytes(4, 'big') + body)\nimport time; time.sleep(1)\n";
        let sandbox = backend.sandbox(&tight_limits(), 0).await;
        let result = sandbox.run(Language::Python, code, std::future::pending()).await;
        sandbox.shutdown().await;
        match result {
            Ok(e) => {
                assert_ne!(backend, Backend::Gvisor, "gVisor was expected to let the write through: {e:?}");
                assert_eq!((e.exit_code, e.stdout.as_str()), (Some(3), "closed\n"), "{e:?}");
            }
            Err(SandboxError::Protocol { detail }) => {
                assert_eq!(backend, Backend::Gvisor, "{detail}");
                assert!(detail.contains("nonce"), "{detail}");
            }
            Err(other) => panic!("{other}"),
        }
    }
}

on_every_backend! {
    /// A snippet that kills itself with SIGKILL is reported as such, not as an OOM kill (which
    /// the container's memory cgroup would have counted).
    async fn a_self_inflicted_sigkill_is_not_an_oom_kill(backend) {
        let e = backend.run_py("import os, signal\nprint('bye', flush=True)\nos.kill(os.getpid(), signal.SIGKILL)\n").await;
        assert_eq!((e.exit_code, e.oom_killed, e.stdout.as_str()), (Some(137), false, "bye\n"), "{e:?}");
    }
}

on_every_backend! {
    /// What the snippet can learn of the host: no boot id, kernel command line, host name,
    /// resolver or hosts entries of the host, and no container id, but under Podman, whose
    /// compatible API ignores the cgroup namespace and which names the container in the passwd
    /// and group files it mounts.
    async fn host_details_are_masked(backend) {
        let code = r#"
def read(path):
    try:
        return open(path).read()
    except OSError as e:
        return "unreadable %d" % e.errno
for path in ("/proc/sys/kernel/random/boot_id", "/proc/cmdline", "/etc/hostname", "/etc/hosts", "/etc/resolv.conf", "/run/.containerenv"):
    print(path, repr(read(path)))
print("mountinfo", repr(read("/proc/self/mountinfo")))
print("cgroup", repr(read("/proc/self/cgroup")))
"#;
        let e = backend.run_py(code).await;
        let seen: HashMap<&str, &str> = e.stdout.lines().filter_map(|l| l.split_once(' ')).collect();
        let host_boot_id = host_file("/proc/sys/kernel/random/boot_id");
        assert!(!seen["/proc/sys/kernel/random/boot_id"].contains(&host_boot_id), "{e:?}");
        let host_cmdline = host_file("/proc/cmdline");
        assert!(!seen["/proc/cmdline"].contains(&host_cmdline[..host_cmdline.len().min(40)]), "{e:?}");
        assert_eq!(seen["/etc/hostname"], "'sandbox\\n'", "{e:?}");
        assert_eq!(seen["/etc/hosts"], "'127.0.0.1\\tlocalhost\\n::1\\tlocalhost ip6-localhost ip6-loopback\\n'", "{e:?}");
        assert_eq!(seen["/etc/resolv.conf"], "''", "{e:?}");
        assert!(seen["/run/.containerenv"].starts_with("'unreadable"), "{e:?}");
        let container_id = regex::Regex::new(r"containers/[0-9a-f]{64}|[0-9a-f]{64}/(hosts|hostname|resolv)|libpod-[0-9a-f]{64}|docker/[0-9a-f]{64}").unwrap();
        let mountinfo = seen["mountinfo"].replace("\\n", "\n");
        let leaks: Vec<&str> = mountinfo.lines().filter(|l| container_id.is_match(l)).collect();
        if backend == Backend::Podman {
            // Podman mounts the passwd and group files it writes for the container's user, and
            // its cgroups without a cgroup namespace.
            let documented = |l: &&str| [" /etc/passwd ", " /etc/group ", " /sys/fs/cgroup"].iter().any(|m| l.contains(m));
            assert!(leaks.iter().all(documented), "{leaks:?}");
            assert!(container_id.is_match(seen["cgroup"]), "Podman now hides the cgroup path: update the README: {e:?}");
        } else {
            assert!(leaks.is_empty(), "{leaks:?}");
            assert!(!container_id.is_match(seen["cgroup"]), "{e:?}");
        }
    }
}

on_every_backend! {
    /// Under a policy that denies starting processes, the kernel refuses the snippet's
    /// process any new program, from every thread (those started before the code too) and in
    /// every process it forks: what reached a shell past the analysis still gets none.
    async fn no_new_programs_where_the_policy_denies_them(backend) {
        let limits = Limits {
            start_programs: false,
            ..tight_limits()
        };
        let code = r#"
import os, subprocess, threading
def attempt(label, action):
    try:
        action()
        print(label, "ran")
    except PermissionError:
        print(label, "refused")
attempt("subprocess", lambda: subprocess.run(["true"]))
print("system", os.system("true") != 0)
thread = threading.Thread(target=attempt, args=("thread", lambda: subprocess.run(["true"])))
thread.start()
thread.join()
pid = os.fork()
if pid == 0:
    try:
        os.execv("/bin/true", ["true"])
    except PermissionError:
        os._exit(7)
print("forked child", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
"#;
        let e = backend.run(&limits, Language::Python, code).await;
        assert_eq!(e.stdout, "subprocess refused\nsystem True\nthread refused\nforked child 7\n", "{e:?}");
    }
}
