#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make bench`, in the guest: `nodrop stress` pair against perftest on the same soft-RoCE device
# (rxe0, both ends at 198.18.0.1), each tool at its own defaults for what a user chooses:
# - bandwidth, RDMA WRITE, against ib_write_bw: 4 KiB, 64 KiB and 1 MiB messages, 1 and 4 QPs;
#   same duration, queue depth, ACK timeout and measurement margins (the first and last second
#   of each run left out, perftest's -f; nodrop's --margin), plain verbs on both sides. nodrop
#   signals by message size, perftest every 100th work request (its default).
# - latency, 64 B: `--latency -o write` against ib_write_lat and `-o send` against ib_send_lat,
#   the same number of round trips; nodrop's p50 against perftest's t_typical (its median).
# The rounds alternate which tool goes first (ABBA) so host noise and warm-up hit both alike.
# Prints every round, then per comparison (tests/bench/stats.sh) the ratio of the medians
# (bandwidth: nodrop/perftest; latency: nodrop/perftest, lower is better), the per-round ratios'
# median and range, how many rounds nodrop won, the spread of perftest's own rounds, and the
# verdict: met, parity (short by less than perftest's own round-to-round variation: the two
# cannot be told apart) or not met. Asserts no timing (TCG makes absolute numbers slow; the
# ratio is what counts).
set -u
# shellcheck source=tests/vm/guest-lib.sh
. tests/vm/guest-lib.sh
# shellcheck source=tests/bench/stats.sh
. tests/bench/stats.sh

ND=${ND_NODROP:-build/nodrop}
ROUNDS=${ND_BENCH_ROUNDS:-6}
SECS=${ND_BENCH_SECONDS:-5}
MARGIN=1
SIZES=${ND_BENCH_SIZES:-4096 65536 1048576}
QPS=${ND_BENCH_QPS:-1 4}
LAT_ITERS=${ND_BENCH_LAT_ITERS:-5000}
DEPTH=128
TIMEOUT=17
ADDR=198.18.0.1

nd_vm_rxe_up >/dev/null || exit 3
GID=$(nd_vm_rxe_gid rxe0 $ADDR) || exit 3

# nodrop_job ARGS...: rank 0's JSON report of a pair run on rxe0 (plain verbs)
nodrop_job() {
	local port=$((18500 + RANDOM % 1000)) out=$ND_OUT/nodrop.json
	local args=(-d rxe0 --verbs --qp-timeout "$TIMEOUT" "$@")
	"$ND" stress -c 127.0.0.1:$port "${args[@]}" >/dev/null 2>&1 &
	"$ND" stress -l -c 127.0.0.1:$port -N 2 "${args[@]}" -j >"$out" 2>"$ND_OUT/nodrop.err"
	wait
	cat "$out"
}

# perftest_job TOOL ARGS...: the client's output
perftest_job() {
	local tool=$1
	shift
	"$tool" -d rxe0 -x "$GID" -u "$TIMEOUT" "$@" >/dev/null 2>&1 &
	nd_vm_retry 50 0.2 "$tool" -d rxe0 -x "$GID" -u "$TIMEOUT" "$@" $ADDR \
		>"$ND_OUT/perftest.log" 2>&1
	wait
	cat "$ND_OUT/perftest.log"
}

# bw_nodrop SIZE QPS / bw_perftest SIZE QPS: "MiB/s Mpps" of one run (perftest's MB is 2^20 B)
bw_nodrop() {
	nodrop_job -o write -s "$1" -q "$2" -t "$DEPTH" -D "$SECS" --margin "$MARGIN" |
		jq -r '.steps[0] | "\(.avg_mib_s) \(.mpps)"'
}
bw_perftest() {
	perftest_job ib_write_bw -s "$1" -q "$2" -t "$DEPTH" -D "$SECS" -f "$MARGIN" -F |
		awk -v s="$1" '$1 == s && NF >= 5 { print $4, $5 }'
}

# lat_nodrop OP / lat_perftest OP: the median one-way latency in us of LAT_ITERS round trips
lat_nodrop() {
	nodrop_job --latency -o "$1" -s 64 -n "$LAT_ITERS" | jq -r '.latency.p50_us'
}
# perftest times by the counter at the MHz it measured against gettimeofday(); where that fit is
# poor (r^2 < 0.9, "Correlation coefficient" on stderr) it divides by 0 and reports inf: such a
# run measured nothing, so it runs again (up to 3 times), and the log says so.
lat_perftest() {
	local try v
	for try in 1 2 3; do
		v=$(perftest_job "ib_$1_lat" -s 64 -n "$LAT_ITERS" -F |
			awk '$1 == 64 && NF >= 5 { print $5 }')
		if awk -v v="$v" 'BEGIN { exit !(v ~ /^[0-9]+(\.[0-9]+)?$/) }'; then
			echo "$v"
			return
		fi
		echo "ib_$1_lat reported t_typical '$v' (its clock calibration failed), try $try of 3" >&2
	done
}

for qps in $QPS; do
	for size in $SIZES; do
		nd_bws=() pt_bws=()
		for r in $(seq "$ROUNDS"); do
			if [ $((r % 2)) = 1 ]; then
				read -r nd_bw nd_mr <<<"$(bw_nodrop "$size" "$qps")"
				read -r pt_bw pt_mr <<<"$(bw_perftest "$size" "$qps")"
			else
				read -r pt_bw pt_mr <<<"$(bw_perftest "$size" "$qps")"
				read -r nd_bw nd_mr <<<"$(bw_nodrop "$size" "$qps")"
			fi
			if [ -z "${nd_bw:-}" ] || [ -z "${pt_bw:-}" ] || [ "$nd_bw" = null ]; then
				echo "round $r: a run failed (nodrop '${nd_bw:-}', ib_write_bw '${pt_bw:-}')"
				cat "$ND_OUT/nodrop.err" "$ND_OUT/perftest.log"
				exit 1
			fi
			printf 'round %d write %7d B %d QP: nodrop %8.2f MiB/s %.6f Mpps, ib_write_bw %8.2f MiB/s %.6f Mpps\n' \
				"$r" "$size" "$qps" "$nd_bw" "$nd_mr" "$pt_bw" "$pt_mr"
			nd_bws+=("$nd_bw") pt_bws+=("$pt_bw")
		done
		nd_bench_summary "stress write $size B $qps QP bandwidth vs ib_write_bw" rate 1 \
			nodrop perftest "${nd_bws[*]}" "${pt_bws[*]}"
	done
done
for op in write send; do
	nd_lats=() pt_lats=()
	for r in $(seq "$ROUNDS"); do
		if [ $((r % 2)) = 1 ]; then
			nd_lat=$(lat_nodrop $op) pt_lat=$(lat_perftest $op)
		else
			pt_lat=$(lat_perftest $op) nd_lat=$(lat_nodrop $op)
		fi
		if [ -z "${nd_lat:-}" ] || [ -z "${pt_lat:-}" ] || [ "$nd_lat" = null ]; then
			echo "round $r: a latency run failed (nodrop '${nd_lat:-}', ib_${op}_lat '${pt_lat:-}')"
			cat "$ND_OUT/nodrop.err" "$ND_OUT/perftest.log"
			exit 1
		fi
		printf 'round %d %s latency 64 B: nodrop p50 %.2f us, ib_%s_lat t_typical %.2f us\n' \
			"$r" "$op" "$nd_lat" "$op" "$pt_lat"
		nd_lats+=("$nd_lat") pt_lats+=("$pt_lat")
	done
	nd_bench_summary "stress $op 64 B latency p50 vs ib_${op}_lat" time 1 nodrop perftest \
		"${nd_lats[*]}" "${pt_lats[*]}"
done
