"""Figures, files in and files out, driven by the official Python MCP client over stdio and
streamable HTTP: a figure comes back as a PNG of the drawn size; a CSV goes in, pandas makes a
chart and a CSV, and the CSV is read back with resources/read; another client cannot read it;
bad file entries and limits give errors that name them.

Run by tests/mcp_python.rs as: python files_client.py SERVER_BINARY POLICY_FILE (a policy with
figures: 2, files_in: 3, files_in_bytes: 64KiB). Prints one line per passed check.
"""

import asyncio
import base64
import os
import struct
import sys
import zlib

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from http_pair import two_http_clients

SERVER, POLICY = sys.argv[1], sys.argv[2]

SALES = "region,month,amount\nnorth,1,10\nnorth,2,12\nsouth,1,7\nsouth,2,9\n"
ANALYSIS = """
import pandas as pd
import matplotlib.pyplot as plt
sales = pd.read_csv("data/sales.csv")
totals = sales.groupby("region")["amount"].sum()
totals.to_csv("totals.csv")
totals.plot.bar(figsize=(4, 3))
plt.title("Sales by region")
plt.savefig("chart.png", dpi=50)
plt.close()
print(totals.to_dict())
"""


def text_of(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


def png_pixels(data):
    """Decodes a PNG far enough to prove it is one: (width, height), with the image data
    inflated to exactly the size those dimensions need."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:8]
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        assert zlib.crc32(kind + body) == struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]
        if kind == b"IHDR":
            header = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[color]
    assert len(zlib.decompress(idat)) == height * (1 + width * channels * depth // 8)
    return width, height


async def check_figures_and_files(session):
    code = ("import matplotlib.pyplot as plt\n"
            "plt.figure(figsize=(4, 3), dpi=50); plt.plot([1, 3, 2]); plt.show()\n"
            "plt.figure(figsize=(2, 1), dpi=100); plt.bar(['a', 'b'], [1, 2])\n")
    result = await session.call_tool("run_python_code", {"code": code})
    assert result.is_error is False, text_of(result)
    images = [c for c in result.content if c.type == "image"]
    assert [c.mime_type for c in images] == ["image/png", "image/png"], result.content
    assert [png_pixels(base64.b64decode(c.data)) for c in images] == [(200, 150), (200, 100)]
    figures = result.structured_content["figures"]
    assert [(f["index"], f["width"], f["height"]) for f in figures] == [(0, 200, 150), (1, 200, 100)], figures
    assert figures[0]["bytes"] == len(base64.b64decode(images[0].data))
    print("ok figures come back as PNGs of the drawn size, shown and open ones, in order")

    result = await session.call_tool("run_python_code", {
        "code": ANALYSIS, "files": [{"path": "data/sales.csv", "content": SALES}]})
    assert result.is_error is False, text_of(result)
    assert "{'north': 22, 'south': 16}" in result.structured_content["stdout"], result.structured_content
    files = {f["path"]: f for f in result.structured_content["files"]}
    assert set(files) == {"totals.csv", "chart.png"}, files  # the input, unchanged, is not returned
    assert files["chart.png"]["mime"] == "image/png"
    chart = [c for c in result.content if c.type == "image"]
    assert len(chart) == 1 and png_pixels(base64.b64decode(chart[0].data)) == (200, 150)
    embedded = [c.resource for c in result.content if c.type == "resource"]
    assert [str(r.uri) for r in embedded] == [files["totals.csv"]["uri"]], result.content
    assert embedded[0].text == "region,amount\nnorth,22\nsouth,16\n", embedded[0].text
    read = await session.read_resource(files["totals.csv"]["uri"])
    assert read.contents[0].text == "region,amount\nnorth,22\nsouth,16\n", read
    assert read.contents[0].mime_type == "text/csv"
    print("ok CSV in, pandas chart and CSV out, the CSV read back with resources/read")

    blob = bytes(range(256)) * 4
    result = await session.call_tool("run_python_code", {
        "code": "data = open('in.bin', 'rb').read()\nopen('out.bin', 'wb').write(data[::-1])\n",
        "files": [{"path": "in.bin", "content": base64.b64encode(blob).decode(), "encoding": "base64"}]})
    links = [c for c in result.content if c.type == "resource_link"]
    assert [str(link.uri).rsplit("/", 1)[1] for link in links] == ["out.bin"], result.content
    read = await session.read_resource(str(links[0].uri))
    assert base64.b64decode(read.contents[0].blob) == blob[::-1]
    print("ok binary files go in as base64 and come back as links to read")

    result = await session.call_tool("run_javascript_code", {
        "code": "const fs = require('fs');\nfs.writeFileSync('upper.txt', fs.readFileSync('in.txt', 'utf8').toUpperCase());",
        "files": [{"path": "in.txt", "content": "shout"}]})
    embedded = [c.resource for c in result.content if c.type == "resource"]
    assert [r.text for r in embedded] == ["SHOUT"], result.content
    print("ok JavaScript takes files in and returns files")


async def check_bad_entries_and_limits(session):
    marker = "print('this must not run')"
    for files, expected in [
        ([{"path": "../escape.txt", "content": "x"}], ["files[0]", "..", "Nothing ran"]),
        ([{"path": "/etc/motd", "content": "x"}], ["files[0]", "absolute"]),
        ([{"path": "ok.txt", "content": "x"}, {"path": "b.bin", "content": "@@@", "encoding": "base64"}],
         ["files[1]", "b.bin", "base64"]),
        ([{"path": "a", "content": "1"}, {"path": "./a", "content": "2"}], ["files[1]", "twice"]),
        ([{"path": f"f{i}", "content": ""} for i in range(4)], ["files[3]", "at most 3"]),
        ([{"path": "big.txt", "content": "x" * (65 * 1024)}], ["files[0]", "64KiB"]),
    ]:
        result = await session.call_tool("run_python_code", {"code": marker, "files": files})
        message = text_of(result)
        assert result.is_error is True, message
        assert "must not run" not in message and not result.structured_content, result
        for part in expected:
            assert part in message, (part, message)
    try:
        result = await session.call_tool("run_python_code", {"code": marker, "files": [{"path": "a", "content": "x", "encoding": "rot13"}]})
        refusal = text_of(result) if result.is_error else None
    except Exception as e:  # the SDK raises the JSON-RPC error it got
        refusal = str(e)
    assert refusal is not None and "rot13" in refusal and "must not run" not in refusal, refusal
    print("ok bad file entries are errors naming the entry, and nothing runs")

    code = "import matplotlib.pyplot as plt\nfor i in range(3):\n    plt.figure(figsize=(1, 1), dpi=20)\n"
    result = await session.call_tool("run_python_code", {"code": code})
    assert len([c for c in result.content if c.type == "image"]) == 2, result.content
    omitted = result.structured_content["omitted"]
    assert [o["kind"] for o in omitted] == ["figure"] and "2 figures" in omitted[0]["reason"], omitted
    assert "Not returned" in text_of(result) and "2 figures" in text_of(result)
    print("ok figures over the limit are reported, not dropped silently")


async def check_stdio():
    params = StdioServerParameters(command=SERVER, args=["--policy", POLICY, "--pool-size", "1"], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            description = tools["run_python_code"].description
            assert "figures" in description and "resources/read" in description, description
            await check_figures_and_files(session)
            await check_bad_entries_and_limits(session)


async def check_http_ownership():
    async with two_http_clients(SERVER, POLICY) as (_, alice, bob):
        result = await alice.call_tool("run_python_code", {
            "code": ANALYSIS, "files": [{"path": "data/sales.csv", "content": SALES}]})
        uri = {f["path"]: f["uri"] for f in result.structured_content["files"]}["totals.csv"]
        assert "north,22" in (await alice.read_resource(uri)).contents[0].text
        try:
            await bob.read_resource(uri)
            raise AssertionError("another client read a run's file")
        except Exception as e:
            assert "no run" in str(e) and "north" not in str(e), repr(e)
        print("ok over HTTP, a run's files are read by its client and refused to another")


async def main():
    await check_stdio()
    await check_http_ownership()


asyncio.run(main())
