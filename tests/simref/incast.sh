#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Runs an N:1 incast of long flows in the reference simulator (tests/simref/build.sh builds it)
# with the scenario profiles/scenarios/incast-8-connectx.yaml gives nodrop sim: one switch, 100G
# host links of 1 us, a 32 MB shared buffer (alpha 1/8), MTU 1000, ECN Kmin 400 KB, Kmax
# 1600 KB, Pmax 20 %, DCQCN as the HPCC paper sets it at 100G (ConnectX's reaction point: cut
# check every 4 us, alpha every 1 us, g 1/256, timer 900 us, F 1, AI 50 Mb/s, HAI 100 Mb/s, min
# 100 Mb/s, target rate not clamped), no window. PARAMS mlx5 gives the reaction point what a
# ConnectX ships instead (incast-8-mlx5.yaml: timer 300 us, g 5/1024, F 1, AI 5 Mb/s, HAI
# 50 Mb/s, min 1 Mb/s; the reference has no byte counter and sends a CNP per marked packet);
# mlx5-floor100 the same with HPCC's 100 Mb/s floor.
# Writes OUT/{config,topology,flows}.txt and OUT/stdout; tests/simref/series.py turns the
# stdout into the receiver port's series (stored in tests/simref/burst/). The reference's own
# program: tests/simref/ref.py runs the same model through nodrop-ref.cc, which measures more.
# Usage: tests/simref/incast.sh BIN OUT [SENDERS] [DURATION_S] [hpcc|mlx5|mlx5-floor100]
set -eu
bin=${1:?usage: tests/simref/incast.sh BIN OUT [SENDERS] [DURATION_S] [hpcc|mlx5|mlx5-floor100]}
out=${2:?out dir}
n=${3:-8}
dur=${4:-0.01}
case ${5:-hpcc} in
hpcc) timer=900 gain=0.00390625 ai=50 hai=100 min=100 ;;
mlx5) timer=300 gain=0.0048828125 ai=5 hai=50 min=1 ;;
mlx5-floor100) timer=300 gain=0.0048828125 ai=5 hai=50 min=100 ;;
*) echo "tests/simref/incast.sh: PARAMS is hpcc, mlx5 or mlx5-floor100, not '$5'" >&2; exit 2 ;;
esac
mkdir -p "$out"
out=$(cd "$out" && pwd)
sw=$((n + 1))
{
	echo "$((n + 2)) 1 1 $((n + 1))"
	echo "$sw"
	for ((h = 0; h <= n; h++)); do echo "$h $sw 100Gbps 1us 0"; done
} >"$out/topology.txt"
{
	echo "$n"
	# flows start at 1 s (ns-3's routing settles before); sizes large enough to run past the end
	for ((h = 1; h <= n; h++)); do echo "$h 0 3 100 1000000000000 1.0"; done
} >"$out/flows.txt"
cat >"$out/config.txt" <<CONF
ENABLE_QCN 1
USE_DYNAMIC_PFC_THRESHOLD 1
PACKET_PAYLOAD_SIZE 1000
TOPOLOGY_FILE $out/topology.txt
FLOW_FILE $out/flows.txt
TRACE_FILE $out/trace.txt
TRACE_OUTPUT_FILE $out/mix.tr
FCT_OUTPUT_FILE $out/fct.txt
PFC_OUTPUT_FILE $out/pfc.txt
SIMULATOR_STOP_TIME $(echo "1.0 + $dur" | bc -l)
CC_MODE 1
ALPHA_RESUME_INTERVAL 1
RATE_DECREASE_INTERVAL 4
CLAMP_TARGET_RATE 0
RP_TIMER $timer
EWMA_GAIN $gain
FAST_RECOVERY_TIMES 1
RATE_AI ${ai}Mb/s
RATE_HAI ${hai}Mb/s
MIN_RATE ${min}Mb/s
DCTCP_RATE_AI 1000Mb/s
ERROR_RATE_PER_LINK 0.0000
L2_CHUNK_SIZE 4000
L2_ACK_INTERVAL 1
L2_BACK_TO_ZERO 0
HAS_WIN 0
GLOBAL_T 1
VAR_WIN 0
FAST_REACT 1
U_TARGET 0.95
MI_THRESH 5
INT_MULTI 1
MULTI_RATE 0
SAMPLE_FEEDBACK 0
PINT_LOG_BASE 1.05
PINT_PROB 1.0
RATE_BOUND 1
ACK_HIGH_PRIO 0
LINK_DOWN 0 0 0
ENABLE_TRACE 0
KMAX_MAP 1 100000000000 1600
KMIN_MAP 1 100000000000 400
PMAX_MAP 1 100000000000 0.2
BUFFER_SIZE 32
QLEN_MON_FILE $out/qlen.txt
QLEN_MON_START 2000000000
QLEN_MON_END 2000000000
CONF
: >"$out/trace.txt"
echo 0 >"$out/trace.txt"
"$bin" --conf="$out/config.txt" --algorithm=1 --wien=false --delayWien=false --windowCheck=0 \
	>"$out/stdout" 2>"$out/stderr"
