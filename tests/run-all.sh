#!/usr/bin/env bash
# The whole numascope test suite, as CI runs it: installs what it needs, then runs unit,
# property, snapshot, CLI and fixture tests, the hwloc cross-check, and the multi-node QEMU
# guest suite (tests/vm). Style first: formatting, clippy with warnings denied, and the API docs
# with warnings denied. Exits non-zero on the first failing part.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/install-deps.sh
cargo fmt --check
cargo clippy --all-targets -- -D warnings
# cargo doc walks the package and warns once per symbolic-link cycle in the sysfs snapshots under
# tests/fixtures (sysfs has them: cpuN/nodeM -> the node, which links back to its CPUs): about
# 20,000 lines that say nothing about the docs, so they are left out of the log.
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps 2>&1 | grep -v '^warning: File system loop found: '
mkdir -p target
ls -A /tmp | sort > target/tmp-before-tests.txt
cargo test --all-targets
# The suite leaves nothing in /tmp and no process behind.
bash tests/check-leftovers.sh target/tmp-before-tests.txt
cargo build --release
bash tests/vm/run.sh
