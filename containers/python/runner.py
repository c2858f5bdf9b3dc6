# code-sandbox-mcp Python runner: the main process of a sandbox container.
#
# Started (under Docker's --init) as
#     python3 -u /opt/sandbox/runner.py
# as user 65534:65534, working dir /work (a tmpfs, also HOME), /tmp a tmpfs,
# read-only root, no network. `-u` is required: the snippet's output must
# reach the pipes as it is produced.
#
# Protocol (the gateway implements the other side exactly as written here):
#
#  1. Warm-up. Before reading anything, the runner imports numpy, pandas and
#     matplotlib (Agg backend) with pyplot, and renders one tiny figure, so a
#     snippet that uses them starts at once. Then it writes the ready marker
#     b"\x00ready\x00" to stdout, and nothing else. The gateway waits for it
#     before it sends the code, so the snippet's time limit does not include
#     the warm-up (code sent earlier simply waits in the pipe).
#
#  2. Input on stdin: one header line, then the code:
#         <nonce> SP <length> LF          e.g. "0123...cdef 42\n"
#     <nonce>  exactly 32 lowercase hex chars [0-9a-f], chosen by the gateway
#     <length> decimal byte count of the code, no sign, no leading zeros
#              ("0" allowed), at most 16 MiB (16777216)
#     then exactly <length> bytes: the source code, UTF-8. It is decoded as
#     UTF-8 and compiled as text, so a PEP 263 coding cookie has no effect:
#     Python runs the same characters the analyzer parsed.
#     Anything else (a header that does not match, too long, not UTF-8, stdin
#     closed early, no stdin at all) -> a "runner: ..." line on stderr, exit
#     status 2, no marker.
#     After the code is read, stdin is switched to /dev/null, so input() or
#     sys.stdin.read() in the snippet see end-of-file instead of hanging.
#
#  3. Run as the main program: compiled with filename "<snippet>" (tracebacks
#     show snippet line numbers and source lines), executed in a fresh
#     __main__ module (__name__ == "__main__", no __file__, like `python -c`),
#     sys.argv == ["<snippet>"], sys.path[0] == "" (the working directory).
#     stdout/stderr are unbuffered: output streams as it is produced. Each write
#     is written whole, even where the kernel writes pipes short (gVisor).
#
#  4. End: when the program finishes, the runner does what the interpreter
#     does at exit (waits for non-daemon threads, runs atexit callbacks,
#     releases the snippet's globals so files it left open are flushed),
#     flushes stdout and stderr, and writes the end marker
#         b"\x00" + <nonce> + b":" + <exit_code decimal> + b"\x00"
#     to stderr first and then to stdout, each in one write(2), and exits with
#     <exit_code> as its own status. Nothing follows the marker on either
#     stream. <exit_code> is:
#         0    the code ran to its end, or sys.exit() / sys.exit(None)
#         N    sys.exit(N) for an int N (reported as N & 0xFF, the status the
#              process would have had)
#         1    sys.exit("msg") (msg printed to stderr first, as Python does),
#              or an uncaught exception (usual traceback on stderr, without
#              the runner's frame), or a syntax error (usual report)
#         130  an uncaught KeyboardInterrupt (128 + SIGINT, as Python exits)
#     If the snippet ends the interpreter itself (os._exit, a fatal signal,
#     the OOM killer) there is no marker: the gateway uses the container's
#     exit status. A process the snippet forks never writes a marker.
#     The nonce only prevents accidental collisions with the program's own
#     output; code running in this interpreter could find it.
#
# `python3 runner.py --bake` (run as root at image build time) does the
# warm-up with MPLCONFIGDIR=/opt/sandbox/matplotlib, leaving matplotlib's font
# cache there. At run time the root is read-only, and matplotlib, given a
# config dir it cannot write, makes a temporary one and rebuilds the font
# cache on every start (slow, with a warning). So the runner points
# MPLCONFIGDIR at /tmp/matplotlib (unless the environment names a writable
# dir) and copies the baked cache files into it before importing matplotlib.

import io
import os
import sys

RUNNER_DIR = os.path.dirname(os.path.abspath(__file__))
BAKED_MPLCONFIGDIR = os.path.join(RUNNER_DIR, "matplotlib")
RUNTIME_MPLCONFIGDIR = "/tmp/matplotlib"
MAX_CODE_BYTES = 16 * 1024 * 1024
HEADER_MAX_BYTES = 32 + 1 + 8 + 1  # nonce, space, up to 8 digits, newline
SNIPPET = "<snippet>"
READY_MARKER = b"\x00ready\x00"

_runner_pid = os.getpid()
_runner_globals = globals()


def _write_all(fd, data):
    while data:
        try:
            n = os.write(fd, data)
        except InterruptedError:
            continue
        except OSError:
            return
        data = data[n:]


class _FullWriter(io.RawIOBase):
    """An unbuffered raw stream whose write() writes all it is given.

    With `-u`, sys.stdout and sys.stderr make one write(2) per write and drop whatever a
    short write left over. Linux's blocking pipes never write short, but gVisor's do (a
    200 kB write to stderr arrived as 64 KiB), so the snippet's streams are rebuilt on this.
    """

    def __init__(self, fd):
        super().__init__()
        self._fd = fd

    def writable(self):
        return True

    def fileno(self):
        return self._fd

    def write(self, data):
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            try:
                done += os.write(self._fd, view[done:])
            except InterruptedError:
                continue
        return done


def _full_write_streams():
    for name, fd in (("stdout", 1), ("stderr", 2)):
        old = getattr(sys, name)
        stream = io.TextIOWrapper(
            _FullWriter(fd), encoding=old.encoding, errors=old.errors, write_through=True
        )
        setattr(sys, name, stream)
        setattr(sys, "__%s__" % name, stream)


def _fail(message):
    _write_all(2, ("runner: %s\n" % message).encode("utf-8", "replace"))
    os._exit(2)


def _prepare_matplotlib_dir(bake):
    if bake:
        os.makedirs(BAKED_MPLCONFIGDIR, exist_ok=True)
        os.environ["MPLCONFIGDIR"] = BAKED_MPLCONFIGDIR
        return
    configured = os.environ.get("MPLCONFIGDIR")
    if configured and os.path.isdir(configured) and os.access(configured, os.W_OK):
        target = configured
    else:
        target = RUNTIME_MPLCONFIGDIR
    try:
        os.makedirs(target, exist_ok=True)
        for name in os.listdir(BAKED_MPLCONFIGDIR):
            if name.endswith(".json") and not os.path.exists(os.path.join(target, name)):
                with open(os.path.join(BAKED_MPLCONFIGDIR, name), "rb") as src:
                    data = src.read()
                with open(os.path.join(target, name), "wb") as dst:
                    dst.write(data)
    except OSError:
        pass  # matplotlib still works, only slower (it rebuilds its cache)
    os.environ["MPLCONFIGDIR"] = target


def _warm_up(bake=False):
    """Import the heavy libraries (and render once) before any code arrives."""
    _prepare_matplotlib_dir(bake)
    os.environ.setdefault("MPLBACKEND", "Agg")
    import io
    import numpy  # noqa: F401
    import pandas  # noqa: F401
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    # The first draw loads FreeType, the DejaVu font and the PNG writer.
    fig = plt.figure(figsize=(1, 1), dpi=20)
    fig.text(0.5, 0.5, "warm $x^2$")
    fig.savefig(io.BytesIO(), format="png")
    plt.close(fig)


def _read_code():
    import re
    if sys.stdin is None:
        _fail("no stdin (start the container with -i / OpenStdin)")
    stdin = sys.stdin.buffer
    header = stdin.readline(HEADER_MAX_BYTES)
    if not header:
        _fail("stdin closed before the header line")
    match = re.fullmatch(rb"([0-9a-f]{32}) (0|[1-9][0-9]{0,7})\n", header)
    if match is None:
        _fail("bad header line %r (want '<32 lowercase hex nonce> <length>\\n')" % header[:80])
    nonce, length = match.group(1), int(match.group(2))
    if length > MAX_CODE_BYTES:
        _fail("code length %d exceeds the limit of %d bytes" % (length, MAX_CODE_BYTES))
    data = stdin.read(length) if length else b""
    if len(data) != length:
        _fail("stdin closed after %d of %d code bytes" % (len(data), length))
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError as e:
        _fail("code is not valid UTF-8: %s" % e)
    # The snippet gets end-of-file on stdin, not a pipe that never closes.
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    return nonce, source


def _report_exception(exc):
    """Print an uncaught exception as Python would, minus the runner's frames."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_globals is _runner_globals:
        tb = tb.tb_next
    exc.__traceback__ = tb  # the default hook prints the exception's own
    try:
        if sys.excepthook is sys.__excepthook__:
            # The traceback module (unlike the C default hook, which reads
            # source files from disk) takes source lines from linecache, so
            # the report shows the snippet's lines.
            import traceback
            traceback.print_exception(type(exc), exc, tb)
            sys.stderr.flush()
        else:
            sys.excepthook(type(exc), exc, tb)
    except BaseException:
        sys.__excepthook__(type(exc), exc, tb)


def _exit_status(exc):
    """The process status Python gives a SystemExit that reaches the top."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(str(code) + "\n")
    except BaseException:
        pass
    return 1


def _run(source):
    import builtins
    import linecache
    import types

    module = types.ModuleType("__main__")
    module.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = module
    sys.argv = [SNIPPET]
    if sys.path and sys.path[0] == RUNNER_DIR:
        sys.path[0] = ""
    # Tracebacks show the snippet's lines (mtime None: never invalidated).
    linecache.cache[SNIPPET] = (len(source), None, source.splitlines(True), SNIPPET)

    try:
        code = compile(source, SNIPPET, "exec", dont_inherit=True)
        exec(code, module.__dict__)
        status = 0
    except SystemExit as exc:
        status = _exit_status(exc)
    except BaseException as exc:
        _report_exception(exc)
        # Python dies of SIGINT after an uncaught KeyboardInterrupt.
        status = 130 if isinstance(exc, KeyboardInterrupt) else 1
    return module, status


def _finish(module, status, nonce):
    # What the interpreter does at exit, in its order: join non-daemon
    # threads, then atexit callbacks.
    threading = sys.modules.get("threading")
    if threading is not None:
        try:
            threading._shutdown()
        except BaseException as exc:
            _report_exception(exc)
    try:
        import atexit
        atexit._run_exitfuncs()
    except BaseException:
        pass
    # Release the snippet's globals so files it left open get flushed and
    # closed before the marker (unless daemon threads may still use them).
    # No gc.collect(): with pandas loaded it costs ~30 ms on every run.
    if threading is None or threading.active_count() <= 1:
        try:
            module.__dict__.clear()
        except BaseException:
            pass
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except BaseException:
            pass
    if os.getpid() == _runner_pid:  # not in a process the snippet forked
        marker = b"\x00" + nonce + b":" + str(status).encode() + b"\x00"
        _write_all(2, marker)
        _write_all(1, marker)
    os._exit(status)


def main():
    if sys.argv[1:] == ["--bake"]:
        _warm_up(bake=True)
        print("runner: baked matplotlib cache in %s: %s"
              % (BAKED_MPLCONFIGDIR, sorted(os.listdir(BAKED_MPLCONFIGDIR))))
        return
    _warm_up()
    # Tell the gateway the libraries are loaded: its time limit starts with the code.
    _write_all(1, READY_MARKER)
    nonce, source = _read_code()
    _full_write_streams()
    module, status = _run(source)
    _finish(module, status, nonce)


if __name__ == "__main__":
    main()
