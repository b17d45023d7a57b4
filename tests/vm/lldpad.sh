#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# lldpad plays the switch: a real LLDP agent, not frames we wrote. nicsim with wire=1 cables
# nicsim0 (the host's NIC) to nicsim1 (the switch port); lldpad advertises on nicsim1 what a
# switch would (PFC on 3 not willing, ETS giving TC3 half, APP DSCP 26 and UDP 4791 on 3, the
# maximum frame size, its names) and stays off nicsim0. nodrop show --peer hears it (JSON and
# text), tshark decodes the same frames and tests/vm/lldp_compare.py holds the two field by
# field; audit --peer finds each mismatch planted at the switch through lldptool; lldpad on
# the host's port too (an agent holds it) and both hear the switch alike; last, lldpad's CEE
# DCBX on nicsim's CEE ops (cee=1), which Debian 12's lldpad never gets to send (its bug, see
# d). First, what lldpad does on a port without dcbnl (a veth). Run inside the guest by
# `tests/vm/vm.sh tests/vm/lldpad.sh`; about 40 s there under TCG.
#
# lldpad sends every 30 s, and 4 frames a second apart after each change ("fast transmit";
# msgTxInterval cannot be set: lldptool says "Command not applicable"): each listen starts,
# then a no-op lldptool set (poke) starts the fast frames. The APP TLV is read from the
# switch port's kernel APP table, which lldpad programs 15 s after the port came up, at once
# after that: the checks wait for that table before they listen.
# shellcheck disable=SC2317 # functions run through nd_vm_check
set -u
# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"

ND=${ND_NODROP:-build/nodrop}
IP=/usr/sbin/ip
T=tests/vm
DBG=/sys/kernel/debug/nicsim
O=$ND_OUT
CONF=/run/lldpad/lldpad.conf
TLOG=$O/lldptool.log
STATE=/tmp/lldpad-state
ETS_TSA=0:ets,1:strict,2:strict,3:ets,4:strict,5:strict,6:strict,7:strict
UP2TC=0:0,1:0,2:0,3:3,4:0,5:0,6:0,7:0
t_start=$SECONDS

nd_vm_need lldpad lldpad || nd_vm_done
nd_vm_need tshark tshark || nd_vm_done

# lldptool, logged with its answer; its output on stdout as well
lt() {
	local out rc
	out=$(lldptool "$@" 2>&1)
	rc=$?
	printf '$ lldptool %s\n%s\n[rc=%d]\n' "$*" "$out" "$rc" >>"$TLOG"
	printf '%s\n' "$out"
	return "$rc"
}
lq() { lt "$@" >/dev/null; }

# lldpad runs as switch-lldpad (a link to it): the switch's agent, not one of this host's,
# which nodrop's dcbx-not-host lint looks for by name (/proc/PID/comm) and reports in every
# audit. In the foreground, its log (level info, line by line) in the results, no PID file.
lldpad_start() {
	mkdir -p /run/lldpad
	ln -sf /usr/sbin/lldpad /run/lldpad/switch-lldpad
	stdbuf -oL /run/lldpad/switch-lldpad -p -t -V 6 -f "$CONF" >>"$O/lldpad.log" 2>&1 &
	LLDPAD=$!
	nd_vm_retry 100 0.1 lldptool -p >/dev/null 2>&1
}
lldpad_stop() { # its status in its log (Debian 12's crashes after CEE: 139, see d)
	kill "$LLDPAD"
	wait "$LLDPAD" 2>/dev/null
	echo "lldpad (pid $LLDPAD) exited with status $? after SIGTERM" >>"$O/lldpad.log"
}

# a no-op set on a port (nicsim1, or POKE): lldpad sends its next 4 frames a second apart
poke() { lq -T -i "${POKE:-nicsim1}" -V sysName enableTx=yes; }

# listen: nodrop ARGS... (output to $out, status to $rc) while the switch is poked
listen() {
	local pid f=$O/listen.out
	"$ND" "$@" >"$f" 2>"$O/listen.err" &
	pid=$!
	poke
	wait "$pid"
	rc=$?
	out=$(<"$f")
}

# the switch port's kernel APP table (what lldpad's APP TLV is made of) holds exactly WANT
app_table() { [ "$(/usr/sbin/dcb -j app show dev nicsim1)" = "$1" ]; }
app_wait() {
	nd_vm_retry 50 0.1 app_table "$1" && return 0
	echo "nicsim1 APP table: $(/usr/sbin/dcb -j app show dev nicsim1), want $1" >&2
	return 1
}

# What a switch port in a RoCE fabric sends: PFC on 3 (not willing), ETS TC3 half of the link,
# priority 3 for DSCP 26 and for RoCEv2's UDP port, its names and its maximum frame size
switch_match() {
	lq -T -i nicsim1 -V PFC enableTx=yes willing=no enabled=3 &&
		lq -T -i nicsim1 -V ETS-CFG enableTx=yes willing=no tsa="$ETS_TSA" up2tc="$UP2TC" \
			tcbw=50,0,0,50,0,0,0,0 &&
		lq -T -i nicsim1 -V ETS-REC enableTx=yes tsa="$ETS_TSA" up2tc="$UP2TC" \
			tcbw=50,0,0,50,0,0,0,0
}

# a port without dcbnl
nd_vm_modprobe veth
$IP link add va type veth peer name vb
$IP link set va up
$IP link set vb up

# --- the cable: nicsim0 (host) <-> nicsim1 (switch) -------------------------------------------
nd_vm_nicsim_load 2 wire=1 cee=1 || nd_vm_done
# A PFC change flaps an mlx5 port, and lldpad answers a link going up by programming the
# port's DCB from its own configuration: no flaps here, so lldpad writes where it is told to.
echo N >$DBG/nicsim0/flap_on_pfc
echo N >$DBG/nicsim1/flap_on_pfc
# the switch keeps APP entries of every selector (UDP 4791 too), not mlx5's DSCP only
echo Y >$DBG/nicsim1/app_any
$IP link set nicsim1 mtu 9216
$IP link set nicsim0 up
$IP link set nicsim1 up
# lldpad programs the DCB of each port whose DCBX is host when it starts, adminStatus disabled
# or not (its own defaults: ETS all strict, PFC off): nicsim0 reads lld-managed until lldpad
# has passed it by (it looks again only when the link comes up)
echo 0x0a >$DBG/nicsim0/dcbx

: >"$TLOG"
: >"$O/lldpad.log"
: >"$O/audit.json"
lldpad_running() { lldptool -p >/dev/null 2>&1; }
lldpad_start
nd_vm_check "lldpad runs and answers lldptool" lldpad_running
echo 0x09 >$DBG/nicsim0/dcbx
lq -L -i nicsim0 adminStatus=disabled
# the host's port gets the profile's DCB (c audits it); no link event, so lldpad leaves it be
"$ND" apply --state-dir "$STATE" --dev nicsim0 tests/vm/profiles/lossless.yaml \
	>"$O/apply.log" 2>&1 || nd_vm_fail "apply lossless.yaml on nicsim0 (see apply.log)"
lq -L -i nicsim1 adminStatus=rxtx
lq -L -i va adminStatus=rxtx

# The switch port. lldpad programs a port's DCB (and its APP table, which the APP TLV is read
# from) only once the port has been up for 15 s (its "dormant delay"): configured now, looked
# at after the veth
APP_OK='{"dscp_prio":[[26,3]],"dgram_port_prio":[[4791,3]]}'
switch_setup() {
	lq -T -i nicsim1 -V sysName enableTx=yes &&
		lq -T -i nicsim1 -V portDesc enableTx=yes &&
		lq -T -i nicsim1 -V MTU enableTx=yes &&
		switch_match &&
		lq -T -i nicsim1 -V APP app=3,5,26 &&
		lq -T -i nicsim1 -V APP app=3,3,4791 &&
		lq -T -i nicsim1 -V APP enableTx=yes
}
nd_vm_check "lldptool configures nicsim1 as a switch port (PFC, ETS, APP, MTU, names)" switch_setup

# --- lldpad's limits: its transmit interval, a port without dcbnl (veth) ---------------------
# msgTxInterval is no lldptool parameter (lldpad's 30 s is a constant): recorded, not needed
msg_tx_interval() {
	local out
	out=$(lt -L -i nicsim1 msgTxInterval=1)
	echo "lldptool -L msgTxInterval=1: $out" >&2
	[[ $out == *"Command not applicable"* ]]
}
nd_vm_check "lldpad: msgTxInterval cannot be set (Command not applicable)" msg_tx_interval

# lldpad on a veth: plain LLDP, no DCB TLVs: lldptool refuses them, lldpad says why
veth_no_dcb() {
	local out rc
	out=$(lt -T -i va -V PFC enableTx=yes enabled=3)
	rc=$?
	echo "lldptool -T -i va -V PFC ...: rc $rc: $out" >&2
	[ "$rc" != 0 ] && [[ $out == *"Device not capable"* ]] &&
		grep -q "Adapter va does not support DCB" "$O/lldpad.log"
}
veth_plain_lldp() {
	POKE=va listen show -j --peer --peer-wait 35 vb
	[ "$rc" = 0 ] && jq -e --arg mac "$(cat /sys/class/net/va/address)" '.[0].peer |
		.heard and .port_id == $mac and ([has("pfc", "ets", "ets_reco", "app", "cee")] |
		any | not)' <<<"$out" >/dev/null || { echo "$out" >&2; return 1; }
}
nd_vm_check "lldpad on a veth: DCB TLVs refused (Device not capable, no dcbnl)" veth_no_dcb
nd_vm_check "  ... its frames carry no DCB TLVs (nodrop on the other end)" veth_plain_lldp
$IP link del va

# --- a: the switch as nodrop hears it ---------------------------------------------------------
app_ready() {
	local t0=$SECONDS
	nd_vm_retry 250 0.1 app_table "$APP_OK" || { app_wait "$APP_OK"; return 1; }
	echo "nicsim1's APP table programmed by lldpad, waited $((SECONDS - t0)) s" >&2
}
nd_vm_check "lldpad programmed nicsim1's APP table (DSCP 26, UDP 4791 -> 3)" app_ready

# capture IFACE PCAP: the next LLDP frame on IFACE into PCAP, by a packet socket (tshark's
# own capture took 20 s to start under TCG); returns once the socket listens, $CAP waits
capture() {
	rm -f "$2" "$2.ready"
	python3 - "$1" "$2" <<'EOF' &
import socket, struct, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88cc))
s.bind((sys.argv[1], 0))
s.settimeout(40)
open(sys.argv[2] + '.ready', 'w').close()
f = s.recv(65535)
t = time.time()
with open(sys.argv[2], 'wb') as o:
    o.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    o.write(struct.pack('<IIII', int(t), int(t % 1 * 1e6), len(f), len(f)) + f)
EOF
	CAP=$!
	nd_vm_retry 100 0.05 test -e "$2.ready"
}
# tshark decodes PCAP into NAME.pdml in the background ($TSHARK): it takes seconds to start
decode() { # PCAP NAME
	tshark -r "$1" -T pdml >"$O/$2.pdml" 2>"$O/tshark-$2.err" &
	TSHARK=$!
}

heard_json() {
	local t0=$SECONDS
	# a frame of the same burst for tshark (b)
	capture nicsim0 "$O/ieee.pcap"
	listen show -j --peer --peer-wait 35 nicsim0
	wait "$CAP" && decode "$O/ieee.pcap" ieee
	echo "$out" >"$O/peer-ieee.json"
	echo "show --peer (JSON) heard the switch in $((SECONDS - t0)) s, waited" \
		"$(jq '.[0].peer.waited_ms' <<<"$out") ms" >&2
	[ "$rc" = 0 ] && jq -e --arg host "$(hostname)" '.[0].peer |
		def bits(a): [a | to_entries[] | select(.value) | pow(2; .key)] | add // 0;
		.heard and .system_name == $host and (.port_description | test("nicsim1")) and
		bits(.pfc.prio_pfc) == 8 and .pfc.willing == false and .pfc.pfc_cap == 8 and
		.ets.willing == false and .ets.prio_tc == [0,0,0,3,0,0,0,0] and
		.ets.tc_bw[3] == 50 and .ets.tc_tsa[3] == "ets" and
		.ets_reco.prio_tc[3] == 3 and .ets_reco.tc_bw[3] == 50 and
		(.app | any(.selector == "dscp" and .protocol == 26 and .prio == 3)) and
		(.app | any(.selector == "udp" and .protocol == 4791 and .prio == 3)) and
		(.app | length) == 2 and .max_frame == 9234 and (has("cee") | not)' \
		<<<"$out" >/dev/null || { echo "$out" >&2; return 1; }
}
heard_text() {
	listen show --peer --peer-wait 35 nicsim0
	echo "$out" >"$O/peer-ieee.txt"
	local pfc="pfc willing off macsec-bypass off pfc-cap 8 prio-pfc 0:off 1:off 2:off 3:on 4:off"
	local ets="ets willing off cbs off max-tcs 8 prio-tc 0:0 1:0 2:0 3:3 4:0 5:0 6:0 7:0"
	[ "$rc" = 0 ] && [[ $out == *"peer $(hostname) port "*"(Interface"*"nicsim1)"* ]] &&
		[[ $out == *"$pfc"* ]] && [[ $out == *"$ets tc-bw 0:50 1:0 2:0 3:50"* ]] &&
		[[ $out == *"app "*"dscp 26:3"* ]] && [[ $out == *"app "*"udp 4791:3"* ]] &&
		[[ $out == *"max-frame 9234"* ]] || { echo "$out" >&2; return 1; }
}
nd_vm_check "show -j --peer: PFC 0x08 not willing, ETS 3->TC3 50 %, APP DSCP 26/UDP 4791 -> 3, \
MFS, names" heard_json
nd_vm_check "show --peer (text) says the same" heard_text

# --- b: tshark's decode of the same switch ----------------------------------------------------
# tshark's decode (decode, above) and nodrop's peer object, shaped as lldp_compare.py takes
# them (peers[k]: frame k); checked after the audits, which run while tshark starts
alike() { # PEER-JSON NAME
	wait "$TSHARK" &&
		jq '{peers: [.[0].peer]}' "$1" >"$O/$2-peers.json" &&
		python3 $T/lldp_compare.py "$O/$2.pdml" "$O/$2-peers.json" >"$O/$2-compare.log" ||
		{ cat "$O/$2-compare.log" "$O/tshark-$2.err" >&2; return 1; }
}

# --- c: audit --peer against the switch, each mismatch planted with lldptool ------------------
audit() { # LINT|clean EXIT: audit --peer while the switch sends, and what it found
	local ids
	listen audit -j --dev nicsim0 --peer-wait 35 --accept-unverified roce.tos \
		tests/vm/profiles/peer.yaml
	echo "$out" >>"$O/audit.json"
	ids=$(jq -r '[.ports[0].lints[].id | select(startswith("peer-"))] | join(",")' <<<"$out")
	if [ "$1" = clean ]; then
		[ "$rc" = "$2" ] && [ -z "$ids" ] && return 0
	else
		[ "$rc" = "$2" ] && [[ ",$ids," == *",$1,"* ]] && return 0
	fi
	echo "audit --peer: exit $rc, peer lints '$ids', want $1 exit $2: $out" >&2
	return 1
}
no_willing_lint() { # the switch willing: an agent on the NIC would take the profile's side
	audit peer-pfc-mismatch 1 && ! jq -e '.ports[0].lints | any(.id == "peer-willing")' \
		"$O/listen.out" >/dev/null
}
nd_vm_check "audit --peer: the switch matches, clean (exit 0)" audit clean 0

lq -T -i nicsim1 -V PFC enabled=4
nd_vm_check "audit --peer: PFC on 4 at the switch, 3 here: peer-pfc-mismatch (exit 1)" \
	audit peer-pfc-mismatch 1

# peer-willing: the NIC's DCBX lld-managed (an agent would negotiate) and the switch, not
# willing, sends PFC other than the profile's; the same switch willing does not trip it
echo 0x0a >$DBG/nicsim0/dcbx
lq -T -i nicsim1 -V PFC enabled=3,4 willing=no
nd_vm_check "audit --peer: NIC lld-managed, switch not willing with PFC 0x18: peer-willing" \
	audit peer-willing 1
lq -T -i nicsim1 -V PFC willing=yes
nd_vm_check "  ... the switch willing: no peer-willing" no_willing_lint
echo 0x09 >$DBG/nicsim0/dcbx
lq -T -i nicsim1 -V PFC enabled=3 willing=no

lq -T -i nicsim1 -V APP -d app=3,5,26
lq -T -i nicsim1 -V APP app=5,5,26
nd_vm_check "  (the switch's APP table now maps DSCP 26 to 5)" \
	app_wait '{"dscp_prio":[[26,5]],"dgram_port_prio":[[4791,3]]}'
nd_vm_check "audit --peer: the switch maps DSCP 26 to 5: peer-dscp-mismatch (exit 1)" \
	audit peer-dscp-mismatch 1
lq -T -i nicsim1 -V APP -d app=5,5,26
lq -T -i nicsim1 -V APP app=3,5,26
app_wait "$APP_OK"

lq -T -i nicsim1 -V ETS-CFG tcbw=100,0,0,0,0,0,0,0
nd_vm_check "audit --peer: ETS gives TC3 0 %: peer-ets-starved (a warning, exit 0)" \
	audit peer-ets-starved 0
lq -T -i nicsim1 -V ETS-CFG tcbw=50,0,0,50,0,0,0,0

# lldpad's maximum frame size is the port's MTU + 18: a switch port at MTU 1500
$IP link set nicsim1 mtu 1500
nd_vm_check "audit --peer: the switch takes 1518-byte frames, MTU 9000 here: peer-max-frame" \
	audit peer-max-frame 1
$IP link set nicsim1 mtu 9216
nd_vm_check "audit --peer: the switch matches again, clean" audit clean 0
nd_vm_check "tshark decodes the switch's frame (a) as nodrop does, field by field" \
	alike "$O/peer-ieee.json" ieee

# --- e: an agent holds the host's port too ----------------------------------------------------
# lldpad receives on nicsim0 as well; a link flap has it take the port (its DCBX is host now).
# Willing by default, it programs nicsim0 with the switch's PFC: 3 and 4 here.
agent_pfc() { # lldpad's view of the switch's PFC on nicsim0, as a bitmap
	local line p bits=0
	line=$(lt -t -n -i nicsim0 -V PFC | grep 'PFC enabled:') || return 1
	for p in ${line#*:}; do bits=$((bits | 1 << p)); done
	echo "$bits"
}
# lldpad shows the neighbour's 802.1Qaz TLVs only between its handling of two frames (it
# clears them after each): asked until it answers
agent_heard() { agent=$(agent_pfc) && [ -n "$agent" ]; }
agent_holds() {
	local sw agent
	lq -T -i nicsim1 -V PFC enabled=3,4 &&
		lq -L -i nicsim0 adminStatus=rx || return 1
	$IP link set nicsim0 down
	$IP link set nicsim0 up
	listen show -j --peer --peer-wait 35 nicsim0
	echo "$out" >"$O/peer-agent.json"
	nd_vm_retry 50 0.2 agent_heard
	sw=$(jq '.[0].peer | [.pfc.prio_pfc | to_entries[] | select(.value) | pow(2; .key)] | add' \
		<<<"$out")
	echo "the switch's PFC: nodrop heard $sw, lldpad on nicsim0 ${agent:-nothing}" >&2
	[ "$rc" = 0 ] && [ "$sw" = 24 ] && [ "$agent" = 24 ]
}
agent_took_it() { # lldpad, willing on nicsim0, put the switch's PFC into the NIC
	nd_vm_retry 30 0.2 grep -qx 'pfc_en 0x18' "$DBG/nicsim0/state"
}
nd_vm_check "an agent holds nicsim0: nodrop and lldpad both hear the switch's PFC 0x18" agent_holds
nd_vm_check "  ... and lldpad (willing) programmed nicsim0 with it" agent_took_it
lq -T -i nicsim1 -V PFC enabled=3
lq -L -i nicsim0 adminStatus=disabled

# --- d: CEE DCBX ------------------------------------------------------------------------------
# lldpad speaks CEE where told to (global, from its next start). Its CEE DCBX needs the CEE
# dcbnl ops, which nicsim has with cee=1 (without them: "Adapter nicsim1 does not support
# DCB.", dcbtool "Device not capable": DCB_CMD_GSTATE has no getstate). CEE DCB on
# (dcb_enable, kept in lldpad's configuration) and the CEE TLV's enableTx count when lldpad
# brings the port up: set before the restart.
LLDPAD_VERSION=$(dpkg-query -W -f='${Version}' lldpad)
cee_setup() {
	{
		dcbtool sc dcbx v:force-cee &&
			dcbtool sc nicsim1 dcb on &&
			dcbtool sc nicsim1 pg e:1 a:1 w:0 pgid:00030000 pgpct:50,0,0,50,0,0,0,0 &&
			dcbtool sc nicsim1 pfc e:1 a:1 w:0 pfcup:00010000 &&
			dcbtool sc nicsim1 app:fcoe e:1 a:1 w:0 appcfg:08
	} >>"$TLOG" 2>&1 && lq -T -i nicsim1 -V CEE-DCBX enableTx=yes || return 1
	lldpad_stop
	lldpad_start || return 1
	# lldpad set the port's DCBX mode to host cee and turned CEE DCB on, through the ops
	[ "$(cat $DBG/nicsim1/dcbx)" = 0x05 ] && dcbtool gc nicsim1 dcb | grep -q 'DCB State:.*on'
}
cee_heard() {
	capture nicsim0 "$O/cee.pcap"
	listen show -j --peer --peer-wait 35 nicsim0
	wait "$CAP" && decode "$O/cee.pcap" cee
	echo "$out" >"$O/peer-cee.json"
	[ "$rc" = 0 ] && jq -e '.[0].peer | .heard and (has("pfc") | not) and .cee.pfc_enabled and
		.cee.pfc_willing == false and
		.cee.prio_pfc == [false,false,false,true,false,false,false,false] and
		.cee.pg_willing == false and .cee.pgid == [0,0,0,3,0,0,0,0] and .cee.pg_bw[3] == 50 and
		(.cee.app | any(.selector == "ethertype" and .protocol == 35078 and .prio == 3))' \
		<<<"$out" >/dev/null || { echo "$out" >&2; return 1; }
}
# Debian 12's lldpad clears a port's whole CEE DCBX state (active flag, subtype, name, list
# links) in dcbx_gettlv before it builds the TLV: it never sends one, and it crashes when it
# exits (upstream 03cb011, "lldpad: dcbx: prevent null dereference in dcbx_free_data", 2023).
# With that lldpad the frame is checked for what it is; with another, for the switch's CEE.
cee_unsent() {
	listen show -j --peer --peer-wait 35 nicsim0
	echo "$out" >"$O/peer-cee.json"
	[ "$rc" = 0 ] && jq -e '.[0].peer | .heard and ([has("cee", "pfc", "ets", "app")] |
		any | not)' <<<"$out" >/dev/null || { echo "$out" >&2; return 1; }
}
nd_vm_check "lldpad's CEE DCBX takes nicsim1 through nicsim's CEE ops (DCBX host cee, DCB on)" \
	cee_setup
if [ "$LLDPAD_VERSION" = 1.1+git20221028.aa18720-1 ]; then
	nd_vm_check "lldpad $LLDPAD_VERSION sends no CEE TLV (its bug, fixed upstream in 03cb011)" \
		cee_unsent
else
	nd_vm_check "show -j --peer: the switch's CEE PG, PFC (3) and App (FCoE on 3)" cee_heard
	nd_vm_check "tshark decodes the CEE frame as nodrop does" alike "$O/peer-cee.json" cee
fi
lldpad_stop

if dmesg | grep -E "WARNING|BUG|Oops|RIP:" >"$O/dmesg-warnings.txt"; then
	nd_vm_fail "kernel warnings in dmesg (see dmesg-warnings.txt)"
else
	nd_vm_pass "no kernel warnings"
fi
echo "lldpad scenario: $((SECONDS - t_start)) s in the guest" >&2
nd_vm_done
