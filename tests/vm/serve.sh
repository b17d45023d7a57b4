#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The guest's side of a host-driven scenario (`tests/vm/vm.sh -H SCRIPT`): the scenario runs on
# the host at native speed and sends only what needs the guest's kernel here, through files in
# the uncached /out share (tests/vm/host-lib.sh writes them). Each request N.sh is a bash
# snippet run in a subshell of this one, with guest-lib.sh's functions, from the repository
# root; its stdout, stderr and status come back as N.out, N.err and N.rc (written last).
# OUTDIR is also bound at its host path, so a file the host writes there has one name on both
# sides. Ends when the host writes relay/stop.
# Usage (in the guest, from vm.sh only): tests/vm/serve.sh HOST_OUTDIR
set -u
. tests/vm/guest-lib.sh

relay=$ND_OUT/relay
mkdir -p "$relay"
/usr/bin/mount --bind "$ND_OUT" "$1" || { echo "nd_vm: cannot bind /out at $1" >&2; exit 1; }
# guest-main.sh's FIFO, held open both ways: `read -t` on it is a sleep that starts no process
exec 9<>/run/nd-vm.tick
touch "$relay/ready"
n=0
while [ ! -e "$relay/stop" ]; do
	if [ ! -e "$relay/$n.sh" ]; then
		read -r -t 0.02 -u 9 || true
		continue
	fi
	# shellcheck source=/dev/null # the host's request
	(. "$relay/$n.sh") </dev/null >"$relay/$n.out" 2>"$relay/$n.err"
	echo $? >"$relay/$n.rc.tmp"
	mv "$relay/$n.rc.tmp" "$relay/$n.rc"
	n=$((n + 1))
done
echo "nd_vm: served $n requests"
