#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make bench`, in the guest: the cost of one full counter sample of a port with `nodrop counters`
# against what scripts run today, `ethtool -S DEV` plus `rdma statistic show link DEV/1` as
# processes. Two ports: nicsim0 (84 driver strings and pause statistics, no RDMA) and veth0
# with soft-RoCE rxe0 (driver strings, pause statistics, RDMA netlink). Same guest, same run;
# the ratio is what counts (TCG makes absolute times slow). Both sides pay for a process per
# sample, where start-up and dynamic linking dominate; `--watch 0` shows what a sample costs
# inside one long-running nodrop (a collector, triage, a stress run's before/after).
set -u
. tests/vm/guest-lib.sh

ND=${ND_NODROP:-build/nodrop}
DCB=/usr/sbin/dcb
IP=/usr/sbin/ip
RDMA=/usr/bin/rdma
ETHTOOL=/usr/sbin/ethtool
N=${ND_BENCH_SAMPLES:-100}
W=${ND_BENCH_WATCH:-500}
ROUNDS=${ND_BENCH_ROUNDS:-3}

[ -x $ETHTOOL ] || { echo "ethtool is not installed: apt-get install ethtool (make deps-check)"; exit 3; }
nd_vm_nicsim_load 1 >/dev/null || exit 3
$IP link set nicsim0 up && $DCB pfc set dev nicsim0 prio-pfc 3:on || exit 3
nd_vm_rxe_up >/dev/null || exit 3

ns() { date +%s%N; }

# per_sample CMD...: mean microseconds of one run of CMD over N runs
per_sample() {
	local t0 t1 i
	t0=$(ns)
	for ((i = 0; i < N; i++)); do "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; return 1; }; done
	t1=$(ns)
	echo $(((t1 - t0) / N / 1000))
}

nd_nicsim() { "$ND" counters -j nicsim0; }
hand_nicsim() { $ETHTOOL -S nicsim0 && $ETHTOOL --include-statistics -a nicsim0; }
nd_rxe() { "$ND" counters -j veth0; }
# veth has no pause parameters: ethtool -a fails on it, and nodrop finds no pause statistics
hand_rxe() { $ETHTOOL -S veth0 && $RDMA statistic show link rxe0/1; }

# the reference must read what nodrop reads, or the comparison is void
hand_rxe >/dev/null || { echo "ethtool/rdma cannot read veth0/rxe0"; exit 1; }
"$ND" counters -j nicsim0 veth0 | jq -e '.[0].counters | length > 80' >/dev/null &&
	"$ND" counters -j veth0 | jq -e '.[0].rdma.via == "netlink"' >/dev/null ||
	{ echo "nodrop did not read every source"; exit 1; }

best() { # NAME VALUE: keep the smallest value per name
	local cur
	eval "cur=\${best_$1:-0}"
	if [ "$cur" = 0 ] || [ "$2" -lt "$cur" ]; then eval "best_$1=$2"; fi
}

# in_process DEV: mean microseconds of one sample inside `nodrop counters --watch 0`, with the
# start-up spread over W samples
in_process() {
	local t0
	t0=$(ns)
	"$ND" counters -w 0 -c "$W" -j "$1" >/dev/null || { echo "watch on $1 failed" >&2; return 1; }
	echo $((($(ns) - t0) / (W + 1) / 1000))
}

for r in $(seq "$ROUNDS"); do
	a=$(per_sample nd_nicsim) && b=$(per_sample hand_nicsim) && c=$(per_sample nd_rxe) &&
		d=$(per_sample hand_rxe) && e=$(in_process nicsim0) && f=$(in_process veth0) || exit 1
	echo "round $r: nicsim0 nodrop ${a} us, ethtool ${b} us, in-process ${e} us;" \
		"veth0/rxe0 nodrop ${c} us, ethtool+rdma ${d} us, in-process ${f} us"
	best nd_nicsim "$a"
	best hand_nicsim "$b"
	best nd_rxe "$c"
	best hand_rxe "$d"
	best in_nicsim "$e"
	best in_rxe "$f"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
echo "sample nicsim0 (best of $ROUNDS): ethtool -S + ethtool --include-statistics -a" \
	"${best_hand_nicsim} us per sample; nodrop counters ${best_nd_nicsim} us as a process" \
	"($(ratio "$best_hand_nicsim" "$best_nd_nicsim")x), ${best_in_nicsim} us in a watch" \
	"($(ratio "$best_hand_nicsim" "$best_in_nicsim")x)"
echo "sample veth0+rxe0 (best of $ROUNDS): ethtool -S + rdma statistic show link" \
	"${best_hand_rxe} us per sample; nodrop counters ${best_nd_rxe} us as a process" \
	"($(ratio "$best_hand_rxe" "$best_nd_rxe")x), ${best_in_rxe} us in a watch" \
	"($(ratio "$best_hand_rxe" "$best_in_rxe")x)"
