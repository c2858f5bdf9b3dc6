# code-sandbox-mcp image setup for Python: run by the gateway with the image's own
# interpreter, as `python3 -I -c <this file> <spec JSON>`, in a helper container with no
# network. Python 3.8 or newer; nothing but the standard library.
#
# spec: {"install": bool, "files": {path: [mode, text]}, "wheelhouse": dir | null,
#        "pip": path of a pip wheel | null, "min_version": [3, 8]}
#
# With "install" (a derived image is being made, as root, on a writable root): writes the
# runner files, makes /work, installs every wheel of the wheelhouse with pip (no index:
# nothing is downloaded), checks the result with `pip check` and bakes matplotlib's font
# cache if matplotlib is there. Always: prints the manifest (JSON) on stdout, and with
# "install" also writes it to /opt/sandbox/manifest.json.
#
# Failures are one "setup: ..." paragraph on stderr and a non-zero exit status:
#   3 the interpreter is too old, 4 a wheelhouse problem, 5 pip failed, 6 pip check failed.

import json
import os
import subprocess
import sys

spec = json.loads(sys.argv[1])


def fail(status, message):
    sys.stderr.write("setup: %s\n" % message)
    sys.exit(status)


def version():
    return "%d.%d.%d" % sys.version_info[:3]


if tuple(sys.version_info[:2]) < tuple(spec.get("min_version", [3, 8])):
    fail(3, "Python %s is too old: the runner needs Python %d.%d or newer"
         % ((version(),) + tuple(spec["min_version"])))


def pip_command(host_pip):
    """The image's own pip (installed, or Debian's wheel of it), else the host's wheel: a pip
    older than the image's Python may not run on it (pip 23 on Python 3.12 and newer)."""
    import glob
    import importlib.util
    if importlib.util.find_spec("pip"):
        return [sys.executable, "-m", "pip"]
    own = sorted(glob.glob("/usr/share/python-wheels/pip-*.whl"))
    wheel = own[-1] if own else host_pip
    return [sys.executable, os.path.join(wheel, "pip")] if wheel else [sys.executable, "-m", "pip"]


def install_wheels(wheelhouse, pip):
    wheels = sorted(os.path.join(wheelhouse, n) for n in os.listdir(wheelhouse) if n.endswith(".whl"))
    if not wheels:
        fail(4, "the wheelhouse holds no wheels (*.whl)")
    command = pip_command(pip)
    env = dict(os.environ, PIP_BREAK_SYSTEM_PACKAGES="1", PIP_ROOT_USER_ACTION="ignore",
               PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1", PIP_NO_INPUT="1")
    done = subprocess.run(command + ["install", "--no-index", "--find-links", wheelhouse,
                                     "--only-binary", ":all:", "--no-warn-script-location"]
                          + wheels, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    if done.returncode != 0:
        lines = [l for l in done.stdout.splitlines() if l.strip()]
        fail(5, "pip could not install the wheelhouse:\n" + "\n".join(lines[-12:]))
    checked = subprocess.run(command + ["check"], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, universal_newlines=True)
    if checked.returncode != 0:
        fail(6, "the wheels conflict with what the image has (pip check):\n" + checked.stdout.strip())


def install():
    for path, (mode, text) in sorted(spec["files"].items()):
        os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
    os.makedirs("/work", exist_ok=True)
    os.chmod("/work", 0o1777)
    if spec.get("wheelhouse"):
        install_wheels(spec["wheelhouse"], spec.get("pip"))
    import importlib.util
    if importlib.util.find_spec("matplotlib") and os.path.exists("/opt/sandbox/runner.py"):
        subprocess.run([sys.executable, "/opt/sandbox/runner.py", "--bake"],
                       stdout=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})
        for root, dirs, files in os.walk("/opt/sandbox"):
            for name in dirs + files:
                os.chmod(os.path.join(root, name), 0o755 if name in dirs else 0o644)


def debian_packages():
    packages = []
    try:
        with open("/var/lib/dpkg/status", encoding="utf-8", errors="replace") as f:
            for stanza in f.read().split("\n\n"):
                fields = dict(l.split(": ", 1) for l in stanza.splitlines() if ": " in l and not l.startswith(" "))
                if fields.get("Status", "").endswith(" installed"):
                    packages.append({"name": fields.get("Package", "?"), "version": fields.get("Version", "?")})
    except OSError:
        pass
    return sorted(packages, key=lambda p: p["name"])


def debian_owners():
    """The Debian package of each dist-info/egg-info directory, from dpkg's file lists."""
    owners = {}
    info = "/var/lib/dpkg/info"
    try:
        names = os.listdir(info)
    except OSError:
        return owners
    for name in names:
        if not name.endswith(".list"):
            continue
        with open(os.path.join(info, name), encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.rstrip("\n")
                if line.endswith((".dist-info", ".egg-info")):
                    owners[line] = name[:-len(".list")].split(":")[0]
    return owners


def auto_installed():
    """Debian packages apt installed only as another's dependency."""
    auto = set()
    try:
        with open("/var/lib/apt/extended_states", encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return auto
    for stanza in text.split("\n\n"):
        fields = dict(l.split(": ", 1) for l in stanza.splitlines() if ": " in l)
        if fields.get("Auto-Installed") == "1":
            auto.add(fields.get("Package"))
    return auto


def standard_modules():
    """The standard library's top-level modules."""
    names = set(getattr(sys, "stdlib_module_names", ()))
    if not names:
        import pkgutil
        import sysconfig
        stdlib = sysconfig.get_paths()["stdlib"]
        names.update(sys.builtin_module_names)
        names.update(m.name for m in pkgutil.iter_modules([stdlib, os.path.join(stdlib, "lib-dynload")]))
    return sorted(names)


def python_packages(added):
    from importlib import metadata
    owners, auto = debian_owners(), auto_installed()
    found = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if not name or name.lower() in found:
            continue
        top = (dist.read_text("top_level.txt") or "").split()
        if not top:
            for entry in dist.files or []:
                parts = entry.parts
                if len(parts) > 1 and not parts[0].endswith((".dist-info", ".egg-info", ".data")) \
                        and parts[0] != "..":
                    top.append(parts[0])
                elif len(parts) == 1 and entry.suffix == ".py":
                    top.append(entry.stem)
        if not top:
            # No top_level.txt and no file list (some Debian packages ship neither): the
            # distribution's own name, when a module of that name is there.
            import importlib.util
            guess = name.lower().replace("-", "_")
            try:
                if guess.isidentifier() and importlib.util.find_spec(guess):
                    top.append(guess)
            except (ImportError, ValueError):
                pass
        modules = sorted({m for m in top if m.isidentifier() and not m.startswith("_")})
        was_added = name.lower().replace("_", "-") in added
        # Requested: added here, or installed on purpose (a Debian package nothing else
        # pulled in, or not Debian's at all), as opposed to a dependency.
        owner = owners.get(str(getattr(dist, "_path", "")))
        requested = was_added or owner is None or owner not in auto
        found[name.lower()] = {"name": name, "version": dist.version, "modules": modules,
                               "added": was_added, "requested": requested}
    return sorted(found.values(), key=lambda p: p["name"].lower())


def added_names():
    names = set()
    if spec.get("wheelhouse"):
        for n in os.listdir(spec["wheelhouse"]):
            if n.endswith(".whl"):
                names.add(n.split("-")[0].lower().replace("_", "-"))
    return names


if spec.get("install"):
    install()
manifest = {
    "language": "python",
    "interpreter": {"name": "Python", "version": version(), "path": sys.executable},
    "packages": python_packages(added_names()),
    "standard": standard_modules(),
    "system": debian_packages(),
}
text = json.dumps(manifest, indent=1, sort_keys=True)
if spec.get("install"):
    with open("/opt/sandbox/manifest.json", "w") as f:
        f.write(text + "\n")
    os.chmod("/opt/sandbox/manifest.json", 0o644)
sys.stdout.write(text)
