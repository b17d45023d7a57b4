#!/bin/bash
# Guest scenario that proves the two-guest wire (run it on the host with
# `tests/vm/vm.sh -n 2 tests/vm/smoke2.sh`): each guest puts 198.18.0.(i+1)
# and rxe0 on eth0, they ping each other, then guest 0 serves an RDMA WRITE
# run that guest 1 drives across the wire.
# shellcheck disable=SC2317 # functions run through nd_vm_check
set -u
# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"

me=198.18.0.$((ND_VM_INDEX + 1))
peer=198.18.0.$((2 - ND_VM_INDEX))
hw=/sys/class/infiniband/rxe0/ports/1/hw_counters

# iputils ping is not always installed; busybox-static is (the runner needs it).
ping_peer() { /bin/busybox ping -c 1 -W 1 "$peer" >/dev/null; }

# A run that moved its data but found its clock calibration poor counts: the counters below
# check the traffic. The client retries until the server listens.
write_bw_run() {
	timeout "$1" ib_write_bw "${@:2}" >"$ND_OUT/write_bw.log" 2>&1 ||
		nd_vm_perftest_uncalibrated "$ND_OUT/write_bw.log"
}

write_bw() {
	local gid args
	gid=$(nd_vm_rxe_gid rxe0 "$me") || return 1
	args=(-d rxe0 -x "$gid" -n 200 -s 4096)
	if [ "$ND_VM_INDEX" -eq 0 ]; then
		write_bw_run 90 "${args[@]}"
	else
		nd_vm_retry 100 0.3 write_bw_run 60 "${args[@]}" 198.18.0.1
	fi
}

counter_moved() { # NAME BEFORE
	[ "$(cat "$hw/$1")" -gt "$2" ]
}

[ "${ND_VM_NGUESTS:-2}" -eq 2 ] || { echo "smoke2: needs -n 2" >&2; exit 2; }
nd_vm_check "rxe0 up on eth0 with $me" nd_vm_rxe_up eth0
nd_vm_check "ping $peer over eth0" nd_vm_retry 40 0.25 ping_peer
sent=$(cat "$hw/sent_pkts" 2>/dev/null || echo 0)
rcvd=$(cat "$hw/rcvd_pkts" 2>/dev/null || echo 0)
nd_vm_check "ib_write_bw across the wire ($([ "$ND_VM_INDEX" -eq 0 ] && echo server || echo client))" write_bw
grep -A1 '#bytes' "$ND_OUT/write_bw.log"
nd_vm_check "rxe0 sent_pkts moved (was $sent)" counter_moved sent_pkts "$sent"
nd_vm_check "rxe0 rcvd_pkts moved (was $rcvd)" counter_moved rcvd_pkts "$rcvd"
nd_vm_done
