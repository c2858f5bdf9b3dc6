// code-sandbox-mcp image setup for JavaScript: run by the gateway with the image's own node,
// as `node -e <this file> <spec JSON>`, in a helper container with no network.
//
// spec: {"install": bool, "files": {path: [mode, text]}, "npm": dir | null,
//        "min_version": 16}
//
// With "install" (a derived image is being made, as root, on a writable root): writes the
// runner files, copies this node to /opt/sandbox/node-supervisor executable-only (mode 0711:
// runner.js explains why), links /usr/bin/node to it when node lives elsewhere (the runner
// starts the program process with /usr/bin/node), makes /work, and unpacks every npm tarball
// (`npm pack` output) of the npm dir into /node_modules, where both require() and import
// find them from /work. Always: prints the manifest (JSON) on stdout, and with "install" also
// writes it to /opt/sandbox/manifest.json.
//
// Failures are one "setup: ..." paragraph on stderr and a non-zero exit status:
//   3 node is too old, 4 an npm tarball is unreadable, duplicated or misses a dependency.

'use strict';

const fs = require('fs');
const path = require('path');
const zlib = require('zlib');

const spec = JSON.parse(process.argv[1]);
const MODULES = '/node_modules';

function fail(status, message) {
  process.stderr.write(`setup: ${message}\n`);
  process.exit(status);
}

const major = Number(process.versions.node.split('.')[0]);
if (major < spec.min_version) {
  fail(3, `Node.js ${process.versions.node} is too old: the runner needs Node.js ${spec.min_version} or newer`);
}

// The entries of a tar archive: [{name, type, data}], with pax and GNU long names applied.
function untar(buffer) {
  const entries = [];
  let longName = null;
  for (let at = 0; at + 512 <= buffer.length;) {
    const header = buffer.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const field = (from, to) => header.toString('latin1', from, to).replace(/\0.*$/s, '');
    const size = parseInt(field(124, 136).trim() || '0', 8);
    const type = field(156, 157) || '0';
    const prefix = field(257, 263).startsWith('ustar') ? field(345, 500) : '';
    const data = buffer.subarray(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
    let name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    if (type === 'x' || type === 'L') {
      const text = data.toString('utf8');
      longName = type === 'L' ? text.replace(/\0.*$/s, '') : (/(?:^|\n)\d+ path=([^\n]*)\n/.exec(text) || [])[1] || null;
      continue;
    }
    if (type === 'g') continue;
    if (longName) { name = longName; longName = null; }
    entries.push({ name, type, data });
  }
  return entries;
}

function installTarball(file, installed) {
  let entries;
  try {
    entries = untar(zlib.gunzipSync(fs.readFileSync(file)));
  } catch (err) {
    fail(4, `${path.basename(file)} is not a gzipped tarball (${err.message}); make one with \`npm pack\``);
  }
  const strip = (name) => name.split('/').slice(1).join('/');
  const manifest = entries.find((e) => strip(e.name) === 'package.json');
  if (!manifest) fail(4, `${path.basename(file)} has no package.json; make it with \`npm pack\``);
  const pkg = JSON.parse(manifest.data.toString('utf8'));
  if (!pkg.name || !pkg.version) fail(4, `${path.basename(file)}: package.json names no name or version`);
  if (installed.has(pkg.name)) {
    fail(4, `${path.basename(file)} and ${installed.get(pkg.name).file} are both ${pkg.name}: keep one of them in the npm dir`);
  }
  const root = path.join(MODULES, pkg.name);
  for (const entry of entries) {
    const rel = strip(entry.name);
    const target = path.resolve(root, rel);
    if (!rel || !target.startsWith(root + path.sep)) continue;
    if (entry.type === '5') {
      fs.mkdirSync(target, { recursive: true, mode: 0o755 });
    } else if (entry.type === '0') {
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 });
      fs.writeFileSync(target, entry.data, { mode: 0o644 });
    }
  }
  installed.set(pkg.name, { file: path.basename(file), pkg });
}

function installNpm(dir) {
  const tarballs = fs.readdirSync(dir).filter((n) => n.endsWith('.tgz')).sort();
  if (tarballs.length === 0) fail(4, 'the npm dir holds no tarballs (*.tgz, from `npm pack`)');
  const installed = new Map();
  for (const name of tarballs) installTarball(path.join(dir, name), installed);
  for (const [name, { file, pkg }] of installed) {
    for (const dep of Object.keys(pkg.dependencies || {})) {
      if (!installed.has(dep) && !fs.existsSync(path.join(MODULES, dep, 'package.json'))) {
        fail(4, `${name} (${file}) needs ${dep} ${pkg.dependencies[dep]}, which is not in the npm dir: add its tarball (\`npm pack ${dep}\`)`);
      }
    }
  }
}

function install() {
  for (const [file, [mode, text]] of Object.entries(spec.files)) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
    fs.writeFileSync(file, text);
    fs.chmodSync(file, mode);
  }
  fs.copyFileSync(process.execPath, '/opt/sandbox/node-supervisor');
  fs.chmodSync('/opt/sandbox/node-supervisor', 0o711);
  let current = null;
  try { current = fs.realpathSync('/usr/bin/node'); } catch (err) { /* absent */ }
  if (current !== fs.realpathSync(process.execPath)) {
    fs.mkdirSync('/usr/bin', { recursive: true });
    try { fs.unlinkSync('/usr/bin/node'); } catch (err) { /* absent */ }
    fs.symlinkSync(process.execPath, '/usr/bin/node');
  }
  fs.mkdirSync('/work', { recursive: true });
  fs.chmodSync('/work', 0o1777);
  if (spec.npm) installNpm(spec.npm);
}

// The Debian package owning each directory under /usr/share/nodejs, from dpkg's file lists.
function debianOwners() {
  const owners = new Map();
  const info = '/var/lib/dpkg/info';
  let names = [];
  try { names = fs.readdirSync(info).filter((n) => n.endsWith('.list')); } catch (err) { return owners; }
  let node = process.execPath;
  try { node = fs.realpathSync(node); } catch (err) { /* as given */ }
  for (const name of names) {
    const owner = name.slice(0, -'.list'.length).split(':')[0];
    for (const line of fs.readFileSync(path.join(info, name), 'utf8').split('\n')) {
      if ((line.startsWith('/usr/share/nodejs/') || line === node) && !owners.has(line)) owners.set(line, owner);
    }
  }
  owners.interpreter = owners.get(node);
  return owners;
}

// Debian packages apt installed only as another's dependency.
function autoInstalled() {
  const auto = new Set();
  let text = '';
  try { text = fs.readFileSync('/var/lib/apt/extended_states', 'utf8'); } catch (err) { return auto; }
  for (const stanza of text.split('\n\n')) {
    const name = /^Package: (.*)$/m.exec(stanza);
    if (name && /^Auto-Installed: 1$/m.test(stanza)) auto.add(name[1]);
  }
  return auto;
}

function packagesIn(dir, added) {
  const owners = debianOwners();
  const auto = autoInstalled();
  const found = [];
  let names = [];
  try { names = fs.readdirSync(dir); } catch (err) { return found; }
  for (const name of names) {
    const inner = name.startsWith('@') ? fs.readdirSync(path.join(dir, name)).map((n) => `${name}/${n}`) : [name];
    for (const full of inner) {
      try {
        const pkg = JSON.parse(fs.readFileSync(path.join(dir, full, 'package.json'), 'utf8'));
        // Requested: added here, or installed on purpose (a Debian package nothing else
        // pulled in, or not Debian's at all), as opposed to a dependency.
        const owner = owners.get(path.join(dir, full));
        // What comes with the interpreter's own package (Node's type definitions) is part
        // of the interpreter, not a package of its own choosing.
        const requested = added || owner === undefined || (!auto.has(owner) && owner !== owners.interpreter);
        found.push({ name: pkg.name || full, version: pkg.version || '?', modules: [pkg.name || full], added, requested });
      } catch (err) { /* not a package */ }
    }
  }
  return found;
}

function debianPackages() {
  let text = '';
  try { text = fs.readFileSync('/var/lib/dpkg/status', 'utf8'); } catch (err) { return []; }
  const packages = [];
  for (const stanza of text.split('\n\n')) {
    const fields = {};
    for (const line of stanza.split('\n')) {
      const at = line.indexOf(': ');
      if (at > 0 && !line.startsWith(' ')) fields[line.slice(0, at)] = line.slice(at + 2);
    }
    if ((fields.Status || '').endsWith(' installed')) packages.push({ name: fields.Package, version: fields.Version });
  }
  return packages.sort((a, b) => (a.name < b.name ? -1 : 1));
}

if (spec.install) install();
const manifest = {
  language: 'javascript',
  interpreter: { name: 'Node.js', version: process.versions.node, path: process.execPath },
  packages: packagesIn(MODULES, true).concat(packagesIn('/usr/share/nodejs', false))
    .sort((a, b) => (a.name < b.name ? -1 : 1)),
  standard: require('module').builtinModules.slice().sort(),
  system: debianPackages(),
};
const text = JSON.stringify(manifest, null, 1);
if (spec.install) {
  fs.writeFileSync('/opt/sandbox/manifest.json', `${text}\n`, { mode: 0o644 });
}
process.stdout.write(text);
