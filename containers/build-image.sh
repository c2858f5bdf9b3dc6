#!/bin/bash
# Build a code-sandbox-mcp sandbox image from Debian packages, with no
# container registry: mmdebstrap makes a root filesystem tarball from the
# package list, `docker import` turns it into an image.
#
#     containers/build-image.sh LANG TAG       LANG: python | javascript
#     e.g. containers/build-image.sh python code-sandbox-python:dev
#
# Environment:
#     MIRROR   what mmdebstrap installs from: an apt sources file (deb822 or
#              one-line format) or a mirror URL. Default: this host's own apt
#              sources (/etc/apt/sources.list.d/debian.sources, else
#              /etc/apt/sources.list), i.e. whatever mirror the site already
#              uses, so no mirror is named here.
#     SUITE    Debian release: bookworm, trixie or forky; default trixie for
#              python, forky for javascript (the gateway's defaults). With a
#              sources file for another suite, the file is used with its suites
#              renamed (bookworm, bookworm-updates, bookworm-security become
#              trixie, trixie-updates, trixie-security): the same mirrors.
#     EXTRA_PACKAGES  Debian packages to install besides the recipe's, comma
#              separated (`images build --deb-packages FILE`).
#     DOCKER   docker client, default "docker".
#     KEEP_TAR set to a path to keep the root filesystem tarball there.
#     NO_IMPORT set to stop after the tarball (with KEEP_TAR): the gateway imports
#              it itself through the engine's API.
#
# Needs root (mmdebstrap's root mode), mmdebstrap, a running Docker daemon.
# This script is the reference the Rust `images build` command reproduces:
# the same mmdebstrap arguments, then an import of the tarball through the
# Docker API (POST /images/create?fromSrc=-, with the same "changes").
set -euo pipefail

usage() { echo "usage: $0 python|javascript TAG" >&2; exit 64; }
[ $# -eq 2 ] || usage
lang=$1
tag=$2
here=$(cd "$(dirname "$0")" && pwd)
docker=${DOCKER:-docker}

case $lang in
    python)     runner=runner.py; cmd='["python3","-I","-S","/opt/sandbox/runner.py"]'; default_suite=trixie ;;
    javascript) runner=runner.js; cmd='["/opt/sandbox/node-supervisor","/opt/sandbox/runner.js"]'; default_suite=forky ;;
    *) usage ;;
esac
suite=${SUITE:-$default_suite}

if [ -n "${MIRROR:-}" ]; then
    mirror=$MIRROR
elif [ -f /etc/apt/sources.list.d/debian.sources ]; then
    mirror=/etc/apt/sources.list.d/debian.sources
elif [ -f /etc/apt/sources.list ]; then
    mirror=/etc/apt/sources.list
else
    echo "no apt sources file on this host; set MIRROR" >&2
    exit 1
fi

# packages.txt: one package per line, "#" starts a comment.
packages=$(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$here/$lang/packages.txt" | paste -sd, -)
[ -n "$packages" ] || { echo "$here/$lang/packages.txt lists no packages" >&2; exit 1; }
if [ -n "${EXTRA_PACKAGES:-}" ]; then
    # Package names only: apt must not read one as an option.
    [[ $EXTRA_PACKAGES =~ ^[a-z0-9][a-z0-9+.-]+(,[a-z0-9][a-z0-9+.-]+)*$ ]] ||
        { echo "EXTRA_PACKAGES is not a comma-separated list of Debian package names" >&2; exit 64; }
    packages="$packages,$EXTRA_PACKAGES"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A sources file names its own suite (its first); for another suite, use a copy with every
# suite of that release renamed, so the build reaches the same mirrors for it.
if [ -f "$mirror" ]; then
    listed=$(awk '/^Suites:/ { print $2; exit }
                  /^[[:space:]]*deb[[:space:]]/ { i = 1; if ($2 ~ /^\[/) for (i = 2; $i !~ /\]$/; ) i++;
                                                  print $(i + 2); exit }' "$mirror")
    listed=${listed%%-*}
    if [ -n "$listed" ] && [ "$listed" != "$suite" ]; then
        awk -v from="$listed" -v to="$suite" '
            function rename(s) { return (s == from || index(s, from "-") == 1) ? to substr(s, length(from) + 1) : s }
            /^Suites:/ { line = "Suites:"; for (i = 2; i <= NF; i++) line = line " " rename($i); print line; next }
            /^[[:space:]]*deb[[:space:]]/ { i = 1; if ($2 ~ /^\[/) for (i = 2; $i !~ /\]$/; ) i++;
                                            $(i + 2) = rename($(i + 2)); print; next }
            { print }' "$mirror" > "$work/$suite.sources"
        case $mirror in *.sources) ;; *) mv "$work/$suite.sources" "$work/$suite.list" ;; esac
        mirror=$(ls "$work/$suite".*)
    fi
fi
tarball=${KEEP_TAR:-$work/rootfs.tar}

# The host's apt settings for the dates of its mirror's Release files: a site whose mirror
# is a snapshot older than a testing suite's Release stays valid for (a week) has turned
# the check off on its hosts; the build reaches the same mirror the same way. Unset on the
# host: apt's defaults (checked).
valid_until= check_date=
eval "$(apt-config shell valid_until Acquire::Check-Valid-Until check_date Acquire::Check-Date)"

log() { printf '[build-image %s] %s\n' "$(date +%T)" "$*" >&2; }
log "$lang image $tag: suite $suite, packages $packages"
log "mirror: $mirror"
start=$(date +%s)

args=(
    # Essential:yes packages plus apt: the smallest set apt can install the
    # package list into (minbase would add the Priority:required packages
    # that are not Essential, e.g. e2fsprogs, mount, which a sandbox never uses).
    --variant=apt
    # A plain tar stream, what `docker import` reads.
    --format=tar
    # mmdebstrap's default already; spelled out because image size depends on
    # it: hard dependencies only, no Recommends (e.g. no python3-tk GUI
    # toolkit from matplotlib, no g++ from scipy, no nodejs-doc).
    --aptopt='Apt::Install-Recommends "false"'
    ${valid_until:+--aptopt="Acquire::Check-Valid-Until \"$valid_until\""}
    ${check_date:+--aptopt="Acquire::Check-Date \"$check_date\""}
    # Set up merged /usr (bin, sbin, lib as symlinks into /usr) the way
    # debootstrap does for bookworm and mark it with the small usr-is-merged
    # package. Without it, apt satisfies "usrmerge | usr-is-merged" (procps ->
    # init-system-helpers) with usrmerge, which drags in perl (~50 MB).
    --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr
    # Leave out documentation, man pages, info and translations (copyright
    # files stay). dpkg applies these while unpacking, so nothing is written
    # and deleted later; they stay in the image's dpkg config.
    --dpkgopt='path-exclude=/usr/share/doc/*'
    --dpkgopt='path-include=/usr/share/doc/*/copyright'
    --dpkgopt='path-exclude=/usr/share/man/*'
    --dpkgopt='path-exclude=/usr/share/info/*'
    --dpkgopt='path-exclude=/usr/share/locale/*'
    --dpkgopt='path-include=/usr/share/locale/locale.alias'
    --dpkgopt='path-exclude=/usr/share/lintian/*'
    # The package list (and their hard dependencies).
    --include="$packages"
)

if [ "$lang" = python ]; then
    args+=(
        # bookworm's python3-scipy depends on python3-pythran, a Python-to-C++
        # compiler used to build scipy, never imported by it at run time; its
        # own dependencies (g++, Boost and BLAS headers, python3-dev) are
        # ~550 MB, more than everything else together. Before apt installs the
        # package list, register an empty package of that name so the
        # dependency is met. Built with the chroot's own dpkg-deb.
        --essential-hook='set -e
            mkdir -p "$1/tmp/pythran-dummy/DEBIAN"
            printf "%s\n" "Package: python3-pythran" "Version: 99:0+sandbox.dummy" \
                "Architecture: all" "Maintainer: code-sandbox-mcp <nobody@localhost>" \
                "Description: empty stand-in: scipy never imports pythran at run time" \
                > "$1/tmp/pythran-dummy/DEBIAN/control"
            chroot "$1" dpkg-deb --root-owner-group --build /tmp/pythran-dummy /tmp/pythran-dummy.deb
            chroot "$1" dpkg --install /tmp/pythran-dummy.deb
            rm -rf "$1/tmp/pythran-dummy" "$1/tmp/pythran-dummy.deb"'
    )
fi

args+=(
    # The runner, root-owned and world-readable, at /opt/sandbox/.
    --customize-hook='mkdir -p "$1/opt/sandbox"'
    --customize-hook="upload $here/$lang/$runner /opt/sandbox/$runner"
    --customize-hook="chmod 0644 \"\$1/opt/sandbox/$runner\""
    # Mount point of the per-container work dir tmpfs.
    --customize-hook='mkdir -p "$1/work" && chmod 1777 "$1/work"'
)

if [ "$lang" = python ]; then
    args+=(
        # Shrink: the libraries' own test suites (pandas/tests, numpy/*/tests,
        # sympy's, scipy's, ...) are ~150 MB with their .pyc files, and no
        # library imports them outside its test runner. Except numpy 2's
        # numpy/_core/tests (trixie): numpy.testing imports a helper from it, and
        # scipy imports numpy.testing.
        --customize-hook='find "$1/usr/lib/python3/dist-packages" -type d -name tests ! -path "*/numpy/_core/tests" -prune -exec rm -rf {} +'
        # Do once, as root at build time, what would otherwise happen on the
        # first import in every container: the runner's warm-up imports numpy,
        # pandas and matplotlib and draws a figure, with MPLCONFIGDIR set to
        # /opt/sandbox/matplotlib, leaving matplotlib's font cache
        # (fontlist-v*.json) there. (Debian's packages ship their .pyc files
        # already.) At run time the runner copies that cache into a writable
        # MPLCONFIGDIR under /tmp: see runner.py.
        --customize-hook='chroot "$1" env -i PATH=/usr/bin:/bin HOME=/nonexistent python3 /opt/sandbox/runner.py --bake'
        --customize-hook='chmod -R a+rX "$1/opt/sandbox"'
    )
else
    args+=(
        # Fail the build now if the runner does not even parse.
        --customize-hook='chroot "$1" env -i PATH=/usr/bin:/bin node --check /opt/sandbox/runner.js'
        # The runner's supervisor runs from a copy of node that may be executed but not
        # read: Linux makes a process running such a file non-dumpable, which closes its
        # memory and file descriptors to the snippet (see runner.js).
        --customize-hook='install -o root -g root -m 0711 "$1/usr/bin/node" "$1/opt/sandbox/node-supervisor"'
    )
fi

args+=(
    # Shrink: the image never runs apt (no network at run time), so drop what
    # only apt needs; also keep the build host's mirror configuration out of
    # the image. (mmdebstrap itself already empties /var/cache/apt,
    # /var/lib/apt/lists, /tmp and the logs.)
    --customize-hook='rm -rf "$1"/etc/apt/sources.list "$1"/etc/apt/sources.list.d/* "$1"/var/cache/debconf/*-old "$1"/var/lib/dpkg/*-old'
    "$suite" "$tarball" "$mirror"
)

log "running mmdebstrap ${args[*]@Q}"
mmdebstrap "${args[@]}"
log "root filesystem: $(du -h "$tarball" | cut -f1) ($(( $(date +%s) - start )) s so far)"

if [ -n "${NO_IMPORT:-}" ]; then
    log "root filesystem ready at $tarball"
    exit 0
fi

# The image needs no other configuration: the gateway gives user, workdir,
# command and limits per container. CMD only makes a bare `docker run -i TAG`
# start the runner.
log "importing as $tag"
"$docker" import --change "CMD $cmd" "$tarball" "$tag"

log "done in $(( $(date +%s) - start )) s: $tag, $("$docker" image inspect --format '{{.Size}}' "$tag" | awk '{printf "%.0f MB", $1/1e6}')"
