#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The Ansible scenario's nodrop_bin: runs PROGRAM ARGS in the guest (tests/vm/host-lib.sh).
# The guest reads the host's files through QEMU, which runs as the user who started the
# scenario; when the plays run as root through sudo, a file of root's that others may not read
# (the role's check-mode copy of the profile, mode 0600) is given to the guest as a copy that
# user owns.
# Usage: ND_VM_RELAY=DIR ND_VM_QEMU_UID=UID tests/vm/in-guest.sh PROGRAM [ARGS...]
set -u
. "$(dirname "${BASH_SOURCE[0]}")/host-lib.sh"

args=() copies=()
for a in "$@"; do
	if [ "$(id -u)" != "${ND_VM_QEMU_UID:?}" ] && [ -f "$a" ] &&
		[ $((8#$(stat -c %a "$a") & 4)) = 0 ]; then
		c=$(mktemp "$(dirname "$a")/in-guest.XXXXXX") && cat "$a" >"$c" &&
			chown "$ND_VM_QEMU_UID" "$c" || exit 125
		copies+=("$c")
		a=$c
	fi
	args+=("$a")
done
nd_vm_g "${args[@]}"
rc=$?
[ ${#copies[@]} = 0 ] || rm -f "${copies[@]}"
exit "$rc"
