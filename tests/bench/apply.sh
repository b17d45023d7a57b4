#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make bench`, in the guest: a full lossless profile on 64 nicsim ports with `nodrop apply`
# (which also journals, verifies by reading back and would roll back), against the same changes
# made the way scripts do it today: one `dcb`/`ip` process per object and port. Same guest, same
# run, same starting state; the ratio is what counts (TCG makes absolute times slow).
set -u
. tests/vm/guest-lib.sh
# shellcheck source=tests/bench/stats.sh
. tests/bench/stats.sh

ND=${ND_NODROP:-build/nodrop}
DCB=/usr/sbin/dcb
IP=/usr/sbin/ip
N=64
PROFILE=tests/vm/profiles/lossless.yaml
ROUNDS=${ND_BENCH_ROUNDS:-5}

nd_vm_nicsim_load $N >/dev/null || exit 3
for i in $(seq 0 $((N - 1))); do $IP link set nicsim$i up; done

ms() { date +%s%3N; }

# the iproute2 equivalent of lossless.yaml, port by port
by_hand() {
	local i d
	for i in $(seq 0 $((N - 1))); do
		d=nicsim$i
		$IP link set dev $d mtu 9000
		$DCB buffer set dev $d prio-buffer all:0 3:1 buffer-size all:0 0:128K 1:96K
		$DCB ets set dev $d prio-tc all:0 3:3 6:6 tc-tsa all:strict 0:ets 3:ets \
			tc-bw all:0 0:40 3:60
		# dcb 6.1 sends bytes/s in the kbit/s field: 200Mbit stores 25 Gbit/s
		$DCB maxrate set dev $d tc-maxrate all:0 6:200Mbit
		$DCB pfc set dev $d prio-pfc all:off 3:on delay 30
		$DCB app add dev $d dscp-prio 26:3 48:6
	done
}

nds=() hands=()
for r in $(seq $ROUNDS); do
	t0=$(ms)
	"$ND" apply --state-dir /tmp/bench $PROFILE >/dev/null || { echo "apply failed"; exit 1; }
	t1=$(ms)
	cp /tmp/bench/journal.json /tmp/bench/applied.json
	"$ND" rollback --state-dir /tmp/bench >/dev/null || { echo "rollback failed"; exit 1; }
	t2=$(ms)
	by_hand 2>/dev/null
	t3=$(ms)
	# the hand-made state must be what the profile describes, or the comparison is void
	"$ND" audit $PROFILE >/dev/null || { echo "iproute2 sequence did not reach the profile"; exit 1; }
	# the journal is rolled back already (it is never applied twice): undo the hand-made state
	# with a copy of the apply's journal, which that state matches
	"$ND" rollback --journal /tmp/bench/applied.json --state-dir /tmp/bench >/dev/null ||
		{ echo "rollback of the hand-made state failed"; exit 1; }
	nd=$((t1 - t0)) hand=$((t3 - t2))
	echo "round $r: nodrop apply ${nd} ms, dcb/ip sequence ${hand} ms (rollback $((t2 - t1)) ms)"
	nds+=("$nd") hands+=("$hand")
done
nd_bench_summary "apply 64 ports, ms: nodrop apply vs the dcb/ip sequence" speedup 1 nodrop dcb/ip \
	"${nds[*]}" "${hands[*]}"
