#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# libnodrop's public API: what the shared library exports is exactly the version script
# (lib/libnodrop.map) and exactly the functions declared in include/nodrop/*.h; each public
# header stands alone in C and C++; a program built against the installed headers with pkg-config
# links shared and static and runs.
set -u
B=${1:-build}
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "not ok - $1"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in nm g++ pkg-config; do
	command -v "$t" >/dev/null ||
		{ echo "api.sh: $t missing (make deps-check installs it)" >&2; exit 1; }
done

# same NAME A B: two sorted lists, every difference named
same() {
	local d
	d=$(comm -3 "$2" "$3" | sed 's/^\t/only in second: /; /^only/! s/^/only in first: /')
	if [ -z "$d" ]; then
		ok "$1 ($(wc -l <"$2") symbols)"
	else
		bad "$1: $(tr '\n' ' ' <<<"$d")"
	fi
}

nm -D --defined-only "$B/libnodrop.so.0" |
	awk 'NF == 3 && $3 !~ /^NODROP_/ {sub(/@.*/, "", $3); print $3}' | sort -u >"$tmp/exported"
sed -n '/global:/,/local:/p' lib/libnodrop.map | grep -o '^[[:space:]]*nd_[a-z0-9_]*;' |
	tr -d ' \t;' | sort -u >"$tmp/map"
echo '#include <nodrop.h>' >"$tmp/all.c"
gcc -std=c11 -D_GNU_SOURCE -Iinclude -aux-info "$tmp/aux" -fsyntax-only "$tmp/all.c"
grep '^/\* include/nodrop/' "$tmp/aux" | grep -o '[A-Za-z_0-9]* (' | tr -d ' (' |
	sort -u >"$tmp/decl"
[ -s "$tmp/decl" ] || bad "no declarations read from include/nodrop/*.h"
same "exported symbols are the version script" "$tmp/exported" "$tmp/map"
same "the version script is the public headers' functions" "$tmp/map" "$tmp/decl"
odd=$(grep -v '^nd_' "$tmp/exported" | head -5)
if [ -z "$odd" ]; then
	ok "every exported symbol has the nd_ prefix"
else
	bad "exported without the nd_ prefix: $(tr '\n' ' ' <<<"$odd")..."
fi

for h in include/nodrop/*.h include/nodrop.h; do
	inc=${h#include/}
	printf '#include <%s>\n#include <%s>\n' "$inc" "$inc" >"$tmp/one.c"
	if gcc -std=c11 -Wall -Wextra -Werror -Iinclude -fsyntax-only "$tmp/one.c" 2>"$tmp/err" &&
		g++ -std=c++17 -Wall -Wextra -Werror -Iinclude -fsyntax-only -x c++ "$tmp/one.c" \
			2>>"$tmp/err"; then
		ok "$inc stands alone in C and C++"
	else
		bad "$inc does not stand alone: $(head -3 "$tmp/err")"
	fi
done

# Installed, as a user finds it: headers, .so, .a and nodrop.pc under a staging root. Built in
# a directory of its own: PREFIX reaches what knows the data directory, and the build the other
# tiers run (make check runs the VM scenarios beside this one) must not change under them.
build_sums() { md5sum "$B/datadir.h" "$B/nodrop" 2>/dev/null; }
before=$(build_sums)
if ! make -s --no-print-directory B="$B/api" install DESTDIR="$tmp/root" PREFIX=/usr \
	>"$tmp/install.log" 2>&1; then
	bad "make install into a staging root: $(tail -3 "$tmp/install.log")"
else
	ok "make install DESTDIR=... PREFIX=/usr"
	libdir=$(dirname "$(find "$tmp/root" -name libnodrop.so.0 | head -1)")
	pcdir=$(dirname "$(find "$tmp/root" -name nodrop.pc | head -1)")
	pc=(env PKG_CONFIG_SYSROOT_DIR="$tmp/root" PKG_CONFIG_PATH="$pcdir" pkg-config)
	want="api mtu 9000 pfc 0x08 headroom 48648 mtu"
	# the flags pkg-config prints are words to split
	read -ra cflags <<<"$("${pc[@]}" --cflags nodrop)"
	read -ra ldflags <<<"$("${pc[@]}" --libs nodrop)"
	read -ra static <<<"$("${pc[@]}" --static --libs nodrop | sed 's/-lnodrop\b/-l:libnodrop.a/')"
	for lang in c c++; do
		cc=gcc
		[ $lang = c++ ] && cc=g++
		# shared: only -lnodrop and the headers pkg-config names
		if $cc -x $lang "${cflags[@]}" tests/api/prog.c -x none "${ldflags[@]}" \
			-o "$tmp/prog-$lang" 2>"$tmp/err"; then
			got=$(LD_LIBRARY_PATH="$libdir" "$tmp/prog-$lang" 2>&1)
			if [ "$got" = "$want" ]; then
				ok "$lang program, shared, with pkg-config: $got"
			else
				bad "$lang program, shared, printed '$got', want '$want'"
			fi
			if ldd "$tmp/prog-$lang" | grep -q 'libnodrop.so.0'; then
				ok "$lang program links libnodrop.so.0"
			else
				bad "$lang program is not linked to libnodrop.so.0"
			fi
		else
			bad "$lang program, shared, does not build: $(head -5 "$tmp/err")"
		fi
		# static: libnodrop.a and everything pkg-config --static says it needs
		if $cc -x $lang "${cflags[@]}" tests/api/prog.c -x none "${static[@]}" \
			-o "$tmp/prog-$lang-static" 2>"$tmp/err"; then
			got=$("$tmp/prog-$lang-static" 2>&1)
			if [ "$got" = "$want" ]; then
				ok "$lang program, static, with pkg-config --static: $got"
			else
				bad "$lang program, static, printed '$got', want '$want'"
			fi
			if ldd "$tmp/prog-$lang-static" | grep -q 'libnodrop'; then
				bad "$lang static program still needs libnodrop.so"
			else
				ok "$lang static program carries libnodrop itself"
			fi
		else
			bad "$lang program, static, does not link: $(grep -m3 'undefined\|error' "$tmp/err")"
		fi
	done
fi
if [ "$(build_sums)" = "$before" ] && ! grep -q '"/usr/share/nodrop"' "$B/datadir.h"; then
	ok "the staged install left $B as it was ($(grep -o '"[^"]*"' "$B/datadir.h" | tr '\n' ' '))"
else
	bad "the staged install changed $B: $(build_sums)"
fi
echo "api: $pass passed, $fail failed"
[ "$fail" = 0 ]
