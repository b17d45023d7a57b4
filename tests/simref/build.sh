#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Builds the reference simulator for `make sim-ref`: ns3-datacenter (inet-tub/ns3-datacenter, the
# HPCC simulator's RDMA, DCQCN, PFC and shared-buffer switch model carried to ns-3.39 and CMake)
# from a source tree given as REF (the directory that holds simulator/ns-3.39, or ns-3.39
# itself). Fetches nothing: get the tree yourself (git clone; commit 6ddb4a4 is the one the
# stored reference numbers came from). Only the modules the RDMA model needs, the example program
# the incast series came from (powertcp-evaluation-burst, HPCC's third.cc with a flow file), and
# nodrop-ref.cc (ours: the same model, set up from a scenario and measured as nodrop sim reports),
# which it copies into the tree's scratch/ directory. Prints the two programs' paths.
# Usage: tests/simref/build.sh REF [BUILD_DIR]
set -eu
ref=${1:?usage: tests/simref/build.sh REF [BUILD_DIR]}
[ -d "$ref/simulator/ns-3.39" ] && ref=$ref/simulator/ns-3.39
if [ ! -f "$ref/src/point-to-point/model/rdma-hw.cc" ]; then
	echo "simref: $ref is not an ns3-datacenter tree (no src/point-to-point/model/rdma-hw.cc)" >&2
	exit 2
fi
out=${2:-$ref/build-nodrop}
here=$(cd "$(dirname "$0")" && pwd)
cmp -s "$here/nodrop-ref.cc" "$ref/scratch/nodrop-ref.cc" ||
	install -m 644 "$here/nodrop-ref.cc" "$ref/scratch/nodrop-ref.cc"
command -v cmake >/dev/null || { echo "simref: needs cmake (apt-get install cmake g++)" >&2; exit 2; }
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$ref" -B "$out" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
	-DNS3_ENABLED_MODULES="point-to-point;internet;applications;traffic-control" \
	-DNS3_EXAMPLES=ON -DNS3_TESTS=OFF -DNS3_PYTHON_BINDINGS=OFF -DNS3_GTK3=OFF -DNS3_GSL=OFF \
	-DNS3_CCACHE=OFF -DNS3_WARNINGS_AS_ERRORS=OFF >"$out.configure.log" 2>&1 ||
	{ tail -20 "$out.configure.log" >&2; exit 1; }
cmake --build "$out" -j "$(nproc)" --target powertcp-evaluation-burst scratch_nodrop-ref >&2
for prog in powertcp-evaluation-burst nodrop-ref; do
	find "$ref/build" "$out" -name "ns3.39-$prog*" -type f -perm -u+x 2>/dev/null | head -1
done
