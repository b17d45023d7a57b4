#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The real-kernel tier, run inside the guest by `make vm`: nicsim ports and soft-RoCE are
# configured with iproute2 and configfs, and `nodrop show -j` must agree with `dcb -j`,
# `ip -j link` and `rdma -j` field by field.
set -u
. tests/vm/guest-lib.sh

ND=${ND_NODROP:-build/nodrop}
ND_VM_NICSIM_DEBUGFS=${ND_VM_NICSIM_DEBUGFS:-/sys/kernel/debug/nicsim}
DCB=nd_vm_dcb
IP=/usr/sbin/ip
RDMA=/usr/bin/rdma

# our DCB object for a port: show -j DEV | .[0].dcb.OBJ
ours() { "$ND" show -j "$1" | jq -c ".[0].dcb.$2"; }

# agree DESC DEV OBJ: every key `dcb -j OBJ show dev DEV` prints has the same value in ours
agree() {
	local desc=$1 dev=$2 obj=$3 theirs mine
	theirs=$($DCB -j "$obj" show dev "$dev" 2>&1)
	mine=$(ours "$dev" "$obj")
	if [ -n "$theirs" ] && [ -n "$mine" ] && jq -en --argjson a "$theirs" --argjson b "$mine" \
		'$a | to_entries | length > 0 and all(.value == $b[.key])' >/dev/null 2>&1; then
		nd_vm_pass "$desc"
	else
		nd_vm_fail "$desc: dcb -j says $theirs, nodrop says $mine"
	fi
}

# is DESC JQ-EXPR: `nodrop show -j` (all ports) satisfies the jq expression
is() {
	local desc=$1 expr=$2 out
	out=$("$ND" show -j 2>&1)
	# jq -e passes on empty input: no output is a failure here
	if [ -n "$out" ] && jq -e "$expr" >/dev/null 2>&1 <<<"$out"; then
		nd_vm_pass "$desc"
	else
		nd_vm_fail "$desc: $expr on: $out"
	fi
}

setup() {
	nd_vm_nicsim_load 2 || return 1
	nd_vm_rxe_up || return 1
	nd_vm_configfs || return 1
}

check_defaults() {
	agree "nicsim0 default PFC agrees with dcb" nicsim0 pfc
	agree "nicsim0 default ETS agrees with dcb" nicsim0 ets
	agree "nicsim0 default buffer agrees with dcb" nicsim0 buffer
	agree "nicsim0 default maxrate agrees with dcb" nicsim0 maxrate
	agree "nicsim0 default DCBX agrees with dcb" nicsim0 dcbx
	is "nicsim0 starts in PCP trust with no APP entries" \
		'.[] | select(.ifname == "nicsim0") | .dcb.trust == "pcp" and .dcb.app == {}'
}

configure_lossless() {
	$DCB pfc set dev nicsim0 prio-pfc all:off 3:on delay 30 &&
	$DCB ets set dev nicsim0 prio-tc 0:0 1:0 2:0 3:3 4:0 5:0 6:6 7:0 \
		tc-tsa all:strict 0:ets 3:ets tc-bw all:0 0:50 3:50 &&
	$DCB app add dev nicsim0 dscp-prio 26:3 48:6 10:1 &&
	$DCB buffer set dev nicsim0 prio-buffer all:0 3:1 6:2 \
		buffer-size 0:96K 1:128K 2:16K &&
	# dcb 6.1 writes bytes/s into the kernel's kbit/s field (fixed upstream in 2025): asking
	# for 200Mbit stores 25000000 kbit/s, 800Kbit stores 100000 kbit/s
	$DCB maxrate set dev nicsim0 tc-maxrate all:0 6:200Mbit 3:800Kbit &&
	$IP link set dev nicsim0 mtu 9000 &&
	$IP link set dev nicsim0 up &&
	$DCB pfc set dev nicsim1 prio-pfc 0:on 5:on delay 100
}

check_lossless() {
	agree "PFC after dcb pfc set" nicsim0 pfc
	agree "ETS after dcb ets set" nicsim0 ets
	agree "APP after dcb app add" nicsim0 app
	agree "buffer after dcb buffer set" nicsim0 buffer
	agree "maxrate after dcb maxrate set" nicsim0 maxrate
	agree "second port's PFC is its own" nicsim1 pfc
	is "prio 3 lossless with cable length 30" \
		'.[] | select(.ifname == "nicsim0") | .dcb.pfc.prio_pfc[3] and .dcb.pfc.delay == 30'
	is "the first DSCP entry switched nicsim0 to DSCP trust" \
		'.[] | select(.ifname == "nicsim0") | .dcb.trust == "dscp"'
	if [ "$(cat "$ND_VM_NICSIM_DEBUGFS/nicsim0/trust")" = dscp ]; then
		nd_vm_pass "nicsim itself says DSCP trust"
	else
		nd_vm_fail "nicsim trust: $(cat "$ND_VM_NICSIM_DEBUGFS/nicsim0/trust")"
	fi
	is "the DSCP map holds exactly the entries added, in order" \
		'.[] | select(.ifname == "nicsim0") | .dcb.app.dscp_prio == [[10,1],[26,3],[48,6]]'
	is "maxrate in kbit/s as the kernel holds it" \
		'.[] | select(.ifname == "nicsim0") | .dcb.maxrate.tc_maxrate == [0,0,0,100000,0,0,25000000,0]'
	is "nicsim1 stays in PCP trust" '.[] | select(.ifname == "nicsim1") | .dcb.trust == "pcp"'
}

check_links() {
	local dev theirs mine
	for dev in nicsim0 nicsim1 veth0; do
		theirs=$($IP -d -j link show dev "$dev" | jq -c '.[0] | {mtu, min_mtu, max_mtu, operstate}')
		mine=$("$ND" show -j "$dev" | jq -c '.[0] | {mtu, min_mtu, max_mtu, operstate}')
		if [ "$theirs" = "$mine" ]; then
			nd_vm_pass "$dev MTU, MTU range and state agree with ip -j link ($mine)"
		else
			nd_vm_fail "$dev: ip -j link $theirs, nodrop $mine"
		fi
	done
	is "nicsim driver, bus and speed from ethtool" \
		'.[] | select(.ifname == "nicsim0") | .driver == "nicsim" and .speed == 100000 and (.bus_info | test("^0000:"))'
	is "veth has no DCB, and says so" \
		'.[] | select(.ifname == "veth0") | .dcb.supported == false and .dcb.error == "not supported by driver"'
}

check_roce() {
	local cfs=/sys/kernel/config/rdma_cm/rxe0 netdev
	netdev=$($RDMA -j link show rxe0/1 | jq -r '.[0].netdev')
	is "rxe0/1 sits on $netdev as rdma -j link says" \
		".[] | select(.ifname == \"$netdev\") | .rdma[0].ibdev == \"rxe0\" and .rdma[0].port == 1 and .rdma[0].link_layer == \"Ethernet\""
	is "RoCE defaults before configfs: ToS 0, RoCE v2, kernel default" \
		'.[] | select(.ifname == "veth0") | .rdma[0].roce == {tos: 0, dscp: 0, ecn: 0, mode: "RoCE v2", source: "kernel default"}'
	mkdir -p "$cfs" && echo 106 >"$cfs/ports/1/default_roce_tos" &&
		echo "RoCE v2" >"$cfs/ports/1/default_roce_mode"
	is "RoCE ToS/mode agree with configfs" \
		".[] | select(.ifname == \"veth0\") | .rdma[0].roce == {tos: $(cat "$cfs/ports/1/default_roce_tos"), dscp: 26, ecn: 2, mode: \"$(cat "$cfs/ports/1/default_roce_mode")\", source: \"configfs\"}"
	is "the other rxe port keeps the kernel defaults" \
		'.[] | select(.ifname == "veth1") | .rdma[0].roce.source == "kernel default"'
	local mtu
	mtu=$(ibv_devinfo -d rxe0 | awk '/active_mtu/ {print $2; exit}')
	is "rxe0 active MTU agrees with ibv_devinfo ($mtu)" \
		".[] | select(.ifname == \"veth0\") | .rdma[0].active_mtu == $mtu"
}

check_unprivileged() {
	local out
	if out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$ND" show -j nicsim0 2>&1) &&
		jq -e '.[0].dcb.pfc.prio_pfc[3]' >/dev/null <<<"$out"; then
		nd_vm_pass "show works unprivileged (uid 65534)"
	else
		nd_vm_fail "unprivileged show: $out"
	fi
}

check_errors() {
	local out rc
	out=$("$ND" show nicsim0 nosuch0 2>&1); rc=$?
	[ "$rc" = 2 ] && [ "$out" = "nodrop show: no network device 'nosuch0' (see 'ip link' for the names)" ] &&
		nd_vm_pass "unknown device: exit 2, named" || nd_vm_fail "unknown device: rc $rc: $out"
	# a driver getter that fails: dcbnl leaves the attribute out, the rest still shows
	echo "getbuffer EIO" >"$ND_VM_NICSIM_DEBUGFS/nicsim1/fault"
	is "a failing getter drops only its own section" \
		'.[] | select(.ifname == "nicsim1") | (has("dcb") and (.dcb | has("buffer") | not) and .dcb.pfc.prio_pfc[5])'
	echo clear >"$ND_VM_NICSIM_DEBUGFS/nicsim1/fault"
}

if ! setup; then
	nd_vm_fail "testbed setup"
	nd_vm_done
fi
check_defaults
configure_lossless && nd_vm_pass "iproute2 configured nicsim" || nd_vm_fail "iproute2 configuration"
check_lossless
check_links
check_roce
check_unprivileged
check_errors
"$ND" show nicsim0 veth0 >"$ND_OUT/show.txt" 2>&1
nd_vm_done
