#!/bin/bash
# Second stage of a guest booted by tests/vm/vm.sh: runs inside the chroot
# built from the host's root, with the environment the job on /dev/vda set
# (ND_VM_*, ND_OUT, PATH). Finishes the set-up that needs the host's tools,
# runs `bash SCRIPT ARGS` and leaves its exit status in $ND_OUT/rc, where vm.sh
# reads it.
#
# Usage (from the job only): guest-main.sh SCRIPT [ARGS...]
set -u

# configfs is a module in Debian's kernel, so it is mounted here, where
# modprobe can read the extracted module tree, rather than in the initramfs.
mount_configfs() {
	modprobe -d "$ND_VM_MODDIR" configfs &&
		mount -t configfs configfs /sys/kernel/config
}

setup() {
	hostname "nd-vm$ND_VM_INDEX"
	# A fresh kernel has lo down; tests may rendezvous on 127.0.0.1.
	/usr/sbin/ip link set lo up
	mount_configfs || echo "nd-vm: configfs not available" >&2
	# a FIFO nobody writes: `read -t` on it is a sleep that starts no process (serve.sh, jq)
	mkfifo /run/nd-vm.tick
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
