#!/bin/sh
# Installs what the QEMU guest tests need and caches two guest kernels:
#   - the newest bookworm-backports kernel (6.12 at the time of writing; weighted
#     interleave needs >= 6.9), resolved from linux-image-amd64/bookworm-backports;
#   - the stock bookworm kernel (6.1), resolved from linux-image-amd64/bookworm.
# The kernel .debs go to tests/vm/cache/ (git-ignored) and are reused on later runs;
# only their vmlinuz is extracted. Writes tests/vm/cache/kernels.env for run.sh.
# Idempotent: a second run with a full cache touches neither apt nor the network.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${NUMASCOPE_VM_CACHE:-$HERE/cache}
BACKPORTS_LIST=/etc/apt/sources.list.d/numascope-bookworm-backports.sources

die() { echo "tests/vm/setup.sh: error: $*" >&2; exit 1; }
say() { echo "tests/vm/setup.sh: $*" >&2; }

need_root() {
    [ "$(id -u)" = 0 ] || die "$1 needs root (run as root, or install it yourself: $2)"
}

apt_quiet() {
    DEBIAN_FRONTEND=noninteractive apt-get -qq -o=Dpkg::Use-Pty=0 "$@" >/dev/null \
        || die "apt-get $* failed"
}

# ---- host tools -----------------------------------------------------------------------------
missing=""
command -v qemu-system-x86_64 >/dev/null 2>&1 || missing="$missing qemu-system-x86"
command -v cpio >/dev/null 2>&1 || missing="$missing cpio"
# The guest needs a statically linked busybox: the dynamic one would need its libs too.
if ! [ -x /bin/busybox ] || ! (LC_ALL=C ldd /bin/busybox 2>&1 || true) | grep -q "not a dynamic"; then
    missing="$missing busybox-static"
fi
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
if [ -n "$missing" ]; then
    need_root "installing$missing" "apt-get install$missing"
    say "installing$missing"
    apt_quiet update
    # shellcheck disable=SC2086
    apt_quiet install -y --no-install-recommends $missing
fi

# ---- kernels --------------------------------------------------------------------------------
mkdir -p "$CACHE"
ENV_FILE="$CACHE/kernels.env"
if [ -f "$ENV_FILE" ]; then
    # shellcheck disable=SC1090
    . "$ENV_FILE"
    ok=1
    [ -n "${KERNEL_STOCK:-}" ] && [ -s "$CACHE/$KERNEL_STOCK" ] || ok=0
    # An empty KERNEL_BACKPORTS records that no backports kernel could be had.
    [ -z "${KERNEL_BACKPORTS:-}" ] || [ -s "$CACHE/$KERNEL_BACKPORTS" ] || ok=0
    if [ "$ok" = 1 ]; then
        exit 0
    fi
fi

# The kernels come from Debian bookworm's archive (linux-image-amd64/bookworm and
# bookworm-backports); another release has other kernel package names and suites.
release=$( (. /etc/os-release 2>/dev/null && echo "${ID:-unknown} ${VERSION_CODENAME:-unknown}") || echo "unknown unknown")
[ "$release" = "debian bookworm" ] \
    || die "this harness needs Debian 12 (bookworm) to download its guest kernels from linux-image-amd64/bookworm and bookworm-backports, but /etc/os-release says '$release'; run it on bookworm, or put vmlinuz files in $CACHE and name them in $CACHE/kernels.env (KERNEL_STOCK=..., KERNEL_BACKPORTS=...)"
command -v apt-get >/dev/null 2>&1 || die "apt-get not found: this harness expects Debian bookworm"
command -v dpkg-deb >/dev/null 2>&1 || die "dpkg-deb not found: this harness expects Debian bookworm"

# The versioned image package that a linux-image-amd64 metapackage depends on, e.g.
# linux-image-6.12.38+deb12-amd64. Empty when the suite is not known to apt.
resolve_image() {
    apt-cache depends "linux-image-amd64/$1" 2>/dev/null \
        | awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}

# Downloads (or reuses) the .deb of package $1 and extracts its vmlinuz to $CACHE/$2.
fetch_kernel() {
    pkg=$1 out=$2
    deb=$(ls "$CACHE/${pkg}_"*.deb 2>/dev/null | head -n1 || true)
    if [ -z "$deb" ]; then
        say "downloading $pkg (about 100 MB, cached in $CACHE)"
        # apt-get download writes into the current directory; as root it warns that the
        # _apt user cannot write there, which is harmless.
        (cd "$CACHE" && apt-get -qq download "$pkg" >/dev/null 2>&1) \
            || die "could not download $pkg with apt-get download (is a Debian mirror reachable?)"
        deb=$(ls "$CACHE/${pkg}_"*.deb 2>/dev/null | head -n1 || true)
        [ -n "$deb" ] || die "apt-get download $pkg left no .deb in $CACHE"
    fi
    tmp=$(mktemp -d "$CACHE/extract.XXXXXX")
    if ! dpkg-deb -x "$deb" "$tmp"; then
        rm -rf "$tmp" "$deb"
        die "could not unpack $deb (a partial download?); it was deleted: run this script again"
    fi
    img=$(ls "$tmp"/boot/vmlinuz-* 2>/dev/null | head -n1 || true)
    [ -n "$img" ] || { rm -rf "$tmp"; die "$deb holds no boot/vmlinuz-*"; }
    mv "$img" "$CACHE/$out.tmp" && mv "$CACHE/$out.tmp" "$CACHE/$out"
    rm -rf "$tmp"
}

have_backports_suite() {
    apt-cache policy 2>/dev/null | grep -q "bookworm-backports"
}

if ! have_backports_suite; then
    if [ "$(id -u)" = 0 ]; then
        say "adding the Debian bookworm-backports apt source ($BACKPORTS_LIST)"
        cat > "$BACKPORTS_LIST" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
        apt_quiet update
    else
        say "not root: cannot add bookworm-backports; only the stock kernel will be used"
    fi
fi

stock_pkg=$(resolve_image bookworm)
if [ -z "$stock_pkg" ]; then
    [ "$(id -u)" = 0 ] && apt_quiet update
    stock_pkg=$(resolve_image bookworm)
fi
[ -n "$stock_pkg" ] || die "apt-cache cannot resolve linux-image-amd64/bookworm: is bookworm in the apt sources?"
fetch_kernel "$stock_pkg" vmlinuz-stock
stock_version=${stock_pkg#linux-image-}

bp_pkg=$(resolve_image bookworm-backports)
bp_file="" bp_version=""
if [ -n "$bp_pkg" ]; then
    if (fetch_kernel "$bp_pkg" vmlinuz-backports); then
        bp_file=vmlinuz-backports
        bp_version=${bp_pkg#linux-image-}
    else
        say "warning: the backports kernel $bp_pkg could not be fetched; shapes A and B fall back to $stock_version"
    fi
else
    say "warning: linux-image-amd64/bookworm-backports is unknown to apt; shapes A and B fall back to $stock_version"
fi

cat > "$ENV_FILE.tmp" <<ENV
# Written by tests/vm/setup.sh; delete tests/vm/cache to re-resolve the kernels.
KERNEL_STOCK=vmlinuz-stock
KERNEL_STOCK_VERSION=$stock_version
KERNEL_BACKPORTS=$bp_file
KERNEL_BACKPORTS_VERSION=$bp_version
ENV
mv "$ENV_FILE.tmp" "$ENV_FILE"
say "kernels ready: stock $stock_version${bp_version:+, backports $bp_version}"
