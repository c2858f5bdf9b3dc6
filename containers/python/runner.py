# code-sandbox-mcp Python runner: the main process of a sandbox container.
#
# Started as the container's PID 1 (no separate init) with
#     python3 -I -S /opt/sandbox/runner.py
# as a user id of its own (one per container), working dir /work (a tmpfs,
# also HOME), /tmp a tmpfs, read-only root, no network.
#
# Two processes. The *supervisor* (this command) holds everything that decides
# a run's result; the *program* process (this file with --child, which it
# starts) imports the heavy libraries and runs the snippet. The program can
# neither read the supervisor's memory nor write the container's output:
#   - the supervisor is not dumpable (prctl), so /proc/1/mem, /proc/1/fd and
#     ptrace are closed to processes of the same user (and the seccomp profile
#     refuses ptrace and process_vm_* anyway; gVisor also refuses them to
#     descendants);
#   - the program's stdout and stderr are pipes the supervisor reads; only the
#     supervisor holds the container's stdout;
#   - as the init of the container's PID namespace, the supervisor gets no
#     signal from the program under runc (it ignores every catchable signal;
#     gVisor lets a SIGKILL through, which only ends the run early: the gateway
#     then reports the container's exit status).
#
# Protocol (the gateway, src/sandbox/exec.rs and output.rs, implements the other
# side exactly as written here):
#
#  1. Warm-up. The supervisor starts the program process, which imports what
#     the container's class (SANDBOX_PRELOAD) names, so a snippet that uses it
#     starts at once: "light" nothing, "data" numpy and pandas, "full" (also
#     when unset) those and matplotlib (Agg backend) with pyplot, rendering one
#     tiny figure (plain text: 9 ms that save about 15 ms of the first plot;
#     mathtext cost 20 ms more and saved nothing). When it is done, the
#     supervisor writes the ready frame to stdout, and nothing else. The gateway
#     waits for it before it sends the code, so the snippet's time limit does
#     not include the warm-up (code sent earlier simply waits in the pipe).
#
#  2. Input on stdin: one header line, then the code:
#         <nonce> SP <length> LF          e.g. "0123...cdef 42\n"
#     <nonce>  exactly 32 lowercase hex chars [0-9a-f], chosen by the gateway
#     <length> decimal byte count of the code, no sign, no leading zeros
#              ("0" allowed), at most 16 MiB (16777216)
#     then exactly <length> bytes: the source code, UTF-8. It is decoded as
#     UTF-8 and compiled as text, so a PEP 263 coding cookie has no effect:
#     Python runs the same characters the analyzer parsed.
#     The header may carry a third field, the length of the *transfer* that
#     follows the code (the gateway always sends one):
#         <nonce> SP <length> SP <transfer length> LF
#     The transfer is one line of JSON, LF, then the input files' bytes one
#     after another:
#         {"files": [{"path": "data/in.csv", "size": 123}, ...],
#          "collect": {"figures": N, "figure_bytes": N, "files": N, "file_bytes": N},
#          "own_modules": <bool, optional, default true>,
#          "start_programs": <bool, optional, default true>}
#     The supervisor writes each file into the work dir (paths are relative and
#     already checked by the gateway; no file may exist there yet) before the
#     program gets the code, then notes what the work dir holds. "collect" says
#     what to send back at the end (see X below); the gateway enforces the same
#     limits on what it receives. "own_modules" false keeps the work dir off the
#     snippet's sys.path (see 4). "start_programs" false (a policy that denies starting
#     processes) has the kernel refuse the program process and everything it starts any
#     new program (execve fails with EPERM), from before the first code runs.
#     A fourth field, the word "session", makes the container a session's (see 6).
#     Anything else (a header that does not match, too long, not UTF-8, stdin
#     closed early, no stdin at all, a transfer that does not fit) -> a
#     "runner: ..." line on stderr, exit status 2, no end frame. The nonce
#     stays in the supervisor.
#
#  3. Output on stdout: frames, each a kind byte, the payload's length as 4
#     bytes big-endian, and the payload:
#         R  ready: JSON {"protocol": 2, "runner": "python"}, once, before
#            the code is read
#         O  bytes the program wrote to its stdout (at most 64 KiB a frame)
#         E  bytes the program wrote to its stderr
#         X  the end: JSON {"nonce": <the header's nonce>, "status": <0-255>,
#            "signal": <N or null>, "oom_killed": <bool>}; nothing follows,
#            and the supervisor exits with <status>, which ends the container
#            and everything in it. In a session (6), a call's end carries
#            "ended": false and the container lives on.
#         F  a figure or a file, before the end frame (only when the header
#            had a transfer): JSON {"kind": "figure" | "file", "path": <str>,
#            "size": <N>}, then exactly N bytes in D frames; or, for one not
#            sent, {"kind", "path", "size", "skipped": <reason>} and no data.
#            Reasons: "count", "size", "total" (a collect limit), "type" (not
#            a regular file), "name" (not UTF-8). Figures come first, in the
#            order they were drawn (PNG files the program wrote in
#            /tmp/.sandbox-figures); then the files of the work dir that are
#            new or changed since the code was handed over, by path.
#         D  a piece of the current F's bytes (at most 256 KiB a frame)
#     The container's stderr carries only the supervisor's own "runner: ..."
#     lines. New kinds (several runs in one container) are new letters; the
#     gateway refuses kinds it does not know.
#
#  4. The program runs as the main program: compiled with filename
#     "<snippet>" (tracebacks show snippet line numbers and source lines),
#     executed in a fresh __main__ module (__name__ == "__main__", no __file__,
#     like `python -c`), sys.argv == ["<snippet>"], the working directory ("")
#     last on sys.path, so a snippet's own modules import but a file it writes
#     never stands in for the standard library or an installed package (a
#     colorsys.py in /work is not what `import colorsys` runs); with
#     "own_modules" false (a policy that lists the modules a snippet may import)
#     not at all, so no file there stands in for a module a library imports
#     only if it is installed (an optional dependency). Text given for
#     matplotlib's `axes.prop_cycle` is read as cycler calls of literals, never
#     evaluated, lxml's iterparse resolves only the entities a document defines
#     itself, the index arrays scipy's native kernels trust reach the snippet
#     read-only (see _LibraryGuards), and source lines shown in tracebacks and
#     warnings come only from files below sys.path's directories, the work dir
#     and /tmp (see _guard_linecache). stdin at
#     end-of-file (/dev/null). stdout/stderr are
#     unbuffered: output streams as it is produced. Each write is written
#     whole, even where the kernel writes pipes short (gVisor).
#
#  5. The end. When the program finishes, its process does what the
#     interpreter does at exit (waits for non-daemon threads, runs atexit
#     callbacks, releases the snippet's globals so files it left open are
#     flushed), flushes stdout and stderr, declares its exit status to the
#     supervisor on its status pipe (fd 4; the code came on fd 3), and exits
#     with it:
#         0    the code ran to its end, or sys.exit() / sys.exit(None)
#         N    sys.exit(N) for an int N (reported as N & 0xFF, the status the
#              process would have had)
#         1    sys.exit("msg") (msg printed to stderr first, as Python does),
#              or an uncaught exception (usual traceback on stderr, without
#              the runner's frame), or a syntax error (usual report)
#         130  an uncaught KeyboardInterrupt (128 + SIGINT, as Python exits)
#     The supervisor takes the output written before the declaration, sends
#     the end frame at once (waiting for the process to be torn down would
#     cost milliseconds) and exits, which kills whatever is left. A program
#     can declare only what sys.exit could say, and nothing it does after
#     declaring runs long or reaches the gateway. If the process ends without
#     declaring (os._exit, a fatal signal, the OOM killer), the supervisor
#     reports what the kernel says: the exit status, or 128 + the signal, and
#     oom_killed when the container's memory cgroup counted an OOM kill. A
#     process the snippet forks never declares; its output after the end is
#     not kept.
#
#  6. Sessions. A first header that ends in " session" keeps the program's
#     process, its __main__ module (globals, imports) and the work dir for later
#     calls: after each call's end frame the supervisor reads the next request
#     (same format, "session" on every header, a fresh nonce each time). For
#     each call, it writes the input files into the work dir (replacing files of
#     the same name), hands the code over, frames the output until the program
#     declares "<call number> <status>\n" on its status pipe, sends the figures
#     drawn (open figures are shown and closed at the end of each call, as in a
#     notebook) and the files new or changed since the hand-over, then the end
#     frame with "ended": false. A call does not wait for threads it started.
#     An input file that cannot be written (a directory of that name is in
#     the way) refuses that call alone: a "runner: ..." line in an E frame and
#     an end frame with status 1 and "ended": false; its code does not run.
#     Between calls, what the program writes is dropped; if its process dies
#     then, the supervisor exits (status 2), so the next call finds the
#     container gone. If it dies during a call, the end frame is the
#     supervisor's as in 5 (no "ended" field: the session is over) and the
#     supervisor exits.
#     What a snippet can forge, and only in its own session: its process is the
#     one that declares, so it can write a declaration itself and end its call
#     early with a status of its choosing (the rest of its code then runs
#     between calls, or into its next call's output, delaying that call). It
#     cannot write a frame (only the supervisor holds stdout), learn a nonce,
#     make its process's death, exit status or an OOM kill look other than the
#     kernel reports them, nor outlast a call's time limit: the gateway ends the
#     call and the whole container at the limit, whatever was declared.
#
# `python3 runner.py --bake` (run as root at image build time) does the
# warm-up with MPLCONFIGDIR=/opt/sandbox/matplotlib, leaving matplotlib's font
# cache there. At run time the root is read-only, and matplotlib, given a
# config dir it cannot write, makes a temporary one and rebuilds the font
# cache on every start (slow, with a warning). So the program process points
# MPLCONFIGDIR at /tmp/matplotlib (unless the environment names a writable
# dir) and copies the baked cache files into it before importing matplotlib.

import functools
import io
import os
import sys

RUNNER = os.path.abspath(__file__)
RUNNER_DIR = os.path.dirname(RUNNER)
BAKED_MPLCONFIGDIR = os.path.join(RUNNER_DIR, "matplotlib")
RUNTIME_MPLCONFIGDIR = "/tmp/matplotlib"
MAX_CODE_BYTES = 16 * 1024 * 1024
# nonce, code length, transfer length, "session", newline
HEADER_MAX_BYTES = 32 + 1 + 8 + 1 + 9 + 1 + 7 + 1
MAX_TRANSFER_BYTES = 256 * 1024 * 1024
WORK_DIR = "/work"
# Where the program process leaves the figures it drew, for the supervisor to send.
FIGURE_DIR = "/tmp/.sandbox-figures"
TRANSFER_CHUNK = 256 * 1024
SNIPPET = "<snippet>"
# The program process's pipes to and from the supervisor: the code comes on one, the ready
# byte and the declared exit status go back on the other.
CODE_FD = 3
STATUS_FD = 4
FRAME_CHUNK = 64 * 1024


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view):]
        except InterruptedError:
            continue


def _fail(message):
    try:
        _write_all(2, ("runner: %s\n" % message).encode("utf-8", "replace"))
    except OSError:
        pass
    os._exit(2)


# ------------------------------------------------------------- the supervisor

class Supervisor:
    """PID 1: starts the program process, frames its output, reports its end."""

    def __init__(self):
        import signal
        self.signal = signal
        self.ignored = []
        self.child = None
        self.status = None  # set once the program's process is reaped
        self.declared = b""  # what the program wrote on its status pipe
        self.call = 0  # the current call of a session (0: single use)
        self.outcome = None  # the status the program declared for the current call

    def shield(self):
        """Ignore every asynchronous signal: nothing the program sends may stop us."""
        signal = self.signal
        names = ("SIGHUP SIGINT SIGQUIT SIGTERM SIGUSR1 SIGUSR2 SIGALRM SIGPIPE SIGTSTP "
                 "SIGTTIN SIGTTOU SIGVTALRM SIGPROF SIGXCPU SIGXFSZ SIGWINCH SIGIO SIGPWR "
                 "SIGURG SIGTRAP SIGSYS SIGSTKFLT").split()
        numbers = [getattr(signal, n) for n in names if hasattr(signal, n)]
        numbers += range(signal.SIGRTMIN, signal.SIGRTMAX + 1)
        for number in numbers:
            try:
                signal.signal(number, signal.SIG_IGN)
                self.ignored.append(number)
            except (OSError, ValueError):
                pass
        # Not dumpable: /proc/1/{mem,fd,environ}, ptrace and process_vm_* are closed to
        # processes of the same user without CAP_SYS_PTRACE (the sandbox has none).
        import ctypes
        PR_SET_DUMPABLE = 4
        if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
            _fail("cannot make the supervisor non-dumpable (errno %d)" % ctypes.get_errno())

    def start_program(self):
        signal = self.signal
        self.out_r, out_w = os.pipe()
        self.err_r, err_w = os.pipe()
        code_r, self.code_w = os.pipe()
        self.status_r, status_w = os.pipe()
        if min(code_r, status_w) <= STATUS_FD:
            _fail("unexpected descriptors %d and %d" % (code_r, status_w))
        self.wake_r, wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(wake_w, False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(wake_w)
        pid = os.fork()
        if pid == 0:
            try:
                for number in self.ignored + [signal.SIGCHLD]:
                    signal.signal(number, signal.SIG_DFL)
                devnull = os.open(os.devnull, os.O_RDONLY)
                os.dup2(devnull, 0)
                os.dup2(out_w, 1)
                os.dup2(err_w, 2)
                # code_r and status_w were opened after the output pipes (fds 3 to 6), so
                # placing them at 3 and 4 overwrites nothing still needed.
                os.dup2(code_r, CODE_FD)
                os.dup2(status_w, STATUS_FD)
                os.closerange(STATUS_FD + 1, 65536)
                os.execv(sys.executable, [sys.executable, "-u", RUNNER, "--child"])
            finally:
                os._exit(127)
        self.child = pid
        for fd in (out_w, err_w, code_r, status_w):
            os.close(fd)

    def reap(self):
        """Collect every exited child (orphans of the program come to PID 1 too)."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.child:
                self.status = status

    def child_exited(self):
        """On SIGCHLD (its wakeup byte on wake_r): empty the wakeup pipe, then reap."""
        while True:
            try:
                if not os.read(self.wake_r, 64):
                    break
            except BlockingIOError:
                break
        self.reap()

    def wait_until_ready(self):
        """Wait for the program process's warm-up; its early output is our diagnostics."""
        import select
        poll = select.poll()
        for fd in (self.status_r, self.out_r, self.err_r):
            poll.register(fd, select.POLLIN)
        while True:
            for fd, _ in poll.poll():
                if fd == self.status_r:
                    if os.read(self.status_r, 1) == b"r":
                        return
                    self.reap()
                    _fail("the program process exited before it was ready (status %r)" % self.status)
                data = os.read(fd, FRAME_CHUNK)
                if data:
                    _write_all(2, data)
                else:
                    poll.unregister(fd)

    def frame(self, kind, payload=b""):
        _write_all(1, kind + len(payload).to_bytes(4, "big") + payload)

    def relay(self):
        """Frame the program's output until its process declares its end or dies."""
        import select
        poll = select.poll()
        streams = {self.out_r: b"O", self.err_r: b"E"}
        for fd in list(streams) + [self.status_r, self.wake_r]:
            poll.register(fd, select.POLLIN)
        while self.status is None and self.outcome is None:
            for fd, _ in poll.poll():
                if fd == self.wake_r:
                    self.child_exited()
                elif fd == self.status_r:
                    data = os.read(self.status_r, 64)
                    if not self.declare(data):
                        poll.unregister(fd)  # closed, or not a declaration: wait for the exit
                elif not self.forward(fd, streams[fd]):
                    poll.unregister(fd)
        # What the program wrote before it ended is in the pipes: take it, but no more than
        # a bounded amount (a process it forked may still be writing).
        for fd, kind in streams.items():
            os.set_blocking(fd, False)
            for _ in range(64):
                try:
                    if not self.forward(fd, kind):
                        break
                except BlockingIOError:
                    break

    def forward(self, fd, kind):
        try:
            data = os.read(fd, FRAME_CHUNK)
        except BlockingIOError:
            return True  # a session's pipes are non-blocking after the first call
        if data:
            self.frame(kind, data)
        return bool(data)

    def declare(self, data):
        """Takes bytes of the status pipe; sets the outcome once they declare the current
        call's status. Single use: "<0-255>\\n". A session's call N: "N <0-255>\\n", lines
        naming another call ignored. False when the pipe closed or broke the format."""
        if not data:
            return False
        self.declared += data
        if self.call == 0:
            text = self.declared
            if text.endswith(b"\n") and text[:-1].isdigit() and int(text[:-1]) <= 255:
                self.outcome = int(text[:-1])
            return len(text) <= 8
        *lines, rest = self.declared.split(b"\n")
        self.declared = rest
        for line in lines:
            fields = line.split(b" ")
            if (len(fields) == 2 and fields[0] == b"%d" % self.call and fields[1].isdigit()
                    and int(fields[1]) <= 255):
                self.outcome = int(fields[1])
        return len(rest) <= 32

    def hand_over(self, mode, code, terms):
        """Gives the program its code: the mode ("1" single use, "s" a session's call), "w"
        when the work dir goes on sys.path (else "-"), "x" when it may start programs (else
        "-"), the length as 8 bytes big-endian, the code."""
        own_modules, start_programs = terms
        flags = (b"w" if own_modules else b"-") + (b"x" if start_programs else b"-")
        try:
            _write_all(self.code_w, mode + flags + len(code).to_bytes(8, "big") + code)
        except OSError:
            pass  # the program process is gone: its status tells why

    def serve_session(self, nonce, code, transfer, oom_kills_before):
        """A session (see 6 at the top): calls until the container is destroyed or the
        program's process dies."""
        while True:
            try:
                collect, before, terms = _receive_files(transfer, replace=True)
            except InputFileError as e:
                # The call is refused, not the session: its code does not run, and the
                # program's count of calls stays where it was.
                self.frame(b"E", ("runner: %s; the code did not run\n" % e).encode("utf-8", "replace"))
                self.end_call(nonce, 1)
            else:
                self.call += 1
                self.declared, self.outcome = b"", None
                self.hand_over(b"s", code, terms)
                self.relay()
                if collect is not None:
                    _send_outputs(self.frame, collect, before)
                if self.status is not None:
                    self.finish(nonce, oom_kills_before)  # the program is gone: so is the session
                self.end_call(nonce, self.outcome)
            self.idle()
            nonce, code, transfer, session = _read_request()
            if not session:
                _fail("a request without the session field in a session")

    def end_call(self, nonce, status):
        """A session's call ends and the container lives on."""
        self.frame(b"X", ('{"nonce": "%s", "status": %d, "signal": null, "oom_killed": false, '
                          '"ended": false}' % (nonce.decode(), status)).encode())

    def idle(self):
        """Between calls: drop what the program writes (a thread still printing), and end
        the container if its process dies. Returns when the next request arrives."""
        import select
        poll = select.poll()
        for fd in (0, self.out_r, self.err_r, self.status_r, self.wake_r):
            poll.register(fd, select.POLLIN)
        while True:
            for fd, _ in poll.poll():
                if fd == 0:
                    return
                if fd == self.wake_r:
                    self.child_exited()
                    if self.status is not None:
                        _fail("the session's program exited between calls (status %r)"
                              % os.waitstatus_to_exitcode(self.status))
                    continue
                try:
                    if not os.read(fd, FRAME_CHUNK):
                        poll.unregister(fd)
                except BlockingIOError:
                    pass

    def finish(self, nonce, oom_kills_before):
        declared = self.outcome
        signal_number = None
        if declared is not None and self.status is None:
            status = declared
        elif os.WIFSIGNALED(self.status):
            signal_number = os.WTERMSIG(self.status)
            status = 128 + signal_number
        else:
            status = os.waitstatus_to_exitcode(self.status) & 0xFF
        oom = signal_number == self.signal.SIGKILL and _oom_kills() > oom_kills_before
        self.frame(b"X", ('{"nonce": "%s", "status": %d, "signal": %s, "oom_killed": %s}' % (
            nonce.decode(), status, "null" if signal_number is None else signal_number,
            "true" if oom else "false")).encode())
        os._exit(status)


def _oom_kills():
    """OOM kills counted by the container's memory cgroup (v2, else v1); 0 if unknown."""
    for path in ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"):
        try:
            with open(path) as f:
                for line in f:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            pass
    return 0


def _read_request():
    """The header and code from stdin: (nonce, code bytes), already checked as UTF-8."""
    stdin = sys.stdin.buffer if sys.stdin is not None else None
    if stdin is None:
        _fail("no stdin (start the container with -i / OpenStdin)")
    header = stdin.readline(HEADER_MAX_BYTES)
    if not header:
        _fail("stdin closed before the header line")
    fields = header[:-1].split(b" ")
    nonce, lengths = fields[0], fields[1:]

    def number(digits, most):
        return (0 < len(digits) <= most and digits.isdigit()
                and (digits == b"0" or digits[:1] != b"0"))

    if not (header.endswith(b"\n") and len(nonce) == 32
            and all(c in b"0123456789abcdef" for c in nonce)
            and len(lengths) in (1, 2, 3) and number(lengths[0], 8)
            and (len(lengths) == 1 or number(lengths[1], 9))
            and (len(lengths) < 3 or lengths[2] == b"session")):
        _fail("bad header line %r (want '<32 lowercase hex nonce> <length> [<transfer length>"
              " [session]]\\n')" % header[:80])
    length = int(lengths[0])
    if length > MAX_CODE_BYTES:
        _fail("code length %d exceeds the limit of %d bytes" % (length, MAX_CODE_BYTES))
    data = stdin.read(length) if length else b""
    if len(data) != length:
        _fail("stdin closed after %d of %d code bytes" % (len(data), length))
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        _fail("code is not valid UTF-8: %s" % e)
    transfer = None
    if len(lengths) >= 2:
        size = int(lengths[1])
        if size > MAX_TRANSFER_BYTES:
            _fail("transfer length %d exceeds the limit of %d bytes" % (size, MAX_TRANSFER_BYTES))
        transfer = stdin.read(size) if size else b""
        if len(transfer) != size:
            _fail("stdin closed after %d of %d transfer bytes" % (len(transfer), size))
    return nonce, data, transfer, len(lengths) == 3


def supervise():
    supervisor = Supervisor()
    # The program's warm-up is the long part of a start: begin it first. Nothing runs in it
    # but the runner until the code arrives, after the shield is up.
    supervisor.start_program()
    supervisor.shield()
    # Imported now, while the program warms up, not on the run's path (where json's import
    # costs about 10 ms of CPU, many times that on a loaded host).
    import json  # noqa: F401
    oom_kills_before = _oom_kills()
    supervisor.wait_until_ready()
    supervisor.frame(b"R", b'{"protocol": 2, "runner": "python"}')
    nonce, code, transfer, session = _read_request()
    if session:
        supervisor.serve_session(nonce, code, transfer, oom_kills_before)
    collect, before, terms = _receive_files(transfer)
    supervisor.hand_over(b"1", code, terms)
    os.close(supervisor.code_w)
    supervisor.relay()
    if collect is not None:
        _send_outputs(supervisor.frame, collect, before)
    supervisor.finish(nonce, oom_kills_before)


# ------------------------------------------- files in and out (the supervisor)

def _receive_files(transfer, replace=False):
    """Write the files sent with the code into the work dir (a session's call may
    `replace` files an earlier call left); return what to collect at the end, the work
    dir's state once they are written (None, None without a transfer), and whether the
    snippet's own modules import (see 4 at the top)."""
    if transfer is None:
        return None, None, (True, True)
    import json
    line, _, data = transfer.partition(b"\n")
    try:
        manifest = json.loads(line)
        entries = [(str(f["path"]), int(f["size"])) for f in manifest["files"]]
        collect = {k: int(manifest["collect"][k])
                   for k in ("figures", "figure_bytes", "files", "file_bytes")}
        terms = (manifest.get("own_modules", True) is not False,
                 manifest.get("start_programs", True) is not False)
    except (ValueError, KeyError, TypeError) as e:
        _fail("unreadable transfer manifest: %s" % e)
    if sum(size for _, size in entries) != len(data):
        _fail("the transfer holds %d bytes of files, its manifest says %d"
              % (len(data), sum(size for _, size in entries)))
    view = memoryview(data)
    offset = 0
    for path, size in entries:
        parts = path.split("/")
        if path.startswith("/") or any(p in ("", ".", "..") for p in parts):
            _fail("input file path %r is not a plain relative path" % path)
        target = os.path.join(WORK_DIR, path)
        try:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW
                         | (os.O_TRUNC if replace else os.O_EXCL), 0o644)
            try:
                _write_all(fd, view[offset:offset + size])
            finally:
                os.close(fd)
        except OSError as e:
            if not replace:
                _fail("cannot write the input file %s: %s" % (path, e))
            raise InputFileError("cannot write the input file %s: %s" % (path, e.strerror or e))
        offset += size
    return collect, _work_dir_state(), terms


class InputFileError(Exception):
    """An input file a session's call cannot write (a directory of that name, a full work
    dir): the call is refused, the session kept."""


def _work_dir_state():
    """What identifies each file's version: path -> (inode, size, mtime in ns)."""
    state = {}
    for root, dirs, files in os.walk(WORK_DIR):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            path = os.path.join(root, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            state[path] = (st.st_ino, st.st_size, st.st_mtime_ns)
    return state


def _send_outputs(frame, collect, before):
    """Frame the figures, then the new or changed files of the work dir (see F above)."""
    import json

    def skip(kind, path, size, reason):
        frame(b"F", json.dumps({"kind": kind, "path": path, "size": size,
                                "skipped": reason}).encode())

    def send(kind, path, full, limit, over="size"):
        try:
            fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return skip(kind, path, None, "type")
        try:
            import stat
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return skip(kind, path, None, "type")
            if st.st_size > limit:
                return skip(kind, path, st.st_size, over)
            parts, size = [], 0
            while size <= limit:
                data = os.read(fd, TRANSFER_CHUNK)
                if not data:
                    break
                parts.append(data)
                size += len(data)
        finally:
            os.close(fd)
        if size > limit:
            return skip(kind, path, size, over)
        data = b"".join(parts)
        frame(b"F", json.dumps({"kind": kind, "path": path, "size": size}).encode())
        for start in range(0, size, TRANSFER_CHUNK):
            frame(b"D", data[start:start + TRANSFER_CHUNK])
        return size

    try:
        figures = sorted(n for n in os.listdir(FIGURE_DIR) if n.endswith(".png"))
    except OSError:
        figures = []
    for index, name in enumerate(figures):
        full = os.path.join(FIGURE_DIR, name)
        if index >= collect["figures"]:
            skip("figure", name, None, "count")
        else:
            send("figure", name, full, collect["figure_bytes"])
        try:
            os.unlink(full)  # a session's next call returns only its own figures
        except OSError:
            pass
    after = _work_dir_state()
    changed = sorted(p for p, version in after.items() if before.get(p) != version)
    sent, left = 0, collect["file_bytes"]
    for full in changed:
        try:
            path = os.path.relpath(full, WORK_DIR).encode("utf-8").decode("utf-8")
        except UnicodeError:
            skip("file", os.fsencode(os.path.relpath(full, WORK_DIR)).decode("utf-8", "replace"),
                 None, "name")
            continue
        if sent >= collect["files"]:
            skip("file", path, after[full][1], "count")
            continue
        if after[full][1] > left:
            skip("file", path, after[full][1], "total")
            continue
        size = send("file", path, full, left, "total")
        if size is not None:
            sent += 1
            left -= size


# --------------------------------------------------------- the program process

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


class _LibraryGuards:
    """Libraries that act on what data says, each narrowed as it loads (see `_GUARDS`):
    - matplotlib evaluates `axes.prop_cycle` text (rcParams, a style, a `matplotlibrc` in the
      work dir): read as `cycler(...)` calls of literals joined by `+` and `*` instead;
    - lxml's `iterparse` reads what external entities name: internal entities only;
    - matplotlib's backend registry imports any module a `module://` name gives: its own
      backends only;
    - pandas, scikit-learn and scipy answer attribute lookups from labels and keys, and
      pandas' accessors, logging's `extra=` and scipy's ODR output set attributes named by
      data: never a special (`__dunder__`) name;
    - scipy's `workers=` starts process pools: maps run in the snippet's own process;
    - logging's `{` style walks the attributes a format names: public names only;
    - joblib's caches unpickle files from a directory: caches keep none;
    - doctest runs the examples of any docstring: only those written in the snippet;
    - typing and inspect evaluate type text: only text that names types;
    - scipy's sparse matrices keep index arrays unchecked: copied and every index checked;
    - scipy's and matplotlib's native code trust the index arrays their objects hold (a
      sparse matrix's coordinates, a triangulation's triangles): handed out read-only, and
      their classes refuse subclasses whose ancestry replaces how instances are made.
    This finder lets each module load as usual, then puts its guard in place before anything
    uses it."""

    def find_spec(self, name, path, target=None):
        guard = _guard_of(name)
        if guard is None:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(name, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _GuardedLoader(spec.loader, guard)
                return spec
        return None


class _GuardedLoader:
    """A module's own loader, with its guard applied after the module runs."""

    def __init__(self, loader, guard):
        self._loader = loader
        self._guard = guard

    def __getattr__(self, name):
        return getattr(self._loader, name)

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        self._guard(module)


def _read_cycler_text_only(rcsetup):
    original = rcsetup.validate_cycler

    def validate_cycler(value):
        if isinstance(value, str):
            value = _cycler_from_text(value, rcsetup.cycler, rcsetup.Cycler)
        return original(value)

    rcsetup.validate_cycler = validate_cycler
    rcsetup._validators["axes.prop_cycle"] = validate_cycler


_HOOKS_REFUSED = "figure hooks import a module and call its code on every new figure: none run here"


def _no_figure_hook_settings(rcsetup):
    """matplotlib's `figure.hooks` setting names `module:function` pairs that `pyplot.figure`
    imports and calls with each new figure: any module, any function. Setting one is refused,
    whatever writes it (`rcParams[...]`, `rc`, `rc_context`, a style, a settings file)."""
    plain = rcsetup.validate_stringlist
    if "figure.hooks" not in rcsetup._validators:
        return  # a matplotlib before 3.7 has no figure hooks (and reads every validator's key)

    def validate_figure_hooks(value):
        hooks = plain(value)
        if hooks:
            raise ValueError(_HOOKS_REFUSED)
        return hooks

    rcsetup._validators["figure.hooks"] = validate_figure_hooks


def _no_figure_hooks(pyplot):
    """However the hooks reach `pyplot.figure` (stored past the validator, or an `rcParams`
    whose class or item lookup the snippet replaced), the figure imports nothing: an import
    asked for by `pyplot.figure` itself is refused where the import is made."""
    import importlib

    here = getattr(pyplot, "__file__", None)
    original = importlib.import_module

    def import_module(name, package=None):
        caller = sys._getframe(1).f_code
        if caller.co_name == "figure" and caller.co_filename == here:
            raise ValueError(_HOOKS_REFUSED)
        return original(name, package)

    # importlib's name and module, so what imports it (`from importlib import import_module`)
    # is still known for what it is; not the original itself (`__wrapped__`), which would
    # undo the refusal.
    functools.update_wrapper(import_module, original, updated=())
    del import_module.__wrapped__
    importlib.import_module = import_module


def _matplotlib_backends_only(registry):
    """matplotlib's backend registry imports the module a `module://name` backend names, any
    module at all (`backend_registry.load_backend_module("module://os")` is `os`): only
    matplotlib's own backends load."""
    registry_class = getattr(registry, "BackendRegistry", None)
    original = getattr(registry_class, "load_backend_module", None)
    if original is None:
        return

    def load_backend_module(self, backend):
        if (isinstance(backend, str) and backend.startswith("module://")
                and not backend[len("module://"):].startswith("matplotlib.")):
            raise ValueError("only matplotlib's own backends load here: %r" % (backend,))
        return original(self, backend)

    registry_class.load_backend_module = load_backend_module


def _internal_entities_only(etree):
    original = etree.iterparse

    @functools.wraps(original)
    def iterparse(*args, **kwargs):
        if kwargs.get("resolve_entities", True) is not False:  # a truthy 1 resolves all
            kwargs["resolve_entities"] = "internal"
        kwargs["no_network"] = True
        return original(*args, **kwargs)

    etree.iterparse = iterparse


def _may_name_special(key):
    """Whether an attribute name taken from data is, or may stand for, a special (`__dunder__`)
    one. Only an exact `str` is read as its text says: a subclass answers `startswith` as it
    likes, and any other object may equal the name numpy looks up (its own `__eq__` and
    `__hash__`), so neither is taken as a name at all."""
    return type(key) is not str or (str.startswith(key, "__") and str.endswith(key, "__"))


def _no_special_names_from_data(*classes):
    """pandas answers attribute lookups from its labels, and scikit-learn's `Bunch` and
    scipy's results from their keys: a label named `__array_interface__` made numpy build an
    array over any memory address. Special names never come from data."""

    def guard(module):
        for name in classes:
            cls = getattr(module, name, None)
            original = getattr(cls, "__getattr__", None)
            if original is None:
                continue

            def __getattr__(self, key, original=original):
                if _may_name_special(key):
                    raise AttributeError(key)
                return original(self, key)

            cls.__getattr__ = __getattr__

    return guard


def _one_process_map(util):
    """scipy's `workers=` (by keyword, position, splat or partial) reaches `MapWrapper`, which
    starts a multiprocessing pool for any count but 1: a container has a CPU or less, and its
    workers would be programs started outside the runner. Counts run in the snippet's own
    process; a map the snippet gives is called as it is."""
    wrapper = getattr(util, "MapWrapper", None)
    if wrapper is None:
        return
    original = wrapper.__init__

    @functools.wraps(original)
    def __init__(self, pool=1):
        original(self, pool if callable(pool) else 1)

    wrapper.__init__ = __init__


def _public_format_fields(logging):
    """logging's `{` style formats a record with `str.format`, whose fields walk attributes
    and items of what the record holds (`{msg.__globals__[os].environ}`): a format read from a
    file, or given to a subclass or a partial of `Formatter`, is out of the analyzer's sight.
    Its fields walk public names only, and never through a module (`{msg.parser.os.environ}`
    on a path reaches `os` by public names)."""
    import string
    import types
    from _string import formatter_field_name_split

    style = getattr(logging, "StrFormatStyle", None)
    if style is None:
        return

    class PublicFields(string.Formatter):
        def get_field(self, field_name, args, kwargs):
            first, rest = formatter_field_name_split(field_name)
            value = self.get_value(first, args, kwargs)
            for is_attribute, key in rest:
                if isinstance(value, types.ModuleType):
                    raise ValueError("a log format field may not walk a module")
                if isinstance(key, str) and key.startswith("_"):
                    raise ValueError("a log format field may not reach %r" % key)
                value = getattr(value, key) if is_attribute else value[key]
            if isinstance(value, types.ModuleType):
                raise ValueError("a log format field may not reach a module")
            return value, first

    fields = PublicFields()

    def _format(self, record):
        defaults = getattr(self, "_defaults", None)
        values = defaults | record.__dict__ if defaults else record.__dict__
        return fields.vformat(self._fmt, (), values)

    style._format = _format


def _no_special_extra(logging):
    """A log call's `extra=` becomes attributes of its record: a special (`__dunder__`) name
    from data (`__array_interface__`, which numpy reads as a memory address) never does."""
    original = logging.Logger.makeRecord

    def makeRecord(self, *args, **kwargs):
        extra = kwargs.get("extra", args[8] if len(args) > 8 else None)
        if extra is not None:
            # A plain copy, judged and passed on: the mapping given may list other keys each
            # time it is read.
            extra = dict(extra)
            for key in extra:
                if _may_name_special(key):
                    raise KeyError("a log record's extra attributes may not be special: %r"
                                   % key)
            if len(args) > 8:
                args = args[:8] + (extra,) + args[9:]
            else:
                kwargs["extra"] = extra
        return original(self, *args, **kwargs)

    logging.Logger.makeRecord = makeRecord


def _no_special_accessors(accessor):
    """pandas' accessor registration sets a class attribute of the name it is given: never a
    special (`__dunder__`) one from data."""
    original = getattr(accessor, "_register_accessor", None)
    if original is None:
        return

    def _register_accessor(name, cls):
        if _may_name_special(name):
            raise ValueError("an accessor may not be named like a special attribute: %r" % name)
        return original(name, cls)

    accessor._register_accessor = _register_accessor


def _each_init(classes, wrap):
    """A guard that gives each of the module's `classes` the `__init__` that `wrap(init)` makes
    of the one the class defines, with that one's name, documentation and signature."""

    def guard(module):
        for name in classes:
            cls = getattr(module, name, None)
            init = getattr(cls, "__dict__", {}).get("__init__")
            if init is not None:
                cls.__init__ = functools.wraps(init)(wrap(cls, init))

    return guard


def _checked_sparse_indices(*classes):
    """scipy's sparse matrices check only the shape of the index arrays they are built from,
    not that the indices lie inside the matrix, and keep the caller's arrays: indices out of
    range (given, or changed afterwards through the caller's array) make the native kernels
    read and write outside the arrays. Construction copies what it is given and checks every
    index. (The matrix's own `indices` and `indptr` are not for strict snippets to reach.)"""

    def wrap(cls, original):
        # The class's own check, whatever a subclass names `check_format`.
        check = cls.__dict__.get("check_format") or cls.__dict__.get("_check")

        def __init__(self, arg1, *args, **kwargs):
            if len(args) >= 3:  # shape, dtype, copy by position
                args = args[:2] + (True,) + args[3:]
            else:
                kwargs["copy"] = True
            original(self, arg1, *args, **kwargs)
            if check is not None and check.__name__ == "check_format":
                check(self, full_check=True)
            elif check is not None:  # COO's `_check`, whatever a subclass defines
                check(self)

        return __init__

    return _each_init(classes, wrap)


def _no_special_instance_names(*classes):
    """Classes that copy a mapping they are given into their attributes (scipy's ODR `Output`
    keeps its fourth item so): a special (`__dunder__`) name from data is refused."""

    def wrap(cls, original):
        def __init__(self, *args, **kwargs):
            original(self, *args, **kwargs)
            for key in list(vars(self)):
                if _may_name_special(key):
                    raise ValueError("an attribute may not be named by data: %r" % key)

        return __init__

    return _each_init(classes, wrap)


def _no_qhull_file_options(*classes):
    """Qhull's `T` options (`TI file`, `TO file`, the traces) open files in native code:
    `TI` reopens the process's standard input on any file, `TO` its output. scipy passes
    `qhull_options` to Qhull as written; a `T` anywhere in them is refused."""
    import inspect

    def wrap(cls, original):
        signature = inspect.signature(original)

        def __init__(self, *args, **kwargs):
            options = signature.bind(self, *args, **kwargs).arguments.get("qhull_options")
            if isinstance(options, (bytes, bytearray)):
                options = bytes(options).decode("latin-1")
            # Qhull reads on inside a word after a number (`C-0TI file`); no option but
            # these has a capital T.
            if isinstance(options, str) and "T" in options:
                raise ValueError("Qhull's T options open files and trace to the process's "
                                 "streams: leave them out (%r)" % options)
            original(self, *args, **kwargs)

        return __init__

    return _each_init(classes, wrap)


def _checked_lu_pivots(module):
    """LAPACK's `getrs` (behind `lu_solve`) swaps rows as the pivots it is given say, reading
    and writing wherever they point: pivots out of range (or fewer than the rows) swapped an
    array with memory anywhere in the process. They must be one index per row, each a row."""
    numpy = sys.modules.get("numpy")
    original = getattr(module, "lu_solve", None)
    if numpy is None or original is None:
        return

    @functools.wraps(original)
    def lu_solve(lu_and_piv, *args, **kwargs):
        lu, piv = lu_and_piv
        lu = numpy.asarray(lu)  # its own shape, not one an object claims
        rows = lu.shape[-1] if lu.ndim >= 2 else 0
        pivots = numpy.asarray(piv)
        # Integers only: LAPACK's interface casts anything else (objects, text, times) to
        # indices nobody checked.
        if (pivots.dtype.kind not in "iu" or pivots.shape[-1:] != (rows,)
                or pivots.size and (pivots.min() < 0 or pivots.max() >= rows)):
            raise ValueError("lu_solve: the pivots must be integers, one row index (0 to %d) "
                             "per row" % (rows - 1))
        return original((lu, pivots), *args, **kwargs)

    module.lu_solve = lu_solve


# SuperLU's options a factorization may be given: `Fact` (reuse factors that were never
# made) and the rest are for SuperLU's own driver, which reads them unchecked.
_SUPERLU_OPTIONS = frozenset({
    "Equil", "ColPerm", "DiagPivotThresh", "IterRefine", "PivotGrowth", "ConditionNumber",
    "SymmetricMode", "RowPerm", "PrintStat", "ILU_DropTol", "ILU_FillFactor", "ILU_DropRule",
    "ILU_MILU", "ILU_FillTol",
})


class _Factors:
    """A SuperLU factorization as the snippet holds it: its row and column permutations (which
    `solve` follows into the factors unchecked) reach it as copies, and it sets nothing."""

    __slots__ = ("_factors",)

    def __init__(self, factors):
        object.__setattr__(self, "_factors", factors)

    def __getattr__(self, name):
        value = getattr(object.__getattribute__(self, "_factors"), name)
        return value.copy() if name in ("perm_c", "perm_r") else value

    def __setattr__(self, name, value):
        raise AttributeError("a factorization is read, not changed: %r" % name)

    def __repr__(self):
        return repr(object.__getattribute__(self, "_factors"))


def _superlu_checked(module):
    """`splu` and `spilu` take only the options of `_SUPERLU_OPTIONS` (`Fact="FACTORED"` made
    SuperLU use factors that were never computed: a crash) and give a `_Factors`; they and
    `spsolve` take only the column orderings SuperLU computes itself (`MY_PERMC` reads one
    nobody gave)."""
    import inspect

    orderings = (None, "NATURAL", "MMD_ATA", "MMD_AT_PLUS_A", "COLAMD")
    original_solve = getattr(module, "spsolve", None)
    if original_solve is not None:
        solve_signature = inspect.signature(original_solve)

        @functools.wraps(original_solve)
        def spsolve(*args, **kwargs):
            if solve_signature.bind(*args, **kwargs).arguments.get("permc_spec") not in orderings:
                raise ValueError("permc_spec must be one of %r" % (orderings[1:],))
            return original_solve(*args, **kwargs)

        module.spsolve = spsolve

    for name in ("splu", "spilu"):
        original = getattr(module, name, None)
        if original is None:
            continue
        signature = inspect.signature(original)

        @functools.wraps(original)
        def factorize(*args, original=original, signature=signature, **kwargs):
            bound = signature.bind(*args, **kwargs)
            given = bound.arguments
            if given.get("permc_spec") not in orderings:
                raise ValueError("permc_spec must be one of %r" % (orderings[1:],))
            # The options SuperLU's C code will read: a plain dict of the mapping's own items
            # (a dict subclass may show other keys to Python than its storage holds).
            options = given.get("options") or {}
            keys = dict.keys(options) if isinstance(options, dict) else dict(options).keys()
            items = {k: (dict.__getitem__(options, k) if isinstance(options, dict)
                         else options[k]) for k in list(keys)}
            unknown = sorted(repr(k) for k in items
                             if type(k) is not str or k not in _SUPERLU_OPTIONS)
            if unknown:
                raise ValueError("SuperLU options not taken here: %s" % ", ".join(unknown))
            if "ColPerm" in items and str(items["ColPerm"]) not in orderings:
                raise ValueError("ColPerm must be one of %r" % (orderings[1:],))
            if "ColPerm" in items:
                items["ColPerm"] = str(items["ColPerm"])
            given["options"] = items
            return _Factors(original(*bound.args, **bound.kwargs))

        setattr(module, name, factorize)


def _shaped_distance_arguments(module):
    """`cdist` and `pdist` hand a metric's weights (`w`), variances (`V`) and inverse
    covariance (`VI`) to compiled loops that read them by the points' dimension, unchecked:
    `VI=np.eye(1)` for 4,000 columns read far past it (a crash). Each must fit the points."""
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return
    for name in ("cdist", "pdist"):
        original = getattr(module, name, None)
        if original is None:
            continue

        # Each is checked, and passed on, as the array numpy makes of it (an object's own
        # `shape` says nothing of what it holds).
        @functools.wraps(original)
        def distances(points, *args, original=original, **kwargs):
            points = numpy.asarray(points)
            columns = points.shape[-1] if points.ndim == 2 else None
            for key, shape in (("VI", (columns, columns)), ("V", (columns,)), ("w", (columns,))):
                if kwargs.get(key) is not None:
                    kwargs[key] = numpy.asarray(kwargs[key])
                    if kwargs[key].shape != shape:
                        raise ValueError("%s must have the shape %r for these points"
                                         % (key, shape))
            return original(points, *args, **kwargs)

        setattr(module, name, distances)


def _shaped_cluster_criteria(module):
    """`fcluster`'s `monocrit` and inconsistency matrix `R` are read once per merge of the
    linkage by compiled code, unchecked: one value (or row of four) per merge, checked and
    passed on as the arrays numpy makes of them."""
    numpy = sys.modules.get("numpy")
    original = getattr(module, "fcluster", None)
    if numpy is None or original is None:
        return
    import inspect

    signature = inspect.signature(original)

    @functools.wraps(original)
    def fcluster(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        given = bound.arguments
        merges = numpy.asarray(given["Z"]).shape[0]
        for key, shape in (("monocrit", (merges,)), ("R", (merges, 4))):
            if given.get(key) is not None:
                given[key] = numpy.asarray(given[key])
                if given[key].shape != shape:
                    raise ValueError("%s must have the shape %r for this linkage" % (key, shape))
        return original(*bound.args, **bound.kwargs)

    module.fcluster = fcluster


class _ReadOnlyMemory:
    """What numpy builds a read-only array over (`__array_interface__`, its data flagged
    read-only): numpy never lets that array be made writable again, since this object exports
    no writable buffer, and the array it views is kept under a private name the strict policy
    never lets a snippet reach (a view's `base` would lead back to the writable array)."""

    __slots__ = ("__array_interface__", "_viewed")

    def __init__(self, array):
        interface = dict(array.__array_interface__)
        interface["data"] = (interface["data"][0], True)
        self.__array_interface__ = interface
        self._viewed = array


def _read_only(value, numpy):
    """`value` as code outside the library may see it: integer arrays (and tuples of them)
    as read-only views of the same memory, anything else as it is."""
    if isinstance(value, numpy.ndarray):
        return numpy.asarray(_ReadOnlyMemory(value)) if value.dtype.kind in "iu" else value
    if isinstance(value, tuple) and any(isinstance(item, numpy.ndarray) for item in value):
        return tuple(_read_only(item, numpy) for item in value)
    return value


def _framed(method):
    """A compiled library's method, given a frame here: compiled code has none of its own, so
    what it sets on its objects would look set by the code that called it."""
    def _in_compiled_library(*args, **kwargs):
        return method(*args, **kwargs)
    if method is None:
        return _in_compiled_library
    # The method's name, documentation and signature (`inspect.signature` follows
    # `__wrapped__`), so that `help()` and code reading a signature see the library's own.
    return functools.update_wrapper(_in_compiled_library, method)


_IN_COMPILED_LIBRARY = _framed(None).__code__
# What a compiled class's own machinery and the guards above define, left as they are.
_UNFRAMED = frozenset({"__new__", "__init_subclass__", "__setattr__", "__getattribute__",
                       "__class_getitem__"})


def _frame_compiled_methods(cls):
    """Each method a compiled module's class defines runs inside a frame of `_framed`, so that
    `_checked_replacements` tells its stores from the snippet's."""
    for name, value in list(cls.__dict__.items()):
        if (name in _UNFRAMED or isinstance(value, (type, staticmethod, classmethod, property))
                or not callable(value) or type(value) is _FunctionType):
            continue
        try:
            setattr(cls, name, _framed(value))
        except (TypeError, AttributeError):
            pass


def _check_replacement(obj, key, value, numpy):
    """What an object of a native-array class holds, replaced from outside its library: an
    integer (a spline's degree) or integer arrays (indices) never, since the native code would
    trust values nobody checked; another array (a sparse matrix's `data`) only by a numeric
    array of the same shape, since the kernels read as many items as the indices say."""
    try:
        current = object.__getattribute__(obj, key)
    except AttributeError:
        return
    arrays = current if isinstance(current, tuple) else (current,)
    if (isinstance(current, (int, numpy.integer)) and not isinstance(current, bool)
            or any(isinstance(a, numpy.ndarray) and a.dtype.kind in "iu" for a in arrays)):
        raise ValueError(_KEPT % (type(obj).__name__, key))
    if isinstance(current, numpy.ndarray) and not (
            isinstance(value, numpy.ndarray) and value.shape == current.shape
            and value.dtype.kind in "biufc"):
        raise ValueError("%s.%s may be replaced only by a numeric array of shape %r"
                         % (type(obj).__name__, key, current.shape))


_KEPT = "%s.%s is what its native code trusts: build a new object instead"


def _checked_replacements(cls, numpy):
    """`cls` (a class whose native code trusts what its objects hold) checks each public
    attribute that code outside the installed libraries (the snippet's) replaces (see
    `_check_replacement`), by plain assignment, `setattr` or a property; the libraries' own
    code sets what it likes. Such code may not delete a public attribute either (an absent one
    would then take anything). Once per hierarchy: a subclass inherits the check unless it
    defines its own `__setattr__`."""
    original = cls.__setattr__
    if getattr(original, "_checks_replacements", False):
        return
    original_delete = cls.__delattr__

    def from_outside(key):
        caller = sys._getframe(2).f_code
        return (key[:1] != "_" and caller is not _IN_COMPILED_LIBRARY
                and not caller.co_filename.startswith(_installed_roots()))

    def __setattr__(self, key, value):
        if from_outside(key):
            _check_replacement(self, key, value, numpy)
        original(self, key, value)

    def __delattr__(self, key):
        if from_outside(key):
            raise ValueError(_KEPT % (type(self).__name__, key))
        original_delete(self, key)

    __setattr__._checks_replacements = True
    try:
        cls.__setattr__ = __setattr__
        cls.__delattr__ = __delattr__
    except TypeError:
        pass  # a compiled class, whose attributes its own code checks


def _index_arrays_read_only(*classes):
    """scipy's native kernels trust the index arrays its objects hold (a sparse matrix's
    coordinates, a triangulation's simplices and neighbours), as matplotlib's trust a
    `Triangulation`'s triangles, without checking them again: changed in place after the
    object checked them, they make the kernels read and write outside the arrays they index.
    Code outside the owning library (the snippet, and any other library's code, which could
    hand the array back) sees an object's public integer arrays as read-only views of the same
    memory (and may not replace them: see `_checked_replacements`); the library's own code,
    which updates them in place, sees them as they are. (Its
    compiled code has no frame of its own: reached from a snippet, it reads views too, which is
    all it does with them.)"""

    def guard(module):
        numpy = sys.modules.get("numpy")
        package = sys.modules.get(module.__name__.partition(".")[0])
        if numpy is None or getattr(package, "__file__", None) is None:
            return
        library = os.path.dirname(package.__file__) + os.sep
        for name in classes:
            cls = getattr(module, name, None)
            if cls is None:
                continue

            def __getattribute__(self, key, original=cls.__getattribute__):
                value = original(self, key)
                if key[:1] == "_" or sys._getframe(1).f_code.co_filename.startswith(library):
                    return value
                return _read_only(value, numpy)

            cls.__getattribute__ = __getattribute__

    return guard


def _fitted_state_checked(base):
    """A scikit-learn estimator's fitted state (its public names ending in `_`: an SVM's
    `support_`, a tree's `tree_`) is what its compiled code trusts when it predicts, without
    checking it again. Code outside the installed libraries (the snippet's) sees a library
    estimator's fitted integer arrays as read-only views, may replace its fitted state only
    as `_check_replacement` allows (never an integer or an index array; another array only by
    one of the same shape), and may neither add fitted state nor delete it. Estimators the snippet writes on scikit-learn's bases and mixins
    alone keep their own state as they like."""
    numpy = sys.modules.get("numpy")
    cls = getattr(base, "BaseEstimator", None)
    if numpy is None or cls is None:
        return
    library_kinds = {}

    def checked(obj, key):
        if key[:1] == "_" or key[-1:] != "_":
            return False
        kind = type(obj)
        if kind not in library_kinds:
            library_kinds[kind] = any(
                (c.__dict__.get("__module__") or "").startswith("sklearn.")
                and not c.__dict__["__module__"].startswith(("sklearn.base", "sklearn.utils"))
                for c in kind.__mro__)
        if not library_kinds[kind]:
            return False
        caller = sys._getframe(2).f_code
        return (caller is not _IN_COMPILED_LIBRARY
                and not caller.co_filename.startswith(_installed_roots()))

    original_set = cls.__setattr__
    original_get = cls.__getattribute__
    original_delete = cls.__delattr__

    def __setattr__(self, key, value):
        if checked(self, key):
            if key not in original_get(self, "__dict__"):
                raise ValueError("%s.%s is set by fitting: fit the estimator instead"
                                 % (type(self).__name__, key))
            _check_replacement(self, key, value, numpy)
        original_set(self, key, value)

    def __delattr__(self, key):
        if checked(self, key):
            raise ValueError(_KEPT % (type(self).__name__, key))
        original_delete(self, key)

    def __getattribute__(self, key):
        value = original_get(self, key)
        return _read_only(value, numpy) if checked(self, key) else value

    cls.__setattr__ = __setattr__
    cls.__getattribute__ = __getattribute__
    cls.__delattr__ = __delattr__


# Packages whose Python classes hold arrays their native code reads unchecked (the
# analyzer's list of the same name, in src/analysis/python/special_definitions.rs, also has
# scikit-learn's trees, whose arrays live in compiled classes no hook reaches: its estimators
# stay open to subclasses with their own `__init__`, as scikit-learn expects).
_NATIVE_ARRAY_PACKAGES = ("scipy.sparse.", "scipy.interpolate.", "scipy.spatial.",
                          "scipy.ndimage.", "scipy.odr.", "matplotlib.tri.")

# Names a class from outside the library may carry into the ancestry of one of its
# native-array classes: those the interpreter writes itself, and the two the analyzer allows.
_PLAIN_CLASS_NAMES = frozenset({
    "__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__firstlineno__",
    "__static_attributes__", "__orig_bases__", "__parameters__", "__type_params__",
    "__annotations__", "__annotate__", "__abstractmethods__", "_abc_impl", "__repr__",
    "__str__",
})

# Modules whose classes are plain mixins in any ancestry.
_PLAIN_BASE_MODULES = frozenset({"builtins", "abc", "typing", "collections.abc",
                                 "_collections_abc"})


def _is_native_array_module(name):
    return (name + ".").startswith(_NATIVE_ARRAY_PACKAGES)


def _library_subclasses_only(module):
    """A subclass of a class whose native code trusts the arrays it holds may not replace how
    instances are made or checked: a class of the snippet's own in its ancestry that defines
    `__init__`, `__new__` or a private check builds one the native code reads past the ends
    of. However the class is made (`class`, `type(...)`, a metaclass, `make_dataclass`,
    `partial(type)`), each class of the module refuses it (see `_refuse_foreign_ancestry`), and
    checks what code outside the library replaces on its objects (see `_checked_replacements`).
    Classes the installed libraries define are theirs to derive (scikit-learn derives scipy's
    `LinearOperator`); which other library's class may join an ancestry is the analyzer's
    judgement."""
    numpy = sys.modules.get("numpy")
    compiled = not (getattr(module, "__file__", None) or "").endswith(".py")
    for value in list(vars(module).values()):
        if isinstance(value, type) and value.__dict__.get("__module__") == module.__name__:
            _refuse_foreign_ancestry(value)
            if numpy is not None:
                if compiled:
                    _frame_compiled_methods(value)
                _checked_replacements(value, numpy)


_INSTALLED = []  # the directories of installed modules (sys.path's, the work dir and /tmp aside)


def _installed_roots():
    if not _INSTALLED:
        # the snippet's classes are this file's `__main__`'s: its directory is no library's
        own = (WORK_DIR + os.sep, "/tmp" + os.sep, os.path.dirname(_RUNNER) + os.sep)
        _INSTALLED.extend(sorted({os.path.realpath(p) + os.sep for p in sys.path
                                  if p and os.path.isabs(p) and os.path.isdir(p)
                                  and not (os.path.realpath(p) + os.sep).startswith(own)}))
    return tuple(_INSTALLED)


def _owned_by(cls, roots):
    """True for a class an installed library (or a plain mixin's module) defined: its module's
    file is installed, and so is the code of every function it defines (a snippet's class
    naming a library module as its `__module__` still has its methods' code)."""
    # a compiled class keeps its module in its name, not in its namespace
    name = cls.__dict__.get("__module__") or _module_of_type(cls, type)
    if name in _PLAIN_BASE_MODULES:
        return True
    module_file = getattr(sys.modules.get(name), "__file__", None) or ""
    if not module_file.startswith(roots):
        return False
    for value in cls.__dict__.values():
        for function in (getattr(value, "__func__", value), getattr(value, "fget", None),
                         getattr(value, "fset", None), getattr(value, "fdel", None)):
            if (type(function) is _FunctionType
                    and not function.__code__.co_filename.startswith(roots + (_RUNNER,))):
                return False
    return True


_module_of_type = type.__dict__["__module__"].__get__
_FunctionType = type(_owned_by)  # compiled libraries' own functions are of other types
_RUNNER = _owned_by.__code__.co_filename  # this file's guards, put in the library's classes


def _refuse_foreign_ancestry(cls):
    """`cls` refuses such a subclass when it is made (its `__init_subclass__`: a class of the
    snippet's own defining `__new__` is caught here, before it could skip the next check) and
    when an instance is made (its `__new__`: what was added to a class after it was made,
    as `make_dataclass` adds `__init__`)."""
    inherited = cls.__dict__.get("__init_subclass__")

    def __init_subclass__(sub, **kwargs):
        _check_ancestry(sub, cls)
        if inherited is not None:
            inherited.__get__(None, sub)(**kwargs)
        else:
            super(cls, sub).__init_subclass__(**kwargs)

    def __new__(klass, *args, **kwargs):
        if klass not in _LIBRARY_ANCESTRIES:
            _check_ancestry(klass, cls)
        return object.__new__(klass)

    # `inspect.signature(cls)` reads a class's own `__new__` first: it follows this one to
    # the class's `__init__`, and so shows the parameters the class takes.
    functools.update_wrapper(__new__, cls.__init__, assigned=(), updated=())
    try:
        cls.__init_subclass__ = classmethod(__init_subclass__)
        if cls.__new__ is object.__new__:  # a class making its own instances keeps its way
            cls.__new__ = __new__
    except (TypeError, AttributeError):
        pass  # a compiled class: its subclasses' layout is its own


_LIBRARY_ANCESTRIES = set()  # classes whose every ancestor an installed library holds


def _check_ancestry(sub, cls):
    settled = True
    roots = _installed_roots()
    for ancestor in sub.__mro__:
        if _owned_by(ancestor, roots):
            # a class only being made (`__module__` is its maker's until it is named) may
            # still be given methods: only a class its module holds is settled
            settled = settled and _held_by_its_module(ancestor)
            continue
        settled = False
        for name, value in ancestor.__dict__.items():
            # a private or special name replaces how instances are made or checked; anything
            # but a plain method (a property, a class attribute) answers for the arrays the
            # native code reads, found before the instance's own
            if name in _PLAIN_CLASS_NAMES or name[:1] != "_" and type(value) is _FunctionType:
                continue
            raise TypeError(
                "%s, a subclass of %s.%s, has %s.%s in its ancestry, which defines %r: "
                "its native code trusts the arrays that making and checking an instance "
                "ensures, so a class of your own may add plain methods only; use the class "
                "itself, held in a class of your own"
                % (sub.__qualname__, cls.__module__, cls.__qualname__,
                   ancestor.__module__, ancestor.__qualname__, name))
    if settled:
        _LIBRARY_ANCESTRIES.add(sub)


def _held_by_its_module(cls):
    held = sys.modules.get(_module_of_type(cls, type))
    for part in cls.__qualname__.split("."):
        held = getattr(held, part, None)
    return held is cls


def _no_cache_directory(memory):
    """joblib's `Memory` (scikit-learn's `memory=`, by keyword, splat or parameter grid)
    unpickles its entries from the directory it is given, where the snippet can write any
    file: a cache runs without one (every call computes, nothing is stored)."""
    cls = getattr(memory, "Memory", None)
    if cls is None:
        return
    original = cls.__init__

    @functools.wraps(original)
    def __init__(self, location=None, *args, **kwargs):
        original(self, None, *args, **kwargs)

    cls.__init__ = __init__


_SOURCES = []  # the text of every snippet this process ran (a session's calls, in order)


def _written_docstrings():
    """The docstrings written in the snippet's own text (module, class and function ones, as
    CPython reads them; indentation made uniform): the only docstrings whose examples the
    analyzer read."""
    import ast

    found = set()
    for source in _SOURCES:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                 ast.AsyncFunctionDef)) and node.body:
                first = node.body[0]
                if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                        and isinstance(first.value.value, str)):
                    found.add(_cleandoc(first.value.value))
    return found


def _cleandoc(text):
    """A docstring with its indentation made uniform, as compilers since 3.13 store it."""
    import inspect
    return inspect.cleandoc(text)


def _written_examples_only(doctest):
    """doctest runs the examples of whatever docstring an object has: one made from data (a
    property's or `np.vectorize`'s `doc` by position, a file's text, a copied `__doc__`) is
    code the analyzer never read. Every doctest route ends in the runner's private `__run`,
    which here runs only a docstring written in the snippet's text."""
    runner = getattr(doctest, "DocTestRunner", None)
    original = getattr(runner, "_DocTestRunner__run", None)
    if original is None:
        return

    def run(self, test, *args, **kwargs):
        docstring = test.docstring or ""
        # an exact str only: a subclass's `expandtabs` could answer with a written docstring
        if test.examples and (type(docstring) is not str
                              or _cleandoc(docstring) not in _written_docstrings()):
            raise ValueError(
                "doctest runs only the examples of docstrings written in the snippet; %s's "
                "docstring was made at run time" % test.name)
        return original(self, test, *args, **kwargs)

    runner._DocTestRunner__run = run


def _is_type_text(text):
    """True for text that only names types: names and attributes (none private), subscripts,
    tuples and lists of them, constants and `|`. Evaluating it calls nothing the snippet did
    not write itself (a class's own `__class_getitem__` is code the analyzer read)."""
    import ast

    if type(text) is not str:
        return False
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not node.id.startswith("_"):
            continue
        if isinstance(node, ast.Attribute) and not node.attr.startswith("_"):
            continue
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            continue
        if not isinstance(node, (ast.Expression, ast.Subscript, ast.Tuple, ast.List,
                                 ast.Constant, ast.Starred, ast.Load, ast.BitOr)):
            return False
    return True


def _refuse_code_in_type_text(text):
    if not _is_type_text(text):
        raise TypeError("a type's text may only name types (no calls, no private names): %r"
                        % (text,))


def _type_text_only(module):
    """`typing.get_type_hints` (and whatever evaluates a `ForwardRef`) runs a type's text as
    code: a field type of `NamedTuple("N", [("a", text)])`, or `List[text]`, built at run time
    is code the analyzer never read. A forward reference is evaluated only when its text names
    types (see `_is_type_text`). Guards `typing` and, from Python 3.14, `annotationlib`, where
    `ForwardRef` moved; each wraps the methods its own module defines (`_evaluate` up to 3.13,
    `evaluate` from 3.14) and its `get_annotations`."""
    forward_ref = getattr(module, "ForwardRef", None)
    if forward_ref is not None and forward_ref.__module__ == module.__name__:
        for method in ("_evaluate", "evaluate"):
            original = vars(forward_ref).get(method)
            if original is not None:
                setattr(forward_ref, method, _checking_forward_ref(original))
    _annotation_text_only(module)


def _checking_forward_ref(original):
    def evaluate(self, *args, **kwargs):
        _refuse_code_in_type_text(self.__forward_arg__)
        return original(self, *args, **kwargs)

    return evaluate


def _annotation_text_only(module):
    """`get_annotations(obj, eval_str=True)` (in `inspect`, and from Python 3.14 in
    `annotationlib`, which `inspect` re-exports) evaluates string annotations as code: the
    same rule as typing's forward references. A module that already holds a checked function
    keeps it; every keyword (3.14 adds `format=`) passes through."""
    original = getattr(module, "get_annotations", None)
    if original is None or getattr(original, "_checks_type_text", False):
        return

    @functools.wraps(original)
    def get_annotations(obj, *, eval_str=False, **kwargs):
        if eval_str:
            plain = {k: v for k, v in kwargs.items() if k not in ("globals", "locals")}
            for value in original(obj, **plain).values():
                if isinstance(value, str):
                    _refuse_code_in_type_text(value)
        return original(obj, eval_str=eval_str, **kwargs)

    get_annotations._checks_type_text = True
    module.get_annotations = get_annotations


# Where a font file may come from: the work dir, /tmp, and the system's fonts (matplotlib's
# own are under its package, an installed root).
_FONT_DIRS = (WORK_DIR + os.sep, "/tmp" + os.sep, "/usr/share/fonts" + os.sep,
              "/usr/share/matplotlib" + os.sep)


def _fonts_from_known_places(font_manager):
    """FreeType opens whatever file a font is given, and its errors tell whether the file
    exists and how long it is, for any path: a font's file (`FontProperties(fname=...)`,
    `set_file`, a font pattern's `file=`, a mapping of font properties, `get_font`) must be in
    the work dir, /tmp, the system's fonts or an installed package."""

    def checked(path):
        if path is None:
            return path
        real = os.path.realpath(os.fsdecode(os.fspath(path)))
        if not (real + os.sep).startswith(_FONT_DIRS + _installed_roots()):
            raise ValueError("a font file must be in /work, /tmp or the system's fonts: %r"
                             % os.fspath(path))
        return path

    cls = getattr(font_manager, "FontProperties", None)
    set_file = getattr(cls, "set_file", None)
    if set_file is not None:
        @functools.wraps(set_file)
        def set_file_checked(self, file, original=set_file):
            return original(self, checked(file))
        cls.set_file = set_file_checked
    get_font = getattr(font_manager, "get_font", None)
    if get_font is not None:
        @functools.wraps(get_font)
        def get_font_checked(font_filepaths, *args, original=get_font, **kwargs):
            paths = ([font_filepaths] if isinstance(font_filepaths, (str, bytes, os.PathLike))
                     else list(font_filepaths))
            for path in paths:
                checked(path)
            return original(font_filepaths, *args, **kwargs)
        font_manager.get_font = get_font_checked


def _all_of(*guards):
    def guard(module):
        for each in guards:
            each(module)
    return guard


_GUARDS = {
    "matplotlib.pyplot": _no_figure_hooks,
    "matplotlib.rcsetup": _all_of(_read_cycler_text_only, _no_figure_hook_settings),
    "matplotlib.backends.registry": _matplotlib_backends_only,
    "matplotlib.font_manager": _fonts_from_known_places,
    "lxml.etree": _internal_entities_only,
    "pandas.core.generic": _no_special_names_from_data("NDFrame"),
    "sklearn.utils._bunch": _no_special_names_from_data("Bunch"),
    "scipy._lib._util": _all_of(_no_special_names_from_data("_RichResult"), _one_process_map),
    "logging": _all_of(_public_format_fields, _no_special_extra),
    "pandas.core.accessor": _no_special_accessors,
    "joblib.memory": _no_cache_directory,
    "sklearn.base": _fitted_state_checked,
    "doctest": _written_examples_only,
    "typing": _type_text_only,
    "annotationlib": _type_text_only,
    "inspect": _annotation_text_only,
    "scipy.sparse._compressed": _checked_sparse_indices("_cs_matrix"),
    "scipy.sparse._bsr": _checked_sparse_indices("_bsr_base"),
    "scipy.sparse._coo": _checked_sparse_indices("_coo_base"),
    "scipy.odr._odrpack": _no_special_instance_names("Output"),
    "scipy.linalg._decomp_lu": _checked_lu_pivots,
    "scipy.spatial.distance": _shaped_distance_arguments,
    "scipy.cluster.hierarchy": _shaped_cluster_criteria,
    "scipy.sparse.linalg._dsolve.linsolve": _superlu_checked,
    "scipy.sparse._base": _index_arrays_read_only("_spbase"),
    "scipy.spatial._qhull": _all_of(
        _index_arrays_read_only("_QhullUser"),
        _no_qhull_file_options("ConvexHull", "Delaunay", "Voronoi", "HalfspaceIntersection")),
    "scipy.spatial._kdtree": _index_arrays_read_only("KDTree"),
    "matplotlib.tri._triangulation": _index_arrays_read_only("Triangulation"),
}


def _guard_of(name):
    """The guard of the module `name`: its own, and for a module of a native-array package
    the refusal of subclasses whose ancestry replaces how instances are made."""
    guard = _GUARDS.get(name)
    if not _is_native_array_module(name):
        return guard
    if guard is None:
        return _library_subclasses_only
    return _all_of(guard, _library_subclasses_only)


def _guard_linecache():
    """Tracebacks, warnings and `inspect` show source lines through linecache, from whatever
    file name a frame, a code object or a warning gives, and the snippet can make all three
    (a fake traceback's `tb_frame.f_code.co_filename`, `warn_explicit(filename=...)`). Lines
    are read only from files below the module path's directories, the work dir and /tmp (by
    their real path: a link out is refused), never from a relative name that climbs."""
    import linecache
    roots = tuple(sorted({os.path.realpath(p) + os.sep for p in sys.path
                          if p and os.path.isabs(p) and os.path.isdir(p)}
                         | {WORK_DIR + os.sep, "/tmp" + os.sep}))
    original = linecache.updatecache

    def updatecache(filename, module_globals=None):
        if filename and not (filename.startswith("<") and filename.endswith(">")):
            if ".." in filename.split(os.sep):
                return []
            try:
                # where the name is read first (a relative one, from the working dir; then,
                # if absent, along sys.path, whose directories are all allowed)
                real = os.path.realpath(os.path.join(os.getcwd(), filename))
                if os.path.exists(real) and not real.startswith(roots):
                    return []
            except (OSError, ValueError):
                return []
        return original(filename, module_globals)

    linecache.updatecache = updatecache


def _cycler_from_text(text, cycler, cycler_type):
    """The cycler `text` writes as `cycler(...)` calls of literals joined by `+` and `*`;
    ValueError for anything else."""
    import ast
    import operator

    def argument(node):
        try:
            return ast.literal_eval(node)
        except ValueError:
            return build(node)

    def build(node):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "cycler" and all(k.arg for k in node.keywords)):
            return cycler(*[argument(a) for a in node.args],
                          **{k.arg: argument(k.value) for k in node.keywords})
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult)):
            left, right = argument(node.left), argument(node.right)
            if isinstance(left, cycler_type) or isinstance(right, cycler_type):
                return (operator.add if isinstance(node.op, ast.Add) else operator.mul)(left, right)
        raise ValueError("the sandbox reads cycler text only as cycler(...) calls of "
                         "literals joined by + and *")

    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        raise ValueError("%r is not a cycler: %s" % (text, e)) from None
    return build(tree.body)


def _warm_up(bake=False):
    """Import the heavy libraries of this container's class (and render once) before any
    code arrives."""
    _prepare_matplotlib_dir(bake)
    os.environ.setdefault("MPLBACKEND", "Agg")
    preload = "full" if bake else os.environ.get("SANDBOX_PRELOAD", "full")
    # What running and reporting the snippet imports, even in a light runner: linecache
    # alone costs about 16 ms of CPU, which would otherwise be on every run's path.
    import atexit, linecache, traceback, types  # noqa: E401, F401
    if preload == "light":
        return
    try:
        import numpy  # noqa: F401
        import pandas  # noqa: F401
        # matplotlib reads its settings when first imported: from `matplotlibrc` in the
        # working directory (the work dir, where input files land) and in its config dir
        # (writable), and a settings file's `axes.prop_cycle` is evaluated as Python. pandas
        # imports it when code plots, so a runner with pandas imports it (and its styles)
        # now, before any file or code arrives.
        import matplotlib
        import matplotlib.style  # noqa: F401
        if preload == "data":
            return
    except ImportError:
        return  # an image without them (a team's own, or a slim one): nothing to warm up
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    # The first draw loads FreeType, the DejaVu font and the PNG writer.
    fig = plt.figure(figsize=(1, 1), dpi=20)
    fig.text(0.5, 0.5, "warm")
    fig.savefig(io.BytesIO(), format="png")
    plt.close(fig)


class _Figures:
    """The program's figures as PNG files in FIGURE_DIR, numbered in the order drawn:
    those passed to plt.show() (which then closes them, as a notebook does) and, at the
    end, those still open. plt.show() never blocks: the backend is Agg."""

    def __init__(self, pyplot):
        from matplotlib import _pylab_helpers
        self._pyplot = pyplot
        self._managers = _pylab_helpers.Gcf
        self._count = 0
        pyplot.show = self.show

    def show(self, *args, **kwargs):
        self.save(close=True)

    def save(self, close=False):
        managers = sorted(self._managers.get_all_fig_managers(), key=lambda m: m.num)
        for manager in managers:
            figure = manager.canvas.figure
            self._count += 1
            try:
                os.makedirs(FIGURE_DIR, mode=0o700, exist_ok=True)
                figure.savefig(os.path.join(FIGURE_DIR, "%04d.png" % self._count), format="png")
            except Exception as e:
                sys.stderr.write("runner: figure %d could not be drawn: %s\n" % (manager.num, e))
            if close:
                self._pyplot.close(figure)


_figures = None


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


_runner_globals = globals()


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


def _run(source, module=None, filename=SNIPPET, own_modules=True):
    """Runs `source` in `module` (a session's, kept across calls), or in a fresh __main__
    (with the work dir last on its sys.path when `own_modules`)."""
    import linecache

    if module is None:
        import builtins
        import types
        module = types.ModuleType("__main__")
        module.__dict__["__builtins__"] = builtins
        sys.modules["__main__"] = module
        sys.argv = [SNIPPET]
        if sys.path and sys.path[0] == RUNNER_DIR:
            del sys.path[0]
        if own_modules:
            sys.path.append("")  # last: see 4 at the top
    _SOURCES.append(source)
    # Tracebacks show the snippet's lines (mtime None: never invalidated).
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)

    try:
        code = compile(source, filename, "exec", dont_inherit=True)
        exec(code, module.__dict__)
        status = 0
    except SystemExit as exc:
        status = _exit_status(exc)
    except BaseException as exc:
        _report_exception(exc)
        # Python dies of SIGINT after an uncaught KeyboardInterrupt.
        status = 130 if isinstance(exc, KeyboardInterrupt) else 1
    return module, status


def _finish(module, status, status_fd):
    # What the interpreter does at exit, in its order: join non-daemon
    # threads, then atexit callbacks.
    threading = sys.modules.get("threading")
    if threading is not None:
        try:
            threading._shutdown()
        except BaseException as exc:
            _report_exception(exc)
    # Before the atexit callbacks: matplotlib registers one that closes every figure.
    global _figures
    if _figures is None and "matplotlib.pyplot" in sys.modules:
        try:
            _figures = _Figures(sys.modules["matplotlib.pyplot"])
        except BaseException as exc:
            _report_exception(exc)
    if _figures is not None:
        try:
            _figures.save()
        except BaseException as exc:
            _report_exception(exc)
    try:
        import atexit
        atexit._run_exitfuncs()
    except BaseException:
        pass
    # Release the snippet's globals so files it left open get flushed and
    # closed before the end (unless daemon threads may still use them).
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
    try:
        _write_all(status_fd, b"%d\n" % status)
    except OSError:
        pass  # the supervisor then reports the exit status itself
    os._exit(status)


def run_program():
    # The OOM killer picks this process before its supervisor.
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass
    sys.meta_path.insert(0, _LibraryGuards())
    for name, module in list(sys.modules.items()):
        guard = _guard_of(name)
        if guard is not None:  # loaded before the finder was in place
            guard(module)
    _warm_up()
    _guard_linecache()
    global _figures
    # A light runner, or an image without matplotlib, has no pyplot yet: figures of code that
    # imports it are taken at the end (under Agg, show() neither blocks nor closes them).
    if "matplotlib.pyplot" in sys.modules:
        _figures = _Figures(sys.modules["matplotlib.pyplot"])
    _full_write_streams()
    _write_all(STATUS_FD, b"r")
    mode, own_modules, start_programs, source = _read_code()
    if not start_programs:
        _no_new_programs()
    if mode == b"s":
        _session(source, own_modules)
    module, status = _run(source, own_modules=own_modules)
    os.close(CODE_FD)
    _finish(module, status, STATUS_FD)


# Per machine: the audit architecture seccomp reports, execve, execveat and seccomp itself.
_SYSCALLS = {"x86_64": (0xC000003E, 59, 322, 317), "aarch64": (0xC00000B7, 221, 281, 277)}


def _no_new_programs():
    """Has the kernel refuse this process, every thread of it and everything it starts any new
    program: a seccomp filter on which `execve` and `execveat` fail with EPERM (and any system
    call of another ABI, x32 or 32-bit, which could name them otherwise). The policy denies
    starting processes; this holds for code that reached a shell past the analysis too (a
    native library's memory bug rewriting a function). No filter, no code: exit status 2."""
    import ctypes
    import platform
    import struct

    try:
        arch, execve, execveat, seccomp = _SYSCALLS[platform.machine()]
        allow, refuse = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO|EPERM
        load, equal, at_least, answer = 0x20, 0x15, 0x35, 0x06  # BPF_LD|W|ABS, JEQ, JGE, RET
        program = [
            (load, 0, 0, 4),  # the architecture
            (equal, 1, 0, arch),
            (answer, 0, 0, refuse),
            (load, 0, 0, 0),  # the system call's number
            (at_least, 3, 0, 0x40000000),  # x32
            (equal, 2, 0, execve),
            (equal, 1, 0, execveat),
            (answer, 0, 0, allow),
            (answer, 0, 0, refuse),
        ]
        code = ctypes.create_string_buffer(b"".join(struct.pack("=HBBI", *i) for i in program))

        class Program(ctypes.Structure):
            _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
            raise OSError(ctypes.get_errno(), "no_new_privs")
        fprog = Program(len(program), ctypes.cast(code, ctypes.c_void_p))
        # SECCOMP_SET_MODE_FILTER with SECCOMP_FILTER_FLAG_TSYNC: every thread at once.
        if libc.syscall(seccomp, 1, 1, ctypes.byref(fprog)) != 0:
            raise OSError(ctypes.get_errno(), "seccomp")
    except (KeyError, OSError, AttributeError) as e:
        os.write(2, ("runner: cannot refuse new programs here (%r); the code did not run\n"
                     % (e,)).encode())
        os._exit(2)


def _read_exactly(fd, size):
    parts, left = [], size
    while left:
        data = os.read(fd, min(left, 1 << 20))
        if not data:
            os._exit(2)  # the supervisor is gone
        parts.append(data)
        left -= len(data)
    return b"".join(parts)


def _read_code():
    """The next code from the supervisor: (mode, own modules, may start programs, source); see
    hand_over."""
    head = _read_exactly(CODE_FD, 11)
    source = _read_exactly(CODE_FD, int.from_bytes(head[3:], "big")).decode("utf-8")
    return head[:1], head[1:2] == b"w", head[2:3] == b"x", source


def _session(source, own_modules):
    """A session's calls, one module for all (see 6 at the top); never returns."""
    global _figures
    module, call = None, 1
    while True:
        module, status = _run(source, module, "<snippet %d>" % call, own_modules)
        if _figures is None and "matplotlib.pyplot" in sys.modules:
            try:
                _figures = _Figures(sys.modules["matplotlib.pyplot"])
            except BaseException as exc:
                _report_exception(exc)
        if _figures is not None:
            try:
                _figures.save(close=True)
            except BaseException as exc:
                _report_exception(exc)
        for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            try:
                stream.flush()
            except BaseException:
                pass
        try:
            _write_all(STATUS_FD, b"%d %d\n" % (call, status))
        except OSError:
            os._exit(status)
        source = _read_code()[-1]
        call += 1


def main():
    if sys.argv[1:] == ["--bake"]:
        _warm_up(bake=True)
        print("runner: baked matplotlib cache in %s: %s"
              % (BAKED_MPLCONFIGDIR, sorted(os.listdir(BAKED_MPLCONFIGDIR))))
    elif sys.argv[1:] == ["--child"]:
        run_program()
    else:
        supervise()


if __name__ == "__main__":
    main()
