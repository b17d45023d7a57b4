# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Sourced by the benchmarks (host and guest): one summary line for a comparison measured in
# rounds, nodrop and the reference tool in each round, the order alternating (ABBA). Rounds are
# paired: the ratio of each round is taken as well as the ratio of the medians, so a round in a
# noisy moment weighs on both tools alike.

# awk functions for the scripts' own summaries: med("V1 V2 ..."), the median of a list
ND_BENCH_AWK='
	function med(str, a, n, i, j, t) {
		n = split(str, a, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
'

# nd_bench_summary WHAT KIND TARGET OURS_NAME REF_NAME "OURS..." "REF..."
#   OURS and REF: per-round values of the same rounds; the names say whose (nodrop, perftest).
#   KIND: time (OURS/REF, lower is better), rate (OURS/REF, higher is better) or speedup
#   (REF/OURS, higher is better: OURS and REF are times).
#   TARGET: the ratio asked for (1: at least as good as the reference).
# Prints the ratio of the medians, the per-round ratios' median and range, the rounds that
# reached the target, the reference's own round-to-round variation (coefficient of variation)
# and the verdict: met, parity (short of the target by less than that variation: the two cannot
# be told apart) or not met. A reference whose median is 0 measured nothing: said so, no ratio.
nd_bench_summary() {
	awk -v what="$1" -v kind="$2" -v target="$3" -v on="$4" -v rn="$5" -v ov="$6" -v rv="$7" \
		"$ND_BENCH_AWK"'
	function cv(str, a, n, i, m, v) {
		n = split(str, a, " ")
		for (i = 1; i <= n; i++)
			m += a[i] / n
		for (i = 1; i <= n; i++)
			v += (a[i] - m) ^ 2 / (n > 1 ? n - 1 : 1)
		return m ? sqrt(v) / m : 0
	}
	function ratio(o, r) {
		return kind == "speedup" ? (o ? r / o : 0) : (r ? o / r : 0)
	}
	function good(x) {
		return kind == "time" ? x <= target : x >= target
	}
	function fmt(x) {
		return x >= 10 ? sprintf("%.1f", x) : sprintf("%.2f", x)
	}
	BEGIN {
		n = split(ov, o, " "); split(rv, r, " ")
		if (med(rv) == 0) {
			printf "%s (%d rounds): %s %s, %s 0 (it measured nothing)\n",
				what, n, on, med(ov), rn
			exit
		}
		lo = hi = ""
		for (i = 1; i <= n; i++) {
			# a round whose reference measured nothing has no ratio;
			# a rate that moved data won it
			if ((kind == "speedup" ? o[i] : r[i]) + 0 == 0) {
				won += kind == "rate" && o[i] > 0
				continue
			}
			x = ratio(o[i], r[i]); per = per " " x
			won += good(x)
			if (lo == "" || x < lo) lo = x
			if (hi == "" || x > hi) hi = x
		}
		m = ratio(med(ov), med(rv)); spread = cv(rv)
		short = kind == "time" ? m / target - 1 : 1 - m / target
		label = kind == "speedup" ? rn "/" on : on "/" rn
		printf "%s (%d rounds): %s %sx of the medians (%s vs %s), per round %sx (%s-%s), target %s %sx reached in %d of %d rounds, %s varies %.1f%% round to round: %s\n",
			what, n, label, fmt(m), med(ov), med(rv), fmt(med(per)), fmt(lo), fmt(hi),
			kind == "time" ? "<=" : ">=", target, won, n, rn, 100 * spread,
			good(m) ? "met" : short < spread ? "parity" : "not met"
	}'
}

# nd_bench_num VALUE: whether VALUE is a number (a measurement that printed nothing is not)
nd_bench_num() {
	[[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]]
}
