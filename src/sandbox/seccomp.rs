//! Our own seccomp profile, given to every container on every engine.
//!
//! The engines' defaults differ and each lets something through: Debian's Podman allows user
//! namespaces, mounts, `setns`, `keyctl` and `ptrace`; Docker 20.10 allows io_uring; both allow
//! `AF_VSOCK` sockets, a way around `network: none` on VM hosts. So the sandbox brings its own:
//! what both engines allow an unprivileged container (moby's `profiles/seccomp/default.json` and
//! containers/common's `seccomp.json` were the reference), minus the groups in [`REFUSED`].
//!
//! The tables below are the profile: each group says what its calls are for, or what refusing
//! them stops and why. Anything not listed is refused with `EPERM`. Only native 64-bit calls are
//! allowed: the 32-bit tables (`int 0x80` on x86-64) have multiplexers (`socketcall`, `ipc`)
//! whose arguments sit in memory where a filter cannot read them, and nothing in the images is
//! 32-bit.
//!
//! Under gVisor the engine passes the profile to `runsc`, which applies it inside the sandbox
//! only when registered with `--oci-seccomp`; otherwise gVisor's own kernel answers every call
//! itself (see the README, "Isolation levels").

use std::sync::OnceLock;

use serde_json::{Value, json};

/// Calls allowed as such, by what they are for.
#[rustfmt::skip]
const ALLOWED: &[Group] = &[
    Group {
        about: "processes and threads: start (clone, below), run programs, wait, exit; their ids, \
                limits and scheduling. Changing ids or capabilities needs capabilities the \
                sandbox does not have; the calls stay because programs drop privileges defensively",
        calls: &[
            "execve", "execveat", "fork", "vfork", "exit", "exit_group", "wait4", "waitid",
            "set_tid_address", "set_robust_list", "get_robust_list", "rseq", "gettid", "getpid",
            "getppid", "getpgid", "getpgrp", "getsid", "setpgid", "setsid", "getuid", "geteuid",
            "getgid", "getegid", "getresuid", "getresgid", "getgroups", "setuid", "setgid",
            "setreuid", "setregid", "setresuid", "setresgid", "setfsuid", "setfsgid", "setgroups",
            "capget", "capset", "prctl", "arch_prctl", "getrlimit", "setrlimit", "prlimit64",
            "getrusage", "getpriority", "setpriority", "sched_getaffinity", "sched_setaffinity",
            "sched_getattr", "sched_setattr", "sched_getparam", "sched_setparam",
            "sched_getscheduler", "sched_setscheduler", "sched_get_priority_max",
            "sched_get_priority_min", "sched_rr_get_interval", "sched_yield", "getcpu",
            "ioprio_get", "ioprio_set", "times", "sysinfo", "uname", "umask", "pidfd_open",
            "pidfd_send_signal", "process_mrelease", "membarrier", "seccomp",
            "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self",
        ],
    },
    Group {
        about: "signals and timers, among the sandbox's own processes (it has a PID namespace of \
                its own)",
        calls: &[
            "kill", "tkill", "tgkill", "rt_sigaction", "rt_sigprocmask", "rt_sigpending",
            "rt_sigsuspend", "rt_sigtimedwait", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
            "rt_sigreturn", "sigaltstack", "signalfd", "signalfd4", "pause", "restart_syscall",
            "alarm", "getitimer", "setitimer", "timer_create", "timer_delete", "timer_settime",
            "timer_gettime", "timer_getoverrun",
        ],
    },
    Group {
        about: "memory (bounded by the memory limit and RLIMIT_MEMLOCK)",
        calls: &[
            "brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "mincore", "msync", "mlock",
            "mlock2", "munlock", "mlockall", "munlockall", "pkey_alloc", "pkey_free",
            "pkey_mprotect",
        ],
    },
    Group {
        about: "files and directories (the root is read-only; only the work dir, /tmp and \
                /dev/shm are writable), file change notification and Linux AIO (an old, small \
                interface, unlike io_uring)",
        calls: &[
            "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "preadv2",
            "pwritev", "pwritev2", "open", "openat", "openat2", "creat", "close", "close_range",
            "lseek", "dup", "dup2", "dup3", "fcntl", "flock", "fsync", "fdatasync", "sync",
            "syncfs", "sync_file_range", "fallocate", "ftruncate", "truncate", "stat", "fstat",
            "lstat", "newfstatat", "statx", "statfs", "fstatfs", "access", "faccessat",
            "faccessat2", "getdents", "getdents64", "getcwd", "chdir", "fchdir", "mkdir",
            "mkdirat", "rmdir", "rename", "renameat", "renameat2", "link", "linkat", "unlink",
            "unlinkat", "symlink", "symlinkat", "readlink", "readlinkat", "chmod", "fchmod",
            "fchmodat", "chown", "fchown", "fchownat", "lchown", "utime", "utimes", "utimensat",
            "futimesat", "mknod", "mknodat", "readahead", "fadvise64", "copy_file_range",
            "sendfile", "splice", "tee", "getxattr", "lgetxattr", "fgetxattr", "listxattr",
            "llistxattr", "flistxattr", "setxattr", "lsetxattr", "fsetxattr", "removexattr",
            "lremovexattr", "fremovexattr", "ioctl", "inotify_init", "inotify_init1",
            "inotify_add_watch", "inotify_rm_watch", "io_setup", "io_destroy", "io_submit",
            "io_cancel", "io_getevents",
        ],
    },
    Group {
        about: "waiting, polling and time (setting the clock needs a capability)",
        calls: &[
            "futex", "futex_waitv", "nanosleep", "clock_nanosleep", "clock_gettime",
            "clock_getres", "gettimeofday", "time", "adjtimex", "clock_adjtime", "poll", "ppoll",
            "select", "pselect6", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait",
            "epoll_pwait", "epoll_pwait2", "eventfd", "eventfd2", "timerfd_create",
            "timerfd_settime", "timerfd_gettime", "getrandom",
        ],
    },
    Group {
        about: "pipes and System V / POSIX IPC (the container has an IPC namespace of its own)",
        calls: &[
            "pipe", "pipe2", "socketpair", "shmget", "shmat", "shmdt", "shmctl", "semget", "semop",
            "semtimedop", "semctl", "msgget", "msgsnd", "msgrcv", "msgctl", "mq_open", "mq_unlink",
            "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
        ],
    },
    Group {
        about: "using sockets; creating one is limited to three families (below), and the \
                network namespace has only loopback",
        calls: &[
            "accept", "accept4", "bind", "connect", "listen", "getsockname", "getpeername",
            "getsockopt", "setsockopt", "sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg",
            "recvmmsg", "shutdown",
        ],
    },
];

/// Calls allowed only with certain arguments. Every other use is refused with `EPERM`.
#[rustfmt::skip]
const CONDITIONAL: &[Conditional] = &[
    Conditional {
        call: "clone",
        about: "threads and processes, but no new namespace: a user namespace makes the caller \
                root with every capability inside it (mounts, nf_tables, the surface behind many \
                container escapes)",
        allow: Allow::FlagsClear(NAMESPACE_FLAGS),
    },
    Conditional {
        call: "socket",
        about: "only AF_UNIX, AF_INET and AF_INET6 sockets: no AF_VSOCK (on a VM host it reaches \
                the hypervisor, around `network: none`), netlink, packet, crypto or Bluetooth \
                sockets",
        allow: Allow::FirstArgIn(&[AF_UNIX, AF_INET, AF_INET6]),
    },
    Conditional {
        call: "personality",
        about: "reading the execution domain, or setting the default; no 32-bit emulation, \
                READ_IMPLIES_EXEC or address-space layout changes",
        allow: Allow::FirstArgIn(&[PER_LINUX, PERSONALITY_QUERY]),
    },
];

/// Calls refused on purpose: what refusing them stops, and the error a caller sees.
#[rustfmt::skip]
pub const REFUSED: &[Refused] = &[
    Refused {
        about: "clone3 keeps its flags in memory, where a filter cannot check them for namespace \
                flags; ENOSYS makes glibc fall back to clone, which is checked",
        errno: ENOSYS,
        calls: &["clone3"],
    },
    Refused {
        about: "new namespaces and mounts: unshare and setns lead to a user namespace (root \
                with all capabilities inside it), mounts to new filesystems and overlays",
        errno: EPERM,
        calls: &[
            "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "fsopen", "fsconfig",
            "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
        ],
    },
    Refused {
        about: "io_uring: a second system-call interface whose operations no seccomp filter \
                sees, with a long record of kernel vulnerabilities",
        errno: EPERM,
        calls: &["io_uring_setup", "io_uring_enter", "io_uring_register"],
    },
    Refused {
        about: "the kernel keyring, which is not namespaced: keys would be shared with the host",
        errno: EPERM,
        calls: &["keyctl", "add_key", "request_key"],
    },
    Refused {
        about: "kernel programs, tracing and user-space page faults: eBPF and perf events are \
                large kernel surfaces, userfaultfd stretches the race windows exploits need",
        errno: EPERM,
        calls: &["bpf", "perf_event_open", "userfaultfd"],
    },
    Refused {
        about: "reading or steering another process: the runner's supervisor holds what decides \
                a run's result, and no snippet needs a debugger",
        errno: EPERM,
        calls: &[
            "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
            "process_madvise",
        ],
    },
    Refused {
        about: "memory-backed files: a memfd is an executable file on no mount, so `noexec` on \
                the writable mounts would not stop running a program written into one",
        errno: EPERM,
        calls: &["memfd_create", "memfd_secret"],
    },
];

/// CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID,
/// CLONE_NEWNET (CLONE_NEWTIME only exists for unshare and clone3, both refused).
const NAMESPACE_FLAGS: u64 = 0x0002_0000 | 0x0200_0000 | 0x7C00_0000;
const AF_UNIX: u64 = 1;
const AF_INET: u64 = 2;
const AF_INET6: u64 = 10;
const PER_LINUX: u64 = 0;
const PERSONALITY_QUERY: u64 = 0xffff_ffff;
const EPERM: u32 = 1;
const ENOSYS: u32 = 38;

struct Group {
    about: &'static str,
    calls: &'static [&'static str],
}

struct Conditional {
    call: &'static str,
    about: &'static str,
    allow: Allow,
}

enum Allow {
    /// None of these bits set in the first argument.
    FlagsClear(u64),
    /// The first argument is one of these values.
    FirstArgIn(&'static [u64]),
}

pub struct Refused {
    pub about: &'static str,
    pub errno: u32,
    pub calls: &'static [&'static str],
}

/// The profile in the engines' JSON format (the format of Docker's `--security-opt
/// seccomp=FILE` and Podman's `seccomp.json`).
pub fn profile_json() -> &'static str {
    static JSON: OnceLock<String> = OnceLock::new();
    JSON.get_or_init(|| profile().to_string())
}

/// The first 12 hex digits of the profile's SHA-256: which profile a container got.
pub fn digest() -> &'static str {
    static DIGEST: OnceLock<String> = OnceLock::new();
    DIGEST.get_or_init(|| crate::policy::digest(std::iter::once(profile_json()))[..12].to_owned())
}

/// How many calls the profile allows, with or without conditions (for reports).
pub fn allowed_count() -> usize {
    ALLOWED.iter().map(|g| g.calls.len()).sum::<usize>() + CONDITIONAL.len()
}

fn profile() -> Value {
    // Both engines keep a rule's "comment": the profile they hold explains itself too.
    let mut syscalls: Vec<Value> = ALLOWED
        .iter()
        .map(|group| {
            json!({
                "names": group.calls,
                "action": "SCMP_ACT_ALLOW",
                "comment": group.about,
            })
        })
        .collect();
    for rule in CONDITIONAL {
        match rule.allow {
            Allow::FlagsClear(mask) => syscalls.push(json!({
                "names": [rule.call],
                "action": "SCMP_ACT_ALLOW",
                "args": [{"index": 0, "value": mask, "valueTwo": 0, "op": "SCMP_CMP_MASKED_EQ"}],
                "comment": rule.about,
            })),
            // Separate rules for one call are alternatives.
            Allow::FirstArgIn(values) => syscalls.extend(values.iter().map(|value| {
                json!({
                    "names": [rule.call],
                    "action": "SCMP_ACT_ALLOW",
                    "args": [{"index": 0, "value": value, "valueTwo": 0, "op": "SCMP_CMP_EQ"}],
                    "comment": rule.about,
                })
            })),
        }
    }
    for refused in REFUSED {
        syscalls.push(json!({
            "names": refused.calls,
            "action": "SCMP_ACT_ERRNO",
            "errnoRet": refused.errno,
            "comment": refused.about,
        }));
    }
    let native_only = |arch: &str| json!({"architecture": arch, "subArchitectures": []});
    json!({
        "defaultAction": "SCMP_ACT_ERRNO",
        "defaultErrnoRet": EPERM,
        "archMap": [native_only("SCMP_ARCH_X86_64"), native_only("SCMP_ARCH_AARCH64")],
        "syscalls": syscalls,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn allowed() -> HashSet<&'static str> {
        ALLOWED
            .iter()
            .flat_map(|g| g.calls.iter().copied())
            .collect()
    }

    #[test]
    fn no_call_is_both_allowed_and_refused_or_listed_twice() {
        let all: Vec<&str> = ALLOWED
            .iter()
            .flat_map(|g| g.calls.iter().copied())
            .chain(REFUSED.iter().flat_map(|r| r.calls.iter().copied()))
            .chain(CONDITIONAL.iter().map(|c| c.call))
            .collect();
        let unique: HashSet<&str> = all.iter().copied().collect();
        assert_eq!(unique.len(), all.len(), "a call appears twice");
    }

    #[test]
    fn what_the_sandbox_must_never_do_is_not_allowed() {
        let allowed = allowed();
        for call in [
            "unshare",
            "setns",
            "mount",
            "pivot_root",
            "clone3",
            "io_uring_setup",
            "io_uring_enter",
            "keyctl",
            "add_key",
            "request_key",
            "bpf",
            "userfaultfd",
            "perf_event_open",
            "ptrace",
            "process_vm_readv",
            "process_vm_writev",
            "memfd_create",
            "socketcall",
            "ipc",
            "clone",
            "socket",
            "personality",
            "modify_ldt",
            "kexec_load",
            "init_module",
            "reboot",
            "syslog",
        ] {
            assert!(!allowed.contains(call), "{call} is allowed unconditionally");
        }
        for group in ALLOWED
            .iter()
            .map(|g| g.about)
            .chain(REFUSED.iter().map(|r| r.about))
        {
            assert!(group.len() > 20, "every group says why: {group:?}");
        }
    }

    #[test]
    fn the_json_is_what_the_engines_read() {
        let profile: Value = serde_json::from_str(profile_json()).unwrap();
        assert_eq!(profile["defaultAction"], "SCMP_ACT_ERRNO");
        assert_eq!(profile["defaultErrnoRet"], 1);
        for arch in profile["archMap"].as_array().unwrap() {
            assert_eq!(arch["subArchitectures"], json!([]), "no 32-bit calls");
        }
        let rules = profile["syscalls"].as_array().unwrap();
        let clone = rules
            .iter()
            .find(|r| r["names"] == json!(["clone"]))
            .unwrap();
        assert_eq!(clone["args"][0]["value"], 0x7E02_0000u64);
        let sockets: Vec<&Value> = rules
            .iter()
            .filter(|r| r["names"] == json!(["socket"]))
            .map(|r| &r["args"][0]["value"])
            .collect();
        assert_eq!(sockets, [&json!(1), &json!(2), &json!(10)]);
        let clone3 = rules
            .iter()
            .find(|r| r["names"] == json!(["clone3"]))
            .unwrap();
        assert_eq!(clone3["errnoRet"], 38);
        assert_eq!(digest().len(), 12);
    }
}
