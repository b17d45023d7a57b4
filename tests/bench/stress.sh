#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make bench`, in the guest: `nodrop stress` pair RDMA WRITE against perftest's ib_write_bw
# on the same soft-RoCE device (rxe0, both ends at 198.18.0.1), with the same message size,
# queue depth, completion moderation, ACK timeout, duration and measurement margins (the
# first and last second of each run left out, perftest's -f; nodrop's --margin), plain verbs
# on both sides. The rounds alternate which tool goes first (ABBA) so host noise and warm-up
# hit both alike; the median round of each counts. Prints bandwidth and message-rate ratios,
# how many rounds nodrop won, and the target's verdict: met (median ratio >= 1), parity (short
# of 1 by less than ib_write_bw's own round-to-round variation: the two cannot be told apart)
# or not met. Asserts no timing (TCG makes absolute numbers slow; the ratio is what counts).
#
# Why parity is a possible answer: at 64 KiB both tools leave soft-RoCE's kernel datapath (copy,
# ICRC, skb zeroing) ~97% of the guest's CPU, and each counts completions that arrive a window
# at a time, so one round's figure moves by a window's worth (perftest: +-4% over 4 s).
set -u
# shellcheck source=tests/vm/guest-lib.sh
. tests/vm/guest-lib.sh

ND=${ND_NODROP:-build/nodrop}
ROUNDS=${ND_BENCH_ROUNDS:-8}
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

# summary SIZE "ND_BWS" "PT_BWS" "ND_MRS" "PT_MRS": the medians' ratios, the rounds nodrop won
# and the verdict against ib_write_bw's own coefficient of variation
summary() {
	awk -v s="$1" -v nb="$2" -v pb="$3" -v nm="$4" -v pm="$5" '
	function med(str, a, n, i, j, t) {
		n = split(str, a, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function cv(str, a, n, i, m, v) {
		n = split(str, a, " ")
		for (i = 1; i <= n; i++)
			m += a[i] / n
		for (i = 1; i <= n; i++)
			v += (a[i] - m) ^ 2 / (n > 1 ? n - 1 : 1)
		return sqrt(v) / m
	}
	BEGIN {
		n = split(nb, x, " "); split(pb, y, " ")
		for (i = 1; i <= n; i++)
			won += (x[i] + 0 >= y[i] + 0)
		rb = med(nb) / med(pb); rm = med(nm) / med(pm); spread = cv(pb)
		printf "stress write %d B (median of %d): bandwidth nodrop/ib_write_bw %.2fx (%.2f vs %.2f MiB/s), message rate %.2fx (%.6f vs %.6f Mpps), nodrop ahead in %d of %d rounds\n",
			s, n, rb, med(nb), med(pb), rm, med(nm), med(pm), won, n
		printf "stress write %d B target nodrop >= ib_write_bw: %s (ib_write_bw varies %.1f%% round to round)\n",
			s, (rb >= 1 ? "met" : 1 - rb < spread ? "parity" : "not met"), 100 * spread
	}'
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
	summary "$size" "${nd_bws[*]}" "${pt_bws[*]}" "${nd_mrs[*]}" "${pt_mrs[*]}"
done
