#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make bench`: the switch's side. The LLDP decoder's frames per second (tests/bench/lldp_bench
# over 2000 seeded random frames) against tshark decoding the same pcap (each frame to every
# field, process start included: tshark's own rate); and peer discovery of eight ports in one
# `show --peer` wait against eight waits one port at a time, on veth pairs in a network
# namespace of its own where each "switch" sends once a second at a phase of its own (LLDP's
# interval scaled down from 30 s). Asserts no timing. Needs root (a network namespace, CAP_NET_RAW).
# Usage: tests/bench/peer.sh [ROUNDS]
set -u
# shellcheck source=tests/bench/stats.sh
. "$(dirname "$0")/stats.sh"

rounds=${1:-3}
ND=${ND_NODROP:-build/nodrop}
B=${ND_BUILD:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python3 tests/vm/lldp_gen.py 36 2000 "$out/frames.pcap" || exit 1

ours=() ref=()
for ((i = 0; i < rounds; i++)); do
	ours+=("$("$B/lldp_bench" "$out/frames.pcap")")
	t0=$(date +%s%N)
	tshark -r "$out/frames.pcap" -T fields -e lldp.tlv.type >/dev/null 2>&1 || exit 1
	t1=$(date +%s%N)
	ref+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", 2000 / ((b - a) / 1e9) }')")
	echo "round $i: lldp decoder ${ours[i]} frames/s, tshark ${ref[i]} frames/s"
done
nd_bench_summary "peer: LLDP frames decoded per second" rate 1 "nodrop" "tshark" \
	"${ours[*]}" "${ref[*]}"

# eight ports: one wait against one wait a port (each switch sends every second)
discover() {
	unshare -n bash -c '
		ND=$1 out=$2
		for i in 0 1 2 3 4 5 6 7; do
			ip link add pa$i type veth peer name pb$i && ip link set pa$i up &&
				ip link set pb$i up || exit 1
		done
		python3 - "$out/frames.pcap" <<"PY" &
import random, socket, struct, sys, time
data = open(sys.argv[1], "rb").read()
n = struct.unpack_from("<I", data, 24 + 8)[0]
frame = data[40:40 + n]
socks = []
for i in range(8):
	s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
	s.bind((f"pb{i}", 0))
	socks.append(s)
# each switch at its own phase of the second, as switches that booted apart are
phase = sorted((random.Random(36 + i).random(), i) for i in range(8))
start = time.monotonic()
for second in range(60):
	for at, i in phase:
		time.sleep(max(0, start + second + at - time.monotonic()))
		socks[i].send(frame)
PY
		sender=$!
		sleep 0.2
		t0=$(date +%s%N)
		"$ND" show --peer-wait 5 pa0 pa1 pa2 pa3 pa4 pa5 pa6 pa7 >/dev/null || exit 1
		t1=$(date +%s%N)
		for i in 0 1 2 3 4 5 6 7; do
			"$ND" show --peer-wait 5 pa$i >/dev/null || exit 1
		done
		t2=$(date +%s%N)
		kill $sender
		echo "$(((t1 - t0) / 1000000)) $(((t2 - t1) / 1000000))"
	' bash "$ND" "$out"
}
ours=() ref=()
for ((i = 0; i < rounds; i++)); do
	read -r one each < <(discover) || { echo "peer bench: discovery failed"; exit 1; }
	ours+=("$one")
	ref+=("$each")
	echo "round $i: eight ports heard in one wait ${one} ms, one port at a time ${each} ms"
done
nd_bench_summary "peer: eight ports discovered in one wait against one at a time (ms)" speedup 1 \
	"one wait" "a port at a time" "${ours[*]}" "${ref[*]}"
