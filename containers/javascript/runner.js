// code-sandbox-mcp JavaScript runner: the main process of a sandbox container.
//
// Started as the container's PID 1 (no separate init) with
//     /opt/sandbox/node-supervisor /opt/sandbox/runner.js     (runc)
//     node /opt/sandbox/runner.js                             (gVisor)
// as a user id of its own (one per container), working dir /work (a tmpfs,
// also HOME), /tmp a tmpfs, read-only root, no network.
//
// Two processes. The *supervisor* (this command) holds everything that decides
// a run's result; the *program* process (this file with --sandbox-child, which
// it starts with the ordinary /usr/bin/node) runs the snippet. The program can
// neither read the supervisor's memory nor write the container's output:
//   - under runc the supervisor runs from /opt/sandbox/node-supervisor, a copy
//     of node that is executable but not readable: Linux makes a process that
//     runs such a file non-dumpable, so /proc/1/mem, /proc/1/fd and ptrace are
//     closed to processes of the same user. gVisor cannot run such a file (it
//     reads programs itself) and refuses /proc/1/mem to descendants anyway;
//   - the program's stdout and stderr are pipes the supervisor reads; only the
//     supervisor holds the container's stdout;
//   - the supervisor listens to every catchable signal and ignores it. As the
//     init of the PID namespace it then gets none of the program's signals
//     under runc, and SIGUSR1 can never open Node's inspector in it (which
//     would hand the program the supervisor's memory). gVisor lets a SIGKILL
//     through, which only ends the run early: the gateway then reports the
//     container's exit status.
//
// Protocol (the gateway, src/sandbox/exec.rs and output.rs, implements the other
// side exactly as written here):
//
//  1. Warm-up. The supervisor starts the program process, which loads Node and
//     then waits, so a snippet starts at once. When that process reports (one
//     byte on fd 3) that it is waiting, the supervisor writes the ready frame to
//     stdout, and nothing else. The gateway waits for it before it sends the
//     code, so the snippet's time limit does not include the warm-up.
//
//  2. Input on stdin: one header line, then the code:
//         <nonce> SP <length> LF          e.g. "0123...cdef 42\n"
//     <nonce>  exactly 32 lowercase hex chars [0-9a-f], chosen by the gateway
//     <length> decimal byte count of the code, no sign, no leading zeros
//              ("0" allowed), at most 16 MiB (16777216)
//     then exactly <length> bytes: the source code, UTF-8.
//     The header may carry a third field, the length of the *transfer* that
//     follows the code (the gateway always sends one):
//         <nonce> SP <length> SP <transfer length> LF
//     The transfer is one line of JSON, LF, then the input files' bytes one
//     after another:
//         {"files": [{"path": "data/in.csv", "size": 123}, ...],
//          "collect": {"figures": N, "figure_bytes": N, "files": N, "file_bytes": N}}
//     The supervisor writes each file into the work dir (paths are relative and
//     already checked by the gateway; no file may exist there yet) before the
//     program gets the code, then notes what the work dir holds. "collect" says
//     what to send back at the end (see X below); the gateway enforces the same
//     limits on what it receives.
//     A fourth field, the word "session", makes the container a session's (see 6).
//     Anything else (a header that does not match, too long, not UTF-8, stdin
//     closed early, a transfer that does not fit), or a runner failure (the
//     waiting process died first, /work not writable) -> a "runner: ..." line
//     on stderr, exit status 2, no end frame. The nonce stays in the
//     supervisor.
//
//  3. Output on stdout: frames, each a kind byte, the payload's length as 4
//     bytes big-endian, and the payload:
//         R  ready: JSON {"protocol": 2, "runner": "javascript"}, once,
//            before the code is read
//         O  bytes the program wrote to its stdout (at most 64 KiB a frame)
//         E  bytes the program wrote to its stderr
//         X  the end: JSON {"nonce": <the header's nonce>, "status": <0-255>,
//            "signal": <N or null>, "oom_killed": <bool>}; nothing follows,
//            and the supervisor exits with <status>, which ends the container
//            and everything in it. In a session (6), a call's end carries
//            "ended": false and the container lives on.
//         F  a file, before the end frame (only when the header had a
//            transfer): JSON {"kind": "file", "path": <str>, "size": <N>},
//            then exactly N bytes in D frames; or, for one not sent,
//            {"kind", "path", "size", "skipped": <reason>} and no data.
//            Reasons: "count", "total" (a collect limit), "type" (not a
//            regular file), "name" (not UTF-8). The files of the work dir
//            that are new or changed since the code was handed over (the
//            snippet's own file excluded), by path.
//         D  a piece of the current F's bytes (at most 256 KiB a frame)
//     The container's stderr carries only the supervisor's own "runner: ..."
//     lines. New kinds (several runs in one container) are new letters; the
//     gateway refuses kinds it does not know.
//
//  4. Run as the main program, by Node's own loader, in the waiting process
//     (whose stdin is /dev/null and whose stdout/stderr are the pipes):
//     - CommonJS by default: the code is written to /work/snippet.js and run
//       as the main module (require works, require.main === module,
//       __filename "/work/snippet.js", process.argv[1] the same).
//     - ES module if the code only compiles as one (top-level import/export,
//       import.meta, top-level await, or a top-level declaration of require,
//       module, exports, __filename or __dirname -- the checks Node 22's
//       --experimental-detect-module makes): written to /work/snippet.mjs and
//       run as the main ES module; top-level await works.
//     Output to pipes is synchronous in Node on Linux, so it streams.
//
//  5. The end: when the program's process exits (and its output pipes close,
//     or 50 ms later if a process it started still holds them), the
//     supervisor sends the end frame with the status the kernel reported:
//         0    natural end
//         N    process.exit(N), or process.exitCode = N
//         1    an uncaught exception or unhandled rejection (Node's usual
//              report on stderr comes before the end), a syntax error
//         13   an ES module whose top-level await never settles (Node's rule)
//         128+S  killed by signal S; oom_killed when the container's memory
//              cgroup counted an OOM kill
//     If the supervisor itself dies (gVisor's out-of-memory kill) there is no
//     end frame: the gateway uses the container's exit status.
//
//  6. Sessions. A first header that ends in " session" keeps the program's
//     process for later calls: after each call's end frame the supervisor reads
//     the next request (same format, "session" on every header, a fresh nonce
//     each time). For each call it writes the input files into the work dir
//     (replacing files of the same name), sends the code to the program, frames
//     its output until the program declares "<call number> <status>\n" on the
//     control socket, sends the files new or changed since, then the end frame
//     with "ended": false. An input file that cannot be written (a directory of
//     that name is in the way) refuses that call alone: a "runner: ..." line in
//     an E frame, an end frame with status 1 and "ended": false, the code not
//     run. The program runs each call's code as a script in its
//     one context (vm.runInThisContext, filename "<snippet N>"), so top-level
//     var, let, const, function and class declarations and require()d modules
//     stay for later calls (redeclaring a let, const or class is a SyntaxError,
//     as in a second <script>); `require` resolves from /work; import/export
//     and top-level await are not available. A call ends when its code returns,
//     or, if its last expression is a promise, when that settles; status 1 for
//     an exception (reported on stderr), else process.exitCode (reset after each
//     call), else 0. Errors of callbacks that outlive their call are reported
//     and the session goes on; process.exit() ends it. Between calls the
//     program's output is dropped; if its process dies then, the supervisor
//     exits (status 2), so the next call finds the container gone. If it dies
//     during a call, the end frame is the supervisor's as in 5 (no "ended"
//     field: the session is over).
//     What a snippet can forge, and only in its own session: its process is the
//     one that declares, so it can end its call early with a status of its
//     choosing (what it does next runs between calls or into its next call).
//     It cannot write a frame, learn a nonce, make its process's death, exit
//     status or an OOM kill look other than the kernel reports them, nor
//     outlast a call's time limit: the gateway ends the call and the whole
//     container at the limit, whatever was declared.
//
// Why the exit and not a message from the program: Node emits 'exit' *before*
// it prints an uncaught exception, so nothing the program's own process could
// send would come after its error report. Waiting for the process to end is
// exact for every way a Node program ends.

'use strict';

const fs = require('fs');

const CHILD_FLAG = '--sandbox-child';
const CJS_PATH = '/work/snippet.js';
const ESM_PATH = '/work/snippet.mjs';
const MAX_CODE_BYTES = 16 * 1024 * 1024;
// nonce, code length, transfer length, "session", newline
const HEADER_MAX_BYTES = 32 + 1 + 8 + 1 + 9 + 1 + 7 + 1;
const HEADER_RE = /^([0-9a-f]{32}) (0|[1-9][0-9]{0,7})(?: (0|[1-9][0-9]{0,8})(?: (session))?)?$/;
const MAX_TRANSFER_BYTES = 256 * 1024 * 1024;
const WORK_DIR = '/work';
const TRANSFER_CHUNK = 256 * 1024;
// The program process runs on the ordinary, readable node (see the top).
const PROGRAM_NODE = '/usr/bin/node';
const CONTROL_FD = 3;
// After the program's process exits, how long its pipes may stay open (held by a process it
// started) before the end frame goes out without them.
const CLOSE_GRACE_MS = 50;

// SyntaxError messages (V8) that mean "this is an ES module", as used by
// Node 22's module syntax detection.
const ESM_SYNTAX_ERRORS = [
  'Cannot use import statement outside a module',
  "Unexpected token 'export'",
  "Cannot use 'import.meta' outside a module",
  'await is only valid in async functions and the top level bodies of modules',
  "Identifier 'module' has already been declared",
  "Identifier 'exports' has already been declared",
  "Identifier 'require' has already been declared",
  "Identifier '__filename' has already been declared",
  "Identifier '__dirname' has already been declared",
];

function writeAll(fd, data) {
  let buf = Buffer.from(data);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (buf.length > 0) {
    try {
      buf = buf.subarray(fs.writeSync(fd, buf));
    } catch (err) {
      if (err.code === 'EAGAIN') {
        Atomics.wait(pause, 0, 0, 1); // the pipe is full: wait 1 ms
      } else if (err.code !== 'EINTR') {
        return; // EPIPE, EBADF: nobody is listening any more
      }
    }
  }
}

// ------------------------------------------ files in and out (the supervisor)

// Writes the files sent with the code into the work dir; returns what to collect at the end.
// A session's call may replace files an earlier call left.
function receiveFiles(transfer, fail, replace = false) {
  const nl = transfer.indexOf(10);
  let entries;
  let collect;
  try {
    const manifest = JSON.parse(transfer.subarray(0, nl === -1 ? transfer.length : nl).toString('utf8'));
    entries = manifest.files.map((f) => [String(f.path), Number(f.size)]);
    collect = {};
    for (const key of ['files', 'file_bytes']) collect[key] = Number(manifest.collect[key]);
  } catch (err) {
    fail(`unreadable transfer manifest: ${err.message}`);
  }
  const data = transfer.subarray(nl + 1);
  const total = entries.reduce((sum, [, size]) => sum + size, 0);
  if (nl === -1 || total !== data.length) {
    fail(`the transfer holds ${data.length} bytes of files, its manifest says ${total}`);
  }
  const path = require('path');
  let offset = 0;
  for (const [name, size] of entries) {
    if (name.startsWith('/') || name.split('/').some((p) => p === '' || p === '.' || p === '..')) {
      fail(`input file path ${JSON.stringify(name)} is not a plain relative path`);
    }
    const target = path.join(WORK_DIR, name);
    try {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      const { O_WRONLY, O_CREAT, O_EXCL, O_TRUNC, O_NOFOLLOW } = fs.constants;
      const fd = fs.openSync(target, O_WRONLY | O_CREAT | O_NOFOLLOW | (replace ? O_TRUNC : O_EXCL), 0o644);
      try {
        writeAll(fd, data.subarray(offset, offset + size));
      } finally {
        fs.closeSync(fd);
      }
    } catch (err) {
      const why = `cannot write the input file ${name}: ${err.message}`;
      // A session's call is refused, not the session (see 6).
      if (replace) throw new InputFileError(why);
      fail(why);
    }
    offset += size;
  }
  return collect;
}

// An input file a session's call cannot write (a directory of that name, a full work dir).
class InputFileError extends Error {}

// What identifies each file's version: path (relative, as bytes in latin1) -> "inode size mtime".
function workDirState() {
  const state = new Map();
  const walk = (dir) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true, encoding: 'buffer' });
    } catch (err) {
      return;
    }
    for (const entry of entries) {
      const full = Buffer.concat([dir, Buffer.from('/'), entry.name]);
      if (entry.isDirectory()) {
        walk(full);
        continue;
      }
      try {
        const st = fs.lstatSync(full, { bigint: true });
        state.set(full.toString('latin1'), `${st.ino} ${st.size} ${st.mtimeNs}`);
      } catch (err) {
        // gone since the listing
      }
    }
  };
  walk(Buffer.from(WORK_DIR));
  return state;
}

// Frames the new or changed files of the work dir (see F above).
function sendOutputs(collect, before) {
  const after = workDirState();
  const changed = [...after.keys()].filter((p) => before.get(p) !== after.get(p)).sort();
  const skip = (path, size, reason) =>
    frame('F', JSON.stringify({ kind: 'file', path, size, skipped: reason }));
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let sent = 0;
  let left = collect.file_bytes;
  for (const key of changed) {
    const full = Buffer.from(key, 'latin1');
    const relative = full.subarray(WORK_DIR.length + 1);
    let path;
    try {
      path = decoder.decode(relative);
    } catch (err) {
      skip(relative.toString('utf8'), null, 'name');
      continue;
    }
    const size = Number(after.get(key).split(' ')[1]);
    if (sent >= collect.files) {
      skip(path, size, 'count');
      continue;
    }
    if (size > left) {
      skip(path, size, 'total');
      continue;
    }
    let data;
    try {
      const fd = fs.openSync(full, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
      try {
        if (!fs.fstatSync(fd).isFile()) {
          skip(path, null, 'type');
          continue;
        }
        const parts = [];
        let got = 0;
        const buf = Buffer.alloc(TRANSFER_CHUNK);
        for (;;) {
          const n = fs.readSync(fd, buf, 0, buf.length, null);
          if (n === 0 || got > left) break;
          parts.push(Buffer.from(buf.subarray(0, n)));
          got += n;
        }
        data = Buffer.concat(parts);
      } finally {
        fs.closeSync(fd);
      }
    } catch (err) {
      skip(path, null, 'type');
      continue;
    }
    if (data.length > left) {
      skip(path, data.length, 'total');
      continue;
    }
    frame('F', JSON.stringify({ kind: 'file', path, size: data.length }));
    for (let start = 0; start < data.length; start += TRANSFER_CHUNK) {
      frame('D', data.subarray(start, start + TRANSFER_CHUNK));
    }
    sent += 1;
    left -= data.length;
  }
}

// ---------------------------------------------------------------- the child

function runChild() {
  // Each buffer gets memory of its own: a small one's `.buffer` is otherwise the shared pool,
  // holding what other buffers of this process (its own code, the runner's) put there.
  Buffer.poolSize = 0;
  // Memory native code may be working on (a compressor's, a random fill's) is never freed or
  // shrunk under it: no buffer is detached (`transfer`), resized or grown, whatever it was
  // made with (a `maxByteLength` buffer stays the size it was made).
  for (const name of ['resize', 'transfer', 'transferToFixedLength']) {
    delete ArrayBuffer.prototype[name];
  }
  delete SharedArrayBuffer.prototype.grow;
  // A transfer list keeps its ports and streams; its buffers are copied, never detached.
  const lengthOf = [ArrayBuffer, SharedArrayBuffer].map(
    (kind) => Object.getOwnPropertyDescriptor(kind.prototype, 'byteLength').get,
  );
  const isBuffer = (item) =>
    lengthOf.some((get) => {
      try {
        Reflect.apply(get, item, []);
        return true;
      } catch {
        return false;
      }
    });
  // Any iterable is a transfer list (a `Set` as well as an array).
  const withoutBuffers = (list) =>
    list === undefined || list === null ? list : Array.from(list).filter((i) => !isBuffer(i));
  const clone = globalThis.structuredClone;
  globalThis.structuredClone = function structuredClone(value, options) {
    if (options === undefined || options === null) return clone(value);
    return clone(value, { transfer: withoutBuffers(options.transfer) });
  };
  const post = MessagePort.prototype.postMessage;
  MessagePort.prototype.postMessage = function postMessage(value, transfer) {
    if (transfer === undefined || transfer === null) return post.call(this, value);
    const list = Array.isArray(transfer) ? transfer : transfer.transfer;
    return post.call(this, value, withoutBuffers(list));
  };
  // A byte stream takes the buffer of each view it is given (a BYOB read's view, an enqueued
  // chunk, a responding view), detaching it while Node's asynchronous work (a compressor, a
  // file write) may still read or write it: each is given a copy instead, whose views keep
  // the offsets the stream checks. The snippet's own buffer stays as it was.
  // Read with the engine's own getters and made with its own constructors, so that nothing
  // the snippet redefines (`ArrayBuffer.prototype.slice`, a subclass's `buffer` or
  // `constructor`) hands the stream the snippet's buffer after all.
  const typedArray = Object.getPrototypeOf(Uint8Array.prototype);
  const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
  const [nameOf, bufferOf, offsetOf, itemsOf] = ['@@tag', 'buffer', 'byteOffset', 'length'].map(
    (name) => getter(typedArray, name === '@@tag' ? Symbol.toStringTag : name),
  );
  const [viewBuffer, viewOffset, viewLength] = ['buffer', 'byteOffset', 'byteLength'].map((name) =>
    getter(DataView.prototype, name),
  );
  const sliceBuffer = ArrayBuffer.prototype.slice;
  const kinds = new Map(
    Object.getOwnPropertyNames(globalThis)
      .filter((name) => /^(Big)?(Int|Uint|Float)(8|16|32|64)(Clamped)?Array$/.test(name))
      .map((name) => [name, globalThis[name]]),
  );
  const copyOf = (view) => {
    if (!ArrayBuffer.isView(view)) return view;
    const name = Reflect.apply(nameOf, view, []);
    const [kind, buffer, offset, length] =
      name === undefined
        ? [DataView, viewBuffer, viewOffset, viewLength]
        : [kinds.get(name), bufferOf, offsetOf, itemsOf];
    const copy = Reflect.apply(sliceBuffer, Reflect.apply(buffer, view, []), [0]);
    return Reflect.construct(kind, [copy, Reflect.apply(offset, view, []), Reflect.apply(length, view, [])]);
  };
  for (const [kind, method] of [
    [globalThis.ReadableStreamBYOBReader, 'read'],
    [globalThis.ReadableByteStreamController, 'enqueue'],
    [globalThis.ReadableStreamBYOBRequest, 'respondWithNewView'],
  ]) {
    const original = kind?.prototype[method];
    if (typeof original !== 'function') continue;
    Object.defineProperty(kind.prototype, method, {
      value: {
        [method](view, ...rest) {
          return Reflect.apply(original, this, [copyOf(view), ...rest]);
        },
      }[method],
      writable: true,
      configurable: true,
    });
  }
  // A random fill, a native writer into a buffer the snippet gives that works off the main
  // thread, fills it at once instead, so it never writes into memory freed under it. The
  // callback still comes later, as Node's would.
  const crypto = require('crypto');
  const { randomFillSync } = crypto;
  const randomFill = crypto.randomFill;
  crypto.randomFill = function randomFill_(buf, offset, size, callback) {
    const args = [offset, size, callback];
    const done = args.findLast((a) => typeof a === 'function');
    if (done === undefined) return Reflect.apply(randomFill, crypto, arguments); // Node's error
    const bounds = args.slice(0, args.indexOf(done));
    randomFillSync(buf, ...bounds);
    process.nextTick(done, null, buf);
  };
  Object.defineProperty(crypto.randomFill, 'name', { value: 'randomFill' });
  // Warm-up: create the stdout/stderr streams (Node makes them lazily, on a
  // program's first console.log) and load the module loader now.
  void process.stdout;
  void process.stderr;
  const { runMain } = require('module');
  // fd 3 is a pipe from the runner: it carries the path of the file to run.
  const net = require('net');
  const control = new net.Socket({ fd: 3, readable: true, writable: true });
  control.write('r'); // tell the runner this process is waiting
  let received = Buffer.alloc(0);
  let session = null; // the calls of a session, once its first byte has come
  control.on('data', (chunk) => {
    if (session !== null) return session(chunk);
    received = Buffer.concat([received, chunk]);
    if (received[0] === 0x73 /* s */) {
      session = runSession(control);
      session(received);
    }
  });
  control.on('end', () => {
    if (session !== null) process.exit(0); // the supervisor is gone
    control.destroy();
    const path = received.toString('utf8');
    if (path !== CJS_PATH && path !== ESM_PATH) process.exit(2); // runner gave up
    process.argv.splice(1, process.argv.length - 1, path);
    // Called with no arguments, runMain loads process.argv[1] as the main
    // module, exactly as `node /work/snippet.js` would; from setImmediate so
    // no runner frame sits under the program's stack traces.
    setImmediate(runMain);
  });
}

// A session's calls (see 6 at the top): each code the supervisor sends ("s", its
// length as 8 bytes big-endian, the code) runs as a script in this process's one
// context; the call's status is declared on the control socket. Returns the
// function that takes the control socket's bytes.
function runSession(control) {
  const vm = require('vm');
  globalThis.require = require('module').createRequire(`${WORK_DIR}/`);
  const report = (err) => {
    let text = err instanceof Error && err.stack ? err.stack : `Uncaught ${String(err)}`;
    const runnerFrames = text.indexOf('\n    at Script.runInThisContext');
    if (runnerFrames !== -1) text = text.slice(0, runnerFrames); // the runner's, not the snippet's
    writeAll(2, `${text}\n`);
  };
  // Errors of callbacks that outlive their call: reported, and the session goes on.
  process.on('uncaughtException', report);
  process.on('unhandledRejection', report);
  let pending = Buffer.alloc(0);
  let call = 0;
  const declare = (n, status) => {
    const code = typeof process.exitCode === 'number' ? process.exitCode & 0xff : 0;
    process.exitCode = undefined;
    control.write(`${n} ${status === 0 ? code : status}\n`);
  };
  const run = (n, source) => {
    let result;
    try {
      result = vm.runInThisContext(source, { filename: `<snippet ${n}>` });
    } catch (err) {
      report(err);
      declare(n, 1);
      return;
    }
    if (result !== null && typeof result === 'object' && typeof result.then === 'function') {
      // A promise as the last expression: the call ends when it settles.
      Promise.resolve(result).then(() => declare(n, 0), (err) => { report(err); declare(n, 1); });
    } else {
      declare(n, 0);
    }
  };
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 9) {
      if (pending[0] !== 0x73) process.exit(2);
      const length = Number(pending.readBigUInt64BE(1));
      if (pending.length < 9 + length) return;
      const source = pending.subarray(9, 9 + length).toString('utf8');
      pending = pending.subarray(9 + length);
      call += 1;
      run(call, source);
    }
  };
}

// ----------------------------------------------------------- the supervisor

function frame(kind, payload) {
  const body = Buffer.from(payload);
  const head = Buffer.alloc(5);
  head.write(kind, 0, 'latin1');
  head.writeUInt32BE(body.length, 1);
  writeAll(1, Buffer.concat([head, body]));
}

// Every catchable signal that would end the process, or open the inspector (SIGUSR1).
const SHIELDED_SIGNALS = [
  'SIGHUP', 'SIGINT', 'SIGQUIT', 'SIGTERM', 'SIGUSR1', 'SIGUSR2', 'SIGALRM', 'SIGPIPE',
  'SIGTSTP', 'SIGTTIN', 'SIGTTOU', 'SIGVTALRM', 'SIGPROF', 'SIGXCPU', 'SIGXFSZ', 'SIGWINCH',
  'SIGIO', 'SIGPWR', 'SIGURG', 'SIGTRAP', 'SIGSYS', 'SIGSTKFLT',
];

function shield() {
  for (const name of SHIELDED_SIGNALS) {
    try {
      process.on(name, () => {});
    } catch (err) {
      // a signal this platform lacks
    }
  }
}

// OOM kills counted by the container's memory cgroup (v2, else v1); 0 if unknown.
function oomKills() {
  for (const path of ['/sys/fs/cgroup/memory.events', '/sys/fs/cgroup/memory/memory.oom_control']) {
    try {
      const line = fs.readFileSync(path, 'utf8').split('\n').find((l) => l.startsWith('oom_kill '));
      if (line) return Number(line.split(' ')[1]) || 0;
    } catch (err) {
      // not this cgroup version, or no cgroup files (gVisor)
    }
  }
  return 0;
}

function isEsm(source) {
  const vm = require('vm');
  try {
    // The same compilation Node's CommonJS loader does; nothing runs.
    vm.compileFunction(source, ['exports', 'require', 'module', '__filename', '__dirname'],
      { filename: CJS_PATH });
    return false;
  } catch (err) {
    return err instanceof SyntaxError && ESM_SYNTAX_ERRORS.some((m) => err.message.includes(m));
  }
}

function supervise() {
  shield();
  const { spawn } = require('child_process');
  const os = require('os');
  const oomKillsBefore = oomKills();

  // --zero-fill-buffers: Buffer.allocUnsafe (and the pool small buffers share) hands out
  // zeroed memory, never what the process held before.
  const child = spawn(PROGRAM_NODE, ['--zero-fill-buffers', __filename, CHILD_FLAG], {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  let childDone = null; // [code, signal] once the program's process has exited
  let nonce = null; // set once the code has been handed over
  let collect = null; // what to send back, when the gateway sent a transfer
  let before = null; // the work dir's state when the code was handed over
  let ready = false;
  let finished = false;
  let session = false; // the first request said "session" (see 6)
  let call = 0; // the current call of a session
  let inCall = false; // a session's call is under way: its output is framed
  let declared = ''; // what the program wrote on the control socket during the call

  function fail(message) {
    writeAll(2, `runner: ${message}\n`);
    child.kill('SIGKILL');
    process.exit(2);
  }

  // Warm-up of what handling the code needs (ICU's UTF-8 decoder, the
  // compiler path of isEsm), while the child starts.
  new TextDecoder('utf-8', { fatal: true }).decode(Buffer.alloc(1));
  isEsm('');

  // Before the ready frame, the program process's output is diagnostics (ours, on stderr);
  // after it, the program's output, framed.
  // Between a session's calls, the program's output is dropped.
  const relay = (kind) => (chunk) => {
    if (!ready) writeAll(2, chunk);
    else if (!session || inCall) frame(kind, chunk);
  };
  child.stdout.on('data', relay('O'));
  child.stderr.on('data', relay('E'));
  child.on('error', (err) => fail(`cannot start node: ${err.message}`));
  child.stdio[CONTROL_FD].once('data', () => {
    ready = true;
    frame('R', JSON.stringify({ protocol: 2, runner: 'javascript' }));
  });

  function finish() {
    if (finished) return;
    finished = true;
    const [code, signal] = childDone;
    const signalNumber = signal === null ? null : (os.constants.signals[signal] || 0);
    const status = code !== null ? code : 128 + signalNumber;
    const oom = signal === 'SIGKILL' && oomKills() > oomKillsBefore;
    if (collect !== null) sendOutputs(collect, before);
    frame('X', JSON.stringify({ nonce, status, signal: signalNumber, oom_killed: oom }));
    process.exit(status);
  }

  child.on('exit', (code, signal) => {
    childDone = [code, signal];
    if (nonce === null) {
      fail(`the waiting node process exited early (${signal || code})`);
      return;
    }
    if (session && !inCall) {
      fail(`the session's program exited between calls (${signal || code})`);
      return;
    }
    setTimeout(finish, CLOSE_GRACE_MS);
  });
  // Both pipes closed after the exit: everything the program wrote has been framed.
  child.on('close', () => {
    if (childDone !== null && nonce !== null) finish();
  });

  // A session's call: files in, the code to the program, its output framed until it
  // declares "<call> <status>\n" on the control socket.
  function startCall(headerNonce, code, transfer) {
    try {
      collect = transfer === null ? null : receiveFiles(transfer, fail, true);
    } catch (err) {
      if (!(err instanceof InputFileError)) throw err;
      // The code does not run, and the program's count of calls stays where it was.
      frame('E', `runner: ${err.message}; the code did not run\n`);
      frame('X', JSON.stringify({ nonce: headerNonce, status: 1, signal: null, oom_killed: false, ended: false }));
      nextRequest();
      return;
    }
    try {
      new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(code);
    } catch (err) {
      fail('code is not valid UTF-8');
    }
    if (childDone !== null) fail('the session\'s program is gone');
    before = collect === null ? null : workDirState();
    nonce = headerNonce;
    call += 1;
    declared = '';
    inCall = true;
    const head = Buffer.alloc(9);
    head.write('s', 0, 'latin1');
    head.writeBigUInt64BE(BigInt(code.length), 1);
    child.stdio[CONTROL_FD].write(Buffer.concat([head, code]));
  }

  function onDeclaration(chunk) {
    if (!inCall) return; // stale: a call that already ended
    declared += chunk.toString('latin1');
    const lines = declared.split('\n');
    declared = lines.pop().slice(-32);
    const mine = lines.map((l) => /^([0-9]+) ([0-9]{1,3})$/.exec(l))
      .find((m) => m !== null && Number(m[1]) === call && Number(m[2]) <= 255);
    // Output the program wrote before declaring is in its pipes: let it be framed first.
    if (mine) setImmediate(() => setImmediate(() => endCall(Number(mine[2]))));
  }

  function endCall(status) {
    if (!inCall || childDone !== null) return; // the exit handler reports a death
    inCall = false;
    if (collect !== null) sendOutputs(collect, before);
    frame('X', JSON.stringify({ nonce, status, signal: null, oom_killed: false, ended: false }));
    nextRequest();
  }

  function start(headerNonce, code, transfer) {
    if (transfer !== null) collect = receiveFiles(transfer, fail);
    let source;
    try {
      source = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(code);
    } catch (err) {
      fail('code is not valid UTF-8');
    }
    const path = isEsm(source) ? ESM_PATH : CJS_PATH;
    try {
      fs.writeFileSync(path, code, { mode: 0o644 });
    } catch (err) {
      fail(`cannot write ${path}: ${err.message}`);
    }
    if (childDone !== null) fail('the waiting node process is gone');
    if (collect !== null) before = workDirState();
    nonce = headerNonce;
    child.stdio[CONTROL_FD].end(path);
  }

  // Read "<nonce> <length>\n" and then <length> bytes from stdin.
  const stdin = process.stdin;
  let pending = Buffer.alloc(0);
  let headerNonce = null;
  let length = 0; // code and transfer
  let codeLength = 0;
  let transferLength = null;
  const parts = [];
  let received = 0;
  let complete = false;

  let requestSession = false;

  // Ready for a session's next request (bytes already read are its start).
  function nextRequest() {
    const rest = pending;
    pending = Buffer.alloc(0);
    headerNonce = null;
    length = 0;
    codeLength = 0;
    transferLength = null;
    parts.length = 0;
    received = 0;
    complete = false;
    stdin.resume();
    if (rest !== null && rest.length > 0) onData(rest);
  }

  function onData(chunk) {
    if (complete) {
      pending = Buffer.concat([pending, chunk]);
      return;
    }
    if (headerNonce === null) {
      pending = Buffer.concat([pending, chunk]);
      const nl = pending.indexOf(10);
      if (nl === -1 || nl >= HEADER_MAX_BYTES) {
        if (nl === -1 && pending.length < HEADER_MAX_BYTES) return;
        fail(`bad header line ${JSON.stringify(pending.subarray(0, 80).toString('latin1'))}`);
      }
      const line = pending.subarray(0, nl).toString('latin1');
      const m = HEADER_RE.exec(line);
      if (m === null) {
        fail(`bad header line ${JSON.stringify(line + '\n')} (want '<32 lowercase hex nonce> <length> [<transfer length>]\\n')`);
      }
      codeLength = Number(m[2]);
      if (codeLength > MAX_CODE_BYTES) {
        fail(`code length ${codeLength} exceeds the limit of ${MAX_CODE_BYTES} bytes`);
      }
      if (m[3] !== undefined) {
        transferLength = Number(m[3]);
        if (transferLength > MAX_TRANSFER_BYTES) {
          fail(`transfer length ${transferLength} exceeds the limit of ${MAX_TRANSFER_BYTES} bytes`);
        }
      }
      length = codeLength + (transferLength === null ? 0 : transferLength);
      headerNonce = m[1];
      requestSession = m[4] !== undefined;
      if (session && !requestSession) fail('a request without the session field in a session');
      chunk = pending.subarray(nl + 1);
      pending = Buffer.alloc(0);
    }
    const take = chunk.subarray(0, length - received);
    parts.push(take);
    received += take.length;
    if (received === length) {
      complete = true;
      pending = chunk.subarray(take.length);
      if (requestSession) {
        if (!session) {
          session = true;
          child.stdio[CONTROL_FD].on('data', onDeclaration);
        }
        stdin.pause();
        const request = Buffer.concat(parts, length);
        startCall(headerNonce, request.subarray(0, codeLength),
          transferLength === null ? null : request.subarray(codeLength));
        return;
      }
      stdin.removeListener('data', onData);
      stdin.pause();
      stdin.destroy();
      const request = Buffer.concat(parts, length);
      start(headerNonce, request.subarray(0, codeLength),
        transferLength === null ? null : request.subarray(codeLength));
    }
  }

  stdin.on('data', onData);
  stdin.on('end', () => {
    if (complete) return;
    if (headerNonce === null) fail('stdin closed before the header line');
    fail(`stdin closed after ${received} of ${length} code and transfer bytes`);
  });
  stdin.on('error', (err) => { if (!complete) fail(`cannot read stdin: ${err.message}`); });
}

if (process.argv[2] === CHILD_FLAG) {
  runChild();
} else {
  supervise();
}
