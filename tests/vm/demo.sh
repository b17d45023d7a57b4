#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make demo`, inside the guest: two nicsim ports (mlx5 DCB semantics) and soft-RoCE on a veth
# pair under Debian's real kernel; one port is set up for lossless RoCE with iproute2, then
# `nodrop show` prints what the kernel reports for all of them.
set -u
. tests/vm/guest-lib.sh

ND=${ND_NODROP:-build/nodrop}
DCB=/usr/sbin/dcb

run() {
	echo "# $*"
	"$@"
}

nd_vm_nicsim_load 2 >/dev/null && nd_vm_rxe_up >/dev/null && nd_vm_configfs >/dev/null || {
	echo "demo: testbed setup failed" >&2
	exit 3
}
echo
echo "== Lossless RoCE on nicsim0 (priority 3, DSCP 26; CNP on DSCP 48 / priority 6), set with iproute2"
run $DCB pfc set dev nicsim0 prio-pfc all:off 3:on delay 30
run $DCB ets set dev nicsim0 prio-tc 0:0 1:0 2:0 3:3 4:0 5:0 6:6 7:0 \
	tc-tsa all:strict 0:ets 3:ets tc-bw all:0 0:50 3:50
run $DCB app add dev nicsim0 dscp-prio 26:3 48:6
run $DCB buffer set dev nicsim0 prio-buffer all:0 3:1 buffer-size all:0 0:128K 1:96K
run /usr/sbin/ip link set dev nicsim0 mtu 9000 up
mkdir -p /sys/kernel/config/rdma_cm/rxe0
run sh -c 'echo 106 > /sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos'
echo
echo "== nodrop show"
run "$ND" show nicsim0 nicsim1 veth0 veth1
echo
echo "== nodrop show -j nicsim0 | jq .[0].dcb.pfc"
"$ND" show -j nicsim0 | jq -c '.[0].dcb.pfc'
