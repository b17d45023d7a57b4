#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The CLI on the build host (no DCB, no RDMA): exit codes, errors, help, JSON validity.
# With ND_VALGRIND=1 every run goes through valgrind and a leak or error fails the case.
set -u
NODROP=${1:-build/nodrop}
pass=0 fail=0
vg=()
[ "${ND_VALGRIND:-0}" = 1 ] && vg=(valgrind -q --error-exitcode=99 --leak-check=full
				  --errors-for-leak-kinds=definite,indirect)

ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "not ok - $1"; }

# expect RC DESC CMD...: run, keep stdout/stderr in $out/$err, check the exit code
expect() {
	local want=$1 desc=$2 rc
	shift 2
	out=$("${vg[@]}" "$@" 2>/tmp/nd-cli-err.$$); rc=$?
	err=$(cat /tmp/nd-cli-err.$$)
	if [ "$rc" = "$want" ]; then ok "$desc"; else bad "$desc (rc $rc, want $want): $err"; fi
}

expect 0 "show lists host ports" "$NODROP" show
first=$(ip -o link show | awk -F': ' '$2 != "lo" {print $2; exit}' | cut -d@ -f1)
echo "$out" | grep -q "^$first: .* mtu [0-9]" && ok "show text has $first with its MTU" ||
	bad "show text lacks $first: $out"
expect 0 "show -j on the host" "$NODROP" show -j
echo "$out" | jq -e 'type == "array" and length > 0 and all(.[]; .mtu > 0 and (.dcb | has("supported")))' \
	>/dev/null && ok "show -j is an array of ports with mtu and dcb" || bad "show -j shape: $out"
mtu=$(ip -j link show dev lo | jq '.[0].mtu')
expect 0 "show -j lo" "$NODROP" show -j lo
[ "$(echo "$out" | jq '.[0].mtu')" = "$mtu" ] && ok "lo MTU agrees with ip -j link" ||
	bad "lo MTU: $out"
[ "$(echo "$out" | jq -r '.[0].dcb.error')" = "not supported by driver" ] &&
	ok "lo: DCB not supported" || bad "lo dcb: $out"
[ "$(echo "$out" | jq -r '.[0].ecn.note')" = "no MLNX_OFED ecn sysfs, no mlx5 debugfs cc_params" ] &&
	ok "lo: no ECN backend, the reason in the note" || bad "lo ecn: $out"
expect 0 "show lo" "$NODROP" show lo
echo "$out" | grep -qx '    ecn none (no MLNX_OFED ecn sysfs, no mlx5 debugfs cc_params)' &&
	ok "show lo: ecn none, the reason once in one pair of parentheses" || bad "show lo ecn: $out"
# a reason is put in parentheses once: no line of show's text nests them
expect 0 "show on the host" "$NODROP" show
nested=$(echo "$out" | awk '{ d = m = 0; for (i = 1; i <= length($0); i++) {
	c = substr($0, i, 1); if (c == "(" && ++d > m) m = d; else if (c == ")") d-- } } m > 1')
[ -z "$nested" ] && ok "show: no parentheses within parentheses" || bad "show nests: $nested"
expect 0 "options may follow the device" "$NODROP" show lo -j
echo "$out" | jq -e '.[0].ifname == "lo"' >/dev/null && ok "show lo -j is JSON" || bad "show lo -j: $out"
expect 0 "show -p lo" "$NODROP" show -p lo
echo "$out" | grep -q '^  {' && ok "pretty JSON is indented" || bad "pretty: $out"
# counters --prometheus on the host's ports (PFC read by DCB netlink too): promtool as the oracle
expect 0 "counters --prometheus -a on the host" "$NODROP" counters --prometheus -a
why=$(promtool check metrics <<<"$out" 2>&1)
[ -z "$why" ] && echo "$out" | grep -q "^nodrop_port_info{device=\"$first\"," &&
	echo "$out" | grep -q '^nodrop_last_success_timestamp_seconds [0-9]' &&
	ok "host Prometheus text: promtool clean, $first's info, the timestamp" ||
	bad "prometheus: $why $out"
expect 2 "unknown device" "$NODROP" show nosuchdev0
[ "$err" = "nodrop show: no network device 'nosuchdev0' (see 'ip link' for the names)" ] &&
	ok "unknown device message" || bad "unknown device message: $err"
[ -z "$out" ] && ok "nothing printed for a bad name" || bad "printed: $out"
expect 2 "unknown device among good ones" "$NODROP" show lo nosuchdev0
expect 2 "unknown option" "$NODROP" show --bogus
echo "$err" | grep -q "unknown option '--bogus'" && ok "unknown option named" || bad "$err"
expect 2 "show --peer-wait abc" "$NODROP" show --peer-wait abc lo
[ "$err" = "nodrop show: --peer-wait takes whole seconds 0..86400, not 'abc'" ] &&
	ok "show --peer-wait abc: the option named" || bad "show --peer-wait abc: $err"
# --peer without CAP_NET_RAW (the CI's user; root with it dropped from its bounding set): the
# capability named, exit 3
no_raw=()
[ "$(id -u)" = 0 ] && no_raw=(setpriv --bounding-set=-net_raw)
expect 3 "show --peer without CAP_NET_RAW" "${no_raw[@]}" "${vg[@]}" "$NODROP" show --peer-wait 1 lo
[ "$err" = "nodrop show: --peer: lo: listening for LLDP needs CAP_NET_RAW (run as root, or give nodrop cap_net_raw)" ] &&
	ok "show --peer without CAP_NET_RAW: named" || bad "no CAP_NET_RAW: $err"
# nodrop path: the job's inputs are checked before any port is read (the host has no RDMA)
printf 'NCCL_IB_TC=106\n  9LIVES=1\n' >/tmp/nd-cli-job.$$
expect 2 "path --env with a bad line" "$NODROP" path --env /tmp/nd-cli-job.$$
[ "$err" = "nodrop path: /tmp/nd-cli-job.$$:2:3: expected NAME=VALUE (a variable name of letters, digits and _, then =): fix or remove the line" ] &&
	ok "path --env: FILE:LINE:COLUMN named" || bad "path --env bad line: $err"
printf 'export NCCL_IB_TC="106"\n' >/tmp/nd-cli-job.$$
expect 2 "path with no RDMA device on the host" "$NODROP" path --env /tmp/nd-cli-job.$$
[ "$err" = "nodrop path: no RDMA device on this host" ] || [ -d /sys/class/infiniband ] &&
	ok "path: no RDMA device said" || bad "path no RDMA: $err"
expect 2 "path lo: a netdev without RDMA" "$NODROP" path --env /tmp/nd-cli-job.$$ lo
[ "$err" = "nodrop path: lo: no RDMA device on this netdev (load its RDMA driver, or for soft-RoCE: rdma link add rxe0 type rxe netdev DEV)" ] &&
	ok "path lo: said so" || bad "path lo: $err"
rm -f /tmp/nd-cli-job.$$
expect 2 "path --env missing file" "$NODROP" path --env /nonexistent/job.env
[ "$err" = "nodrop path: /nonexistent/job.env: cannot read it: No such file or directory" ] &&
	ok "path --env missing: named" || bad "path --env missing: $err"
expect 2 "path --pid of no process" "$NODROP" path --pid 999999999
[ "$err" = "nodrop path: pid 999999999: no such process" ] && ok "path --pid: said" ||
	bad "path --pid: $err"
expect 2 "path --pid and --env" "$NODROP" path --pid 1 --env x
expect 2 "path --stack bogus" "$NODROP" path --stack nccl,bogus
[ "$err" = "nodrop path: --stack 'nccl,bogus': 'bogus' is none of nccl, ucx, rdma_cm" ] &&
	ok "path --stack: the names given" || bad "path --stack: $err"
expect 2 "path --accept-unverified bogus" "$NODROP" path --accept-unverified peer,x
# a port nothing sends LLDP on: heard false, the wait and the reason, exit 0 (root: CAP_NET_RAW)
if [ "$(id -u)" = 0 ]; then
	expect 0 "show --peer-wait 1 lo" "$NODROP" show -j --peer-wait 1 lo
	echo "$out" | jq -e '.[0].peer | .source == "none" and .heard == false and
		.waited_ms == 1000 and (.error | test("no LLDP frame in 1000 ms"))' >/dev/null &&
		ok "show --peer on a silent port: not heard, the wait and why" ||
		bad "show --peer on lo: $out"
fi
expect 2 "unknown command" "$NODROP" frobnicate
[ "$err" = "nodrop: unknown command 'frobnicate'; 'nodrop --help' lists them" ] &&
	ok "unknown command message" || bad "$err"
expect 2 "no command" "$NODROP"
expect 0 "--help" "$NODROP" --help
expect 0 "--version" "$NODROP" --version
expect 0 "show --help" "$NODROP" show --help
# apply / audit / rollback: bad input is refused before anything is read or written
expect 2 "apply without a profile" "$NODROP" apply
expect 2 "apply with a missing profile" "$NODROP" apply /nonexistent/p.yaml
echo "$err" | grep -q "/nonexistent/p.yaml" && ok "the missing file is named" || bad "$err"
expect 2 "a profile matching no port" "$NODROP" apply --dry-run tests/vm/profiles/lossless.yaml
[ "$err" = "nodrop apply: profile 'vm-lossless' matches none of the host's ports; check its ports: section or --dev" ] &&
	ok "no-match message" || bad "no-match message: $err"
expect 2 "audit of a bad profile" "$NODROP" audit tests/profiles/bad/range-priority-8.yaml
echo "$err" | grep -Eq "range-priority-8.yaml:2:19: pfc.priorities: priority 8 is out of range" &&
	ok "file:line:column and key in the error" || bad "bad profile message: $err"
expect 2 "apply --wait takes seconds" "$NODROP" apply --wait soon profiles/roce-lossless.yaml
expect 2 "audit of an unknown --dev" "$NODROP" audit --dev nosuchdev0 profiles/roce-lossless.yaml
empty=$(mktemp -d)
expect 2 "rollback without a journal" "$NODROP" rollback --state-dir "$empty"
echo "$err" | grep -q "no journal at $empty/journal.json" && ok "rollback names the journal" ||
	bad "rollback message: $err"
printf '{"version": 1, "status": "applied"' >"$empty/journal.json"
expect 2 "rollback of a damaged journal" "$NODROP" rollback --state-dir "$empty"
# a journal whose pre-state no port takes is refused as it is read: file, port and field named
jq -n '{set: 1, mtu: 0, dcbx: 0, trust: 0, dscp2prio: [range(64) | -1], pfc_en: 0,
	pfc_delay: 0, prio_tc: [range(8) | 0], tc_tsa: [range(8) | 0], tc_bw: [range(8) | 0],
	prio2buffer: [range(8) | 0], buffer_size: [range(8) | 0], maxrate: [range(8) | 0],
	ecn_np: 0, ecn_rp: 0, cnp_dscp: 0, cnp_prio: 0, dcqcn: {}, roce_tos: 0, roce_mode: "",
	roce_reset: false} as $s | {version: 2, status: "applied", profile: "p.yaml", pid: 1,
	time: 0, ports: [{ifname: "ndnone0", state: $s, post: ($s | .mtu = 1500)}]}' \
	>"$empty/mtu0.json"
expect 2 "rollback of a journal with MTU 0" "$NODROP" rollback --state-dir "$empty" \
	--journal "$empty/mtu0.json"
[ "$err" = "nodrop rollback: $empty/mtu0.json: port ndnone0: pre-state mtu 0 is below 68, the smallest an IPv4 link takes; the journal is damaged: restore the ports by hand or with nodrop apply" ] &&
	ok "the journal, the port and the field are named" || bad "MTU 0 journal message: $err"

# audit --junit writes a report whatever went wrong, so a CI job always finds one
expect 2 "audit --junit of a profile that matches no port" \
	"$NODROP" audit --junit "$empty/none.xml" tests/vm/profiles/lossless.yaml
grep -q '<testcase classname="nodrop.audit" name="vm-lossless"><error message="profile &apos;vm-lossless&apos; matches none of the host&apos;s ports; check its ports: section or --dev"/></testcase>' \
	"$empty/none.xml" 2>/dev/null && ok "the JUnit file has the error as a test case" ||
	bad "JUnit for no match: $(cat "$empty/none.xml" 2>&1)"
grep -q '<testsuite name="nodrop audit" tests="1" failures="0" errors="1">' "$empty/none.xml" &&
	ok "the suite counts one error" || bad "JUnit suite: $(cat "$empty/none.xml")"
expect 2 "audit --junit of a bad profile" \
	"$NODROP" audit --junit "$empty/bad.xml" tests/profiles/bad/range-priority-8.yaml
grep -q '<error message="tests/profiles/bad/range-priority-8.yaml:2:19: pfc.priorities: priority 8 is out of range' \
	"$empty/bad.xml" 2>/dev/null && ok "the JUnit file has the profile error" ||
	bad "JUnit for a bad profile: $(cat "$empty/bad.xml" 2>&1)"

# a port whose driver has no DCB (lo) cannot hold PFC, ETS or a DSCP map: each field is a finding
cat >"$empty/lo.yaml" <<'EOY'
name: lo-lossless
ports: {names: [lo]}
dcbx: host
trust: dscp
dscp-map: {26: 3}
pfc: {priorities: [3]}
ets: {prio-tc: {all: 0, 3: 3}}
EOY
expect 1 "audit of DCB fields on a port without DCB" "$NODROP" audit -j --dev lo --junit "$empty/lo.xml" "$empty/lo.yaml"
echo "$out" | jq -e '[.ports[0].drift[] | select(.unsupported) | .field] ==
	["dcbx", "trust", "dscp-map", "pfc.priorities", "ets.prio-tc"] and
	all(.ports[0].drift[]; .note | test("not supported by this driver"))' >/dev/null &&
	ok "each DCB field is reported as not supported by this driver" || bad "lo audit: $out"
for f in dcbx trust dscp-map pfc.priorities ets.prio-tc; do
	grep -q "name=\"$f\"><failure message=\"unverified: not supported by this driver" \
		"$empty/lo.xml" && ok "JUnit: $f fails, unverified" || bad "JUnit $f: $(cat "$empty/lo.xml")"
done
# unverified is a finding unless the site names the fields it accepts so
expect 1 "audit --accept-unverified of some fields: the others still fail" "$NODROP" audit -j \
	--dev lo --accept-unverified dcbx,trust --accept-unverified dscp-map "$empty/lo.yaml"
echo "$out" | jq -e '[.ports[0].drift[] | select(.accepted) | .field] == ["dcbx", "trust",
	"dscp-map"] and all(.ports[0].drift[]; .unverified)' >/dev/null &&
	ok "accepted fields are marked, all are unverified" || bad "accept some: $out"
expect 0 "audit --accept-unverified of every field the port cannot give: clean" "$NODROP" audit \
	--dev lo --junit "$empty/lo-ok.xml" \
	--accept-unverified dcbx,trust,dscp-map,pfc.priorities,ets.prio-tc "$empty/lo.yaml"
echo "$out" | grep -q "^lo: in profile" && grep -q 'name="trust"><skipped message="accepted unverified: not supported' \
	"$empty/lo-ok.xml" && ok "text says in profile, JUnit skips the accepted" ||
	bad "accept all: $out $(cat "$empty/lo-ok.xml")"
expect 2 "audit --accept-unverified of a field there is not" "$NODROP" audit --dev lo \
	--accept-unverified dcbx,ecn.foo "$empty/lo.yaml"
case $err in
"nodrop audit: --accept-unverified 'dcbx,ecn.foo': 'ecn.foo' is not a profile field; give some of mtu,"*) ok "the bad field named, the good ones listed" ;;
*) bad "accept bad: $err" ;;
esac
# ECN asked of a port whose ECN cannot be read: unverified, exit 1, not "not checked" and 0
cat >"$empty/lo-ecn.yaml" <<'EOY'
name: lo-ecn
ports: {names: [lo]}
ecn: {np: [3], rp: [3], cnp: {dscp: 48}}
EOY
expect 1 "audit of ECN on a port without an ECN backend fails, unverified" "$NODROP" audit -j \
	--dev lo "$empty/lo-ecn.yaml"
echo "$out" | jq -e '[.ports[0].drift[] | select(.unverified and (.accepted | not)) | .field] ==
	["ecn.np", "ecn.rp", "ecn.cnp.dscp"]' >/dev/null && ok "each ECN field unverified" ||
	bad "lo ecn: $out"
expect 0 "... and passes with those fields accepted" "$NODROP" audit --dev lo \
	--accept-unverified ecn.np,ecn.rp,ecn.cnp.dscp "$empty/lo-ecn.yaml"
{ cat "$empty/lo-ecn.yaml"; echo 'audit: {accept-unverified: [ecn.np, ecn.rp]}'; } \
	>"$empty/lo-ecn-accept.yaml"
expect 1 "the profile's own accept-unverified list counts; what it leaves out still fails" \
	"$NODROP" audit -j --dev lo "$empty/lo-ecn-accept.yaml"
echo "$out" | jq -e '[.ports[0].drift[] | select(.accepted) | .field] == ["ecn.np", "ecn.rp"]' \
	>/dev/null && ok "accepted by the profile: ecn.np, ecn.rp" || bad "profile accept: $out"
expect 0 "... and the command line adds to it" "$NODROP" audit --dev lo \
	--accept-unverified ecn.cnp.dscp "$empty/lo-ecn-accept.yaml"
# --peer: a port that hears no switch cannot be verified across its cable (root: CAP_NET_RAW;
# in a network namespace of its own, whose lo takes an MTU a profile can name)
printf 'name: lo-mtu\nports: {names: [lo]}\nmtu: 9000\n' >"$empty/lo-mtu.yaml"
if [ "$(id -u)" = 0 ] && unshare -n true 2>/dev/null; then
	# a program, not a function (expect may put valgrind before it): nodrop runs under
	# valgrind inside the namespace all the same
	in_ns=(unshare -n sh -c '/usr/sbin/ip link set lo mtu 9000 up && exec "$@"' sh)
	expect 1 "audit --peer on a port no switch talks to: a finding" "${in_ns[@]}" "${vg[@]}" \
		"$NODROP" audit -j --dev lo \
		--peer-wait 1 "$empty/lo-mtu.yaml"
	echo "$out" | jq -e '.ports[0].drift == [] and (.ports[0].lints | map(select(.id ==
		"peer-unheard" and .severity == "error")) | length == 1)' >/dev/null &&
		ok "peer-unheard, an error" || bad "audit --peer lo: $out"
	expect 0 "... accepted with --accept-unverified peer" "${in_ns[@]}" "${vg[@]}" "$NODROP" \
		audit --dev lo --peer-wait 1 \
		--accept-unverified peer "$empty/lo-mtu.yaml"
	expect 1 "audit --peer --prometheus" "${in_ns[@]}" "${vg[@]}" "$NODROP" audit --dev lo \
		--peer-wait 1 --prometheus "$empty/audit.prom" "$empty/lo-mtu.yaml"
	why=$(promtool check metrics <"$empty/audit.prom" 2>&1)
	[ -z "$why" ] && grep -qx 'nodrop_peer_heard{device="lo",source="none"} 0' "$empty/audit.prom" &&
		grep -qx 'nodrop_peer_mismatches{device="lo"} 0' "$empty/audit.prom" &&
		grep -qx 'nodrop_audit_findings{device="lo",severity="error"} 1' "$empty/audit.prom" &&
		ok "audit --prometheus: promtool clean, nothing heard, the finding counted" ||
		bad "audit --prometheus: $why $(cat "$empty/audit.prom")"
	# every nodrop_ metric the audit rules name is a family audit --peer writes
	missing=$(grep -o 'nodrop_[a-z_]*' contrib/prometheus/nodrop-audit.rules.yml | sort -u |
		while read -r m; do grep -q "^# TYPE $m " "$empty/audit.prom" || echo "$m"; done)
	[ -z "$missing" ] && ok "the audit rules' metrics are all written" ||
		bad "the audit rules name metrics audit does not write: $missing"
fi
expect 1 "audit --prometheus without --peer" "$NODROP" audit --dev lo --prometheus \
	"$empty/lo.prom" "$empty/lo.yaml"
why=$(promtool check metrics <"$empty/lo.prom" 2>&1)
[ -z "$why" ] && grep -q '^nodrop_audit_drift_fields{device="lo"} 0$' "$empty/lo.prom" &&
	grep -q '^nodrop_audit_unverified_fields{device="lo"} 5$' "$empty/lo.prom" &&
	! grep -q nodrop_peer "$empty/lo.prom" && ok "audit --prometheus: promtool clean, no peer series" ||
	bad "audit --prometheus lo: $why $(cat "$empty/lo.prom")"
expect 3 "audit --prometheus into a directory that does not exist" "$NODROP" audit --dev lo \
	--prometheus "$empty/no/such/dir/lo.prom" "$empty/lo.yaml"
expect 2 "audit --peer-wait x" "$NODROP" audit --peer-wait x "$empty/lo-mtu.yaml"
expect 3 "audit --junit into a directory that does not exist: a system error" \
	"$NODROP" audit --dev lo --junit "$empty/no/such/dir/lo.xml" "$empty/lo.yaml"
echo "$err" | grep -q "cannot write $empty/no/such/dir/lo.xml: No such file or directory" &&
	ok "the JUnit path and the reason are named" || bad "junit write error: $err"
expect 1 "apply --dry-run of DCB fields on a port without DCB" \
	"$NODROP" apply -j --dry-run --dev lo "$empty/lo.yaml"
echo "$out" | jq -e '[.ports[0].changes[] | select(.unsupported)] | length == 5' >/dev/null &&
	ok "the dry run lists what the port cannot hold" || bad "lo dry run: $out"
expect 1 "apply of DCB fields on a port without DCB is refused" \
	"$NODROP" apply --state-dir "$empty/state" --dev lo "$empty/lo.yaml"
case $err in
"nodrop apply: lo: dcbx: not supported by this driver"*"nothing was changed"*) ok "the refusal names port, field and reason" ;;
*) bad "lo apply: $err" ;;
esac
[ ! -e "$empty/state/journal.json" ] && ok "a refused apply leaves no journal" ||
	bad "journal after refusal: $(cat "$empty/state/journal.json")"
rm -rf "$empty"

# compare on recorded runs (tests/compare.py has the seeded cases; these also run under valgrind)
F=$(dirname "$0")/fixtures/compare
expect 0 "compare: an unchanged run" "$NODROP" compare "$F/stress-pair-1.json" \
	"$F/stress-pair-2.json" "$F/stress-pair-3.json"
echo "$out" | grep -q "against 2 runs (median)" && ok "compare: two baseline runs" || bad "$out"
expect 1 "compare: the rate-limited run" "$NODROP" compare -j --skip latency,cpu \
	--junit /tmp/nd-cli-junit.$$ "$F/stress-pair-1.json" "$F/stress-pair-2.json" \
	"$F/stress-pair-4.json"
echo "$out" | jq -e '.[0].result == "REGRESSION" and any(.[0].metrics[];
	.name == "aggregate_gbps" and .worse)' >/dev/null && ok "compare: aggregate_gbps worse" ||
	bad "$out"
grep -q '<failure' /tmp/nd-cli-junit.$$ && ok "compare: JUnit has the failure" || bad "junit"
rm -f /tmp/nd-cli-junit.$$
expect 2 "compare: another workload" "$NODROP" compare "$F/stress-pair-1.json" \
	"$F/stress-pair-netem.json"
echo "$out" | grep -q -- "--qp-timeout 21 vs -1" && ok "compare: the option named" || bad "$out"
expect 2 "compare: a missing file" "$NODROP" compare "$F/stress-pair-1.json" /nonexistent.json
expect 0 "report: a history of four runs" "$NODROP" report "$F/stress-pair-1.json" \
	"$F/stress-pair-2.json" "$F/stress-pair-3.json" "$F/stress-pair-4.json"
[ "$(echo "$out" | grep -o '<svg class="plot"' | wc -l)" -ge 5 ] &&
	echo "$out" | grep -q 'class="regression"' && ok "report: plots and a regression mark" ||
	bad "report: $(echo "$out" | head -c 300)"
expect 2 "report: a missing file" "$NODROP" report /nonexistent.json
echo "$err" | grep -q "/nonexistent.json" && ok "report: the file named" || bad "$err"

# the nightly wrapper (a shell script: not under valgrind) says how to use it
nerr=$("$(dirname "$0")/../contrib/nightly/nodrop-nightly" 2>&1); rc=$?
[ "$rc" = 2 ] && echo "$nerr" | head -5 | grep -q "nodrop-nightly \[-r RESULTS\]" &&
	! echo "$nerr" | grep -q "^set -u" && ok "nodrop-nightly without options: usage, exit 2" ||
	bad "nodrop-nightly usage (rc $rc): $nerr"

# model: a what-if reads nothing; the check case of nodrop-model(8); bad input names the option
expect 0 "model: a what-if" "$NODROP" model -S 400G -P gen5x16 -M 4096 --mem host -s 64K
echo "$out" | grep -q "^    wire  *392.06  *392.06 " && echo "$out" | grep -q "^    pcie_nic " &&
	ok "model: the wire term of 400G at MTU 4096 (392.06 Gb/s)" || bad "model text: $out"
expect 0 "model -j: collectives" "$NODROP" model -j -S 400G -P gen5x16 --gpu-pcie gen5x16 \
	--path PIX --mem gpudirect --nodes 8 --collective all-reduce --algo ring -s 1M
echo "$out" | jq -e '.models[0].mem == "gpudirect" and (.models[0].terms | map(.term) | index("pcie_gpu")) and
	(.collectives[0] | .collective == "all-reduce" and .algo == "ring" and
	 ((.busbw_gbs / .algbw_gbs) - 1.75 | fabs) < 1e-9 and .inter_steps == 14) and
	.collectives[0].nic_gbps == ([.models[0].tx_gbps, .models[0].rx_gbps] | min)' >/dev/null &&
	ok "model -j: terms, ring all-reduce busbw = 1.75 x algbw over 8 nodes" || bad "model -j: $out"
expect 0 "model: all collectives side by side" "$NODROP" model -j -S 100G -P gen4x16 \
	--gpu-pcie gen4x16 --path SYS --mem-bw 100 --copy-rate 8 --nodes 4 --gpus 2 --intra-bw 300
echo "$out" | jq -e '[.collectives[] | select(.mem != "gpudirect") | .vs_gpudirect] | length > 0 and all(. >= 1)' \
	>/dev/null && ok "model: staged and TCP-like are never faster than GPUDirect" || bad "model sbs: $out"
FX=$(dirname "$0")/fixtures
NODROP_SYSROOT=$FX/doctor-cross-socket expect 0 "model on a fixture host (PIX)" "$NODROP" model -j --mem gpudirect
pix=$(echo "$out" | jq -r '.models[0].tx_gbps')
NODROP_SYSROOT=$FX/doctor-cross-socket expect 0 "model on a fixture host (SYS)" "$NODROP" model -j \
	--mem gpudirect --gpu 0000:17:00.0
echo "$out" | jq -e --argjson pix "$pix" '.inputs.path == "SYS" and .models[0].tx_limit == "socket_link" and
	.models[0].tx_gbps < $pix' >/dev/null && ok "model: SYS is bound by the socket link, below PIX ($pix)" ||
	bad "model SYS: $out"
NODROP_SYSROOT=$FX/doctor-cross-socket expect 2 "model: a GPU that is not there" "$NODROP" model --gpu 0000:99:00.0
echo "$err" | grep -q "no GPU 0000:99:00.0" && ok "model: the missing GPU named" || bad "$err"
empty=$(mktemp -d)
NODROP_SYSROOT=$empty expect 2 "model: no RDMA device, no speed" "$NODROP" model
echo "$err" | grep -q "give the port's speed" && ok "model: says to give the speed" || bad "$err"
rmdir "$empty"
expect 2 "model: an MTU that is no IB MTU" "$NODROP" model -S 100G -M 1500
echo "$err" | grep -q "1500" && ok "model: the MTU named" || bad "$err"
expect 2 "model: a PCIe link it cannot parse" "$NODROP" model -S 100G -P gen9x16
echo "$err" | grep -q -- "--pcie 'gen9x16'" && ok "model: --pcie named" || bad "$err"
expect 2 "model: a tree all-gather" "$NODROP" model -S 100G --collective all-gather --algo tree
echo "$err" | grep -q "all-reduce only" && ok "model: trees are for all-reduce" || bad "$err"
scen=$(dirname "$0")/../profiles/scenarios/incast-8.yaml
"$NODROP" sim -j "$scen" >/tmp/nd-cli-sim.$$ 2>/dev/null
expect 0 "model --sim" "$NODROP" model -j -S 100G --mem host --nodes 8 --collective all-to-all \
	--sim /tmp/nd-cli-sim.$$
mean=$(jq '[.flows[].gbps] | add / length' /tmp/nd-cli-sim.$$)
echo "$out" | jq -e --argjson m "$mean" '.collectives[0].nic_gbps - $m | fabs < 1e-9' >/dev/null &&
	ok "model --sim: each NIC at the sim's mean flow ($mean Gb/s)" || bad "model --sim: $out"
# a sim judges nothing: its page's first box says it is modelled and leads with the model's
# aggregate, never a verdict of "none"; a stress run's box keeps its verdict
expect 0 "report of a sim" "$NODROP" report /tmp/nd-cli-sim.$$
box=$(echo "$out" | grep -m1 '<div class="verdict')
agg=$(awk -v g="$(jq .aggregate_gbps /tmp/nd-cli-sim.$$)" 'BEGIN {printf "%.3f", g}')
echo "$box" | grep -q '^<div class="verdict model"><span class="v">modelled</span>' &&
	echo "$box" | grep -qF "A simulated RoCE fabric, not a measured one: <b>$agg Gb/s</b>" &&
	! echo "$out" | grep -qi 'class="v">none<' && ok "report: a sim's box says modelled, $agg Gb/s" ||
	bad "report sim box: $box"
expect 0 "report of a sim's history" "$NODROP" report /tmp/nd-cli-sim.$$ /tmp/nd-cli-sim.$$
echo "$out" | grep -q '<td>modelled</td>' && ! echo "$out" | grep -qi '>none<' &&
	ok "report: a sim history's runs are modelled, none 'none'" || bad "report sim history: $out"
expect 0 "report of a stress run" "$NODROP" report "$F/stress-pair-1.json"
echo "$out" | grep -m1 '<div class="verdict' | grep -q '<div class="verdict ok"><span class="v">lossless</span>' &&
	ok "report: a stress run's box keeps its verdict" || bad "report stress box: $out"
echo '{"kind":"sim"}' >/tmp/nd-cli-sim.$$
expect 2 "model --sim: not a report" "$NODROP" model -S 100G --nodes 2 --sim /tmp/nd-cli-sim.$$
echo "$err" | grep -q "no \"flows\" array" && ok "model --sim: says what is missing" || bad "$err"
rm -f /tmp/nd-cli-sim.$$

# sim --dcqcn-from: the DCQCN of a port's NIC, here lo made a ConnectX under MLNX_OFED by a copy
# of the ecn-ofed fixture's ecn/ directory (ConnectX's shipped values)
nic=$(mktemp -d)
mkdir -p "$nic/sys/class/net/lo" && cp -R "$FX/ecn-ofed/sys/class/net/eth2/ecn" "$nic/sys/class/net/lo/"
"$NODROP" sim -j "$scen" >/tmp/nd-cli-sim.$$ 2>/dev/null
NODROP_SYSROOT=$nic expect 0 "sim --dcqcn-from a NIC with MLNX_OFED's ecn/" \
	"$NODROP" sim -j --dcqcn-from lo "$scen"
echo "$err" | grep -qx "nodrop sim: DCQCN from lo (mlnx-sysfs): on, timer 300 us, byte-counter 2097088, \
fast-recovery 1, ai 5 Mb/s, hai 50 Mb/s, min-rate 1 Mb/s, g 0.00488, alpha 0.99902, alpha-timer 1 us, \
rate-reduce-period 4 us, clamp-target-rate false, cnp-interval 4 us" &&
	ok "sim --dcqcn-from: says each value it took" || bad "sim --dcqcn-from: $err"
[ "$(echo "$out" | jq .aggregate_gbps)" != "$(jq .aggregate_gbps /tmp/nd-cli-sim.$$)" ] &&
	ok "sim --dcqcn-from: the NIC's values change the run" || bad "sim --dcqcn-from: the same run"
echo 0 >"$nic/sys/class/net/lo/ecn/roce_np/enable/3"
NODROP_SYSROOT=$nic expect 0 "sim --dcqcn-from a NIC without DCQCN on the priority" \
	"$NODROP" sim -j --dcqcn-from lo "$scen"
echo "$err" | grep -q "nodrop sim: lo: DCQCN is off on priority 3 of this NIC (no notification point)" &&
	[ "$(echo "$out" | jq '[.ports[].cnp_sent] | add')" = 0 ] &&
	ok "sim --dcqcn-from: DCQCN off where the NIC has it off, and said" || bad "off: $err"
expect 2 "sim --dcqcn-from a port with no DCQCN to read" "$NODROP" sim --dcqcn-from lo "$scen"
echo "$err" | grep -q "^nodrop sim: --dcqcn-from: lo: no DCQCN parameters to read: " &&
	ok "sim --dcqcn-from: says why nothing ran" || bad "no backend: $err"
expect 2 "sim --dcqcn-from a port that is not there" "$NODROP" sim --dcqcn-from nd-none0 "$scen"
rm -rf "$nic" /tmp/nd-cli-sim.$$

# every command in `nodrop --help` has its man page, listed in nodrop(8), and every option in a
# command's --help is in its man page and the other way round
expect 0 "--help lists commands" "$NODROP" --help
cmds=$(echo "$out" | awk '/^Commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} /^$/ {on = 0}')
[ -n "$cmds" ] && ok "commands listed: $(echo $cmds)" || bad "no commands in --help"
# each summary reads alike: a sentence that starts with a capital, no full stop
lower=$(echo "$out" | awk '/^Commands:/ {on = 1; next} on && /^  [a-z]/ && ($2 !~ /^[A-Z]/ || /\.$/)')
[ -z "$lower" ] && ok "every command's summary is a capitalised sentence" || bad "summaries: $lower"
for c in $cmds; do
	m=man/nodrop-$c.8
	[ -f "$m" ] && ok "$m exists" || { bad "$m missing"; continue; }
	grep -q "^\.B $c\$" man/nodrop.8 && ok "nodrop.8 lists $c" || bad "nodrop.8 lacks $c"
	help=$("$NODROP" "$c" --help)
	for o in $(echo "$help" | grep -o -- '--[a-z-]*' | sort -u); do
		grep -q -- "${o//-/\\\\-}" "$m" && ok "$m documents $o" || bad "$m lacks $o"
	done
	for o in $(grep -o -- '\\-\\-[a-z\\-]*' "$m" | sed 's/\\//g' | sort -u); do
		echo "$help" | grep -q -- "$o" && ok "$c --help has $o from $m" ||
			bad "$c --help lacks $o"
	done
done
rm -f /tmp/nd-cli-err.$$
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
