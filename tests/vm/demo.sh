#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make demo`, inside the guest: two nicsim ports (mlx5 DCB semantics) and soft-RoCE on a veth
# pair under Debian's real kernel. The shipped lossless RoCE profile is planned, applied,
# audited, and `nodrop show` prints what the kernel reports before and after.
set -u
. tests/vm/guest-lib.sh

ND=${ND_NODROP:-build/nodrop}
PROFILE=tests/vm/profiles/demo-roce.yaml

run() {
	local cmd="$*"

	echo
	echo "\$ nodrop ${cmd#"$ND" }"
	"$@"
}

nd_vm_nicsim_load 2 >/dev/null && nd_vm_rxe_up >/dev/null && nd_vm_configfs >/dev/null || {
	echo "demo: testbed setup failed" >&2
	exit 3
}
/usr/sbin/ip link set nicsim0 up
/usr/sbin/ip link set nicsim1 up
echo "== Before: two nicsim ports as the driver starts them, soft-RoCE rxe0 on veth0"
run "$ND" show nicsim0 veth0
echo
echo "== $PROFILE: the shipped profiles/roce-lossless.yaml (RoCE lossless on priority 3, DSCP 26;"
echo "   CNP on DSCP 48 / priority 6) aimed at the guest's ports: nicsim* and veth0 (under rxe0)"
echo "   veth0 has no DCB: the plan lists its DCB fields as not supported, and apply refuses them"
echo "   there unless --force, which applies the rest (MTU, RoCE ToS and mode)"
run "$ND" apply --dry-run "$PROFILE"
run "$ND" apply --force "$PROFILE" || exit 1
run "$ND" apply --force "$PROFILE" || exit 1
run "$ND" audit "$PROFILE"
echo
echo "== After"
run "$ND" show nicsim0 veth0
echo
echo "== Counters under canonical names (nicsim0 speaks mlx5's names), the first lines"
run "$ND" counters nicsim0 | head -24
echo
echo "== A triage run while nicsim0's firmware reports a pause storm and drops on lossless priority 3"
CTR=/sys/kernel/debug/nicsim/nicsim0/counters
(sleep 1; echo "tx_pause_storm_warning_events +1" >$CTR; echo "rx_prio3_buf_discard +17" >$CTR) &
run "$ND" triage -d 3 nicsim0 veth0
wait
echo
echo "== Measured: a 3:1 incast over soft-RoCE with payload validation, and its losslessness verdict"
bash tests/vm/stress-demo.sh
echo
echo "== Modelled: 64:1 incast at 100G, RoCE (PFC + ECN + DCQCN) against InfiniBand credits"
run "$ND" headroom --speed 100G --cable 200m --mtu 1086 --model basic
run "$ND" sim --compare roce,ib profiles/scenarios/incast-64.yaml
