#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Nightly lossless check with mpirun: one nodrop stress rank per host of a hostfile, MPI's
# collectives as the rendezvous (nodrop-mpi.so, built where libopenmpi-dev is installed).
#
#   nodrop-stress-mpirun.sh HOSTFILE [OUTDIR] [-- extra nodrop stress options]
#
# The first host is rank 0, the incast receiver. The report (JSON) and JUnit XML go to
# OUTDIR (default .); the exit status is the verdict's: 0 lossless, 1 lossy or failed,
# 2 bad options, 3 a rank could not take part.
# Knobs: ND_PATTERN (incast), ND_OP (write), ND_SIZE (64K), ND_DURATION (30), ND_MEM (host).
set -u

[ $# -ge 1 ] || { sed -n 's/^# \{0,1\}//p' "$0" | sed -n '2,12p' >&2; exit 2; }
hosts=$1
out=${2:-.}
shift $(($# >= 2 ? 2 : 1))
[ "${1:-}" = -- ] && shift
n=$(grep -cv '^\s*\(#\|$\)' "$hosts")
stamp=$(date +%Y%m%d-%H%M%S)

# nodrop picks MPI by itself under mpirun; rank 0 prints the report, the others a line each.
mpirun -np "$n" --hostfile "$hosts" --map-by ppr:1:node \
	nodrop stress -P "${ND_PATTERN:-incast}" -o "${ND_OP:-write}" -s "${ND_SIZE:-64K}" \
	-D "${ND_DURATION:-30}" -m "${ND_MEM:-host}" --validate --probes -j \
	--junit "$out/nodrop-stress-$stamp.xml" "$@" >"$out/nodrop-stress-$stamp.all"
rc=$?
# rank 0's report is the object with the run's kind; the rest are the other ranks' verdicts
jq -c 'select(.kind == "stress")' "$out/nodrop-stress-$stamp.all" >"$out/nodrop-stress-$stamp.json"
jq -r '"\(.verdict): \(.reason)"' "$out/nodrop-stress-$stamp.json"
exit "$rc"
