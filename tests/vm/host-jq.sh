#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The host's side of the guests' jq (tests/vm/guest-bin/jq): runs each request a guest leaves in
# its /out share (DIR/jq/ID.go, with ID.argv, the files it names and ID.in) with /usr/bin/jq
# here, at native speed, and leaves ID.out, ID.err, then ID.rc for the guest to read. Requests
# and answers stay in DIR/jq for a look afterwards: nothing here removes or renames a file a guest
# made (the guest's 9p client looks a file up again right after creating it, and a file gone
# meanwhile fails its creation). Started and stopped by tests/vm/vm.sh, one server for all of a
# run's guests; it also ends when vm.sh does.
# Usage: tests/vm/host-jq.sh TICK_FIFO DIR...
set -u

tick=$1
shift
for d; do
	rm -rf "$d/jq"
	mkdir -p "$d/jq"
	: >"$d/jq/ready"
done
trap 'for d; do rm -f "$d/jq/ready"; done' EXIT
trap 'exit 0' TERM INT

serve() { # DIR ID
	local argv in=/dev/null
	mapfile -d '' -t argv <"$1/$2.argv"
	[ ! -e "$1/$2.in" ] || in=$1/$2.in
	# the files it names are in the request's directory, under the names argv gives them
	(cd "$1" && exec /usr/bin/jq "${argv[@]}") <"$in" >"$1/$2.out" 2>"$1/$2.err"
	echo $? >"$1/$2.rc.tmp"
	mv "$1/$2.rc.tmp" "$1/$2.rc"
}

exec 9<>"$tick"
shopt -s nullglob
parent=$PPID
while kill -0 "$parent" 2>/dev/null; do
	busy=0
	for d; do
		for f in "$d"/jq/*.go; do
			# answered: ID.rc is this server's own file
			[ ! -e "${f%.go}.rc" ] || continue
			id=${f##*/}
			serve "$d/jq" "${id%.go}"
			busy=1
		done
	done
	[ "$busy" = 1 ] || read -r -t 0.005 -u 9 || true
done
