"""Sessions, driven by the official Python MCP client over stdio and streamable HTTP: a session
keeps a DataFrame across three calls and hands back a chart and a file; a name bound in one call
is judged in the next (`import os as helper`, then `helper.system`); a denied call leaves the
session as it was; JavaScript keeps its declarations; two sessions, and two HTTP clients, see
nothing of each other; a timeout, an expiry, the session limit and a cancelled call give errors
that say what became of the session; no container is left after close, expiry or exit, and
one left by a killed server is reaped by the next.

Run by tests/mcp_python.rs as: python sessions_client.py SERVER_BINARY POLICY_FILE (a policy with
a 3 s time limit). Prints one line per passed check.
"""

import asyncio
import base64
import os
import socket
import subprocess
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from http_pair import free_port, two_http_clients

SERVER, POLICY = sys.argv[1], sys.argv[2]
SALES = "region,amount\nnorth,10\nnorth,12\nsouth,7\n"


def text_of(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


async def run(session, code, session_id, tool="run_python_code", **extra):
    return await session.call_tool(tool, {"code": code, "session_id": session_id, **extra})


async def open_session(session, language="python", files=None):
    args = {"language": language}
    if files:
        args["files"] = files
    result = await session.call_tool("open_session", args)
    assert result.is_error is False, text_of(result)
    opened = result.structured_content
    assert len(opened["session_id"]) == 32 and int(opened["session_id"], 16) >= 0, opened
    assert opened["expires_at"].endswith("Z"), opened
    return opened["session_id"]


async def sessions_listed(session):
    read = await session.read_resource("sandbox://sessions")
    import json
    return [s["session_id"] for s in json.loads(read.contents[0].text)["sessions"]]


def owner_containers(pid):
    host = open("/proc/sys/kernel/hostname").read().strip()
    out = subprocess.run(["docker", "ps", "-aq", "--filter", f"label=code-sandbox-mcp.owner={host}:{pid}"],
                         capture_output=True, text=True, check=True).stdout
    return out.split()


def server_pid():
    """The server this process started over stdio (its child)."""
    me = str(os.getpid())
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = open(f"/proc/{entry}/stat").read()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if fields[1] == me and "code-sandbox-mc" in stat:
                return int(entry)
    raise AssertionError("no server process")


def wait_for(condition, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


async def check_the_analysis_loop(session):
    tools = {t.name: t for t in (await session.list_tools()).tools}
    assert {"open_session", "close_session"} <= set(tools), tools
    description = tools["open_session"].description
    for part in ("persists", "global variables", "top-level", "without a call", "session_id", "ends the session"):
        assert part in description, (part, description)
    assert "session_id" in tools["run_python_code"].description

    sid = await open_session(session, files=[{"path": "sales.csv", "content": SALES}])
    result = await run(session, "import pandas as pd\ndf = pd.read_csv('sales.csv')\nprint(len(df))", sid)
    assert result.is_error is False and result.structured_content["stdout"] == "3\n", text_of(result)
    assert result.structured_content["session"]["open"] is True, result.structured_content
    result = await run(session, "totals = df.groupby('region').amount.sum()", sid)
    assert result.is_error is False, text_of(result)
    result = await run(session, (
        "import matplotlib.pyplot as plt\n"
        "totals.plot.bar(figsize=(4, 3))\n"
        "totals.to_csv('totals.csv')\n"
        "print(totals.to_dict())\n"), sid)
    assert result.is_error is False, text_of(result)
    assert "{'north': 22, 'south': 7}" in result.structured_content["stdout"], result.structured_content
    images = [c for c in result.content if c.type == "image"]
    assert len(images) == 1 and base64.b64decode(images[0].data)[:8] == b"\x89PNG\r\n\x1a\n"
    files = {f["path"]: f for f in result.structured_content["files"]}
    assert set(files) == {"totals.csv"}, files
    read = await session.read_resource(files["totals.csv"]["uri"])
    assert read.contents[0].text == "region,amount\nnorth,22\nsouth,7\n", read
    print("ok a session keeps a DataFrame across three calls, with a chart and a file back")

    # A name bound in one call is judged in the next.
    result = await run(session, "import os as helper", sid)
    assert result.is_error is False, text_of(result)
    result = await run(session, 'helper.system("id")', sid)
    assert result.is_error is True and result.structured_content["ran"] is False, text_of(result)
    assert "denied" in text_of(result) and "unchanged" in text_of(result), text_of(result)
    direct = await run(session, 'import os\nos.system("id")', sid)
    assert direct.structured_content["ran"] is False
    assert [f["rule"] for f in result.structured_content["findings"] if f["action"] == "deny"] == \
        [f["rule"] for f in direct.structured_content["findings"] if f["action"] == "deny"]
    print("ok `import os as helper` then `helper.system` is denied like os.system")

    result = await run(session, "leaked = 1\nimport subprocess\nsubprocess.run(['id'])", sid)
    assert result.structured_content["ran"] is False, text_of(result)
    result = await run(session, "print('leaked' in globals(), len(df))", sid)
    assert result.is_error is False and result.structured_content["stdout"] == "False 3\n", text_of(result)
    print("ok a denied call leaves the session as it was, and usable")

    other = await open_session(session)
    result = await run(session, "import os\nprint('df' in globals(), os.path.exists('sales.csv'), os.path.exists('totals.csv'))", other)
    assert result.structured_content["stdout"] == "False False False\n", text_of(result)
    assert set(await sessions_listed(session)) == {sid, other}
    print("ok two sessions see nothing of each other")

    result = await run(session, "print(1)", sid, tool="run_javascript_code")
    assert result.is_error is True and "runs python" in text_of(result), text_of(result)
    result = await run(session, "print(1)", "0" * 32)
    assert result.is_error is True and "no such session" in text_of(result), text_of(result)
    closed = await session.call_tool("close_session", {"session_id": other})
    assert closed.is_error is False and closed.structured_content["closed"] is True
    result = await run(session, "print(1)", other)
    assert result.is_error is True and "closed by close_session" in text_of(result), text_of(result)
    print("ok wrong tool, unknown and closed ids are clear errors")

    js = await open_session(session, "javascript", files=[{"path": "in.txt", "content": "hi"}])
    for code in ("let n = 40; const fs = require('fs'); function inc() { return ++n; }",
                 "inc();",
                 "console.log(inc(), fs.readFileSync('in.txt', 'utf8'))"):
        result = await run(session, code, js, tool="run_javascript_code")
        assert result.is_error is False, text_of(result)
    assert result.structured_content["stdout"] == "42 hi\n", result.structured_content
    print("ok a JavaScript session keeps its declarations across calls")

    result = await run(session, "import time\ntime.sleep(60)", sid)
    message = text_of(result)
    assert result.is_error is True and "time limit" in message and "has ended" in message, message
    assert result.structured_content["session"]["open"] is False, result.structured_content
    result = await run(session, "print(len(df))", sid)
    assert result.is_error is True and "time limit" in text_of(result), text_of(result)
    assert sid not in await sessions_listed(session)
    print("ok a call at the time limit ends the session, and the error says so")

    oom = await open_session(session)
    result = await run(session, "blocks = []\nwhile True:\n    blocks.append(bytearray(64 << 20))", oom)
    message = text_of(result)
    assert result.is_error is True and "memory" in message and "has ended" in message, message
    print("ok a call out of memory ends the session, and the error says so")


async def check_limits_expiry_cancel_and_cleanup():
    # A long time limit: the cancelled call below must be cancelled, never timed out, however
    # loaded the machine is.
    policy = os.path.join(os.path.dirname(POLICY), "long.yaml")
    with open(policy, "w") as f:
        f.write("name: test-sessions-long\nextends: standard\nlimits:\n  timeout: 30s\n")
    params = StdioServerParameters(
        command=SERVER, args=["--policy", policy, "--pool-size", "0", "--max-sessions", "2"], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            pid = server_pid()
            first = await open_session(session)
            second = await open_session(session)
            result = await session.call_tool("open_session", {"language": "python"})
            assert result.is_error is True and "--max-sessions" in text_of(result), text_of(result)
            assert len(owner_containers(pid)) == 2
            print("ok --max-sessions is a clear error")

            await session.call_tool("close_session", {"session_id": second})
            assert wait_for(lambda: len(owner_containers(pid)) == 1), owner_containers(pid)
            print("ok close_session removes the session's container")

            await session.call_tool("close_session", {"session_id": first})
            third = await open_session(session)
            await run(session, "x = 1", third)
            try:
                await session.call_tool("run_python_code", {"code": "import time\ntime.sleep(60)", "session_id": third},
                                        read_timeout_seconds=4)
                raise AssertionError("the call was not cancelled")
            except Exception as e:  # the SDK raises on its timeout and sends notifications/cancelled
                assert "AssertionError" not in repr(e), e
            await asyncio.sleep(1)
            result = await run(session, "print(x)", third)
            assert result.is_error is True and "cancelled" in text_of(result), text_of(result)
            assert wait_for(lambda: not owner_containers(pid)), owner_containers(pid)
            print("ok cancelling a call kills it and ends the session, which the next call is told")

            await open_session(session)
            assert len(owner_containers(pid)) == 1
    assert wait_for(lambda: not owner_containers(pid)), owner_containers(pid)
    print("ok no container is left after the server exits")

    params = StdioServerParameters(
        command=SERVER, args=["--policy", POLICY, "--pool-size", "0", "--session-idle-timeout", "3s"],
        env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            pid = server_pid()
            sid = await open_session(session)
            await asyncio.sleep(4.5)
            result = await run(session, "print(1)", sid)
            assert result.is_error is True and "without a call" in text_of(result), text_of(result)
            assert wait_for(lambda: not owner_containers(pid)), owner_containers(pid)
            print("ok an idle session expires, says so, and its container is gone")


async def check_http_clients():
    async with two_http_clients(SERVER, POLICY) as (proc, alice, bob):
        sid = await open_session(alice, files=[{"path": "secret.txt", "content": "alice's"}])
        result = await run(alice, "secret = open('secret.txt').read()\nprint(secret)", sid)
        assert result.structured_content["stdout"] == "alice's\n", text_of(result)
        theirs = await run(bob, "print(secret)", sid)
        unknown = await run(bob, "print(secret)", "f" * 32)
        assert theirs.is_error is True and "alice" not in text_of(theirs), text_of(theirs)
        assert text_of(theirs).replace(sid, "ID") == text_of(unknown).replace("f" * 32, "ID")
        closed = await bob.call_tool("close_session", {"session_id": sid})
        assert closed.is_error is True and "no such session" in text_of(closed)
        assert await sessions_listed(bob) == [] and await sessions_listed(alice) == [sid]
        bobs = await open_session(bob)
        result = await run(bob, "import os\nprint('secret' in globals(), os.listdir('.'))", bobs)
        assert result.structured_content["stdout"] == "False []\n", text_of(result)
        result = await run(alice, "print(secret)", sid)
        assert result.structured_content["stdout"] == "alice's\n", text_of(result)
        print("ok over HTTP, a session is its client's alone: state, files and id")
    assert wait_for(lambda: not owner_containers(proc.pid)), owner_containers(proc.pid)
    print("ok the HTTP server leaves no container behind")


async def check_reaped_after_a_crash():
    """A server killed with SIGKILL leaves its session's container; the next server removes it
    when it starts."""
    def serve(port):
        return subprocess.Popen(
            [SERVER, "--policy", POLICY, "--pool-size", "0", "--transport", "http", "--listen", f"127.0.0.1:{port}"],
            stderr=subprocess.DEVNULL)

    def wait_listening(port):
        assert wait_for(lambda: socket.socket().connect_ex(("127.0.0.1", port)) == 0, 60)

    port = free_port()
    crashed = serve(port)
    try:
        wait_listening(port)
        url = f"http://127.0.0.1:{port}/mcp"
        async with create_mcp_http_client() as http:
            async with streamable_http_client(url, http_client=http) as (r, w):
                async with ClientSession(r, w) as client:
                    await client.initialize()
                    await open_session(client)
                    crashed.kill()
                    crashed.wait()
    except BaseException:
        if crashed.poll() is None:
            raise
    left = owner_containers(crashed.pid)
    assert len(left) == 1, left
    port = free_port()
    next_server = serve(port)
    try:
        wait_listening(port)
        assert wait_for(lambda: not owner_containers(crashed.pid), 60), owner_containers(crashed.pid)
    finally:
        next_server.terminate()
        next_server.wait(timeout=30)
    print("ok a session's container left by a killed server is reaped at the next start")


async def main():
    params = StdioServerParameters(command=SERVER, args=["--policy", POLICY, "--pool-size", "1"], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await check_the_analysis_loop(session)
    await check_limits_expiry_cancel_and_cleanup()
    await check_http_clients()
    await check_reaped_after_a_crash()


asyncio.run(main())
