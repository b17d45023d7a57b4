#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make bench SIMREF_BIN=...`: nodrop sim's wall time against the HPCC simulator's
# (tests/simref/build.sh builds it) on the same 8:1 incast of 10 ms: incast-8-connectx.yaml
# against tests/simref/incast.sh BIN OUT 8 0.01, each a process run start to end, the order
# alternating by round (tests/bench/stats.sh). Asserts no timing.
# Usage: tests/bench/simref.sh BIN [ROUNDS]
set -u
# shellcheck source=tests/bench/stats.sh
. "$(dirname "$0")/stats.sh"

bin=${1:?usage: tests/bench/simref.sh BIN [ROUNDS]}
rounds=${2:-3}
ND=${ND_NODROP:-build/nodrop}
[ -x "$bin" ] || { echo "simref bench: $bin is not a program: tests/simref/build.sh REF builds it"; exit 3; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# wall seconds of one run of "$@", output discarded; empty when it failed
wall() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1 || return
	t1=$(date +%s%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", (b - a) / 1e9 }'
}
ours=() ref=()
for ((i = 0; i < rounds; i++)); do
	for side in $( ((i % 2)) && echo "ref nd" || echo "nd ref"); do
		if [ "$side" = nd ]; then
			ours+=("$(wall "$ND" sim profiles/scenarios/incast-8-connectx.yaml)")
		else
			ref+=("$(wall tests/simref/incast.sh "$bin" "$out/r$i" 8 0.01)")
		fi
	done
	if ! nd_bench_num "${ours[i]}" || ! nd_bench_num "${ref[i]}"; then
		echo "simref bench: round $i failed (nodrop '${ours[i]}', reference '${ref[i]}')"
		exit 1
	fi
	echo "round $i: nodrop sim ${ours[i]} s, the HPCC simulator ${ref[i]} s"
done
nd_bench_summary "sim: 8:1 incast, 10 ms, against the HPCC simulator" speedup 1 "nodrop sim" \
	"ns-3 (HPCC)" "${ours[*]}" "${ref[*]}"
