#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make check-fresh`: what a newcomer on a bare Debian 12 gets. A minbase bookworm chroot
# (debootstrap --variant=minbase) receives a clean `git archive` of HEAD and runs the README's
# two commands, taken from README.md itself, verbatim, as a sudo user; then installs with both
# orders of `make install PREFIX=/usr` and runs the installed binary. Last the Debian packages: built in
# another bare minbase (apt-get build-dep, dpkg-buildpackage), installed with apt-get into a
# third, and the installed tool run again. Root only (debootstrap, chroot, mounts). Every step
# prints its time; the whole log is in build/fresh/log.
#
# Usage: tests/fresh/run.sh
#   ND_FRESH_KEEP=1  keep the chroot afterwards (build/fresh/root) for a look inside
#   ND_FRESH_DEB=only  the Debian packages' part alone; ND_FRESH_DEB=0 skips it
#   ND_FRESH_SUDO=1    a sudo user runs both README commands on the bare system, then root the
#                      first (the default); ND_FRESH_SUDO=only the sudo user's part alone (then
#                      stop); 0: root runs both, no sudo user
# The bare system is cached as build/fresh/minbase.tar after the first debootstrap (it is what
# debootstrap makes, nothing added); `rm build/fresh/minbase.tar` to make it anew.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$repo/build/fresh
root=$work/root
log=$work/log
src=/root/nodrop		# where the tree lies in the chroot
fails=0 passes=0

say() { echo "  FRESH  $*"; }
die() { echo "check-fresh: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot and mounts)"
command -v debootstrap >/dev/null || die "debootstrap is not installed: apt-get install debootstrap"
git -C "$repo" rev-parse --verify -q HEAD >/dev/null || die "$repo is not a git checkout"

unmount() {
	local m
	# deepest first
	for m in $(awk -v r="$root" '$2 == r || index($2, r "/") == 1 {print $2}' /proc/mounts |
		sort -r); do
		umount -l "$m" 2>/dev/null || true
	done
}

cleanup() {
	unmount
	# never delete through a mount that is still there (the host's /dev and /sys are bound in)
	if awk -v r="$root" 'index($2, r "/") == 1 {found = 1} END {exit !found}' /proc/mounts; then
		echo "check-fresh: mounts under $root remain; not deleting it" >&2
		return
	fi
	[ "${ND_FRESH_KEEP:-0}" = 1 ] || rm -rf --one-file-system "$root"
}

# The archive the host's apt uses for bookworm (no host name is written in this repository).
mirror() {
	apt-get indextargets --format '$(REPO_URI) $(CODENAME)' 2>/dev/null |
		awk '$2 == "bookworm" {print $1; exit}'
}

bare_system() {
	local m
	if [ -f "$work/minbase.tar" ]; then
		tar -xf "$work/minbase.tar" -C "$root"
		return
	fi
	m=$(mirror)
	[ -n "$m" ] || { apt-get update -qq; m=$(mirror); }
	[ -n "$m" ] || die "no bookworm archive among the host's apt sources"
	debootstrap --variant=minbase bookworm "$root" "$m" >>"$log" 2>&1 ||
		die "debootstrap failed; see $log"
	tar -cf "$work/minbase.tar.tmp" -C "$root" . && mv "$work/minbase.tar.tmp" "$work/minbase.tar"
}

# The chroot sees the host's kernel interfaces and apt sources, as a machine would its own.
enter_prepare() {
	# the tree's root a mount of its own, as a machine's is: in it, `unshare -m` can make the
	# mounts private (the Ansible scenario's namespace), which needs / to be a mount point
	mount --bind "$root" "$root" && mount --make-private "$root"
	mount -t proc proc "$root/proc"
	mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys"
	mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"
	mount -t tmpfs tmpfs "$root/tmp"
	cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
	rm -f "$root/etc/apt/sources.list"
	cp /etc/apt/sources.list "$root/etc/apt/" 2>/dev/null || true
	find /etc/apt/sources.list.d -maxdepth 1 \( -name '*.list' -o -name '*.sources' \) \
		-exec cp {} "$root/etc/apt/sources.list.d/" \;
}

# in_chroot CMD: a login-like root shell in the tree, with a clean environment
in_chroot() {
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/bash -c "cd $src && $1"
}

# step DESC CMD: run CMD in the chroot, log its output, print its time; a failure is counted
# step DESC CMD [show]: show also prints the command's output as it comes (the README's
# commands: CI runs `make check` nowhere else, so its tiers' counts are read here)
step() {
	local desc=$1 cmd=$2 show=${3:-} t0 t1 rc
	t0=$(date +%s)
	echo "### $desc: $cmd" >>"$log"
	if [ -n "$show" ]; then
		if in_chroot "$cmd" 2>&1 | tee -a "$log"; then rc=0; else rc=${PIPESTATUS[0]}; fi
	elif in_chroot "$cmd" >>"$log" 2>&1; then rc=0; else rc=$?; fi
	t1=$(date +%s)
	if [ "$rc" = 0 ]; then
		passes=$((passes + 1))
		say "ok   $desc ($((t1 - t0)) s): $cmd"
	else
		fails=$((fails + 1))
		say "FAIL $desc ($((t1 - t0)) s, exit $rc): $cmd"
		tail -30 "$log" | sed 's/^/         /'
	fi
	return "$rc"
}

apt_in='apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq'

# The commands under README's "Two commands for a newcomer": the first sh block, comments off.
readme_commands() {
	awk '/^## Two commands for a newcomer/ {on = 1; next}
	     on && /^```sh/ {inblock = 1; next}
	     inblock && /^```/ {exit}
	     inblock {sub(/[ \t]*#.*/, ""); if (length($0)) print}' "$repo/README.md"
}

# The installed tool, from the installed data only: counters maps, profiles, scenarios.
installed_checks() {
	local how=$1
	step "$how: installed nodrop finds its counter maps" \
		"cd / && /usr/sbin/nodrop counters" || true
	step "$how: triage -d 1" "cd / && /usr/sbin/nodrop triage -d 1" || true
	step "$how: headroom" \
		"cd / && /usr/sbin/nodrop headroom --speed 100G --cable 40m --mtu 9216 | grep -q '48648'" ||
		true
	step "$how: sim on a shipped scenario from the data dir" \
		"cd / && /usr/sbin/nodrop sim /usr/share/nodrop/profiles/scenarios/incast-8.yaml" || true
	# a profile extending the installed one, aimed at lo (no DCB): the dry run plans and says
	# what lo cannot hold (exit 1), which proves the installed profile was found and loaded
	step "$how: apply --dry-run on a shipped profile" \
		"cd / && printf 'extends: /usr/share/nodrop/profiles/roce-lossless.yaml\nports: {names: [lo]}\n' >/tmp/lo.yaml &&
		 { /usr/sbin/nodrop apply --dry-run --dev lo /tmp/lo.yaml; test \$? = 1; } &&
		 /usr/sbin/nodrop apply --dry-run --dev lo /tmp/lo.yaml | grep -q 'pfc.priorities.*not supported by this driver'" ||
		true
	step "$how: the man pages are installed" "test -f /usr/share/man/man8/nodrop-apply.8 ||
		test -f /usr/share/man/man8/nodrop-apply.8.gz" || true
}

mkdir -p "$work"
: >"$log"
cleanup
mkdir -p "$root"
trap cleanup EXIT
t_start=$(date +%s)

t0=$(date +%s)
bare_system
say "ok   bare Debian 12 minbase ($(($(date +%s) - t0)) s)"
in_chroot_has() { chroot "$root" /bin/sh -c "command -v $1" >/dev/null 2>&1; }
for tool in make gcc git; do
	in_chroot_has "$tool" && die "the bare system has $tool: not a bare system"
done
say "ok   the bare system has no make, no gcc, no git"
enter_prepare
mkdir -p "$root$src"
git -C "$repo" archive HEAD | tar -x -C "$root$src"
say "ok   git archive of HEAD ($(git -C "$repo" rev-parse --short HEAD)) copied in"

deb=${ND_FRESH_DEB:-1}
if [ "$deb" != only ]; then
mapfile -t cmds < <(readme_commands)
[ "${#cmds[@]}" = 2 ] || die "README.md's newcomer block has ${#cmds[@]} commands, want 2: ${cmds[*]}"

# First, on the bare system, a user of the sudo group (passwordless, as cloud images make
# them) runs the README's two commands, before root has installed anything: every step that
# needs root (the Makefile's installs, the VM tier's kernel and headers, the Ansible scenario's
# mount namespace) goes through sudo. CI runs `make check` here and nowhere else, so its tiers'
# counts are read from this run. Root then runs the first command in its own copy (the second
# as root is every developer's run on a host of their own: twice would double CI's time).
if [ "${ND_FRESH_SUDO:-1}" != 0 ]; then
	step "a user 'dev' in the sudo group" \
		"$apt_in --no-install-recommends sudo >/dev/null && useradd -m -G sudo dev &&
		 echo 'dev ALL=(ALL) NOPASSWD: ALL' >/etc/sudoers.d/dev && cp -a $src /home/dev/ &&
		 chown -R dev:dev /home/dev/${src##*/}" || die "could not make the sudo user; log: $log"
	for c in "${cmds[@]}"; do
		step "README as dev (sudo)" "su dev -c 'cd ~/${src##*/} && $c'" show ||
			die "the README's '$c' failed for a sudo user on a bare Debian 12; log: $log"
	done
	[ "${ND_FRESH_SUDO:-1}" != only ] || exit 0
	cmds=("${cmds[0]}")
fi
for c in "${cmds[@]}"; do
	step "README" "$c" show || die "the README's command '$c' failed on a bare Debian 12; log: $log"
done

# order 1: build, then install with another PREFIX (a staged install, copied in as a package)
step "install, order 1" "make && make install PREFIX=/usr DESTDIR=/tmp/stage >/dev/null &&
	cp -a /tmp/stage/. / && ! grep -rq /usr/local/share/nodrop /usr/sbin/nodrop" || true
installed_checks "order 1"
step "uninstall" "make uninstall PREFIX=/usr >/dev/null && test ! -e /usr/sbin/nodrop &&
	test ! -e /usr/share/nodrop" || true
# order 2: PREFIX given with install in one go, into the system itself
step "install, order 2" "make clean >/dev/null && make PREFIX=/usr install >/dev/null" || true
installed_checks "order 2"
fi

# ---- the Debian packages (debian/) ----
# Built in a bare minbase of their own, a fresh extract: `apt-get build-dep ./` installs
# build-essential and debian/control's Build-Depends and nothing else, and the build must not
# install more (the Makefile's deps rule would: the package lists before and after must agree),
# so a missing Build-Depends fails here. Then installed with apt-get into a third bare one,
# where their Depends must come from the archive, and the installed tool run from its data.
# The tree is check-deb's: as git sees it (HEAD plus uncommitted changes; on CI, HEAD). The
# .debs the README's chroot downloaded seed the new chroots' apt caches (hard links).
cache=$work/apt-cache
fresh_root() {
	unmount
	if awk -v r="$root" 'index($2, r "/") == 1 {found = 1} END {exit !found}' /proc/mounts; then
		die "mounts under $root remain; not deleting it"
	fi
	rm -rf --one-file-system "$root"
	mkdir -p "$root"
	bare_system
	enter_prepare
	mkdir -p "$root$src"
	[ ! -d "$cache" ] || find "$cache" -maxdepth 1 -name '*.deb' \
		-exec cp -l -t "$root/var/cache/apt/archives/" {} + 2>/dev/null || true
}
debs() {	# the binary packages, no debug symbols
	find "$1" -maxdepth 1 -name '*_*.deb' ! -name '*-dbgsym_*'
}
pkgs_now="dpkg-query -W -f='\${Package} \${Version}\n' | sort"
if [ "$deb" != 0 ]; then
	rm -rf "$cache" "$work/debs"
	mkdir -p "$cache" "$work/debs"
	find "$root/var/cache/apt/archives" -maxdepth 1 -name '*.deb' \
		-exec cp -l -t "$cache/" {} + 2>/dev/null || true
	t0=$(date +%s)
	fresh_root
	(cd "$repo" && git ls-files -co --exclude-standard -z |
		tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -x -C "$root$src"
	say "ok   packages: a bare minbase with the tree as git sees it ($(($(date +%s) - t0)) s)"
	step "packages: apt-get build-dep ./ (build-essential + Build-Depends)" \
		"$apt_in --no-install-recommends build-essential >/dev/null &&
		 DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq ./ >/dev/null" || true
	step "packages: dpkg-buildpackage -us -uc -b installs nothing more" \
		"$pkgs_now >/tmp/pkgs.before && dpkg-buildpackage -us -uc -b >/tmp/build.log 2>&1 ||
		 { tail -30 /tmp/build.log; exit 1; }; $pkgs_now | diff /tmp/pkgs.before -" || true
	step "packages: a program built with pkg-config against libnodrop-dev" \
		"$apt_in ../libnodrop0_*.deb ../libnodrop-dev_*.deb >/dev/null &&
		 gcc -o /tmp/prog tests/api/prog.c \$(pkg-config --cflags --libs nodrop) &&
		 ldd /tmp/prog | grep 'libnodrop.so.0 => /' && /tmp/prog && /tmp/prog | grep -q 48648" ||
		true
	debs "$root${src%/*}" | xargs -r cp -t "$work/debs/"
	[ -n "$(debs "$work/debs")" ] || die "no packages were built; log: $log"

	t0=$(date +%s)
	fresh_root
	debs "$work/debs" | xargs -r cp -t "$root$src/"
	say "ok   packages: another bare minbase, $(debs "$work/debs" | wc -l) .debs copied in" \
		"($(($(date +%s) - t0)) s)"
	step "packages: apt-get install ./*.deb" "$apt_in ./*.deb >/dev/null &&
		dpkg -s nodrop libnodrop0 libnodrop-dev nodrop-mpi | grep -c '^Status: install ok installed' |
		grep -qx 4" || true
	installed_checks "packages"
	step "packages: units installed, none enabled" \
		"for u in nodrop-apply@.service nodrop-counters.service nodrop-counters.timer \
			nodrop-stress.service nodrop-stress.timer; do
			dpkg -L nodrop | grep -qx /lib/systemd/system/\$u || exit 1; done &&
		 ! find /etc/systemd /var/lib/systemd/deb-systemd-helper-enabled -path '*.wants/nodrop*' \
			2>/dev/null | grep . && ! dpkg -L nodrop | grep -q /usr/local" || true
	step "packages: the tool looks for the MPI plugin where nodrop-mpi puts it" \
		"p=\$(dpkg -L nodrop-mpi | grep '/nodrop/nodrop-mpi.so\$') && test -f \$p &&
		 grep -aq \"\${p%/*}\" /usr/sbin/nodrop" || true
	step "packages: purge leaves nothing of nodrop" \
		"apt-get purge -y -qq nodrop nodrop-mpi libnodrop-dev libnodrop0 >/dev/null &&
		 test ! -e /usr/share/nodrop && test ! -e /usr/sbin/nodrop &&
		 test ! -e /lib/systemd/system/nodrop-counters.timer" || true
	rm -rf "$cache"
fi

say "$passes passed, $fails failed in $(($(date +%s) - t_start)) s (log: $log)"
echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
