#!/bin/busybox sh
# shellcheck shell=dash
# PID 1 of a guest booted by tests/vm/vm.sh (busybox sh, inside the tiny
# initramfs). It mounts the host's root (9p, read-only), builds a root for the
# test out of it, writable where tests write, and chroots into it to
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
	while read -r m; do
		insmod "/modules/$m.ko" || die "insmod $m failed"
	done </modules/order
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

# /root and /var/lib keep the host's contents (a repository may live under
# /root; tools read /var/lib) and take writes: an overlay with its upper
# layer in a tmpfs.
writable_copy() {
	local u
	u=/ovl/$(echo "$1" | tr / _)
	mkdir -p "$u/upper" "$u/work" &&
		mount -t overlay overlay -o "lowerdir=/host/$1,upperdir=$u/upper,workdir=$u/work" "/newroot/$1"
}

# The test's root: a tmpfs whose top-level directories are bind mounts of the
# host's (read-only), so the test sees every host path at the same place;
# where programs write there are fresh tmpfs (/tmp /run /var/tmp /dev/shm
# /var/lib/nodrop) or writable overlays (/root /var/lib), and /out is the
# writable share of the run's OUTDIR.
build_root() {
	local e n
	mkdir -p /host /newroot /ovl
	# cache=loose: the guest caches what it read of the host; nothing on the
	# host is expected to change under a running test, and exec is faster.
	p9 hostroot /host ro,cache=loose || die "cannot mount the host root (9p)"
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
	mount -t configfs configfs /newroot/sys/kernel/config || echo "nd-vm init: configfs not available"
	mount -t devtmpfs dev /newroot/dev
	mkdir -p /newroot/dev/pts /newroot/dev/shm
	mount -t devpts devpts /newroot/dev/pts
	for n in dev/shm tmp run var/tmp; do
		[ -d "/newroot/$n" ] && [ ! -L "/newroot/$n" ] && mount -t tmpfs tmp "/newroot/$n"
	done
	chmod 1777 /newroot/tmp /newroot/var/tmp
	mkdir -p /newroot/run/lock /newroot/out
	# a FIFO nobody writes: `read -t` on it is a sleep that starts no process (serve.sh, jq)
	mkfifo /newroot/run/nd-vm.tick
	mount -t tmpfs ovl /ovl
	for n in root var/lib; do
		writable_copy "$n" || mount -t tmpfs tmp "/newroot/$n"
	done
	# nodrop's own state starts empty, whatever the host keeps there.
	mkdir -p /newroot/var/lib/nodrop
	mount -t tmpfs tmp /newroot/var/lib/nodrop
	p9 out /newroot/out rw || die "cannot mount the out share (9p)"
	bind_repo
}

# The repository at its host path even where a tmpfs above covers the host's
# directory (a CI clone under /tmp): vm.sh passes the path as nd_repo=.
bind_repo() {
	local repo w
	for w in $(cat /proc/cmdline); do
		case $w in nd_repo=*) repo=${w#nd_repo=} ;; esac
	done
	[ -n "$repo" ] || return 0
	[ -d "/newroot$repo" ] && [ "$(ls -A "/newroot$repo" 2>/dev/null)" ] && return 0
	mkdir -p "/newroot$repo" && mount -o bind "/host$repo" "/newroot$repo" ||
		die "cannot bind the repository $repo"
}

mount_basics
load_modules
# a fresh kernel has lo down; tests may rendezvous on 127.0.0.1
ip link set lo up
build_root
wait_for /dev/vda
# The job is a bash script padded with NULs to the disk's size.
tr -d '\000' </dev/vda >/newroot/run/nd-job.sh
chroot /newroot /bin/bash /run/nd-job.sh
sync
poweroff -f
