#!/bin/busybox sh
# PID 1 of a guest booted by tests/vm/vm.sh (busybox sh, inside the tiny
# initramfs). It mounts the host's root (9p, read-only), builds a root for the
# test out of it with writable tmpfs where tests write, and chroots into it to
# run the job that vm.sh put on the virtio disk /dev/vda. Then it powers off,
# which ends QEMU (-no-reboot).
#
# Files the initramfs carries: /bin/busybox, /modules/*.ko and /modules/order
# (load order, dependencies first, resolved by vm.sh from modules.dep).

/bin/busybox --install -s /bin
export PATH=/bin

die() {
	echo "nd-vm init: $*"
	# Give the console a moment, then end QEMU; vm.sh reports the missing rc.
	sleep 1
	poweroff -f
}

mount_basics() {
	mount -t devtmpfs dev /dev
	# The kernel may have found no /dev/console in the initramfs.
	exec </dev/console >/dev/console 2>&1
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
}

load_modules() {
	local m
	for m in $(cat /modules/order); do
		insmod "/modules/$m.ko" || die "insmod $m failed"
	done
}

# virtio probes may finish after insmod returns; wait for the job disk.
wait_for() {
	local i=0
	while [ ! -e "$1" ]; do
		i=$((i + 1))
		[ "$i" -le 100 ] || die "$1 did not appear"
		sleep 0.05
	done
}

p9() { mount -t 9p -o "trans=virtio,version=9p2000.L,msize=512000,$3" "$1" "$2"; }

# The test's root: a tmpfs whose top-level directories are bind mounts of the
# host's (read-only), so the test sees every host path at the same place, and
# the directories where programs write are fresh tmpfs instead.
build_root() {
	local e n
	mkdir -p /host /newroot
	p9 hostroot /host ro || die "cannot mount the host root (9p)"
	mount -t tmpfs -o mode=0755 root /newroot
	for e in /host/* /host/.[!.]*; do
		n=${e#/host/}
		if [ -L "$e" ]; then
			ln -s "$(readlink "$e")" "/newroot/$n"
		elif [ -d "$e" ]; then
			mkdir "/newroot/$n"
			case $n in
			proc | sys | dev | tmp | run | root) ;;
			*) mount -o bind "$e" "/newroot/$n" ;;
			esac
		fi
	done
	mount -t proc proc /newroot/proc
	mount -t sysfs sysfs /newroot/sys
	mount -t debugfs debugfs /newroot/sys/kernel/debug
	mount -t devtmpfs dev /newroot/dev
	mkdir -p /newroot/dev/pts /newroot/dev/shm
	mount -t devpts devpts /newroot/dev/pts
	for n in dev/shm tmp run root var/tmp var/lib; do
		[ -d "/newroot/$n" ] && [ ! -L "/newroot/$n" ] && mount -t tmpfs tmp "/newroot/$n"
	done
	chmod 1777 /newroot/tmp /newroot/var/tmp
	mkdir -p /newroot/var/lib/nodrop /newroot/out
	p9 out /newroot/out rw || die "cannot mount the out share (9p)"
}

mount_basics
load_modules
build_root
wait_for /dev/vda
# The job is a bash script padded with NULs to the disk's size.
tr -d '\000' </dev/vda >/newroot/run/nd-job.sh
chroot /newroot /bin/bash /run/nd-job.sh
sync
poweroff -f
