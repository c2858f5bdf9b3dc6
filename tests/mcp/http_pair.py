"""Two clients of one MCP server over streamable HTTP, each with its own connection and MCP
session: what the ownership checks (a run's files, a sandbox session) need."""

import contextlib
import socket
import subprocess
import time

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.asynccontextmanager
async def two_http_clients(server, policy):
    """Starts `server` on a free loopback port and yields (process, alice, bob), both
    initialized; the server is stopped (and waited for) on the way out."""
    port = free_port()
    proc = subprocess.Popen(
        [server, "--policy", policy, "--pool-size", "1", "--transport", "http", "--listen", f"127.0.0.1:{port}"],
        stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"
        async with create_mcp_http_client() as http_a, create_mcp_http_client() as http_b:
            async with streamable_http_client(url, http_client=http_a) as (ra, wa), \
                    streamable_http_client(url, http_client=http_b) as (rb, wb):
                async with ClientSession(ra, wa) as alice, ClientSession(rb, wb) as bob:
                    await alice.initialize()
                    await bob.initialize()
                    yield proc, alice, bob
    finally:
        proc.terminate()
        proc.wait(timeout=30)
