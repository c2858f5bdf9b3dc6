// code-sandbox-mcp JavaScript runner: the main process of a sandbox container.
//
// Started (under Docker's --init) as
//     node /opt/sandbox/runner.js
// as user 65534:65534, working dir /work (a tmpfs, also HOME), /tmp a tmpfs,
// read-only root, no network.
//
// Protocol (the gateway implements the other side exactly as written here):
//
//  1. Warm-up. At start the runner spawns a second Node process (this file
//     with --sandbox-child) that loads Node and then waits, so a snippet
//     starts at once. When that process reports (one byte on fd 3) that it is
//     waiting, the runner writes the ready marker "\0ready\0" to stdout, and
//     nothing else. The gateway waits for it before it sends the code, so the
//     snippet's time limit does not include the warm-up.
//
//  2. Input on stdin: one header line, then the code:
//         <nonce> SP <length> LF          e.g. "0123...cdef 42\n"
//     <nonce>  exactly 32 lowercase hex chars [0-9a-f], chosen by the gateway
//     <length> decimal byte count of the code, no sign, no leading zeros
//              ("0" allowed), at most 16 MiB (16777216)
//     then exactly <length> bytes: the source code, UTF-8.
//     Anything else (a header that does not match, too long, not UTF-8, stdin
//     closed early), or a runner failure (the waiting process died first, /work
//     not writable) -> a "runner: ..." line on stderr, exit status 2, no marker.
//
//  3. Run as the main program, by Node's own loader, in the waiting process
//     (whose stdin is /dev/null and whose stdout/stderr are the container's):
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
//  4. End: when that process exits, the runner writes the end marker
//         "\0" + <nonce> + ":" + <exit_code decimal> + "\0"
//     to stderr first and then to stdout (one write each) and exits with
//     <exit_code> as its own status. Nothing the program wrote can follow the
//     marker: the program's process is gone. <exit_code> is the program's
//     exit status as Node sets it:
//         0    natural end
//         N    process.exit(N), or process.exitCode = N
//         1    an uncaught exception or unhandled rejection (Node's usual
//              report on stderr comes before the marker), a syntax error
//         13   an ES module whose top-level await never settles (Node's rule)
//         128+S  killed by signal S (e.g. 137 when the OOM killer struck it)
//     If the runner itself dies (the snippet kills it, the container's memory
//     runs out) there is no marker: the gateway uses the container's exit
//     status. The nonce only prevents accidental collisions with the
//     program's own output; it never enters the program's process.
//
// Why two processes: Node emits 'exit' *before* it prints an uncaught
// exception, so a marker written from an 'exit' listener in the program's own
// process would precede the error report on stderr. Waiting for the process
// to end is exact for every way a Node program ends.

'use strict';

const fs = require('fs');

const CHILD_FLAG = '--sandbox-child';
const CJS_PATH = '/work/snippet.js';
const ESM_PATH = '/work/snippet.mjs';
const MAX_CODE_BYTES = 16 * 1024 * 1024;
const HEADER_MAX_BYTES = 32 + 1 + 8 + 1; // nonce, space, up to 8 digits, newline
const HEADER_RE = /^([0-9a-f]{32}) (0|[1-9][0-9]{0,7})$/;
const READY_MARKER = '\0ready\0';

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

// ---------------------------------------------------------------- the child

function runChild() {
  // Warm-up: create the stdout/stderr streams (Node makes them lazily, on a
  // program's first console.log) and load the module loader now.
  void process.stdout;
  void process.stderr;
  const { runMain } = require('module');
  // fd 3 is a pipe from the runner: it carries the path of the file to run.
  const net = require('net');
  const control = new net.Socket({ fd: 3, readable: true, writable: true });
  control.write('r'); // tell the runner this process is waiting
  let path = '';
  control.setEncoding('utf8');
  control.on('data', (chunk) => { path += chunk; });
  control.on('end', () => {
    control.destroy();
    if (path !== CJS_PATH && path !== ESM_PATH) process.exit(2); // runner gave up
    process.argv.splice(1, process.argv.length - 1, path);
    // Called with no arguments, runMain loads process.argv[1] as the main
    // module, exactly as `node /work/snippet.js` would; from setImmediate so
    // no runner frame sits under the program's stack traces.
    setImmediate(runMain);
  });
}

// --------------------------------------------------------------- the runner

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

function runRunner() {
  const { spawn } = require('child_process');
  const os = require('os');

  const child = spawn(process.execPath, [__filename, CHILD_FLAG], {
    stdio: ['ignore', 'inherit', 'inherit', 'pipe'],
  });
  let childDone = null; // [code, signal] once the program's process has exited
  let nonce = null; // set once the code has been handed over

  function fail(message) {
    writeAll(2, `runner: ${message}\n`);
    child.kill('SIGKILL');
    process.exit(2);
  }

  // Warm-up of what handling the code needs (ICU's UTF-8 decoder, the
  // compiler path of isEsm), while the child starts.
  new TextDecoder('utf-8', { fatal: true }).decode(Buffer.alloc(1));
  isEsm('');

  child.on('error', (err) => fail(`cannot start node: ${err.message}`));
  child.stdio[3].once('data', () => writeAll(1, READY_MARKER));
  child.on('exit', (code, signal) => {
    childDone = [code, signal];
    if (nonce === null) {
      fail(`the waiting node process exited early (${signal || code})`);
      return;
    }
    const status = code !== null ? code : 128 + (os.constants.signals[signal] || 0);
    const marker = `\0${nonce}:${status}\0`;
    writeAll(2, marker);
    writeAll(1, marker);
    process.exit(status);
  });

  function start(headerNonce, code) {
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
    nonce = headerNonce;
    child.stdio[3].end(path);
  }

  // Read "<nonce> <length>\n" and then <length> bytes from stdin.
  const stdin = process.stdin;
  let pending = Buffer.alloc(0);
  let headerNonce = null;
  let length = 0;
  const parts = [];
  let received = 0;
  let finished = false;

  function onData(chunk) {
    if (finished) return;
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
        fail(`bad header line ${JSON.stringify(line + '\n')} (want '<32 lowercase hex nonce> <length>\\n')`);
      }
      length = Number(m[2]);
      if (length > MAX_CODE_BYTES) {
        fail(`code length ${length} exceeds the limit of ${MAX_CODE_BYTES} bytes`);
      }
      headerNonce = m[1];
      chunk = pending.subarray(nl + 1);
      pending = null;
    }
    const take = chunk.subarray(0, length - received);
    parts.push(take);
    received += take.length;
    if (received === length) {
      finished = true;
      stdin.removeListener('data', onData);
      stdin.pause();
      stdin.destroy();
      start(headerNonce, Buffer.concat(parts, length));
    }
  }

  stdin.on('data', onData);
  stdin.on('end', () => {
    if (finished) return;
    if (headerNonce === null) fail('stdin closed before the header line');
    fail(`stdin closed after ${received} of ${length} code bytes`);
  });
  stdin.on('error', (err) => { if (!finished) fail(`cannot read stdin: ${err.message}`); });
}

if (process.argv[2] === CHILD_FLAG) {
  runChild();
} else {
  runRunner();
}
