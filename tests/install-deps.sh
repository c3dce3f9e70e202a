#!/usr/bin/env bash
# Installs the Debian packages the test suite uses: hwloc (lstopo cross-check), numactl,
# QEMU + busybox + cpio (multi-node guest suite). Idempotent; quiet when all are present.
set -euo pipefail
pkgs=(hwloc numactl qemu-system-x86 busybox-static cpio)
pkgs+=(openmpi-bin)  # mpirun for tests/cli_launcher.rs
# python3 runs the guest suite's shapes and judge (tests/vm/shapes.py, check.py).
pkgs+=(python3)
# unshare and prlimit for tests/hostile_links.rs and tests/hostile_names.rs (mknod: coreutils).
pkgs+=(util-linux)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "installing: ${missing[*]}" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
