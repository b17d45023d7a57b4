#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make sim-ref REF=DIR`: rebuilds the reference simulator from REF (a clone of
# inet-tub/ns3-datacenter: tests/simref/build.sh) and reruns every scenario the unit tier holds
# nodrop sim to (tests/unit/test_simref.c), writing OUT/NAME.ref (default tests/simref): what
# the reference measured, with the commit it ran at. Fetches nothing. Compare with `git diff`.
# Usage: [SIMREF_COMMIT=C] tests/simref/all.sh NODROP REF [OUT]
set -eu
nodrop=${1:?usage: tests/simref/all.sh NODROP REF [OUT]}
ref=${2:?usage: tests/simref/all.sh NODROP REF [OUT]}
here=$(cd "$(dirname "$0")" && pwd)
out=${3:-$here}
python3 -c 'import yaml' 2>/dev/null ||
	{ echo "simref: ref.py reads scenarios with PyYAML: apt-get install python3-yaml" >&2; exit 2; }
# the commit the numbers come from: the clone's, or SIMREF_COMMIT for a tree without its .git
commit=${SIMREF_COMMIT:-$(git -C "$ref" rev-parse --short=7 HEAD 2>/dev/null)} ||
	{ echo "simref: $ref is not a git clone: name its commit with SIMREF_COMMIT=" >&2; exit 2; }
bins=$("$here/build.sh" "$ref")
refbin=$(echo "$bins" | grep -- '-nodrop-ref' | head -1)
[ -x "$refbin" ] || { echo "simref: build.sh built no nodrop-ref" >&2; exit 1; }
work=$(mktemp -d /tmp/nd-simref.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
# scenario and the seeds it runs: one for long flows (each flow is compared), four for the
# Poisson loads (their tails are compared, pooled)
while read -r scen seeds; do
	name=$(basename "$scen" .yaml)
	start=$SECONDS
	python3 "$here/ref.py" "$nodrop" "$refbin" "$scen" "$out/$name.ref" --seeds "$seeds" \
		--commit "$commit" --work "$work"
	echo "simref: $name (seeds $seeds): $((SECONDS - start)) s -> $out/$name.ref"
done <<LIST
profiles/scenarios/incast-8-connectx.yaml 1
profiles/scenarios/incast-64-connectx.yaml 1
$here/victim-leaf-spine-connectx.yaml 1
$here/websearch-30-connectx.yaml 1,2,3,4
$here/websearch-50-connectx.yaml 1,2,3,4
LIST
