#!/usr/bin/env bash
# Prepare the kernel the VM tier boots: Debian's own linux-image, extracted
# (never installed: its hooks would build an initramfs and touch the boot
# loader) into build/vm/kernel/ with depmod done, so guests can
# `modprobe -d build/vm/kernel NAME`. Also installs the host packages the
# runner and the guest scenarios use, and the matching linux-headers so
# out-of-tree test modules build against the same ABI.
#
# Usage: tests/vm/fetch-kernel.sh
# Prints the kernel version on stdout (progress goes to stderr) and records
# it in build/vm/kernel/VERSION. Idempotent: a complete cache is reused as is.
# ND_VM_KVER=VERSION pins a version; `rm -rf build/vm/kernel` picks up a
# newer one from linux-image-amd64.
set -eu

repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=$repo/build/vm
kdir=$cache/kernel

# What the runner needs on the host, plus the userland the guests run: the
# guest chroots into the host's root, so its tools are the host's.
host_pkgs="qemu-system-x86 busybox-static cpio kmod xz-utils iproute2
	rdma-core ibverbs-utils ibverbs-providers perftest"

export DEBIAN_FRONTEND=noninteractive

say() { echo "fetch-kernel: $*" >&2; }

# The packages among "$@" that dpkg does not list as installed.
missing_pkgs() {
	local p
	for p in "$@"; do
		[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)" = "ii " ] ||
			echo "$p"
	done
}

# What needs root (apt-get update and install) goes through the project's one rule: itself as
# root, else sudo, else a message saying what to do (bootstrap --root).
as_root() { sh "$repo/bootstrap" --root "$@"; }

# Run an apt-get command (as_root apt-get ... where it needs root); on failure refresh the
# package lists once and retry, so a fresh machine (no lists yet) works and a warm one never
# hits the net.
apt_retry() {
	"$@" >&2 && return 0
	say "$* failed; running apt-get update and retrying"
	as_root apt-get -q update >&2
	"$@" >&2
}

install_pkgs() {
	local need
	need=$(missing_pkgs "$@")
	[ -z "$need" ] && return 0
	say "installing: ${need//$'\n'/ }"
	# shellcheck disable=SC2086 # one word per package
	apt_retry as_root env DEBIAN_FRONTEND=noninteractive apt-get -q install -y \
		--no-install-recommends $need
}

# The ABI version linux-image-amd64 points at (e.g. 6.1.0-56-amd64).
candidate_version() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\(.*\)$/\1/p' | head -n 1
}

# As above; a fresh machine has no package lists yet: fetch them once.
resolve_version() {
	local v
	v=$(candidate_version)
	if [ -z "$v" ]; then
		as_root apt-get -q update >&2
		v=$(candidate_version)
	fi
	[ -n "$v" ] || { say "cannot resolve linux-image-amd64"; return 1; }
	echo "$v"
}

# The bzImage is XZ-compressed, and its decompressor runs slowly under TCG
# (about 2.5 s a boot). The kernel has PVH entry (CONFIG_PVH), so QEMU can boot
# the plain ELF instead: unpack it once, from the XZ stream inside vmlinuz.
unpack_vmlinux() {
	local ver=$1 z=$kdir/boot/vmlinuz-$1 out=$kdir/boot/vmlinux-$1 off
	off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$z" | head -n 1 | cut -d: -f1)
	[ -n "$off" ] || { say "no XZ stream in $z; guests boot the bzImage"; return 0; }
	tail -c +$((off + 1)) "$z" | xz -dc --single-stream >"$out.tmp"
	mv "$out.tmp" "$out"
}

# A cache is complete once VERSION is written (last step of extract_kernel).
cached_version() {
	[ -f "$kdir/VERSION" ] || return 1
	local v
	v=$(cat "$kdir/VERSION")
	[ -f "$kdir/boot/vmlinuz-$v" ] && [ -f "$kdir/lib/modules/$v/modules.dep.bin" ] &&
		echo "$v"
}

# Download linux-image-VER, extract it beside the cache, depmod it, then
# swap it in, so an interrupted run never leaves a half-made tree behind.
extract_kernel() {
	local ver=$1 debs=$cache/debs tmp=$cache/kernel.tmp
	mkdir -p "$debs"
	rm -f "$debs"/linux-image-*.deb
	# Downloaded as the user running this: _apt may not write into the cache directory.
	(cd "$debs" && apt_retry apt-get -q download "linux-image-$ver" \
		-o APT::Sandbox::User="$(id -un)")
	rm -rf "$tmp"
	say "extracting linux-image-$ver"
	dpkg-deb -x "$debs"/linux-image-"$ver"_*.deb "$tmp"
	depmod -b "$tmp" "$ver"
	echo "$ver" >"$tmp/VERSION"
	rm -rf "$kdir"
	mv "$tmp" "$kdir"
	rm -f "$debs"/linux-image-*.deb
}

main() {
	local ver
	mkdir -p "$cache"
	# Several runners may start at once on a cold cache: one fetches.
	exec 9>"$cache/.fetch.lock"
	flock 9
	if [ -n "${ND_VM_KVER:-}" ]; then
		ver=$ND_VM_KVER
	elif ! ver=$(cached_version); then
		ver=$(resolve_version)
	fi
	# shellcheck disable=SC2086 # one word per package
	install_pkgs $host_pkgs "linux-headers-$ver"
	[ "$(cached_version || true)" = "$ver" ] || extract_kernel "$ver"
	[ -f "$kdir/boot/vmlinux-$ver" ] || unpack_vmlinux "$ver"
	echo "$ver"
}

main "$@"
