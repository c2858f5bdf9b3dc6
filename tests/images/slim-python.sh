#!/bin/bash
# A test image that is not ours: Debian's python3 and nothing else (no numpy, no runner),
# the way a team's own slim image looks. Writes a root filesystem tarball to $1.
set -euo pipefail
sources=/etc/apt/sources.list.d/debian.sources
[ -f "$sources" ] || sources=/etc/apt/sources.list
mmdebstrap --variant=apt --format=tar --include=python3 \
    --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --customize-hook='rm -rf "$1"/etc/apt/sources.list "$1"/etc/apt/sources.list.d/*' \
    bookworm "$1" "$sources"
