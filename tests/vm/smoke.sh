#!/bin/bash
# Guest scenario that proves the one-guest testbed (run it on the host with
# `tests/vm/vm.sh tests/vm/smoke.sh`): soft-RoCE comes up on a veth pair,
# verbs sees it, rdma_cm's configfs answers, and an RDMA WRITE run moves
# rxe0's hw_counters.
# shellcheck disable=SC2317 # functions run through nd_vm_check
set -u
# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"

hw=/sys/class/infiniband/rxe0/ports/1/hw_counters
cm=/sys/kernel/config/rdma_cm/rxe0

has_rxe0() { ibv_devices | grep -qw rxe0; }

roce_tos_readable() {
	mkdir -p "$cm" && [[ "$(cat "$cm/ports/1/default_roce_tos")" =~ ^[0-9]+$ ]]
}

counter_moved() { # NAME BEFORE
	[ "$(cat "$hw/$1")" -gt "$2" ]
}

nd_vm_check "rxe0/rxe1 up on veth0/veth1" nd_vm_rxe_up
nd_vm_check "ibv_devices lists rxe0" has_rxe0
nd_vm_check "configfs and rdma_cm loaded" nd_vm_configfs
nd_vm_check "rdma_cm/rxe0/ports/1/default_roce_tos readable" roce_tos_readable
sent=$(cat "$hw/sent_pkts" 2>/dev/null || echo 0)
nd_vm_check "ib_write_bw server and client on rxe0" nd_vm_write_bw "$ND_OUT"
grep -A1 '#bytes' "$ND_OUT/write_bw-client.log"
nd_vm_check "rxe0 sent_pkts moved (was $sent)" counter_moved sent_pkts "$sent"
nd_vm_done
