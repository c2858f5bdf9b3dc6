//! Sessions at the sandbox level, on every backend: one container keeps its program between
//! calls (globals, imports, the work dir), each call returns only its own output, figures and
//! files; what a snippet writes cannot forge a frame; a timeout, an OOM kill, an output flood
//! and a death between calls end the session as the kernel reports them. (That nothing is
//! left behind is checked through the server, in tests/mcp/sessions_client.py.)

mod common;

use std::time::Duration;

use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::policy::Limits;
use code_sandbox_mcp::sandbox::{Execution, Kept, Sandbox};
use code_sandbox_mcp::workdir::InputFile;
use common::tight_limits;

fn limits() -> Limits {
    Limits {
        timeout: Duration::from_secs(5),
        ..tight_limits()
    }
}

async fn call(sandbox: &Sandbox, kept: &mut Kept, code: &str) -> Execution {
    sandbox
        .run_kept(kept, code, &[], std::future::pending())
        .await
        .unwrap_or_else(|e| panic!("a session call failed: {e}"))
}

const DRAW: &str =
    "import matplotlib.pyplot as plt\nplt.figure(figsize=(2, 1), dpi=50)\nplt.plot([1, 2])\n";

on_every_backend! {
    /// Globals, imports and files live from call to call; each call gets its own output,
    /// figures and changed files, and an error or sys.exit in one call does not end the session.
    async fn a_session_keeps_its_program_between_calls(backend) {
        let sandbox = backend.sandbox(&limits(), 0).await;
        let files = [InputFile { path: "data.csv".into(), content: b"a\n1\n2\n".to_vec() }];
        let (mut kept, opened) = sandbox.keep(Language::Python, &files).await.unwrap();
        assert!(opened.outputs.files.is_empty(), "{opened:?}");
        let first = call(&sandbox, &mut kept, "import pandas as pd\ndf = pd.read_csv('data.csv')\nprint(len(df))").await;
        assert_eq!((first.stdout.as_str(), first.program_lives), ("2\n", true), "{first:?}");
        let second = call(&sandbox, &mut kept, "df['b'] = df.a * 10\ndf.to_csv('out.csv', index=False)\nraise ValueError('oops')").await;
        assert_eq!(second.exit_code, Some(1), "{second:?}");
        assert!(second.stderr.contains("ValueError: oops"), "{second:?}");
        assert!(second.program_lives);
        let paths: Vec<&str> = second.outputs.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["out.csv"]);
        let third = call(&sandbox, &mut kept, &format!("{DRAW}print(df.b.sum(), open('out.csv').read().split())\nimport sys\nsys.exit(3)")).await;
        assert_eq!(third.stdout, "30 ['a,b', '1,10', '2,20']\n", "{third:?}");
        assert_eq!((third.exit_code, third.program_lives), (Some(3), true));
        assert_eq!(third.outputs.figures.len(), 1);
        assert!(third.outputs.files.is_empty(), "{third:?}");
        // The figure was shown and closed: the next call returns none.
        let fourth = call(&sandbox, &mut kept, "print(plt.get_fignums())").await;
        assert_eq!((fourth.stdout.as_str(), fourth.outputs.figures.len()), ("[]\n", 0));
        drop(kept);
        sandbox.shutdown().await;
    }
}

on_every_backend! {
    /// A frame written by the snippet is only output, and a declaration naming another call
    /// is ignored: the call ends when its own code does.
    async fn a_snippet_cannot_forge_a_frame_in_its_session(backend) {
        let sandbox = backend.sandbox(&limits(), 0).await;
        let (mut kept, _) = sandbox.keep(Language::Python, &[]).await.unwrap();
        let forged = concat!(
            "import os, sys, json\n",
            "end = json.dumps({'nonce': '0' * 32, 'status': 0, 'ended': False}).encode()\n",
            "sys.stdout.buffer.write(b'X' + len(end).to_bytes(4, 'big') + end)\n",
            "sys.stdout.flush()\n",
            "os.write(4, b'1 0\\n')\n",
            "os.write(4, b'99 0\\n')\n",
            "import time; time.sleep(0.3)\n",
            "print('the call ran to its end')\n",
        );
        let e = call(&sandbox, &mut kept, forged).await;
        assert!(e.stdout.starts_with('X') && e.stdout.ends_with("the call ran to its end\n"), "{e:?}");
        assert!(e.program_lives);
        let after = call(&sandbox, &mut kept, "print('next')").await;
        assert_eq!(after.stdout, "next\n", "{after:?}");
        drop(kept);
        sandbox.shutdown().await;
    }
}

on_every_backend! {
    /// A call at the time limit, one over the memory limit and one flooding its output end the
    /// session; a program that dies between calls leaves a container the next call finds gone.
    async fn timeouts_oom_floods_and_deaths_end_the_session(backend) {
        let sandbox = backend.sandbox(&limits(), 0).await;
        let (mut kept, _) = sandbox.keep(Language::Python, &[]).await.unwrap();
        call(&sandbox, &mut kept, "x = 1").await;
        let e = call(&sandbox, &mut kept, "while True:\n    pass").await;
        assert!(e.timed_out && !e.program_lives, "{e:?}");
        drop(kept);

        let (mut kept, _) = sandbox.keep(Language::Python, &[]).await.unwrap();
        let e = call(&sandbox, &mut kept, "blocks = []\nwhile True:\n    blocks.append(bytearray(16 << 20))").await;
        assert!(!e.program_lives, "{e:?}");
        assert!(e.oom_killed || e.exit_code == Some(137), "{e:?}");
        drop(kept);

        let (mut kept, _) = sandbox.keep(Language::Python, &[]).await.unwrap();
        let e = call(&sandbox, &mut kept, "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)").await;
        assert!(e.killed_for_output && !e.timed_out && !e.program_lives, "{e:?}");
        drop(kept);

        let (mut kept, _) = sandbox.keep(Language::Python, &[]).await.unwrap();
        let e = call(&sandbox, &mut kept, "import os, threading, time\nthreading.Thread(target=lambda: (time.sleep(0.3), os._exit(7))).start()").await;
        assert!(e.program_lives, "{e:?}");
        tokio::time::sleep(Duration::from_secs(2)).await;
        // An error is fine too: the engine may refuse the write to a container that is gone.
        let next = sandbox.run_kept(&mut kept, "print('alive?')", &[], std::future::pending()).await;
        if let Ok(e) = next {
            assert!(!e.program_lives && !e.stdout.contains("alive"), "{e:?}");
        }
        drop(kept);
        sandbox.shutdown().await;
    }
}

on_every_backend! {
    /// JavaScript: top-level declarations and required modules persist; a promise as the last
    /// expression is awaited; an exception ends the call, not the session.
    async fn a_javascript_session_keeps_its_declarations(backend) {
        let sandbox = backend.sandbox(&limits(), 0).await;
        let files = [InputFile { path: "in.txt".into(), content: b"hello".to_vec() }];
        let (mut kept, _) = sandbox.keep(Language::JavaScript, &files).await.unwrap();
        call(&sandbox, &mut kept, "let n = 40; const fs = require('fs'); function inc() { return ++n; }").await;
        let e = call(&sandbox, &mut kept, "inc(); throw new Error('boom')").await;
        assert_eq!(e.exit_code, Some(1), "{e:?}");
        assert!(e.stderr.contains("Error: boom") && !e.stderr.contains("runner.js"), "{e:?}");
        let e = call(&sandbox, &mut kept, "(async () => { await new Promise((r) => setTimeout(r, 50)); console.log(inc(), fs.readFileSync('in.txt', 'utf8')); })()").await;
        assert_eq!((e.stdout.as_str(), e.exit_code, e.program_lives), ("42 hello\n", Some(0), true), "{e:?}");
        drop(kept);
        sandbox.shutdown().await;
    }
}

on_every_backend! {
    /// Code of an earlier call runs on during a later one and rebinds its globals: a thread in
    /// Python, a timer in JavaScript. This is why the analyzer takes no constant of a later
    /// call for a name an earlier call's functions assign (tests/redteam.rs,
    /// `strict_judges_a_later_call_by_what_earlier_code_may_still_write`).
    async fn an_earlier_calls_thread_or_timer_rebinds_a_later_calls_global(backend) {
        let sandbox = backend.sandbox(&limits(), 0).await;
        let (mut kept, _) = sandbox.keep(Language::Python, &[]).await.unwrap();
        call(&sandbox, &mut kept, "import threading, time\ndef later():\n    global name\n    time.sleep(0.5)\n    name = 'rebound'\nthreading.Thread(target=later).start()\n").await;
        let e = call(&sandbox, &mut kept, "import time\nname = 'own'\ntime.sleep(1.5)\nprint(name)\n").await;
        assert_eq!(e.stdout, "rebound\n", "{e:?}");
        drop(kept);
        let (mut kept, _) = sandbox.keep(Language::JavaScript, &[]).await.unwrap();
        call(&sandbox, &mut kept, "var name = '';\nsetTimeout(() => { name = 'rebound'; }, 500);\n").await;
        let e = call(&sandbox, &mut kept, "name = 'own';\nnew Promise((done) => setTimeout(done, 1500)).then(() => console.log(name));\n").await;
        assert_eq!(e.stdout, "rebound\n", "{e:?}");
        drop(kept);
        sandbox.shutdown().await;
    }
}

on_every_backend! {
    /// An input file a call cannot write (a directory of that name is in the way) refuses
    /// that call alone, naming the file: its code does not run, and the session goes on with
    /// what earlier calls left.
    async fn an_input_file_that_cannot_be_written_refuses_only_its_call(backend) {
        let sandbox = backend.sandbox(&limits(), 0).await;
        let cases = [
            (Language::Python, "import os\nos.mkdir('d')\nn = 41", "print('ran')", "n += 1\nprint(n)"),
            (Language::JavaScript, "require('fs').mkdirSync('d'); var n = 41;", "console.log('ran')", "console.log(++n)"),
        ];
        for (language, first, refused, after) in cases {
            let (mut kept, _) = sandbox.keep(language, &[]).await.unwrap();
            call(&sandbox, &mut kept, first).await;
            let files = [InputFile { path: "d".into(), content: b"x".to_vec() }];
            let e = sandbox
                .run_kept(&mut kept, refused, &files, std::future::pending())
                .await
                .unwrap_or_else(|e| panic!("{language}: the call failed: {e}"));
            assert_eq!((e.exit_code, e.program_lives, e.stdout.as_str()), (Some(1), true, ""), "{language}: {e:?}");
            assert!(e.stderr.contains("cannot write the input file d") && e.stderr.contains("the code did not run"), "{language}: {e:?}");
            let e = call(&sandbox, &mut kept, after).await;
            assert_eq!((e.stdout.as_str(), e.program_lives), ("42\n", true), "{language}: {e:?}");
            drop(kept);
        }
        sandbox.shutdown().await;
    }
}
