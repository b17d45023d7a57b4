#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make bench SIMREF_BIN=...`: nodrop sim's wall time against the HPCC simulator's on the
# scenarios the unit tier holds it to (tests/simref/all.sh's list, seed 1): `nodrop sim FILE`
# against the reference's nodrop-ref program (tests/simref/build.sh builds it) on the config
# tests/simref/ref.py --config-only writes for the same flows. Each a process run start to end,
# the order alternating by round (tests/bench/stats.sh). Asserts no timing.
# Usage: tests/bench/simref.sh NODROP_REF_BIN [ROUNDS]
set -u
# shellcheck source=tests/bench/stats.sh
. "$(dirname "$0")/stats.sh"

bin=${1:?usage: tests/bench/simref.sh NODROP_REF_BIN [ROUNDS]}
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
for scen in profiles/scenarios/incast-8-connectx.yaml profiles/scenarios/incast-64-connectx.yaml \
	tests/simref/victim-leaf-spine-connectx.yaml tests/simref/websearch-30-connectx.yaml \
	tests/simref/websearch-50-connectx.yaml; do
	name=$(basename "$scen" .yaml)
	if ! tests/simref/ref.py "$ND" "$bin" "$scen" "$out/$name.conf" --config-only; then
		echo "simref bench: $name: ref.py could not write the reference's config"
		exit 1
	fi
	ours=() ref=()
	for ((i = 0; i < rounds; i++)); do
		for side in $( ((i % 2)) && echo "ref nd" || echo "nd ref"); do
			if [ "$side" = nd ]; then
				ours+=("$(wall "$ND" sim "$scen")")
			else
				ref+=("$(wall "$bin" "$out/$name.conf" "$out/$name.out")")
			fi
		done
		if ! nd_bench_num "${ours[i]}" || ! nd_bench_num "${ref[i]}"; then
			echo "simref bench: $name round $i failed (nodrop '${ours[i]}', reference '${ref[i]}')"
			exit 1
		fi
		echo "round $i: $name: nodrop sim ${ours[i]} s, the HPCC simulator ${ref[i]} s"
	done
	nd_bench_summary "sim: $name, against the HPCC simulator" speedup 1 "nodrop sim" \
		"ns-3 (HPCC)" "${ours[*]}" "${ref[*]}"
done
