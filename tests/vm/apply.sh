#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# apply / audit / rollback against the real kernel: nicsim ports, iproute2 as the oracle.
# Run inside the guest by `make vm`.
set -u
. tests/vm/guest-lib.sh

ND=${ND_NODROP:-build/nodrop}
DCB=nd_vm_dcb
IP=/usr/sbin/ip
DBG=/sys/kernel/debug/nicsim
P=tests/vm/profiles
STATE=/tmp/nodrop-state
PORTS="nicsim0 nicsim1"

# The whole observable DCB + MTU state of a port, as iproute2 sees it: dcb's JSON of each object
# as printed, then the link's MTU (its flags and state move with the flaps an apply causes). No jq
# here: a snapshot is taken some forty times, and under TCG each jq costs half a second.
snap() {
	local dev=$1 obj link
	for obj in pfc ets app buffer maxrate dcbx; do
		$DCB -j "$obj" show dev "$dev" 2>&1
	done
	link=$($IP -j link show dev "$dev" 2>&1)
	if [[ $link =~ \"mtu\":([0-9]+) ]]; then
		echo "mtu ${BASH_REMATCH[1]}"
	else
		echo "ip link: $link"
	fi
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
# A step a second: the journal turns in-progress just before the first step's delay, so 1.5 s
# later one step has reached the kernel and the next has not. (Polling snap_all for the first
# change missed the window: a snapshot is a dozen dcb and ip runs, seconds under TCG, and on a
# slower host the whole apply finished within two of them.)
NODROP_STEP_DELAY_MS=1000 "$ND" apply --state-dir $STATE --dev nicsim0 --dev nicsim1 \
	$P/lossless.yaml >/dev/null 2>&1 &
pid=$!
for i in $(seq 400); do
	grep -qs '"status":"in-progress"' $STATE/journal.json && break
	sleep 0.05
done
sleep 1.5
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
*"another nodrop apply or rollback (pid $pid) is changing this host's ports (lock @nodrop/apply)"*) nd_vm_pass "it names the holder" ;;
*) nd_vm_fail "lock message: $err" ;;
esac
expect 0 "a second apply that waits" "$ND" apply -j --wait 60 --state-dir $STATE --dev nicsim0 --dev nicsim1 $P/lossless.yaml
jqt "runs after the first one finished: nothing left to do" "$out" '.outcome == "no-op"'
wait $pid && nd_vm_pass "the first apply succeeded" || nd_vm_fail "first apply: $(cat /tmp/a.out)"
same "the result is the applied state" "$applied" "$(snap_all)"
"$ND" rollback --state-dir $STATE >/dev/null

# --- the lock covers the host's ports whatever the state directory ---
NODROP_STEP_DELAY_MS=300 "$ND" apply --state-dir $STATE --dev nicsim0 --dev nicsim1 $P/lossless.yaml \
	>/tmp/a.out 2>&1 &
pid=$!
for i in $(seq 100); do [ -s $STATE/lock ] && grep -q "^$pid$" $STATE/lock && break; sleep 0.05; done
expect 3 "an apply with another --state-dir and --wait 0 fails at once" \
	"$ND" apply --wait 0 --state-dir /tmp/other-state --dev nicsim0 $P/pfc4.yaml
case $err in
*"another nodrop apply or rollback (pid $pid) is changing this host's ports"*) nd_vm_pass "it names the holder" ;;
*) nd_vm_fail "lock message with another state dir: $err" ;;
esac
expect 3 "a rollback with another --state-dir and --wait 0 fails at once" \
	"$ND" rollback --wait 0 --state-dir /tmp/other-state
case $err in
*"another nodrop apply or rollback (pid $pid) is changing this host's ports"*) nd_vm_pass "it names the holder" ;;
*) nd_vm_fail "rollback lock message: $err" ;;
esac
expect 0 "an apply with another --state-dir waits, then runs" \
	"$ND" apply -j --wait 60 --state-dir /tmp/other-state --dev nicsim0 --dev nicsim1 $P/pfc4.yaml
wait $pid && nd_vm_pass "the first apply succeeded" || nd_vm_fail "first apply: $(cat /tmp/a.out)"
jqt "the ports hold the second profile, not a mix (dcb -j)" \
	"$($DCB -j pfc show dev nicsim0; $DCB -j pfc show dev nicsim1)" \
	'.prio_pfc == [false,false,false,false,true,false,false,false]'
"$ND" rollback --state-dir /tmp/other-state >/dev/null
"$ND" rollback --state-dir $STATE >/dev/null
same "both rolled back: the pre-state" "$pre" "$(snap_all)"

# --- the journal's lifecycle: a rolled-back journal is never applied again ---
expect 0 "apply" "$ND" apply --state-dir $STATE --dev nicsim0 --dev nicsim1 $P/lossless.yaml
expect 0 "rollback" "$ND" rollback --state-dir $STATE
jqt "the journal says rolled-back" "$(cat $STATE/journal.json)" '.status == "rolled-back"'
$IP link set dev nicsim0 mtu 4000
$DCB pfc set dev nicsim1 prio-pfc all:off 5:on
hand=$(snap_all)
expect 0 "rollback of a rolled-back journal exits 0" "$ND" rollback -j --state-dir $STATE
jqt "it says there is nothing to do" "$out" \
	'.outcome == "no-op" and (.note | test("already rolled back"))'
same "the hand changes made after the rollback are kept" "$hand" "$(snap_all)"
$IP link set dev nicsim0 mtu 1500
$DCB pfc set dev nicsim1 prio-pfc all:off
same "hand changes undone by hand" "$pre" "$(snap_all)"

# --- an apply killed before its first write: rollback does not go back to an older apply ---
expect 0 "apply" "$ND" apply --state-dir $STATE --dev nicsim0 --dev nicsim1 $P/lossless.yaml
cp $STATE/journal.json /tmp/first-journal.json
NODROP_STEP_DELAY_MS=5000 "$ND" apply --state-dir $STATE --dev nicsim0 --dev nicsim1 $P/pfc4.yaml \
	>/dev/null 2>&1 &
pid=$!
for i in $(seq 100); do
	jq -e '.status == "started"' $STATE/journal.json >/dev/null 2>&1 && break
	sleep 0.05
done
kill -9 $pid
wait $pid 2>/dev/null
same "killed before its first write: the ports hold the first apply's state" "$applied" "$(snap_all)"
expect 0 "rollback after an apply killed before it wrote" "$ND" rollback -j --state-dir $STATE
jqt "it says the apply stopped before it changed anything" "$out" \
	'.outcome == "no-op" and (.note | test("stopped before it changed anything"))'
same "the first apply's state is kept" "$applied" "$(snap_all)"
expect 0 "an apply that writes nothing keeps the last journal" \
	"$ND" apply -j --state-dir $STATE --dev nicsim0 --dev nicsim1 $P/lossless.yaml
jqt "it was a no-op" "$out" '.outcome == "no-op"'
jqt "the journal is the killed apply's, as it was" "$(cat $STATE/journal.json)" '.status == "started"'
expect 0 "the first apply's journal, given by name, still rolls back" \
	"$ND" rollback --journal /tmp/first-journal.json --state-dir $STATE
same "pre-state" "$pre" "$(snap_all)"

# --- a field changed after the apply stops the rollback; --force restores anyway ---
expect 0 "apply" "$ND" apply --state-dir $STATE --dev nicsim0 --dev nicsim1 $P/lossless.yaml
$DCB pfc set dev nicsim1 prio-pfc all:off 4:on delay 30
hand=$(snap_all)
expect 1 "rollback over a field changed since the apply exits 1" "$ND" rollback -j --state-dir $STATE
jqt "the conflict names port, field, the applied value and the value now" "$out" \
	'.outcome == "conflict" and .conflicts == [{"ifname": "nicsim1", "field": "pfc.priorities", "applied": "3", "now": "4"}]'
case $err in
*"nicsim1: pfc.priorities was changed since the apply: it left 3, it is 4 now"*"--force"*) nd_vm_pass "stderr names it and the way out" ;;
*) nd_vm_fail "conflict message: $err" ;;
esac
same "nothing was restored" "$hand" "$(snap_all)"
expect 0 "rollback --force" "$ND" rollback --force --state-dir $STATE
same "--force restores the pre-state byte for byte" "$pre" "$(snap_all)"

# --- DCBX is the whole mode: host alone (0x01) is not host + IEEE (0x09) ---
$DCB dcbx set dev nicsim0 host
jqt "dcb left the port at host alone" "$($DCB -j dcbx show dev nicsim0)" '.host == true and (.ieee | not)'
dpre=$(snap nicsim0)
expect 1 "audit finds the DCBX mode drifted" "$ND" audit -j --dev nicsim0 $P/dcbx-host.yaml
jqt "drift on dcbx, host -> host ieee" "$out" \
	'.ports[0].drift == [{"field": "dcbx", "actual": "host", "expected": "host ieee"}]'
expect 0 "apply sets the whole mode" "$ND" apply -j --state-dir $STATE --dev nicsim0 $P/dcbx-host.yaml
jqt "it was applied, not a no-op" "$out" '.outcome == "applied"'
jqt "dcb -j dcbx: host and ieee" "$($DCB -j dcbx show dev nicsim0)" '.host == true and .ieee == true'
expect 0 "rollback" "$ND" rollback --state-dir $STATE
same "rollback restores host alone" "$dpre" "$(snap nicsim0)"
$DCB dcbx set dev nicsim0 host ieee

# --- a trust change is drift on the key the profile wrote ---
expect 0 "apply" "$ND" apply --state-dir $STATE --dev nicsim0 $P/lossless.yaml
expect 1 "audit of trust: pcp on a port in DSCP trust" "$ND" audit -j --junit /tmp/trust.xml \
	--dev nicsim0 $P/trust-pcp.yaml
jqt "the drift is on trust" "$out" \
	'.ports[0].drift == [{"field": "trust", "actual": "dscp", "expected": "pcp"}]'
grep -q '<testcase classname="nodrop.audit.nicsim0" name="trust"><failure message="is dscp, want pcp"/>' /tmp/trust.xml &&
	nd_vm_pass "the JUnit test case is trust" || nd_vm_fail "JUnit: $(cat /tmp/trust.xml)"
expect 0 "rollback" "$ND" rollback --state-dir $STATE
same "pre-state" "$pre" "$(snap_all)"

# --- a driver's EINVAL half way is a step that failed and was rolled back: exit 3, not 2 ---
echo "setets EINVAL 1" >$DBG/nicsim1/fault
expect 3 "apply with an EINVAL from the driver half way" \
	"$ND" apply -j --state-dir $STATE --dev nicsim0 --dev nicsim1 $P/lossless.yaml
jqt "rolled back, the driver's reason named" "$out" \
	'.outcome == "rolled-back" and (.failure | test("nicsim1: DCB IEEE_SET ETS: the driver failed it: Invalid argument"))'
same "pre-state" "$pre" "$(snap_all)"
echo clear >$DBG/nicsim1/fault

# --- a read the driver fails is named as such, and nothing is written ---
echo "getpfc EIO 1" >$DBG/nicsim0/fault
expect 3 "apply when the driver fails to read PFC" \
	"$ND" apply --state-dir $STATE --dev nicsim0 $P/lossless.yaml
case $err in
"nodrop apply: nicsim0: pfc.priorities: reading the PFC failed: the driver left it out of its DCB reply"*"nothing was changed"*)
	nd_vm_pass "the error names the port, the field and the read that failed" ;;
*) nd_vm_fail "read failure message: $err" ;;
esac
same "nothing was written" "$pre" "$(snap_all)"
echo "getpfc EIO 1" >$DBG/nicsim0/fault
expect 1 "audit when the driver fails to read PFC" "$ND" audit -j --dev nicsim0 $P/lossless.yaml
jqt "PFC is a finding: not readable" "$out" \
	'.ports[0].drift | map(select(.unsupported)) | map(.field) == ["pfc.priorities", "pfc.cable-length"]'
echo clear >$DBG/nicsim0/fault

# --- without privilege: a clear error, nothing half-applied ---
mkdir -p /tmp/nd-user && chmod 777 /tmp/nd-user
expect 3 "apply as an unprivileged user" setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$ND" apply --state-dir /tmp/nd-user --dev nicsim0 $P/lossless.yaml
case $err in
*"needs CAP_NET_ADMIN (run as root"*) nd_vm_pass "it says which capability is missing" ;;
*) nd_vm_fail "EPERM message: $err" ;;
esac
same "nothing changed" "$pre" "$(snap_all)"
expect 1 "audit works unprivileged, and finds an unconfigured port drifted" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ND" audit -j --dev nicsim2 $P/lossless.yaml
jqt "its drift is listed" "$out" '.ports[0].drift | any(.field == "pfc.priorities")'
nd_vm_done
