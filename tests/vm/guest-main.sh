#!/bin/bash
# Second stage of a guest booted by tests/vm/vm.sh: runs inside the chroot
# built from the host's root, with the environment the job on /dev/vda set
# (ND_VM_*, ND_OUT, PATH). Finishes the set-up that needs the host's tools,
# runs `bash SCRIPT ARGS` and leaves its exit status in $ND_OUT/rc, where vm.sh
# reads it.
#
# Usage (from the job only): guest-main.sh SCRIPT [ARGS...]
set -u

# The initramfs has mounted configfs, set lo up and made /run/nd-vm.tick (busybox, which
# starts faster than the host's programs under TCG).
setup() {
	hostname "nd-vm$ND_VM_INDEX"
}

main() {
	local rc
	setup
	bash "$@"
	rc=$?
	echo "$rc" >"$ND_OUT/rc"
	echo "nd-vm: guest $ND_VM_INDEX: $1 exited with status $rc"
}

main "$@"
