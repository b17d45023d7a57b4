# shellcheck shell=bash
# Helpers for guest scenarios run by tests/vm/vm.sh; source it:
#   . tests/vm/guest-lib.sh
# Inside the guest the host's root is shared read-only and the running kernel
# is not the host's, so modules come from $ND_VM_MODDIR (modprobe -d), and
# iproute2 is called by absolute path: busybox applets of the same names
# shadow it in some shells.
#
# Functions:
#   nd_vm_modprobe NAME...      load modules (with dependencies) from the VM tree
#   nd_vm_rxe_up [NETDEV]       soft-RoCE: veth0/veth1 + rxe0/rxe1, or rxe0 on NETDEV
#   nd_vm_rxe_gid RXE IPV4      GID index of IPV4 on RXE port 1 (waits for it)
#   nd_vm_rxe_hw RXE NAME       RXE port 1's hw_counters NAME (sent_pkts, rcvd_pkts, ...)
#   nd_vm_rxe_sent_over RXE N   RXE has sent more than N packets
#   nd_vm_rxe_flowing RXE BASE  wait up to 45 s until RXE has sent 50 packets more than BASE
#   nd_vm_configfs              configfs + rdma_cm, mounted at /sys/kernel/config
#   nd_vm_nicsim_load N [P=V..] insmod $ND_VM_NICSIM_KO nports=N and module parameters P=V
#   nd_vm_retry N DELAY CMD...  run CMD until it succeeds, at most N times
#   nd_vm_dcb ARGS...           /usr/sbin/dcb ARGS, made again on iproute2's spurious EPROTO
#   nd_vm_pass DESC / nd_vm_fail DESC / nd_vm_check DESC CMD...   TAP lines
#   nd_vm_done                  print the tally; exit 1 if anything failed
#   nd_vm_need CMD PKG          fail (never skip) when CMD is missing, naming the package

ND_VM_REPO=${ND_VM_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
ND_VM_MODDIR=${ND_VM_MODDIR:-$ND_VM_REPO/build/vm/kernel}
ND_VM_INDEX=${ND_VM_INDEX:-0}
ND_VM_NICSIM_KO=${ND_VM_NICSIM_KO:-$ND_VM_REPO/build/vm/nicsim/nicsim.ko}

nd_vm_ntests=0
nd_vm_nfailed=0

nd_vm_err() { echo "nd_vm: $*" >&2; }

nd_vm_modprobe() {
	/usr/sbin/modprobe -d "$ND_VM_MODDIR" -a "$@" ||
		{ nd_vm_err "cannot load $* from $ND_VM_MODDIR"; return 1; }
}

# Soft-RoCE and the user-space verbs/CM interfaces. crc32_generic is not a
# dependency modules.dep knows of, but rdma_rxe needs it (crc32 by name).
nd_vm_rxe_modules() {
	nd_vm_modprobe crc32_generic rdma_rxe ib_uverbs rdma_ucm
}

# nd_vm_addr_up DEV CIDR: address DEV and bring it up.
nd_vm_addr_up() {
	/usr/sbin/ip addr add "$2" dev "$1" && /usr/sbin/ip link set "$1" up
}

nd_vm_rxe_add() { # RXE NETDEV
	/usr/bin/rdma link add "$1" type rxe netdev "$2" ||
		{ nd_vm_err "rdma link add $1 on $2 failed"; return 1; }
}

# Without NETDEV (one guest): veth0 198.18.0.1/24 <-> veth1 198.18.0.2/24,
# rxe0 on veth0 and rxe1 on veth1. Both addresses are local to the guest, so
# IP routes traffic between them through lo, where no rxe listens: RDMA
# between rxe1 and rxe0 does not flow. rxe loops traffic back within one
# device, so run both ends of a test on rxe0 (client to 198.18.0.1).
# Traffic over a real wire needs two guests (vm.sh -n 2).
# With NETDEV (several guests, eth0): 198.18.0.(ND_VM_INDEX+1)/24 and rxe0.
nd_vm_rxe_up() {
	nd_vm_rxe_modules || return 1
	if [ $# -eq 0 ]; then
		nd_vm_modprobe veth || return 1
		/usr/sbin/ip link add veth0 type veth peer name veth1 &&
			nd_vm_addr_up veth0 198.18.0.1/24 &&
			nd_vm_addr_up veth1 198.18.0.2/24 &&
			nd_vm_rxe_add rxe0 veth0 &&
			nd_vm_rxe_add rxe1 veth1
	else
		nd_vm_addr_up "$1" "198.18.0.$((ND_VM_INDEX + 1))/24" &&
			nd_vm_rxe_add rxe0 "$1"
	fi
}

nd_vm_rxe_hw() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; }

nd_vm_rxe_sent_over() { [ "$(nd_vm_rxe_hw "$1" sent_pkts)" -gt "$2" ]; } # RXE N

# Traffic flows: what a test that interrupts a run mid-way waits for, instead of a fixed time
# (on a busy host, joining alone has taken longer than any fixed wait).
nd_vm_rxe_flowing() { # RXE BASE
	nd_vm_retry 450 0.1 nd_vm_rxe_sent_over "$1" $(($2 + 50)) ||
		{ nd_vm_err "$1 sent no traffic in 45 s"; return 1; }
}

# The GID table lists link-local IPv6 and IPv4-mapped entries in the order
# the addresses appeared, so the index of an IPv4 GID is looked up, not
# assumed. Waits up to 5 s for the entry.
nd_vm_rxe_gid() { # RXE IPV4
	local want f i=0 a b c d
	IFS=. read -r a b c d <<<"$2"
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")
	while [ "$i" -lt 50 ]; do
		for f in /sys/class/infiniband/"$1"/ports/1/gids/*; do
			[ "$(cat "$f" 2>/dev/null)" = "$want" ] && { echo "${f##*/}"; return 0; }
		done
		i=$((i + 1))
		sleep 0.1
	done
	nd_vm_err "no GID for $2 on $1"
	return 1
}

nd_vm_configfs() {
	nd_vm_modprobe configfs rdma_cm || return 1
	/usr/bin/mountpoint -q /sys/kernel/config ||
		/usr/bin/mount -t configfs configfs /sys/kernel/config
}

nd_vm_nicsim_load() { # NPORTS [PARAM=VALUE...]
	local n=${1:-1}
	[ $# -eq 0 ] || shift
	if [ ! -f "$ND_VM_NICSIM_KO" ]; then
		nd_vm_err "$ND_VM_NICSIM_KO not found: build it first (tests/vm/nicsim/), or set ND_VM_NICSIM_KO"
		return 1
	fi
	/usr/sbin/insmod "$ND_VM_NICSIM_KO" "nports=$n" "$@" ||
		{ nd_vm_err "insmod $ND_VM_NICSIM_KO nports=$n $* failed"; return 1; }
}

# iproute2's dcb, the tests' oracle and setter of start states. Debian 12's dcb (iproute2 6.1)
# stops reading at the attribute it wants and leaves the request's ACK in its socket; a
# read-modify-write (pfc, ets, buffer set) then takes the GET's stale ACK for the SET's answer:
# "success" whatever the kernel said when both fall in one second (its sequence number is
# time(NULL)), "Attribute write: Protocol error" when they straddle one. Fixed in iproute2 6.2
# (d0e02f35, "dcb: Do not leave ACKs in socket receive buffer"). So such a write's exit status
# says nothing: an EPROTO run is made again (at most twice), and a test that needs the outcome
# reads the state back; with a fault armed the write goes once, unwrapped (nicsim/selftest.sh).
nd_vm_dcb() {
	local err i rc
	# stderr kept in a variable, stdout passed through: no temporary file, no cat or grep (each
	# a process to start under TCG, three times dcb's own cost in a snapshot of six objects)
	for i in 1 2 3; do
		{ err=$(/usr/sbin/dcb "$@" 2>&1 >&3 3>&-); } 3>&1
		rc=$?
		if [ "$rc" = 0 ] || [ "$i" = 3 ] || [[ $err != *"Protocol error"* ]]; then
			break
		fi
	done
	[ -z "$err" ] || printf '%s\n' "$err" >&2
	return "$rc"
}

nd_vm_retry() { # N DELAY CMD...
	local n=$1 delay=$2 i=1
	shift 2
	until "$@"; do
		[ "$i" -lt "$n" ] || return 1
		i=$((i + 1))
		sleep "$delay"
	done
}

# nd_vm_perftest_uncalibrated LOG: the perftest run logged in LOG moved its data (it printed the
# table's header) and failed only at the end, when its clock calibration came out poor
# ("Correlation coefficient r^2 < 0.9", seen under TCG): the traffic was there, the report not.
nd_vm_perftest_uncalibrated() {
	grep -q '#bytes' "$1" && grep -q 'Correlation coefficient' "$1"
}

# nd_vm_write_bw DIR: RDMA WRITE between two QPs of rxe0, both ends 198.18.0.1 of this guest (rxe
# loops traffic back only within one device); logs DIR/write_bw-{server,client}.log. The client
# cannot connect before the server listens: it is retried. A pair that only failed its clock
# calibration (nd_vm_perftest_uncalibrated) runs again, up to 3 times; the client log keeps
# each try.
nd_vm_write_bw() {
	local gid args try srv
	gid=$(nd_vm_rxe_gid rxe0 198.18.0.1) || return 1
	args=(-d rxe0 -x "$gid" -n 200 -s 4096)
	: >"$1/write_bw-client.log"
	for try in 1 2 3; do
		timeout 60 ib_write_bw "${args[@]}" >"$1/write_bw-server.log" 2>&1 &
		srv=$!
		if nd_vm_retry 20 0.2 timeout 60 ib_write_bw "${args[@]}" 198.18.0.1 \
			>>"$1/write_bw-client.log" 2>&1 && wait "$srv"; then
			return 0
		fi
		wait "$srv"
		nd_vm_perftest_uncalibrated "$1/write_bw-client.log" ||
			nd_vm_perftest_uncalibrated "$1/write_bw-server.log" || return 1
		echo "ib_write_bw: clock calibration failed, try $try of 3" >>"$1/write_bw-client.log"
	done
	return 1
}

# nd_vm_rerun NAME TAG WHY: a run that soft-RoCE spoiled is kept as $ND_OUT/NAME.TAG.* with the
# kernel's last messages, and make's summary says the check runs once more (tests/vm/summary.sh
# prints this line); the caller then runs it again, and a second failure fails the check.
nd_vm_rerun() {
	local f rest
	for f in "$ND_OUT/$1".*; do
		rest=${f#"$ND_OUT/$1."}
		[[ $rest == "$2".* ]] || cp "$f" "$ND_OUT/$1.$2.$rest"
	done
	dmesg | tail -50 >"$ND_OUT/$1.$2.dmesg"
	echo "nd_vm: rerun: $3; kept as $1.$2.*, running once more"
}

nd_vm_pass() {
	nd_vm_ntests=$((nd_vm_ntests + 1))
	echo "ok $nd_vm_ntests - $*"
}

nd_vm_fail() {
	nd_vm_ntests=$((nd_vm_ntests + 1))
	nd_vm_nfailed=$((nd_vm_nfailed + 1))
	echo "not ok $nd_vm_ntests - $*"
}

nd_vm_check() { # DESC CMD...
	local desc=$1
	shift
	if "$@"; then nd_vm_pass "$desc"; else nd_vm_fail "$desc"; fi
}

nd_vm_done() {
	echo "1..$nd_vm_ntests"
	echo "$((nd_vm_ntests - nd_vm_nfailed)) passed, $nd_vm_nfailed failed"
	[ "$nd_vm_nfailed" -eq 0 ] || exit 1
	exit 0
}

# A tool a scenario needs is in the Makefile's dependency lists; when it is missing anyway the
# check fails with the package to install, so a missing dependency cannot thin the tests.
nd_vm_need() { # CMD PKG
	command -v "$1" >/dev/null && return 0
	nd_vm_fail "$1 is not installed: apt-get install $2 (it belongs in the Makefile's DEPS_*)"
	return 1
}
