//! Bad input over MCP, as raw JSON-RPC lines on the server's stdin: each gets a clear error
//! and the server keeps serving the next request.

mod common;

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{ChildStdin, ChildStdout};

struct Session {
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
}

impl Session {
    async fn send_raw(&mut self, line: &[u8]) {
        self.stdin.write_all(line).await.unwrap();
        self.stdin.write_all(b"\n").await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// The next response carrying `id` (notifications in between are skipped).
    async fn response(&mut self, id: u64) -> Value {
        loop {
            let line = tokio::time::timeout(Duration::from_secs(120), self.lines.next_line())
                .await
                .expect("the server answers")
                .unwrap()
                .expect("the server is still running");
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout carried non-JSON ({e}): {line}"));
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    async fn call(&mut self, id: u64, tool: &str, arguments: Value) -> Value {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}});
        self.send_raw(request.to_string().as_bytes()).await;
        self.response(id).await
    }

    async fn ping(&mut self, id: u64) {
        self.send_raw(
            json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
                .to_string()
                .as_bytes(),
        )
        .await;
        let pong = self.response(id).await;
        assert!(pong.get("result").is_some(), "ping after bad input: {pong}");
    }
}

fn text(response: &Value) -> String {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn bad_input_gets_clear_errors_and_the_server_keeps_serving() {
    tokio::task::spawn_blocking(common::ensure_images)
        .await
        .unwrap();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_code-sandbox-mcp"))
        .args(["--pool-size", "1"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut s = Session {
        stdin: child.stdin.take().unwrap(),
        lines: BufReader::new(child.stdout.take().unwrap()).lines(),
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    s.send_raw(init.to_string().as_bytes()).await;
    assert!(s.response(1).await["result"]["serverInfo"]["name"] == "code-sandbox-mcp");
    s.send_raw(br#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#)
        .await;

    // Malformed JSON-RPC: not JSON, JSON of the wrong shape, an unknown method. Each request
    // whose id can be read gets an error for that id.
    s.send_raw(b"{this is not json").await;
    s.send_raw(br#"{"jsonrpc": "2.0", "id": 2, "method": 17}"#)
        .await;
    assert_eq!(s.response(2).await["error"]["code"], -32600);
    s.send_raw(br#"{"jsonrpc": "2.0", "id": 12, "method": "ping", "params": {"#)
        .await;
    assert_eq!(s.response(12).await["error"]["code"], -32700);
    s.ping(3).await;
    s.send_raw(br#"{"jsonrpc": "2.0", "id": 4, "method": "no/such/method"}"#)
        .await;
    assert!(s.response(4).await.get("error").is_some());

    // Unknown tool (named, with the real ones), wrong argument types, missing arguments.
    let unknown = s.call(5, "run_ruby_code", json!({"code": "puts 1"})).await;
    let message = unknown["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("`run_ruby_code`")
            && message.contains("check_code, close_session, open_session, run_javascript_code, run_js_code, run_python_code"),
        "{unknown}"
    );
    let wrong = s
        .call(6, "run_python_code", json!({"code": ["print(1)"]}))
        .await;
    assert_eq!(wrong["result"]["isError"], true, "{wrong}");
    let missing = s.call(7, "check_code", json!({"code": "print(1)"})).await;
    assert_eq!(missing["result"]["isError"], true, "{missing}");

    // 10 MB of code is refused with a size error, before any analysis or container.
    let huge = "x = 1\n".repeat(10 * 1024 * 1024 / 6);
    let refused = s.call(8, "run_python_code", json!({"code": huge})).await;
    assert_eq!(refused["result"]["isError"], true);
    assert!(text(&refused).contains("limit"), "{}", text(&refused));

    // NUL bytes in code: reported, and never a crash.
    let nul = s
        .call(
            9,
            "check_code",
            json!({"language": "python", "code": "print(1)\u{0}"}),
        )
        .await;
    assert_eq!(
        nul["result"]["structuredContent"]["findings"][0]["rule"], "parse-error",
        "{nul}"
    );

    // Invalid UTF-8 in program output arrives replaced, not as a broken message.
    let binary = s
        .call(
            10,
            "run_python_code",
            json!({"code": "import sys\nsys.stdout.buffer.write(b'ok \\xff\\xfe')"}),
        )
        .await;
    assert_eq!(
        binary["result"]["structuredContent"]["stdout"], "ok \u{fffd}\u{fffd}",
        "{binary}"
    );

    // 20 MB in one request line: over the 16 MiB message limit, refused unread with an error
    // for its id (read from the line on the way past), and the server keeps serving.
    let huge = "x = 1\n".repeat(20 * 1024 * 1024 / 6);
    let refused = s.call(13, "run_python_code", json!({"code": huge})).await;
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("16MiB") && message.contains("1MiB"),
        "{refused}"
    );

    s.ping(11).await;
    drop(s);
    let status = tokio::time::timeout(Duration::from_secs(60), child.wait())
        .await
        .expect("the server exits when stdin closes")
        .unwrap();
    assert!(status.success(), "{status}");
}

#[tokio::test]
async fn an_oversized_message_without_an_id_ends_the_connection_with_the_reason() {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_code-sandbox-mcp"))
        .args(["--pool-size", "0"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    stdin
        .write_all(format!("{init}\n").as_bytes())
        .await
        .unwrap();
    // A notification has no id: nothing can be answered, so the server must not leave the
    // client waiting on a stream that will never carry its answer.
    let note = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "y".repeat(17 << 20)}});
    stdin.write_all(note.to_string().as_bytes()).await.unwrap();
    stdin.write_all(b"\n").await.unwrap();
    let output = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("the server ends the connection")
        .unwrap();
    assert!(!output.status.success(), "{:?}", output.status);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("over the limit of 16MiB") && stderr.contains("could not be read"),
        "{stderr}"
    );
    // The initialize answer, then the error that names the limit.
    let stdout = String::from_utf8_lossy(&output.stdout);
    let answer: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
}
