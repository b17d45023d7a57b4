#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the nicsim test module against a Debian kernel's headers.
#
# Usage: tests/vm/nicsim/build.sh [KVER]
#   KVER defaults to build/vm/kernel/VERSION when present (the kernel the VM
#   runner boots), else to the version linux-image-amd64 depends on.
#   Installs linux-headers-KVER with apt-get (as root or through sudo) when
#   /usr/src/linux-headers-KVER is missing. Builds in build/vm/nicsim/ (the
#   sources are copied there) and does nothing when the module is up to date.
#   Build output goes to stderr; the last line on stdout is the .ko path.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
out=$repo/build/vm/nicsim
sources="nicsim.h nicsim_main.c nicsim_dcb.c nicsim_ethtool.c nicsim_debugfs.c nicsim_fault.c
	nicsim_peer.c Kbuild"

say() { echo "nicsim-build: $*" >&2; }
as_root() { sh "$repo/bootstrap" --root env DEBIAN_FRONTEND=noninteractive "$@"; }
die() {
	say "$*"
	exit 1
}

default_kver() {
	local v
	if [ -s "$repo/build/vm/kernel/VERSION" ]; then
		v=$(head -n1 "$repo/build/vm/kernel/VERSION")
		v=${v//[[:space:]]/}
		[ -n "$v" ] && { echo "$v"; return; }
	fi
	v=$(apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\([^ ]*\)$/\1/p' | head -n1)
	[ -n "$v" ] || die "cannot tell the kernel version (no build/vm/kernel/VERSION, no apt-cache answer); pass KVER"
	echo "$v"
}

ensure_headers() {
	local kver=$1 pkg=linux-headers-$1
	[ -d "/usr/src/linux-headers-$kver" ] && return
	say "installing $pkg"
	# as root, else through sudo: the project's one rule (bootstrap --root)
	if ! as_root apt-get install -y --no-install-recommends "$pkg" >&2; then
		as_root apt-get update >&2 || true
		as_root apt-get install -y --no-install-recommends "$pkg" >&2 ||
			die "could not install $pkg"
	fi
	[ -d "/usr/src/linux-headers-$kver" ] || die "$pkg installed but /usr/src/linux-headers-$kver is missing"
}

# Copy a source only when it differs, so make sees unchanged timestamps.
sync_sources() {
	local f
	mkdir -p "$out"
	for f in $sources; do
		cmp -s "$here/$f" "$out/$f" || cp "$here/$f" "$out/$f"
	done
}

up_to_date() {
	local kver=$1 f
	[ -f "$out/nicsim.ko" ] && [ -f "$out/.kver" ] || return 1
	[ "$(cat "$out/.kver")" = "$kver" ] || return 1
	for f in $sources; do
		[ "$out/nicsim.ko" -nt "$out/$f" ] || return 1
	done
}

main() {
	local kver=${1:-} kdir
	[ $# -le 1 ] || die "usage: $0 [KVER]"
	[ -n "$kver" ] || kver=$(default_kver)
	ensure_headers "$kver"
	kdir=/usr/src/linux-headers-$kver
	sync_sources
	if up_to_date "$kver"; then
		say "up to date ($kver)"
	else
		if [ -f "$out/.kver" ] && [ "$(cat "$out/.kver")" != "$kver" ]; then
			make -C "$kdir" M="$out" clean >&2
		fi
		rm -f "$out/.kver"
		say "building for $kver"
		make -C "$kdir" M="$out" modules >&2 || die "build failed"
		echo "$kver" >"$out/.kver"
	fi
	[ -f "$out/nicsim.ko" ] || die "no module produced"
	echo "$out/nicsim.ko"
}

main "$@"
