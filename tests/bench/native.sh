#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make bench`, on the host (root): counter sampling at the rates a watcher runs, natively, on
# 64 veth pairs in a network namespace of its own (no traffic):
# - percent of a core (getrusage) for 1 kHz x 8 ports and 100 Hz x 64 ports (build/ctr_bench:
#   sample, diff, sleep to an absolute schedule);
# - a one-shot `nodrop counters -j v0` process against an `ethtool -S v0` process.
# Rounds alternate which side goes first; every round is printed, then the medians. Asserts
# no timing.
set -u

ND=${ND_NODROP:-build/nodrop}
CB=${ND_CTR_BENCH:-build/ctr_bench}
ROUNDS=${ND_BENCH_ROUNDS:-3}
SECS=${ND_BENCH_SECONDS:-4}
N=${ND_BENCH_SAMPLES:-300}
NS=nodrop-bench-$$

[ "$(id -u)" = 0 ] || { echo "native bench: needs root (a network namespace)"; exit 3; }
command -v ethtool >/dev/null || { echo "ethtool is not installed: make deps-check"; exit 3; }
ip netns add "$NS" || exit 3
trap 'ip netns del "$NS"' EXIT
for i in $(seq 0 63); do
	ip -n "$NS" link add "v$i" type veth peer name "w$i" &&
		ip -n "$NS" link set "v$i" up && ip -n "$NS" link set "w$i" up || exit 3
done
in_ns() { ip netns exec "$NS" "$@"; }
ports() { local i; for ((i = 0; i < $1; i++)); do echo "v$i"; done; }

# per_sample CMD...: mean microseconds of one run of CMD over N runs, all in the namespace
per_sample() {
	in_ns bash -c 't0=$(date +%s%N)
		for ((i = 0; i < $0; i++)); do "$@" >/dev/null 2>&1 || exit 1; done
		echo $((($(date +%s%N) - t0) / $0 / 1000))' "$N" "$@"
}

median() { tr ' ' '\n' | sort -g | awk '{ a[NR] = $1 } END { print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
pct() { awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "%") { print $i; exit } }'; }

k1=() k2=() nd=() et=()
mapfile -t p8 < <(ports 8)
mapfile -t p64 < <(ports 64)
for r in $(seq "$ROUNDS"); do
	a=$(in_ns "$CB" 1000 "$SECS" "${p8[@]}" | pct) && b=$(in_ns "$CB" 100 "$SECS" "${p64[@]}" | pct) ||
		{ echo "ctr_bench failed"; exit 1; }
	if [ $((r % 2)) = 1 ]; then
		c=$(per_sample "$ND" counters -j v0) && d=$(per_sample ethtool -S v0) || exit 1
	else
		d=$(per_sample ethtool -S v0) && c=$(per_sample "$ND" counters -j v0) || exit 1
	fi
	echo "round $r: 1 kHz x 8 ports ${a} % of a core, 100 Hz x 64 ports ${b} %;" \
		"one-shot nodrop counters -j ${c} us, ethtool -S ${d} us"
	k1+=("$a") k2+=("$b") nd+=("$c") et+=("$d")
done
m1=$(echo "${k1[*]}" | median) m2=$(echo "${k2[*]}" | median)
mn=$(echo "${nd[*]}" | median) me=$(echo "${et[*]}" | median)
echo "native counters watch (median of $ROUNDS): 1 kHz x 8 ports ${m1} % of a core" \
	"(range $(echo "${k1[*]}" | tr ' ' '\n' | sort -g | sed -n '1p;$p' | paste -sd-)), 100 Hz x 64 ports ${m2} %" \
	"(range $(echo "${k2[*]}" | tr ' ' '\n' | sort -g | sed -n '1p;$p' | paste -sd-))"
echo "native one-shot (median of $ROUNDS): nodrop counters -j ${mn} us, ethtool -S ${me} us:" \
	"nodrop/ethtool $(awk -v a="$mn" -v b="$me" 'BEGIN { printf "%.2f", a / b }')x of the time"
