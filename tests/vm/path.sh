#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# nodrop path on a real kernel: soft-RoCE (rxe0) on nicsim0, whose DCB is the lossless profile
# (DSCP 26 -> priority 3, PFC 3), with an IPv4 address, a VLAN (100, egress map 2:3) with its
# own, and rdma_cm's configfs group. Jobs as env files, NCCL's conf file and a running process;
# the GID indices each should pick are found here from sysfs, apart from nodrop; the switch's
# side from LLDP frames received through nicsim's rx file. Run inside the guest by
# `tests/vm/vm.sh tests/vm/path.sh`.
# shellcheck disable=SC2317 # functions run through nd_vm_check
set -u
# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"

ND=${ND_NODROP:-build/nodrop}
IP=/usr/sbin/ip
T=tests/vm
G=/sys/class/infiniband/rxe0/ports/1
CFS=/sys/kernel/config/rdma_cm/rxe0
ACC=(--accept-unverified ecn)	# nicsim has no DCQCN interface

# The GID index of ADDR (IPv4) with TYPE ("RoCE v2", "IB/RoCE v1"), from sysfs alone
gid_of() {
	local want f i a b c d
	IFS=. read -r a b c d <<<"$1"
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")
	for f in "$G"/gids/*; do
		i=${f##*/}
		[ "$(cat "$f")" = "$want" ] && [ "$(cat "$G/gid_attrs/types/$i" 2>/dev/null)" = "$2" ] &&
			{ echo "$i"; return 0; }
	done
	return 1
}

# path JQ EXIT ARGS...: run nodrop path -j ARGS on rxe0; its exit and JSON must hold
path() {
	local want_rc=$1 filter=$2 out rc
	shift 2
	out=$("$ND" path -j "$@" rxe0 2>"$ND_OUT/path.err")
	rc=$?
	if [ "$rc" = "$want_rc" ] && echo "$out" | jq -e "$filter" >/dev/null; then
		return 0
	fi
	echo "nodrop path $*: exit $rc (want $want_rc); stderr: $(cat "$ND_OUT/path.err")" >&2
	echo "$out" | jq . >&2 2>/dev/null || echo "$out" >&2
	return 1
}

job() { # NAME=VALUE...: an env file
	printf '%s\n' "$@" >/tmp/job.env
}

nd_vm_check "nicsim0 with the lossless profile" nd_vm_nicsim_load 1
$IP link set nicsim0 up
"$ND" apply --state-dir /tmp/path-state --dev nicsim0 tests/vm/profiles/lossless.yaml >/dev/null ||
	nd_vm_fail "apply lossless.yaml on nicsim0"
nd_vm_modprobe 8021q
$IP link add link nicsim0 name nicsim0.100 type vlan id 100 egress-qos-map 2:3
$IP link set nicsim0.100 up
nd_vm_check "rxe0 on nicsim0 with 198.18.0.1" nd_vm_rxe_up nicsim0
$IP addr add 198.18.100.1/24 dev nicsim0.100
nd_vm_check "GIDs for both addresses" nd_vm_rxe_gid rxe0 198.18.100.1
V2=$(gid_of 198.18.0.1 "RoCE v2")
VLAN2=$(gid_of 198.18.100.1 "RoCE v2")
echo "sysfs: 198.18.0.1 RoCE v2 at $V2; 198.18.100.1 RoCE v2 at $VLAN2 (rxe makes no RoCE v1 GIDs)" >&2

job NCCL_IB_TC=106
nd_vm_check "NCCL_IB_TC=106: NCCL's own GID choice is 198.18.0.1's RoCE v2 index ($V2), DSCP 26 \
-> priority 3, PFC; unverified at the switch (exit 1)" \
	path 1 ".[0] | .stack == \"nccl\" and .verdict == \"unverified\" and .at == \"pfc-switch\"
		and .packets == {gid_index: $V2, traffic_class: 106, dscp: 26, ecn: 2, sl: 0,
		vlan: -1, prio: 3, tc: 3, switch_prio: -1, cnp_prio: -1}" --env /tmp/job.env "${ACC[@]}"
nd_vm_check "... and lossless with the switch accepted unverified (exit 0)" \
	path 0 '.[0].verdict == "lossless" and .[0].steps[6].status == "accepted"' \
	--env /tmp/job.env --accept-unverified ecn,peer
job NCCL_IB_HCA=rxe
nd_vm_check "NCCL_IB_TC unset: ToS 0, not ECT: breaks at step 3 with the fix" \
	path 1 '.[0] | .at_step == 3 and .packets.traffic_class == 0 and
		(.steps[0].evidence | test("NCCL_IB_TC unset")) and (.steps[2].fix | test("ToS 2"))' \
	--env /tmp/job.env "${ACC[@]}"
job NCCL_IB_HCA=rxe NCCL_IB_TC=300
nd_vm_check "NCCL_IB_TC=300: a finding naming it, 44 on the wire" \
	path 1 '.[0] | .at == "job" and (.steps[0].evidence | test("NCCL_IB_TC=\"300\".*44")) and
		.packets.traffic_class == 44' --env /tmp/job.env "${ACC[@]}"
job NCCL_IB_TC=abc
nd_vm_check "NCCL_IB_TC=abc: a finding naming it" \
	path 1 '.[0] | .at == "job" and (.steps[0].evidence | test("NCCL_IB_TC=\"abc\""))' \
	--env /tmp/job.env "${ACC[@]}"
job NCCL_IB_TC=106 NCCL_IB_GID_INDEX=0
nd_vm_check "NCCL_IB_GID_INDEX=0: rxe's link-local RoCE v2 GID, IPv6 fe80::" \
	path 1 '.[0] | .packets.gid_index == 0 and (.steps[1].evidence | test("RoCE v2 IPv6 fe80:"))' \
	--env /tmp/job.env "${ACC[@]}"
job NCCL_IB_TC=106 "NCCL_IB_GID_INDEX=$VLAN2" NCCL_IB_SL=2
nd_vm_check "NCCL_IB_GID_INDEX=$VLAN2: VLAN 100 on nicsim0.100, tagged" \
	path 1 ".[0] | .packets.vlan == 100 and .packets.prio == 3 and
		(.steps[1].evidence | test(\"198.18.100.1 on nicsim0.100 \\\\(VLAN 100\\\\)\"))" \
	--env /tmp/job.env "${ACC[@]}"
job NCCL_IB_TC=106 NCCL_IB_GID_INDEX=5000
nd_vm_check "NCCL_IB_GID_INDEX=5000: past rxe's GID table" \
	path 1 '.[0] | .at == "gid" and (.steps[1].evidence | test("past"))' \
	--env /tmp/job.env "${ACC[@]}"
job NCCL_IB_HCA=^=rxe0
nd_vm_check "NCCL_IB_HCA=^=rxe0: the job does not use rxe0 (exit 1, said)" \
	path 1 '.[0].verdict == "not-used"' --env /tmp/job.env "${ACC[@]}"
printf 'NCCL_IB_TC=106\nNCCL_IB_GID_INDEX=%s\n' "$V2" >/tmp/nccl.conf
job NCCL_CONF_FILE=/tmp/nccl.conf NCCL_IB_GID_INDEX=-1
nd_vm_check "NCCL_CONF_FILE fills in NCCL_IB_TC; the job's own -1 wins over the file's index" \
	path 1 '.[0] | (.steps[0].evidence | test("NCCL_IB_TC=106 \\(/tmp/nccl.conf:1\\)")) and
		.packets.traffic_class == 106' --env /tmp/job.env "${ACC[@]}"
job UCX_NET_DEVICES=rxe0:1
nd_vm_check "UCX with its defaults: auto traffic class 106 on RoCE v2" \
	path 1 '.[0] | .stack == "ucx" and .packets.traffic_class == 106 and .packets.prio == 3' \
	--env /tmp/job.env "${ACC[@]}"

# rdma_cm: the configfs default, and a process's own environment
nd_vm_check "configfs for rdma_cm" nd_vm_configfs
mkdir -p "$CFS"
job NOTHING=1
nd_vm_check "rdma_cm without a ToS of its own: configfs default_roce_tos 0, breaks at the wire" \
	path 1 '.[0] | .stack == "rdma_cm" and .at == "wire" and
		(.steps[0].evidence | test("default_roce_tos 0"))' \
	--env /tmp/job.env --stack rdma_cm "${ACC[@]}"
echo 106 >"$CFS/ports/1/default_roce_tos"
nd_vm_check "rdma_cm with default_roce_tos 106: priority 3" \
	path 1 '.[0] | .packets.traffic_class == 106 and .packets.prio == 3 and
		.at == "pfc-switch"' --env /tmp/job.env --stack rdma_cm "${ACC[@]}"
env -i NCCL_IB_TC=98 UCX_IB_SL=3 /bin/sleep 60 &
sleeper=$!
# $! is the shell's child before env has exec'd sleep: during an exec the kernel names the
# process sleep before it sets up the new environment, and a loaded host let nodrop read it
# empty there (NCCL_IB_TC unset, every stack). Wait until the job's environment is there.
for i in $(seq 100); do
	grep -qz '^NCCL_IB_TC=98$' "/proc/$sleeper/environ" 2>/dev/null && break
	sleep 0.1
done
nd_vm_check "--pid: the process's environment, its stacks from its variables" \
	path 1 "length == 2 and (.[0].job | test(\"pid $sleeper \\\\(sleep\\\\)\")) and
		.[0].packets.traffic_class == 98 and .[1].stack == \"ucx\"" --pid "$sleeper" "${ACC[@]}"
kill "$sleeper"

# the switch's side, its frames through nicsim's rx file
RX=/sys/kernel/debug/nicsim/nicsim0/rx
switch_says() { # EXIT JQ FRAME-ARGS...
	local rc=$1 filter=$2 feeder
	shift 2
	python3 $T/lldp_gen.py frame "$@" /tmp/switch.bin || return 1
	(while :; do cat /tmp/switch.bin >"$RX"; sleep 0.1; done) &
	feeder=$!
	job NCCL_IB_TC=106
	path "$rc" "$filter" --env /tmp/job.env --peer-wait 10 "${ACC[@]}"
	rc=$?
	kill "$feeder"
	wait "$feeder" 2>/dev/null
	return $rc
}
nd_vm_check "--peer: the switch agrees, lossless end to end (exit 0)" \
	switch_says 0 '.[0].verdict == "lossless" and .[0].packets.switch_prio == 3'
nd_vm_check "--peer: PFC on 4 at the switch, breaks at step 7" \
	switch_says 1 '.[0].at == "pfc-switch" and (.[0].steps[6].evidence | test("PFC on 4"))' \
	pfc=0x10
nd_vm_check "--peer: the switch maps DSCP 26 to 5" \
	switch_says 1 '.[0].packets.switch_prio == 5 and .[0].at == "pfc-switch"' dscp=26:5
nd_vm_check "--peer: the switch port takes 1522-byte frames, MTU 9000" \
	switch_says 1 '.[0].steps[6].evidence | test("up to 1522 bytes")' mfs=1522

# the NIC's own DCBX engine as the source (nicsim's dcbnl peer ops, set through debugfs): no
# listening needed, and show says where the peer came from
P=/sys/kernel/debug/nicsim/nicsim0/peer
dcbnl_peer() { # show's JSON of nicsim0's peer must hold JQ
	"$ND" show -j --peer-wait 2 nicsim0 >"$ND_OUT/show-dcbnl.json" &&
		jq -e ".[0].peer | $1" "$ND_OUT/show-dcbnl.json" >/dev/null ||
		{ cat "$ND_OUT/show-dcbnl.json" >&2; return 1; }
}
printf 'pfc en=0x08 cap=8\napp sel=5 proto=26 prio=3\nets prio_tc=0,0,0,3,0,0,0,0 tc_bw=50,0,0,50,0,0,0,0 tsa=2,2,2,2,2,2,2,2 maxtc=8\n' >"$P"
nd_vm_check "show --peer: the NIC's DCBX engine answers (dcbnl), no wait" \
	dcbnl_peer '.source == "dcbnl" and .heard and .waited_ms == 0 and
		.pfc.prio_pfc == [false, false, false, true, false, false, false, false] and
		.pfc.pfc_cap == 8 and .app == [{selector: "dscp", protocol: 26, prio: 3}] and
		.ets.prio_tc[3] == 3'
job NCCL_IB_TC=106
nd_vm_check "path --peer with the dcbnl peer: lossless end to end" \
	path 0 '.[0].verdict == "lossless" and .[0].packets.switch_prio == 3 and
		(.[0].steps[6].evidence | test("^the link partner: priority 3"))' \
	--env /tmp/job.env --peer-wait 5 "${ACC[@]}"
echo "pfc en=0x10 cap=8" >"$P"
nd_vm_check "path --peer: the dcbnl peer pauses priority 4 only, breaks at step 7" \
	path 1 '.[0].at == "pfc-switch" and (.[0].steps[6].evidence | test("PFC on 4"))' \
	--env /tmp/job.env --peer-wait 5 "${ACC[@]}"
printf 'clear\ncee_pfc en=0x08 tcs=8 willing=1\ncee_pg pg_en=1 tcs=8 pg_bw=40,60,0,0,0,0,0,0 prio_pg=0,0,0,1,0,0,0,0\n' >"$P"
nd_vm_check "show --peer: CEE's peer PFC and PG through dcbnl" \
	dcbnl_peer '.source == "dcbnl" and .cee.pfc_enabled and .cee.pfc_willing and
		.cee.prio_pfc[3] and (.pfc == null)'
echo clear >"$P"
nd_vm_check "dcbnl with nothing to say: the wire is listened to instead, and it is silent" \
	dcbnl_peer '.source == "none" and (.heard | not) and .waited_ms == 2000'

# bad input
bad_env() {
	printf 'NCCL_IB_TC=106\n  9LIVES=1\n' >/tmp/bad.env
	"$ND" path --env /tmp/bad.env rxe0 2>"$ND_OUT/bad.err"
	[ $? = 2 ] && grep -q '/tmp/bad.env:2:3: expected NAME=VALUE' "$ND_OUT/bad.err"
}
nd_vm_check "an env file line that is no NAME=VALUE: exit 2, FILE:LINE:COLUMN" bad_env
no_rdma() {
	"$ND" path nicsim0.100 2>"$ND_OUT/nordma.err"
	[ $? = 2 ] && grep -q 'nicsim0.100: no RDMA device on this netdev' "$ND_OUT/nordma.err"
}
nd_vm_check "a netdev without RDMA: exit 2, said" no_rdma
nd_vm_done
