#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make bench`, in the guest: the cost of counter samples against what scripts run today,
# `ethtool -S DEV` plus `ethtool --include-statistics -a DEV` (nicsim ports: 84 driver strings and
# pause statistics, no RDMA) or plus `rdma statistic show link rxe0/1` (veth0 under soft-RoCE),
# as processes, per port.
# - in-process: one port's sample inside a long-running sampler (build/ctr_bench back to back:
#   sample, diff, as a watcher does), for 1, 8 and 64 nicsim ports and for veth0+rxe0;
# - one-shot: `nodrop counters -j DEV` as a process against `ethtool -S DEV` as a process; and
#   the same pair under `setarch -R` (no address randomization), which tells the work apart from
#   the emulator's: TCG translates code per virtual address, so a randomized process has all the
#   code it runs translated again, and its cost follows how much distinct code it runs (nodrop's
#   mapping, netlink pause statistics and JSON against ethtool's string loop); without
#   randomization the translations of the last run are reused and what remains is the work.
# Same guest, same run, rounds alternating which side goes first; every round is printed, then
# per comparison the medians, the per-round ratios and the verdict (tests/bench/stats.sh).
# Asserts no timing (TCG makes absolute times slow; the ratio is what counts).
set -u
. tests/vm/guest-lib.sh
# shellcheck source=tests/bench/stats.sh
. tests/bench/stats.sh

ND=${ND_NODROP:-build/nodrop}
CB=${ND_CTR_BENCH:-build/ctr_bench}
IP=/usr/sbin/ip
RDMA=/usr/bin/rdma
ETHTOOL=/usr/sbin/ethtool
SETARCH=/usr/bin/setarch
N=${ND_BENCH_SAMPLES:-40}
ROUNDS=${ND_BENCH_ROUNDS:-5}
SECS=${ND_BENCH_SECONDS:-2}

[ -x $SETARCH ] || { echo "setarch is not installed: apt-get install util-linux"; exit 3; }
[ -x $ETHTOOL ] || { echo "ethtool is not installed: apt-get install ethtool (make deps-check)"; exit 3; }
[ -x "$CB" ] || { echo "$CB is missing: make $CB"; exit 3; }
nd_vm_nicsim_load 64 >/dev/null || exit 3
for i in $(seq 0 63); do
	$IP link set "nicsim$i" up && nd_vm_dcb pfc set dev "nicsim$i" prio-pfc 3:on || exit 3
done
nd_vm_rxe_up >/dev/null || exit 3

ns() { date +%s%N; }
ports() { local i; for ((i = 0; i < $1; i++)); do echo "nicsim$i"; done; }

# per_sample CMD...: mean microseconds of one run of CMD over N runs
per_sample() {
	local t0 t1 i
	t0=$(ns)
	for ((i = 0; i < N; i++)); do "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; return 1; }; done
	t1=$(ns)
	echo $(((t1 - t0) / N / 1000))
}

# the scripts: every port of the list, a process per tool and port
hand_nicsim() {
	local d
	for d in "$@"; do $ETHTOOL -S "$d" && $ETHTOOL --include-statistics -a "$d" || return 1; done
}
hand_rxe() { $ETHTOOL -S veth0 && $RDMA statistic show link rxe0/1; }

# the reference must read what nodrop reads, or the comparison is void
hand_rxe >/dev/null || { echo "ethtool/rdma cannot read veth0/rxe0"; exit 1; }
"$ND" counters -j nicsim0 veth0 | jq -e '.[0].counters | length > 80' >/dev/null &&
	"$ND" counters -j veth0 | jq -e '.[0].rdma.via == "netlink"' >/dev/null ||
	{ echo "nodrop did not read every source"; exit 1; }

# in_process PORT...: microseconds of one port's sample in a long-running sampler
in_process() {
	"$CB" 0 "$SECS" "$@" | awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "us") { print $i; exit } }'
}

# per-round values, by name: hand_K/in_K (K ports), hand_rxe/in_rxe, nd_once/eth_once
keep() {
	nd_bench_num "$2" || { echo "round $r: $1 measured nothing ('$2')"; exit 1; }
	eval "$1=\"\${$1:-} $2\""
}

for r in $(seq "$ROUNDS"); do
	for k in 1 8 64; do
		# shellcheck disable=SC2207 # plain names; the guest has no /dev/fd for <(...)
		list=($(ports "$k"))
		if [ $((r % 2)) = 1 ]; then
			a=$(N=$((N * 8 / (k + 7))) per_sample hand_nicsim "${list[@]}") &&
				b=$(in_process "${list[@]}") || exit 1
		else
			b=$(in_process "${list[@]}") &&
				a=$(N=$((N * 8 / (k + 7))) per_sample hand_nicsim "${list[@]}") || exit 1
		fi
		echo "round $r: $k nicsim ports: ethtool -S + -a as processes $a us per round," \
			"in-process $b us per port sample"
		keep "hand_$k" "$(awk -v a="$a" -v k="$k" 'BEGIN { printf "%.1f", a / k }')"
		keep "in_$k" "$b"
	done
	c=$(per_sample hand_rxe) && d=$(in_process veth0) || exit 1
	e=$(per_sample "$ND" counters -j nicsim0) && f=$(per_sample $ETHTOOL -S nicsim0) || exit 1
	g=$(per_sample $ETHTOOL -S nicsim0) && h=$(per_sample "$ND" counters -j nicsim0) || exit 1
	i=$(per_sample $SETARCH -R "$ND" counters -j nicsim0) &&
		j=$(per_sample $SETARCH -R $ETHTOOL -S nicsim0) &&
		k=$(per_sample $SETARCH -R $ETHTOOL -S nicsim0) &&
		l=$(per_sample $SETARCH -R "$ND" counters -j nicsim0) || exit 1
	echo "round $r: veth0+rxe0 ethtool -S + rdma statistic $c us, in-process $d us;" \
		"one-shot nicsim0: nodrop counters -j $e/$h us, ethtool -S $f/$g us;" \
		"under setarch -R: nodrop $i/$l us, ethtool $j/$k us"
	keep hand_rxe "$c"
	keep in_rxe "$d"
	keep nd_once "$(((e + h) / 2))"
	keep eth_once "$(((f + g) / 2))"
	keep nd_once_r "$(((i + l) / 2))"
	keep eth_once_r "$(((j + k) / 2))"
done
for k in 1 8 64; do
	eval "h=\$hand_$k i=\$in_$k"
	nd_bench_summary \
		"sample $k nicsim port(s), us per port: ethtool -S + ethtool -a processes vs in-process" \
		speedup 100 in-process ethtool "$i" "$h"
done
nd_bench_summary "sample veth0+rxe0, us: ethtool -S + rdma statistic processes vs in-process" \
	speedup 100 in-process "ethtool+rdma" "$in_rxe" "$hand_rxe"
nd_bench_summary "sample one-shot nicsim0, us: nodrop counters -j vs ethtool -S" time 1 \
	nodrop ethtool "$nd_once" "$eth_once"
nd_bench_summary \
	"sample one-shot nicsim0 under setarch -R (translations reused), us: nodrop vs ethtool" \
	time 1 nodrop ethtool "$nd_once_r" "$eth_once_r"
