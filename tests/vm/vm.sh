#!/usr/bin/env bash
# Run a test script inside Debian's real kernel under QEMU (TCG), with the
# host's root shared read-only, so the guest runs the host's binaries and the
# project's build as they are. See /work/shared/reference/vm-testbed.md.
#
# Usage: tests/vm/vm.sh [-o OUTDIR] [-t TIMEOUT_S] [-n NGUESTS] SCRIPT [ARGS...]
#   -o OUTDIR    results: rc, console.log (per guest in OUTDIR/gN/ when N > 1);
#                shared writable into the guest at /out.
#                Default: a fresh directory under build/vm/out/.
#   -t TIMEOUT_S wall-clock limit for the whole run (default 300); on expiry
#                QEMU is killed and vm.sh exits 124.
#   -n NGUESTS   guests joined on one virtual wire (eth0), default 1.
#
# Each guest runs `bash SCRIPT ARGS` as root, cwd = repository root, with:
#   ND_VM_INDEX   guest index, 0-based        ND_VM_NGUESTS  number of guests
#   ND_VM_KVER    kernel version              ND_VM_MODDIR   root for modprobe -d
#   ND_VM_REPO    repository root             ND_OUT         /out (writable share)
#   PATH=/usr/sbin:/usr/bin:/sbin:/bin, and any ND_* / NODROP_* variable of
#   the caller's environment that the runner does not set itself.
# Exit status: the first guest's non-zero script status (by index), else 0;
# 3 when a guest left no status (console tail printed); 124 on timeout;
# 2 on bad usage.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=$repo/build/vm
kdir=$cache/kernel

# Modules the initramfs needs to reach the 9p shares, the job disk and the
# wire; everything else is loaded later from the shared module tree.
initrd_mods="virtio_pci virtio_blk 9pnet_virtio 9p virtio_net"

# Host directories the guest covers with its own mounts (initramfs-init.sh):
# a script there would be invisible inside.
shadowed="/proc /sys /dev /tmp /run /root /var/tmp /var/lib"

say() { echo "nd-vm: $*" >&2; }
usage() {
	sed -n '/^# Usage:/,/^set -eu/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

is_uint() { case $1 in '' | *[!0-9]*) return 1 ;; esac }

parse_args() {
	local opt
	outdir="" timeout_s=300 nguests=1
	while getopts "o:t:n:h" opt; do
		case $opt in
		o) outdir=$OPTARG ;;
		t) timeout_s=$OPTARG ;;
		n) nguests=$OPTARG ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[ $# -ge 1 ] || usage
	is_uint "$timeout_s" && [ "$timeout_s" -gt 0 ] || usage
	is_uint "$nguests" && [ "$nguests" -ge 1 ] && [ "$nguests" -le 64 ] || usage
	script=$(realpath -e "$1") || { say "no such script: $1"; exit 2; }
	shift
	args=("$@")
	check_visible "$script"
}

check_visible() {
	local d
	for d in $shadowed; do
		case $1 in "$d"/*)
			say "$1 is under $d, which the guest does not see; put it in the repository"
			exit 2
			;;
		esac
	done
}

# --- initramfs: busybox-static + the modules above, cached by content -------

# Module files, dependencies first, each once (modprobe resolves modules.dep).
initrd_modfiles() {
	local m
	for m in $initrd_mods; do
		modprobe -d "$kdir" -S "$kver" --show-depends "$m"
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }'
}

make_initrd() {
	local out=$1 stage f
	stage=$(mktemp -d "$cache/initramfs/stage.XXXXXX")
	mkdir -p "$stage/bin" "$stage/dev" "$stage/proc" "$stage/sys" "$stage/modules"
	cp /bin/busybox "$stage/bin/busybox"
	install -m 0755 "$here/initramfs-init.sh" "$stage/init"
	for f in $(initrd_modfiles); do
		cp "$f" "$stage/modules/"
		basename "$f" .ko >>"$stage/modules/order"
	done
	# Uncompressed: the kernel unpacks it faster than it would gunzip it under TCG.
	(cd "$stage" && find . | cpio -o -H newc --quiet) >"$out.tmp.$$"
	mv "$out.tmp.$$" "$out"
	rm -rf "$stage"
}

# Prints the path of an initramfs matching the current init script, kernel,
# module list and busybox; builds it when there is none.
initrd_path() {
	local key img
	key=$({
		cat "$here/initramfs-init.sh"
		echo "$kver $initrd_mods"
		stat -L -c '%s %Y' /bin/busybox
	} | md5sum | cut -c1-16)
	img=$cache/initramfs/$kver-$key.cpio
	if [ ! -f "$img" ]; then
		mkdir -p "$cache/initramfs"
		rm -f "$cache/initramfs/$kver"-*.cpio
		make_initrd "$img"
	fi
	echo "$img"
}

# --- per-guest job and QEMU command line -------------------------------------

# OUTDIR itself for one guest, OUTDIR/gN for several.
guest_dir() { if [ "$nguests" -eq 1 ]; then echo "$outdir"; else echo "$outdir/g$1"; fi; }

# The job the guest's init runs in the chroot: environment, cwd, then
# guest-main.sh. The runner's own variables come last so they win.
write_job() {
	local i=$1 v
	for v in $(compgen -e); do
		case $v in ND_* | NODROP_*) printf 'export %s=%q\n' "$v" "${!v}" ;; esac
	done
	printf 'export ND_VM_INDEX=%d ND_VM_NGUESTS=%d ND_VM_KVER=%q ND_OUT=/out\n' \
		"$i" "$nguests" "$kver"
	printf 'export ND_VM_MODDIR=%q ND_VM_REPO=%q\n' "$kdir" "$repo"
	echo 'export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb'
	printf 'cd %q || exit 1\n' "$repo"
	printf 'exec /bin/bash %q %q' "$here/guest-main.sh" "$script"
	[ ${#args[@]} -eq 0 ] || printf ' %q' "${args[@]}"
	echo
}

# A port on 127.0.0.1 nobody listens on (a clash fails loudly in QEMU).
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 40000))
		[ -z "$(ss -Hltn "sport = :$p")" ] && { echo "$p"; return; }
	done
}

# The wire, on loopback only: two guests use a TCP pair (guest 0 listens);
# more use a UDP multicast group bound to 127.0.0.1, a hub for all of them.
net_args() {
	local i=$1 mac
	[ "$nguests" -gt 1 ] || return 0
	mac=$(printf '52:54:00:00:00:%02x' $((i + 1)))
	if [ "$nguests" -gt 2 ]; then
		qargs+=(-netdev "socket,id=n0,mcast=$wire_group:$wire_port,localaddr=127.0.0.1")
	elif [ "$i" -eq 0 ]; then
		qargs+=(-netdev "socket,id=n0,listen=127.0.0.1:$wire_port")
	else
		qargs+=(-netdev "socket,id=n0,connect=127.0.0.1:$wire_port")
	fi
	qargs+=(-device "virtio-net-pci,netdev=n0,mac=$mac")
}

pick_wire() {
	wire_port=$(free_port)
	wire_group=239.255.$((RANDOM % 256)).$((RANDOM % 255 + 1))
}

# Sets qargs, QEMU's command line for guest $1 writing to directory $2.
qemu_args() {
	local i=$1 gdir=$2 smp=1
	# Two host cores: one guest gets both, several get one each.
	[ "$nguests" -eq 1 ] && [ "$(nproc)" -gt 1 ] && smp=2
	qargs=(-accel tcg -cpu max -m 1024 -smp "$smp"
		-nodefaults -no-user-config -display none -no-reboot -serial stdio
		-kernel "$kdir/boot/vmlinuz-$kver" -initrd "$initrd"
		-append "console=ttyS0 quiet panic=-1"
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$gdir,mount_tag=out,security_model=none"
		-drive "file=$run/g$i.img,format=raw,if=virtio,readonly=on"
		-pidfile "$run/g$i.pid")
	net_args "$i"
}

# Strip the console's escape codes and CRs, keep a log, show it (prefixed
# with the guest's name when there are several).
console_filter() {
	local log=$1 prefix=$2 esc=$'\033'
	sed -u -e 's/\r//g' -e "s/$esc\[[0-9;?]*[A-Za-z]//g" -e "s/$esc[()][0-9A-Za-z]//g" \
		-e "s/$esc[0-9A-Za-z=>]//g" | tee "$log" | sed -u "s/^/$prefix/"
}

start_guest() {
	local i=$1 gdir prefix=""
	gdir=$(guest_dir "$i")
	mkdir -p "$gdir"
	rm -f "$gdir/rc" "$gdir/console.log"
	write_job "$i" >"$run/g$i.sh"
	cp "$run/g$i.sh" "$run/g$i.img"
	truncate -s 1M "$run/g$i.img"
	[ "$nguests" -eq 1 ] || prefix="[g$i] "
	qemu_args "$i" "$gdir"
	{
		timeout -k 5 "$timeout_s" qemu-system-x86_64 "${qargs[@]}" </dev/null
		echo $? >"$run/g$i.status"
	} 2>&1 | console_filter "$gdir/console.log" "$prefix" &
	pipes+=($!)
}

# Guest 1 connects to guest 0's listening socket: wait until it listens.
wait_listener() {
	local n=0
	until [ -n "$(ss -Hltn "sport = :$wire_port")" ]; do
		n=$((n + 1))
		[ "$n" -le 200 ] && [ ! -e "$run/g0.status" ] || { say "guest 0 never listened"; return 1; }
		sleep 0.05
	done
}

# Ctrl-C or an error: stop every QEMU this run started.
stop_guests() {
	local f
	for f in "$run"/g*.pid; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	return 0
}

cleanup() {
	stop_guests
	rm -rf "$run"
}

# The status of guest $1: its script's rc, or 3 (tail shown) if it left none.
guest_rc() {
	local gdir
	gdir=$(guest_dir "$1")
	if [ -s "$gdir/rc" ]; then
		cat "$gdir/rc"
		return
	fi
	say "guest $1 left no exit status; console tail ($gdir/console.log):"
	tail -n 30 "$gdir/console.log" >&2
	echo 3
}

collect() {
	local i st rc first=0
	for ((i = 0; i < nguests; i++)); do
		st=$(cat "$run/g$i.status" 2>/dev/null || echo 124)
		if [ "$st" = 124 ] || [ "$st" = 137 ]; then
			say "guest $i timed out after ${timeout_s}s (console: $(guest_dir "$i")/console.log)"
			first=124
		fi
	done
	if [ "$first" -eq 0 ]; then
		for ((i = 0; i < nguests; i++)); do
			rc=$(guest_rc "$i")
			[ "$first" -ne 0 ] || first=$rc
		done
	fi
	say "results in $outdir (exit status $first)"
	return "$first"
}

prepare_outdir() {
	if [ -z "$outdir" ]; then
		mkdir -p "$cache/out"
		outdir=$(mktemp -d "$cache/out/$(date +%Y%m%d-%H%M%S).XXXX")
	fi
	mkdir -p "$outdir"
	outdir=$(cd "$outdir" && pwd)
}

main() {
	local i p
	parse_args "$@"
	kver=$("$here/fetch-kernel.sh")
	initrd=$(initrd_path)
	prepare_outdir
	run=$(mktemp -d "$cache/run.XXXXXX")
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	pipes=()
	pick_wire
	for ((i = 0; i < nguests; i++)); do
		start_guest "$i"
		[ "$i" -ne 0 ] || [ "$nguests" -ne 2 ] || wait_listener
	done
	for p in "${pipes[@]}"; do wait "$p" || true; done
	collect
}

main "$@"
