#!/usr/bin/env bash
# Installs what the test suite uses: hwloc (lstopo cross-check), numactl, QEMU + busybox + cpio
# (multi-node guest suite), and the engines the fleet tests start themselves (Slurm with munge,
# pdsh, promtool from the prometheus package, ReFrame from PyPI in a venv under target/).
# Idempotent; quiet when all are present. A package the registry does not offer is left out
# with one line on stderr, and the test that needs it skips with a printed reason.
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=(hwloc numactl qemu-system-x86 busybox-static cpio)
pkgs+=(openmpi-bin)  # mpirun for tests/cli_launcher.rs
# python3 runs the guest suite's shapes and judge (tests/vm/shapes.py, check.py).
pkgs+=(python3)
# unshare and prlimit for tests/hostile_links.rs and tests/hostile_names.rs (mknod: coreutils).
pkgs+=(util-linux)
# tests/engine_slurm.rs, engine_pdsh.rs, engine_promtool.rs, engine_reframe.rs (python3-venv).
pkgs+=(munge slurmctld slurmd slurm-client pdsh prometheus python3-venv)
missing=()
for p in "${pkgs[@]}"; do
  status_text=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status_text" = "install ok installed" ] || missing+=("$p")
done
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  $SUDO apt-get update -qq
  available=()
  for p in "${missing[@]}"; do
    # (the whole output first: grep -q closing the pipe early would fail it under pipefail)
    policy_text=$(apt-cache policy "$p" 2>/dev/null || true)
    if grep -q 'Candidate: [0-9]' <<<"$policy_text"; then
      available+=("$p")
    else
      echo "not in the package registry, its tests will skip: $p" >&2
    fi
  done
  # No service may start on install (the engine tests start their own daemons in a tempdir):
  # a policy-rc.d that refuses every start, only for this install when none is there already.
  policy=/usr/sbin/policy-rc.d
  own_policy=0
  if [ ! -e "$policy" ] && [ "$(id -u)" -eq 0 ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && own_policy=1
  fi
  status=0
  [ ${#available[@]} -eq 0 ] ||
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${available[@]}" >/dev/null || status=$?
  [ "$own_policy" -eq 0 ] || rm -f "$policy"
  [ "$status" -eq 0 ] || exit "$status"
fi
# ReFrame (tests/engine_reframe.rs runs contrib/reframe/ through it): from PyPI into a venv the
# test finds at target/test-tools/venv.
venv=target/test-tools/venv
if [ ! -x "$venv/bin/reframe" ] && command -v python3 >/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check reframe-hpc ||
    { echo "reframe-hpc could not be installed from PyPI; tests/engine_reframe.rs will skip" >&2; rm -rf "$venv"; }
fi
exit 0
