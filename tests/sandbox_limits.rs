//! Every limit of the hardening checklist, attacked for real in a container. These run the
//! sandbox directly, without a policy: they prove what the container stops on its own, for
//! whatever the analyzer might miss.

mod common;

use std::time::Duration;

use code_sandbox_mcp::analysis::Language;
use common::{run_py, run_with, tight_limits};

#[tokio::test]
async fn a_normal_run_returns_output_and_exit_code() {
    let e = run_py("import numpy as np, pandas as pd\nprint(pd.Series(np.arange(4)).sum())\nimport sys\nsys.exit(3)").await;
    assert_eq!(e.stdout, "6\n");
    assert_eq!(e.exit_code, Some(3));
    assert!(!e.timed_out && !e.oom_killed && !e.stdout_truncated);
}

#[tokio::test]
async fn an_exception_reports_exit_1_and_the_traceback() {
    let e = run_py("def f():\n    raise ValueError('boom')\nf()").await;
    assert_eq!(e.exit_code, Some(1));
    assert!(e.stderr.contains("ValueError: boom"), "{}", e.stderr);
    assert!(e.stderr.contains("line 2"), "{}", e.stderr);
}

#[tokio::test]
async fn a_memory_bomb_is_oom_killed_and_reported() {
    // Chunks of 32 MiB each stay below the analyzer's allocation threshold: the container stops it.
    let e =
        run_py("chunks = []\nwhile True:\n    chunks.append(bytearray(32 * 1024 * 1024))\n").await;
    assert!(e.oom_killed, "{e:?}");
    assert!(!e.timed_out);
    assert_eq!(e.exit_code, Some(137), "{e:?}");
}

#[tokio::test]
async fn a_fork_bomb_stays_under_the_pid_limit_and_the_run_ends() {
    let code = "import os, time\nborn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            time.sleep(60)\n            os._exit(0)\n        born += 1\nexcept OSError as e:\n    print('stopped after', born, type(e).__name__)\n";
    let e = run_py(code).await;
    assert!(e.stdout.starts_with("stopped after"), "{e:?}");
    let born: u32 = e.stdout.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(
        born < tight_limits().pids,
        "{born} processes under a limit of {}",
        tight_limits().pids
    );
    assert_eq!(e.exit_code, Some(0));
    assert!(!e.timed_out);
}

#[tokio::test]
async fn an_endless_loop_is_killed_on_time() {
    let limits = code_sandbox_mcp::policy::Limits {
        timeout: Duration::from_secs(2),
        ..tight_limits()
    };
    let e = run_with(
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

#[tokio::test]
async fn an_output_flood_is_truncated_and_stopped_with_bounded_memory() {
    let rss_before = common::rss_kib(std::process::id());
    let e = run_py("import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n").await;
    assert!(e.stdout_truncated);
    assert_eq!(e.stdout.len(), 64 << 10);
    assert!(!e.timed_out, "a flood is stopped, not waited out");
    let growth = common::rss_kib(std::process::id()).saturating_sub(rss_before);
    assert!(growth < 64 * 1024, "gateway grew by {growth} KiB");
}

#[tokio::test]
async fn stderr_is_capped_separately() {
    let e = run_py("import sys\nprint('ok')\nsys.stderr.write('e' * 200000)\n").await;
    assert_eq!(e.stdout, "ok\n");
    assert!(e.stderr_truncated && !e.stdout_truncated);
    assert_eq!(e.stderr.len(), 64 << 10);
}

#[tokio::test]
async fn the_network_is_unreachable() {
    let code = "import os, socket\nprint(sorted(os.listdir('/sys/class/net')))\ntry:\n    socket.create_connection(('192.0.2.1', 53), timeout=3)\n    print('connected')\nexcept OSError as e:\n    print('refused', e.errno)\n";
    let e = run_py(code).await;
    assert!(e.stdout.starts_with("['lo']\nrefused"), "{e:?}");
}

#[tokio::test]
async fn writes_outside_the_work_dir_fail_and_inside_succeed() {
    let code = "import os\nfor path in ['/etc/evil', '/usr/evil', '/opt/sandbox/evil', '/evil']:\n    try:\n        open(path, 'w').write('x')\n        print('wrote', path)\n    except OSError as e:\n        print('denied', path, e.errno)\nopen('data.txt', 'w').write('fine')\nprint(os.getcwd(), open('/work/data.txt').read())\n";
    let e = run_py(code).await;
    assert!(!e.stdout.contains("wrote"), "{}", e.stdout);
    assert_eq!(e.stdout.matches("denied").count(), 4, "{}", e.stdout);
    assert!(e.stdout.ends_with("/work fine\n"), "{}", e.stdout);
}

#[tokio::test]
async fn the_process_is_unprivileged() {
    let code = "import os\nstatus = dict(l.split(':\\t', 1) for l in open('/proc/self/status').read().splitlines() if ':\\t' in l)\nprint(os.getuid(), os.getgid(), status['CapEff'].strip(), status['CapBnd'].strip(), status['NoNewPrivs'].strip(), status['Seccomp'].strip())\n";
    let e = run_py(code).await;
    let fields: Vec<&str> = e.stdout.split_whitespace().collect();
    assert_eq!(
        fields,
        [
            "65534",
            "65534",
            "0000000000000000",
            "0000000000000000",
            "1",
            "2"
        ],
        "{e:?}"
    );
}

#[tokio::test]
async fn a_tmpfs_fill_stops_at_its_cap() {
    let code = "written = 0\ntry:\n    with open('fill.bin', 'wb') as f:\n        while True:\n            f.write(b'\\0' * 1048576)\n            f.flush()\n            written += 1\nexcept OSError as e:\n    print('stopped', written, e.errno)\n";
    let e = run_py(code).await;
    let fields: Vec<&str> = e.stdout.split_whitespace().collect();
    assert_eq!(fields.first(), Some(&"stopped"), "{e:?}");
    let mib: u64 = fields[1].parse().unwrap();
    assert!(mib <= 8, "wrote {mib} MiB into an 8 MiB work dir");
}

#[tokio::test]
async fn binary_output_is_carried_lossily() {
    let e = run_py("import sys\nsys.stdout.buffer.write(b'ok \\xff\\xfe end\\n')\n").await;
    assert_eq!(e.stdout, "ok \u{fffd}\u{fffd} end\n");
}

#[tokio::test]
async fn only_named_variables_pass_through() {
    // SAFETY: set before any sandbox of this test reads the environment; no other test uses it.
    unsafe {
        std::env::set_var("CSM_PASSED", "visible");
        std::env::set_var("CSM_HIDDEN", "secret");
    }
    let config = code_sandbox_mcp::sandbox::SandboxConfig {
        pool_size: 0,
        pass_through_env: vec!["CSM_PASSED".into()],
        languages: vec![Language::Python],
        ..Default::default()
    };
    let sandbox = code_sandbox_mcp::sandbox::Sandbox::start(&config, &tight_limits())
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

#[tokio::test]
async fn javascript_runs_with_exit_codes_and_modules() {
    let limits = tight_limits();
    let e = run_with(
        &limits,
        Language::JavaScript,
        "console.log([1, 2, 3].map((x) => x * 2).join(','));\nprocess.exit(4);",
    )
    .await;
    assert_eq!((e.stdout.as_str(), e.exit_code), ("2,4,6\n", Some(4)));
    let e = run_with(&limits, Language::JavaScript, "import os from 'node:os';\nconst n = await Promise.resolve(os.EOL.length);\nconsole.log('esm', n);").await;
    assert_eq!(
        (e.stdout.as_str(), e.exit_code),
        ("esm 1\n", Some(0)),
        "{e:?}"
    );
    let e = run_with(
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

#[tokio::test]
async fn a_cancelled_run_returns_promptly() {
    let sandbox = common::sandbox(&tight_limits(), 0).await;
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
