#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make bench`, on the host (root): counter sampling at the rates a watcher runs, natively, on
# 64 veth pairs in a network namespace of its own (no traffic):
# - percent of a core (getrusage) for 1 kHz x 8 ports and 100 Hz x 64 ports (build/ctr_bench:
#   sample, diff, sleep to an absolute schedule), and on the same schedule what the platform
#   costs anyway: the bare ethtool stats ioctl per port (--floor: the kernel's share, what any
#   reader of the driver's counters pays) and waking up alone (--idle);
# - a one-shot `nodrop counters -j v0` process against an `ethtool -S v0` process, in more
#   rounds (each is short): the two differ by less than the host's noise from minute to minute.
# Rounds alternate which side goes first; every round is printed, then the medians, the ranges
# and the verdicts (tests/bench/stats.sh). Asserts no timing.
set -u
# shellcheck source=tests/bench/stats.sh
. "$(dirname "$0")/stats.sh"

ND=${ND_NODROP:-build/nodrop}
CB=${ND_CTR_BENCH:-build/ctr_bench}
ROUNDS=${ND_BENCH_ROUNDS:-3}
ONESHOT_ROUNDS=${ND_BENCH_ONESHOT_ROUNDS:-12}
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

pct() { awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "%") { print $i; exit } }'; }

nd=() et=()
mapfile -t p8 < <(ports 8)
mapfile -t p64 < <(ports 64)
# cost MODE HZ PORTS...: percent of a core; MODE "" (nodrop's sampler), --floor or --idle
cost() {
	local v
	v=$(in_ns "$CB" $1 "$2" "$SECS" "${@:3}" | pct)
	nd_bench_num "$v" || { echo "$CB $1 failed (make $CB)" >&2; return 1; }
	echo "$v"
}
# per configuration: nodrop's sampler, the bare ioctls and the empty loop, in turn
w1=() f1=() i1=() w2=() f2=() i2=()
for r in $(seq "$ROUNDS"); do
	a=$(cost "" 1000 "${p8[@]}") && fa=$(cost --floor 1000 "${p8[@]}") &&
		ia=$(cost --idle 1000 "${p8[@]}") && b=$(cost "" 100 "${p64[@]}") &&
		fb=$(cost --floor 100 "${p64[@]}") && ib=$(cost --idle 100 "${p64[@]}") || exit 1
	echo "round $r: 1 kHz x 8 ports ${a} % of a core (bare ioctls ${fa} %, empty loop ${ia} %)," \
		"100 Hz x 64 ports ${b} % (bare ioctls ${fb} %, empty loop ${ib} %)"
	w1+=("$a") f1+=("$fa") i1+=("$ia") w2+=("$b") f2+=("$fb") i2+=("$ib")
done
for r in $(seq "$ONESHOT_ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then
		c=$(per_sample "$ND" counters -j v0) && d=$(per_sample ethtool -S v0) || exit 1
	else
		d=$(per_sample ethtool -S v0) && c=$(per_sample "$ND" counters -j v0) || exit 1
	fi
	echo "round $r: one-shot nodrop counters -j ${c} us, ethtool -S ${d} us"
	nd+=("$c") et+=("$d")
done
# watch NAME "NODROP..." "BARE..." "EMPTY...": medians and nodrop's range, its share over the
# bare ioctls (per round), and the verdict against the 5 % a watcher may cost
watch() {
	awk -v what="$1" -v wv="$2" -v fv="$3" -v iv="$4" "$ND_BENCH_AWK"'
	BEGIN {
		n = split(wv, w, " "); split(fv, f, " ")
		for (i = 1; i <= n; i++) {
			own = own " " w[i] - f[i]
			lo = i == 1 || w[i] < lo ? w[i] : lo
			hi = i == 1 || w[i] > hi ? w[i] : hi
		}
		m = med(wv)
		printf "native counters watch %s (%d rounds): nodrop %.2f %% of a core (range %.2f-%.2f), the bare ethtool ioctls alone %.2f %%, an empty loop at that rate %.2f %%: nodrop%s own share %.2f %%; target < 5 %%: %s\n",
			what, n, m, lo, hi, med(fv), med(iv), "\047s", med(own), m < 5 ? "met" : "not met"
	}'
}
watch "1 kHz x 8 ports" "${w1[*]}" "${f1[*]}" "${i1[*]}"
watch "100 Hz x 64 ports" "${w2[*]}" "${f2[*]}" "${i2[*]}"
nd_bench_summary "native one-shot nodrop counters -j vs ethtool -S, us" time 1 nodrop ethtool \
	"${nd[*]}" "${et[*]}"
