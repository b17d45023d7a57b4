#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest script: exercises the nicsim module through the real kernel dcbnl,
# ethtool and rtnetlink code with iproute2's dcb/ip, ethtool and debugfs.
#
# Run from the host:
#   tests/vm/nicsim/build.sh && tests/vm/vm.sh tests/vm/nicsim/selftest.sh
#
# Every check prints PASS/FAIL; the script exits non-zero when any failed.
set -u

repo=${ND_VM_REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}
# shellcheck source=/dev/null
[ -f "$repo/tests/vm/guest-lib.sh" ] && . "$repo/tests/vm/guest-lib.sh"

# Fallbacks when guest-lib.sh does not provide the helpers.
nicsim_failures=0
declare -F nd_vm_pass >/dev/null || nd_vm_pass() { echo "PASS: $*"; }
declare -F nd_vm_fail >/dev/null || nd_vm_fail() {
	echo "FAIL: $*"
	nicsim_failures=$((nicsim_failures + 1))
}
declare -F nd_vm_done >/dev/null || nd_vm_done() {
	echo "nicsim selftest: $nicsim_failures failure(s)"
	[ "$nicsim_failures" -eq 0 ]
	exit
}

DCB=/usr/sbin/dcb
declare -F nd_vm_dcb >/dev/null && DCB=nd_vm_dcb	# (guest-lib.sh: iproute2's spurious EPROTO)
# A write made while a fault is armed goes once, unwrapped: Debian 12's dcb reads a stale ACK as
# a read-modify-write's answer (guest-lib.sh), so a refused write can come back as EPROTO, and
# making it again would land it. Such tests check the state, never dcb's exit status.
DCB1=/usr/sbin/dcb
IP=/usr/sbin/ip
ETHTOOL=/usr/sbin/ethtool
PY=/usr/bin/python3
# the raw IEEE_SET client below is Python: a missing python3 fails here, by name
[ -x "$PY" ] || nd_vm_fail "python3 is not installed: apt-get install python3 (the Makefile's DEPS_VM)"
DBG=/sys/kernel/debug/nicsim
KO=${ND_VM_NICSIM_KO:-$repo/build/vm/nicsim/nicsim.ko}
D0=$DBG/nicsim0
log=${ND_OUT:-/tmp}/nicsim-selftest.log
: >"$log"

# --- helpers ------------------------------------------------------------------

# Run a command, keep its output in $out and $log, return its status.
run() {
	echo "\$ $*" >>"$log"
	out=$("$@" 2>&1)
	local rc=$?
	printf '%s\n[rc=%d]\n' "$out" "$rc" >>"$log"
	return $rc
}

check() { # DESC CONDITION-COMMAND...
	local desc=$1
	shift
	if "$@"; then nd_vm_pass "$desc"; else nd_vm_fail "$desc"; fi
}

eq() { # DESC EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then
		nd_vm_pass "$1"
	else
		nd_vm_fail "$1: expected '$2', got '$3'"
	fi
}

ok() { # DESC CMD...
	local desc=$1
	shift
	if run "$@"; then nd_vm_pass "$desc"; else nd_vm_fail "$desc: '$*' failed: $out"; fi
}

fails() { # DESC CMD...
	local desc=$1
	shift
	if run "$@"; then nd_vm_fail "$desc: '$*' succeeded: $out"; else nd_vm_pass "$desc"; fi
}

has() { grep -q -- "$2" <<<"$1"; }
trim() { sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' <<<"$1"; }
hasnt() { ! grep -q -- "$2" <<<"$1"; }

ctr() { sed -n "s/^$2 //p" "$DBG/$1/counters"; }
state() { sed -n "s/^$2 //p" "$DBG/$1/state"; }
ethtool_stat() { $ETHTOOL -S "$1" | sed -n "s/^ *$2: //p"; }
nstats() { $ETHTOOL -S "$1" | grep -c ': '; }
flaps() { cat "$DBG/$1/link_flaps"; }

# Raw DCB_CMD_IEEE_SET: prints the int8 status the kernel put in the reply
# payload and the netlink ack's error, e.g. "status=-16 ack=0".
# Usage: ieee_set IFNAME {pfc PFC_EN DELAY | maxrate R0 .. R7}
ieee_set() {
	"$PY" - "$@" <<'EOF'
import socket, struct, sys
ifname, kind = sys.argv[1], sys.argv[2]
args = [int(a, 0) for a in sys.argv[3:]]
def nla(t, p):
    n = 4 + len(p)
    return struct.pack('=HH', n, t) + p + b'\0' * ((4 - n % 4) % 4)
if kind == 'pfc':      # struct ieee_pfc, 136 bytes
    inner = nla(2, struct.pack('=BBBxHxx16Q', 8, args[0], 0, args[1], *([0] * 16)))
elif kind == 'maxrate':  # struct ieee_maxrate
    inner = nla(7, struct.pack('=8Q', *args))
else:
    sys.exit('unknown kind ' + kind)
body = struct.pack('=BBH', 0, 20, 0) + nla(1, ifname.encode() + b'\0') + nla(13 | 0x8000, inner)
msg = struct.pack('=IHHII', 16 + len(body), 79, 0x1 | 0x4, 1, 0) + body
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
s.bind((0, 0))
s.send(msg)
status = ack = None
while ack is None:
    data = s.recv(65536)
    off = 0
    while off + 16 <= len(data):
        ln, typ, flags, seq, pid = struct.unpack_from('=IHHII', data, off)
        if typ == 2:  # NLMSG_ERROR
            ack = struct.unpack_from('=i', data, off + 16)[0]
        elif typ == 79:
            a = off + 20
            while a + 4 <= off + ln:
                al, at = struct.unpack_from('=HH', data, a)
                if at & 0x3fff == 13 and al == 5:
                    status = struct.unpack_from('=b', data, a + 4)[0]
                a += (al + 3) & ~3
        off += (ln + 3) & ~3
print('status=%s ack=%s' % (status, ack))
EOF
}

# Send one frame (ethertype 0x88b5, local experimental) out of SRC and wait up to TIMEOUT s for it
# on DST through a packet socket: prints "received" or "lost". Usage: wire_frame SRC DST TIMEOUT
wire_frame() {
	"$PY" - "$@" <<'EOF'
import os, socket, sys
src, dst, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88b5))
rx.bind((dst, 0))
rx.settimeout(timeout)
tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
tx.bind((src, 0))
tag = os.urandom(8)
try:
    # without carrier the qdisc may refuse it before the driver sees it
    tx.send(b'\xff' * 6 + bytes.fromhex('020000000001') + b'\x88\xb5' + tag + b'\0' * 40)
except OSError:
    print('lost')
    sys.exit(0)
try:
    while True:
        if tag in rx.recv(2048):
            print('received')
            break
except OSError:  # the timeout, or ENETDOWN from a port that is down
    print('lost')
EOF
}

# --- load -------------------------------------------------------------------------

# insmod with module parameters (guest-lib's nd_vm_nicsim_load takes only N).
load() { /usr/sbin/insmod "$KO" "$@"; }

test_load() {
	if declare -F nd_vm_nicsim_load >/dev/null; then
		ok "load nicsim (2 ports)" nd_vm_nicsim_load 2
	else
		ok "load nicsim (2 ports)" load nports=2
	fi
	check "netdevs nicsim0 and nicsim1 exist" test -d /sys/class/net/nicsim0 -a -d /sys/class/net/nicsim1
	check "debugfs files present" test -f "$D0/counters" -a -f "$D0/fault" -a -f "$D0/link_flaps" \
		-a -f "$D0/flap_on_pfc" -a -f "$D0/trust" -a -f "$D0/dcbx" -a -f "$D0/state" \
		-a -f "$D0/peer"
	run $IP link set nicsim0 up
	run $IP link set nicsim1 up
}

test_link() {
	run $ETHTOOL -i nicsim0
	check "ethtool -i: driver nicsim" has "$out" "^driver: nicsim$"
	check "ethtool -i: bus-info 0000:5e:00.0" has "$out" "^bus-info: 0000:5e:00.0$"
	run $ETHTOOL -i nicsim1
	check "ethtool -i nicsim1: bus-info 0000:5e:00.1" has "$out" "^bus-info: 0000:5e:00.1$"
	run $ETHTOOL nicsim0
	check "ethtool: 100000Mb/s" has "$out" "Speed: 100000Mb/s"
	check "ethtool: full duplex" has "$out" "Duplex: Full"
	ok "mtu 9000 accepted" $IP link set nicsim0 mtu 9000
	fails "mtu 9979 refused (max_mtu 9978)" $IP link set nicsim0 mtu 9979
	fails "mtu 67 refused (min_mtu 68)" $IP link set nicsim0 mtu 67
	run $IP -d -j link show nicsim0
	check "ip -d: min_mtu 68 max_mtu 9978" has "$out" '"min_mtu":68,"max_mtu":9978'
	run $IP link set nicsim0 mtu 1500
}

test_pfc() {
	local n0 n1 cc0 cc1
	run $DCB -j pfc show dev nicsim0
	check "pfc initial: cap 8, delay 7, all off" has "$out" \
		'"pfc_cap":8,.*"delay":7,"prio_pfc":\[false,false,false,false,false,false,false,false\]'
	eq "no rx_prio3_pause before PFC" "" "$(ethtool_stat nicsim0 rx_prio3_pause)"
	eq "link_flaps 0" 0 "$(flaps nicsim0)"
	n0=$(nstats nicsim0)
	cc0=$(cat /sys/class/net/nicsim0/carrier_changes)

	ok "dcb pfc set prio-pfc 3:on delay 30" $DCB pfc set dev nicsim0 prio-pfc 3:on delay 30
	run $DCB -j pfc show dev nicsim0
	check "pfc: delay 30, prio 3 on" has "$out" '"delay":30,"prio_pfc":\[false,false,false,true,false,false,false,false\]'
	eq "link flapped once on pfc_en change" 1 "$(flaps nicsim0)"
	cc1=$(cat /sys/class/net/nicsim0/carrier_changes)
	eq "carrier_changes +2 (down, up)" $((cc0 + 2)) "$cc1"
	eq "carrier up after flap" 1 "$(cat /sys/class/net/nicsim0/carrier)"
	eq "rx_prio3_pause listed after PFC on 3" 0 "$(ethtool_stat nicsim0 rx_prio3_pause)"
	n1=$(nstats nicsim0)
	eq "5 more ethtool stats with prio 3 lossless" $((n0 + 5)) "$n1"
	run $ETHTOOL -S nicsim0
	for s in rx_prio3_pause rx_prio3_pause_duration tx_prio3_pause tx_prio3_pause_duration rx_prio3_pause_transition; do
		check "ethtool -S lists $s" has "$out" "^ *$s: "
	done
	check "ethtool -S does not list rx_prio4_pause" hasnt "$out" "rx_prio4_pause"

	ok "delay-only change" $DCB pfc set dev nicsim0 delay 40
	eq "delay-only change does not flap" 1 "$(flaps nicsim0)"
	eq "cable_len 40" 40 "$(state nicsim0 cable_len)"
	ok "same pfc_en again" $DCB pfc set dev nicsim0 prio-pfc 3:on
	eq "unchanged pfc_en does not flap" 1 "$(flaps nicsim0)"
	run $DCB pfc set dev nicsim0 delay 1000
	eq "delay >= 1000 ignored (mlx5)" 40 "$(state nicsim0 cable_len)"

	echo 0 >"$D0/flap_on_pfc"
	ok "pfc change with flap_on_pfc=0" $DCB pfc set dev nicsim0 prio-pfc 4:on
	eq "no flap with flap_on_pfc=0" 1 "$(flaps nicsim0)"
	echo 1 >"$D0/flap_on_pfc"
	run $DCB pfc set dev nicsim0 prio-pfc 4:off

	run $IP link set nicsim1 down
	ok "pfc change on a down port" $DCB pfc set dev nicsim1 prio-pfc 3:on
	eq "no flap while the port is down" 0 "$(flaps nicsim1)"
	run $IP link set nicsim1 up

	printf 'tx_prio3_pause 9\nrx_prio3_pause 7\n' >"$D0/counters"
	run $DCB -j pfc show dev nicsim0 requests indications
	check "pfc requests[3] = tx_prio3_pause" has "$out" '"requests":\[0,0,0,9,0,0,0,0\]'
	check "pfc indications[3] = rx_prio3_pause" has "$out" '"indications":\[0,0,0,7,0,0,0,0\]'
	eq "ethtool rx_prio3_pause 7" 7 "$(ethtool_stat nicsim0 rx_prio3_pause)"
}

test_ets() {
	run $DCB -j ets show dev nicsim0
	check "ets initial (mlx5): vendor TSA, bw 100, prio-tc 1 0 2..7" has "$out" \
		'"ets_cap":8,.*"tc_bw":\[100,100,100,100,100,100,100,100\],.*"tc_tsa":\["vendor","vendor","vendor","vendor","vendor","vendor","vendor","vendor"\],"prio_tc":\[1,0,2,3,4,5,6,7\]'
	ok "ets set 2 ETS TCs 60/40, rest strict" $DCB ets set dev nicsim0 tc-tsa all:strict 0:ets 1:ets tc-bw all:0 0:60 1:40
	run $DCB -j ets show dev nicsim0
	check "ets readback: ets 60/40, strict TCs read 100" has "$out" \
		'"tc_bw":\[60,40,100,100,100,100,100,100\],.*"tc_tsa":\["ets","ets","strict","strict","strict","strict","strict","strict"\]'
	fails "dcb refuses tc-bw summing to 90" $DCB ets set dev nicsim0 tc-tsa all:ets tc-bw all:0 0:50 1:40
	# dcb sums all TCs (100); the driver sums the ETS TCs only (90): EINVAL.
	run $DCB ets set dev nicsim0 tc-tsa all:strict 0:ets 1:ets tc-bw all:0 0:50 1:40 2:10
	eq "driver rejects ETS bw sum 90 (config unchanged)" "60 40 100 100 100 100 100 100" "$(state nicsim0 tc_bw)"
	# dcb checks that tc-bw sums to 100 over all TCs, and strict TCs read
	# back as 100 (as on mlx5): give tc-bw in full on every dcb ets set.
	fails "dcb ets set without tc-bw trips dcb's own sum check" $DCB ets set dev nicsim0 prio-tc all:0 3:1 5:2
	run $DCB ets set dev nicsim0 tc-tsa 2:cbs tc-bw all:0 0:60 1:40
	eq "driver rejects the cbs TSA" "ets ets strict strict strict strict strict strict" "$(state nicsim0 tc_tsa)"
	ok "ets prio-tc" $DCB ets set dev nicsim0 tc-bw all:0 0:60 1:40 prio-tc all:0 3:1 5:2
	eq "prio_tc readback" "0 0 0 1 0 2 0 0" "$(state nicsim0 prio_tc)"

	echo "setets EIO 1" >"$D0/fault"
	eq "fault file shows the armed fault" "setets EIO 1" "$(cat "$D0/fault")"
	run $DCB1 ets set dev nicsim0 tc-tsa all:strict 0:ets 1:ets tc-bw all:0 0:70 1:30
	echo "dcb ets set with setets EIO armed: rc=$? output='$out'" >>"$log"
	eq "setets fault: config unchanged" "60 40 100 100 100 100 100 100" "$(state nicsim0 tc_bw)"
	eq "fault consumed" "" "$(cat "$D0/fault")"
	ok "next ets set succeeds" $DCB ets set dev nicsim0 tc-tsa all:strict 0:ets 1:ets tc-bw all:0 0:70 1:30
	eq "ets applied after the fault" "70 30 100 100 100 100 100 100" "$(state nicsim0 tc_bw)"
}

test_app() {
	eq "trust pcp initially" pcp "$(cat "$D0/trust")"
	ok "dcb app add dscp-prio 26:3" $DCB app add dev nicsim0 dscp-prio 26:3
	eq "trust dscp after first DSCP entry" dscp "$(cat "$D0/trust")"
	run $DCB -N -j app show dev nicsim0
	check "app table has 26:3" has "$out" '"dscp_prio":\[\[26,3\]\]'
	ok "dcb app add dscp-prio 26:4 (replaces)" $DCB app add dev nicsim0 dscp-prio 26:4
	run $DCB -N -j app show dev nicsim0
	check "app table has only 26:4" has "$out" '"dscp_prio":\[\[26,4\]\]'
	ok "second DSCP entry 46:5" $DCB app add dev nicsim0 dscp-prio 46:5
	fails "ethtype APP refused (DSCP only)" $DCB app add dev nicsim0 ethtype-prio 0x8915:3
	check "  ... with Invalid argument" has "$out" "Invalid argument"
	fails "deleting a non-matching entry" $DCB app del dev nicsim0 dscp-prio 26:3
	check "  ... with No such file or directory" has "$out" "No such file or directory"
	ok "delete 26:4" $DCB app del dev nicsim0 dscp-prio 26:4
	eq "still dscp with one entry left" dscp "$(cat "$D0/trust")"
	ok "delete 46:5" $DCB app del dev nicsim0 dscp-prio 46:5
	eq "trust pcp after the last DSCP entry" pcp "$(cat "$D0/trust")"
	run $DCB -N -j app show dev nicsim0
	check "app table empty" hasnt "$out" "dscp_prio\":\[\["

	echo "setapp EBUSY 1" >"$D0/fault"
	fails "setapp fault fails dcb app add" $DCB app add dev nicsim0 dscp-prio 10:1
	check "  ... reported as Device or resource busy" has "$out" "Device or resource busy"
	eq "trust unchanged by the failed add" pcp "$(cat "$D0/trust")"
	echo "setapp +1 1" >"$D0/fault"
	fails "setapp positive status 1 fails dcb app add" $DCB app add dev nicsim0 dscp-prio 10:1
	echo "dcb app add with setapp +1: '$out'" >>"$log"
	ok "add after the faults" $DCB app add dev nicsim0 dscp-prio 10:1
	echo "delapp EPERM 1" >"$D0/fault"
	fails "delapp fault fails dcb app del" $DCB app del dev nicsim0 dscp-prio 10:1
	check "  ... reported as Operation not permitted" has "$out" "Operation not permitted"
	ok "delete after the fault" $DCB app del dev nicsim0 dscp-prio 10:1
	eq "trust pcp again" pcp "$(cat "$D0/trust")"

	fails "UDP port APP refused (app_any N)" $DCB app add dev nicsim0 dgram-port-prio 4791:3
	echo Y >"$D0/app_any"
	ok "app_any Y: UDP port 4791 -> 3 taken" $DCB app add dev nicsim0 dgram-port-prio 4791:3
	run $DCB -N -j app show dev nicsim0
	check "  ... in the kernel's APP table" has "$out" '"dgram_port_prio":\[\[4791,3\]\]'
	eq "  ... trust unchanged (DSCP entries only switch it)" pcp "$(cat "$D0/trust")"
	ok "  ... and deleted" $DCB app del dev nicsim0 dgram-port-prio 4791:3
	echo N >"$D0/app_any"
}

test_buffer() {
	run $DCB -j buffer show dev nicsim0
	check "buffer initial: 128K in buffer 0, total 256K" has "$out" \
		'"prio_buffer":\[0,0,0,0,0,0,0,0\],"buffer_size":\[131072,0,0,0,0,0,0,0\],"total_size":262144'
	ok "buffer set" $DCB buffer set dev nicsim0 prio-buffer all:0 3:1 buffer-size all:0 0:64K 1:32K
	run $DCB -j buffer show dev nicsim0
	check "buffer readback" has "$out" '"prio_buffer":\[0,0,0,1,0,0,0,0\],"buffer_size":\[65536,32768,0,0,0,0,0,0\]'
	run $DCB buffer set dev nicsim0 buffer-size 2:1000
	eq "sizes round down to 128-byte cells" "65536 32768 896 0 0 0 0 0" "$(state nicsim0 buffer_size)"
	run $DCB buffer set dev nicsim0 buffer-size 0:200K 1:100K
	eq "sum over total_size rejected" "65536 32768 896 0 0 0 0 0" "$(state nicsim0 buffer_size)"
	# prio 3 is lossless (PFC on) and maps to buffer 1.
	run $DCB buffer set dev nicsim0 buffer-size 1:0
	eq "zero-sized lossless buffer rejected" "65536 32768 896 0 0 0 0 0" "$(state nicsim0 buffer_size)"
	echo "setbuffer ENOMEM 1" >"$D0/fault"
	run $DCB1 buffer set dev nicsim0 buffer-size 2:0
	eq "setbuffer fault: unchanged" "65536 32768 896 0 0 0 0 0" "$(state nicsim0 buffer_size)"
}

test_maxrate() {
	run ieee_set nicsim0 maxrate 50000 1000000 25500000 25600000 100000000 255000000 0 0
	eq "maxrate raw set" "status=0 ack=0" "$out"
	eq "maxrate rounding (100 Mb/s units to 25.5G, then 1G)" \
		"100000 1000000 25500000 25000000 100000000 255000000 0 0" "$(state nicsim0 maxrate)"
	run $DCB -j maxrate show dev nicsim0
	check "dcb maxrate show (raw kbit/s in JSON)" has "$out" \
		'"tc_maxrate":\[100000,1000000,25500000,25000000,100000000,255000000,0,0\]'
	run ieee_set nicsim0 maxrate 256000000 0 0 0 0 0 0 0
	eq "maxrate over 255 Gb/s: status EINVAL in the payload, ack 0" "status=-22 ack=0" "$out"
	eq "maxrate unchanged" "100000 1000000 25500000 25000000 100000000 255000000 0 0" "$(state nicsim0 maxrate)"
	echo "setmaxrate EIO" >"$D0/fault"
	run ieee_set nicsim0 maxrate 0 0 0 0 0 0 0 0
	eq "setmaxrate fault: status EIO" "status=-5 ack=0" "$out"
	echo "setmaxrate clear" >"$D0/fault"
	run ieee_set nicsim0 maxrate 0 0 0 0 0 0 0 0
	eq "setmaxrate after clear" "status=0 ack=0" "$out"
}

test_dcbx() {
	run $DCB dcbx show dev nicsim0
	eq "dcbx initial host ieee" "host ieee" "$(trim "$out")"
	ok "dcbx set host ieee static" $DCB dcbx set dev nicsim0 host ieee static
	run $DCB dcbx show dev nicsim0
	eq "dcbx readback" "host ieee static" "$(trim "$out")"
	fails "dcbx lld-managed refused (mlx5)" $DCB dcbx set dev nicsim0 lld-managed ieee
	fails "dcbx cee refused" $DCB dcbx set dev nicsim0 host cee
	fails "dcbx without host refused" $DCB dcbx set dev nicsim0 ieee
	echo 0x0a >"$D0/dcbx"
	run $DCB dcbx show dev nicsim0
	eq "debugfs dcbx sets the reported mode" "lld-managed ieee" "$(trim "$out")"
	echo "setdcbx EIO 1" >"$D0/fault"
	fails "setdcbx fault" $DCB dcbx set dev nicsim0 host ieee
	ok "dcbx set host ieee" $DCB dcbx set dev nicsim0 host ieee
	eq "debugfs dcbx readback" 0x09 "$(cat "$D0/dcbx")"
}

test_pause() {
	local n0
	run $ETHTOOL -a nicsim0
	check "global pause on initially" has "$out" "RX:.*on"
	check "rx_global_pause listed while global pause is on" test -n "$(ethtool_stat nicsim0 rx_global_pause)"
	echo "tx_pause_ctrl_phy 5" >"$D0/counters"
	echo "rx_pause_ctrl_phy 6" >"$D0/counters"
	run $ETHTOOL --include-statistics -a nicsim0
	check "pause stats: tx_pause_frames 5" has "$out" "tx_pause_frames: 5"
	check "pause stats: rx_pause_frames 6" has "$out" "rx_pause_frames: 6"
	n0=$(nstats nicsim0)
	ok "ethtool -A rx off tx off" $ETHTOOL -A nicsim0 rx off tx off
	eq "rx_global_pause gone" "" "$(ethtool_stat nicsim0 rx_global_pause)"
	eq "5 fewer stats" $((n0 - 5)) "$(nstats nicsim0)"
	fails "pause autoneg refused" $ETHTOOL -A nicsim0 autoneg on
	echo "setpause EBUSY 1" >"$D0/fault"
	fails "setpause fault fails ethtool -A" $ETHTOOL -A nicsim0 rx on
	check "  ... with EBUSY" has "$out" "busy"
	ok "ethtool -A rx on after the fault" $ETHTOOL -A nicsim0 rx on
	eq "rx_global_pause back" 0 "$(ethtool_stat nicsim0 rx_global_pause)"
}

test_counters() {
	echo "rx_out_of_buffer 4294967290" >"$D0/counters"
	echo "rx_out_of_buffer +10" >"$D0/counters"
	eq "rx_out_of_buffer wraps at 32 bits" 4 "$(ctr nicsim0 rx_out_of_buffer)"
	eq "ethtool shows the wrapped value" 4 "$(ethtool_stat nicsim0 rx_out_of_buffer)"
	printf 'rx_discards_phy 18446744073709551615\nrx_discards_phy +2\nrx_prio3_marked 100\nrx_prio3_marked -1\n' >"$D0/counters"
	eq "64-bit counter wraps" 1 "$(ctr nicsim0 rx_discards_phy)"
	eq "subtract" 99 "$(ctr nicsim0 rx_prio3_marked)"
	eq "ethtool rx_prio3_marked" 99 "$(ethtool_stat nicsim0 rx_prio3_marked)"
	check "hidden PFC counters listed in debugfs" grep -q "^tx_prio6_pause_duration 0$" "$D0/counters"
	echo "rx_bytes 5" >"$D0/counters"
	# One write() is all-or-nothing (bash's printf would write line by line).
	if cat >"$D0/counters" 2>/dev/null <<<$'rx_bytes 77\nno_such_counter 1'; then
		nd_vm_fail "unknown counter name accepted"
	else
		nd_vm_pass "unknown counter name refused"
	fi
	eq "refused write applies nothing" 5 "$(ctr nicsim0 rx_bytes)"
	echo "rx_packets 0x10" >"$D0/counters"
	eq "hex value" 16 "$(ctr nicsim0 rx_packets)"
	cat >"$D0/counters" <<'BATCH'
# a batch: comments and blank lines are skipped
  rx_prio5_pause 3
rx_prio5_pause_duration 1000

tx_pause_storm_warning_events +2
BATCH
	eq "batch write (line 1)" 3 "$(ctr nicsim0 rx_prio5_pause)"
	eq "batch write (line 2)" 1000 "$(ctr nicsim0 rx_prio5_pause_duration)"
	eq "batch write (line 3)" 2 "$(ctr nicsim0 tx_pause_storm_warning_events)"
	eq "storm counter in ethtool -S" 2 "$(ethtool_stat nicsim0 tx_pause_storm_warning_events)"
	echo reset >"$D0/counters"
	eq "reset" 0 "$(ctr nicsim0 rx_bytes)"
	eq "rx counters in ip stats" 0 "$(cat /sys/class/net/nicsim0/statistics/rx_bytes)"
}

test_faults() {
	local r
	echo "setpfc EBUSY 2" >"$D0/fault"
	r=$(state nicsim0 pfc_en)
	run ieee_set nicsim0 pfc 0x81 7
	eq "setpfc fault via raw IEEE_SET: status -EBUSY, ack 0" "status=-16 ack=0" "$out"
	eq "fault count decremented" "setpfc EBUSY 1" "$(cat "$D0/fault")"
	run $DCB1 pfc set dev nicsim0 prio-pfc all:on
	echo "dcb pfc set with setpfc EBUSY armed: rc=$? output='$out'" >>"$log"
	eq "pfc unchanged after the faults" "$r" "$(state nicsim0 pfc_en)"
	eq "fault consumed" "" "$(cat "$D0/fault")"
	run ieee_set nicsim0 pfc 0x08 7
	eq "raw setpfc ok" "status=0 ack=0" "$out"

	printf 'getpfc EIO\ngetets 22 3\nsetpause +3\n' >"$D0/fault"
	eq "fault listing" "$(printf 'setpause +3 inf\ngetets EINVAL 3\ngetpfc EIO inf')" "$(cat "$D0/fault")"
	fails "getpfc fault hides PFC from dcb pfc show" $DCB pfc show dev nicsim0
	echo "dcb pfc show with getpfc EIO: '$out'" >>"$log"
	echo "getets EIO 1" >"$D0/fault"
	fails "getets fault hides ETS from dcb ets show" $DCB ets show dev nicsim0
	echo "getpfc 0" >"$D0/fault"
	ok "getpfc disarmed with errno 0" $DCB pfc show dev nicsim0
	echo clear >"$D0/fault"
	eq "clear" "" "$(cat "$D0/fault")"
	if echo "setfoo EIO" >"$D0/fault" 2>/dev/null; then nd_vm_fail "unknown op accepted"; else nd_vm_pass "unknown op refused"; fi
	if echo "setets EWHAT" >"$D0/fault" 2>/dev/null; then nd_vm_fail "unknown errno accepted"; else nd_vm_pass "unknown errno refused"; fi
}

test_unload() {
	ok "rmmod nicsim" rmmod nicsim
	check "debugfs dir removed" test ! -e "$DBG"
	check "netdevs removed" test ! -e /sys/class/net/nicsim0
	ok "load with trust=dscp global_pause=0 nports=1 speed=25000" load nports=1 trust=dscp global_pause=0 speed=25000
	eq "trust dscp at load" dscp "$(cat "$D0/trust")"
	run $DCB -N -j app show dev nicsim0
	check "64 DSCP entries at load (dscp d -> prio d>>3)" has "$out" '\[0,0\],.*\[26,3\],.*\[63,7\]\]'
	eq "64 entries" 64 "$(grep -o '\[[0-9]*,[0-9]\]' <<<"$out" | wc -l)"
	run $ETHTOOL -a nicsim0
	check "global pause off" has "$out" "RX:.*off"
	run $IP link set nicsim0 up
	run $ETHTOOL nicsim0
	check "speed 25000" has "$out" "Speed: 25000Mb/s"
	ok "rmmod" rmmod nicsim
	ok "reload default" load nports=1
	run $DCB -N -j app show dev nicsim0
	check "no stale APP entries after reload" hasnt "$out" "dscp_prio\":\[\["
	ok "final rmmod" rmmod nicsim
}

# The link partner's DCB: the debugfs peer file, and what dcbnl's IEEE_GET and CEE_GET pass on
# from the peer ops (tests/vm/nicsim/dcb_peer.py prints it in the file's syntax).
test_peer() {
	local P=$D0/peer want i
	eq "peer file empty at load" "" "$(cat "$P")"
	run "$PY" "$repo/tests/vm/nicsim/dcb_peer.py" nicsim0
	eq "no peer attributes in IEEE_GET/CEE_GET before a write (ops say ENODATA)" "" "$out"
	want="ets willing=1 cbs=0 maxtc=8 prio_tc=0,0,0,3,0,0,0,0 tc_bw=50,0,0,50,0,0,0,0 \
tsa=2,0,0,2,0,0,0,0
pfc en=0x08 cap=8 willing=0 mbc=0
app sel=5 proto=26 prio=3
app sel=3 proto=4791 prio=3
app_info willing=0 error=1
cee_pg willing=1 error=0 pg_en=1 tcs=8 pg_bw=50,0,0,50,0,0,0,0 prio_pg=0,0,0,3,0,0,0,15
cee_pfc willing=0 error=0 en=0x08 tcs=8"
	# one line a write (echo), as a test writes it
	while IFS= read -r i; do echo "$i" >"$P" || nd_vm_fail "peer write '$i' refused"; done <<<"$want"
	eq "peer file reads back what was written" "$want" "$(cat "$P")"
	run "$PY" "$repo/tests/vm/nicsim/dcb_peer.py" nicsim0
	eq "dcbnl reports it: PEER_ETS/PFC/APP, CEE PEER_PG/PFC/APP_TABLE (pfc willing has no field)" \
		"$(sed 's/^\(pfc .*\) willing=[01]/\1/' <<<"$want")" "$out"
	run "$PY" "$repo/tests/vm/nicsim/dcb_peer.py" nicsim1
	eq "the other port's peer stays unset" "" "$out"
	ok "dcb ets show unbothered by the peer attributes" $DCB -j ets show dev nicsim0
	echo "pfc en=0x18 cap=8" >"$P"
	check "a line sets its feature afresh (willing back to 0)" \
		grep -qx "pfc en=0x18 cap=8 willing=0 mbc=0" "$P"
	for i in "pfc foo=1" "pfc en" "pfc willing=2" "pfc en=x" "ets prio_tc=0,0,0,3,0,0,0" \
		"ets prio_tc=0,0,0,3,0,0,0,0,0" "ets prio_tc=0,0,0,8,0,0,0,0" "qcn en=1" "clear now" \
		"app sel=5 proto=65536 prio=3" "app sel=5 proto=26 prio=8" "app sel=5 proto=26 foo=1"; do
		if echo "$i" >"$P" 2>/dev/null; then
			nd_vm_fail "peer: '$i' accepted"
		else
			nd_vm_pass "peer: '$i' refused (EINVAL)"
		fi
	done
	if cat >"$P" 2>/dev/null <<<$'pfc en=0x01\ncee_pfc bogus=1'; then
		nd_vm_fail "peer: a write with a bad line accepted"
	else
		nd_vm_pass "peer: a write with a bad line refused"
	fi
	check "  ... and applies none of its lines" grep -qx "pfc en=0x18 cap=8 willing=0 mbc=0" "$P"
	for i in $(seq 3 64); do echo "app sel=5 proto=$i prio=1"; done | cat >"$P"
	eq "64 peer APP entries" 64 "$(grep -c '^app ' "$P")"
	if echo "app sel=5 proto=1 prio=1" >"$P" 2>/dev/null; then
		nd_vm_fail "65th APP entry accepted"
	else
		nd_vm_pass "65th APP entry refused (ENOSPC)"
	fi
	run "$PY" "$repo/tests/vm/nicsim/dcb_peer.py" nicsim0
	eq "dcbnl passes all 64 on" 64 "$(grep -c '^app ' <<<"$out")"
	check "  ... the CEE table the same as the IEEE one" hasnt "$out" "mismatch"
	echo clear >"$P"
	eq "clear forgets everything" "" "$(cat "$P")"
	run "$PY" "$repo/tests/vm/nicsim/dcb_peer.py" nicsim0
	eq "  ... and dcbnl reports no peer again" "" "$out"
}

# wire=1: ports 0<->1 cabled (a frame out of one is received by the other), 2 alone.
test_wire() {
	local rx1
	ok "load nports=3 wire=1" load nports=3 wire=1
	run $IP link set nicsim0 up
	eq "one end up: no carrier" 0 "$(cat /sys/class/net/nicsim0/carrier)"
	run $IP link set nicsim1 up
	eq "both ends up: carrier on nicsim0" 1 "$(cat /sys/class/net/nicsim0/carrier)"
	eq "  ... and on nicsim1" 1 "$(cat /sys/class/net/nicsim1/carrier)"
	run $IP link set nicsim2 up
	eq "the odd port out has carrier alone" 1 "$(cat /sys/class/net/nicsim2/carrier)"
	rx1=$(cat /sys/class/net/nicsim1/statistics/rx_packets)
	run wire_frame nicsim0 nicsim1 5
	eq "a frame sent on nicsim0 arrives on nicsim1" received "$out"
	check "  ... nicsim1 counts it received" \
		test "$(cat /sys/class/net/nicsim1/statistics/rx_packets)" -gt "$rx1"
	run wire_frame nicsim1 nicsim0 5
	eq "and back, nicsim1 to nicsim0" received "$out"
	run wire_frame nicsim2 nicsim0 1
	eq "nicsim2 is on no wire" lost "$out"
	run $IP link set nicsim1 down
	eq "the far end down: carrier off" 0 "$(cat /sys/class/net/nicsim0/carrier)"
	rx1=$(cat /sys/class/net/nicsim1/statistics/rx_packets)
	run wire_frame nicsim0 nicsim1 1
	eq "  ... a frame sent then is lost" lost "$out"
	eq "  ... and not counted received" "$rx1" "$(cat /sys/class/net/nicsim1/statistics/rx_packets)"
	run $IP link set nicsim1 up
	eq "up again: carrier back" 1 "$(cat /sys/class/net/nicsim0/carrier)"
	ok "rmmod with the wire up" rmmod nicsim
}

# cee=1: the CEE ops, and a DCBX mode with cee taken (as mlx5)
test_cee() {
	ok "load nports=1 cee=1" load nports=1 cee=1
	ok "dcbx host cee accepted" $DCB dcbx set dev nicsim0 host cee
	run $DCB dcbx show dev nicsim0
	eq "dcbx readback host cee" "host cee" "$(trim "$out")"
	ok "rmmod" rmmod nicsim
}

test_load
test_link
test_pfc
test_ets
test_app
test_buffer
test_maxrate
test_dcbx
test_pause
test_counters
test_faults
test_peer
test_unload
test_cee
test_wire
if dmesg | grep -E "WARNING|BUG|Oops|RIP:" >>"$log"; then
	nd_vm_fail "kernel warnings in dmesg (see $log)"
else
	nd_vm_pass "no kernel warnings"
fi
nd_vm_done
