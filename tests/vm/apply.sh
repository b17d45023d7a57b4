#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# apply / audit / rollback against the real kernel: nicsim ports, iproute2 as the oracle.
# Run inside the guest by `make vm`.
set -u
. tests/vm/guest-lib.sh

ND=${ND_NODROP:-build/nodrop}
DCB=/usr/sbin/dcb
IP=/usr/sbin/ip
DBG=/sys/kernel/debug/nicsim
P=tests/vm/profiles
STATE=/tmp/nodrop-state
PORTS="nicsim0 nicsim1"

# The whole observable DCB + MTU state of a port, as iproute2 sees it, canonical JSON.
snap() {
	local dev=$1 obj
	{
		for obj in pfc ets app buffer maxrate dcbx; do
			$DCB -j "$obj" show dev "$dev" 2>&1
		done
		$IP -j link show dev "$dev" | jq '.[0] | {mtu}'
	} | jq -sSc .
}

snap_all() {
	local dev
	for dev in $PORTS; do snap "$dev"; done
}

# expect RC DESC CMD...: run, keep stdout in $out and stderr in $err, check the exit status
expect() {
	local want=$1 desc=$2 rc
	shift 2
	out=$("$@" 2>/tmp/err); rc=$?
	err=$(cat /tmp/err)
	if [ "$rc" = "$want" ]; then
		nd_vm_pass "$desc"
	else
		nd_vm_fail "$desc: exit $rc, want $want; stderr: $err; stdout: $out"
	fi
}

same() { # DESC BEFORE AFTER
	if [ "$2" = "$3" ]; then
		nd_vm_pass "$1"
	else
		nd_vm_fail "$1: before $2 after $3"
	fi
}

jqt() { # DESC JSON EXPR (jq -e passes on empty input: empty is a failure here)
	if [ -n "$2" ] && jq -e "$3" >/dev/null 2>&1 <<<"$2"; then
		nd_vm_pass "$1"
	else
		nd_vm_fail "$1: $3 on $2"
	fi
}

nd_vm_nicsim_load 3 || { nd_vm_fail "nicsim"; nd_vm_done; }
for dev in nicsim0 nicsim1 nicsim2; do $IP link set "$dev" up; done
pre=$(snap_all)
pre2=$(snap nicsim2)

# --- validation before any write ---
expect 2 "an MTU above the port's maximum is refused" \
	"$ND" apply --state-dir $STATE --dev nicsim0 $P/mtu-too-big.yaml
case $err in
*"mtu-too-big.yaml:3:6: mtu: 9979 is above nicsim0's maximum 9978"*) nd_vm_pass "error names file:line:col, port and maximum" ;;
*) nd_vm_fail "mtu error: $err" ;;
esac
expect 2 "buffers larger than the port's total are refused" \
	"$ND" apply --state-dir $STATE --dev nicsim0 $P/buffer-too-big.yaml
same "refusals changed nothing" "$pre" "$(snap_all)"
expect 0 "dry run" "$ND" apply -j --dry-run --dev nicsim0 $P/lossless.yaml
jqt "dry run lists the PFC change with its link-flap warning" "$out" \
	'.outcome == "dry-run" and (.ports[0].changes | any(.field == "pfc.priorities" and (.warning | test("flaps the link"))))'
same "dry run changed nothing" "$pre" "$(snap_all)"

# --- apply, audit, idempotence ---
expect 0 "apply the lossless profile to two ports" \
	"$ND" apply -j --state-dir $STATE --dev nicsim0 --dev nicsim1 $P/lossless.yaml
jqt "outcome applied, journal written" "$out" '.outcome == "applied" and (.journal | endswith("journal.json"))'
for dev in $PORTS; do
	jqt "$dev: PFC on 3 only, cable length 30 (dcb -j)" "$($DCB -j pfc show dev $dev)" \
		'.prio_pfc == [false,false,false,true,false,false,false,false] and .delay == 30'
	jqt "$dev: ETS as profiled (dcb -j)" "$($DCB -j ets show dev $dev)" \
		'.prio_tc == [0,0,0,3,0,0,6,0] and .tc_tsa[0] == "ets" and .tc_tsa[3] == "ets" and .tc_tsa[1] == "strict" and .tc_bw[0] == 40 and .tc_bw[3] == 60'
	jqt "$dev: DSCP map 26->3 48->6 (dcb -j)" "$($DCB -j app show dev $dev)" \
		'.dscp_prio == [[26,3],[48,6]]'
	jqt "$dev: buffers (dcb -j)" "$($DCB -j buffer show dev $dev)" \
		'.prio_buffer == [0,0,0,1,0,0,0,0] and .buffer_size[0] == 131072 and .buffer_size[1] == 98304'
	jqt "$dev: maxrate 25 Gbit/s on TC 6 (dcb -j, kbit/s)" "$($DCB -j maxrate show dev $dev)" \
		'.tc_maxrate[6] == 25000000 and .tc_maxrate[0] == 0'
	jqt "$dev: MTU 9000 (ip -j link)" "$($IP -j link show dev $dev)" '.[0].mtu == 9000'
	[ "$(cat $DBG/$dev/trust)" = dscp ] && nd_vm_pass "$dev: trust dscp (nicsim)" ||
		nd_vm_fail "$dev trust $(cat $DBG/$dev/trust)"
done
same "a port the apply was not given is untouched" "$pre2" "$(snap nicsim2)"
expect 0 "audit after apply is clean" "$ND" audit -j --dev nicsim0 --dev nicsim1 $P/lossless.yaml
jqt "audit: no drift" "$out" '[.ports[].drift[] | select(.skipped | not)] | length == 0'
expect 0 "second apply" "$ND" apply -j --state-dir $STATE --dev nicsim0 --dev nicsim1 $P/lossless.yaml
jqt "second apply is a no-op" "$out" '.outcome == "no-op"'
applied=$(snap_all)

# --- drift and JUnit ---
$DCB pfc set dev nicsim1 prio-pfc all:off 4:on delay 30
expect 1 "audit finds drift" "$ND" audit -j --junit /tmp/audit.xml --dev nicsim0 --dev nicsim1 $P/lossless.yaml
jqt "drift names the field, actual and expected" "$out" \
	'.ports[1].drift | any(.field == "pfc.priorities" and .actual == "4" and .expected == "3")'
grep -q '<testcase classname="nodrop.audit.nicsim1" name="pfc.priorities"><failure message="is 4, want 3"/>' /tmp/audit.xml &&
	nd_vm_pass "JUnit has the failing field" || nd_vm_fail "JUnit: $(cat /tmp/audit.xml)"
# its own state directory, so the first apply's journal (the pre-state) stays for rollback
expect 0 "re-apply fixes the drift" "$ND" apply --state-dir /tmp/drift-state --dev nicsim1 $P/lossless.yaml
same "back to the applied state" "$applied" "$(snap_all)"

# --- rollback of a successful apply ---
expect 0 "rollback" "$ND" rollback --state-dir $STATE
same "rollback restores both ports byte for byte (dcb -j, ip -j)" "$pre" "$(snap_all)"
expect 0 "a second rollback is harmless" "$ND" rollback -j --state-dir $STATE
jqt "second rollback does nothing" "$out" '.outcome == "no-op"'

# --- a fault in the middle: ETS on the second port fails after the first port got PFC ---
echo "setets EIO 1" >$DBG/nicsim1/fault
expect 3 "apply with an injected ETS failure fails" \
	"$ND" apply -j --state-dir $STATE --dev nicsim0 --dev nicsim1 $P/lossless.yaml
jqt "outcome rolled-back, the failure named" "$out" \
	'.outcome == "rolled-back" and (.failure | test("nicsim1: DCB IEEE_SET ETS: the driver failed it: Input/output error"))'
case $err in
*"rolled back: every port is in its pre-state again (verified)"*) nd_vm_pass "stderr says rolled back and verified" ;;
*) nd_vm_fail "stderr: $err" ;;
esac
same "after the fault both ports are byte for byte in the pre-state" "$pre" "$(snap_all)"
echo "setpfc EBUSY 1" >$DBG/nicsim0/fault
expect 3 "a PFC failure after buffers and ETS succeeded on the same port" \
	"$ND" apply --state-dir $STATE --dev nicsim0 $P/lossless.yaml
same "pre-state again" "$pre" "$(snap_all)"
echo clear >$DBG/nicsim0/fault
echo clear >$DBG/nicsim1/fault

# --- kill -9 half way, then rollback ---
NODROP_STEP_DELAY_MS=400 "$ND" apply --state-dir $STATE --dev nicsim0 --dev nicsim1 $P/lossless.yaml \
	>/dev/null 2>&1 &
pid=$!
# wait until the journal is written and at least one step has reached the kernel
for i in $(seq 100); do
	[ "$(snap_all)" != "$pre" ] && break
	sleep 0.1
done
kill -9 $pid
wait $pid 2>/dev/null
mid=$(snap_all)
[ "$mid" != "$pre" ] && [ "$mid" != "$applied" ] && nd_vm_pass "killed half way (state is neither)" ||
	nd_vm_fail "kill timing: the state was not half-applied"
jqt "the journal says in-progress" "$(cat $STATE/journal.json)" '.status == "in-progress"'
expect 0 "rollback after kill -9" "$ND" rollback --state-dir $STATE
same "rollback after kill -9 restores the pre-state" "$pre" "$(snap_all)"

# --- two applies at once: one waits or fails, never interleaves ---
NODROP_STEP_DELAY_MS=300 "$ND" apply --state-dir $STATE --dev nicsim0 --dev nicsim1 $P/lossless.yaml \
	>/tmp/a.out 2>&1 &
pid=$!
for i in $(seq 100); do [ -s $STATE/lock ] && grep -q "^$pid$" $STATE/lock && break; sleep 0.05; done
expect 3 "a second apply with --wait 0 fails at once" \
	"$ND" apply --wait 0 --state-dir $STATE --dev nicsim0 $P/lossless.yaml
case $err in
*"another nodrop apply or rollback (pid $pid) holds $STATE/lock"*) nd_vm_pass "it names the holder" ;;
*) nd_vm_fail "lock message: $err" ;;
esac
expect 0 "a second apply that waits" "$ND" apply -j --wait 60 --state-dir $STATE --dev nicsim0 --dev nicsim1 $P/lossless.yaml
jqt "runs after the first one finished: nothing left to do" "$out" '.outcome == "no-op"'
wait $pid && nd_vm_pass "the first apply succeeded" || nd_vm_fail "first apply: $(cat /tmp/a.out)"
same "the result is the applied state" "$applied" "$(snap_all)"
"$ND" rollback --state-dir $STATE >/dev/null

# --- without privilege: a clear error, nothing half-applied ---
mkdir -p /tmp/nd-user && chmod 777 /tmp/nd-user
expect 3 "apply as an unprivileged user" setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$ND" apply --state-dir /tmp/nd-user --dev nicsim0 $P/lossless.yaml
case $err in
*"needs CAP_NET_ADMIN (run as root)"*) nd_vm_pass "it says which capability is missing" ;;
*) nd_vm_fail "EPERM message: $err" ;;
esac
same "nothing changed" "$pre" "$(snap_all)"
expect 1 "audit works unprivileged, and finds an unconfigured port drifted" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ND" audit -j --dev nicsim2 $P/lossless.yaml
jqt "its drift is listed" "$out" '.ports[0].drift | any(.field == "pfc.priorities")'
nd_vm_done
