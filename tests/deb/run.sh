#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make check-deb`: the Debian packages (debian/), built from a copy of the tree as git sees it
# (HEAD plus uncommitted changes: `git ls-files -co --exclude-standard`) in
# build/deb/src/nodrop-VERSION, with `dpkg-buildpackage -us -uc -b`; the .debs, .changes and
# .buildinfo are moved to build/deb/. Then lintian on the .changes (any E: fails) and the
# packages' contents: binary in /usr/sbin, library and plugin in the multiarch directory,
# units in /lib/systemd/system with /usr/sbin in ExecStart, nothing under /usr/local.
# Every step prints its time; the build log is build/deb/build.log, lintian's build/deb/lintian.log.
#
# Usage: tests/deb/run.sh        (make deps-deb installs what it needs)
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
out=$repo/build/deb
version=$(sed -n 's/^VERSION[[:space:]]*:=[[:space:]]*//p' "$repo/Makefile")
src=$out/src/nodrop-$version
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
fails=0 passes=0
t_start=$(date +%s)

say() { echo "  DEB    $*"; }
die() { echo "check-deb: $*" >&2; exit 1; }
ok() { passes=$((passes + 1)); say "ok   $*"; }
bad() { fails=$((fails + 1)); say "FAIL $*"; }
check() {	# check DESC CMD...
	local desc=$1; shift
	if "$@"; then ok "$desc"; else bad "$desc"; fi
}

git -C "$repo" rev-parse --verify -q HEAD >/dev/null || die "$repo is not a git checkout"
[ -n "$version" ] || die "no VERSION in the Makefile"
head -1 "$repo/debian/changelog" | grep -q "^nodrop ($version)" ||
	die "debian/changelog's first entry is not $version (the Makefile's VERSION)"

# ---- the tree, as git sees it: tracked and untracked-but-not-ignored files, as they are now ----
t0=$(date +%s)
rm -rf "$out"
mkdir -p "$src"
# a tracked file deleted in the working tree is skipped (--ignore-failed-read)
(cd "$repo" && git ls-files -co --exclude-standard -z |
	tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -x -C "$src"
say "ok   tree copied: HEAD $(git -C "$repo" rev-parse --short HEAD) plus $(git -C "$repo" status \
	--porcelain | wc -l) changed or new paths ($(($(date +%s) - t0)) s)"

# ---- build ----
t0=$(date +%s)
if ! (cd "$src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1; then
	tail -40 "$out/build.log"
	die "dpkg-buildpackage failed ($(($(date +%s) - t0)) s); log: $out/build.log"
fi
mv "$out"/src/*.deb "$out"/src/*.changes "$out"/src/*.buildinfo "$out"/
changes=$out/nodrop_${version}_$arch.changes
[ -f "$changes" ] || die "no $changes"
say "ok   dpkg-buildpackage -us -uc -b ($(($(date +%s) - t0)) s): $(cd "$out" && ls *.deb | tr '\n' ' ')"

# ---- lintian ----
t0=$(date +%s)
lintian --info --display-info --pedantic "$changes" >"$out/lintian.log" 2>&1 || true
errors=$(grep -c '^E: ' "$out/lintian.log" || true)
warnings=$(grep -c '^W: ' "$out/lintian.log" || true)
infos=$(grep -c '^[IP]: ' "$out/lintian.log" || true)
grep -E '^[EWIP]: ' "$out/lintian.log" | sed 's/^/         /' || true
if [ "$errors" = 0 ]; then
	ok "lintian ($(($(date +%s) - t0)) s): 0 errors, $warnings warnings, $infos info/pedantic"
else
	bad "lintian ($(($(date +%s) - t0)) s): $errors errors, $warnings warnings, $infos info/pedantic"
fi

# ---- contents ----
t0=$(date +%s)
deb() { echo "$out/${1}_${version}_$arch.deb"; }
files() { dpkg-deb -c "$(deb "$1")" | awk '{print $6}' | sed 's|^\./|/|'; }
has() {	# has PACKAGE PATH...: each path is in the package
	local p=$1 f list; shift
	list=$(files "$p")
	for f in "$@"; do
		grep -qxF "$f" <<<"$list" || { echo "  $p lacks $f" >&2; return 1; }
	done
}
member() { dpkg-deb --fsys-tarfile "$(deb "$1")" | tar -xO ".$2"; }
export -f deb member
export out version arch

for p in nodrop libnodrop0 libnodrop-dev nodrop-mpi; do
	[ -f "$(deb $p)" ] || { bad "package $p was built"; continue; }
	check "$p: nothing under /usr/local" \
		bash -c "! dpkg-deb -c '$(deb $p)' | grep -c '\./usr/local' >/dev/null"
done
check "nodrop: the tools in /usr/sbin, data in /usr/share/nodrop, man pages" \
	has nodrop /usr/sbin/nodrop /usr/sbin/nodrop-nightly /usr/share/man/man8/nodrop.8.gz \
	/usr/share/man/man5/nodrop-profile.5.gz /usr/share/nodrop/profiles/roce-lossless.yaml \
	/usr/share/nodrop/profiles/scenarios/incast-8.yaml /usr/share/nodrop/counters/mlx5.map \
	/usr/share/nodrop/contrib/nodrop-stress.sbatch /usr/share/doc/nodrop/copyright
units="nodrop-apply@.service nodrop-counters.service nodrop-counters.timer nodrop-stress.service
	nodrop-stress.timer"
check "nodrop: the systemd units in /lib/systemd/system" \
	has nodrop $(for u in $units; do echo /lib/systemd/system/$u; done)
check "nodrop: the units run /usr/sbin/nodrop, never /usr/local" bash -c "
	for u in $(echo $units); do
		t=\$(dpkg-deb --fsys-tarfile '$(deb nodrop)' | tar -xO ./lib/systemd/system/\$u) || exit 1
		! grep -q /usr/local <<<\"\$t\" || exit 1
		case \$u in *.service) grep -q '^ExecStart.*/usr/sbin/nodrop' <<<\"\$t\" ||
			grep -q 'sh -c' <<<\"\$t\" || exit 1;; esac
	done"
check "nodrop: no unit is enabled or started by the maintainer scripts" bash -c "
	d=\$(mktemp -d); dpkg-deb -e '$(deb nodrop)' \$d
	! grep -hE 'deb-systemd-invoke (start|restart)|systemctl (enable|start)' \$d/* 2>/dev/null
	r=\$?; rm -rf \$d; exit \$r"
# the counter maps are built in: the tool names only the site's directory for them
check "nodrop: the tool's site map directory is /etc's, its plugin directory /usr's" bash -c "
	b=\$(member nodrop /usr/sbin/nodrop | strings)
	grep -qx /etc/nodrop/counters <<<\"\$b\" && grep -qx /usr/lib/$ma/nodrop <<<\"\$b\" &&
	! grep -q /usr/local <<<\"\$b\""
check "libnodrop0: libnodrop.so.0 in /usr/lib/$ma, and the symbols file" \
	has libnodrop0 /usr/lib/$ma/libnodrop.so.0
check "libnodrop0: its soname is libnodrop.so.0, versioned symbols (lib/libnodrop.map)" bash -c "
	d=\$(mktemp -d); dpkg-deb -x '$(deb libnodrop0)' \$d; dpkg-deb -e '$(deb libnodrop0)' \$d/DEBIAN
	objdump -p \$d/usr/lib/$ma/libnodrop.so.0 | grep -q 'SONAME *libnodrop.so.0' &&
	grep -q '^libnodrop.so.0 libnodrop0 ' \$d/DEBIAN/symbols &&
	grep -q '@NODROP_0.1' \$d/DEBIAN/symbols; r=\$?; rm -rf \$d; exit \$r"
check "libnodrop-dev: headers, .so link, .a, nodrop.pc in /usr/lib/$ma/pkgconfig" \
	has libnodrop-dev /usr/include/nodrop.h /usr/include/nodrop/base.h \
	/usr/lib/$ma/libnodrop.so /usr/lib/$ma/libnodrop.a /usr/lib/$ma/pkgconfig/nodrop.pc
check "libnodrop-dev: nodrop.pc says prefix=/usr, libdir=/usr/lib/$ma" bash -c "
	pc=\$(member libnodrop-dev /usr/lib/$ma/pkgconfig/nodrop.pc)
	grep -qx prefix=/usr <<<\"\$pc\" && grep -qx libdir=/usr/lib/$ma <<<\"\$pc\" &&
	grep -qx includedir=/usr/include <<<\"\$pc\""
check "nodrop-mpi: the plugin in /usr/lib/$ma/nodrop, depending on the MPI library" bash -c "
	dpkg-deb -c '$(deb nodrop-mpi)' | grep -c '\./usr/lib/$ma/nodrop/nodrop-mpi.so\$' >/dev/null &&
	dpkg-deb -f '$(deb nodrop-mpi)' Depends | grep -q 'libopenmpi'"
say "ok   contents checked ($(($(date +%s) - t0)) s)"

say "$passes passed, $fails failed in $(($(date +%s) - t_start)) s (packages in $out)"
[ "$fails" = 0 ]
