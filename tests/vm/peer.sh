#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# nodrop show --peer against the wire and against tshark: 8 veth pairs, seeded random LLDP
# frames (tests/vm/lldp_gen.py: identities, 802.1Qaz ETS/PFC/APP with DSCP, 802.3 max frame
# size, CEE DCBX, TLVs nobody reads) sent out of one end of each as a switch's agent would,
# nodrop listening on the other ends, all eight in one wait; tshark decodes the same frames
# and tests/vm/lldp_compare.py holds the two field by field. Then what a silent wire gives, the
# wait of eight ports against one, and a frame that does not decode. Last, audit --peer on a
# nicsim port with the profile's DCB, the switch's frames received through nicsim's rx file:
# a matching switch audits clean, and each mismatch planted alone is the finding it should be. Run inside the guest by
# `tests/vm/vm.sh tests/vm/peer.sh`; ND_PEER_N frames (default 200), ND_PEER_SEED.
# shellcheck disable=SC2317 # functions run through nd_vm_check
set -u
# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"

ND=${ND_NODROP:-build/nodrop}
IP=/usr/sbin/ip
N=${ND_PEER_N:-200}
SEED=${ND_PEER_SEED:-36}
T=tests/vm

nd_vm_need tshark tshark
nd_vm_modprobe veth
for i in 0 1 2 3 4 5 6 7; do
	$IP link add "pa$i" type veth peer name "pb$i"
	$IP link set "pa$i" up
	$IP link set "pb$i" up
done

generated() { python3 $T/lldp_gen.py "$SEED" "$N" "$ND_OUT/frames.pcap"; }
heard() { python3 $T/lldp_wire.py "$ND" "$ND_OUT/frames.pcap" 8 "$ND_OUT/peers.json"; }
decoded() { tshark -r "$ND_OUT/frames.pcap" -T pdml >"$ND_OUT/frames.pdml" 2>"$ND_OUT/tshark.err"; }
alike() { python3 $T/lldp_compare.py "$ND_OUT/frames.pdml" "$ND_OUT/peers.json" >"$ND_OUT/compare.log"; }

# eight silent ports cost one wait, not eight; each says how long it waited and why
one_wait() {
	local t0 t1 out
	t0=${EPOCHREALTIME/./}
	out=$("$ND" show -j --peer-wait 2 pa0 pa1 pa2 pa3 pa4 pa5 pa6 pa7) || return 1
	t1=${EPOCHREALTIME/./}
	echo "eight silent ports: $(((t1 - t0) / 1000)) ms" >&2
	[ $((t1 - t0)) -lt 4000000 ] &&
		echo "$out" | jq -e 'length == 8 and all(.[]; .peer.heard == false and
			.peer.waited_ms == 2000 and (.peer.error | test("no LLDP frame in 2000 ms")))' \
			>/dev/null
}

# a frame cut short (a port ID longer than what follows): not heard, the decoder's reason
# kept, the wait runs out
bad_frame() {
	local out i ready=$ND_OUT/bad-frame.sending
	# the listener starts once the sender sends (python's start under a loaded TCG host has
	# taken longer than the listener's one-second wait)
	python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind(("pb0", 0))
f = bytes.fromhex("0180c200000e02000000beef88cc020704a088c201020304050570")
s.send(f); open(sys.argv[1], "w").close()
for _ in range(40): s.send(f); time.sleep(0.05)' "$ready" &
	for i in $(seq 200); do [ -e "$ready" ] && break; sleep 0.1; done
	out=$("$ND" show -j --peer-wait 1 pa0)
	wait
	echo "$out" | jq -e '.[0].peer | .heard == false and .bad_frames > 0 and
		(.error | test("^LLDP frame: "))' >/dev/null ||
		{ echo "$out" >&2; return 1; }
}

nd_vm_check "$N seeded random LLDP frames written (seed $SEED)" generated
nd_vm_check "nodrop show --peer heard each of them on the wire, eight ports a round" heard
nd_vm_check "tshark decoded the same frames" decoded
nd_vm_check "nodrop and tshark agree field by field on all $N" alike
tail -1 "$ND_OUT/compare.log" >&2
nd_vm_check "eight silent ports wait once, not eight times, each saying why" one_wait
nd_vm_check "a frame cut short: not heard, the TLV and byte named" bad_frame

# --- audit --peer on a port with DCB (nicsim), the switch's frames from its rx file ---
RX=/sys/kernel/debug/nicsim/nicsim0/rx
peer_audit() { # LINT|clean EXIT FRAME-ARGS...: audit while the switch sends, and what it found
	local want=$1 want_rc=$2 ids rc feeder
	shift
	shift
	python3 $T/lldp_gen.py frame "$@" /tmp/switch.bin || return 1
	(while :; do cat /tmp/switch.bin >"$RX"; read -r -t 0.1 <>/tmp/peer.fifo || :; done) &
	feeder=$!
	out=$("$ND" audit -j --dev nicsim0 --peer-wait 10 --accept-unverified roce.tos \
		tests/vm/profiles/peer.yaml)
	rc=$?
	kill "$feeder"
	wait "$feeder" 2>/dev/null
	ids=$(echo "$out" | jq -r '[.ports[0].lints[].id | select(startswith("peer-"))] | join(",")')
	if [ "$want" = clean ]; then
		[ "$rc" = "$want_rc" ] && [ -z "$ids" ] && return 0
	else
		[ "$rc" = "$want_rc" ] && [[ ",$ids," == *",$want,"* ]] && return 0
	fi
	echo "audit --peer ($*): exit $rc, peer lints '$ids', want $want: $out" >&2
	return 1
}
unheard() {
	out=$("$ND" audit -j --dev nicsim0 --peer-wait 1 --accept-unverified roce.tos \
		tests/vm/profiles/peer.yaml)
	[ $? = 1 ] && echo "$out" | jq -e '.ports[0].lints | any(.id == "peer-unheard")' >/dev/null
}
mkfifo /tmp/peer.fifo
nd_vm_nicsim_load 1
$IP link set nicsim0 up
"$ND" apply --state-dir /tmp/peer-state --dev nicsim0 tests/vm/profiles/lossless.yaml >/dev/null
nd_vm_check "audit --peer: the switch matches, clean" peer_audit clean 0
nd_vm_check "audit --peer: PFC on 4 at the switch, 3 here (exit 1)" peer_audit \
	peer-pfc-mismatch 1 pfc=0x10
nd_vm_check "audit --peer: the switch maps DSCP 26 to 4 (exit 1)" peer_audit \
	peer-dscp-mismatch 1 dscp=26:4
nd_vm_check "audit --peer: the switch port takes 1522-byte frames (exit 1)" peer_audit \
	peer-max-frame 1 mfs=1522
nd_vm_check "audit --peer: no ETS share for RoCE's class at the switch (a warning)" \
	peer_audit peer-ets-starved 0 tc3-bw=0
# the same mismatch as node_exporter's textfile would carry it, promtool as the judge
prom_mismatch() {
	python3 $T/lldp_gen.py frame pfc=0x10 /tmp/switch.bin || return 1
	(while :; do cat /tmp/switch.bin >"$RX"; sleep 0.1; done) &
	local feeder=$! why
	"$ND" audit --dev nicsim0 --peer-wait 10 --accept-unverified roce.tos \
		--prometheus "$ND_OUT/audit.prom" tests/vm/profiles/peer.yaml >/dev/null
	kill "$feeder"
	wait "$feeder" 2>/dev/null
	why=$(promtool check metrics <"$ND_OUT/audit.prom" 2>&1)
	[ -z "$why" ] &&
		grep -q '^nodrop_peer_heard{device="nicsim0",source="lldp"} 1$' "$ND_OUT/audit.prom" &&
		grep -q '^nodrop_peer_mismatch{device="nicsim0",check="peer-pfc-mismatch",severity="error",switch_port="' \
			"$ND_OUT/audit.prom" ||
		{ echo "$why" >&2; cat "$ND_OUT/audit.prom" >&2; return 1; }
}
nd_vm_check "audit --peer --prometheus: the mismatch as a gauge, promtool clean" prom_mismatch
nd_vm_check "audit --peer: no switch heard" unheard
nd_vm_done
