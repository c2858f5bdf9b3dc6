//! Every limit of the hardening checklist, attacked for real in a container. These run the
//! sandbox directly, without a policy: they prove what the container stops on its own, for
//! whatever the analyzer might miss. Each test runs on every backend (Docker, Docker with
//! gVisor, Podman): the same hardening must hold on all three.

mod common;

use std::time::Duration;

use code_sandbox_mcp::analysis::Language;
use common::tight_limits;

on_every_backend! {
    async fn a_normal_run_returns_output_and_exit_code(backend) {
        let e = backend.run_py("import numpy as np, pandas as pd\nprint(pd.Series(np.arange(4)).sum())\nimport sys\nsys.exit(3)").await;
        assert_eq!(e.stdout, "6\n");
        assert_eq!(e.exit_code, Some(3));
        assert!(!e.timed_out && !e.oom_killed && !e.stdout_truncated);
    }
}

on_every_backend! {
    async fn an_exception_reports_exit_1_and_the_traceback(backend) {
        let e = backend.run_py("def f():\n    raise ValueError('boom')\nf()").await;
        assert_eq!(e.exit_code, Some(1));
        assert!(e.stderr.contains("ValueError: boom"), "{}", e.stderr);
        assert!(e.stderr.contains("line 2"), "{}", e.stderr);
    }
}

on_every_backend! {
    async fn a_memory_bomb_is_oom_killed_and_reported(backend) {
        // Chunks of 32 MiB each stay below the analyzer's allocation threshold: the container stops it.
        let e =
            backend.run_py("chunks = []\nwhile True:\n    chunks.append(bytearray(32 * 1024 * 1024))\n").await;
        assert!(e.oom_killed, "{e:?}");
        assert!(!e.timed_out);
        assert_eq!(e.exit_code, Some(137), "{e:?}");
    }
}

on_every_backend! {
    /// Forks of the warmed-up interpreter (numpy, pandas and matplotlib loaded). Under runc
    /// they share memory copy-on-write and the process limit stops them. gVisor copies far
    /// more per fork (6 forks passed 256 MiB here), so there the memory limit usually ends
    /// the bomb first; either way it is contained and the run ends.
    async fn a_fork_bomb_stays_under_the_pid_limit_and_the_run_ends(backend) {
        let code = "import os, time\nborn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            time.sleep(60)\n            os._exit(0)\n        born += 1\nexcept OSError as e:\n    print('stopped after', born, type(e).__name__)\n";
        let e = backend.run_py(code).await;
        assert!(!e.timed_out, "{e:?}");
        if backend == common::Backend::Gvisor && e.oom_killed {
            assert_eq!(e.exit_code, Some(137), "{e:?}");
            return;
        }
        assert_stopped_under_the_pid_limit(&e);
    }
}

on_every_backend! {
    /// Processes started with fork-and-exec (no copy of the interpreter): on every backend the
    /// process limit stops them, inside gVisor's kernel as on the host's.
    async fn a_spawn_bomb_stops_at_the_pid_limit(backend) {
        let code = "import subprocess\nchildren = []\ntry:\n    while len(children) < 1000:\n        children.append(subprocess.Popen(['sleep', '60']))\nexcept OSError as e:\n    print('stopped after', len(children), type(e).__name__)\n";
        let e = backend.run_py(code).await;
        assert!(!e.timed_out && !e.oom_killed, "{e:?}");
        assert_stopped_under_the_pid_limit(&e);
    }
}

fn assert_stopped_under_the_pid_limit(e: &code_sandbox_mcp::sandbox::Execution) {
    assert!(e.stdout.starts_with("stopped after"), "{e:?}");
    let born: u32 = e.stdout.split_whitespace().nth(2).unwrap().parse().unwrap();
    let limit = tight_limits().pids;
    assert!(born < limit, "{born} processes under a limit of {limit}");
    assert!(
        born >= limit / 2,
        "only {born} processes under a limit of {limit}: {e:?}"
    );
    assert_eq!(e.exit_code, Some(0), "{e:?}");
}

on_every_backend! {
    async fn an_endless_loop_is_killed_on_time(backend) {
        let limits = code_sandbox_mcp::policy::Limits {
            timeout: Duration::from_secs(2),
            ..tight_limits()
        };
        let e = backend.run(
            &limits,
            Language::Python,
            "print('start', flush=True)\nwhile True:\n    pass\n",
        )
        .await;
        assert!(e.timed_out);
        assert_eq!(e.exit_code, None);
        assert_eq!(e.stdout, "start\n", "output before the kill is kept");
        assert!(
            (2000..6000).contains(&e.duration_ms),
            "{} ms",
            e.duration_ms
        );
    }
}

on_every_backend! {
    async fn an_output_flood_is_truncated_and_stopped_with_bounded_memory(backend) {
        let rss_before = common::rss_kib(std::process::id());
        let started = std::time::Instant::now();
        let e = backend.run_py("import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n").await;
        // Not a speed figure: a kill sent while the engine still pushes the flood into an
        // unread stream once hung for the engine's 60 s request timeout.
        assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
        assert!(e.stdout_truncated);
        assert_eq!(e.stdout.len(), 64 << 10);
        assert!(!e.timed_out, "a flood is stopped, not waited out");
        assert!(e.killed_for_output && e.exit_code.is_none(), "reported as its own ending: {e:?}");
        let growth = common::rss_kib(std::process::id()).saturating_sub(rss_before);
        assert!(growth < 64 * 1024, "gateway grew by {growth} KiB");
    }
}

on_every_backend! {
    async fn stderr_is_capped_separately(backend) {
        let e = backend.run_py("import sys\nprint('ok')\nsys.stderr.write('e' * 200000)\n").await;
        let summary = format!(
            "stdout {:?}, stderr {} bytes, truncated {}/{}, exit {:?}",
            e.stdout,
            e.stderr.len(),
            e.stdout_truncated,
            e.stderr_truncated,
            e.exit_code
        );
        assert_eq!(e.stdout, "ok\n", "{summary}");
        assert!(e.stderr_truncated && !e.stdout_truncated, "{summary}");
        assert_eq!(e.stderr.len(), 64 << 10, "{summary}");
    }
}

on_every_backend! {
    async fn the_network_is_unreachable(backend) {
        let code = "import os, socket\nprint(sorted(os.listdir('/sys/class/net')))\ntry:\n    socket.create_connection(('192.0.2.1', 53), timeout=3)\n    print('connected')\nexcept OSError as e:\n    print('refused', e.errno)\n";
        let e = backend.run_py(code).await;
        assert!(e.stdout.starts_with("['lo']\nrefused"), "{e:?}");
    }
}

on_every_backend! {
    async fn writes_outside_the_work_dir_fail_and_inside_succeed(backend) {
        let code = "import os\nfor path in ['/etc/evil', '/usr/evil', '/opt/sandbox/evil', '/evil', '/var/tmp/evil', '/run/evil']:\n    try:\n        open(path, 'w').write('x')\n        print('wrote', path)\n    except OSError as e:\n        print('denied', path, e.errno)\nopen('data.txt', 'w').write('fine')\nprint(os.getcwd(), open('/work/data.txt').read())\n";
        let e = backend.run_py(code).await;
        assert!(!e.stdout.contains("wrote"), "{}", e.stdout);
        assert_eq!(e.stdout.matches("denied").count(), 6, "{}", e.stdout);
        assert!(e.stdout.ends_with("/work fine\n"), "{}", e.stdout);
    }
}

on_every_backend! {
    /// Identity, capabilities, no-new-privileges and seccomp, asked of the kernel the snippet
    /// sees with prctl. Under gVisor that kernel is gVisor's own, which answers the snippet's
    /// system calls itself (seccomp mode 0 inside); gVisor is filtered on the host instead.
    async fn the_process_is_unprivileged(backend) {
        let code = "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nstatus = dict(l.split(':\\t', 1) for l in open('/proc/self/status').read().splitlines() if ':\\t' in l)\nprint(os.getuid(), os.getgid(), status['CapEff'].strip(), status['CapBnd'].strip(), libc.prctl(39, 0, 0, 0, 0), libc.prctl(21, 0, 0, 0, 0))\n";
        let e = backend.run_py(code).await;
        let ids = common::uids_masked(&e.stdout);
        let fields: Vec<&str> = ids.split_whitespace().collect();
        let seccomp = if backend == common::Backend::Gvisor { "0" } else { "2" };
        assert_eq!(
            fields,
            [
                "UID",
                "UID",
                "0000000000000000",
                "0000000000000000",
                "1",
                seccomp
            ],
            "{e:?}"
        );
    }
}

on_every_backend! {
    /// The work dir and /dev/shm (64 MiB by default on every engine) each hold no more than
    /// the policy's work dir size. Files of 1 MiB each, so the per-file size limit (RLIMIT_FSIZE,
    /// the same size) is not what stops them.
    async fn tmpfs_fills_stop_at_the_cap(backend) {
        let code = "for d in ['/work', '/dev/shm']:\n    written = 0\n    try:\n        while written < 64:\n            with open(f'{d}/fill{written}.bin', 'wb') as f:\n                f.write(b'\\0' * 1048576)\n            written += 1\n        print(d, 'full', written)\n    except OSError as e:\n        print(d, 'stopped', written, e.errno)\n";
        let e = backend.run_py(code).await;
        let lines: Vec<Vec<&str>> = e.stdout.lines().map(|l| l.split_whitespace().collect()).collect();
        assert_eq!(lines.len(), 2, "{e:?}");
        for (fields, dir) in lines.iter().zip(["/work", "/dev/shm"]) {
            assert_eq!(fields[..2], [dir, "stopped"], "{e:?}");
            let mib: u64 = fields[2].parse().unwrap();
            assert!(mib <= 8, "wrote {mib} MiB into an 8 MiB {dir}");
            assert_eq!(fields[3], "28", "ENOSPC expected: {e:?}");
        }
    }
}

on_every_backend! {
    async fn binary_output_is_carried_lossily(backend) {
        let e = backend.run_py("import sys\nsys.stdout.buffer.write(b'ok \\xff\\xfe end\\n')\n").await;
        assert_eq!(e.stdout, "ok \u{fffd}\u{fffd} end\n");
    }
}

on_every_backend! {
    async fn only_named_variables_pass_through(backend) {
        static SET: std::sync::Once = std::sync::Once::new();
        // SAFETY: set once, before any sandbox of these tests reads them; no other test uses them.
        SET.call_once(|| unsafe {
            std::env::set_var("CSM_PASSED", "visible");
            std::env::set_var("CSM_HIDDEN", "secret");
        });
        let config = code_sandbox_mcp::sandbox::SandboxConfig {
            pass_through_env: vec!["CSM_PASSED".into()],
            languages: vec![Language::Python],
            ..backend.config(0)
        };
        let sandbox = code_sandbox_mcp::sandbox::Sandbox::start(&config, &backend.limits(&tight_limits()))
            .await
            .unwrap();
        let e = sandbox
            .run(
                Language::Python,
                "import os\nprint(os.environ.get('CSM_PASSED'), os.environ.get('CSM_HIDDEN'))",
                std::future::pending(),
            )
            .await
            .unwrap();
        sandbox.shutdown().await;
        assert_eq!(e.stdout, "visible None\n");
    }
}

on_every_backend! {
    async fn javascript_runs_with_exit_codes_and_modules(backend) {
        let limits = tight_limits();
        let e = backend.run(
            &limits,
            Language::JavaScript,
            "console.log([1, 2, 3].map((x) => x * 2).join(','));\nprocess.exit(4);",
        )
        .await;
        assert_eq!((e.stdout.as_str(), e.exit_code), ("2,4,6\n", Some(4)));
        let e = backend.run(&limits, Language::JavaScript, "import os from 'node:os';\nconst n = await Promise.resolve(os.EOL.length);\nconsole.log('esm', n);").await;
        assert_eq!(
            (e.stdout.as_str(), e.exit_code),
            ("esm 1\n", Some(0)),
            "{e:?}"
        );
        let e = backend.run(
            &limits,
            Language::JavaScript,
            "require('net').connect(80, '192.0.2.1').on('error', (e) => console.log(e.code));",
        )
        .await;
        assert!(
            e.stdout.starts_with("ENETUNREACH") || e.stdout.starts_with("EHOSTUNREACH"),
            "{e:?}"
        );
    }
}

on_every_backend! {
    async fn a_cancelled_run_returns_promptly(backend) {
        let sandbox = backend.sandbox(&tight_limits(), 0).await;
        let started = std::time::Instant::now();
        let result = sandbox
            .run(
                Language::Python,
                "while True:\n    pass\n",
                tokio::time::sleep(Duration::from_millis(500)),
            )
            .await;
        sandbox.shutdown().await;
        assert!(
            matches!(
                result,
                Err(code_sandbox_mcp::sandbox::SandboxError::Cancelled)
            ),
            "{result:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}
