#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make bench`, in the guest: `nodrop stress` pair RDMA WRITE against perftest's ib_write_bw
# on the same soft-RoCE device (rxe0, both ends at 198.18.0.1), with the same message size,
# queue depth, completion moderation, ACK timeout, duration and measurement margins (the
# first and last second of each run left out, perftest's -f; nodrop's --margin), plain verbs
# on both sides. The rounds alternate which tool goes first (ABBA) so host noise and warm-up
# hit both alike; the median round of each counts. Prints bandwidth and message-rate ratios;
# asserts no timing (TCG makes absolute numbers slow; the ratio is what counts).
set -u
# shellcheck source=tests/vm/guest-lib.sh
. tests/vm/guest-lib.sh

ND=${ND_NODROP:-build/nodrop}
ROUNDS=${ND_BENCH_ROUNDS:-4}
SECS=${ND_BENCH_SECONDS:-6}
MARGIN=1
SIZES=${ND_BENCH_SIZES:-4096 65536}
DEPTH=128
CQMOD=16
TIMEOUT=17
ADDR=198.18.0.1

nd_vm_rxe_up >/dev/null || exit 3
GID=$(nd_vm_rxe_gid rxe0 $ADDR) || exit 3

# nodrop_round SIZE: "MiB/s Mpps" of one run
nodrop_round() {
	local port=$((18500 + RANDOM % 1000)) out=$ND_OUT/nodrop.json
	local args=(-d rxe0 --verbs -o write -s "$1" -t "$DEPTH" --cq-mod "$CQMOD"
		    --qp-timeout "$TIMEOUT" -D "$SECS" --margin "$MARGIN")
	"$ND" stress -c 127.0.0.1:$port "${args[@]}" >/dev/null 2>&1 &
	"$ND" stress -l -c 127.0.0.1:$port -N 2 "${args[@]}" -j >"$out" 2>"$ND_OUT/nodrop.err"
	wait
	jq -r '.steps[0] | "\(.avg_mib_s) \(.mpps)"' "$out"
}

# perftest_round SIZE: "MiB/s Mpps" (perftest's MB is 2^20 bytes)
perftest_round() {
	local args=(-d rxe0 -x "$GID" -s "$1" -t "$DEPTH" -Q "$CQMOD" -u "$TIMEOUT" -D "$SECS"
		    -f "$MARGIN" -F)
	ib_write_bw "${args[@]}" >/dev/null 2>&1 &
	nd_vm_retry 50 0.2 ib_write_bw "${args[@]}" $ADDR >"$ND_OUT/perftest.log" 2>&1
	wait
	awk -v s="$1" '$1 == s && NF >= 5 { print $4, $5 }' "$ND_OUT/perftest.log"
}

# median N...: the middle value (the mean of the two middle ones for an even count)
median() {
	printf '%s\n' "$@" | sort -g |
		awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

for size in $SIZES; do
	nd_bws=() nd_mrs=() pt_bws=() pt_mrs=()
	for r in $(seq "$ROUNDS"); do
		if [ $((r % 2)) = 1 ]; then
			read -r nd_bw nd_mr <<<"$(nodrop_round "$size")"
			read -r pt_bw pt_mr <<<"$(perftest_round "$size")"
		else
			read -r pt_bw pt_mr <<<"$(perftest_round "$size")"
			read -r nd_bw nd_mr <<<"$(nodrop_round "$size")"
		fi
		if [ -z "${nd_bw:-}" ] || [ -z "${pt_bw:-}" ] || [ "$nd_bw" = null ]; then
			echo "round $r: a run failed (nodrop '${nd_bw:-}', ib_write_bw '${pt_bw:-}')"
			cat "$ND_OUT/nodrop.err" "$ND_OUT/perftest.log"
			exit 1
		fi
		printf 'round %d write %6d B: nodrop %8.2f MiB/s %.6f Mpps, ib_write_bw %8.2f MiB/s %.6f Mpps\n' \
			"$r" "$size" "$nd_bw" "$nd_mr" "$pt_bw" "$pt_mr"
		nd_bws+=("$nd_bw") nd_mrs+=("$nd_mr") pt_bws+=("$pt_bw") pt_mrs+=("$pt_mr")
	done
	awk -v s="$size" -v r="$ROUNDS" -v nb="$(median "${nd_bws[@]}")" -v pb="$(median "${pt_bws[@]}")" \
		-v nm="$(median "${nd_mrs[@]}")" -v pm="$(median "${pt_mrs[@]}")" 'BEGIN {
		printf "stress write %d B (median of %d): bandwidth nodrop/ib_write_bw %.2fx (%.2f vs %.2f MiB/s), message rate %.2fx (%.6f vs %.6f Mpps)\n",
			s, r, nb / pb, nb, pb, nm / pm, nm, pm }'
done
